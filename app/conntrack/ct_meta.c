/* SPDX-License-Identifier: BSD-3-Clause
 * struct ct_pkt_meta from what the datapath extracted already (its
 * flow_key and the IPv4 header's offset), or parsed here for callers
 * without one (tests, the benchmark).
 */
#include <errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include "flow_key.h"
#include "conntrack.h"

/* The L4 offset and length from the IPv4 header at l3_ofs. */
static int
meta_l4(struct ct_pkt_meta *mt, const struct rte_mbuf *m, uint16_t l3_ofs)
{
	if ((uint32_t)l3_ofs + sizeof(struct rte_ipv4_hdr) > m->data_len)
		return -EINVAL;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv4_hdr *, l3_ofs);
	uint32_t ihl = (ip->version_ihl & 0x0f) * 4u;
	uint32_t tot = rte_be_to_cpu_16(ip->total_length);
	if ((ip->version_ihl >> 4) != 4 || ihl < sizeof *ip || tot < ihl)
		return -EINVAL;
	mt->l3_ofs = l3_ofs;
	mt->l4_ofs = (uint16_t)(l3_ofs + ihl);
	mt->l4_len = (uint16_t)(tot - ihl);
	mt->is_ipv4 = 1;
	return 0;
}

int
ct_pkt_meta_from_flow(struct ct_pkt_meta *mt, const struct flow_key *key,
		      const struct rte_mbuf *m, uint16_t l3_ofs)
{
	memset(mt, 0, sizeof *mt);
	if (key->dl_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return -EINVAL;
	mt->nw_src = key->nw_src;
	mt->nw_dst = key->nw_dst;
	mt->tp_src = key->tp_src;
	mt->tp_dst = key->tp_dst;
	mt->nw_proto = key->nw_proto;
	mt->nw_frag = key->nw_frag;
	return meta_l4(mt, m, l3_ofs);
}

int
ct_pkt_meta_parse(const struct rte_mbuf *m, struct ct_pkt_meta *mt)
{
	uint16_t ofs = sizeof(struct rte_ether_hdr);

	memset(mt, 0, sizeof *mt);
	if (m->data_len < ofs)
		return -EINVAL;
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m,
					const struct rte_ether_hdr *);
	rte_be16_t type = eth->ether_type;
	if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN)) {
		if (m->data_len < ofs + sizeof(struct rte_vlan_hdr))
			return -EINVAL;
		const struct rte_vlan_hdr *v = rte_pktmbuf_mtod_offset(m,
					const struct rte_vlan_hdr *, ofs);
		type = v->eth_proto;
		ofs += sizeof *v;
	}
	if (type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    meta_l4(mt, m, ofs) < 0)
		return -EINVAL;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv4_hdr *, ofs);
	mt->nw_src = ip->src_addr;
	mt->nw_dst = ip->dst_addr;
	mt->nw_proto = ip->next_proto_id;
	uint16_t fo = rte_be_to_cpu_16(ip->fragment_offset);
	if (fo & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
		mt->nw_frag = FLOW_NW_FRAG_ANY |
			((fo & RTE_IPV4_HDR_OFFSET_MASK) ? FLOW_NW_FRAG_LATER : 0);
	if (mt->nw_frag & FLOW_NW_FRAG_LATER)
		return 0;
	const uint8_t *l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    mt->l4_ofs);
	uint32_t avail = m->data_len > mt->l4_ofs ? m->data_len - mt->l4_ofs
						  : 0;
	if ((mt->nw_proto == IPPROTO_TCP || mt->nw_proto == IPPROTO_UDP) &&
	    avail >= 4) {
		memcpy(&mt->tp_src, l4, 2);
		memcpy(&mt->tp_dst, l4 + 2, 2);
	} else if (mt->nw_proto == IPPROTO_ICMP && avail >= 2) {
		mt->tp_src = rte_cpu_to_be_16(l4[0]);
		mt->tp_dst = rte_cpu_to_be_16(l4[1]);
	}
	return 0;
}
