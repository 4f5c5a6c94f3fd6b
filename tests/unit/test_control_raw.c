/* SPDX-License-Identifier: BSD-3-Clause
 * test_control, raw requests: what vxswitch-ctl would never send (bad
 * framing, too many arguments, bad and flooding clients).
 */
#include "control_test.h"

/* ---- raw requests, for what vxswitch-ctl never sends ---- */

int
unix_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr)) {
		CHECK(false, "connect %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int
raw_connect(void)
{
	return unix_connect(sock_path);
}

static void
raw_read_all(int fd, struct ds *reply)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0)
		ds_put_buf(reply, buf, (size_t)n);
}

/* Serves the socket until the server closes client 'fd' (whose answer
 * goes in 'reply') or 'limit_ms' pass. Returns the requests served. */
static int
serve_until_closed(int fd, struct ds *reply, long long limit_ms)
{
	long long give_up = now_ms() + limit_ms;
	int served = 0;
	char buf[4096];

	for (;;) {
		served += control_poll(10);
		ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
		if (n > 0)
			ds_put_buf(reply, buf, (size_t)n);
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			break;
		if (now_ms() > give_up) {
			CHECK(false, "no answer within %lld ms", limit_ms);
			break;
		}
	}
	return served;
}

/* Sends 'len' bytes (closing our side after them if 'close_after'), lets
 * the server serve once, and returns what it answered in 'reply'.
 * Returns control_poll()'s result. */
static int
raw_exchange(const char *req, size_t len, bool close_after, struct ds *reply,
	     long long *took_ms)
{
	int fd = raw_connect();
	pid_t sender = -1;
	if (fd < 0)
		return -1;
	/* More than a socket buffer holds must be sent while the server
	 * (in this same process) reads: send it from a child. */
	if (len > 32768) {
		sender = fork();
		if (sender == 0) {
			ssize_t n = send(fd, req, len, MSG_NOSIGNAL);
			(void)n;
			_exit(0);
		}
	} else {
		CHECK(send(fd, req, len, MSG_NOSIGNAL) == (ssize_t)len,
		      "send %zu", len);
	}
	if (close_after)
		shutdown(fd, SHUT_WR);
	long long t0 = now_ms();
	int served = serve_until_closed(fd, reply, 5000);
	if (sender > 0)
		waitpid(sender, NULL, 0);
	if (took_ms)
		*took_ms = now_ms() - t0;
	close(fd);
	return served;
}

void
expect_raw(const char *req, size_t len, int want_served, const char *want)
{
	struct ds reply = DS_EMPTY_INITIALIZER;
	int served = raw_exchange(req, len, false, &reply, NULL);

	CHECK(served == want_served && !strcmp(ds_cstr(&reply), want),
	      "served %d [%s], want %d [%s]", served, ds_cstr(&reply),
	      want_served, want);
	ds_destroy(&reply);
}

void
test_raw_requests(void)
{
	expect_raw(RAW("echo\0hi\0\0"), 1, "OK\nhi\n");
	expect_raw(RAW("--json\0echo\0hi\0\0"), 1, "OK\n[\"hi\"]\n");
	expect_raw(RAW("\0"), 1, "ERROR\nempty request: no command given");
	expect_raw(RAW("--json\0\0"), 1,
		   "ERROR\nempty request: no command given");
	expect_raw(RAW("\xff\xfe\0\0"), 1,
		   "ERROR\nunknown command '\xff\xfe'; use list-commands");
	/* Bytes after the end of the request are ignored. */
	expect_raw(RAW("echo\0\0trailing junk"), 1, "OK\n\n");
}

void
test_raw_arg_limit(void)
{
	struct ds req = DS_EMPTY_INITIALIZER, want = DS_EMPTY_INITIALIZER;

	ds_put_buf(&req, "echo", 5);
	ds_put_cstr(&want, "OK\n");
	for (int i = 0; i < CONTROL_MAX_ARGS; i++) {
		ds_put_buf(&req, "x", 2);
		ds_put_cstr(&want, i ? " x" : "x");
	}
	ds_put_cstr(&want, "\n");
	ds_put_char(&req, '\0');
	expect_raw(req.s, req.len, 1, ds_cstr(&want));

	req.len--;		/* one more argument than allowed */
	ds_put_buf(&req, "x", 2);
	ds_put_char(&req, '\0');
	char msg[64];
	snprintf(msg, sizeof msg, "ERROR\ntoo many arguments (limit %d)",
		 CONTROL_MAX_ARGS);
	expect_raw(req.s, req.len, 1, msg);
	ds_destroy(&req);
	ds_destroy(&want);
}

void
test_raw_bad_clients(void)
{
	struct ds reply = DS_EMPTY_INITIALIZER;
	long long took;
	int served;

	/* Garbage with no end, then a hang-up. */
	served = raw_exchange(RAW("garbage\0without end"), true, &reply, &took);
	CHECK(served == 0 && took < 500 && contains(&reply, "ERROR\n"),
	      "hang-up: %d in %lld ms [%s]", served, took, ds_cstr(&reply));
	ds_clear(&reply);

	/* Half a request, and then silence: given up on after ~1 s. */
	served = raw_exchange(RAW("echo\0hal"), false, &reply, &took);
	CHECK(served == 0 && took >= 900 && took < 3000 &&
	      !strcmp(ds_cstr(&reply), "ERROR\nrequest incomplete after "
		      "1000 ms"), "half: %d in %lld ms [%s]", served, took,
	      ds_cstr(&reply));
	ds_clear(&reply);

	/* Connects and leaves without a byte. */
	int fd = raw_connect();
	close(fd);
	served = control_poll(1000);
	CHECK(served == 0, "empty connection: %d", served);

	/* Just over the size limit, without an end. */
	size_t big = CONTROL_MAX_REQUEST + 100;
	char *buf = malloc(big);
	memset(buf, 'a', big);
	served = raw_exchange(buf, big, false, &reply, &took);
	char msg[64];
	snprintf(msg, sizeof msg, "ERROR\nrequest too large (limit %d bytes)",
		 CONTROL_MAX_REQUEST);
	CHECK(served == 0 && took < 2000 && !strcmp(ds_cstr(&reply), msg),
	      "oversized: %d in %lld ms [%s]", served, took, ds_cstr(&reply));
	free(buf);
	ds_destroy(&reply);

	expect_raw(RAW("echo\0still\0here\0\0"), 1, "OK\nstill here\n");
}

/* A client that keeps sending megabytes: the server must cut it off and
 * not block on it. Runs in a child so it can block on its own writes. */
void
test_raw_flood(void)
{
	pid_t pid = fork();
	if (!pid) {
		static char chunk[65536];
		struct ds reply = DS_EMPTY_INITIALIZER;
		int fd = raw_connect();
		memset(chunk, 'z', sizeof chunk);
		for (int i = 0; i < 64; i++)
			if (send(fd, chunk, sizeof chunk, MSG_NOSIGNAL) < 0)
				break;
		raw_read_all(fd, &reply);
		_exit(strncmp(ds_cstr(&reply), "ERROR\nrequest too large",
			      23) ? 1 : 0);
	}

	int st;
	long long give_up = now_ms() + 10000;
	while (waitpid(pid, &st, WNOHANG) == 0 && now_ms() < give_up)
		control_poll(20);
	if (now_ms() >= give_up) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "flood child: %d", st);
	expect_raw(RAW("echo\0after\0flood\0\0"), 1, "OK\nafter flood\n");
}
