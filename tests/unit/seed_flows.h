/* SPDX-License-Identifier: BSD-3-Clause
 * The seed's two megaflows on the NIC side, as xlate builds them, for the
 * offload tests (rule builder, offload manager):
 *   outer  in_port=NIC, ip, nw_dst=VTEP, udp, not a fragment, tp_dst
 *          -> tnl_pop (xlate_underlay)
 *   inner  in_port=vxlan, tun_id=VNI, ip, nw_dst -> output (per VM)
 */
#ifndef VXS_TEST_SEED_FLOWS_H
#define VXS_TEST_SEED_FLOWS_H

#include <netinet/in.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include "flow_key.h"

/* RTE_IPV4 shifts ints (UB past 127.x under UBSan): big-endian, unsigned */
#define SEED_IP4(a, b, c, d) rte_cpu_to_be_32(((uint32_t)(a) << 24) | \
	((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

static inline void
seed_outer_flow(struct flow_key *k, struct flow_key *m, uint32_t in_port,
		rte_be32_t vtep_ip, uint16_t tp_dst)
{
	flow_key_zero(k);
	flow_key_zero(m);
	k->in_port = in_port;
	k->dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	k->nw_dst = vtep_ip;
	k->nw_proto = IPPROTO_UDP;
	k->tp_dst = rte_cpu_to_be_16(tp_dst);
	flow_mask_set_field(m, MFF_IN_PORT);
	flow_mask_set_field(m, MFF_DL_TYPE);
	flow_mask_set_field(m, MFF_NW_DST);
	flow_mask_set_field(m, MFF_NW_PROTO);
	flow_mask_set_field(m, MFF_NW_FRAG);
	flow_mask_set_field(m, MFF_TP_DST);
}

static inline void
seed_inner_flow(struct flow_key *k, struct flow_key *m, uint32_t in_port,
		uint32_t vni, rte_be32_t dst)
{
	flow_key_zero(k);
	flow_key_zero(m);
	k->in_port = in_port;
	k->tun_id = vni;
	k->dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	k->nw_dst = dst;
	flow_mask_set_field(m, MFF_IN_PORT);
	flow_mask_set_field(m, MFF_TUN_ID);
	flow_mask_set_field(m, MFF_DL_TYPE);
	flow_mask_set_field(m, MFF_NW_DST);
}

#endif
