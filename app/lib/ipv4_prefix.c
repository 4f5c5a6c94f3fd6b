/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <string.h>
#include "ipv4_prefix.h"

bool
ipv4_prefix_parse(const char *s, bool len_optional, uint32_t *ip,
		  uint8_t *plen)
{
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	char addr[INET_ADDRSTRLEN];
	unsigned len = 0;

	if ((!slash && !len_optional) || n >= sizeof addr)
		return false;
	memcpy(addr, s, n);
	addr[n] = '\0';
	if (inet_pton(AF_INET, addr, ip) != 1)
		return false;
	if (!slash) {
		*plen = 32;
		return true;
	}
	const char *d = slash + 1;
	if (*d == '\0' || (d[0] == '0' && d[1] != '\0'))
		return false;
	for (; *d; d++) {
		if (*d < '0' || *d > '9' || len > 32)
			return false;
		len = len * 10 + (unsigned)(*d - '0');
	}
	if (len > 32)
		return false;
	*plen = (uint8_t)len;
	return true;
}
