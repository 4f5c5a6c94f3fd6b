/* SPDX-License-Identifier: BSD-3-Clause
 * A command's --json answer from a jansson object (the verbs built on
 * jansson: ovsdb/show, openflow/show), indented, in the object's order.
 */
#ifndef VXS_JSON_REPLY_H
#define VXS_JSON_REPLY_H

#include <jansson.h>
#include "ds.h"

/* Writes o (taken: NULL, out of memory while building it, is an error)
 * to out with a newline; -1 with "VERB: out of memory" in out. */
int json_reply(struct ds *out, json_t *o, const char *verb);

#endif
