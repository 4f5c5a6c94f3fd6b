/* SPDX-License-Identifier: BSD-3-Clause
 * The hash stage: the microflow hash of every key (the EMC's index), the
 * only place it is computed:
 *  - a NIC that hashed the packet (RSS, over the same outer 5-tuple our
 *    key holds) already did the work: its hash is as good an index into
 *    the EMC, which compares whole keys anyway. Only on the outer pass:
 *    after decap the mbuf still carries the outer packet's RSS hash;
 *  - packets of one burst often belong to the same microflow: comparing
 *    a key with the previous one is cheaper than hashing it again
 *    (hash-reuse);
 *  - otherwise flow_hash_key() (dp_flow_hash, the same value).
 * The stage is this header's one function.
 */
#ifndef VXS_DP_HASH_H
#define VXS_DP_HASH_H

#include "datapath.h"
#include "flow_hash.h"
#include "pkt_batch.h"
#include <rte_branch_prediction.h>
#ifdef __SSE4_2__
#include <nmmintrin.h>
#endif

/* flow_key_equal(), in four 16-byte vector compares per line (keys are
 * 64-byte aligned): hash-reuse compares nearly every key with the
 * previous one, and the word loop is ~20 instructions a key. The first
 * line's compare includes w7 (ext_line), so the other lines are compared
 * only when both keys have them. */
_Static_assert(FLOW_KEY_LINE_WORDS == 8 && sizeof(struct flow_key) == 192,
	       "dp_key_equal compares one, two or three lines");

static inline bool
dp_line_equal(const uint64_t *a, const uint64_t *b)
{
#ifdef __SSE4_2__
	const __m128i *va = (const __m128i *)a, *vb = (const __m128i *)b;
	__m128i d = _mm_xor_si128(_mm_load_si128(va), _mm_load_si128(vb));

	d = _mm_or_si128(d, _mm_xor_si128(_mm_load_si128(va + 1),
					  _mm_load_si128(vb + 1)));
	d = _mm_or_si128(d, _mm_xor_si128(_mm_load_si128(va + 2),
					  _mm_load_si128(vb + 2)));
	d = _mm_or_si128(d, _mm_xor_si128(_mm_load_si128(va + 3),
					  _mm_load_si128(vb + 3)));
	return _mm_testz_si128(d, d);
#else
	uint64_t diff = 0;
	for (int i = 0; i < FLOW_KEY_LINE_WORDS; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
#endif
}

static inline bool
dp_key_equal(const struct flow_key *a, const struct flow_key *b)
{
	if (!dp_line_equal(a->w, b->w))
		return false;
	if (likely(!flow_key_has_ext(a)))
		return true;
	return (!flow_key_has_line2(a) || dp_line_equal(a->line2, b->line2)) &&
	       (!flow_key_has_line3(a) || dp_line_equal(a->line3, b->line3));
}

/* flow_hash_key(), the same value: DPDK's rte_hash_crc_8byte() tests
 * which CRC implementation the CPU has before every word (a load and a
 * branch, 7 a key); the build's -march already promises SSE4.2, whose
 * crc32 instruction is the one it picks. */
static inline uint32_t
dp_flow_hash(const struct flow_key *k)
{
#ifdef __SSE4_2__
	uint64_t h = FLOW_HASH_BASIS;

	for (int i = 0; i < FLOW_KEY_USED_WORDS; i++)
		h = _mm_crc32_u64(h, k->w[i]);
	if (unlikely(flow_key_has_ext(k))) {
		h = _mm_crc32_u64(h, k->w[FLOW_KEY_USED_WORDS]);
		if (flow_key_has_line2(k))
			for (int i = FLOW_KEY_LINE2; i < FLOW_KEY_LINE3; i++)
				h = _mm_crc32_u64(h, k->w[i]);
		if (flow_key_has_line3(k))
			for (int i = FLOW_KEY_LINE3; i < FLOW_KEY_WORDS; i++)
				h = _mm_crc32_u64(h, k->w[i]);
	}
	return (uint32_t)h;
#else
	return flow_hash_key(k);
#endif
}

/* The one-line versions, for a pass none of whose keys has a second line
 * (the extract's per-pass flag, dp_pipeline.c): a key without ext_line
 * compares and hashes its first line only, so these give the same answers
 * as the two above on such keys, without the per-key ext_line test
 * (about 1.5 instructions a key and pass, doc/design-ipv6-key.md). */
static inline bool
dp_key_equal1(const struct flow_key *a, const struct flow_key *b)
{
	return dp_line_equal(a->w, b->w);
}

static inline uint32_t
dp_flow_hash1(const struct flow_key *k)
{
#ifdef __SSE4_2__
	uint64_t h = FLOW_HASH_BASIS;

	for (int i = 0; i < FLOW_KEY_USED_WORDS; i++)
		h = _mm_crc32_u64(h, k->w[i]);
	return (uint32_t)h;
#else
	return flow_hash_key(k);
#endif
}

/* hash-reuse-adaptive: comparing a key with the previous one costs a
 * 64-byte compare per packet, wasted when consecutive packets are of
 * different microflows (many flows round robin: it never hits). Each kind
 * of lookup pass keeps its own verdict: a burst whose comparisons hit
 * less than 1 in HASH_REUSE_MIN_HIT_INV turns them off for the next
 * HASH_REUSE_SKIP bursts of that kind, after which one burst probes again
 * (about 1.5 % of the comparisons kept when they never pay). Zero is the
 * initial state: comparing. */
#define HASH_REUSE_MIN_HIT_INV 8
#define HASH_REUSE_SKIP 64

/* The loop, for keys of one line only (lines2 false) or of any lines:
 * inlined twice with a constant, so the choice is made once a pass. */
static inline __attribute__((always_inline)) void
dp_hash_batch_lines(const struct pkt_batch *b, const struct flow_key keys[],
		    uint32_t hashes[], bool reuse, struct dp_hash_reuse *adapt,
		    bool nic_hash, bool lines2)
{
	uint32_t tries = 0, hits = 0;

	if (reuse && adapt && adapt->skip) {
		adapt->skip--;
		reuse = false;
	}
	for (uint16_t i = 0; i < b->n; i++) {
		if (nic_hash && (b->pkts[i]->ol_flags & RTE_MBUF_F_RX_RSS_HASH))
			hashes[i] = b->pkts[i]->hash.rss;
		else if (reuse && i &&
			 (tries++, lines2 ? dp_key_equal(&keys[i], &keys[i - 1])
					  : dp_key_equal1(&keys[i],
							  &keys[i - 1]))) {
			hashes[i] = hashes[i - 1];
			hits++;
		} else {
			hashes[i] = lines2 ? dp_flow_hash(&keys[i])
					   : dp_flow_hash1(&keys[i]);
		}
	}
	if (adapt && hits * HASH_REUSE_MIN_HIT_INV < tries)
		adapt->skip = HASH_REUSE_SKIP;
}

/* Inline: called once per lookup pass, and out of line it costs about
 * three instructions a packet (callgrind). ext: some key of the pass has
 * a second line (false: the one-line loop, exactly the one-line key's
 * hash and compare, no per-key ext_line test). reuse: compare with the
 * previous key at all (hash-reuse); adapt: NULL, or the pass kind's
 * state when hash-reuse-adaptive is on. nic_hash: the mbufs' RSS hash
 * may be used (outer pass only). */
static inline void
dp_hash_batch(const struct pkt_batch *b, const struct flow_key keys[],
	      uint32_t hashes[], bool ext, bool reuse,
	      struct dp_hash_reuse *adapt, bool nic_hash)
{
	if (unlikely(ext))
		dp_hash_batch_lines(b, keys, hashes, reuse, adapt, nic_hash,
				    true);
	else
		dp_hash_batch_lines(b, keys, hashes, reuse, adapt, nic_hash,
				    false);
}

#endif
