/* SPDX-License-Identifier: BSD-3-Clause
 * What the datapath hands the connection tracker about a packet (sg() in
 * sg_filter.c, ct() in ct_recirc.c): its flow key, already extracted, and
 * where its IPv4 header starts. */
#ifndef VXS_DP_CT_H
#define VXS_DP_CT_H

#include <string.h>
#include <netinet/in.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include "conntrack.h"
#include "dp_actions.h"
#include "flow_key.h"

/* The packet starts at its Ethernet header (decap moved an inner one
 * there), one VLAN tag at most. */
static inline void
dp_ct_meta(struct ct_pkt_meta *meta, const struct flow_key *k,
	   const struct rte_mbuf *m)
{
	uint16_t l3 = RTE_ETHER_HDR_LEN + (k->vlan_tci ? RTE_VLAN_HLEN : 0);

	ct_pkt_meta_from_flow(meta, k, m, l3);
}

/* The tracker's form of an action's nat(...) slot; NULL without one. */
static inline const struct ct_nat_spec *
dp_ct_nat_spec(const struct dp_nat *n, struct ct_nat_spec *spec)
{
	if (!n)
		return NULL;
	*spec = (struct ct_nat_spec){ .snat = n->snat, .ip_min = n->ip_min,
				      .ip_max = n->ip_max,
				      .port_min = n->port_min,
				      .port_max = n->port_max,
				      .ip6 = n->ip6 };
	return spec;
}

/* After the tracker NATed m (its ct_state has +snat or +dnat), the key a
 * later lookup matches gets the addresses and ports m now carries: the
 * tracker rewrote the packet, not its key. */
static inline void
dp_ct_refresh_key(struct flow_key *k, const struct ct_pkt_meta *mt,
		  const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    mt->l3_ofs);
	const uint8_t *l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    mt->l4_ofs);

	if (mt->is_ipv6) {	/* NAT66 */
		memcpy(&k->ipv6_src, ip + 8, sizeof k->ipv6_src);
		memcpy(&k->ipv6_dst, ip + 24, sizeof k->ipv6_dst);
	} else {
		memcpy(&k->nw_src, ip + 12, sizeof k->nw_src);
		memcpy(&k->nw_dst, ip + 16, sizeof k->nw_dst);
	}
	/* ICMP's tp_src/tp_dst are its type and code: NAT keeps them */
	if ((mt->nw_proto == IPPROTO_TCP || mt->nw_proto == IPPROTO_UDP) &&
	    !(mt->nw_frag & FLOW_NW_FRAG_LATER) &&
	    (uint32_t)mt->l4_ofs + 4 <= m->data_len) {
		memcpy(&k->tp_src, l4, sizeof k->tp_src);
		memcpy(&k->tp_dst, l4 + 2, sizeof k->tp_dst);
	}
}

#endif
