/* SPDX-License-Identifier: BSD-3-Clause
 * dpbench: the in-process datapath benchmark. No I/O and no threads: it
 * builds the real pipeline (config_load, ports_create, pmds_create,
 * ofproto_init) for the seed's 32-VM VXLAN topology, with the NIC and the
 * VMs as "null" ports (port.h: tx frees), and drives bursts of 32
 * synthetic packets straight into dp_process_burst() on a PMD that is
 * created but never launched.
 *
 * Traffic (built in dpbench_traffic.c) is scripts/gen-traffic.py's: flow f
 * goes to VM f % 32; within a VM, flow j = f / 32 is the remote end
 * 192.2.0.0 + j / 1024, UDP port 40000 + j % 1024, VM side 192.1.0.i port
 * 5001; packet k belongs to flow k % M (--run R: R consecutive packets per
 * flow).
 *   decap: 128-byte VXLAN frames from the remote VTEP (172.1.0.0 ->
 *          172.1.0.100, VNI 1001, outer UDP source port hashed from the
 *          inner 5-tuple), received on the NIC;
 *   encap: the 78-byte inner frames VM i sends, received on vhost-user i
 *          (one VM per burst, VMs in turn).
 *
 * Each burst is refilled (mbuf alloc + copy of a per-VM template, per-flow
 * fields patched from a precomputed array) outside the measured cycles;
 * dp_process_burst() and the end-of-iteration dp_tx_flush_due() are
 * measured, as the PMD loop calls them (output buffered across bursts up
 * to tx-flush-interval-us, as the topology says). Per-stage cycles are the PMD's own
 * counters (dp_stats.h, PMD_STAGES); "other" is the measured total minus them.
 *
 * Under valgrind --tool=callgrind (perf/callgrind.sh) the measured region
 * is bracketed with CALLGRIND_TOGGLE_COLLECT and each configuration ends
 * with a dump named after it, so instructions per packet can be read off.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include "config.h"
#include "ct_ctl.h"
#include "dp_offload.h"
#include "fdir_model.h"
#include "offload_mgr.h"
#include "dp_opts.h"
#include "dp_snapshot.h"
#include "dpbench.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"

#ifdef HAVE_CALLGRIND_H
#include <valgrind/callgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif

/* the paths as printed; --ipv6 (the inner frames' family) names them
 * decap6, encap6 */
static const char *const dir_names4[2] = { "decap", "encap" };
static const char *const dir_names6[2] = { "decap6", "encap6" };
static const char *const dir_names_u6[2][2] = {	/* [inner IPv6] */
	{ "u6decap", "u6encap" }, { "u6decap6", "u6encap6" } };
static const char *const *dir_names = dir_names4;

/* The switchable optimisations that are on the packet path. */
static const enum dp_opt bench_opts[] = {
	DP_OPT_HASH_REUSE, DP_OPT_SPECIALISED_DPCLS, DP_OPT_FAST_EXTRACT,
	DP_OPT_BATCHED_TUNNEL, DP_OPT_DECAP_TRUST_OUTER,
	DP_OPT_HASH_REUSE_ADAPTIVE, DP_OPT_EMC_BYPASS, DP_OPT_CLS_PORT_HINT,
};
#define N_BENCH_OPTS (sizeof bench_opts / sizeof bench_opts[0])

struct opt_config {
	char name[48];
	uint32_t opts;
};

struct result {
	enum dir dir;
	const char *config;
	bool tx_lock;			/* --tx-lock: every tx route locked */
	enum sg_mode sg;		/* --sg: the rule set */
	uint32_t flows;
	uint64_t packets;
	uint64_t total_cycles;
	uint64_t stage[PMD_N_STAGES];
	uint64_t emc_hits, megaflow_hits, upcalls, tx_batches, tx_packets;
};

static struct {
	uint32_t flow_counts[16];
	int n_flow_counts;
	uint64_t bursts;
	uint32_t run;			/* consecutive packets per flow */
	const char *opts_mode;		/* on, off, each */
	const char *csv;
	const char *dirs;		/* decap, encap, both */
	bool rx_csum_good;
	bool nic_marked;		/* decap frames marked as an E810 would */
	bool rewrite;			/* decap rules rewrite the inner MAC */
	uint32_t emc_prob;
	const char *eal_mem;
	bool tx_lock;			/* each row without and with the tx lock */
	bool sg;			/* each row without sg, with, sg-deny */
	const char *zipf;		/* --zipf: the s values */
	bool ipv6;			/* --ipv6: IPv6 inner frames */
	bool underlay6;			/* --underlay6: IPv6 outer headers */
	bool flows_set;
	uint32_t churn;			/* --churn: bursts per rule rewrite */
	bool churn_all;			/* ... revalidating every megaflow */
} args = {
	.flow_counts = { 32, 1024, 65536, 1048576 },
	.n_flow_counts = 4,
	.bursts = 50000,
	.run = 1,
	.opts_mode = "each",
	.dirs = "both",
	.emc_prob = 100,
	.eal_mem = "1024",
};

static struct traffic_src src;	/* the ports and the traffic options */
static struct fdir_model *marker;	/* --nic-marked: the "NIC" */
static struct fdir_model_pool *marker_pool;
static struct offload_mgr *offloader;

/* ---- options ----------------------------------------------------------- */

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: dpbench [OPTION]...\n"
"In-process benchmark of the vxswitch datapath (seed 002's 32-VM VXLAN\n"
"topology, null ports): cycles per packet per stage.\n"
"\n"
"  --flows LIST    microflow counts (default 32,1k,64k,1M; k=1024, M=2^20)\n"
"  --bursts N      measured bursts of 32 per configuration (default 50000)\n"
"  --opts MODE     on (all on), off (all off), each (all on, all off,\n"
"                  and each one off in turn; default)\n"
"  --dir D         decap, encap or both (default both)\n"
"  --run R         consecutive packets per flow (default 1)\n"
"  --emc-prob P    emc-insert-inv-prob (default 100, as OVS; 0 = EMC off)\n"
"  --rx-csum-good  mark outer IPv4 checksums verified, as a NIC does\n"
"  --nic-marked    partial offload: the software Flow Director model marks\n"
"                  the decap frames (outside the measured cycles, as a NIC\n"
"                  does in hardware); marked ones take the mark path\n"
"  --rewrite       decap rules also rewrite the inner dl_dst (one\n"
"                  mod_dl_dst before the output, the common case)\n"
"  --csv FILE      also write the results as CSV\n"
"  --quick         32 and 1k flows, 2000 bursts\n"
"  --mem MB        EAL -m (default 1024)\n"
"  --tx-lock       every row twice, the tx lock off and forced on (every\n"
"                  port, uncontended), side by side; then the lock with 2\n"
"                  senders on one queue (lcores 0 and 1)\n"
"  --sg            every row three times: no sg(), sg() on every VM's rules\n"
"                  (allow egress, deny ingress; sessions established first,\n"
"                  so every measured packet is +est) and sg(deny) on new\n"
"                  packets (all dropped); then the three side by side\n"
"  --ipv6          IPv6 inner frames (paths decap6, encap6): eth/ipv6/udp,\n"
"                  VM i fd00:1::i, rules on ipv6_dst (with --sg: no sg-nat)\n"
"  --underlay6     an IPv6 underlay (paths u6decap, u6encap): VTEP\n"
"                  fd00:172::100, the remote fd00:172::, outer UDP checksums\n"
"                  sent and verified\n"
"  --churn N[,all] rewrite a rule of table 200 (which no packet looks up)\n"
"                  every N bursts: a publish, then the PMD's revalidation\n"
"                  (measured); ,all revalidates every megaflow each time\n"
"  --zipf S,...    offload admission: --flows N (default 250k) microflows,\n"
"                  one inner megaflow each, Zipf(S) packets, 16K NIC rules;\n"
"                  fifo vs weight side by side, then the hot set shifts\n"
"                  (perf/dpbench_zipf.c; use --mem 2048)\n"
"  -h, --help\n");
}

static int
parse_flows(const char *s)
{
	char *end;
	args.n_flow_counts = 0;
	while (*s) {
		unsigned long v = strtoul(s, &end, 10);
		if (end == s || args.n_flow_counts == 16)
			return -1;
		if (*end == 'k' || *end == 'K')
			v <<= 10, end++;
		else if (*end == 'm' || *end == 'M')
			v <<= 20, end++;
		if (!v || v > (1u << 24))
			return -1;
		args.flow_counts[args.n_flow_counts++] = v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return args.n_flow_counts ? 0 : -1;
}

static int
parse_args(int argc, char **argv)
{
	enum { O_FLOWS = 256, O_BURSTS, O_OPTS, O_CSV, O_QUICK, O_DIR, O_RUN,
	       O_CSUM, O_EMC, O_MEM, O_MARKED, O_REWRITE, O_TXLOCK,
	       O_SG, O_ZIPF, O_IPV6, O_U6, O_CHURN };
	static const struct option longopts[] = {
		{ "flows", required_argument, NULL, O_FLOWS },
		{ "bursts", required_argument, NULL, O_BURSTS },
		{ "opts", required_argument, NULL, O_OPTS },
		{ "csv", required_argument, NULL, O_CSV },
		{ "quick", no_argument, NULL, O_QUICK },
		{ "dir", required_argument, NULL, O_DIR },
		{ "run", required_argument, NULL, O_RUN },
		{ "rx-csum-good", no_argument, NULL, O_CSUM },
		{ "nic-marked", no_argument, NULL, O_MARKED },
		{ "rewrite", no_argument, NULL, O_REWRITE },
		{ "emc-prob", required_argument, NULL, O_EMC },
		{ "mem", required_argument, NULL, O_MEM },
		{ "tx-lock", no_argument, NULL, O_TXLOCK },
		{ "sg", no_argument, NULL, O_SG },
		{ "zipf", required_argument, NULL, O_ZIPF },
		{ "ipv6", no_argument, NULL, O_IPV6 },
		{ "underlay6", no_argument, NULL, O_U6 },
		{ "churn", required_argument, NULL, O_CHURN },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_FLOWS:
			if (parse_flows(optarg)) {
				fprintf(stderr, "dpbench: bad --flows '%s'\n",
					optarg);
				return -1;
			}
			args.flows_set = true;
			break;
		case O_BURSTS: args.bursts = strtoull(optarg, NULL, 10); break;
		case O_OPTS: args.opts_mode = optarg; break;
		case O_CSV: args.csv = optarg; break;
		case O_QUICK:
			args.flow_counts[0] = 32;
			args.flow_counts[1] = 1024;
			args.n_flow_counts = 2;
			args.bursts = 2000;
			break;
		case O_DIR: args.dirs = optarg; break;
		case O_RUN: args.run = atoi(optarg); break;
		case O_CSUM: args.rx_csum_good = true; break;
		case O_MARKED: args.nic_marked = true; break;
		case O_REWRITE: args.rewrite = true; break;
		case O_EMC: args.emc_prob = strtoul(optarg, NULL, 10); break;
		case O_MEM: args.eal_mem = optarg; break;
		case O_TXLOCK: args.tx_lock = true; break;
		case O_SG: args.sg = true; break;
		case O_ZIPF: args.zipf = optarg; break;
		case O_IPV6: args.ipv6 = true; break;
		case O_U6: args.underlay6 = true; break;
		case O_CHURN:
			args.churn = (uint32_t)strtoul(optarg, NULL, 10);
			args.churn_all = strstr(optarg, ",all") != NULL;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (strcmp(args.opts_mode, "on") && strcmp(args.opts_mode, "off") &&
	    strcmp(args.opts_mode, "each")) {
		fprintf(stderr, "dpbench: --opts on|off|each\n");
		return -1;
	}
	if (strcmp(args.dirs, "decap") && strcmp(args.dirs, "encap") &&
	    strcmp(args.dirs, "both")) {
		fprintf(stderr, "dpbench: --dir decap|encap|both\n");
		return -1;
	}
	if (args.ipv6 && (args.zipf || args.nic_marked)) {
		fprintf(stderr, "dpbench: --ipv6 not with --zipf or "
			"--nic-marked (IPv4 rule sets)\n");
		return -1;
	}
	if (args.underlay6 && (args.zipf || args.nic_marked || args.sg ||
			       args.rx_csum_good)) {
		fprintf(stderr, "dpbench: --underlay6 not with --zipf, "
			"--nic-marked, --sg or --rx-csum-good\n");
		return -1;
	}
	if (args.sg && (args.tx_lock || args.nic_marked)) {
		fprintf(stderr, "dpbench: --sg goes alone (not with --tx-lock "
			"or --nic-marked)\n");
		return -1;
	}
	if (!args.bursts || args.run < 1) {
		fprintf(stderr, "dpbench: --bursts and --run must be > 0\n");
		return -1;
	}
	return 0;
}

/* ---- one configuration ------------------------------------------------- */

static void
set_opts(struct pmd *pmd, uint32_t opts)
{
	pmd_call(pmd, pmd_set_opts, (void *)(uintptr_t)opts);
	pmd_flush_flows(pmd);
}

static int
run_one(struct pmd *pmd, enum dir dir, uint32_t flows,
	const struct opt_config *oc, enum sg_mode sg, struct result *r)
{
	struct traffic t = { .src = &src, .dir = dir, .flows = flows };
	struct pkt_batch b;
	struct port *in;
	/* Warm up: every flow seen twice (megaflows installed), and enough
	 * packets per flow for the EMC's 1-in-100 inserts to fill it as far
	 * as it fills; capped for 1M. */
	uint64_t warm = RTE_MIN((uint64_t)flows * args.run * 2 / BATCH_MAX,
				(uint64_t)65536) + 1024;
	uint64_t total = 0;

	if (RUNNING_ON_VALGRIND)
		warm = RTE_MIN(warm, (uint64_t)2048);
	set_opts(pmd, oc->opts);
	for (uint64_t n = 0; n < warm; n++) {
		if (traffic_refill(&t, &b, &in))
			return -1;
		dp_process_burst(&pmd->dp, in, &b);
		dp_tx_flush_all(&pmd->dp);
		if (pmd->dp.offload)
			dp_offload_poll(&pmd->dp);
	}
	if (pmd->dp.offload) {	/* let every rule land before measuring */
		for (int w = 0; w < 200; w++) {
			rte_delay_us_sleep(1000);
			dp_offload_poll(&pmd->dp);
		}
	}
	pmd_clear_stats(pmd);
	for (uint64_t n = 0; n < args.bursts; n++) {
		if (traffic_refill(&t, &b, &in))
			return -1;
		CALLGRIND_TOGGLE_COLLECT;
		uint64_t t0 = rte_rdtsc();
		dp_process_burst(&pmd->dp, in, &b);
		/* as the PMD loop: buffers older than tx-flush-interval */
		dp_tx_flush_due(&pmd->dp, rte_rdtsc());
		if (pmd->dp.offload)
			dp_offload_poll(&pmd->dp);
		total += rte_rdtsc() - t0;
		CALLGRIND_TOGGLE_COLLECT;
		if (args.churn && n % args.churn == args.churn - 1)
			total += dpbench_churn(pmd, n, args.churn_all);
	}
	uint64_t t0 = rte_rdtsc();
	dp_tx_flush_all(&pmd->dp);
	total += rte_rdtsc() - t0;
	const struct pmd_stats *s = &pmd->stats;
	*r = (struct result){
		.dir = dir, .config = oc->name, .sg = sg, .flows = flows,
		.packets = args.bursts * BATCH_MAX, .total_cycles = total,
		.emc_hits = s->emc_hits, .megaflow_hits = s->megaflow_hits,
		.upcalls = s->upcalls, .tx_batches = s->tx_batches,
		.tx_packets = s->tx_packets,
	};
	memcpy(r->stage, s->stage_cycles, sizeof r->stage);
	if (RUNNING_ON_VALGRIND) {
		char name[512];
		snprintf(name, sizeof name, "dpbench %s %s%s%s %u packets=%lu",
			 dir_names[dir], oc->name, sg ? "+" : "",
			 sg ? sg_mode_names[sg] : "", flows, r->packets);
		CALLGRIND_DUMP_STATS_AT(name);
	}
	/* Every run checks the packet accounting (dp_stats.h): a packet that
	 * vanished without a counter fails the benchmark. */
	struct pmd_accounting a;
	pmd_accounting_read(pmd, &a);
	if (!pmd_accounting_balanced(&a) || a.received != r->packets) {
		fprintf(stderr, "dpbench: %s %s %u: accounting mismatch: "
			"received %lu (sent in %lu) + copies %lu != sent %lu + "
			"consumed %lu + dropped %lu + in flight %lu\n",
			dir_names[dir], oc->name, flows, a.received, r->packets,
			a.copies, a.sent, a.consumed, a.dropped, a.in_flight);
		return -2;
	}
	uint64_t drops = a.dropped;
	/* --sg: sg-deny drops every packet, sg (+est) none */
	if (sg == SG_DENY_NEW || ((sg == SG_EST || sg == SG_NAT) && drops)) {
		uint64_t denied = s->drops[DROP_SG_DENY];
		if (sg == SG_DENY_NEW ? denied != r->packets : true) {
			fprintf(stderr, "dpbench: %s %s %u %s: %lu dropped, "
				"%lu by sg_deny, of %lu\n", dir_names[dir],
				oc->name, flows, sg_mode_names[sg], drops,
				denied, r->packets);
			return -2;
		}
	} else if (drops || s->tx_packets != r->packets) {
		fprintf(stderr, "dpbench: %s %s %u: %lu drops, %lu of %lu "
			"packets sent\n", dir_names[dir], oc->name, flows,
			drops, s->tx_packets, r->packets);
	}
	if (args.churn)
		printf("churn: %lu rule rewrites (publishes), megaflows "
		       "revalidated %lu, skipped %lu, retired %lu; %lu drops\n",
		       args.bursts / args.churn, s->megaflows_revalidated,
		       s->megaflows_reval_skipped, s->megaflows_revalidated_out,
		       drops);
	return 0;
}

/* Every port's tx routes locked or not: the uncontended lock (nothing
 * else sends here), the cost a PMD pays on every burst where a queue is
 * shared. */
static void
set_tx_lock(bool on)
{
	for (uint16_t i = 0; i < n_ports; i++)
		port_tx_force_lock(ports[i], on);
}

/* ---- output ------------------------------------------------------------ */

/* The --tx-lock rows side by side: (off, on) pairs. */
static void
print_tx_lock(const struct result *res, int n)
{
	printf("\ntx lock, uncontended: total cycles per packet\n");
	printf("%-5s %-24s %8s %8s %8s %8s %10s\n", "path", "config", "flows",
	       "no lock", "lock", "delta", "per burst");
	for (int i = 0; i + 1 < n; i += 2) {
		double off = (double)res[i].total_cycles / res[i].packets;
		double on = (double)res[i + 1].total_cycles / res[i + 1].packets;
		double per_burst = res[i + 1].tx_batches
			? (on - off) * res[i + 1].packets / res[i + 1].tx_batches
			: 0;
		printf("%-5s %-24s %8u %8.1f %8.1f %+8.2f %+10.1f\n",
		       dir_names[res[i].dir], res[i].config, res[i].flows, off,
		       on, on - off, per_burst);
	}
}

/* The --sg rows side by side (dpbench_sg.c prints them). */
static int
print_sg(const struct result *res, int n)
{
	struct sg_row *rows = calloc(n ? n : 1, sizeof *rows);
	if (!rows)
		return -1;
	for (int i = 0; i < n; i++)
		rows[i] = (struct sg_row){
			.dir = dir_names[res[i].dir], .config = res[i].config,
			.flows = res[i].flows,
			.cpp = (double)res[i].total_cycles / res[i].packets,
		};
	sg_print(rows, n, SG_N_MODES - args.ipv6);
	free(rows);
	return 0;
}

static void
print_header(void)
{
	printf("%-6s %-24s %8s", "path", "config", "flows");
	for (int s = 0; s < PMD_N_STAGES; s++)
		printf(" %8s", pmd_stage_name(s));
	printf(" %8s %8s %6s %6s %6s\n", "other", "total", "emc%", "mf%",
	       "pkt/tx");
}

static const char *
config_label(const struct result *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", r->config, r->tx_lock ? " +tx-lock" : "",
		 r->sg ? " +" : "", r->sg ? sg_mode_names[r->sg] : "");
	return buf;
}

static void
print_result(const struct result *r)
{
	double p = r->packets, staged = 0;
	char label[64];

	printf("%-6s %-24s %8u", dir_names[r->dir],
	       config_label(r, label, sizeof label), r->flows);
	for (int s = 0; s < PMD_N_STAGES; s++) {
		printf(" %8.1f", r->stage[s] / p);
		staged += r->stage[s];
	}
	printf(" %8.1f %8.1f %6.1f %6.1f %6.2f\n",
	       (r->total_cycles - staged) / p, r->total_cycles / p,
	       100.0 * r->emc_hits / p, 100.0 * r->megaflow_hits / p,
	       r->tx_batches ? (double)r->tx_packets / r->tx_batches : 0);
	fflush(stdout);
}

static int
write_csv(const char *path, const struct result *res, int n)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "path,config,flows,packets");
	for (int s = 0; s < PMD_N_STAGES; s++)
		fprintf(f, ",%s", pmd_stage_name(s));
	fprintf(f, ",other,total,emc_hits,megaflow_hits,upcalls,"
		   "tx_batches,tx_packets,tsc_hz\n");
	for (int i = 0; i < n; i++) {
		const struct result *r = &res[i];
		double p = r->packets, staged = 0;
		char label[64];
		fprintf(f, "%s,%s,%u,%lu", dir_names[r->dir],
			config_label(r, label, sizeof label),
			r->flows, r->packets);
		for (int s = 0; s < PMD_N_STAGES; s++) {
			fprintf(f, ",%.2f", r->stage[s] / p);
			staged += r->stage[s];
		}
		fprintf(f, ",%.2f,%.2f,%lu,%lu,%lu,%lu,%lu,%lu\n",
			(r->total_cycles - staged) / p, r->total_cycles / p,
			r->emc_hits, r->megaflow_hits, r->upcalls,
			r->tx_batches, r->tx_packets, rte_get_tsc_hz());
	}
	return fclose(f);
}

/* ---- main -------------------------------------------------------------- */

static int
opt_configs(struct opt_config oc[])
{
	uint32_t all = 0;
	int n = 0;

	for (size_t i = 0; i < N_BENCH_OPTS; i++)
		all |= DP_OPT_BIT(bench_opts[i]);
	/* Off-path options (adaptive polling, idle back-off) keep their
	 * defaults: they do nothing here. */
	uint32_t base = dp_opts_default() & ~all;
	if (strcmp(args.opts_mode, "off")) {
		oc[n] = (struct opt_config){ "all-on", base | all };
		n++;
	}
	if (strcmp(args.opts_mode, "on")) {
		oc[n] = (struct opt_config){ "all-off", base };
		n++;
	}
	if (!strcmp(args.opts_mode, "each"))
		for (size_t i = 0; i < N_BENCH_OPTS; i++) {
			snprintf(oc[n].name, sizeof oc[n].name, "no-%s",
				 dp_opt_name(bench_opts[i]));
			oc[n].opts = base | (all & ~DP_OPT_BIT(bench_opts[i]));
			n++;
		}
	return n;
}

/* --nic-marked: the real offload thread and mark table, with the software
 * Flow Director model standing in for the E810 (no port: traffic_refill()
 * marks each burst as the NIC would, outside the measured cycles). */
static int
setup_marking(struct pmd *pmd)
{
	struct fdir_model_limits lim = { .guar = 16384, .n_ports = 1,
					 .n_rxq = 1 };
	struct offload_mgr_params mp = { .name = "dpbench",
					 .engine = OFFLOAD_ENGINE_MODEL,
					 .target = { .tunnel_port =
						     ICE_FDIR_VXLAN_PORT },
					 .n_pmds = 1 };
	marker_pool = fdir_model_pool_create(0);
	lim.pool = marker_pool;
	marker = marker_pool ? fdir_model_create(UINT16_MAX, &lim, NULL) : NULL;
	if (marker && fdir_model_udp_tunnel_port_add(marker, 4789))
		marker = NULL;	/* cannot fail on a new model */
	mp.model = marker;
	offloader = marker ? offload_mgr_create(&mp) : NULL;
	if (!offloader) {
		fprintf(stderr, "dpbench: cannot set up the offload model\n");
		return -1;
	}
	return dp_offload_attach(&pmd->dp, offloader);
}

static void
teardown_marking(struct pmd *pmd)
{
	if (pmd)
		dp_offload_detach(&pmd->dp);
	if (offloader)
		offload_mgr_destroy(offloader);
	if (marker)
		fdir_model_free(marker);
	if (marker_pool)
		fdir_model_pool_free(marker_pool);
}

int
main(int argc, char **argv)
{
	struct vxs_config cfg;
	char err[CFG_ERR_MAX], path[64];
	int rc = 1;

	if (parse_args(argc, argv))
		return 2;

	uint32_t max_flows = 0;
	for (int i = 0; i < args.n_flow_counts; i++)
		max_flows = RTE_MAX(max_flows, args.flow_counts[i]);
	if (args.zipf)
		max_flows = args.flows_set ? args.flow_counts[0] :
			    ZIPF_DEFAULT_FLOWS;
	if (args.ipv6)
		dir_names = dir_names6;
	if (args.underlay6)
		dir_names = dir_names_u6[args.ipv6];
	if (traffic_build(max_flows, args.ipv6, args.underlay6)) {
		fprintf(stderr, "dpbench: out of memory\n");
		return 1;
	}
	/* The megaflows are per VM (a handful); room for many anyway. */
	/* --sg: a session per flow, and room for one round more */
	const struct topo_opts to = {
		.emc_prob = args.emc_prob, .sg = args.sg,
		.rewrite = args.rewrite, .ipv6 = args.ipv6,
		.zipf = args.zipf != NULL, .underlay6 = args.underlay6,
	};
	if (dpbench_write_topology(path, sizeof path, &to,
			   args.zipf ? max_flows + 65536 : 65536,
			   args.sg ? max_flows + 1024 : 65536)) {
		fprintf(stderr, "dpbench: cannot write a topology file\n");
		return 1;
	}
	rc = config_load(path, &cfg, err, sizeof err);
	unlink(path);
	if (rc) {
		fprintf(stderr, "dpbench: %s\n", err);
		return 1;
	}
	rc = 1;

	char *eal_argv[] = { "dpbench", "-l", "0-1", "--no-pci", "--no-huge",
			     "-m", (char *)args.eal_mem, "--no-shconf",
			     "--log-level", "lib.*:error", NULL };
	if (rte_eal_init(RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "dpbench: EAL init failed\n");
		return 1;
	}
	/* In flight at once: one burst plus the tx buffers (32 ports x 32
	 * at most); the pool stays small and cache-resident, as a PMD's. */
	pktmbuf_pool = rte_pktmbuf_pool_create("dpbench", 4095, 256, 0,
					       RTE_MBUF_DEFAULT_BUF_SIZE,
					       rte_socket_id());
	if (!pktmbuf_pool) {
		fprintf(stderr, "dpbench: no mbuf pool\n");
		goto out;
	}
	if (ports_create(&cfg, pktmbuf_pool, 1, err, sizeof err) ||
	    pmds_init(err, sizeof err) ||
	    /* as the daemon: after the PMDs' QSBR variable, before the
	     * PMD, whose datapath takes the tracker */
	    (args.sg && ct_ctl_init(&cfg, err, sizeof err)) ||
	    pmds_create(&cfg, cfg.dp_opts, err, sizeof err) ||
	    ofproto_init(&cfg, pmd_qsbr, err, sizeof err) ||
	    ports_start(err, sizeof err)) {
		fprintf(stderr, "dpbench: %s\n", err);
		goto out;
	}
	src.nic_port = port_underlay();
	for (int i = 0; i < N_VMS; i++) {
		char name[32];
		snprintf(name, sizeof name, "vhost-user%d", i);
		src.vm_port[i] = port_by_name(name);
	}

	struct pmd *pmd = &pmds[0];
	src.run = args.run;
	src.rx_csum_good = args.rx_csum_good;
	pmd->dp.snap = dp_snapshot_get();
	pmd->dp.seen_gen = pmd->dp.snap->gen;
	if (args.zipf) {
		rc = zipf_bench(pmd, &src, args.zipf, max_flows) ? 1 : 0;
		goto out;
	}
	if (args.nic_marked && setup_marking(pmd))
		goto out;
	src.marker = marker;

	struct opt_config oc[2 + N_BENCH_OPTS];
	int n_oc = opt_configs(oc);
	/* the variants of each row, side by side: tx lock off/on, or the
	 * --sg rule sets */
	/* no NAT66: --ipv6 --sg leaves out sg-nat (the last mode) */
	int n_var = args.tx_lock ? 2 : args.sg ? SG_N_MODES - args.ipv6 : 1;
	int max_res = 2 * n_oc * args.n_flow_counts * n_var, n_res = 0;
	struct result *res = calloc(max_res, sizeof *res);
	if (!res)
		goto out;

	printf("dpbench: seed 002 topology (32 VMs, null ports), 1 PMD, "
	       "bursts of %d, %lu measured bursts per row, TSC %.2f GHz, "
	       "emc-insert-inv-prob %u%s\n", BATCH_MAX, args.bursts,
	       rte_get_tsc_hz() / 1e9, args.emc_prob,
	       args.rx_csum_good ? ", rx IP checksum offloaded" : "");
	if (marker)
		printf("NIC-marked: decap frames marked by the Flow Director "
		       "model; marked ones skip parse and lookup\n");
	printf("cycles per packet (TSC) by stage; other = outside the stage "
	       "counters; emc%%/mf%% = hits per packet (decap: 2 lookups per "
	       "packet)\n");
	print_header();
	for (int d = DIR_DECAP; d <= DIR_ENCAP; d++) {
		if (strcmp(args.dirs, "both") &&
		    strcmp(args.dirs, dir_names4[d]))
			continue;
		for (int fi = 0; fi < args.n_flow_counts; fi++)
			for (int c = 0; c < n_oc * n_var; c++) {
				struct result *r = &res[n_res];
				enum sg_mode sg = args.sg ? c % n_var : SG_NONE;
				int err = 0;
				if (args.sg)
					err = sg_set_mode(pmd, &src, sg,
							  args.flow_counts[fi],
							  args.rewrite,
							  args.ipv6);
				else
					set_tx_lock(c % n_var);
				if (!err)
					err = run_one(pmd, d,
						      args.flow_counts[fi],
						      &oc[c / n_var], sg, r);
				if (err) {
					if (err == -1)
						fprintf(stderr, "dpbench: out "
							"of mbufs\n");
					goto out_res;
				}
				r->tx_lock = args.tx_lock && c % n_var;
				n_res++;
				print_result(r);
			}
	}
	if (args.tx_lock) {
		set_tx_lock(false);
		print_tx_lock(res, n_res);
		if (txlock_contended(src.vm_port[0], pktmbuf_pool,
				     args.bursts))
			goto out_res;
	}
	if (args.sg && print_sg(res, n_res))
		goto out_res;
	if (args.csv && write_csv(args.csv, res, n_res)) {
		fprintf(stderr, "dpbench: cannot write %s\n", args.csv);
		goto out_res;
	}
	rc = 0;
out_res:
	free(res);
out:
	if (pmds)
		pmd_flush_flows(&pmds[0]);
	teardown_marking(pmds ? &pmds[0] : NULL);
	ofproto_fini();
	ct_ctl_fini();	/* the PMD is gone: no reader left */
	pmds_fini();
	ports_destroy();
	rte_mempool_free(pktmbuf_pool);
	pktmbuf_pool = NULL;
	rte_eal_cleanup();
	config_free(&cfg);
	traffic_free();
	return rc;
}
