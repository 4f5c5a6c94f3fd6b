/* SPDX-License-Identifier: BSD-3-Clause
 * The fast miniflow extract's shape check and key build (miniflow_fast.c
 * says what they accept), inline: the batch loops (dp_extract.c, the
 * decap loop in vxlan_decap.c) call them directly, which saves a call,
 * its frame and the return-code test per packet (callgrind: about 15
 * instructions a packet) over miniflow_extract_fast().
 */
#ifndef VXS_MINIFLOW_FAST_H
#define VXS_MINIFLOW_FAST_H

#include <netinet/in.h>
#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf_ptype.h>
#include "miniflow.h"
#include "unaligned.h"

/* Offsets from the start of the frame, untagged Ethernet + IPv4 IHL 5. */
#define FAST_IP 14
#define FAST_L4 (FAST_IP + 20)
#define FAST_MIN_LEN (FAST_L4 + 8)	/* enough to read every fixed byte */
#define FAST_TCP_MIN 20
#define FAST_UDP_MIN 8

/* The NIC's opinion of a fast shape (outer layers only; tunnel and inner
 * bits are ignored). Some drivers cannot tell whether IPv4 has options. */
#define FAST_PTYPE_MASK \
	(RTE_PTYPE_L2_MASK | RTE_PTYPE_L3_MASK | RTE_PTYPE_L4_MASK)

/* The packet_type hint: true unless the NIC classified the packet and its
 * answer is not one of the fast shapes. Only decides whether the shape
 * check is worth doing; the check itself trusts nothing but the bytes, so
 * the test may be loose: it passes L2_ETHER with L3_IPV4 or
 * L3_IPV4_EXT_UNKNOWN (some drivers cannot tell whether there are
 * options) and any of L4 unknown, TCP, UDP or FRAG. Tunnel and inner bits
 * are ignored: the outer header is what we parse. */
#define FAST_PTYPE_LOOSE                                                  \
	((RTE_PTYPE_L3_IPV4_EXT_UNKNOWN & ~RTE_PTYPE_L3_IPV4) |          \
	 RTE_PTYPE_L4_TCP | RTE_PTYPE_L4_UDP)
_Static_assert(FAST_PTYPE_LOOSE == 0x380, "ptype bits moved");

static inline bool
miniflow_ptype_may_be_fast(uint32_t ptype)
{
	uint32_t pt = ptype & FAST_PTYPE_MASK;

	return (pt == 0) | ((pt & ~(uint32_t)FAST_PTYPE_LOOSE) ==
			    (RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4));
}

/* Fills w2..w5 and returns true if m is a fast shape; otherwise returns
 * false, having written nothing. */
static inline __rte_always_inline bool
miniflow_fast_try(const struct rte_mbuf *m, struct flow_key *key)
{
	uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	/* One segment holding the whole packet, and every fixed-offset
	 * byte read below inside it. */
	if (unlikely((rte_pktmbuf_data_len(m) != pkt_len) |
		     (pkt_len < FAST_MIN_LEN)))
		return false;

	/* bytes 12..15: ethertype 0x0800, version 4 / IHL 5, (tos) */
	uint32_t type_vhl = load32(p + 12) &
			    rte_cpu_to_be_32(0xffffff00);
	/* bytes 20..23: flags / fragment offset, ttl, proto; MF and the
	 * offset must be clear (DF and the reserved bit do not matter, as in
	 * the generic parser) */
	uint32_t frag = load32(p + FAST_IP + 6) & rte_cpu_to_be_32(0x3fff0000);
	uint8_t proto = p[FAST_IP + 9];
	uint32_t tcp = proto == IPPROTO_TCP;
	uint32_t udp = proto == IPPROTO_UDP;
	uint32_t total = rte_be_to_cpu_16(load16(p + FAST_IP + 2));
	/* total covers the IP header and the fixed L4 header, and fits in
	 * the frame (what follows total is link padding) */
	uint32_t l4_min = FAST_UDP_MIN + tcp * (FAST_TCP_MIN - FAST_UDP_MIN);

	if (unlikely((type_vhl != rte_cpu_to_be_32(0x08004500)) | (frag != 0) |
		     !(tcp | udp) | (total < 20 + l4_min) |
		     (total > pkt_len - FAST_IP)))
		return false;

	const uint8_t *l4 = p + FAST_L4;
	if (tcp) {
		/* in bounds: total >= 40 and total <= pkt_len - 14 */
		uint32_t doff = (uint32_t)(l4[12] >> 4) * 4;
		if (unlikely((doff < FAST_TCP_MIN) | (doff > total - 20)))
			return false;
	}

	/* w2: dl_dst | vlan_tci = 0; w3: dl_src | dl_type, bytes 6..13 */
	uint64_t w2 = load64(p) & rte_cpu_to_le_64(0x0000ffffffffffffull);
	uint64_t w3 = load64(p + 6);
	/* w4: nw_src | nw_dst, bytes 26..33 */
	uint64_t w4 = load64(p + FAST_IP + 12);
	/* w5: proto tos ttl frag(0) | tp_src | tp_dst */
	uint64_t ports = load32(l4);
	uint64_t w5;
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	w5 = (uint64_t)proto | (uint64_t)(p[FAST_IP + 1] & 0xfc) << 8 |
	     (uint64_t)p[FAST_IP + 8] << 16 | ports << 32;
#else
	w5 = (uint64_t)proto << 56 | (uint64_t)(p[FAST_IP + 1] & 0xfc) << 48 |
	     (uint64_t)p[FAST_IP + 8] << 40 | ports;
#endif
	key->w[2] = w2;
	key->w[3] = w3;
	key->w[4] = w4;
	key->w[5] = w5;
	return true;
}

/* IPv6's fast shapes: untagged Ethernet, IPv6 with no extension header,
 * then UDP, TCP or ICMPv6 other than Neighbour Discovery (whose target
 * and options the generic parser reads), all in one segment. Offsets
 * from the start of the frame. */
#define FAST6_IP 14
#define FAST6_L4 (FAST6_IP + 40)
#define FAST6_MIN_LEN (FAST6_L4 + 8)
#define FAST6_ICMP_MIN 8

/* Fills w2..w5, w7 and the second line and returns true if m is an IPv6
 * fast shape; otherwise returns false, having written nothing. The same
 * key as miniflow_extract_ipv6() (test_miniflow_fast.c checks it). */
static inline __rte_always_inline bool
miniflow_fast_try6(const struct rte_mbuf *m, struct flow_key *key)
{
	uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	if (unlikely((rte_pktmbuf_data_len(m) != pkt_len) |
		     (pkt_len < FAST6_MIN_LEN)))
		return false;
	/* bytes 12..14: ethertype 0x86dd, version 6 */
	if ((load32(p + 12) & rte_cpu_to_be_32(0xfffff000)) !=
	    rte_cpu_to_be_32(0x86dd6000))
		return false;
	uint8_t proto = p[FAST6_IP + 6];
	const uint8_t *l4 = p + FAST6_L4;
	uint32_t plen = rte_be_to_cpu_16(load16(p + FAST6_IP + 4));
	uint32_t tcp = proto == IPPROTO_TCP;
	uint32_t icmp = proto == IPPROTO_ICMPV6;
	/* ND (135, 136 with code 0) is the generic parser's */
	uint32_t nd = icmp & (l4[1] == 0) & ((l4[0] == 135) | (l4[0] == 136));
	uint32_t l4_min = tcp ? FAST_TCP_MIN : icmp ? FAST6_ICMP_MIN
						    : FAST_UDP_MIN;
	uint32_t known = tcp | icmp | (proto == IPPROTO_UDP);
	if (unlikely((known == 0) | nd |
		     (plen < l4_min) | (plen > pkt_len - FAST6_L4)))
		return false;
	if (tcp) {
		uint32_t doff = (uint32_t)(l4[12] >> 4) * 4;
		if (unlikely((doff < FAST_TCP_MIN) | (doff > plen)))
			return false;
	}

	uint32_t vtcfl = rte_be_to_cpu_32(load32(p + FAST6_IP));
	uint8_t tclass = (uint8_t)(vtcfl >> 20) & 0xfc;
	/* ports, or ICMPv6 type and code as two be16 */
	uint64_t ports = icmp ? (uint64_t)rte_cpu_to_be_16(l4[0]) |
				(uint64_t)rte_cpu_to_be_16(l4[1]) << 16
			      : load32(l4);
	uint64_t w5;
	uint64_t label = rte_cpu_to_be_32(vtcfl & FLOW_IPV6_LABEL_MASK);
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	w5 = (uint64_t)proto | (uint64_t)tclass << 8 |
	     (uint64_t)p[FAST6_IP + 7] << 16 | ports << 32;
	uint64_t w7 = FLOW_EXT_LINE | label << 32;
#else
	w5 = (uint64_t)proto << 56 | (uint64_t)tclass << 48 |
	     (uint64_t)p[FAST6_IP + 7] << 40 | ports;
	uint64_t w7 = (uint64_t)FLOW_EXT_LINE << 56 | label;
#endif
	uint8_t tun6 = key->ext_line & FLOW_EXT_TUN6;

	key->w[2] = load64(p) & rte_cpu_to_le_64(0x0000ffffffffffffull);
	key->w[3] = load64(p + 6);
	key->w[4] = 0;
	key->w[5] = w5;
	key->w[7] = w7;
	key->ext_line |= tun6;	/* decap's third line stays the key's */
	memcpy(key->line2, p + FAST6_IP + 8, 32);	/* src, dst */
	key->line2[4] = key->line2[5] = 0;		/* nd_target */
	key->line2[6] = key->line2[7] = 0;		/* nd_sll, nd_tll */
	return true;
}

/* IPv6's fast shapes, then the generic parser (miniflow_fast.c): a call,
 * so that IPv4's inlined path below stays as it was (inlined, the IPv6
 * check cost IPv4 7 instructions a decapsulated packet: callgrind). */
int miniflow_extract_after_fast4(const struct rte_mbuf *m,
				 struct flow_key *key);

/* miniflow_extract_fast(), inline: IPv4's shapes first (the NIC's hint
 * decides whether they are tried), then IPv6's, then the generic
 * parser. */
static inline __rte_always_inline int
miniflow_extract_fast_inline(const struct rte_mbuf *m, struct flow_key *key)
{
	if (likely(miniflow_ptype_may_be_fast(m->packet_type)) &&
	    miniflow_fast_try(m, key))
		return 0;
	return miniflow_extract_after_fast4(m, key);
}

#endif
