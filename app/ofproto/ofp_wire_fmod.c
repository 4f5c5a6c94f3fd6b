/* SPDX-License-Identifier: BSD-3-Clause
 * Whole messages in: OFPT_FLOW_MOD (1.0 with its ofp_match; 1.3, 1.4,
 * 1.5 with OXM and instructions), Nicira's NXT_FLOW_MOD (NXM, 1.0
 * actions), and the flow and aggregate stats requests (OFPST_* of 1.0,
 * NXST_*, OFPMP_* of 1.3+), decoded as OVS's ofputil_decode_flow_mod and
 * ofputil_decode_flow_stats_request read them: the header's length must
 * be the message's, every part must fit inside it, and the rule they
 * give is filled as ofp_parse_flow() fills it from ovs-ofctl's words.
 */
#include <string.h>

#include "ofp_wire_priv.h"

#define OFPT_VENDOR 4
#define OFPT_FLOW_MOD 14
#define OFPT10_STATS_REQUEST 16
#define OFPT13_MULTIPART_REQUEST 18
#define NXT_FLOW_MOD 13

static enum ofp_wire_error
check_header(const uint8_t *msg, size_t len)
{
	if (len < 8 || be_get16(msg + 2) != len)
		return OFPW_BRC_BAD_LEN;
	switch (msg[0]) {
	case OFP10_VERSION:
	case OFP13_VERSION:
	case OFP14_VERSION:
	case OFP15_VERSION:
		return 0;
	}
	return OFPW_BRC_BAD_VERSION;
}

static bool
is_modify(const struct ofp_flow_mod *fm)
{
	return fm->command == OFP_FM_MODIFY ||
	       fm->command == OFP_FM_MODIFY_STRICT;
}

static void
rule_init(struct ofp_rule *r)
{
	memset(r, 0, sizeof *r);
	r->priority = OFP_DEFAULT_PRIORITY;
}

/* flags as OVS's ofputil_decode_flow_mod_flags */
static enum ofp_wire_error
decode_flags(uint16_t raw, uint8_t version, struct ofp_flow_mod *fm)
{
	struct ofp_rule *r = &fm->rule;
	uint16_t known = 0x3;

	if (version == OFP10_VERSION && raw & 0x4)	/* OFPFF10_EMERG */
		return r->idle_timeout || r->hard_timeout ?
			OFPW_FMFC_BAD_EMERG_TIMEOUT : OFPW_FMFC_TABLE_FULL;
	if (version >= OFP13_VERSION)
		known |= 0x4 | 0x8 | 0x10;
	if (raw & ~known)
		return OFPW_FMFC_BAD_FLAGS;
	r->flags = 0;
	if (raw & 0x1)
		r->flags |= OFP_FF_SEND_FLOW_REM;
	if (raw & 0x2)
		r->flags |= OFP_FF_CHECK_OVERLAP;
	if (version >= OFP13_VERSION) {
		if (raw & 0x4)
			r->flags |= OFP_FF_RESET_COUNTS;
		if (raw & 0x8)
			r->flags |= OFP_FF_NO_PKT_COUNTS;
		if (raw & 0x10)
			r->flags |= OFP_FF_NO_BYT_COUNTS;
	} else if (fm->command == OFP_FM_ADD) {
		/* OpenFlow 1.0's add always resets counters (OVS) */
		r->flags |= OFP_FF_RESET_COUNTS;
	}
	return 0;
}

/* What the filter half of a modify/delete keeps, as the text parser's
 * OFP_PARSE_MATCH/OFP_PARSE_MODIFY leave it. */
static void
finish_rule(struct ofp_flow_mod *fm)
{
	struct ofp_rule *r = &fm->rule;

	if (fm->command == OFP_FM_ADD) {
		if (r->table_id == OFP_TABLE_ALL)	/* 1.0: table 0 */
			r->table_id = 0;
		r->cookie_given = r->cookie != 0;
		r->cookie_mask = 0;
		r->out_port = 0;
		return;
	}
	/* a new rule's only */
	r->idle_timeout = r->hard_timeout = r->importance = 0;
	r->flags = 0;
	if (is_modify(fm))
		r->out_port = 0;	/* OVS passes OFPP_ANY */
}

static enum ofp_wire_error
set_command(unsigned cmd, struct ofp_flow_mod *fm)
{
	if (cmd > OFP_FM_DELETE_STRICT)
		return OFPW_FMFC_BAD_COMMAND;
	fm->command = (uint8_t)cmd;
	return 0;
}

/* OFPP_NONE/OFPP_ANY: 0 (any); else the port */
static uint32_t
filter_port(uint32_t port, bool wide)
{
	if (wide ? port == 0xffffffffu : port == OFPP10_NONE)
		return 0;
	if (wide && port >= OFPP11_OFFSET + 0xff00)
		port -= OFPP11_OFFSET;
	if (port == OFPP10_IN_PORT)
		return OFPP_IN_PORT;
	return port == OFPP10_LOCAL ? OFPP_LOCAL_NUM : port;
}

/* OFPT_FLOW_MOD of 1.3-1.5 */
static enum ofp_wire_error
decode_of13(const uint8_t *msg, size_t len, struct ofp_flow_mod *fm)
{
	struct ofp_rule *r = &fm->rule;
	struct ofp_rd rd = { msg, len };
	const uint8_t *b = rd_pull(&rd, 48);
	enum ofp_wire_error err;

	if (!b)
		return OFPW_BRC_BAD_LEN;
	if ((err = set_command(b[25], fm)))
		return err;
	r->table_id = b[24];
	if (r->table_id == OFP_TABLE_ALL && fm->command != OFP_FM_DELETE &&
	    fm->command != OFP_FM_DELETE_STRICT)
		return OFPW_FMFC_BAD_TABLE_ID;
	r->cookie = be_get64(b + 8);
	if (fm->command != OFP_FM_ADD) {
		r->cookie_mask = be_get64(b + 16);
		r->cookie &= r->cookie_mask;
	}
	r->idle_timeout = be_get16(b + 26);
	r->hard_timeout = be_get16(b + 28);
	r->priority = be_get16(b + 30);
	fm->buffer_id = be_get32(b + 32);
	r->out_port = filter_port(be_get32(b + 36), true);
	fm->out_group = be_get32(b + 40);
	if (fm->version >= OFP14_VERSION)
		r->importance = be_get16(b + 46);
	if ((err = ofp_wire_pull_oxm_match(&rd, r)))
		return err;
	if ((err = ofp_wire_pull_instructions(rd.p, rd.left, fm->version, r)))
		return err;
	return decode_flags(be_get16(b + 44), fm->version, fm);
}

/* OFPT_FLOW_MOD of 1.0 */
static enum ofp_wire_error
decode_of10(const uint8_t *msg, size_t len, const struct ofp_wire_conn *conn,
	    struct ofp_flow_mod *fm)
{
	struct ofp_rule *r = &fm->rule;
	const uint8_t *b = msg + 8;
	unsigned cmd;
	enum ofp_wire_error err;

	if (len < 72)
		return OFPW_BRC_BAD_LEN;
	if ((err = ofp_wire_decode_of10_match(b, r)))
		return err;
	cmd = be_get16(b + 48);
	r->table_id = OFP_TABLE_ALL;
	if (conn && conn->of10_table_id) {
		r->table_id = (uint8_t)(cmd >> 8);
		cmd &= 0xff;
	}
	if ((err = set_command(cmd, fm)))
		return err;
	/* 1.0 matches no cookie: the cookie is the one to set */
	r->cookie = be_get64(b + 40);
	if (is_modify(fm))	/* OVS's modify_cookie */
		r->cookie_given = r->cookie != UINT64_MAX;
	if (!r->cookie_given && fm->command != OFP_FM_ADD)
		r->cookie = 0;
	r->idle_timeout = be_get16(b + 50);
	r->hard_timeout = be_get16(b + 52);
	r->priority = be_get16(b + 54);
	fm->buffer_id = be_get32(b + 56);
	r->out_port = filter_port(be_get16(b + 60), false);
	fm->out_group = 0xffffffffu;
	if ((err = ofp_wire_pull_actions(msg + 72, len - 72, OFP10_VERSION, r)))
		return err;
	return decode_flags(be_get16(b + 62), OFP10_VERSION, fm);
}

/* NXT_FLOW_MOD: ofp_header, vendor, subtype, then nx_flow_mod */
static enum ofp_wire_error
decode_nx(const uint8_t *msg, size_t len, const struct ofp_wire_conn *conn,
	  struct ofp_flow_mod *fm)
{
	struct ofp_rule *r = &fm->rule;
	struct ofp_match_cookie ck = { .allowed = true };
	struct ofp_rd rd = { msg, len };
	const uint8_t *b = rd_pull(&rd, 48), *m;
	uint16_t match_len;
	unsigned cmd;
	enum ofp_wire_error err;

	if (!b)
		return OFPW_BRC_BAD_LEN;
	match_len = be_get16(b + 40);
	m = rd_pull(&rd, (match_len + 7u) & ~7u);
	if (!m)
		return OFPW_BMC_BAD_LEN;
	if ((err = ofp_wire_pull_tlvs(m, match_len, r, &ck)))
		return err;
	cmd = be_get16(b + 24);
	r->table_id = OFP_TABLE_ALL;
	if (conn && conn->of10_table_id) {
		r->table_id = (uint8_t)(cmd >> 8);
		cmd &= 0xff;
	}
	if ((err = set_command(cmd, fm)))
		return err;
	if (fm->command == OFP_FM_ADD && ck.mask)
		return OFPW_NXBRC_NXM_INVALID;
	if (fm->command == OFP_FM_ADD) {
		r->cookie = be_get64(b + 16);
	} else if (ck.mask) {
		r->cookie = ck.value;
		r->cookie_mask = ck.mask;
	} else if (is_modify(fm) && be_get64(b + 16) != UINT64_MAX) {
		r->cookie = be_get64(b + 16);	/* the cookie to set */
		r->cookie_given = true;
	}
	r->idle_timeout = be_get16(b + 26);
	r->hard_timeout = be_get16(b + 28);
	r->priority = be_get16(b + 30);
	fm->buffer_id = be_get32(b + 32);
	r->out_port = filter_port(be_get16(b + 36), false);
	fm->out_group = 0xffffffffu;
	if ((err = ofp_wire_pull_actions(rd.p, rd.left, OFP10_VERSION, r)))
		return err;
	return decode_flags(be_get16(b + 38), OFP10_VERSION, fm);
}

enum ofp_wire_error
ofp_wire_decode_flow_mod(const uint8_t *msg, size_t len,
			 const struct ofp_wire_conn *conn,
			 struct ofp_flow_mod *fm)
{
	enum ofp_wire_error err = check_header(msg, len);

	if (err)
		return err;
	memset(fm, 0, sizeof *fm);
	rule_init(&fm->rule);
	fm->version = msg[0];
	if (msg[0] == OFP10_VERSION && msg[1] == OFPT_VENDOR) {
		if (len < 16)
			return OFPW_BRC_BAD_LEN;
		if (be_get32(msg + 8) != OFP_WIRE_NX_ID)
			return OFPW_BRC_BAD_VENDOR;
		if (be_get32(msg + 12) != NXT_FLOW_MOD)
			return OFPW_BRC_BAD_SUBTYPE;
		err = decode_nx(msg, len, conn, fm);
	} else if (msg[1] != OFPT_FLOW_MOD) {
		return OFPW_BRC_BAD_TYPE;
	} else if (msg[0] == OFP10_VERSION) {
		err = decode_of10(msg, len, conn, fm);
	} else {
		err = decode_of13(msg, len, fm);
	}
	if (err)
		return err;
	finish_rule(fm);
	return ofp_wire_check_actions(&fm->rule);
}

/* ---- flow and aggregate stats requests --------------------------------- */

static void
filter_init(struct ofp_stats_request *req, const uint8_t *msg)
{
	memset(req, 0, sizeof *req);
	rule_init(&req->filter);
	req->version = msg[0];
	req->xid = be_get32(msg + 4);
}

enum ofp_wire_error
ofp_wire_decode_stats_request(const uint8_t *msg, size_t len,
			      struct ofp_stats_request *req)
{
	enum ofp_wire_error err = check_header(msg, len);
	struct ofp_rule *r = &req->filter;
	uint16_t type;

	if (err)
		return err;
	filter_init(req, msg);
	if (msg[0] == OFP10_VERSION) {
		if (msg[1] != OFPT10_STATS_REQUEST)
			return OFPW_BRC_BAD_TYPE;
		if (len < 12)
			return OFPW_BRC_BAD_LEN;
		type = be_get16(msg + 8);
		if (type == 1 || type == 2) {	/* OFPST_FLOW, AGGREGATE */
			if (len != 12 + 44)
				return OFPW_BRC_BAD_LEN;
			req->kind = type == 1 ? OFP_STATS_FLOW
					      : OFP_STATS_AGGREGATE;
			if ((err = ofp_wire_decode_of10_match(msg + 12, r)))
				return err;
			r->table_id = msg[52];
			r->out_port = filter_port(be_get16(msg + 54), false);
			return 0;
		}
		if (type != 0xffff)
			return OFPW_BRC_BAD_STAT;
		/* NXST: vendor, subtype, pad, then out_port, match_len,
		 * table_id, pad, the NXM match */
		if (len < 24)
			return OFPW_BRC_BAD_LEN;
		if (be_get32(msg + 12) != OFP_WIRE_NX_ID)
			return OFPW_BRC_BAD_VENDOR;
		if (be_get32(msg + 16) > 1)
			return OFPW_BRC_BAD_SUBTYPE;
		req->nx = true;
		req->kind = be_get32(msg + 16) ? OFP_STATS_AGGREGATE
					    : OFP_STATS_FLOW;
		if (len < 32)
			return OFPW_BRC_BAD_LEN;
		{
			struct ofp_match_cookie ck = { .allowed = true };
			uint16_t match_len = be_get16(msg + 26);

			if (len != 32 + ((match_len + 7u) & ~7u))
				return OFPW_BMC_BAD_LEN;
			if ((err = ofp_wire_pull_tlvs(msg + 32, match_len, r,
						      &ck)))
				return err;
			r->cookie = ck.value;
			r->cookie_mask = ck.mask;
			r->table_id = msg[28];
			r->out_port = filter_port(be_get16(msg + 24), false);
		}
		return 0;
	}
	if (msg[1] != OFPT13_MULTIPART_REQUEST)
		return OFPW_BRC_BAD_TYPE;
	if (len < 16)
		return OFPW_BRC_BAD_LEN;
	type = be_get16(msg + 8);
	if (type != 1 && type != 2)	/* FLOW(_DESC), AGGREGATE(_STATS) */
		return OFPW_BRC_BAD_STAT;
	req->kind = type == 1 ? OFP_STATS_FLOW : OFP_STATS_AGGREGATE;
	{
		struct ofp_rd rd = { msg + 16, len - 16 };
		const uint8_t *b = rd_pull(&rd, 32);

		if (!b)
			return OFPW_BRC_BAD_LEN;
		r->table_id = b[0];
		r->out_port = filter_port(be_get32(b + 4), true);
		r->cookie_mask = be_get64(b + 24);
		r->cookie = be_get64(b + 16) & r->cookie_mask;
		if ((err = ofp_wire_pull_oxm_match(&rd, r)))
			return err;
		if (rd.left)
			return OFPW_BRC_BAD_LEN;
	}
	return 0;
}
