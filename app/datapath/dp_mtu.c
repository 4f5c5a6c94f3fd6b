/* SPDX-License-Identifier: BSD-3-Clause
 * Frames too long for a port, dropped (mtu_exceeded): by rx for what a
 * guest sends past its vhost port's mtu (dp_rx.c), by tx rather than lost
 * in the driver (dp_tx.c). Both stages call down here; neither calls the
 * other.
 */
#include "dp_mtu.h"
#include "dp_stages.h"

uint16_t
dp_drop_oversize(struct dp_ctx *ctx, struct rte_mbuf **pkts, uint16_t n,
		 uint32_t max)
{
	uint16_t kept = 0;

	for (uint16_t i = 0; i < n; i++) {
		if (dp_frame_fits(pkts[i], max)) {
			pkts[kept++] = pkts[i];
		} else {
			dp_drop_pkt(ctx, pkts[i], DROP_MTU_EXCEEDED);
		}
	}
	return kept;
}
