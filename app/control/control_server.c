/* SPDX-License-Identifier: BSD-3-Clause
 * The control socket's server: non-blocking listeners (control.h's
 * socket, and the unixctl one if opened) and up to max_clients
 * non-blocking clients in one epoll set, all served from control_poll()
 * in the control thread. Each listener speaks one protocol (struct
 * control_proto: control.h's, below, or OVS's unixctl,
 * control_unixctl.c); the commands are control.c's, shared by both.
 *
 * No client can hold up another: every socket is non-blocking, each
 * client has its own request buffer and its own pending answer, and a
 * control_poll() only ever does what the kernel says can be done without
 * waiting. A client's life:
 *
 *   IDLE     connected, not a byte yet. Allowed to stay CONTROL_IDLE_
 *            TIMEOUT_MS; when the table is full, the oldest idle client is
 *            closed to make room (so idle connections can never lock the
 *            operator out). Only when no client is idle is a new one
 *            refused, with an ERROR answer saying so.
 *   READING  its first byte came: the whole request must be in within
 *            CONTROL_IO_TIMEOUT_MS of it and within CONTROL_MAX_REQUEST
 *            bytes, else it gets an ERROR answer. The request is run as
 *            soon as its end is seen; anything after it (including EOF,
 *            from a client that shut down its writing side) is ignored.
 *   WRITING  the answer is queued: sent as the socket takes it; a client
 *            that takes nothing of it for CONTROL_IO_TIMEOUT_MS is dropped.
 *            The connection is closed once all is sent (that ends the
 *            body, per the protocol), unless the protocol keeps it open
 *            for more requests (unixctl): then it is IDLE again, or
 *            READING if more of the next request came along already;
 *            a complete one already here is run at the next
 *            control_poll() (it is "pending"), so that one client's
 *            queue of requests cannot keep the others waiting.
 */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "control_priv.h"
#include "control_socket.h"
#include "json_out.h"

/* The kernel queues connections while one control_poll() accepts: many,
 * so that a burst of scripts (or of hostile connects) is not refused
 * before the server even sees it. */
#define CONTROL_BACKLOG 1024
/* Reads and accepts per control_poll(), so that one busy client or a
 * connect flood cannot keep control_poll() from returning to the loop. */
#define CONTROL_READ_CHUNK 65536
#define CONTROL_READS_PER_POLL 4
#define CONTROL_ACCEPTS_PER_POLL 256
#define CONTROL_EVENTS_PER_POLL 256
/* File descriptors kept free for the rest of the daemon (DPDK, vhost-user
 * sockets, telemetry) when RLIMIT_NOFILE is raised for the clients. */
#define CONTROL_FD_RESERVE 1024

enum client_state { CLIENT_IDLE, CLIENT_READING, CLIENT_WRITING };

struct listener {
	enum endpoint_kind kind;	/* ENDPOINT_LISTENER */
	struct control_sock sock;
	const struct control_proto *proto;
};

enum { LISTENER_VXS, LISTENER_UNIXCTL, N_LISTENERS };

struct client {
	enum endpoint_kind kind;	/* ENDPOINT_CLIENT */
	int fd;
	const struct control_proto *proto;
	bool pending;			/* a complete request is buffered */
	bool keep_open;			/* after the answer being sent */
	uint64_t scan;			/* proto->request_end's */
	enum client_state state;
	long long since;		/* accepted at, ms */
	long long deadline;		/* ms; what happens then: see above */
	char *in;			/* the request so far */
	size_t in_len, in_cap, scanned;
	struct ds out;			/* the answer, status line included */
	size_t out_done;
};

struct control_stats {
	unsigned long long accepted, answered, refused_full, evicted_idle,
		idle_timeouts, request_timeouts, write_timeouts, too_large,
		hung_up;
};

static struct {
	struct listener listeners[N_LISTENERS];
	int epfd;			/* -1 until control_init() */
	int spare_fd;			/* given up to accept() at EMFILE */
	struct client **clients;
	size_t n_clients, n_pending;
	int max_clients;
	long long next_deadline;	/* none of the clients' is earlier */
	struct control_stats stats;
} server = {
	.listeners = {
		[LISTENER_VXS] = { ENDPOINT_LISTENER, { .fd = -1 },
				   &control_vxs_proto },
		[LISTENER_UNIXCTL] = { ENDPOINT_LISTENER, { .fd = -1 },
				       &control_unixctl_proto },
	},
	.epfd = -1, .spare_fd = -1, .max_clients = CONTROL_MAX_CLIENTS };

/* Room for max_clients descriptors besides the daemon's own: the soft
 * RLIMIT_NOFILE goes up as far as the hard one allows, and where that is
 * not enough the client limit comes down to what fits. */
static void
fit_fd_limit(void)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)server.max_clients + CONTROL_FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		rlim_t old = rl.rlim_cur;
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want
			      ? want : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = old;
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		rlim_t fit = rl.rlim_cur > 2 * CONTROL_FD_RESERVE
			     ? rl.rlim_cur - CONTROL_FD_RESERVE
			     : rl.rlim_cur / 2;
		server.max_clients = fit > 0 ? (int)fit : 1;
	}
}

/* ---- clients ---- */

static void
note_deadline(struct client *c, long long deadline)
{
	c->deadline = deadline;
	if (deadline < server.next_deadline)
		server.next_deadline = deadline;
}

static int
watch(struct client *c, uint32_t events, int op)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };
	return epoll_ctl(server.epfd, op, c->fd, &ev);
}

/* Removes 'c' from the table (the last one takes its place) and frees it. */
static void
client_close(struct client *c)
{
	for (size_t i = 0; i < server.n_clients; i++) {
		if (server.clients[i] == c) {
			server.clients[i] =
				server.clients[--server.n_clients];
			break;
		}
	}
	if (c->pending)
		server.n_pending--;
	close(c->fd);		/* also takes it out of the epoll set */
	free(c->in);
	ds_destroy(&c->out);
	free(c);
}

/* Sends what the socket takes now. Returns true when all is sent. */
static bool
client_flush(struct client *c, long long now)
{
	while (c->out_done < c->out.len) {
		/* MSG_NOSIGNAL: a client that left must not kill the daemon. */
		ssize_t n = send(c->fd, c->out.s + c->out_done,
				 c->out.len - c->out_done,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			c->out_done += (size_t)n;
			note_deadline(c, now + CONTROL_IO_TIMEOUT_MS);
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno == EAGAIN) {
			return false;
		} else {
			c->keep_open = false;
			return true;	/* gone: nothing more to send */
		}
	}
	return true;
}

/* The answer is all out: the connection ends, or (a protocol that keeps
 * it) waits for the next request, which may be in already. */
static void
client_sent(struct client *c, long long now)
{
	if (!c->keep_open || watch(c, EPOLLIN, EPOLL_CTL_MOD)) {
		client_close(c);
		return;
	}
	ds_clear(&c->out);
	c->out_done = 0;
	c->state = c->in_len ? CLIENT_READING : CLIENT_IDLE;
	note_deadline(c, now + (c->in_len ? CONTROL_IO_TIMEOUT_MS
					  : CONTROL_IDLE_TIMEOUT_MS));
	if (c->in_len &&
	    c->proto->request_end(c->in, 0, c->in_len, &c->scan)) {
		c->pending = true;
		server.n_pending++;
	}
	c->scanned = c->in_len;
}

/* Queues 'answer' (framed by the protocol) and sends what can be sent,
 * dropping the request's 'used' bytes from the input buffer. 'last': the
 * connection ends after it whatever the protocol (the server's own
 * errors). */
static void
client_answer(struct client *c, const struct ds *answer, size_t used,
	      bool last, long long now)
{
	ds_clear(&c->out);
	ds_put_buf(&c->out, ds_cstr(answer), answer->len);
	c->out_done = 0;
	c->keep_open = c->proto->keep_open && !last;
	if (!c->keep_open || used >= c->in_len) {
		free(c->in);	/* the request is done with */
		c->in = NULL;
		c->in_len = c->in_cap = 0;
	} else {		/* keep what came after it */
		memmove(c->in, c->in + used, c->in_len - used);
		c->in_len -= used;
	}
	c->scanned = 0;
	c->scan = 0;
	c->state = CLIENT_WRITING;
	note_deadline(c, now + CONTROL_IO_TIMEOUT_MS);
	if (client_flush(c, now))
		client_sent(c, now);
	else if (watch(c, EPOLLOUT, EPOLL_CTL_MOD))
		client_close(c);
}

static void
client_error(struct client *c, long long now, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The server's own error (limits, time-outs): the last answer. */
static void
client_error(struct client *c, long long now, const char *fmt, ...)
{
	struct ds msg = DS_EMPTY_INITIALIZER, answer = DS_EMPTY_INITIALIZER;
	va_list args;

	va_start(args, fmt);
	ds_put_vformat(&msg, fmt, args);
	va_end(args);
	c->proto->error(ds_cstr(&msg), &answer);
	client_answer(c, &answer, c->in_len, true, now);
	ds_destroy(&msg);
	ds_destroy(&answer);
}

static bool
client_grow(struct client *c)
{
	size_t cap = c->in_cap ? c->in_cap * 2 : CONTROL_READ_CHUNK;
	if (cap > CONTROL_MAX_REQUEST)
		cap = CONTROL_MAX_REQUEST;
	char *p = realloc(c->in, cap);
	if (!p)
		return false;
	c->in = p;
	c->in_cap = cap;
	return true;
}

/* Runs the request at the start of the input buffer if it is complete.
 * Returns 1 if it was (and is answered), else 0. */
static int
client_run_buffered(struct client *c, long long now)
{
	if (c->pending) {	/* found before: scan it again from 0 */
		c->pending = false;
		server.n_pending--;
		c->scanned = 0;
		c->scan = 0;
	}
	size_t end = c->proto->request_end(c->in, c->scanned, c->in_len,
					   &c->scan);
	c->scanned = c->in_len;
	if (!end)
		return 0;
	struct ds answer = DS_EMPTY_INITIALIZER;
	c->proto->run(c->in, end, &answer);
	server.stats.answered++;
	client_answer(c, &answer, end, false, now);
	ds_destroy(&answer);
	return 1;
}

/* Reads what is there (a few chunks at most) and runs the request once its
 * end is in. Returns 1 if a complete request was answered, else 0. */
static int
client_read(struct client *c, long long now)
{
	for (int i = 0; i < CONTROL_READS_PER_POLL; i++) {
		if (c->in_len == CONTROL_MAX_REQUEST) {
			server.stats.too_large++;
			client_error(c, now, "request too large (limit %d "
				     "bytes)", CONTROL_MAX_REQUEST);
			return 0;
		}
		if (c->in_len == c->in_cap && !client_grow(c)) {
			client_error(c, now, "out of memory");
			return 0;
		}
		ssize_t n = recv(c->fd, c->in + c->in_len,
				 c->in_cap - c->in_len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			server.stats.hung_up++;
			if (c->state == CLIENT_IDLE)
				client_close(c);
			else	/* the answer is for a half-closed client */
				client_error(c, now, "request incomplete: "
					     "connection closed");
			return 0;
		}
		if (c->state == CLIENT_IDLE) {
			c->state = CLIENT_READING;
			note_deadline(c, now + CONTROL_IO_TIMEOUT_MS);
		}
		c->in_len += (size_t)n;
		if (client_run_buffered(c, now))
			return 1;
	}
	return 0;
}

/* The idle client that has waited longest, or NULL if none is idle. */
static struct client *
oldest_idle(void)
{
	struct client *oldest = NULL;

	for (size_t i = 0; i < server.n_clients; i++) {
		struct client *c = server.clients[i];
		if (c->state == CLIENT_IDLE &&
		    (!oldest || c->since < oldest->since))
			oldest = c;
	}
	return oldest;
}

/* A best-effort one-shot error answer, in 'proto''s framing, to a client
 * that gets nothing else. */
static void
tell(int fd, const struct control_proto *proto, const char *msg)
{
	struct ds answer = DS_EMPTY_INITIALIZER;

	proto->error(msg, &answer);
	ssize_t n = send(fd, ds_cstr(&answer), answer.len,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)n;
	ds_destroy(&answer);
}

static void
refuse(int fd, const struct control_proto *proto)
{
	char msg[128];

	snprintf(msg, sizeof msg, "too many control connections "
		 "(limit %d); try again", server.max_clients);
	server.stats.refused_full++;
	tell(fd, proto, msg);
	close(fd);
}

/* Makes room for one more client if the table is full: the oldest idle
 * one goes. False if every client is busy with a request. */
static bool
make_room(void)
{
	if (server.n_clients < (size_t)server.max_clients)
		return true;
	struct client *victim = oldest_idle();
	if (!victim)
		return false;
	server.stats.evicted_idle++;
	char msg[128];
	snprintf(msg, sizeof msg, "closed: too many control "
		 "connections (limit %d), this was the oldest idle one",
		 server.max_clients);
	tell(victim->fd, victim->proto, msg);
	client_close(victim);
	return true;
}

/* At EMFILE: the spare descriptor makes one accept() possible, to tell the
 * client why, so that it does not sit in the backlog forever. */
static void
refuse_without_fds(const struct listener *l)
{
	if (server.spare_fd < 0)
		return;
	close(server.spare_fd);
	int fd = accept4(l->sock.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd >= 0)
		refuse(fd, l->proto);
	server.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static int
client_add(int fd, const struct control_proto *proto, long long now)
{
	struct client *c = calloc(1, sizeof *c);

	if (c && server.n_clients % 64 == 0) {
		struct client **p = realloc(server.clients,
			(server.n_clients + 64) * sizeof *p);
		if (p)
			server.clients = p;
		else {
			free(c);
			c = NULL;
		}
	}
	if (!c) {
		tell(fd, proto, "out of memory");
		close(fd);
		return 0;
	}
	c->kind = ENDPOINT_CLIENT;
	c->fd = fd;
	c->proto = proto;
	c->state = CLIENT_IDLE;
	c->since = now;
	ds_init(&c->out);
	note_deadline(c, now + CONTROL_IDLE_TIMEOUT_MS);
	if (watch(c, EPOLLIN, EPOLL_CTL_ADD)) {
		close(fd);
		free(c);
		return 0;
	}
	server.clients[server.n_clients++] = c;
	server.stats.accepted++;
	/* The request is often in already: no need to wait a round. */
	return client_read(c, now);
}

/* Accepts what is waiting (a bounded number). Returns requests answered. */
static int
accept_clients(const struct listener *l, long long now)
{
	int served = 0;

	for (int i = 0; i < CONTROL_ACCEPTS_PER_POLL; i++) {
		int fd = accept4(l->sock.fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
			/* Out of descriptors below the client limit (the
			 * daemon uses more than we reserved): room again is
			 * made by the oldest idle client, if there is one. */
			struct client *victim = oldest_idle();
			if (victim) {
				server.stats.evicted_idle++;
				client_close(victim);
			} else {
				refuse_without_fds(l);
			}
			continue;
		}
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;
		}
		if (!make_room())
			refuse(fd, l->proto);
		else
			served += client_add(fd, l->proto, now);
	}
	return served;
}

/* Deals with every client whose deadline has passed. */
static void
expire_clients(long long now)
{
	if (now < server.next_deadline)
		return;
	server.next_deadline = LLONG_MAX;
	for (size_t i = 0; i < server.n_clients;) {
		struct client *c = server.clients[i];
		if (c->deadline > now) {
			if (c->deadline < server.next_deadline)
				server.next_deadline = c->deadline;
			i++;
			continue;
		}
		/* Each case closes 'c' or gives it a later deadline; a
		 * closed one's slot is taken by the last client, so look at
		 * slot i again. */
		switch (c->state) {
		case CLIENT_IDLE:
			server.stats.idle_timeouts++;
			client_error(c, now, "no request within %d ms",
				     CONTROL_IDLE_TIMEOUT_MS);
			break;
		case CLIENT_READING:
			server.stats.request_timeouts++;
			client_error(c, now, "request incomplete after %d ms",
				     CONTROL_IO_TIMEOUT_MS);
			break;
		case CLIENT_WRITING:
			server.stats.write_timeouts++;
			client_close(c);
			continue;
		}
		if (i < server.n_clients && server.clients[i] == c)
			i++;
	}
}

/* ---- the server ---- */

static void
put_stats(bool json, struct ds *out)
{
	const struct control_stats *s = &server.stats;
	const struct { const char *name; unsigned long long v; } rows[] = {
		{ "clients", server.n_clients },
		{ "max_clients", (unsigned long long)server.max_clients },
		{ "accepted", s->accepted },
		{ "answered", s->answered },
		{ "refused_full", s->refused_full },
		{ "evicted_idle", s->evicted_idle },
		{ "idle_timeouts", s->idle_timeouts },
		{ "request_timeouts", s->request_timeouts },
		{ "write_timeouts", s->write_timeouts },
		{ "too_large", s->too_large },
		{ "hung_up", s->hung_up },
	};
	size_t n = sizeof rows / sizeof *rows;

	if (json)
		jw_begin_object(out);
	for (size_t i = 0; i < n; i++) {
		if (json) {
			jw_key(out, rows[i].name);
			jw_u64(out, rows[i].v);
		} else {
			ds_put_format(out, "%s: %llu\n", rows[i].name,
				      rows[i].v);
		}
	}
	if (json) {
		jw_end_object(out);
		ds_put_char(out, '\n');
	}
}

static int
cmd_control_show(int argc, const char *argv[], bool json, struct ds *out,
		 void *aux)
{
	(void)argc, (void)argv, (void)aux;
	put_stats(json, out);
	return 0;
}

int
control_set_max_clients(int max_clients)
{
	if (max_clients < 1)
		return -1;
	server.max_clients = max_clients;
	if (server.epfd >= 0)
		fit_fd_limit();
	return server.max_clients;
}

/* Opens listener 'which' on 'sock_path' in the epoll set. */
static int
listener_open(int which, const char *sock_path, char *err, size_t errlen)
{
	struct listener *l = &server.listeners[which];

	if (l->sock.fd >= 0) {
		control_set_err(err, errlen, "control socket already open at "
				"%s", l->sock.path);
		return -1;
	}
	if (control_sock_open(&l->sock, sock_path, CONTROL_BACKLOG, err,
			      errlen))
		return -1;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = l };
	if (epoll_ctl(server.epfd, EPOLL_CTL_ADD, l->sock.fd, &ev)) {
		control_set_err(err, errlen, "epoll_ctl: %s", strerror(errno));
		control_sock_close(&l->sock);
		return -1;
	}
	return 0;
}

int
control_init(const char *sock_path, char *err, size_t errlen)
{
	if (server.epfd >= 0)
		return listener_open(LISTENER_VXS, sock_path, err, errlen);
	server.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (server.epfd < 0) {
		control_set_err(err, errlen, "epoll_create1: %s",
				strerror(errno));
		return -1;
	}
	if (listener_open(LISTENER_VXS, sock_path, err, errlen)) {
		close(server.epfd);
		server.epfd = -1;
		return -1;
	}
	control_register_builtins();
	control_register("control/show", "", 0, 0, cmd_control_show, NULL);
	control_unixctl_register();
	server.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	server.next_deadline = LLONG_MAX;
	memset(&server.stats, 0, sizeof server.stats);
	fit_fd_limit();
	return 0;
}

int
control_unixctl_init(const char *sock_path, char *err, size_t errlen)
{
	const char *vxs_path = server.listeners[LISTENER_VXS].sock.path;
	char path[sizeof server.listeners[0].sock.path];

	if (server.epfd < 0) {
		control_set_err(err, errlen, "unixctl: the control socket "
				"is not open");
		return -1;
	}
	if (!sock_path || !*sock_path) {	/* OVS: <rundir>/NAME.PID.ctl */
		const char *slash = strrchr(vxs_path, '/');
		int dir_len = slash ? (int)(slash - vxs_path) + 1 : 0;
		int n = snprintf(path, sizeof path, "%.*svxswitch.%ld.ctl",
				 dir_len, vxs_path, (long)getpid());
		if (n < 0 || (size_t)n >= sizeof path) {
			control_set_err(err, errlen, "unixctl socket path "
					"beside %s is too long", vxs_path);
			return -1;
		}
		sock_path = path;
	}
	return listener_open(LISTENER_UNIXCTL, sock_path, err, errlen);
}

const char *
control_unixctl_path(void)
{
	const struct listener *l = &server.listeners[LISTENER_UNIXCTL];
	return l->sock.fd >= 0 ? l->sock.path : NULL;
}

void
control_fini(void)
{
	while (server.n_clients)
		client_close(server.clients[server.n_clients - 1]);
	free(server.clients);
	server.clients = NULL;
	server.n_pending = 0;
	for (int i = 0; i < N_LISTENERS; i++)
		control_sock_close(&server.listeners[i].sock);
	if (server.epfd >= 0) {
		close(server.epfd);
		if (server.spare_fd >= 0)
			close(server.spare_fd);
		server.epfd = server.spare_fd = -1;
	}
	control_watch_fini();
	control_commands_forget();
}

int
control_epfd(void)
{
	return server.epfd;
}

/* Runs one buffered request of each client that has one (requests that
 * came in behind another on a connection kept open). */
static int
serve_pending(long long now)
{
	int served = 0;

	for (size_t i = 0; server.n_pending && i < server.n_clients;) {
		struct client *c = server.clients[i];
		if (c->pending)
			served += client_run_buffered(c, now);
		/* A closed client's slot is taken by the last one. */
		if (i < server.n_clients && server.clients[i] == c)
			i++;
	}
	return served;
}

int
control_poll(int timeout_ms)
{
	struct epoll_event events[CONTROL_EVENTS_PER_POLL];
	const struct listener *ready[N_LISTENERS];
	void *watched[CONTROL_MAX_WATCHES];
	int n_ready = 0, n_watched = 0, served = 0;

	if (server.epfd < 0)
		return -1;

	/* Wake for the earliest deadline too, so that it is kept. */
	long long now = (long long)vxs_now_ms();
	if (server.next_deadline != LLONG_MAX) {
		long long left = server.next_deadline - now;
		left = left < 0 ? 0 : left;
		if (timeout_ms < 0 || left < timeout_ms)
			timeout_ms = (int)(left > INT_MAX ? INT_MAX : left);
	}
	if (server.n_pending)
		timeout_ms = 0;
	int n = epoll_wait(server.epfd, events, CONTROL_EVENTS_PER_POLL,
			   timeout_ms);
	now = (long long)vxs_now_ms();
	/* Clients first, the listeners after: accepting may evict a client
	 * that has an event further down this array. Each client is in the
	 * array once, and only its own handling can close it. */
	for (int i = 0; i < n; i++) {
		enum endpoint_kind *kind = events[i].data.ptr;
		if (*kind == ENDPOINT_LISTENER) {
			ready[n_ready++] = events[i].data.ptr;
			continue;
		}
		if (*kind == ENDPOINT_WATCH) {	/* each once: the table's */
			watched[n_watched++] = events[i].data.ptr;
			continue;
		}
		struct client *c = events[i].data.ptr;
		if (c->state == CLIENT_WRITING) {
			if (client_flush(c, now))
				client_sent(c, now);
		} else {
			served += client_read(c, now);
		}
	}
	for (int i = 0; i < n_ready; i++)
		served += accept_clients(ready[i], now);
	served += serve_pending(now);
	expire_clients(now);
	for (int i = 0; i < n_watched; i++)
		control_watch_ready(watched[i]);
	return served;
}
