/* SPDX-License-Identifier: BSD-3-Clause
 * --detach, --pidfile and systemd notification (daemon.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "daemon.h"
#include "vlog.h"

const char *
daemon_ovs_rundir(void)
{
	const char *dir = getenv("OVS_RUNDIR");	/* set but empty: as OVS */

	return dir ? dir : DAEMON_OVS_RUNDIR;
}

static int ready_fd = -1;	/* write end of the pipe, in the daemon */
static bool detached;
static int pidfile_fd = -1;	/* holds the lock */
static char *pidfile_path;

/* The foreground process: waits for one byte (ready) or for the pipe to
 * close (the daemon died before it was ready), then exits. */
static void __attribute__((noreturn))
wait_for_daemon(int fd, pid_t child)
{
	char c;
	ssize_t n;
	int status;

	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		_exit(0);
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			_exit(1);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		_exit(WEXITSTATUS(status));
	VLOG_ERR(main, "daemon died before signalling start-up (%s %d)",
		 WIFSIGNALED(status) ? "signal" : "exit status",
		 WIFSIGNALED(status) ? WTERMSIG(status)
				     : WEXITSTATUS(status));
	_exit(1);
}

int
daemon_detach_start(void)
{
	int fds[2];
	pid_t pid;

	/* close-on-exec: nothing the daemon may exec keeps the pipe open */
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid > 0) {
		close(fds[1]);
		wait_for_daemon(fds[0], pid);
	}
	close(fds[0]);
	ready_fd = fds[1];
	detached = true;
	setsid();
	int fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

bool
daemon_is_detached(void)
{
	return detached;
}

int
daemon_make_pidfile(const char *path, char *err, size_t errlen)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char *tmp = NULL;
	int fd;

	/* another daemon holding it? */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (fcntl(fd, F_GETLK, &lk) == 0 && lk.l_type != F_UNLCK) {
			snprintf(err, errlen, "pidfile %s: already running as "
				 "pid %ld, aborting", path, (long)lk.l_pid);
			close(fd);
			return -1;
		}
		close(fd);
		lk.l_type = F_WRLCK;
	}
	if (asprintf(&tmp, "%s.tmp", path) < 0)
		goto fail;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	if (fcntl(fd, F_SETLK, &lk) < 0 ||
	    dprintf(fd, "%ld\n", (long)getpid()) < 0 ||
	    rename(tmp, path) < 0) {
		int e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		goto fail;
	}
	free(tmp);
	pidfile_fd = fd;
	pidfile_path = strdup(path);
	return 0;
fail:
	snprintf(err, errlen, "cannot write pidfile %s: %s", path,
		 strerror(errno));
	free(tmp);
	return -1;
}

void
daemon_remove_pidfile(void)
{
	if (pidfile_path) {
		unlink(pidfile_path);
		free(pidfile_path);
		pidfile_path = NULL;
	}
	if (pidfile_fd >= 0) {
		close(pidfile_fd);
		pidfile_fd = -1;
	}
}

void
daemon_ready(const char *status)
{
	if (ready_fd >= 0) {
		ssize_t n;
		do
			n = write(ready_fd, "", 1);
		while (n < 0 && errno == EINTR);
		close(ready_fd);
		ready_fd = -1;
		/* the caller's terminal is no longer ours */
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			if (fd > 2)
				close(fd);
		}
		vlog_console_detached();
	}
#ifdef HAVE_LIBSYSTEMD
	sd_notifyf(0, "READY=1\nSTATUS=%s\nMAINPID=%ld", status,
		   (long)getpid());
#else
	(void)status;
#endif
}

void
daemon_stopping(void)
{
#ifdef HAVE_LIBSYSTEMD
	sd_notify(0, "STOPPING=1");
#endif
}
