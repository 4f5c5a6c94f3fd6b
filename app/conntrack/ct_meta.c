/* SPDX-License-Identifier: BSD-3-Clause
 * struct ct_pkt_meta parsed from the packet, for callers without a
 * flow_key (tests, the benchmark); the datapath's ct_pkt_meta_from_flow()
 * is inline in conntrack.h.
 */
#include <errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include "flow_key.h"
#include "conntrack.h"

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
	if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6)) {
		if (ct_pkt_meta_l4_ipv6(mt, m, ofs) < 0)
			return -EINVAL;
		goto ports;
	}
	if (type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ct_pkt_meta_l4(mt, m, ofs) < 0)
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
ports:
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
	} else if ((mt->nw_proto == IPPROTO_ICMP ||
		    mt->nw_proto == IPPROTO_ICMPV6) && avail >= 2) {
		mt->tp_src = rte_cpu_to_be_16(l4[0]);
		mt->tp_dst = rte_cpu_to_be_16(l4[1]);
	}
	return 0;
}
