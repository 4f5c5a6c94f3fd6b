/* SPDX-License-Identifier: BSD-3-Clause
 * Actions run a whole batch at a time: one encap template, one decap
 * pass, one tx buffer append per megaflow and action. The tunnel actions
 * are their stages' (vxlan_encap.c, vxlan_decap.c), the sends dp_tx.c's.
 */
#include <rte_ether.h>
#include <rte_mbuf.h>
#include "dp_ipf.h"
#include "dp_stages.h"
#include "vxlan_tnl.h"

/* Copies of the batch for an output that is not the last action: later
 * actions (encap, header rewrites) must not change what it gets. idx[]
 * maps the batch to the burst's keys, cidx[] the copies. Per-copy
 * accounting (dp_stats.h): a copy that could not be made is counted as made
 * and dropped. */
static void
dp_copy_batch(struct dp_ctx *ctx, const struct pkt_batch *b,
	      const uint8_t idx[], struct pkt_batch *copies, uint8_t cidx[])
{
	copies->n = 0;
	ctx->stats->copies += b->n;
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *c = rte_pktmbuf_copy(b->pkts[i], ctx->mbuf_pool,
						      0, UINT32_MAX);
		if (c) {
			if (cidx)
				cidx[copies->n] = idx[i];
			copies->pkts[copies->n++] = c;
		} else {
			if (unlikely(ctx->trace))
				dp_trace_drop(ctx, &b->pkts[i], 1, DROP_NO_MBUF,
					      true);
			dp_count_drops(ctx, DROP_NO_MBUF, 1);
		}
	}
}

static void
output_copy(struct dp_ctx *ctx, uint16_t port_idx, const struct pkt_batch *b)
{
	struct pkt_batch copies;

	dp_copy_batch(ctx, b, NULL, &copies, NULL);
	dp_tx_enqueue(ctx, port_idx, copies.pkts, copies.n);
}

static void
set_eth_addr(struct pkt_batch *b, const struct rte_ether_addr *a, bool src)
{
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_ether_hdr *eh =
			rte_pktmbuf_mtod(b->pkts[i], struct rte_ether_hdr *);
		if (src)
			eh->src_addr = *a;
		else
			eh->dst_addr = *a;
	}
}

/* A tunnel output that is not the last output: its own encapsulated
 * copies. */
static void
tnl_clone(struct dp_ctx *ctx, const struct vxlan_tnl_template *t,
	  uint16_t port_idx, const struct pkt_batch *b,
	  const struct flow_key keys[], const uint32_t hashes[],
	  const uint8_t idx[])
{
	struct pkt_batch copies;
	uint8_t cidx[BATCH_MAX];

	dp_copy_batch(ctx, b, idx, &copies, cidx);
	dp_tnl_push(ctx, t, &copies, keys, hashes, cidx);
	dp_tx_enqueue(ctx, port_idx, copies.pkts, copies.n);
}

static void run_actions(struct dp_ctx *ctx, const struct megaflow *f,
			struct pkt_batch *b, const struct flow_key keys[],
			const uint32_t hashes[], const uint8_t idx[],
			struct dp_inner *inner, uint8_t sg_done, uint8_t from);

/* The fragments of the datagrams an sg() or ct() at action from - 1
 * finished and let by (dp_ipf.h): the actions after it, a burst's worth
 * at a time (a datagram may have more fragments than a burst). Each
 * fragment takes the finishing fragment's position: its hash, its key
 * for what follows. Nests at most once per sg()/ct() of the megaflow. */
static void
run_frags(struct dp_ctx *ctx, const struct megaflow *f,
	  struct dp_ipf_done *frags, const struct flow_key keys[],
	  const uint32_t hashes[], struct dp_inner *inner, uint8_t sg_done,
	  uint8_t from)
{
	for (uint16_t d = 0; d < frags->n; d++) {
		struct pkt_batch fb;
		uint8_t fidx[BATCH_MAX];
		while (dp_ipf_next(ctx, frags, d, &fb, fidx))
			run_actions(ctx, f, &fb, keys, hashes, fidx, inner,
				    sg_done, from);
	}
	dp_ipf_done_end(ctx, frags);
}

void
dp_execute_actions(struct dp_ctx *ctx, const struct megaflow *f,
		   struct pkt_batch *b, const struct flow_key keys[],
		   const uint32_t hashes[], const uint8_t idx[],
		   struct dp_inner *inner, uint8_t sg_done)
{
	run_actions(ctx, f, b, keys, hashes, idx, inner, sg_done, 0);
}

/* The actions from index from on. */
static void
run_actions(struct dp_ctx *ctx, const struct megaflow *f,
	    struct pkt_batch *b, const struct flow_key keys[],
	    const uint32_t hashes[], const uint8_t idx[],
	    struct dp_inner *inner, uint8_t sg_done, uint8_t from)
{
	const struct dp_actions *acts = &f->actions;

	for (uint8_t i = from; i < acts->n && b->n; i++) {
		const struct dp_action *a = &acts->act[i];
		bool last = i == acts->n - 1;

		if (i + 1 == sg_done)	/* the sg stage's already */
			continue;
		if (unlikely(ctx->trace))
			dp_trace_action(ctx, b, a);

		switch (a->type) {
		case DP_ACT_OUTPUT:
			if (last) {
				dp_tx_enqueue(ctx, a->port, b->pkts, b->n);
				b->n = 0;
			} else {
				output_copy(ctx, a->port, b);
			}
			break;
		case DP_ACT_TNL_PUSH:
			dp_tnl_push(ctx, &acts->tnls[a->slot], b, keys, hashes,
				    idx);
			break;
		case DP_ACT_TNL_CLONE:
			tnl_clone(ctx, &acts->tnls[a->slot], a->port, b, keys,
				  hashes, idx);
			break;
		case DP_ACT_TNL_POP:
			if (!inner) {	/* xlate never nests tunnels */
				dp_drop_batch(ctx, b, DROP_BAD_VXLAN);
				return;
			}
			dp_tnl_pop(ctx, f, a->port, a->slot, b, keys, idx,
				   inner);
			return;		/* the inner pass owns the packets */
		case DP_ACT_SET_ETH_SRC:
			set_eth_addr(b, &acts->macs[a->port], true);
			break;
		case DP_ACT_SET_ETH_DST:
			set_eth_addr(b, &acts->macs[a->port], false);
			break;
		case DP_ACT_ARP_RESPOND:
			arp_respond_batch(ctx, b, a->port);
			return;
		case DP_ACT_DROP:
			dp_drop_batch(ctx, b, a->reason);
			return;
		case DP_ACT_SG: {	/* keeps the packets it lets by */
			struct dp_ipf_done frags;	/* 3 KB: not zeroed */
			frags.n = 0;
			dp_sg_filter(ctx, a, dp_action_nat(acts, a), b, keys,
				     idx, &frags);
			if (unlikely(frags.n))
				run_frags(ctx, f, &frags, keys, hashes, inner,
					  sg_done, i + 1);
			break;
		}
		case DP_ACT_CT: {
			uint8_t m = DP_CT_MARK_SLOT(a->slot);
			const struct dp_ct_mark *mark =
				m ? &acts->ct_marks[m - 1] : NULL;
			uint8_t l = DP_CT_LABEL_SLOT(a->slot);
			const struct dp_ct_label *label =
				l ? &acts->ct_labels[l - 1] : NULL;
			const struct dp_nat *nat = dp_action_nat(acts, a);
			struct dp_ipf_done frags;
			frags.n = 0;
			if (i + 1 < acts->n &&
			    acts->act[i + 1].type == DP_ACT_RECIRC) {
				dp_ct_execute(ctx, a, nat, mark, label,
					      &acts->act[i + 1], b, keys, idx,
					      &frags);
				return;	/* the next pass owns them */
			}
			dp_ct_execute(ctx, a, nat, mark, label, NULL, b,
				      keys, idx, &frags);
			if (unlikely(frags.n))
				run_frags(ctx, f, &frags, keys, hashes, inner,
					  sg_done, i + 1);
			break;
		}
		case DP_ACT_RECIRC:	/* xlate puts one only after a ct */
			dp_drop_batch(ctx, b, DROP_RECIRC_LIMIT);
			return;
		case DP_ACT_DROP_COPY:	/* as a copy made and dropped */
			ctx->stats->copies += b->n;
			if (unlikely(ctx->trace))
				dp_trace_drop(ctx, b->pkts, b->n, a->reason,
					      true);
			dp_count_drops(ctx, a->reason, b->n);
			break;
		}
	}
	if (b->n)	/* actions ended without a destination */
		dp_drop_batch(ctx, b, DROP_RULE_DROP);
}
