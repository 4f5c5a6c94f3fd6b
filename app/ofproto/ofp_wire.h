/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow's wire forms of rules, as pure functions (no sockets): flow_mod
 * messages (OpenFlow 1.0 with its ofp_match, Nicira's NXT_FLOW_MOD with an
 * NXM match, 1.3/1.4/1.5 with an OXM match and instructions) and
 * flow/aggregate stats requests decoded into struct ofp_rule exactly as
 * ofp_parse_flow() fills it from the same flow in ovs-ofctl's words;
 * flow-stats entries and aggregate replies encoded as ovs-vswitchd 3.1
 * encodes them; OFPT_ERROR messages with OVS's numbers for each version.
 * tests/integration/ovs_ref/openflow/ holds the bytes the real ovs-ofctl
 * and ovs-vswitchd exchange, which tests/unit/test_ofp_wire.c replays.
 *
 * vxswitch's sg() action has no OpenFlow form: a flow_mod cannot carry
 * one, and a flow-stats entry of a rule with sg() carries it as an
 * experimenter action with vxswitch's experimenter id (OFP_WIRE_VXS_ID,
 * subtype 1: allow/deny and the zone, ofp_wire_actions_enc.c) that
 * OVS's tools show as an unknown
 * experimenter action; the same bytes sent back are refused with
 * OFPBAC_BAD_EXPERIMENTER.
 */
#ifndef VXS_OFP_WIRE_H
#define VXS_OFP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_rule.h"

#define OFP10_VERSION 0x01
#define OFP13_VERSION 0x04
#define OFP14_VERSION 0x05
#define OFP15_VERSION 0x06

#define OFP_WIRE_NX_ID 0x00002320u	/* Nicira's experimenter id */
#define OFP_WIRE_ONF_ID 0x4f4e4600u	/* ONF's */
/* vxswitch's own experimenter id (flow-stats form of sg(); ASCII "vxs") */
#define OFP_WIRE_VXS_ID 0x00767873u

/* The errors this codec and the rule table give, OVS's names
 * (include/openvswitch/ofp-errors.h). 0 is "no error". */
enum ofp_wire_error {
	OFPW_OK,
	OFPW_BRC_BAD_VERSION,
	OFPW_BRC_BAD_TYPE,
	OFPW_BRC_BAD_STAT,
	OFPW_BRC_BAD_VENDOR,
	OFPW_BRC_BAD_SUBTYPE,
	OFPW_BRC_BAD_LEN,
	OFPW_BRC_BUFFER_UNKNOWN,
	OFPW_BRC_BAD_TABLE_ID,
	OFPW_BRC_BAD_PORT,
	OFPW_NXBRC_MUST_BE_ZERO,
	OFPW_NXBRC_NXM_INVALID,
	OFPW_BAC_BAD_TYPE,
	OFPW_BAC_BAD_LEN,
	OFPW_BAC_BAD_EXPERIMENTER,
	OFPW_BAC_BAD_EXP_TYPE,
	OFPW_BAC_BAD_OUT_PORT,
	OFPW_BAC_BAD_ARGUMENT,
	OFPW_BAC_TOO_MANY,
	OFPW_BAC_MATCH_INCONSISTENT,
	OFPW_BAC_BAD_SET_TYPE,
	OFPW_BAC_BAD_SET_LEN,
	OFPW_BAC_BAD_SET_ARGUMENT,
	OFPW_NXBAC_MUST_BE_ZERO,
	OFPW_NXBAC_BAD_CONJUNCTION,
	OFPW_BIC_UNKNOWN_INST,
	OFPW_BIC_UNSUP_INST,
	OFPW_BIC_BAD_TABLE_ID,
	OFPW_BIC_BAD_LEN,
	OFPW_BIC_DUP_INST,
	OFPW_BMC_BAD_TYPE,
	OFPW_BMC_BAD_LEN,
	OFPW_BMC_BAD_WILDCARDS,
	OFPW_BMC_BAD_FIELD,
	OFPW_BMC_BAD_VALUE,
	OFPW_BMC_BAD_MASK,
	OFPW_BMC_BAD_PREREQ,
	OFPW_BMC_DUP_FIELD,
	OFPW_FMFC_TABLE_FULL,
	OFPW_FMFC_BAD_TABLE_ID,
	OFPW_FMFC_OVERLAP,
	OFPW_FMFC_BAD_COMMAND,
	OFPW_FMFC_BAD_FLAGS,
	OFPW_FMFC_BAD_EMERG_TIMEOUT,
	OFPW_NXBRC_UNENCODABLE_ERROR,
	OFPW_N_ERRORS
};

/* An error as one version sends it: (type, code) and, for an
 * experimenter (Nicira, ONF) error, its id (0: a standard one). */
struct ofp_wire_err {
	uint16_t type, code;
	const char *name;
	uint32_t vendor;
};

/* OVS's name ("OFPBMC_BAD_FIELD") */
const char *ofp_wire_err_name(enum ofp_wire_error e);
/* What OVS sends for e in version (an error it cannot say in that
 * version becomes NXBRC_UNENCODABLE_ERROR, as OVS). */
struct ofp_wire_err ofp_wire_err_lookup(enum ofp_wire_error e,
					uint8_t version);
/* The OFPT_ERROR answering request (its version and xid, and as data
 * the whole request as ovs-vswitchd 3.1 sends it, up to a 65535-byte
 * message; not OpenFlow's "at least 64 bytes") into out[cap]. Returns
 * the length, or 0 if cap is too small (request_len + 20 suffices). */
size_t ofp_wire_encode_error(enum ofp_wire_error e, const uint8_t *request,
			     size_t request_len, uint8_t *out, size_t cap);

/* ---- flow_mod ---------------------------------------------------------- */

enum ofp_fm_command {
	OFP_FM_ADD,
	OFP_FM_MODIFY,
	OFP_FM_MODIFY_STRICT,
	OFP_FM_DELETE,
	OFP_FM_DELETE_STRICT,
};

/* A decoded flow_mod. For an add, rule is the new rule (table_id, cookie,
 * timeouts, flags, importance, match, actions); for modify and delete it
 * is the filter as ofp_parse_flow(OFP_PARSE_MATCH or OFP_PARSE_MODIFY)
 * makes it: table_id OFP_TABLE_ALL for "every table", cookie/cookie_mask,
 * out_port (0: any), and a modify's new actions. */
struct ofp_flow_mod {
	uint8_t version;
	uint8_t command;		/* enum ofp_fm_command */
	uint32_t buffer_id;		/* 0xffffffff: none */
	uint32_t out_group;		/* 0xffffffff: any */
	struct ofp_rule rule;
};

/* Per-connection state a decode needs: whether the OpenFlow 1.0
 * connection turned on NXT_FLOW_MOD_TABLE_ID (the command's high byte is
 * then the table). */
struct ofp_wire_conn {
	bool of10_table_id;
};

/* msg[len] is one whole message (OFPT_FLOW_MOD or NXT_FLOW_MOD). Returns
 * 0 and fills fm, or the error to send (fm unspecified). Never reads
 * outside msg[0..len-1]. */
enum ofp_wire_error ofp_wire_decode_flow_mod(const uint8_t *msg, size_t len,
					     const struct ofp_wire_conn *conn,
					     struct ofp_flow_mod *fm);

/* ---- flow and aggregate stats ------------------------------------------ */

enum ofp_stats_kind {
	OFP_STATS_FLOW,
	OFP_STATS_AGGREGATE,
};

/* What a flow or aggregate stats request asks for. */
struct ofp_stats_request {
	uint8_t version;
	uint8_t kind;			/* enum ofp_stats_kind */
	bool nx;			/* NXST_FLOW / NXST_AGGREGATE */
	uint32_t xid;
	struct ofp_rule filter;		/* table_id OFP_TABLE_ALL: every
					 * table; out_port 0: any */
};

/* OFPST_FLOW/OFPST_AGGREGATE (1.0), NXST_FLOW/NXST_AGGREGATE, and
 * OFPMP_FLOW(_DESC)/OFPMP_AGGREGATE(_STATS) (1.3-1.5). */
enum ofp_wire_error ofp_wire_decode_stats_request(const uint8_t *msg,
						  size_t len,
						  struct ofp_stats_request *req);

/* One rule's counters and ages, as a flow-stats entry carries them. */
struct ofp_flow_counts {
	uint32_t duration_sec, duration_nsec;
	uint16_t idle_age, hard_age;	/* NXST_FLOW; seconds */
	uint32_t idle_sec, idle_nsec;	/* 1.5's idle_time */
	uint64_t packets, bytes;
};

/* A growing buffer of whole reply messages. */
struct ofp_wire_buf {
	uint8_t *data;
	size_t len, cap;
	bool failed;			/* out of memory: discard */
};

void ofp_wire_buf_free(struct ofp_wire_buf *b);

/* Builds a flow-stats reply to req: ofp_wire_stats_begin(), one
 * ofp_wire_stats_add() per rule, ofp_wire_stats_end(). Entries go into
 * messages of at most 65535 bytes with the "more" flag on all but the
 * last, as OVS's ofpmp_postappend. */
struct ofp_stats_reply {
	struct ofp_wire_buf out;
	const struct ofp_stats_request *req;
	size_t msg_start;		/* offset of the message being filled */
};

void ofp_wire_stats_begin(struct ofp_stats_reply *rep,
			  const struct ofp_stats_request *req);
/* 0, or an error (OFPW_BAC_BAD_TYPE for an action with no wire form). */
enum ofp_wire_error ofp_wire_stats_add(struct ofp_stats_reply *rep,
				       const struct ofp_rule *r,
				       const struct ofp_flow_counts *c);
void ofp_wire_stats_end(struct ofp_stats_reply *rep);

/* The aggregate reply: packets, bytes, flows. */
void ofp_wire_aggregate_reply(struct ofp_wire_buf *out,
			      const struct ofp_stats_request *req,
			      uint64_t packets, uint64_t bytes, uint32_t flows);

#endif
