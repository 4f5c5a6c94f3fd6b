/* SPDX-License-Identifier: BSD-3-Clause
 * Actions run a whole batch at a time: one encap template, one decap
 * pass, one tx buffer append per megaflow and action. */
#include <rte_ether.h>
#include <rte_mbuf.h>
#include "dp_execute.h"
#include "dp_snapshot.h"
#include "miniflow.h"
#include "vxlan_decap.h"
#include "vxlan_encap.h"

static void
tx_flush(struct pmd *pmd, uint16_t port_idx)
{
	struct pmd_txbuf *tb = &pmd->txbufs[port_idx];
	struct port *p = ports[port_idx];
	struct pmd_port_stats *ps = &pmd->port_stats[port_idx];
	uint32_t lens[BATCH_MAX];
	uint16_t n = tb->n, sent;
	uint64_t bytes = 0;

	if (!n)
		return;
	tb->n = 0;
	if (p->kind == PORT_VHOST && !port_vhost_ready(p)) {
		rte_pktmbuf_free_bulk(tb->pkts, n);
		ps->tx_dropped += n;
		pmd_count_drops(pmd, DROP_PORT_DOWN, n);
		return;
	}
	uint32_t longest = 0;
	for (uint16_t i = 0; i < n; i++) {
		lens[i] = rte_pktmbuf_pkt_len(tb->pkts[i]);
		longest = RTE_MAX(longest, lens[i]);
	}
	if (unlikely(longest > p->tx_max_frame)) {	/* rather than lost in the driver */
		uint16_t kept = dp_drop_oversize(pmd, tb->pkts, n,
						 p->tx_max_frame);
		ps->tx_dropped += n - kept;
		n = kept;
		for (uint16_t i = 0; i < n; i++)
			lens[i] = rte_pktmbuf_pkt_len(tb->pkts[i]);
	}
	sent = port_tx_burst(p, port_txq_for(p, pmd->idx), tb->pkts, n);
	for (uint16_t i = 0; i < sent; i++)
		bytes += lens[i];
	ps->tx_packets += sent;
	ps->tx_bytes += bytes;
	pmd->stats.tx_batches++;
	pmd->stats.tx_packets += sent;
	if (sent < n) {
		ps->tx_dropped += n - sent;
		pmd_count_drops(pmd, DROP_TX_FULL, n - sent);
	}
}

uint16_t
dp_drop_oversize(struct pmd *pmd, struct rte_mbuf **pkts, uint16_t n,
		 uint32_t max)
{
	uint16_t kept = 0;

	for (uint16_t i = 0; i < n; i++) {
		if (dp_frame_fits(pkts[i], max)) {
			pkts[kept++] = pkts[i];
		} else {
			rte_pktmbuf_free(pkts[i]);
			pmd_count_drops(pmd, DROP_MTU_EXCEEDED, 1);
		}
	}
	return kept;
}

void
dp_tx_enqueue(struct pmd *pmd, uint16_t port_idx, struct rte_mbuf **pkts,
	      uint16_t n)
{
	struct pmd_txbuf *tb = &pmd->txbufs[port_idx];

	if (n && !tb->n)
		tb->first_tsc = pmd->stage_tsc;
	for (uint16_t i = 0; i < n; i++) {
		tb->pkts[tb->n++] = pkts[i];
		if (tb->n == BATCH_MAX) {
			pmd_stage_mark(pmd, PMD_STAGE_ACTIONS);
			tx_flush(pmd, port_idx);
			pmd_stage_mark(pmd, PMD_STAGE_TX);
			tb->first_tsc = pmd->stage_tsc;
		}
	}
}

/* Flushes the buffers whose oldest packet has waited at least min_age
 * ticks (0: all of them). */
static void
tx_flush_older(struct pmd *pmd, uint64_t now, uint64_t min_age)
{
	bool any = false;

	for (uint16_t i = 0; i < n_ports; i++) {
		if (!pmd->txbufs[i].n ||
		    (min_age && now - pmd->txbufs[i].first_tsc < min_age))
			continue;
		if (!any)
			pmd->stage_tsc = rte_rdtsc();
		any = true;
		tx_flush(pmd, i);
	}
	if (any)
		pmd_stage_mark(pmd, PMD_STAGE_TX);
}

void
dp_tx_flush_all(struct pmd *pmd)
{
	tx_flush_older(pmd, 0, 0);
}

void
dp_tx_flush_due(struct pmd *pmd, uint64_t now)
{
	tx_flush_older(pmd, now, pmd->tx_flush_tsc);
}

/* Copies of the batch for an output that is not the last action: later
 * actions (encap, header rewrites) must not change what it gets. idx[]
 * maps the batch to the burst's keys, cidx[] the copies. Per-copy
 * accounting (pmd.h): a copy that could not be made is counted as made
 * and dropped. */
static void
copy_batch(struct pmd *pmd, const struct pkt_batch *b, const uint8_t idx[],
	   struct pkt_batch *copies, uint8_t cidx[])
{
	copies->n = 0;
	pmd->stats.copies += b->n;
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *c = rte_pktmbuf_copy(b->pkts[i], pktmbuf_pool,
						      0, UINT32_MAX);
		if (c) {
			if (cidx)
				cidx[copies->n] = idx[i];
			copies->pkts[copies->n++] = c;
		} else {
			pmd_count_drops(pmd, DROP_NO_MBUF, 1);
		}
	}
}

static void
output_copy(struct pmd *pmd, uint16_t port_idx, const struct pkt_batch *b)
{
	struct pkt_batch copies;

	copy_batch(pmd, b, NULL, &copies, NULL);
	dp_tx_enqueue(pmd, port_idx, copies.pkts, copies.n);
}

static void
set_eth_addr(struct pkt_batch *b, const struct rte_ether_addr *a, bool src)
{
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_ether_hdr *eh =
			rte_pktmbuf_mtod(b->pkts[i], struct rte_ether_hdr *);
		if (src)
			eh->src_addr = *a;
		else
			eh->dst_addr = *a;
	}
}

static void
drop_batch(struct pmd *pmd, struct pkt_batch *b, enum drop_reason why)
{
	pmd_count_drops(pmd, why, b->n);
	pkt_batch_free(b);
}

/* The unbatched baseline for A/B runs (batched-tunnel off): the same
 * stage called one packet at a time, as a per-packet datapath would. */
static void
vxlan_encap_each(struct pkt_batch *b, const struct vxlan_tnl_template *t,
		 uint32_t hashes[], uint16_t *ip_id, struct pkt_batch *dropped)
{
	uint16_t kept = 0;

	for (uint16_t i = 0; i < b->n; i++) {
		struct pkt_batch one = { .n = 1, .pkts = { b->pkts[i] } };
		vxlan_encap_batch(&one, t, &hashes[i], ip_id, dropped);
		if (one.n)
			b->pkts[kept++] = one.pkts[0];
	}
	b->n = kept;
}

static void
vxlan_decap_each(struct pkt_batch *b, struct flow_key keys[],
		 uint32_t tnl_ofport, struct pkt_batch *bad)
{
	uint16_t kept = 0;

	for (uint16_t i = 0; i < b->n; i++) {
		struct pkt_batch one = { .n = 1, .pkts = { b->pkts[i] } };
		struct flow_key k = keys[i];
		vxlan_decap_batch(&one, &k, tnl_ofport, bad);
		if (one.n) {
			b->pkts[kept] = one.pkts[0];
			keys[kept++] = k;
		}
	}
	b->n = kept;
}

static void
tnl_push(struct pmd *pmd, const struct vxlan_tnl_template *t,
	 struct pkt_batch *b, const uint32_t hashes[], const uint8_t idx[])
{
	uint32_t h[BATCH_MAX];
	struct pkt_batch dropped;

	for (uint16_t j = 0; j < b->n; j++)
		h[j] = hashes[idx[j]];
	pkt_batch_init(&dropped);
	if (likely(pmd->opts & DP_OPT_BIT(DP_OPT_BATCHED_TUNNEL)))
		vxlan_encap_batch(b, t, h, &pmd->ip_id, &dropped);
	else
		vxlan_encap_each(b, t, h, &pmd->ip_id, &dropped);
	pmd->stats.tunnel_pushes += b->n;
	/* The tunnel port's own counters, as OVS shows them for a vxlan
	 * vport: packets that went into the tunnel. */
	struct pmd_port_stats *ts = &pmd->port_stats[pmd->snap->tnl_idx];
	uint64_t bytes = 0;
	for (uint16_t j = 0; j < b->n; j++)
		bytes += rte_pktmbuf_pkt_len(b->pkts[j]);
	ts->tx_packets += b->n;
	ts->tx_bytes += bytes - (uint64_t)b->n * VXLAN_TNL_HDR_LEN;
	if (dropped.n)
		drop_batch(pmd, &dropped, DROP_NO_HEADROOM);
}

/* A tunnel output that is not the last output: its own encapsulated
 * copies. */
static void
tnl_clone(struct pmd *pmd, const struct vxlan_tnl_template *t,
	  uint16_t port_idx, const struct pkt_batch *b,
	  const uint32_t hashes[], const uint8_t idx[])
{
	struct pkt_batch copies;
	uint8_t cidx[BATCH_MAX];

	copy_batch(pmd, b, idx, &copies, cidx);
	tnl_push(pmd, t, &copies, hashes, cidx);
	dp_tx_enqueue(pmd, port_idx, copies.pkts, copies.n);
}

static void
tnl_pop(struct pmd *pmd, const struct megaflow *outer, uint16_t tnl_idx,
	struct pkt_batch *b, const struct flow_key keys[], const uint8_t idx[],
	int depth)
{
	struct flow_key inner[BATCH_MAX];
	struct pkt_batch bad;

	if (depth) {		/* xlate never nests tunnels; be safe */
		drop_batch(pmd, b, DROP_BAD_VXLAN);
		return;
	}
	for (uint16_t j = 0; j < b->n; j++)
		inner[j] = keys[idx[j]];
	pkt_batch_init(&bad);
	if (likely(pmd->opts & DP_OPT_BIT(DP_OPT_BATCHED_TUNNEL)))
		vxlan_decap_batch(b, inner, ports[tnl_idx]->ofport, &bad);
	else
		vxlan_decap_each(b, inner, ports[tnl_idx]->ofport, &bad);
	if (bad.n)
		drop_batch(pmd, &bad, DROP_BAD_VXLAN);
	pmd->stats.tunnel_pops += b->n;
	struct pmd_port_stats *ps = &pmd->port_stats[tnl_idx];
	ps->rx_packets += b->n;
	for (uint16_t j = 0; j < b->n; j++)
		ps->rx_bytes += rte_pktmbuf_pkt_len(b->pkts[j]);
	pmd_stage_mark(pmd, PMD_STAGE_ACTIONS);
	if (miniflow_extract_batch(b, inner, &bad,
				   pmd->opts & DP_OPT_BIT(DP_OPT_FAST_EXTRACT)))
		drop_batch(pmd, &bad, DROP_MALFORMED);
	pmd_stage_mark(pmd, PMD_STAGE_EXTRACT);
	/* an inner megaflow made in this pass can be offloaded together
	 * with the outer one that led to it */
	pmd->tnl_outer = outer;
	dp_lookup_and_execute(pmd, b, inner, depth + 1);
	pmd->tnl_outer = NULL;
}

void
dp_execute(struct pmd *pmd, const struct megaflow *f, struct pkt_batch *b,
	   const struct flow_key keys[], const uint32_t hashes[],
	   const uint8_t idx[], int depth)
{
	const struct dp_actions *acts = &f->actions;

	for (uint8_t i = 0; i < acts->n && b->n; i++) {
		const struct dp_action *a = &acts->act[i];
		bool last = i == acts->n - 1;

		switch (a->type) {
		case DP_ACT_OUTPUT:
			if (last) {
				dp_tx_enqueue(pmd, a->port, b->pkts, b->n);
				b->n = 0;
			} else {
				output_copy(pmd, a->port, b);
			}
			break;
		case DP_ACT_TNL_PUSH:
			tnl_push(pmd, &acts->tnls[a->slot], b, hashes, idx);
			break;
		case DP_ACT_TNL_CLONE:
			tnl_clone(pmd, &acts->tnls[a->slot], a->port, b, hashes,
				  idx);
			break;
		case DP_ACT_TNL_POP:
			tnl_pop(pmd, f, a->port, b, keys, idx, depth);
			return;		/* the inner lookup owns the packets */
		case DP_ACT_SET_ETH_SRC:
			set_eth_addr(b, &acts->macs[a->port], true);
			break;
		case DP_ACT_SET_ETH_DST:
			set_eth_addr(b, &acts->macs[a->port], false);
			break;
		case DP_ACT_ARP_RESPOND:
			arp_respond_batch(pmd, b, a->port);
			return;
		case DP_ACT_DROP:
			drop_batch(pmd, b, a->reason);
			return;
		case DP_ACT_DROP_COPY:	/* as a copy made and dropped */
			pmd->stats.copies += b->n;
			pmd_count_drops(pmd, a->reason, b->n);
			break;
		}
	}
	if (b->n)	/* actions ended without a destination */
		drop_batch(pmd, b, DROP_RULE_DROP);
}
