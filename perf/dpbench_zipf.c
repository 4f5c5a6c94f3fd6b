/* SPDX-License-Identifier: BSD-3-Clause
 * dpbench --zipf: offload admission under more flows than the NIC holds.
 *
 * N microflows (default 250k) from the remote VTEP, flow i to inner dst
 * 10.0.0.1 + i: each its own inner megaflow (the topology's catch-all
 * 10.0.0.0/8 rule, below the per-VM /32 rules, gives /32 megaflows), so
 * each its own NIC rule candidate. Packets pick flows by a Zipf(s) law
 * over ranks (precomputed samples), rank r -> flow (r + shift) % N. The
 * NIC is the software Flow Director model with 16K rules (the E810's
 * guaranteed + pool for one port; max_marks 16384), fed by the real
 * offload thread and the PMD's real sweep (rates, offers, evictions every
 * 100 ms, as the PMD loop runs it). Marking happens outside the measured
 * cycles, as the NIC does it; the measured cycles are dp_process_burst(),
 * the due tx flush and dp_offload_poll(), as in the other modes; the
 * sweep's cycles are counted apart.
 *
 * For each s and each admission (fifo, then weight, same packets): a
 * warm-up (WARM_S seconds of wall time, enough for the rate limit to fill
 * the table: INSERTS_PER_SEC, far above ice's ~100/s, so that the run
 * takes seconds, not minutes), a 1 s measured window, then the hot set
 * moves (shift = N / 2: the hottest ranks now land on flows that were in
 * the middle of the tail) and SHIFT_S seconds of half-second windows show
 * whether the mark share recovers.
 */
#include <dirent.h>
#include <math.h>
#include <sched.h>		/* sched_setaffinity (_GNU_SOURCE: meson) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include "dp_offload.h"
#include "dpbench.h"
#include "fdir_model.h"
#include "offload_mgr.h"
#include "pmd.h"

#define MAX_MARKS 16384		/* the NIC's rules: guar + pool */
#define INSERTS_PER_SEC 20000	/* bench only: ice does ~100 */
#define SWEEP_MS 100		/* PMD_SWEEP_INTERVAL_MS (app/pmd/pmd.c) */
#define WARM_S 4
#define SHIFT_S 10
#define WINDOW_MS 500
#define N_WINDOWS ((WARM_S + 1 + SHIFT_S) * 1000 / WINDOW_MS)
#define SAMPLES (1u << 22)

struct zflow {				/* what differs between flows */
	rte_be32_t dst;
	rte_be16_t ip_csum;
	rte_be16_t outer_sport;
};

struct window {
	uint64_t packets, cycles, mark_hits, sweep_cycles;
	uint64_t fallbacks, upcalls, emc_hits;
	/* where the PMD loop's cycles went: the burst (classify, actions),
	 * the tx flush, the offload poll (completions, DEL retries); and the
	 * bench's own refill (the "NIC": packets built and marked) */
	uint64_t proc_cycles, flush_cycles, poll_cycles, refill_cycles;
	/* the kernel's account (schedstat, ns): the PMD thread on a CPU and
	 * waiting for one; the offload thread on a CPU */
	uint64_t pmd_run_ns, pmd_wait_ns, ofl_run_ns;
	uint64_t evictions, created, destroyed;	/* the manager's, deltas */
};

struct mode_run {
	struct window w[N_WINDOWS];
	struct offload_mgr_stats st;
	int offload_cpu;	/* -1: on the PMD's */
};

/* The threads whose CPU time the windows account (/proc/self/task). */
struct threads {
	pid_t pmd, offload;	/* offload: 0 when not found */
};

static struct zflow *zflows;
static uint32_t *samples;		/* ranks, Zipf-distributed */
static uint32_t n_flows;

static uint64_t
xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* tid's schedstat: ns on a CPU, ns runnable but waiting for one. */
static void
sched_ns(pid_t tid, uint64_t *run, uint64_t *wait)
{
	char path[64];
	unsigned long long r = 0, w = 0;
	FILE *f;

	*run = *wait = 0;
	if (!tid)
		return;
	snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fscanf(f, "%llu %llu", &r, &w) == 2) {
		*run = r;
		*wait = w;
	}
	fclose(f);
}

/* The process's threads now, into tids (at most n); how many. */
static unsigned
list_tasks(pid_t *tids, unsigned n)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned k = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && k < n)
		if (e->d_name[0] != '.')
			tids[k++] = (pid_t)atoi(e->d_name);
	closedir(d);
	return k;
}

/* The thread in after[] that is not in before[]: the one
 * offload_mgr_create() started. */
static pid_t
new_task(const pid_t *before, unsigned nb, const pid_t *after, unsigned na)
{
	for (unsigned i = 0; i < na; i++) {
		unsigned j = 0;
		while (j < nb && before[j] != after[i])
			j++;
		if (j == nb)
			return after[i];
	}
	return 0;
}

/* The offload thread off the PMD's CPU, as vxswitch has it (the control
 * thread, on the main lcore, starts it; PMDs run on their own lcores):
 * pthread_create() gives it its creator's affinity, here the PMD's one CPU,
 * where it would take its time from the PMD (and the rdtsc intervals the
 * PMD measures would count it). The CPU it got, or -1 (none other). */
static int
offload_off_pmd_cpu(pid_t tid)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int pmd_cpu = sched_getcpu();
	cpu_set_t set;

	CPU_ZERO(&set);
	for (long c = 0; c < n && c < CPU_SETSIZE; c++)
		if (c != pmd_cpu)
			CPU_SET(c, &set);
	if (!tid || !CPU_COUNT(&set) ||
	    sched_setaffinity(tid, sizeof set, &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			return c;
	return -1;
}

/* samples[] for Zipf(s) over n ranks; the share of the hottest MAX_MARKS
 * ranks (what a perfect admission would put on the NIC). */
static double
build_samples(double s, uint32_t n)
{
	double *cdf = malloc(n * sizeof *cdf), sum = 0, top = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	if (!cdf)
		return -1;
	for (uint32_t r = 0; r < n; r++) {
		sum += 1.0 / pow(r + 1, s);
		cdf[r] = sum;
		if (r + 1 == MAX_MARKS)
			top = sum;
	}
	for (uint32_t i = 0; i < SAMPLES; i++) {
		double u = (double)(xorshift(&x) >> 11) / (1ull << 53) * sum;
		uint32_t lo = 0, hi = n - 1;
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;
			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		samples[i] = lo;
	}
	free(cdf);
	return (n <= MAX_MARKS ? sum : top) / sum;
}

static int
build_flows(uint32_t n)
{
	const uint8_t *t = traffic_decap_template(0);
	struct rte_ipv4_hdr ip;

	zflows = malloc(n * sizeof *zflows);
	samples = malloc(SAMPLES * sizeof *samples);
	if (!zflows || !samples)
		return -1;
	memcpy(&ip, t + DECAP_I_IP, sizeof ip);
	for (uint32_t f = 0; f < n; f++) {
		ip.dst_addr = rte_cpu_to_be_32(IPV4_HOST(10, 0, 0, 1) + f);
		ip.hdr_checksum = 0;
		zflows[f].dst = ip.dst_addr;
		zflows[f].ip_csum = rte_ipv4_cksum(&ip);
		zflows[f].outer_sport = rte_cpu_to_be_16(traffic_outer_sport(
			ip.src_addr, ip.dst_addr, 40000, 5001));
	}
	n_flows = n;
	return 0;
}

static int
refill(struct pkt_batch *b, uint64_t *k, uint32_t shift,
       struct fdir_model *nic)
{
	const uint8_t *t = traffic_decap_template(0);

	if (rte_pktmbuf_alloc_bulk(pktmbuf_pool, b->pkts, BATCH_MAX))
		return -1;
	b->n = BATCH_MAX;
	for (int i = 0; i < BATCH_MAX; i++) {
		struct rte_mbuf *m = b->pkts[i];
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
		const struct zflow *z =
			&zflows[(samples[(*k)++ & (SAMPLES - 1)] + shift) %
				n_flows];
		rte_memcpy(d, t, DECAP_LEN);
		memcpy(d + DECAP_O_UDP, &z->outer_sport, 2);
		memcpy(d + DECAP_I_IP + 10, &z->ip_csum, 2);
		memcpy(d + DECAP_I_IP + 16, &z->dst, 4);
		m->data_len = m->pkt_len = DECAP_LEN;
	}
	fdir_model_rx_mark(nic, 0, b->pkts, b->n);	/* the "NIC" */
	return 0;
}

/* Traffic for ms of wall time into w, with the PMD's sweep on time. */
static int
run_window(struct pmd *pmd, const struct traffic_src *src,
	   struct fdir_model *nic, struct offload_mgr *m,
	   const struct threads *th, uint64_t *k, uint32_t shift,
	   uint64_t *next_sweep, unsigned ms, struct window *w)
{
	uint64_t hz = rte_get_tsc_hz(), end = rte_rdtsc() + hz / 1000 * ms;
	uint64_t hits0 = pmd->stats.mark_hits;
	uint64_t fb0 = pmd->stats.mark_fallbacks, up0 = pmd->stats.upcalls;
	uint64_t emc0 = pmd->stats.emc_hits;
	uint64_t prun0, pwait0, orun0, owait0;
	struct offload_mgr_stats st0, st1;
	struct pkt_batch b;

	memset(w, 0, sizeof *w);
	offload_mgr_get_stats(m, &st0);
	sched_ns(th->pmd, &prun0, &pwait0);
	sched_ns(th->offload, &orun0, &owait0);
	for (uint64_t now = rte_rdtsc(); now < end; now = rte_rdtsc()) {
		if (now >= *next_sweep) {
			/* the offload thread's destroys wait for this
			 * thread's grace period: none is due while it
			 * sweeps (it reads no rule) */
			rte_rcu_qsbr_thread_offline(pmd_qsbr, pmd->idx);
			dp_expire_idle(&pmd->dp, now);
			w->sweep_cycles += rte_rdtsc() - now;
			rte_rcu_qsbr_thread_online(pmd_qsbr, pmd->idx);
			*next_sweep = now + hz / 1000 * SWEEP_MS;
		}
		uint64_t t0 = rte_rdtsc();
		if (refill(&b, k, shift, nic))
			return -1;
		uint64_t t1 = rte_rdtsc();
		dp_process_burst(&pmd->dp, src->nic_port, &b);
		uint64_t t2 = rte_rdtsc();
		dp_tx_flush_due(&pmd->dp, t2);
		uint64_t t3 = rte_rdtsc();
		dp_offload_poll(&pmd->dp);
		uint64_t t4 = rte_rdtsc();
		w->refill_cycles += t1 - t0;
		w->proc_cycles += t2 - t1;
		w->flush_cycles += t3 - t2;
		w->poll_cycles += t4 - t3;
		w->cycles += t4 - t1;
		w->packets += BATCH_MAX;
		rte_rcu_qsbr_quiescent(pmd_qsbr, pmd->idx);
	}
	w->mark_hits = pmd->stats.mark_hits - hits0;
	w->fallbacks = pmd->stats.mark_fallbacks - fb0;
	w->upcalls = pmd->stats.upcalls - up0;
	w->emc_hits = pmd->stats.emc_hits - emc0;
	sched_ns(th->pmd, &w->pmd_run_ns, &w->pmd_wait_ns);
	w->pmd_run_ns -= prun0;
	w->pmd_wait_ns -= pwait0;
	uint64_t orun1, owait1;
	sched_ns(th->offload, &orun1, &owait1);
	w->ofl_run_ns = orun1 - orun0;
	offload_mgr_get_stats(m, &st1);
	w->evictions = st1.evictions - st0.evictions;
	w->created = st1.created - st0.created;
	w->destroyed = st1.destroyed - st0.destroyed;
	return 0;
}

/* Every megaflow goes, with its DELs (retried until the ring took them
 * all), so that the next run starts from an empty NIC. Offline: the
 * destroys wait for grace periods. */
static void
drain(struct pmd *pmd, struct offload_mgr *m)
{
	pmd_flush_flows(pmd);
	for (int i = 0; i < 20000 && (pmd->dp.n_del_retry ||
				      offload_mgr_queue_depth(m)); i++) {
		dp_offload_poll(&pmd->dp);
		usleep(100);
	}
	dp_offload_poll(&pmd->dp);
}

static int
run_mode(struct pmd *pmd, const struct traffic_src *src,
	 enum offload_admission mode, struct mode_run *out)
{
	struct fdir_model_limits lim = { .guar = MAX_MARKS, .n_ports = 1,
					 .n_rxq = 1 };
	struct fdir_model_pool *pool = fdir_model_pool_create(0);
	struct fdir_model *nic = NULL;
	struct offload_mgr *m = NULL;
	int rc = -1;

	pid_t before[64], after[64];
	unsigned nb = list_tasks(before, RTE_DIM(before));
	struct threads th = { .pmd = (pid_t)syscall(SYS_gettid) };

	lim.pool = pool;
	nic = pool ? fdir_model_create(UINT16_MAX, &lim, pmd_qsbr) : NULL;
	/* as the daemon registers it on the port (ice has none of its own:
	 * without it every VXLAN create fails) */
	if (nic && fdir_model_udp_tunnel_port_add(nic, ICE_FDIR_VXLAN_PORT)) {
		fdir_model_free(nic);
		nic = NULL;
	}
	struct offload_mgr_params mp = {
		.name = "dpbench-zipf", .engine = OFFLOAD_ENGINE_MODEL,
		.model = nic, .n_pmds = 1, .max_marks = MAX_MARKS,
		.target = { .tunnel_port = ICE_FDIR_VXLAN_PORT },
		.max_inserts_per_sec = INSERTS_PER_SEC, .insert_burst = 64,
		.admission = mode,
	};
	m = nic ? offload_mgr_create(&mp) : NULL;
	if (!m || dp_offload_attach(&pmd->dp, m)) {
		fprintf(stderr, "dpbench: cannot set up the offload model\n");
		goto out;
	}
	th.offload = new_task(before, nb, after,
			      list_tasks(after, RTE_DIM(after)));
	/* DPBENCH_ZIPF_SHARED_CPU=1: left on the PMD's CPU, to see what
	 * that costs */
	const char *shared = getenv("DPBENCH_ZIPF_SHARED_CPU");
	out->offload_cpu = shared && *shared == '1' ? -1 :
			   offload_off_pmd_cpu(th.offload);
	uint64_t k = 0, next_sweep = 0;
	for (int i = 0; i < N_WINDOWS; i++) {
		uint32_t shift = i >= (WARM_S + 1) * 1000 / WINDOW_MS ?
				 n_flows / 2 : 0;
		if (run_window(pmd, src, nic, m, &th, &k, shift, &next_sweep,
			       WINDOW_MS, &out->w[i])) {
			fprintf(stderr, "dpbench: out of mbufs\n");
			goto out;
		}
	}
	offload_mgr_get_stats(m, &out->st);
	rc = 0;
out:
	rte_rcu_qsbr_thread_offline(pmd_qsbr, pmd->idx);
	if (pmd->dp.offload) {
		drain(pmd, m);
		dp_offload_detach(&pmd->dp);
	}
	offload_mgr_destroy(m);
	fdir_model_free(nic);
	fdir_model_pool_free(pool);
	rte_rcu_qsbr_thread_online(pmd_qsbr, pmd->idx);
	return rc;
}

static double
share(const struct window *w, int from, int to)
{
	uint64_t p = 0, h = 0;
	for (int i = from; i < to; i++) {
		p += w[i].packets;
		h += w[i].mark_hits;
	}
	return p ? 100.0 * h / p : 0;
}

static double
cpp(const struct window *w, int from, int to, bool sweep)
{
	uint64_t p = 0, c = 0;
	for (int i = from; i < to; i++) {
		p += w[i].packets;
		c += sweep ? w[i].sweep_cycles : w[i].cycles;
	}
	return p ? (double)c / p : 0;
}

/* Per window, where the time went: the PMD loop's cycles per packet by
 * part (burst, tx flush, offload poll, sweep; refill is the bench's
 * "NIC"), the PMD thread's share of the wall time on a CPU and waiting
 * for one (the kernel's schedstat), the offload thread's CPU share, and
 * the manager's evictions, creates and destroys. */
static void
print_where(const char *name, const struct window *w)
{
	printf("%s: where the time went per %u ms window (cycles/pkt: burst "
	       "+ tx flush + offload poll | sweep | refill; %% of the wall "
	       "time):\n", name, WINDOW_MS);
	for (int i = 0; i < N_WINDOWS; i++) {
		double p = w[i].packets ? (double)w[i].packets : 1;
		double wall_ns = WINDOW_MS * 1e6;
		printf("  %4.1f s  Mpps %.2f  %4.0f + %3.0f + %3.0f | %4.0f | "
		       "%3.0f  PMD on CPU %3.0f %% waiting %3.0f %%  offload "
		       "thread %3.0f %%  evictions %4lu created %5lu destroyed "
		       "%5lu\n", (i + 1) * WINDOW_MS / 1000.0,
		       w[i].packets / (WINDOW_MS * 1e3),
		       w[i].proc_cycles / p, w[i].flush_cycles / p,
		       w[i].poll_cycles / p, w[i].sweep_cycles / p,
		       w[i].refill_cycles / p,
		       100 * w[i].pmd_run_ns / wall_ns,
		       100 * w[i].pmd_wait_ns / wall_ns,
		       100 * w[i].ofl_run_ns / wall_ns,
		       (unsigned long)w[i].evictions,
		       (unsigned long)w[i].created,
		       (unsigned long)w[i].destroyed);
	}
}

static void
print_s(double s, double ideal, const struct mode_run r[2])
{
	const int steady = WARM_S * 1000 / WINDOW_MS;	/* the 1 s window */
	const int shifted = steady + 1000 / WINDOW_MS;
	static const char *const names[2] = { "fifo", "weight" };

	printf("\nZipf s = %.2f, %u flows, %u NIC rules: the hottest %u "
	       "flows carry %.1f %% of the packets\n", s, n_flows, MAX_MARKS,
	       MAX_MARKS, 100 * ideal);
	printf("| admission | mark share | cycles/pkt | sweep cycles/pkt | "
	       "offload thread CPU | after shift: 0-1 s | 2-3 s | 5-6 s | "
	       "9-10 s | cycles/pkt 9-10 s | evictions | evictions/s 8-10 s "
	       "| rules | refused (capacity) | ADDs dropped (ring full) |\n"
	       "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	       "---:|---:|---:|\n");
	for (int a = 0; a < 2; a++) {
		const struct window *w = r[a].w;
		uint64_t ev = 0, ofl = 0;
		for (int i = N_WINDOWS - 4; i < N_WINDOWS; i++)
			ev += w[i].evictions;
		for (int i = steady; i < shifted; i++)
			ofl += w[i].ofl_run_ns;
		printf("| %s | %.1f %% | %.0f | %.1f | %.0f %% (%s) | %.1f %% | "
		       "%.1f %% | %.1f %% | %.1f %% | %.0f | %lu | %.0f | %lu | "
		       "%lu | %lu |\n", names[a],
		       share(w, steady, shifted), cpp(w, steady, shifted, 0),
		       cpp(w, steady, shifted, 1),
		       100.0 * ofl / (1e6 * (shifted - steady) * WINDOW_MS),
		       r[a].offload_cpu < 0 ? "PMD's CPU" : "own CPU",
		       share(w, shifted, shifted + 2),
		       share(w, shifted + 4, shifted + 6),
		       share(w, shifted + 10, shifted + 12),
		       share(w, N_WINDOWS - 2, N_WINDOWS),
		       cpp(w, N_WINDOWS - 2, N_WINDOWS, 0),
		       (unsigned long)r[a].st.evictions,
		       ev / (4 * WINDOW_MS / 1000.0),
		       (unsigned long)r[a].st.installed,
		       (unsigned long)r[a].st.failed[OFFLOAD_FAIL_CAPACITY],
		       (unsigned long)r[a].st.dropped_requests);
	}
	printf("mark share per %u ms window (fifo / weight; the hot set "
	       "moves at %d s):\n", WINDOW_MS, WARM_S + 1);
	for (int i = 0; i < N_WINDOWS; i++)
		printf("  %4.1f s  %5.1f %%  %5.1f %%  (Mpps %.2f / %.2f, "
		       "cycles/pkt %.0f / %.0f, upcalls %lu / %lu, mark "
		       "fallbacks %lu / %lu, emc hits %lu / %lu)\n",
		       (i + 1) * WINDOW_MS / 1000.0, share(r[0].w, i, i + 1),
		       share(r[1].w, i, i + 1),
		       r[0].w[i].packets / (WINDOW_MS * 1e3),
		       r[1].w[i].packets / (WINDOW_MS * 1e3),
		       cpp(r[0].w, i, i + 1, 0), cpp(r[1].w, i, i + 1, 0),
		       r[0].w[i].upcalls, r[1].w[i].upcalls,
		       r[0].w[i].fallbacks, r[1].w[i].fallbacks,
		       r[0].w[i].emc_hits, r[1].w[i].emc_hits);
	for (int a = 0; a < 2; a++)
		print_where(names[a], r[a].w);
}

int
zipf_bench(struct pmd *pmd, const struct traffic_src *src,
	   const char *s_list, uint32_t flows)
{
	struct mode_run *r = calloc(2, sizeof *r);
	char *list = strdup(s_list), *save = NULL;
	int rc = -1;

	if (!r || !list || build_flows(flows))
		goto out;
	/* this thread is the PMD: its grace periods let the model free
	 * destroyed rules its marking may still read */
	rte_rcu_qsbr_thread_register(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_online(pmd_qsbr, pmd->idx);
	printf("dpbench --zipf: 1 PMD, %u microflows (one inner megaflow "
	       "each), %u NIC rules (model), %u inserts/s, sweep every %d "
	       "ms, TSC %.2f GHz\n", flows, MAX_MARKS, INSERTS_PER_SEC,
	       SWEEP_MS, rte_get_tsc_hz() / 1e9);
	for (char *tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		double s = strtod(tok, NULL);
		if (!(s > 0 && s < 4)) {
			fprintf(stderr, "dpbench: bad --zipf s '%s'\n", tok);
			goto out_thread;
		}
		double ideal = build_samples(s, flows);
		if (ideal < 0 ||
		    run_mode(pmd, src, OFFLOAD_ADMIT_FIFO, &r[0]) ||
		    run_mode(pmd, src, OFFLOAD_ADMIT_WEIGHT, &r[1]))
			goto out_thread;
		print_s(s, ideal, r);
		fflush(stdout);
	}
	rc = 0;
out_thread:
	rte_rcu_qsbr_thread_offline(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_unregister(pmd_qsbr, pmd->idx);
out:
	free(r);
	free(list);
	free(zflows);
	free(samples);
	return rc;
}
