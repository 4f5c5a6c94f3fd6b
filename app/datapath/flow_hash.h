/* SPDX-License-Identifier: BSD-3-Clause
 * The one place flow hashes are computed.
 *
 *  - flow_hash_key():    the microflow hash (EMC index, VXLAN source port,
 *                        output batching); all used words. CRC32-C (one
 *                        SSE4.2 crc32 instruction a word), unkeyed: the
 *                        EMC it indexes is a bounded 2-way cache, where
 *                        colliding keys evict each other (degraded, not a
 *                        stall), and the VXLAN source port derived from it
 *                        is on the wire (tests/unit/test_vxlan_encap.c
 *                        asserts its values), so it stays what it was.
 *  - flow_hash_masked(): a dpcls subtable's hash, keyed (below): the
 *                        subtables are chained, unbounded but for
 *                        DPCLS_MAX_CHAIN (dpcls.h).
 */
#ifndef VXS_FLOW_HASH_H
#define VXS_FLOW_HASH_H

#include <rte_hash_crc.h>
#include "flow_key.h"

#define FLOW_HASH_BASIS 0x9e3779b9u

static inline uint32_t
flow_hash_key(const struct flow_key *k)
{
	uint32_t h = FLOW_HASH_BASIS;
	for (int i = 0; i < FLOW_KEY_USED_WORDS; i++)
		h = rte_hash_crc_8byte(k->w[i], h);
	/* w7 (ext_line) and the other lines only where they are part of
	 * the key: IPv4 hashes are what they were, and IPv6 ones over an
	 * IPv4 underlay too (dp_hash.h does the same) */
	if (flow_key_has_ext(k)) {
		h = rte_hash_crc_8byte(k->w[FLOW_KEY_USED_WORDS], h);
		if (flow_key_has_line2(k))
			for (int i = FLOW_KEY_LINE2; i < FLOW_KEY_LINE3; i++)
				h = rte_hash_crc_8byte(k->w[i], h);
		if (flow_key_has_line3(k))
			for (int i = FLOW_KEY_LINE3; i < FLOW_KEY_WORDS; i++)
				h = rte_hash_crc_8byte(k->w[i], h);
	}
	return h;
}

/* The dpcls subtables' secret, drawn per classifier at its creation
 * (dpcls_create): one 64-bit key per key word, and an odd multiplier for
 * the final fold. */
struct flow_hash_secret {
	uint64_t k[FLOW_KEY_WORDS];
	uint64_t fin;
};

/* A dpcls subtable's hash of key & mask, over only the words the mask
 * touches (wordmap bit i = w[i], 24 bits: three lines). Specialised lookups call it with a
 * constant wordmap so the loop unrolls to straight-line code.
 *
 * Not CRC: a subtable chains its megaflows, and a tenant whose rules make
 * a megaflow per 5-tuple (ct, sg, exact matches) chooses the keys. CRC is
 * linear over GF(2), so keys with one CRC follow from a linear system, and
 * no basis changes which keys collide (crc(b,x) ^ crc(b,y) does not depend
 * on b): every such megaflow would land in one chain and every lookup in
 * the subtable scan it.
 *
 * This is NH (UMAC's inner hash, Black et al. 1999): per used word w, with
 * s = w + k[i] mod 2^64, add lo32(s) * hi32(s) (a 32x32->64 multiply) to
 * a 64-bit sum. NH proper adds the halves' keys separately, mod 2^32; one
 * 64-bit add saves a register and two instructions a word (the secret
 * stays in registers in the unrolled lookups), and the carry it lets into
 * the high half is fixed once the low key is, so the usual argument still
 * holds: two distinct keys collide with probability about 2^-31 over a
 * random secret, whatever an outsider chose. A multiply-shift by an odd
 * secret folds the sum to 32 bits, so the bucket bits (the low ones)
 * depend on all of it (NH's own low bits do not mix: the low bit of a
 * product is the AND of its factors' low bits). About 7 instructions a
 * used word against CRC's 2 (perf/results/callgrind-dpcls-hash.txt). */
static inline __attribute__((always_inline)) uint32_t
flow_hash_masked_words(const struct flow_key *k, const struct flow_key *m,
		       uint32_t wordmap, const struct flow_hash_secret *s,
		       int n_words)
{
	uint64_t h = 0;

#pragma GCC unroll 24
	for (int i = 0; i < n_words; i++)
		if (wordmap & (1u << i)) {
			uint64_t x = (k->w[i] & m->w[i]) + s->k[i];

			h += (x & 0xffffffffu) * (x >> 32);
		}
	return (uint32_t)((h * s->fin) >> 32);
}

/* n_words: FLOW_KEY_LINE_WORDS when wordmap has no bits of the other
 * lines (a generic lookup with a run-time wordmap then tests 8 bits, not
 * 24), else up to the last line it has; the same value either way. */
static inline __attribute__((always_inline)) uint32_t
flow_hash_masked(const struct flow_key *k, const struct flow_key *m,
		 uint32_t wordmap, const struct flow_hash_secret *s)
{
	return flow_hash_masked_words(k, m, wordmap, s, FLOW_KEY_WORDS);
}

/* The wordmap bits of the second and third lines: a subtable with any of
 * them only sees keys that have that line (dpcls_lookup.c). */
#define FLOW_WORDMAP_LINE2 0x00ff00u
#define FLOW_WORDMAP_LINE3 0xff0000u

/* Bit i set iff mask word i is non-zero. */
static inline uint32_t
flow_mask_wordmap(const struct flow_key *m)
{
	uint32_t map = 0;
	for (int i = 0; i < FLOW_KEY_WORDS; i++)
		if (m->w[i])
			map |= 1u << i;
	return map;
}

#endif
