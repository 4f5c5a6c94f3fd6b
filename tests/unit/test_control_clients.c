/* SPDX-License-Identifier: BSD-3-Clause
 * The control server under many clients at once: idle ones, stalled ones,
 * ones that never read their answer, huge and garbage requests, and the
 * connection limit. The server runs in this process; the clients are raw
 * sockets driven from here too, so every step is deterministic: nothing
 * waits except through control_poll().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#include "control.h"
#include "ds.h"
#include "unit_test.h"

static char tmp_dir[64];
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
cmd_echo(int argc, const char *argv[], bool json, struct ds *out, void *aux)
{
	(void)json, (void)aux;
	for (int i = 1; i < argc; i++)
		ds_put_format(out, "%s%s", i > 1 ? " " : "", argv[i]);
	ds_put_char(out, '\n');
	return 0;
}

/* Connects without waiting for the server: the kernel queues us. */
static int
client_connect(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock_path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr)) {
		CHECK(false, "connect: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Sends all of buf, serving the socket whenever ours is full. */
static bool
send_serving(int fd, const char *buf, size_t len)
{
	long long give_up = now_ms() + 5000;

	for (size_t done = 0; done < len;) {
		ssize_t n = send(fd, buf + done, len - done, MSG_NOSIGNAL);
		if (n > 0)
			done += (size_t)n;
		else if (n < 0 && errno != EAGAIN)
			return false;
		else
			control_poll(1);
		if (now_ms() > give_up)
			return false;
	}
	return true;
}

/* Serves until the server closes 'fd' or limit_ms pass; the answer goes in
 * 'reply'. Returns false on a timeout. */
static bool
await_close(int fd, struct ds *reply, long long limit_ms)
{
	long long give_up = now_ms() + limit_ms;
	char buf[65536];

	for (;;) {
		control_poll(1);
		for (;;) {
			ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
			if (n > 0) {
				ds_put_buf(reply, buf, (size_t)n);
				continue;
			}
			if (n == 0 || (errno != EAGAIN && errno != EINTR))
				return true;
			break;
		}
		if (now_ms() > give_up)
			return false;
	}
}

/* One request on a new connection: the answer, and how long it took. */
static bool
ask(const char *req, size_t len, struct ds *reply, long long *took)
{
	long long t0 = now_ms();
	int fd = client_connect();
	bool ok = fd >= 0 && send_serving(fd, req, len) &&
		  await_close(fd, reply, 5000);

	if (fd >= 0)
		close(fd);
	if (took)
		*took = now_ms() - t0;
	return ok;
}

#define RAW(s) s, sizeof(s) - 1

/* The one-line value of 'name' in control/show. */
static long long
stat_of(const char *name)
{
	struct ds reply = DS_EMPTY_INITIALIZER;
	char key[64];
	long long v = -1;

	snprintf(key, sizeof key, "\n%s: ", name);
	if (ask(RAW("control/show\0\0"), &reply, NULL)) {
		const char *at = strstr(ds_cstr(&reply), key);
		if (at)
			v = atoll(at + strlen(key));
	}
	ds_destroy(&reply);
	return v;
}

static void
close_all(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	control_poll(10);	/* the server notices the hang-ups */
}

/* 1,000 idle clients cost a request nothing. */
static void
test_idle_clients(void)
{
	enum { N = 1000 };
	static int fds[N];
	struct ds reply = DS_EMPTY_INITIALIZER;
	long long took, worst = 0;

	for (int i = 0; i < N; i++) {
		fds[i] = client_connect();
		if (i % 100 == 99)
			control_poll(0);
	}
	for (int i = 0; i < 20; i++)
		control_poll(0);
	CHECK(stat_of("clients") == N + 1, "clients %lld", stat_of("clients"));
	for (int i = 0; i < 20; i++) {
		ds_clear(&reply);
		CHECK(ask(RAW("echo\0idle\0\0"), &reply, &took) &&
		      !strcmp(ds_cstr(&reply), "OK\nidle\n"), "[%s]",
		      ds_cstr(&reply));
		worst = took > worst ? took : worst;
	}
	CHECK(worst < 100, "echo with %d idle clients: worst %lld ms", N,
	      worst);
	printf("echo with %d idle clients: worst of 20 %lld ms\n", N, worst);
	close_all(fds, N);
	CHECK(stat_of("clients") == 1, "after: %lld", stat_of("clients"));
	ds_destroy(&reply);
}

/* Half-sent requests hold up nobody, and end in an ERROR after the
 * request deadline; a client that half-closes after its request gets its
 * answer. */
static void
test_stalled_clients(void)
{
	enum { N = 50 };
	int fds[N];
	struct ds reply = DS_EMPTY_INITIALIZER;
	long long took;
	long long before = stat_of("request_timeouts");

	for (int i = 0; i < N; i++) {
		fds[i] = client_connect();
		CHECK(send_serving(fds[i], RAW("echo\0hal")), "send %d", i);
	}
	control_poll(0);
	CHECK(ask(RAW("echo\0through\0\0"), &reply, &took) &&
	      !strcmp(ds_cstr(&reply), "OK\nthrough\n") && took < 100,
	      "[%s] in %lld ms behind %d stalled", ds_cstr(&reply), took, N);

	/* Half-closed after the request: answered all the same. */
	int fd = client_connect();
	ds_clear(&reply);
	CHECK(send_serving(fd, RAW("echo\0half\0closed\0\0")) &&
	      !shutdown(fd, SHUT_WR) && await_close(fd, &reply, 2000) &&
	      !strcmp(ds_cstr(&reply), "OK\nhalf closed\n"), "[%s]",
	      ds_cstr(&reply));
	close(fd);

	/* The stalled ones are told, once their deadline passes. */
	long long t0 = now_ms();
	int told = 0;
	for (int i = 0; i < N; i++) {
		ds_clear(&reply);
		if (await_close(fds[i], &reply, 3000) &&
		    !strcmp(ds_cstr(&reply), "ERROR\nrequest incomplete after "
			    "1000 ms"))
			told++;
	}
	long long waited = now_ms() - t0;
	CHECK(told == N && waited >= 800 && waited < 2500,
	      "%d of %d told in %lld ms", told, N, waited);
	CHECK(stat_of("request_timeouts") == before + N, "timeouts %lld",
	      stat_of("request_timeouts"));
	close_all(fds, N);
	ds_destroy(&reply);
}

/* A client that asks for a big answer and never reads it: the server
 * goes on serving others and drops it after the write deadline. */
static void
test_unread_answer(void)
{
	struct ds req = DS_EMPTY_INITIALIZER, reply = DS_EMPTY_INITIALIZER;
	char arg[1001];
	long long took, before = stat_of("write_timeouts");

	memset(arg, 'w', sizeof arg - 1);
	arg[sizeof arg - 1] = '\0';
	ds_put_buf(&req, "echo", 5);
	for (int i = 0; i < 1500; i++)		/* 1.5 MB out */
		ds_put_buf(&req, arg, sizeof arg);
	ds_put_char(&req, '\0');
	int fd = client_connect();
	CHECK(send_serving(fd, req.s, req.len), "big send");
	for (int i = 0; i < 5; i++)
		control_poll(1);
	CHECK(ask(RAW("echo\0meanwhile\0\0"), &reply, &took) &&
	      !strcmp(ds_cstr(&reply), "OK\nmeanwhile\n") && took < 100,
	      "[%s] in %lld ms", ds_cstr(&reply), took);

	long long give_up = now_ms() + 3000;
	while (stat_of("write_timeouts") == before && now_ms() < give_up)
		control_poll(20);
	CHECK(stat_of("write_timeouts") == before + 1, "write timeouts %lld",
	      stat_of("write_timeouts"));
	/* What it gets now is a cut-off answer, then the end. */
	ds_clear(&reply);
	await_close(fd, &reply, 1000);
	CHECK(!strncmp(ds_cstr(&reply), "OK\nwww", 6) &&
	      reply.len < req.len, "partial answer of %zu bytes", reply.len);
	close(fd);
	ds_destroy(&req);
	ds_destroy(&reply);
}

/* Two requests near the size limit and one over it, sent side by side
 * with small ones; then garbage. */
static void
test_big_and_garbage(void)
{
	size_t big = CONTROL_MAX_REQUEST - 16;
	char *buf = malloc(CONTROL_MAX_REQUEST + 100);
	struct ds reply = DS_EMPTY_INITIALIZER;
	long long took;

	memcpy(buf, "echo", 5);
	memset(buf + 5, 'b', big - 7);
	buf[big - 2] = buf[big - 1] = '\0';
	int a = client_connect(), b = client_connect();
	CHECK(send_serving(a, buf, big / 2) && send_serving(b, buf, big / 2),
	      "first halves");
	CHECK(ask(RAW("echo\0small\0\0"), &reply, &took) &&
	      !strcmp(ds_cstr(&reply), "OK\nsmall\n") && took < 100,
	      "small between bigs: [%s] %lld ms", ds_cstr(&reply), took);
	CHECK(send_serving(a, buf + big / 2, big - big / 2) &&
	      send_serving(b, buf + big / 2, big - big / 2), "second halves");
	for (int fd = a, i = 0; i < 2; i++, fd = b) {
		ds_clear(&reply);
		CHECK(await_close(fd, &reply, 3000) && reply.len == big - 3 &&
		      !strncmp(ds_cstr(&reply), "OK\nbbb", 6),
		      "big answer %zu bytes", reply.len);
		close(fd);
	}

	memset(buf, 'x', CONTROL_MAX_REQUEST + 100);
	long long before = stat_of("too_large");
	int c = client_connect();
	send_serving(c, buf, CONTROL_MAX_REQUEST + 100);
	ds_clear(&reply);
	char want[64];
	snprintf(want, sizeof want, "ERROR\nrequest too large (limit %d "
		 "bytes)", CONTROL_MAX_REQUEST);
	CHECK(await_close(c, &reply, 3000) && !strcmp(ds_cstr(&reply), want),
	      "too large: [%.60s]", ds_cstr(&reply));
	CHECK(stat_of("too_large") == before + 1, "too_large counted");
	close(c);

	/* Random bytes, some with an end in them and some without. */
	unsigned seed = 12345;
	int answered = 0;
	for (int i = 0; i < 200; i++) {
		size_t len = 1 + (size_t)(rand_r(&seed) % 300);
		for (size_t j = 0; j < len; j++)
			buf[j] = (char)(rand_r(&seed) % 4 ? rand_r(&seed) : 0);
		int fd = client_connect();
		send_serving(fd, buf, len);
		shutdown(fd, SHUT_WR);
		ds_clear(&reply);
		if (await_close(fd, &reply, 2000) &&
		    !strncmp(ds_cstr(&reply), "ERROR\n", 6))
			answered++;
		close(fd);
	}
	CHECK(answered == 200, "garbage: %d of 200 got an ERROR", answered);
	ds_clear(&reply);
	CHECK(ask(RAW("echo\0still\0\0"), &reply, NULL) &&
	      !strcmp(ds_cstr(&reply), "OK\nstill\n"), "after garbage [%s]",
	      ds_cstr(&reply));
	free(buf);
	ds_destroy(&reply);
}

/* A full table: the oldest idle client makes room; with none idle, the
 * newcomer is refused with a reason. */
static void
test_connection_limit(void)
{
	enum { LIMIT = 8 };
	int fds[LIMIT];
	struct ds reply = DS_EMPTY_INITIALIZER;

	CHECK(control_set_max_clients(LIMIT) == LIMIT, "set limit");
	for (int i = 0; i < LIMIT; i++) {
		fds[i] = client_connect();
		control_poll(0);
	}
	CHECK(ask(RAW("echo\0room\0\0"), &reply, NULL) &&
	      !strcmp(ds_cstr(&reply), "OK\nroom\n"), "[%s]", ds_cstr(&reply));
	ds_clear(&reply);
	CHECK(await_close(fds[0], &reply, 1000) &&
	      strstr(ds_cstr(&reply), "ERROR\nclosed: too many control "
		     "connections (limit 8)"), "oldest: [%s]", ds_cstr(&reply));
	close(fds[0]);

	/* Now every slot is busy with a started request. */
	fds[0] = client_connect();
	control_poll(0);
	for (int i = 0; i < LIMIT; i++)
		send_serving(fds[i], RAW("ec"));
	control_poll(0);
	ds_clear(&reply);
	CHECK(ask(RAW("echo\0refused\0\0"), &reply, NULL) &&
	      !strcmp(ds_cstr(&reply), "ERROR\ntoo many control connections "
		      "(limit 8); try again"), "[%s]", ds_cstr(&reply));
	close_all(fds, LIMIT);
	CHECK(control_set_max_clients(CONTROL_MAX_CLIENTS) ==
	      CONTROL_MAX_CLIENTS, "limit back");
	CHECK(stat_of("refused_full") == 1 && stat_of("evicted_idle") >= 1,
	      "counted: %lld refused %lld evicted", stat_of("refused_full"),
	      stat_of("evicted_idle"));
	ds_destroy(&reply);
}

int
main(void)
{
	char err[256] = "";

	snprintf(tmp_dir, sizeof tmp_dir, "/tmp/vxs-test-ctlc-XXXXXX");
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(sock_path, sizeof sock_path, "%s/ctl", tmp_dir);
	CHECK(!control_init(sock_path, err, sizeof err), "init: %s", err);
	CHECK(!control_register("echo", "[ARG...]", 0, CONTROL_ARGS_ANY,
				cmd_echo, NULL), "echo");

	test_idle_clients();
	test_stalled_clients();
	test_unread_answer();
	test_big_and_garbage();
	test_connection_limit();

	control_fini();
	rmdir(tmp_dir);
	return unit_test_report();
}
