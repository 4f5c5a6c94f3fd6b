/* SPDX-License-Identifier: BSD-3-Clause
 * The control socket end to end: the server runs in this process, and is
 * spoken to by the real vxswitch-ctl (argv[1]; those checks are skipped
 * without it) run in a child, and by hand-made raw requests for what the
 * client would never send. Also checks ds and json_out, which the server's
 * output is built with.
 *
 * This file: the checks, the commands the tests register, socket setup,
 * ds and json_out, main; the vxswitch-ctl runs are in test_control_ctl.c,
 * the raw requests in test_control_raw.c.
 */
#include "control_test.h"

int n_passed, n_failed;
const char *ctl_path;		/* the vxswitch-ctl to test, or NULL */
/* Short, to stay inside sun_path's 108 bytes. */
char tmp_dir[64];
char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

void
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

bool
contains(const struct ds *ds, const char *needle)
{
	return strstr(ds_cstr(ds), needle) != NULL;
}

/* ---- commands the tests register ---- */

/* Prints its arguments: space-separated, or as a JSON array. */
static int
cmd_echo(int argc, const char *argv[], bool json, struct ds *out, void *aux)
{
	(void)aux;
	if (json)
		jw_begin_array(out);
	for (int i = 1; i < argc; i++) {
		if (json)
			jw_string(out, argv[i]);
		else
			ds_put_format(out, "%s%s", i > 1 ? " " : "", argv[i]);
	}
	if (json)
		jw_end_array(out);
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

int flows_added;

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

void
start_server(void)
{
	char err[256] = "";

	CHECK(!control_init(sock_path, err, sizeof err), "init: %s", err);
	register_test_commands();
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

	jw_begin_object(&ds);
	jw_key(&ds, "s");
	jw_string(&ds, "q\"b\\n\n\t\r\b\f\x01\x1f\x7f é");
	jw_key(&ds, "a");
	jw_begin_array(&ds);
	jw_u64(&ds, UINT64_MAX);
	jw_i64(&ds, INT64_MIN);
	jw_begin_object(&ds);
	jw_end_object(&ds);
	jw_begin_array(&ds);
	jw_end_array(&ds);
	jw_bool(&ds, true);
	jw_bool(&ds, false);
	jw_null(&ds);
	jw_end_array(&ds);
	jw_key(&ds, "d");
	jw_begin_array(&ds);
	jw_double(&ds, 0.1);
	jw_double(&ds, -2.5e300);
	jw_double(&ds, 1.0 / 3);
	jw_double(&ds, NAN);
	jw_double(&ds, INFINITY);
	jw_end_array(&ds);
	jw_end_object(&ds);
	expect_json(&ds, "{\"s\":\"q\\\"b\\\\n\\n\\t\\r\\b\\f\\u0001\\u001f"
		    "\x7f é\",\"a\":[18446744073709551615,"
		    "-9223372036854775808,{},[],true,false,null],"
		    "\"d\":[0.1,-2.5e+300,0.33333333333333331,null,null]}");

	/* One document per line: the newline starts the next one afresh. */
	ds_clear(&ds);
	jw_u64(&ds, 1);
	ds_put_char(&ds, '\n');
	jw_begin_object(&ds);
	jw_key(&ds, "k\"");
	jw_string(&ds, "");
	jw_end_object(&ds);
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
	test_unixctl();
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
