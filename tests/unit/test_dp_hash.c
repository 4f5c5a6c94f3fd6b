/* SPDX-License-Identifier: BSD-3-Clause
 * The hash stage (app/datapath/dp_hash.h): hash-reuse and its adaptive
 * switch. Proves: every hash equals flow_hash_key() of its key whatever
 * the reuse state; a burst whose comparisons hit less than 1 in 8 stops
 * them for exactly HASH_REUSE_SKIP bursts, after which one burst probes
 * again; a burst that hits often enough (1 in 8 included) keeps them on;
 * without the adaptive state (NULL) nothing changes; dp_flow_hash() (the
 * crc32 instruction, no per-word dispatch) equals DPDK's table-driven
 * software CRC of the same key, so the EMC index and the encap UDP
 * source port are those of flow_hash_key(); dp_key_equal() (vector
 * compares) says what flow_key_equal() says for a difference in any one
 * bit of any word, w7 (not part of the key) included. Keys only: with nic_hash off
 * the stage never reads the mbufs. The pass's line flag (ext): with it
 * clear (every key one line) the one-line loop gives the same hashes and
 * reuse verdicts as the general one, whatever stale bytes line 2 holds;
 * with it set, keys that differ only in line 2 keep their own hashes.
 */
#include <stdio.h>
#include <string.h>
#include "dp_hash.h"
#include "unit_test.h"

#define N 32

/* keys[i] = flow (i / run): run consecutive packets per microflow */
static void
make_burst(struct pkt_batch *b, struct flow_key keys[], unsigned run,
	   unsigned salt)
{
	memset(b, 0, sizeof *b);
	b->n = N;
	for (unsigned i = 0; i < N; i++) {
		flow_key_zero(&keys[i]);
		keys[i].in_port = 3;
		keys[i].nw_src = rte_cpu_to_be_32(0x0a000000u + salt * 64 +
						  i / run);
	}
}

static bool
hashes_right(const struct flow_key keys[], const uint32_t hashes[])
{
	for (unsigned i = 0; i < N; i++)
		if (hashes[i] != flow_hash_key(&keys[i]))
			return false;
	return true;
}

/* One burst with run packets per flow through the stage. */
static void
burst(struct dp_hash_reuse *adapt, unsigned run, unsigned salt)
{
	struct pkt_batch b;
	struct flow_key keys[N];
	uint32_t hashes[N];

	make_burst(&b, keys, run, salt);
	memset(hashes, 0xa5, sizeof hashes);
	/* both loops, alternately: one-line keys, the same verdicts */
	dp_hash_batch(&b, keys, hashes, salt & 1, true, adapt, false);
	CHECK(hashes_right(keys, hashes), "run %u: a hash differs", run);
}

static void
test_distinct_keys_stop_comparing(void)
{
	struct dp_hash_reuse st = { 0 };

	burst(&st, 1, 0);	/* 31 comparisons, no hit */
	CHECK(st.skip == HASH_REUSE_SKIP, "skip %u after a missing burst",
	      st.skip);
	for (unsigned k = 0; k < HASH_REUSE_SKIP; k++)
		burst(&st, 32, k);	/* would hit: not compared */
	CHECK(st.skip == 0, "skip %u after %u bursts", st.skip,
	      HASH_REUSE_SKIP);
	burst(&st, 32, 99);		/* the probe: all hit */
	CHECK(st.skip == 0, "skip %u after a hitting probe", st.skip);
	burst(&st, 1, 7);		/* misses again */
	CHECK(st.skip == HASH_REUSE_SKIP, "skip %u after a second miss",
	      st.skip);
}

static void
test_threshold(void)
{
	struct dp_hash_reuse st = { 0 };

	/* run 8: 4 flows, 28 hits of 31 */
	burst(&st, 8, 0);
	CHECK(st.skip == 0, "28/31 hits stopped comparisons");
	/* run 16: 2 flows, 30 of 31 */
	burst(&st, 16, 1);
	CHECK(st.skip == 0, "30/31 hits stopped comparisons");
	/* run 2: 16 hits of 31, well above 1 in 8 */
	burst(&st, 2, 2);
	CHECK(st.skip == 0, "16/31 hits stopped comparisons");
	/* flows of 4 and 28 packets could not be built with one run;
	 * 3 hits of 31 (< 1 in 8) must stop, 4 of 31 (>= 1 in 8) not */
	struct pkt_batch b;
	struct flow_key keys[N];
	uint32_t hashes[N];
	for (unsigned hits = 3; hits <= 4; hits++) {
		st.skip = 0;
		make_burst(&b, keys, 1, 5);
		for (unsigned h = 1; h <= hits; h++)
			keys[h] = keys[0];	/* packets 1..hits repeat 0 */
		dp_hash_batch(&b, keys, hashes, hits & 1, true, &st, false);
		CHECK(hashes_right(keys, hashes), "%u hits: a hash differs",
		      hits);
		CHECK((st.skip != 0) == (hits * HASH_REUSE_MIN_HIT_INV < 31),
		      "%u hits of 31: skip %u", hits, st.skip);
	}
}

static void
test_not_adaptive(void)
{
	struct pkt_batch b;
	struct flow_key keys[N];
	uint32_t hashes[N];

	make_burst(&b, keys, 1, 0);
	for (int ext = 0; ext < 2; ext++) {
		dp_hash_batch(&b, keys, hashes, ext, true, NULL, false);
		CHECK(hashes_right(keys, hashes), "reuse, not adaptive");
		dp_hash_batch(&b, keys, hashes, ext, false, NULL, false);
		CHECK(hashes_right(keys, hashes), "no reuse");
	}
	/* reuse off: the adaptive state is left alone */
	struct dp_hash_reuse st = { 0 };
	dp_hash_batch(&b, keys, hashes, false, false, &st, false);
	CHECK(st.skip == 0 && hashes_right(keys, hashes), "reuse off: skip %u",
	      st.skip);
}

/* Keys with every used word busy, against DPDK's software CRC (the
 * dispatch forced to CRC32_SW in this file only: the variable is the
 * header's, one per translation unit). */
static void
test_direct_crc_equals_software(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned bad = 0;

	rte_hash_crc_set_alg(CRC32_SW);
	for (unsigned k = 0; k < 1000; k++) {
		struct flow_key key;

		for (int w = 0; w < FLOW_KEY_WORDS; w++) {
			x ^= x << 13;	/* xorshift64 */
			x ^= x >> 7;
			x ^= x << 17;
			key.w[w] = x;
		}
		key.w[FLOW_KEY_WORDS - 1] = 0;
		bad += dp_flow_hash(&key) != flow_hash_key(&key);
	}
	rte_hash_crc_set_alg(CRC32_SSE42_x64);
	CHECK(bad == 0, "%u of 1000 keys: dp_flow_hash != software crc", bad);
}

static void
test_vector_compare(void)
{
	struct flow_key a, b;
	unsigned wrong = 0;

	for (int w = 0; w < FLOW_KEY_WORDS; w++)
		a.w[w] = 0x0123456789abcdefull * (uint64_t)(w + 1);
	a.w[FLOW_KEY_WORDS - 1] = 0;
	b = a;
	CHECK(dp_key_equal(&a, &b), "equal keys differ");
	for (int w = 0; w < FLOW_KEY_WORDS; w++)
		for (int bit = 0; bit < 64; bit++) {
			b = a;
			b.w[w] ^= 1ull << bit;
			wrong += dp_key_equal(&a, &b) != flow_key_equal(&a, &b);
		}
	CHECK(wrong == 0, "%u one-bit differences judged otherwise", wrong);
	b = a;
	b.w[3] ^= 1;
	CHECK(!dp_key_equal(&a, &b), "w3 differs, keys equal");
}

/* One-line keys with stale second lines: the one-line hash and compare
 * say what the general ones say. */
static void
test_one_line(void)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	unsigned bad = 0, wrong = 0;

	for (unsigned k = 0; k < 200; k++) {
		struct flow_key a, b;

		for (int w = 0; w < FLOW_KEY_WORDS; w++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			a.w[w] = x;
		}
		a.w[FLOW_KEY_LINE_WORDS - 1] = 0;	/* ext_line clear */
		bad += dp_flow_hash1(&a) != dp_flow_hash(&a) ||
		       dp_flow_hash1(&a) != flow_hash_key(&a);
		b = a;
		b.line2[k % 8] ^= x;			/* stale: same key */
		wrong += !dp_key_equal1(&a, &b) || !dp_key_equal(&a, &b);
		b = a;
		b.w[k % FLOW_KEY_USED_WORDS] ^= 1ull << (k % 64);
		wrong += dp_key_equal1(&a, &b) != dp_key_equal(&a, &b);
	}
	CHECK(bad == 0, "%u keys: one-line hash differs", bad);
	CHECK(wrong == 0, "%u pairs: one-line compare differs", wrong);
}

/* A pass with two-line keys that differ only in line 2 (ext set): reuse
 * must not take the previous key's hash. */
static void
test_two_line_pass(void)
{
	struct pkt_batch b;
	struct flow_key keys[N];
	uint32_t hashes[N];

	make_burst(&b, keys, 32, 0);	/* line 1 all the same */
	for (unsigned i = 0; i < N; i++) {
		keys[i].ext_line = FLOW_EXT_LINE;
		keys[i].line2[i % 8] = 0x1000u + i;
	}
	dp_hash_batch(&b, keys, hashes, true, true, NULL, false);
	CHECK(hashes_right(keys, hashes), "two-line pass: a hash differs");
	CHECK(hashes[0] != hashes[1], "line 2 not hashed");
}

int
main(void)
{
	test_one_line();
	test_two_line_pass();
	test_direct_crc_equals_software();
	test_vector_compare();
	test_distinct_keys_stop_comparing();
	test_threshold();
	test_not_adaptive();
	return unit_test_report();
}
