/* SPDX-License-Identifier: BSD-3-Clause
 * test_control, the real client: vxswitch-ctl run in a child against the
 * server in this process.
 */
#include "control_test.h"

/* ---- running vxswitch-ctl ---- */

struct ctl_result {
	int status;			/* exit status, or -1 */
	struct ds out, err;
};

void
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

void
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

void
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
	CHECK(contains(&r.out, "{\"name\":\"list-commands\",\"usage\":\"\"},"
		       "{\"name\":\"version\",\"usage\":\"\"}]\n"),
	      "json end: %s", ds_cstr(&r.out));
	ctl_result_destroy(&r);
}

void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

void
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
	EXPECT_CTL(1, "", "vxswitch-ctl: usage: add-flows [BRIDGE] FILE\n",
		   "add-flows");
}

void
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

	/* -t is ovs-appctl's target: an absolute path is the socket, a
	 * name the daemon's socket in the default directory; a number (the
	 * old -t SECS) is refused with a hint. */
	CTL(&r, "-t", sock_path, "echo", "target");
	CHECK(r.status == 0 && !strcmp(ds_cstr(&r.out), "target\n"),
	      "%d [%s] [%s]", r.status, ds_cstr(&r.out), ds_cstr(&r.err));
	ctl_result_destroy(&r);
	CTL(&r, "--target", "vxs-no-such-daemon", "list-commands");
	CHECK(r.status == 2 && contains(&r.err, "cannot connect to "
	      CONTROL_DEFAULT_DIR "/vxs-no-such-daemon.ctl:"), "%d [%s]",
	      r.status, ds_cstr(&r.err));
	ctl_result_destroy(&r);
	CTL(&r, "-t", "5", "list-commands");
	CHECK(r.status == 1 && contains(&r.err, "bad target '5'") &&
	      contains(&r.err, "--timeout=SECS"), "%d [%s]", r.status,
	      ds_cstr(&r.err));
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
	run_ctl(&r, false, (const char *const[]){ "-s", sock_path,
						  "--timeout=1", "echo",
						  NULL });
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
