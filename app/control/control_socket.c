/* SPDX-License-Identifier: BSD-3-Clause
 * The control server's listening sockets (control_socket.h). */
#include "control_socket.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

_Static_assert(sizeof ((struct control_sock *)0)->path ==
	       sizeof ((struct sockaddr_un *)0)->sun_path, "sun_path size");

void
control_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list args;

	if (!errlen)
		return;
	va_start(args, fmt);
	vsnprintf(err, errlen, fmt, args);
	va_end(args);
}

/* mkdir -p of everything before the last '/'. Directories that exist are
 * left as they are: their mode is the administrator's business. */
static int
make_parent_dirs(const char *path, char *err, size_t errlen)
{
	char dir[sizeof ((struct control_sock *)0)->path];

	snprintf(dir, sizeof dir, "%s", path);
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST) {
			control_set_err(err, errlen, "cannot create directory %s: %s",
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
		control_set_err(err, errlen, "socket: %s", strerror(errno));
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
	control_set_err(err, errlen, "cannot check %s: %s", path, strerror(saved));
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
		control_set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		control_set_err(err, errlen, "%s exists and is not a socket; "
			"not replacing it", path);
		return -1;
	}
	int live = someone_listens(path, err, errlen);
	if (live < 0)
		return -1;
	if (live) {
		control_set_err(err, errlen, "another process is listening on %s "
			"(is vxswitch already running?)", path);
		return -1;
	}
	if (unlink(path) && errno != ENOENT) {
		control_set_err(err, errlen, "cannot remove stale socket %s: %s",
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
		control_set_err(err, errlen, "cannot bind %s: %s", path,
			strerror(saved));
		return -1;
	}
	if (chmod(path, 0600)) {
		control_set_err(err, errlen, "cannot chmod %s: %s", path,
			strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

static int __attribute__((nonnull(1, 2)))
open_listener(struct control_sock *s, const char *path, int backlog,
	      char *err, size_t errlen)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct stat st;

	if (fd < 0) {
		control_set_err(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (bind_private(fd, path, err, errlen)) {
		close(fd);
		return -1;
	}
	if (listen(fd, backlog) || stat(path, &st)) {
		control_set_err(err, errlen, "cannot listen on %s: %s", path,
			strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	return fd;
}

int
control_sock_open(struct control_sock *s, const char *path, int backlog,
		  char *err, size_t errlen)
{
	s->fd = -1;
	if (!path || !*path || strlen(path) >= sizeof s->path) {
		control_set_err(err, errlen, "control socket path '%s' is empty "
				"or longer than %zu bytes", path ? path : "",
				sizeof s->path - 1);
		return -1;
	}
	if (make_parent_dirs(path, err, errlen) ||
	    remove_stale_socket(path, err, errlen))
		return -1;
	s->fd = open_listener(s, path, backlog, err, errlen);
	if (s->fd < 0)
		return -1;
	snprintf(s->path, sizeof s->path, "%s", path);
	return 0;
}

void
control_sock_close(struct control_sock *s)
{
	struct stat st;

	if (s->fd < 0)
		return;
	close(s->fd);
	s->fd = -1;
	if (!lstat(s->path, &st) && st.st_dev == s->dev && st.st_ino == s->ino)
		unlink(s->path);
	s->path[0] = '\0';
}
