/* SPDX-License-Identifier: BSD-3-Clause
 * Where one OVSDB JSON-RPC message ends in a byte stream. RFC 7047's
 * messages are JSON objects sent back to back with nothing between them
 * (ovsdb-server adds no newline), so the only way to find the end of one
 * is to follow the JSON's brackets and strings. This scan does that and
 * nothing more: it does not parse (jansson does, json_loadb on the span
 * found), it only finds the span, and it refuses early what would cost
 * the parser too much: a message deeper than OVSDB_FRAME_MAX_DEPTH, or
 * longer than the limit the caller gives, or one that does not start
 * with '{' (JSON-RPC is objects only).
 *
 * The scan is incremental: call it again with the same state and a
 * longer buffer (the same bytes in front) and it goes on where it
 * stopped, so a message that arrives a byte at a time costs O(n).
 */
#ifndef VXS_OVSDB_FRAME_H
#define VXS_OVSDB_FRAME_H

#include <stdbool.h>
#include <stddef.h>

/* The deepest an OVSDB message we read gets is 9 (an update's map datum:
 * message, params, table-updates, table, row-update, row, column, pairs,
 * pair); 32 leaves room for the server's errors and schema. */
#define OVSDB_FRAME_MAX_DEPTH 32

enum ovsdb_frame_rc {
	OVSDB_FRAME_MORE,	/* no complete message yet */
	OVSDB_FRAME_DONE,	/* one ends at *end */
	OVSDB_FRAME_TOO_DEEP,	/* nesting beyond OVSDB_FRAME_MAX_DEPTH */
	OVSDB_FRAME_TOO_LONG,	/* no end within max_len bytes */
	OVSDB_FRAME_NOT_OBJECT,	/* a top-level value that is not an object,
				 * or a closing bracket that does not match */
};

struct ovsdb_frame {
	size_t pos;		/* bytes looked at */
	int depth;		/* open brackets */
	bool in_string, escape, started;
	char stack[OVSDB_FRAME_MAX_DEPTH];	/* the open brackets */
};

/* Starts a new scan (also after each message found). */
void ovsdb_frame_reset(struct ovsdb_frame *f);

/* Scans buf[f->pos..len). DONE: buf[0..*end) holds one whole message
 * (white space in front of it included); the caller takes it out of the
 * buffer and resets the scan. The errors are final: the stream cannot
 * be resynchronised, the connection is to be dropped. */
enum ovsdb_frame_rc ovsdb_frame_scan(struct ovsdb_frame *f, const char *buf,
				     size_t len, size_t max_len, size_t *end);

/* A word for each result, for logs and counters. */
const char *ovsdb_frame_rc_name(enum ovsdb_frame_rc rc);

#endif
