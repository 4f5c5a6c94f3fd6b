/* SPDX-License-Identifier: BSD-3-Clause
 * The PMD's megaflow table and its lifecycle: a fixed pool of megaflows
 * (max-megaflows, allocated at start), installed by the upcall (upcall.c)
 * and retired by revalidation (a new snapshot), idle expiry (the periodic
 * sweep) or a flush. Also the datapath context's set-up and options.
 */
#include <stdio.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include "config.h"
#include "dp_offload.h"
#include "dp_snapshot.h"
#include "dp_stages.h"
#include "dpcls.h"
#include "emc.h"
#include "recirc_id.h"
#include "xlate.h"

/* How long a megaflow that drops for want of a neighbour's MAC lives,
 * used or not: its upcall is what asks the control thread for an ARP
 * request, and while it is installed nothing else does. If that ARP (or its
 * reply) was lost, traffic that keeps hitting it would otherwise never
 * expire it. The control thread rate-limits the requests to one per
 * second per address (ctl_events.c); OVS gets the same retry from its
 * revalidators re-translating datapath flows. */
#define PMD_NEIGH_MISS_RETRY_MS 1000

struct megaflow *
dp_megaflow_alloc(struct dp_ctx *ctx)
{
	return ctx->n_free ? ctx->flow_free[--ctx->n_free] : NULL;
}

/* Between bursts: no packet of this PMD carries its recirc ids now. */
void
dp_megaflow_free(struct dp_ctx *ctx, struct megaflow *f)
{
	for (int i = 0; i < 2; i++) {
		recirc_id_unref(f->recirc_refs[i]);
		f->recirc_refs[i] = 0;
	}
	ctx->flow_free[ctx->n_free++] = f;
}

void
dp_megaflow_retire(struct dp_ctx *ctx, struct megaflow *f)
{
	if (f->rule_uid && f->n_packets) {
		struct ctl_event ev = { .type = CTL_EV_RULE_STATS,
					.rule_uid = f->rule_uid,
					.packets = f->n_packets,
					.bytes = f->n_bytes,
					.used_tsc = f->used_tsc };
		dp_push_event(ctx, &ev);
	}
	dp_offload_retire(ctx, f);	/* its mark first: no packet uses it */
	dpcls_remove(ctx->cls, f);
	__atomic_store_n(&ctx->n_megaflows, dpcls_count(ctx->cls),
			 __ATOMIC_RELAXED);
	f->dead = true;
}

struct sweep {
	struct dp_ctx *ctx;
	struct megaflow **dead;
	uint32_t n_dead;
	uint64_t now;
	bool all;			/* flush */
	bool revalidate;
	bool selective;		/* revalidate only those whose next hop or
				 * one of whose tables changed */
	bool label_renumbered;	/* retire those matching ct_label_bits */
	bool expire;
	struct dp_offload_sweep *offload;	/* rates, offers (expiry) */
};

static bool
nexthop_changed(const struct dp_snapshot *snap, const struct megaflow *f)
{
	for (int i = 0; i < DP_MAX_TNLS && f->nexthop[i]; i++)
		if (dp_snapshot_neigh_changed(snap, f->nexthop[i]))
			return true;
	return false;
}

static void
sweep_one(struct megaflow *f, void *aux)
{
	struct sweep *s = aux;
	bool retire = s->all;

	if (!retire && s->expire) {
		uint64_t last = RTE_MAX(f->used_tsc, f->created_tsc);
		retire = s->now - last > s->ctx->max_idle_tsc ||
			 (f->neigh_miss && s->now - f->created_tsc >
			  rte_get_tsc_hz() / 1000 * PMD_NEIGH_MISS_RETRY_MS);
		s->ctx->stats->megaflows_expired += retire;
	}
	/* its key's ct_label_bits were numbered by a predicate table that
	 * is gone (dp_snapshot.h): re-translating that key could agree */
	if (!retire && s->label_renumbered &&
	    megaflow_mask(f)->ct_label_bits) {
		retire = true;
		s->ctx->stats->megaflows_revalidated_out++;
	}
	if (!retire && s->revalidate && s->selective &&
	    !(f->tables & s->ctx->snap->tables_changed) &&
	    !nexthop_changed(s->ctx->snap, f)) {
		s->ctx->stats->megaflows_reval_skipped++;
	} else if (!retire && s->revalidate) {
		struct xlate_out xo;
		s->ctx->stats->megaflows_revalidated++;
		xlate(s->ctx->snap, &f->upcall_key, &xo);
		/* another rule now decides it, even with the same actions:
		 * its counters and last hit (idle_timeout) are that rule's
		 * from here, so it starts afresh */
		retire = memcmp(&xo.mask, megaflow_mask(f), sizeof xo.mask) ||
			 !dp_actions_equal(&xo.actions, &f->actions) ||
			 xo.rule_uid != f->rule_uid;
		if (!retire)	/* the walk may have met other tables */
			f->tables = xo.tables;
		xlate_out_release(&xo);	/* f holds its own */
		s->ctx->stats->megaflows_revalidated_out += retire;
	}
	if (retire) {
		dp_megaflow_retire(s->ctx, f);
		s->dead[s->n_dead++] = f;
	} else if (s->offload) {
		dp_offload_sweep_one(s->ctx, s->offload, f);
	}
}

static void
sweep_flows(struct dp_ctx *ctx, bool all, bool revalidate, bool selective,
	    bool label_renumbered, bool expire)
{
	struct sweep s = { .ctx = ctx, .all = all, .revalidate = revalidate,
			   .selective = selective, .expire = expire,
			   .label_renumbered = label_renumbered,
			   .now = rte_rdtsc() };

	if (!dpcls_count(ctx->cls))
		return;
	/* the periodic sweep also measures the megaflows' rates for
	 * offload admission */
	static __thread struct dp_offload_sweep ofs;
	if (expire && ctx->offload) {
		s.offload = &ofs;
		dp_offload_sweep_begin(ctx, &ofs, s.now);
	}
	s.dead = rte_malloc("sweep", dpcls_count(ctx->cls) * sizeof *s.dead,
			    0);
	if (!s.dead)
		return;
	dpcls_foreach(ctx->cls, sweep_one, &s);
	if (s.offload)
		dp_offload_sweep_end(ctx, s.offload);
	if (s.n_dead) {
		emc_purge_dead(ctx->emc);
		for (uint32_t i = 0; i < s.n_dead; i++)
			dp_megaflow_free(ctx, s.dead[i]);
	}
	rte_free(s.dead);
}


void
dp_revalidate(struct dp_ctx *ctx)
{
	const struct dp_snapshot *s = ctx->snap;
	/* Only neighbours or rules changed since the generation this PMD
	 * last saw: retranslate only the megaflows that used one of those
	 * neighbours or looked up one of those tables. A PMD that missed a
	 * generation does not know what it changed: all of them. */
	bool selective = s && !s->reval_all && s->gen == ctx->seen_gen + 1;

	ctx->stats->revalidations++;
	ctx->stats->revalidations_neigh += selective && !s->tables_changed;
	if (selective && !s->n_neigh_changed && !s->tables_changed)
		return;
	sweep_flows(ctx, false, true, selective,
		    s && s->label_preds_gen > ctx->seen_gen, false);
}

void
dp_expire_idle(struct dp_ctx *ctx, uint64_t now)
{
	(void)now;
	sweep_flows(ctx, false, false, false, false, true);
}

void
dp_flush_flows(struct dp_ctx *ctx)
{
	sweep_flows(ctx, true, false, false, false, false);
	emc_clear(ctx->emc);
}

void
dp_set_tx_flush_interval(struct dp_ctx *ctx, uint32_t us)
{
	ctx->tx_flush_tsc = rte_get_tsc_hz() / 1000000 * us;
}

void
dp_set_opts(struct dp_ctx *ctx, uint32_t opts)
{
	uint32_t changed = ctx->opts ^ opts;

	ctx->opts = opts;
	if (changed & DP_OPT_BIT(DP_OPT_EMC_BYPASS))	/* judge afresh */
		memset(ctx->emc_pass, 0, sizeof ctx->emc_pass);
	if (changed & DP_OPT_BIT(DP_OPT_SPECIALISED_DPCLS)) {
		/* A subtable's lookup is chosen when it is created. */
		dpcls_force_generic(ctx->cls,
				    !(opts & DP_OPT_BIT(DP_OPT_SPECIALISED_DPCLS)));
		dp_flush_flows(ctx);
	}
}

int
dp_ctx_init(struct dp_ctx *ctx, const struct vxs_config *cfg,
	    uint16_t n_ports, int socket, char *err, size_t errlen)
{
	ctx->max_flows = cfg->max_megaflows ? cfg->max_megaflows : 65536;
	ctx->trace = NULL;
	if (dp_trace_register(err, errlen))	/* its mbuf flag, once */
		return -1;
	ctx->emc = emc_create(socket);
	ctx->cls = dpcls_create(socket, ctx->max_flows);
	ctx->flow_pool = rte_zmalloc_socket("megaflows", ctx->max_flows *
					    sizeof *ctx->flow_pool, 64, socket);
	ctx->flow_free = rte_malloc_socket("megaflow_free", ctx->max_flows *
					   sizeof *ctx->flow_free, 0, socket);
	ctx->txbufs = rte_zmalloc_socket("txbufs", n_ports *
					 sizeof *ctx->txbufs, 64, socket);
	if (!ctx->emc || !ctx->cls || !ctx->flow_pool || !ctx->flow_free ||
	    !ctx->txbufs) {
		snprintf(err, errlen, "out of memory (%u megaflows)",
			 ctx->max_flows);
		return -1;
	}
	for (uint32_t i = 0; i < ctx->max_flows; i++)
		ctx->flow_free[i] = &ctx->flow_pool[ctx->max_flows - 1 - i];
	ctx->n_free = ctx->max_flows;
	ctx->opts = cfg->dp_opts;
	dp_set_tx_flush_interval(ctx, cfg->tx_flush_interval_us);
	arp_policer_init(&ctx->arp_policer, cfg->arp_rate, cfg->arp_burst,
			 rte_get_tsc_hz(), rte_rdtsc());
	dp_set_pmtud(ctx, cfg->pmtud, cfg->pmtud_rate, cfg->pmtud_burst);
	dpcls_force_generic(ctx->cls,
			    !(ctx->opts & DP_OPT_BIT(DP_OPT_SPECIALISED_DPCLS)));
	ctx->emc_insert_inv_prob = cfg->emc_insert_inv_prob;
	/* Outer IPv4 ids count up from a random start, as the kernel's
	 * ip_idents do: PMDs, each with its own counter, then do not send
	 * the same ids to a VTEP in step (DF is off, so ids must tell
	 * fragments apart), and a restart does not replay them from 0. */
	ctx->ip_id = (uint16_t)rte_rand();
	ctx->max_idle_tsc = rte_get_tsc_hz() / 1000 *
			    (cfg->flow_max_idle_ms ? cfg->flow_max_idle_ms
						   : 10000);
	return 0;
}

void
dp_ctx_fini(struct dp_ctx *ctx)
{
	if (ctx->cls)
		dp_flush_flows(ctx);
	dpcls_destroy(ctx->cls);
	emc_destroy(ctx->emc);
	rte_free(ctx->flow_pool);
	rte_free(ctx->flow_free);
	rte_free(ctx->txbufs);
	ctx->cls = NULL;
	ctx->emc = NULL;
	__atomic_store_n(&ctx->n_megaflows, 0, __ATOMIC_RELAXED);
	ctx->flow_pool = NULL;
	ctx->flow_free = NULL;
	ctx->txbufs = NULL;
}
