/* SPDX-License-Identifier: BSD-3-Clause
 * ctbench --threads: what sharing the session table between PMDs costs.
 * The two directions of a connection may be received by different PMDs
 * (the NIC's RSS and a VM's queue are unrelated), so two lcores look up,
 * lock and refresh the same sessions. For each size, established UDP
 * sessions are looked up at random, bursts of 32, and each lcore times
 * its conntrack_execute() calls alone:
 *
 *   1 lcore              the baseline, no sharing
 *   2 lcores, disjoint   each its own half of the sessions (the table,
 *                        its buckets and the pool are still shared)
 *   2 lcores, opposite   the same sessions, lcore 0 the original
 *                        direction, lcore 1 the replies: the worst case
 *                        for the per-session spinlock and cache line
 *   2 lcores, same       the same sessions, both the original direction
 *
 * Two lcores on a 2-core host shared with other work measure contention
 * only roughly: the table says so and gives the per-lcore figures.
 */
#include <inttypes.h>
#include <stdio.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include "ctbench.h"

enum share { SHARE_NONE, SHARE_DISJOINT, SHARE_OPPOSITE, SHARE_SAME };

struct worker {
	struct conntrack *ct;
	struct rte_mbuf *pk[BURST];
	struct ct_pkt_meta mt[BURST];
	uint32_t first, n;	/* sessions [first, first + n) */
	bool reply;
	uint64_t count;		/* packets to send */
	uint64_t rng;
	uint64_t cycles;	/* in conntrack_execute */
	uint64_t bad;		/* verdicts other than +est */
	volatile bool *go;
};

static int
worker_run(void *arg)
{
	struct worker *w = arg;
	uint8_t st[BURST];
	uint8_t want = CS_TRACKED | CS_ESTABLISHED |
		       (w->reply ? CS_REPLY_DIR : 0);

	while (!*w->go)
		rte_pause();
	for (uint64_t done = 0; done < w->count; done += BURST) {
		for (int i = 0; i < BURST; i++)
			set_tuple(w->pk[i], &w->mt[i],
				  w->first + rnd_next(&w->rng) % w->n,
				  w->reply);
		uint64_t t0 = rte_rdtsc();
		conntrack_execute(w->ct, w->pk, w->mt, BURST, 1, false, NULL,
				  t0, st, NULL);
		w->cycles += rte_rdtsc() - t0;
		for (int i = 0; i < BURST; i++)
			w->bad += st[i] != want;
	}
	return 0;
}

static void
worker_init(struct worker *w, struct conntrack *ct, uint64_t seed)
{
	memset(w, 0, sizeof *w);
	w->ct = ct;
	w->rng = seed;
	for (int i = 0; i < BURST; i++)
		w->pk[i] = make_pkt(IPPROTO_UDP, &w->mt[i]);
}

static void
worker_fini(struct worker *w)
{
	rte_pktmbuf_free_bulk(w->pk, BURST);
}

/* Every session created by lcore 0 and answered once: established. */
static uint64_t
establish(struct worker *w, uint32_t n)
{
	uint8_t st[BURST];
	uint64_t bad = 0;

	for (int reply = 0; reply < 2; reply++)
		for (uint32_t s = 0; s < n; s += BURST) {
			uint16_t k = (uint16_t)RTE_MIN(n - s, (uint32_t)BURST);
			for (uint16_t i = 0; i < k; i++)
				set_tuple(w->pk[i], &w->mt[i], s + i, reply);
			conntrack_execute(w->ct, w->pk, w->mt, k, 1, !reply,
					  NULL, rte_rdtsc(), st, NULL);
			for (uint16_t i = 0; i < k; i++)
				bad += !(st[i] & (reply ? CS_ESTABLISHED
							: CS_NEW));
		}
	return bad;
}

static void
run_case(struct worker w[2], enum share share, uint32_t n, uint64_t count,
	 unsigned lcore1, const char *name, double hz)
{
	static volatile bool go;
	bool two = share != SHARE_NONE;

	for (int k = 0; k < 2; k++) {
		w[k].cycles = w[k].bad = 0;
		w[k].count = count;
		w[k].go = &go;
		w[k].first = share == SHARE_DISJOINT && k ? n / 2 : 0;
		w[k].n = share == SHARE_DISJOINT ? n / 2 : n;
		w[k].reply = share == SHARE_OPPOSITE && k;
	}
	go = false;
	if (two)
		rte_eal_remote_launch(worker_run, &w[1], lcore1);
	uint64_t t0 = rte_rdtsc();
	go = true;
	worker_run(&w[0]);
	if (two)
		rte_eal_wait_lcore(lcore1);
	uint64_t wall = rte_rdtsc() - t0;
	uint64_t pkts = count * (two ? 2 : 1);
	printf("%10u  %-22s %12.1f %12.1f %12.2f %8" PRIu64 "\n", n, name,
	       (double)w[0].cycles / (double)count,
	       two ? (double)w[1].cycles / (double)count : 0.0,
	       (double)pkts * hz / (double)wall / 1e6,
	       w[0].bad + (two ? w[1].bad : 0));
}

int
ctbench_threads(const uint32_t *sizes, int n_sizes, uint64_t lookups)
{
	unsigned lcore1 = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	double hz = (double)rte_get_tsc_hz();
	struct worker w[2];

	if (lcore1 >= RTE_MAX_LCORE) {
		fprintf(stderr, "ctbench --threads: needs two lcores "
			"(EAL -l 0,1)\n");
		return 1;
	}
	printf("conntrack shared by two lcores (%u, %u), established UDP "
	       "sessions at random, bursts of %d, TSC %.2f GHz, %" PRIu64
	       " lookups per lcore\n", rte_lcore_id(), lcore1, BURST,
	       hz / 1e9, lookups);
	printf("%10s  %-22s %12s %12s %12s %8s\n", "sessions", "case",
	       "lc0 cyc/pkt", "lc1 cyc/pkt", "Mpps total", "bad");
	for (int z = 0; z < n_sizes; z++) {
		uint32_t n = sizes[z] & ~1u;
		char name[32];
		snprintf(name, sizeof name, "ctmt%d", z);
		struct ct_params p = { .max_conns = n,
				       .socket_id = SOCKET_ID_ANY,
				       .name = name };
		struct conntrack *ct = conntrack_create(&p);
		if (!ct) {
			fprintf(stderr, "no memory for %u sessions\n", n);
			return 1;
		}
		worker_init(&w[0], ct, 0x9e3779b97f4a7c15ull);
		worker_init(&w[1], ct, 0x2545f4914f6cdd1dull);
		uint64_t bad = establish(&w[0], n);
		if (bad)
			printf("%10u  %" PRIu64 " sessions not established\n",
			       n, bad);
		run_case(w, SHARE_NONE, n, lookups, lcore1, "1 lcore", hz);
		run_case(w, SHARE_DISJOINT, n, lookups, lcore1,
			 "2 lcores, disjoint", hz);
		run_case(w, SHARE_OPPOSITE, n, lookups, lcore1,
			 "2 lcores, opposite", hz);
		run_case(w, SHARE_SAME, n, lookups, lcore1,
			 "2 lcores, same", hz);
		worker_fini(&w[0]);
		worker_fini(&w[1]);
		conntrack_destroy(ct);
	}
	return 0;
}
