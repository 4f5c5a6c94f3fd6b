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
 * the inner pass), so keys[0]'s stands for the pass. *judge: where to
 * report the lookup's misses (emc_pass_update), NULL when not asked. */
static inline enum emc_use
emc_use_for(struct dp_ctx *ctx, const struct flow_key keys[], bool recirc,
	    struct dp_emc_pass **judge)
{
	*judge = NULL;
	if (!ctx->emc_insert_inv_prob || recirc)
		return EMC_NONE;
	if (!(ctx->opts & DP_OPT_BIT(DP_OPT_EMC_BYPASS)))
		return EMC_USE;

	struct dp_emc_pass *p = emc_pass_of(ctx, keys[0].in_port);

	*judge = p;
	if (p->miss_ewma < DP_EMC_BYPASS_MISS)
		return EMC_USE;
	if (++p->skipped < DP_EMC_PROBE_EVERY)
		return EMC_BYPASS;
	p->skipped = 0;
	p->probing = true;
	return EMC_PROBE;
}

/* What a pass's lookup of n keys says about the EMC. A probe's verdict
 * stands alone: one burst that hits ends the bypass. No division in the
 * common cases (all hit, all miss): n is often small, and a divide costs
 * more than the rest of this. */
static inline void
emc_pass_update(struct dp_emc_pass *p, uint32_t n, uint32_t misses)
{
	int32_t rate = misses == 0 ? 0 : misses == n ? 1024
		       : (int32_t)(misses * 1024 / n);

	if (p->probing) {
		p->probing = false;
		p->miss_ewma = (uint16_t)rate;
	} else {
		p->miss_ewma = (uint16_t)(p->miss_ewma +
					  (rate - (int32_t)p->miss_ewma) / 8);
	}
}

#endif
