/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow 1.0's fixed 40-byte ofp_match <-> struct ofp_rule, as OVS's
 * ofputil_match_from_ofp10_match and ofputil_normalize_match (a field
 * whose dl_type/nw_proto prerequisite the match does not give is dropped,
 * as OVS drops it) and ofputil_match_to_ofp10_match.
 */
#include <netinet/in.h>
#include <string.h>

#include "ofp_wire_priv.h"

#define FW_IN_PORT (1u << 0)
#define FW_DL_VLAN (1u << 1)
#define FW_DL_SRC (1u << 2)
#define FW_DL_DST (1u << 3)
#define FW_DL_TYPE (1u << 4)
#define FW_NW_PROTO (1u << 5)
#define FW_TP_SRC (1u << 6)
#define FW_TP_DST (1u << 7)
#define FW_NW_SRC_SHIFT 8
#define FW_NW_DST_SHIFT 14
#define FW_DL_VLAN_PCP (1u << 20)
#define FW_NW_TOS (1u << 21)
#define FW_ALL ((1u << 22) - 1)

static rte_be32_t
prefix_mask(unsigned wild_bits)
{
	if (wild_bits >= 32)
		return 0;
	return rte_cpu_to_be_32(UINT32_MAX << wild_bits);
}

/* What ovs-ofctl never sends but OVS drops: fields without their
 * prerequisites. */
static void
normalize(struct ofp_rule *r)
{
	uint16_t t = r->mask.dl_type ? rte_be_to_cpu_16(r->match.dl_type) : 0;
	bool ip = t == RTE_ETHER_TYPE_IPV4, arp = t == RTE_ETHER_TYPE_ARP;
	uint8_t p = r->mask.nw_proto ? r->match.nw_proto : 0;

	if (!ip && !arp) {
		r->match.nw_src = r->mask.nw_src = 0;
		r->match.nw_dst = r->mask.nw_dst = 0;
		r->match.nw_proto = r->mask.nw_proto = 0;
	}
	if (!ip)
		r->match.nw_tos = r->mask.nw_tos = 0;
	if (!ip || (p != IPPROTO_TCP && p != IPPROTO_UDP && p != IPPROTO_ICMP)) {
		r->match.tp_src = r->mask.tp_src = 0;
		r->match.tp_dst = r->mask.tp_dst = 0;
	}
}

enum ofp_wire_error
ofp_wire_decode_of10_match(const uint8_t *p, struct ofp_rule *r)
{
	uint32_t w = be_get32(p) & FW_ALL;
	struct flow_key *k = &r->match, *m = &r->mask;

	if (!(w & FW_IN_PORT)) {
		uint16_t port = be_get16(p + 4);
		if (!port || port > FLOW_IN_PORT_MAX)
			return OFPW_BMC_BAD_VALUE;
		k->in_port = port;
		m->in_port = 0xffff;
	}
	if (!(w & FW_DL_SRC)) {
		memcpy(&k->dl_src, p + 6, 6);
		memset(&m->dl_src, 0xff, 6);
	}
	if (!(w & FW_DL_DST)) {
		memcpy(&k->dl_dst, p + 12, 6);
		memset(&m->dl_dst, 0xff, 6);
	}
	if (!(w & FW_DL_VLAN) && be_get16(p + 18) == OFPP10_NONE) {
		k->vlan_tci = 0;	/* no 802.1Q header */
		m->vlan_tci = 0xffff;
	} else {
		uint16_t tm = 0, tci;
		if (!(w & FW_DL_VLAN))
			tm |= 0x1fff;
		if (!(w & FW_DL_VLAN_PCP))
			tm |= 0xe000 | FLOW_VLAN_CFI;
		tci = (uint16_t)((be_get16(p + 18) & 0xfff) |
				 ((p[20] << 13) & 0xe000) | FLOW_VLAN_CFI);
		k->vlan_tci = rte_cpu_to_be_16(tci & tm);
		m->vlan_tci = rte_cpu_to_be_16(tm);
	}
	if (!(w & FW_DL_TYPE)) {
		memcpy(&k->dl_type, p + 22, 2);
		m->dl_type = 0xffff;
	}
	if (!(w & FW_NW_TOS)) {
		k->nw_tos = p[24] & 0xfc;
		m->nw_tos = 0xfc;
	}
	if (!(w & FW_NW_PROTO)) {
		k->nw_proto = p[25];
		m->nw_proto = 0xff;
	}
	m->nw_src = prefix_mask((w >> FW_NW_SRC_SHIFT) & 0x3f);
	m->nw_dst = prefix_mask((w >> FW_NW_DST_SHIFT) & 0x3f);
	memcpy(&k->nw_src, p + 28, 4);
	memcpy(&k->nw_dst, p + 32, 4);
	k->nw_src &= m->nw_src;
	k->nw_dst &= m->nw_dst;
	if (!(w & FW_TP_SRC)) {
		memcpy(&k->tp_src, p + 36, 2);
		m->tp_src = 0xffff;
	}
	if (!(w & FW_TP_DST)) {
		memcpy(&k->tp_dst, p + 38, 2);
		m->tp_dst = 0xffff;
	}
	normalize(r);
	return 0;
}

static unsigned
wild_bits(rte_be32_t mask)
{
	uint32_t m = rte_be_to_cpu_32(mask);
	unsigned n = 0;

	while (n < 32 && !(m & (1u << n)))
		n++;
	return n;
}

void
ofp_wire_put_of10_match(struct ofp_wire_buf *b, const struct ofp_rule *r)
{
	const struct flow_key *k = &r->match, *m = &r->mask;
	uint8_t *p = wb_put(b, 40);
	uint32_t w = 0;
	uint16_t tm = rte_be_to_cpu_16(m->vlan_tci);
	uint16_t tci = rte_be_to_cpu_16(k->vlan_tci);

	if (!p)
		return;
	if (!m->in_port)
		w |= FW_IN_PORT;
	put16(p + 4, k->in_port);
	if (!m->vlan_tci) {
		w |= FW_DL_VLAN | FW_DL_VLAN_PCP;
	} else if (tm & FLOW_VLAN_CFI && !(tci & FLOW_VLAN_CFI)) {
		put16(p + 18, OFPP10_NONE);
		w |= FW_DL_VLAN_PCP;
	} else {
		if (!(tm & 0x0fff))
			w |= FW_DL_VLAN;
		if (!(tm & 0xe000))
			w |= FW_DL_VLAN_PCP;
		put16(p + 18, tci & 0x0fff);
		p[20] = (uint8_t)(tci >> 13);
	}
	if (rte_is_zero_ether_addr(&m->dl_src))
		w |= FW_DL_SRC;
	if (rte_is_zero_ether_addr(&m->dl_dst))
		w |= FW_DL_DST;
	memcpy(p + 6, &k->dl_src, 6);
	memcpy(p + 12, &k->dl_dst, 6);
	if (!m->dl_type)
		w |= FW_DL_TYPE;
	memcpy(p + 22, &k->dl_type, 2);
	if (!m->nw_tos)
		w |= FW_NW_TOS;
	p[24] = k->nw_tos;
	if (!m->nw_proto)
		w |= FW_NW_PROTO;
	p[25] = k->nw_proto;
	w |= wild_bits(m->nw_src) << FW_NW_SRC_SHIFT;
	w |= wild_bits(m->nw_dst) << FW_NW_DST_SHIFT;
	memcpy(p + 28, &k->nw_src, 4);
	memcpy(p + 32, &k->nw_dst, 4);
	if (!m->tp_src)
		w |= FW_TP_SRC;
	if (!m->tp_dst)
		w |= FW_TP_DST;
	memcpy(p + 36, &k->tp_src, 2);
	memcpy(p + 38, &k->tp_dst, 2);
	put32(p, w);
}
