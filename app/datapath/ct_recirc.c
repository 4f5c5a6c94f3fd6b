/* SPDX-License-Identifier: BSD-3-Clause
 * ct() and ct(table=T) as OVS runs them, the fallback to sg():
 *
 *   ct(zone=N[,commit])          the packets are tracked (and committed)
 *                                and go on with the following actions,
 *                                their ct_state unchanged: as in OVS, a
 *                                ct() without table= only sends them
 *                                through the tracker;
 *   ct(zone=N[,commit],table=T)  the same, then the packets are
 *                                recirculated: looked up again with
 *                                ct_state, ct_zone and ct_mark set in
 *                                their keys (flow_key.h w6) and the
 *                                recirc id, which names the table to
 *                                resume in and the state the translation
 *                                froze (recirc_id.h);
 *   ct(commit,exec(...->ct_mark)) the committed sessions get the mark,
 *                                and a recirculated packet sees it.
 *
 * The recirculated packets wait in ctx->recirc and are looked up after
 * the current pass (dp_pipeline.c), at most DP_MAX_RECIRC passes deep:
 * past that, and whenever there is no pass to take them (the mark path),
 * they are dropped under recirc_limit. Each packet stays in exactly one
 * place: sent, dropped, or waiting for the next pass.
 */
#include <rte_cycles.h>
#include "dp_ct.h"
#include "dp_stages.h"

/* Tracks b's packets for a: writes their ct_state and mark. */
static void
track(struct dp_ctx *ctx, const struct dp_action *a,
      const struct dp_ct_mark *mark, struct pkt_batch *b,
      const struct flow_key keys[], const uint8_t idx[], uint8_t state[],
      struct ct_conn_ref refs[])
{
	struct ct_pkt_meta meta[BATCH_MAX];

	for (uint16_t i = 0; i < b->n; i++)
		dp_ct_meta(&meta[i], &keys[idx ? idx[i] : i], b->pkts[i]);
	conntrack_execute(ctx->ct, b->pkts, meta, b->n, a->port,
			  a->slot & DP_CT_COMMIT, NULL, rte_rdtsc(), state,
			  refs);
	for (uint16_t i = 0; mark && i < b->n; i++) {
		if (!refs[i].conn)
			continue;
		ct_conn_set_mark(refs[i].conn, mark->value, mark->mask);
		refs[i].mark = (refs[i].mark & ~mark->mask) | mark->value;
	}
}

void
dp_ct_execute(struct dp_ctx *ctx, const struct dp_action *a,
	      const struct dp_ct_mark *mark, const struct dp_action *recirc,
	      struct pkt_batch *b, const struct flow_key keys[],
	      const uint8_t idx[])
{
	uint8_t state[BATCH_MAX];
	struct ct_conn_ref refs[BATCH_MAX];
	struct dp_inner *next = ctx->recirc;

	if (unlikely(!ctx->ct)) {	/* the daemon always has one */
		dp_drop_batch(ctx, b, DROP_RECIRC_LIMIT);
		return;
	}
	track(ctx, a, mark, b, keys, idx, state, refs);
	if (!recirc)
		return;		/* ct() without table=: the packets go on */
	if (!next) {		/* too deep, or no pass to take them */
		dp_drop_batch(ctx, b, DROP_RECIRC_LIMIT);
		return;
	}
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		if (next->b.n == BATCH_MAX) {	/* cannot happen: one burst */
			rte_pktmbuf_free(m);
			dp_count_drops(ctx, DROP_RECIRC_LIMIT, 1);
			continue;
		}
		struct flow_key *k = &next->keys[next->b.n];
		*k = keys[idx ? idx[i] : i];
		/* rewrites before ct() changed the packet, not its key */
		const struct rte_ether_hdr *eh =
			rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		k->dl_dst = eh->dst_addr;
		k->dl_src = eh->src_addr;
		k->ct_state = state[i];
		k->ct_zone = a->port;
		k->ct_mark = refs[i].conn ? refs[i].mark : 0;
		k->recirc_id = (uint8_t)recirc->port;	/* xlate's recirc id */
		pkt_batch_add(&next->b, m);
	}
	b->n = 0;
}
