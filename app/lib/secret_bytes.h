/* SPDX-License-Identifier: BSD-3-Clause
 * The secrets of the keyed hashes (conntrack's SipHash key, the fragment
 * store's, the dpcls and NH secrets; doc/hash-tables.md): drawn from the
 * kernel's generator. The EAL's rte_rand is seeded from the TSC where
 * getrandom is missing, which an outsider could guess, so it is only the
 * fallback, XORed over whatever the kernel did not fill.
 */
#ifndef VXS_SECRET_BYTES_H
#define VXS_SECRET_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>

/* Fills len bytes at buf; true if the kernel filled them all. */
static inline bool
secret_bytes(void *buf, size_t len, uint64_t (*fallback)(void))
{
	uint8_t *b = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = getrandom(b + got, len - got, 0);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got == len)
		return true;
	for (size_t i = 0; i < len; i += sizeof(uint64_t)) {
		uint64_t r = fallback(), w = 0;
		size_t k = len - i < sizeof w ? len - i : sizeof w;

		memcpy(&w, b + i, k);
		w ^= r;
		memcpy(b + i, &w, k);
	}
	return false;
}

#endif
