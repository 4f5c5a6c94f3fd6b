/* SPDX-License-Identifier: BSD-3-Clause
 * Datapath hardening in the real pipeline (config_load, ports, a PMD driven
 * from this thread, as test_mark_path): the NIC and the VMs are net_ring
 * ports, whose tx ring is their rx ring, so what the switch sent on each is
 * read back byte for byte.
 *
 *  - underlay frames not addressed to our VTEP MAC (foreign unicast, zero,
 *    broadcast unless ARP) are dropped as foreign_mac, never decapsulated;
 *  - ARP replies for the VTEP are counted as consumed, bad opcodes as
 *    arp_bad_op (both were freed with no counter);
 *  - header rewrites are per output: mod_dl_dst:A,output:1,mod_dl_dst:B,
 *    output:2 sends A to 1 and B to 2, also around a tunnel output;
 *  - so are tunnel fields: two tunnel outputs with different set_tunnel
 *    or tun_dst send one copy each, with its own outer VNI / outer
 *    destination (and neighbour MAC); a copy whose neighbour is unknown
 *    is counted as no_neigh while the other outputs still send; rules
 *    needing more per-output slots than the datapath has are refused at
 *    add-flow time, naming the limit;
 *  - frames longer than the output port's MTU (encap past the underlay's,
 *    decap past a VM's) and guest frames past their port's limit are
 *    dropped as mtu_exceeded, not lost in a driver;
 *  - after every step: received + copies = sent + consumed + dropped +
 *    in flight (dp_stats.h), also with packets left in the tx buffers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include "config.h"
#include "dp_snapshot.h"
#include "neigh.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"
#include "unit_test.h"
#include "dpcls.h"
#include "pipeline_rig.h"

#define N_VMS 4
#define VNI 1001
#define IPV4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			  (uint32_t)(c) << 8 | (uint32_t)(d))

static struct rte_mempool *pool;
static struct port *nic, *vm_port[N_VMS];
static struct pmd *pmd;

static const struct rte_ether_addr vtep_mac = { { 0x10, 0, 0, 0, 0, 1 } },
	remote_vtep_mac = { { 0x10, 0, 0, 0, 0, 2 } },
	mac_a = { { 0x02, 0xaa, 0, 0, 0, 0x0a } },
	mac_b = { { 0x02, 0xbb, 0, 0, 0, 0x0b } },
	mac_c = { { 0x02, 0xcc, 0, 0, 0, 0x0c } },
	mac_d = { { 0x02, 0xdd, 0, 0, 0, 0x0d } };

static int
write_topology(char *path, size_t len)
{
	FILE *f = pipeline_rig_topology(path, len, "test_dp_accounting", "");
	if (!f)
		return -1;
	for (int i = 0; i < N_VMS; i++)
		fprintf(f, "  - {name: vm%d, type: dpdk, "
			   "devargs: net_ring_dpvm%d}\n", i, i);
	fprintf(f, "  - {name: vxlan, type: vxlan, options: {remote_ip: flow,"
		   " local_ip: flow, key: flow, vnis: [%d]}}\n"
		   "  - {name: phy, type: dpdk, devargs: net_ring_dpphy}\n"
		   "flows:\n", VNI);
	/* VM 0: one rewrite per output */
	fprintf(f, "  - in_port=vxlan,ip,nw_dst=192.1.0.0,actions="
		   "mod_dl_dst:02:aa:00:00:00:0a,output:vm0,"
		   "mod_dl_dst:02:bb:00:00:00:0b,output:vm1\n");
	fprintf(f, "  - in_port=vxlan,ip,nw_dst=192.1.0.1,actions=output:vm1\n");
	/* VM 0: A with VNI 1001, B with VNI 1002, both to the remote VTEP */
	fprintf(f, "  - in_port=vm0,actions=mod_dl_dst:02:aa:00:00:00:0a,"
		   "set_tunnel:%d,set_field:172.1.0.0->tun_dst,"
		   "set_field:172.1.0.100->tun_src,output:vxlan,"
		   "mod_dl_dst:02:bb:00:00:00:0b,set_tunnel:%d,output:vxlan\n",
		VNI, VNI + 1);
	/* VM 1: to two remote VTEPs (the second not resolved at first),
	 * then a plain output */
	fprintf(f, "  - in_port=vm1,actions=set_tunnel:%d,"
		   "set_field:172.1.0.0->tun_dst,"
		   "set_field:172.1.0.100->tun_src,output:vxlan,"
		   "set_field:172.1.0.7->tun_dst,output:vxlan,output:vm2\n",
		VNI);
	/* VM 2: rewritten C into the tunnel, D to vm3 */
	fprintf(f, "  - in_port=vm2,actions=mod_dl_dst:02:cc:00:00:00:0c,"
		   "set_tunnel:%d,set_field:172.1.0.0->tun_dst,"
		   "set_field:172.1.0.100->tun_src,output:vxlan,"
		   "mod_dl_dst:02:dd:00:00:00:0d,output:vm3\n", VNI);
	/* VM 3: unrewritten into the tunnel, D to vm2 */
	fprintf(f, "  - in_port=vm3,actions=set_tunnel:%d,"
		   "set_field:172.1.0.0->tun_dst,"
		   "set_field:172.1.0.100->tun_src,output:vxlan,"
		   "mod_dl_dst:02:dd:00:00:00:0d,output:vm2\n", VNI);
	return fclose(f);
}

/* ---- frames ------------------------------------------------------------ */

static void
ip_udp(uint8_t *p, uint16_t ip_len, uint32_t src, uint32_t dst, uint16_t dport)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(p + 20);

	memset(ip, 0, sizeof *ip);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(ip_len);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	u->src_port = RTE_BE16(40000);
	u->dst_port = rte_cpu_to_be_16(dport);
	u->dgram_len = rte_cpu_to_be_16(ip_len - 20);
	u->dgram_cksum = 0;
}

/* The inner frame (len bytes) a remote host sends to VM vm. */
static void
inner(uint8_t *p, int vm, uint16_t len)
{
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)p;
	e->dst_addr = (struct rte_ether_addr){ { 0x52, 0x54, 0, 0, 0, vm } };
	e->src_addr = (struct rte_ether_addr){ { 0xa0, 0, 0, 0, 0, 2 } };
	e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	memset(p + 14, 0x5a, len - 14);
	ip_udp(p + 14, len - 14, IPV4(192, 2, 0, 1), IPV4(192, 1, 0, vm),
	       5001);
}

/* VXLAN from the remote VTEP, outer dl_dst dst, carrying inner(vm, len). */
static struct rte_mbuf *
vxlan_frame(const struct rte_ether_addr *dst, int vm, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, 50 + len) : NULL;
	if (!p)
		return m;
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)p;
	e->dst_addr = *dst;
	e->src_addr = remote_vtep_mac;
	e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip_udp(p + 14, 36 + len, IPV4(172, 1, 0, 0), IPV4(172, 1, 0, 100),
	       4789);
	memset(p + 42, 0, 8);
	p[42] = 0x08;
	p[46] = VNI >> 16;
	p[47] = (VNI >> 8) & 0xff;
	p[48] = VNI & 0xff;
	inner(p + 50, vm, len);
	return m;
}

/* What VM vm sends to a remote host: len bytes. */
static struct rte_mbuf *
vm_frame(int vm, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, len) : NULL;
	if (!p)
		return m;
	inner(p, 9, len);
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)p;
	e->src_addr = (struct rte_ether_addr){ { 0x52, 0x54, 0, 0, 0, vm } };
	return m;
}

static struct rte_mbuf *
arp_frame(const struct rte_ether_addr *dst, uint16_t op)
{
	return pipeline_rig_arp(pool, dst, op, &remote_vtep_mac,
				rte_cpu_to_be_32(IPV4(172, 1, 0, 0)),
				rte_cpu_to_be_32(IPV4(172, 1, 0, 100)));
}

/* ---- the PMD ----------------------------------------------------------- */

static void
run_on(struct port *in, struct rte_mbuf **pkts, uint16_t n, bool flush)
{
	struct pkt_batch b = { .n = n };
	memcpy(b.pkts, pkts, n * sizeof pkts[0]);
	dp_process_burst(&pmd->dp, in, &b);
	if (flush)
		dp_tx_flush_all(&pmd->dp);
}

/* Frames the switch sent on port p since the last call (freed); the
 * first up to max are copied out (first 64 bytes) with their lengths. */
static unsigned
sent_on(struct port *p, uint8_t (*hdr)[64], uint32_t *len, unsigned max)
{
	struct rte_mbuf *rx[64];
	uint16_t k = rte_eth_rx_burst(p->eth_port_id, 0, rx, 64);

	for (uint16_t i = 0; i < k; i++) {
		if (i < max) {
			len[i] = rte_pktmbuf_pkt_len(rx[i]);
			memcpy(hdr[i], rte_pktmbuf_mtod(rx[i], uint8_t *), 64);
		}
		rte_pktmbuf_free(rx[i]);
	}
	return k;
}

static void
drain_all(void)
{
	uint8_t h[1][64];
	uint32_t l[1];
	sent_on(nic, h, l, 0);
	for (int i = 0; i < N_VMS; i++)
		sent_on(vm_port[i], h, l, 0);
}

static uint64_t
drops(enum drop_reason r)
{
	return pmd->stats.drops[r];
}

/* The PMD is not launched: after a publish (which frees the snapshot it
 * had) it takes the new one here, as its poll loop would, and starts
 * with no megaflows. */
static void
take_snapshot(void)
{
	pmd->dp.snap = dp_snapshot_get();
	pmd->dp.seen_gen = pmd->dp.snap->gen;
	pmd_flush_flows(pmd);
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

/* ---- tests ------------------------------------------------------------- */

static void
test_foreign_mac(void)
{
	const struct rte_ether_addr foreign = { { 0x02, 0, 0, 0, 0, 0x99 } },
		zero = { { 0 } },
		bcast = { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
	struct rte_mbuf *m[4] = {
		vxlan_frame(&foreign, 1, 78), vxlan_frame(&zero, 1, 78),
		vxlan_frame(&bcast, 1, 78), arp_frame(&foreign, 1),
	};
	uint64_t fm = drops(DROP_FOREIGN_MAC), pops = pmd->stats.tunnel_pops;
	uint8_t h[4][64];
	uint32_t l[4];

	run_on(nic, m, 4, true);
	/* outer IPv4 fragments (more-fragments; offset 8): outer_frag */
	uint64_t frag = drops(DROP_OUTER_FRAG);
	m[0] = vxlan_frame(&vtep_mac, 1, 78);
	m[1] = vxlan_frame(&vtep_mac, 1, 78);
	uint8_t *ip0 = rte_pktmbuf_mtod_offset(m[0], uint8_t *, 14);
	uint8_t *ip1 = rte_pktmbuf_mtod_offset(m[1], uint8_t *, 14);
	ip0[6] = 0x20;			/* MF, offset 0 */
	ip1[7] = 0x01;			/* offset 8 bytes, last */
	for (int i = 0; i < 2; i++) {
		struct rte_ipv4_hdr *ip = i ? (struct rte_ipv4_hdr *)ip1
					    : (struct rte_ipv4_hdr *)ip0;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	run_on(nic, m, 2, true);
	CHECK(drops(DROP_OUTER_FRAG) - frag == 2, "outer_frag %lu, want 2",
	      drops(DROP_OUTER_FRAG) - frag);
	CHECK(drops(DROP_FOREIGN_MAC) - fm == 4, "foreign_mac %lu, want 4",
	      drops(DROP_FOREIGN_MAC) - fm);
	CHECK(pmd->stats.tunnel_pops == pops, "foreign frames decapsulated");
	CHECK_EXPR(sent_on(vm_port[1], h, l, 4) == 0);
	CHECK_EXPR(sent_on(nic, h, l, 4) == 0);

	/* ours and broadcast ARP still go through */
	m[0] = vxlan_frame(&vtep_mac, 1, 78);
	m[1] = arp_frame(&bcast, RTE_ARP_OP_REQUEST);
	run_on(nic, m, 2, true);
	CHECK_EXPR(sent_on(vm_port[1], h, l, 4) == 1);
	CHECK(sent_on(nic, h, l, 4) == 1 && h[0][21] == RTE_ARP_OP_REPLY,
	      "no ARP reply");
	CHECK(drops(DROP_FOREIGN_MAC) - fm == 4, "good frames dropped");
	balanced(__func__);
}

static void
test_arp_accounting(void)
{
	static const uint16_t bad_ops[] = { 0, 3, 0xffff };
	struct rte_mbuf *m[8];
	uint64_t consumed = pmd->stats.arp_consumed;
	uint64_t bad = drops(DROP_ARP_BAD_OP);

	for (int i = 0; i < 5; i++)
		m[i] = arp_frame(&vtep_mac, RTE_ARP_OP_REPLY);
	for (int i = 0; i < 3; i++)
		m[5 + i] = arp_frame(&vtep_mac, bad_ops[i]);
	run_on(nic, m, 8, true);
	CHECK(pmd->stats.arp_consumed - consumed == 5, "arp_consumed %lu",
	      pmd->stats.arp_consumed - consumed);
	CHECK(drops(DROP_ARP_BAD_OP) - bad == 3, "arp_bad_op %lu",
	      drops(DROP_ARP_BAD_OP) - bad);
	uint8_t h[1][64];
	uint32_t l[1];
	CHECK_EXPR(sent_on(nic, h, l, 1) == 0);
	balanced(__func__);
}

static void
test_per_output_rewrite(void)
{
	uint8_t h[4][64];
	uint32_t l[4];
	struct rte_mbuf *m[1] = { vxlan_frame(&vtep_mac, 0, 78) };
	uint64_t copies = pmd->stats.copies;

	run_on(nic, m, 1, true);
	CHECK(sent_on(vm_port[0], h, l, 4) == 1 && !memcmp(h[0], &mac_a, 6),
	      "vm0 did not get A");
	CHECK(sent_on(vm_port[1], h, l, 4) == 1 && !memcmp(h[0], &mac_b, 6),
	      "vm1 did not get B");
	CHECK_EXPR(pmd->stats.copies - copies == 1);

	/* C into the tunnel, D to vm3 */
	m[0] = vm_frame(2, 78);
	run_on(vm_port[2], m, 1, true);
	CHECK(sent_on(vm_port[3], h, l, 4) == 1 && !memcmp(h[0], &mac_d, 6),
	      "vm3 did not get D");
	CHECK(sent_on(nic, h, l, 4) == 1 && l[0] == 128 &&
	      !memcmp(h[0] + 50, &mac_c, 6), "tunnel did not get C");

	/* nothing rewritten at the tunnel output: the packet's own dl_dst */
	m[0] = vm_frame(3, 78);
	uint8_t own[6];
	memcpy(own, rte_pktmbuf_mtod(m[0], uint8_t *), 6);
	run_on(vm_port[3], m, 1, true);
	CHECK(sent_on(vm_port[2], h, l, 4) == 1 && !memcmp(h[0], &mac_d, 6),
	      "vm2 did not get D");
	CHECK(sent_on(nic, h, l, 4) == 1 && !memcmp(h[0] + 50, own, 6),
	      "tunnel did not get the packet's own dl_dst");
	balanced(__func__);
}

/* The outer header of an encapsulated frame (hdr: its first 64 bytes). */
static uint32_t
outer_vni(const uint8_t *hdr)
{
	return (uint32_t)hdr[46] << 16 | (uint32_t)hdr[47] << 8 | hdr[48];
}

static uint32_t
outer_dst_ip(const uint8_t *hdr)
{
	return (uint32_t)hdr[30] << 24 | (uint32_t)hdr[31] << 16 |
	       (uint32_t)hdr[32] << 8 | hdr[33];
}

/* Copy i of n sent on the NIC with VNI vni, or -1. */
static int
copy_with_vni(uint8_t (*hdr)[64], unsigned n, uint32_t vni)
{
	for (unsigned i = 0; i < n; i++)
		if (outer_vni(hdr[i]) == vni)
			return (int)i;
	return -1;
}

static void
test_per_output_tunnel(void)
{
	uint8_t h[8][64];
	uint32_t l[8];
	struct rte_mbuf *m[2] = { vm_frame(0, 78), vm_frame(0, 78) };
	uint64_t copies = pmd->stats.copies;

	/* set_tunnel 1001 then 1002: one copy each, with its own inner
	 * dl_dst too */
	run_on(vm_port[0], m, 2, true);
	unsigned n = sent_on(nic, h, l, 8);
	CHECK(n == 4, "vm0: %u frames on the NIC, want 4", n);
	int a = copy_with_vni(h, n, VNI), b = copy_with_vni(h, n, VNI + 1);
	CHECK(a >= 0 && b >= 0, "VNIs %u/%u, want %u and %u",
	      n > 0 ? outer_vni(h[0]) : 0, n > 1 ? outer_vni(h[1]) : 0, VNI,
	      VNI + 1);
	if (a >= 0 && b >= 0) {
		CHECK_EXPR(!memcmp(h[a] + 50, &mac_a, 6));
		CHECK_EXPR(!memcmp(h[b] + 50, &mac_b, 6));
		CHECK_EXPR(outer_dst_ip(h[a]) == IPV4(172, 1, 0, 0));
		CHECK_EXPR(outer_dst_ip(h[b]) == IPV4(172, 1, 0, 0));
		CHECK_EXPR(l[a] == 128 && l[b] == 128);
	}
	CHECK_EXPR(pmd->stats.copies - copies == 2);
	balanced("per-output VNI");

	/* tun_dst .0 then .7: .7 has no neighbour yet, so its copy is
	 * counted as no_neigh while .0 and vm2 still get theirs */
	uint64_t no_neigh = drops(DROP_NO_NEIGH);
	m[0] = vm_frame(1, 78);
	run_on(vm_port[1], m, 1, true);
	CHECK(drops(DROP_NO_NEIGH) - no_neigh == 1, "no_neigh %lu, want 1",
	      drops(DROP_NO_NEIGH) - no_neigh);
	n = sent_on(nic, h, l, 8);
	CHECK(n == 1 && outer_dst_ip(h[0]) == IPV4(172, 1, 0, 0),
	      "%u frames on the NIC, want 1 to 172.1.0.0", n);
	CHECK_EXPR(sent_on(vm_port[2], h, l, 8) == 1);
	balanced("unresolved tunnel output");

	/* .7 resolved: each copy to its own outer IP and neighbour MAC */
	const struct rte_ether_addr mac7 = { { 0x10, 0, 0, 0, 0, 7 } };
	char err[128];
	CHECK_EXPR(!neigh_set(rte_cpu_to_be_32(IPV4(172, 1, 0, 7)), &mac7, err,
			      sizeof err));
	ofproto_publish_neigh();
	take_snapshot();
	m[0] = vm_frame(1, 78);
	run_on(vm_port[1], m, 1, true);
	n = sent_on(nic, h, l, 8);
	CHECK(n == 2, "%u frames on the NIC, want 2", n);
	if (n == 2) {
		int i0 = outer_dst_ip(h[0]) == IPV4(172, 1, 0, 0) ? 0 : 1;
		CHECK_EXPR(outer_dst_ip(h[i0]) == IPV4(172, 1, 0, 0));
		CHECK_EXPR(!memcmp(h[i0], &remote_vtep_mac, 6));
		CHECK_EXPR(outer_dst_ip(h[!i0]) == IPV4(172, 1, 0, 7));
		CHECK_EXPR(!memcmp(h[!i0], &mac7, 6));
		CHECK_EXPR(outer_vni(h[0]) == VNI && outer_vni(h[1]) == VNI);
	}
	CHECK_EXPR(sent_on(vm_port[2], h, l, 8) == 1);
	balanced(__func__);
}

/* Rules needing more value slots or actions than struct dp_actions has
 * are refused when added, with the limit in the message; nothing is
 * added. */
static void
test_slot_limits(void)
{
	static const char *const too_many[] = {
		/* 5 tunnel outputs (DP_MAX_TNLS 4) */
		"in_port=vm3,tcp,actions=set_tunnel:1,output:vxlan,"
		"set_tunnel:2,output:vxlan,set_tunnel:3,output:vxlan,"
		"set_tunnel:4,output:vxlan,set_tunnel:5,output:vxlan",
		/* 5 dl_dst rewrites (DP_MAX_MACS 4) */
		"in_port=vm3,tcp,actions=mod_dl_dst:02:00:00:00:00:01,output:vm0,"
		"mod_dl_dst:02:00:00:00:00:02,output:vm1,"
		"mod_dl_dst:02:00:00:00:00:03,output:vm2,"
		"mod_dl_dst:02:00:00:00:00:04,output:vm0,"
		"mod_dl_dst:02:00:00:00:00:05,output:vm1",
		/* 9 outputs (DP_MAX_ACTIONS 8) */
		"in_port=vm3,tcp,actions=vm0,vm1,vm2,vm0,vm1,vm2,vm0,vm1,vm2",
	};
	static const char *const limit[] = { "at most 4", "at most 4",
					     "at most 8" };
	uint32_t rules = ofproto_n_rules();
	char err[512];
	int bad;

	for (size_t i = 0; i < RTE_DIM(too_many); i++) {
		err[0] = '\0';
		int rc = ofproto_add_flows(&too_many[i], 1, &bad, err,
					   sizeof err);
		CHECK(rc < 0 && strstr(err, limit[i]),
		      "rule %zu: rc %d, '%s' (want '%s')", i, rc, err,
		      limit[i]);
	}
	CHECK_EXPR(ofproto_n_rules() == rules);

	/* the limits themselves are fine: 4 tunnel outputs */
	const char *four = "in_port=vm3,tcp,actions=set_tunnel:1,output:vxlan,"
		"set_tunnel:2,output:vxlan,set_tunnel:3,output:vxlan,"
		"set_tunnel:4,output:vxlan";
	CHECK(!ofproto_add_flows(&four, 1, &bad, err, sizeof err),
	      "4 tunnel outputs refused: %s", err);
	take_snapshot();
	CHECK_EXPR(ofproto_n_rules() == rules + 1);
}

static void
test_mtu(void)
{
	uint8_t h[4][64];
	uint32_t l[4];
	uint64_t mtu = drops(DROP_MTU_EXCEEDED);
	/* the underlay's MTU (1500): 1514-byte frames; encap adds 50 */
	struct rte_mbuf *m[3] = { vm_frame(2, 1464), vm_frame(2, 1465),
				  vm_frame(2, 1514) };

	CHECK(nic->tx_max_frame == 1514, "phy: longest frame %u",
	      nic->tx_max_frame);
	run_on(vm_port[2], m, 3, true);
	CHECK(drops(DROP_MTU_EXCEEDED) - mtu == 2, "mtu_exceeded %lu, want 2",
	      drops(DROP_MTU_EXCEEDED) - mtu);
	CHECK(sent_on(nic, h, l, 4) == 1 && l[0] == 1514, "1464 not sent");
	CHECK_EXPR(sent_on(vm_port[3], h, l, 4) == 3);	/* no limit there */

	/* decap to a VM whose port takes 1514-byte frames */
	m[0] = vxlan_frame(&vtep_mac, 1, 1400);
	m[1] = vxlan_frame(&vtep_mac, 1, 1600);
	mtu = drops(DROP_MTU_EXCEEDED);
	run_on(nic, m, 2, true);
	CHECK(sent_on(vm_port[1], h, l, 4) == 1 && l[0] == 1400,
	      "1400 not delivered");
	CHECK_EXPR(drops(DROP_MTU_EXCEEDED) - mtu == 1);

	/* a guest sending past its port's limit (vhost mtu: 1000) */
	uint32_t saved = vm_port[2]->rx_max_frame;
	vm_port[2]->rx_max_frame = 1014;
	m[0] = vm_frame(2, 1014);
	m[1] = vm_frame(2, 1015);
	mtu = drops(DROP_MTU_EXCEEDED);
	run_on(vm_port[2], m, 2, true);
	vm_port[2]->rx_max_frame = saved;
	CHECK_EXPR(drops(DROP_MTU_EXCEEDED) - mtu == 1);
	CHECK(sent_on(nic, h, l, 4) == 1 && l[0] == 1064, "1014 not sent");
	drain_all();
	balanced(__func__);
}

/* Packets in the tx buffers are in flight, and the equation holds. */
static void
test_in_flight(void)
{
	struct rte_mbuf *m[3] = { vxlan_frame(&vtep_mac, 1, 78),
				  vxlan_frame(&vtep_mac, 1, 78),
				  vxlan_frame(&vtep_mac, 0, 78) };
	struct pmd_accounting a;

	run_on(nic, m, 3, false);
	pmd_accounting_read(pmd, &a);
	CHECK(a.in_flight == 4, "in flight %lu, want 4", a.in_flight);
	balanced(__func__);
	pmd_clear_stats(pmd);	/* flushes first: none in flight after */
	pmd_accounting_read(pmd, &a);
	CHECK(a.in_flight == 0 && a.received == 0 && a.sent == 0,
	      "after clear: in flight %lu", a.in_flight);
	drain_all();
	balanced(__func__);
}

/* The subtables the seed's traffic makes (decap inner, underlay pop,
 * encap) each get a specialised lookup: xlate's masks (recirc_id and
 * dl_type always) once made shapes no specialised lookup had, and every
 * lookup ran the generic one unseen for 386 commits. */
static void
count_generic(uint32_t wordmap, const char *name, uint32_t n_flows,
	      uint64_t hits, void *aux)
{
	(void)n_flows, (void)hits;
	if (!strcmp(name, DPCLS_LOOKUP_GENERIC_NAME)) {
		printf("  subtable %#06x: the generic lookup\n", wordmap);
		++*(unsigned *)aux;
	}
	++((unsigned *)aux)[1];
}

static void
test_specialised_shapes(void)
{
	uint8_t h[4][64];
	uint32_t l[4];
	unsigned n[2] = { 0, 0 };	/* generic, all */

	pmd_flush_flows(pmd);
	struct rte_mbuf *m[2] = { vxlan_frame(&vtep_mac, 1, 78),
				  vm_frame(3, 78) };
	run_on(nic, &m[0], 1, true);
	run_on(vm_port[3], &m[1], 1, true);
	while (sent_on(vm_port[1], h, l, 4) || sent_on(vm_port[2], h, l, 4) ||
	       sent_on(nic, h, l, 4))
		;
	dpcls_foreach_subtable(pmd->dp.cls, count_generic, n);
	CHECK(n[1] == 3 && n[0] == 0, "%u of %u subtables generic", n[0],
	      n[1]);
	balanced(__func__);
}

int
main(void)
{
	struct vxs_config cfg;

	if (pipeline_rig_up("test_dp_accounting", write_topology, &cfg, &pool,
			    &pmd, &nic, vm_port, N_VMS))
		return 1;

	test_foreign_mac();
	test_arp_accounting();
	test_per_output_rewrite();
	test_per_output_tunnel();
	test_slot_limits();
	test_mtu();
	test_in_flight();
	test_specialised_shapes();

	pmd_flush_flows(pmd);
	dp_tx_flush_all(&pmd->dp);
	drain_all();
	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
