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
 *                                and a recirculated packet sees it;
 *   ct(commit,exec(...->ct_label)) the same for the label, which a
 *                                recirculated key carries as one bit per
 *                                ct_label=V/M predicate of the rules
 *                                (flow_key.h ct_label_bits, computed
 *                                from the snapshot's table).
 *
 * ct(...,nat...) NATs the packets of NATed sessions as the tracker does
 * (app/conntrack/ct_nat.c; a bare `nat` applies a session's existing NAT,
 * nat(src|dst=...) gives a new committed session its translation), and
 * a recirculated packet is looked up by what it carries after the
 * rewrite: its key's nw_src/nw_dst/tp_src/tp_dst are read back from the
 * packet (the next pass hashes its key afresh), its ct_state has +snat or
 * +dnat. A ct() after the recirculation, in the same zone, looks such a
 * packet up by its reverse tuple and does not NAT it again, as OVS
 * (ct_pkt_meta.natted). Not so for two ct() of one pass (no
 * recirculation between them): the second sees the rewritten tuple.
 *
 * The recirculated packets wait in ctx->recirc and are looked up after
 * the current pass (dp_pipeline.c), at most DP_MAX_RECIRC passes deep:
 * past that, and whenever there is no pass to take them (the mark path),
 * they are dropped under recirc_limit. Each packet stays in exactly one
 * place: sent, dropped, or waiting for the next pass.
 */
#include <rte_cycles.h>
#include "dp_ct.h"
#include "dp_snapshot.h"
#include "dp_stages.h"

/* Tracks (and NATs) b's packets for a: writes their ct_state and mark,
 * and their meta (where their headers are); writes mark and label (NULL:
 * none) into their sessions. */
static void
track(struct dp_ctx *ctx, const struct dp_action *a, const struct dp_nat *nat,
      const struct dp_ct_mark *mark, const struct dp_ct_label *label,
      struct pkt_batch *b,
      const struct flow_key keys[], const uint8_t idx[],
      struct ct_pkt_meta meta[], uint8_t state[], struct ct_conn_ref refs[])
{
	struct ct_nat_spec spec;

	for (uint16_t i = 0; i < b->n; i++) {
		const struct flow_key *k = &keys[idx ? idx[i] : i];
		dp_ct_meta(&meta[i], k, b->pkts[i]);
		/* NATed by a ct() of this zone before the recirculation */
		meta[i].natted = (k->ct_state & (CS_SRC_NAT | CS_DST_NAT)) &&
				 k->ct_zone == a->port;
	}
	conntrack_execute(ctx->ct, b->pkts, meta, b->n, a->port,
			  a->slot & DP_CT_COMMIT, dp_ct_nat_spec(nat, &spec),
			  rte_rdtsc(), state, refs);
	for (uint16_t i = 0; mark && i < b->n; i++) {
		if (!refs[i].conn)
			continue;
		ct_conn_set_mark(refs[i].conn, mark->value, mark->mask);
		refs[i].mark = (refs[i].mark & ~mark->mask) | mark->value;
	}
	for (uint16_t i = 0; label && i < b->n; i++) {
		if (!refs[i].conn)
			continue;
		ct_conn_set_label(refs[i].conn, label->value, label->mask);
		for (int w = 0; w < 2; w++)
			refs[i].label[w] = (refs[i].label[w] & ~label->mask[w]) |
					   (label->value[w] & label->mask[w]);
	}
}

void
dp_ct_execute(struct dp_ctx *ctx, const struct dp_action *a,
	      const struct dp_nat *nat, const struct dp_ct_mark *mark,
	      const struct dp_ct_label *label, const struct dp_action *recirc,
	      struct pkt_batch *b, const struct flow_key keys[],
	      const uint8_t idx[])
{
	uint8_t state[BATCH_MAX];
	struct ct_conn_ref refs[BATCH_MAX];
	struct ct_pkt_meta meta[BATCH_MAX];
	struct dp_inner *next = ctx->recirc;
	static const uint64_t no_label[2];	/* untracked: label 0 */

	if (unlikely(!ctx->ct)) {	/* the daemon always has one */
		dp_drop_batch(ctx, b, DROP_RECIRC_LIMIT);
		return;
	}
	track(ctx, a, nat, mark, label, b, keys, idx, meta, state, refs);
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
		if (nat && (state[i] & (CS_SRC_NAT | CS_DST_NAT)))
			dp_ct_refresh_key(k, &meta[i], m);
		k->ct_state = state[i];
		k->ct_zone = a->port;
		k->ct_mark = refs[i].conn ? refs[i].mark : 0;
		k->ct_label_bits = !ctx->snap ? 0 :
			dp_snapshot_label_bits(ctx->snap, refs[i].conn ?
					       refs[i].label : no_label);
		k->recirc_id = (uint8_t)recirc->port;	/* xlate's recirc id */
		pkt_batch_add(&next->b, m);
	}
	b->n = 0;
}
