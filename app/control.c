/* SPDX-License-Identifier: BSD-3-Clause
 * The control socket server; the protocol is described in control.h.
 *
 * Clients are served one at a time, synchronously, from control_poll():
 * requests are tiny and handlers quick, so the simplicity is worth more
 * than concurrency. What keeps a bad client from stalling the control loop
 * is the per-client deadline, not the structure.
 */
#include "control.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "json_out.h"

/* Enough for a burst of scripted calls, few enough that one control_poll()
 * is still bounded when every one of them misbehaves. */
#define CONTROL_CLIENTS_PER_POLL 8
#define CONTROL_BACKLOG 16

struct control_cmd {
	char *name;
	char *usage;
	int min_args, max_args;
	control_cmd_fn fn;
	void *aux;
};

/* Kept sorted by name, for lookup and for list-commands. */
static struct control_cmd *cmds;
static size_t n_cmds, cap_cmds;

static struct {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t dev;			/* what we bound, so that fini */
	ino_t ino;			/* unlinks only that */
} server = { .fd = -1 };

/* The request being read; static because 64 KiB is a lot of stack. */
static char request_buf[CONTROL_MAX_REQUEST];

enum read_status {
	READ_COMPLETE,
	READ_TOO_LARGE,
	READ_TIMEOUT,
	READ_CLOSED,			/* EOF or error before the end */
};

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

/* ---- the command table ---- */

/* Index of 'name', or where it would go (with *found false). */
static size_t
cmd_search(const char *name, bool *found)
{
	size_t lo = 0, hi = n_cmds;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, cmds[mid].name);
		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*found = false;
	return lo;
}

static const struct control_cmd *
cmd_find(const char *name)
{
	bool found;
	size_t i = cmd_search(name, &found);
	return found ? &cmds[i] : NULL;
}

static bool
cmd_name_ok(const char *name)
{
	if (!name || !*name)
		return false;
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p <= ' ')
			return false;
	return true;
}

static int
cmd_insert(const struct control_cmd *cmd)
{
	bool found;
	size_t at = cmd_search(cmd->name, &found);

	if (found)
		return -1;
	if (n_cmds == cap_cmds) {
		size_t cap = cap_cmds ? cap_cmds * 2 : 32;
		struct control_cmd *p = realloc(cmds, cap * sizeof *p);
		if (!p)
			return -1;
		cmds = p;
		cap_cmds = cap;
	}
	memmove(&cmds[at + 1], &cmds[at], (n_cmds - at) * sizeof *cmds);
	cmds[at] = *cmd;
	n_cmds++;
	return 0;
}

static void
cmd_forget_all(void)
{
	for (size_t i = 0; i < n_cmds; i++) {
		free(cmds[i].name);
		free(cmds[i].usage);
	}
	free(cmds);
	cmds = NULL;
	n_cmds = cap_cmds = 0;
}

/* ---- built-in commands ---- */

static void
list_commands(bool json, struct ds *out)
{
	if (json) {
		json_begin_array(out);
		for (size_t i = 0; i < n_cmds; i++) {
			json_begin_object(out);
			json_key(out, "name");
			json_string(out, cmds[i].name);
			json_key(out, "usage");
			json_string(out, cmds[i].usage);
			json_end_object(out);
		}
		json_end_array(out);
		ds_put_char(out, '\n');
		return;
	}
	ds_put_cstr(out, "The available commands are:\n");
	for (size_t i = 0; i < n_cmds; i++) {
		if (*cmds[i].usage)
			ds_put_format(out, "  %-32s %s\n", cmds[i].name,
				      cmds[i].usage);
		else
			ds_put_format(out, "  %s\n", cmds[i].name);
	}
}

static int
cmd_list_commands(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	(void)argc, (void)argv, (void)aux;
	list_commands(json, out);
	return 0;
}

static int
cmd_help(int argc, const char *argv[], bool json, struct ds *out, void *aux)
{
	(void)aux;
	if (argc < 2) {
		list_commands(json, out);
		return 0;
	}
	const struct control_cmd *cmd = cmd_find(argv[1]);
	if (!cmd) {
		ds_put_format(out, "unknown command '%s'; use list-commands",
			      argv[1]);
		return -1;
	}
	ds_put_format(out, "usage: %s%s%s\n", cmd->name,
		      *cmd->usage ? " " : "", cmd->usage);
	return 0;
}

static int
cmd_add(const char *name, const char *usage, int min_args, int max_args,
	control_cmd_fn fn, void *aux)
{
	struct control_cmd cmd = {
		.name = strdup(name),
		.usage = strdup(usage ? usage : ""),
		.min_args = min_args,
		.max_args = max_args,
		.fn = fn,
		.aux = aux,
	};
	if (!cmd.name || !cmd.usage || cmd_insert(&cmd)) {
		free(cmd.name);
		free(cmd.usage);
		return -1;
	}
	return 0;
}

/* Built-ins go in first, so no module can take their names. */
static void
register_builtins(void)
{
	if (cmd_find("help"))
		return;
	cmd_add("help", "[COMMAND]", 0, 1, cmd_help, NULL);
	cmd_add("list-commands", "", 0, 0, cmd_list_commands, NULL);
}

int
control_register(const char *name, const char *usage, int min_args,
		 int max_args, control_cmd_fn fn, void *aux)
{
	if (!cmd_name_ok(name) || !fn || min_args < 0 || max_args < min_args)
		return -1;
	register_builtins();
	return cmd_add(name, usage, min_args, max_args, fn, aux);
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
static int
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

static int
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
	int fd = open_listener(sock_path, err, errlen);
	if (fd < 0)
		return -1;
	register_builtins();
	server.fd = fd;
	snprintf(server.path, sizeof server.path, "%s", sock_path);
	return 0;
}

void
control_fini(void)
{
	struct stat st;

	if (server.fd >= 0) {
		close(server.fd);
		server.fd = -1;
		if (!lstat(server.path, &st) && st.st_dev == server.dev &&
		    st.st_ino == server.ino)
			unlink(server.path);
		server.path[0] = '\0';
	}
	cmd_forget_all();
}

/* ---- serving one client ---- */

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for 'events' on 'fd' until 'deadline'; false on timeout or error. */
static bool
wait_fd(int fd, short events, long long deadline)
{
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0)
			return false;
		struct pollfd pfd = { .fd = fd, .events = events };
		int n = poll(&pfd, 1, (int)left);
		if (n > 0)
			return true;
		if (n < 0 && errno != EINTR)
			return false;
	}
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

static enum read_status
read_request(int fd, size_t *lenp, long long deadline)
{
	size_t len = 0;

	for (;;) {
		if (len == sizeof request_buf)
			return READ_TOO_LARGE;
		if (!wait_fd(fd, POLLIN, deadline))
			return READ_TIMEOUT;
		ssize_t n = read(fd, request_buf + len,
				 sizeof request_buf - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return READ_CLOSED;
		size_t end = find_request_end(request_buf, len,
					      len + (size_t)n);
		len += (size_t)n;
		if (end) {
			*lenp = end;
			return READ_COMPLETE;
		}
	}
}

static void
put_arg_count_error(const struct control_cmd *cmd, struct ds *out)
{
	int lo = cmd->min_args, hi = cmd->max_args;

	ds_put_format(out, "'%s' takes ", cmd->name);
	if (hi == CONTROL_ARGS_ANY)
		ds_put_format(out, "at least %d argument%s", lo,
			      lo == 1 ? "" : "s");
	else if (lo == hi && !lo)
		ds_put_cstr(out, "no arguments");
	else if (lo == hi)
		ds_put_format(out, "%d argument%s", lo, lo == 1 ? "" : "s");
	else
		ds_put_format(out, "%d to %d arguments", lo, hi);
	ds_put_format(out, " (usage: %s%s%s)", cmd->name,
		      *cmd->usage ? " " : "", cmd->usage);
}

/* Runs the command named in argv[0] with 'nargs' arguments after it. */
static int
dispatch(int nargs, const char *argv[], bool json, struct ds *out)
{
	const struct control_cmd *cmd = cmd_find(argv[0]);

	if (!cmd) {
		ds_put_format(out, "unknown command '%s'; use list-commands",
			      argv[0]);
		return -1;
	}
	if (nargs < cmd->min_args || nargs > cmd->max_args) {
		put_arg_count_error(cmd, out);
		return -1;
	}
	/* A handler may register commands, moving the table under 'cmd'. */
	control_cmd_fn fn = cmd->fn;
	void *aux = cmd->aux;
	int rc = fn(nargs + 1, argv, json, out, aux);
	if (rc && !out->len)
		ds_put_cstr(out, "command failed");
	return rc ? -1 : 0;
}

/* Splits the complete request in request_buf[0..len) into strings and
 * runs it. Returns 0 for OK, -1 for ERROR, with the body in 'out'. */
static int
execute_request(size_t len, struct ds *out)
{
	static const char *argv[CONTROL_MAX_ARGS + 2];
	const char *p = request_buf, *end = request_buf + len - 1;
	bool json = false;
	int argc = 0;

	if (p < end && !strcmp(p, CONTROL_JSON_OPTION)) {
		json = true;
		p += strlen(p) + 1;
	}
	for (; p < end; p += strlen(p) + 1) {
		if (argc == CONTROL_MAX_ARGS + 1) {
			ds_put_format(out, "too many arguments (limit %d)",
				      CONTROL_MAX_ARGS);
			return -1;
		}
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	if (!argc) {
		ds_put_cstr(out, "empty request: no command given");
		return -1;
	}
	return dispatch(argc - 1, argv, json, out);
}

static void
write_response(int fd, int status, const struct ds *body, long long deadline)
{
	struct ds msg = DS_EMPTY_INITIALIZER;

	ds_put_cstr(&msg, status ? "ERROR\n" : "OK\n");
	ds_put_buf(&msg, ds_cstr(body), body->len);
	for (size_t done = 0; done < msg.len;) {
		/* MSG_NOSIGNAL: a client that left must not kill the daemon. */
		ssize_t n = send(fd, msg.s + done, msg.len - done,
				 MSG_NOSIGNAL);
		if (n > 0)
			done += (size_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else if (n < 0 && errno == EAGAIN && wait_fd(fd, POLLOUT,
							      deadline))
			continue;
		else
			break;
	}
	ds_destroy(&msg);
}

/* Returns 1 if a complete request was answered, else 0. */
static int
serve_client(int fd)
{
	struct ds body = DS_EMPTY_INITIALIZER;
	size_t len = 0;
	int status = -1;

	switch (read_request(fd, &len, now_ms() + CONTROL_IO_TIMEOUT_MS)) {
	case READ_COMPLETE:
		status = execute_request(len, &body);
		break;
	case READ_TOO_LARGE:
		ds_put_format(&body, "request too large (limit %d bytes)",
			      CONTROL_MAX_REQUEST);
		break;
	case READ_TIMEOUT:
		ds_put_format(&body, "request incomplete after %d ms",
			      CONTROL_IO_TIMEOUT_MS);
		break;
	case READ_CLOSED:
		ds_put_cstr(&body, "request incomplete: connection closed");
		break;
	}
	write_response(fd, status, &body, now_ms() + CONTROL_IO_TIMEOUT_MS);
	ds_destroy(&body);
	return len ? 1 : 0;
}

int
control_poll(int timeout_ms)
{
	if (server.fd < 0)
		return -1;

	struct pollfd pfd = { .fd = server.fd, .events = POLLIN };
	if (poll(&pfd, 1, timeout_ms) <= 0)
		return 0;

	int served = 0;
	for (int i = 0; i < CONTROL_CLIENTS_PER_POLL; i++) {
		int fd = accept4(server.fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;
		}
		served += serve_client(fd);
		close(fd);
	}
	return served;
}
