/* SPDX-License-Identifier: BSD-3-Clause
 * A PMD thread: one per core, polling its rx queues and owning everything
 * on its packet path (EMC, megaflow classifier, tx buffers, counters), so
 * that path takes no locks.
 *
 * The control thread reaches a PMD in two ways only:
 *  - a new dp_snapshot (RCU): the PMD revalidates its megaflows;
 *  - pmd_call(): a function run by the PMD between two bursts (dump flows,
 *    clear stats, flush), while the control thread waits.
 */
#ifndef VXS_PMD_H
#define VXS_PMD_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_cycles.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include "datapath.h"
#include "pmd_poll.h"
#include "port.h"

#define PMD_MAX_RXQS 128

struct pmd_rxq {
	struct port *port;
	uint16_t qid;
	uint64_t packets;		/* received on this queue */
	uint64_t busy_cycles;		/* spent on its bursts */
	struct pmd_poll_q poll;		/* adaptive polling state, poll counts */
};

/* Where a burst's cycles go (pmd-perf-show, perf/dpbench). Each stage
 * boundary reads the TSC once per burst and charges the cycles since the
 * previous boundary to the stage that just ended (dp_stage_mark), so a
 * decapsulated packet's second pass (inner extract, hash, lookup) lands in
 * the same stages and nothing is counted twice. Receive and the loop's own
 * bookkeeping are busy cycles outside every stage. */
#define PMD_STAGES(X)                                                       \
	X(EXTRACT, "extract")	/* miniflow extract, outer and inner */     \
	X(HASH,    "hash")	/* microflow hash (with hash-reuse) */      \
	X(EMC,     "emc")	/* exact match lookup and inserts */        \
	X(DPCLS,   "dpcls")	/* megaflow classifier */                   \
	X(UPCALL,  "upcall")	/* misses: translate and install */         \
	X(ACTIONS, "actions")	/* group by flow, encap/decap, tx buffering */\
	X(TX,      "tx")	/* port tx bursts (buffer full or flush) */

enum pmd_stage {
#define X(id, name) PMD_STAGE_##id,
	PMD_STAGES(X)
#undef X
	PMD_N_STAGES
};

const char *pmd_stage_name(enum pmd_stage s);

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
 * until then it is in flight (in a tx buffer: between bursts nothing else
 * holds one). Accounting is per copy: an output that is not a rule's last
 * makes a copy (copies), and each copy ends on its own like a received
 * packet, so a packet output to N ports counts N - 1 copies and N ends:
 *
 *   packets + copies = tx_packets + arp_consumed + sum(drops) + in_flight
 *
 * pmd_accounting_read() takes the terms from the PMD between two bursts
 * (pmd_call), where the equation holds exactly (pmd-stats-show, tests and
 * dpbench --check assert it); read from another thread, mid-burst, it is
 * only approximate. pmd_clear_stats() flushes the tx buffers first, so
 * nothing received before a clear is counted in flight after it. */
struct pmd_stats {
	uint64_t packets;		/* received */
	uint64_t copies;		/* made for outputs before the last */
	uint64_t arp_consumed;		/* ARP replies for our VTEP: learned */
	uint64_t emc_hits;
	uint64_t megaflow_hits;
	uint64_t upcalls;		/* misses sent to translation */
	uint64_t upcall_cycles;
	uint64_t tunnel_pops, tunnel_pushes;
	uint64_t mark_hits;		/* took the NIC-mark path */
	uint64_t mark_fallbacks;	/* NIC-marked, sent to the full path:
					 * unknown or stale mark, or not what
					 * the mark's megaflow matches */
	uint64_t offload_dels_lost;	/* no memory to queue a refused DEL */
	uint64_t ctl_events_lost;	/* ctl_event_ring full: ARP learn or
					 * miss, or retired counters, lost */
	uint64_t arp_replies;
	uint64_t drops[DROP_N_REASONS];
	uint64_t busy_cycles;		/* iterations that moved packets */
	uint64_t idle_cycles;
	uint64_t iterations;
	uint64_t tx_batches, tx_packets;	/* for packets per send */
	uint64_t revalidations, megaflows_expired, megaflows_revalidated_out;
	uint64_t revalidations_neigh;	/* of which for neighbour changes */
	uint64_t megaflows_revalidated;	/* translated again */
	uint64_t sleeps;		/* idle back-off: sleeps taken */
	uint64_t sleep_cycles;		/* TSC cycles spent in them */
	uint64_t stage_cycles[PMD_N_STAGES];
	uint64_t bursts[PMD_BURST_BUCKETS];	/* rx bursts by size */
};

struct pmd_port_stats {
	uint64_t rx_packets, rx_bytes;
	uint64_t tx_packets, tx_bytes, tx_dropped;
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
	bool running;
	bool stop;

	uint16_t n_rxqs;
	struct pmd_rxq rxqs[PMD_MAX_RXQS];

	struct dp_ctx dp;		/* its datapath: caches, classifier,
					 * tx buffers, options, snapshot */
	struct pmd_port_stats *port_stats;	/* one per port */
	struct pmd_stats stats;
	uint32_t idle_backoff_us;
	struct pmd_backoff backoff;	/* idle back-off state */
	uint64_t next_sweep_tsc;

	struct pmd_request *req;	/* mailbox, set by the control thread */
};

extern struct pmd *pmds;
extern uint16_t n_pmds;
extern struct rte_mempool *pktmbuf_pool;
extern struct rte_rcu_qsbr *pmd_qsbr;
extern struct rte_ring *ctl_event_ring;	/* struct ctl_event (datapath.h) */

int pmds_create(const struct vxs_config *cfg, char *err, size_t errlen);
int pmds_start(void);
void pmds_stop(void);
void pmds_destroy(void);

/* Runs fn in the PMD's context between bursts and waits for it (runs it
 * here directly if the PMD is not running). */
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
};

/* The equation's terms, read in the PMD between bursts (pmd_call). */
void pmd_accounting_read(struct pmd *pmd, struct pmd_accounting *a);
/* The terms as the control thread sees them now, without stopping the
 * PMD: exact only while no packets move (telemetry). */
void pmd_accounting_peek(const struct pmd *pmd, struct pmd_accounting *a);

/* As JSON ("accounting": {...}, for one PMD or summed over all, with
 * "balanced") and as a pmd-stats-show line. */
struct ds;
void pmd_accounting_json(struct ds *out, struct pmd *pmd);
void pmd_accounting_json_all(struct ds *out);
void pmd_accounting_text(struct ds *out, struct pmd *pmd);

static inline bool
pmd_accounting_balanced(const struct pmd_accounting *a)
{
	return a->received + a->copies ==
	       a->sent + a->consumed + a->dropped + a->in_flight;
}

#endif
