/* SPDX-License-Identifier: BSD-3-Clause
 * The OVSDB stream's framing scan (app/control/ovsdb_frame.h): where a
 * message ends among back-to-back JSON objects, strings and escapes that
 * hide brackets, a message arriving a byte at a time, and the limits:
 * depth, length, a top level that is not an object, brackets that do
 * not match.
 */
#include <stdio.h>
#include <string.h>
#include "ovsdb_frame.h"
#include "unit_test.h"

/* One scan of all of s; *end set on DONE. */
static enum ovsdb_frame_rc
scan(const char *s, size_t max_len, size_t *end)
{
	struct ovsdb_frame f;

	ovsdb_frame_reset(&f);
	*end = 0;
	return ovsdb_frame_scan(&f, s, strlen(s), max_len, end);
}

static void
test_whole(void)
{
	static const struct {
		const char *in;
		size_t end;	/* 0: not DONE */
	} cases[] = {
		{ "{}", 2 },
		{ "{\"id\":1}", 8 },
		{ "  \n{\"a\":[1,{\"b\":[]}]}", 21 },
		{ "{\"a\":\"}\"}", 9 },
		{ "{\"a\":\"\\\"}\"}", 11 },		/* {"a":"\"}"} */
		{ "{\"a\":\"\\\\\"}", 10 },		/* {"a":"\\"} */
		{ "{\"a\":\"[{\"}{\"b\":2}", 10 },	/* the first of two */
		{ "{\"a\":[", 0 },
		{ "{\"a\":\"}", 0 },			/* in a string */
		{ "", 0 },
		{ "   ", 0 },
	};

	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		size_t end;
		enum ovsdb_frame_rc rc = scan(cases[i].in, 1 << 20, &end);
		if (cases[i].end)
			CHECK(rc == OVSDB_FRAME_DONE && end == cases[i].end,
			      "'%s': %s at %zu, want complete at %zu",
			      cases[i].in, ovsdb_frame_rc_name(rc), end,
			      cases[i].end);
		else
			CHECK(rc == OVSDB_FRAME_MORE, "'%s': %s, want "
			      "incomplete", cases[i].in,
			      ovsdb_frame_rc_name(rc));
	}
}

static void
test_refused(void)
{
	static const struct {
		const char *in;
		enum ovsdb_frame_rc rc;
	} cases[] = {
		{ "[1]", OVSDB_FRAME_NOT_OBJECT },
		{ "1", OVSDB_FRAME_NOT_OBJECT },
		{ "\"x\"", OVSDB_FRAME_NOT_OBJECT },
		{ "}", OVSDB_FRAME_NOT_OBJECT },
		{ "{]", OVSDB_FRAME_NOT_OBJECT },
		{ "{\"a\":[}", OVSDB_FRAME_NOT_OBJECT },
		{ "  null", OVSDB_FRAME_NOT_OBJECT },
	};

	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		size_t end;
		enum ovsdb_frame_rc rc = scan(cases[i].in, 1 << 20, &end);
		CHECK(rc == cases[i].rc, "'%s': %s, want %s", cases[i].in,
		      ovsdb_frame_rc_name(rc),
		      ovsdb_frame_rc_name(cases[i].rc));
	}
}

/* depth OVSDB_FRAME_MAX_DEPTH passes, one more does not, even inside
 * a message that never ends */
static void
test_depth(void)
{
	char buf[2 * OVSDB_FRAME_MAX_DEPTH + 8];
	size_t n = 0, end;

	buf[n++] = '{';
	buf[n++] = '"';
	buf[n++] = 'a';
	buf[n++] = '"';
	buf[n++] = ':';
	for (int i = 1; i < OVSDB_FRAME_MAX_DEPTH; i++)
		buf[n++] = '[';
	for (int i = 1; i < OVSDB_FRAME_MAX_DEPTH; i++)
		buf[n++] = ']';
	buf[n++] = '}';
	buf[n] = '\0';
	CHECK(scan(buf, 1 << 20, &end) == OVSDB_FRAME_DONE && end == n,
	      "depth %d: not complete", OVSDB_FRAME_MAX_DEPTH);

	n = 0;
	buf[n++] = '{';
	buf[n++] = '"';
	buf[n++] = 'a';
	buf[n++] = '"';
	buf[n++] = ':';
	for (int i = 0; i < OVSDB_FRAME_MAX_DEPTH; i++)
		buf[n++] = '[';
	buf[n] = '\0';
	CHECK(scan(buf, 1 << 20, &end) == OVSDB_FRAME_TOO_DEEP,
	      "depth %d: not refused", OVSDB_FRAME_MAX_DEPTH + 1);
}

static void
test_length(void)
{
	const char *msg = "{\"id\":\"0123456789\"}";	/* 19 bytes */
	size_t len = strlen(msg), end;

	CHECK(scan(msg, len, &end) == OVSDB_FRAME_DONE && end == len,
	      "a message of exactly the limit is refused");
	CHECK(scan(msg, len - 1, &end) == OVSDB_FRAME_TOO_LONG,
	      "a message one byte over the limit is not refused");
	/* white space before it counts: a stream of blanks is bounded */
	CHECK(scan("     {}", 4, &end) == OVSDB_FRAME_TOO_LONG,
	      "leading blanks are not bounded");
}

/* byte by byte, the same state carried on: complete only at the last
 * byte; then the next message after a reset */
static void
test_incremental(void)
{
	const char *stream = "{\"method\":\"update\",\"params\":[\"x\","
			     "{\"T\":{\"u\":{\"new\":{\"s\":\"]}\\\"\"}}}}],"
			     "\"id\":null}{\"id\":2}";
	size_t first = strlen(stream) - strlen("{\"id\":2}");
	struct ovsdb_frame f;
	size_t end = 0, done_at = 0;

	ovsdb_frame_reset(&f);
	for (size_t len = 1; len <= strlen(stream) && !done_at; len++) {
		enum ovsdb_frame_rc rc = ovsdb_frame_scan(&f, stream, len,
							  1 << 20, &end);
		if (rc == OVSDB_FRAME_DONE)
			done_at = len;
		else
			CHECK(rc == OVSDB_FRAME_MORE, "at %zu: %s", len,
			      ovsdb_frame_rc_name(rc));
	}
	CHECK(done_at == first && end == first, "first message: done at %zu "
	      "end %zu, want %zu", done_at, end, first);
	ovsdb_frame_reset(&f);
	CHECK(ovsdb_frame_scan(&f, stream + end, strlen(stream + end),
			       1 << 20, &end) == OVSDB_FRAME_DONE &&
	      end == strlen("{\"id\":2}"), "second message: end %zu", end);
}

int
main(void)
{
	test_whole();
	test_refused();
	test_depth();
	test_length();
	test_incremental();
	return unit_test_report();
}
