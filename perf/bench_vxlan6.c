/* SPDX-License-Identifier: BSD-3-Clause
 * Micro-benchmark: the VXLAN stages over an IPv4 and an IPv6 underlay
 * (doc/design-ipv6-underlay.md, step 10's stage half), on one burst of 32
 * inner eth/ipv4/udp frames of 78 bytes (dpbench's), 32 flows, hot in
 * cache:
 *   encap4, encap6        vxlan_encap_batch with a 50- or 70-byte
 *                         template (IPv6: the UDP checksum in software);
 *   decap4                vxlan_decap_extract_trusted (the tnl_pop stage's
 *                         loop, fast extract), UDP checksum 0 as our IPv4
 *                         encap and Linux send it;
 *   decap6                vxlan_decap6_extract, the checksum verified;
 *   decap6-nic            the same, the NIC having verified it;
 *   decap6-csum0          the same, a zero checksum (udp6zerocsumrx).
 * Prints TSC cycles per packet, the median of many timed bursts less the
 * timer's own cost (the frames are restored between bursts, untimed). No
 * EAL: the mbufs are laid out by hand in static memory.
 *
 *   build/perf/bench_vxlan6 [bursts]          # default 20000 bursts
 *   taskset -c 1 build/perf/bench_vxlan6      # steadier numbers
 *
 * Instructions per packet of one variant (Ir of PROGRAM TOTALS /
 * (1000 * 32)):
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_run --callgrind-out-file=/tmp/cg.out build/perf/bench_vxlan6 1000 decap6 && callgrind_annotate /tmp/cg.out | grep 'PROGRAM TOTALS'
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "vxlan_decap.h"
#include "vxlan_encap.h"
#include "vxlan_tnl.h"

#define N_PKTS 32
#define INNER_LEN 78
#define BUF_SIZE 512
#define TNL_OFPORT 3

struct bench_buf {
	struct rte_mbuf m;
	uint8_t data[BUF_SIZE];
} __rte_cache_aligned;

static struct bench_buf bufs[N_PKTS];
static struct rte_mbuf *pkts[N_PKTS];
static struct flow_key keys[N_PKTS];
static uint32_t hashes[N_PKTS];
static struct vxlan_tnl_template tmpl4, tmpl6;
/* each variant's frames as they enter it, restored before each burst */
static uint8_t inner[N_PKTS][INNER_LEN];
static uint8_t outer4[N_PKTS][INNER_LEN + VXLAN_TNL_HDR_LEN];
static uint8_t outer6[N_PKTS][INNER_LEN + VXLAN_TNL6_HDR_LEN];

enum variant { V_ENCAP4, V_ENCAP6, V_DECAP4, V_DECAP6, V_DECAP6_NIC,
	       V_DECAP6_CSUM0, V_NONE };
static const char *const variant_names[] = {
	"encap4", "encap6", "decap4", "decap6", "decap6-nic", "decap6-csum0",
	"timer-only"
};

static void
build_inner(void)
{
	static const uint8_t hdr[42] = {
		0x52, 0x54, 0, 0, 0, 0x01, 0xa0, 0, 0, 0, 0, 0x02, 0x08, 0x00,
		0x45, 0x00, 0, INNER_LEN - 14, 0, 0, 0x40, 0x00, 64, 17, 0, 0,
		192, 2, 0, 0, 192, 1, 0, 0,		/* remote -> VM */
		0x9c, 0x40, 0x13, 0x89, 0, INNER_LEN - 34, 0, 0,
	};
	for (int i = 0; i < N_PKTS; i++) {
		memcpy(inner[i], hdr, sizeof hdr);
		memset(inner[i] + sizeof hdr, 0xab, INNER_LEN - sizeof hdr);
		inner[i][33] = (uint8_t)i;		/* 32 flows */
		hashes[i] = 0x9e3779b9u * (uint32_t)(i + 1);
	}
}

/* m holds len bytes of frame at the usual headroom */
static void
load(struct rte_mbuf *m, void *data, const uint8_t *frame, uint16_t len,
     uint64_t ol_flags)
{
	memset(m, 0, sizeof *m);
	m->buf_addr = data;
	m->buf_len = BUF_SIZE;
	m->data_off = RTE_PKTMBUF_HEADROOM;
	m->data_len = m->pkt_len = len;
	m->nb_segs = 1;
	m->ol_flags = ol_flags;
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), frame, len);
}

/* The frames variant v starts from. */
static void
restore(enum variant v)
{
	for (int i = 0; i < N_PKTS; i++) {
		struct rte_mbuf *m = &bufs[i].m;

		switch (v) {
		case V_DECAP4:
			load(m, bufs[i].data, outer4[i], sizeof outer4[i], 0);
			break;
		case V_DECAP6:
		case V_DECAP6_CSUM0:
			load(m, bufs[i].data, outer6[i], sizeof outer6[i], 0);
			break;
		case V_DECAP6_NIC:
			load(m, bufs[i].data, outer6[i], sizeof outer6[i],
			     RTE_MBUF_F_RX_L4_CKSUM_GOOD);
			break;
		default:
			load(m, bufs[i].data, inner[i], INNER_LEN, 0);
			break;
		}
		pkts[i] = m;
	}
	if (v == V_DECAP6_CSUM0)
		for (int i = 0; i < N_PKTS; i++)
			memset(rte_pktmbuf_mtod_offset(pkts[i], uint8_t *,
						       VXLAN_TNL6_UDP_OFF + 6),
			       0, 2);
}

/* One burst; noinline so callgrind can collect just this. */
__rte_noinline void bench_run(enum variant v);
__rte_noinline void
bench_run(enum variant v)
{
	struct pkt_batch b, bad, mal;
	struct vxlan_decap6_out out6;
	static uint16_t ip_id;
	bool ext = false;
	unsigned kept = N_PKTS;

	b.n = N_PKTS;
	memcpy(b.pkts, pkts, sizeof pkts);
	pkt_batch_init(&bad);
	pkt_batch_init(&mal);
	switch (v) {
	case V_ENCAP4:
	case V_ENCAP6:
		vxlan_encap_batch(&b, v == V_ENCAP4 ? &tmpl4 : &tmpl6, hashes,
				  &ip_id, &bad);
		kept = b.n;
		break;
	case V_DECAP4:
		vxlan_decap_extract_trusted(&b, keys, TNL_OFPORT, &bad, &mal,
					    true, &ext);
		kept = b.n;
		break;
	case V_DECAP6:
	case V_DECAP6_NIC:
	case V_DECAP6_CSUM0:
		pkt_batch_init(&out6.bad);
		pkt_batch_init(&out6.zero_csum_refused);
		pkt_batch_init(&out6.malformed);
		out6.zero_csum_accepted = 0;
		vxlan_decap6_extract(&b, keys, TNL_OFPORT, true, &out6, true);
		kept = b.n;
		break;
	case V_NONE:
		break;
	}
	if (unlikely(kept != N_PKTS)) {
		printf("%s: %u of %d packets refused\n", variant_names[v],
		       N_PKTS - kept, N_PKTS);
		exit(1);
	}
}

/* The outer frames: the real encap's output, once. */
static void
build_outer(void)
{
	static const struct rte_ether_addr vtep = { { 0x10, 0, 0, 0, 0, 1 } },
		remote = { { 0x10, 0, 0, 0, 0, 2 } };
	static const struct flow_in6_addr src6 = { {
		0xfd, 0, 0x01, 0x72, [15] = 0 } }, dst6 = { {
		0xfd, 0, 0x01, 0x72, [14] = 0x01, [15] = 0 } };

	vxlan_tnl_template_build(&tmpl4, &vtep, &remote,
				 rte_cpu_to_be_32(RTE_IPV4(172, 1, 0, 100)),
				 rte_cpu_to_be_32(RTE_IPV4(172, 1, 0, 0)),
				 1001, 4789, 64, false);
	vxlan_tnl_template_build6(&tmpl6, &vtep, &remote, &dst6, &src6, 1001,
				  4789, 64, 0);
	/* decap's frames come from the remote: the same headers reversed
	 * would do as well; the template's own are what encap writes */
	restore(V_ENCAP4);
	bench_run(V_ENCAP4);
	for (int i = 0; i < N_PKTS; i++)
		memcpy(outer4[i], rte_pktmbuf_mtod(pkts[i], uint8_t *),
		       sizeof outer4[i]);
	restore(V_ENCAP6);
	bench_run(V_ENCAP6);
	for (int i = 0; i < N_PKTS; i++)
		memcpy(outer6[i], rte_pktmbuf_mtod(pkts[i], uint8_t *),
		       sizeof outer6[i]);
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
	for (int w = 0; w < 1000; w++) {	/* caches and predictors */
		restore(v);
		bench_run(v);
	}
	for (unsigned r = 0; r < bursts; r++) {
		restore(v);
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
	const char *only = argc > 2 ? argv[2] : NULL;

	if (bursts == 0)
		bursts = 20000;
	build_inner();
	build_outer();
	if (only) {	/* one variant, for callgrind */
		for (enum variant v = 0; v < V_NONE; v++)
			if (!strcmp(only, variant_names[v])) {
				for (unsigned r = 0; r < bursts; r++) {
					restore(v);
					bench_run(v);
				}
				return 0;
			}
		fprintf(stderr, "unknown variant '%s'\n", only);
		return 1;
	}
	uint64_t *samples = malloc(bursts * sizeof *samples);
	if (!samples)
		return 1;
	uint64_t timer = median_ticks(V_NONE, bursts, samples);

	char cpu[256] = "?", line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "model name", 10)) {
			snprintf(cpu, sizeof cpu, "%s", strchr(line, ':') + 2);
			cpu[strcspn(cpu, "\n")] = '\0';
			break;
		}
	if (f)
		fclose(f);
	printf("host: %s; %d packets a burst of %d-byte inner frames, %u "
	       "bursts\n", cpu, N_PKTS, INNER_LEN, bursts);
	printf("%-14s %14s\n", "variant", "cycles/packet");
	for (enum variant v = 0; v < V_NONE; v++) {
		uint64_t t = median_ticks(v, bursts, samples);
		printf("%-14s %14.1f\n", variant_names[v],
		       (double)(t > timer ? t - timer : 0) / N_PKTS);
	}
	free(samples);
	return 0;
}
