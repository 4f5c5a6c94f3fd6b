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
 *  - frames longer than the output port's MTU (encap past the underlay's,
 *    decap past a VM's) and guest frames past their port's limit are
 *    dropped as mtu_exceeded, not lost in a driver;
 *  - after every step: received + copies = sent + consumed + dropped +
 *    in flight (pmd.h), also with packets left in the tx buffers.
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
#include "dp_execute.h"
#include "dp_snapshot.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"
#include "unit_test.h"
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
	/* VM 2: rewritten C into the tunnel, D to vm3 (encap runs last) */
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
	dp_process_burst(pmd, in, &b);
	if (flush)
		dp_tx_flush_all(pmd);
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

	/* C into the tunnel, D to vm3, though encap runs after vm3's copy */
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
	test_mtu();
	test_in_flight();

	pmd_flush_flows(pmd);
	dp_tx_flush_all(pmd);
	drain_all();
	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
