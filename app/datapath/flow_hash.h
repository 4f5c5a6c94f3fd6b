/* SPDX-License-Identifier: BSD-3-Clause
 * The one place flow hashes are computed. CRC32-C (one SSE4.2 crc32
 * instruction per word on x86) chained over the key's words.
 *
 *  - flow_hash_key():    the microflow hash (EMC index, VXLAN source port,
 *                        output batching); all used words.
 *  - flow_hash_masked(): a dpcls subtable's hash of key & mask, over only
 *                        the words the mask touches (wordmap bit i = w[i]).
 *                        Specialised lookups call it with a constant
 *                        wordmap so the loop unrolls to straight-line code.
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
	return h;
}

static inline __attribute__((always_inline)) uint32_t
flow_hash_masked(const struct flow_key *k, const struct flow_key *m,
		 uint8_t wordmap)
{
	uint32_t h = FLOW_HASH_BASIS;
	/* GCC will not unroll this on its own: DPDK's crc has three paths
	 * picked at run time, which makes the body look large. */
#pragma GCC unroll 8
	for (int i = 0; i < FLOW_KEY_WORDS; i++)
		if (wordmap & (1u << i))
			h = rte_hash_crc_8byte(k->w[i] & m->w[i], h);
	return h;
}

/* Bit i set iff mask word i is non-zero. */
static inline uint8_t
flow_mask_wordmap(const struct flow_key *m)
{
	uint8_t map = 0;
	for (int i = 0; i < FLOW_KEY_WORDS; i++)
		if (m->w[i])
			map |= 1u << i;
	return map;
}

#endif
