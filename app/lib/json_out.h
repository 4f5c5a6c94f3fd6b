/* SPDX-License-Identifier: BSD-3-Clause
 * A minimal streaming JSON writer appending compact JSON to a struct ds.
 *
 * It keeps no state of its own: whether a comma is due is read off the last
 * byte already written ('{', '[' or ':' means no), so handlers need nothing
 * but the ds they were given. The price is that the caller must nest
 * correctly and write only JSON into that ds (it may start non-empty only
 * if it ends in a newline, e.g. one JSON document per line).
 *
 * The names are jw_* ("JSON writer"): jansson, which reads JSON here
 * (control_unixctl.c), owns json_string, json_null and the rest of json_*.
 *
 *	jw_begin_object(out);
 *	jw_key(out, "name"); jw_string(out, "br0");
 *	jw_key(out, "ports"); jw_begin_array(out);
 *	jw_u64(out, 1); jw_u64(out, 2);
 *	jw_end_array(out);
 *	jw_end_object(out);	-> {"name":"br0","ports":[1,2]}
 *
 * Strings are taken as UTF-8 and passed through; quotes, backslashes and
 * control characters are escaped. Non-finite doubles are written as null,
 * since JSON has no NaN or Infinity.
 */
#ifndef VXS_JSON_OUT_H
#define VXS_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include "ds.h"

void jw_begin_object(struct ds *out);
void jw_end_object(struct ds *out);
void jw_begin_array(struct ds *out);
void jw_end_array(struct ds *out);
void jw_key(struct ds *out, const char *name);

void jw_string(struct ds *out, const char *value);
void jw_u64(struct ds *out, uint64_t value);
void jw_i64(struct ds *out, int64_t value);
void jw_double(struct ds *out, double value);
void jw_bool(struct ds *out, bool value);
void jw_null(struct ds *out);

#endif
