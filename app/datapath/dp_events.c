/* SPDX-License-Identifier: BSD-3-Clause
 * The datapath's messages to the control thread (datapath.h): the
 * upcall's ARP misses, the ARP responder's learned addresses, retired
 * megaflows' counters. One file that the stages call, so that they need
 * not call each other for it.
 */
#include <rte_ring.h>
#include "dp_stages.h"

void
dp_push_event(struct dp_ctx *ctx, const struct ctl_event *ev)
{
	if (rte_ring_mp_enqueue_elem(ctx->events, (void *)ev, sizeof *ev))
		ctx->stats->ctl_events_lost++;
}

void
dp_push_events(struct dp_ctx *ctx, const struct ctl_event *ev, unsigned n)
{
	if (n)
		ctx->stats->ctl_events_lost += n -
			rte_ring_mp_enqueue_burst_elem(ctx->events,
						       (const void *)ev,
						       sizeof *ev, n, NULL);
}
