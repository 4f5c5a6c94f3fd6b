/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <string.h>
#include "ipv4_prefix.h"
#include "ipv6_prefix.h"

bool
ipv6_prefix_parse(const char *s, bool len_optional, uint8_t ip[16],
		  uint8_t *plen)
{
	return ip_prefix_parse(s, len_optional, AF_INET6, ip, plen);
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
