/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow channel's table descriptions (of_tables.h): what ovs-ofctl
 * reads for its table map before it parses or prints a flow (ovs-ofctl.c
 * table_iterator: OFPMP_TABLE_FEATURES from 1.3, OFPST_TABLE in 1.0),
 * in ovs-vswitchd 3.1's shape (ofproto.c query_tables): tables 0 to 253
 * (254 is OVS's hidden one), no names, metadata all writable. The limit
 * is datapath max-flows, shared by the tables (OVS says 1 000 000 each).
 * The table-features properties are the 8 ovs-ofctl requires, listing
 * only the standard instructions and actions vxswitch takes (the lists of
 * match and set fields empty: not described yet); 1.0's lookup and
 * matched counts are 0 (vxswitch counts per megaflow, not per lookup).
 */
#include "of_tables.h"

#include <string.h>

#include "of_conn.h"
#include "ofproto.h"

#define N_VISIBLE_TABLES 254
#define OFPMP_TABLE 3			/* 1.0: OFPST_TABLE */
#define OFPMP_TABLE_FEATURES 12
#define OFPFW10_ALL 0x003fffffu
#define TABLE_ENTRY_LEN 64		/* both forms */
#define OFPET13_TABLE_FEATURES_FAILED 13
#define OFPTFFC_EPERM 5

/* A table-features entry: 64 bytes, then the 8 properties ovs-ofctl
 * requires (ofp-table.c: "missing required properties" otherwise) */
#define FEATURES_ENTRY_MAX 160
static uint8_t reply[16 + N_VISIBLE_TABLES * FEATURES_ENTRY_MAX];

enum {
	OFPTFPT_INSTRUCTIONS = 0, OFPTFPT_NEXT_TABLES = 2,
	OFPTFPT_WRITE_ACTIONS = 4, OFPTFPT_APPLY_ACTIONS = 6,
	OFPTFPT_MATCH = 8, OFPTFPT_WILDCARDS = 10,
	OFPTFPT_WRITE_SETFIELD = 12, OFPTFPT_APPLY_SETFIELD = 14,
};
#define OFPIT_GOTO_TABLE 1
#define OFPIT_APPLY_ACTIONS 4
#define OFPAT_OUTPUT 0
#define OFPAT_SET_FIELD 25

/* A property of 4-byte ids (instructions, actions: type, length 4);
 * returns its length padded to 8. */
static size_t
put_prop(uint8_t *p, uint16_t type, const uint16_t *ids, int n)
{
	size_t len = 4 + 4 * (size_t)n;

	be_put16(p, type);
	be_put16(p + 2, (uint16_t)len);
	for (int i = 0; i < n; i++) {
		be_put16(p + 4 + 4 * i, ids[i]);
		be_put16(p + 6 + 4 * i, 4);
	}
	return (len + 7) & ~(size_t)7;
}

/* The properties: the instructions and apply-actions vxswitch takes in
 * OpenFlow's numbering (its Nicira actions are experimenters, not
 * listed), the other lists empty. */
static size_t
put_properties(uint8_t *p, int table)
{
	static const uint16_t apply[] = { OFPAT_OUTPUT, OFPAT_SET_FIELD };
	static const uint16_t empty[1];
	uint16_t inst[2];
	int n_inst = 0;
	size_t off = 0;

	if (table < N_VISIBLE_TABLES - 1)
		inst[n_inst++] = OFPIT_GOTO_TABLE;
	inst[n_inst++] = OFPIT_APPLY_ACTIONS;
	off += put_prop(p + off, OFPTFPT_INSTRUCTIONS, inst, n_inst);
	off += put_prop(p + off, OFPTFPT_NEXT_TABLES, empty, 0);
	off += put_prop(p + off, OFPTFPT_WRITE_ACTIONS, empty, 0);
	off += put_prop(p + off, OFPTFPT_APPLY_ACTIONS, apply, 2);
	off += put_prop(p + off, OFPTFPT_MATCH, empty, 0);
	off += put_prop(p + off, OFPTFPT_WILDCARDS, empty, 0);
	off += put_prop(p + off, OFPTFPT_WRITE_SETFIELD, empty, 0);
	off += put_prop(p + off, OFPTFPT_APPLY_SETFIELD, empty, 0);
	return off;
}

static void
active_counts(uint32_t *n)
{
	memset(n, 0, N_VISIBLE_TABLES * sizeof *n);
	for (uint32_t i = 0; i < ofproto_n_rules(); i++) {
		uint8_t t = ofproto_rule(i)->table_id;
		if (t < N_VISIBLE_TABLES)
			n[t]++;
	}
}

/* The multipart header of a reply to req; returns the body's offset. */
static size_t
start(const uint8_t *req)
{
	size_t hl = req[0] == OFP10_VERSION ? 12 : 16;

	memset(reply, 0, sizeof reply);
	be_put16(reply + 8, be_get16(req + 8));
	return hl;
}

static void
finish(struct of_conn *c, const uint8_t *req, size_t len)
{
	of_put_header(reply, req[0], req[0] == OFP10_VERSION
		      ? OFPT10_STATS_REPLY : OFPT13_MULTIPART_REPLY,
		      (uint16_t)len, be_get32(req + 4));
	of_chan.types.handled[of_family(req[0])][req[1]]++;
	of_conn_send(c, reply, len);
}

static void
refuse(struct of_conn *c, const uint8_t *req, uint16_t type, uint16_t code)
{
	of_chan.types.refused[of_family(req[0])][req[1]]++;
	of_conn_send_error(c, req, type, code);
}

static void
table_stats10(struct of_conn *c, const uint8_t *req, size_t body_len)
{
	uint32_t active[N_VISIBLE_TABLES];
	size_t off;

	if (body_len) {
		refuse(c, req, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
		return;
	}
	active_counts(active);
	off = start(req);
	for (int t = 0; t < N_VISIBLE_TABLES; t++, off += TABLE_ENTRY_LEN) {
		uint8_t *e = reply + off;
		e[0] = (uint8_t)t;			/* name[32] at 4: "" */
		be_put32(e + 36, OFPFW10_ALL);
		be_put32(e + 40, ofproto_max_rules());
		be_put32(e + 44, active[t]);		/* lookups: 0 */
	}
	finish(c, req, off);
}

static void
table_features(struct of_conn *c, const uint8_t *req, size_t body_len)
{
	size_t off;

	/* a request with a body changes the tables' features: not taken */
	if (body_len) {
		refuse(c, req, OFPET13_TABLE_FEATURES_FAILED, OFPTFFC_EPERM);
		return;
	}
	off = start(req);
	for (int t = 0; t < N_VISIBLE_TABLES; t++) {
		uint8_t *e = reply + off;
		size_t len = TABLE_ENTRY_LEN +
			     put_properties(e + TABLE_ENTRY_LEN, t);
		be_put16(e, (uint16_t)len);
		e[2] = (uint8_t)t;			/* 1.5: command 0 */
		be_put64(e + 40, UINT64_MAX);		/* metadata_match */
		be_put64(e + 48, UINT64_MAX);		/* metadata_write */
		be_put32(e + 60, ofproto_max_rules());
		off += len;
	}
	finish(c, req, off);
}

bool
of_tables_request(struct of_conn *c, const uint8_t *req, size_t len)
{
	size_t hl = req[0] == OFP10_VERSION ? 12 : 16;
	uint16_t type = be_get16(req + 8);

	if (type == OFPMP_TABLE && req[0] == OFP10_VERSION)
		table_stats10(c, req, len - hl);
	else if (type == OFPMP_TABLE_FEATURES && req[0] != OFP10_VERSION)
		table_features(c, req, len - hl);
	else
		return false;
	return true;
}
