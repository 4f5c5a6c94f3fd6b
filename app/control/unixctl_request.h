/* SPDX-License-Identifier: BSD-3-Clause
 * Reading one unixctl request (OVS's JSON-RPC, control_unixctl.c): where
 * it ends in the bytes received, then what it asks, with jansson.
 *
 *   {"id":ID,"method":"COMMAND","params":["ARG",...]}
 *
 * Members in any order, others ignored, the last of a repeated one taken
 * (as OVS's lib/json.c). ID may be any JSON value; it is kept as compact
 * JSON text for the answer. Limits: UNIXCTL_MAX_DEPTH nested containers
 * inside the request object; CONTROL_MAX_ARGS string params; no NUL in
 * any string (\u0000); UTF-8 only; numbers a double can hold (a number
 * past long long is read as a double, as OVS reads it).
 */
#ifndef VXS_UNIXCTL_REQUEST_H
#define VXS_UNIXCTL_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "ds.h"

#define UNIXCTL_MAX_DEPTH 64

struct json_t;

struct unixctl_request {
	char *id;		/* ID as JSON text, or NULL if none is known */
	int argc;		/* the method and its params */
	const char **argv;	/* argv[argc] is NULL; the strings live in
				 * 'json' */
	struct json_t *json;	/* the parsed request */
};

/* The length of the first complete request in buf[0..len), or 0 if it is
 * not complete yet: its top-level object or array closes (brackets inside
 * strings do not count); anything else at the top is a (bad) request of
 * one byte. buf[0..scanned) was looked at by an earlier call, which left
 * what it needs in *scan (0 at first). Leading whitespace is part of the
 * request. (control_priv.h's request_end.) */
size_t unixctl_request_end(const char *buf, size_t scanned, size_t len,
			   uint64_t *scan);

/* Reads the complete request req[0..len) into 'q'. Returns 0 with argv
 * set, or -1 with the answer's error text in 'err' ("bad JSON-RPC
 * request: ..." or OVS's "\"M\" command has non-string argument"); q->id
 * is set either way when the request has one. Call
 * unixctl_request_destroy() in both cases. */
int unixctl_request_parse(const char *req, size_t len,
			  struct unixctl_request *q, struct ds *err);

void unixctl_request_destroy(struct unixctl_request *q);

#endif
