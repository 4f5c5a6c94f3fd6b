/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 prefixes, "ADDR/N" (the topology's routes and local-ip, and
 * ovs/route/add|del), beside ipv4_prefix.h. */
#ifndef VXS_IPV6_PREFIX_H
#define VXS_IPV6_PREFIX_H

#include <stdbool.h>
#include <stdint.h>

/* Parses 's' into ip (16 bytes, network order) and *plen: N is 0 to 128
 * in decimal digits, no sign, space or leading zero. Without "/N" the
 * prefix is a host (128) when 'len_optional', else an error. */
bool ipv6_prefix_parse(const char *s, bool len_optional, uint8_t ip[16],
		       uint8_t *plen);

/* Whether ip has bits set past its first plen. */
bool ipv6_prefix_host_bits(const uint8_t ip[16], uint8_t plen);

#endif
