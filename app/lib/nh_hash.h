/* SPDX-License-Identifier: BSD-3-Clause
 * NH (UMAC's inner hash, Black et al. 1999) of a few 64-bit words under a
 * random secret, folded to 32 bits: for tables whose keys an outsider
 * chooses and that cannot afford SipHash per packet. Per word w_i, with
 * x = w_i + k[i] mod 2^64, the sum of lo32(x) * hi32(x) mod 2^64; then a
 * multiply-shift by an odd secret, so the low (bucket) bits depend on the
 * whole sum. Two distinct inputs of n words collide with probability
 * about 2^-31 over the secret, whatever was chosen (flow_hash.h says why
 * the one 64-bit add a word keeps that). flow_hash_masked() is the same
 * hash, specialised for flow keys and masks.
 */
#ifndef VXS_NH_HASH_H
#define VXS_NH_HASH_H

#include <stddef.h>
#include <stdint.h>
#include "secret_bytes.h"

#define NH_MAX_WORDS 8

struct nh_secret {
	uint64_t k[NH_MAX_WORDS];
	uint64_t fin;		/* odd */
};

static inline uint32_t
nh_hash_words(const struct nh_secret *s, const uint64_t *w, unsigned n)
{
	uint64_t h = 0;

	for (unsigned i = 0; i < n && i < NH_MAX_WORDS; i++) {
		uint64_t x = w[i] + s->k[i];

		h += (x & 0xffffffffu) * (x >> 32);
	}
	return (uint32_t)((h * s->fin) >> 32);
}

/* Fills s from the kernel's generator (secret_bytes.h; fallback: the
 * caller's rte_rand). */
static inline void
nh_secret_draw(struct nh_secret *s, uint64_t (*fallback)(void))
{
	secret_bytes(s, sizeof *s, fallback);
	s->fin |= 1;	/* multiply-shift wants an odd multiplier */
}

#endif
