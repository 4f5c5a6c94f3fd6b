/* SPDX-License-Identifier: BSD-3-Clause
 * A frame against a port's longest frame (port.h: rx_max_frame,
 * tx_max_frame), for the rx and tx stages (dp_mtu.c).
 */
#ifndef VXS_DP_MTU_H
#define VXS_DP_MTU_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

struct dp_ctx;

/* A frame fits a port whose longest frame is max (port.h): one with a
 * VLAN tag may be 4 bytes longer, as Linux allows. */
static inline bool
dp_frame_fits(const struct rte_mbuf *m, uint32_t max)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);

	if (likely(len <= max))
		return true;
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	return len <= max + RTE_VLAN_HLEN && rte_pktmbuf_data_len(m) >= 14 &&
	       (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
		eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_QINQ));
}

/* Drops (mtu_exceeded) the frames of pkts[0..n) that do not fit max,
 * keeping the others in order; returns how many are kept. */
uint16_t dp_drop_oversize(struct dp_ctx *ctx, struct rte_mbuf **pkts,
			  uint16_t n, uint32_t max);

#endif
