/* SPDX-License-Identifier: BSD-3-Clause
 * siphash.h against the SipHash paper's reference vectors (SipHash-2-4,
 * key 00..0f, messages 00..0f and 00..1f), and the 1-3 variant the
 * tables use: keyed (another key, another value) and sensitive to every
 * message bit. */
#include <stdio.h>
#include "siphash.h"

static int failed, passed;

#define CHECK(cond, ...) do {						\
	if (cond) { passed++; break; }					\
	failed++;							\
	printf("FAIL %s:%d: ", __func__, __LINE__);			\
	printf(__VA_ARGS__);						\
	printf("\n");							\
} while (0)

int
main(void)
{
	const struct siphash_key k = { 0x0706050403020100ULL,
				       0x0f0e0d0c0b0a0908ULL };
	const uint64_t m0 = 0x0706050403020100ULL, m1 = 0x0f0e0d0c0b0a0908ULL;
	uint64_t h = siphash_16(&k, m0, m1, 2, 4);

	CHECK(h == 0x3f2acc7f57c29bdbULL, "siphash-2-4: %016llx",
	      (unsigned long long)h);

	/* the paper's vector for the 32-byte message 00..1f */
	const uint64_t m32[4] = { m0, m1, 0x1716151413121110ULL,
				  0x1f1e1d1c1b1a1918ULL };
	h = siphash_32(&k, m32, 2, 4);
	CHECK(h == 0x7127512f72f27cceULL, "siphash-2-4, 32 bytes: %016llx",
	      (unsigned long long)h);

	const struct siphash_key k2 = { k.k0 ^ 1, k.k1 };
	uint32_t a = siphash13_16_u32(&k, m0, m1);
	CHECK(a != siphash13_16_u32(&k2, m0, m1), "key ignored");
	int same = 0;
	for (int bit = 0; bit < 128; bit++) {
		uint64_t x0 = m0 ^ (bit < 64 ? 1ULL << bit : 0);
		uint64_t x1 = m1 ^ (bit >= 64 ? 1ULL << (bit - 64) : 0);
		same += siphash13_16_u32(&k, x0, x1) == a;
	}
	CHECK(same == 0, "%d one-bit changes kept the hash", same);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
