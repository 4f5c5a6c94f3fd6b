/* SPDX-License-Identifier: BSD-3-Clause
 * arpflood: forwarding of existing flows during an ARP flood from the
 * underlay (issue 9). The real pipeline in process (as perf/dpbench.c):
 * config_load, ports_create, pmds_create, ofproto_init, null ports. Two
 * threads, as in the switch:
 *   - the PMD, on lcore 1: the PMD loop's own steps (snapshot, targeted
 *     revalidation on a new generation, dp_process_burst, tx flush, RCU
 *     quiescent state). It alternates a burst of 32 VM frames (the
 *     existing flows: VM -> VXLAN, encapsulated for the static neighbour
 *     172.1.0.0) with, in the flood run, a burst of 32 ARP requests for
 *     our VTEP from the NIC, each from a new sender IP (10.0.0.0 + i, i
 *     cycling over --senders, default 1M, each with its own MAC);
 *   - the control thread, on lcore 0: what main.c's loop does (wake every
 *     --ctl-poll-ms, default 20 as control_poll(20); drain the learn
 *     events; ofproto_tick: aging and at most one snapshot publish per
 *     publish interval, whose RCU grace period waits on the PMD).
 *
 * Reported, for the runs without and with the flood: data cycles per data
 * packet (TSC around the data bursts' PMD steps only, revalidation
 * included: the price the existing flows pay for the flood's control-plane
 * work), data Mpps over the PMD's time in both kinds of bursts (the ARP
 * bursts' own cost included: with a 1:1 mix of bursts, that is what a PMD
 * that must also take the flood gives), and the flood's learned / refused
 * / lost counts. Filling the bursts (mbuf alloc, frame copy) is outside
 * the measured cycles, as in dpbench.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_udp.h>
#include "config.h"
#include "neigh.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"
#include "vxswitch.h"

#define N_VMS 4
#define INNER_LEN 78

static struct {
	uint64_t bursts;		/* data bursts per run */
	uint32_t senders;		/* distinct ARP sender IPs */
	uint32_t max_neighbours;
	uint32_t ctl_poll_ms;
} args = { 2000000, 1u << 20, 1u << 20, 20 };

struct run {
	bool flood;
	uint64_t data_pkts, data_cycles, arp_cycles, arp_pkts;
	uint64_t reval, reval_neigh, mf_revalidated;
	volatile bool done;
};

static struct port *nic, *vm[N_VMS];
static uint8_t vm_frame[N_VMS][INNER_LEN];
static uint32_t next_sender;

static int
write_topology(char *path, size_t len)
{
	snprintf(path, len, "/tmp/arpflood-XXXXXX.yaml");
	int fd = mkstemps(path, 5);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f)
		return -1;
	fprintf(f, "eal: {lcores: '0-1', main-lcore: 0}\n"
		   "datapath:\n  pmd-cores: [1]\n  max-neighbours: %u\n"
		   "underlay:\n  port: phy\n  local-ip: 172.1.0.100/24\n"
		   "  mac: '10:00:00:00:00:01'\n"
		   "  arp: [{ip: 172.1.0.0, mac: '10:00:00:00:00:02'}]\n"
		   "ports:\n", args.max_neighbours);
	for (int i = 0; i < N_VMS; i++)
		fprintf(f, "  - {name: vm%d, type: 'null'}\n", i);
	fprintf(f, "  - {name: vxlan, type: vxlan, options: {remote_ip: flow,"
		   " key: flow}}\n  - {name: phy, type: 'null'}\nflows:\n");
	for (int i = 0; i < N_VMS; i++)
		fprintf(f, "  - in_port=vm%d,actions=set_tunnel:%d,"
			   "set_field:172.1.0.0->tun_dst,output:vxlan\n",
			i, 1000 + i);
	return fclose(f);
}

static void
build_vm_frames(void)
{
	for (int i = 0; i < N_VMS; i++) {
		uint8_t *p = vm_frame[i];
		struct rte_ether_hdr *e = (struct rte_ether_hdr *)p;
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(e + 1);
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)(ip + 1);

		memset(p, 0, INNER_LEN);
		e->dst_addr = (struct rte_ether_addr){ { 0xa0, 0, 0, 0, 0, 2 } };
		e->src_addr = (struct rte_ether_addr){ { 0x52, 0x54, 0, 0, 0,
							 (uint8_t)i } };
		e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(INNER_LEN - 14);
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_UDP;
		ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(192, 1, 0, i));
		ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(192, 2, 0, 1));
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		u->src_port = RTE_BE16(5001);
		u->dst_port = RTE_BE16(40000);
		u->dgram_len = rte_cpu_to_be_16(INNER_LEN - 34);
	}
}

static int
fill_data(struct pkt_batch *b, int i)
{
	if (rte_pktmbuf_alloc_bulk(pktmbuf_pool, b->pkts, BATCH_MAX))
		return -1;
	for (b->n = 0; b->n < BATCH_MAX; b->n++)
		rte_memcpy(rte_pktmbuf_append(b->pkts[b->n], INNER_LEN),
			   vm_frame[i], INNER_LEN);
	return 0;
}

static int
fill_arp(struct pkt_batch *b)
{
	if (rte_pktmbuf_alloc_bulk(pktmbuf_pool, b->pkts, BATCH_MAX))
		return -1;
	for (b->n = 0; b->n < BATCH_MAX; b->n++) {
		uint32_t s = next_sender++ % args.senders;
		struct rte_ether_hdr *e = (struct rte_ether_hdr *)
			rte_pktmbuf_append(b->pkts[b->n], sizeof *e +
					   sizeof(struct rte_arp_hdr));
		struct rte_arp_hdr *a = (struct rte_arp_hdr *)(e + 1);
		struct rte_ether_addr sha = { { 0x0e, 0, s >> 24, s >> 16,
						s >> 8, s } };

		memset(&e->dst_addr, 0xff, sizeof e->dst_addr);
		e->src_addr = sha;
		e->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
		a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
		a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		a->arp_hlen = RTE_ETHER_ADDR_LEN;
		a->arp_plen = 4;
		a->arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST);
		a->arp_data.arp_sha = sha;
		a->arp_data.arp_sip = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 0) + s);
		memset(&a->arp_data.arp_tha, 0, RTE_ETHER_ADDR_LEN);
		a->arp_data.arp_tip = rte_cpu_to_be_32(RTE_IPV4(172, 1, 0, 100));
	}
	return 0;
}

/* The PMD loop's steps (pmd.c pmd_main) around one burst. */
static void
pmd_step(struct pmd *pmd, struct port *in, struct pkt_batch *b)
{
	pmd->dp.snap = dp_snapshot_get();
	if (pmd->dp.snap->gen != pmd->dp.seen_gen) {
		dp_revalidate(&pmd->dp);
		pmd->dp.seen_gen = pmd->dp.snap->gen;
	}
	dp_process_burst(&pmd->dp, in, b);
	dp_tx_flush_all(&pmd->dp);
	pmd->dp.snap = NULL;
	rte_rcu_qsbr_quiescent(pmd_qsbr, pmd->idx);
}

static int
pmd_thread(void *arg)
{
	struct run *r = arg;
	struct pmd *pmd = &pmds[0];
	struct pkt_batch b;
	struct pmd_stats s0 = pmd->stats;

	rte_rcu_qsbr_thread_register(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_online(pmd_qsbr, pmd->idx);
	for (uint64_t i = 0; i < args.bursts; i++) {
		if (fill_data(&b, i % N_VMS))
			break;
		uint64_t t0 = rte_rdtsc();
		pmd_step(pmd, vm[i % N_VMS], &b);
		r->data_cycles += rte_rdtsc() - t0;
		r->data_pkts += BATCH_MAX;
		if (r->flood && !fill_arp(&b)) {
			t0 = rte_rdtsc();
			pmd_step(pmd, nic, &b);
			r->arp_cycles += rte_rdtsc() - t0;
			r->arp_pkts += BATCH_MAX;
		}
	}
	r->reval = pmd->stats.revalidations - s0.revalidations;
	r->reval_neigh = pmd->stats.revalidations_neigh -
			 s0.revalidations_neigh;
	r->mf_revalidated = pmd->stats.megaflows_revalidated -
			    s0.megaflows_revalidated;
	rte_rcu_qsbr_thread_offline(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_unregister(pmd_qsbr, pmd->idx);
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return 0;
}

static void
run(struct run *r)
{
	rte_eal_remote_launch(pmd_thread, r, pmds[0].lcore);
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		usleep(args.ctl_poll_ms * 1000);
		ctl_events_process();
		ofproto_tick();
	}
	rte_eal_wait_lcore(pmds[0].lcore);
}

static void
print_run(const char *name, const struct run *r, double hz)
{
	printf("%-9s %12.1f %12.3f %10lu %10lu %10lu\n", name,
	       (double)r->data_cycles / r->data_pkts,
	       r->data_pkts / ((r->data_cycles + r->arp_cycles) / hz) / 1e6, r->arp_pkts,
	       r->reval, r->mf_revalidated);
}

int
main(int argc, char **argv)
{
	struct vxs_config cfg;
	char err[CFG_ERR_MAX], path[64];
	int c, rc = 1;

	while ((c = getopt(argc, argv, "b:s:n:p:h")) != -1) {
		switch (c) {
		case 'b': args.bursts = strtoull(optarg, NULL, 0); break;
		case 's': args.senders = strtoul(optarg, NULL, 0); break;
		case 'n': args.max_neighbours = strtoul(optarg, NULL, 0); break;
		case 'p': args.ctl_poll_ms = strtoul(optarg, NULL, 0); break;
		default:
			printf("usage: arpflood [-b DATA_BURSTS] [-s SENDERS] "
			       "[-n MAX_NEIGHBOURS] [-p CTL_POLL_MS]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!args.senders || !args.bursts)
		return 2;
	build_vm_frames();
	if (write_topology(path, sizeof path))
		return 1;
	rc = config_load(path, &cfg, err, sizeof err);
	unlink(path);
	if (rc) {
		fprintf(stderr, "arpflood: %s\n", err);
		return 1;
	}
	rc = 1;
	char *eal_argv[] = { "arpflood", "-l", "0-1", "--no-pci", "--no-huge",
			     "-m", "1024", "--no-shconf", "--no-telemetry",
			     "--log-level", "lib.*:error", NULL };
	if (rte_eal_init(RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "arpflood: EAL init failed\n");
		return 1;
	}
	pktmbuf_pool = rte_pktmbuf_pool_create("arpflood", 8191, 256, 0,
					       RTE_MBUF_DEFAULT_BUF_SIZE,
					       rte_socket_id());
	if (!pktmbuf_pool || ports_create(&cfg, pktmbuf_pool, 1, err,
					  sizeof err) ||
	    pmds_create(&cfg, err, sizeof err) ||
	    ofproto_init(&cfg, pmd_qsbr, err, sizeof err) ||
	    ports_start(err, sizeof err)) {
		fprintf(stderr, "arpflood: %s\n", pktmbuf_pool ? err :
			"no mbuf pool");
		goto out;
	}
	nic = port_underlay();
	for (int i = 0; i < N_VMS; i++) {
		char name[16];
		snprintf(name, sizeof name, "vm%d", i);
		vm[i] = port_by_name(name);
	}
	pmds[0].dp.snap = dp_snapshot_get();
	pmds[0].dp.seen_gen = pmds[0].dp.snap->gen;

	struct run base = { .flood = false }, flood = { .flood = true };
	run(&base);
	run(&flood);
	ctl_events_process();

	double hz = rte_get_tsc_hz();
	uint64_t lost = pmds[0].stats.ctl_events_lost;
	const struct neigh_stats *ns = neigh_get_stats();
	const struct ofproto_publish_stats *ps = ofproto_get_publish_stats();
	printf("arpflood: %d VMs x 32-frame bursts of existing flows (VM -> "
	       "VXLAN); flood: a 32-frame ARP burst from the NIC after each, "
	       "%u distinct senders; control thread wakes every %u ms; "
	       "TSC %.2f GHz\n", N_VMS, args.senders, args.ctl_poll_ms,
	       hz / 1e9);
	printf("%-9s %12s %12s %10s %10s %10s\n", "run", "data cyc/pkt",
	       "data Mpps", "arp frames", "revals", "mf reval'd");
	print_run("no flood", &base, hz);
	print_run("flood", &flood, hz);
	printf("ratio flood/no flood: data cycles per packet %.3f; data Mpps "
	       "%.3f (ARP bursts' own cost included)\n",
	       ((double)flood.data_cycles / flood.data_pkts) /
	       ((double)base.data_cycles / base.data_pkts),
	       (flood.data_pkts / (double)(flood.data_cycles +
					   flood.arp_cycles)) /
	       (base.data_pkts / (double)base.data_cycles));
	printf("flood: %lu learned, %lu refused (table full, limit %u), %lu "
	       "events lost (ring full); %lu publishes (%lu for neighbours), "
	       "%lu of them revalidating only changed next hops in the PMD\n",
	       ns->learned, ns->learn_refused, neigh_limit(), lost,
	       ps->publishes, ps->neigh_only, flood.reval_neigh);
	rc = 0;
out:
	ofproto_fini();
	pmds_destroy();
	ports_destroy();
	rte_mempool_free(pktmbuf_pool);
	rte_eal_cleanup();
	config_free(&cfg);
	return rc;
}
