/* SPDX-License-Identifier: BSD-3-Clause
 * The VTEP's ARP, in the datapath: requests for our VTEP IP are answered
 * in place (the reply goes back out of the port it came in on), and the
 * sender's address is learned for encapsulation (tnl/arp/show), as OVS's
 * native tunnelling snoops ARP on br-phy. Learning is a message to the
 * control thread; the PMD never writes the neighbour table itself.
 *
 * An ARP flood from the underlay must not take the PMD from the existing
 * flows: everything that would make us reply or learn (for our VTEP IP,
 * or gratuitous) first takes a token from the PMD's policer (datapath
 * arp-rate / arp-burst), before any table lookup; over budget it is
 * dropped as arp_policed, at the cost of a header check. Admitted senders
 * already known with the same MAC are answered and not reported.
 */
#include <string.h>
#include <netinet/in.h>
#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include "arp_frame.h"
#include "dp_stages.h"
#include "dp_snapshot.h"

void
arp_policer_init(struct arp_policer *p, uint32_t rate, uint32_t burst,
		 uint64_t tsc_hz, uint64_t now)
{
	p->cost = rate ? RTE_MAX(tsc_hz / rate, (uint64_t)1) : 0;
	p->depth = p->cost * RTE_MAX(burst, 1u);
	p->credit = p->depth;
	p->last_tsc = now;
}

void
arp_frame_write(void *p, const struct rte_ether_addr *dst, uint16_t op,
		const struct rte_ether_addr *sha, rte_be32_t sip,
		rte_be32_t tip)
{
	struct rte_ether_hdr *eh = p;
	struct rte_arp_hdr *ah = (struct rte_arp_hdr *)(eh + 1);

	RTE_BUILD_BUG_ON(ARP_FRAME_LEN != sizeof *eh + sizeof *ah);
	eh->dst_addr = *dst;
	eh->src_addr = *sha;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	ah->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	ah->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ah->arp_hlen = RTE_ETHER_ADDR_LEN;
	ah->arp_plen = 4;
	ah->arp_opcode = rte_cpu_to_be_16(op);
	ah->arp_data.arp_sha = *sha;
	ah->arp_data.arp_sip = sip;
	memset(&ah->arp_data.arp_tha, 0, sizeof ah->arp_data.arp_tha);
	ah->arp_data.arp_tip = tip;
}

/* The learn events of one batch, sent to the control thread in one ring
 * operation. */
struct learn_batch {
	unsigned n;
	struct ctl_event ev[BATCH_MAX];
};

static void
learn(const struct dp_snapshot *s, struct learn_batch *lb, rte_be32_t ip,
      const struct rte_ether_addr *mac)
{
	const struct neigh_entry *n = dp_snapshot_neigh(s, ip);

	if (!ip || (n && rte_is_same_ether_addr(&n->mac, mac)))
		return;		/* known as it is: nothing to tell */
	lb->ev[lb->n++] = (struct ctl_event){ .type = CTL_EV_NEIGH_LEARN,
					      .addr = neigh_addr_from4(ip),
					      .mac = *mac };
}

/* Where each ARP packet ends (dp_stats.h's accounting): the reply is sent,
 * the rest are counted as consumed (a reply for us, learned) or under a
 * drop reason. */
enum arp_verdict { ARP_SEND_REPLY, ARP_CONSUMED, ARP_IGNORED, ARP_BAD_OP,
		   ARP_POLICED };

static enum arp_verdict
arp_handle(struct dp_ctx *ctx, struct learn_batch *lb, struct rte_mbuf *m)
{
	const struct dp_snapshot *s = ctx->snap;
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *ah;

	if (rte_pktmbuf_data_len(m) < sizeof *eh + sizeof *ah ||
	    eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_ARP))
		return ARP_IGNORED;
	ah = (struct rte_arp_hdr *)(eh + 1);
	if (ah->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    ah->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
	    ah->arp_hlen != RTE_ETHER_ADDR_LEN || ah->arp_plen != 4)
		return ARP_IGNORED;

	if (ah->arp_opcode != RTE_BE16(RTE_ARP_OP_REQUEST) &&
	    ah->arp_opcode != RTE_BE16(RTE_ARP_OP_REPLY))
		return ARP_BAD_OP;	/* nothing to learn from or answer */

	struct rte_arp_ipv4 *a = &ah->arp_data;
	bool for_us = a->arp_tip == s->vtep_ip;
	bool gratuitous = a->arp_sip == a->arp_tip;

	if (!for_us && !gratuitous)
		return ARP_IGNORED;	/* neither answered nor learned */
	if (!arp_policer_take(&ctx->arp_policer))
		return ARP_POLICED;
	if (for_us || dp_snapshot_neigh(s, a->arp_sip))
		learn(s, lb, a->arp_sip, &a->arp_sha);
	if (!for_us)
		return ARP_IGNORED;
	if (ah->arp_opcode != RTE_BE16(RTE_ARP_OP_REQUEST))
		return ARP_CONSUMED;	/* a reply to our request: learned */

	ah->arp_opcode = RTE_BE16(RTE_ARP_OP_REPLY);
	a->arp_tha = a->arp_sha;
	a->arp_tip = a->arp_sip;
	a->arp_sha = s->vtep_mac;
	a->arp_sip = s->vtep_ip;
	eh->dst_addr = eh->src_addr;
	eh->src_addr = s->vtep_mac;
	return ARP_SEND_REPLY;
}

static void
arp_trace(struct dp_ctx *ctx, struct rte_mbuf *m, enum arp_verdict v)
{
	static const uint8_t dropped_as[] = {
		[ARP_IGNORED] = DROP_ARP_IGNORED,
		[ARP_BAD_OP] = DROP_ARP_BAD_OP,
		[ARP_POLICED] = DROP_ARP_POLICED,
	};

	if (v == ARP_SEND_REPLY || v == ARP_CONSUMED)
		dp_trace_arp(ctx, m, v == ARP_SEND_REPLY ?
			     DP_TRACE_ARP_REPLY : DP_TRACE_ARP_CONSUMED);
	else
		dp_trace_drop(ctx, &m, 1, dropped_as[v], false);
}

/* ND frames xlate sent here too (xlate_underlay): to their responder,
 * tagged ones as well (it ignores those, as this one tagged ARP). */
static void
nd_split(struct dp_ctx *ctx, struct pkt_batch *b, uint16_t port_idx)
{
	struct pkt_batch nd;
	uint16_t kept = 0;

	nd.n = 0;
	for (uint16_t i = 0; i < b->n; i++) {
		const struct rte_ether_hdr *eh =
			rte_pktmbuf_mtod(b->pkts[i], const struct rte_ether_hdr *);
		const struct rte_vlan_hdr *vh =
			(const struct rte_vlan_hdr *)(eh + 1);
		uint16_t len = rte_pktmbuf_data_len(b->pkts[i]);
		if ((len >= sizeof *eh &&
		     eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) ||
		    (len >= sizeof *eh + sizeof *vh &&
		     eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN) &&
		     vh->eth_proto == RTE_BE16(RTE_ETHER_TYPE_IPV6)))
			nd.pkts[nd.n++] = b->pkts[i];
		else
			b->pkts[kept++] = b->pkts[i];
	}
	b->n = kept;
	if (nd.n)
		nd_respond_batch(ctx, &nd, port_idx);
}

void
arp_respond_batch(struct dp_ctx *ctx, struct pkt_batch *b, uint16_t port_idx)
{
	struct rte_mbuf *replies[BATCH_MAX];
	struct learn_batch lb;
	uint16_t n = 0, count[ARP_POLICED + 1] = { 0 };

	nd_split(ctx, b, port_idx);
	lb.n = 0;
	if (ctx->arp_policer.cost)
		arp_policer_refill(&ctx->arp_policer, rte_rdtsc());
	for (uint16_t i = 0; i < b->n; i++) {
		enum arp_verdict v = arp_handle(ctx, &lb, b->pkts[i]);
		if (unlikely(ctx->trace))
			arp_trace(ctx, b->pkts[i], v);
		if (v == ARP_SEND_REPLY) {
			replies[n++] = b->pkts[i];
			continue;
		}
		rte_pktmbuf_free(b->pkts[i]);
		count[v]++;
	}
	b->n = 0;
	dp_push_events(ctx, lb.ev, lb.n);
	ctx->stats->arp_replies += n;
	ctx->stats->arp_consumed += count[ARP_CONSUMED];
	dp_count_drops(ctx, DROP_ARP_IGNORED, count[ARP_IGNORED]);
	dp_count_drops(ctx, DROP_ARP_BAD_OP, count[ARP_BAD_OP]);
	dp_count_drops(ctx, DROP_ARP_POLICED, count[ARP_POLICED]);
	dp_tx_enqueue(ctx, port_idx, replies, n);
}

/* The same verdict as xlate_underlay's megaflow for these frames (ARP to
 * our VTEP MAC or broadcast: the responder), without the miniflow
 * extract, hash, EMC and classifier an ARP flood from a million senders
 * would otherwise pay per frame (every one an EMC miss). Tagged ARP still
 * takes the pipeline, to the same end. */
/* The loop, inlined twice: nd (a constant) is whether the VTEP has an
 * IPv6 address, so an IPv4-only VTEP pays nothing for ND (callgrind:
 * 4 instructions a frame when the test was in the loop). */
static inline __rte_always_inline void
steer_batch(struct dp_ctx *ctx, struct pkt_batch *b, const bool nd_on)
{
	const struct dp_snapshot *s = ctx->snap;
	struct pkt_batch arp, nd;
	uint16_t kept = 0;

	arp.n = nd.n = 0;
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		const struct rte_ether_hdr *eh =
			rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

		if (rte_pktmbuf_data_len(m) >= sizeof *eh &&
		    eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP) &&
		    (rte_is_broadcast_ether_addr(&eh->dst_addr) ||
		     rte_is_same_ether_addr(&eh->dst_addr, &s->vtep_mac)))
			arp.pkts[arp.n++] = m;
		/* the next header byte inline: over an IPv6 underlay every
		 * VXLAN frame is IPv6, and the call cost each 15
		 * instructions (callgrind, dpbench --underlay6) */
		else if (nd_on &&
			 rte_pktmbuf_data_len(m) > sizeof *eh + 40 &&
			 eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
			 ((const uint8_t *)eh)[sizeof *eh + 6] ==
				 IPPROTO_ICMPV6 &&
			 nd_frame_is_for_responder(s, m))
			nd.pkts[nd.n++] = m;
		else
			b->pkts[kept++] = m;
	}
	b->n = kept;
	if (arp.n)
		arp_respond_batch(ctx, &arp, s->underlay_idx);
	if (nd_on && nd.n)
		nd_respond_batch(ctx, &nd, s->underlay_idx);
}

void
arp_steer_batch(struct dp_ctx *ctx, struct pkt_batch *b)
{
	if (unlikely(ctx->snap->has_vtep_ip6))
		steer_batch(ctx, b, true);
	else
		steer_batch(ctx, b, false);
}
