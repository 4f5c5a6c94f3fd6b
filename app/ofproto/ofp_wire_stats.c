/* SPDX-License-Identifier: BSD-3-Clause
 * Whole messages out: flow-stats replies (OpenFlow 1.0's ofp_flow_stats,
 * Nicira's nx_flow_stats, 1.3/1.4's ofp11_flow_stats with importance in
 * 1.4, 1.5's ofp15_flow_desc with its OXS statistics) and aggregate
 * replies, as ovs-vswitchd 3.1 writes them (lib/ofp-flow.c
 * ofputil_append_flow_stats_reply); a reply past 65535 bytes goes on in
 * a new message and every message but the last has the "more" flag, as
 * ofpmp_postappend. Also the growing buffer they are written into.
 */
#include <stdlib.h>
#include <string.h>

#include "ofp_wire_priv.h"

#define MAX_MSG 65535

/* ---- the buffer --------------------------------------------------------- */

uint8_t *
wb_put(struct ofp_wire_buf *b, size_t n)
{
	static uint8_t sink[64];	/* where writes go once failed */

	if (b->failed)
		return n <= sizeof sink ? sink : NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p) {
			b->failed = true;
			return n <= sizeof sink ? sink : NULL;
		}
		b->data = p;
		b->cap = cap;
	}
	uint8_t *p = b->data + b->len;
	memset(p, 0, n);
	b->len += n;
	return p;
}

void
wb_put16(struct ofp_wire_buf *b, uint16_t v)
{
	uint8_t *p = wb_put(b, 2);

	if (p)
		put16(p, v);
}

void
wb_put32(struct ofp_wire_buf *b, uint32_t v)
{
	uint8_t *p = wb_put(b, 4);

	if (p)
		put32(p, v);
}

void
wb_put64(struct ofp_wire_buf *b, uint64_t v)
{
	wb_put32(b, (uint32_t)(v >> 32));
	wb_put32(b, (uint32_t)v);
}

void
wb_put_bytes(struct ofp_wire_buf *b, const void *src, size_t n)
{
	uint8_t *p = wb_put(b, n);

	if (p)
		memcpy(p, src, n);
}

void
wb_pad8(struct ofp_wire_buf *b, size_t from)
{
	size_t n = (b->len - from) % 8;

	if (n)
		wb_put(b, 8 - n);
}

void
wb_set16(struct ofp_wire_buf *b, size_t at, uint16_t v)
{
	if (!b->failed && at + 2 <= b->len)
		put16(b->data + at, v);
}

void
ofp_wire_buf_free(struct ofp_wire_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

/* ---- multipart headers ---------------------------------------------------- */

/* The reply's header: ofp_header, type and flags, and for NXST the
 * vendor, subtype and padding. */
static void
put_reply_header(struct ofp_wire_buf *b, const struct ofp_stats_request *req)
{
	uint16_t type = req->kind == OFP_STATS_FLOW ? 1 : 2;

	wb_put(b, 1)[0] = req->version;
	wb_put(b, 1)[0] = req->version == OFP10_VERSION ? 17 : 19;
	wb_put16(b, 0);
	wb_put32(b, req->xid);
	if (req->nx) {
		wb_put16(b, 0xffff);
		wb_put16(b, 0);
		wb_put32(b, OFP_WIRE_NX_ID);
		wb_put32(b, req->kind == OFP_STATS_FLOW ? 0 : 1);
		wb_put32(b, 0);
	} else {
		wb_put16(b, type);
		wb_put16(b, 0);
		if (req->version != OFP10_VERSION)
			wb_put32(b, 0);
	}
}

static void
finish_msg(struct ofp_wire_buf *b, size_t start)
{
	wb_set16(b, start + 2, (uint16_t)(b->len - start));
}

void
ofp_wire_stats_begin(struct ofp_stats_reply *rep,
		     const struct ofp_stats_request *req)
{
	memset(rep, 0, sizeof *rep);
	rep->req = req;
	rep->msg_start = 0;
	put_reply_header(&rep->out, req);
}

/* ---- one entry ------------------------------------------------------------ */

static uint16_t
flags_to_wire(const struct ofp_rule *r, uint8_t version)
{
	uint16_t f = 0;

	if (r->flags & OFP_FF_SEND_FLOW_REM)
		f |= 0x1;
	if (r->flags & OFP_FF_CHECK_OVERLAP)
		f |= 0x2;
	if (version >= OFP13_VERSION) {
		if (r->flags & OFP_FF_RESET_COUNTS)
			f |= 0x4;
		if (r->flags & OFP_FF_NO_PKT_COUNTS)
			f |= 0x8;
		if (r->flags & OFP_FF_NO_BYT_COUNTS)
			f |= 0x10;
	}
	return f;
}

/* 1.5's OXS: duration, idle_time, packet_count, byte_count */
static void
put_oxs(struct ofp_wire_buf *b, const struct ofp_flow_counts *c)
{
	size_t at = b->len;

	wb_put16(b, 0);
	wb_put16(b, 0);
	wb_put32(b, 0x80020008);
	wb_put32(b, c->duration_sec);
	wb_put32(b, c->duration_nsec);
	wb_put32(b, 0x80020208);
	wb_put32(b, c->idle_sec);
	wb_put32(b, c->idle_nsec);
	wb_put32(b, 0x80020808);
	wb_put64(b, c->packets);
	wb_put32(b, 0x80020a08);
	wb_put64(b, c->bytes);
	wb_set16(b, at + 2, (uint16_t)(b->len - at));
	wb_pad8(b, at);
}

static enum ofp_wire_error
put_entry(struct ofp_wire_buf *b, const struct ofp_stats_request *req,
	  const struct ofp_rule *r, const struct ofp_flow_counts *c)
{
	uint8_t v = req->version;
	size_t at = b->len, ml;
	enum ofp_wire_error err;

	wb_put16(b, 0);
	if (req->nx) {
		wb_put(b, 1)[0] = r->table_id;
		wb_put(b, 1);
		wb_put32(b, c->duration_sec);
		wb_put32(b, c->duration_nsec);
		wb_put16(b, r->priority);
		wb_put16(b, r->idle_timeout);
		wb_put16(b, r->hard_timeout);
		ml = b->len;
		wb_put16(b, 0);
		wb_put16(b, c->idle_age);
		wb_put16(b, c->hard_age);
		wb_put64(b, r->cookie);
		wb_put64(b, c->packets);
		wb_put64(b, c->bytes);
		size_t mstart = b->len;
		wb_set16(b, ml, (uint16_t)ofp_wire_put_tlvs(b, r, false, v));
		wb_pad8(b, mstart);
		err = ofp_wire_put_actions(b, r, v);
	} else if (v == OFP10_VERSION) {
		wb_put(b, 1)[0] = r->table_id;
		wb_put(b, 1);
		ofp_wire_put_of10_match(b, r);
		wb_put32(b, c->duration_sec);
		wb_put32(b, c->duration_nsec);
		wb_put16(b, r->priority);
		wb_put16(b, r->idle_timeout);
		wb_put16(b, r->hard_timeout);
		wb_put(b, 6);
		wb_put64(b, r->cookie);
		wb_put64(b, c->packets);
		wb_put64(b, c->bytes);
		err = ofp_wire_put_actions(b, r, v);
	} else if (v < OFP15_VERSION) {
		wb_put(b, 1)[0] = r->table_id;
		wb_put(b, 1);
		wb_put32(b, c->duration_sec);
		wb_put32(b, c->duration_nsec);
		wb_put16(b, r->priority);
		wb_put16(b, r->idle_timeout);
		wb_put16(b, r->hard_timeout);
		wb_put16(b, flags_to_wire(r, v));
		wb_put16(b, v >= OFP14_VERSION ? r->importance : 0);
		wb_put16(b, 0);
		wb_put64(b, r->cookie);
		wb_put64(b, c->packets);
		wb_put64(b, c->bytes);
		ofp_wire_put_oxm_match(b, r, v);
		err = ofp_wire_put_instructions(b, r, v);
	} else {
		wb_put16(b, 0);
		wb_put(b, 1)[0] = r->table_id;
		wb_put(b, 1);
		wb_put16(b, r->priority);
		wb_put16(b, r->idle_timeout);
		wb_put16(b, r->hard_timeout);
		wb_put16(b, flags_to_wire(r, v));
		wb_put16(b, r->importance);
		wb_put64(b, r->cookie);
		ofp_wire_put_oxm_match(b, r, v);
		put_oxs(b, c);
		err = ofp_wire_put_instructions(b, r, v);
	}
	wb_set16(b, at, (uint16_t)(b->len - at));
	return err;
}

enum ofp_wire_error
ofp_wire_stats_add(struct ofp_stats_reply *rep, const struct ofp_rule *r,
		   const struct ofp_flow_counts *c)
{
	struct ofp_wire_buf *b = &rep->out;
	size_t at = b->len;
	enum ofp_wire_error err = put_entry(b, rep->req, r, c);

	if (err) {
		b->len = at;
		return err;
	}
	if (b->failed || b->len - rep->msg_start <= MAX_MSG)
		return 0;
	/* past 64 KiB: this entry starts the next message (ofpmp_postappend) */
	{
		size_t n = b->len - at;
		uint8_t *entry = malloc(n);

		if (!entry) {
			b->failed = true;
			return 0;
		}
		memcpy(entry, b->data + at, n);
		b->len = at;
		finish_msg(b, rep->msg_start);
		wb_set16(b, rep->msg_start + 10, 1);	/* OFPSF_REPLY_MORE */
		rep->msg_start = b->len;
		put_reply_header(b, rep->req);
		wb_put_bytes(b, entry, n);
		free(entry);
	}
	return 0;
}

void
ofp_wire_stats_end(struct ofp_stats_reply *rep)
{
	finish_msg(&rep->out, rep->msg_start);
}

void
ofp_wire_aggregate_reply(struct ofp_wire_buf *out,
			 const struct ofp_stats_request *req,
			 uint64_t packets, uint64_t bytes, uint32_t flows)
{
	size_t start = out->len;

	put_reply_header(out, req);
	if (req->version >= OFP15_VERSION && !req->nx) {
		size_t at = out->len;

		wb_put16(out, 0);
		wb_put16(out, 0);
		wb_put32(out, 0x80020808);
		wb_put64(out, packets);
		wb_put32(out, 0x80020a08);
		wb_put64(out, bytes);
		wb_put32(out, 0x80020604);
		wb_put32(out, flows);
		wb_set16(out, at + 2, (uint16_t)(out->len - at));
		wb_pad8(out, at);
	} else {
		wb_put64(out, packets);
		wb_put64(out, bytes);
		wb_put32(out, flows);
		wb_put32(out, 0);
	}
	finish_msg(out, start);
}
