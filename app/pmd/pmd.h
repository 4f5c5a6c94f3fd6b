/* SPDX-License-Identifier: BSD-3-Clause
 * A PMD thread: one per core, polling its rx queues and owning everything
 * on its packet path (EMC, megaflow classifier, tx buffers, counters), so
 * that path takes no locks.
 *
 * The control thread reaches a PMD in two ways only:
 *  - a new dp_snapshot (RCU): the PMD revalidates its megaflows;
 *  - pmd_call(): a function run by the PMD between two bursts (dump flows,
 *    clear stats, flush), while the control thread waits, never longer
 *    than the PMD keeps answering (pmd_watch.h: a PMD stuck in a driver
 *    call is reported, not waited on).
 */
#ifndef VXS_PMD_H
#define VXS_PMD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <rte_cycles.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include "datapath.h"
#include "dp_stats.h"
#include "pmd_poll.h"
#include "pmd_rxq_sched.h"
#include "port.h"

#define PMD_MAX_RXQS 512

struct pmd_rxq {
	struct port *port;
	uint16_t qid;
	uint64_t packets;		/* received on this queue */
	uint64_t busy_cycles;		/* spent on its bursts */
	uint64_t intrvl_cycles;		/* the same, this load interval */
	struct rxq_sched_hist hist;	/* intrvl_cycles of the last intervals
					 * (pmd-rxq-show, the scheduler) */
	struct pmd_poll_q poll;		/* adaptive polling state, poll counts */
};

/* The PMD's side of the load window (OVS: intrvl_cycles,
 * busy_cycles_intrvl, pmd_overloaded): every pmd-load-interval-ms the PMD
 * stores its busy cycles and each queue's (pmd_load_roll, from its
 * housekeeping), which pmd-rxq-show and the rxq scheduler read. */
struct pmd_load {
	uint64_t interval_tsc;		/* pmd-load-interval-ms in TSC cycles */
	uint64_t next_tsc;		/* the current interval ends */
	uint64_t prev_tsc;		/* it began; 0: no interval yet */
	uint64_t intrvl_cycles;		/* TSC length of the last interval */
	struct rxq_sched_hist busy;	/* busy cycles per interval */
	uint64_t prev_busy, prev_idle, prev_sleep; /* stats at the last roll */
	unsigned load_threshold;	/* pmd-auto-lb-load-threshold */
	unsigned load_pct;		/* the last interval's busy percent */
	struct rxq_sched_overload overload;	/* intervals over threshold */
};

/* Called by pmd_alloc; pmd_load_roll by the PMD when now >= next_tsc. */
void pmd_load_init(struct pmd_load *l, const struct vxs_config *cfg);
struct pmd;
void pmd_load_roll(struct pmd *pmd, uint64_t now);

/* The counters (struct pmd_stats, struct pmd_port_stats), the stages
 * their cycles go to and the burst buckets are what the datapath
 * counts: app/datapath/dp_stats.h. The PMD owns them (struct pmd below)
 * and hands its datapath pointers to them. */

struct pmd_request {
	void (*fn)(struct pmd_request *req);
	struct pmd *pmd;
	void *arg;
	int done;
};

struct pmd {
	unsigned lcore;
	uint16_t idx;			/* 0..n_pmds-1: RCU id and tx sender */
	bool isolated;			/* polls only queues pinned to it
					 * (pmd-rxq-isolate; the scheduler's
					 * rxq_sched_pmd.isolated) */
	bool running;
	bool stop;

	uint16_t n_rxqs;
	struct pmd_rxq *rxqs;		/* PMD_MAX_RXQS; changed only by the
					 * PMD itself, in pmd_call (pmd_reconf.c) */

	struct dp_ctx dp;		/* its datapath: caches, classifier,
					 * tx buffers, options, snapshot */
	struct pmd_port_stats *port_stats;	/* one per port slot (PORT_MAX) */
	struct pmd_stats stats;
	uint32_t idle_backoff_us;
	struct pmd_backoff backoff;	/* idle back-off state */
	uint64_t next_sweep_tsc;
	struct pmd_load load;		/* the load window */

	struct pmd_request *req;	/* mailbox, set by the control thread */

	/* liveness (pmd_watch.h): written by the PMD, read by the control
	 * thread; with dp.io_where they say whether and where it is stuck */
	pthread_t thread;		/* its lcore's thread (pmd_interrupt) */
	uint64_t heartbeat_tsc;		/* the top of its latest iteration */
	bool silent_logged;		/* pmd_watch_tick: logged as silent, */
	uint64_t silent_hb;		/* ...at this heartbeat */
};

/* pmds[0..n_pmds-1] run; the array has room for CFG_MAX_CORES and is
 * never freed before exit, nor are a slot's rxqs and port_stats, so a
 * report reading them while set-pmd-cores replaces the PMDs reads stale
 * counters, never freed memory. */
extern struct pmd *pmds;
extern uint16_t n_pmds;
extern struct rte_mempool *pktmbuf_pool;

/* The pool's mbufs not in it now (show, telemetry, the leak check at
 * exit). */
static inline uint32_t
mbufs_in_use(void)
{
	return pktmbuf_pool ? pktmbuf_pool->size -
				      rte_mempool_avail_count(pktmbuf_pool)
			    : 0;
}
extern struct rte_rcu_qsbr *pmd_qsbr;
/* The session table every PMD's sg() uses (created after pmds_init, as
 * it frees through pmd_qsbr; NULL: none). */
extern struct conntrack *pmd_conntrack;
/* The fragment store every PMD's sg() and ct() use (with pmd_conntrack;
 * NULL: none, fragments are +inv). */
extern struct ct_ipf *pmd_ipf;
extern struct rte_ring *ctl_event_ring;	/* struct ctl_event (datapath.h) */

/* The ring's other end, on the control thread (ctl_events.c): takes what
 * the PMDs reported (ARP learned, MACs missing, retired megaflows'
 * counters) into the slow path's tables and sends the ARP requests; the
 * control loop calls it, and so does a command that must see the PMDs'
 * latest reports. */
void ctl_events_process(void);

/* The control clock's time (vxs_now_ms) of a TSC reading a PMD took
 * earlier, such as a megaflow's last hit; 0 stays 0 (never). */
uint64_t pmd_tsc_to_ms(uint64_t tsc);

/* The ARP requests and ND solicitations the control thread sends for
 * missing neighbours (ctl_events.c; limits/show). */
struct ctl_arp_stats {
	uint64_t sent;			/* ARP handed to the underlay's tx */
	uint64_t nd_sent;		/* NS handed to the underlay's tx */
	uint64_t rate_limited;		/* one per address per second */
	uint64_t no_mbuf;		/* pool empty: not sent */
	uint64_t tx_failed;		/* tx refused it (ring full, down) */
};
const struct ctl_arp_stats *ctl_arp_get_stats(void);
/* Forgets which addresses were asked for lately (their per-address rate
 * limit), as tnl/arp/flush does: the next miss asks at once. */
void ctl_arp_requests_forget(void);

/* The PMDs' shared state, once: the RCU variable (room for CFG_MAX_CORES
 * PMDs, so set-pmd-cores never replaces it), the event ring, pmds[]. */
int pmds_init(char *err, size_t errlen);
void pmds_fini(void);
/* The PMDs on cfg->pmd_cores, with their datapaths and their rx queues
 * (pmd_rxqs_rebalance). opts: the datapath optimisations (cfg->dp_opts at
 * start-up, what set-opt made them since on set-pmd-cores). */
int pmds_create(const struct vxs_config *cfg, uint32_t opts, char *err,
		size_t errlen);
/* Launches the PMDs that are not running (all, but for one that a failed
 * pmds_stop left running). */
int pmds_start(void);
/* Stops every PMD, interrupting one that stays inside a driver call
 * (pmd_watch.h); 0, or how many still run after PMD_STOP_MS (logged). */
unsigned pmds_stop(void);
void pmds_destroy(void);
struct pmd *pmd_by_core(uint16_t core);

/* Runs fn in the PMD's context between bursts and waits for it (runs it
 * here directly if the PMD is not running). -ETIMEDOUT, fn not run, when
 * the PMD is not answering (pmd_watch.h): silent for PMD_ANSWER_MS
 * already, or before it took the request. */
int pmd_call(struct pmd *pmd, void (*fn)(struct pmd_request *), void *arg);

/* Per PMD, exported for the control plane. */
void pmd_flush_flows(struct pmd *pmd);
/* Runs in the PMD (pmd_call): switches an optimisation; arg = the new bit
 * set. Megaflows are flushed when the lookup code they use changes. */
void pmd_set_opts(struct pmd_request *req);
void pmd_clear_stats(struct pmd *pmd);

/* The packet accounting equation (dp_stats.h), as the PMD reads it:
 * pmd_accounting_read() takes the terms from the PMD between two bursts
 * (pmd_call), where the equation holds exactly (pmd-stats-show, tests and
 * dpbench --check assert it); read from another thread, mid-burst, it is
 * only approximate. pmd_clear_stats() flushes the tx buffers first, so
 * nothing received before a clear is counted in flight after it. */
struct pmd_accounting {
	uint64_t received, copies;			/* what came in */
	uint64_t sent, consumed, dropped, in_flight;	/* where it is */
	int64_t held;		/* given to the fragment store less taken
				 * back (pmd_stats: ipf_stored - ipf_released) */
};

/* The equation's terms, read in the PMD between bursts (pmd_call): 0; or,
 * when the PMD is not answering, as pmd_accounting_peek sees them and
 * -ETIMEDOUT. */
int pmd_accounting_read(struct pmd *pmd, struct pmd_accounting *a);
/* The terms as the control thread sees them now, without stopping the
 * PMD: exact only while no packets move (telemetry). */
void pmd_accounting_peek(const struct pmd *pmd, struct pmd_accounting *a);
/* The terms of counters alone (none in flight). */
void pmd_accounting_peek_stats(const struct pmd_stats *s,
			       struct pmd_accounting *a);

/* As JSON ("accounting": {...}, for one PMD or summed over all, with
 * "balanced") and as a pmd-stats-show line. */
struct ds;
void pmd_accounting_json(struct ds *out, struct pmd *pmd);
void pmd_accounting_json_all(struct ds *out);
void pmd_accounting_text(struct ds *out, struct pmd *pmd);

static inline bool
pmd_accounting_balanced(const struct pmd_accounting *a)
{
	return (int64_t)(a->received + a->copies) ==
	       (int64_t)(a->sent + a->consumed + a->dropped + a->in_flight) +
	       a->held;
}

#endif
