/* SPDX-License-Identifier: BSD-3-Clause
 * struct ofp_rule's actions -> OpenFlow actions (1.0) or instructions
 * (1.1+: apply_actions, then goto_table), in the forms ovs-vswitchd 3.1
 * writes them into a flow-stats reply (lib/ofp-actions.c encode_*):
 * set_tunnel as NXAST_SET_TUNNEL in 1.0 and a tun_id set_field in 1.2+;
 * set_field as OFPAT_SET_FIELD in 1.2+ and NXAST_REG_LOAD (or the 1.0
 * action) in 1.0; load as NXAST_REG_LOAD before 1.5 and a masked
 * set_field in 1.5; resubmit as NXAST_RESUBMIT_TABLE; goto_table as
 * resubmit(,T) in 1.0; ct with nat first, then its exec actions.
 * sg() has no OpenFlow form: it is written as an experimenter action of
 * vxswitch's (OFP_WIRE_VXS_ID, subtype 1; byte 10: 1 allow, 0 deny;
 * bytes 12-13: the zone; its nat is not carried), which OVS's tools show
 * as unknown.
 */
#include <string.h>

#include "ofp_wire_priv.h"

/* starts an action of type; returns its offset (length set by end_act) */
static size_t
begin_act(struct ofp_wire_buf *b, uint16_t type)
{
	size_t at = b->len;

	wb_put16(b, type);
	wb_put16(b, 0);
	return at;
}

static void
end_act(struct ofp_wire_buf *b, size_t at)
{
	wb_pad8(b, at);
	wb_set16(b, at + 2, (uint16_t)(b->len - at));
}

static size_t
begin_nx(struct ofp_wire_buf *b, uint32_t vendor, uint16_t subtype)
{
	size_t at = begin_act(b, 0xffff);

	wb_put32(b, vendor);
	wb_put16(b, subtype);
	return at;
}

/* NXAST_REG_LOAD of nbits (<= 64) at ofs of the field with header h */
static void
put_reg_load(struct ofp_wire_buf *b, uint32_t h, unsigned ofs, unsigned nbits,
	     uint64_t value)
{
	size_t at = begin_nx(b, OFP_WIRE_NX_ID, 7);

	wb_put16(b, (uint16_t)(ofs << 6 | (nbits - 1)));
	wb_put32(b, h);
	wb_put64(b, value);
	end_act(b, at);
}

/* OFPAT_SET_FIELD with value v[width] and, if m, its mask */
static void
put_set_field(struct ofp_wire_buf *b, uint32_t h, const uint8_t *v,
	      const uint8_t *m, unsigned width)
{
	size_t at = begin_act(b, 25);

	if (m)
		h = (h & ~0xffu) | 0x100 | (2 * width);
	wb_put32(b, h);
	wb_put_bytes(b, v, width);
	if (m)
		wb_put_bytes(b, m, width);
	end_act(b, at);
}

/* a whole field of width bytes, value v (big-endian): set_field in 1.2+,
 * REG_LOADs of at most 64 bits each, low bits first, in 1.0 */
static void
put_whole(struct ofp_wire_buf *b, uint8_t version, enum wire_set_target t,
	  int reg, const uint8_t *v, unsigned width)
{
	if (version >= OFP13_VERSION) {
		put_set_field(b, ofp_wire_target_header(t, reg, true), v, NULL,
			      width);
		return;
	}
	for (unsigned ofs = 0; ofs < width * 8; ofs += 64) {
		unsigned n = width * 8 - ofs < 64 ? width * 8 - ofs : 64;
		uint64_t x = 0;
		for (unsigned i = 0; i < n; i++) {
			unsigned bit = ofs + i;
			if (v[width - 1 - bit / 8] & (1u << (bit % 8)))
				x |= 1ull << i;
		}
		put_reg_load(b, ofp_wire_target_header(t, reg, false), ofs, n,
			     x);
	}
}

/* load/set_field of nbits (0: all) at ofs of a field of width bytes,
 * value[2] ([0] high) */
static void
put_load(struct ofp_wire_buf *b, uint8_t version, enum wire_set_target t,
	 int reg, unsigned width, unsigned ofs, unsigned nbits,
	 const uint64_t value[2], bool set_field)
{
	uint8_t v[16] = { 0 }, m[16] = { 0 };
	bool whole = !nbits;

	if (!nbits)
		nbits = width * 8;
	for (unsigned i = 0; i < nbits; i++) {
		unsigned bit = ofs + i;
		uint64_t w = i < 64 ? value[1] : value[0];
		m[width - 1 - bit / 8] |= (uint8_t)(1u << (bit % 8));
		if ((w >> (i % 64)) & 1)
			v[width - 1 - bit / 8] |= (uint8_t)(1u << (bit % 8));
	}
	if (version >= OFP15_VERSION || (set_field && whole &&
					 version >= OFP13_VERSION)) {
		put_set_field(b, ofp_wire_target_header(t, reg, true), v,
			      whole ? NULL : m, width);
		return;
	}
	if (nbits <= 64) {
		put_reg_load(b, ofp_wire_target_header(t, reg, false), ofs,
			     nbits, value[1]);
		return;
	}
	put_whole(b, OFP10_VERSION, t, reg, v, width);
}

static void
put_nat(struct ofp_wire_buf *b, const struct ofp_nat *nat)
{
	size_t at = begin_nx(b, OFP_WIRE_NX_ID, 36), pres;
	uint16_t present = 0;

	wb_put16(b, 0);
	wb_put16(b, nat->kind == OFP_NAT_SRC ? 1 :
		    nat->kind == OFP_NAT_DST ? 2 : 0);
	pres = b->len;
	wb_put16(b, 0);
	if (nat->v6) {
		static const uint8_t zero[16];
		if (memcmp(nat->ip6_min, zero, 16)) {
			wb_put_bytes(b, nat->ip6_min, 16);
			present |= 0x4;
		}
		if (memcmp(nat->ip6_max, nat->ip6_min, 16)) {
			wb_put_bytes(b, nat->ip6_max, 16);
			present |= 0x8;
		}
	} else {
		if (nat->ip_min) {
			wb_put_bytes(b, &nat->ip_min, 4);
			present |= 0x1;
		}
		if (nat->ip_max && nat->ip_max != nat->ip_min) {
			wb_put_bytes(b, &nat->ip_max, 4);
			present |= 0x2;
		}
	}
	if (nat->port_min) {
		wb_put16(b, nat->port_min);
		present |= 0x10;
	}
	if (nat->port_max && nat->port_max != nat->port_min) {
		wb_put16(b, nat->port_max);
		present |= 0x20;
	}
	wb_set16(b, pres, present);
	end_act(b, at);
}

static void
put_ct(struct ofp_wire_buf *b, uint8_t version, const struct ofp_ct *ct)
{
	size_t at;

	if (ct->is_sg) {
		at = begin_nx(b, OFP_WIRE_VXS_ID, 1);
		wb_put(b, 1)[0] = ct->allow;
		wb_put(b, 1)[0] = 0;
		wb_put16(b, ct->zone);
		end_act(b, at);
		return;
	}
	at = begin_nx(b, OFP_WIRE_NX_ID, 35);
	wb_put16(b, ct->commit ? 1 : 0);
	if (ct->zone_reg >= 0) {
		wb_put32(b, ofp_wire_target_header(WST_REG, ct->zone_reg,
						   false));
		wb_put16(b, (uint16_t)(ct->zone_ofs << 6 |
				       (ct->zone_nbits - 1)));
	} else {
		wb_put32(b, 0);
		wb_put16(b, ct->zone);
	}
	wb_put(b, 1)[0] = ct->table;
	wb_put(b, 3);
	wb_put16(b, 0);		/* alg */
	if (ct->nat.kind != OFP_NAT_NONE)
		put_nat(b, &ct->nat);
	for (int i = 0; i < ct->n_exec; i++) {
		const struct ofp_load *l = &ct->exec[i];
		bool label = l->field == OFP_MF_CT_LABEL;

		put_load(b, version, label ? WST_CT_LABEL : WST_CT_MARK, -1,
			 label ? 16 : 4, l->ofs, l->nbits, l->value,
			 l->set_field);
	}
	wb_set16(b, at + 2, (uint16_t)(b->len - at));
}

static void
put_output(struct ofp_wire_buf *b, uint8_t version, uint32_t port)
{
	size_t at = begin_act(b, 0);
	uint32_t p = port == OFPP_IN_PORT ? OFPP10_IN_PORT : port;

	if (version == OFP10_VERSION) {
		wb_put16(b, (uint16_t)p);
		wb_put16(b, 0);
	} else {
		wb_put32(b, p >= 0xff00 ? p + OFPP11_OFFSET : p);
		wb_put16(b, 0);
	}
	end_act(b, at);
}

static void
put_resubmit(struct ofp_wire_buf *b, uint32_t port, uint8_t table)
{
	size_t at = begin_nx(b, OFP_WIRE_NX_ID, 14);

	wb_put16(b, (uint16_t)(port == OFPP_IN_PORT ? OFPP10_IN_PORT : port));
	wb_put(b, 1)[0] = table;
	end_act(b, at);
}

static enum ofp_wire_error
put_one(struct ofp_wire_buf *b, uint8_t version, const struct ofp_rule *r,
	const struct ofp_action *a)
{
	uint8_t v[16];
	size_t at;

	switch (a->type) {
	case OFPACT_OUTPUT:
		put_output(b, version, a->port);
		return 0;
	case OFPACT_SET_TUNNEL:
		if (version == OFP10_VERSION) {
			at = begin_nx(b, OFP_WIRE_NX_ID, 2);
			wb_put16(b, 0);
			wb_put32(b, a->u32);
			end_act(b, at);
			return 0;
		}
		memset(v, 0, 8);
		put32(v + 4, a->u32);
		put_whole(b, version, WST_TUN_ID, -1, v, 8);
		return 0;
	case OFPACT_SET_TUN_SRC:
	case OFPACT_SET_TUN_DST:
		memcpy(v, &a->ip, 4);
		put_whole(b, version, a->type == OFPACT_SET_TUN_SRC ?
			  WST_TUN_SRC : WST_TUN_DST, -1, v, 4);
		return 0;
	case OFPACT_SET_TUN_IPV6_SRC:
	case OFPACT_SET_TUN_IPV6_DST:
		put_whole(b, version, a->type == OFPACT_SET_TUN_IPV6_SRC ?
			  WST_TUN6_SRC : WST_TUN6_DST, -1, a->ip6.a, 16);
		return 0;
	case OFPACT_SET_ETH_SRC:
	case OFPACT_SET_ETH_DST:
		if (version == OFP10_VERSION) {
			at = begin_act(b, a->type == OFPACT_SET_ETH_SRC ? 4 : 5);
			wb_put_bytes(b, &a->mac, 6);
			end_act(b, at);
			return 0;
		}
		put_whole(b, version, a->type == OFPACT_SET_ETH_SRC ?
			  WST_ETH_SRC : WST_ETH_DST, -1,
			  (const uint8_t *)&a->mac, 6);
		return 0;
	case OFPACT_RESUBMIT:
		put_resubmit(b, a->port, a->table);
		return 0;
	case OFPACT_GOTO_TABLE:
		if (version == OFP10_VERSION)
			put_resubmit(b, OFPP_IN_PORT, a->table);
		return 0;	/* 1.1+: an instruction */
	case OFPACT_LOAD: {
		uint64_t value[2] = { 0, a->u32 };

		put_load(b, version, WST_REG, a->slot, 4, a->ofs, a->nbits,
			 value, a->form);
		return 0;
	}
	case OFPACT_CT:
	case OFPACT_SG:
		if (a->slot >= r->n_ct)
			return OFPW_BAC_BAD_TYPE;
		put_ct(b, version, &r->ct[a->slot]);
		return 0;
	case OFPACT_CONJUNCTION:
		at = begin_nx(b, OFP_WIRE_NX_ID, 34);
		wb_put(b, 1)[0] = (uint8_t)(a->ofs - 1);
		wb_put(b, 1)[0] = a->nbits;
		wb_put32(b, a->u32);
		end_act(b, at);
		return 0;
	}
	return OFPW_BAC_BAD_TYPE;
}

enum ofp_wire_error
ofp_wire_put_actions(struct ofp_wire_buf *b, const struct ofp_rule *r,
		     uint8_t version)
{
	for (int i = 0; i < r->n_actions; i++) {
		enum ofp_wire_error err = put_one(b, version, r, &r->actions[i]);
		if (err)
			return err;
	}
	return 0;
}

enum ofp_wire_error
ofp_wire_put_instructions(struct ofp_wire_buf *b, const struct ofp_rule *r,
			  uint8_t version)
{
	const struct ofp_action *last = r->n_actions ?
		&r->actions[r->n_actions - 1] : NULL;
	bool has_goto = last && last->type == OFPACT_GOTO_TABLE;
	int n_apply = r->n_actions - has_goto;

	if (n_apply > 0) {
		size_t at = b->len;

		wb_put16(b, 4);		/* OFPIT_APPLY_ACTIONS */
		wb_put16(b, 0);
		wb_put32(b, 0);
		for (int i = 0; i < n_apply; i++) {
			enum ofp_wire_error err = put_one(b, version, r,
							  &r->actions[i]);
			if (err)
				return err;
		}
		wb_set16(b, at + 2, (uint16_t)(b->len - at));
	}
	if (has_goto) {
		wb_put16(b, 1);		/* OFPIT_GOTO_TABLE */
		wb_put16(b, 8);
		wb_put(b, 1)[0] = last->table;
		wb_put(b, 3);
	}
	return 0;
}
