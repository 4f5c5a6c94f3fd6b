/* SPDX-License-Identifier: BSD-3-Clause
 * Batched execution of a megaflow's actions, and per-port tx buffering. */
#ifndef VXS_DP_EXECUTE_H
#define VXS_DP_EXECUTE_H

#include "pmd.h"

/* b holds the packets of one megaflow; keys/hashes are the whole burst's,
 * idx[j] is b->pkts[j]'s position in that burst. Consumes b. */
void dp_execute(struct pmd *pmd, const struct megaflow *f,
		struct pkt_batch *b, const struct flow_key keys[],
		const uint32_t hashes[], const uint8_t idx[], int depth);

/* Looks up a burst whose keys are extracted and runs its actions. */
void dp_lookup_and_execute(struct pmd *pmd, struct pkt_batch *b,
			   struct flow_key keys[], int depth);

/* Queues packets for port; sent when the buffer fills, when the oldest
 * has waited tx-flush-interval (dp_tx_flush_due), or when the PMD finds
 * nothing to do (dp_tx_flush_all). With many VMs a burst from the NIC
 * fans out to many ports one packet each; holding them across bursts is
 * what keeps a vhost enqueue carrying many packets (OVS's
 * other_config:tx-flush-interval). */
void dp_tx_enqueue(struct pmd *pmd, uint16_t port_idx,
		   struct rte_mbuf **pkts, uint16_t n);
void dp_tx_flush_due(struct pmd *pmd, uint64_t now);

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
uint16_t dp_drop_oversize(struct pmd *pmd, struct rte_mbuf **pkts,
			  uint16_t n, uint32_t max);

/* VTEP ARP responder/learner (arp_responder.c). */
void arp_respond_batch(struct pmd *pmd, struct pkt_batch *b,
		       uint16_t port_idx);
/* On the underlay port, before any parsing: takes out of b the untagged
 * ARP frames xlate would send to the responder (to our VTEP MAC or
 * broadcast) and answers them at once, keeping the rest in order. */
void arp_steer_batch(struct pmd *pmd, struct pkt_batch *b);

#endif
