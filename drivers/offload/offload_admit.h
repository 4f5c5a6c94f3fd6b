/* SPDX-License-Identifier: BSD-3-Clause
 * Admission (offload_mgr's thread only, no locks): which pending rule goes
 * to the NIC next. The candidates (ADDs waiting for the NIC), their
 * ranking, the insertion-rate token bucket, and, in weight mode, the
 * eviction of the coldest installed rule when a much hotter candidate
 * waits and the table is full.
 *
 *   fifo    as before issue 14: asked for once, at the upcall, with the
 *           packets so far; queued ADDs ranked by their (refreshed) packet
 *           counts; a refused ADD (capacity) is final; never evicts.
 *   weight  requests carry the megaflow's measured rate (pps, the PMD's
 *           EWMA over its sweep interval); candidates without room wait
 *           (unclaimed: no mark, no NIC rule) in the bounded set, hottest
 *           first; one whose rate beats the coldest installed rule's by
 *           the hysteresis factor, by more than the rates' noise and by
 *           enough to pay for the eviction (offload_admit.c,
 *           evict_threshold()), that rule installed for at least the
 *           minimum residency, evicts it. An eviction asks the rule's
 *           holders to let go (completion op EVICT): each PMD clears its
 *           mark entry, then sends a DEL, and the last DEL destroys the
 *           rule as any DEL does, so no PMD maps a mark whose rule is
 *           gone or reused. Evictions take a token, as inserts do (a
 *           destroy costs the NIC too: ice programs each rule through
 *           its FDIR tx queue and busy-waits up to ICE_FDIR_MAX_WAIT_US =
 *           10 ms for the status, ice_rxtx.c:4559-4617 at v22.11, per
 *           drivers/offload/ice-pmd-sources.md). A full table is not told by
 *           its errno (ice: EINVAL "Add filter rule failed.", from the
 *           programming status, ice_rxtx.c:4510-4556): a create that the
 *           manager counts as capacity marks the NIC full until the next
 *           destroy, whatever the free marks say.
 *
 * The thread publishes an admission threshold: 0 while there is room, else
 * the least rate that evicts the coldest evictable rule; PMDs offer only
 * megaflows above it (dp_offload.c).
 */
#ifndef VXS_OFFLOAD_ADMIT_H
#define VXS_OFFLOAD_ADMIT_H

#include <stdbool.h>
#include <stdint.h>
#include "flow_key.h"
#include "offload_mgr.h"

/* One request on the ring, and one candidate in the set: a fixed-size
 * value. */
struct offload_req {
	struct flow_key outer_key, outer_mask;
	struct flow_key inner_key, inner_mask;
	uint64_t megaflow_id;
	uint64_t weight;	/* fifo: packets so far; weight: pps */
	uint32_t mark;		/* DEL: the PMD's; pending ADD: its rule's */
	uint16_t pmd;
	uint8_t op;		/* enum offload_op */
	uint8_t has_inner;
	uint8_t deferred;	/* thread-side: counted in rate_deferred */
	uint8_t unclaimed;	/* weight: canonical, waiting for room (no
				 * mark yet) */
	uint8_t pad[46];
};
_Static_assert(sizeof(struct offload_req) % 4 == 0, "ring elem size");

/* What the admission asks of the manager (offload_mgr.c). */
enum admit_claim {
	ADMIT_JOINED,		/* the pattern is on the NIC: now a holder,
				 * answered; the candidate is done */
	ADMIT_CLAIMED,		/* room: r->mark is its new pending rule */
	ADMIT_NO_ROOM,		/* every mark taken, or the NIC full */
};

struct admit_ops {
	/* the candidate's rule to the NIC (it has a mark) */
	void (*insert)(void *mgr, const struct offload_req *r);
	enum admit_claim (*claim)(void *mgr, struct offload_req *r);
	/* ask the holders of installed rule mark to let go */
	void (*evict)(void *mgr, uint32_t mark);
	/* an installed rule's rate (its holders' published pps together) */
	uint64_t (*rule_rate)(void *mgr, uint32_t mark);
	/* a candidate dropped from the full set (weight): answer it */
	void (*shed)(void *mgr, const struct offload_req *r);
	/* whether mark is an installed rule */
	bool (*installed)(void *mgr, uint32_t mark);
	/* a free mark (the NIC's room is admit's own nic_full) */
	bool (*has_room)(void *mgr);
	/* requests waiting on the ring: let them in between inserts */
	bool (*ring_busy)(void *mgr);
};

#define ADMIT_N_COLD 64			/* evictable rules kept per scan */
#define ADMIT_NIC_RELEARN_MS 10000
/* What the PMDs' rate estimate averages over, as the variance of a count
 * (dp_offload.c: an exponential average with tau 800 ms: 2 tau). */
#define ADMIT_RATE_WINDOW_MS 1600

struct offload_admit {
	enum offload_admission mode;
	struct admit_ops ops;
	void *mgr;

	struct offload_req *cand;	/* ascending weight when !dirty */
	struct offload_req *scratch;	/* the sort's other half */
	struct offload_req **order;	/* the sort's pointers */
	unsigned n, cap;
	bool dirty;
	uint64_t next_sort_tsc;

	/* token bucket: inserts and evictions */
	double tokens;
	uint64_t last_refill, tsc_hz;
	uint32_t per_sec, burst;

	/* weight mode */
	uint32_t max_marks;
	uint32_t hysteresis_pct;
	double evict_min_gain_pps;	/* an eviction's payback (ethdev) */
	uint64_t min_resident_tsc;
	uint64_t *installed_tsc;	/* [mark] when its rule was created */
	uint8_t *evicting;		/* [mark] its holders were asked */
	uint32_t n_evicting;		/* marks that will be free soon */
	bool nic_full;			/* a create failed for room; until
					 * the next destroy */
	/* The NIC's size, learnt from its refusal: ice has no API for it
	 * (GLQF_FD_SIZE is only logged) and a full table is only a failed
	 * create (~10 ms on an E810). Once learnt, a candidate waits for a
	 * rule to go instead of trying and failing after each eviction;
	 * forgotten after ADMIT_NIC_RELEARN_MS, so that a shared pool
	 * other ports gave back is found again (one failed create at most
	 * per period). */
	uint32_t n_rules;		/* rules on the NIC */
	uint32_t nic_cap;		/* 0: not known */
	uint64_t nic_cap_tsc;		/* when it was learnt */
	struct { uint32_t mark; uint64_t rate; } cold[ADMIT_N_COLD];
	unsigned n_cold, cold_pos;	/* the coldest evictable, ascending */
	uint64_t next_scan_tsc;
	uint64_t threshold;		/* published (relaxed atomics) */
	uint64_t evictions;		/* published */
	uint64_t deferred;		/* published: rate_deferred */
};

/* 0 or -ENOMEM. cap: the candidate set's bound. */
int admit_init(struct offload_admit *a, const struct offload_mgr_params *p,
	       unsigned cap, const struct admit_ops *ops, void *mgr);
void admit_fini(struct offload_admit *a);

/* ---- the candidate set ---- */
void admit_push(struct offload_admit *a, const struct offload_req *r,
		uint32_t mark, bool unclaimed);
/* The candidate of mark, or for mark 0 the unruled one (non-canonical or
 * unclaimed) of (pmd, megaflow_id): its index, or -1. */
int admit_find(const struct offload_admit *a, uint32_t mark, uint16_t pmd,
	       uint64_t megaflow_id);
void admit_remove(struct offload_admit *a, int i);
void admit_set_weight(struct offload_admit *a, int i, uint64_t weight);
static inline bool
admit_full(const struct offload_admit *a)
{
	return a->n >= a->cap;
}

/* ---- the manager's news ---- */
void admit_on_installed(struct offload_admit *a, uint32_t mark);
/* A rule was destroyed (or never made it): its mark is free. */
void admit_on_freed(struct offload_admit *a, uint32_t mark);
/* rte_flow_create failed for room (weight mode: the NIC is full until a
 * destroy, whatever the marks say). */
void admit_on_nic_full(struct offload_admit *a);
/* A rule being evicted is wanted again (an ADD joined it). */
bool admit_is_evicting(const struct offload_admit *a, uint32_t mark);

/* One round: inserts (and evictions) while tokens last; true if it did
 * anything. */
bool admit_run(struct offload_admit *a);

#endif
