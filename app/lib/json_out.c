/* SPDX-License-Identifier: BSD-3-Clause */
#include "json_out.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A value or key follows whatever was written last: it needs a comma unless
 * it opens a container, follows a key, or starts a new document. */
static void
jw_separate(struct ds *out)
{
	if (!out->len)
		return;
	char last = out->s[out->len - 1];
	if (last != '{' && last != '[' && last != ':' && last != '\n')
		ds_put_char(out, ',');
}

static void
jw_put_quoted(struct ds *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	ds_put_char(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':  ds_put_cstr(out, "\\\""); break;
		case '\\': ds_put_cstr(out, "\\\\"); break;
		case '\b': ds_put_cstr(out, "\\b"); break;
		case '\f': ds_put_cstr(out, "\\f"); break;
		case '\n': ds_put_cstr(out, "\\n"); break;
		case '\r': ds_put_cstr(out, "\\r"); break;
		case '\t': ds_put_cstr(out, "\\t"); break;
		default:
			if (*p < 0x20) {
				ds_put_cstr(out, "\\u00");
				ds_put_char(out, hex[*p >> 4]);
				ds_put_char(out, hex[*p & 0xf]);
			} else {
				ds_put_char(out, (char)*p);
			}
		}
	}
	ds_put_char(out, '"');
}

void
jw_begin_object(struct ds *out)
{
	jw_separate(out);
	ds_put_char(out, '{');
}

void
jw_end_object(struct ds *out)
{
	ds_put_char(out, '}');
}

void
jw_begin_array(struct ds *out)
{
	jw_separate(out);
	ds_put_char(out, '[');
}

void
jw_end_array(struct ds *out)
{
	ds_put_char(out, ']');
}

void
jw_key(struct ds *out, const char *name)
{
	jw_separate(out);
	jw_put_quoted(out, name);
	ds_put_char(out, ':');
}

void
jw_string(struct ds *out, const char *value)
{
	jw_separate(out);
	jw_put_quoted(out, value);
}

void
jw_u64(struct ds *out, uint64_t value)
{
	jw_separate(out);
	ds_put_format(out, "%" PRIu64, value);
}

void
jw_i64(struct ds *out, int64_t value)
{
	jw_separate(out);
	ds_put_format(out, "%" PRId64, value);
}

/* The shortest of %.15g and %.17g that reads back as the same double, so
 * 0.1 prints as 0.1 and nothing is lost. */
void
jw_double(struct ds *out, double value)
{
	char buf[32];

	jw_separate(out);
	if (!isfinite(value)) {
		ds_put_cstr(out, "null");
		return;
	}
	snprintf(buf, sizeof buf, "%.15g", value);
	if (strtod(buf, NULL) != value)
		snprintf(buf, sizeof buf, "%.17g", value);
	ds_put_cstr(out, buf);
}

void
jw_bool(struct ds *out, bool value)
{
	jw_separate(out);
	ds_put_cstr(out, value ? "true" : "false");
}

void
jw_null(struct ds *out)
{
	jw_separate(out);
	ds_put_cstr(out, "null");
}
