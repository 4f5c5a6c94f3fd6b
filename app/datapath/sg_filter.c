/* SPDX-License-Identifier: BSD-3-Clause
 * The sg() action (seed 003): a security group decided in the same pass,
 * by the session table, instead of ct() and a recirculation to match on
 * ct_state. One megaflow serves every connection of its rule: the
 * tracker looks each packet up by its own key.
 *
 *   a packet of a session (either direction, +est or +rel)  passes
 *   a new one under sg(allow)          is committed and passes
 *   a new one under sg(deny)           is dropped (sg_deny)
 *   what the tracker finds invalid (+inv: out of window, a SYN-ACK
 *   opening nothing, not IPv4...)      is dropped (sg_invalid), as
 *                                      Neutron's firewall drops +inv
 */
#include <rte_cycles.h>
#include "conntrack.h"
#include "dp_stages.h"

void
dp_sg_filter(struct dp_ctx *ctx, const struct dp_action *a,
	     struct pkt_batch *b, const struct flow_key keys[],
	     const uint8_t idx[])
{
	bool allow = a->slot & DP_SG_ALLOW;
	struct ct_pkt_meta meta[BATCH_MAX];
	uint8_t state[BATCH_MAX];
	uint16_t kept = 0, denied = 0, invalid = 0;

	if (unlikely(!ctx->ct)) {
		dp_drop_batch(ctx, b, DROP_SG_INVALID);
		return;
	}
	for (uint16_t i = 0; i < b->n; i++) {
		const struct flow_key *k = &keys[idx ? idx[i] : i];
		/* the packet starts at its Ethernet header (decap moved an
		 * inner one there), one VLAN tag at most */
		uint16_t l3 = RTE_ETHER_HDR_LEN +
			      (k->vlan_tci ? RTE_VLAN_HLEN : 0);
		ct_pkt_meta_from_flow(&meta[i], k, b->pkts[i], l3);
	}
	/* sg(allow) commits what it lets in; sg(deny) never creates one */
	conntrack_execute(ctx->ct, b->pkts, meta, b->n, a->port, allow, NULL,
			  rte_rdtsc(), state, NULL);
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		if (state[i] & CS_INVALID) {
			invalid++;
			rte_pktmbuf_free(m);
		} else if ((state[i] & (CS_ESTABLISHED | CS_RELATED)) ||
			   allow) {
			b->pkts[kept++] = m;
		} else {
			denied++;
			rte_pktmbuf_free(m);
		}
	}
	/* idx[] follows the packets kept: the actions after this one use
	 * it for their hashes (encap's source port) */
	if (idx && kept != b->n) {
		uint8_t *ix = (uint8_t *)idx;
		uint16_t k = 0;
		for (uint16_t i = 0; i < b->n; i++)
			if (!(state[i] & CS_INVALID) &&
			    ((state[i] & (CS_ESTABLISHED | CS_RELATED)) ||
			     allow))
				ix[k++] = ix[i];
	}
	b->n = kept;
	dp_count_drops(ctx, DROP_SG_DENY, denied);
	dp_count_drops(ctx, DROP_SG_INVALID, invalid);
}
