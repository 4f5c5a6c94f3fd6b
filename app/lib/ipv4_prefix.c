/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <string.h>
#include "ipv4_prefix.h"

bool
ip_prefix_parse(const char *s, bool len_optional, int af, void *ip,
		uint8_t *plen)
{
	const unsigned max = af == AF_INET6 ? 128 : 32;
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	char addr[INET6_ADDRSTRLEN];
	unsigned len = 0;

	if ((!slash && !len_optional) || n >= sizeof addr)
		return false;
	memcpy(addr, s, n);
	addr[n] = '\0';
	if (inet_pton(af, addr, ip) != 1)
		return false;
	if (!slash) {
		*plen = (uint8_t)max;
		return true;
	}
	const char *d = slash + 1;
	if (*d == '\0' || (d[0] == '0' && d[1] != '\0'))
		return false;
	for (; *d; d++) {
		if (*d < '0' || *d > '9' || len > max)
			return false;
		len = len * 10 + (unsigned)(*d - '0');
	}
	if (len > max)
		return false;
	*plen = (uint8_t)len;
	return true;
}

bool
ipv4_prefix_parse(const char *s, bool len_optional, uint32_t *ip,
		  uint8_t *plen)
{
	return ip_prefix_parse(s, len_optional, AF_INET, ip, plen);
}
