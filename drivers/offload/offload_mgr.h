/* SPDX-License-Identifier: BSD-3-Clause
 * The offload manager: one per port, an offload thread that turns the
 * PMDs' offload requests into NIC flow rules (rte_flow on an ethdev port,
 * or the software Flow Director model), so that no PMD ever waits on the
 * NIC's flow API (ice inserts synchronously, up to ~10 ms per rule).
 *
 *   PMD --ADD/DEL (rte_ring, MP/SC, never blocks)--> offload thread
 *   offload thread --completion (one SP/SC ring per PMD)--> PMD
 *
 * One NIC rule per rule pattern (offload_mark_table.h: OVS's
 * megaflow_to_mark with a reference count): megaflows of the same pattern
 * on several PMDs (one flow spread over rx queues polled by different
 * PMDs) share one rule and one mark. An ADD whose pattern has a rule,
 * installed or pending, makes its megaflow one more holder; it is answered
 * OK with that mark (at once if installed, with the others when pending).
 * A new pattern takes a mark id at once (1..max_marks, recycled, never 0
 * and never ICE_FDIR_MARK_INVALID; none left: failed as capacity) and waits
 * in the pending set, where the busiest (its holders' packets, refreshed)
 * go first under a token bucket; the thread builds the rule with
 * ice_fdir_rule_build(), validates then creates it, times the create, and
 * posts a completion to every holder. A DEL drops its megaflow's hold: the
 * rule is destroyed, and its mark recycled, when the last holder goes.
 *
 * Contract with the PMD (mark table, see README.md, "Who does what"):
 *  - a completion names the megaflow by id: the PMD ignores a completion
 *    for a megaflow it no longer has (deleted while the ADD was in flight;
 *    its DEL also drops its hold on the rule);
 *  - a shared mark is in the mark table of every PMD that holds the rule,
 *    each mapping it to its own megaflow; a PMD that polls a marked packet
 *    without holding the mark takes the full path;
 *  - on retire/revalidate-out/expiry the PMD clears its mark entry first,
 *    then calls offload_mgr_request_del() with the mark it knows, or 0 if
 *    the ADD's completion has not arrived yet (the thread then cancels the
 *    pending ADD, for that PMD only, or finds the rule by megaflow id);
 *  - a dropped ADD (-ENOBUFS) just leaves the flow in software; a dropped
 *    DEL must be retried by the PMD (the rule and its mark stay until then).
 * When the thread's pending set is full (2 x req_ring_size ADDs waiting for
 * rate-limit tokens) it stops draining the request ring, so a DEL can wait
 * behind inserts; harmless, as the PMD already ignores that mark.
 */
#ifndef VXS_OFFLOAD_MGR_H
#define VXS_OFFLOAD_MGR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "flow_key.h"
#include "ice_fdir_rule.h"

struct fdir_model;
struct offload_mgr;

/* How pending rules are chosen (offload_admit.h): fifo is the behaviour
 * before issue 14 and the zero value; the topology's default is weight. */
/* One list: the enum, its names (offload_admission_name/_parse). */
#define OFFLOAD_ADMISSIONS(X)						\
	/* offered at the upcall, ranked by packets, a refusal is	\
	 * final, never evicts */					\
	X(OFFLOAD_ADMIT_FIFO, "fifo")					\
	/* ranked by measured pps; full table: the hottest candidates	\
	 * evict the coldest rules (hysteresis, minimum residency) */	\
	X(OFFLOAD_ADMIT_WEIGHT, "weight")

#define OFFLOAD_X_ENUM(e, name) e,
enum offload_admission {
	OFFLOAD_ADMISSIONS(OFFLOAD_X_ENUM)
	OFFLOAD_ADMISSION_N
};

enum offload_engine_kind {
	OFFLOAD_ENGINE_ETHDEV,	/* rte_flow on params.eth_port_id */
	OFFLOAD_ENGINE_MODEL,	/* fdir_model_* on params.model */
};

struct offload_mgr_params {
	const char *name;		/* for logs; may be NULL */
	enum offload_engine_kind engine;
	uint16_t eth_port_id;		/* OFFLOAD_ENGINE_ETHDEV */
	struct fdir_model *model;	/* OFFLOAD_ENGINE_MODEL (not owned) */
	struct ice_fdir_target target;	/* group, tunnel port (probed) */
	uint32_t max_marks;		/* mark ids 1..max_marks; 0: 16384 */
	uint32_t max_inserts_per_sec;	/* token bucket rate; 0: unlimited */
	uint32_t insert_burst;		/* bucket depth; 0: 1 */
	uint32_t req_ring_size;		/* 0: 1024 */
	uint32_t compl_ring_size;	/* per PMD; 0: 1024 */
	uint16_t n_pmds;		/* completion rings, pmd index < n */
	enum offload_admission admission;
	uint32_t evict_hysteresis_pct;	/* weight: a candidate evicts a rule
					 * carrying less than 100/pct of its
					 * rate; 0: 200 (2x) */
	uint32_t evict_min_resident_ms;	/* weight: a rule younger than this
					 * is never evicted; 0: 1000 */
};

/* One list: the enum, its names (offload_result_name, offload/show) and
 * the counters stats.failed[] they index. */
#define OFFLOAD_RESULTS(X)						\
	X(OFFLOAD_OK, "ok")						\
	/* ice_fdir_rule_build: -ENOTSUP */				\
	X(OFFLOAD_FAIL_NOT_CANONICAL, "not_canonical")			\
	/* ENOSPC, create failed after validate, or no free mark id */	\
	X(OFFLOAD_FAIL_CAPACITY, "capacity")				\
	/* rte_flow_validate refused it */				\
	X(OFFLOAD_FAIL_VALIDATE, "validate")				\
	/* EEXIST: the NIC has that pattern, and not from us (ours	\
	 * are shared) */						\
	X(OFFLOAD_FAIL_EXISTS, "exists")				\
	/* DEL arrived before the ADD was done */			\
	X(OFFLOAD_FAIL_CANCELLED, "cancelled")				\
	/* create refused: the flow type's profile holds another	\
	 * input set (ice: EINVAL) */					\
	X(OFFLOAD_FAIL_PROFILE, "profile")				\
	/* ice's duplicate key (flow type, inner fields, tunnel type:	\
	 * not the VNI nor the outer IP) is held by a rule of another	\
	 * pattern, e.g. the same inner dst on another VNI */		\
	X(OFFLOAD_FAIL_COLLISION, "collision")				\
	/* a VXLAN rule, and no VXLAN port could be registered on the	\
	 * NIC */							\
	X(OFFLOAD_FAIL_NO_TUNNEL, "no_tunnel_port")

enum offload_result {
	OFFLOAD_RESULTS(OFFLOAD_X_ENUM)
	OFFLOAD_RESULT_N
};

/* REFRESH has no completion: it only re-ranks a pending ADD. EVICT is a
 * completion only (weight admission): the thread asks a holder of an
 * installed rule to let go; the PMD clears its mark entry, keeps the
 * megaflow in software (it may offer it again) and sends a DEL with that
 * mark, as when the megaflow leaves; the last holder's DEL destroys the
 * rule. */
enum offload_op { OFFLOAD_OP_ADD = 1, OFFLOAD_OP_DEL = 2,
		  OFFLOAD_OP_REFRESH = 3, OFFLOAD_OP_EVICT = 4 };

struct offload_completion {
	uint64_t megaflow_id;
	uint32_t mark;		/* ADD OK: the mark (maybe shared); DEL:
				 * the mark released; failure: 0 */
	uint8_t op;		/* enum offload_op */
	uint8_t result;		/* enum offload_result */
	uint16_t pmd;
};

struct offload_mgr_stats {
	uint64_t installed;	/* rules now */
	uint64_t created;	/* rules created, ever */
	uint64_t destroyed;
	uint64_t requests;	/* ADD + DEL accepted on the ring */
	uint64_t dropped_requests;	/* ring full: flow stays in software */
	uint64_t failed[OFFLOAD_RESULT_N];	/* by reason; [OK] unused */
	uint64_t rate_deferred;	/* ADDs that waited for a token */
	uint32_t queue_depth;	/* on the ring + pending in the thread */
	uint32_t marks_in_use;	/* rules installed or pending */
	uint32_t max_marks;
	uint64_t shared;	/* ADDs answered with a rule another
				 * megaflow of the same pattern holds */
	uint64_t holders;	/* megaflows holding a rule (pending or
				 * installed): >= marks_in_use */
	enum offload_admission admission;
	uint64_t threshold_pps;	/* weight: what a megaflow must carry to be
				 * offered; 0 while there is room */
	uint64_t evictions;	/* rules whose holders were asked to let go */
	uint32_t candidates;	/* ADDs in the thread's set, waiting */
	uint64_t lat_samples;
	double lat_p50_us, lat_p99_us, lat_max_us;	/* rte_flow_create */
};

/* NULL on error (rte_errno). The thread starts at once. */
struct offload_mgr *offload_mgr_create(const struct offload_mgr_params *p);
/* Stops the thread, destroys every installed rule, frees everything. */
void offload_mgr_destroy(struct offload_mgr *m);

/* PMD side; never blocks. 0, -ENOBUFS (ring full, counted as dropped) or
 * -EINVAL. Keys are masked (as in struct megaflow); inner_key/inner_mask
 * NULL for an outer-only rule. weight: fifo: the megaflow's packets so
 * far; weight: its rate in pps (a repeated ADD for a pending megaflow
 * refreshes it). */
int offload_mgr_request_add(struct offload_mgr *m, uint16_t pmd,
			    uint64_t megaflow_id,
			    const struct flow_key *outer_key,
			    const struct flow_key *outer_mask,
			    const struct flow_key *inner_key,
			    const struct flow_key *inner_mask,
			    uint64_t weight);
/* A megaflow's newer weight for its pending ADD (fifo: packets so far;
 * weight: pps), so that under the rate limit the busiest flows go first
 * by what they carry now, not by what they had carried when first asked
 * for. Ignored when the ADD is no
 * longer pending (done, failed or cancelled). Never blocks; -ENOBUFS
 * (harmless) once the ring is half full: the rest is kept for ADD/DEL. */
int offload_mgr_request_refresh(struct offload_mgr *m, uint16_t pmd,
				uint64_t megaflow_id, uint64_t weight);
/* ADDs waiting for the thread (on the ring or pending a token): what a
 * PMD reads to decide whether refreshing its counts is worth it. */
uint32_t offload_mgr_queue_depth(const struct offload_mgr *m);
/* The most requests that can wait for the thread: ring plus pending set. */
uint32_t offload_mgr_max_in_flight(const struct offload_mgr *m);
/* mark: the one the ADD's completion gave, or 0 if not known yet.
 * -ENOBUFS when the ring is full: the caller must retry (a lost DEL
 * leaves its rule on the NIC). */
int offload_mgr_request_del(struct offload_mgr *m, uint16_t pmd,
			    uint64_t megaflow_id, uint32_t mark);
/* Up to n completions for pmd; returns how many (0 if none). Only that
 * PMD may call it (single consumer). */
unsigned offload_mgr_poll_completions(struct offload_mgr *m, uint16_t pmd,
				      struct offload_completion *out,
				      unsigned n);

/* For the PMDs (weight admission). The threshold above: relaxed read. */
enum offload_admission offload_mgr_admission(const struct offload_mgr *m);
uint64_t offload_mgr_threshold(const struct offload_mgr *m);
/* The rate (pps) pmd's megaflow on installed rule mark now carries: what
 * makes a rule cold. A plain store into the PMD's own slot, read by the
 * thread; 0 when the PMD lets go of the mark (before its DEL). */
void offload_mgr_publish_rate(struct offload_mgr *m, uint16_t pmd,
			      uint32_t mark, uint32_t pps);

void offload_mgr_get_stats(const struct offload_mgr *m,
			   struct offload_mgr_stats *st);
/* The last failure counted as r: the engine's errno and rte_flow_error
 * message (the builder's reason for not_canonical / no_tunnel_port);
 * false if none yet. For offload/show. */
bool offload_mgr_last_failure(struct offload_mgr *m, enum offload_result r,
			      int *err, char *msg, size_t len);
const char *offload_result_name(enum offload_result r);
const char *offload_admission_name(enum offload_admission a);
/* "fifo" or "weight": 0, else -EINVAL. */
int offload_admission_parse(const char *s, enum offload_admission *out);

#endif
