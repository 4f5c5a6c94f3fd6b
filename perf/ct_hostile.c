/* SPDX-License-Identifier: BSD-3-Clause
 * ct_hostile: can one tenant starve another through the connection
 * tracker? Two lcores on one tracker, as two VMs on two PMDs
 * (ct_hostile_load.c has what each does):
 *
 *   victim   zone 1: established TCP (window-tracked data both ways) and
 *            UDP sessions in bursts of 32, as fast as it can, and a new
 *            connection every --new-us;
 *   attacker zone 2, as fast as it can:
 *            (control) its lcore busy building (a)'s packets but not
 *                calling the tracker: what a second busy lcore costs the
 *                victim by itself (on a 2-vCPU VM, the two vCPUs may
 *                share a core, and the host's other load shifts);
 *            (a) new UDP 5-tuples with commit: fills its zone up to the
 *                zone limit (an eighth of ct-max-conns, the switch's
 *                default), then refused;
 *            (b) the same under nat(src=100.64.0.1:10000-...), all to one
 *                destination: the port range (--nat-ports) is exhausted
 *                at once, then every new session runs the bounded port
 *                search under the table lock, and is refused;
 *            (c) keys that collide under the old CRC32c table hash, with
 *                commit: fills its zone, then refused, as (a);
 *            (a) again with the default zone limit off (0): the attacker
 *                fills the whole table.
 *
 * The phases alternate (alone, control, a, b, c, a-unlimited, alone, ...;
 * --reps rounds) so the noise of a shared host hits all of them alike;
 * after each phase the attacker's sessions and the victim's new ones are
 * flushed. Per phase: the victim's packets per second (established
 * packets over the phase; building them included), its thread's CPU
 * share (schedstat: on a shared host not 100 %) and its packets per
 * second of CPU time, the ratio of that to the same round's alone phase
 * and to its control phase, the median cycles per packet of its bursts in
 * conntrack_execute, the share of its new connections admitted and the
 * time one took in the tracker (its 2-3 packets: the table lock is where
 * it meets the attacker), the share of its time in new connections; the
 * attacker's rate, sessions and refusals by the tracker's reason (its
 * lcore's counters). Then (c) in detail: what the colliding keys cost the
 * tracker's table and a CRC32c-hashed one (ct_hostile_keys.c). Targets:
 * the victim keeps >= 90 % of its rate and 100 % of its new connections
 * while the zone limit is on.
 *
 *   build/perf/ct_hostile [--seconds 2] [--reps 3] [--max-conns 262144]
 *        [--udp 1024] [--tcp 1024] [--new-us 200] [--nat-ports 256]
 *        [--coll-n 16384] [--coll-crc-n 8192] [-- EAL args]
 * Default EAL: --in-memory --no-pci -l 0,1 -m 512 (hugepages): the
 * victim on the first lcore, the attacker on the second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include "ct_hostile.h"

struct rte_mempool *mbufs;	/* ctbench.h's */

#define MAX_REPS 16

enum phase { PH_ALONE, PH_SPIN, PH_NEW, PH_NAT, PH_COLL, PH_NOLIMIT, PH_N };

static const char *const phase_names[PH_N] = {
	"alone", "+ busy lcore, no ct", "+ (a) new UDP", "+ (b) NAT exhausted",
	"+ (c) CRC-colliding", "+ (a) zone limit off",
};
static const enum att_mode phase_mode[PH_N] = {
	ATT_IDLE, ATT_SPIN, ATT_NEW, ATT_NAT, ATT_COLL, ATT_NEW,
};

struct result {
	double v_mpps;		/* established packets / phase */
	double v_cpu;		/* the victim thread's share of a CPU */
	double v_oncpu;		/* packets / its time on a CPU */
	double ratio, ratio_wall;	/* v_oncpu, v_mpps / alone's */
	double ratio_busy;		/* v_oncpu / the control's */
	double v_cyc, v_cyc_tcp, v_cyc_udp;	/* burst medians */
	double new_frac;	/* share of the phase in new connections */
	uint64_t v_bad;
	uint64_t new_tried, new_ok, new_refused, new_bad;
	double a_mpps, a_cpu;
	double a_us;		/* its CPU time per packet, us */
	uint64_t a_created, a_refused, a_other;
	struct refusals a_ref, v_ref;
	uint32_t zone_att, n_conns;	/* at the phase's end */
};

static struct {
	double seconds;
	int reps;
	uint32_t max_conns, n_udp, n_tcp, nat_ports, coll_n, coll_crc_n;
	double new_us;
} opt = {
	.seconds = 2, .reps = 3, .max_conns = 262144, .n_udp = 1024,
	.n_tcp = 1024, .new_us = 200, .nat_ports = 256, .coll_n = 16384,
	.coll_crc_n = 8192,
};

static struct result res[MAX_REPS][PH_N];
/* every new connection's cycles, all rounds, by phase */
static uint32_t *lat[PH_N];
static uint32_t n_lat[PH_N];

static void
print_host(unsigned lc_v, unsigned lc_a, double hz)
{
	char model[256] = "?", line[512], load[128] = "?";
	int family = -1, modelno = -1;
	FILE *f = fopen("/proc/cpuinfo", "r");
	time_t now = time(NULL);

	while (f && fgets(line, sizeof line, f)) {
		char *c = strchr(line, ':');
		if (!c)
			continue;
		if (!strncmp(line, "model name", 10)) {
			snprintf(model, sizeof model, "%s", c + 2);
			model[strcspn(model, "\n")] = 0;
		} else if (!strncmp(line, "cpu family", 10)) {
			family = atoi(c + 1);
		} else if (!strncmp(line, "model\t", 6)) {
			modelno = atoi(c + 1);
		} else if (line[0] == '\n') {
			break;	/* the first CPU's block only */
		}
	}
	if (f)
		fclose(f);
	f = fopen("/proc/loadavg", "r");
	if (f && fgets(load, sizeof load, f))
		load[strcspn(load, "\n")] = 0;
	if (f)
		fclose(f);
	printf("ct_hostile: %s", ctime(&now));
	printf("host: %s (family %d model %d), %ld CPUs online, TSC %.2f "
	       "GHz, load average %s\n", model, family, modelno,
	       sysconf(_SC_NPROCESSORS_ONLN), hz / 1e9, load);
	printf("lcores: victim %u (zone %d), attacker %u (zone %d)\n", lc_v,
	       ZONE_VICTIM, lc_a, ZONE_ATTACKER);
	printf("ct-max-conns %u, default zone limit %u (an eighth), victim "
	       "%u TCP + %u UDP established, a new connection every %.0f "
	       "us;\nNAT range %u ports; %d rounds of %.1f s phases\n",
	       opt.max_conns, opt.max_conns / 8, opt.n_tcp, opt.n_udp,
	       opt.new_us, opt.nat_ports, opt.reps, opt.seconds);
}

static void
run_phase(struct conntrack *ct, struct victim *v, struct attacker *a,
	  unsigned lc_a, enum phase ph, struct result *r, double hz)
{
	static volatile bool stop;
	struct refusals a0, a1, v0, v1;
	unsigned lc_v = rte_lcore_id();

	conntrack_set_default_zone_limit(ct, ph == PH_NOLIMIT ? 0
					 : opt.max_conns / 8);
	refusals_of(ct, lc_a, &a0);
	refusals_of(ct, lc_v, &v0);
	a->mode = phase_mode[ph];
	a->stop = &stop;
	a->pkts = a->with_conn = a->refused = a->other = a->wall = 0;
	a->run_ns = 0;
	stop = false;
	if (a->mode != ATT_IDLE &&
	    rte_eal_remote_launch(attacker_main, a, lc_a) < 0) {
		fprintf(stderr, "cannot launch the attacker\n");
		exit(1);
	}
	victim_run(v, opt.seconds, &stop);
	if (a->mode != ATT_IDLE)
		rte_eal_wait_lcore(lc_a);
	refusals_of(ct, lc_a, &a1);
	refusals_of(ct, lc_v, &v1);
	refusals_sub(&r->a_ref, &a1, &a0);
	refusals_sub(&r->v_ref, &v1, &v0);
	double wall_s = (double)v->wall / hz;
	r->v_mpps = (double)v->pkts / wall_s / 1e6;
	r->v_cpu = (double)v->run_ns / 1e9 / wall_s;
	r->v_oncpu = v->run_ns ? (double)v->pkts / ((double)v->run_ns / 1e9)
				 / 1e6 : r->v_mpps;
	r->v_cyc = victim_median_cyc(v, -1);
	r->v_cyc_tcp = victim_median_cyc(v, 1);
	r->v_cyc_udp = victim_median_cyc(v, 0);
	r->new_frac = (double)v->new_wall / (double)v->wall;
	r->v_bad = v->bad;
	r->new_tried = v->new_tried;
	r->new_ok = v->new_ok;
	r->new_refused = v->new_refused;
	r->new_bad = v->new_bad;
	for (uint32_t i = 0; i < v->n_lat && lat[ph]; i++)
		lat[ph][n_lat[ph]++] = v->lat[i];
	r->a_mpps = a->wall ? (double)a->pkts * hz / (double)a->wall / 1e6
			    : 0;
	r->a_cpu = a->wall ? (double)a->run_ns / 1e9 /
			     ((double)a->wall / hz) : 0;
	r->a_us = a->pkts ? (double)a->run_ns / 1e3 / (double)a->pkts : 0;
	r->a_refused = a->refused;
	r->a_other = a->other;
	/* its sessions: none expire in a phase, it started with none */
	r->zone_att = conntrack_get_zone_count(ct, ZONE_ATTACKER);
	r->a_created = r->zone_att;
	r->n_conns = conntrack_get_nconns(ct);
	/* back to the victim's established sessions alone */
	conntrack_flush_zone(ct, ZONE_ATTACKER);
	victim_flush_new(ct);
	conntrack_set_default_zone_limit(ct, opt.max_conns / 8);
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The median over the rounds of the double at offset off of phase ph. */
static double
median(enum phase ph, size_t off)
{
	double x[MAX_REPS];

	for (int i = 0; i < opt.reps; i++)
		memcpy(&x[i], (const char *)&res[i][ph] + off, sizeof x[i]);
	qsort(x, (size_t)opt.reps, sizeof x[0], cmp_dbl);
	return opt.reps % 2 ? x[opt.reps / 2]
			    : (x[opt.reps / 2 - 1] + x[opt.reps / 2]) / 2;
}
#define MEDIAN(ph, field) median(ph, offsetof(struct result, field))

static void
print_rounds(void)
{
	printf("\nEach phase in the order run. Victim: Mpps over the phase, "
	       "its thread's CPU share, Mpps\nover its time on a CPU and "
	       "the ratio of that to the round's alone phase, median cycles "
	       "a\npacket of its TCP | UDP bursts, new connections admitted. "
	       "Attacker: Mpps, CPU share.\n");
	for (int i = 0; i < opt.reps; i++)
		for (int ph = 0; ph < PH_N; ph++) {
			const struct result *r = &res[i][ph];
			printf("  %d %-20s %6.3f Mpps cpu %3.0f%% %6.3f %5.1f%% "
			       "%5.0f | %4.0f cyc new %5lu/%-5lu att %6.3f "
			       "Mpps cpu %3.0f%%\n", i + 1, phase_names[ph],
			       r->v_mpps, 100 * r->v_cpu, r->v_oncpu,
			       100 * r->ratio, r->v_cyc_tcp, r->v_cyc_udp,
			       (unsigned long)r->new_ok,
			       (unsigned long)r->new_tried, r->a_mpps,
			       100 * r->a_cpu);
		}
}

static void
print_summary(double hz)
{
	printf("\nMedians over %d rounds. v Mpps: the victim's established "
	       "packets over the phase;\ncpu: its thread's CPU share; on-cpu: "
	       "Mpps over its time on a CPU; ratio: on-cpu to\nthe same "
	       "round's alone phase (the target: >= 90 %%); busy: to its "
	       "control phase (a busy\nlcore that does not call the tracker: "
	       "what sharing the tracker costs, less what the\nhost's "
	       "sharing does); cyc/p: median cycles a packet of its bursts in "
	       "conntrack_execute;\nnew ok: new connections admitted (target "
	       "100 %%), of how many (all rounds); new us:\nmicroseconds in "
	       "the tracker for one's 2-3 packets, median/99th/max; new%%: "
	       "share of the\nphase in new connections. Attacker: Mpps; its "
	       "sessions at the end of the phase and\nits commits refused by "
	       "reason, totals over the rounds.\n", opt.reps);
	printf("%-20s %6s %4s %6s %6s %6s %6s %13s %16s %5s %6s %7s %8s %8s "
	       "%7s\n", "phase", "v Mpps", "cpu", "on-cpu", "ratio", "busy",
	       "cyc/p", "new ok", "new us", "new%", "a Mpps", "created",
	       "zone lim", "tbl full", "NAT");
	for (int ph = 0; ph < PH_N; ph++) {
		struct result t = { 0 };
		for (int i = 0; i < opt.reps; i++) {
			const struct result *r = &res[i][ph];
			t.new_tried += r->new_tried;
			t.new_ok += r->new_ok;
			t.a_created += r->a_created;
			t.a_other += r->a_other;
			t.a_ref.zone += r->a_ref.zone;
			t.a_ref.full += r->a_ref.full;
			t.a_ref.nat += r->a_ref.nat + r->a_ref.collision;
			t.v_bad += r->v_bad + r->new_bad;
		}
		char newok[32] = "-", us[32] = "-";
		if (t.new_tried)
			snprintf(newok, sizeof newok, "%.1f%% %lu",
				 100.0 * (double)t.new_ok /
				 (double)t.new_tried,
				 (unsigned long)t.new_tried);
		if (n_lat[ph]) {
			uint32_t n = n_lat[ph], *l = lat[ph];
			qsort(l, n, sizeof *l, cmp_u32);
			snprintf(us, sizeof us, "%.1f/%.0f/%.0f",
				 l[n / 2] * 1e6 / hz,
				 l[(uint32_t)(n * 0.99)] * 1e6 / hz,
				 l[n - 1] * 1e6 / hz);
		}
		printf("%-20s %6.3f %3.0f%% %6.3f %5.1f%% %5.1f%% %6.1f %13s %16s "
		       "%4.1f%% %6.3f %7lu %8lu %8lu %7lu\n", phase_names[ph],
		       MEDIAN(ph, v_mpps), 100 * MEDIAN(ph, v_cpu),
		       MEDIAN(ph, v_oncpu), 100 * MEDIAN(ph, ratio),
		       100 * MEDIAN(ph, ratio_busy),
		       MEDIAN(ph, v_cyc), newok, us,
		       100 * MEDIAN(ph, new_frac), MEDIAN(ph, a_mpps),
		       (unsigned long)t.a_created,
		       (unsigned long)t.a_ref.zone,
		       (unsigned long)t.a_ref.full,
		       (unsigned long)t.a_ref.nat);
		if (t.v_bad)
			printf("%-20s   victim verdicts not as expected: %lu\n",
			       "", (unsigned long)t.v_bad);
	}
}

/* What each phase left, from the last round: where the attacker stopped
 * and, if refused, why the victim was. */
static void
print_notes(void)
{
	const struct result *r = res[opt.reps - 1];

	printf("\nAt the end of each phase (last round): the attacker's zone, "
	       "all sessions; the victim's refusals;\nthe attacker's CPU "
	       "time a packet (median over the rounds: under (b), about how "
	       "long\neach refused commit holds the table lock):\n");
	for (int ph = 0; ph < PH_N; ph++)
		printf("  %-20s zone %d: %6u  table: %6u/%u  victim refused: "
		       "zone %lu, full %lu, NAT %lu  attacker %.3f us/pkt%s\n",
		       phase_names[ph], ZONE_ATTACKER, r[ph].zone_att,
		       r[ph].n_conns, opt.max_conns,
		       (unsigned long)r[ph].v_ref.zone,
		       (unsigned long)r[ph].v_ref.full,
		       (unsigned long)r[ph].v_ref.nat,
		       MEDIAN((enum phase)ph, a_us),
		       r[ph].a_other ? " (some found its own sessions: "
				       "source ports wrapped)" : "");
}

static int
parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (i + 1 >= argc) {
			fprintf(stderr, "%s: missing value\n", argv[i]);
			return -1;
		}
		const char *o = argv[i], *val = argv[++i];
		if (!strcmp(o, "--seconds"))
			opt.seconds = atof(val);
		else if (!strcmp(o, "--reps"))
			opt.reps = atoi(val);
		else if (!strcmp(o, "--max-conns"))
			opt.max_conns = (uint32_t)strtoul(val, NULL, 0);
		else if (!strcmp(o, "--udp"))
			opt.n_udp = (uint32_t)strtoul(val, NULL, 0);
		else if (!strcmp(o, "--tcp"))
			opt.n_tcp = (uint32_t)strtoul(val, NULL, 0);
		else if (!strcmp(o, "--new-us"))
			opt.new_us = atof(val);
		else if (!strcmp(o, "--nat-ports"))
			opt.nat_ports = (uint32_t)strtoul(val, NULL, 0);
		else if (!strcmp(o, "--coll-n"))
			opt.coll_n = (uint32_t)strtoul(val, NULL, 0);
		else if (!strcmp(o, "--coll-crc-n"))
			opt.coll_crc_n = (uint32_t)strtoul(val, NULL, 0);
		else {
			fprintf(stderr, "unknown option %s\n", o);
			return -1;
		}
	}
	if (opt.reps < 1 || opt.reps > MAX_REPS || opt.seconds <= 0 ||
	    opt.n_udp + opt.n_tcp == 0 || opt.n_udp > 40000 ||
	    opt.n_tcp > 50000 || opt.nat_ports < 1 || opt.nat_ports > 50000 ||
	    opt.max_conns < 1024 || opt.coll_n < BURST ||
	    opt.coll_n > opt.max_conns / 8 || opt.coll_crc_n < BURST) {
		fprintf(stderr, "bad options (see the header of "
			"perf/ct_hostile.c)\n");
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	char *eal_def[] = { argv[0], "--in-memory", "--no-pci", "-l", "0,1",
			    "-m", "512", "--log-level=error" };
	int dd = 0;

	for (int i = 1; i < argc && !dd; i++)
		if (!strcmp(argv[i], "--"))
			dd = i;
	if (parse_args(dd ? dd : argc, argv) < 0)
		return 2;
	int eal = dd ? rte_eal_init(argc - dd, argv + dd)
		     : rte_eal_init(RTE_DIM(eal_def), eal_def);
	if (eal < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	unsigned lc_v = rte_lcore_id();
	unsigned lc_a = rte_get_next_lcore(lc_v, 1, 0);
	if (lc_a >= RTE_MAX_LCORE) {
		fprintf(stderr, "ct_hostile: needs two lcores (EAL -l 0,1)\n");
		return 1;
	}
	double hz = (double)rte_get_tsc_hz();
	print_host(lc_v, lc_a, hz);

	size_t qsz = rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE);
	struct rte_rcu_qsbr *qsbr = rte_zmalloc("hostile_qsbr", qsz,
						RTE_CACHE_LINE_SIZE);
	if (!qsbr || rte_rcu_qsbr_init(qsbr, RTE_MAX_LCORE) ||
	    rte_rcu_qsbr_thread_register(qsbr, lc_v) ||
	    rte_rcu_qsbr_thread_register(qsbr, lc_a)) {
		fprintf(stderr, "no QSBR variable\n");
		return 1;
	}
	mbufs = rte_pktmbuf_pool_create("hostile", 2 * opt.n_udp + 511, 0, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE,
					(int)rte_socket_id());
	struct ct_params p = { .max_conns = opt.max_conns, .qsbr = qsbr,
			       .socket_id = (int)rte_socket_id(),
			       .name = "hostile" };
	struct conntrack *ct = mbufs ? conntrack_create(&p) : NULL;
	static struct victim v;
	static struct attacker a;
	if (!ct || victim_init(&v, ct, qsbr, opt.n_udp, opt.n_tcp,
			       opt.new_us) < 0 ||
	    attacker_init(&a, ct, qsbr, (uint16_t)opt.nat_ports) < 0) {
		fprintf(stderr, "no memory (hugepages: EAL -m)\n");
		return 1;
	}
	conntrack_set_default_zone_limit(ct, opt.max_conns / 8);
	uint64_t bad = victim_establish(&v);
	printf("victim: %u sessions established (%lu not), zone %d holds "
	       "%u; the attacker's colliding keys: 2^%u with CRC32c 0x%08x\n",
	       opt.n_udp + opt.n_tcp, (unsigned long)bad, ZONE_VICTIM,
	       conntrack_get_zone_count(ct, ZONE_VICTIM), a.coll.dim,
	       a.coll.crc);
	fflush(stdout);

	for (int ph = 0; ph < PH_N; ph++)
		lat[ph] = malloc((size_t)opt.reps * LAT_MAX * sizeof **lat);
	for (int i = 0; i < opt.reps; i++) {
		for (int ph = 0; ph < PH_N; ph++)
			run_phase(ct, &v, &a, lc_a, (enum phase)ph, &res[i][ph],
				  hz);
		for (int ph = 0; ph < PH_N; ph++) {
			struct result *r = &res[i][ph];
			r->ratio = r->v_oncpu / res[i][PH_ALONE].v_oncpu;
			r->ratio_wall = r->v_mpps / res[i][PH_ALONE].v_mpps;
			r->ratio_busy = r->v_oncpu / res[i][PH_SPIN].v_oncpu;
		}
	}
	print_rounds();
	print_summary(hz);
	print_notes();
	char load[128] = "?";
	FILE *f = fopen("/proc/loadavg", "r");
	if (f && fgets(load, sizeof load, f))
		load[strcspn(load, "\n")] = 0;
	if (f)
		fclose(f);
	printf("load average after the phases: %s\n", load);
	printf("victim zone %d after the phases: %u sessions (%u expected)\n",
	       ZONE_VICTIM, conntrack_get_zone_count(ct, ZONE_VICTIM),
	       opt.n_udp + opt.n_tcp);
	if (coll_report(ct, opt.coll_n, opt.coll_crc_n, hz) < 0)
		fprintf(stderr, "collision report failed\n");
	conntrack_destroy(ct);
	rte_eal_cleanup();
	return 0;
}
