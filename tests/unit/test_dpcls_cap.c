/* SPDX-License-Identifier: BSD-3-Clause
 * The dpcls chain cap in the real pipeline (pipeline_rig.h): a VM's UDP
 * packets to many destination ports, where the rules make a megaflow per
 * port, under a subtable secret the test knows (dpcls_set_secret) and
 * chose so that they all have one hash. Past DPCLS_MAX_CHAIN megaflows
 * the classifier refuses to install more; the packets of the refused ones
 * must still be forwarded (executed uncached, dp_upcall), counted in
 * megaflows_chain_refused, not dropped as upcall_fail, and the megaflows
 * lent to them must come back to the PMD's table.
 */
#include <stdio.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include "dpcls.h"
#include "unit_test.h"
#include "pipeline_rig.h"

#define N_VMS 2
#define N_PORTS 48		/* distinct tp_dst: 3 x DPCLS_MAX_CHAIN */

static struct rte_mempool *pool;
static struct port *nic, *vm_port[N_VMS];
static struct pmd *pmd;

static int
write_topology(char *path, size_t len)
{
	static const char *const flows[] = {
		/* makes every other vm0 UDP megaflow match tp_dst exactly */
		"priority=200,in_port=vm0,udp,nw_dst=192.1.0.9,tp_dst=53,"
		"actions=output:vm1",
		"priority=100,in_port=vm0,actions=output:vm1",
	};
	FILE *f = pipeline_rig_topology(path, len, "test_dpcls_cap", "");

	return pipeline_rig_finish(f, "cap", N_VMS, flows, RTE_DIM(flows));
}

/* vm0's UDP frame to 192.1.0.9:dport */
static struct rte_mbuf *
udp_frame(uint16_t dport)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, 64) : NULL;

	if (!p)
		return m;
	memset(p, 0, 64);
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)p;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(e + 1);
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(ip + 1);

	e->dst_addr = (struct rte_ether_addr){ { 0x52, 0x54, 0, 0, 0, 1 } };
	e->src_addr = (struct rte_ether_addr){ { 0x52, 0x54, 0, 0, 0, 0 } };
	e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(64 - 14);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = RTE_BE32(0xc0010005);
	ip->dst_addr = RTE_BE32(0xc0010009);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	u->src_port = RTE_BE16(40000);
	u->dst_port = rte_cpu_to_be_16(dport);
	u->dgram_len = rte_cpu_to_be_16(64 - 14 - 20);
	return m;
}

static unsigned
drain(struct port *p)
{
	struct rte_mbuf *rx[64];
	unsigned n = 0;
	uint16_t k;

	while ((k = rte_eth_rx_burst(p->eth_port_id, 0, rx, 64)) > 0) {
		rte_pktmbuf_free_bulk(rx, k);
		n += k;
	}
	return n;
}

/* N_PORTS packets, one per port, in bursts of 16; what vm1 got. */
static unsigned
send_round(void)
{
	for (unsigned b = 0; b < N_PORTS; b += 16) {
		struct pkt_batch batch = { .n = 16 };

		for (unsigned i = 0; i < 16; i++)
			batch.pkts[i] = udp_frame((uint16_t)(1000 + b + i));
		dp_process_burst(&pmd->dp, vm_port[0], &batch);
		dp_tx_flush_all(&pmd->dp);
	}
	return drain(vm_port[1]);
}

static void
count_flow(struct megaflow *f, void *aux)
{
	(void)f;
	++*(unsigned *)aux;
}

static void
test_cap_in_pipeline(void)
{
	/* A known secret, all zero but the multiplier. The megaflows match
	 * in_port (w0's low half), tp_dst (w5's high half) and recirc_id
	 * (w6's high half): each word has a zero half, so each product
	 * (lo + 0) * (hi + 0) is 0 and every megaflow has hash 0. */
	struct flow_hash_secret known = { .fin = 1 };
	uint32_t free_before = pmd->dp.n_free;

	dpcls_set_secret(pmd->dp.cls, &known);

	unsigned got = send_round();
	unsigned n_flows = 0;

	dpcls_foreach(pmd->dp.cls, count_flow, &n_flows);
	printf("  round 1: %u of %u forwarded, %u megaflows, %" PRIu64
	       " refused (chain), upcall_fail %" PRIu64 "\n", got, N_PORTS,
	       n_flows, pmd->stats.megaflows_chain_refused,
	       pmd->stats.drops[DROP_UPCALL_FAIL]);
	CHECK(got == N_PORTS, "%u of %u forwarded", got, N_PORTS);
	CHECK(n_flows == DPCLS_MAX_CHAIN, "%u megaflows installed", n_flows);
	CHECK(pmd->stats.megaflows_chain_refused == N_PORTS - DPCLS_MAX_CHAIN,
	      "refused %" PRIu64, pmd->stats.megaflows_chain_refused);
	CHECK(pmd->stats.drops[DROP_UPCALL_FAIL] == 0, "upcall_fail %" PRIu64,
	      pmd->stats.drops[DROP_UPCALL_FAIL]);
	CHECK(pmd->dp.n_transient == 0, "%u transient left",
	      pmd->dp.n_transient);
	CHECK(pmd->dp.n_free == free_before - DPCLS_MAX_CHAIN,
	      "megaflow table: %u free, want %u", pmd->dp.n_free,
	      free_before - DPCLS_MAX_CHAIN);

	/* again: the installed ones hit, the others are translated again */
	uint64_t up0 = pmd->stats.upcalls;

	got = send_round();
	CHECK(got == N_PORTS, "round 2: %u of %u forwarded", got, N_PORTS);
	CHECK(pmd->stats.upcalls - up0 == N_PORTS - DPCLS_MAX_CHAIN,
	      "round 2: %" PRIu64 " upcalls", pmd->stats.upcalls - up0);
	CHECK(pmd->stats.megaflows_chain_refused ==
	      2 * (N_PORTS - DPCLS_MAX_CHAIN), "round 2: refused %" PRIu64,
	      pmd->stats.megaflows_chain_refused);
	CHECK(pmd->dp.n_free == free_before - DPCLS_MAX_CHAIN,
	      "round 2: %u free", pmd->dp.n_free);
}

int
main(void)
{
	struct vxs_config cfg;

	if (pipeline_rig_up("test_dpcls_cap", write_topology, &cfg, &pool,
			    &pmd, &nic, vm_port, N_VMS))
		return 1;
	test_cap_in_pipeline();
	pmd_flush_flows(pmd);
	dp_tx_flush_all(&pmd->dp);
	drain(vm_port[1]);
	drain(nic);
	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
