/* SPDX-License-Identifier: BSD-3-Clause
 * Between the parts of the OpenFlow wire codec (ofp_wire_*.c): a bounded
 * reader and a growing writer of big-endian fields, and the match and
 * action halves the flow_mod and stats code calls. Not for other modules.
 */
#ifndef VXS_OFP_WIRE_PRIV_H
#define VXS_OFP_WIRE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "be_bytes.h"
#include "ofp_wire.h"

/* A bounded view of received bytes: every read checks what is left. */
struct ofp_rd {
	const uint8_t *p;
	size_t left;
};

static inline const uint8_t *
rd_pull(struct ofp_rd *r, size_t n)
{
	const uint8_t *p = r->p;

	if (r->left < n)
		return NULL;
	r->p += n;
	r->left -= n;
	return p;
}

static inline bool
all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* writer (ofp_wire_stats.c) */
uint8_t *wb_put(struct ofp_wire_buf *b, size_t n);	/* zeroed */
void wb_put16(struct ofp_wire_buf *b, uint16_t v);
void wb_put32(struct ofp_wire_buf *b, uint32_t v);
void wb_put64(struct ofp_wire_buf *b, uint64_t v);
void wb_put_bytes(struct ofp_wire_buf *b, const void *p, size_t n);
void wb_pad8(struct ofp_wire_buf *b, size_t from);	/* to a multiple of 8 */
void wb_set16(struct ofp_wire_buf *b, size_t at, uint16_t v);

static inline void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* Reserved port numbers: OpenFlow 1.0's 16-bit ones and 1.1+'s. */
#define OFPP10_IN_PORT 0xfff8
#define OFPP10_LOCAL 0xfffe
#define OFPP10_NONE 0xffff
#define OFPP11_OFFSET 0xffff0000u	/* 1.1+: 0xfff8 -> 0xfffffff8 */
#define OFPP_LOCAL_NUM 65534		/* ovs-ofctl's LOCAL */

/* ---- matches (ofp_wire_match.c) ---------------------------------------- */

/* What a match decode fills: the rule's match and mask, and for NXM in a
 * flow_mod or NXST request the cookie pseudo-field. */
struct ofp_match_cookie {
	bool allowed;			/* NXM_NX_COOKIE may appear */
	bool seen;
	uint64_t value, mask;
};

/* TLVs (NXM or OXM: the same header form) of len bytes at p. */
enum ofp_wire_error ofp_wire_pull_tlvs(const uint8_t *p, size_t len,
				       struct ofp_rule *r,
				       struct ofp_match_cookie *ck);
/* ofp11_match_header + OXM, padded to 8: pulls it off rd. */
enum ofp_wire_error ofp_wire_pull_oxm_match(struct ofp_rd *rd,
					    struct ofp_rule *r);
/* OpenFlow 1.0's 40-byte ofp_match at p. */
enum ofp_wire_error ofp_wire_decode_of10_match(const uint8_t *p,
					       struct ofp_rule *r);

/* Appends r's match as TLVs, OXM headers where a field has one and oxm
 * is set, else NXM's, in OVS's order (nx_put_raw). Returns the length. */
size_t ofp_wire_put_tlvs(struct ofp_wire_buf *b, const struct ofp_rule *r,
			 bool oxm, uint8_t version);
/* ofp11_match_header + OXM + padding */
void ofp_wire_put_oxm_match(struct ofp_wire_buf *b, const struct ofp_rule *r,
			    uint8_t version);
void ofp_wire_put_of10_match(struct ofp_wire_buf *b, const struct ofp_rule *r);

/* A field a set_field / reg_load may name (ofp_wire_match.c's table). */
enum wire_set_target {
	WST_NONE,
	WST_REG,		/* index in *reg */
	WST_CT_MARK,
	WST_CT_LABEL,
	WST_TUN_ID,
	WST_TUN_SRC,
	WST_TUN_DST,
	WST_TUN6_SRC,
	WST_TUN6_DST,
	WST_ETH_SRC,
	WST_ETH_DST,
};
/* The set target for an NXM/OXM header (hasmask and length ignored);
 * *width its bytes. */
enum wire_set_target ofp_wire_set_target(uint32_t header, int *reg,
					 unsigned *width);
/* The header (no mask bit, its length) OVS writes for a target in
 * version's set_field (oxm) or in NXAST_REG_LOAD (NXM). */
uint32_t ofp_wire_target_header(enum wire_set_target t, int reg, bool oxm);

/* ---- actions and instructions (ofp_wire_actions.c) --------------------- */

/* OpenFlow 1.0 actions (or NXT_FLOW_MOD's) of len bytes. */
enum ofp_wire_error ofp_wire_pull_actions(const uint8_t *p, size_t len,
					  uint8_t version, struct ofp_rule *r);
/* 1.1+ instructions of len bytes. */
enum ofp_wire_error ofp_wire_pull_instructions(const uint8_t *p, size_t len,
					       uint8_t version,
					       struct ofp_rule *r);
/* The checks ofp_parse_flow makes on a whole action list. */
enum ofp_wire_error ofp_wire_check_actions(const struct ofp_rule *r);

/* Encoders (ofp_wire_actions_enc.c): r's actions as 1.0 actions, or as
 * 1.1+ instructions (apply_actions, then goto_table). */
enum ofp_wire_error ofp_wire_put_actions(struct ofp_wire_buf *b,
					 const struct ofp_rule *r,
					 uint8_t version);
enum ofp_wire_error ofp_wire_put_instructions(struct ofp_wire_buf *b,
					      const struct ofp_rule *r,
					      uint8_t version);

#endif
