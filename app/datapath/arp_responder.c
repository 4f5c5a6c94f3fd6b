/* SPDX-License-Identifier: BSD-3-Clause
 * The VTEP's ARP, in the datapath: requests for our VTEP IP are answered
 * in place (the reply goes back out of the port it came in on), and the
 * sender's address is learned for encapsulation (tnl/arp/show), as OVS's
 * native tunnelling snoops ARP on br-phy. Learning is a message to the
 * control thread; the PMD never writes the neighbour table itself.
 */
#include <rte_arp.h>
#include <rte_ether.h>
#include "dp_stages.h"
#include "dp_snapshot.h"

static void
learn(struct dp_ctx *ctx, rte_be32_t ip, const struct rte_ether_addr *mac)
{
	const struct neigh_entry *n = dp_snapshot_neigh(ctx->snap, ip);

	if (!ip || (n && rte_is_same_ether_addr(&n->mac, mac)))
		return;
	struct ctl_event ev = { .type = CTL_EV_NEIGH_LEARN, .ip = ip,
				.mac = *mac };
	dp_push_event(ctx, &ev);
}

/* Where each ARP packet ends (pmd.h's accounting): the reply is sent,
 * the rest are counted as consumed (a reply for us, learned) or under a
 * drop reason. */
enum arp_verdict { ARP_SEND_REPLY, ARP_CONSUMED, ARP_IGNORED, ARP_BAD_OP };

static enum arp_verdict
arp_handle(struct dp_ctx *ctx, struct rte_mbuf *m)
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

	if (for_us || (gratuitous && dp_snapshot_neigh(s, a->arp_sip)))
		learn(ctx, a->arp_sip, &a->arp_sha);
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

void
arp_respond_batch(struct dp_ctx *ctx, struct pkt_batch *b, uint16_t port_idx)
{
	struct rte_mbuf *replies[BATCH_MAX];
	uint16_t n = 0, ignored = 0, bad_op = 0, consumed = 0;

	for (uint16_t i = 0; i < b->n; i++) {
		enum arp_verdict v = arp_handle(ctx, b->pkts[i]);
		if (v == ARP_SEND_REPLY) {
			replies[n++] = b->pkts[i];
			continue;
		}
		rte_pktmbuf_free(b->pkts[i]);
		ignored += v == ARP_IGNORED;
		bad_op += v == ARP_BAD_OP;
		consumed += v == ARP_CONSUMED;
	}
	b->n = 0;
	ctx->stats->arp_replies += n;
	ctx->stats->arp_consumed += consumed;
	dp_count_drops(ctx, DROP_ARP_IGNORED, ignored);
	dp_count_drops(ctx, DROP_ARP_BAD_OP, bad_op);
	dp_tx_enqueue(ctx, port_idx, replies, n);
}
