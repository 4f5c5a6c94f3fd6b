/* SPDX-License-Identifier: BSD-3-Clause
 * One burst through the datapath, as in doc/architecture.md (datapath.h
 * names each stage's file):
 *
 *   rx -> [mark path, ARP] -> miniflow extract -> hash -> EMC -> dpcls
 *     -> upcall (misses) -> group by megaflow -> sg (the pass's sg()
 *     packets, one tracker call) -> batched actions
 *
 * then, if any tnl_pop handed inner packets back, the same from hash on
 * for them: the inner pass, the second step of the same call, with
 * in_port=vxlan and the tunnel metadata in their keys (OVS recirculates
 * through its PMD loop instead). Then, while ct(table=T) recirculated
 * packets (ct_recirc.c), the same again for them, at most DP_MAX_RECIRC
 * passes: the recirculated passes skip the EMC (it caches first-pass
 * keys only) and the NIC's hash (it ignores the recirc id).
 *
 * With emc-bypass (emc_bypass.h) a pass whose in_port keeps missing the
 * EMC skips it, and the inner pass its hash unless a megaflow pushes a
 * tunnel; with cls-port-hint dpcls tries the in_port's subtable first.
 */
#include <string.h>
#include <rte_cycles.h>
#include "dp_hash.h"
#include "dp_snapshot.h"
#include "dp_stages.h"
#include "dpcls.h"
#include "emc.h"
#include "emc_bypass.h"
#include "miniflow.h"
#include "port.h"

static inline bool
emc_should_insert(struct dp_ctx *ctx)
{
	uint32_t p = ctx->emc_insert_inv_prob;
	if (p <= 1)
		return p == 1;
	/* xorshift: cheap, and only the PMD uses it */
	uint32_t x = ctx->rand_state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	ctx->rand_state = x;
	return x % p == 0;
}

/* Which of a pass's packets the EMC found, and which were translated
 * (upcall); the rest dpcls found. For the trace (dp_trace.h). */
struct lookup_how {
	uint32_t emc, upcall;
};

/* EMC, dpcls and upcalls for n keys; from: what the inner pass came
 * from (which outer megaflow each packet left), NULL on the outer pass. */
static void
lookup_batch(struct dp_ctx *ctx, const struct flow_key keys[],
	     const uint32_t hashes[], uint16_t n, struct megaflow *flows[],
	     const struct dp_inner *from, enum emc_use emc,
	     struct dp_emc_pass *judge, struct lookup_how *how, bool ext)
{
	uint32_t all = n == 32 ? UINT32_MAX : (1u << n) - 1;
	uint32_t miss = all, miss_cls;

	how->upcall = 0;
	bool use_emc = emc == EMC_USE || emc == EMC_PROBE;
	bool hint = ctx->opts & DP_OPT_BIT(DP_OPT_CLS_PORT_HINT);

	if (use_emc) {
		miss = likely(!ext) ?
		       emc_lookup(ctx->emc, keys, hashes, all, flows) :
		       emc_lookup_ext(ctx->emc, keys, hashes, all, flows);
		ctx->stats->emc_hits += __builtin_popcount(all & ~miss);
		if (judge)
			emc_pass_update(judge, n, __builtin_popcount(miss));
		dp_stage_mark(ctx, PMD_STAGE_EMC);
	}
	how->emc = all & ~miss;
	if (!miss)
		return;
	miss_cls = hint ? dpcls_lookup_hint(ctx->cls, keys, miss, flows)
			: dpcls_lookup(ctx->cls, keys, miss, flows);
	ctx->stats->megaflow_hits += __builtin_popcount(miss & ~miss_cls);
	dp_stage_mark(ctx, PMD_STAGE_DPCLS);
	if (!miss_cls && !use_emc)	/* nothing to translate or cache */
		return;
	/* What follows is EMC inserts, plus translation if anything missed. */
	enum pmd_stage after = miss_cls ? PMD_STAGE_UPCALL : PMD_STAGE_EMC;

	bool installed = false;
	for (uint32_t m = miss; m; m &= m - 1) {
		int i = __builtin_ctz(m);
		uint32_t bit = 1u << i;
		/* A megaflow installed for an earlier packet of this burst
		 * may cover this one too: look again before translating. */
		if ((miss_cls & bit) && installed &&
		    !dpcls_lookup(ctx->cls, keys, bit, flows)) {
			miss_cls &= ~bit;
			ctx->stats->megaflow_hits++;
		}
		if (miss_cls & bit) {
			uint64_t t0 = rte_rdtsc();
			flows[i] = dp_upcall(ctx, &keys[i],
					     from ? dp_inner_outer(from, i) : NULL);
			installed |= flows[i] != NULL;
			ctx->stats->upcalls++;
			ctx->stats->upcall_cycles += rte_rdtsc() - t0;
		}
		if (flows[i] && use_emc &&
		    (emc == EMC_PROBE || emc_should_insert(ctx)))
			emc_insert(ctx->emc, &keys[i], hashes[i], flows[i]);
	}
	how->upcall = miss_cls;
	dp_stage_mark(ctx, after);
}

/* Do these actions read the packets' microflow hashes? Only a VXLAN push
 * does (encap's UDP source port, vxlan_encap.c). */
static bool
actions_need_hash(const struct dp_actions *a)
{
	for (int i = 0; i < a->n; i++)
		if (a->act[i].type == DP_ACT_TNL_PUSH ||
		    a->act[i].type == DP_ACT_TNL_CLONE)
			return true;
	return false;
}

/* Always inline: out of line it costs about three instructions a packet
 * (callgrind), and GCC stops inlining it once the three-line hash loops
 * are in it. */
static inline __attribute__((always_inline)) void
hash_pass(struct dp_ctx *ctx, const struct pkt_batch *b,
	  const struct flow_key keys[], uint32_t hashes[],
	  const struct dp_inner *from, bool recirc, bool ext)
{
	dp_hash_batch(b, keys, hashes, ext,
		      ctx->opts & DP_OPT_BIT(DP_OPT_HASH_REUSE),
		      ctx->opts & DP_OPT_BIT(DP_OPT_HASH_REUSE_ADAPTIVE) ?
		      &ctx->hash_reuse[recirc ? DP_HASH_RECIRC : from ?
				       DP_HASH_INNER : DP_HASH_OUTER] : NULL,
		      from == NULL && !recirc);
	if (unlikely(ctx->trace))
		dp_trace_hash(ctx, b, hashes, ctx->opts &
			      DP_OPT_BIT(DP_OPT_HASH_REUSE) && !from && !recirc);
	dp_stage_mark(ctx, PMD_STAGE_HASH);
}

/* One lookup pass over a burst whose keys are extracted: hash, lookups,
 * grouping by megaflow, actions. The outer pass has inner to take what
 * tnl_pops hand back, and no from; the inner pass the reverse. ext: some
 * key has a second line (the extract's per-pass flag; false: the hash
 * runs its one-line loops for the whole pass). */
static void
lookup_and_execute(struct dp_ctx *ctx, struct pkt_batch *b,
		   struct flow_key keys[], const struct dp_inner *from,
		   struct dp_inner *inner, bool recirc, bool ext)
{
	uint32_t hashes[BATCH_MAX];
	struct megaflow *flows[BATCH_MAX];
	struct dp_flow_group groups[BATCH_MAX];
	uint16_t n_groups = 0;
	uint64_t now = rte_rdtsc();
	uint32_t epoch;

	if (!b->n)
		return;
	epoch = ++ctx->batch_epoch;
	struct dp_emc_pass *judge;
	enum emc_use emc = emc_use_for(ctx, keys, recirc, &judge);
	/* A bypassed inner pass (no NIC hash to take) needs hashes only if
	 * one of its megaflows pushes a tunnel: computed after the lookup,
	 * if at all. */
	bool defer_hash = emc == EMC_BYPASS && from;

	if (!defer_hash)
		hash_pass(ctx, b, keys, hashes, from, recirc, ext);
	struct lookup_how how;
	lookup_batch(ctx, keys, hashes, b->n, flows, from, emc, judge, &how,
		     ext);
	if (unlikely(ctx->trace))
		dp_trace_lookup(ctx, b, flows, how.emc, how.upcall);

	for (uint16_t i = 0; i < b->n; i++) {
		if (!flows[i]) {
			dp_drop_pkt(ctx, b->pkts[i], DROP_UPCALL_FAIL);
			continue;
		}
		dp_group_add(groups, &n_groups, epoch, flows[i], b->pkts[i], i);
	}
	if (defer_hash)
		for (uint16_t k = 0; k < n_groups; k++)
			if (actions_need_hash(&groups[k].flow->actions)) {
				/* freed packets' keys hash too: harmless */
				hash_pass(ctx, b, keys, hashes, from, recirc,
					  ext);
				break;
			}
	b->n = 0;

	for (uint16_t k = 0; k < n_groups; k++) {
		groups[k].flow->n_packets += groups[k].b.n;
		groups[k].flow->used_tsc = now;
	}
	/* the security groups of the whole pass at once */
	dp_sg_stage(ctx, groups, n_groups, keys);
	for (uint16_t k = 0; k < n_groups; k++) {
		struct dp_flow_group *g = &groups[k];
		dp_execute(ctx, g->flow, &g->b, keys, hashes, g->idx, inner,
			   g->sg_done);
	}
	dp_stage_mark(ctx, PMD_STAGE_ACTIONS);
}

void
dp_process_burst(struct dp_ctx *ctx, struct port *in, struct pkt_batch *b)
{
	dp_process_burst_at(ctx, in, b, rte_rdtsc());
}

void
dp_process_burst_at(struct dp_ctx *ctx, struct port *in, struct pkt_batch *b,
		    uint64_t t_rx)
{
	struct flow_key keys[BATCH_MAX];
	struct pkt_batch malformed;
	struct dp_inner inner;
	struct dp_recirc recirc[2];
	unsigned cur = 0;
	bool ext = false;

	ctx->stage_tsc = t_rx;
	if (unlikely(ctx->trace))
		dp_trace_rx(ctx, in, b);
	dp_rx(ctx, in, b, keys);

	/* NIC-marked packets skip parse and lookup; only the underlay port
	 * has offload rules */
	if (in->idx == ctx->snap->underlay_idx && ctx->snap->has_underlay) {
		if (ctx->offload) {
			/* what the mark path runs is inner megaflows */
			ctx->trace_pass = 1;
			dp_mark_path(ctx, b);
			ctx->trace_pass = 0;
			dp_stage_mark(ctx, PMD_STAGE_ACTIONS);
		}
		/* the VTEP's ARP and ND: policed and answered before any
		 * parsing */
		arp_steer_batch(ctx, b);
		dp_stage_mark(ctx, PMD_STAGE_ACTIONS);
	}
	pkt_batch_init(&malformed);
	if (miniflow_extract_batch_ext(b, keys, &malformed,
				       ctx->opts &
				       DP_OPT_BIT(DP_OPT_FAST_EXTRACT), &ext))
		dp_drop_batch(ctx, &malformed, DROP_MALFORMED);
	if (unlikely(ctx->trace))
		dp_trace_extract(ctx, in, b, keys);
	dp_stage_mark(ctx, PMD_STAGE_EXTRACT);

	/* step 1: the burst as received */
	pkt_batch_init(&inner.b);
	inner.n_runs = 0;
	inner.ext = false;
	recirc[cur].n = 0;
	recirc[cur].ext = false;
	ctx->recirc = &recirc[cur];
	lookup_and_execute(ctx, b, keys, NULL, &inner, false, ext);
	/* step 2: what tnl_pop decapsulated (no tnl_pop in this one) */
	if (inner.b.n) {
		ctx->trace_pass = 1;
		ctx->stats->recirculations += inner.b.n;
		lookup_and_execute(ctx, &inner.b, inner.keys, &inner, NULL,
				   false, inner.ext);
	}
	/* step 3: what ct(table=) recirculated, pass after pass; the last
	 * allowed pass has nowhere to recirculate to */
	for (unsigned depth = 1; recirc[cur].n; depth++) {
		struct dp_recirc *now = &recirc[cur];
		cur ^= 1;
		recirc[cur].n = 0;
		recirc[cur].ext = false;
		ctx->recirc = depth < DP_MAX_RECIRC ? &recirc[cur] : NULL;
		ctx->trace_pass = (uint8_t)(1 + depth);
		ctx->stats->recirculations += now->n;
		/* a burst's worth at a time: fragments a datagram finished
		 * can make a pass longer than a burst */
		for (uint16_t base = 0; base < now->n; base += BATCH_MAX) {
			struct pkt_batch chunk;
			chunk.n = RTE_MIN(now->n - base, BATCH_MAX);
			memcpy(chunk.pkts, &now->pkts[base],
			       chunk.n * sizeof chunk.pkts[0]);
			lookup_and_execute(ctx, &chunk, &now->keys[base],
					   NULL, NULL, true, now->ext);
		}
	}
	ctx->recirc = NULL;
	dp_upcall_release(ctx);
}
