/* SPDX-License-Identifier: BSD-3-Clause
 * What the datapath counts: the stages its cycles go to (PMD_STAGES), its
 * packet counters (PMD_STATS), each port's (PORT_STATS) and the rx burst
 * sizes. One set per PMD thread: the PMD owns the memory (struct pmd:
 * stats, port_stats) and hands the datapath pointers to it (struct dp_ctx:
 * stats, port_stats); the stages bump them, the PMD loop bumps its own
 * rows (polls, I/O stages, cycles), and the control thread reads them
 * (pmd-stats-show, pmd-perf-show, telemetry, dpbench). The names keep the
 * pmd_ prefix they are reported under. Nothing here depends on app/pmd/:
 * the PMD includes this, never the reverse (check-datapath-deps.py).
 */
#ifndef VXS_DP_STATS_H
#define VXS_DP_STATS_H

#include <stdint.h>
#include "drop_reason.h"

/* Where a PMD's busy cycles go (pmd-perf-show, perf/dpbench, perf/e2e-bench).
 * Each stage boundary reads the TSC once and charges the cycles since the
 * previous boundary to the stage that just ended (dp_stage_mark; the PMD
 * loop keeps the same chain for the I/O stages), so a decapsulated
 * packet's second pass (inner extract, hash, lookup) lands in the same
 * stages and nothing is counted twice. The chain is unbroken (the rx
 * call's TSC read starts the datapath's: dp_process_burst_at; an idle
 * round's flush runs on from its last empty poll: dp_tx_flush_all_at),
 * so a busy iteration's cycles are exactly the sum of its stages and
 * "other" in pmd-perf-show is 0. With the io-timing option off, rx and empty
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

/* Bursts received, by size: 1, 2-3, 4-7, 8-15, 16-31, 32. */
#define PMD_BURST_BUCKETS 6

static inline unsigned
pmd_burst_bucket(uint16_t n)
{
	return n >= 32 ? 5 : 31 - __builtin_clz(n | 1);
}

/* Packet accounting, per PMD. Every packet a PMD receives from a port ends
 * in exactly one of: sent (a port's tx took it), consumed (an ARP reply or
 * an ND advertisement for our VTEP, learned from), or dropped under one drop reason (drop_reason.h);
 * until then it is in flight (in a tx buffer) or held (an IPv4 or IPv6
 * fragment the fragment store keeps for the tracker until its datagram
 * is whole: dp_ipf.h). Accounting is per copy: an output that is not a rule's last
 * makes a copy (copies), and each copy ends on its own like a received
 * packet, so a packet output to N ports counts N - 1 copies and N ends.
 * The ICMP errors of path MTU discovery (dp_pmtud.h: pmtud_frag_needed,
 * pmtud_too_big) are made from the head of the packet they answer, which
 * is dropped: each is counted as a copy and ends on its own too:
 *
 *   packets + copies = tx_packets + arp_consumed + nd_consumed + sum(drops)
 *                      + in_flight + held
 *
 * held = ipf_stored - ipf_released: the fragments this PMD gave to the
 * store less those it took out of it. The store is shared: a datagram
 * begun on one PMD may be finished (its fragments sent) by another, so
 * one PMD's held may be negative; summed over the PMDs it is what the
 * store holds (dpctl/ipf-get-status "num frag"), 0 once it is empty.
 *
 * The PMD reads its terms (pmd_accounting_read, pmd.h). */

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
	/* of tunnel_pops: over IPv6 with a zero UDP checksum, accepted      \
	 * (vxlan udp6zerocsumrx, vxlan_decap6.c) */                         \
	X(udp6_zero_csum_rx, PMD_TEXT_MORE,                                   \
	  "tunnel pops over IPv6 with a zero UDP checksum")                  \
	/* of tunnel_pushes: over IPv6, the UDP checksum left to the NIC     \
	 * (tx-csum-offload, vxlan_encap.c) */                               \
	X(udp6_csum_offloaded, PMD_TEXT_MORE,                                 \
	  "tunnel pushes over IPv6, UDP checksum by the NIC")               \
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
	 * (port_io_vhost, port.h); the rest is the NIC's */                    \
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
	X(nd_consumed,    PMD_TEXT_NONE, "") /* NA to our VTEP: learned */    \
	X(nd_replies,     PMD_TEXT_NONE, "") /* NA we sent, for our IPv6 */   \
	X(sleeps,         PMD_TEXT_NONE, "") /* idle back-off: sleeps taken */ \
	X(sleep_cycles,   PMD_TEXT_NONE, "") /* TSC cycles spent in them */   \
	X(revalidations,  PMD_TEXT_NONE, "")                                  \
	X(revalidations_neigh, PMD_TEXT_NONE, "") /* of which neighbours */   \
	X(megaflows_expired, PMD_TEXT_NONE, "")                               \
	X(megaflows_revalidated, PMD_TEXT_NONE, "") /* translated again */    \
	X(megaflows_revalidated_out, PMD_TEXT_NONE, "")                       \
	/* not translated again: none of its tables nor next hops changed */ \
	X(megaflows_reval_skipped, PMD_TEXT_NONE, "")                         \
	/* no memory to queue a DEL the offload ring refused */               \
	X(offload_dels_lost, PMD_TEXT_NONE, "")                               \
	/* ctl_event_ring full: ARP learn or miss, or retired counters, lost */ \
	X(ctl_events_lost, PMD_TEXT_NONE, "")                                 \
	/* IPv4 and IPv6 fragments given to the fragment store (dp_ipf.h),  \
	 * and taken back out of it by this PMD (to go on, or dropped): the   \
	 * store may finish on one PMD a datagram begun on another */         \
	X(ipf_stored,     PMD_TEXT_MORE, "IP fragments held for conntrack")   \
	X(ipf_released,   PMD_TEXT_MORE, "IP fragments back from conntrack")  \
	/* upcalls whose megaflow dpcls refused (a hash chain at its cap,     \
	 * DPCLS_MAX_CHAIN): executed uncached, or upcall_fail past           \
	 * DP_TRANSIENT_MAX a burst */                                        \
	X(megaflows_chain_refused, PMD_TEXT_MORE,                             \
	  "megaflows not installed: dpcls chain full")                        \
	/* path MTU (dp_pmtud.h): a packet too long for the tunnel answered   \
	 * with ICMP "fragmentation needed" (IPv4 with DF) or ICMPv6 "packet  \
	 * too big"; not answered for the PMD's rate (pmtud-rate) */          \
	X(pmtud_frag_needed, PMD_TEXT_MORE,                                   \
	  "path MTU: ICMP fragmentation needed sent")                         \
	X(pmtud_too_big,  PMD_TEXT_MORE,                                      \
	  "path MTU: ICMPv6 packet too big sent")                             \
	X(pmtud_policed,  PMD_TEXT_MORE,                                      \
	  "path MTU: ICMP not sent, over pmtud-rate")

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

#endif
