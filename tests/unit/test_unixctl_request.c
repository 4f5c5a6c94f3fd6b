/* SPDX-License-Identifier: BSD-3-Clause
 * The unixctl request reader (app/control/unixctl_request.h): where a
 * request ends in what was received, then its id, method and params, or
 * the error text the answer carries, for good requests and for what
 * ovs-appctl never sends (truncated, too deep, too many params,
 * non-string params, wrong types, NULs, bad UTF-8, trailing garbage, two
 * requests in one read). The socket around it: test_control_unixctl.c;
 * Debian's ovs-appctl: tests/integration/test_ovs_appctl.py.
 */
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "unit_test.h"
#include "unixctl_request.h"

#define BAD "bad JSON-RPC request: "

/* Parses req[0..len); if want_err is NULL expects success with id
 * 'want_id' and the argv in 'want' (NUL-separated, "" ends), else the
 * error text want_err and id want_id (NULL: none). */
static void
expect(const char *req, size_t len, const char *want_id, const char *want,
       const char *want_err)
{
	struct unixctl_request q;
	struct ds err = DS_EMPTY_INITIALIZER;
	int rc = unixctl_request_parse(req, len, &q, &err);

	if (!want_err) {
		CHECK(rc == 0, "[%.*s]: %s", (int)len, req, ds_cstr(&err));
		int n = 0;
		for (const char *w = want; rc == 0 && *w; w += strlen(w) + 1) {
			CHECK(n < q.argc && !strcmp(q.argv[n], w),
			      "[%.*s]: argv[%d] [%s], want [%s]", (int)len, req,
			      n, n < q.argc ? q.argv[n] : "-", w);
			n++;
		}
		CHECK(rc != 0 || (n == q.argc && !q.argv[n]),
		      "[%.*s]: argc %d, want %d", (int)len, req, q.argc, n);
	} else {
		CHECK(rc == -1 && !strcmp(ds_cstr(&err), want_err),
		      "[%.*s]: rc %d [%s], want [%s]", (int)len, req, rc,
		      ds_cstr(&err), want_err);
	}
	CHECK(want_id ? q.id && !strcmp(q.id, want_id) : !q.id,
	      "[%.*s]: id [%s], want [%s]", (int)len, req,
	      q.id ? q.id : "(none)", want_id ? want_id : "(none)");
	unixctl_request_destroy(&q);
	ds_destroy(&err);
}

#define OK(req, id, argv) expect(req, sizeof(req) - 1, id, argv "\0", NULL)
#define ERR(req, id, err) expect(req, sizeof(req) - 1, id, NULL, err)

/* The lengths unixctl_request_end cuts 's' into, fed 'step' bytes at a
 * time (0: all at once), as "n,n,..." with the unfinished rest as "+n". */
static void
expect_frames(const char *s, size_t step, const char *want)
{
	size_t len = strlen(s), start = 0, scanned = 0, have;
	uint64_t scan = 0;
	char got[256] = "";

	for (have = step ? step : len; ; have += step ? step : len) {
		if (have > len)
			have = len;
		size_t end;
		while ((end = unixctl_request_end(s + start, scanned,
						  have - start, &scan))) {
			snprintf(got + strlen(got), sizeof got - strlen(got),
				 "%s%zu", *got ? "," : "", end);
			start += end;
			scanned = 0;
			scan = 0;
		}
		scanned = have - start;
		if (have == len)
			break;
	}
	if (start < len)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s+%zu",
			 *got ? "," : "", len - start);
	CHECK(!strcmp(got, want), "[%s] by %zu: [%s], want [%s]", s, step,
	      got, want);
}

static void
test_framing(void)
{
	static const char two[] =
		"{\"id\":1,\"method\":\"a\",\"params\":[\"}]{[\\\"\"]}"
		"\n{\"id\":2,\"method\":\"b\",\"params\":[]}";

	for (size_t step = 0; step < 4; step++) {
		/* two requests in one read; brackets and an escaped quote
		 * in a string do not count; the newline starts the second */
		expect_frames(two, step, "41,34");
		/* truncated: nothing yet */
		expect_frames("{\"id\":1,\"params\":[\"a", step, "+20");
		/* trailing garbage: a request of one byte each */
		expect_frames("{}x y", step, "2,1,2");
		expect_frames("  [[]]\t", step, "6,+1");
	}
	/* the two requests of one read, parsed one after the other */
	expect(two, 41, "1", "a\0}]{[\"\0", NULL);
	expect(two + 41, sizeof two - 1 - 41, "2", "b\0", NULL);
	expect("x", 1, NULL, NULL, BAD "invalid token near 'x'");
}

static void
test_good(void)
{
	OK("{\"id\":0,\"method\":\"version\",\"params\":[]}", "0",
	   "version");
	/* members in any order, unknown ones of every kind skipped */
	OK("{\"params\":[\"a\",\"b c\"],\"x\":{\"a\":[true,null,-1.5e3,{}]},"
	   "\"id\":\"x-1\",\"method\":\"echo\"}", "\"x-1\"", "echo\0a\0b c");
	/* escapes: \", \\, \/, \t, \u00e9, a surrogate pair, \u0001 */
	OK("{\"id\":3,\"method\":\"echo\",\"params\":[\"q\\\"\\\\\\/\\t\","
	   "\"\\u00e9\\ud83d\\ude00\",\"\\u0001\"]}", "3",
	   "echo\0q\"\\/\t\0\xc3\xa9\xf0\x9f\x98\x80\0\x01");
	/* UTF-8 as sent */
	OK("{\"id\":4,\"method\":\"echo\",\"params\":[\"\xc3\xa9\"]}", "4",
	   "echo\0\xc3\xa9");
	/* a repeated member: the last one, as OVS's parser */
	OK("{\"id\":1,\"method\":\"a\",\"params\":[\"x\"],\"method\":\"b\","
	   "\"params\":[\"y\",\"z\"],\"id\":2}", "2", "b\0y\0z");
	/* whitespace around and inside */
	OK("\n \t{ \"id\" : 5 , \"method\" : \"m\" , \"params\" : [ \"p\" ] }",
	   "5", "m\0p");
	/* ids of every kind, written back compact (reals as OVS writes
	 * them: %.15g) */
	OK("{\"id\":null,\"method\":\"m\",\"params\":[]}", "null", "m");
	OK("{\"id\":-7,\"method\":\"m\",\"params\":[]}", "-7", "m");
	OK("{\"id\":1.5,\"method\":\"m\",\"params\":[]}", "1.5", "m");
	OK("{\"id\":1e3,\"method\":\"m\",\"params\":[]}", "1000", "m");
	OK("{\"id\":true,\"method\":\"m\",\"params\":[]}", "true", "m");
	OK("{\"id\":\"a\\/b\\u00e9\",\"method\":\"m\",\"params\":[]}",
	   "\"a/b\xc3\xa9\"", "m");
	OK("{\"id\": [1, {\"k\": \"v\"}], \"method\":\"m\",\"params\":[]}",
	   "[1,{\"k\":\"v\"}]", "m");
	/* past long long: a double, as OVS reads it */
	OK("{\"id\":99999999999999999999,\"method\":\"m\",\"params\":[]}",
	   "1e+20", "m");
	OK("{\"id\":9223372036854775807,\"method\":\"m\",\"params\":[]}",
	   "9223372036854775807", "m");
	/* empty strings are arguments too */
	static const char empty[] =
		"{\"id\":6,\"method\":\"m\",\"params\":[\"\",\"\"]}";
	struct unixctl_request q;
	struct ds err = DS_EMPTY_INITIALIZER;
	CHECK(!unixctl_request_parse(empty, sizeof empty - 1, &q, &err) &&
	      q.argc == 3 && !*q.argv[1] && !*q.argv[2] && !q.argv[3],
	      "empty arguments: %d [%s]", q.argc, ds_cstr(&err));
	unixctl_request_destroy(&q);
	ds_destroy(&err);
}

/* 'n' arrays nested as member "x" of a request with id 8 */
static void
expect_deep(int n, const char *want_id, const char *want_err)
{
	struct ds r = DS_EMPTY_INITIALIZER;

	ds_put_cstr(&r, "{\"id\":8,\"x\":");
	for (int i = 0; i < n; i++)
		ds_put_char(&r, '[');
	for (int i = 0; i < n; i++)
		ds_put_char(&r, ']');
	ds_put_cstr(&r, ",\"method\":\"m\",\"params\":[]}");
	expect(r.s, r.len, want_id, "m\0", want_err);
	ds_destroy(&r);
}

static void
test_limits(void)
{
	expect_deep(UNIXCTL_MAX_DEPTH, "8", NULL);
	expect_deep(UNIXCTL_MAX_DEPTH + 1, "8", BAD "nested too deep");
	expect_deep(100, "8", BAD "nested too deep");
	/* past jansson's own limit the id is not known */
	expect_deep(5000, NULL, BAD "nested too deep");

	/* CONTROL_MAX_ARGS string params, then one more */
	struct ds r = DS_EMPTY_INITIALIZER;
	ds_put_cstr(&r, "{\"id\":9,\"method\":\"m\",\"params\":[\"a\"");
	for (int i = 1; i < CONTROL_MAX_ARGS; i++)
		ds_put_cstr(&r, ",\"a\"");
	struct unixctl_request q;
	struct ds err = DS_EMPTY_INITIALIZER;
	ds_put_cstr(&r, "]}");
	CHECK(!unixctl_request_parse(r.s, r.len, &q, &err) &&
	      q.argc == CONTROL_MAX_ARGS + 1 && !q.argv[q.argc],
	      "max args: %d [%s]", q.argc, ds_cstr(&err));
	unixctl_request_destroy(&q);
	r.len -= 2;
	ds_put_cstr(&r, ",\"a\"]}");
	expect(r.s, r.len, "9", NULL, BAD "too many arguments");
	ds_destroy(&r);

	/* a long argument is only bytes */
	ds_put_cstr(&r, "{\"id\":9,\"method\":\"m\",\"params\":[\"");
	for (int i = 0; i < 100000; i++)
		ds_put_cstr(&r, "\\n");
	ds_put_cstr(&r, "\"]}");
	CHECK(!unixctl_request_parse(r.s, r.len, &q, &err) && q.argc == 2 &&
	      strlen(q.argv[1]) == 100000 && q.argv[1][99999] == '\n',
	      "long argument: %s", ds_cstr(&err));
	unixctl_request_destroy(&q);
	ds_destroy(&r);
	ds_destroy(&err);
}

static void
test_bad(void)
{
	/* truncated */
	ERR("{\"id\":1,\"method\":\"echo\",\"params\":[\"a\"", NULL,
	    BAD "']' expected near end of file");
	ERR("{\"id\":1,\"method\":\"echo\",\"params\":[\"a", NULL,
	    BAD "premature end of input near '\"a'");
	ERR("", NULL, BAD "unexpected token near end of file");
	/* not an object */
	ERR("[1,2]", NULL, BAD "not a JSON object");
	ERR("5", NULL, BAD "not a JSON object");
	/* missing members: the id is still answered */
	ERR("{\"id\":6,\"params\":[]}", "6",
	    BAD "\"id\", \"method\" and \"params\" are needed");
	ERR("{\"id\":6,\"method\":\"m\"}", "6",
	    BAD "\"id\", \"method\" and \"params\" are needed");
	ERR("{\"method\":\"m\",\"params\":[]}", NULL,
	    BAD "\"id\", \"method\" and \"params\" are needed");
	/* wrong types: method as OVS says it, params as before */
	ERR("{\"method\":5,\"id\":6,\"params\":[]}", "6",
	    BAD "method is not a JSON string");
	ERR("{\"method\":null,\"id\":6,\"params\":[]}", "6",
	    BAD "method is not a JSON string");
	ERR("{\"method\":[\"m\"],\"id\":6,\"params\":[]}", "6",
	    BAD "method is not a JSON string");
	ERR("{\"method\":\"m\",\"id\":6,\"params\":\"a\"}", "6",
	    BAD "\"params\" must be an array");
	ERR("{\"method\":\"m\",\"id\":6,\"params\":{}}", "6",
	    BAD "\"params\" must be an array");
	ERR("{\"method\":\"m\",\"id\":6,\"params\":null}", "6",
	    BAD "\"params\" must be an array");
	/* non-string params: OVS's text, no prefix */
	ERR("{\"id\":2,\"method\":\"echo\",\"params\":[\"a\",1]}", "2",
	    "\"echo\" command has non-string argument");
	ERR("{\"id\":2,\"method\":\"echo\",\"params\":[null]}", "2",
	    "\"echo\" command has non-string argument");
	ERR("{\"id\":2,\"method\":\"echo\",\"params\":[[\"a\"]]}", "2",
	    "\"echo\" command has non-string argument");
	ERR("{\"id\":2,\"method\":\"echo\",\"params\":[{\"a\":\"b\"}]}", "2",
	    "\"echo\" command has non-string argument");
	/* NUL: refused wherever, the id known unless the NUL is in a key */
	ERR("{\"id\":6,\"method\":\"echo\",\"params\":[\"a\\u0000b\"]}", "6",
	    BAD "NUL in a string");
	ERR("{\"id\":6,\"method\":\"e\\u0000\",\"params\":[]}", "6",
	    BAD "NUL in a string");
	ERR("{\"id\":6,\"x\":{\"y\":\"\\u0000\"},\"method\":\"m\",\"params\":[]}",
	    "6", BAD "NUL in a string");
	ERR("{\"id\":6,\"\\u0000\":1,\"method\":\"m\",\"params\":[]}", NULL,
	    BAD "NUL in a string");
	/* not UTF-8: a stray continuation byte, an overlong '/', a lone
	 * surrogate escape */
	ERR("{\"id\":1,\"method\":\"echo\",\"params\":[\"\xff\"]}", NULL,
	    BAD "invalid UTF-8");
	ERR("{\"id\":1,\"method\":\"echo\",\"params\":[\"\xc0\xaf\"]}", NULL,
	    BAD "invalid UTF-8");
	ERR("{\"id\":1,\"method\":\"echo\",\"params\":[\"\\udc00\"]}", NULL,
	    BAD "invalid Unicode '\\uDC00' near '\"\\udc00\"'");
	/* syntax */
	ERR("{\"id\":1,\"method\":\"echo\",\"params\":[\"a\",]}", NULL,
	    BAD "unexpected token near ']'");
	ERR("{\"id\":hello,\"method\":\"m\",\"params\":[]}", NULL,
	    BAD "invalid token near 'hello'");
	ERR("{\"id\":1,\"method\":\"m\",\"params\":[\"a\tb\"]}", NULL,
	    BAD "control character 0x9 near '\"a'");
	ERR("{\"id\":1 \"method\":\"m\",\"params\":[]}", NULL,
	    BAD "'}' expected near '\"method\"'");
	ERR("{\"id\":1,\"method\":\"m\",\"params\":[]} x", NULL,
	    BAD "end of file expected near 'x'");
	/* a number no double holds (OVS's words) */
	ERR("{\"id\":1e400,\"method\":\"m\",\"params\":[]}", NULL,
	    BAD "number outside valid range");
}

int
main(void)
{
	test_framing();
	test_good();
	test_limits();
	test_bad();
	return unit_test_report();
}
