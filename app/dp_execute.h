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

/* VTEP ARP responder/learner (arp_responder.c). */
void arp_respond_batch(struct pmd *pmd, struct pkt_batch *b,
		       uint16_t port_idx);

#endif
