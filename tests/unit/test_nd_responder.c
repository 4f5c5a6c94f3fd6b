/* SPDX-License-Identifier: BSD-3-Clause
 * The VTEP's Neighbour Discovery (nd_responder.c) in the real pipeline,
 * from built frames, as test_arp_policer: a dual-stack VTEP on a net_ring
 * NIC whose tx ring is its rx ring, so what the switch sent is read back.
 *
 *  - an NS for our address, with and without an SLL: answered with an NA
 *    (solicited, override, our TLL; the checksum checked with DPDK's own
 *    code), the SLL learned;
 *  - a DAD NS (from ::): answered to all-nodes, not solicited, nothing
 *    learned; an NS for another address: nd_ignored;
 *  - every RFC 4861 7.1 check failing once: nd_invalid, no answer;
 *  - NAs: solicited to us with a TLL learned; without one a known entry
 *    confirmed only; unsolicited ones update known entries only;
 *  - one token bucket for ARP and ND (arp-rate / arp-burst);
 *  - a tagged NS goes through the pipeline (xlate) to the responder, not
 *    dropped as foreign_mac; an NS to a foreign MAC is foreign_mac;
 *  - the control thread's NS for an IPv6 miss (compose_nd_ns's shape),
 *    rate limited per address;
 *  - the packet trace records each ND frame's end: an answer and a learn
 *    as ARP's (arp reply / consumed), the rest as its drop reason;
 *  - after every step: received + copies = sent + consumed + dropped +
 *    in flight, and no mbuf left over at the end.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <rte_arp.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include "config.h"
#include "dp_trace.h"
#include "dp_snapshot.h"
#include "nd_frame.h"
#include "neigh.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"
#include "unit_test.h"
#include "pipeline_rig.h"

#define BURST 4

static struct rte_mempool *pool;
static struct port *nic;
static struct pmd *pmd;

static const struct rte_ether_addr vtep_mac = { { 0x10, 0, 0, 0, 0, 1 } };
static const struct rte_ether_addr peer_mac = { { 0x02, 0, 0, 0, 0x66, 1 } };
static struct flow_in6_addr vtep6, peer6;

static struct flow_in6_addr
a6(const char *s)
{
	struct flow_in6_addr a;
	inet_pton(AF_INET6, s, a.a);
	return a;
}

static int
write_topology(char *path, size_t len)
{
	snprintf(path, len, "/tmp/test_nd_responder-XXXXXX.yaml");
	int fd = mkstemps(path, 5);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f)
		return -1;
	fprintf(f, "datapath:\n  pmd-cores: [1]\n  arp-rate: 1000\n"
		   "  arp-burst: %d\n"
		   "underlay:\n  port: phy\n"
		   "  local-ip: [172.1.0.100/24, '2001:db8:1::100/64']\n"
		   "  mac: '10:00:00:00:00:01'\n"
		   "ports:\n"
		   "  - {name: phy, type: dpdk, devargs: net_ring_ndphy}\n",
		   BURST);
	return fclose(f);
}

/* ---- frames ---- */

/* An ND frame as a test wants it: built whole, then changed (mutate),
 * then its checksum set unless keep_csum. */
struct nd_spec {
	struct rte_ether_addr eth_dst;
	struct flow_in6_addr src, dst, target;
	uint8_t type;
	uint32_t flags;
	uint8_t lla_type;		/* 0: no option */
	uint8_t hop_limit, code;
	uint8_t opt_len;		/* the option's length field (1) */
	int16_t plen_delta;		/* added to the payload length */
	bool keep_csum, bad_csum;
	uint16_t vlan;			/* 0: untagged */
};

static struct nd_spec
ns_for(const struct flow_in6_addr *target, const struct flow_in6_addr *src,
       bool sll)
{
	struct flow_in6_addr g = nd_snma(target);
	return (struct nd_spec){ .eth_dst = nd_mcast_mac(&g), .src = *src,
				 .dst = g, .target = *target,
				 .type = ND_ICMP_NS,
				 .lla_type = sll ? ND_OPT_SLL : 0,
				 .hop_limit = 255, .opt_len = 1 };
}

static struct nd_spec
na_of(const struct flow_in6_addr *target, const struct flow_in6_addr *dst,
      uint32_t flags, bool tll)
{
	bool mcast = dst->a[0] == 0xff;
	return (struct nd_spec){ .eth_dst = mcast ? nd_mcast_mac(dst) :
					       vtep_mac,
				 .src = *target, .dst = *dst,
				 .target = *target, .type = ND_ICMP_NA,
				 .flags = flags,
				 .lla_type = tll ? ND_OPT_TLL : 0,
				 .hop_limit = 255, .opt_len = 1 };
}

static struct rte_mbuf *
nd_build(const struct nd_spec *sp)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t buf[128];
	uint16_t l3 = sp->vlan ? 18 : 14;
	uint16_t icmp_len = ND_MSG_LEN + (sp->lla_type ? 8 : 0);

	memset(buf, 0, sizeof buf);
	nd_frame_write(buf, &sp->eth_dst, &peer_mac, &sp->src, &sp->dst,
		       sp->type, sp->flags, &sp->target,
		       sp->lla_type ? sp->lla_type : ND_OPT_SLL);
	uint8_t *ip6 = buf + 14, *icmp = ip6 + 40;
	ip6[7] = sp->hop_limit;
	icmp[1] = sp->code;
	icmp[25] = sp->opt_len;
	uint16_t plen = (uint16_t)(icmp_len + sp->plen_delta);
	ip6[4] = (uint8_t)(plen >> 8);
	ip6[5] = (uint8_t)plen;
	if (!sp->keep_csum) {
		icmp[2] = icmp[3] = 0;
		uint16_t c = nd_icmp6_cksum(ip6, icmp, icmp_len);
		memcpy(icmp + 2, &c, 2);
	}
	if (sp->bad_csum)
		icmp[2] ^= 0x5a;
	uint16_t len = (uint16_t)(14 + 40 + icmp_len);
	if (sp->vlan) {		/* 802.1Q tag after the MACs */
		memmove(buf + 16, buf + 12, len - 12);
		buf[12] = 0x81;
		buf[13] = 0x00;
		buf[14] = (uint8_t)(sp->vlan >> 8);
		buf[15] = (uint8_t)sp->vlan;
		len += 4;
	}
	(void)l3;
	uint16_t frame = len < 60 ? 60 : len;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, frame);
	memcpy(p, buf, frame);
	return m;
}

static void
send_frames(struct rte_mbuf **v, uint16_t n)
{
	struct pkt_batch b = { .n = n };
	memcpy(b.pkts, v, n * sizeof *v);
	dp_process_burst(&pmd->dp, nic, &b);
	dp_tx_flush_all(&pmd->dp);
}

static void
send_spec(const struct nd_spec *sp)
{
	struct rte_mbuf *m = nd_build(sp);
	send_frames(&m, 1);
}

/* The frames the switch sent on the NIC since the last call; the caller
 * frees them. */
static uint16_t
sent(struct rte_mbuf **rx, uint16_t max)
{
	return rte_eth_rx_burst(nic->eth_port_id, 0, rx, max);
}

static uint64_t
drops(enum drop_reason r)
{
	return pmd->stats.drops[r];
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
fill_bucket(void)
{
	struct arp_policer *p = &pmd->dp.arp_policer;
	p->last_tsc = rte_rdtsc() - 1000 * p->cost;
}

static void
publish(void)
{
	ctl_events_process();
	ofproto_publish_pending();
	pmd->dp.snap = dp_snapshot_get();
}

/* Checks m is our NA to ip_dst at eth_dst with flags; frees it. */
static void
check_na(struct rte_mbuf *m, const struct rte_ether_addr *eth_dst,
	 const struct flow_in6_addr *ip_dst, uint32_t flags, const char *what)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)p;
	const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)(p + 14);
	const uint8_t *icmp = p + 54;
	uint32_t f = (uint32_t)icmp[4] << 24 | (uint32_t)icmp[5] << 16 |
		     (uint32_t)icmp[6] << 8 | icmp[7];

	CHECK(rte_pktmbuf_data_len(m) == ND_FRAME_LEN, "%s: length %u", what,
	      rte_pktmbuf_data_len(m));
	CHECK(rte_is_same_ether_addr(&eh->dst_addr, eth_dst) &&
	      rte_is_same_ether_addr(&eh->src_addr, &vtep_mac) &&
	      eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6), "%s: eth", what);
	CHECK(ip6->proto == IPPROTO_ICMPV6 && ip6->hop_limits == 255 &&
	      !memcmp(ip6->src_addr, vtep6.a, 16) &&
	      !memcmp(ip6->dst_addr, ip_dst->a, 16) &&
	      ip6->payload_len == RTE_BE16(32), "%s: IPv6 header", what);
	CHECK(icmp[0] == ND_ICMP_NA && icmp[1] == 0 && f == flags &&
	      !memcmp(icmp + 8, vtep6.a, 16), "%s: NA flags %08x", what, f);
	CHECK(icmp[24] == ND_OPT_TLL && icmp[25] == 1 &&
	      !memcmp(icmp + 26, vtep_mac.addr_bytes, 6), "%s: TLL", what);
	/* DPDK's own pseudo-header sum over a valid checksum: 0 (its
	 * 0 -> 0xffff rule is UDP's only) */
	CHECK(rte_ipv6_udptcp_cksum(ip6, icmp) == 0,
	      "%s: ICMPv6 checksum", what);
	rte_pktmbuf_free(m);
}

/* ---- tests ---- */

static void
test_ns_answered(void)
{
	struct rte_mbuf *rx[8];
	uint64_t learned = neigh_get_stats()->learned;
	uint64_t replies = pmd->stats.nd_replies;
	struct nd_spec sp = ns_for(&vtep6, &peer6, true);

	fill_bucket();
	send_spec(&sp);
	uint16_t k = sent(rx, 8);
	CHECK(k == 1, "%u frames, want the NA", k);
	if (k)
		check_na(rx[0], &peer_mac, &peer6,
			 ND_NA_SOLICITED | ND_NA_OVERRIDE, "NS with SLL");
	CHECK_EXPR(pmd->stats.nd_replies - replies == 1);
	publish();
	CHECK(neigh_get_stats()->learned - learned == 1, "SLL not learned");
	const struct neigh_entry *e = dp_snapshot_neigh6(pmd->dp.snap, &peer6);
	CHECK_EXPR(e && rte_is_same_ether_addr(&e->mac, &peer_mac));

	/* without options: answered to the frame's source, nothing learned;
	 * to our own MAC (a unicast NS) as well */
	struct flow_in6_addr other = a6("2001:db8:1::77");
	sp = ns_for(&vtep6, &other, false);
	sp.eth_dst = vtep_mac;
	sp.dst = vtep6;
	learned = neigh_get_stats()->learned;
	send_spec(&sp);
	k = sent(rx, 8);
	CHECK(k == 1, "%u frames, want the NA", k);
	if (k)
		check_na(rx[0], &peer_mac, &other,
			 ND_NA_SOLICITED | ND_NA_OVERRIDE, "NS without SLL");
	publish();
	CHECK_EXPR(neigh_get_stats()->learned == learned);
	CHECK_EXPR(dp_snapshot_neigh6(pmd->dp.snap, &other) == NULL);
	balanced(__func__);
}

static void
test_dad_and_others(void)
{
	struct rte_mbuf *rx[8];
	static const struct flow_in6_addr unspec;
	uint64_t learned = neigh_get_stats()->learned;
	struct nd_spec sp = ns_for(&vtep6, &unspec, false);

	fill_bucket();
	send_spec(&sp);
	uint16_t k = sent(rx, 8);
	CHECK(k == 1, "%u frames, want the DAD answer", k);
	if (k) {
		struct rte_ether_addr all = nd_mcast_mac(&nd_all_nodes);
		check_na(rx[0], &all, &nd_all_nodes, ND_NA_OVERRIDE, "DAD");
	}
	publish();
	CHECK_EXPR(neigh_get_stats()->learned == learned);

	/* an NS for another address (to our MAC): ignored, no token */
	struct flow_in6_addr t = a6("2001:db8:1::55");
	uint64_t ign = drops(DROP_ND_IGNORED);
	uint64_t credit = pmd->dp.arp_policer.credit;
	sp = ns_for(&t, &peer6, true);
	sp.eth_dst = vtep_mac;
	sp.dst = t;
	send_spec(&sp);
	CHECK_EXPR(sent(rx, 8) == 0);
	CHECK_EXPR(drops(DROP_ND_IGNORED) - ign == 1);
	CHECK(pmd->dp.arp_policer.credit >= credit, "a token was taken");
	balanced(__func__);
}

/* RFC 4861 7.1: each check failing once. */
static void
test_invalid(void)
{
	static const struct flow_in6_addr unspec;
	struct rte_mbuf *rx[8];
	struct nd_spec v[16];
	int n = 0;

	v[n] = ns_for(&vtep6, &peer6, true);
	v[n++].hop_limit = 254;
	v[n] = ns_for(&vtep6, &peer6, true);
	v[n++].code = 1;
	v[n] = ns_for(&vtep6, &peer6, true);
	v[n++].bad_csum = true;
	v[n] = ns_for(&vtep6, &peer6, false);	/* ICMP shorter than 24 */
	v[n++].plen_delta = -4;
	v[n] = ns_for(&vtep6, &peer6, true);	/* longer than the frame */
	v[n++].plen_delta = 40;
	v[n] = ns_for(&vtep6, &peer6, true);	/* an option of length 0 */
	v[n++].opt_len = 0;
	v[n] = ns_for(&vtep6, &peer6, true);	/* past the message */
	v[n++].opt_len = 2;
	struct flow_in6_addr mc = a6("ff02::1:ff00:100");
	v[n] = ns_for(&vtep6, &peer6, true);	/* a multicast target */
	v[n++].target = mc;
	v[n] = ns_for(&vtep6, &peer6, true);	/* a multicast source */
	v[n++].src = mc;
	v[n++] = ns_for(&vtep6, &unspec, true);	/* DAD with an SLL */
	v[n] = ns_for(&vtep6, &unspec, false);	/* DAD not to the group */
	v[n].dst = vtep6;
	v[n++].eth_dst = vtep_mac;
	/* a solicited NA to a multicast address */
	v[n++] = na_of(&peer6, &nd_all_nodes, ND_NA_SOLICITED, true);

	fill_bucket();
	for (int i = 0; i < n; i++) {
		uint64_t inv = drops(DROP_ND_INVALID);
		send_spec(&v[i]);
		CHECK(drops(DROP_ND_INVALID) - inv == 1, "case %d not invalid",
		      i);
		CHECK(sent(rx, 8) == 0, "case %d answered", i);
	}
	/* the valid twin of them all is answered (the rig is not at fault) */
	struct nd_spec ok = ns_for(&vtep6, &peer6, true);
	send_spec(&ok);
	uint16_t k = sent(rx, 8);
	CHECK_EXPR(k == 1);
	rte_pktmbuf_free_bulk(rx, k);
	balanced(__func__);
}

static void
test_na_learning(void)
{
	struct rte_mbuf *rx[8];
	struct flow_in6_addr n1 = a6("2001:db8:1::1"), n2 = a6("2001:db8:1::2");
	struct flow_in6_addr n3 = a6("2001:db8:1::3");
	const struct neigh_stats *ns = neigh_get_stats();
	uint64_t consumed = pmd->stats.nd_consumed;
	uint64_t ign = drops(DROP_ND_IGNORED);
	uint64_t learned = ns->learned;

	fill_bucket();
	/* solicited, to us, with TLL: learned (the answer to our NS) */
	struct nd_spec sp = na_of(&n1, &vtep6, ND_NA_SOLICITED |
				  ND_NA_OVERRIDE, true);
	send_spec(&sp);
	/* unsolicited, to all-nodes, for an unknown address: ignored */
	sp = na_of(&n2, &nd_all_nodes, ND_NA_OVERRIDE, true);
	send_spec(&sp);
	/* solicited without TLL for an unknown address: ignored */
	sp = na_of(&n3, &vtep6, ND_NA_SOLICITED, false);
	send_spec(&sp);
	CHECK_EXPR(sent(rx, 8) == 0);
	CHECK(pmd->stats.nd_consumed - consumed == 1, "consumed %lu",
	      pmd->stats.nd_consumed - consumed);
	CHECK(drops(DROP_ND_IGNORED) - ign == 2, "ignored %lu",
	      drops(DROP_ND_IGNORED) - ign);
	publish();
	CHECK(ns->learned - learned == 1, "learned %lu", ns->learned - learned);
	const struct neigh_entry *e = dp_snapshot_neigh6(pmd->dp.snap, &n1);
	CHECK_EXPR(e && rte_is_same_ether_addr(&e->mac, &peer_mac));
	CHECK_EXPR(dp_snapshot_neigh6(pmd->dp.snap, &n2) == NULL);
	CHECK_EXPR(dp_snapshot_neigh6(pmd->dp.snap, &n3) == NULL);

	/* known now: an unsolicited NA with a new TLL updates it */
	struct rte_ether_addr moved = { { 0x02, 0, 0, 0, 0x66, 9 } };
	char err[128];
	CHECK_EXPR(neigh_learn6(&n2, &peer_mac));	/* as if learned */
	publish();
	sp = na_of(&n2, &nd_all_nodes, ND_NA_OVERRIDE, true);
	struct rte_mbuf *m = nd_build(&sp);
	uint8_t *icmp = rte_pktmbuf_mtod_offset(m, uint8_t *, 54);
	memcpy(icmp + 26, moved.addr_bytes, 6);	/* the TLL, re-summed */
	icmp[2] = icmp[3] = 0;
	uint16_t c = nd_icmp6_cksum(icmp - 40, icmp, 32);
	memcpy(icmp + 2, &c, 2);
	consumed = pmd->stats.nd_consumed;
	fill_bucket();
	send_frames(&m, 1);
	CHECK_EXPR(pmd->stats.nd_consumed - consumed == 1);
	publish();
	e = dp_snapshot_neigh6(pmd->dp.snap, &n2);
	CHECK(e && rte_is_same_ether_addr(&e->mac, &moved), "not updated");

	/* a solicited NA without TLL confirms a known learned entry: its
	 * age restarts, its MAC stays */
	neigh_set_aging_s(1);
	e = dp_snapshot_neigh6(pmd->dp.snap, &n1);
	uint64_t before = e ? e->updated_ms : 0;
	while (vxs_now_ms() == before)
		;
	sp = na_of(&n1, &vtep6, ND_NA_SOLICITED, false);
	consumed = pmd->stats.nd_consumed;
	fill_bucket();
	send_spec(&sp);
	CHECK_EXPR(pmd->stats.nd_consumed - consumed == 1);
	publish();
	e = dp_snapshot_neigh6(pmd->dp.snap, &n1);
	CHECK(e && e->updated_ms > before &&
	      rte_is_same_ether_addr(&e->mac, &peer_mac), "not confirmed");
	neigh_set_aging_s(NEIGH_AGING_DEFAULT_S);
	/* a static entry is never changed by ND */
	CHECK_EXPR(neigh_set6(&n3, &vtep_mac, err, sizeof err) == 0);
	publish();
	sp = na_of(&n3, &vtep6, ND_NA_SOLICITED | ND_NA_OVERRIDE, true);
	fill_bucket();
	send_spec(&sp);
	publish();
	e = dp_snapshot_neigh6(pmd->dp.snap, &n3);
	CHECK_EXPR(e && e->is_static &&
		   rte_is_same_ether_addr(&e->mac, &vtep_mac));
	balanced(__func__);
}

/* One bucket for ARP and ND. */
static void
test_policing_shared(void)
{
	struct rte_mbuf *rx[16], *v[BATCH_MAX];
	static const struct rte_ether_addr bcast = { { 0xff, 0xff, 0xff,
						       0xff, 0xff, 0xff } };
	uint64_t nd_pol = drops(DROP_ND_POLICED);
	uint64_t arp_pol = drops(DROP_ARP_POLICED);

	/* one token a second: no refill between two bursts of this test */
	struct arp_policer *p = &pmd->dp.arp_policer;
	arp_policer_init(p, 1, BURST, rte_get_tsc_hz(), rte_rdtsc());

	/* ARP takes the bucket's BURST tokens; the NS after it is policed */
	for (int i = 0; i < BURST; i++)
		v[i] = pipeline_rig_arp(pool, &bcast, RTE_ARP_OP_REQUEST,
					&peer_mac,
					rte_cpu_to_be_32(0x0a090001u + i),
					rte_cpu_to_be_32(0xac010064u));
	send_frames(v, BURST);
	struct nd_spec sp = ns_for(&vtep6, &peer6, true);
	v[0] = nd_build(&sp);
	send_frames(v, 1);
	uint16_t k = sent(rx, 16);
	CHECK(k == BURST, "%u answers, want %d (ARP)", k, BURST);
	rte_pktmbuf_free_bulk(rx, k);
	CHECK(drops(DROP_ND_POLICED) - nd_pol == 1, "nd_policed %lu",
	      drops(DROP_ND_POLICED) - nd_pol);

	/* and ND's tokens leave ARP none */
	arp_policer_init(p, 1, BURST, rte_get_tsc_hz(), rte_rdtsc());
	for (int i = 0; i < BURST; i++)
		v[i] = nd_build(&sp);
	send_frames(v, BURST);
	v[0] = pipeline_rig_arp(pool, &bcast, RTE_ARP_OP_REQUEST,
				&peer_mac, rte_cpu_to_be_32(0x0a090001u),
				rte_cpu_to_be_32(0xac010064u));
	send_frames(v, 1);
	k = sent(rx, 16);
	CHECK(k == BURST, "%u answers, want %d (ND)", k, BURST);
	rte_pktmbuf_free_bulk(rx, k);
	CHECK(drops(DROP_ARP_POLICED) - arp_pol == 1, "arp_policed %lu",
	      drops(DROP_ARP_POLICED) - arp_pol);
	/* an invalid frame takes no token either */
	arp_policer_init(p, 1000, BURST, rte_get_tsc_hz(), rte_rdtsc());
	uint64_t credit = pmd->dp.arp_policer.credit;
	sp.hop_limit = 1;
	send_spec(&sp);
	CHECK_EXPR(pmd->dp.arp_policer.credit >= credit);
	ctl_events_process();
	balanced(__func__);
}

/* What the steering leaves goes through the pipeline: a tagged NS to our
 * group reaches the responder by xlate (which cannot answer a tagged
 * frame: nd_ignored, as tagged ARP is arp_ignored), an NS to a MAC not
 * ours is foreign_mac as before. */
static void
test_pipeline_path(void)
{
	struct rte_mbuf *rx[8];
	uint64_t ign = drops(DROP_ND_IGNORED), fm = drops(DROP_FOREIGN_MAC);
	struct nd_spec sp = ns_for(&vtep6, &peer6, true);

	sp.vlan = 10;
	send_spec(&sp);
	CHECK(drops(DROP_ND_IGNORED) - ign == 1 &&
	      drops(DROP_FOREIGN_MAC) == fm, "tagged NS: ignored %lu, "
	      "foreign_mac %lu", drops(DROP_ND_IGNORED) - ign,
	      drops(DROP_FOREIGN_MAC) - fm);
	sp = ns_for(&vtep6, &peer6, true);
	sp.eth_dst = (struct rte_ether_addr){ { 0x33, 0x33, 0xff, 9, 9, 9 } };
	send_spec(&sp);
	CHECK(drops(DROP_FOREIGN_MAC) - fm == 1, "foreign NS: foreign_mac %lu",
	      drops(DROP_FOREIGN_MAC) - fm);
	CHECK_EXPR(sent(rx, 8) == 0);
	pmd_flush_flows(pmd);
	balanced(__func__);
}

/* The last entry of trace record i, or NULL. */
static const struct dp_trace_entry *
last_entry(const struct dp_trace *t, uint32_t i)
{
	if (i >= __atomic_load_n(&t->n_taken, __ATOMIC_ACQUIRE) ||
	    !t->pkts[i].n)
		return NULL;
	return &t->pkts[i].e[t->pkts[i].n - 1];
}

static void
test_trace(void)
{
	struct dp_trace *t = rte_zmalloc("nd_trace", sizeof *t,
					 RTE_CACHE_LINE_SIZE);
	struct rte_mbuf *rx[8], *v[3];
	struct flow_in6_addr n1 = a6("2001:db8:1::1");

	CHECK_EXPR(t != NULL);
	if (!t)
		return;
	t->in_port = nic->idx;
	t->id = 1;
	t->tsc_hz = rte_get_tsc_hz();
	t->limit = 8;
	pmd->dp.trace = t;
	fill_bucket();
	struct nd_spec ns = ns_for(&vtep6, &peer6, true);
	struct nd_spec bad = ns;
	bad.code = 7;
	struct nd_spec na = na_of(&n1, &vtep6, ND_NA_SOLICITED, true);
	v[0] = nd_build(&ns);
	v[1] = nd_build(&bad);
	v[2] = nd_build(&na);
	send_frames(v, 3);
	pmd->dp.trace = NULL;
	uint16_t k = sent(rx, 8);
	rte_pktmbuf_free_bulk(rx, k);

	/* the answer: its ARP entry says reply, then it is queued and sent */
	bool replied = false;
	for (uint32_t r = 0; r < t->pkts[0].n; r++)
		replied |= t->pkts[0].e[r].kind == DP_TRACE_ARP &&
			   t->pkts[0].e[r].u32 == DP_TRACE_ARP_REPLY;
	CHECK(replied, "NS: no arp reply entry");
	const struct dp_trace_entry *e = last_entry(t, 1);
	CHECK(e && e->kind == DP_TRACE_DROP && e->port == DROP_ND_INVALID,
	      "bad NS: not traced as nd_invalid");
	e = last_entry(t, 2);
	CHECK(e && e->kind == DP_TRACE_ARP && e->u32 == DP_TRACE_ARP_CONSUMED,
	      "NA: not traced as consumed");
	rte_free(t);
	publish();
	balanced(__func__);
}

/* The control thread's NS for a missing IPv6 neighbour. */
static void
test_ctl_ns(void)
{
	const struct ctl_arp_stats *as = ctl_arp_get_stats();
	struct ctl_arp_stats a0 = *as;
	struct flow_in6_addr t = a6("2001:db8:1::abcd:ef12");
	struct ctl_event ev = { .type = CTL_EV_NEIGH_MISS, .addr = t };
	struct rte_mbuf *rx[8];

	dp_push_events(&pmd->dp, &ev, 1);
	dp_push_events(&pmd->dp, &ev, 1);	/* rate limited */
	ctl_events_process();
	CHECK(as->nd_sent - a0.nd_sent == 1, "nd_sent %lu",
	      as->nd_sent - a0.nd_sent);
	CHECK_EXPR(as->rate_limited - a0.rate_limited == 1);
	CHECK_EXPR(as->sent == a0.sent);	/* no ARP */
	char ring_name[64];
	snprintf(ring_name, sizeof ring_name, "ETH_RXTX%u_net_ring_ndphy",
		 nic->ctl_txq);
	struct rte_ring *r = rte_ring_lookup(ring_name);
	unsigned k = r ? rte_ring_dequeue_burst(r, (void **)rx, 8, NULL) : 0;
	CHECK(k == 1, "%u frames on the wire, want the NS", k);
	if (k) {
		const uint8_t *p = rte_pktmbuf_mtod(rx[0], const uint8_t *);
		const struct rte_ipv6_hdr *ip6 =
			(const struct rte_ipv6_hdr *)(p + 14);
		const uint8_t *icmp = p + 54;
		struct flow_in6_addr g = a6("ff02::1:ffcd:ef12");
		static const uint8_t mac[6] = { 0x33, 0x33, 0xff, 0xcd, 0xef,
						0x12 };
		CHECK(!memcmp(p, mac, 6) && !memcmp(p + 6, vtep_mac.addr_bytes,
						    6), "NS MACs");
		CHECK(ip6->hop_limits == 255 &&
		      !memcmp(ip6->src_addr, vtep6.a, 16) &&
		      !memcmp(ip6->dst_addr, g.a, 16), "NS addresses");
		CHECK(icmp[0] == ND_ICMP_NS && !memcmp(icmp + 8, t.a, 16) &&
		      icmp[24] == ND_OPT_SLL && icmp[25] == 1 &&
		      !memcmp(icmp + 26, vtep_mac.addr_bytes, 6), "NS body");
		CHECK(rte_ipv6_udptcp_cksum(ip6, icmp) == 0, "NS checksum");
	}
	rte_pktmbuf_free_bulk(rx, k);
	/* and the switch's own NS fed back to it is valid, and ignored
	 * (its target is not ours) */
}

int
main(void)
{
	struct vxs_config cfg;

	vtep6 = a6("2001:db8:1::100");
	peer6 = a6("2001:db8:1::66");
	if (pipeline_rig_up("test_nd_responder", write_topology, &cfg, &pool,
			    &pmd, &nic, NULL, 0))
		return 1;
	CHECK(pmd->dp.snap->has_vtep_ip6 &&
	      !memcmp(&pmd->dp.snap->vtep_ip6, &vtep6, sizeof vtep6),
	      "the VTEP's IPv6 address is not in the snapshot");

	test_ns_answered();
	test_dad_and_others();
	test_invalid();
	test_na_learning();
	test_policing_shared();
	test_pipeline_path();
	test_trace();
	test_ctl_ns();

	pmd_flush_flows(pmd);
	dp_tx_flush_all(&pmd->dp);
	struct rte_mbuf *rx[32];
	uint16_t k;
	while ((k = sent(rx, 32)))
		rte_pktmbuf_free_bulk(rx, k);
	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
