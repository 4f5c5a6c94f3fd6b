/* SPDX-License-Identifier: BSD-3-Clause
 * The software Flow Director's unit tests (test_fdir_model*.c): rules in
 * the builder's forms by hand, and crafted packets (plain UDP, VXLAN with
 * inner UDP or another protocol, VLAN tags, fragments, IPv4 options).
 */
#ifndef VXS_FDIR_MODEL_TEST_H
#define VXS_FDIR_MODEL_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include "fdir_model.h"

static struct rte_mempool *pool;

#define IP(a, b, c, d) \
	rte_cpu_to_be_32(((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | \
			 ((uint32_t)(c) << 8) | (uint32_t)(d))
#define VTEP IP(172, 1, 0, 100)

/* attr.group of the rules below: the default profile, ice-22.11, wants 0
 * (test_fdir_model_ice.c sets each release's) */
static uint32_t rule_group;

static inline void
set_item(struct rte_flow_item *it, enum rte_flow_item_type t, const void *s,
	 const void *m)
{
	it->type = t;
	it->spec = s;
	it->last = NULL;
	it->mask = m;
}

/* The builder's forms, by hand. */
static inline void
rule_udp(struct offload_rule *r, rte_be32_t dst, uint16_t dport, uint32_t mark)
{
	memset(r, 0, sizeof *r);
	r->type = OFFLOAD_FT_IPV4_UDP;
	r->attr.ingress = 1;
	r->attr.group = rule_group;
	set_item(&r->items[0], RTE_FLOW_ITEM_TYPE_ETH, NULL, NULL);
	r->ipv4_spec.hdr.dst_addr = dst;
	r->ipv4_mask.hdr.dst_addr = UINT32_MAX;
	set_item(&r->items[1], RTE_FLOW_ITEM_TYPE_IPV4, &r->ipv4_spec,
		 &r->ipv4_mask);
	r->udp_spec.hdr.dst_port = rte_cpu_to_be_16(dport);
	r->udp_mask.hdr.dst_port = UINT16_MAX;
	set_item(&r->items[2], RTE_FLOW_ITEM_TYPE_UDP, &r->udp_spec,
		 &r->udp_mask);
	set_item(&r->items[3], RTE_FLOW_ITEM_TYPE_END, NULL, NULL);
	r->mark.id = mark;
	r->actions[0].type = RTE_FLOW_ACTION_TYPE_MARK;
	r->actions[0].conf = &r->mark;
	r->actions[1].type = RTE_FLOW_ACTION_TYPE_END;
}

static inline void
rule_vxlan(struct offload_rule *r, uint32_t vni, rte_be32_t idst, uint32_t mark)
{
	memset(r, 0, sizeof *r);
	r->type = OFFLOAD_FT_VXLAN_IPV4;
	r->attr.ingress = 1;
	r->attr.group = rule_group;
	set_item(&r->items[0], RTE_FLOW_ITEM_TYPE_ETH, NULL, NULL);
	r->ipv4_spec.hdr.dst_addr = VTEP;
	r->ipv4_mask.hdr.dst_addr = UINT32_MAX;
	set_item(&r->items[1], RTE_FLOW_ITEM_TYPE_IPV4, &r->ipv4_spec,
		 &r->ipv4_mask);
	set_item(&r->items[2], RTE_FLOW_ITEM_TYPE_UDP, NULL, NULL);
	r->vxlan_spec.hdr.vx_vni = rte_cpu_to_be_32(vni << 8);
	r->vxlan_mask.hdr.vx_vni = RTE_BE32(0xffffff00);
	set_item(&r->items[3], RTE_FLOW_ITEM_TYPE_VXLAN, &r->vxlan_spec,
		 &r->vxlan_mask);
	set_item(&r->items[4], RTE_FLOW_ITEM_TYPE_ETH, NULL, NULL);
	r->iipv4_spec.hdr.dst_addr = idst;
	r->iipv4_mask.hdr.dst_addr = UINT32_MAX;
	set_item(&r->items[5], RTE_FLOW_ITEM_TYPE_IPV4, &r->iipv4_spec,
		 &r->iipv4_mask);
	set_item(&r->items[6], RTE_FLOW_ITEM_TYPE_END, NULL, NULL);
	r->mark.id = mark;
	r->actions[0].type = RTE_FLOW_ACTION_TYPE_MARK;
	r->actions[0].conf = &r->mark;
	r->actions[1].type = RTE_FLOW_ACTION_TYPE_END;
}

static inline void
add_rss(struct offload_rule *r, uint16_t first, uint16_t n)
{
	for (uint16_t i = 0; i < n && i < OFFLOAD_MAX_RSS_QUEUES; i++)
		r->rss_queues[i] = first + i;
	r->rss.queue_num = n;
	r->rss.queue = r->rss_queues;
	r->actions[1].type = RTE_FLOW_ACTION_TYPE_RSS;
	r->actions[1].conf = &r->rss;
	r->actions[2].type = RTE_FLOW_ACTION_TYPE_END;
}

/* ---- packets ---- */

struct pkt_spec {
	rte_be32_t o_src, o_dst;
	uint16_t sport, dport;
	bool vxlan;
	uint32_t vni;
	rte_be32_t i_src, i_dst;
	bool frag, vlan;	/* vlan: one 802.1Q tag */
	uint8_t ihl;		/* 0: 5 */
	uint8_t qinq;		/* tags before the 802.1Q one (802.1ad) */
	uint8_t i_proto;	/* inner IPv4 protocol, 0: UDP */
	uint16_t i_dport;	/* inner UDP dst port */
};

static inline uint32_t
put_ipv4(uint8_t *p, rte_be32_t src, rte_be32_t dst, uint8_t proto,
	 uint16_t payload, bool frag, uint8_t ihl)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;
	uint32_t hl = (ihl ? ihl : 5) * 4;

	memset(p, 0, hl);
	ip->version_ihl = 0x40 | (hl / 4);
	ip->total_length = rte_cpu_to_be_16(hl + payload);
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->src_addr = src;
	ip->dst_addr = dst;
	if (frag)
		ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_MF_FLAG);
	return hl;
}

/* n_ad 802.1ad tags, then one 802.1Q tag if vlan */
static inline uint32_t
put_eth(uint8_t *p, bool vlan, unsigned n_ad)
{
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)p;
	uint32_t type_off = offsetof(struct rte_ether_hdr, ether_type);
	uint32_t off = sizeof *e;

	memset(e, 0, sizeof *e);
	e->dst_addr.addr_bytes[0] = 0x02;
	e->src_addr.addr_bytes[0] = 0x04;
	for (unsigned i = 0; i < n_ad + vlan; i++) {
		struct rte_vlan_hdr *v = (struct rte_vlan_hdr *)(p + off);

		rte_be16_t t = RTE_BE16(i < n_ad ? RTE_ETHER_TYPE_QINQ :
					RTE_ETHER_TYPE_VLAN);

		memcpy(p + type_off, &t, sizeof t);
		v->vlan_tci = rte_cpu_to_be_16(100 + i);
		type_off = off + offsetof(struct rte_vlan_hdr, eth_proto);
		off += sizeof *v;
	}
	rte_be16_t ipv4 = RTE_BE16(RTE_ETHER_TYPE_IPV4);

	memcpy(p + type_off, &ipv4, sizeof ipv4);
	return off;
}

static inline struct rte_mbuf *
mkpkt(const struct pkt_spec *s)
{
	uint8_t b[256];
	uint32_t off = 0, inner = s->vxlan ? 8 + 14 + 20 + 18 : 18;

	off += put_eth(b + off, s->vlan, s->qinq);
	off += put_ipv4(b + off, s->o_src, s->o_dst, IPPROTO_UDP, 8 + inner,
			s->frag, s->ihl);
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(b + off);

	u->src_port = rte_cpu_to_be_16(s->sport);
	u->dst_port = rte_cpu_to_be_16(s->dport);
	u->dgram_len = rte_cpu_to_be_16(8 + inner);
	u->dgram_cksum = 0;
	off += 8;
	if (s->vxlan) {
		struct rte_vxlan_hdr *v = (struct rte_vxlan_hdr *)(b + off);

		v->vx_flags = RTE_BE32(0x08000000);
		v->vx_vni = rte_cpu_to_be_32(s->vni << 8);
		off += 8;
		off += put_eth(b + off, false, 0);
		off += put_ipv4(b + off, s->i_src, s->i_dst,
				s->i_proto ? s->i_proto : IPPROTO_UDP, 18,
				false, 0);
	}
	memset(b + off, 0xab, 18);
	if (s->vxlan && !s->i_proto) {	/* the inner UDP header */
		struct rte_udp_hdr *iu = (struct rte_udp_hdr *)(b + off);

		iu->src_port = RTE_BE16(7000);
		iu->dst_port = rte_cpu_to_be_16(s->i_dport);
		iu->dgram_len = RTE_BE16(18);
		iu->dgram_cksum = 0;
	}
	off += 18;

	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (!m)
		return NULL;
	memcpy(rte_pktmbuf_append(m, off), b, off);
	return m;
}

static inline bool
is_marked(const struct rte_mbuf *m, uint32_t mark)
{
	return (m->ol_flags & (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID)) ==
	       (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID) &&
	       m->hash.fdir.hi == mark;
}

static inline bool
untouched(const struct rte_mbuf *m)
{
	return !(m->ol_flags & (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID)) &&
	       m->hash.fdir.hi == 0;
}

#endif
