/* SPDX-License-Identifier: BSD-3-Clause
 * The outer UDP checksum over IPv6 left to the NIC (tx-csum-offload,
 * app/datapath/vxlan_encap.c), through the encap stage itself
 * (dp_tnl_push) in the real pipeline (pipeline_rig.h). net_ring offers no
 * TX offload, so the snapshot's underlay_tx_udp_csum is set here as
 * ofproto sets it for a NIC that offers RTE_ETH_TX_OFFLOAD_UDP_CKSUM, and
 * this test then does the NIC's share (RFC 1071 over the datagram from
 * l2_len + l3_len, the field's pseudo-header sum included) before
 * checking the datagram as a receiver would:
 *  - offload on: l2/l3/l4 lengths, TX_IPV6 | TX_UDP_CKSUM and nothing
 *    else of the TX flags (a stale inner TSO request cleared), the field
 *    holds rte_ipv6_phdr_cksum's value, the finished datagram verifies,
 *    for a short frame, the longest that fits and a two-segment chain;
 *    udp6_csum_offloaded counts them;
 *  - the option off, or an IPv4 template: the checksum in software as
 *    before (IPv6) or 0 (IPv4), no TX flag, nothing counted.
 */
#include <stdio.h>
#include <string.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include "config.h"
#include "dp_opts.h"
#include "dp_snapshot.h"
#include "dp_stages.h"
#include "pmd.h"
#include "port.h"
#include "unit_test.h"
#include "vxlan_encap.h"
#include "vxlan_tnl.h"
#include "pipeline_rig.h"


#define VNI 1001

static struct rte_mempool *pool;
static struct port *nic, *vm[1];
static struct pmd *pmd;
static struct vxs_config cfg;

static int
write_topology(char *path, size_t len)
{
	static const char *const flows[] = { "in_port=vm0,actions=drop" };
	FILE *f = pipeline_rig_topology(path, len, "test_encap_offload", "");

	return pipeline_rig_finish(f, "eo", 1, flows, 1);
}

/* An inner frame of len bytes (len >= 14), in one or two segments. */
static struct rte_mbuf *
inner_frame(uint32_t len, bool two_segs)
{
	uint32_t first = two_segs ? len / 2 + 1 : len;	/* odd split */
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, first) : NULL;

	if (!p)
		return m;
	for (uint32_t i = 0; i < first; i++)
		p[i] = (uint8_t)(i * 7 + 3);
	if (two_segs) {
		struct rte_mbuf *s = rte_pktmbuf_alloc(pool);
		uint8_t *q = (uint8_t *)rte_pktmbuf_append(s, len - first);
		for (uint32_t i = first; i < len; i++)
			q[i - first] = (uint8_t)(i * 7 + 3);
		rte_pktmbuf_chain(m, s);
	}
	/* what a guest's TSO request would leave: encap must clear it */
	m->ol_flags |= RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4;
	return m;
}

/* RFC 1071 over bytes [off, pkt_len) of m, read flat (not DPDK 22.11's
 * rte_raw_cksum_mbuf, which loses carries after an odd-length segment):
 * folded, not complemented. */
static uint16_t
sum_from(const struct rte_mbuf *m, uint32_t off)
{
	static uint8_t flat[4096];
	uint32_t n = m->pkt_len - off, sum = 0;
	const uint8_t *p = rte_pktmbuf_read(m, off, n, flat);

	for (uint32_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The NIC's share: the complement of the datagram's sum (the field's
 * pseudo-header sum included), 0 sent as 0xffff. */
static void
nic_finish(struct rte_mbuf *m)
{
	uint32_t off = m->l2_len + m->l3_len;
	uint16_t csum = (uint16_t)~sum_from(m, off);
	uint8_t be[2] = { csum ? csum >> 8 : 0xff, csum ? csum & 0xff : 0xff };

	rte_memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, off + 6), be, 2);
}

/* One packet of inner_len bytes through dp_tnl_push with template t:
 * returns the encapsulated mbuf (or NULL). */
static struct rte_mbuf *
push_one(const struct vxlan_tnl_template *t, uint32_t inner_len,
	 bool two_segs)
{
	struct pkt_batch b = { .n = 1 };
	struct flow_key keys[1];
	uint32_t hashes[1] = { 0x5a5a1234 };
	uint8_t idx[1] = { 0 };

	b.pkts[0] = inner_frame(inner_len, two_segs);
	flow_key_zero(&keys[0]);
	pmd->stats.packets++;
	dp_tnl_push(&pmd->dp, t, &b, keys, hashes, idx);
	return b.n == 1 ? b.pkts[0] : NULL;
}

static void
test_ipv6(void)
{
	static const struct flow_in6_addr src = {{ 0x20, 0x01, 0x0d, 0xb8,
		[15] = 0x64 }};
	static const struct flow_in6_addr dst = {{ 0x20, 0x01, 0x0d, 0xb8,
		0xff, 0xff, [14] = 0x12, [15] = 0x01 }};
	static const struct { uint32_t len; bool two; } cases[] = {
		{ 60, false }, { 1444, false }, { 1001, true },
	};
	struct rte_ether_addr smac = {{ 0x10, 0, 0, 0, 0, 1 }};
	struct rte_ether_addr dmac = {{ 0x10, 0, 0, 0, 0, 2 }};
	struct dp_snapshot *snap = (struct dp_snapshot *)pmd->dp.snap;
	const uint64_t tx_mask = RTE_MBUF_F_TX_OFFLOAD_MASK;
	struct vxlan_tnl_template t;

	vxlan_tnl_template_build6(&t, &smac, &dmac, &src, &dst, VNI, 4789, 64,
				  0);
	vxlan_tnl_template_set_max_frame(&t, nic->tx_max_frame);
	snap->underlay_tx_udp_csum = true;
	for (int hw = 1; hw >= 0; hw--) {
		if (hw)
			pmd->dp.opts |= DP_OPT_BIT(DP_OPT_TX_CSUM_OFFLOAD);
		else
			pmd->dp.opts &= ~DP_OPT_BIT(DP_OPT_TX_CSUM_OFFLOAD);
		for (size_t i = 0; i < RTE_DIM(cases); i++) {
			uint64_t n0 = pmd->stats.udp6_csum_offloaded;
			struct rte_mbuf *m = push_one(&t, cases[i].len,
						      cases[i].two);
			CHECK(m && m->pkt_len == cases[i].len + 70,
			      "%u bytes (hw %d): not encapsulated",
			      cases[i].len, hw);
			if (!m)
				continue;
			struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(
				m, struct rte_ipv6_hdr *, 14);
			struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip +
									 1);
			if (hw) {
				CHECK((m->ol_flags & tx_mask) ==
				      (RTE_MBUF_F_TX_IPV6 |
				       RTE_MBUF_F_TX_UDP_CKSUM) &&
				      m->l2_len == 14 && m->l3_len == 40 &&
				      m->l4_len == 8,
				      "%u bytes: tx flags %#lx, lengths %u/%u/"
				      "%u", cases[i].len,
				      (unsigned long)(m->ol_flags & tx_mask),
				      m->l2_len, m->l3_len, m->l4_len);
				CHECK(udp->dgram_cksum ==
				      rte_ipv6_phdr_cksum(ip, 0),
				      "%u bytes: field %04x, pseudo-header sum "
				      "%04x", cases[i].len, udp->dgram_cksum,
				      rte_ipv6_phdr_cksum(ip, 0));
				CHECK(pmd->stats.udp6_csum_offloaded == n0 + 1,
				      "%u bytes: not counted", cases[i].len);
				nic_finish(m);
			} else {
				CHECK(!(m->ol_flags & (RTE_MBUF_F_TX_L4_MASK |
						       RTE_MBUF_F_TX_IPV6)) &&
				      pmd->stats.udp6_csum_offloaded == n0,
				      "%u bytes, option off: offloaded",
				      cases[i].len);
			}
			/* the receiver's check, over the chain: datagram
			 * and pseudo-header sum to 0xffff */
			uint32_t all = sum_from(m, 54) +
				rte_be_to_cpu_16(rte_ipv6_phdr_cksum(ip, 0));
			all = (all & 0xffff) + (all >> 16);
			CHECK(udp->dgram_cksum != 0 && all == 0xffff,
			      "%u bytes (hw %d, %u segs): checksum %04x does "
			      "not verify", cases[i].len, hw, m->nb_segs,
			      udp->dgram_cksum);
			rte_pktmbuf_free(m);
		}
	}
	pmd->dp.opts |= DP_OPT_BIT(DP_OPT_TX_CSUM_OFFLOAD);
}

/* IPv4 templates are not touched by the option: UDP checksum 0, the
 * IPv4 header's in software, no TX flag added (what a packet came with
 * stays, as vxlan_encap.h says). */
static void
test_ipv4(void)
{
	struct rte_ether_addr smac = {{ 0x10, 0, 0, 0, 0, 1 }};
	struct rte_ether_addr dmac = {{ 0x10, 0, 0, 0, 0, 2 }};
	struct vxlan_tnl_template t;
	uint64_t n0 = pmd->stats.udp6_csum_offloaded;

	vxlan_tnl_template_build(&t, &smac, &dmac, RTE_BE32(0xac010064),
				 RTE_BE32(0xac010000), VNI, 4789, 64,
				 false);
	vxlan_tnl_template_set_max_frame(&t, nic->tx_max_frame);
	struct rte_mbuf *m = push_one(&t, 100, false);
	CHECK(m && m->pkt_len == 150, "IPv4: not encapsulated");
	if (!m)
		return;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	CHECK(!(m->ol_flags & (RTE_MBUF_F_TX_UDP_CKSUM | RTE_MBUF_F_TX_IPV6))
	      && p[40] == 0 && p[41] == 0 &&
	      rte_ipv4_cksum((const struct rte_ipv4_hdr *)(p + 14)) == 0 &&
	      pmd->stats.udp6_csum_offloaded == n0,
	      "IPv4: offloaded, or its checksums changed");
	rte_pktmbuf_free(m);
}

int
main(void)
{
	if (pipeline_rig_up("test_encap_offload", write_topology, &cfg, &pool,
			    &pmd, &nic, vm, 1))
		return 1;
	test_ipv6();
	test_ipv4();
	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
