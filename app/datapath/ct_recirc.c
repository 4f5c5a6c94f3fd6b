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
 * IPv4 and IPv6 fragments are held until their datagram is whole
 * (dp_ipf.h): the reassembled packet is tracked with the batch, and
 * every fragment goes on with its ct_state, mark and label (and its NAT,
 * IPv4 only): recirculated, each with its own key (nw_frag, no ports
 * past the first fragment), or on to the actions after ct()
 * (dp_execute.c).
 *
 * The recirculated packets wait in ctx->recirc and are looked up after
 * the current pass (dp_pipeline.c), at most DP_MAX_RECIRC passes deep:
 * past that, and whenever there is no pass to take them (the mark path),
 * they are dropped under recirc_limit. Each packet stays in exactly one
 * place: sent, dropped, or waiting for the next pass.
 */
#include <rte_cycles.h>
#include "dp_ct.h"
#include "dp_ipf.h"
#include "dp_snapshot.h"
#include "dp_stages.h"

/* mark and label (NULL: none) into the sessions of refs[0..n), and into
 * the refs, as the packets will carry them */
static void
set_mark_label(const struct dp_ct_mark *mark, const struct dp_ct_label *label,
	       struct ct_conn_ref refs[], uint16_t n)
{
	for (uint16_t i = 0; mark && i < n; i++) {
		if (!refs[i].conn)
			continue;
		ct_conn_set_mark(refs[i].conn, mark->value, mark->mask);
		refs[i].mark = (refs[i].mark & ~mark->mask) | mark->value;
	}
	for (uint16_t i = 0; label && i < n; i++) {
		if (!refs[i].conn)
			continue;
		ct_conn_set_label(refs[i].conn, label->value, label->mask);
		for (int w = 0; w < 2; w++)
			refs[i].label[w] = (refs[i].label[w] & ~label->mask[w]) |
					   (label->value[w] & label->mask[w]);
	}
}

/* The datagrams b's fragments finished: their reassembled packets
 * tracked as b's (zone, commit, NAT, mark, label), then settled: state,
 * NAT into the fragments. frefs[d]: datagram d's session (conn NULL
 * when none or invalid). */
static void
track_frags(struct dp_ctx *ctx, const struct dp_action *a,
	    const struct ct_nat_spec *nat, const struct dp_ct_mark *mark,
	    const struct dp_ct_label *label, struct dp_ipf_done *frags,
	    struct ct_conn_ref frefs[])
{
	struct rte_mbuf *pkts[BATCH_MAX];
	const struct flow_key *fk[BATCH_MAX];
	struct ct_pkt_meta meta[BATCH_MAX];
	struct ct_conn_ref refs[BATCH_MAX];
	uint8_t which[BATCH_MAX], state[BATCH_MAX];
	uint16_t n = dp_ipf_reassembled(frags, pkts, fk, which);

	for (uint16_t j = 0; j < n; j++) {
		dp_ct_meta(&meta[j], fk[j], pkts[j]);
		meta[j].natted = (fk[j]->ct_state & (CS_SRC_NAT | CS_DST_NAT)) &&
				 fk[j]->ct_zone == a->port;
	}
	if (n)
		conntrack_execute(ctx->ct, pkts, meta, n, a->port,
				  a->slot & DP_CT_COMMIT, nat, rte_rdtsc(),
				  state, refs);
	set_mark_label(mark, label, refs, n);
	for (uint16_t d = 0; d < frags->n; d++)
		frefs[d] = (struct ct_conn_ref){ .zone = a->port };
	for (uint16_t j = 0; j < n; j++) {	/* the invalid ones: +inv */
		frefs[which[j]] = refs[j];
		dp_ipf_settle(frags, which[j], state[j]);
	}
}

/* Tracks (and NATs) b's packets for a: writes their ct_state and mark,
 * and their meta (where their headers are); writes mark and label (NULL:
 * none) into their sessions. */
static void
track(struct dp_ctx *ctx, const struct dp_action *a, const struct dp_nat *nat,
      const struct dp_ct_mark *mark, const struct dp_ct_label *label,
      struct pkt_batch *b,
      const struct flow_key keys[], const uint8_t idx[],
      struct ct_pkt_meta meta[], uint8_t state[], struct ct_conn_ref refs[],
      struct dp_ipf_done *frags, struct ct_conn_ref frefs[])
{
	struct ct_nat_spec spec;

	if (unlikely(dp_ipf_wanted(ctx, b, keys, idx)))
		dp_ipf_take(ctx, a->port, b, keys, (uint8_t *)idx, frags);
	for (uint16_t i = 0; i < b->n; i++) {
		const struct flow_key *k = &keys[idx ? idx[i] : i];
		dp_ct_meta(&meta[i], k, b->pkts[i]);
		/* NATed by a ct() of this zone before the recirculation */
		meta[i].natted = (k->ct_state & (CS_SRC_NAT | CS_DST_NAT)) &&
				 k->ct_zone == a->port;
	}
	const struct ct_nat_spec *ns = dp_ct_nat_spec(nat, &spec);
	if (b->n)
		conntrack_execute(ctx->ct, b->pkts, meta, b->n, a->port,
				  a->slot & DP_CT_COMMIT, ns, rte_rdtsc(),
				  state, refs);
	set_mark_label(mark, label, refs, b->n);
	/* after the batch, as OVS appends reassembled packets to it */
	if (unlikely(frags->n))
		track_frags(ctx, a, ns, mark, label, frags, frefs);
}

/* Packet m to the next pass, with key k (ct fields to be set). */
static void
recirc_add(struct dp_ctx *ctx, struct dp_recirc *next, struct rte_mbuf *m,
	   const struct flow_key *k, uint8_t state, uint16_t zone,
	   const struct ct_conn_ref *ref, const struct dp_action *recirc)
{
	static const uint64_t no_label[2];	/* untracked: label 0 */

	if (next->n == DP_RECIRC_CAP) {	/* datagrams' fragments past it */
		dp_drop_pkt(ctx, m, DROP_RECIRC_LIMIT);
		return;
	}
	struct flow_key *nk = &next->keys[next->n];
	next->ext |= flow_key_copy(nk, k);
	nk->ct_state = state;
	nk->ct_zone = zone;
	nk->ct_mark = ref->conn ? ref->mark : 0;
	nk->ct_label_bits = !ctx->snap ? 0 :
		dp_snapshot_label_bits(ctx->snap, ref->conn ? ref->label :
				       no_label);
	nk->recirc_id = (uint8_t)recirc->port;	/* xlate's recirc id */
	if (unlikely(ctx->trace))
		dp_trace_recirc(ctx, m, nk);
	next->pkts[next->n++] = m;
}

/* The fragments of frags' datagrams to the next pass, each with its own
 * key: its datagram's, its own nw_frag and addresses (NAT), no ports past
 * the first. */
static void
recirc_frags(struct dp_ctx *ctx, struct dp_recirc *next,
	     struct dp_ipf_done *frags, const struct ct_conn_ref frefs[],
	     const struct dp_nat *nat, uint16_t zone,
	     const struct dp_action *recirc)
{
	for (uint16_t d = 0; d < frags->n; d++) {
		struct pkt_batch fb;
		uint8_t fidx[BATCH_MAX];
		while (dp_ipf_next(ctx, frags, d, &fb, fidx)) {
			for (uint16_t i = 0; i < fb.n; i++) {
				struct rte_mbuf *m = fb.pkts[i];
				struct flow_key k;
				struct ct_pkt_meta mt;
				dp_ipf_frag_key(&k, &frags->keys[d], m);
				const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(
					m, const struct rte_ether_hdr *);
				k.dl_dst = eh->dst_addr;
				k.dl_src = eh->src_addr;
				if (nat && (frags->state[d] &
					    (CS_SRC_NAT | CS_DST_NAT))) {
					dp_ct_meta(&mt, &k, m);
					dp_ct_refresh_key(&k, &mt, m);
				}
				recirc_add(ctx, next, m, &k, frags->state[d],
					   zone, &frefs[d], recirc);
			}
		}
	}
	dp_ipf_done_end(ctx, frags);
}

void
dp_ct_execute(struct dp_ctx *ctx, const struct dp_action *a,
	      const struct dp_nat *nat, const struct dp_ct_mark *mark,
	      const struct dp_ct_label *label, const struct dp_action *recirc,
	      struct pkt_batch *b, const struct flow_key keys[],
	      const uint8_t idx[], struct dp_ipf_done *frags)
{
	uint8_t state[BATCH_MAX];
	struct ct_conn_ref refs[BATCH_MAX], frefs[BATCH_MAX];
	struct ct_pkt_meta meta[BATCH_MAX];
	struct dp_recirc *next = ctx->recirc;

	if (unlikely(!ctx->ct)) {	/* the daemon always has one */
		dp_drop_batch(ctx, b, DROP_RECIRC_LIMIT);
		return;
	}
	track(ctx, a, nat, mark, label, b, keys, idx, meta, state, refs,
	      frags, frefs);
	if (unlikely(ctx->trace))
		dp_trace_ct(ctx, b, state, a->port, a->slot & DP_CT_COMMIT);
	if (!recirc)
		return;		/* ct() without table=: the packets go on */
	if (!next) {		/* too deep, or no pass to take them */
		dp_drop_batch(ctx, b, DROP_RECIRC_LIMIT);
		for (uint16_t d = 0; d < frags->n; d++)
			dp_ipf_drop(ctx, frags, d, DROP_RECIRC_LIMIT);
		dp_ipf_done_end(ctx, frags);
		return;
	}
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		struct flow_key k;
		flow_key_copy(&k, &keys[idx ? idx[i] : i]);
		/* rewrites before ct() changed the packet, not its key */
		const struct rte_ether_hdr *eh =
			rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		k.dl_dst = eh->dst_addr;
		k.dl_src = eh->src_addr;
		if (nat && (state[i] & (CS_SRC_NAT | CS_DST_NAT)))
			dp_ct_refresh_key(&k, &meta[i], m);
		recirc_add(ctx, next, m, &k, state[i], a->port, &refs[i],
			   recirc);
	}
	b->n = 0;
	if (unlikely(frags->n))
		recirc_frags(ctx, next, frags, frefs, nat, a->port, recirc);
}
