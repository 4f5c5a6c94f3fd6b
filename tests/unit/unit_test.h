/* SPDX-License-Identifier: BSD-3-Clause
 * What the C unit tests share: counted checks, the closing
 * "N passed, N failed" line meson and CI read, and an EAL that needs no
 * hugepages (mbufs and rte_malloc from plain memory) and leaves no
 * runtime files another test could trip over.
 */
#ifndef VXS_UNIT_TEST_H
#define VXS_UNIT_TEST_H

#include <stdio.h>
#include <unistd.h>
#include <rte_common.h>
#include <rte_eal.h>

/* A test built from several .c files is compiled with -DUNIT_TEST_PARTS
 * and defines the two counters once, in the file with main(), so that all
 * its parts count into the one closing line. */
#ifdef UNIT_TEST_PARTS
extern unsigned n_passed, n_failed;
#else
static unsigned n_passed, n_failed;
#endif

/* Counts; on failure prints where and why (the first 20 in full). */
#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (cond) {                                                    \
			n_passed++;                                            \
		} else if (n_failed++ < 20) {                                  \
			printf("FAIL %s:%d: ", __func__, __LINE__);            \
			printf(__VA_ARGS__);                                   \
			printf("\n");                                          \
		}                                                              \
	} while (0)

/* The condition itself is the message. */
#define CHECK_EXPR(cond) CHECK(cond, "%s", #cond)

/* xorshift64*, the randomized tests' generator: reproducible from the
 * seed in *s (never 0), so a failure replays. */
static inline uint64_t
unit_xorshift64s(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* rte_eal_init for a test named name with mem_mb of plain memory. */
static inline int
unit_test_eal_init(const char *name, const char *mem_mb)
{
	char prefix[96];

	snprintf(prefix, sizeof prefix, "--file-prefix=%s_%d", name,
		 (int)getpid());
	char *args[] = { (char *)name, "--no-huge", "--no-pci", "-m",
			 (char *)mem_mb, "--no-shconf", "--no-telemetry",
			 "--log-level=error", prefix };
	if (rte_eal_init(RTE_DIM(args), args) < 0) {
		printf("%s: EAL init failed\n0 passed, 1 failed\n", name);
		return -1;
	}
	return 0;
}

/* The closing line; the exit code. */
static inline int
unit_test_report(void)
{
	printf("%u passed, %u failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}

#endif
