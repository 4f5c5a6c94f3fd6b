/* SPDX-License-Identifier: BSD-3-Clause
 * SHA-256 through libcrypto's EVP interface (sha256.h).
 */
#include <openssl/evp.h>
#include "sha256.h"

static void
to_hex(const unsigned char d[SHA256_LEN], char out[SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < SHA256_LEN; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[SHA256_HEX_LEN] = '\0';
}

int
sha256_file_hex(FILE *f, char out[SHA256_HEX_LEN + 1])
{
	unsigned char buf[8192], d[SHA256_LEN];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	size_t n;

	out[0] = '\0';
	while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
		ok = EVP_DigestUpdate(ctx, buf, n);
	ok = ok && !ferror(f) && EVP_DigestFinal_ex(ctx, d, NULL);
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return -1;
	to_hex(d, out);
	return 0;
}

int
sha256_hex_of(const void *data, size_t len, char out[SHA256_HEX_LEN + 1])
{
	unsigned char d[SHA256_LEN];

	out[0] = '\0';
	if (!EVP_Digest(data, len, d, NULL, EVP_sha256(), NULL))
		return -1;
	to_hex(d, out);
	return 0;
}
