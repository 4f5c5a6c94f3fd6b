/* SPDX-License-Identifier: BSD-3-Clause
 * The PMD's offload requests: ADD when an inner megaflow is made behind a
 * tnl_pop, DEL when it leaves, the answers that fill the mark table
 * (dp_offload.h). What the marks are used for is mark_path.c. */
#include <errno.h>
#include <string.h>
#include <rte_malloc.h>
#include "dp_offload.h"
#include "dp_stages.h"
#include "offload_mgr.h"

/* A megaflow's id for the offload thread: its slot in the PMD's pool and
 * the low half of its unique id, so an answer for a megaflow that has
 * since been freed (and its slot reused) is recognised as stale. */
static uint64_t
megaflow_offload_id(const struct dp_ctx *ctx, const struct megaflow *f)
{
	return (f->id << 32) | (uint64_t)(f - ctx->flow_pool);
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
	if (!ctx->mark_table || !ctx->del_retry) {
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
	ctx->mark_table = NULL;
	ctx->del_retry = NULL;
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
	if (!ctx->offload || !outer || f->key.recirc_id ||
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
	if (offload_mgr_request_add(ctx->offload, ctx->idx,
				    megaflow_offload_id(ctx, f), &outer->key,
				    &outer->mask, &f->key, &f->mask,
				    f->n_packets) == 0)
		f->offload = MF_OFFLOAD_REQUESTED;
}

void
dp_offload_refresh(struct dp_ctx *ctx, struct megaflow *f)
{
	if (f->offload == MF_OFFLOAD_REQUESTED && f->n_packets)
		offload_mgr_request_refresh(ctx->offload, ctx->idx,
					    megaflow_offload_id(ctx, f),
					    f->n_packets);
}

void
dp_offload_retire(struct dp_ctx *ctx, struct megaflow *f)
{
	if (!ctx->offload || f->offload == MF_OFFLOAD_NONE ||
	    f->offload == MF_OFFLOAD_FAILED)
		return;
	if (f->mark)
		ctx->mark_table[f->mark] = NULL;
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
		if (c[i].op != OFFLOAD_OP_ADD)
			continue;
		struct megaflow *f = megaflow_by_offload_id(ctx,
							    c[i].megaflow_id);
		if (!f || f->offload != MF_OFFLOAD_REQUESTED)
			continue;	/* retired meanwhile: DEL is on its way */
		if (c[i].result == OFFLOAD_OK && c[i].mark &&
		    c[i].mark <= ctx->max_marks) {
			f->mark = c[i].mark;
			f->offload = MF_OFFLOAD_INSTALLED;
			ctx->mark_table[f->mark] = f;
		} else {
			f->offload = MF_OFFLOAD_FAILED;
		}
	}
}
