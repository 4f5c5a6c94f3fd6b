/* SPDX-License-Identifier: BSD-3-Clause
 * OVS's unixctl JSON-RPC (lib/unixctl.c, lib/jsonrpc.c of OVS 3.1), the
 * protocol of the second control socket (control_unixctl_init), so that
 * Debian's ovs-appctl drives vxswitch as it drives ovs-vswitchd:
 *
 *   request  {"id":ID,"method":"COMMAND","params":["ARG",...]}
 *	One JSON object, with no delimiter after it; several may follow
 *	each other on one connection (OVS's Python client reuses it).
 *   answer   {"id":ID,"result":"BODY\n","error":null}
 *	  or     {"id":ID,"error":"TEXT\n","result":null}
 *	ID is the request's own. No other member (ovs-appctl rejects a
 *	"jsonrpc" one); BODY or TEXT end with a newline unless empty, as
 *	OVS's server adds one. ovs-appctl prints BODY, or TEXT on stderr
 *	and exits 2.
 *
 * The commands are control.c's (the same table as control.h's socket),
 * run in OVS's dialect: the dispatcher's errors in OVS's words and
 * list-commands in its layout. The server's own errors (limits,
 * time-outs) go out with "id":null, which ovs-appctl reports as a
 * protocol error.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "control_priv.h"
#include "json_out.h"
#include "version.h"

/* The scan state kept between reads: depth in the low 32 bits, then
 * whether in a string, and whether just after a backslash in it. */
#define SCAN_IN_STR (1ull << 32)
#define SCAN_ESC (1ull << 33)

/* A request ends where its top-level object closes (brackets inside
 * strings do not count). Anything but an object or array at the top is
 * a (bad) request of its own, answered as such. */
static size_t
unixctl_request_end(const char *buf, size_t scanned, size_t len,
		    uint64_t *scan)
{
	uint32_t depth = (uint32_t)*scan;
	bool in_str = *scan & SCAN_IN_STR, esc = *scan & SCAN_ESC;

	for (size_t i = scanned; i < len; i++) {
		char c = buf[i];
		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (!depth) {
			if (!isspace((unsigned char)c))
				return i + 1;
		} else if (c == '}' || c == ']') {
			if (!--depth)
				return i + 1;
		} else if (c == '"') {
			in_str = true;
		}
	}
	*scan = depth | (in_str ? SCAN_IN_STR : 0) | (esc ? SCAN_ESC : 0);
	return 0;
}

/* ---- reading a request: a small JSON reader, as the request is one
 * object of strings, an array of strings and an id. (Not jansson: its
 * jw_string, jw_null, ... are also app/lib/json_out.h's names, and
 * the daemon's would stand in for the library's own.) ---- */

#define MAX_DEPTH 64

struct reader {
	const char *p, *end;
	int depth;
	const char *err;		/* the first error, or NULL */
};

static bool
fail(struct reader *r, const char *err)
{
	if (!r->err)
		r->err = err;
	return false;
}

static void
skip_ws(struct reader *r)
{
	while (r->p < r->end && isspace((unsigned char)*r->p))
		r->p++;
}

static bool
eat(struct reader *r, char c)
{
	skip_ws(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return true;
	}
	return false;
}

static int
hex4(const char *p)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)p[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static void
put_utf8(struct ds *out, unsigned cp)
{
	if (cp < 0x80) {
		ds_put_char(out, (char)cp);
	} else if (cp < 0x800) {
		ds_put_char(out, (char)(0xc0 | cp >> 6));
		ds_put_char(out, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		ds_put_char(out, (char)(0xe0 | cp >> 12));
		ds_put_char(out, (char)(0x80 | (cp >> 6 & 0x3f)));
		ds_put_char(out, (char)(0x80 | (cp & 0x3f)));
	} else {
		ds_put_char(out, (char)(0xf0 | cp >> 18));
		ds_put_char(out, (char)(0x80 | (cp >> 12 & 0x3f)));
		ds_put_char(out, (char)(0x80 | (cp >> 6 & 0x3f)));
		ds_put_char(out, (char)(0x80 | (cp & 0x3f)));
	}
}

/* A \uXXXX escape at r->p (after the backslash and 'u'), with its low
 * surrogate if it is a high one. */
static bool
read_unicode(struct reader *r, struct ds *out)
{
	int cp = r->end - r->p >= 4 ? hex4(r->p) : -1;

	if (cp < 0)
		return fail(r, "bad \\u escape");
	r->p += 4;
	if (cp >= 0xd800 && cp < 0xdc00) {
		int lo = r->end - r->p >= 6 && r->p[0] == '\\' &&
			 r->p[1] == 'u' ? hex4(r->p + 2) : -1;
		if (lo < 0xdc00 || lo >= 0xe000)
			return fail(r, "bad surrogate pair");
		r->p += 6;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	} else if (cp >= 0xdc00 && cp < 0xe000) {
		return fail(r, "bad surrogate pair");
	}
	if (!cp)
		return fail(r, "NUL in a string");
	if (out)
		put_utf8(out, (unsigned)cp);
	return true;
}

/* A string into 'out' (NULL: skipped), without its NUL. */
static bool
read_string(struct reader *r, struct ds *out)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";

	if (!eat(r, '"'))
		return fail(r, "string expected");
	while (r->p < r->end) {
		char c = *r->p++;
		if (c == '"')
			return true;
		if ((unsigned char)c < 0x20)
			return fail(r, "control character in a string");
		if (c != '\\') {
			if (out)
				ds_put_char(out, c);
			continue;
		}
		if (r->p == r->end)
			break;
		c = *r->p++;
		const char *e = strchr(esc_in, c);
		if (c == 'u') {
			if (!read_unicode(r, out))
				return false;
		} else if (e && c) {
			if (out)
				ds_put_char(out, esc_out[e - esc_in]);
		} else {
			return fail(r, "bad escape in a string");
		}
	}
	return fail(r, "unterminated string");
}

static bool skip_value(struct reader *r);

/* The members of an object or elements of an array, after its opener. */
static bool
skip_container(struct reader *r, char close, bool object)
{
	if (++r->depth > MAX_DEPTH)
		return fail(r, "nested too deep");
	if (eat(r, close)) {
		r->depth--;
		return true;
	}
	do {
		if (object && (!read_string(r, NULL) || !eat(r, ':')))
			return fail(r, "bad object member");
		if (!skip_value(r))
			return false;
	} while (eat(r, ','));
	r->depth--;
	return eat(r, close) || fail(r, "',' or a closing bracket expected");
}

/* Any value: its text is r->p before and after. */
static bool
skip_value(struct reader *r)
{
	skip_ws(r);
	if (r->p == r->end)
		return fail(r, "value expected");
	if (*r->p == '"')
		return read_string(r, NULL);
	if (eat(r, '{'))
		return skip_container(r, '}', true);
	if (eat(r, '['))
		return skip_container(r, ']', false);
	const char *start = r->p;	/* number, true, false, null */
	while (r->p < r->end && (isalnum((unsigned char)*r->p) ||
				 *r->p == '-' || *r->p == '+' || *r->p == '.'))
		r->p++;
	return r->p > start || fail(r, "value expected");
}

struct request {
	const char *id;			/* its JSON text, as sent */
	size_t id_len;
	bool has_method, has_params, non_string_param;
	struct ds strings;		/* method NUL param NUL ... */
	int n_params;
};

static bool
read_params(struct reader *r, struct request *q)
{
	if (!eat(r, '['))
		return fail(r, "\"params\" must be an array");
	if (eat(r, ']'))
		return true;
	do {
		skip_ws(r);
		if (r->p < r->end && *r->p == '"') {
			if (q->n_params == CONTROL_MAX_ARGS)
				return fail(r, "too many arguments");
			if (!read_string(r, &q->strings))
				return false;
			ds_put_char(&q->strings, '\0');
			q->n_params++;
		} else {
			q->non_string_param = true;
			if (!skip_value(r))
				return false;
		}
	} while (eat(r, ','));
	return eat(r, ']') || fail(r, "',' or ']' expected in \"params\"");
}

/* The request object, members in any order: the method is put before
 * the params in q->strings whichever came first. */
static bool
read_request(struct reader *r, struct request *q)
{
	struct ds key = DS_EMPTY_INITIALIZER;
	bool ok = eat(r, '{') || fail(r, "not a JSON object");

	if (ok && !eat(r, '}')) {
		do {
			ds_clear(&key);
			ok = read_string(r, &key) && eat(r, ':');
			if (!ok) {
				fail(r, "bad object member");
			} else if (!strcmp(ds_cstr(&key), "id")) {
				skip_ws(r);
				q->id = r->p;
				ok = skip_value(r);
				q->id_len = (size_t)(r->p - q->id);
			} else if (!strcmp(ds_cstr(&key), "method")) {
				struct ds m = DS_EMPTY_INITIALIZER;
				ok = read_string(r, &m);
				ds_put_char(&m, '\0');
				ds_put_buf(&m, ds_cstr(&q->strings),
					   q->strings.len);
				ds_destroy(&q->strings);
				q->strings = m;
				q->has_method = true;
			} else if (!strcmp(ds_cstr(&key), "params")) {
				ok = read_params(r, q);
				q->has_params = true;
			} else {
				ok = skip_value(r);
			}
		} while (ok && eat(r, ','));
		ok = ok && (eat(r, '}') || fail(r, "',' or '}' expected"));
	}
	ds_destroy(&key);
	return ok;
}

/* ---- answering ---- */

/* The answer to request 'id' (NULL: none known), 'text' in "result" or,
 * if 'is_error', in "error"; a newline is added to a non-empty text that
 * lacks one, as OVS's server does. */
static void
put_answer(const char *id, size_t id_len, bool is_error, struct ds *text,
	   struct ds *answer)
{
	if (text->len && text->s[text->len - 1] != '\n')
		ds_put_char(text, '\n');
	ds_put_cstr(answer, "{\"id\":");
	if (id)
		ds_put_buf(answer, id, id_len);
	else
		ds_put_cstr(answer, "null");
	jw_key(answer, is_error ? "error" : "result");
	jw_string(answer, ds_cstr(text));
	jw_key(answer, is_error ? "result" : "error");
	jw_null(answer);
	jw_end_object(answer);
}

static void
unixctl_error(const char *msg, struct ds *answer)
{
	struct ds text = DS_EMPTY_INITIALIZER;

	ds_put_cstr(&text, msg);
	put_answer(NULL, 0, true, &text, answer);
	ds_destroy(&text);
}

static int
unixctl_run(const char *req, size_t len, struct ds *answer)
{
	struct reader r = { .p = req, .end = req + len };
	struct request q = { .strings = DS_EMPTY_INITIALIZER };
	struct ds body = DS_EMPTY_INITIALIZER;
	const char **argv = NULL;
	int rc = -1;

	if (!read_request(&r, &q))
		ds_put_format(&body, "bad JSON-RPC request: %s", r.err);
	else if (!q.id || !q.has_method || !q.has_params)
		ds_put_cstr(&body, "bad JSON-RPC request: \"id\", \"method\" "
			    "and \"params\" are needed");
	else if (q.non_string_param)	/* OVS's words */
		ds_put_format(&body, "\"%s\" command has non-string argument",
			      ds_cstr(&q.strings));
	else if (!(argv = calloc((size_t)q.n_params + 2, sizeof *argv)))
		ds_put_cstr(&body, "out of memory");
	else {
		const char *s = ds_cstr(&q.strings);
		for (int i = 0; i <= q.n_params; i++, s += strlen(s) + 1)
			argv[i] = s;
		rc = control_execute_argv(q.n_params + 1, argv, false, true,
					  &body);
	}
	put_answer(q.id, q.id_len, rc != 0, &body, answer);
	free(argv);
	ds_destroy(&q.strings);
	ds_destroy(&body);
	return rc;
}

const struct control_proto control_unixctl_proto = {
	.request_end = unixctl_request_end,
	.run = unixctl_run,
	.error = unixctl_error,
	.keep_open = true,
};

/* OVS's built-in "version", which ovs-appctl users ask first. */
static int
cmd_version(int argc, const char *argv[], bool json, struct ds *out,
	    void *aux)
{
	(void)argc, (void)argv, (void)json, (void)aux;
	ds_put_cstr(out, "vxswitch (vxswitch) " VXSWITCH_VERSION "\n");
	return 0;
}

void
control_unixctl_register(void)
{
	control_register("version", "", 0, 0, cmd_version, NULL);
}
