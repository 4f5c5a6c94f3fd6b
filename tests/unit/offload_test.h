/* SPDX-License-Identifier: BSD-3-Clause
 * Rig for the offload manager's tests (test_offload_mgr.c,
 * test_offload_shared.c): the seed's megaflows for VM n, a manager on the
 * software Flow Director model, waiting for completions, and the mark the
 * model gives a crafted VXLAN packet. The test's main() creates `pool`.
 */
#ifndef VXS_TEST_OFFLOAD_TEST_H
#define VXS_TEST_OFFLOAD_TEST_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include <rte_version.h>
#include "fdir_model.h"
#include "offload_mgr.h"
#include "seed_flows.h"
#include "unit_test.h"

static struct rte_mempool *pool;


#define IP SEED_IP4
#define VTEP IP(172, 1, 0, 100)
#define NIC_PORT 1
#define VXLAN_OFPORT 100
#define VNI 1001

static void
outer_flow(struct flow_key *k, struct flow_key *m)
{
	seed_outer_flow(k, m, NIC_PORT, VTEP, 4789);
}

static void
inner_flow(struct flow_key *k, struct flow_key *m, rte_be32_t dst)
{
	seed_inner_flow(k, m, VXLAN_OFPORT, VNI, dst);
}

static int
add_vm(struct offload_mgr *m, uint16_t pmd, uint64_t id, unsigned vm,
       uint64_t pkts)
{
	struct flow_key ok, om, ik, im;

	outer_flow(&ok, &om);
	inner_flow(&ik, &im, IP(192, 1, (vm >> 8) & 0xff, vm & 0xff));
	return offload_mgr_request_add(m, pmd, id, &ok, &om, &ik, &im, pkts);
}

/* waits for exactly want completions on pmd (2 s at most) */
static unsigned
wait_compl(struct offload_mgr *m, uint16_t pmd, struct offload_completion *c,
	   unsigned want)
{
	unsigned got = 0;
	uint64_t end = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();

	while (got < want && rte_get_tsc_cycles() < end) {
		unsigned n = offload_mgr_poll_completions(m, pmd, c + got,
							  want - got);
		got += n;
		if (!n)
			usleep(200);
	}
	return got;
}

/* ---- packets ---- */

static uint32_t
put_eth(uint8_t *p)
{
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)p;

	memset(e, 0, sizeof *e);
	e->dst_addr.addr_bytes[0] = 0x02;
	e->src_addr.addr_bytes[0] = 0x04;
	e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	return sizeof *e;
}

static uint32_t
put_ipv4(uint8_t *p, rte_be32_t src, rte_be32_t dst, uint16_t payload)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;

	memset(ip, 0, sizeof *ip);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(20 + payload);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = src;
	ip->dst_addr = dst;
	return 20;
}

static struct rte_mbuf *
vxlan_pkt(rte_be32_t inner_dst)
{
	uint8_t b[256];
	uint32_t off = 0, inner = 8 + 14 + 20 + 18;

	off += put_eth(b + off);
	off += put_ipv4(b + off, IP(172, 1, 0, 1), VTEP, 8 + inner);
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(b + off);
	u->src_port = RTE_BE16(5555);
	u->dst_port = RTE_BE16(4789);
	u->dgram_len = rte_cpu_to_be_16(8 + inner);
	u->dgram_cksum = 0;
	off += 8;
	struct rte_vxlan_hdr *v = (struct rte_vxlan_hdr *)(b + off);
	v->vx_flags = RTE_BE32(0x08000000);
	v->vx_vni = rte_cpu_to_be_32(VNI << 8);
	off += 8;
	off += put_eth(b + off);
	off += put_ipv4(b + off, IP(10, 0, 0, 1), inner_dst, 18);
	memset(b + off, 0xab, 18);
	off += 18;

	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	if (m)
		memcpy(rte_pktmbuf_append(m, off), b, off);
	return m;
}

/* the mark the model gives a packet to VM vm: 0 = none */
static uint32_t
mark_of(struct fdir_model *md, unsigned vm)
{
	struct rte_mbuf *p = vxlan_pkt(IP(192, 1, 0, vm));
	uint32_t mark = 0;

	if (!p)
		return UINT32_MAX;
	fdir_model_rx_mark(md, 0, &p, 1);
	if ((p->ol_flags & (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID)) ==
	    (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID))
		mark = p->hash.fdir.hi;
	rte_pktmbuf_free(p);
	return mark;
}

static struct fdir_model *
model(uint32_t guar, uint32_t pool_size, struct fdir_model_pool **pp)
{
	struct fdir_model_limits lim = { .guar = guar, .n_rxq = 8 };

	*pp = fdir_model_pool_create(pool_size);
	lim.pool = *pp;
	struct fdir_model *md = fdir_model_create(UINT16_MAX, &lim, NULL);
	return md && !fdir_model_udp_tunnel_port_add(md, 4789) ? md : NULL;
}

/* A manager on model md; admission and resident_ms as
 * offload_mgr_params (0, 0: fifo). */
static struct offload_mgr *
mgr_admit(struct fdir_model *md, uint32_t max_marks, uint32_t rate,
	  uint32_t ring, uint16_t n_pmds, enum offload_admission admission,
	  uint32_t resident_ms)
{
	struct offload_mgr_params p = {
		.name = "test",
		.engine = OFFLOAD_ENGINE_MODEL,
		.eth_port_id = UINT16_MAX,
		.model = md,
		.target = { .group = ICE_FDIR_GROUP_DEFAULT,
			    .tunnel_port = ICE_FDIR_VXLAN_PORT },
		.max_marks = max_marks,
		.max_inserts_per_sec = rate,
		.req_ring_size = ring,
		.compl_ring_size = 64,
		.n_pmds = n_pmds,
		.admission = admission,
		.evict_hysteresis_pct = 200,
		.evict_min_resident_ms = resident_ms,
	};
	return offload_mgr_create(&p);
}

static inline struct offload_mgr *
mgr(struct fdir_model *md, uint32_t max_marks, uint32_t rate,
    uint32_t ring, uint16_t n_pmds)
{
	return mgr_admit(md, max_marks, rate, ring, n_pmds,
			 OFFLOAD_ADMIT_FIFO, 0);
}

/* main()'s start: the EAL and the rig's mbuf pool; -1 (with the closing
 * line printed) on failure. */
static inline int
offload_test_start(const char *name)
{
	if (unit_test_eal_init(name, "128"))
		return -1;
	pool = rte_pktmbuf_pool_create(name, 256, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (!pool) {
		printf("pool create failed\n0 passed, 1 failed\n");
		return -1;
	}
	return 0;
}

/* Everything the model refused, whatever the reason: 0 when the NIC was
 * never asked for a rule it did not take. */
static inline uint64_t
model_rejected(struct fdir_model *md)
{
	struct fdir_model_stats ms;
	uint64_t n = 0;

	fdir_model_get_stats(md, &ms);
	for (int r = 0; r < FDIR_REJ_N; r++)
		n += ms.rejected[r];
	return n;
}

#endif
