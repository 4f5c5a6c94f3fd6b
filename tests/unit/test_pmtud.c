/* SPDX-License-Identifier: BSD-3-Clause
 * Path MTU discovery for the tunnel (app/datapath/dp_pmtud.h) in the real
 * pipeline (config_load, ports, a PMD driven from this thread, as
 * test_dp_accounting): the VMs and the NIC are net_ring ports, whose tx
 * ring is their rx ring, so what the switch sent on each is read back
 * byte for byte. The underlay's MTU is 1500: an inner frame of 1464
 * bytes is the longest that goes into the tunnel.
 *
 *  - an IPv4 packet with DF one byte too long: no frame on the NIC, and on
 *    the VM's own port exactly the ICMP "fragmentation needed" (MTU 1450)
 *    this file builds on its own from RFC 792/1191 and Linux's
 *    iptunnel_pmtud_build_icmp (addresses swapped, TTL kept, id 0, DF,
 *    576 bytes, checksums by its own sum), also from a packet in two
 *    segments; the 1464-byte one is sent;
 *  - an IPv6 packet likewise: ICMPv6 "packet too big" (RFC 4443), 1280
 *    bytes, traffic class and flow label 0, hop limit kept; also through
 *    extension headers and for a first fragment;
 *  - not answered, only dropped as mtu_exceeded: IPv4 without DF, IPv4
 *    fragments, ICMP errors (and ICMPv6 errors and redirects),
 *    broadcast/multicast/zero/loopback addresses, IPv6 non-first
 *    fragments, tagged frames, packets that came in on the tunnel;
 *  - the copy of a tunnel output that is not the last is answered too,
 *    and so is a packet of the unbatched encap (batched-tunnel off);
 *  - the MTU announced follows the underlay port's, and none is under
 *    576 (IPv4) or 1280 (IPv6);
 *  - pmtud-rate/-burst (from the topology, then set as the control
 *    thread sets them): over the bucket, refused and counted
 *    (pmtud_policed);
 *  - pmtud off: no ICMP, the drop as before;
 *  - a traced packet's record: pmtud entry (verdict, MTU, port), its
 *    drop, then the error's output and tx;
 *  - an IPv6-underlay template (70-byte header) through the encap stage:
 *    1444 bytes fit (with a UDP checksum that verifies), 1445 are
 *    answered with MTU 1430;
 *  - after every step: the counters (mtu_exceeded, pmtud_*, the tunnel
 *    port's tx_dropped) and received + copies = sent + consumed + dropped
 *    + in flight; no mbuf left at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include "config.h"
#include "dp_pmtud.h"
#include "dp_snapshot.h"
#include "dp_stages.h"
#include "dp_trace.h"
#include "miniflow.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"
#include "unit_test.h"
#include "vxlan_tnl.h"
#include "pipeline_rig.h"
#include "pmtud_test.h"

/* ---- the PMD ------------------------------------------------------------ */

static void
run_on(struct port *in, struct rte_mbuf **pkts, uint16_t n)
{
	struct pkt_batch b = { .n = n };
	memcpy(b.pkts, pkts, n * sizeof pkts[0]);
	dp_process_burst(&pmd->dp, in, &b);
	dp_tx_flush_all(&pmd->dp);
}

static void
run1(struct port *in, const uint8_t *p, size_t len)
{
	struct rte_mbuf *m = mbuf_of(p, len);
	run_on(in, &m, 1);
}

/* Frames port p sent since the last call (freed), the first max copied
 * out whole. */
static unsigned
sent_on(struct port *p, uint8_t (*f)[FRAME_MAX], uint32_t *len,
	unsigned max)
{
	struct rte_mbuf *rx[64];
	uint16_t k = rte_eth_rx_burst(p->eth_port_id, 0, rx, 64);

	for (uint16_t i = 0; i < k; i++) {
		if (i < max) {
			len[i] = rte_pktmbuf_pkt_len(rx[i]);
			const void *d = rte_pktmbuf_read(rx[i], 0,
				RTE_MIN(len[i], (uint32_t)FRAME_MAX), f[i]);
			if (d != f[i])
				memcpy(f[i], d, RTE_MIN(len[i],
					(uint32_t)FRAME_MAX));
		}
		rte_pktmbuf_free(rx[i]);
	}
	return k;
}

static unsigned
count_on(struct port *p)
{
	static uint8_t f[1][FRAME_MAX];
	uint32_t l[1];
	return sent_on(p, f, l, 0);
}

static void
drain_all(void)
{
	count_on(nic);
	for (int i = 0; i < N_VMS; i++)
		count_on(vm_port[i]);
}

static bool
balanced(const char *where)
{
	struct pmd_accounting a;
	pmd_accounting_read(pmd, &a);
	bool ok = pmd_accounting_balanced(&a);
	CHECK(ok, "%s: received %lu + copies %lu != sent %lu + consumed %lu + "
	      "dropped %lu + in flight %lu", where, a.received, a.copies,
	      a.sent, a.consumed, a.dropped, a.in_flight);
	return ok;
}

/* The counters a step changes. */
struct counts {
	uint64_t mtu, frag_needed, too_big, policed, copies, tnl_dropped;
};

static struct counts
counts(void)
{
	uint64_t tnl_dropped = 0;
	struct pmd_port_stats *ps = pmd->port_stats;

	tnl_dropped = ps[vxlan->idx].tx_dropped;
	return (struct counts){
		.mtu = pmd->stats.drops[DROP_MTU_EXCEEDED],
		.frag_needed = pmd->stats.pmtud_frag_needed,
		.too_big = pmd->stats.pmtud_too_big,
		.policed = pmd->stats.pmtud_policed,
		.copies = pmd->stats.copies,
		.tnl_dropped = tnl_dropped,
	};
}

/* What a step should have changed: mtu_exceeded (and the tunnel's
 * tx_dropped) by mtu, the others by theirs. */
static void
check_counts(const char *what, const struct counts *c0, uint64_t mtu,
	     uint64_t frag_needed, uint64_t too_big, uint64_t policed)
{
	struct counts c = counts();

	CHECK(c.mtu - c0->mtu == mtu && c.tnl_dropped - c0->tnl_dropped == mtu,
	      "%s: mtu_exceeded +%lu, tunnel tx_dropped +%lu, want +%lu",
	      what, c.mtu - c0->mtu, c.tnl_dropped - c0->tnl_dropped, mtu);
	CHECK(c.frag_needed - c0->frag_needed == frag_needed &&
	      c.too_big - c0->too_big == too_big &&
	      c.policed - c0->policed == policed &&
	      c.copies - c0->copies == frag_needed + too_big,
	      "%s: frag_needed +%lu too_big +%lu policed +%lu copies +%lu, "
	      "want +%lu +%lu +%lu", what, c.frag_needed - c0->frag_needed,
	      c.too_big - c0->too_big, c.policed - c0->policed,
	      c.copies - c0->copies, frag_needed, too_big, policed);
	balanced(what);
}

static void
hexdiff(const uint8_t *got, const uint8_t *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i]) {
			printf("  first difference at byte %zu: %02x, want "
			       "%02x\n", i, got[i], want[i]);
			return;
		}
}

/* ---- tests -------------------------------------------------------------- */

static void
test_config(void)
{
	CHECK(cfg.pmtud && cfg.pmtud_rate == 2000 && cfg.pmtud_burst == 64,
	      "topology: pmtud %d, rate %u, burst %u", cfg.pmtud,
	      cfg.pmtud_rate, cfg.pmtud_burst);
	CHECK_EXPR(pmd->dp.pmtud);
	CHECK(pmd->dp.pmtud_policer.cost == rte_get_tsc_hz() / 2000 &&
	      pmd->dp.pmtud_policer.depth == pmd->dp.pmtud_policer.cost * 64,
	      "policer cost %lu depth %lu", pmd->dp.pmtud_policer.cost,
	      pmd->dp.pmtud_policer.depth);
	CHECK(nic->tx_max_frame == 1514, "phy: longest frame %u",
	      nic->tx_max_frame);
}

static void
test_ipv4(void)
{
	static uint8_t f[4][FRAME_MAX], o[FRAME_MAX], e[FRAME_MAX];
	uint32_t l[4];
	struct v4 v = tcp4();
	struct counts c0 = counts();

	/* the longest that fits: into the tunnel, 1514 on the wire */
	run1(vm_port[0], o, frame4(o, 0, MAX_INNER, &v));
	CHECK(sent_on(nic, f, l, 4) == 1 && l[0] == 1514,
	      "1464 bytes not encapsulated");
	CHECK_EXPR(count_on(vm_port[0]) == 0);
	check_counts("1464 bytes", &c0, 0, 0, 0, 0);

	/* one more byte, and a full 1500-byte packet */
	static const uint16_t lens[] = { MAX_INNER + 1, 1514 };
	for (size_t i = 0; i < RTE_DIM(lens); i++) {
		c0 = counts();
		size_t n = frame4(o, 0, lens[i], &v);
		run1(vm_port[0], o, n);
		CHECK_EXPR(count_on(nic) == 0);
		unsigned k = sent_on(vm_port[0], f, l, 4);
		size_t en = expect_frag_needed(e, o, MTU);
		CHECK(k == 1 && l[0] == en && !memcmp(f[0], e, en),
		      "%u bytes with DF: %u frames on vm0, %u bytes, want "
		      "the %zu-byte ICMP error", lens[i], k, k ? l[0] : 0, en);
		if (k == 1 && l[0] == en)
			hexdiff(f[0], e, en);
		check_counts("IPv4 with DF", &c0, 1, 1, 0, 0);
	}

	/* in two segments, split inside the IPv4 header, then inside the
	 * quote */
	static const size_t splits[] = { 20, 300 };
	for (size_t i = 0; i < RTE_DIM(splits); i++) {
		c0 = counts();
		size_t n = frame4(o, 0, 1514, &v);
		struct rte_mbuf *m = mbuf_chain_of(o, n, splits[i]);
		CHECK_EXPR(m != NULL);
		if (!m)
			continue;
		run_on(vm_port[0], &m, 1);
		size_t en = expect_frag_needed(e, o, MTU);
		CHECK(sent_on(vm_port[0], f, l, 4) == 1 && l[0] == en &&
		      !memcmp(f[0], e, en), "two segments (split at %zu): "
		      "no ICMP error", splits[i]);
		check_counts("two segments", &c0, 1, 1, 0, 0);
	}

	/* ICMP echo with DF is no error: answered */
	c0 = counts();
	v.proto = 1;
	v.icmp_type = 8;
	run1(vm_port[0], o, frame4(o, 0, 1514, &v));
	size_t en = expect_frag_needed(e, o, MTU);
	CHECK(sent_on(vm_port[0], f, l, 4) == 1 && l[0] == en &&
	      !memcmp(f[0], e, en), "ICMP echo with DF not answered");
	check_counts("ICMP echo", &c0, 1, 1, 0, 0);
}

/* Dropped as mtu_exceeded, nothing sent anywhere. */
static void
not_answered4(const char *what, const struct v4 *v)
{
	static uint8_t o[FRAME_MAX];
	struct counts c0 = counts();

	run1(vm_port[0], o, frame4(o, 0, 1514, v));
	unsigned k = count_on(vm_port[0]), n = count_on(nic);
	CHECK(k == 0 && n == 0, "%s: %u frames on vm0, %u on the NIC", what,
	      k, n);
	check_counts(what, &c0, 1, 0, 0, 0);
}

static void
test_ipv4_not_answered(void)
{
	struct v4 v;

	v = tcp4(); v.frag = 0;
	not_answered4("IPv4 without DF", &v);
	v = tcp4(); v.frag = 0x6000;		/* DF and MF */
	not_answered4("IPv4 first fragment", &v);
	v = tcp4(); v.frag = 0x4010;		/* DF, offset 128 */
	not_answered4("IPv4 later fragment", &v);
	v = tcp4(); v.frag = 0xc000;		/* DF and the reserved bit */
	not_answered4("IPv4 evil bit", &v);
	static const int errors[] = { 3, 4, 5, 11, 12 };
	for (size_t i = 0; i < RTE_DIM(errors); i++) {
		v = tcp4(); v.proto = 1; v.icmp_type = errors[i];
		not_answered4("ICMP error", &v);
	}
	static const uint8_t bad_dst[][4] = { { 255, 255, 255, 255 },
					      { 224, 0, 0, 5 },
					      { 239, 1, 2, 3 } };
	for (size_t i = 0; i < RTE_DIM(bad_dst); i++) {
		v = tcp4(); memcpy(v.dst, bad_dst[i], 4);
		not_answered4("broadcast/multicast destination", &v);
	}
	static const uint8_t bad_src[][4] = { { 0, 0, 0, 0 }, { 0, 1, 2, 3 },
					      { 127, 0, 0, 1 },
					      { 255, 255, 255, 255 },
					      { 224, 0, 0, 1 } };
	for (size_t i = 0; i < RTE_DIM(bad_src); i++) {
		v = tcp4(); memcpy(v.src, bad_src[i], 4);
		not_answered4("zero/loopback/broadcast/multicast source", &v);
	}

	/* a tagged frame, a frame that is not IP */
	static uint8_t o[FRAME_MAX];
	struct counts c0 = counts();
	v = tcp4();
	frame4(o, 0, 1510, &v);
	memmove(o + 16, o + 12, 1510 - 12);
	put16(o + 12, 0x8100);
	put16(o + 14, 0x0064);
	run1(vm_port[0], o, 1514);
	put16(o + 12, 0x88b5);
	run1(vm_port[0], o, 1514);
	CHECK_EXPR(count_on(vm_port[0]) == 0 && count_on(nic) == 0);
	check_counts("tagged, not IP", &c0, 2, 0, 0, 0);
}

static void
test_ipv6(void)
{
	static uint8_t f[4][FRAME_MAX], o[FRAME_MAX], e[FRAME_MAX];
	uint32_t l[4];
	struct v6 v = tcp6();
	struct counts c0 = counts();

	run1(vm_port[0], o, frame6(o, 0, MAX_INNER, &v));
	CHECK(sent_on(nic, f, l, 4) == 1 && l[0] == 1514,
	      "1464-byte IPv6 not encapsulated");
	check_counts("1464-byte IPv6", &c0, 0, 0, 0, 0);

	/* hop-by-hop (8) and destination options (16) before ICMPv6 echo;
	 * a first fragment (offset 0, M) before TCP; plain TCP */
	static const uint8_t hbh_echo[] = {
		60, 0, 1, 4, 0, 0, 0, 0,			/* HBH: PadN */
		58, 1, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* DST */
		128, 0, 0, 0,				/* echo request */
	};
	static const uint8_t first_frag[] = {
		6, 0, 0x00, 0x01, 0x12, 0x34, 0x56, 0x78,	/* M=1 */
		0x9c, 0x40, 0x13, 0x89, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x10,
	};
	struct v6 cases[3] = { tcp6(), tcp6(), tcp6() };
	cases[0].ext = hbh_echo;
	cases[0].ext_len = sizeof hbh_echo;
	cases[0].first_nh = 0;
	cases[1].ext = first_frag;
	cases[1].ext_len = sizeof first_frag;
	cases[1].first_nh = 44;
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		c0 = counts();
		size_t n = frame6(o, 0, i == 2 ? MAX_INNER + 1 : 1514,
				  &cases[i]);
		run1(vm_port[0], o, n);
		CHECK_EXPR(count_on(nic) == 0);
		unsigned k = sent_on(vm_port[0], f, l, 4);
		size_t en = expect_too_big(e, o, MTU);
		CHECK(k == 1 && l[0] == en && !memcmp(f[0], e, en),
		      "IPv6 case %zu: %u frames on vm0, %u bytes, want the "
		      "%zu-byte ICMPv6 error", i, k, k ? l[0] : 0, en);
		if (k == 1 && l[0] == en)
			hexdiff(f[0], e, en);
		check_counts("IPv6", &c0, 1, 0, 1, 0);
	}
}

static void
not_answered6(const char *what, const struct v6 *v)
{
	static uint8_t o[FRAME_MAX];
	struct counts c0 = counts();

	run1(vm_port[0], o, frame6(o, 0, 1514, v));
	unsigned k = count_on(vm_port[0]), n = count_on(nic);
	CHECK(k == 0 && n == 0, "%s: %u frames on vm0, %u on the NIC", what,
	      k, n);
	check_counts(what, &c0, 1, 0, 0, 0);
}

static void
test_ipv6_not_answered(void)
{
	static const uint8_t icmp6_types[] = { 1, 2, 3, 4, 127, 137 };
	uint8_t icmp[RTE_DIM(icmp6_types)][4];
	struct v6 v;

	for (size_t i = 0; i < RTE_DIM(icmp6_types); i++) {
		v = tcp6();
		memset(icmp[i], 0, 4);
		icmp[i][0] = icmp6_types[i];
		v.ext = icmp[i];
		v.ext_len = 4;
		v.first_nh = 58;
		not_answered6("ICMPv6 error or redirect", &v);
	}
	/* the same behind a hop-by-hop header */
	static const uint8_t hbh_err[] = { 58, 0, 1, 4, 0, 0, 0, 0, 1, 0 };
	v = tcp6(); v.ext = hbh_err; v.ext_len = sizeof hbh_err;
	v.first_nh = 0;
	not_answered6("ICMPv6 error behind hop-by-hop", &v);
	/* a fragment with an offset */
	static const uint8_t later_frag[] = { 6, 0, 0x05, 0xa8, 1, 2, 3, 4 };
	v = tcp6(); v.ext = later_frag; v.ext_len = sizeof later_frag;
	v.first_nh = 44;
	not_answered6("IPv6 later fragment", &v);
	/* no next header */
	v = tcp6(); v.first_nh = 59;
	not_answered6("IPv6 no next header", &v);
	/* sources ::, ::1, ff02::1 */
	static const uint8_t bad_src[][16] = {
		{ 0 }, { [15] = 1 }, { 0xff, 0x02, [15] = 1 },
	};
	for (size_t i = 0; i < RTE_DIM(bad_src); i++) {
		v = tcp6(); memcpy(v.src, bad_src[i], 16);
		not_answered6("IPv6 source ::, ::1 or multicast", &v);
	}
}

/* A tunnel output that is not the last: its copy answered, the original
 * still sent to vm2. */
static void
test_copy(void)
{
	static uint8_t f[4][FRAME_MAX], o[FRAME_MAX], e[FRAME_MAX];
	uint32_t l[4];
	struct v4 v = tcp4();
	struct counts c0 = counts();

	size_t n = frame4(o, 1, 1514, &v);
	run1(vm_port[1], o, n);
	CHECK_EXPR(count_on(nic) == 0);
	CHECK(sent_on(vm_port[2], f, l, 4) == 1 && l[0] == n &&
	      !memcmp(f[0], o, n), "vm2 did not get the packet");
	size_t en = expect_frag_needed(e, o, MTU);
	CHECK(sent_on(vm_port[1], f, l, 4) == 1 && l[0] == en &&
	      !memcmp(f[0], e, en), "vm1 did not get its ICMP error");
	struct counts c = counts();
	/* the tunnel's copy, and the ICMP error: two copies */
	CHECK(c.copies - c0.copies == 2 && c.frag_needed - c0.frag_needed == 1
	      && c.mtu - c0.mtu == 1, "copies +%lu, frag_needed +%lu, "
	      "mtu_exceeded +%lu", c.copies - c0.copies,
	      c.frag_needed - c0.frag_needed, c.mtu - c0.mtu);
	balanced(__func__);
}

/* Decapsulated, then back into the tunnel: no port to answer on. */
static void
test_hairpin(void)
{
	static uint8_t o[FRAME_MAX];
	struct v4 v = tcp4();
	struct counts c0 = counts();

	size_t n = frame4(o, 0, 1514, &v);
	struct rte_mbuf *m = vxlan_of(o, n);
	run_on(nic, &m, 1);
	unsigned k = count_on(nic);
	CHECK(k == 0, "hairpin: %u frames on the NIC", k);
	for (int i = 0; i < N_VMS; i++)
		CHECK_EXPR(count_on(vm_port[i]) == 0);
	check_counts("hairpin", &c0, 1, 0, 0, 0);

	/* a short one does go round */
	c0 = counts();
	m = vxlan_of(o, frame4(o, 0, 200, &v));
	run_on(nic, &m, 1);
	CHECK_EXPR(count_on(nic) == 1);
	check_counts("short hairpin", &c0, 0, 0, 0, 0);
}

static void
test_rate(void)
{
	static uint8_t o[FRAME_MAX];
	struct rte_mbuf *m[10];
	struct v4 v = tcp4();
	struct v6 v6 = tcp6();

	/* 1 a second, 4 at once: 4 of 10 answered (both families share
	 * the bucket), the rest refused and counted */
	dp_set_pmtud(&pmd->dp, true, 1, 4);
	struct counts c0 = counts();
	for (int i = 0; i < 10; i++)
		m[i] = mbuf_of(o, i % 2 ? frame4(o, 0, 1514, &v)
					: frame6(o, 0, 1514, &v6));
	run_on(vm_port[0], m, 10);
	unsigned k = count_on(vm_port[0]);
	struct counts c = counts();
	CHECK(k == 4 && c.policed - c0.policed == 6 &&
	      c.frag_needed - c0.frag_needed + c.too_big - c0.too_big == 4,
	      "over the bucket: %u sent, policed +%lu", k,
	      c.policed - c0.policed);
	CHECK_EXPR(c.mtu - c0.mtu == 10);
	balanced("policed");

	/* ineligible packets take no token: with the bucket empty they are
	 * not counted as policed */
	v.frag = 0;
	not_answered4("no DF, bucket empty", &v);

	/* rate 0: no limit */
	dp_set_pmtud(&pmd->dp, true, 0, 1);
	v = tcp4();
	c0 = counts();
	for (int i = 0; i < 10; i++)
		m[i] = mbuf_of(o, frame4(o, 0, 1514, &v));
	run_on(vm_port[0], m, 10);
	CHECK_EXPR(count_on(vm_port[0]) == 10);
	check_counts("no limit", &c0, 10, 10, 0, 0);
	dp_set_pmtud(&pmd->dp, cfg.pmtud, cfg.pmtud_rate, cfg.pmtud_burst);
}

static void
test_off(void)
{
	struct v4 v = tcp4();

	dp_set_pmtud(&pmd->dp, false, cfg.pmtud_rate, cfg.pmtud_burst);
	not_answered4("pmtud off", &v);
	dp_set_pmtud(&pmd->dp, true, cfg.pmtud_rate, cfg.pmtud_burst);
	struct counts c0 = counts();
	static uint8_t o[FRAME_MAX];
	run1(vm_port[0], o, frame4(o, 0, 1514, &v));
	CHECK_EXPR(count_on(vm_port[0]) == 1);
	check_counts("pmtud on again", &c0, 1, 1, 0, 0);
}

/* The unbatched encap (batched-tunnel off, the A/B baseline): the same
 * answer, and the packet that fits still goes. */
static void
test_unbatched(void)
{
	static uint8_t f[4][FRAME_MAX], o[FRAME_MAX], e[FRAME_MAX];
	struct rte_mbuf *m[3];
	uint32_t l[4];
	struct v4 v = tcp4();
	uint32_t opts = pmd->dp.opts;

	dp_set_opts(&pmd->dp, opts & ~DP_OPT_BIT(DP_OPT_BATCHED_TUNNEL));
	struct counts c0 = counts();
	m[0] = mbuf_of(o, frame4(o, 0, MAX_INNER, &v));
	m[1] = mbuf_of(o, frame4(o, 0, 1514, &v));
	m[2] = mbuf_of(o, frame4(o, 0, MAX_INNER, &v));
	run_on(vm_port[0], m, 3);
	dp_set_opts(&pmd->dp, opts);
	CHECK_EXPR(count_on(nic) == 2);
	frame4(o, 0, 1514, &v);
	size_t en = expect_frag_needed(e, o, MTU);
	CHECK(sent_on(vm_port[0], f, l, 4) == 1 && l[0] == en &&
	      !memcmp(f[0], e, en), "batched-tunnel off: no ICMP error");
	check_counts("batched-tunnel off", &c0, 1, 1, 0, 0);
}

/* The MTU announced follows the underlay port's; under 576 (IPv4) or
 * 1280 (IPv6) nothing is announced. The port's limit is read when a
 * megaflow is translated: the PMD's are flushed around each change. */
static void
test_small_mtu(void)
{
	static uint8_t f[4][FRAME_MAX], o[FRAME_MAX], e[FRAME_MAX];
	uint32_t l[4];
	struct v4 v = tcp4();
	struct v6 v6 = tcp6();
	uint32_t saved = nic->tx_max_frame;

	/* underlay MTU 1300: 1264-byte inner frames, announce 1250 */
	nic->tx_max_frame = 1314;
	pmd_flush_flows(pmd);
	struct counts c0 = counts();
	run1(vm_port[0], o, frame4(o, 0, 1265, &v));
	size_t en = expect_frag_needed(e, o, 1250);
	CHECK(sent_on(vm_port[0], f, l, 4) == 1 && l[0] == en &&
	      !memcmp(f[0], e, en), "MTU 1300: no ICMP error for 1250");
	check_counts("MTU 1300, IPv4", &c0, 1, 1, 0, 0);
	not_answered6("MTU 1300, IPv6 (1250 < 1280)", &v6);
	run1(vm_port[0], o, frame6(o, 0, 1264, &v6));
	CHECK_EXPR(count_on(nic) == 1);

	/* underlay MTU 620: announce 570 < 576 */
	nic->tx_max_frame = 634;
	pmd_flush_flows(pmd);
	not_answered4("MTU 620, IPv4 (570 < 576)", &v);

	nic->tx_max_frame = saved;
	pmd_flush_flows(pmd);
	balanced(__func__);
}

/* The record of a traced packet too long for the tunnel. */
static void
test_trace(void)
{
	struct dp_trace *t = rte_zmalloc("trace", sizeof *t, 64);
	static uint8_t o[FRAME_MAX];
	struct v4 v = tcp4();

	CHECK_EXPR(t != NULL);
	if (!t)
		return;
	t->tsc_hz = rte_get_tsc_hz();
	t->id = 0x5a;	/* in the packets' field beside the record's index */
	t->in_port = vm_port[0]->idx;
	t->limit = 2;
	pmd->dp.trace = t;
	run1(vm_port[0], o, frame4(o, 0, 1514, &v));
	v.frag = 0;
	run1(vm_port[0], o, frame4(o, 0, 1514, &v));
	pmd->dp.trace = NULL;
	CHECK_EXPR(count_on(vm_port[0]) == 1);

	/* answered: pmtud (frag_needed, 1450, vm0), drop mtu_exceeded,
	 * then the error's output and tx on vm0 */
	const struct dp_trace_pkt *r = &t->pkts[0];
	int at = -1;
	for (uint32_t i = 0; i < r->n; i++)
		if (r->e[i].kind == DP_TRACE_PMTUD)
			at = (int)i;
	CHECK(at > 0 && (uint32_t)at + 3 < r->n,
	      "no pmtud entry, or too few after it (%u entries)", r->n);
	if (at > 0 && (uint32_t)at + 3 < r->n) {
		const struct dp_trace_entry *e = &r->e[at];
		CHECK(e->u64 == DP_PMTUD_FRAG_NEEDED && e->u32 == MTU &&
		      e->port == vm_port[0]->idx, "pmtud entry: verdict %s, "
		      "mtu %u, port %u", dp_pmtud_verdict_name(e->u64),
		      e->u32, e->port);
		CHECK_EXPR(e[1].kind == DP_TRACE_DROP &&
			   e[1].port == DROP_MTU_EXCEEDED);
		CHECK_EXPR(e[2].kind == DP_TRACE_OUTPUT &&
			   e[2].port == vm_port[0]->idx);
		CHECK_EXPR(e[3].kind == DP_TRACE_TX &&
			   e[3].port == vm_port[0]->idx);
	}
	/* not answered: pmtud (no_df), the drop last */
	r = &t->pkts[1];
	CHECK(r->n >= 2 && r->e[r->n - 2].kind == DP_TRACE_PMTUD &&
	      r->e[r->n - 2].u64 == DP_PMTUD_NO_DF &&
	      r->e[r->n - 1].kind == DP_TRACE_DROP &&
	      r->e[r->n - 1].port == DROP_MTU_EXCEEDED,
	      "no-DF record: %u entries", r->n);
	CHECK(!strcmp(dp_pmtud_verdict_name(DP_PMTUD_NO_DF), "no_df") &&
	      !strcmp(dp_trace_kind_name(DP_TRACE_PMTUD), "pmtud"),
	      "names");
	rte_free(t);
	balanced(__func__);
}

/* An IPv6-underlay template through the encap stage itself (xlate makes
 * none yet): its 70-byte header leaves 1444 bytes of frame on a 1500-byte
 * underlay, so 1444 goes into the tunnel (1514 on the wire, with a UDP
 * checksum that verifies) and 1445 or 1514 with DF are dropped as
 * mtu_exceeded and answered with MTU 1430. The packets are handed to
 * dp_tnl_push as the lookup would, and counted received as rx would. */
static void
test_ipv6_underlay(void)
{
	static uint8_t f[4][FRAME_MAX], o[FRAME_MAX], e[FRAME_MAX];
	static const struct flow_in6_addr src = {{ 0xfd, 0, 0x01, 0x72,
		[15] = 0x64 }};
	static const struct flow_in6_addr dst = {{ 0xfd, 0, 0x01, 0x72,
		[15] = 0x01 }};
	static const uint16_t lens[] = { 1444, 1445, 1514 };
	struct rte_ether_addr smac, dmac;
	struct vxlan_tnl_template t;
	struct v4 v = tcp4();
	uint32_t l[4];

	memcpy(smac.addr_bytes, vtep_mac, 6);
	memcpy(dmac.addr_bytes, remote_vtep_mac, 6);
	vxlan_tnl_template_build6(&t, &smac, &dmac, &src, &dst, VNI, 4789, 64,
				  0);
	vxlan_tnl_template_set_max_frame(&t, nic->tx_max_frame);
	CHECK(t.max_inner == 1444, "max_inner %u", t.max_inner);
	dp_set_pmtud(&pmd->dp, true, 0, 1);	/* no limit */
	for (size_t i = 0; i < RTE_DIM(lens); i++) {
		struct pkt_batch b = { .n = 1 };
		struct flow_key keys[1];
		uint32_t hashes[1] = { 0x1234 };
		uint8_t idx[1] = { 0 };
		struct counts c0 = counts();
		size_t n = frame4(o, 0, lens[i], &v);

		b.pkts[0] = mbuf_of(o, n);
		flow_key_zero(&keys[0]);
		keys[0].in_port = vm_port[0]->ofport;
		CHECK_EXPR(miniflow_extract(b.pkts[0], &keys[0]) == 0);
		pmd->stats.packets++;
		dp_tnl_push(&pmd->dp, &t, &b, keys, hashes, idx);
		dp_tx_enqueue(&pmd->dp, nic->idx, b.pkts, b.n);
		dp_tx_flush_all(&pmd->dp);
		if (lens[i] <= t.max_inner) {
			uint8_t c[2] = { 1, 1 };
			unsigned k = sent_on(nic, f, l, 4);
			/* the receiver's check: pseudo-header (addresses,
			 * length, next header) + datagram sum to 0xffff */
			if (k == 1 && l[0] == 1514)
				put_csum(c, sum16(f[0] + 22, 32, 17 +
						  (l[0] - 54) +
						  sum16(f[0] + 54, l[0] - 54,
							0)));
			CHECK(k == 1 && l[0] == 1514 && f[0][12] == 0x86 &&
			      f[0][13] == 0xdd && !memcmp(f[0] + 70, o, n) &&
			      c[0] == 0 && c[1] == 0, "1444 bytes: not "
			      "encapsulated over IPv6 (%u frames)", k);
			check_counts("1444 over IPv6", &c0, 0, 0, 0, 0);
			continue;
		}
		CHECK_EXPR(count_on(nic) == 0);
		unsigned k = sent_on(vm_port[0], f, l, 4);
		size_t en = expect_frag_needed(e, o, 1430);
		CHECK(k == 1 && l[0] == en && !memcmp(f[0], e, en),
		      "%u bytes over IPv6: %u frames on vm0, want the "
		      "frag-needed with MTU 1430", lens[i], k);
		if (k == 1 && l[0] == en)
			hexdiff(f[0], e, en);
		check_counts("IPv6 underlay, DF", &c0, 1, 1, 0, 0);
	}
	dp_set_pmtud(&pmd->dp, cfg.pmtud, cfg.pmtud_rate, cfg.pmtud_burst);
}

int
main(void)
{
	if (pipeline_rig_up("test_pmtud", write_topology, &cfg, &pool, &pmd,
			    &nic, vm_port, N_VMS))
		return 1;
	vxlan = port_by_name("vxlan");

	test_config();
	test_ipv4();
	test_ipv4_not_answered();
	test_ipv6();
	test_ipv6_not_answered();
	test_copy();
	test_hairpin();
	test_unbatched();
	test_small_mtu();
	test_off();
	test_trace();
	test_rate();
	test_ipv6_underlay();

	pmd_flush_flows(pmd);
	dp_tx_flush_all(&pmd->dp);
	drain_all();
	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
