/* SPDX-License-Identifier: BSD-3-Clause
 * The datapath stages' functions, for each other (datapath.h says which
 * file holds which stage); nothing outside app/datapath/ but its unit
 * tests includes this.
 * The counters they bump are the datapath's (dp_stats.h), in memory the
 * PMD owns; nothing here or in any app/datapath/ file includes or calls
 * anything of app/pmd/ (scripts/check-datapath-deps.py).
 */
#ifndef VXS_DP_STAGES_H
#define VXS_DP_STAGES_H

#include <rte_cycles.h>
#include "datapath.h"
#include "dp_stats.h"
#include "dp_trace.h"

struct vxlan_tnl_template;

/* Ends a stage: charges the cycles since the last boundary to it. */
static inline void
dp_stage_mark(struct dp_ctx *ctx, enum pmd_stage s)
{
	uint64_t now = rte_rdtsc();
	ctx->stats->stage_cycles[s] += now - ctx->stage_tsc;
	ctx->stage_tsc = now;
}

static inline void
dp_count_drops(struct dp_ctx *ctx, enum drop_reason why, uint16_t n)
{
	ctx->stats->drops[why] += n;
}

/* Every packet the datapath drops goes through one of these two: its
 * counter, and its trace record's last entry (dp_trace.h). */
static inline void
dp_drop_batch(struct dp_ctx *ctx, struct pkt_batch *b, enum drop_reason why)
{
	if (unlikely(ctx->trace))
		dp_trace_drop(ctx, b->pkts, b->n, why, false);
	dp_count_drops(ctx, why, b->n);
	pkt_batch_free(b);
}

static inline void
dp_drop_pkt(struct dp_ctx *ctx, struct rte_mbuf *m, enum drop_reason why)
{
	if (unlikely(ctx->trace))
		dp_trace_drop(ctx, &m, 1, why, false);
	dp_count_drops(ctx, why, 1);
	rte_pktmbuf_free(m);
}

/* The inner packets tnl_pops hand back to the pipeline: their batch,
 * their keys (in_port=vxlan, tunnel metadata, inner headers extracted)
 * and which outer megaflow decapsulated them (an inner megaflow made for
 * one can be offloaded together with that one): packets [end of the
 * previous run, runs[r].end) came out of runs[r].outer. */
struct dp_inner {
	struct pkt_batch b;
	uint16_t n_runs;
	struct {
		uint16_t end;
		const struct megaflow *outer;
	} runs[BATCH_MAX];
	bool ext;	/* some key of keys[] has a second line (dp_hash.h) */
	struct flow_key keys[BATCH_MAX];
};

/* What ct(table=) recirculates for the next pass: a burst's packets and
 * the fragments of the datagrams they finished (dp_ipf.h), so more than
 * a burst; the next pass looks them up BATCH_MAX at a time
 * (dp_pipeline.c). Past DP_RECIRC_CAP a packet is dropped (recirc_limit). */
#define DP_RECIRC_CAP (BATCH_MAX * 8)
struct dp_recirc {
	uint16_t n;
	bool ext;	/* some key of keys[] has a second line (dp_hash.h) */
	struct rte_mbuf *pkts[DP_RECIRC_CAP];
	struct flow_key keys[DP_RECIRC_CAP];
};

/* The outer megaflow of inner packet i. */
static inline const struct megaflow *
dp_inner_outer(const struct dp_inner *in, uint16_t i)
{
	uint16_t r = 0;

	while (r + 1 < in->n_runs && i >= in->runs[r].end)
		r++;
	return in->runs[r].outer;
}

/* A megaflow's packets in one lookup pass (or on the mark path). */
struct dp_flow_group {
	struct megaflow *flow;
	struct pkt_batch b;
	uint8_t idx[BATCH_MAX];		/* positions in the pass */
	uint8_t sg_done;		/* the sg() action the sg stage ran
					 * (dp_sg_stage): its index + 1;
					 * 0: none */
};

/* Adds m, at position i in the pass, to f's group among g[0..*n_groups),
 * opening one if f has none yet. The megaflow remembers its group for
 * this pass (as OVS's flow->batch): a decap burst fanning out to 32 VMs
 * has 32 groups, and a search over them would be quadratic. The bounds
 * and owner checks make a wrapped epoch harmless. */
static inline void
dp_group_add(struct dp_flow_group g[], uint16_t *n_groups, uint32_t epoch,
	     struct megaflow *f, struct rte_mbuf *m, uint8_t i)
{
	struct dp_flow_group *grp;

	if (f->batch_epoch == epoch && f->batch_group < *n_groups &&
	    g[f->batch_group].flow == f) {
		grp = &g[f->batch_group];
	} else {
		f->batch_epoch = epoch;
		f->batch_group = *n_groups;
		grp = &g[(*n_groups)++];
		grp->flow = f;
		grp->b.n = 0;
		grp->sg_done = 0;
	}
	grp->idx[grp->b.n] = i;
	pkt_batch_add(&grp->b, m);
	f->n_bytes += rte_pktmbuf_pkt_len(m);
}

/* rx (dp_rx.c): counts the burst on port in, drops frames past its mtu
 * and sets the keys' in_port. */
void dp_rx(struct dp_ctx *ctx, struct port *in, struct pkt_batch *b,
	   struct flow_key keys[]);

/* upcall (upcall.c): translates key and installs its megaflow; NULL when
 * the table is full. outer: in an inner pass, the megaflow that
 * decapsulated the packet (offload requests), else NULL. A megaflow the
 * classifier refuses for its chain length (dpcls.h, DPCLS_MAX_CHAIN) comes
 * back ->dead, uncached, to execute for this packet only; such megaflows
 * are freed by dp_upcall_release() at the end of the burst. */
struct megaflow *dp_upcall(struct dp_ctx *ctx, const struct flow_key *key,
			   const struct megaflow *outer);
void dp_upcall_release(struct dp_ctx *ctx);

/* megaflow.c: a megaflow from the PMD's table, NULL when it is full; one
 * given back to it. */
struct megaflow *dp_megaflow_alloc(struct dp_ctx *ctx);
void dp_megaflow_free(struct dp_ctx *ctx, struct megaflow *f);

/* Unlinks f (its counters to the control thread, its mark
 * off the NIC); the caller frees it after emc_purge_dead(). */
void dp_megaflow_retire(struct dp_ctx *ctx, struct megaflow *f);

/* actions (dp_execute.c). b holds the packets of one megaflow; keys and
 * hashes are the whole pass's, idx[j] is b->pkts[j]'s position in it.
 * Consumes b; a tnl_pop appends its inner packets to inner (NULL in an
 * inner pass, or on the mark path, where a tnl_pop drops). sg_done: the
 * group's (the action the sg stage ran already: index + 1, or 0). */
void dp_execute_actions(struct dp_ctx *ctx, const struct megaflow *f,
			struct pkt_batch *b, const struct flow_key keys[],
			const uint32_t hashes[], const uint8_t idx[],
			struct dp_inner *inner, uint8_t sg_done);
/* decap (vxlan_decap.c): strips the outer headers of b (outer's
 * packets, keys[idx[j]] their keys) and extracts the inner ones; the
 * inner packets and keys are appended to inner. flags: DP_TNL_POP_*
 * (dp_actions.h). Consumes b. */
void dp_tnl_pop(struct dp_ctx *ctx, const struct megaflow *outer,
		uint16_t tnl_idx, uint8_t flags, struct pkt_batch *b,
		const struct flow_key keys[], const uint8_t idx[],
		struct dp_inner *inner);
struct dp_ipf_done;
/* sg() (sg_filter.c): keeps in b, in order, the packets the security
 * group lets by (idx[] kept in step); counts the others' drops. Its
 * fragments (IPv4, IPv6) go to the fragment store (dp_ipf.h): the datagrams they
 * finish and sg() lets by come back in frags (frags->n = 0 first; NULL:
 * fragments are not held, the tracker finds them +inv), for the caller
 * to run the actions after sg() on. */
/* The sg stage, between grouping and actions: the leading sg() of every
 * group of the pass, one tracker call for all their packets; each
 * group keeps the packets it lets by and notes sg_done. */
void dp_sg_stage(struct dp_ctx *ctx, struct dp_flow_group g[],
		 uint16_t n_groups, const struct flow_key keys[]);
void dp_sg_filter(struct dp_ctx *ctx, const struct dp_action *a,
		  const struct dp_nat *nat, struct pkt_batch *b,
		  const struct flow_key keys[], const uint8_t idx[],
		  struct dp_ipf_done *frags);

/* ct() (ct_recirc.c): tracks b's packets as a (DP_ACT_CT) says, NATing
 * them as nat (a's nat(...) slot, NULL none) says and writing mark (its
 * exec(->ct_mark), NULL none) and label (exec(->ct_label)) into their
 * committed sessions. With
 * recirc (the DP_ACT_RECIRC after it) consumes b: the packets go to
 * ctx->recirc with their ct fields and recirc id in their keys, or are
 * dropped (recirc_limit) when it is NULL. Without, b goes on unchanged.
 * IP fragments go to the fragment store (dp_ipf.h); the fragments of
 * the datagrams they finish go to ctx->recirc with recirc, else come
 * back in frags (as dp_sg_filter's) to go on after ct(). */
#define DP_MAX_RECIRC 6		/* passes after the first, as OVS's
				 * MAX_RECIRC_DEPTH */
void dp_ct_execute(struct dp_ctx *ctx, const struct dp_action *a,
		   const struct dp_nat *nat, const struct dp_ct_mark *mark,
		   const struct dp_ct_label *label,
		   const struct dp_action *recirc, struct pkt_batch *b,
		   const struct flow_key keys[], const uint8_t idx[],
		   struct dp_ipf_done *frags);

/* encap (vxlan_encap.c): pushes t on every packet of b, hashes[idx[j]]
 * giving the source port; a packet longer than t->max_inner is dropped
 * and its sender told the path MTU (dp_pmtud.h), keys[idx[j]] its key
 * (keys NULL: no answer). */
void dp_tnl_push(struct dp_ctx *ctx, const struct vxlan_tnl_template *t,
		 struct pkt_batch *b, const struct flow_key keys[],
		 const uint32_t hashes[], const uint8_t idx[]);

/* tx (dp_tx.c): queues packets for port; sent when the buffer fills, when
 * the oldest has waited tx-flush-interval (dp_tx_flush_due), or when the
 * PMD finds nothing to do (dp_tx_flush_all). With many VMs a burst from
 * the NIC fans out to many ports one packet each; holding them across
 * bursts is what keeps a vhost enqueue carrying many packets (OVS's
 * other_config:tx-flush-interval). */
void dp_tx_enqueue(struct dp_ctx *ctx, uint16_t port_idx,
		   struct rte_mbuf **pkts, uint16_t n);

/* actions: dp_execute_actions, with the commonest megaflow (one output,
 * as every decap rule's inner megaflow to a VM) inline: a decap burst
 * fanning out to 32 VMs runs 32 one-packet groups, and the general loop's
 * frame and switch cost as much as the send itself (callgrind: ~30
 * instructions a group). */
static inline void
dp_execute(struct dp_ctx *ctx, const struct megaflow *f, struct pkt_batch *b,
	   const struct flow_key keys[], const uint32_t hashes[],
	   const uint8_t idx[], struct dp_inner *inner, uint8_t sg_done)
{
	const struct dp_actions *acts = &f->actions;

	if (likely(acts->n == 1 && acts->act[0].type == DP_ACT_OUTPUT &&
		   !sg_done)) {
		if (b->n)
			dp_tx_enqueue(ctx, acts->act[0].port, b->pkts, b->n);
		b->n = 0;
		return;
	}
	dp_execute_actions(ctx, f, b, keys, hashes, idx, inner, sg_done);
}

/* mark path (mark_path.c): takes the packets of b with a known NIC mark
 * that pass the check out of b and runs their megaflows' actions; b keeps
 * the rest, in order, for the full path (marked ones among them counted
 * in stats.mark_fallbacks). */
void dp_mark_path(struct dp_ctx *ctx, struct pkt_batch *b);

/* The VTEP's ARP responder/learner (arp_responder.c). */
void arp_respond_batch(struct dp_ctx *ctx, struct pkt_batch *b,
		       uint16_t port_idx);
/* On the underlay port, before any parsing: takes out of b the untagged
 * ARP frames xlate would send to the responder (to our VTEP MAC or
 * broadcast), and the ND ones (below), and answers them at once, keeping
 * the rest in order. */
void arp_steer_batch(struct dp_ctx *ctx, struct pkt_batch *b);

/* The VTEP's Neighbour Discovery responder/learner (nd_responder.c); the
 * ARP responder hands it the IPv6 frames of its batches. */
void nd_respond_batch(struct dp_ctx *ctx, struct pkt_batch *b,
		      uint16_t port_idx);
/* Whether m is, by its first header bytes, an untagged NS or NA
 * (ICMPv6 straight after IPv6) to our VTEP MAC, our address's
 * solicited-node MAC or all-nodes, and the VTEP has an IPv6 address. */
bool nd_frame_is_for_responder(const struct dp_snapshot *s,
			       const struct rte_mbuf *m);


#endif
