/* SPDX-License-Identifier: BSD-3-Clause
 * arpflood: forwarding of existing flows during an ARP flood from the
 * underlay (issue 9). The real pipeline in process (as perf/dpbench.c):
 * config_load, ports_create, pmds_create, ofproto_init, null ports. Two
 * threads, as in the switch:
 *   - the PMD, on lcore 1: the PMD loop's own steps (snapshot, targeted
 *     revalidation on a new generation, dp_process_burst, tx flush, RCU
 *     quiescent state). It takes 32-frame bursts of VM frames (the
 *     existing flows: VM -> VXLAN, encapsulated for the static neighbour
 *     172.1.0.0) and, in a flood run, a 32-frame burst of ARP requests for
 *     our VTEP from the NIC every --mix data bursts (1:8 = one ARP frame
 *     per 8 data frames), each from a new sender IP (10.0.0.0 + i, i
 *     cycling over --senders, default 1M, each with its own MAC);
 *   - the control thread, on lcore 0: what main.c's loop does (wake every
 *     --ctl-poll-ms, default 20 as control_poll(20); drain the learn
 *     events; ofproto_tick: aging and at most one snapshot publish per
 *     publish interval, whose RCU grace period waits on the PMD).
 *
 * One run, several scenarios side by side: no flood (first and last, for
 * the noise), then each mix with the ARP policer off (arp-rate 0) and on
 * (-r/-B, default the topology defaults). Each scenario starts with no
 * learned neighbours and a full bucket. Reported per scenario: data Mpps
 * over the PMD's time in both kinds of bursts (the ARP frames' own cost
 * included: what a PMD that must also take the flood gives the flows),
 * data cycles per data packet (the data bursts alone: what the flows pay
 * for the flood's control-plane work, revalidation included), the ratio
 * of data Mpps to the no-flood rate, ARP frames in / answered / policed,
 * learned neighbours, learn events lost (ring full), publishes,
 * megaflows revalidated, and whether the PMD's packet accounting balanced.
 * Filling the bursts (mbuf alloc, frame copy) is outside the measured
 * cycles, as in dpbench. -N: the flood is Neighbour Solicitations for
 * the VTEP's IPv6 address (2001:db8:1::100) instead, from 2001:db8:1::/64
 * senders with their SLL: the ND responder under the same bucket
 * ("answered" and "policed" count ARP and ND together).
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
#include "arp_frame.h"
#include "config.h"
#include "nd_frame.h"
#include "neigh.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"

#define N_VMS 4
/* RTE_IPV4 shifts an int: 172 << 24 overflows it (UBSan) */
#define IPV4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			  (uint32_t)(c) << 8 | (uint32_t)(d))
#define INNER_LEN 78

#define MAX_MIXES 8
#define MAX_REPS 15

static struct {
	uint64_t bursts;		/* data bursts per scenario */
	uint32_t senders;		/* distinct ARP sender IPs */
	uint32_t max_neighbours;
	uint32_t ctl_poll_ms;
	uint32_t mix[MAX_MIXES];	/* data bursts per ARP burst */
	unsigned n_mix;
	uint32_t arp_rate, arp_burst;	/* the policer when on */
	unsigned reps;			/* of every scenario, interleaved */
	bool nd;			/* -N: flood with NS, not ARP */
} args = { 200000, 1u << 20, 1u << 20, 20, { 8, 1 }, 2, 0, 0, 5, false };

struct run {
	uint32_t mix;			/* 0: no flood */
	bool policer;
	uint64_t data_pkts, data_cycles, arp_cycles, arp_pkts;
	struct pmd_stats s0, s1;	/* the PMD's counters around it */
	uint64_t learned, lost, publishes;
	bool balanced;
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
		   "underlay:\n  port: phy\n"
		   "  local-ip: [172.1.0.100/24, '2001:db8:1::100/64']\n"
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
		ip->src_addr = rte_cpu_to_be_32(IPV4(192, 1, 0, i));
		ip->dst_addr = rte_cpu_to_be_32(IPV4(192, 2, 0, 1));
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
	static const struct rte_ether_addr bcast = {
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };

	static const struct flow_in6_addr vtep6 = { { 0x20, 0x01, 0x0d, 0xb8,
		0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00 } };

	if (rte_pktmbuf_alloc_bulk(pktmbuf_pool, b->pkts, BATCH_MAX))
		return -1;
	for (b->n = 0; b->n < BATCH_MAX; b->n++) {
		uint32_t s = next_sender++ % args.senders;
		struct rte_ether_addr sha = { { 0x0e, 0, s >> 24, s >> 16,
						s >> 8, s } };

		if (args.nd) {	/* from 2001:db8:1::1:0 + s */
			struct flow_in6_addr src = vtep6;
			src.a[11] = 1;
			src.a[12] = (uint8_t)(s >> 24);
			src.a[13] = (uint8_t)(s >> 16);
			src.a[14] = (uint8_t)(s >> 8);
			src.a[15] = (uint8_t)s;
			nd_ns_write(rte_pktmbuf_append(b->pkts[b->n],
						       ND_FRAME_LEN),
				    &sha, &src, &vtep6);
			continue;
		}
		arp_frame_write(rte_pktmbuf_append(b->pkts[b->n],
						   ARP_FRAME_LEN),
				&bcast, RTE_ARP_OP_REQUEST, &sha,
				rte_cpu_to_be_32(IPV4(10, 0, 0, 0) + s),
				rte_cpu_to_be_32(IPV4(172, 1, 0, 100)));
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
	rte_rcu_qsbr_thread_register(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_online(pmd_qsbr, pmd->idx);
	for (uint64_t i = 0; i < args.bursts; i++) {
		if (fill_data(&b, i % N_VMS))
			break;
		uint64_t t0 = rte_rdtsc();
		pmd_step(pmd, vm[i % N_VMS], &b);
		r->data_cycles += rte_rdtsc() - t0;
		r->data_pkts += BATCH_MAX;
		if (r->mix && i % r->mix == r->mix - 1 && !fill_arp(&b)) {
			t0 = rte_rdtsc();
			pmd_step(pmd, nic, &b);
			r->arp_cycles += rte_rdtsc() - t0;
			r->arp_pkts += BATCH_MAX;
		}
	}
	rte_rcu_qsbr_thread_offline(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_unregister(pmd_qsbr, pmd->idx);
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return 0;
}

static void
run(struct run *r, const struct vxs_config *cfg)
{
	struct pmd *pmd = &pmds[0];
	const struct neigh_stats *ns = neigh_get_stats();
	const struct ofproto_publish_stats *ps = ofproto_get_publish_stats();
	struct pmd_accounting acc;

	/* the same start for each: no learned entries, a full bucket */
	ctl_events_process();
	neigh_flush();
	pmd->dp.snap = dp_snapshot_get();
	pmd->dp.seen_gen = pmd->dp.snap->gen;
	arp_policer_init(&pmd->dp.arp_policer, r->policer ? args.arp_rate : 0,
			 args.arp_burst ? args.arp_burst : cfg->arp_burst,
			 rte_get_tsc_hz(), rte_rdtsc());
	next_sender = 0;
	r->s0 = pmd->stats;
	uint64_t learned = ns->learned, lost = pmd->stats.ctl_events_lost,
		 publishes = ps->publishes;

	rte_eal_remote_launch(pmd_thread, r, pmd->lcore);
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		usleep(args.ctl_poll_ms * 1000);
		ctl_events_process();
		ofproto_tick();
	}
	rte_eal_wait_lcore(pmd->lcore);
	ctl_events_process();
	r->s1 = pmd->stats;
	r->learned = ns->learned - learned;
	r->lost = pmd->stats.ctl_events_lost - lost;
	r->publishes = ps->publishes - publishes;
	pmd_accounting_read(pmd, &acc);
	r->balanced = pmd_accounting_balanced(&acc);
}

static double
data_mpps(const struct run *r, double hz)
{
	return r->data_pkts / ((r->data_cycles + r->arp_cycles) / hz) / 1e6;
}

#define D(field) (r->s1.field - r->s0.field)

/* One scenario's row: the repetition with the median data Mpps (its
 * counters too), and the range over all of them. */
static void
print_scenario(struct run *reps, unsigned n, double hz, double base_mpps)
{
	struct run *by_mpps[MAX_REPS];
	char mix[16], range[32];

	for (unsigned i = 0; i < n; i++) {
		unsigned j = i;
		for (; j && data_mpps(by_mpps[j - 1], hz) >
			    data_mpps(&reps[i], hz); j--)
			by_mpps[j] = by_mpps[j - 1];
		by_mpps[j] = &reps[i];
	}
	const struct run *r = by_mpps[n / 2];
	if (r->mix)
		snprintf(mix, sizeof mix, "1:%u", r->mix);
	else
		snprintf(mix, sizeof mix, "none");
	snprintf(range, sizeof range, "[%.2f-%.2f]", data_mpps(by_mpps[0], hz),
		 data_mpps(by_mpps[n - 1], hz));
	printf("%-5s %-4s %7.2f %13s %6.3f %7.1f %7.1f %8lu %8lu %8lu %7lu "
	       "%8lu %4lu %5lu %-3s\n", mix,
	       r->mix ? (r->policer ? "on" : "off") : "-", data_mpps(r, hz),
	       range, data_mpps(r, hz) / base_mpps,
	       (double)r->data_cycles / r->data_pkts,
	       r->arp_pkts ? (double)r->arp_cycles / r->arp_pkts : 0.0,
	       r->arp_pkts, D(arp_replies) + D(nd_replies),
	       D(drops[DROP_ARP_POLICED]) + D(drops[DROP_ND_POLICED]),
	       r->learned, r->lost, r->publishes, D(megaflows_revalidated),
	       r->balanced ? "yes" : "NO");
}

int
main(int argc, char **argv)
{
	struct vxs_config cfg;
	char err[CFG_ERR_MAX], path[64];
	int c, rc = 1;

	while ((c = getopt(argc, argv, "b:s:n:p:m:r:B:R:Nh")) != -1) {
		switch (c) {
		case 'b': args.bursts = strtoull(optarg, NULL, 0); break;
		case 's': args.senders = strtoul(optarg, NULL, 0); break;
		case 'n': args.max_neighbours = strtoul(optarg, NULL, 0); break;
		case 'p': args.ctl_poll_ms = strtoul(optarg, NULL, 0); break;
		case 'm':
			args.n_mix = 0;
			for (char *t = strtok(optarg, ","); t &&
			     args.n_mix < MAX_MIXES; t = strtok(NULL, ","))
				args.mix[args.n_mix++] = strtoul(t, NULL, 0);
			break;
		case 'r': args.arp_rate = strtoul(optarg, NULL, 0); break;
		case 'B': args.arp_burst = strtoul(optarg, NULL, 0); break;
		case 'R': args.reps = strtoul(optarg, NULL, 0); break;
		case 'N': args.nd = true; break;
		default:
			printf("usage: arpflood [-b DATA_BURSTS] [-s SENDERS] "
			       "[-n MAX_NEIGHBOURS] [-p CTL_POLL_MS] "
			       "[-m MIX,...] [-r ARP_RATE] [-B ARP_BURST] [-R REPS] "
			       "[-N]\n"
			       "  -m: data bursts per ARP burst, e.g. 8,1 "
			       "(1:8 and 1:1, the default); -R: repetitions of each "
			       "scenario, interleaved (default 5, at most 15): "
			       "the median is shown; -N: Neighbour Solicitations "
			       "for our IPv6 address instead of ARP\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!args.senders || !args.bursts || !args.n_mix || !args.reps ||
	    args.reps > MAX_REPS)
		return 2;
	for (unsigned i = 0; i < args.n_mix; i++)
		if (!args.mix[i])
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
	    pmds_init(err, sizeof err) ||
	    pmds_create(&cfg, cfg.dp_opts, err, sizeof err) ||
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

	if (!args.arp_rate)
		args.arp_rate = cfg.arp_rate;
	if (!args.arp_burst)
		args.arp_burst = cfg.arp_burst;

	static struct run runs[1 + 2 * MAX_MIXES][MAX_REPS];
	unsigned n = 1;
	for (unsigned i = 0; i < args.n_mix; i++) {
		runs[n++][0] = (struct run){ .mix = args.mix[i] };
		runs[n++][0] = (struct run){ .mix = args.mix[i],
					     .policer = true };
	}
	for (unsigned k = 0; k < args.reps; k++)
		for (unsigned i = 0; i < n; i++) {
			runs[i][k] = (struct run){ .mix = runs[i][0].mix,
					.policer = runs[i][0].policer };
			run(&runs[i][k], &cfg);
		}

	double hz = rte_get_tsc_hz(), base, m[MAX_REPS];
	for (unsigned k = 0; k < args.reps; k++) {
		unsigned j = k;
		for (; j && m[j - 1] > data_mpps(&runs[0][k], hz); j--)
			m[j] = m[j - 1];
		m[j] = data_mpps(&runs[0][k], hz);
	}
	base = m[args.reps / 2];
	printf("arpflood: %d VMs x 32-frame bursts of existing flows (VM -> "
	       "VXLAN), %lu per scenario; flood: 32-frame ARP bursts for our "
	       "VTEP from the NIC, %u distinct senders (1:N = one ARP frame "
	       "per N data frames); policer on: arp-rate %u/s, arp-burst %u; "
	       "max-neighbours %u; control thread wakes every %u ms; %u "
	       "interleaved repetitions, median shown; TSC %.2f GHz\n",
	       N_VMS, args.bursts, args.senders, args.arp_rate, args.arp_burst,
	       neigh_limit(), args.ctl_poll_ms, args.reps, hz / 1e9);
	printf("%-5s %-4s %7s %13s %6s %7s %7s %8s %8s %8s %7s %8s %4s %5s "
	       "%-3s\n", "flood", "pol", "Mpps", "[min-max]", "ratio",
	       "cyc/pkt", "cyc/arp", "arp in", "answered", "policed",
	       "learned", "ev lost", "publ", "mfrev", "bal");
	for (unsigned i = 0; i < n; i++)
		print_scenario(runs[i], args.reps, hz, base);
	printf("Mpps: data packets over the PMD's cycles in data and ARP "
	       "bursts; ratio: to the no-flood median (%.3f Mpps); cyc/pkt: "
	       "data bursts only, per data packet; cyc/arp: ARP bursts, per "
	       "ARP frame; ev lost: learn events lost (ring full); publ: "
	       "snapshot publishes; mfrev: megaflows revalidated; bal: "
	       "received + copies = sent + consumed + dropped + in flight in "
	       "every repetition\n", base);
	rc = 0;
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < args.reps; k++)
			rc |= !runs[i][k].balanced;
out:
	ofproto_fini();
	pmds_fini();
	ports_destroy();
	rte_mempool_free(pktmbuf_pool);
	rte_eal_cleanup();
	config_free(&cfg);
	return rc;
}
