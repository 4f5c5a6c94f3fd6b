/* SPDX-License-Identifier: BSD-3-Clause
 * The listening sockets of the control server (control_server.c), made
 * and removed safely: a private mode-0600 socket whose parent directories
 * are created, which replaces only a stale socket file, and which is
 * unlinked at the end only if it is still the one bound. Not for other
 * modules.
 */
#ifndef VXS_CONTROL_SOCKET_H
#define VXS_CONTROL_SOCKET_H

#include <stddef.h>
#include <sys/types.h>

struct control_sock {
	int fd;				/* -1: closed */
	char path[108];			/* sizeof sockaddr_un.sun_path */
	dev_t dev;			/* what we bound, so that close */
	ino_t ino;			/* unlinks only that */
};

/* Listens on 'path' (non-blocking, close-on-exec, 'backlog' deep) into
 * 's'. Returns 0, or -1 with a message in 'err' and s->fd -1. */
int control_sock_open(struct control_sock *s, const char *path, int backlog,
		      char *err, size_t errlen);

/* Closes 's' and unlinks its path if that is still the socket bound. */
void control_sock_close(struct control_sock *s);

void control_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
