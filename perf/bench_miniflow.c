/* SPDX-License-Identifier: BSD-3-Clause
 * Micro-benchmark: generic miniflow_extract vs miniflow_extract_fast (and
 * the batch stage both ways) on one burst of 32 eth/ipv4/udp packets of
 * 128 bytes, 32 different flows, headers hot in cache. Prints TSC cycles
 * per packet, the median of many timed bursts less the timer's own cost.
 * No EAL: the mbufs are laid out by hand in static memory.
 *
 *   build/perf/bench_miniflow [bursts]          # default 20000 bursts
 *   taskset -c 1 build/perf/bench_miniflow      # steadier numbers
 *
 * Instructions per packet (variant: generic|fast|batch-generic|batch-fast;
 * Ir of PROGRAM TOTALS / (1000 * 32), one line):
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_run --callgrind-out-file=/tmp/cg.out build/perf/bench_miniflow 1000 fast && callgrind_annotate /tmp/cg.out | grep 'PROGRAM TOTALS'
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "miniflow.h"

#define N_PKTS 32
#define PKT_LEN 128
#define BUF_SIZE 512

struct bench_buf {
	struct rte_mbuf m;
	uint8_t data[BUF_SIZE];
} __rte_cache_aligned;

static struct bench_buf bufs[N_PKTS];
static struct rte_mbuf *pkts[N_PKTS];
static struct flow_key keys[N_PKTS];

enum variant { V_GENERIC, V_FAST, V_BATCH_GENERIC, V_BATCH_FAST, V_NONE };
static const char *const variant_names[] = {
	"generic", "fast", "batch-generic", "batch-fast", "timer-only"
};

static void
build_packets(void)
{
	for (int i = 0; i < N_PKTS; i++) {
		struct rte_mbuf *m = &bufs[i].m;
		memset(m, 0, sizeof *m);
		m->buf_addr = bufs[i].data;
		m->buf_len = BUF_SIZE;
		m->data_off = RTE_PKTMBUF_HEADROOM;
		m->data_len = PKT_LEN;
		m->pkt_len = PKT_LEN;
		m->nb_segs = 1;
		m->packet_type = 0;	/* as after decap / from vhost */

		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
		static const uint8_t hdr[42] = {
			0x02, 0, 0, 0, 0, 0x01,	/* dst */
			0x02, 0, 0, 0, 0, 0x02,	/* src */
			0x08, 0x00,
			0x45, 0x00, 0, PKT_LEN - 14, 0x12, 0x34, 0x40, 0x00,
			64, 17, 0, 0,
			10, 0, 0, 1,		/* src ip */
			10, 0, 1, 0,		/* dst ip */
			0x13, 0x88, 0x12, 0xb5,	/* 5000 -> 4789 */
			0, PKT_LEN - 34, 0, 0,
		};
		memcpy(p, hdr, sizeof hdr);
		memset(p + sizeof hdr, 0xab, PKT_LEN - sizeof hdr);
		p[33] = (uint8_t)i;		/* 32 flows */
		p[35] = (uint8_t)(i * 7);
		pkts[i] = m;
	}
	for (int i = 0; i < N_PKTS; i++)
		memset(&keys[i], 0, sizeof keys[i]);
}

/* One burst; noinline so callgrind can collect just this. */
__rte_noinline void bench_run(enum variant v);
__rte_noinline void
bench_run(enum variant v)
{
	struct pkt_batch b, mal;
	int bad = 0;

	switch (v) {
	case V_GENERIC:
		for (int i = 0; i < N_PKTS; i++)
			bad |= miniflow_extract(pkts[i], &keys[i]) < 0;
		break;
	case V_FAST:
		for (int i = 0; i < N_PKTS; i++)
			bad |= miniflow_extract_fast(pkts[i], &keys[i]) < 0;
		break;
	case V_BATCH_GENERIC:
	case V_BATCH_FAST:
		b.n = N_PKTS;
		memcpy(b.pkts, pkts, sizeof pkts);
		pkt_batch_init(&mal);
		bad = miniflow_extract_batch(&b, keys, &mal,
					     v == V_BATCH_FAST) != 0;
		break;
	case V_NONE:
		break;
	}
	if (unlikely(bad)) {
		printf("benchmark packet malformed\n");
		exit(1);
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static uint64_t
median_ticks(enum variant v, unsigned bursts, uint64_t *samples)
{
	for (int w = 0; w < 1000; w++)	/* warm caches and predictors */
		bench_run(v);
	for (unsigned r = 0; r < bursts; r++) {
		uint64_t t0 = rte_rdtsc_precise();
		bench_run(v);
		samples[r] = rte_rdtsc_precise() - t0;
	}
	qsort(samples, bursts, sizeof *samples, cmp_u64);
	return samples[bursts / 2];
}

int
main(int argc, char **argv)
{
	unsigned bursts = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 0;
	if (bursts == 0)
		bursts = 20000;
	build_packets();

	/* one variant, untimed: for callgrind */
	if (argc > 2) {
		for (int v = 0; v < V_NONE; v++) {
			if (strcmp(argv[2], variant_names[v]) != 0)
				continue;
			for (unsigned r = 0; r < bursts; r++)
				bench_run(v);
			printf("%s: %u bursts of %d packets\n", argv[2],
			       bursts, N_PKTS);
			return 0;
		}
		printf("unknown variant %s\n", argv[2]);
		return 2;
	}

	/* the two extractors must agree before timing means anything */
	struct flow_key g, f;
	for (int i = 0; i < N_PKTS; i++) {
		memset(&g, 0, sizeof g);
		memset(&f, 0, sizeof f);
		if (miniflow_extract(pkts[i], &g) < 0 ||
		    miniflow_extract_fast(pkts[i], &f) < 0 ||
		    memcmp(&g, &f, sizeof g) != 0 ||
		    !miniflow_extract_fast_only(pkts[i], &f)) {
			printf("fast and generic disagree on packet %d\n", i);
			return 1;
		}
	}

	uint64_t *samples = malloc(bursts * sizeof *samples);
	if (samples == NULL)
		return 2;
	uint64_t timer = median_ticks(V_NONE, bursts, samples);
	printf("%d x %d-byte eth/ipv4/udp, median of %u bursts, TSC ticks,"
	       " timer %" PRIu64 " ticks/burst subtracted\n",
	       N_PKTS, PKT_LEN, bursts, timer);
	for (int v = 0; v < V_NONE; v++) {
		uint64_t t = median_ticks(v, bursts, samples);
		double per = t > timer ? (double)(t - timer) / N_PKTS : 0;
		printf("  %-14s %6.1f cycles/packet\n", variant_names[v], per);
	}
	free(samples);
	return 0;
}
