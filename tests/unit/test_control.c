/* SPDX-License-Identifier: BSD-3-Clause
 * The control socket end to end: the server runs in this process, and is
 * spoken to by the real vxswitch-ctl (argv[1]; those checks are skipped
 * without it) run in a child, and by hand-made raw requests for what the
 * client would never send. Also checks ds and json_out, which the server's
 * output is built with.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "ds.h"
#include "json_out.h"

static int n_passed, n_failed;
static const char *ctl_path;		/* the vxswitch-ctl to test, or NULL */
/* Short, to stay inside sun_path's 108 bytes. */
static char tmp_dir[64];
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

#define CHECK(cond, ...) check((cond), __LINE__, #cond, __VA_ARGS__)

static void check(bool ok, int line, const char *expr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
check(bool ok, int line, const char *expr, const char *fmt, ...)
{
	va_list args;

	if (ok) {
		n_passed++;
		return;
	}
	n_failed++;
	printf("FAIL line %d: %s: ", line, expr);
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	putchar('\n');
}

static bool
contains(const struct ds *ds, const char *needle)
{
	return strstr(ds_cstr(ds), needle) != NULL;
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- commands the tests register ---- */

/* Prints its arguments: space-separated, or as a JSON array. */
static int
cmd_echo(int argc, const char *argv[], bool json, struct ds *out, void *aux)
{
	(void)aux;
	if (json)
		json_begin_array(out);
	for (int i = 1; i < argc; i++) {
		if (json)
			json_string(out, argv[i]);
		else
			ds_put_format(out, "%s%s", i > 1 ? " " : "", argv[i]);
	}
	if (json)
		json_end_array(out);
	ds_put_char(out, '\n');
	return 0;
}

static int
cmd_fail(int argc, const char *argv[], bool json, struct ds *out, void *aux)
{
	(void)argc, (void)argv, (void)json, (void)aux;
	ds_put_cstr(out, "it failed on purpose");
	return -1;
}

static int
cmd_nothing(int argc, const char *argv[], bool json, struct ds *out,
	    void *aux)
{
	(void)argc, (void)argv, (void)json, (void)out, (void)aux;
	return 0;
}

/* All or none, naming the first flow with "bad" in it; *aux counts the
 * flows added. */
static int
cmd_add_flows(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	(void)json;
	for (int i = 1; i < argc; i++) {
		if (strstr(argv[i], "bad")) {
			ds_put_format(out, "flow %d: cannot parse '%s'", i,
				      argv[i]);
			return -1;
		}
	}
	*(int *)aux += argc - 1;
	ds_put_format(out, "added %d flows\n", argc - 1);
	return 0;
}

static int flows_added;

static void
register_test_commands(void)
{
	CHECK(!control_register("echo", "[ARG...]", 0, CONTROL_ARGS_ANY,
				cmd_echo, NULL), "echo");
	CHECK(!control_register("fail", "", 0, 0, cmd_fail, NULL), "fail");
	CHECK(!control_register("add-flow", "[--strict] FLOW", 1, 2,
				cmd_nothing, NULL), "add-flow");
	CHECK(!control_register("add-flows", "FILE", 0, CONTROL_ARGS_ANY,
				cmd_add_flows, &flows_added), "add-flows");
}

static void
start_server(void)
{
	char err[256] = "";

	CHECK(!control_init(sock_path, err, sizeof err), "init: %s", err);
	register_test_commands();
}

/* ---- running vxswitch-ctl ---- */

struct ctl_result {
	int status;			/* exit status, or -1 */
	struct ds out, err;
};

static void
read_file(const char *path, struct ds *ds)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		ds_put_buf(ds, buf, n);
	fclose(f);
}

static void
exec_ctl(char *const argv[], const char *out, const char *err)
{
	int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
		_exit(126);
	execv(argv[0], argv);
	_exit(127);
}

/* Runs vxswitch-ctl with 'args' (NULL-terminated), serving the socket
 * meanwhile unless 'serve' is false. */
static void
run_ctl(struct ctl_result *r, bool serve, const char *const *args)
{
	char *argv[32], out[PATH_MAX + 8], err[PATH_MAX + 8];
	int argc = 0, st;

	argv[argc++] = (char *)ctl_path;
	for (; *args && argc < 31; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	snprintf(out, sizeof out, "%s/stdout", tmp_dir);
	snprintf(err, sizeof err, "%s/stderr", tmp_dir);

	ds_init(&r->out);
	ds_init(&r->err);
	r->status = -1;
	pid_t pid = fork();
	if (!pid)
		exec_ctl(argv, out, err);

	long long give_up = now_ms() + 10000;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_ms() > give_up) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			CHECK(false, "vxswitch-ctl %s hung", args[0]);
			return;
		}
		if (serve)
			control_poll(20);
		else
			usleep(20000);
	}
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	read_file(out, &r->out);
	read_file(err, &r->err);
}

static void
ctl_result_destroy(struct ctl_result *r)
{
	ds_destroy(&r->out);
	ds_destroy(&r->err);
}

#define CTL(r, ...) run_ctl((r), true, (const char *const[]){ __VA_ARGS__, NULL })

static void
expect_ctl(int status, const char *out, const char *err,
	   const char *const *args)
{
	struct ctl_result r;

	run_ctl(&r, true, args);
	CHECK(r.status == status && !strcmp(ds_cstr(&r.out), out) &&
	      !strcmp(ds_cstr(&r.err), err),
	      "%s: got %d [%s] [%s], want %d [%s] [%s]", args[2],
	      r.status, ds_cstr(&r.out), ds_cstr(&r.err), status, out, err);
	ctl_result_destroy(&r);
}

#define EXPECT_CTL(status, out, err, ...) \
	expect_ctl((status), (out), (err), \
		   (const char *const[]){ "-s", sock_path, __VA_ARGS__, NULL })

static void
test_ctl_basics(void)
{
	EXPECT_CTL(0, "a b --strict\n", "", "echo", "a", "b", "--strict");
	EXPECT_CTL(0, "[\"a\",\"q\\\"\\\\\"]\n", "",
		   "--json", "echo", "a", "q\"\\");
	EXPECT_CTL(0, "\n", "", "echo");
	EXPECT_CTL(1, "", "vxswitch-ctl: it failed on purpose\n", "fail");
	EXPECT_CTL(1, "", "vxswitch-ctl: unknown command 'nosuch'; use "
		   "list-commands\n", "nosuch", "x");
	EXPECT_CTL(1, "", "vxswitch-ctl: 'add-flow' takes 1 to 2 arguments "
		   "(usage: add-flow [--strict] FLOW)\n", "add-flow");
	EXPECT_CTL(1, "", "vxswitch-ctl: 'add-flow' takes 1 to 2 arguments "
		   "(usage: add-flow [--strict] FLOW)\n",
		   "add-flow", "a", "b", "c");
	EXPECT_CTL(1, "", "vxswitch-ctl: 'fail' takes no arguments "
		   "(usage: fail)\n", "fail", "x");
	EXPECT_CTL(0, "", "", "add-flow", "--strict", "x");
	EXPECT_CTL(0, "usage: add-flow [--strict] FLOW\n", "",
		   "help", "add-flow");
	EXPECT_CTL(1, "", "vxswitch-ctl: empty arguments cannot be sent\n",
		   "echo", "");
}

static void
test_ctl_list_commands(void)
{
	struct ctl_result r;
	const char *order[] = { "  add-flow ", "  add-flows ", "  echo ",
				"  fail\n", "  help ", "  list-commands\n" };

	CTL(&r, "-s", sock_path, "list-commands");
	CHECK(r.status == 0, "status %d", r.status);
	const char *prev = ds_cstr(&r.out);
	for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
		const char *at = strstr(ds_cstr(&r.out), order[i]);
		CHECK(at && at > prev, "%s missing or out of order in\n%s",
		      order[i], ds_cstr(&r.out));
		prev = at ? at : prev;
	}
	ctl_result_destroy(&r);

	CTL(&r, "-s", sock_path, "--json", "list-commands");
	CHECK(r.status == 0 && !strncmp(ds_cstr(&r.out),
	      "[{\"name\":\"add-flow\",\"usage\":\"[--strict] FLOW\"},"
	      "{\"name\":\"add-flows\"", 58), "json: %s", ds_cstr(&r.out));
	CHECK(contains(&r.out, "{\"name\":\"list-commands\",\"usage\":\"\"}]\n"),
	      "json end: %s", ds_cstr(&r.out));
	ctl_result_destroy(&r);
}

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void
test_ctl_add_flows(void)
{
	char file[PATH_MAX + 16], want[PATH_MAX + 64];

	snprintf(file, sizeof file, "%s/flows.txt", tmp_dir);
	write_text(file, "# comment\n\n  in_port=1,actions=output:2  \n"
		   "\t# indented comment\r\n"
		   "in_port=2,actions=output:1\r\n"
		   "priority=0,actions=drop");
	flows_added = 0;
	EXPECT_CTL(0, "added 3 flows\n", "", "add-flows", file);
	CHECK(flows_added == 3, "%d flows added", flows_added);

	write_text(file, "in_port=1,actions=drop\n# x\n\nthis is bad\n");
	snprintf(want, sizeof want, "vxswitch-ctl: %s:4: cannot parse "
		 "'this is bad'\n", file);
	EXPECT_CTL(1, "", want, "add-flows", file);

	/* Over the per-request limit: refused before the daemon sees it. */
	FILE *f = fopen(file, "w");
	for (int i = 0; f && i < CONTROL_MAX_ARGS + 1; i++)
		fprintf(f, "priority=%d,actions=drop\n", i);
	if (f)
		fclose(f);
	snprintf(want, sizeof want, "vxswitch-ctl: %d flows, but a request "
		 "carries at most %d\n", CONTROL_MAX_ARGS + 1, CONTROL_MAX_ARGS);
	EXPECT_CTL(1, "", want, "add-flows", file);

	snprintf(want, sizeof want, "vxswitch-ctl: %s/none: No such file "
		 "or directory\n", tmp_dir);
	char missing[PATH_MAX + 16];
	snprintf(missing, sizeof missing, "%s/none", tmp_dir);
	EXPECT_CTL(1, "", want, "add-flows", missing);
	EXPECT_CTL(1, "", "vxswitch-ctl: usage: add-flows FILE\n",
		   "add-flows");
}

static void
test_ctl_no_daemon(void)
{
	char path[PATH_MAX + 16], want[PATH_MAX + 128];
	struct ctl_result r;

	snprintf(path, sizeof path, "%s/nobody.ctl", tmp_dir);
	snprintf(want, sizeof want, "vxswitch-ctl: cannot connect to %s: No "
		 "such file or directory (is vxswitch running?)\n", path);
	CTL(&r, "-s", path, "list-commands");
	CHECK(r.status == 2 && !strcmp(ds_cstr(&r.err), want),
	      "%d [%s]", r.status, ds_cstr(&r.err));
	ctl_result_destroy(&r);

	/* The environment names the socket when -s does not. */
	setenv("VXSWITCH_CTL_SOCKET", sock_path, 1);
	CTL(&r, "echo", "env");
	CHECK(r.status == 0 && !strcmp(ds_cstr(&r.out), "env\n"),
	      "%d [%s] [%s]", r.status, ds_cstr(&r.out), ds_cstr(&r.err));
	ctl_result_destroy(&r);
	unsetenv("VXSWITCH_CTL_SOCKET");

	/* A daemon that never answers: the connection waits in the backlog
	 * and --timeout ends it. */
	long long t0 = now_ms();
	run_ctl(&r, false, (const char *const[]){ "-s", sock_path, "-t", "1",
						  "echo", NULL });
	long long took = now_ms() - t0;
	CHECK(r.status == 2 && contains(&r.err, "no answer") &&
	      took >= 900 && took < 5000, "%d [%s] in %lld ms", r.status,
	      ds_cstr(&r.err), took);
	ctl_result_destroy(&r);
	control_poll(0);	/* drop that abandoned connection */

	CTL(&r, "--bogus");
	CHECK(r.status == 1, "bad option: %d", r.status);
	ctl_result_destroy(&r);
	CTL(&r, "--help");
	CHECK(r.status == 0 && contains(&r.out, "dpif-netdev/pmd-rxq-show") &&
	      contains(&r.out, "run 'vxswitch-ctl list-commands'"),
	      "help: %d", r.status);
	ctl_result_destroy(&r);
}

/* ---- raw requests, for what vxswitch-ctl never sends ---- */

static int
raw_connect(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock_path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr)) {
		CHECK(false, "connect: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
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

static void
expect_raw(const char *req, size_t len, int want_served, const char *want)
{
	struct ds reply = DS_EMPTY_INITIALIZER;
	int served = raw_exchange(req, len, false, &reply, NULL);

	CHECK(served == want_served && !strcmp(ds_cstr(&reply), want),
	      "served %d [%s], want %d [%s]", served, ds_cstr(&reply),
	      want_served, want);
	ds_destroy(&reply);
}

#define RAW(s) s, sizeof(s) - 1

static void
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

static void
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

static void
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
static void
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

/* ---- socket setup ---- */

static void
test_socket_modes(void)
{
	char dir[PATH_MAX];
	struct stat st = { 0 };

	CHECK(!stat(sock_path, &st) && S_ISSOCK(st.st_mode) &&
	      (st.st_mode & 0777) == 0600, "socket mode %o", st.st_mode);
	snprintf(dir, sizeof dir, "%s/run/sub", tmp_dir);
	CHECK(!stat(dir, &st) && (st.st_mode & 0777) == 0700,
	      "dir mode %o", st.st_mode);
	snprintf(dir, sizeof dir, "%s/run", tmp_dir);
	CHECK(!stat(dir, &st) && (st.st_mode & 0777) == 0700,
	      "dir mode %o", st.st_mode);
}

static int
make_unix_socket(const char *path, bool listening)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
	if (bind(fd, (struct sockaddr *)&addr, sizeof addr) ||
	    (listening && listen(fd, 1))) {
		CHECK(false, "bind %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void
test_init_refusals(void)
{
	char err[256] = "";
	struct stat st = { 0 };

	CHECK(control_init(sock_path, err, sizeof err) == -1 &&
	      strstr(err, "already open"), "double init: %s", err);
	control_fini();
	CHECK(stat(sock_path, &st) && errno == ENOENT, "fini unlinks");
	CHECK(control_poll(0) == -1, "poll after fini");

	/* A live listener keeps its socket. */
	int live = make_unix_socket(sock_path, true);
	CHECK(control_init(sock_path, err, sizeof err) == -1 &&
	      strstr(err, "another process is listening"), "live: %s", err);
	CHECK(!stat(sock_path, &st) && S_ISSOCK(st.st_mode), "live kept");
	close(live);

	/* ...now that it is gone, the file is stale and gets replaced. */
	start_server();
	CHECK(!stat(sock_path, &st) && (st.st_mode & 0777) == 0600,
	      "stale replaced");
	expect_raw(RAW("echo\0new\0\0"), 1, "OK\nnew\n");
	control_fini();

	/* Never a file that is not a socket. */
	write_text(sock_path, "precious");
	CHECK(control_init(sock_path, err, sizeof err) == -1 &&
	      strstr(err, "not a socket"), "regular file: %s", err);
	struct ds kept = DS_EMPTY_INITIALIZER;
	read_file(sock_path, &kept);
	CHECK(!strcmp(ds_cstr(&kept), "precious"), "file untouched");
	ds_destroy(&kept);
	unlink(sock_path);
}

static void
test_register(void)
{
	CHECK(control_register("help", "", 0, 0, cmd_nothing, NULL) == -1,
	      "built-in name taken");
	CHECK(control_register("echo", "", 0, 0, cmd_nothing, NULL) == -1,
	      "duplicate");
	CHECK(control_register("", "", 0, 0, cmd_nothing, NULL) == -1,
	      "empty name");
	CHECK(control_register("a b", "", 0, 0, cmd_nothing, NULL) == -1,
	      "space in name");
	CHECK(control_register("x", "", 2, 1, cmd_nothing, NULL) == -1,
	      "min > max");
	CHECK(control_register("x", "", 0, 0, NULL, NULL) == -1, "no fn");
}

/* ---- ds and json_out ---- */

static void
expect_json(const struct ds *ds, const char *want)
{
	CHECK(!strcmp(ds_cstr(ds), want), "got %s want %s", ds_cstr(ds),
	      want);
}

static void
test_ds(void)
{
	struct ds ds;

	ds_init(&ds);
	CHECK(!strcmp(ds_cstr(&ds), "") && ds.len == 0, "empty");
	for (int i = 0; i < 100; i++)
		ds_put_format(&ds, "%d,", i);
	CHECK(ds.len == 290 && !strncmp(ds_cstr(&ds), "0,1,2,", 6) &&
	      !strcmp(ds_cstr(&ds) + 284, "98,99,"), "format %zu", ds.len);
	ds_clear(&ds);
	ds_put_format(&ds, "%0200d", 7);
	CHECK(ds.len == 200 && ds.s[199] == '7' && !ds.s[200], "long");
	ds_put_char(&ds, 'x');
	ds_put_cstr(&ds, "yz");
	CHECK(!strcmp(ds_cstr(&ds) + 200, "xyz"), "append");
	ds_destroy(&ds);
	CHECK(ds.s == NULL && ds.len == 0, "destroyed");
}

static void
test_json_out(void)
{
	struct ds ds = DS_EMPTY_INITIALIZER;

	json_begin_object(&ds);
	json_key(&ds, "s");
	json_string(&ds, "q\"b\\n\n\t\r\b\f\x01\x1f\x7f é");
	json_key(&ds, "a");
	json_begin_array(&ds);
	json_u64(&ds, UINT64_MAX);
	json_i64(&ds, INT64_MIN);
	json_begin_object(&ds);
	json_end_object(&ds);
	json_begin_array(&ds);
	json_end_array(&ds);
	json_bool(&ds, true);
	json_bool(&ds, false);
	json_null(&ds);
	json_end_array(&ds);
	json_key(&ds, "d");
	json_begin_array(&ds);
	json_double(&ds, 0.1);
	json_double(&ds, -2.5e300);
	json_double(&ds, 1.0 / 3);
	json_double(&ds, NAN);
	json_double(&ds, INFINITY);
	json_end_array(&ds);
	json_end_object(&ds);
	expect_json(&ds, "{\"s\":\"q\\\"b\\\\n\\n\\t\\r\\b\\f\\u0001\\u001f"
		    "\x7f é\",\"a\":[18446744073709551615,"
		    "-9223372036854775808,{},[],true,false,null],"
		    "\"d\":[0.1,-2.5e+300,0.33333333333333331,null,null]}");

	/* One document per line: the newline starts the next one afresh. */
	ds_clear(&ds);
	json_u64(&ds, 1);
	ds_put_char(&ds, '\n');
	json_begin_object(&ds);
	json_key(&ds, "k\"");
	json_string(&ds, "");
	json_end_object(&ds);
	expect_json(&ds, "1\n{\"k\\\"\":\"\"}");
	ds_destroy(&ds);
}

/* ---- main ---- */

int
main(int argc, char *argv[])
{
	ctl_path = argc > 1 ? argv[1] : NULL;
	snprintf(tmp_dir, sizeof tmp_dir, "/tmp/vxs-test-control-XXXXXX");
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(sock_path, sizeof sock_path, "%s/run/sub/vxswitch.ctl",
		 tmp_dir);

	test_ds();
	test_json_out();
	CHECK(control_poll(0) == -1, "poll before init");
	start_server();
	test_register();
	test_socket_modes();
	test_raw_requests();
	test_raw_arg_limit();
	test_raw_bad_clients();
	test_raw_flood();
	if (ctl_path) {
		test_ctl_basics();
		test_ctl_list_commands();
		test_ctl_add_flows();
		test_ctl_no_daemon();
	} else {
		printf("SKIP vxswitch-ctl checks: no path to it in argv[1]\n");
	}
	test_init_refusals();
	control_fini();

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
	if (system(cmd))
		printf("could not remove %s\n", tmp_dir);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
