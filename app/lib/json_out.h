/* SPDX-License-Identifier: BSD-3-Clause
 * A minimal streaming JSON writer appending compact JSON to a struct ds.
 *
 * It keeps no state of its own: whether a comma is due is read off the last
 * byte already written ('{', '[' or ':' means no), so handlers need nothing
 * but the ds they were given. The price is that the caller must nest
 * correctly and write only JSON into that ds (it may start non-empty only
 * if it ends in a newline, e.g. one JSON document per line).
 *
 *	json_begin_object(out);
 *	json_key(out, "name"); json_string(out, "br0");
 *	json_key(out, "ports"); json_begin_array(out);
 *	json_u64(out, 1); json_u64(out, 2);
 *	json_end_array(out);
 *	json_end_object(out);	-> {"name":"br0","ports":[1,2]}
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

void json_begin_object(struct ds *out);
void json_end_object(struct ds *out);
void json_begin_array(struct ds *out);
void json_end_array(struct ds *out);
void json_key(struct ds *out, const char *name);

void json_string(struct ds *out, const char *value);
void json_u64(struct ds *out, uint64_t value);
void json_i64(struct ds *out, int64_t value);
void json_double(struct ds *out, double value);
void json_bool(struct ds *out, bool value);
void json_null(struct ds *out);

#endif
