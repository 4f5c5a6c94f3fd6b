/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <string.h>
#include "ipv6_prefix.h"

bool
ipv6_prefix_parse(const char *s, bool len_optional, uint8_t ip[16],
		  uint8_t *plen)
{
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	char addr[INET6_ADDRSTRLEN];
	unsigned len = 0;

	if ((!slash && !len_optional) || n >= sizeof addr)
		return false;
	memcpy(addr, s, n);
	addr[n] = '\0';
	if (inet_pton(AF_INET6, addr, ip) != 1)
		return false;
	if (!slash) {
		*plen = 128;
		return true;
	}
	const char *d = slash + 1;
	if (*d == '\0' || (d[0] == '0' && d[1] != '\0'))
		return false;
	for (; *d; d++) {
		if (*d < '0' || *d > '9' || len > 128)
			return false;
		len = len * 10 + (unsigned)(*d - '0');
	}
	if (len > 128)
		return false;
	*plen = (uint8_t)len;
	return true;
}

bool
ipv6_prefix_host_bits(const uint8_t ip[16], uint8_t plen)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned keep = plen > i * 8 ? (plen - i * 8 > 8 ? 8 :
						plen - i * 8) : 0;
		if (ip[i] & (uint8_t)~(0xff00u >> keep))
			return true;
	}
	return false;
}
