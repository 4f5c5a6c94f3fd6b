/* SPDX-License-Identifier: BSD-3-Clause
 * struct ofp_rule's match -> NXM/OXM TLVs, in the order and with the
 * headers of OVS's nx_put_raw (lib/nx-match.c): OXM where OpenFlow 1.2+
 * (1.3+ for tun_id) defines the field and the message is 1.2+, NXM
 * otherwise; a field whose mask is all ones without a mask, one whose
 * mask is zero left out; in 1.5 the registers as OXM_OF_PKT_REGn pairs.
 * Also the headers of the fields set_field and reg_load write.
 */
#include <netinet/in.h>
#include <string.h>

#include "ofp_wire_priv.h"

#define HDR(cls, field, len) ((uint32_t)(cls) << 16 | (uint32_t)(field) << 9 | (len))

struct put_ctx {
	struct ofp_wire_buf *b;
	bool oxm;		/* 1.2+ */
	uint8_t version;
};

/* value v and mask m of n bytes, both in wire order */
static void
put_m(struct put_ctx *c, uint32_t nxm, uint32_t oxm, const uint8_t *v,
      const uint8_t *m, unsigned n)
{
	uint32_t h = c->oxm && oxm ? oxm : nxm;
	bool ones = true, zero = true;

	for (unsigned i = 0; i < n; i++) {
		ones &= m[i] == 0xff;
		zero &= m[i] == 0;
	}
	if (zero)
		return;
	if (!ones)
		h = (h & ~0xffu) | 0x100 | (2 * n);
	wb_put32(c->b, h);
	for (unsigned i = 0; i < n; i++)
		wb_put(c->b, 1)[0] = v[i] & m[i];
	if (!ones)
		wb_put_bytes(c->b, m, n);
}

/* an exact value */
static void
put_x(struct put_ctx *c, uint32_t nxm, uint32_t oxm, const void *v, unsigned n)
{
	uint8_t ones[16];

	memset(ones, 0xff, sizeof ones);
	put_m(c, nxm, oxm, v, ones, n);
}

static void
be32(uint8_t *p, uint32_t v)
{
	put32(p, v);
}

static void
put_u32m(struct put_ctx *c, uint32_t nxm, uint32_t oxm, uint32_t v, uint32_t m)
{
	uint8_t bv[4], bm[4];

	be32(bv, v);
	be32(bm, m);
	put_m(c, nxm, oxm, bv, bm, 4);
}

static void
put_u64m(struct put_ctx *c, uint32_t nxm, uint32_t oxm, uint64_t v, uint64_t m)
{
	uint8_t bv[8], bm[8];

	be32(bv, (uint32_t)(v >> 32));
	be32(bv + 4, (uint32_t)v);
	be32(bm, (uint32_t)(m >> 32));
	be32(bm + 4, (uint32_t)m);
	put_m(c, nxm, oxm, bv, bm, 8);
}

#define K(f) ((const uint8_t *)&r->match.f)
#define M(f) ((const uint8_t *)&r->mask.f)

static void
put_ip(struct put_ctx *c, const struct ofp_rule *r, bool ip4)
{
	uint8_t v, m;

	if (ip4) {
		put_m(c, HDR(0, 7, 4), HDR(0x8000, 11, 4), K(nw_src), M(nw_src), 4);
		put_m(c, HDR(0, 8, 4), HDR(0x8000, 12, 4), K(nw_dst), M(nw_dst), 4);
	} else {
		put_m(c, HDR(1, 19, 16), HDR(0x8000, 26, 16), K(ipv6_src),
		      M(ipv6_src), 16);
		put_m(c, HDR(1, 20, 16), HDR(0x8000, 27, 16), K(ipv6_dst),
		      M(ipv6_dst), 16);
	}
	v = r->match.nw_frag & FLOW_NW_FRAG_MASK;
	m = r->mask.nw_frag & FLOW_NW_FRAG_MASK;
	m = m == FLOW_NW_FRAG_MASK ? 0xff : m;
	put_m(c, HDR(1, 26, 1), 0, &v, &m, 1);
	if (r->mask.nw_tos & 0xfc) {
		v = c->oxm ? (uint8_t)(r->match.nw_tos >> 2)
			   : (uint8_t)(r->match.nw_tos & 0xfc);
		put_x(c, HDR(0, 5, 1), HDR(0x8000, 8, 1), &v, 1);
	}
	if (r->mask.nw_ttl)
		put_x(c, HDR(1, 29, 1), 0, K(nw_ttl), 1);
	{
		/* all 20 bits: no mask, as OVS */
		uint8_t lm[4];
		uint32_t l = rte_be_to_cpu_32(r->mask.ipv6_label);
		put32(lm, l == FLOW_IPV6_LABEL_MASK ? UINT32_MAX : l);
		put_m(c, HDR(1, 27, 4), HDR(0x8000, 28, 4), K(ipv6_label),
		      lm, 4);
	}
	if (!r->mask.nw_proto)
		return;
	put_x(c, HDR(0, 6, 1), HDR(0x8000, 10, 1), K(nw_proto), 1);
	uint8_t proto = r->match.nw_proto;
	uint16_t type = rte_be_to_cpu_16(r->match.tp_src);
	uint8_t t8 = (uint8_t)type, c8 = (uint8_t)rte_be_to_cpu_16(r->match.tp_dst);

	if (proto == IPPROTO_TCP) {
		put_m(c, HDR(0, 9, 2), HDR(0x8000, 13, 2), K(tp_src), M(tp_src), 2);
		put_m(c, HDR(0, 10, 2), HDR(0x8000, 14, 2), K(tp_dst), M(tp_dst), 2);
	} else if (proto == IPPROTO_UDP) {
		put_m(c, HDR(0, 11, 2), HDR(0x8000, 15, 2), K(tp_src), M(tp_src), 2);
		put_m(c, HDR(0, 12, 2), HDR(0x8000, 16, 2), K(tp_dst), M(tp_dst), 2);
	} else if (proto == IPPROTO_ICMP && ip4) {
		if (r->mask.tp_src)
			put_x(c, HDR(0, 13, 1), HDR(0x8000, 19, 1), &t8, 1);
		if (r->mask.tp_dst)
			put_x(c, HDR(0, 14, 1), HDR(0x8000, 20, 1), &c8, 1);
	} else if (proto == IPPROTO_ICMPV6 && !ip4) {
		if (r->mask.tp_src)
			put_x(c, HDR(1, 21, 1), HDR(0x8000, 29, 1), &t8, 1);
		if (r->mask.tp_dst)
			put_x(c, HDR(1, 22, 1), HDR(0x8000, 30, 1), &c8, 1);
		if ((type == 135 || type == 136) && !r->match.tp_dst) {
			put_m(c, HDR(1, 23, 16), HDR(0x8000, 31, 16),
			      K(nd_target), M(nd_target), 16);
			if (type == 135)
				put_m(c, HDR(1, 24, 6), HDR(0x8000, 32, 6),
				      K(nd_sll), M(nd_sll), 6);
			else
				put_m(c, HDR(1, 25, 6), HDR(0x8000, 33, 6),
				      K(nd_tll), M(nd_tll), 6);
		}
	}
}

size_t
ofp_wire_put_tlvs(struct ofp_wire_buf *b, const struct ofp_rule *r, bool oxm,
		  uint8_t version)
{
	struct put_ctx c = { b, oxm, version };
	const struct ofp_meta *mv = &r->meta_match, *mm = &r->meta_mask;
	size_t start = b->len;
	uint16_t dl_type = rte_be_to_cpu_16(r->match.dl_type);

	if (mm->conj_id)
		put_u32m(&c, HDR(1, 37, 4), 0, mv->conj_id, UINT32_MAX);
	if (r->mask.in_port) {
		if (oxm)
			put_u32m(&c, 0, HDR(0x8000, 0, 4), r->match.in_port,
				 UINT32_MAX);
		else {
			uint8_t p[2];
			put16(p, r->match.in_port);
			put_x(&c, HDR(0, 0, 2), 0, p, 2);
		}
	}
	put_m(&c, HDR(0, 2, 6), HDR(0x8000, 4, 6), K(dl_src), M(dl_src), 6);
	put_m(&c, HDR(0, 1, 6), HDR(0x8000, 3, 6), K(dl_dst), M(dl_dst), 6);
	put_m(&c, HDR(0, 3, 2), HDR(0x8000, 5, 2), K(dl_type), M(dl_type), 2);
	if (oxm) {
		uint16_t tci = rte_be_to_cpu_16(r->match.vlan_tci);
		uint16_t tm = rte_be_to_cpu_16(r->mask.vlan_tci);
		uint8_t v[2], m[2], pcp;

		put16(v, tci & 0x1fff);
		put16(m, (tm & 0x1fff) == 0x1fff ? 0xffff : tm & 0x1fff);
		put_m(&c, 0, HDR(0x8000, 6, 2), v, m, 2);
		if ((tci & 0x1fff) && (tm & 0xe000)) {
			pcp = (uint8_t)(tci >> 13);
			put_x(&c, 0, HDR(0x8000, 7, 1), &pcp, 1);
		}
	} else {
		put_m(&c, HDR(0, 4, 2), 0, K(vlan_tci), M(vlan_tci), 2);
	}
	if (dl_type == RTE_ETHER_TYPE_IPV4 || dl_type == RTE_ETHER_TYPE_IPV6) {
		put_ip(&c, r, dl_type == RTE_ETHER_TYPE_IPV4);
	} else if (dl_type == RTE_ETHER_TYPE_ARP) {
		if (r->mask.nw_proto) {
			uint8_t op[2] = { 0, r->match.nw_proto };
			put_x(&c, HDR(0, 15, 2), HDR(0x8000, 21, 2), op, 2);
		}
		put_m(&c, HDR(0, 16, 4), HDR(0x8000, 22, 4), K(nw_src), M(nw_src), 4);
		put_m(&c, HDR(0, 17, 4), HDR(0x8000, 23, 4), K(nw_dst), M(nw_dst), 4);
	}
	uint32_t tm = r->mask.tun_id;
	put_u64m(&c, HDR(1, 16, 8), version >= OFP13_VERSION ?
		 HDR(0x8000, 38, 8) : 0, r->match.tun_id,
		 tm == UINT32_MAX ? UINT64_MAX : tm);
	put_m(&c, HDR(1, 31, 4), 0, K(tun_src), M(tun_src), 4);
	put_m(&c, HDR(1, 32, 4), 0, K(tun_dst), M(tun_dst), 4);
	if (r->mask.ext_line & FLOW_EXT_TUN6) {
		put_m(&c, HDR(1, 109, 16), 0, K(tun_ipv6_src),
		      M(tun_ipv6_src), 16);
		put_m(&c, HDR(1, 110, 16), 0, K(tun_ipv6_dst),
		      M(tun_ipv6_dst), 16);
	}
	if (version < OFP15_VERSION) {
		for (int i = 0; i < OFP_N_REGS; i++)
			put_u32m(&c, HDR(1, i, 4), 0, mv->regs[i], mm->regs[i]);
	} else {
		for (int i = 0; i < OFP_N_REGS / 2; i++)
			put_u64m(&c, 0, HDR(0x8001, i, 8),
				 (uint64_t)mv->regs[2 * i] << 32 |
				 mv->regs[2 * i + 1],
				 (uint64_t)mm->regs[2 * i] << 32 |
				 mm->regs[2 * i + 1]);
	}
	put_u32m(&c, HDR(1, 105, 4), 0, mv->ct_state, mm->ct_state);
	if (mm->ct_zone) {
		uint8_t z[2];
		put16(z, mv->ct_zone);
		put_x(&c, HDR(1, 106, 2), 0, z, 2);
	}
	put_u32m(&c, HDR(1, 107, 4), 0, mv->ct_mark, mm->ct_mark);
	{
		uint8_t v[16], m[16];
		for (int i = 0; i < 2; i++) {
			be32(v + 8 * i, (uint32_t)(mv->ct_label[i] >> 32));
			be32(v + 8 * i + 4, (uint32_t)mv->ct_label[i]);
			be32(m + 8 * i, (uint32_t)(mm->ct_label[i] >> 32));
			be32(m + 8 * i + 4, (uint32_t)mm->ct_label[i]);
		}
		put_m(&c, HDR(1, 108, 16), 0, v, m, 16);
	}
	return b->len - start;
}

void
ofp_wire_put_oxm_match(struct ofp_wire_buf *b, const struct ofp_rule *r,
		       uint8_t version)
{
	size_t start = b->len;
	size_t n;

	wb_put16(b, 1);		/* OFPMT_OXM */
	wb_put16(b, 0);
	n = ofp_wire_put_tlvs(b, r, true, version);
	wb_set16(b, start + 2, (uint16_t)(4 + n));
	wb_pad8(b, start);
}

/* ---- set_field / reg_load targets -------------------------------------- */

enum wire_set_target
ofp_wire_set_target(uint32_t header, int *reg, unsigned *width)
{
	uint16_t cls = (uint16_t)(header >> 16);
	uint8_t field = (uint8_t)((header >> 9) & 0x7f);

	*reg = -1;
	if (cls == 1 && field < OFP_N_REGS) {
		*reg = field;
		*width = 4;
		return WST_REG;
	}
	*width = 0;
	if (cls == 1) {
		switch (field) {
		case 107: *width = 4; return WST_CT_MARK;
		case 108: *width = 16; return WST_CT_LABEL;
		case 16: *width = 8; return WST_TUN_ID;
		case 31: *width = 4; return WST_TUN_SRC;
		case 32: *width = 4; return WST_TUN_DST;
		case 109: *width = 16; return WST_TUN6_SRC;
		case 110: *width = 16; return WST_TUN6_DST;
		}
	} else if (cls == 0) {
		if (field == 1) { *width = 6; return WST_ETH_DST; }
		if (field == 2) { *width = 6; return WST_ETH_SRC; }
	} else if (cls == 0x8000) {
		if (field == 38) { *width = 8; return WST_TUN_ID; }
		if (field == 3) { *width = 6; return WST_ETH_DST; }
		if (field == 4) { *width = 6; return WST_ETH_SRC; }
	}
	return WST_NONE;
}

uint32_t
ofp_wire_target_header(enum wire_set_target t, int reg, bool oxm)
{
	switch (t) {
	case WST_REG: return HDR(1, reg, 4);
	case WST_CT_MARK: return HDR(1, 107, 4);
	case WST_CT_LABEL: return HDR(1, 108, 16);
	case WST_TUN_ID: return oxm ? HDR(0x8000, 38, 8) : HDR(1, 16, 8);
	case WST_TUN_SRC: return HDR(1, 31, 4);
	case WST_TUN_DST: return HDR(1, 32, 4);
	case WST_TUN6_SRC: return HDR(1, 109, 16);
	case WST_TUN6_DST: return HDR(1, 110, 16);
	case WST_ETH_SRC: return oxm ? HDR(0x8000, 4, 6) : HDR(0, 2, 6);
	case WST_ETH_DST: return oxm ? HDR(0x8000, 3, 6) : HDR(0, 1, 6);
	case WST_NONE: break;
	}
	return 0;
}
