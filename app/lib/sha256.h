/* SPDX-License-Identifier: BSD-3-Clause
 * SHA-256 (FIPS 180-4), for what must tell two files apart by their bytes
 * (the state file records the digest of the topology it came from,
 * app/config/state_origin.h). Not for anything secret: no constant-time
 * care, no wiping.
 */
#ifndef VXS_SHA256_H
#define VXS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_HEX_LEN (2 * SHA256_LEN)	/* without the '\0' */

struct sha256 {
	uint32_t h[8];
	uint64_t n_bytes;
	uint8_t buf[64];
	size_t n_buf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN]);
/* The digest in lower-case hex, '\0'-terminated. */
void sha256_hex(const uint8_t d[SHA256_LEN], char out[SHA256_HEX_LEN + 1]);

#endif
