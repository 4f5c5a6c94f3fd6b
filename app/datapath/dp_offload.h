/* SPDX-License-Identifier: BSD-3-Clause
 * The PMD's side of partial offload (drivers/offload/README.md): asking
 * the offload thread for a NIC rule when an inner megaflow is created
 * behind a tnl_pop, and taking its answers (dp_offload.c). The mark path
 * that sends a packet the NIC marked straight to its megaflow's actions is
 * mark_path.c; attach, detach and poll are in datapath.h.
 *
 * The mark table (mark -> megaflow) belongs to the PMD that made the
 * megaflows: only it fills, reads and clears it, so it needs no RCU. A
 * megaflow leaving (expiry, revalidation, flush) clears its mark first, so
 * a packet still marked by the NIC falls back to the full path. A mark is
 * only a hint: a packet takes the mark path only if the full path would
 * have sent it to the same megaflow (mark_check_strip), so a stale, reused
 * or bogus mark costs a fallback, never a wrong action.
 */
#ifndef VXS_DP_OFFLOAD_H
#define VXS_DP_OFFLOAD_H

#include "datapath.h"

enum mf_offload {
	MF_OFFLOAD_NONE,	/* never asked */
	MF_OFFLOAD_REQUESTED,	/* asked, no answer yet */
	MF_OFFLOAD_INSTALLED,	/* f->mark is live on the NIC */
	MF_OFFLOAD_FAILED,	/* refused: stays in software */
};

/* A DEL the request ring had no room for, retried from dp_offload_poll():
 * a lost DEL would leave its rule and mark on the NIC for good. */
struct offload_del {
	uint64_t megaflow_id;
	uint32_t mark;
};

/* After a megaflow f was installed in the PMD's classifier; outer: the
 * megaflow whose tnl_pop led to it (NULL: not an inner one, no request). */
void dp_offload_request(struct dp_ctx *ctx, struct megaflow *f,
			const struct megaflow *outer);
/* The periodic sweep's part (every PMD_SWEEP_INTERVAL_MS): each live
 * megaflow's rate, an EWMA of its pps over the sweep interval. fifo
 * admission: the packet counts of pending ADDs while the thread has a
 * backlog (busiest first). weight admission: installed megaflows publish
 * their rate (what makes a rule cold), pending ones refresh it, and the
 * DP_OFFLOAD_OFFERS_PER_SWEEP hottest of those never offered, refused for
 * room or evicted whose rate is above the thread's threshold are offered
 * (again) at the end of the sweep. */
#define DP_OFFLOAD_OFFERS_PER_SWEEP 256
struct dp_offload_sweep {
	uint64_t now, since, threshold;
	uint64_t tau, keep_q16, inc_q16;	/* the rate's factors */
	bool weight, refresh;
	uint32_t n;
	struct { uint32_t pps; struct megaflow *f; }
		top[DP_OFFLOAD_OFFERS_PER_SWEEP];	/* min-heap by pps */
};
void dp_offload_sweep_begin(struct dp_ctx *ctx, struct dp_offload_sweep *s,
			    uint64_t now);
void dp_offload_sweep_one(struct dp_ctx *ctx, struct dp_offload_sweep *s,
			  struct megaflow *f);
void dp_offload_sweep_end(struct dp_ctx *ctx, struct dp_offload_sweep *s);
/* Before f leaves the classifier. */
void dp_offload_retire(struct dp_ctx *ctx, struct megaflow *f);

#endif
