/* SPDX-License-Identifier: BSD-3-Clause
 * The packet trace: the next N packets received on a port (those matching
 * a filter, if one is given) record, stage by stage, what happened to
 * them, as VPP's "trace add" / "show trace" and grout's trace do. The
 * control thread arms it (dpif-netdev/trace add, cmd_trace.c); the stages
 * write; the control thread reads and prints (trace show) and frees it
 * (trace clear).
 *
 * A traced packet carries a dynamic mbuf flag and, in a dynamic field,
 * the index of its record and its trace's id: the mark goes where the
 * packet goes (into the inner pass after decap, through recirculations,
 * into the tx buffer; rte_pktmbuf_copy copies both to an output's
 * copies, which so write to the same record). A packet's record is
 * written only by the PMD that received it; entries are published one at
 * a time (dp_trace_pkt.n with release), so the control thread can print
 * a trace while it fills.
 *
 * Cost when no trace is armed (ctx->trace NULL): one test of that
 * pointer per hook. The hooks of the common path run once a burst, a
 * pass, a group or a send; those of rarer paths (the mark path, the ARP
 * responder, recirculation, a single packet's drop) once a packet there.
 * Measured A/B against the datapath without them: doc/performance.md,
 * "Trace hook cost". When one is armed, the hooks test each packet's
 * flag, on every port: clear a trace when done.
 *
 * Limits: DP_TRACE_MAX_PKTS records in all; a record keeps its first
 * DP_TRACE_MAX_ENTRIES entries and DP_TRACE_MAX_KEYS flow keys, and
 * counts what it could not keep (lost).
 */
#ifndef VXS_DP_TRACE_H
#define VXS_DP_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include "datapath.h"
#include "flow_key.h"

#define DP_TRACE_MAX_PKTS 1024
#define DP_TRACE_MAX_ENTRIES 48
#define DP_TRACE_MAX_KEYS 6
#define DP_TRACE_HEAD 128	/* bytes of the packet kept as received */
#define DP_TRACE_NO_KEY 0xff	/* an entry's key slot: none kept */

/* What an entry records: X(id, name, what its fields hold). The names
 * are trace show's and the JSON "stage" values (doc/operating.md). */
#define DP_TRACE_KINDS(X)                                                   \
	X(RX,       "rx",       "port: in port; u32: length")               \
	X(MARK,     "mark",     "u32: NIC mark; u64: its megaflow's ufid, " \
				"0: not taken (full path)")                  \
	X(ARP,      "arp",      "u32: enum dp_trace_arp")                   \
	X(EXTRACT,  "extract",  "key: the packet's flow key")               \
	X(HASH,     "hash",     "u32: the hash; port: 1 taken from the NIC")\
	X(EMC,      "emc",      "u64: ufid; key: the megaflow's key/mask")  \
	X(DPCLS,    "dpcls",    "u64: ufid; key: the megaflow's key/mask")  \
	X(UPCALL,   "upcall",   "u64: ufid installed, 0: none; key")        \
	X(SG,       "sg",       "port: zone; u32: ct_state; u64: allow")    \
	X(CT,       "ct",       "port: zone; u32: ct_state; u64: commit")   \
	X(ACTION,   "action",   "port: enum dp_action_type; u32: its port; "\
				"u64: its slot or reason")                   \
	X(TNL_POP,  "tnl_pop",  "u32: VNI; u64: outer src << 32 | dst; "    \
				"key: an IPv6 underlay's tun_ipv6_src/dst")  \
	X(TNL_PUSH, "tnl_push", "u32: VNI; u64: outer dst << 32 | sport; "  \
				"key: an IPv6 underlay's tun_ipv6_src/dst")  \
	X(PMTUD,    "pmtud",    "port: the in port the ICMP error goes to "  \
				"(UINT16_MAX: none); u32: the MTU; u64: "    \
				"enum dp_pmtud_verdict (dp_pmtud.h)")        \
	X(RECIRC,   "recirc",   "port: recirc id; u32: ct_state")           \
	X(OUTPUT,   "output",   "port: queued for this port")               \
	X(TX,       "tx",       "port: sent by this port")                  \
	X(DROP,     "drop",     "port: enum drop_reason; u32: 1 a copy")

enum dp_trace_kind {
#define X(id, name, doc) DP_TRACE_##id,
	DP_TRACE_KINDS(X)
#undef X
	DP_TRACE_N_KINDS
};

/* An ARP entry: what the VTEP's responder did (its drops are DROPs). */
enum dp_trace_arp { DP_TRACE_ARP_REPLY, DP_TRACE_ARP_CONSUMED };

struct dp_trace_entry {
	uint8_t kind;		/* enum dp_trace_kind */
	uint8_t pass;		/* 0 as received, 1 inner (after decap),
				 * 2.. recirculated; tx and drop: the
				 * pass of the entry before */
	uint8_t key;		/* its flow key slot, DP_TRACE_NO_KEY */
	uint8_t pad;
	uint16_t port;
	uint16_t pad2;
	uint32_t u32;
	uint32_t pad3;
	uint64_t u64;
};

/* One packet's record. Written by one PMD; n is published with release
 * after each entry, the fields above it before the first. */
struct dp_trace_pkt {
	uint32_t n;		/* entries written */
	uint32_t lost;		/* entries or keys not kept: full */
	uint16_t pmd;		/* the PMD's index */
	uint16_t in_port;	/* port index */
	uint32_t len;		/* as received */
	uint64_t tsc;		/* when received */
	uint8_t n_keys;
	uint8_t head_len;
	uint8_t head[DP_TRACE_HEAD];
	struct { struct flow_key key, mask; } keys[DP_TRACE_MAX_KEYS];
	struct dp_trace_entry e[DP_TRACE_MAX_ENTRIES];
};

/* A trace, shared by the PMDs it is armed on. The control thread sets
 * in_port and the filter with no PMD armed (pmd_call), raises limit;
 * the PMDs take records by CAS on n_taken (< limit). */
struct dp_trace {
	uint16_t in_port;		/* the port traced: its index */
	/* Set by the control thread, another for each trace it allocates:
	 * a packet marked by an earlier trace (held in the fragment store,
	 * or in a tx buffer, across a trace clear) writes nowhere in this
	 * one, whose records reuse the earlier one's indexes. */
	uint16_t id;
	bool has_filter;		/* else every packet, from rx on */
	struct flow_key filter_key;	/* masked */
	struct flow_key filter_mask;
	uint32_t limit;			/* records to take in all */
	uint32_t n_taken;		/* records taken (atomic) */
	uint64_t tsc_hz;
	struct dp_trace_pkt pkts[DP_TRACE_MAX_PKTS];
};

/* The mbuf flag and field (registered once, by dp_trace_register). */
extern uint64_t dp_trace_flag;
extern int dp_trace_field;

/* Registers the flag and field: 0, or -1 with err set. Idempotent. */
int dp_trace_register(char *err, size_t errlen);

static inline bool
dp_trace_traced(const struct rte_mbuf *m)
{
	return m->ol_flags & dp_trace_flag;
}

/* A packet the datapath makes from a traced one (an ICMP error, dp_pmtud.c)
 * writes to the same record, as rte_pktmbuf_copy's copies do. */
static inline void
dp_trace_inherit(struct rte_mbuf *to, const struct rte_mbuf *from)
{
	if (!(from->ol_flags & dp_trace_flag))
		return;
	to->ol_flags |= dp_trace_flag;
	/* the record's index and the trace's id (dp_trace.c: field_of) */
	*RTE_MBUF_DYNFIELD(to, dp_trace_field, uint32_t *) =
		*RTE_MBUF_DYNFIELD(from, dp_trace_field, const uint32_t *);
}

/* The hooks, each called only when ctx->trace is set. */

/* rx: takes packets of b (in's, no filter) for records, from n_taken on;
 * clears the flag of the others (a recycled mbuf's leftover). */
void dp_trace_rx(struct dp_ctx *ctx, const struct port *in,
		 struct pkt_batch *b);
/* extract: with a filter, takes the packets of b (in's) that match it;
 * every traced packet's key recorded. */
void dp_trace_extract(struct dp_ctx *ctx, const struct port *in,
		      const struct pkt_batch *b, const struct flow_key keys[]);
void dp_trace_hash(struct dp_ctx *ctx, const struct pkt_batch *b,
		   const uint32_t hashes[], bool from_nic);
/* lookup: flows[i] found by the EMC (emc bit i), dpcls, or installed by
 * an upcall (upcall bit i; flows[i] NULL: none) */
void dp_trace_lookup(struct dp_ctx *ctx, const struct pkt_batch *b,
		     struct megaflow *const flows[], uint32_t emc,
		     uint32_t upcall);
/* sg(): the tracker's states, zones per packet (zone: all of them when
 * zones is NULL), allow (per packet: bit i of allow_bits) */
void dp_trace_sg(struct dp_ctx *ctx, struct rte_mbuf *const pkts[],
		 uint16_t n, const uint8_t state[], const uint16_t zones[],
		 uint16_t zone, const uint64_t allow_bits[], bool allow);
void dp_trace_ct(struct dp_ctx *ctx, const struct pkt_batch *b,
		 const uint8_t state[], uint16_t zone, bool commit);
void dp_trace_action(struct dp_ctx *ctx, const struct pkt_batch *b,
		     const struct dp_action *a);
void dp_trace_tnl_pop(struct dp_ctx *ctx, const struct pkt_batch *b,
		      const struct flow_key keys[]);
void dp_trace_tnl_push(struct dp_ctx *ctx, const struct pkt_batch *b);
void dp_trace_recirc(struct dp_ctx *ctx, struct rte_mbuf *m,
		     const struct flow_key *k);
/* path MTU (dp_pmtud.c): what m, too long for the tunnel, was answered
 * with (verdict: enum dp_pmtud_verdict), the MTU, the port it went to */
void dp_trace_pmtud(struct dp_ctx *ctx, struct rte_mbuf *m,
		    unsigned verdict, uint32_t mtu, uint16_t port_idx);
void dp_trace_arp(struct dp_ctx *ctx, struct rte_mbuf *m,
		  enum dp_trace_arp what);
void dp_trace_mark(struct dp_ctx *ctx, struct rte_mbuf *m, uint32_t mark,
		   const struct megaflow *f);
/* output: queued for port_idx */
void dp_trace_output(struct dp_ctx *ctx, struct rte_mbuf *const pkts[],
		     uint16_t n, uint16_t port_idx, enum dp_trace_kind kind);
/* tx: the records of pkts (DP_TRACE_NO_SLOT: none) before the driver
 * takes them, whether any; then, pkts[0..sent) were sent by port_idx and
 * the rest dropped (tx_full). */
#define DP_TRACE_NO_SLOT UINT16_MAX
bool dp_trace_slots(struct dp_ctx *ctx, struct rte_mbuf *const pkts[],
		    uint16_t n, uint16_t slots[]);
void dp_trace_sent(struct dp_ctx *ctx, const uint16_t slots[], uint16_t n,
		   uint16_t sent, uint16_t port_idx);
/* drop: pkts dropped for why (copy: copies of them, not made) */
void dp_trace_drop(struct dp_ctx *ctx, struct rte_mbuf *const pkts[],
		   uint16_t n, enum drop_reason why, bool copy);

/* Control side: the names of the kinds. */
const char *dp_trace_kind_name(enum dp_trace_kind k);

#endif
