/* SPDX-License-Identifier: BSD-3-Clause
 * The control socket's server: one non-blocking listener and up to
 * max_clients non-blocking clients in one epoll set, all served from
 * control_poll() in the control thread. The protocol is in control.h; the
 * commands are control.c's.
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
 *            body, per the protocol).
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

struct client {
	int fd;
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
	int fd;
	int epfd;
	int spare_fd;			/* given up to accept() at EMFILE */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t dev;			/* what we bound, so that fini */
	ino_t ino;			/* unlinks only that */
	struct client **clients;
	size_t n_clients;
	int max_clients;
	long long next_deadline;	/* none of the clients' is earlier */
	struct control_stats stats;
} server = { .fd = -1, .epfd = -1, .spare_fd = -1,
	     .max_clients = CONTROL_MAX_CLIENTS };

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list args;

	if (!errlen)
		return;
	va_start(args, fmt);
	vsnprintf(err, errlen, fmt, args);
	va_end(args);
}

/* ---- socket setup ---- */

/* mkdir -p of everything before the last '/'. Directories that exist are
 * left as they are: their mode is the administrator's business. */
static int
make_parent_dirs(const char *path, char *err, size_t errlen)
{
	char dir[sizeof server.path];

	snprintf(dir, sizeof dir, "%s", path);
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST) {
			set_err(err, errlen, "cannot create directory %s: %s",
				dir, strerror(errno));
			return -1;
		}
		*p = '/';
	}
	return 0;
}

static void
fill_addr(struct sockaddr_un *addr, const char *path)
{
	memset(addr, 0, sizeof *addr);
	addr->sun_family = AF_UNIX;
	memcpy(addr->sun_path, path, strlen(path) + 1);
}

/* Whether a process listens on 'path': 1 yes, 0 no, -1 cannot tell. A
 * non-blocking probe, as a listener with a full backlog would block. */
static int
someone_listens(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un addr;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		set_err(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	fill_addr(&addr, path);
	int rc = connect(fd, (struct sockaddr *)&addr, sizeof addr);
	int saved = errno;
	close(fd);
	if (!rc || saved == EAGAIN || saved == EINPROGRESS)
		return 1;
	if (saved == ECONNREFUSED)
		return 0;
	set_err(err, errlen, "cannot check %s: %s", path, strerror(saved));
	return -1;
}

/* Clears the way for bind(): only a socket file nobody listens on goes. */
static int
remove_stale_socket(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		set_err(err, errlen, "%s exists and is not a socket; "
			"not replacing it", path);
		return -1;
	}
	int live = someone_listens(path, err, errlen);
	if (live < 0)
		return -1;
	if (live) {
		set_err(err, errlen, "another process is listening on %s "
			"(is vxswitch already running?)", path);
		return -1;
	}
	if (unlink(path) && errno != ENOENT) {
		set_err(err, errlen, "cannot remove stale socket %s: %s",
			path, strerror(errno));
		return -1;
	}
	return 0;
}

/* bind() under a umask so that the socket is never, even briefly, open to
 * others; the chmod is for file systems that ignore the umask. */
static int __attribute__((nonnull(2)))
bind_private(int fd, const char *path, char *err, size_t errlen)
{
	struct sockaddr_un addr;

	fill_addr(&addr, path);
	mode_t old = umask(0177);
	int rc = bind(fd, (struct sockaddr *)&addr, sizeof addr);
	int saved = errno;
	umask(old);
	if (rc) {
		set_err(err, errlen, "cannot bind %s: %s", path,
			strerror(saved));
		return -1;
	}
	if (chmod(path, 0600)) {
		set_err(err, errlen, "cannot chmod %s: %s", path,
			strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

static int __attribute__((nonnull(1)))
open_listener(const char *path, char *err, size_t errlen)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct stat st;

	if (fd < 0) {
		set_err(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (bind_private(fd, path, err, errlen)) {
		close(fd);
		return -1;
	}
	if (listen(fd, CONTROL_BACKLOG) || stat(path, &st)) {
		set_err(err, errlen, "cannot listen on %s: %s", path,
			strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	server.dev = st.st_dev;
	server.ino = st.st_ino;
	return fd;
}


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
			return true;	/* gone: nothing more to send */
		}
	}
	return true;
}

/* Queues the answer and sends what can be sent; closes the client when it
 * is all out, else waits for the socket to take the rest. */
static void
client_answer(struct client *c, int status, const struct ds *body,
	      long long now)
{
	ds_clear(&c->out);
	ds_put_cstr(&c->out, status ? "ERROR\n" : "OK\n");
	ds_put_buf(&c->out, ds_cstr(body), body->len);
	c->out_done = 0;
	free(c->in);		/* the request is done with */
	c->in = NULL;
	c->in_len = c->in_cap = 0;
	c->state = CLIENT_WRITING;
	note_deadline(c, now + CONTROL_IO_TIMEOUT_MS);
	if (client_flush(c, now) || watch(c, EPOLLOUT, EPOLL_CTL_MOD))
		client_close(c);
}

static void
client_error(struct client *c, long long now, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
client_error(struct client *c, long long now, const char *fmt, ...)
{
	struct ds body = DS_EMPTY_INITIALIZER;
	va_list args;

	va_start(args, fmt);
	ds_put_vformat(&body, fmt, args);
	va_end(args);
	client_answer(c, -1, &body, now);
	ds_destroy(&body);
}

/* The request ends with its first empty string: a NUL at the very start or
 * right after another NUL. Returns the request's length, 0 if incomplete. */
static size_t
find_request_end(const char *buf, size_t scanned, size_t len)
{
	for (size_t i = scanned; i < len; i++)
		if (!buf[i] && (i == 0 || !buf[i - 1]))
			return i + 1;
	return 0;
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
		size_t end = find_request_end(c->in, c->scanned,
					      c->in_len + (size_t)n);
		c->in_len += (size_t)n;
		c->scanned = c->in_len;
		if (end) {
			struct ds body = DS_EMPTY_INITIALIZER;
			int status = control_execute(c->in, end, &body);
			server.stats.answered++;
			client_answer(c, status, &body, now);
			ds_destroy(&body);
			return 1;
		}
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

/* A best-effort one-shot answer to a client that gets nothing else. */
static void
tell(int fd, const char *msg)
{
	ssize_t n = send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)n;
}

static void
refuse(int fd)
{
	char msg[128];

	snprintf(msg, sizeof msg, "ERROR\ntoo many control connections "
		 "(limit %d); try again", server.max_clients);
	server.stats.refused_full++;
	tell(fd, msg);
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
	snprintf(msg, sizeof msg, "ERROR\nclosed: too many control "
		 "connections (limit %d), this was the oldest idle one",
		 server.max_clients);
	tell(victim->fd, msg);
	client_close(victim);
	return true;
}

/* At EMFILE: the spare descriptor makes one accept() possible, to tell the
 * client why, so that it does not sit in the backlog forever. */
static void
refuse_without_fds(void)
{
	if (server.spare_fd < 0)
		return;
	close(server.spare_fd);
	int fd = accept4(server.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd >= 0)
		refuse(fd);
	server.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static int
client_add(int fd, long long now)
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
		tell(fd, "ERROR\nout of memory");
		close(fd);
		return 0;
	}
	c->fd = fd;
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
accept_clients(long long now)
{
	int served = 0;

	for (int i = 0; i < CONTROL_ACCEPTS_PER_POLL; i++) {
		int fd = accept4(server.fd, NULL, NULL,
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
				refuse_without_fds();
			}
			continue;
		}
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;
		}
		if (!make_room())
			refuse(fd);
		else
			served += client_add(fd, now);
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
		json_begin_object(out);
	for (size_t i = 0; i < n; i++) {
		if (json) {
			json_key(out, rows[i].name);
			json_u64(out, rows[i].v);
		} else {
			ds_put_format(out, "%s: %llu\n", rows[i].name,
				      rows[i].v);
		}
	}
	if (json) {
		json_end_object(out);
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
	if (server.fd >= 0)
		fit_fd_limit();
	return server.max_clients;
}

int
control_init(const char *sock_path, char *err, size_t errlen)
{
	if (server.fd >= 0) {
		set_err(err, errlen, "control socket already open at %s",
			server.path);
		return -1;
	}
	if (!sock_path || !*sock_path ||
	    strlen(sock_path) >= sizeof server.path) {
		set_err(err, errlen, "control socket path '%s' is empty or "
			"longer than %zu bytes", sock_path ? sock_path : "",
			sizeof server.path - 1);
		return -1;
	}
	if (make_parent_dirs(sock_path, err, errlen) ||
	    remove_stale_socket(sock_path, err, errlen))
		return -1;
	int epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0) {
		set_err(err, errlen, "epoll_create1: %s", strerror(errno));
		return -1;
	}
	int fd = open_listener(sock_path, err, errlen);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	if (fd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev)) {
		if (fd >= 0) {
			set_err(err, errlen, "epoll_ctl: %s", strerror(errno));
			close(fd);
			unlink(sock_path);
		}
		close(epfd);
		return -1;
	}
	control_register_builtins();
	control_register("control/show", "", 0, 0, cmd_control_show, NULL);
	server.fd = fd;
	server.epfd = epfd;
	server.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	server.next_deadline = LLONG_MAX;
	memset(&server.stats, 0, sizeof server.stats);
	snprintf(server.path, sizeof server.path, "%s", sock_path);
	fit_fd_limit();
	return 0;
}

void
control_fini(void)
{
	struct stat st;

	while (server.n_clients)
		client_close(server.clients[server.n_clients - 1]);
	free(server.clients);
	server.clients = NULL;
	if (server.fd >= 0) {
		close(server.fd);
		close(server.epfd);
		if (server.spare_fd >= 0)
			close(server.spare_fd);
		server.fd = server.epfd = server.spare_fd = -1;
		if (!lstat(server.path, &st) && st.st_dev == server.dev &&
		    st.st_ino == server.ino)
			unlink(server.path);
		server.path[0] = '\0';
	}
	control_commands_forget();
}

int
control_poll(int timeout_ms)
{
	struct epoll_event events[CONTROL_EVENTS_PER_POLL];
	bool listener_ready = false;
	int served = 0;

	if (server.fd < 0)
		return -1;

	/* Wake for the earliest deadline too, so that it is kept. */
	long long now = (long long)vxs_now_ms();
	if (server.next_deadline != LLONG_MAX) {
		long long left = server.next_deadline - now;
		left = left < 0 ? 0 : left;
		if (timeout_ms < 0 || left < timeout_ms)
			timeout_ms = (int)(left > INT_MAX ? INT_MAX : left);
	}
	int n = epoll_wait(server.epfd, events, CONTROL_EVENTS_PER_POLL,
			   timeout_ms);
	now = (long long)vxs_now_ms();
	/* Clients first, the listener after: accepting may evict a client
	 * that has an event further down this array. Each client is in the
	 * array once, and only its own handling can close it. */
	for (int i = 0; i < n; i++) {
		struct client *c = events[i].data.ptr;
		if (!c) {
			listener_ready = true;
			continue;
		}
		if (c->state == CLIENT_WRITING) {
			if (client_flush(c, now))
				client_close(c);
		} else {
			served += client_read(c, now);
		}
	}
	if (listener_ready)
		served += accept_clients(now);
	expire_clients(now);
	return served;
}
