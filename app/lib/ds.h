/* SPDX-License-Identifier: BSD-3-Clause
 * A growable, always NUL-terminated string for building command output.
 * Allocation failure aborts: the strings are small, and a control thread
 * that cannot get a few KiB has nothing useful left to report anyway.
 */
#ifndef VXS_DS_H
#define VXS_DS_H

#include <stdarg.h>
#include <stddef.h>

struct ds {
	char *s;		/* NULL until the first put */
	size_t len;		/* bytes used, not counting the NUL */
	size_t cap;		/* bytes allocated, not counting the NUL */
};

#define DS_EMPTY_INITIALIZER { NULL, 0, 0 }

void ds_init(struct ds *ds);
void ds_put_cstr(struct ds *ds, const char *s);
void ds_put_buf(struct ds *ds, const char *buf, size_t n);
void ds_put_char(struct ds *ds, char c);
void ds_put_format(struct ds *ds, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ds_put_vformat(struct ds *ds, const char *fmt, va_list args)
	__attribute__((format(printf, 2, 0)));
/* Empties the string but keeps its buffer for reuse. */
void ds_clear(struct ds *ds);
void ds_destroy(struct ds *ds);
/* Never NULL: "" for a string nothing was put into. */
const char *ds_cstr(const struct ds *ds);

#endif
