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
 *   opening nothing, not IP, ND...)   is dropped (sg_invalid), as
 *                                      Neutron's firewall drops +inv
 *   a new one under sg(allow) whose session cannot be created (the
 *   table or the zone at its limit, the nat() range exhausted) is
 *   dropped (sg_refused): passing it would let a connection through that
 *   no session follows, or leak the address NAT should hide; ct(commit)
 *   lets such a packet go on +new, as OVS does
 *
 * Two places run it. The sg stage (dp_sg_stage), between grouping and
 * actions, takes the sg() every megaflow group of a pass meets first
 * and tracks all those packets in one conntrack_execute_flows() call:
 * one bulk hash lookup for the burst, where a decap burst fanning out to
 * 32 VMs would otherwise make 32 lookups of one packet each. An sg()
 * behind an output, a tunnel push or another sg() runs as an action
 * (dp_sg_filter), on its group alone.
 *
 * IPv4 and IPv6 fragments (dp_ipf.h) are held until their datagram is
 * whole; the reassembled packet is tracked as the rest of its batch, and
 * its verdict is every fragment's: sg() lets them all by (the actions after
 * it run on them, dp_execute.c) or drops them all. A group holding a
 * fragment runs its sg() as an action, not in the stage: the datagrams
 * it finishes need the actions after sg() of their own group.
 *
 * sg(...,nat(src|dst=...)) or sg(...,nat), in either place: a new
 * connection it lets in gets its translated tuple, and every packet of a
 * NATed session is rewritten, both directions (app/conntrack/ct_nat.c),
 * before the actions after sg(). Those actions were chosen by the
 * packet's headers before NAT: one pass, no second lookup (that is
 * ct(nat,table=T)'s recirculation).
 */
#include <rte_cycles.h>
#include "dp_ct.h"
#include "dp_ipf.h"
#include "dp_stages.h"

/* SG_PASS is 0: a burst's verdicts ORed say whether any stops */
enum sg_verdict { SG_PASS = 0, SG_DENY, SG_INVALID, SG_REFUSED };
/* the refused mask (ct_flow_call.refused) is one word */
_Static_assert(BATCH_MAX <= 64, "a burst fits one refused word");

/* refused: the tracker could not commit the session sg(allow) asked for
 * (ct_flow_call.refused) */
static inline uint8_t
sg_verdict(uint8_t state, bool allow, bool refused)
{
	if (state & CS_INVALID)
		return SG_INVALID;
	if (refused)
		return SG_REFUSED;
	if ((state & (CS_ESTABLISHED | CS_RELATED)) || allow)
		return SG_PASS;
	return SG_DENY;
}

/* Keeps in b, in order, the packets whose verdict is SG_PASS (idx[] in
 * step: the actions after sg() use it for their hashes, encap's source
 * port); frees and counts the others. */
static const uint8_t sg_drop_reason[] = {
	[SG_DENY] = DROP_SG_DENY,
	[SG_INVALID] = DROP_SG_INVALID,
	[SG_REFUSED] = DROP_SG_REFUSED,
};

static void
sg_apply(struct dp_ctx *ctx, struct pkt_batch *b, uint8_t idx[],
	 const uint8_t verdict[])
{
	uint16_t kept = 0, n_drop[SG_REFUSED + 1] = { 0 };

	for (uint16_t i = 0; i < b->n; i++) {
		if (verdict[i] == SG_PASS) {
			if (idx)
				idx[kept] = idx[i];
			b->pkts[kept++] = b->pkts[i];
		} else {
			n_drop[verdict[i]]++;
			if (unlikely(ctx->trace))
				dp_trace_drop(ctx, &b->pkts[i], 1,
					      sg_drop_reason[verdict[i]], false);
			rte_pktmbuf_free(b->pkts[i]);
		}
	}
	b->n = kept;
	dp_count_drops(ctx, DROP_SG_DENY, n_drop[SG_DENY]);
	dp_count_drops(ctx, DROP_SG_INVALID, n_drop[SG_INVALID]);
	dp_count_drops(ctx, DROP_SG_REFUSED, n_drop[SG_REFUSED]);
}

/* The datagrams b's fragments finished: their reassembled packets
 * tracked as the batch (call: zone, commit, NAT), each one's verdict its
 * fragments' own. frags keeps those sg() lets by, settled (state, NAT
 * in their headers); the others' fragments are dropped. */
static void
sg_frags(struct dp_ctx *ctx, const struct ct_flow_call *call_b, bool allow,
	 struct dp_ipf_done *frags)
{
	struct rte_mbuf *pkts[BATCH_MAX];
	const struct flow_key *fk[BATCH_MAX];
	uint8_t which[BATCH_MAX], state[BATCH_MAX];
	uint8_t verdict[BATCH_MAX];
	uint64_t refused = 0;
	struct ct_flow_call call = *call_b;
	uint16_t n = dp_ipf_reassembled(frags, pkts, fk, which);

	call.refused = &refused;
	if (n)
		conntrack_execute_flows(ctx->ct, pkts, fk, n, &call,
					rte_rdtsc(), state);
	for (uint16_t d = 0; d < frags->n; d++)
		verdict[d] = SG_INVALID;	/* made invalid: +inv */
	for (uint16_t j = 0; j < n; j++)
		verdict[which[j]] = sg_verdict(state[j], allow,
					       (refused >> j) & 1);
	for (uint16_t j = 0; j < n; j++)
		dp_ipf_settle(frags, which[j], state[j]);
	for (uint16_t d = 0; d < frags->n; d++) {
		if (verdict[d] != SG_PASS)
			dp_ipf_drop(ctx, frags, d, sg_drop_reason[verdict[d]]);
	}
}

void
dp_sg_filter(struct dp_ctx *ctx, const struct dp_action *a,
	     const struct dp_nat *nat, struct pkt_batch *b,
	     const struct flow_key keys[], const uint8_t idx[],
	     struct dp_ipf_done *frags)
{
	bool allow = a->slot & DP_SG_ALLOW;
	const struct flow_key *fk[BATCH_MAX];
	uint8_t state[BATCH_MAX];
	struct ct_nat_spec spec;

	if (unlikely(!ctx->ct)) {
		dp_drop_batch(ctx, b, DROP_SG_INVALID);
		return;
	}
	if (unlikely(frags && dp_ipf_wanted(ctx, b, keys, idx)))
		dp_ipf_take(ctx, a->port, b, keys, (uint8_t *)idx, frags);
	for (uint16_t i = 0; i < b->n; i++)
		fk[i] = &keys[idx ? idx[i] : i];
	/* sg(allow) commits what it lets in; sg(deny) never creates one */
	uint64_t refused = 0;
	const struct ct_flow_call call = {
		.zone = a->port, .commit = allow,
		.nat = dp_ct_nat_spec(nat, &spec), .refused = &refused,
	};
	if (b->n)
		conntrack_execute_flows(ctx->ct, b->pkts, fk, b->n, &call,
					rte_rdtsc(), state);
	if (unlikely(ctx->trace))
		dp_trace_sg(ctx, b->pkts, b->n, state, NULL, a->port, NULL,
			    allow);
	uint8_t stopped = 0;
	for (uint16_t i = 0; i < b->n; i++) {
		state[i] = sg_verdict(state[i], allow, (refused >> i) & 1);
		stopped |= state[i];
	}
	if (stopped)
		sg_apply(ctx, b, (uint8_t *)idx, state);
	/* after the batch, as OVS appends reassembled packets to it */
	if (unlikely(frags && frags->n))
		sg_frags(ctx, &call, allow, frags);
}

/* Each group whose megaflow meets an sg() first (dp_actions.sg_at: nothing
 * before it sends, copies or changes what the tracker reads; MAC rewrites
 * may come first, filtering before them drops the same packets) has its
 * packets tracked in one call for the whole pass. */
void
dp_sg_stage(struct dp_ctx *ctx, struct dp_flow_group g[], uint16_t n_groups,
	    const struct flow_key keys[])
{
	struct rte_mbuf *pkts[BATCH_MAX];
	const struct flow_key *fk[BATCH_MAX];
	uint16_t zones[BATCH_MAX];
	uint64_t commits[(BATCH_MAX + 63) / 64] = { 0 };
	struct ct_nat_spec specs[BATCH_MAX];
	const struct ct_nat_spec *nats[BATCH_MAX];
	uint8_t state[BATCH_MAX];
	uint16_t n = 0, n_sg = 0;
	bool any_nat = false;

	if (unlikely(!ctx->ct))	/* dp_sg_filter drops them */
		return;
	for (uint16_t k = 0; k < n_groups; k++) {
		g[k].sg_done = g[k].flow->actions.sg_at;
		/* fragments to hold: the action takes the group */
		if (g[k].sg_done &&
		    unlikely(dp_ipf_wanted(ctx, &g[k].b, keys, g[k].idx)))
			g[k].sg_done = 0;
		n_sg += g[k].sg_done != 0;
	}
	if (n_sg < 2) {	/* one group: its own action is one call too */
		for (uint16_t k = 0; k < n_groups; k++)
			g[k].sg_done = 0;
		return;
	}
	for (uint16_t k = 0; k < n_groups; k++) {
		struct dp_flow_group *grp = &g[k];
		if (!grp->sg_done)
			continue;
		const struct dp_action *a =
			&grp->flow->actions.act[grp->sg_done - 1];
		const struct ct_nat_spec *nat = dp_ct_nat_spec(
			dp_action_nat(&grp->flow->actions, a), &specs[k]);
		any_nat |= nat != NULL;
		for (uint16_t j = 0; j < grp->b.n; j++, n++) {
			pkts[n] = grp->b.pkts[j];
			nats[n] = nat;
			fk[n] = &keys[grp->idx[j]];
			zones[n] = a->port;
			/* sg(allow) commits what it lets in */
			if (a->slot & DP_SG_ALLOW)
				commits[n / 64] |= 1ull << (n % 64);
		}
	}
	if (!n)
		return;
	uint64_t refused = 0;
	const struct ct_flow_call call = {
		.zones = zones, .commits = commits,
		.nats = any_nat ? nats : NULL, .refused = &refused,
	};
	conntrack_execute_flows(ctx->ct, pkts, fk, n, &call, rte_rdtsc(),
				state);
	if (unlikely(ctx->trace))
		dp_trace_sg(ctx, pkts, n, state, zones, 0, commits, false);
	uint8_t stopped = 0;	/* a verdict other than SG_PASS */
	n = 0;
	for (uint16_t k = 0; k < n_groups; k++) {
		struct dp_flow_group *grp = &g[k];
		if (!grp->sg_done)
			continue;
		bool allow = grp->flow->actions.act[grp->sg_done - 1].slot &
			     DP_SG_ALLOW;
		for (uint16_t j = 0; j < grp->b.n; j++, n++) {
			state[n] = sg_verdict(state[n], allow,
					      (refused >> n) & 1);
			stopped |= state[n];
		}
	}
	if (!stopped)	/* the usual burst: every packet passes */
		return;
	n = 0;
	for (uint16_t k = 0; k < n_groups; k++) {
		struct dp_flow_group *grp = &g[k];
		if (!grp->sg_done)
			continue;
		n += grp->b.n;
		sg_apply(ctx, &grp->b, grp->idx, &state[n - grp->b.n]);
	}
}
