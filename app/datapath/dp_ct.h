/* SPDX-License-Identifier: BSD-3-Clause
 * What the datapath hands the connection tracker about a packet (sg() in
 * sg_filter.c, ct() in ct_recirc.c): its flow key, already extracted, and
 * where its IPv4 header starts. */
#ifndef VXS_DP_CT_H
#define VXS_DP_CT_H

#include <rte_ether.h>
#include <rte_mbuf.h>
#include "conntrack.h"
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

#endif
