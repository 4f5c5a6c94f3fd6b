/* SPDX-License-Identifier: BSD-3-Clause
 * SHA-256, for what must tell two files apart by their bytes (the state
 * file records the digest of the topology it came from,
 * app/config/state_origin.h): OpenSSL's libcrypto (libssl-dev, which
 * Debian's libdpdk-dev already depends on), not one of our own.
 */
#ifndef VXS_SHA256_H
#define VXS_SHA256_H

#include <stdio.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_HEX_LEN (2 * SHA256_LEN)	/* without the '\0' */

/* The digest of everything f has left to read, in lower-case hex,
 * '\0'-terminated; 0, or -1 on a read or library error. */
int sha256_file_hex(FILE *f, char out[SHA256_HEX_LEN + 1]);
/* The same of len bytes at data. */
int sha256_hex_of(const void *data, size_t len, char out[SHA256_HEX_LEN + 1]);

#endif
