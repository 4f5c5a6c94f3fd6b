/* SPDX-License-Identifier: BSD-3-Clause */
#include "unixctl_request.h"

#include <ctype.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"

/* The scan state kept between reads: depth in the low 32 bits, then
 * whether in a string, and whether just after a backslash in it. */
#define SCAN_IN_STR (1ull << 32)
#define SCAN_ESC (1ull << 33)

size_t
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

#define BAD "bad JSON-RPC request: "

/* jansson's error in our words where we had our own (or OVS has), else
 * its text, with any byte outside printable ASCII as '?': it may quote
 * the input, which need not be UTF-8. */
static void
put_load_error(const json_error_t *e, struct ds *err)
{
	ds_put_cstr(err, BAD);
	switch (json_error_code(e)) {
	case json_error_stack_overflow:
		ds_put_cstr(err, "nested too deep");
		return;
	case json_error_null_character:
	case json_error_null_byte_in_key:
		ds_put_cstr(err, "NUL in a string");
		return;
	case json_error_invalid_utf8:
		ds_put_cstr(err, "invalid UTF-8");
		return;
	case json_error_numeric_overflow:	/* OVS's words */
		ds_put_cstr(err, "number outside valid range");
		return;
	default:
		break;
	}
	for (const char *p = e->text; *p; p++)
		ds_put_char(err, *p >= 0x20 && *p < 0x7f ? *p : '?');
}

/* The first string with a NUL in it, or container nested more than
 * UNIXCTL_MAX_DEPTH deep, in 'v' at 'depth' (the request object's members
 * are at 0, a container among them at 1). */
static const char *
check_value(const json_t *v, int depth)
{
	const char *key, *bad = NULL;
	json_t *m;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_STRING:
		return memchr(json_string_value(v), '\0',
			      json_string_length(v)) ? "NUL in a string" : NULL;
	case JSON_ARRAY:
		if (++depth > UNIXCTL_MAX_DEPTH)
			return "nested too deep";
		json_array_foreach(v, i, m)
			if ((bad = check_value(m, depth)))
				break;
		return bad;
	case JSON_OBJECT:
		if (++depth > UNIXCTL_MAX_DEPTH)
			return "nested too deep";
		json_object_foreach((json_t *)v, key, m)
			if ((bad = check_value(m, depth)))
				break;
		return bad;
	default:
		return NULL;
	}
}

/* ID as OVS writes it back (lib/json.c: a real as "%.*g" with DBL_DIG,
 * so 1e20 is 1e+20), the rest as jansson's compact JSON. */
static char *
id_text(const json_t *id)
{
	if (json_is_real(id)) {
		char *s;
		return asprintf(&s, "%.15g", json_real_value(id)) < 0 ? NULL
								     : s;
	}
	return json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY |
			  JSON_REAL_PRECISION(15));
}

/* The shape: a string method, an array of at most CONTROL_MAX_ARGS
 * strings as params, and an id (any value, null too). The checks in the
 * order of the reader this replaced, its texts where it had them, else
 * OVS's (lib/jsonrpc.c). */
static const char *
check_shape(const json_t *method, const json_t *params, const json_t *id,
	    size_t *n_strings)
{
	size_t i, n = 0;
	json_t *p;

	if (method && !json_is_string(method))
		return "method is not a JSON string";
	if (params && !json_is_array(params))
		return "\"params\" must be an array";
	json_array_foreach(params, i, p)
		n += json_is_string(p);
	if (n > CONTROL_MAX_ARGS)
		return "too many arguments";
	if (!id || !method || !params)
		return "\"id\", \"method\" and \"params\" are needed";
	*n_strings = n;
	return NULL;
}

int
unixctl_request_parse(const char *req, size_t len, struct unixctl_request *q,
		      struct ds *err)
{
	/* NULs are let through jansson to be refused below, once the id is
	 * known; a number past long long is retried as a double (OVS reads
	 * it as one), which makes every number a double. Duplicate keys are
	 * let through (the last one counts, as in OVS), and so is nothing
	 * after the value but whitespace: unixctl_request_end cut the
	 * request where its value closes. */
	const size_t flags = JSON_DECODE_ANY | JSON_ALLOW_NUL;
	json_error_t e;
	json_t *root, *method, *params, *id, *p;
	const char *bad;
	size_t i, n = 0;

	*q = (struct unixctl_request){ 0 };
	root = json_loadb(req, len, flags, &e);
	if (!root && json_error_code(&e) == json_error_numeric_overflow)
		root = json_loadb(req, len, flags | JSON_DECODE_INT_AS_REAL,
				  &e);
	if (!root) {
		put_load_error(&e, err);
		return -1;
	}
	q->json = root;
	if (!json_is_object(root)) {
		ds_put_cstr(err, BAD "not a JSON object");
		return -1;
	}
	method = json_object_get(root, "method");
	params = json_object_get(root, "params");
	id = json_object_get(root, "id");
	if (id && !(q->id = id_text(id))) {
		ds_put_cstr(err, "out of memory");
		return -1;
	}
	if ((bad = check_value(root, -1)) ||
	    (bad = check_shape(method, params, id, &n))) {
		ds_put_format(err, BAD "%s", bad);
		return -1;
	}
	if (n != json_array_size(params)) {	/* OVS's words */
		ds_put_format(err, "\"%s\" command has non-string argument",
			      json_string_value(method));
		return -1;
	}
	q->argv = calloc(n + 2, sizeof *q->argv);
	if (!q->argv) {
		ds_put_cstr(err, "out of memory");
		return -1;
	}
	q->argv[q->argc++] = json_string_value(method);
	json_array_foreach(params, i, p)
		q->argv[q->argc++] = json_string_value(p);
	return 0;
}

void
unixctl_request_destroy(struct unixctl_request *q)
{
	free(q->id);
	free(q->argv);
	json_decref(q->json);
	*q = (struct unixctl_request){ 0 };
}
