/* SPDX-License-Identifier: BSD-3-Clause
 * The VTEP's Neighbour Discovery (RFC 4861), in the datapath, beside its
 * ARP (arp_responder.c) and with its token bucket: a Neighbour
 * Solicitation for our VTEP's IPv6 address is answered in place with an
 * advertisement (solicited, override, our target link-layer address
 * always), and what the neighbours say of themselves is learned for
 * encapsulation (tnl/neigh/show), as a message to the control thread:
 *
 *  - NS for our address from a unicast source: its source link-layer
 *    address (SLL) is learned; from :: (duplicate address detection) it
 *    is answered to all-nodes (RFC 4861 7.2.4) and nothing is learned;
 *  - NA to our address with the solicited flag (an answer to our NS) and
 *    a target link-layer address (TLL): learned. Without a TLL (Linux
 *    leaves it out of answers to unicast solicitations, OVS's
 *    tnl-neigh-cache.c) it only confirms a known entry (its age);
 *  - any other NA (unsolicited, to all-nodes) updates a known entry only,
 *    as ARP's gratuitous rule.
 *
 * Every frame first passes RFC 4861 7.1's checks (hop limit 255, code 0,
 * the ICMPv6 checksum, lengths, options of non-zero length, and the
 * per-message ones), else it is dropped as nd_invalid; what would make
 * us answer or learn then takes a token of the PMD's ARP bucket
 * (arp-rate / arp-burst, shared with ARP), else nd_policed, before any
 * table lookup. The rest is nd_ignored.
 */
#include <string.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include "dp_stages.h"
#include "dp_snapshot.h"
#include "nd_frame.h"

#define ND_L3 RTE_ETHER_HDR_LEN
#define ND_L4 (ND_L3 + ND_IPV6_HDR_LEN)

/* Where each ND frame ends (dp_stats.h's accounting). */
enum nd_verdict { ND_SEND_REPLY, ND_CONSUMED, ND_IGNORED, ND_INVALID,
		  ND_POLICED };

/* What a valid NS or NA says, its options read. */
struct nd_msg {
	uint8_t type;
	uint32_t flags;			/* NA's, host order */
	struct flow_in6_addr src, dst, target;
	const struct rte_ether_addr *lla;	/* SLL of an NS, TLL of an NA */
};

static bool
is_multicast6(const struct flow_in6_addr *a)
{
	return a->a[0] == 0xff;
}

/* RFC 4861 7.1.1 and 7.1.2 on the frame at p of len bytes; the message
 * into *msg. false: invalid. */
static bool
nd_parse(const uint8_t *p, uint32_t len, struct nd_msg *msg)
{
	const uint8_t *ip6 = p + ND_L3, *icmp = p + ND_L4;
	uint16_t plen = (uint16_t)(ip6[4] << 8 | ip6[5]);
	static const struct flow_in6_addr unspec;

	if (len < ND_L4 + ND_MSG_LEN || (ip6[0] >> 4) != 6 ||
	    plen < ND_MSG_LEN || ND_L4 + (uint32_t)plen > len)
		return false;
	if (ip6[7] != 255 || icmp[1] != 0 ||
	    nd_icmp6_cksum(ip6, icmp, plen) != 0)
		return false;
	msg->type = icmp[0];
	msg->flags = (uint32_t)icmp[4] << 24 | (uint32_t)icmp[5] << 16 |
		     (uint32_t)icmp[6] << 8 | icmp[7];
	memcpy(msg->src.a, ip6 + 8, 16);
	memcpy(msg->dst.a, ip6 + 24, 16);
	memcpy(msg->target.a, icmp + 8, 16);
	msg->lla = NULL;
	/* no packet comes from a multicast address (RFC 4291 2.7) */
	if (is_multicast6(&msg->target) || is_multicast6(&msg->src))
		return false;
	/* options: each a multiple of 8 bytes, none of length 0 */
	for (uint32_t off = ND_MSG_LEN; off < plen;) {
		uint8_t otype = icmp[off], olen = off + 1 < plen ?
						  icmp[off + 1] : 0;
		if (olen == 0 || off + olen * 8u > plen)
			return false;
		bool ours = (msg->type == ND_ICMP_NS && otype == ND_OPT_SLL) ||
			    (msg->type == ND_ICMP_NA && otype == ND_OPT_TLL);
		if (ours && olen == 1)
			msg->lla = (const struct rte_ether_addr *)
				   (icmp + off + 2);
		off += olen * 8u;
	}
	bool from_unspec = !memcmp(&msg->src, &unspec, sizeof unspec);
	if (msg->type == ND_ICMP_NS && from_unspec) {
		/* DAD: to the target's solicited-node group, no SLL */
		struct flow_in6_addr g = nd_snma(&msg->target);
		if (memcmp(&msg->dst, &g, sizeof g) || msg->lla)
			return false;
	}
	/* an NA to a multicast address answers nobody's solicitation */
	if (msg->type == ND_ICMP_NA && is_multicast6(&msg->dst) &&
	    (msg->flags & ND_NA_SOLICITED))
		return false;
	return true;
}

/* The learn events of one batch, sent in one ring operation. */
struct nd_learn_batch {
	unsigned n;
	struct ctl_event ev[BATCH_MAX];
};

/* addr is at mac; refresh: report it even when known as it is (an NA
 * confirming it: its age restarts, neigh_learn6). */
static void
nd_learn(const struct dp_snapshot *s, struct nd_learn_batch *lb,
	 const struct flow_in6_addr *addr, const struct rte_ether_addr *mac,
	 bool refresh)
{
	const struct neigh_entry *n = dp_snapshot_neigh6(s, addr);

	if (!refresh && n && rte_is_same_ether_addr(&n->mac, mac))
		return;		/* known as it is: nothing to tell */
	lb->ev[lb->n++] = (struct ctl_event){ .type = CTL_EV_NEIGH_LEARN,
					      .addr = *addr, .mac = *mac };
}

/* The NA answering msg, written over m (an NS is at least 78 bytes, the
 * NA 86: the frame grows into its tailroom). false: no room. */
static bool
nd_answer(const struct dp_snapshot *s, const struct nd_msg *msg,
	  struct rte_mbuf *m)
{
	static const struct flow_in6_addr unspec;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	const struct rte_ether_addr *eth_src =
		&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->src_addr;
	bool dad = !memcmp(&msg->src, &unspec, sizeof unspec);
	struct rte_ether_addr dst_mac = msg->lla ? *msg->lla : *eth_src;
	struct flow_in6_addr dst = msg->src;
	uint16_t len = rte_pktmbuf_data_len(m);

	if (dad) {	/* RFC 4861 7.2.4: to all-nodes, not solicited */
		dst = nd_all_nodes;
		dst_mac = nd_mcast_mac(&nd_all_nodes);
	}
	if (len < ND_FRAME_LEN &&
	    !rte_pktmbuf_append(m, (uint16_t)(ND_FRAME_LEN - len)))
		return false;
	if (len > ND_FRAME_LEN)
		rte_pktmbuf_trim(m, (uint16_t)(len - ND_FRAME_LEN));
	nd_frame_write(p, &dst_mac, &s->vtep_mac, &s->vtep_ip6, &dst,
		       ND_ICMP_NA, (dad ? 0 : ND_NA_SOLICITED) | ND_NA_OVERRIDE,
		       &s->vtep_ip6, ND_OPT_TLL);
	return true;
}

static enum nd_verdict
nd_handle(struct dp_ctx *ctx, struct nd_learn_batch *lb, struct rte_mbuf *m)
{
	const struct dp_snapshot *s = ctx->snap;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	static const struct flow_in6_addr unspec;
	struct nd_msg msg;

	/* one segment (an ND frame is under 100 bytes), IPv6, ICMPv6
	 * straight after the header, NS or NA: else not ours to judge */
	if (!s->has_vtep_ip6 || m->nb_segs != 1 ||
	    rte_pktmbuf_data_len(m) < ND_L4 + 1 ||
	    ((const struct rte_ether_hdr *)p)->ether_type !=
	    RTE_BE16(RTE_ETHER_TYPE_IPV6) || p[ND_L3 + 6] != IPPROTO_ICMPV6 ||
	    (p[ND_L4] != ND_ICMP_NS && p[ND_L4] != ND_ICMP_NA))
		return ND_IGNORED;
	if (!nd_parse(p, rte_pktmbuf_data_len(m), &msg))
		return ND_INVALID;

	bool target_ours = !memcmp(&msg.target, &s->vtep_ip6,
				   sizeof msg.target);
	if (msg.type == ND_ICMP_NS) {
		if (!target_ours)
			return ND_IGNORED;	/* neither answered nor learned */
		if (!arp_policer_take(&ctx->arp_policer))
			return ND_POLICED;
		if (msg.lla && memcmp(&msg.src, &unspec, sizeof unspec))
			nd_learn(s, lb, &msg.src, msg.lla, false);
		return nd_answer(s, &msg, m) ? ND_SEND_REPLY : ND_IGNORED;
	}

	/* NA: for our own address someone else claims it (a duplicate);
	 * we keep ours, as the kernel does once its DAD is over */
	if (target_ours)
		return ND_IGNORED;
	if (!arp_policer_take(&ctx->arp_policer))
		return ND_POLICED;
	bool answer_to_us = (msg.flags & ND_NA_SOLICITED) &&
			    !memcmp(&msg.dst, &s->vtep_ip6, sizeof msg.dst);
	const struct neigh_entry *known = dp_snapshot_neigh6(s, &msg.target);
	if (msg.lla && (answer_to_us || known)) {
		nd_learn(s, lb, &msg.target, msg.lla, false);
		return ND_CONSUMED;
	}
	if (!msg.lla && answer_to_us && known) {
		nd_learn(s, lb, &msg.target, &known->mac, true);
		return ND_CONSUMED;
	}
	return ND_IGNORED;
}

static void
nd_trace(struct dp_ctx *ctx, struct rte_mbuf *m, enum nd_verdict v)
{
	static const uint8_t dropped_as[] = {
		[ND_IGNORED] = DROP_ND_IGNORED,
		[ND_INVALID] = DROP_ND_INVALID,
		[ND_POLICED] = DROP_ND_POLICED,
	};

	if (v == ND_SEND_REPLY || v == ND_CONSUMED)
		dp_trace_arp(ctx, m, v == ND_SEND_REPLY ?
			     DP_TRACE_ARP_REPLY : DP_TRACE_ARP_CONSUMED);
	else
		dp_trace_drop(ctx, &m, 1, dropped_as[v], false);
}

void
nd_respond_batch(struct dp_ctx *ctx, struct pkt_batch *b, uint16_t port_idx)
{
	struct rte_mbuf *replies[BATCH_MAX];
	struct nd_learn_batch lb;
	uint16_t n = 0, count[ND_POLICED + 1] = { 0 };

	lb.n = 0;
	if (ctx->arp_policer.cost)
		arp_policer_refill(&ctx->arp_policer, rte_rdtsc());
	for (uint16_t i = 0; i < b->n; i++) {
		enum nd_verdict v = nd_handle(ctx, &lb, b->pkts[i]);
		if (unlikely(ctx->trace))
			nd_trace(ctx, b->pkts[i], v);
		if (v == ND_SEND_REPLY) {
			replies[n++] = b->pkts[i];
			continue;
		}
		rte_pktmbuf_free(b->pkts[i]);
		count[v]++;
	}
	b->n = 0;
	dp_push_events(ctx, lb.ev, lb.n);
	ctx->stats->nd_replies += n;
	ctx->stats->nd_consumed += count[ND_CONSUMED];
	dp_count_drops(ctx, DROP_ND_IGNORED, count[ND_IGNORED]);
	dp_count_drops(ctx, DROP_ND_INVALID, count[ND_INVALID]);
	dp_count_drops(ctx, DROP_ND_POLICED, count[ND_POLICED]);
	dp_tx_enqueue(ctx, port_idx, replies, n);
}

bool
nd_frame_is_for_responder(const struct dp_snapshot *s,
			  const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)p;
	static const struct rte_ether_addr all_nodes = {
		{ 0x33, 0x33, 0, 0, 0, 1 } };

	return s->has_vtep_ip6 && rte_pktmbuf_data_len(m) > ND_L4 &&
	       eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
	       p[ND_L3 + 6] == IPPROTO_ICMPV6 &&
	       (p[ND_L4] == ND_ICMP_NS || p[ND_L4] == ND_ICMP_NA) &&
	       (rte_is_same_ether_addr(&eh->dst_addr, &s->vtep_mac) ||
		rte_is_same_ether_addr(&eh->dst_addr, &s->vtep_ip6_snmac) ||
		rte_is_same_ether_addr(&eh->dst_addr, &all_nodes));
}
