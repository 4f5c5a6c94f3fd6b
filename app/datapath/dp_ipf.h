/* SPDX-License-Identifier: BSD-3-Clause
 * IPv4 and IPv6 fragments on their way through sg() and ct() (the store
 * and its semantics: app/conntrack/ct_ipf.h).
 *
 * Before the tracker, the action gives its batch's fragments (a key's
 * nw_frag, dl_type IPv4 or IPv6, reassembly on for that family) to the
 * store (dp_ipf_take): a fragment held leaves the batch; one refused
 * stays, and the tracker finds it +inv. A fragment that finishes a
 * datagram brings it back whole, into a struct dp_ipf_done, with its
 * reassembled packet and that packet's key (the finishing fragment's
 * key, made whole: no nw_frag, the protocol and ports of the first
 * fragment). The action has the tracker judge the reassembled packets
 * like the rest of its batch (same zone, commit, NAT), then settles each
 * datagram (dp_ipf_settle: the state for every fragment, the NAT
 * rewritten into them) and lets its fragments go on, BATCH_MAX at a time
 * (dp_ipf_next): through the actions after it (dp_execute.c), or into
 * the next recirculation pass (ct(table=), ct_recirc.c), or dropped as
 * the verdict says (dp_ipf_drop). A datagram made invalid goes on
 * +trk+inv.
 * The finishing fragment's position in the pass stands for every
 * fragment of its datagram (their hash, their key for later actions):
 * they were received in other bursts whose keys are gone.
 *
 * Accounting (dp_stats.h): a fragment the store takes counts in
 * stats.ipf_stored, one that comes back out (to go on or to be dropped,
 * by whichever PMD finished or drained its datagram) in
 * stats.ipf_released; what the store holds is the difference, summed
 * over the PMDs. The store's expired and purged datagrams are dropped by
 * the PMDs' housekeeping (dp_ipf_drain, datapath.h), under ipf_expired
 * and ipf_purged.
 */
#ifndef VXS_DP_IPF_H
#define VXS_DP_IPF_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include "ct_ipf.h"
#include "datapath.h"
#include "flow_key.h"

/* The datagrams one action's batch finished. */
struct dp_ipf_done {
	uint16_t n;
	struct ct_ipf_dgram *dg[BATCH_MAX];
	struct rte_mbuf *reass[BATCH_MAX];	/* NULL: invalid, or settled */
	uint8_t idx[BATCH_MAX];	/* the finishing fragment's position */
	uint8_t state[BATCH_MAX];	/* for every fragment (settled) */
	struct flow_key keys[BATCH_MAX];	/* of the reassembled packet */
};

/* Is the packet of key k a fragment for the store: IPv4 or IPv6, its
 * family's reassembly on (ctx->ipf set)? */
static inline bool
dp_ipf_is_for_store(const struct dp_ctx *ctx, const struct flow_key *k)
{
	if (likely(!(k->nw_frag & FLOW_NW_FRAG_ANY)))
		return false;
	if (k->dl_type == RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return ct_ipf_v4_enabled(ctx->ipf);
	return k->dl_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
	       ct_ipf_v6_enabled(ctx->ipf);
}

/* Does b hold a fragment for the store? keys[idx[i]] is b->pkts[i]'s
 * key. The check every sg()/ct() batch pays: a look at nw_frag of keys
 * the tracker reads next anyway. */
static inline bool
dp_ipf_wanted(const struct dp_ctx *ctx, const struct pkt_batch *b,
	      const struct flow_key keys[], const uint8_t idx[])
{
	if (!ctx->ipf || !idx)
		return false;
	for (uint16_t i = 0; i < b->n; i++)
		if (unlikely(dp_ipf_is_for_store(ctx, &keys[idx[i]])))
			return true;
	return false;
}

/* Gives b's fragments to the store for zone (recirc id and in_port
 * from their keys): b keeps the other packets and the refused fragments,
 * in order, idx[] in step; what they finished is appended to done
 * (done->n = 0 first). */
void dp_ipf_take(struct dp_ctx *ctx, uint16_t zone, struct pkt_batch *b,
		 const struct flow_key keys[], uint8_t idx[],
		 struct dp_ipf_done *done);

/* The reassembled packets of done, for one tracker call: pkts[j] with key
 * fk[j] is datagram which[j]'s. Returns how many. */
uint16_t dp_ipf_reassembled(struct dp_ipf_done *done, struct rte_mbuf *pkts[],
			    const struct flow_key *fk[], uint8_t which[]);

/* Datagram d as the tracker judged its reassembled packet: state for
 * each fragment, the packet's NAT (if state has +snat/+dnat: IPv4) into
 * them;
 * the reassembled packet is freed. An invalid datagram (no reassembled
 * packet) stays +trk+inv, as dp_ipf_take left it. */
void dp_ipf_settle(struct dp_ipf_done *done, uint16_t d, uint8_t state);

/* The next fragments of datagram d (BATCH_MAX at most) into b, each at
 * the finishing fragment's position (idx[]); counted released. Returns
 * b->n, 0 when none is left. */
uint16_t dp_ipf_next(struct dp_ctx *ctx, struct dp_ipf_done *done,
		     uint16_t d, struct pkt_batch *b, uint8_t idx[]);

/* The rest of datagram d's fragments dropped under why. */
void dp_ipf_drop(struct dp_ctx *ctx, struct dp_ipf_done *done, uint16_t d,
		 enum drop_reason why);

/* The records back to the store, once every fragment left (a fragment
 * still there is dropped: rule_drop). done->n is 0 after. */
void dp_ipf_done_end(struct dp_ctx *ctx, struct dp_ipf_done *done);

/* The key of fragment m of a datagram whose reassembled packet has key
 * whole: whole's fields, m's nw_frag, and no ports past the first
 * fragment (IPv6: nw_proto 44 past it), as the miniflow parser keys a
 * fragment. */
void dp_ipf_frag_key(struct flow_key *k, const struct flow_key *whole,
		     const struct rte_mbuf *m);

#endif
