/* SPDX-License-Identifier: BSD-3-Clause
 * The datapath's contract: what a burst goes through, and the context
 * (struct dp_ctx) its stages run in. A PMD owns one context (embedded in
 * struct pmd) and is the only thread that touches it, so nothing here takes
 * a lock; the counters the stages bump (dp_stats.h) are in the PMD's
 * memory, one set per PMD, reached through the context's pointers. The
 * PMD calls the datapath (dp_process_burst, the flushes), never the
 * reverse.
 *
 * One burst, in one call of dp_process_burst(), each stage in one file:
 *
 *   stage      file                     what
 *   rx         dp_rx.c                  rx counters, frames past the mtu
 *                                       (dp_mtu.c, shared with tx;
 *                                       port_rx_burst: the PMD loop, pmd.c)
 *   (ARP, ND)  arp_responder.c,         the VTEP's ARP and Neighbour
 *              nd_responder.c           Discovery, policed, answered before
 *                                       any parsing (underlay only)
 *   mark path  mark_path.c              NIC-marked packets to their megaflow
 *   extract    dp_extract.c             miniflow extract of a batch (the
 *                                       parsers: miniflow.c, miniflow_fast.c)
 *   hash       dp_hash.h                the microflow hash, with hash-reuse
 *   EMC        emc.c                    exact-match cache
 *   dpcls      dpcls.c                  megaflow classifier (specialised
 *                                       subtable lookups in dpcls_lookup.c)
 *   upcall     upcall.c                 misses: translate, install
 *   (actions)  dp_execute.c             group by megaflow, run its actions
 *   sg         sg_filter.c              sg(): security group by the session
 *                                       table (app/conntrack), same pass:
 *                                       a stage after grouping (every
 *                                       group's leading sg(), one tracker
 *                                       call a pass), else as an action
 *   (frags)    dp_ipf.c                 IPv4 and IPv6 fragments held for
 *                                       sg() and ct() until their
 *                                       datagram is whole (a group with
 *                                       fragments runs its sg() as an
 *                                       action)
 *   decap      vxlan_decap.c            tnl_pop: strip, hand the inner batch
 *                                       back to the pipeline
 *   encap      vxlan_encap.c            tnl_push; what the underlay's MTU
 *                                       refuses: dropped, its sender told
 *                                       the path MTU (dp_pmtud.c)
 *   tx         dp_tx.c                  tx buffers and their flushes
 *   (trace)    dp_trace.c               every stage's entry in the records
 *                                       of the packets a trace took
 *
 * The pipeline itself (the order above, and the inner pass after decap) is
 * dp_pipeline.c; megaflow allocation, retirement, revalidation and expiry
 * are megaflow.c; the PMD's offload requests (ADD/DEL bookkeeping with the
 * offload thread) are dp_offload.c.
 *
 * What the datapath is programmed and configured in - the flow key, the
 * actions a megaflow runs, drop reasons, the tunnel template, the
 * optimisations, the batch - is app/dpif/'s, below the slow path that
 * writes it: the datapath's upcall calls the slow path (xlate), so the
 * slow path must include nothing of app/datapath/ (check-layers.py).
 *
 * A VXLAN packet for our VTEP goes round twice in the same call, with no
 * recirculation through the PMD loop: the outer pass ends in tnl_pop, which
 * hands the decapsulated inner packets and their keys back; the pipeline
 * then runs the inner pass (hash, lookups, actions) on them as its second
 * step. An inner pass never decapsulates again (xlate never nests
 * tunnels): a tnl_pop there drops (bad_vxlan).
 */
#ifndef VXS_DATAPATH_H
#define VXS_DATAPATH_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include "dp_opts.h"
#include "drop_reason.h"
#include "megaflow.h"
#include "pkt_batch.h"

struct ct_ipf;
struct dp_recirc;
struct dp_snapshot;
struct dp_trace;
struct dpcls;
struct emc;
struct offload_del;
struct dp_offload_outers;
struct offload_mgr;
struct pmd_port_stats;
struct pmd_stats;
struct port;
struct rte_mempool;
struct rte_ring;
struct vxs_config;

/* One port's tx buffer (dp_tx.c). */
struct dp_txbuf {
	uint16_t n;
	/* tx-pending-list: the next buffer on the list, as port index + 1
	 * (0: the end); listed: on the list (it may be empty again) */
	uint16_t pending_next;
	bool listed;
	uint64_t first_tsc;		/* when the oldest packet was queued */
	struct rte_mbuf *pkts[BATCH_MAX];
	/* vhost-tx-align4: when each packet was queued (stamped only while
	 * the option is on; an older stamp only makes a flush sooner) */
	uint64_t queued_tsc[BATCH_MAX];
};

/* A token bucket kept in TSC ticks, so that neither a refill nor a
 * take divides: a frame costs `cost` ticks of credit, the bucket holds at
 * most `depth` (burst frames' worth), and credit grows with the TSC. The
 * VTEP's ARP has one per PMD (arp-rate), and so has the path MTU's ICMP
 * (pmtud-rate, dp_pmtud.h). */
struct arp_policer {
	uint64_t cost;			/* ticks per frame; 0 = unlimited */
	uint64_t depth;			/* cost * burst */
	uint64_t credit;
	uint64_t last_tsc;
};

/* Once per batch: the credit earned since the last one, up to the depth. */
static inline void
arp_policer_refill(struct arp_policer *p, uint64_t now)
{
	uint64_t credit = p->credit + (now - p->last_tsc);

	p->credit = credit < p->depth ? credit : p->depth;
	p->last_tsc = now;
}

static inline bool
arp_policer_take(struct arp_policer *p)
{
	if (p->credit < p->cost)
		return false;
	p->credit -= p->cost;	/* cost 0 (unlimited): always admitted */
	return true;
}

/* hash-reuse-adaptive (dp_hash.h): one verdict per kind of lookup pass */
enum dp_hash_pass { DP_HASH_OUTER, DP_HASH_INNER, DP_HASH_RECIRC,
		    DP_HASH_N_PASSES };
struct dp_hash_reuse {
	uint16_t skip;		/* bursts left without comparisons */
};

/* emc-bypass (dp_pipeline.c): per in_port (direct-mapped, by in_port), how
 * often its lookup passes miss the EMC. Past DP_EMC_BYPASS_MISS misses in
 * 1024 its passes skip the EMC, lookups and inserts, all but one burst in
 * DP_EMC_PROBE_EVERY, which looks up, inserts every miss and so notices
 * when the EMC would hit again. Zero is the initial state: use the EMC. */
#define DP_EMC_PASS_SLOTS 64u
#define DP_EMC_BYPASS_MISS 800u		/* of 1024: under ~22 % hits */
#define DP_EMC_PROBE_EVERY 64u
struct dp_emc_pass {
	uint16_t in_port;
	uint16_t miss_ewma;	/* misses per 1024 lookups, EWMA 1/8 */
	uint16_t skipped;	/* bursts bypassed since the last probe */
	bool probing;		/* this pass is the probe */
};

/* What a PMD is doing, for a control thread that finds it not answering
 * (pmd_watch.c): the PMD stores one of these, with the port it concerns,
 * in dp_ctx.io_where before each step that could block or run long (a
 * driver's rx or tx burst above all). X(id, text). */
#define DP_WHERE(X)                                                        \
	X(LOOP,     "the loop")	/* snapshot, revalidation, housekeeping */  \
	X(RX,       "rx on")	/* a port's rx burst (the port follows) */  \
	X(DATAPATH, "the datapath") /* a received burst's stages */         \
	X(TX,       "tx on")	/* a port's tx burst (the port follows) */  \
	X(CALL,     "a control call") /* the mailbox (pmd_call) */          \
	X(SLEEP,    "idle sleep")	/* the idle back-off */

enum dp_where {
#define X(id, text) DP_IN_##id,
	DP_WHERE(X)
#undef X
	DP_N_WHERE
};

/* dp_ctx.io_where: the step in the high half, a port index in the low */
#define DP_WHERE_AT(where, port_idx) ((uint32_t)(where) << 16 | (port_idx))

static inline void
dp_where_set(uint32_t *io_where, enum dp_where w, uint16_t port_idx)
{
	__atomic_store_n(io_where, DP_WHERE_AT(w, port_idx), __ATOMIC_RELAXED);
}

/* Uncached megaflows one burst may execute (dp_ctx.transient): past
 * them a refused install drops the packet as upcall_fail. */
#define DP_TRANSIENT_MAX 64

struct dp_ctx {
	uint16_t idx;			/* its PMD's index: tx queue, offload
					 * request ring */
	uint32_t io_where;		/* DP_WHERE_AT: read by other threads */

	/* caches and the megaflow table (megaflow.c) */
	struct emc *emc;
	struct dpcls *cls;
	struct megaflow *flow_pool;	/* max_flows, preallocated */
	struct megaflow **flow_free;
	uint32_t n_free, max_flows;
	/* megaflows installed, published by this PMD for readers on other
	 * threads (telemetry): cls may be freed under them, this may not */
	uint32_t n_megaflows;
	uint64_t next_flow_id;
	uint64_t max_idle_tsc;		/* idle megaflows expire after */
	/* megaflows translated for this burst but refused by the classifier
	 * (a chain at DPCLS_MAX_CHAIN): executed, never cached, freed at the
	 * end of the burst (upcall.c) */
	struct megaflow *transient[DP_TRANSIENT_MAX];
	uint16_t n_transient;

	/* tx (dp_tx.c) */
	struct dp_txbuf *txbufs;	/* one per port */
	uint64_t tx_flush_tsc;		/* tx-flush-interval in TSC ticks */
	/* tx-pending-list (dp_tx.c): the buffers that may hold packets, a
	 * list through dp_txbuf.pending_next, head as port index + 1 (0:
	 * empty); kept only while tx_pending_on (the option as last seen) */
	uint16_t tx_pending_head;
	bool tx_pending_on;
	struct rte_mempool *mbuf_pool;	/* for output copies */
	uint16_t ip_id;			/* outer IPv4 ids (encap) */

	/* counters (dp_stats.h), in the PMD's memory */
	struct pmd_stats *stats;
	struct pmd_port_stats *port_stats;	/* one per port */
	uint64_t stage_tsc;		/* the last stage boundary */

	/* options */
	uint32_t opts;			/* bit set of enum dp_opt */
	uint32_t emc_insert_inv_prob;
	uint32_t rand_state;
	uint32_t batch_epoch;		/* one per lookup pass (grouping) */
	/* hash-reuse-adaptive's verdicts, per enum dp_hash_pass */
	struct dp_hash_reuse hash_reuse[DP_HASH_N_PASSES];
	struct dp_emc_pass emc_pass[DP_EMC_PASS_SLOTS];	/* emc-bypass */
	struct arp_policer arp_policer;	/* the VTEP's ARP (arp_responder.c) */
	/* path MTU discovery (dp_pmtud.h): whether encap answers a packet
	 * too long for the tunnel with ICMP, and how often */
	bool pmtud;
	struct arp_policer pmtud_policer;

	/* the slow path's tables, valid between quiescent states */
	const struct dp_snapshot *snap;
	uint64_t seen_gen;		/* the snapshot generation revalidated
					 * against */
	struct rte_ring *events;	/* to the control thread (ctl_event) */

	/* partial offload (dp_offload.c, mark_path.c): NULL when none */
	struct offload_mgr *offload;
	struct conntrack *ct;		/* the sessions sg() looks packets up
					 * in; shared by every PMD */
	struct ct_ipf *ipf;		/* the fragments sg() and ct() hold
					 * for the tracker (dp_ipf.h);
					 * shared by every PMD; NULL: none */
	struct dp_recirc *recirc;	/* where ct(table=) puts packets for
					 * the next pass; NULL outside a burst
					 * or past DP_MAX_RECIRC (dp_pipeline.c) */
	struct megaflow **mark_table;	/* [mark]: PMD-owned, no RCU needed */
	uint32_t max_marks;
	struct offload_del *del_retry;	/* DELs the full ring refused */
	uint32_t n_del_retry, del_retry_cap;
	struct dp_offload_outers *offload_outers;	/* sweep offers */
	uint64_t offload_sweep_tsc;	/* the last rate sweep */

	/* the packet trace (dp_trace.h): NULL when none is armed here; set
	 * and cleared between bursts (pmd_call) */
	struct dp_trace *trace;
	uint8_t trace_pass;		/* the pass its entries are made in */
};

/* What the datapath tells the control thread, through ctx->events. */
enum ctl_event_type {
	CTL_EV_NEIGH_LEARN,		/* ARP or ND seen: addr is at mac */
	CTL_EV_NEIGH_MISS,		/* need the MAC of addr: send ARP
					 * (IPv4 mapped) or an NS */
	CTL_EV_RULE_STATS,		/* a retired megaflow's counters */
};

struct ctl_event {
	uint8_t type;
	struct rte_ether_addr mac;
	union {
		/* NEIGH_*: either family, IPv4 mapped (neigh.h) */
		struct flow_in6_addr addr;
		struct {		/* RULE_STATS */
			uint32_t rule_uid;
			uint64_t packets, bytes;
			uint64_t used_tsc;	/* its last packet */
		};
	};
};
/* 40 bytes, as with a 4-byte address: the ring's element size */
_Static_assert(sizeof(struct ctl_event) == 40, "ctl_event grew");

/* Queues ev (n events, in one ring operation) for the control thread:
 * ARP to send or learned, a retired megaflow's counters (dp_events.c).
 * If the control thread is that far behind, what does not fit is dropped
 * (an ARP will be retried, and lost counters are only counters), but
 * counted in stats.ctl_events_lost: an ARP flood shows there. */
void dp_push_event(struct dp_ctx *ctx, const struct ctl_event *ev);
void dp_push_events(struct dp_ctx *ctx, const struct ctl_event *ev,
		    unsigned n);

/* The VTEP's ARP policer (arp_responder.c): rate frames a second, burst
 * at once; rate 0 lets everything through. */
void arp_policer_init(struct arp_policer *p, uint32_t rate, uint32_t burst,
		      uint64_t tsc_hz, uint64_t now);

/* Path MTU discovery (dp_pmtud.c): on or off, ICMP errors a second and
 * at once (rate 0: unlimited); at start and between bursts. */
void dp_set_pmtud(struct dp_ctx *ctx, bool on, uint32_t rate,
		  uint32_t burst);

/* Set-up (megaflow.c). The caller sets idx, stats, port_stats, mbuf_pool
 * and events first; this allocates the caches, the megaflow table and the
 * tx buffers on socket and takes the options from cfg. -1 with err set. */
int dp_ctx_init(struct dp_ctx *ctx, const struct vxs_config *cfg,
		uint16_t n_ports, int socket, char *err, size_t errlen);
/* Flushes the megaflows and frees what dp_ctx_init allocated. */
void dp_ctx_fini(struct dp_ctx *ctx);

/* One received burst from port in, through every stage. Consumes b.
 * The stage chain (dp_stats.h) starts at t_rx, the caller's TSC read
 * after the rx call, so no cycle between the two falls outside a stage;
 * dp_process_burst reads its own. */
void dp_process_burst_at(struct dp_ctx *ctx, struct port *in,
			 struct pkt_batch *b, uint64_t t_rx);
void dp_process_burst(struct dp_ctx *ctx, struct port *in,
		      struct pkt_batch *b);
/* Sends the tx buffers whose oldest packet has waited tx-flush-interval
 * (due), or all of them (all). due and all_at chain their stage marks on
 * from now, the PMD loop's last boundary, so the scan before the first
 * send is flush; all starts its chain at the first send. */
void dp_tx_flush_due(struct dp_ctx *ctx, uint64_t now);
void dp_tx_flush_all(struct dp_ctx *ctx);
void dp_tx_flush_all_at(struct dp_ctx *ctx, uint64_t now);

/* Megaflow lifecycle (megaflow.c), between bursts: after a new snapshot,
 * periodically, on request. */
void dp_revalidate(struct dp_ctx *ctx);
void dp_expire_idle(struct dp_ctx *ctx, uint64_t now);
void dp_flush_flows(struct dp_ctx *ctx);
/* Switches the optimisations (bit set of enum dp_opt); megaflows are
 * flushed when the lookup code they use changes. */
void dp_set_opts(struct dp_ctx *ctx, uint32_t opts);
/* tx-flush-interval-us: how long a tx buffer's oldest packet may wait for
 * more (at start, and dpif-netdev/set-param between bursts) */
void dp_set_tx_flush_interval(struct dp_ctx *ctx, uint32_t us);

/* Partial offload (dp_offload.c). Gives ctx its mark table and DEL retry
 * queue, sized from m's marks, and turns offload on; -ENOMEM. Before the
 * PMD runs. */
int dp_offload_attach(struct dp_ctx *ctx, struct offload_mgr *m);
/* Offload off, its tables freed. With the PMD stopped. */
void dp_offload_detach(struct dp_ctx *ctx);
/* Once per PMD loop: the offload thread's answers. */
void dp_offload_poll(struct dp_ctx *ctx);

/* PMD housekeeping (dp_ipf.c): drops, a bounded number a call, the
 * fragments the store gave up (expired, purged). */
void dp_ipf_drain(struct dp_ctx *ctx);

#endif
