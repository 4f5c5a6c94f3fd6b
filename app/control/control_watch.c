/* SPDX-License-Identifier: BSD-3-Clause
 * Other modules' file descriptors in the control server's epoll set
 * (control.h: control_watch()): a small fixed table, so that an event
 * already returned by epoll_wait() for a watch removed since points at a
 * slot that still exists (marked free) rather than at freed memory.
 */
#include "control.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/epoll.h>

#include "control_priv.h"

struct watch {
	enum endpoint_kind kind;	/* ENDPOINT_WATCH */
	bool used;
	int fd;
	void (*fn)(void *aux);
	void *aux;
};

static struct watch watches[CONTROL_MAX_WATCHES];

/* The watch of 'fd', or with fd -1 a free slot. */
static struct watch *
find(int fd)
{
	for (int i = 0; i < CONTROL_MAX_WATCHES; i++)
		if (fd < 0 ? !watches[i].used
			   : watches[i].used && watches[i].fd == fd)
			return &watches[i];
	return NULL;
}

int
control_watch(int fd, uint32_t events, void (*fn)(void *aux), void *aux)
{
	int epfd = control_epfd();
	struct watch *w = find(fd);
	int op = w ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;

	if (epfd < 0 || fd < 0 || (!w && !(w = find(-1)))) {
		errno = epfd < 0 || fd < 0 ? EBADF : ENOSPC;
		return -1;
	}
	struct epoll_event ev = { .events = events, .data.ptr = w };
	if (epoll_ctl(epfd, op, fd, &ev))
		return -1;
	w->kind = ENDPOINT_WATCH;
	w->used = true;
	w->fd = fd;
	w->fn = fn;
	w->aux = aux;
	return 0;
}

void
control_unwatch(int fd)
{
	struct watch *w = fd >= 0 ? find(fd) : NULL;

	if (!w)
		return;
	epoll_ctl(control_epfd(), EPOLL_CTL_DEL, fd, NULL);
	w->used = false;
}

void
control_watch_ready(void *endpoint)
{
	struct watch *w = endpoint;

	if (w->used)
		w->fn(w->aux);
}

void
control_watch_fini(void)
{
	for (int i = 0; i < CONTROL_MAX_WATCHES; i++)
		watches[i].used = false;
}
