/* SPDX-License-Identifier: BSD-3-Clause
 * test_control, the unixctl socket (control_unixctl.c): OVS's JSON-RPC,
 * byte for byte, with what ovs-appctl never sends too: escapes, requests
 * split and pipelined, bad JSON. (Debian's ovs-appctl itself drives it in
 * tests/integration/test_ovs_appctl.py.)
 */
#include "control_test.h"

/* Serves until 'reply' holds 'n_replies' complete top-level objects
 * (braces counted outside strings), the server closes, or 2 s pass. */
static void
ux_serve(int fd, struct ds *reply, int n_replies)
{
	long long give_up = now_ms() + 2000;
	char buf[4096];

	for (;;) {
		int depth = 0, done = 0;
		bool in_str = false, esc = false;
		for (size_t i = 0; i < reply->len; i++) {
			char c = reply->s[i];
			if (in_str && esc)
				esc = false;
			else if (in_str && c == '\\')
				esc = true;
			else if (in_str)
				in_str = c != '"';
			else if (c == '"')
				in_str = true;
			else if (c == '{')
				depth++;
			else if (c == '}' && !--depth)
				done++;
		}
		if (done >= n_replies)
			return;
		control_poll(10);
		ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
		if (n > 0)
			ds_put_buf(reply, buf, (size_t)n);
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			return;
		if (now_ms() > give_up) {
			CHECK(false, "no answer: [%s]", ds_cstr(reply));
			return;
		}
	}
}

/* One connection: sends 'req', expects exactly 'want' back (n replies). */
static void
expect_ux(const char *path, const char *req, size_t len, int n,
	  const char *want)
{
	struct ds reply = DS_EMPTY_INITIALIZER;
	int fd = unix_connect(path);

	if (fd < 0)
		return;
	CHECK(send(fd, req, len, MSG_NOSIGNAL) == (ssize_t)len, "send");
	ux_serve(fd, &reply, n);
	CHECK(!strcmp(ds_cstr(&reply), want), "sent [%.*s]\n got [%s]\nwant "
	      "[%s]", (int)len, req, ds_cstr(&reply), want);
	close(fd);
	ds_destroy(&reply);
}

#define UX(path, s, n, want) expect_ux(path, s, sizeof(s) - 1, n, want)

void
test_unixctl(void)
{
	char err[256] = "", want_path[sizeof sock_path];
	const char *slash = strrchr(sock_path, '/');

	CHECK(!control_unixctl_path(), "no unixctl socket before init");
	CHECK(!control_unixctl_init(NULL, err, sizeof err), "init: %s", err);
	snprintf(want_path, sizeof want_path, "%.*s/vxswitch.%ld.ctl",
		 (int)(slash - sock_path), sock_path, (long)getpid());
	const char *p = control_unixctl_path();
	CHECK(p && !strcmp(p, want_path), "path %s, want %s", p ? p : "-",
	      want_path);
	CHECK(control_unixctl_init(NULL, err, sizeof err) == -1 &&
	      strstr(err, "already open"), "second init: %s", err);
	if (!p)
		return;

	/* OVS's own shapes, the id echoed as sent */
	UX(p, "{\"id\":0,\"method\":\"echo\",\"params\":[\"a\",\"b c\"]}", 1,
	   "{\"id\":0,\"result\":\"a b c\\n\",\"error\":null}");
	UX(p, "{\"params\":[],\"id\":\"x-1\",\"method\":\"fail\"}", 1,
	   "{\"id\":\"x-1\",\"error\":\"it failed on purpose\\n\","
	   "\"result\":null}");
	UX(p, "{\"id\":7,\"method\":\"nosuch\",\"params\":[]}", 1,
	   "{\"id\":7,\"error\":\"\\\"nosuch\\\" is not a valid command (use "
	   "\\\"list-commands\\\" to see a list of valid commands)\\n\","
	   "\"result\":null}");
	UX(p, "{\"id\":1,\"method\":\"add-flow\",\"params\":[]}", 1,
	   "{\"id\":1,\"error\":\"\\\"add-flow\\\" command requires at least "
	   "1 arguments\\n\",\"result\":null}");
	UX(p, "{\"id\":1,\"method\":\"add-flow\",\"params\":[\"a\",\"b\","
	   "\"c\"]}", 1, "{\"id\":1,\"error\":\"\\\"add-flow\\\" command "
	   "takes at most 2 arguments\\n\",\"result\":null}");
	UX(p, "{\"id\":2,\"method\":\"echo\",\"params\":[\"a\",1]}", 1,
	   "{\"id\":2,\"error\":\"\\\"echo\\\" command has non-string "
	   "argument\\n\",\"result\":null}");
	/* escapes both ways: \", \\, \t, \u00e9, a surrogate pair (UTF-8
	 * out), and a control character out as \u0001 */
	UX(p, "{\"id\":3,\"method\":\"echo\",\"params\":[\"q\\\"\\\\\\t\","
	   "\"\\u00e9\\ud83d\\ude00\",\"\\u0001\"]}", 1,
	   "{\"id\":3,\"result\":\"q\\\"\\\\\\t \xc3\xa9\xf0\x9f\x98\x80 "
	   "\\u0001\\n\",\"error\":null}");
	/* brackets in strings do not end a request; two requests in one
	 * send, answered in order on the connection kept open */
	UX(p, "{\"id\":4,\"method\":\"echo\",\"params\":[\"}]{[\"]}"
	   "\n{\"id\":5,\"method\":\"echo\",\"params\":[]}", 2,
	   "{\"id\":4,\"result\":\"}]{[\\n\",\"error\":null}"
	   "{\"id\":5,\"result\":\"\\n\",\"error\":null}");

	/* bad JSON: an error answer (to the id if the request parsed and
	 * has one), never a crash (more: test_unixctl_request.c) */
	UX(p, "{\"id\":6,\"method\":\"echo\",\"params\":[\"\\u0000\"]}", 1,
	   "{\"id\":6,\"error\":\"bad JSON-RPC request: NUL in a "
	   "string\\n\",\"result\":null}");
	UX(p, "{\"method\":5,\"id\":6,\"params\":[]}", 1,
	   "{\"id\":6,\"error\":\"bad JSON-RPC request: method is not a "
	   "JSON string\\n\",\"result\":null}");
	UX(p, "{\"id\":6,\"params\":[]}", 1,
	   "{\"id\":6,\"error\":\"bad JSON-RPC request: \\\"id\\\", "
	   "\\\"method\\\" and \\\"params\\\" are needed\\n\","
	   "\"result\":null}");
	UX(p, "[1,2]", 1, "{\"id\":null,\"error\":\"bad JSON-RPC request: "
	   "not a JSON object\\n\",\"result\":null}");
	char deep[200];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	char req[400];
	int n = snprintf(req, sizeof req, "{\"id\":8,\"x\":%.200s,\"method\":"
			 "\"echo\",\"params\":[]}", deep);
	expect_ux(p, req, (size_t)n, 1, "{\"id\":8,\"error\":\"bad "
		  "JSON-RPC request: nested too deep\\n\",\"result\":null}");
	/* trailing garbage: a request of its own, answered as such; bytes
	 * that are not UTF-8 */
	UX(p, "{\"id\":11,\"method\":\"echo\",\"params\":[\"t\"]}x", 2,
	   "{\"id\":11,\"result\":\"t\\n\",\"error\":null}"
	   "{\"id\":null,\"error\":\"bad JSON-RPC request: invalid token "
	   "near 'x'\\n\",\"result\":null}");
	UX(p, "{\"id\":12,\"method\":\"echo\",\"params\":[\"\xff\"]}", 1,
	   "{\"id\":null,\"error\":\"bad JSON-RPC request: invalid "
	   "UTF-8\\n\",\"result\":null}");
	/* unknown members are skipped, values of every kind */
	UX(p, "{\"x\":{\"a\":[true,null,-1.5e3]},\"id\":9,\"method\":\"echo\","
	   "\"params\":[\"ok\"]}", 1,
	   "{\"id\":9,\"result\":\"ok\\n\",\"error\":null}");

	/* a request sent a byte at a time, between polls */
	static const char slow[] =
		"{\"id\":10,\"method\":\"echo\",\"params\":[\"slow\"]}";
	struct ds reply = DS_EMPTY_INITIALIZER;
	int fd = unix_connect(p);
	for (size_t i = 0; fd >= 0 && i < sizeof slow - 1; i++) {
		CHECK(send(fd, slow + i, 1, MSG_NOSIGNAL) == 1, "send");
		control_poll(0);
	}
	if (fd >= 0) {
		ux_serve(fd, &reply, 1);
		CHECK(!strcmp(ds_cstr(&reply), "{\"id\":10,\"result\":\"slow\\n\""
			      ",\"error\":null}"), "slow: [%s]", ds_cstr(&reply));
		close(fd);
	}
	ds_destroy(&reply);

	/* the control.h socket still speaks its own protocol */
	expect_raw(RAW("echo\0both\0\0"), 1, "OK\nboth\n");
}
