/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 packets for the conntrack tests (ct_test.h's, for IPv6): Ethernet,
 * IPv6, optional extension headers, TCP/UDP/ICMPv6 with checksums over
 * the pseudo-header.
 */
#ifndef VXS_CT_TEST6_H
#define VXS_CT_TEST6_H

#include "ct_test.h"

#define HOP 0
#define DSTOPTS 60
#define FRAG 44
#define ICMP6 58

/* An IPv6 packet: the extension headers ext (extlen bytes, their next
 * header fields set by the caller; the IPv6 header's is nh0, or proto
 * without any), then l4len bytes of l4 with the checksum at csum_ofs
 * (-1: none) computed over the pseudo-header. */
static inline struct rte_mbuf *
pkt6x(const uint8_t src[16], const uint8_t dst[16], uint8_t proto,
      const uint8_t *ext, uint16_t extlen, uint8_t nh0, const uint8_t *l4,
      uint16_t l4len, int csum_ofs)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mbufs);
	uint16_t len = RTE_ETHER_HDR_LEN + 40 + extlen + l4len;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, len);

	memset(p, 0, len);
	p[12] = 0x86;
	p[13] = 0xdd;
	uint8_t *ip = p + RTE_ETHER_HDR_LEN;
	ip[0] = 0x60;
	ip[4] = (uint8_t)((extlen + l4len) >> 8);
	ip[5] = (uint8_t)(extlen + l4len);
	ip[6] = extlen ? nh0 : proto;
	ip[7] = 64;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	if (extlen && ext)
		memcpy(ip + 40, ext, extlen);
	uint8_t *q = ip + 40 + extlen;
	memcpy(q, l4, l4len);
	if (csum_ofs >= 0) {
		struct {
			uint8_t a[32];
			rte_be32_t len;
			uint8_t z[3], nh;
		} __rte_packed ph = { .len = rte_cpu_to_be_32(l4len),
				      .nh = proto };
		memcpy(ph.a, ip + 8, 32);
		q[csum_ofs] = q[csum_ofs + 1] = 0;
		uint32_t s = rte_raw_cksum(&ph, sizeof ph) +
			     rte_raw_cksum(q, l4len);
		s = (s & 0xffff) + (s >> 16);
		uint16_t c = (uint16_t)~((s & 0xffff) + (s >> 16));
		memcpy(q + csum_ofs, &c, 2);
	}
	return m;
}

static inline struct rte_mbuf *
tcp6(const uint8_t s[16], const uint8_t d[16], uint16_t sp, uint16_t dp,
     uint8_t flags, uint32_t seq, uint32_t ack)
{
	uint8_t t[20] = { sp >> 8, sp & 0xff, dp >> 8, dp & 0xff,
			  seq >> 24, seq >> 16 & 0xff, seq >> 8 & 0xff,
			  seq & 0xff, ack >> 24, ack >> 16 & 0xff,
			  ack >> 8 & 0xff, ack & 0xff, 5 << 4, flags,
			  0xff, 0xff };

	return pkt6x(s, d, IPPROTO_TCP, NULL, 0, 0, t, sizeof t, 16);
}

static inline struct rte_mbuf *
udp6x(const uint8_t s[16], const uint8_t d[16], uint16_t sp, uint16_t dp,
      const uint8_t *ext, uint16_t extlen, uint8_t nh0)
{
	uint8_t u[16] = { sp >> 8, sp & 0xff, dp >> 8, dp & 0xff, 0, 16,
			  0, 0, 'v', 'x', 's' };

	return pkt6x(s, d, IPPROTO_UDP, ext, extlen, nh0, u, sizeof u, 6);
}

static inline struct rte_mbuf *
udp6(const uint8_t s[16], const uint8_t d[16], uint16_t sp, uint16_t dp)
{
	return udp6x(s, d, sp, dp, NULL, 0, 0);
}

static inline struct rte_mbuf *
icmp6(const uint8_t s[16], const uint8_t d[16], uint8_t type, uint16_t id)
{
	uint8_t c[16] = { type, 0, 0, 0, id >> 8, id & 0xff, 0, 1 };

	return pkt6x(s, d, ICMP6, NULL, 0, 0, c, sizeof c, 2);
}

/* An ICMPv6 error from s to d quoting q's IPv6 header and 8 L4 bytes
 * (q freed). */
static inline struct rte_mbuf *
icmp6_error(const uint8_t s[16], const uint8_t d[16], uint8_t type,
	    struct rte_mbuf *q)
{
	uint8_t c[8 + 48] = { type, 0, 0, 0, 0, 0, 0x05, 0x00 };

	memcpy(c + 8, rte_pktmbuf_mtod_offset(q, uint8_t *,
					      RTE_ETHER_HDR_LEN), 48);
	rte_pktmbuf_free(q);
	return pkt6x(s, d, ICMP6, NULL, 0, 0, c, sizeof c, 2);
}

#endif
