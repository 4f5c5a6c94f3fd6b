/* SPDX-License-Identifier: BSD-3-Clause
 * The control thread's side of what PMDs report: ARP or ND learned, MACs
 * missing (we send the ARP request, or for an IPv6 neighbour a multicast
 * Neighbour Solicitation as OVS's compose_nd_ns, rate-limited per address
 * in one pending table, as the kernel's neighbour code would), and
 * counters of retired megaflows.
 * In app/pmd, beside the ring it drains (ctl_event_ring, pmd.c) and the
 * pool its requests come from: what it hands the reports to (the slow
 * path's neighbours and rules, the underlay port) is all below the PMD,
 * and the slow path includes nothing of the PMD's (check-layers.py). */
#include <string.h>
#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include "arp_frame.h"
#include "clock.h"
#include "nd_frame.h"
#include "neigh.h"
#include "ofproto.h"
#include "pmd.h"

#define ARP_RETRY_MS 1000
#define ARP_PENDING_MAX 64

/* Both families, IPv4 mapped (neigh.h). */
static struct {
	struct flow_in6_addr addr;
	uint64_t sent_ms;
} arp_pending[ARP_PENDING_MAX];

static struct ctl_arp_stats arp_stats;

uint64_t
pmd_tsc_to_ms(uint64_t tsc)
{
	if (!tsc)
		return 0;
	uint64_t now_tsc = rte_rdtsc(), now = vxs_now_ms();
	uint64_t ago = now_tsc > tsc ?
		(now_tsc - tsc) * 1000 / rte_get_tsc_hz() : 0;
	return now > ago ? now - ago : 1;
}

const struct ctl_arp_stats *
ctl_arp_get_stats(void)
{
	return &arp_stats;
}

/* tnl/arp/flush: what was asked before the flush says nothing about what
 * must be asked now, so the next miss for any address sends at once. */
void
ctl_arp_requests_forget(void)
{
	memset(arp_pending, 0, sizeof arp_pending);
}

static bool
arp_rate_limited(const struct flow_in6_addr *addr)
{
	uint64_t now = vxs_now_ms();
	int slot = -1, oldest = 0;

	for (int i = 0; i < ARP_PENDING_MAX; i++) {
		if (!memcmp(&arp_pending[i].addr, addr, sizeof *addr)) {
			slot = i;
			break;
		}
		if (arp_pending[i].sent_ms < arp_pending[oldest].sent_ms)
			oldest = i;
	}
	if (slot >= 0 && now - arp_pending[slot].sent_ms < ARP_RETRY_MS)
		return true;
	if (slot < 0)
		slot = oldest;
	arp_pending[slot].addr = *addr;
	arp_pending[slot].sent_ms = now;
	return false;
}

/* ARP for an IPv4 (mapped) address, an NS for an IPv6 one. */
static void
arp_request_send(const struct flow_in6_addr *addr)
{
	const struct dp_snapshot *s = dp_snapshot_get();
	struct port *u = port_underlay();
	bool is4 = neigh_addr_is4(addr);
	struct rte_mbuf *m;

	if (!u || !s->has_underlay || (!is4 && !s->has_vtep_ip6))
		return;
	if (arp_rate_limited(addr)) {
		arp_stats.rate_limited++;
		return;
	}
	m = rte_pktmbuf_alloc(pktmbuf_pool);
	if (!m) {
		arp_stats.no_mbuf++;
		return;
	}
	static const struct rte_ether_addr bcast = {
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };

	if (is4)
		arp_frame_write(rte_pktmbuf_append(m, ARP_FRAME_LEN), &bcast,
				RTE_ARP_OP_REQUEST, &s->vtep_mac, s->vtep_ip,
				neigh_addr_to4(addr));
	else
		nd_ns_write(rte_pktmbuf_append(m, ND_FRAME_LEN), &s->vtep_mac,
			    &s->vtep_ip6, addr);
	/* port_tx_burst frees what it did not send */
	if (port_tx_burst(u, u->ctl_sender, &m, 1)) {
		if (is4)
			arp_stats.sent++;
		else
			arp_stats.nd_sent++;
	} else {
		arp_stats.tx_failed++;
	}
}

/* Events handled per call, at most: under an ARP flood the PMDs can fill
 * the ring faster than it drains, and the control socket must still be
 * served. What does not fit in the ring is counted (ctl_events_lost). */
#define CTL_EVENTS_PER_CALL 4096

void
ctl_events_process(void)
{
	struct ctl_event ev[64];
	unsigned n, done = 0;

	if (!ctl_event_ring)
		return;
	while (done < CTL_EVENTS_PER_CALL &&
	       (n = rte_ring_sc_dequeue_burst_elem(ctl_event_ring, ev,
						   sizeof ev[0], 64, NULL))) {
		done += n;
		for (unsigned i = 0; i < n; i++) {
			switch (ev[i].type) {
			case CTL_EV_NEIGH_LEARN:
				neigh_learn6(&ev[i].addr, &ev[i].mac);
				break;
			case CTL_EV_NEIGH_MISS:
				arp_request_send(&ev[i].addr);
				break;
			case CTL_EV_RULE_STATS:
				ofproto_account_retired(ev[i].rule_uid,
							ev[i].packets,
							ev[i].bytes,
							pmd_tsc_to_ms(ev[i].used_tsc));
				break;
			}
		}
	}
}
