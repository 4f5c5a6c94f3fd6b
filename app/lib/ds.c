/* SPDX-License-Identifier: BSD-3-Clause */
#include "ds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
ds_init(struct ds *ds)
{
	ds->s = NULL;
	ds->len = 0;
	ds->cap = 0;
}

/* Makes room for 'extra' more bytes plus the NUL. */
static void
ds_reserve(struct ds *ds, size_t extra)
{
	if (extra > (size_t)-1 / 2 - ds->len)
		abort();
	size_t need = ds->len + extra;
	if (need <= ds->cap && ds->s)
		return;
	size_t cap = ds->cap ? ds->cap : 64;
	while (cap < need)
		cap *= 2;
	char *s = realloc(ds->s, cap + 1);
	if (!s) {
		fputs("ds: out of memory\n", stderr);
		abort();
	}
	ds->s = s;
	ds->cap = cap;
}

void
ds_put_buf(struct ds *ds, const char *buf, size_t n)
{
	ds_reserve(ds, n);
	if (n)
		memcpy(ds->s + ds->len, buf, n);
	ds->len += n;
	ds->s[ds->len] = '\0';
}

void
ds_put_cstr(struct ds *ds, const char *s)
{
	ds_put_buf(ds, s, strlen(s));
}

void
ds_put_char(struct ds *ds, char c)
{
	ds_put_buf(ds, &c, 1);
}

void
ds_put_vformat(struct ds *ds, const char *fmt, va_list args)
{
	va_list probe;

	/* Most output fits what is already allocated: try it there first. */
	ds_reserve(ds, 0);
	va_copy(probe, args);
	int n = vsnprintf(ds->s + ds->len, ds->cap - ds->len + 1, fmt, probe);
	va_end(probe);
	if (n < 0) {
		ds->s[ds->len] = '\0';
		return;
	}
	if ((size_t)n > ds->cap - ds->len) {
		ds_reserve(ds, (size_t)n);
		vsnprintf(ds->s + ds->len, (size_t)n + 1, fmt, args);
	}
	ds->len += (size_t)n;
}

void
ds_put_format(struct ds *ds, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	ds_put_vformat(ds, fmt, args);
	va_end(args);
}

void
ds_clear(struct ds *ds)
{
	ds->len = 0;
	if (ds->s)
		ds->s[0] = '\0';
}

void
ds_destroy(struct ds *ds)
{
	free(ds->s);
	ds_init(ds);
}

const char *
ds_cstr(const struct ds *ds)
{
	return ds->s ? ds->s : "";
}
