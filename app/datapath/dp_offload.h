/* SPDX-License-Identifier: BSD-3-Clause
 * The PMD's side of partial offload (drivers/offload/README.md): asking
 * the offload thread for a NIC rule when an inner megaflow is created
 * behind a tnl_pop, taking its answers, and the mark path that sends a
 * packet the NIC marked straight to its megaflow's actions.
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

#include "pmd.h"

struct offload_mgr;

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

/* Gives pmd its mark table and DEL retry queue, sized from m's marks, and
 * turns offload on for it; -ENOMEM. Before the PMD runs. */
int dp_offload_attach(struct pmd *pmd, struct offload_mgr *m);
/* Offload off for pmd, its tables freed. With the PMD stopped. */
void dp_offload_detach(struct pmd *pmd);

/* After an inner megaflow f was installed in the PMD's classifier. */
void dp_offload_request(struct pmd *pmd, struct megaflow *f);
/* From the periodic sweep while the offload thread has a backlog: f's
 * packet count so far, so that the busiest flows are inserted first. */
void dp_offload_refresh(struct pmd *pmd, struct megaflow *f);
/* Before f leaves the classifier. */
void dp_offload_retire(struct pmd *pmd, struct megaflow *f);
/* Once per PMD loop: the offload thread's answers. */
void dp_offload_poll(struct pmd *pmd);
/* Takes the packets of b with a known NIC mark that pass the check out of
 * b and runs their megaflows' actions; b keeps the rest, in order, for the
 * full path (marked ones among them counted in stats.mark_fallbacks). */
void dp_offload_mark_path(struct pmd *pmd, struct pkt_batch *b);

#endif
