/* SPDX-License-Identifier: BSD-3-Clause
 * The dpcls subtable lookup alone, in instructions per key under callgrind
 * (perf/dpcls_hostile.sh), for one 5-tuple subtable (the specialised
 * dpcls_lookup_w0w3w4w5) holding N megaflows:
 *
 *   random   N megaflows of random 5-tuples (the ordinary case);
 *   hostile  N megaflows whose keys all had one subtable hash under the
 *            old unkeyed CRC32-C (tests/unit/dpcls_collide.h), as a
 *            tenant whose rules make a megaflow per 5-tuple can choose.
 *
 * Every installed key is looked up, in batches of 32, PASSES times; only
 * the lookups are collected (CALLGRIND_TOGGLE_COLLECT), each configuration
 * ends in its own dump named "dpcls MODE N keys=K". Uses only dpcls's
 * public calls, so the same file builds against the classifier before the
 * hash was keyed (perf/dpcls_hostile.sh builds both).
 *
 *   dpcls_hostile [N,...]   (default 16,256,1024,4096)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_eal.h>
#include <rte_cycles.h>
#include "dpcls.h"
#include "../tests/unit/dpcls_collide.h"

#ifdef HAVE_CALLGRIND_H
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif

#define PASSES 4

static uint64_t rng = 0x5eedc1a55ull;

static uint64_t
rnd64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void
run(const char *mode, unsigned n)
{
	struct collide_gen g;
	struct flow_key *keys = aligned_alloc(64, n * sizeof *keys);
	struct megaflow **f = calloc(n, sizeof *f);
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, n);
	bool hostile = !strcmp(mode, "hostile");
	unsigned installed = 0, found = 0;
	char name[96];

	if (!keys || !f || !cls || collide_init(&g, 7)) {
		fprintf(stderr, "dpcls_hostile: setup failed\n");
		exit(1);
	}
	for (unsigned i = 0; i < n; i++) {
		if (hostile) {
			keys[i] = *collide_next(&g);
		} else {
			keys[i] = g.base;
			keys[i].nw_dst = (rte_be32_t)rnd64();
			keys[i].tp_src = (rte_be16_t)rnd64();
			keys[i].tp_dst = (rte_be16_t)rnd64();
		}
		f[i] = aligned_alloc(64, RTE_ALIGN(sizeof **f, 64));
		memset(f[i], 0, sizeof **f);
		f[i]->key = keys[i];
		installed += dpcls_insert(cls, f[i], &g.mask) == 0;
	}
	uint64_t t0 = rte_rdtsc();

	CALLGRIND_TOGGLE_COLLECT;
	for (int p = 0; p < PASSES; p++)
		for (unsigned b = 0; b < n; b += 32) {
			unsigned m = RTE_MIN(32u, n - b);
			uint32_t map = m == 32 ? UINT32_MAX : (1u << m) - 1;
			struct megaflow *got[32];

			found += m - __builtin_popcount(
				dpcls_lookup(cls, &keys[b], map, got));
		}
	CALLGRIND_TOGGLE_COLLECT;
	uint64_t cyc = rte_rdtsc() - t0;

	snprintf(name, sizeof name, "dpcls %s %u keys=%u", mode, n,
		 n * PASSES);
	CALLGRIND_DUMP_STATS_AT(name);
	printf("%-8s %6u megaflows: %6u installed, %7u of %7u found, "
	       "%7.1f cycles/key", mode, n, installed, found, n * PASSES,
	       (double)cyc / (n * PASSES));
#ifdef DPCLS_MAX_CHAIN
	printf(", longest chain %u, refused %" PRIu64, dpcls_max_chain(cls),
	       dpcls_chain_refused(cls));
#endif
	printf("\n");
	dpcls_destroy(cls);
	for (unsigned i = 0; i < n; i++)
		free(f[i]);
	free(f);
	free(keys);
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], "--no-huge", "--no-pci", "-m", "256",
			"--no-shconf", "--no-telemetry", "--log-level=error",
			"--file-prefix=dpcls_hostile" };
	const char *list = argc > 1 ? argv[1] : "16,256,1024,4096";

	if (rte_eal_init(RTE_DIM(eal), eal) < 0) {
		fprintf(stderr, "dpcls_hostile: EAL init failed\n");
		return 1;
	}
	for (const char *s = list; *s;) {
		char *end;
		unsigned n = (unsigned)strtoul(s, &end, 10);

		if (!n || end == s) {
			fprintf(stderr, "dpcls_hostile: bad list '%s'\n", list);
			return 1;
		}
		run("random", n);
		run("hostile", n);
		s = *end == ',' ? end + 1 : end;
	}
	rte_eal_cleanup();
	return 0;
}
