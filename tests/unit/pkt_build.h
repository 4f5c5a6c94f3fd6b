/* SPDX-License-Identifier: BSD-3-Clause
 * What the miniflow tests share: packets built byte by byte in network
 * order, and the xorshift64* generator whose seed the randomized tests
 * print (and take from the environment) so a failure can be replayed.
 * Define PKT_MAX (and RNG_SEED, the default seed) before including.
 */
#ifndef VXS_TEST_PKT_BUILD_H
#define VXS_TEST_PKT_BUILD_H

#include <stdint.h>
#include <string.h>

#ifndef RNG_SEED
#define RNG_SEED 0x2545f4914f6cdd1dull
#endif

static uint64_t rng_state = RNG_SEED;

static inline uint32_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static inline uint32_t
rnd_below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

struct pkt {
	uint8_t b[PKT_MAX];
	uint32_t len;
	uint32_t ip;		/* offset of the (outermost) IPv4 header */
	uint32_t l4;		/* offset of its L4 header */
};

static inline void
put(struct pkt *p, const void *d, uint32_t n)
{
	memcpy(p->b + p->len, d, n);
	p->len += n;
}

static inline void
put8(struct pkt *p, uint8_t v)
{
	p->b[p->len++] = v;
}

static inline void
put16(struct pkt *p, uint16_t v)
{
	put8(p, v >> 8);
	put8(p, v & 0xff);
}

static inline void
put32(struct pkt *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p, v & 0xffff);
}

static inline void
put_zeros(struct pkt *p, uint32_t n)
{
	memset(p->b + p->len, 0, n);
	p->len += n;
}

static inline void
put_rand(struct pkt *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		put8(p, (uint8_t)rnd());
}

static inline void
set16(uint8_t *b, uint32_t off, uint16_t v)
{
	b[off] = v >> 8;
	b[off + 1] = v & 0xff;
}

static inline uint16_t
get16(const uint8_t *b, uint32_t off)
{
	return (uint16_t)(b[off] << 8 | b[off + 1]);
}

#endif
