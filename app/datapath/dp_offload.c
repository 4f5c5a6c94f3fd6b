/* SPDX-License-Identifier: BSD-3-Clause
 * The PMD's offload requests: ADD when an inner megaflow is made behind a
 * tnl_pop (or, weight admission, from the sweep once it is hot enough),
 * DEL when it leaves or its rule is evicted, the rates the sweep measures,
 * the answers that fill the mark table (dp_offload.h). What the marks are
 * used for is mark_path.c. */
#include <errno.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include "dp_offload.h"
#include "dp_stages.h"
#include "dpcls.h"
#include "offload_mgr.h"

/* A megaflow's id for the offload thread: its slot in the PMD's pool and
 * the low half of its unique id, so an answer for a megaflow that has
 * since been freed (and its slot reused) is recognised as stale. */
static uint64_t
megaflow_offload_id(const struct dp_ctx *ctx, const struct megaflow *f)
{
	return (f->id << 32) | (uint64_t)(f - ctx->flow_pool);
}

/* A megaflow's rate, in 1/16 pps (RATE_FRAC_SHIFT: a tail flow's few pps
 * neither round to 0 nor stick): an exponential average with a time
 * constant of RATE_TAU_MS. Each sweep, the old rate decays by dt / tau and
 * each packet since adds 1 / tau pps (alpha 1/8 per 100 ms sweep). One
 * sweep's pps is noise at the tail: a Poisson count, and a flow of 5 pps
 * gives 0.5 packets per sweep. The average's variance is that of a count
 * over 2 tau = 1.6 s (ADMIT_RATE_WINDOW_MS, offload_admit.h, which the
 * thread's eviction test relies on). It starts at 0 and a megaflow's first
 * packets add to it like any others: one made by one packet just before a
 * sweep is a 1.25 pps flow, not a 100 pps one. An elephant is at half its
 * rate after 0.55 s, at 95 % after 2.4 s. */
#define RATE_TAU_MS 800
#define RATE_FRAC_SHIFT 4

/* What is left of a rate after dt (<= tau): 1 - dt / tau, in 1/2^16. */
static inline uint64_t
rate_keep_q16(uint64_t dt, uint64_t tau)
{
	return ((tau - dt) << 16) / tau;
}

static uint32_t
megaflow_pps(const struct megaflow *f)
{
	return (f->offload_rate + (1u << (RATE_FRAC_SHIFT - 1))) >>
	       RATE_FRAC_SHIFT;
}

/* The outer megaflows (key, mask) that inner ones were reached through,
 * kept so that the sweep can offer an inner megaflow long after its
 * upcall: a handful per PMD (one per VTEP address and VXLAN port). */
#define DP_OFFLOAD_OUTERS 8
struct dp_offload_outers {
	uint8_t n;
	struct { struct flow_key key, mask; } v[DP_OFFLOAD_OUTERS];
};

/* outer's index + 1 in the PMD's outers (added if new), 0 when full */
static uint8_t
outer_index(struct dp_ctx *ctx, const struct megaflow *outer)
{
	struct dp_offload_outers *o = ctx->offload_outers;

	for (uint8_t i = 0; i < o->n; i++)
		if (!memcmp(&o->v[i].key, &outer->key, sizeof outer->key) &&
		    !memcmp(&o->v[i].mask, megaflow_mask(outer),
			    sizeof o->v[i].mask))
			return i + 1;
	if (o->n == DP_OFFLOAD_OUTERS)
		return 0;
	o->v[o->n].key = outer->key;
	o->v[o->n].mask = *megaflow_mask(outer);
	return ++o->n;
}

static struct megaflow *
megaflow_by_offload_id(struct dp_ctx *ctx, uint64_t id)
{
	uint32_t slot = (uint32_t)id;
	struct megaflow *f;

	if (slot >= ctx->max_flows)
		return NULL;
	f = &ctx->flow_pool[slot];
	return !f->dead && (uint32_t)f->id == (uint32_t)(id >> 32) ? f : NULL;
}

/* The mark path runs a megaflow's actions without its packets' keys or
 * hashes: only actions that need neither may take it. */
static bool
actions_need_no_key(const struct dp_actions *a)
{
	for (int i = 0; i < a->n; i++)
		if (a->act[i].type != DP_ACT_OUTPUT &&
		    a->act[i].type != DP_ACT_SET_ETH_SRC &&
		    a->act[i].type != DP_ACT_SET_ETH_DST)
			return false;
	return a->n > 0;
}

int
dp_offload_attach(struct dp_ctx *ctx, struct offload_mgr *m)
{
	struct offload_mgr_stats st;

	offload_mgr_get_stats(m, &st);
	/* room for the DELs a PMD normally owes: one per installed rule
	 * (max_marks) plus one per ADD still on its way (the request ring and
	 * the thread's pending set); grown if ever short */
	ctx->del_retry_cap = st.max_marks + offload_mgr_max_in_flight(m);
	ctx->mark_table = rte_zmalloc("mark_table", (st.max_marks + 1) *
				      sizeof *ctx->mark_table, 64);
	ctx->del_retry = rte_malloc("offload_del_retry", ctx->del_retry_cap *
				    sizeof *ctx->del_retry, 64);
	ctx->offload_outers = rte_zmalloc("offload_outers",
					  sizeof *ctx->offload_outers, 64);
	ctx->offload_sweep_tsc = 0;
	if (!ctx->mark_table || !ctx->del_retry || !ctx->offload_outers) {
		dp_offload_detach(ctx);
		return -ENOMEM;
	}
	ctx->max_marks = st.max_marks;
	ctx->n_del_retry = 0;
	ctx->offload = m;
	return 0;
}

void
dp_offload_detach(struct dp_ctx *ctx)
{
	ctx->offload = NULL;
	rte_free(ctx->mark_table);
	rte_free(ctx->del_retry);
	rte_free(ctx->offload_outers);
	ctx->mark_table = NULL;
	ctx->del_retry = NULL;
	ctx->offload_outers = NULL;
	ctx->max_marks = ctx->n_del_retry = ctx->del_retry_cap = 0;
}

/* Rare (the initial size covers what a PMD normally owes): a burst of
 * failed ADDs whose answers the PMD has not read yet also owe a DEL. */
static void
del_retry_grow(struct dp_ctx *ctx)
{
	uint32_t cap = 2 * ctx->del_retry_cap;
	struct offload_del *d = rte_realloc(ctx->del_retry,
					    cap * sizeof *d, 64);
	if (d) {
		ctx->del_retry = d;
		ctx->del_retry_cap = cap;
	}
}

static void
del_retry_flush(struct dp_ctx *ctx)
{
	uint32_t done = 0;

	while (done < ctx->n_del_retry &&
	       offload_mgr_request_del(ctx->offload, ctx->idx,
				       ctx->del_retry[done].megaflow_id,
				       ctx->del_retry[done].mark) == 0)
		done++;
	if (done) {
		memmove(ctx->del_retry, ctx->del_retry + done,
			(ctx->n_del_retry - done) * sizeof *ctx->del_retry);
		ctx->n_del_retry -= done;
	}
}

void
dp_offload_request(struct dp_ctx *ctx, struct megaflow *f,
		   const struct megaflow *outer)
{
	/* an outer refused by the classifier (transient, upcall.c) has no
	 * mask to offload by: it is not in a subtable */
	if (!ctx->offload || !outer || !outer->subtable || f->key.recirc_id ||
	    !actions_need_no_key(&f->actions))
		return;
	/* Refused DELs go first: they give back NIC rules and marks. (An
	 * ADD overtaking a DEL of the same pattern is harmless: rules are
	 * shared by pattern, so it joins the rule and the DEL drops only
	 * its own megaflow's hold.) A full request ring is no error: the
	 * flow stays in software. */
	if (unlikely(ctx->n_del_retry)) {
		del_retry_flush(ctx);
		if (ctx->n_del_retry)
			return;
	}
	f->offload_outer = outer_index(ctx, outer);
	uint64_t weight = f->n_packets;
	if (offload_mgr_admission(ctx->offload) == OFFLOAD_ADMIT_WEIGHT) {
		/* a full table: its rate is not known yet, and what is not
		 * above the threshold is not worth the thread's time; the
		 * sweep offers it if it gets there */
		if (offload_mgr_threshold(ctx->offload))
			return;
		weight = megaflow_pps(f);
	}
	if (offload_mgr_request_add(ctx->offload, ctx->idx,
				    megaflow_offload_id(ctx, f), &outer->key,
				    megaflow_mask(outer), &f->key,
				    megaflow_mask(f), weight) == 0)
		f->offload = MF_OFFLOAD_REQUESTED;
}

/* From the sweep (weight admission): f again, with its rate. */
static bool
offer(struct dp_ctx *ctx, struct megaflow *f)
{
	const struct dp_offload_outers *o = ctx->offload_outers;
	uint8_t i = f->offload_outer - 1;

	if (offload_mgr_request_add(ctx->offload, ctx->idx,
				    megaflow_offload_id(ctx, f), &o->v[i].key,
				    &o->v[i].mask, &f->key, megaflow_mask(f),
				    megaflow_pps(f)) != 0)
		return false;
	f->offload = MF_OFFLOAD_REQUESTED;
	return true;
}

void
dp_offload_sweep_begin(struct dp_ctx *ctx, struct dp_offload_sweep *s,
		       uint64_t now)
{
	uint64_t hz = rte_get_tsc_hz(), tau = hz / 1000 * RATE_TAU_MS;

	s->now = now;
	s->since = ctx->offload_sweep_tsc;
	/* the average's factors for this sweep, in 1/2^16: one division
	 * each per sweep, not per megaflow (only a megaflow born since the
	 * last sweep has its own dt) */
	s->tau = tau;
	s->keep_q16 = rate_keep_q16(RTE_MIN(now - s->since, tau), tau);
	s->inc_q16 = ((hz << RATE_FRAC_SHIFT) << 16) / tau;
	s->weight = offload_mgr_admission(ctx->offload) ==
		    OFFLOAD_ADMIT_WEIGHT;
	s->threshold = offload_mgr_threshold(ctx->offload);
	s->refresh = offload_mgr_queue_depth(ctx->offload) > 0;
	s->n = 0;
	ctx->offload_sweep_tsc = now;
}

/* The K hottest offers of the sweep: a min-heap on pps. */
static void
heap_offer(struct dp_offload_sweep *s, struct megaflow *f)
{
	uint32_t i, pps = megaflow_pps(f);

	if (s->n < DP_OFFLOAD_OFFERS_PER_SWEEP) {
		i = s->n++;
		while (i && s->top[(i - 1) / 2].pps > pps) {
			s->top[i] = s->top[(i - 1) / 2];
			i = (i - 1) / 2;
		}
	} else if (pps > s->top[0].pps) {
		i = 0;
		for (;;) {
			uint32_t c = 2 * i + 1;
			if (c >= s->n)
				break;
			if (c + 1 < s->n && s->top[c + 1].pps < s->top[c].pps)
				c++;
			if (s->top[c].pps >= pps)
				break;
			s->top[i] = s->top[c];
			i = c;
		}
	} else {
		return;
	}
	s->top[i].pps = pps;
	s->top[i].f = f;
}

void
dp_offload_sweep_one(struct dp_ctx *ctx, struct dp_offload_sweep *s,
		     struct megaflow *f)
{
	/* the interval since the last sweep, or the megaflow's birth */
	uint64_t keep = f->created_tsc <= s->since ? s->keep_q16 :
			rate_keep_q16(RTE_MIN(s->now - f->created_tsc, s->tau),
				      s->tau);
	uint64_t rate = (((uint64_t)f->offload_rate * keep) >> 16) +
			(((f->n_packets - f->offload_pkts) * s->inc_q16) >> 16);
	f->offload_rate = (uint32_t)RTE_MIN(rate, (uint64_t)UINT32_MAX);
	f->offload_pkts = f->n_packets;
	uint32_t pps = megaflow_pps(f);
	if (!s->weight) {
		if (s->refresh && f->offload == MF_OFFLOAD_REQUESTED &&
		    f->n_packets)
			offload_mgr_request_refresh(ctx->offload, ctx->idx,
						    megaflow_offload_id(ctx, f),
						    f->n_packets);
		return;
	}
	if (f->offload == MF_OFFLOAD_INSTALLED)
		offload_mgr_publish_rate(ctx->offload, ctx->idx, f->mark,
					 pps);
	else if (f->offload == MF_OFFLOAD_REQUESTED && s->refresh)
		offload_mgr_request_refresh(ctx->offload, ctx->idx,
					    megaflow_offload_id(ctx, f), pps);
	else if (f->offload == MF_OFFLOAD_NONE && f->offload_outer &&
		 pps > s->threshold)
		heap_offer(s, f);
}

void
dp_offload_sweep_end(struct dp_ctx *ctx, struct dp_offload_sweep *s)
{
	/* a DEL waiting to be resent goes first (dp_offload_request) */
	if (ctx->n_del_retry)
		return;
	for (uint32_t i = 0; i < s->n; i++)
		if (!offer(ctx, s->top[i].f))
			break;		/* ring full: next sweep */
	s->n = 0;
}

void
dp_offload_retire(struct dp_ctx *ctx, struct megaflow *f)
{
	if (!ctx->offload || f->offload == MF_OFFLOAD_NONE ||
	    f->offload == MF_OFFLOAD_FAILED)
		return;
	if (f->mark) {
		ctx->mark_table[f->mark] = NULL;
		offload_mgr_publish_rate(ctx->offload, ctx->idx, f->mark, 0);
	}
	/* mark 0 (still pending): the thread cancels it by megaflow id.
	 * Behind earlier refused DELs, in order, or queued to retry. */
	struct offload_del d = { megaflow_offload_id(ctx, f), f->mark };
	if (ctx->n_del_retry || offload_mgr_request_del(
			ctx->offload, ctx->idx, d.megaflow_id, d.mark) != 0) {
		if (ctx->n_del_retry == ctx->del_retry_cap)
			del_retry_grow(ctx);
		if (ctx->n_del_retry < ctx->del_retry_cap)
			ctx->del_retry[ctx->n_del_retry++] = d;
		else
			ctx->stats->offload_dels_lost++;
	}
	f->mark = 0;
	f->offload = MF_OFFLOAD_NONE;
}

void
dp_offload_poll(struct dp_ctx *ctx)
{
	if (unlikely(ctx->n_del_retry))
		del_retry_flush(ctx);
	struct offload_completion c[32];
	unsigned n = offload_mgr_poll_completions(ctx->offload, ctx->idx, c,
						  RTE_DIM(c));

	for (unsigned i = 0; i < n; i++) {
		struct megaflow *f = megaflow_by_offload_id(ctx,
							    c[i].megaflow_id);
		if (c[i].op == OFFLOAD_OP_EVICT) {
			/* its mark entry goes first, then the DEL whose
			 * arrival lets the thread destroy the rule; the
			 * megaflow stays, in software, offered again when
			 * hot enough */
			if (f && f->offload == MF_OFFLOAD_INSTALLED &&
			    f->mark == c[i].mark)
				dp_offload_retire(ctx, f);
			continue;	/* else its DEL is on its way */
		}
		if (c[i].op != OFFLOAD_OP_ADD)
			continue;
		if (!f || f->offload != MF_OFFLOAD_REQUESTED)
			continue;	/* retired meanwhile: DEL is on its way */
		if (c[i].result == OFFLOAD_OK && c[i].mark &&
		    c[i].mark <= ctx->max_marks) {
			f->mark = c[i].mark;
			f->offload = MF_OFFLOAD_INSTALLED;
			ctx->mark_table[f->mark] = f;
		} else if (c[i].result == OFFLOAD_FAIL_CAPACITY &&
			   offload_mgr_admission(ctx->offload) ==
			   OFFLOAD_ADMIT_WEIGHT) {
			/* no room now: offered again if it beats the
			 * threshold */
			f->offload = MF_OFFLOAD_NONE;
		} else {
			f->offload = MF_OFFLOAD_FAILED;
		}
	}
}
