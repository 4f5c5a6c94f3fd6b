/* SPDX-License-Identifier: BSD-3-Clause
 * The end of one JSON-RPC message in an OVSDB stream (ovsdb_frame.h).
 * Only brackets outside strings count; inside a string only the quote
 * that ends it and the backslash that escapes the next byte do.
 */
#include "ovsdb_frame.h"

void
ovsdb_frame_reset(struct ovsdb_frame *f)
{
	f->pos = 0;
	f->depth = 0;
	f->in_string = f->escape = f->started = false;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

enum ovsdb_frame_rc
ovsdb_frame_scan(struct ovsdb_frame *f, const char *buf, size_t len,
		 size_t max_len, size_t *end)
{
	for (; f->pos < len; f->pos++) {
		char c = buf[f->pos];

		if (f->pos >= max_len)
			return OVSDB_FRAME_TOO_LONG;
		if (f->in_string) {
			if (f->escape)
				f->escape = false;
			else if (c == '\\')
				f->escape = true;
			else if (c == '"')
				f->in_string = false;
			continue;
		}
		if (!f->started) {
			if (is_space(c))
				continue;
			if (c != '{')
				return OVSDB_FRAME_NOT_OBJECT;
			f->started = true;
		}
		switch (c) {
		case '"':
			f->in_string = true;
			break;
		case '{': case '[':
			if (f->depth == OVSDB_FRAME_MAX_DEPTH)
				return OVSDB_FRAME_TOO_DEEP;
			f->stack[f->depth++] = c;
			break;
		case '}': case ']':
			if (!f->depth ||
			    f->stack[f->depth - 1] != (c == '}' ? '{' : '['))
				return OVSDB_FRAME_NOT_OBJECT;
			if (--f->depth == 0) {
				*end = ++f->pos;
				return OVSDB_FRAME_DONE;
			}
			break;
		default:
			break;
		}
	}
	return OVSDB_FRAME_MORE;
}

const char *
ovsdb_frame_rc_name(enum ovsdb_frame_rc rc)
{
	switch (rc) {
	case OVSDB_FRAME_MORE: return "incomplete";
	case OVSDB_FRAME_DONE: return "complete";
	case OVSDB_FRAME_TOO_DEEP: return "nested too deep";
	case OVSDB_FRAME_TOO_LONG: return "too long";
	case OVSDB_FRAME_NOT_OBJECT: return "not a JSON object";
	}
	return "?";
}
