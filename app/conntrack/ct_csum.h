/* SPDX-License-Identifier: BSD-3-Clause
 * Incremental checksum updates of NAT (RFC 1624), for ct_nat.c (IPv4)
 * and ct_nat6.c (IPv6): inlined into both.
 */
#ifndef VXS_CT_CSUM_H
#define VXS_CT_CSUM_H

#include "ct_private.h"

/* Headers are touched through byte pointers (they may sit unaligned). */
static inline uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* RFC 1624: HC' = ~(~HC + ~m + m'), 16-bit words, host order. */
static inline void
csum_replace16(uint8_t *csum, uint16_t old, uint16_t new)
{
	uint32_t s = (uint16_t)~get16(csum);
	s += (uint16_t)~old;
	s += new;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	put16(csum, (uint16_t)~s);
}

static inline void
replace16(uint8_t *field, rte_be16_t v, uint8_t *csum)
{
	uint16_t nv = rte_be_to_cpu_16(v);

	if (get16(field) == nv)
		return;
	if (csum)
		csum_replace16(csum, get16(field), nv);
	put16(field, nv);
}

/* The ports of the TCP/UDP header at l4 set to the reverse of key o's
 * (the tuple a packet leaves with), the L4 checksum at csum (NULL: none)
 * updated; UDP: a checksum that comes out 0 is sent as 0xffff. */
static inline void
nat_ports(uint8_t *l4, const struct ct_key *o, uint8_t proto, uint8_t *csum)
{
	replace16(l4, o->dport, csum);
	replace16(l4 + 2, o->sport, csum);
	if (proto == IPPROTO_UDP && csum && !get16(csum))
		put16(csum, 0xffff);
}

#endif
