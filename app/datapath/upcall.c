/* SPDX-License-Identifier: BSD-3-Clause
 * The upcall stage: a packet that missed the EMC and the classifier is
 * translated by the slow path (xlate, against the PMD's snapshot) and its
 * megaflow installed in this PMD's classifier, from the PMD's own table of
 * preallocated megaflows (megaflow.c).
 *
 * An install the classifier refuses because the megaflow's hash chain is
 * full (DPCLS_MAX_CHAIN: someone found colliding keys despite the keyed
 * hash) does not lose the packet: the megaflow is executed for it as OVS
 * executes an upcall it could not install, marked dead so that the EMC
 * does not cache it, and freed at the end of the burst. Counted in
 * pmd-stats-show (megaflows_chain_refused).
 */
#include <errno.h>
#include <string.h>
#include <rte_cycles.h>
#include "dp_offload.h"
#include "dp_stages.h"
#include "dpcls.h"
#include "xlate.h"

struct megaflow *
dp_upcall(struct dp_ctx *ctx, const struct flow_key *key,
	  const struct megaflow *outer)
{
	struct xlate_out xo;
	struct flow_key masked;
	struct megaflow *f;

	xlate(ctx->snap, key, &xo);
	if (!neigh_addr_is_zero(&xo.need_neigh)) {
		struct ctl_event ev = { .type = CTL_EV_NEIGH_MISS,
					.addr = xo.need_neigh };
		dp_push_event(ctx, &ev);
	}
	flow_key_mask(&masked, key, &xo.mask);
	/* An earlier packet of this burst may have installed it already. */
	f = dpcls_find(ctx->cls, &masked, &xo.mask);
	if (f) {
		xlate_out_release(&xo);	/* f holds its own */
		return f;
	}
	f = dp_megaflow_alloc(ctx);
	if (!f) {
		xlate_out_release(&xo);
		return NULL;
	}
	memset(f, 0, sizeof *f);
	f->key = masked;
	f->actions = xo.actions;
	f->actions.sg_at = dp_actions_sg_leading(&f->actions);
	f->upcall_key = *key;
	f->rule_uid = xo.rule_uid;
	f->neigh_miss = !neigh_addr_is_zero(&xo.need_neigh);
	memcpy(f->nexthop, xo.nexthop, sizeof f->nexthop);
	f->tables = xo.tables;
	memcpy(f->recirc_refs, xo.recirc_refs, sizeof f->recirc_refs);
	f->id = ++ctx->next_flow_id;
	f->created_tsc = rte_rdtsc();
	int rc = dpcls_insert(ctx->cls, f, &xo.mask);

	if (rc == -EMLINK && ctx->n_transient < DP_TRANSIENT_MAX) {
		ctx->stats->megaflows_chain_refused++;
		f->dead = true;
		ctx->transient[ctx->n_transient++] = f;
		return f;
	}
	if (rc) {
		ctx->stats->megaflows_chain_refused += rc == -EMLINK;
		dp_megaflow_free(ctx, f);
		return NULL;
	}
	__atomic_store_n(&ctx->n_megaflows, dpcls_count(ctx->cls),
			 __ATOMIC_RELAXED);
	dp_offload_request(ctx, f, outer);
	return f;
}

/* No packet of the burst is left: none executes them again, and the EMC
 * never held them (dead). */
void
dp_upcall_release(struct dp_ctx *ctx)
{
	while (ctx->n_transient)
		dp_megaflow_free(ctx, ctx->transient[--ctx->n_transient]);
}
