/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow matches <-> struct ofp_rule's match/mask and meta_match/
 * meta_mask: NXM and OXM TLVs (the same header form: class, field,
 * has-mask, length; ovs-fields(7) gives each field's headers), the 1.1+
 * ofp_match header around OXM, and OpenFlow 1.0's fixed ofp_match with
 * its wildcard bits. Decoding follows OVS's nx_pull_raw: an unknown field
 * is OFPBMC_BAD_FIELD, a field given twice OFPBMC_DUP_FIELD, a value bit
 * outside its mask OFPBMC_BAD_WILDCARDS, and prerequisites are checked
 * against the fields before it, in order. Encoding follows nx_put_raw's
 * order and its choice of OXM or NXM header, so that a flow-stats entry
 * is byte for byte what ovs-vswitchd sends.
 */
#include <netinet/in.h>
#include <string.h>

#include "ofp_wire_priv.h"

/* How a wire field maps onto the rule. */
enum wire_kind {
	WK_KEY,		/* the same bytes at a flow_key offset */
	WK_IN_PORT16,	/* NXM_OF_IN_PORT */
	WK_IN_PORT32,	/* OXM_OF_IN_PORT */
	WK_VLAN_TCI,	/* NXM_OF_VLAN_TCI */
	WK_VLAN_VID,	/* OXM_OF_VLAN_VID: 13 bits */
	WK_VLAN_PCP,	/* OXM_OF_VLAN_PCP */
	WK_TOS,		/* NXM_OF_IP_TOS: the DSCP bits in place */
	WK_DSCP,	/* OXM_OF_IP_DSCP: shifted */
	WK_ARP_OP,	/* 16 bits into nw_proto */
	WK_ICMP,	/* 8 bits into tp_src/tp_dst's low byte */
	WK_TUN_ID,	/* 64 bits, vxswitch keeps 32 */
	WK_FRAG,
	WK_META32,	/* a 32-bit ofp_meta word */
	WK_META16,	/* ct_zone */
	WK_LABEL,	/* ct_label: 128 bits */
	WK_XREG,	/* OXM_OF_PKT_REGn: regs 2n (high), 2n+1 */
	WK_COOKIE,	/* NXM_NX_COOKIE (flow_mod, NXST only) */
};

/* dl_type/nw_proto a field needs (OVS's MFP_*) */
enum wire_prereq {
	WP_NONE, WP_IP_ANY, WP_IPV4, WP_IPV6, WP_ARP, WP_TCP, WP_UDP,
	WP_ICMP4, WP_ICMP6, WP_ND, WP_ND_NS, WP_ND_NA,
};

struct wire_field {
	uint16_t cls;
	uint8_t field;
	uint8_t len;		/* payload bytes without the mask */
	bool maskable;
	uint8_t kind;		/* enum wire_kind */
	uint8_t prereq;		/* enum wire_prereq */
	int16_t mf;		/* enum mf_id for WK_KEY, else -1 */
	uint16_t off;		/* WK_META*: byte offset in struct ofp_meta */
};

#define NXM0 0x0000
#define NXM1 0x0001
#define OXM 0x8000
#define PKT_REGS 0x8001
#define KEY(c, f, l, m, id, pr) { c, f, l, m, WK_KEY, pr, id, 0 }
#define SPECIAL(c, f, l, m, k, pr) { c, f, l, m, k, pr, -1, 0 }
#define META(c, f, l, m, k, o) { c, f, l, m, k, WP_NONE, -1, o }
#define REG(i) META(NXM1, i, 4, true, WK_META32, 4 * (i))

static const struct wire_field fields[] = {
	SPECIAL(NXM0, 0, 2, false, WK_IN_PORT16, WP_NONE),
	SPECIAL(OXM, 0, 4, false, WK_IN_PORT32, WP_NONE),
	KEY(NXM0, 1, 6, true, MFF_DL_DST, WP_NONE),
	KEY(OXM, 3, 6, true, MFF_DL_DST, WP_NONE),
	KEY(NXM0, 2, 6, true, MFF_DL_SRC, WP_NONE),
	KEY(OXM, 4, 6, true, MFF_DL_SRC, WP_NONE),
	KEY(NXM0, 3, 2, false, MFF_DL_TYPE, WP_NONE),
	KEY(OXM, 5, 2, false, MFF_DL_TYPE, WP_NONE),
	SPECIAL(NXM0, 4, 2, true, WK_VLAN_TCI, WP_NONE),
	SPECIAL(OXM, 6, 2, true, WK_VLAN_VID, WP_NONE),
	SPECIAL(OXM, 7, 1, false, WK_VLAN_PCP, WP_NONE),
	SPECIAL(NXM0, 5, 1, false, WK_TOS, WP_IP_ANY),
	SPECIAL(OXM, 8, 1, false, WK_DSCP, WP_IP_ANY),
	KEY(NXM0, 6, 1, false, MFF_NW_PROTO, WP_IP_ANY),
	KEY(OXM, 10, 1, false, MFF_NW_PROTO, WP_IP_ANY),
	KEY(NXM0, 7, 4, true, MFF_NW_SRC, WP_IPV4),
	KEY(OXM, 11, 4, true, MFF_NW_SRC, WP_IPV4),
	KEY(NXM0, 8, 4, true, MFF_NW_DST, WP_IPV4),
	KEY(OXM, 12, 4, true, MFF_NW_DST, WP_IPV4),
	KEY(NXM0, 9, 2, true, MFF_TP_SRC, WP_TCP),
	KEY(OXM, 13, 2, true, MFF_TP_SRC, WP_TCP),
	KEY(NXM0, 10, 2, true, MFF_TP_DST, WP_TCP),
	KEY(OXM, 14, 2, true, MFF_TP_DST, WP_TCP),
	KEY(NXM0, 11, 2, true, MFF_TP_SRC, WP_UDP),
	KEY(OXM, 15, 2, true, MFF_TP_SRC, WP_UDP),
	KEY(NXM0, 12, 2, true, MFF_TP_DST, WP_UDP),
	KEY(OXM, 16, 2, true, MFF_TP_DST, WP_UDP),
	{ NXM0, 13, 1, false, WK_ICMP, WP_ICMP4, MFF_TP_SRC, 0 },
	{ OXM, 19, 1, false, WK_ICMP, WP_ICMP4, MFF_TP_SRC, 0 },
	{ NXM0, 14, 1, false, WK_ICMP, WP_ICMP4, MFF_TP_DST, 0 },
	{ OXM, 20, 1, false, WK_ICMP, WP_ICMP4, MFF_TP_DST, 0 },
	SPECIAL(NXM0, 15, 2, false, WK_ARP_OP, WP_ARP),
	SPECIAL(OXM, 21, 2, false, WK_ARP_OP, WP_ARP),
	KEY(NXM0, 16, 4, true, MFF_NW_SRC, WP_ARP),
	KEY(OXM, 22, 4, true, MFF_NW_SRC, WP_ARP),
	KEY(NXM0, 17, 4, true, MFF_NW_DST, WP_ARP),
	KEY(OXM, 23, 4, true, MFF_NW_DST, WP_ARP),
	SPECIAL(NXM1, 16, 8, true, WK_TUN_ID, WP_NONE),
	SPECIAL(OXM, 38, 8, true, WK_TUN_ID, WP_NONE),
	KEY(NXM1, 19, 16, true, MFF_IPV6_SRC, WP_IPV6),
	KEY(OXM, 26, 16, true, MFF_IPV6_SRC, WP_IPV6),
	KEY(NXM1, 20, 16, true, MFF_IPV6_DST, WP_IPV6),
	KEY(OXM, 27, 16, true, MFF_IPV6_DST, WP_IPV6),
	{ NXM1, 21, 1, false, WK_ICMP, WP_ICMP6, MFF_TP_SRC, 0 },
	{ OXM, 29, 1, false, WK_ICMP, WP_ICMP6, MFF_TP_SRC, 0 },
	{ NXM1, 22, 1, false, WK_ICMP, WP_ICMP6, MFF_TP_DST, 0 },
	{ OXM, 30, 1, false, WK_ICMP, WP_ICMP6, MFF_TP_DST, 0 },
	KEY(NXM1, 23, 16, true, MFF_ND_TARGET, WP_ND),
	KEY(OXM, 31, 16, true, MFF_ND_TARGET, WP_ND),
	KEY(NXM1, 24, 6, true, MFF_ND_SLL, WP_ND_NS),
	KEY(OXM, 32, 6, true, MFF_ND_SLL, WP_ND_NS),
	KEY(NXM1, 25, 6, true, MFF_ND_TLL, WP_ND_NA),
	KEY(OXM, 33, 6, true, MFF_ND_TLL, WP_ND_NA),
	SPECIAL(NXM1, 26, 1, true, WK_FRAG, WP_IP_ANY),
	KEY(NXM1, 27, 4, true, MFF_IPV6_LABEL, WP_IPV6),
	KEY(OXM, 28, 4, true, MFF_IPV6_LABEL, WP_IPV6),
	KEY(NXM1, 29, 1, false, MFF_NW_TTL, WP_IP_ANY),
	KEY(NXM1, 31, 4, true, MFF_TUN_SRC, WP_NONE),
	KEY(NXM1, 32, 4, true, MFF_TUN_DST, WP_NONE),
	KEY(NXM1, 109, 16, true, MFF_TUN_IPV6_SRC, WP_NONE),
	KEY(NXM1, 110, 16, true, MFF_TUN_IPV6_DST, WP_NONE),
	REG(0), REG(1), REG(2), REG(3), REG(4), REG(5), REG(6), REG(7),
	META(PKT_REGS, 0, 8, true, WK_XREG, 0),
	META(PKT_REGS, 1, 8, true, WK_XREG, 8),
	META(PKT_REGS, 2, 8, true, WK_XREG, 16),
	META(PKT_REGS, 3, 8, true, WK_XREG, 24),
	META(NXM1, 37, 4, false, WK_META32,
	     offsetof(struct ofp_meta, conj_id)),
	META(NXM1, 105, 4, true, WK_META32,
	     offsetof(struct ofp_meta, ct_state)),
	META(NXM1, 106, 2, false, WK_META16,
	     offsetof(struct ofp_meta, ct_zone)),
	META(NXM1, 107, 4, true, WK_META32,
	     offsetof(struct ofp_meta, ct_mark)),
	META(NXM1, 108, 16, true, WK_LABEL,
	     offsetof(struct ofp_meta, ct_label)),
	SPECIAL(NXM1, 30, 8, true, WK_COOKIE, WP_NONE),
};

static const struct wire_field *
find_field(uint16_t cls, uint8_t field)
{
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		if (fields[i].cls == cls && fields[i].field == field)
			return &fields[i];
	return NULL;
}

/* ---- prerequisites ----------------------------------------------------- */

static bool
eth_is(const struct ofp_rule *r, uint16_t type)
{
	return r->mask.dl_type == 0xffff &&
	       r->match.dl_type == rte_cpu_to_be_16(type);
}

static bool
proto_is(const struct ofp_rule *r, uint8_t p)
{
	return r->mask.nw_proto == 0xff && r->match.nw_proto == p;
}

static bool
icmp6_is(const struct ofp_rule *r, uint8_t type)
{
	return eth_is(r, RTE_ETHER_TYPE_IPV6) && proto_is(r, IPPROTO_ICMPV6) &&
	       r->mask.tp_src == 0xffff && r->mask.tp_dst == 0xffff &&
	       r->match.tp_src == rte_cpu_to_be_16(type) && !r->match.tp_dst;
}

static bool
prereq_ok(const struct ofp_rule *r, enum wire_prereq p)
{
	bool ip4 = eth_is(r, RTE_ETHER_TYPE_IPV4);
	bool ip6 = eth_is(r, RTE_ETHER_TYPE_IPV6);

	switch (p) {
	case WP_NONE:
		return true;
	case WP_IP_ANY:
		return ip4 || ip6;
	case WP_IPV4:
		return ip4;
	case WP_IPV6:
		return ip6;
	case WP_ARP:
		return eth_is(r, RTE_ETHER_TYPE_ARP);
	case WP_TCP:
		return (ip4 || ip6) && proto_is(r, IPPROTO_TCP);
	case WP_UDP:
		return (ip4 || ip6) && proto_is(r, IPPROTO_UDP);
	case WP_ICMP4:
		return ip4 && proto_is(r, IPPROTO_ICMP);
	case WP_ICMP6:
		return ip6 && proto_is(r, IPPROTO_ICMPV6);
	case WP_ND:
		return icmp6_is(r, 135) || icmp6_is(r, 136);
	case WP_ND_NS:
		return icmp6_is(r, 135);
	case WP_ND_NA:
		return icmp6_is(r, 136);
	}
	return false;
}

/* ---- decode ------------------------------------------------------------ */

static void
set_key(struct ofp_rule *r, enum mf_id id, const uint8_t *v, const uint8_t *m)
{
	const struct mf_field *f = &mf_fields[id];
	uint8_t *kv = (uint8_t *)&r->match + f->offset;
	uint8_t *km = (uint8_t *)&r->mask + f->offset;

	for (unsigned i = 0; i < f->len; i++) {
		kv[i] = v[i] & m[i];
		km[i] = m[i];
	}
	uint8_t line = flow_field_ext_bit(f->offset);
	if (line && flow_mask_has_field(&r->mask, id)) {
		r->mask.ext_line |= line;
		r->match.ext_line |= line;
	}
}

static bool
key_is_set(const struct ofp_rule *r, enum mf_id id)
{
	return flow_mask_has_field(&r->mask, id);
}

static uint32_t *
meta32(struct ofp_meta *m, unsigned off)
{
	return (uint32_t *)((uint8_t *)m + off);
}

/* One TLV's value v and mask m (all ones when it has none). */
static enum ofp_wire_error
apply_field(const struct wire_field *f, const uint8_t *v, const uint8_t *m,
	    struct ofp_rule *r, struct ofp_match_cookie *ck)
{
	uint8_t bv[16], bm[16];
	uint16_t x, xm;

	switch ((enum wire_kind)f->kind) {
	case WK_KEY:
		if (key_is_set(r, (enum mf_id)f->mf))
			return OFPW_BMC_DUP_FIELD;
		if (f->mf == MFF_IPV6_LABEL) {
			/* 20 bits: a wider mask counts for those only, as
			 * the text parser keeps it */
			if (be_get32(v) & ~FLOW_IPV6_LABEL_MASK)
				return OFPW_BMC_BAD_VALUE;
			put32(bv, be_get32(v));
			put32(bm, be_get32(m) & FLOW_IPV6_LABEL_MASK);
			set_key(r, MFF_IPV6_LABEL, bv, bm);
			return 0;
		}
		set_key(r, (enum mf_id)f->mf, v, m);
		return 0;
	case WK_IN_PORT16:
	case WK_IN_PORT32: {
		uint32_t port = f->len == 2 ? be_get16(v) : be_get32(v);
		uint16_t p16;

		if (r->mask.in_port)
			return OFPW_BMC_DUP_FIELD;
		/* vxswitch's key holds ofports 1..0xfeff (the text
		 * parser's "port out of range") */
		if (!port || port > FLOW_IN_PORT_MAX)
			return OFPW_BMC_BAD_VALUE;
		p16 = (uint16_t)port;
		memcpy(bv, &p16, 2);
		memset(bm, 0xff, 2);
		set_key(r, MFF_IN_PORT, bv, bm);
		return 0;
	}
	case WK_VLAN_TCI:
	case WK_VLAN_VID:
		if (r->mask.vlan_tci & rte_cpu_to_be_16(0x1fff))
			return OFPW_BMC_DUP_FIELD;
		x = be_get16(v);
		xm = be_get16(m);
		if (f->kind == WK_VLAN_VID) {
			if (x & ~0x1fff)
				return OFPW_BMC_BAD_VALUE;
			xm &= 0x1fff;
		}
		put16(bv, x);
		put16(bm, xm);
		set_key(r, MFF_VLAN_TCI, bv, bm);
		return 0;
	case WK_VLAN_PCP:
		if (v[0] > 7)
			return OFPW_BMC_BAD_VALUE;
		if (!(r->mask.vlan_tci & rte_cpu_to_be_16(FLOW_VLAN_CFI)))
			return OFPW_BMC_BAD_PREREQ;
		r->match.vlan_tci |= rte_cpu_to_be_16((uint16_t)(v[0] << 13));
		r->mask.vlan_tci |= rte_cpu_to_be_16(0xe000);
		return 0;
	case WK_TOS:
	case WK_DSCP:
		if (r->mask.nw_tos)
			return OFPW_BMC_DUP_FIELD;
		if (f->kind == WK_TOS ? (v[0] & 0x03) : v[0] > 63)
			return OFPW_BMC_BAD_VALUE;
		bv[0] = f->kind == WK_TOS ? v[0] : (uint8_t)(v[0] << 2);
		bm[0] = 0xfc;
		set_key(r, MFF_NW_TOS, bv, bm);
		return 0;
	case WK_ARP_OP:
		if (r->mask.nw_proto)
			return OFPW_BMC_DUP_FIELD;
		/* the key keeps the opcode's low byte, as OVS's nw_proto */
		if (be_get16(v) > 0xff)
			return OFPW_BMC_BAD_VALUE;
		bv[0] = v[1];
		bm[0] = 0xff;
		set_key(r, MFF_NW_PROTO, bv, bm);
		return 0;
	case WK_ICMP:
		if (key_is_set(r, (enum mf_id)f->mf))
			return OFPW_BMC_DUP_FIELD;
		put16(bv, v[0]);
		put16(bm, 0xffff);
		set_key(r, (enum mf_id)f->mf, bv, bm);
		return 0;
	case WK_TUN_ID: {
		uint64_t id = be_get64(v), idm = be_get64(m);
		uint32_t lo, lom;

		if (r->mask.tun_id)
			return OFPW_BMC_DUP_FIELD;
		/* vxswitch's tunnel ids are 32 bits (VNIs): a match on
		 * higher bits being set can never hold */
		if ((id & idm) >> 32)
			return OFPW_BMC_BAD_VALUE;
		lo = (uint32_t)id;
		lom = (uint32_t)idm;
		if (!lom)
			return 0;
		memcpy(bv, &lo, 4);
		memcpy(bm, &lom, 4);
		set_key(r, MFF_TUN_ID, bv, bm);
		return 0;
	}
	case WK_FRAG:
		if (r->mask.nw_frag)
			return OFPW_BMC_DUP_FIELD;
		if ((v[0] & ~FLOW_NW_FRAG_MASK) ||
		    (m[0] != 0xff && (m[0] & ~FLOW_NW_FRAG_MASK)))
			return OFPW_BMC_BAD_VALUE;
		bv[0] = v[0];
		bm[0] = m[0] & FLOW_NW_FRAG_MASK;
		set_key(r, MFF_NW_FRAG, bv, bm);
		return 0;
	case WK_META32: {
		uint32_t *mv = meta32(&r->meta_match, f->off);
		uint32_t *mm = meta32(&r->meta_mask, f->off);

		if (*mm)
			return OFPW_BMC_DUP_FIELD;
		if (f->off == offsetof(struct ofp_meta, ct_state) &&
		    (be_get32(v) & ~(uint32_t)OFP_CS_ALL))
			return OFPW_BMC_BAD_VALUE;
		*mv = be_get32(v) & be_get32(m);
		*mm = be_get32(m);
		return 0;
	}
	case WK_META16:
		if (r->meta_mask.ct_zone)
			return OFPW_BMC_DUP_FIELD;
		r->meta_match.ct_zone = be_get16(v);
		r->meta_mask.ct_zone = 0xffff;
		return 0;
	case WK_LABEL:
		if (r->meta_mask.ct_label[0] || r->meta_mask.ct_label[1])
			return OFPW_BMC_DUP_FIELD;
		for (int i = 0; i < 2; i++) {
			r->meta_mask.ct_label[i] = be_get64(m + 8 * i);
			r->meta_match.ct_label[i] = be_get64(v + 8 * i) &
						    r->meta_mask.ct_label[i];
		}
		return 0;
	case WK_XREG: {
		int hi = f->off / 4;

		if (r->meta_mask.regs[hi] || r->meta_mask.regs[hi + 1])
			return OFPW_BMC_DUP_FIELD;
		for (int i = 0; i < 2; i++) {
			r->meta_mask.regs[hi + i] = be_get32(m + 4 * i);
			r->meta_match.regs[hi + i] = be_get32(v + 4 * i) &
						     be_get32(m + 4 * i);
		}
		return 0;
	}
	case WK_COOKIE:
		if (!ck || !ck->allowed)
			return OFPW_BMC_BAD_FIELD;
		if (ck->seen)
			return OFPW_BMC_DUP_FIELD;
		ck->seen = true;
		ck->value = be_get64(v) & be_get64(m);
		ck->mask = be_get64(m);
		return 0;
	}
	return OFPW_BMC_BAD_FIELD;
}

enum ofp_wire_error
ofp_wire_pull_tlvs(const uint8_t *p, size_t len, struct ofp_rule *r,
		   struct ofp_match_cookie *ck)
{
	struct ofp_rd rd = { p, len };

	while (rd.left) {
		const uint8_t *h = rd_pull(&rd, 4), *pl;
		const struct wire_field *f;
		uint8_t ones[16];
		uint32_t header;
		unsigned plen;
		bool hasmask;
		enum ofp_wire_error err;

		if (!h)
			return OFPW_BMC_BAD_LEN;
		header = be_get32(h);
		plen = header & 0xff;
		hasmask = header & 0x100;
		if ((header >> 16) == 0xffff)	/* experimenter OXM */
			return rd.left < 4 ? OFPW_BMC_BAD_LEN
					   : OFPW_BMC_BAD_FIELD;
		f = find_field((uint16_t)(header >> 16),
			       (uint8_t)((header >> 9) & 0x7f));
		pl = rd_pull(&rd, plen);
		if (!pl)
			return OFPW_BMC_BAD_LEN;
		if (!f || plen != (hasmask ? 2u : 1u) * f->len)
			return OFPW_BMC_BAD_FIELD;
		if (hasmask) {
			for (unsigned i = 0; i < f->len; i++)
				if (pl[i] & ~pl[f->len + i])
					return OFPW_BMC_BAD_WILDCARDS;
			if (!f->maskable)
				return OFPW_BMC_BAD_MASK;
		}
		memset(ones, 0xff, sizeof ones);
		if (!prereq_ok(r, (enum wire_prereq)f->prereq))
			return OFPW_BMC_BAD_PREREQ;
		err = apply_field(f, pl, hasmask ? pl + f->len : ones, r, ck);
		if (err)
			return err;
	}
	return 0;
}

enum ofp_wire_error
ofp_wire_pull_oxm_match(struct ofp_rd *rd, struct ofp_rule *r)
{
	const uint8_t *h;
	uint16_t mlen;

	if (rd->left < 4)
		return OFPW_BMC_BAD_LEN;
	h = rd->p;
	mlen = be_get16(h + 2);
	if (mlen < 4)
		return OFPW_BMC_BAD_LEN;
	if (be_get16(h) != 1)	/* OFPMT_OXM */
		return OFPW_BMC_BAD_TYPE;
	if (!rd_pull(rd, (mlen + 7u) & ~7u))
		return OFPW_BMC_BAD_LEN;
	return ofp_wire_pull_tlvs(h + 4, mlen - 4u, r, NULL);
}
