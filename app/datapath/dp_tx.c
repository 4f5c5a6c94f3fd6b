/* SPDX-License-Identifier: BSD-3-Clause
 * The tx stage: per-port tx buffers, filled by the actions and sent when
 * one is full, when its oldest packet has waited tx-flush-interval, or when
 * the PMD has nothing else to do (dp_stages.h, dp_tx_enqueue). A send that
 * finds the port down, a frame too long for it, or the queue full drops
 * under its reason.
 */
#include <rte_mbuf.h>
#include "dp_stages.h"
#include "port.h"

static void
tx_flush(struct dp_ctx *ctx, uint16_t port_idx)
{
	struct dp_txbuf *tb = &ctx->txbufs[port_idx];
	struct port *p = ports[port_idx];
	struct pmd_port_stats *ps = &ctx->port_stats[port_idx];
	uint32_t lens[BATCH_MAX];
	uint16_t n = tb->n, sent;
	uint64_t bytes = 0;

	if (!n)
		return;
	tb->n = 0;
	if (p->kind == PORT_VHOST && !port_vhost_ready(p)) {
		rte_pktmbuf_free_bulk(tb->pkts, n);
		ps->tx_dropped += n;
		dp_count_drops(ctx, DROP_PORT_DOWN, n);
		return;
	}
	uint32_t longest = 0;
	for (uint16_t i = 0; i < n; i++) {
		lens[i] = rte_pktmbuf_pkt_len(tb->pkts[i]);
		longest = RTE_MAX(longest, lens[i]);
	}
	if (unlikely(longest > p->tx_max_frame)) {	/* rather than lost in the driver */
		uint16_t kept = dp_drop_oversize(ctx, tb->pkts, n,
						 p->tx_max_frame);
		ps->tx_dropped += n - kept;
		n = kept;
		for (uint16_t i = 0; i < n; i++)
			lens[i] = rte_pktmbuf_pkt_len(tb->pkts[i]);
	}
	sent = port_tx_burst(p, ctx->idx, tb->pkts, n);
	for (uint16_t i = 0; i < sent; i++)
		bytes += lens[i];
	ps->tx_packets += sent;
	ps->tx_bytes += bytes;
	ctx->stats->tx_batches++;
	ctx->stats->tx_packets += sent;
	if (sent < n) {
		ps->tx_dropped += n - sent;
		dp_count_drops(ctx, DROP_TX_FULL, n - sent);
	}
}

void
dp_tx_enqueue(struct dp_ctx *ctx, uint16_t port_idx, struct rte_mbuf **pkts,
	      uint16_t n)
{
	struct dp_txbuf *tb = &ctx->txbufs[port_idx];

	if (n && !tb->n)
		tb->first_tsc = ctx->stage_tsc;
	for (uint16_t i = 0; i < n; i++) {
		tb->pkts[tb->n++] = pkts[i];
		if (tb->n == BATCH_MAX) {
			dp_stage_mark(ctx, PMD_STAGE_ACTIONS);
			tx_flush(ctx, port_idx);
			dp_stage_mark(ctx, PMD_STAGE_TX);
			tb->first_tsc = ctx->stage_tsc;
		}
	}
}

/* Flushes the buffers whose oldest packet has waited at least min_age
 * ticks (0: all of them). */
static void
tx_flush_older(struct dp_ctx *ctx, uint64_t now, uint64_t min_age)
{
	bool any = false;

	for (uint16_t i = 0; i < n_ports; i++) {
		if (!ctx->txbufs[i].n ||
		    (min_age && now - ctx->txbufs[i].first_tsc < min_age))
			continue;
		if (!any)
			ctx->stage_tsc = rte_rdtsc();
		any = true;
		tx_flush(ctx, i);
	}
	if (any)
		dp_stage_mark(ctx, PMD_STAGE_TX);
}

void
dp_tx_flush_all(struct dp_ctx *ctx)
{
	tx_flush_older(ctx, 0, 0);
}

void
dp_tx_flush_due(struct dp_ctx *ctx, uint64_t now)
{
	tx_flush_older(ctx, now, ctx->tx_flush_tsc);
}

