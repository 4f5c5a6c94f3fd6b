/* SPDX-License-Identifier: BSD-3-Clause
 * The tx stage: per-port tx buffers, filled by the actions and sent when
 * one is full, when its oldest packet has waited tx-flush-interval, or when
 * the PMD has nothing else to do (dp_stages.h, dp_tx_enqueue). A send that
 * finds the port down, a frame too long for it, or the queue full drops
 * under its reason.
 *
 * Timing: a full buffer in the middle of a burst is sent between two
 * marks, actions and the port's tx stage (tx_vhost or tx_nic,
 * port_io_vhost). A flush (io-timing on) marks flush at its first
 * send (the scan so far) and the port's tx stage after each send (the
 * send with its few lines of bookkeeping); off, one flush mark after all
 * the sends. One TSC read per send, not two: the rdtsc is ~22 cycles here.
 */
#include <string.h>
#include <rte_mbuf.h>
#include "dp_mtu.h"
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
	return port_io_vhost(p) ? PMD_STAGE_TX_VHOST : PMD_STAGE_TX_NIC;
}

/* vhost-tx-align4: how many of the n buffered packets a flush keeps back.
 * rte_vhost 22.11's packed-ring enqueue copies 4 descriptors at a time
 * only from a ring index that is a multiple of 4 (virtio_dev_rx_packed:
 * virtio_dev_rx_sync_batch_packed, else one by one through the generic
 * path): a send of n % 4 != 0 leaves the index misaligned and the next
 * send pays up to 3 single packets. So a due flush (now != 0: not forced,
 * not a full buffer) to a packed guest sends n & ~3 and keeps the tail
 * unless the tail's oldest packet has itself waited tx-flush-interval;
 * the kept tail's first_tsc is its oldest packet's, so it goes with the
 * next due flush and no packet waits longer than it would with the option
 * off. Forced flushes and full buffers send everything. */
static uint16_t
tx_tail_kept(const struct dp_ctx *ctx, const struct dp_txbuf *tb,
	     const struct port *p, uint16_t n, uint64_t now)
{
	uint16_t kept = n & 3;

	if (!now || !kept || kept == n ||
	    !(ctx->opts & DP_OPT_BIT(DP_OPT_VHOST_TX_ALIGN4)) ||
	    !port_vhost_packed(p) ||
	    now - tb->queued_tsc[n - kept] >= ctx->tx_flush_tsc)
		return 0;
	return kept;
}

/* The send with a trace armed: the records of the packets (the driver
 * owns them once sent, so looked at before), then what became of them.
 * Apart, so that the usual send's frame holds none of it (callgrind:
 * 3 instructions a packet on the decap fan-out when inline). */
static __rte_noinline uint16_t
tx_burst_traced(struct dp_ctx *ctx, struct port *p, uint16_t port_idx,
		uint16_t n)
{
	struct rte_mbuf **pkts = ctx->txbufs[port_idx].pkts;
	uint16_t slots[BATCH_MAX];
	bool traced = dp_trace_slots(ctx, pkts, n, slots);
	uint16_t sent = port_tx_burst(p, ctx->idx, pkts, n);

	if (traced)
		dp_trace_sent(ctx, slots, n, sent, port_idx);
	return sent;
}

/* mark: end the port's tx stage after the send; due_now: the TSC of a due
 * flush, which may keep a tail (tx_tail_kept), else 0 */
static void
tx_flush(struct dp_ctx *ctx, uint16_t port_idx, bool mark, uint64_t due_now)
{
	struct dp_txbuf *tb = &ctx->txbufs[port_idx];
	struct port *p = ports[port_idx];
	struct pmd_port_stats *ps = &ctx->port_stats[port_idx];
	uint32_t lens[BATCH_MAX];
	uint16_t n = tb->n, sent, kept;
	uint64_t bytes = 0;

	if (!n)
		return;
	tb->n = 0;
	if (p->kind == PORT_VHOST && !port_vhost_ready(p)) {
		if (unlikely(ctx->trace))
			dp_trace_drop(ctx, tb->pkts, n, DROP_PORT_DOWN, false);
		rte_pktmbuf_free_bulk(tb->pkts, n);
		ps->tx_dropped += n;
		dp_count_drops(ctx, DROP_PORT_DOWN, n);
		return;
	}
	kept = tx_tail_kept(ctx, tb, p, n, due_now);
	n -= kept;
	uint16_t tail_at = n;
	uint32_t longest = 0;
	for (uint16_t i = 0; i < n; i++) {
		lens[i] = rte_pktmbuf_pkt_len(tb->pkts[i]);
		longest = RTE_MAX(longest, lens[i]);
		bytes += lens[i];
	}
	if (unlikely(longest > p->tx_max_frame)) {	/* rather than lost in the driver */
		uint16_t fit = dp_drop_oversize(ctx, tb->pkts, n,
						p->tx_max_frame);
		ps->tx_dropped += n - fit;
		if (kept)	/* the tail follows what was kept */
			memmove(&tb->pkts[fit], &tb->pkts[n],
				kept * sizeof tb->pkts[0]);
		n = fit;
		bytes = 0;
		for (uint16_t i = 0; i < n; i++) {
			lens[i] = rte_pktmbuf_pkt_len(tb->pkts[i]);
			bytes += lens[i];
		}
	}
	bool vhost = port_io_vhost(p);
	dp_where_set(&ctx->io_where, DP_IN_TX, port_idx);
	sent = likely(!ctx->trace) ? port_tx_burst(p, ctx->idx, tb->pkts, n)
				   : tx_burst_traced(ctx, p, port_idx, n);
	dp_where_set(&ctx->io_where, DP_IN_DATAPATH, port_idx);
	if (kept) {
		memmove(&tb->pkts[0], &tb->pkts[n], kept * sizeof tb->pkts[0]);
		memmove(&tb->queued_tsc[0], &tb->queued_tsc[tail_at],
			kept * sizeof tb->queued_tsc[0]);
		tb->first_tsc = tb->queued_tsc[0];
		tb->n = kept;
	}
	if (mark)
		dp_stage_mark(ctx, tx_stage(p));
	/* counted in the length loop: take off what a full queue left */
	for (uint16_t i = sent; i < n; i++)
		bytes -= lens[i];
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

/* tx-pending-list: buffer i joins the list (it just went from empty) */
static inline void
tx_pending_push(struct dp_ctx *ctx, uint16_t i)
{
	struct dp_txbuf *tb = &ctx->txbufs[i];

	if (tb->listed)
		return;
	tb->listed = true;
	tb->pending_next = ctx->tx_pending_head;
	ctx->tx_pending_head = i + 1;
}

static inline void
tx_enqueue(struct dp_ctx *ctx, uint16_t port_idx, struct rte_mbuf **pkts,
	   uint16_t n)
{
	struct dp_txbuf *tb = &ctx->txbufs[port_idx];

	if (n && !tb->n) {
		tb->first_tsc = ctx->stage_tsc;
		if (ctx->tx_pending_on)
			tx_pending_push(ctx, port_idx);
	}
	bool stamp = ctx->opts & DP_OPT_BIT(DP_OPT_VHOST_TX_ALIGN4);
	for (uint16_t i = 0; i < n; i++) {
		if (stamp)
			tb->queued_tsc[tb->n] = ctx->stage_tsc;
		tb->pkts[tb->n++] = pkts[i];
		if (tb->n == BATCH_MAX) {
			dp_stage_mark(ctx, PMD_STAGE_ACTIONS);
			tx_flush(ctx, port_idx, true, 0);
			tb->first_tsc = ctx->stage_tsc;
		}
	}
}

/* Apart, and reached by a tail call, so that the usual enqueue's frame
 * saves nothing for it (callgrind: 8 instructions a call when inline). */
static __rte_noinline void
tx_enqueue_traced(struct dp_ctx *ctx, uint16_t port_idx,
		  struct rte_mbuf **pkts, uint16_t n)
{
	dp_trace_output(ctx, pkts, n, port_idx, DP_TRACE_OUTPUT);
	tx_enqueue(ctx, port_idx, pkts, n);
}

void
dp_tx_enqueue(struct dp_ctx *ctx, uint16_t port_idx, struct rte_mbuf **pkts,
	      uint16_t n)
{
	if (unlikely(ctx->trace)) {
		tx_enqueue_traced(ctx, port_idx, pkts, n);
		return;
	}
	tx_enqueue(ctx, port_idx, pkts, n);
}

/* tx-pending-list follows the option, switched between bursts: on, the
 * list is built from one scan (enqueues pushed nothing while it was off);
 * off, it is emptied. */
static bool
tx_pending_sync(struct dp_ctx *ctx, uint16_t n_slots)
{
	bool on = ctx->opts & DP_OPT_BIT(DP_OPT_TX_PENDING_LIST);

	if (on == ctx->tx_pending_on)
		return on;
	if (on) {
		for (uint16_t i = 0; i < n_slots; i++)
			if (ctx->txbufs[i].n)
				tx_pending_push(ctx, i);
	} else {
		while (ctx->tx_pending_head) {
			struct dp_txbuf *tb =
				&ctx->txbufs[ctx->tx_pending_head - 1];
			ctx->tx_pending_head = tb->pending_next;
			tb->pending_next = 0;
			tb->listed = false;
		}
	}
	ctx->tx_pending_on = on;
	return on;
}

struct tx_sweep {
	uint64_t now, min_age;		/* min_age 0: every buffer */
	bool chained, timed, any;
};

/* Flushes buffer i if it is due; the stage marks as tx_flush_older says */
static inline void
tx_flush_if_due(struct dp_ctx *ctx, struct tx_sweep *w, uint16_t i)
{
	const struct dp_txbuf *tb = &ctx->txbufs[i];

	if (!tb->n || (w->min_age && w->now - tb->first_tsc < w->min_age))
		return;
	if (!w->any && !w->chained)
		ctx->stage_tsc = rte_rdtsc();
	else if (!w->any && w->timed)
		dp_stage_mark(ctx, PMD_STAGE_FLUSH);
	w->any = true;
	tx_flush(ctx, i, w->timed, w->min_age ? w->now : 0);
}

/* Flushes the buffers whose oldest packet has waited at least min_age
 * ticks (0: all of them). chained: the stage chain runs from
 * ctx->stage_tsc (the caller's last boundary), so the scan before the
 * first burst is flush too; else it starts at the first burst. With
 * tx-pending-list, only the listed buffers are looked at (32 VMs and a NIC
 * of which a round sends to a few), and those left empty leave the list. */
static void
tx_flush_older(struct dp_ctx *ctx, uint64_t now, uint64_t min_age,
	       bool chained)
{
	struct tx_sweep w = { .now = now, .min_age = min_age,
			      .chained = chained, .timed = io_timed(ctx) };

	if (tx_pending_sync(ctx, n_ports)) {
		uint16_t *link = &ctx->tx_pending_head;
		while (*link) {
			uint16_t i = *link - 1;
			struct dp_txbuf *tb = &ctx->txbufs[i];
			tx_flush_if_due(ctx, &w, i);
			if (tb->n) {
				link = &tb->pending_next;
				continue;
			}
			*link = tb->pending_next;
			tb->pending_next = 0;
			tb->listed = false;
		}
	} else {
		for (uint16_t i = 0; i < n_ports; i++)
			tx_flush_if_due(ctx, &w, i);
	}
	if (w.any)
		dp_stage_mark(ctx, PMD_STAGE_FLUSH);
}

void
dp_tx_flush_all(struct dp_ctx *ctx)
{
	tx_flush_older(ctx, 0, 0, false);
}

void
dp_tx_flush_all_at(struct dp_ctx *ctx, uint64_t now)
{
	ctx->stage_tsc = now;
	tx_flush_older(ctx, now, 0, true);
}

/* now: a TSC read, the stage chain's last boundary (the PMD loop's) */
void
dp_tx_flush_due(struct dp_ctx *ctx, uint64_t now)
{
	ctx->stage_tsc = now;
	tx_flush_older(ctx, now, ctx->tx_flush_tsc, true);
}

