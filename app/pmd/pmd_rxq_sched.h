/* SPDX-License-Identifier: BSD-3-Clause
 * Which PMD polls which rx queue, as OVS decides it (lib/dpif-netdev.c,
 * v3.1: sched_numa_list_schedule, pmd_rebalance_dry_run), as pure code
 * over plain arrays: no DPDK state, no port or PMD object, so that unit
 * tests pin every rule and the caller applies the result as it likes.
 *
 * The rules (other_config of OVS):
 *  - pmd-rxq-affinity: a pinned queue goes to its core. With
 *    pmd-rxq-isolate (default true) that PMD then takes no unpinned queue;
 *    a queue pinned to a core that is no PMD is scheduled as unpinned, with
 *    a warning in the log.
 *  - pmd-rxq-assign, for the unpinned queues, PMDs taken on the queue's
 *    NUMA node (any node with a non-isolated PMD if it has none), in core
 *    order:
 *      roundrobin  queues in port/queue order, PMDs 1,2,3,1,2,3...
 *      cycles      queues by measured load, highest first, PMDs
 *                  1,2,3,3,2,1,1,2... (up and down)
 *      group       each queue to the PMD with the lowest load so far
 *                  (while the queue has no measured load: the fewest
 *                  queues), the first in core order on ties.
 *  - pmd-auto-lb: when some non-isolated PMD was at or over
 *    pmd-auto-lb-load-threshold (95 %) for every interval of the window
 *    (RXQ_SCHED_INTERVAL_MAX in a row), every pmd-auto-lb-rebal-interval
 *    (1 min) a dry run schedules again and compares the variance of the
 *    PMDs' busy percentages now and after; it rebalances if the variance
 *    improves by pmd-auto-lb-improvement-threshold (25 %) or more.
 *
 * Loads are busy cycles summed over the window (the last
 * RXQ_SCHED_INTERVAL_MAX intervals), as OVS's cycle history is.
 */
#ifndef VXS_PMD_RXQ_SCHED_H
#define VXS_PMD_RXQ_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config.h"

/* OVS's PMD_INTERVAL_MAX and PMD_INTERVAL_LEN (3.x: 12 x 5 s; 2.x had
 * 6 x 10 s): the window pmd-rxq-show and the scheduler look at. The
 * interval's length is datapath.pmd-load-interval-ms (tests shorten it). */
#define RXQ_SCHED_INTERVAL_MAX 12
#define RXQ_SCHED_INTERVAL_MS_DEFAULT 5000

struct ds;

/* One rx queue. The caller fills the inputs; rxq_sched_assign() the
 * outputs. */
struct rxq_sched_q {
	/* in */
	uint32_t port;		/* the port's number: the tie-break between
				 * equal loads (OVS: odp port number) */
	uint16_t qid;
	const char *name;	/* the port's name, for the log */
	int numa;		/* the port's NUMA node; -1: unknown (any) */
	int pinned_lcore;	/* pmd-rxq-affinity; -1: not pinned */
	uint64_t load;		/* busy cycles measured over the window */
	int cur_pmd;		/* index of the PMD polling it now; -1: none */
	/* out */
	int pmd;		/* index of its PMD; -1: no PMD can poll it */
	bool pinned;		/* went to its pinned core */
};

/* One PMD. */
struct rxq_sched_pmd {
	/* in */
	unsigned lcore;
	int numa;
	uint64_t window_cycles;	/* TSC cycles of the window the loads were
				 * measured over; 0: unknown (busy 0 %) */
	bool overloaded;	/* rxq_sched_overloaded(), for the auto-lb */
	/* out */
	bool isolated;		/* has a pinned queue, pmd-rxq-isolate on */
	uint32_t n_rxqs;
	uint64_t load;		/* its queues' loads summed: the estimate */
};

struct rxq_sched_opts {
	enum cfg_rxq_assign assign;
	bool isolate;		/* pmd-rxq-isolate */
};

const char *rxq_sched_assign_name(enum cfg_rxq_assign a);

/* Assigns every queue (q[i].pmd, .pinned) and fills each PMD's outputs.
 * Appends one line per decision to log (may be NULL), OVS's words:
 * "Core  2 on numa node 0 assigned port 'vh0' rx queue 1 (measured
 * processing cycles 123)." The PMD array's order does not matter (PMDs
 * are taken in core order); q[i].cur_pmd is not looked at. Returns 0, or
 * -1 when out of memory (nothing assigned). */
int rxq_sched_assign(struct rxq_sched_q *q, size_t n_q,
		     struct rxq_sched_pmd *pmd, size_t n_pmd,
		     const struct rxq_sched_opts *opts, struct ds *log);

/* ---- pmd-auto-lb ---- */

struct rxq_sched_alb_params {
	unsigned load_threshold;	/* percent, default 95 */
	unsigned improvement_threshold;	/* percent, default 25 */
};

/* What a dry run found, for logs and tests. */
struct rxq_sched_dry_run {
	bool overloaded;	/* some non-isolated PMD over the threshold
				 * for the whole window */
	bool worth_trying;	/* not roundrobin; 2 or more non-isolated
				 * PMDs, one polling several queues */
	bool cross_numa;	/* the estimate polls across NUMA nodes with
				 * several nodes: OVS cannot estimate */
	int numa;		/* the node the numbers are for (the best
				 * improvement); -1: none compared */
	uint64_t cur_variance;	/* of the non-isolated PMDs' busy %, now */
	uint64_t est_variance;	/* after rescheduling */
	uint64_t improvement;	/* percent: (cur - est) * 100 / cur */
	bool rebalance;		/* the verdict */
};

/* The auto load balancer's dry run over the current assignment
 * (q[i].cur_pmd, loads, pmd[].window_cycles and .overloaded): schedules a
 * copy as rxq_sched_assign() would, compares, decides. q and pmd are not
 * changed. Debug lines go to log (may be NULL). Returns 0, -1 when out of
 * memory (out->rebalance false). */
int rxq_sched_dry_run(const struct rxq_sched_q *q, size_t n_q,
		      const struct rxq_sched_pmd *pmd, size_t n_pmd,
		      const struct rxq_sched_opts *opts,
		      const struct rxq_sched_alb_params *alb,
		      struct rxq_sched_dry_run *out, struct ds *log);

/* OVS's variance(): integer mean and squared differences, as it rounds. */
uint64_t rxq_sched_variance(const uint64_t *a, size_t n);

/* "Overloaded for long enough": one PMD's busy share per interval, fed
 * once per interval (OVS dp_netdev_pmd_try_optimize); only for
 * non-isolated PMDs while the auto-lb is on. */
struct rxq_sched_overload {
	unsigned intervals;	/* consecutive intervals at or over */
};

/* The interval's busy percent (busy * 100 / total), after counting it. */
unsigned rxq_sched_overload_update(struct rxq_sched_overload *o,
				   uint64_t busy, uint64_t total,
				   unsigned load_threshold);

static inline bool
rxq_sched_overloaded(const struct rxq_sched_overload *o)
{
	return o->intervals >= RXQ_SCHED_INTERVAL_MAX;
}

/* The rebalance timer (OVS dpif_netdev_run): the first call arms it, and
 * it is due once more than interval_ms have passed since the last time it
 * fired (or was armed); firing re-arms it. */
struct rxq_sched_timer {
	uint64_t last_ms;	/* 0: not armed */
};

bool rxq_sched_timer_due(struct rxq_sched_timer *t, uint64_t now_ms,
			 uint64_t interval_ms);

/* ---- the measurement window: one value per interval, newest last ---- */

struct rxq_sched_hist {
	uint64_t v[RXQ_SCHED_INTERVAL_MAX];
	uint32_t idx;		/* where the next one goes (mod MAX) */
};

/* Stores one interval's value (relaxed atomics: read by pmd-rxq-show). */
void rxq_sched_hist_push(struct rxq_sched_hist *h, uint64_t v);
/* The newest n values summed (OVS get_interval_values). */
uint64_t rxq_sched_hist_sum(const struct rxq_sched_hist *h, unsigned n);

#endif
