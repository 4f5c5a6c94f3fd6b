/* SPDX-License-Identifier: BSD-3-Clause
 * The PMD's ARP policer in the real pipeline (config_load with arp-rate /
 * arp-burst, ports, a PMD driven from this thread, as test_dp_accounting):
 * the NIC is a net_ring port, whose tx ring is its rx ring, so the
 * replies the switch sent are read back.
 *
 *  - a burst of requests for our VTEP larger than the bucket: arp-burst
 *    are answered and learned, the rest dropped as arp_policed (no reply,
 *    no learn event);
 *  - ARP that is neither for us nor gratuitous takes no token (arp_ignored
 *    even with the bucket empty);
 *  - the bucket refills with time (arp-rate per second);
 *  - a known neighbour with the same MAC is answered with no learn event;
 *  - arp-rate 0 lets everything through;
 *  - the control thread's own ARP requests are counted: sent, rate
 *    limited, not sent for want of an mbuf;
 *  - after every step: received + copies = sent + consumed + dropped +
 *    in flight, and no mbuf is left over at the end.
 */
#include <stdio.h>
#include <string.h>
#include <rte_arp.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include "config.h"
#include "dp_snapshot.h"
#include "neigh.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"
#include "unit_test.h"
#include "pipeline_rig.h"

#define RATE 1000
/* RTE_IPV4 shifts an int: 172 << 24 overflows it (UBSan) */
#define IPV4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			  (uint32_t)(c) << 8 | (uint32_t)(d))
#define BURST 4

static struct rte_mempool *pool;
static struct port *nic;
static struct pmd *pmd;

static const struct rte_ether_addr bcast = { { 0xff, 0xff, 0xff, 0xff, 0xff,
					       0xff } };

static int
write_topology(char *path, size_t len)
{
	FILE *f = pipeline_rig_topology(path, len, "test_arp_policer",
					"  arp-rate: 1000\n  arp-burst: 4\n");
	if (!f)
		return -1;
	fprintf(f, "  - {name: phy, type: dpdk, devargs: net_ring_appphy}\n");
	return fclose(f);
}

/* An ARP request from sender k (10.9.0.k at 02:00:00:00:09:k) for tip. */
static struct rte_mbuf *
arp_req(uint8_t k, uint32_t tip)
{
	struct rte_ether_addr sha = { { 0x02, 0, 0, 0, 0x09, k } };
	return pipeline_rig_arp(pool, &bcast, RTE_ARP_OP_REQUEST, &sha,
				rte_cpu_to_be_32(IPV4(10, 9, 0, k)),
				rte_cpu_to_be_32(tip));
}

static const uint32_t vtep_ip = IPV4(172, 1, 0, 100);

/* n requests for tip from senders first.., through the PMD. */
static void
send_reqs(uint8_t first, uint16_t n, uint32_t tip)
{
	struct pkt_batch b = { .n = n };
	for (uint16_t i = 0; i < n; i++)
		b.pkts[i] = arp_req(first + i, tip);
	dp_process_burst(&pmd->dp, nic, &b);
	dp_tx_flush_all(&pmd->dp);
}

/* Replies the switch sent on the NIC since the last call (freed). */
static unsigned
replies(void)
{
	struct rte_mbuf *rx[64];
	uint16_t k = rte_eth_rx_burst(nic->eth_port_id, 0, rx, 64);
	unsigned n = 0;

	for (uint16_t i = 0; i < k; i++) {
		const struct rte_arp_hdr *a = rte_pktmbuf_mtod_offset(
			rx[i], const struct rte_arp_hdr *,
			sizeof(struct rte_ether_hdr));
		n += a->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY);
		rte_pktmbuf_free(rx[i]);
	}
	return n;
}

static uint64_t
policed(void)
{
	return pmd->stats.drops[DROP_ARP_POLICED];
}

static void
balanced(const char *where)
{
	struct pmd_accounting a;
	pmd_accounting_read(pmd, &a);
	CHECK(pmd_accounting_balanced(&a), "%s: received %lu + copies %lu != "
	      "sent %lu + consumed %lu + dropped %lu + in flight %lu", where,
	      a.received, a.copies, a.sent, a.consumed, a.dropped,
	      a.in_flight);
}

static void
test_over_budget(void)
{
	uint64_t p0 = policed(), learned = neigh_get_stats()->learned;
	unsigned events = rte_ring_count(ctl_event_ring);

	CHECK(!strcmp(drop_reason_name(DROP_ARP_POLICED), "arp_policed"),
	      "drop reason named '%s'", drop_reason_name(DROP_ARP_POLICED));
	send_reqs(1, 10, vtep_ip);
	CHECK(replies() == BURST, "want %d replies", BURST);
	CHECK(policed() - p0 == 10 - BURST, "arp_policed %lu, want %d",
	      policed() - p0, 10 - BURST);
	CHECK(rte_ring_count(ctl_event_ring) - events == BURST,
	      "%u learn events, want %d", rte_ring_count(ctl_event_ring) -
	      events, BURST);
	ctl_events_process();
	CHECK(neigh_get_stats()->learned - learned == BURST,
	      "learned %lu, want %d", neigh_get_stats()->learned - learned,
	      BURST);
	balanced(__func__);

	/* the bucket is empty; ARP not for us takes no token */
	uint64_t ign = pmd->stats.drops[DROP_ARP_IGNORED];
	send_reqs(20, 5, IPV4(172, 1, 0, 55));
	CHECK_EXPR(replies() == 0);
	CHECK(pmd->stats.drops[DROP_ARP_IGNORED] - ign == 5,
	      "arp_ignored %lu, want 5", pmd->stats.drops[DROP_ARP_IGNORED] -
	      ign);
	CHECK(policed() - p0 == 10 - BURST, "ARP not for us was policed");
	balanced(__func__);
}

static void
test_refill(void)
{
	struct arp_policer *p = &pmd->dp.arp_policer;
	uint64_t p0 = policed();

	CHECK(p->cost == rte_get_tsc_hz() / RATE, "cost %lu ticks", p->cost);
	/* an empty bucket, and two and a half frames' worth of time since
	 * the last refill (however long this thread was descheduled) */
	p->credit = 0;
	p->last_tsc = rte_rdtsc() - 2 * p->cost - p->cost / 2;
	send_reqs(40, 4, vtep_ip);
	CHECK(replies() == 2, "want 2 replies after 2.5 tokens of time");
	CHECK_EXPR(policed() - p0 == 2);
	/* a long pause fills the bucket to its depth, no more */
	p->last_tsc = rte_rdtsc() - 1000 * p->cost;
	send_reqs(50, 8, vtep_ip);
	CHECK(replies() == BURST, "want %d replies after a long pause", BURST);
	CHECK_EXPR(policed() - p0 == 2 + 8 - BURST);
	ctl_events_process();
	balanced(__func__);
}

static void
test_known_and_unlimited(void)
{
	struct arp_policer *p = &pmd->dp.arp_policer;

	/* 10.9.0.1 was learned above at the same MAC: once published, its
	 * request is answered and tells the control thread nothing */
	ofproto_publish_pending();
	pmd->dp.snap = dp_snapshot_get();
	CHECK_EXPR(dp_snapshot_neigh(pmd->dp.snap,
		   rte_cpu_to_be_32(IPV4(10, 9, 0, 1))) != NULL);
	p->last_tsc = rte_rdtsc() - 1000 * p->cost;
	unsigned events = rte_ring_count(ctl_event_ring);
	send_reqs(1, 1, vtep_ip);
	CHECK_EXPR(replies() == 1);
	CHECK(rte_ring_count(ctl_event_ring) == events,
	      "a known neighbour was reported");

	/* arp-rate 0: no limit */
	uint64_t p0 = policed();
	arp_policer_init(p, 0, BURST, rte_get_tsc_hz(), rte_rdtsc());
	send_reqs(100, 32, vtep_ip);
	CHECK(replies() == 32, "unlimited: want 32 replies");
	CHECK_EXPR(policed() == p0);
	ctl_events_process();
	balanced(__func__);
}

/* The control thread's ARP requests for missing neighbours: sent, rate
 * limited per address, and when the pool is empty counted, not lost. */
static void
test_ctl_arp_requests(void)
{
	const struct ctl_arp_stats *as = ctl_arp_get_stats();
	struct ctl_arp_stats a0 = *as;
	struct ctl_event ev = { .type = CTL_EV_NEIGH_MISS,
				.addr = neigh_addr_from4(
					rte_cpu_to_be_32(IPV4(172, 1, 0, 7))) };
	struct rte_mbuf *rx[8];

	dp_push_events(&pmd->dp, &ev, 1);
	dp_push_events(&pmd->dp, &ev, 1);	/* the same address: rate limited */
	ctl_events_process();
	CHECK(as->sent - a0.sent == 1, "sent %lu", as->sent - a0.sent);
	CHECK_EXPR(as->rate_limited - a0.rate_limited == 1);
	/* net_ring: tx queue q is the ring ETH_RXTX<q>_<device> */
	char ring_name[64];
	snprintf(ring_name, sizeof ring_name, "ETH_RXTX%u_net_ring_appphy",
		 nic->ctl_txq);
	struct rte_ring *r = rte_ring_lookup(ring_name);
	unsigned k = r ? rte_ring_dequeue_burst(r, (void **)rx, 8, NULL) : 0;
	CHECK(k == 1, "%u frames on the wire (%s), want the request", k,
	      ring_name);
	if (k) {
		const struct rte_arp_hdr *a = rte_pktmbuf_mtod_offset(
			rx[0], const struct rte_arp_hdr *,
			sizeof(struct rte_ether_hdr));
		CHECK(a->arp_opcode == RTE_BE16(RTE_ARP_OP_REQUEST) &&
		      a->arp_data.arp_tip == neigh_addr_to4(&ev.addr), "not our ARP request");
	}
	rte_pktmbuf_free_bulk(rx, k);

	/* tnl/arp/flush forgets what was asked lately: the next miss for
	 * the same address asks at once instead of waiting out its second */
	ctl_arp_requests_forget();
	dp_push_events(&pmd->dp, &ev, 1);
	ctl_events_process();
	CHECK(as->sent - a0.sent == 2, "after forget: sent %lu, want 2",
	      as->sent - a0.sent);
	CHECK_EXPR(as->rate_limited - a0.rate_limited == 1);
	k = r ? rte_ring_dequeue_burst(r, (void **)rx, 8, NULL) : 0;
	CHECK(k == 1, "%u frames on the wire after forget, want 1", k);
	rte_pktmbuf_free_bulk(rx, k);

	/* no mbuf: the whole pool taken */
	static struct rte_mbuf *all[4096];
	unsigned n = 0;
	while (n < RTE_DIM(all) && (all[n] = rte_pktmbuf_alloc(pool)))
		n++;
	ev.addr = neigh_addr_from4(rte_cpu_to_be_32(IPV4(172, 1, 0, 8)));
	dp_push_events(&pmd->dp, &ev, 1);
	ctl_events_process();
	rte_pktmbuf_free_bulk(all, n);
	CHECK(as->no_mbuf - a0.no_mbuf == 1, "no_mbuf %lu",
	      as->no_mbuf - a0.no_mbuf);
	CHECK_EXPR(as->sent - a0.sent == 2);	/* none more without an mbuf */
}

int
main(void)
{
	struct vxs_config cfg;

	if (pipeline_rig_up("test_arp_policer", write_topology, &cfg, &pool,
			    &pmd, &nic, NULL, 0))
		return 1;
	CHECK(cfg.arp_rate == RATE && cfg.arp_burst == BURST,
	      "topology: arp-rate %u, arp-burst %u", cfg.arp_rate,
	      cfg.arp_burst);

	test_over_budget();
	test_refill();
	test_known_and_unlimited();
	test_ctl_arp_requests();

	pmd_flush_flows(pmd);
	dp_tx_flush_all(&pmd->dp);
	replies();
	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
