/* SPDX-License-Identifier: BSD-3-Clause
 * emc-bypass: whether a lookup pass uses the EMC (dp_pipeline.c). With
 * many microflows the EMC mostly misses, and its lookup, inserts and
 * (on the inner pass) the microflow hash are wasted; the pass then goes
 * straight to dpcls. The state is per in_port (struct dp_emc_pass,
 * datapath.h). Measured in perf/README.md ("emc-bypass, cls-port-hint").
 * A header so that test_emc_bypass.c drives the same code.
 */
#ifndef VXS_EMC_BYPASS_H
#define VXS_EMC_BYPASS_H

#include "datapath.h"
#include "dp_opts.h"
#include "flow_key.h"

/* How a lookup pass uses the EMC. */
enum emc_use {
	EMC_NONE,	/* recirculated pass, or the EMC is off */
	EMC_USE,	/* look up; insert at 1/emc-insert-inv-prob */
	EMC_BYPASS,	/* emc-bypass: this in_port's passes miss it */
	EMC_PROBE,	/* emc-bypass's probe: look up, insert every miss */
};

static inline struct dp_emc_pass *
emc_pass_of(struct dp_ctx *ctx, uint16_t in_port)
{
	struct dp_emc_pass *p =
		&ctx->emc_pass[in_port & (DP_EMC_PASS_SLOTS - 1)];

	if (p->in_port != in_port)
		*p = (struct dp_emc_pass){ .in_port = in_port };
	return p;
}

/* Every key of a pass has its in_port (one rx port, or the tunnel port on
 * the inner pass), so keys[0]'s stands for the pass. */
static inline enum emc_use
emc_use_for(struct dp_ctx *ctx, const struct flow_key keys[], bool recirc)
{
	if (!ctx->emc_insert_inv_prob || recirc)
		return EMC_NONE;
	if (!(ctx->opts & DP_OPT_BIT(DP_OPT_EMC_BYPASS)))
		return EMC_USE;

	struct dp_emc_pass *p = emc_pass_of(ctx, keys[0].in_port);

	if (p->miss_ewma < DP_EMC_BYPASS_MISS)
		return EMC_USE;
	if (++p->skipped < DP_EMC_PROBE_EVERY)
		return EMC_BYPASS;
	p->skipped = 0;
	return EMC_PROBE;
}

/* emc-bypass: what this pass's lookup says about the EMC. A probe's
 * verdict stands alone: one burst that hits ends the bypass. */
static inline void
emc_pass_update(struct dp_ctx *ctx, const struct flow_key keys[],
		enum emc_use use, uint32_t n, uint32_t misses)
{
	struct dp_emc_pass *p = emc_pass_of(ctx, keys[0].in_port);
	int32_t rate = (int32_t)(misses * 1024 / n);

	if (use == EMC_PROBE)
		p->miss_ewma = (uint16_t)rate;
	else
		p->miss_ewma = (uint16_t)(p->miss_ewma +
					  (rate - (int32_t)p->miss_ewma) / 8);
}

#endif
