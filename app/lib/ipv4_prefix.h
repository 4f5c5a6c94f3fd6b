/* SPDX-License-Identifier: BSD-3-Clause
 * IPv4 prefixes, "A.B.C.D/N" (the topology's routes and local-ip, and
 * ovs/route/add|del). */
#ifndef VXS_IPV4_PREFIX_H
#define VXS_IPV4_PREFIX_H

#include <stdbool.h>
#include <stdint.h>

/* Parses 's' into *ip (network byte order) and *plen: N is 0 to 32 in
 * decimal digits, no sign, space or leading zero. Without "/N" the prefix
 * is a host (32) when 'len_optional', else an error. */
bool ipv4_prefix_parse(const char *s, bool len_optional, uint32_t *ip,
		       uint8_t *plen);

/* The same for either family: af AF_INET (ip: 4 bytes, len to 32) or
 * AF_INET6 (16 bytes, to 128); ipv6_prefix_parse is af AF_INET6. */
bool ip_prefix_parse(const char *s, bool len_optional, int af, void *ip,
		     uint8_t *plen);

#endif
