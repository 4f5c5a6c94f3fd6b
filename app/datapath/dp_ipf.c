/* SPDX-License-Identifier: BSD-3-Clause
 * IPv4 and IPv6 fragments through sg() and ct(): the datapath's side of the
 * fragment store (dp_ipf.h says how a datagram goes through).
 */
#include <rte_ip.h>
#include "conntrack.h"
#include "dp_ipf.h"
#include "dp_stages.h"

/* Fragments a drain takes per housekeeping call: the store gives up at
 * most max-nfrags (5000) at once, and a PMD must not stall on them. */
#define DP_IPF_DRAIN_BUDGET 256

void
dp_ipf_take(struct dp_ctx *ctx, uint16_t zone, struct pkt_batch *b,
	    const struct flow_key keys[], uint8_t idx[],
	    struct dp_ipf_done *done)
{
	uint64_t now = rte_rdtsc();
	uint16_t kept = 0;

	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		const struct flow_key *k = &keys[idx[i]];
		struct ct_ipf_dgram *dg = NULL;
		enum ct_ipf_take took = CT_IPF_REFUSED;

		if (dp_ipf_is_for_store(ctx, k)) {
			const struct ct_ipf_frag_in in = {
				.l3_ofs = RTE_ETHER_HDR_LEN +
					  (k->vlan_tci ? RTE_VLAN_HLEN : 0),
				.zone = zone, .in_port = k->in_port,
				.recirc_id = k->recirc_id,
				.ipv6 = k->dl_type ==
					RTE_BE16(RTE_ETHER_TYPE_IPV6),
			};
			took = ct_ipf_add(ctx->ipf, m, &in, now, &dg);
		}
		if (took == CT_IPF_TAKEN)
			ctx->stats->ipf_stored++;
		else {
			idx[kept] = idx[i];
			b->pkts[kept++] = m;
		}
		if (!dg)
			continue;
		/* one finished: whole (reassembled for the tracker), or
		 * made invalid (+inv) */
		uint16_t d = done->n++;
		struct ct_pkt_meta mt;
		done->dg[d] = dg;
		done->idx[d] = idx[i];
		done->state[d] = CS_TRACKED | CS_INVALID;
		done->keys[d] = *k;
		done->reass[d] = ct_ipf_dgram_reassemble(dg);
		if (done->reass[d] &&
		    ct_pkt_meta_parse(done->reass[d], &mt) == 0) {
			done->keys[d].nw_frag = 0;
			done->keys[d].nw_proto = mt.nw_proto;
			done->keys[d].tp_src = mt.tp_src;
			done->keys[d].tp_dst = mt.tp_dst;
		} else if (done->reass[d]) {	/* cannot be: parsed before */
			rte_pktmbuf_free(done->reass[d]);
			done->reass[d] = NULL;
		}
	}
	b->n = kept;
}

uint16_t
dp_ipf_reassembled(struct dp_ipf_done *done, struct rte_mbuf *pkts[],
		   const struct flow_key *fk[], uint8_t which[])
{
	uint16_t n = 0;

	for (uint16_t d = 0; d < done->n; d++) {
		if (!done->reass[d])
			continue;
		pkts[n] = done->reass[d];
		fk[n] = &done->keys[d];
		which[n++] = (uint8_t)d;
	}
	return n;
}

void
dp_ipf_settle(struct dp_ipf_done *done, uint16_t d, uint8_t state)
{
	struct rte_mbuf *r = done->reass[d];

	if (!r)		/* invalid: +inv since dp_ipf_take */
		return;
	done->state[d] = state;
	if (state & (CS_SRC_NAT | CS_DST_NAT))
		ct_ipf_dgram_nat(done->dg[d], r);
	/* before the fragments go: its clones pin their buffers */
	rte_pktmbuf_free(r);
	done->reass[d] = NULL;
}

uint16_t
dp_ipf_next(struct dp_ctx *ctx, struct dp_ipf_done *done, uint16_t d,
	    struct pkt_batch *b, uint8_t idx[])
{
	b->n = ct_ipf_dgram_take(ctx->ipf, done->dg[d], b->pkts, BATCH_MAX);
	ctx->stats->ipf_released += b->n;
	for (uint16_t i = 0; i < b->n; i++)
		idx[i] = done->idx[d];
	return b->n;
}

void
dp_ipf_drop(struct dp_ctx *ctx, struct dp_ipf_done *done, uint16_t d,
	    enum drop_reason why)
{
	struct pkt_batch b;
	uint8_t idx[BATCH_MAX];

	while (dp_ipf_next(ctx, done, d, &b, idx))
		dp_drop_batch(ctx, &b, why);
}

void
dp_ipf_done_end(struct dp_ctx *ctx, struct dp_ipf_done *done)
{
	for (uint16_t d = 0; d < done->n; d++) {
		if (done->reass[d]) {	/* never settled: cannot be */
			rte_pktmbuf_free(done->reass[d]);
			done->reass[d] = NULL;
		}
		dp_ipf_drop(ctx, done, d, DROP_RULE_DROP);
		ct_ipf_dgram_free(ctx->ipf, done->dg[d]);
	}
	done->n = 0;
}

void
dp_ipf_frag_key(struct flow_key *k, const struct flow_key *whole,
		const struct rte_mbuf *m)
{
	uint16_t l3 = RTE_ETHER_HDR_LEN + (whole->vlan_tci ? RTE_VLAN_HLEN
							      : 0);
	struct ct_pkt_meta mt;

	*k = *whole;
	k->nw_frag = FLOW_NW_FRAG_ANY;
	if (whole->dl_type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		/* the walk the flow extract makes: a later fragment's
		 * nw_proto is the Fragment header's */
		if (ct_pkt_meta_l4_ipv6(&mt, m, l3) == 0) {
			k->nw_frag = mt.nw_frag;
			k->nw_proto = mt.nw_proto;
		}
	} else {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
					const struct rte_ipv4_hdr *, l3);
		if (ip->fragment_offset &
		    rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK))
			k->nw_frag |= FLOW_NW_FRAG_LATER;
	}
	if (k->nw_frag & FLOW_NW_FRAG_LATER)
		k->tp_src = k->tp_dst = 0;
}

void
dp_ipf_drain(struct dp_ctx *ctx)
{
	struct pkt_batch b;
	uint16_t budget = DP_IPF_DRAIN_BUDGET;
	bool purged;

	if (!ctx->ipf || !ct_ipf_n_draining(ctx->ipf))
		return;
	while (budget &&
	       (b.n = ct_ipf_drain(ctx->ipf, b.pkts,
				   RTE_MIN(budget, BATCH_MAX), &purged))) {
		budget -= b.n;
		ctx->stats->ipf_released += b.n;
		dp_drop_batch(ctx, &b, purged ? DROP_IPF_PURGED
					      : DROP_IPF_EXPIRED);
	}
}
