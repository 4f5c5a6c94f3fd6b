/* SPDX-License-Identifier: BSD-3-Clause
 * The rx stage: what a received burst goes through before anything looks
 * at its headers. The PMD loop (pmd.c) calls port_rx_burst() and hands the
 * burst to dp_process_burst(), which starts here: the port's and the PMD's
 * rx counters, the burst size histogram, the keys' in_port, and frames
 * longer than the port lets in dropped (mtu_exceeded).
 */
#include "dp_mtu.h"
#include "dp_stages.h"
#include "port.h"

void
dp_rx(struct dp_ctx *ctx, struct port *in, struct pkt_batch *b,
      struct flow_key keys[])
{
	struct pmd_port_stats *ps = &ctx->port_stats[in->idx];
	uint64_t bytes = 0;
	uint32_t longest = 0;

	ctx->stats->bursts[pmd_burst_bucket(b->n)]++;
	for (uint16_t i = 0; i < b->n; i++) {
		keys[i].w[0] = 0;
		keys[i].in_port = in->ofport;
		keys[i].w[1] = 0;
		keys[i].w[6] = keys[i].w[7] = 0;
		uint32_t len = rte_pktmbuf_pkt_len(b->pkts[i]);
		bytes += len;
		longest = RTE_MAX(longest, len);
	}
	ps->rx_packets += b->n;
	ps->rx_bytes += bytes;
	ctx->stats->packets += b->n;
	/* a guest sending past its vhost port's mtu (dp_mtu.c): */
	if (unlikely(longest > in->rx_max_frame))
		b->n = dp_drop_oversize(ctx, b->pkts, b->n, in->rx_max_frame);
}
