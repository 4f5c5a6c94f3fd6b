/* SPDX-License-Identifier: BSD-3-Clause
 * Flow keys that all have one value of the dpcls subtable hash as it was
 * before the hash was keyed: CRC32-C chained over the masked words from
 * basis 0x9e3779b9 (flow_hash.h before commit "dpcls: keyed subtable
 * hash"). Shared by tests/unit/test_dpcls_hostile.c and
 * perf/dpcls_hostile.c.
 *
 * A chained CRC over a fixed word set is affine over GF(2):
 * crc(x ^ d) = crc(x) ^ L(d) for a linear L. A tenant whose rules make a
 * megaflow per 5-tuple chooses at least the destination address and both
 * ports of its packets: 64 bits, which L maps to 32, so the kernel of L
 * has dimension >= 32. Gaussian elimination on the images of the 64
 * single-bit differences gives a basis of that kernel; walking it in Gray
 * code order (one basis vector XORed per step) gives up to 2^32 distinct
 * keys with the base key's CRC, no search (as perf/ct_hostile_keys.c did
 * for the tracker's old CRC).
 */
#ifndef VXS_DPCLS_COLLIDE_H
#define VXS_DPCLS_COLLIDE_H

#include <stdbool.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_hash_crc.h>
#include "flow_key.h"

#define COLLIDE_MAX_DIM 40

/* The subtable hash before it was keyed. */
static inline uint32_t
collide_old_hash(const struct flow_key *k, const struct flow_key *m)
{
	uint32_t h = 0x9e3779b9u;

	for (int i = 0; i < FLOW_KEY_WORDS; i++)
		if (m->w[i])
			h = rte_hash_crc_8byte(k->w[i] & m->w[i], h);
	return h;
}

struct collide_gen {
	struct flow_key base, mask, cur;
	struct flow_key basis[COLLIDE_MAX_DIM];	/* XOR differences */
	unsigned dim;
	uint64_t i;
	uint32_t hash;		/* every key's old hash */
};

/* The 64 bits the tenant picks: nw_dst (word 4, bits 32..63) and tp_src,
 * tp_dst (word 5, bits 32..63). */
static inline void
collide_flip(struct flow_key *k, unsigned bit)
{
	unsigned word = bit < 32 ? 4 : 5;

	k->w[word] ^= 1ull << (32 + bit % 32);
}

/* The mask of a 5-tuple megaflow (dpcls_lookup_w0w3w4w5) and a base key
 * from in_port; 0, or -1 if the kernel came out too small (it cannot). */
static inline int
collide_init(struct collide_gen *g, uint16_t in_port)
{
	struct { uint32_t img; uint64_t combo; bool used; } piv[32];

	memset(g, 0, sizeof *g);
	memset(piv, 0, sizeof piv);
	g->mask.in_port = 0xffff;
	g->mask.dl_type = 0xffff;
	g->mask.nw_src = 0xffffffff;
	g->mask.nw_dst = 0xffffffff;
	g->mask.nw_proto = 0xff;
	g->mask.tp_src = 0xffff;
	g->mask.tp_dst = 0xffff;
	g->base.in_port = in_port;
	g->base.dl_type = rte_cpu_to_be_16(0x0800);
	g->base.nw_src = rte_cpu_to_be_32(0x0a000005);
	g->base.nw_dst = rte_cpu_to_be_32(0xcb007101);
	g->base.nw_proto = 17;
	g->base.tp_src = rte_cpu_to_be_16(40000);
	g->base.tp_dst = rte_cpu_to_be_16(53);
	g->hash = collide_old_hash(&g->base, &g->mask);
	for (unsigned b = 0; b < 64; b++) {
		struct flow_key k = g->base;

		collide_flip(&k, b);
		uint32_t img = collide_old_hash(&k, &g->mask) ^ g->hash;
		uint64_t combo = 1ull << b;

		while (img) {
			int top = 31 - __builtin_clz(img);

			if (!piv[top].used) {
				piv[top].img = img;
				piv[top].combo = combo;
				piv[top].used = true;
				break;
			}
			img ^= piv[top].img;
			combo ^= piv[top].combo;
		}
		if (img || g->dim == COLLIDE_MAX_DIM)
			continue;
		/* combo's bits flipped together keep the CRC */
		struct flow_key *d = &g->basis[g->dim++];

		memset(d, 0, sizeof *d);
		for (unsigned j = 0; j < 64; j++)
			if (combo >> j & 1)
				collide_flip(d, j);
	}
	g->cur = g->base;
	return g->dim >= 20 ? 0 : -1;
}

/* The next key of the walk (the base key first); distinct for the first
 * 2^dim calls. */
static inline const struct flow_key *
collide_next(struct collide_gen *g)
{
	uint64_t i = g->i++;

	if (i) {
		const struct flow_key *d =
			&g->basis[__builtin_ctzll(i) % g->dim];

		for (int w = 0; w < FLOW_KEY_WORDS; w++)
			g->cur.w[w] ^= d->w[w];
	}
	return &g->cur;
}

#endif
