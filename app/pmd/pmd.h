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

/* Where a PMD's busy cycles go (pmd-perf-show, perf/dpbench, perf/e2e-bench).
 * Each stage boundary reads the TSC once and charges the cycles since the
 * previous boundary to the stage that just ended (dp_stage_mark; the PMD
 * loop keeps the same chain for the I/O stages), so a decapsulated
 * packet's second pass (inner extract, hash, lookup) lands in the same
 * stages and nothing is counted twice. A busy iteration's cycles are the
 * sum of its stages but for a few instructions between boundaries
 * ("other" in pmd-perf-show). With the io-timing option off, rx and empty
 * polls are not timed (they fall into "other") and a flush's tx bursts
 * are charged to flush; the rest stays. A tx stage includes its send's
 * bookkeeping (lengths, counters; dp_tx.c). */
#define PMD_STAGES(X)                                                       \
	X(RX_NIC,   "rx_nic")	/* ethdev rx bursts that got packets */     \
	X(RX_VHOST, "rx_vhost")	/* vhost dequeues that got packets */       \
	X(POLL_EMPTY, "poll_empty") /* rx calls that got none (busy rounds) */\
	X(EXTRACT, "extract")	/* miniflow extract, outer and inner */     \
	X(HASH,    "hash")	/* microflow hash (with hash-reuse) */      \
	X(EMC,     "emc")	/* exact match lookup and inserts */        \
	X(DPCLS,   "dpcls")	/* megaflow classifier */                   \
	X(UPCALL,  "upcall")	/* misses: translate and install */         \
	X(ACTIONS, "actions")	/* group by flow, encap/decap, tx buffering */\
	X(TX_NIC,  "tx_nic")	/* ethdev tx bursts (buffer full or flush) */\
	X(TX_VHOST, "tx_vhost")	/* vhost enqueues, with the mbufs' free */  \
	X(FLUSH,   "flush")	/* the tx buffers' scan and bookkeeping */  \
	X(LOOP,    "loop")	/* snapshot, housekeeping, mailbox, RCU */

enum pmd_stage {
#define X(id, name) PMD_STAGE_##id,
	PMD_STAGES(X)
#undef X
	PMD_N_STAGES
};

const char *pmd_stage_name(enum pmd_stage s);

/* Which I/O stages a port's bursts are charged to: vhost for vhost-user
 * ports and for dpbench's null VM ports (not the underlay), NIC for the
 * rest (ethdev: the NIC, tap, af_packet, pcap). */
static inline bool
pmd_port_io_vhost(const struct port *p)
{
	return p->kind == PORT_VHOST ||
	       (p->kind == PORT_NULL && !p->is_underlay);
}

/* Bursts received, by size: 1, 2-3, 4-7, 8-15, 16-31, 32. */
#define PMD_BURST_BUCKETS 6

static inline unsigned
pmd_burst_bucket(uint16_t n)
{
	return n >= 32 ? 5 : 31 - __builtin_clz(n | 1);
}

/* Packet accounting, per PMD. Every packet a PMD receives from a port ends
 * in exactly one of: sent (a port's tx took it), consumed (an ARP reply for
 * our VTEP, learned from), or dropped under one drop reason (drop_reason.h);
 * until then it is in flight (in a tx buffer) or held (an IPv4 fragment
 * the fragment store keeps for the tracker until its datagram is whole:
 * dp_ipf.h). Accounting is per copy: an output that is not a rule's last
 * makes a copy (copies), and each copy ends on its own like a received
 * packet, so a packet output to N ports counts N - 1 copies and N ends:
 *
 *   packets + copies = tx_packets + arp_consumed + sum(drops) + in_flight
 *                      + held
 *
 * held = ipf_stored - ipf_released: the fragments this PMD gave to the
 * store less those it took out of it. The store is shared: a datagram
 * begun on one PMD may be finished (its fragments sent) by another, so
 * one PMD's held may be negative; summed over the PMDs it is what the
 * store holds (dpctl/ipf-get-status "num frag"), 0 once it is empty.
 *
 * pmd_accounting_read() takes the terms from the PMD between two bursts
 * (pmd_call), where the equation holds exactly (pmd-stats-show, tests and
 * dpbench --check assert it); read from another thread, mid-burst, it is
 * only approximate. pmd_clear_stats() flushes the tx buffers first, so
 * nothing received before a clear is counted in flight after it. */
/* The PMD's scalar counters, one row each, hot ones first (the datapath
 * bumps them per burst or per packet; the rest per revalidation, sleep or
 * rare failure). This one list makes struct pmd_stats and every report of
 * it: pmd-stats-show --json and telemetry's /vxswitch/pmd_stats print each
 * row under its field name, so no report can miss a counter. The text of
 * pmd-stats-show is OVS's, line for line (control/cmd_pmd_ovs.c, which
 * maps the rows OVS has a line for onto it); a row whose 'text' is
 * PMD_TEXT_MORE is a line "  <label>: N" of what -m adds after it, in
 * list order; a PMD_TEXT_NONE row (no label) appears only in OVS's lines,
 * inside a derived line (an average, a percentage) or not at all.
 * X(field, text, label). */
#define PMD_STATS(X)                                                          \
	X(packets,        PMD_TEXT_NONE, "") /* OVS: packets received */      \
	/* packets entering a second or later pass: a tnl_pop's inner pass \
	 * and each ct(table=) recirculation, as OVS counts them (both are \
	 * recirculations there): avg. datapath passes per packet */       \
	X(recirculations, PMD_TEXT_NONE, "")                                  \
	X(tunnel_pops,    PMD_TEXT_MORE,                                      \
	  "tunnel pops (inner lookups, same pass)")                           \
	X(tunnel_pushes,  PMD_TEXT_MORE,   "tunnel pushes")                   \
	/* took the NIC-mark path (OVS: phwol hits) */                        \
	X(mark_hits,      PMD_TEXT_MORE,                                      \
	  "NIC-marked (parse and lookup skipped)")                            \
	/* NIC-marked, sent to the full path: unknown or stale mark, or not   \
	 * what the mark's megaflow matches */                                \
	X(mark_fallbacks, PMD_TEXT_MORE,                                      \
	  "NIC-marked, full path (unknown/stale mark or check failed)")       \
	X(emc_hits,       PMD_TEXT_NONE, "") /* OVS: emc hits */              \
	X(megaflow_hits,  PMD_TEXT_NONE, "") /* OVS: megaflow hits */         \
	/* misses sent to translation (OVS: miss with success upcall) */      \
	X(upcalls,        PMD_TEXT_NONE, "")                                  \
	X(copies,         PMD_TEXT_NONE, "") /* for outputs but the last */   \
	X(tx_batches,     PMD_TEXT_NONE, "") /* port tx bursts */             \
	X(tx_packets,     PMD_TEXT_NONE, "") /* sent by them */               \
	X(polls,          PMD_TEXT_NONE, "") /* rx calls (empty or not) */ \
	X(polls_empty,    PMD_TEXT_NONE, "") /* rx calls that got none */   \
	/* of packets and tx_batches/tx_packets: the vhost ports' share     \
	 * (pmd_port_io_vhost); the rest is the NIC's */                    \
	X(rx_bursts_vhost,  PMD_TEXT_NONE, "")                              \
	X(rx_packets_vhost, PMD_TEXT_NONE, "")                              \
	X(tx_batches_vhost, PMD_TEXT_NONE, "")                              \
	X(tx_packets_vhost, PMD_TEXT_NONE, "")                              \
	/* iterations that received or sent some, with the loop's own */    \
	X(busy_cycles,    PMD_TEXT_NONE, "")                                  \
	X(idle_cycles,    PMD_TEXT_NONE, "")                                  \
	X(iterations,     PMD_TEXT_NONE, "")                                  \
	X(upcall_cycles,  PMD_TEXT_NONE, "")                                  \
	X(arp_consumed,   PMD_TEXT_NONE, "") /* replies to our VTEP: learned */ \
	X(arp_replies,    PMD_TEXT_NONE, "") /* we sent, for our VTEP's IP */ \
	X(sleeps,         PMD_TEXT_NONE, "") /* idle back-off: sleeps taken */ \
	X(sleep_cycles,   PMD_TEXT_NONE, "") /* TSC cycles spent in them */   \
	X(revalidations,  PMD_TEXT_NONE, "")                                  \
	X(revalidations_neigh, PMD_TEXT_NONE, "") /* of which neighbours */   \
	X(megaflows_expired, PMD_TEXT_NONE, "")                               \
	X(megaflows_revalidated, PMD_TEXT_NONE, "") /* translated again */    \
	X(megaflows_revalidated_out, PMD_TEXT_NONE, "")                       \
	/* no memory to queue a DEL the offload ring refused */               \
	X(offload_dels_lost, PMD_TEXT_NONE, "")                               \
	/* ctl_event_ring full: ARP learn or miss, or retired counters, lost */ \
	X(ctl_events_lost, PMD_TEXT_NONE, "")                                 \
	/* IPv4 fragments given to the fragment store (dp_ipf.h), and taken  \
	 * back out of it by this PMD (to go on, or dropped): the store may   \
	 * finish on one PMD a datagram begun on another */                   \
	X(ipf_stored,     PMD_TEXT_MORE, "IPv4 fragments held for conntrack") \
	X(ipf_released,   PMD_TEXT_MORE, "IPv4 fragments back from conntrack") \
	/* upcalls whose megaflow dpcls refused (a hash chain at its cap,     \
	 * DPCLS_MAX_CHAIN): executed uncached, or upcall_fail past           \
	 * DP_TRANSIENT_MAX a burst */                                        \
	X(megaflows_chain_refused, PMD_TEXT_MORE,                             \
	  "megaflows not installed: dpcls chain full")

enum pmd_text_block { PMD_TEXT_NONE, PMD_TEXT_MORE };

struct pmd_stats {
#define X(field, text, label) uint64_t field;
	PMD_STATS(X)
#undef X
	uint64_t drops[DROP_N_REASONS];
	uint64_t stage_cycles[PMD_N_STAGES];
	uint64_t bursts[PMD_BURST_BUCKETS];	/* rx bursts by size */
};

/* A port's counters, per PMD (summed over PMDs for show, show --json and
 * telemetry's /vxswitch/port_stats, which print every row). */
#define PORT_STATS(X)                                                         \
	X(rx_packets) X(rx_bytes)                                             \
	X(tx_packets) X(tx_bytes) X(tx_dropped)

struct pmd_port_stats {
#define X(field) uint64_t field;
	PORT_STATS(X)
#undef X
};

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
