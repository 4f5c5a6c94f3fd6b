/* SPDX-License-Identifier: BSD-3-Clause
 * The tx stage: per-port tx buffers, filled by the actions and sent when
 * one is full, when its oldest packet has waited tx-flush-interval, or when
 * the PMD has nothing else to do (dp_stages.h, dp_tx_enqueue). A send that
 * finds the port down, a frame too long for it, or the queue full drops
 * under its reason.
 *
 * Timing: a full buffer in the middle of a burst is sent between two
 * marks, actions and the port's tx stage (tx_vhost or tx_nic,
 * pmd_port_io_vhost). A flush (io-timing on) marks flush at its first
 * send (the scan so far) and the port's tx stage after each send (the
 * send with its few lines of bookkeeping); off, one flush mark after all
 * the sends. One TSC read per send, not two: the rdtsc is ~22 cycles here.
 */
#include <rte_mbuf.h>
#include "dp_stages.h"
#include "port.h"

static inline bool
io_timed(const struct dp_ctx *ctx)
{
	return ctx->opts & DP_OPT_BIT(DP_OPT_IO_TIMING);
}

static inline enum pmd_stage
tx_stage(const struct port *p)
{
	return pmd_port_io_vhost(p) ? PMD_STAGE_TX_VHOST : PMD_STAGE_TX_NIC;
}

/* mark: end the port's tx stage after the send */
static void
tx_flush(struct dp_ctx *ctx, uint16_t port_idx, bool mark)
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
	bool vhost = pmd_port_io_vhost(p);
	sent = port_tx_burst(p, ctx->idx, tb->pkts, n);
	if (mark)
		dp_stage_mark(ctx, tx_stage(p));
	for (uint16_t i = 0; i < sent; i++)
		bytes += lens[i];
	ps->tx_packets += sent;
	ps->tx_bytes += bytes;
	ctx->stats->tx_batches++;
	ctx->stats->tx_packets += sent;
	if (vhost) {
		ctx->stats->tx_batches_vhost++;
		ctx->stats->tx_packets_vhost += sent;
	}
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
			tx_flush(ctx, port_idx, true);
			tb->first_tsc = ctx->stage_tsc;
		}
	}
}

/* Flushes the buffers whose oldest packet has waited at least min_age
 * ticks (0: all of them). chained: the stage chain runs from
 * ctx->stage_tsc (the caller's last boundary), so the scan before the
 * first burst is flush too; else it starts at the first burst. */
static void
tx_flush_older(struct dp_ctx *ctx, uint64_t now, uint64_t min_age,
	       bool chained)
{
	bool any = false, timed = io_timed(ctx);

	for (uint16_t i = 0; i < n_ports; i++) {
		if (!ctx->txbufs[i].n ||
		    (min_age && now - ctx->txbufs[i].first_tsc < min_age))
			continue;
		if (!any && !chained)
			ctx->stage_tsc = rte_rdtsc();
		else if (!any && timed)
			dp_stage_mark(ctx, PMD_STAGE_FLUSH);
		any = true;
		tx_flush(ctx, i, timed);
	}
	if (any)
		dp_stage_mark(ctx, PMD_STAGE_FLUSH);
}

void
dp_tx_flush_all(struct dp_ctx *ctx)
{
	tx_flush_older(ctx, 0, 0, false);
}

/* now: a TSC read, the stage chain's last boundary (the PMD loop's) */
void
dp_tx_flush_due(struct dp_ctx *ctx, uint64_t now)
{
	ctx->stage_tsc = now;
	tx_flush_older(ctx, now, ctx->tx_flush_tsc, true);
}

