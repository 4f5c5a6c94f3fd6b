/* SPDX-License-Identifier: BSD-3-Clause
 * SipHash (Aumasson and Bernstein) of a 16- or 32-byte message: a keyed
 * hash for tables whose keys an outsider chooses (a tenant's 5-tuples). CRC32c,
 * seeded or not, is linear: keys with one CRC are found by solving a
 * linear system, and a seed does not change which keys collide (for keys
 * of one length, crc(seed, a) == crc(seed, b) exactly when crc(0, a) ==
 * crc(0, b)). With a random 128-bit key per start, SipHash gives an
 * outsider nothing to aim at. SipHash-1-3 (one compression round, three
 * finalisation rounds, as CPython's and the Linux kernel's hash tables)
 * for tables; the rounds are parameters so the reference 2-4 vectors test
 * the same code (tests/unit/test_siphash.c).
 */
#ifndef VXS_SIPHASH_H
#define VXS_SIPHASH_H

#include <stdint.h>

struct siphash_key {
	uint64_t k0, k1;
};

#define SIPHASH_ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static inline void
siphash_round(uint64_t *v0, uint64_t *v1, uint64_t *v2, uint64_t *v3)
{
	*v0 += *v1; *v1 = SIPHASH_ROTL(*v1, 13); *v1 ^= *v0;
	*v0 = SIPHASH_ROTL(*v0, 32);
	*v2 += *v3; *v3 = SIPHASH_ROTL(*v3, 16); *v3 ^= *v2;
	*v0 += *v3; *v3 = SIPHASH_ROTL(*v3, 21); *v3 ^= *v0;
	*v2 += *v1; *v1 = SIPHASH_ROTL(*v1, 17); *v1 ^= *v2;
	*v2 = SIPHASH_ROTL(*v2, 32);
}

/* SipHash-c-d of the 16 bytes whose little-endian words are m0, m1. */
static inline uint64_t
siphash_16(const struct siphash_key *key, uint64_t m0, uint64_t m1, int c,
	   int d)
{
	uint64_t v0 = 0x736f6d6570736575ULL ^ key->k0;
	uint64_t v1 = 0x646f72616e646f6dULL ^ key->k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ key->k0;
	uint64_t v3 = 0x7465646279746573ULL ^ key->k1;
	const uint64_t m[3] = { m0, m1, (uint64_t)16 << 56 };

	for (int w = 0; w < 3; w++) {
		v3 ^= m[w];
		for (int r = 0; r < c; r++)
			siphash_round(&v0, &v1, &v2, &v3);
		v0 ^= m[w];
	}
	v2 ^= 0xff;
	for (int r = 0; r < d; r++)
		siphash_round(&v0, &v1, &v2, &v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/* SipHash-c-d of the 32 bytes whose little-endian words are m[0..3]:
 * the connection tracker's digest of an IPv6 address pair (ct_v6.c). */
static inline uint64_t
siphash_32(const struct siphash_key *key, const uint64_t m[4], int c, int d)
{
	uint64_t v0 = 0x736f6d6570736575ULL ^ key->k0;
	uint64_t v1 = 0x646f72616e646f6dULL ^ key->k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ key->k0;
	uint64_t v3 = 0x7465646279746573ULL ^ key->k1;

	for (int w = 0; w < 5; w++) {
		uint64_t mw = w < 4 ? m[w] : (uint64_t)32 << 56;
		v3 ^= mw;
		for (int r = 0; r < c; r++)
			siphash_round(&v0, &v1, &v2, &v3);
		v0 ^= mw;
	}
	v2 ^= 0xff;
	for (int r = 0; r < d; r++)
		siphash_round(&v0, &v1, &v2, &v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/* The tables' hash: SipHash-1-3 folded to 32 bits. */
static inline uint32_t
siphash13_16_u32(const struct siphash_key *key, uint64_t m0, uint64_t m1)
{
	uint64_t h = siphash_16(key, m0, m1, 1, 3);
	return (uint32_t)(h ^ (h >> 32));
}

#endif
