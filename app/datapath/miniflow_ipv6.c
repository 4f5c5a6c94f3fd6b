/* SPDX-License-Identifier: BSD-3-Clause
 * Miniflow extract, IPv6 (miniflow.h): the generic parser miniflow.c
 * hands every 0x86dd frame to. OVS's flow_extract meaning, field by field
 * (lib/flow.c, 3.1): the extension headers walked as OVS walks them
 * (hop-by-hop, routing, destination options, AH, fragment); nw_proto the
 * first header that is not one of them, or 44 for a fragment that is not
 * the first; ICMPv6 type and code in tp_src/tp_dst; Neighbour Discovery's
 * target and its first source and target link-layer address options.
 *
 * Where OVS keeps a cut-short header's key (it never drops), this file
 * says malformed (-1), as miniflow.c does for IPv4: an IPv6 header or an
 * extension header cut short by the payload length, a payload length
 * past the frame, a version other than 6, an L4, ICMPv6 or ND header cut
 * short, an ND option of length zero or past the payload (RFC 4861 7.1.1:
 * "silently discard"). A repeated link-layer option is not malformed:
 * OVS then keeps no ND fields at all, and so does this.
 *
 * Headers are read with rte_pktmbuf_read() where they are, so a header
 * chain may be longer than miniflow.c's buffer and span segments; every
 * read is bounded by the payload length (link padding after it is never
 * read). The walk stops after IPV6_EXT_HDRS_MAX headers (OVS has no
 * bound): a longer chain is not malformed, its key has the extension
 * header it stopped at as nw_proto and no L4, so a rule on its ports
 * cannot match (a firewall fails closed) and a guest cannot make the PMD
 * walk a jumbo frame's 1 000 eight-byte headers.
 */
#include "miniflow.h"
#include "unaligned.h"

#include <netinet/in.h>
#include <string.h>
#include <rte_branch_prediction.h>
#include <rte_byteorder.h>

#define IPV6_HLEN 40
#define IPV6_EXT_MIN 8		/* every extension header */
#define IPV6_FRAG_HLEN 8
#define IPV6_FRAG_OFF_MASK 0xfff8	/* ip6f_offlg: offset, not M */
#define IPV6_EXT_HDRS_MAX 16
#define TCP_MIN_HLEN 20
#define UDP_HLEN 8
#define ICMPV6_HLEN 8		/* type code csum + 4 (OVS: icmp6_data_header) */
#define ND_NEIGHBOR_SOLICIT 135
#define ND_NEIGHBOR_ADVERT 136
#define ND_TARGET_LEN 16
#define ND_OPT_SOURCE_LINKADDR 1
#define ND_OPT_TARGET_LINKADDR 2
#define ND_OPT_UNIT 8		/* option lengths count 8-byte units */
#define NW_TOS_DSCP_MASK 0xfc	/* as for IPv4 (miniflow.c) */

/* A view of bytes [off, end) of the packet: the payload of the IPv6
 * header, as its payload length says. */
struct v6_cursor {
	const struct rte_mbuf *m;
	uint32_t off, end;
};

/* len bytes at c->off + at, or NULL if they pass the payload's end. */
static inline const uint8_t *
v6_peek(const struct v6_cursor *c, uint32_t at, uint32_t len, void *buf)
{
	if (unlikely(len > c->end - c->off || at > c->end - c->off - len))
		return NULL;
	return rte_pktmbuf_read(c->m, c->off + at, len, buf);
}

static inline bool
v6_is_ext_hdr(uint8_t proto)
{
	return proto == IPPROTO_HOPOPTS || proto == IPPROTO_ROUTING ||
	       proto == IPPROTO_DSTOPTS || proto == IPPROTO_AH ||
	       proto == IPPROTO_FRAGMENT;
}

/* Walks the extension headers from c->off; leaves c->off at the first
 * header that is not one and *proto naming it. -1 if one is cut short. */
static int
v6_walk_ext_hdrs(struct v6_cursor *c, uint8_t *proto, uint8_t *frag)
{
	uint8_t buf[IPV6_FRAG_HLEN];

	for (unsigned n = 0; v6_is_ext_hdr(*proto); n++) {
		if (unlikely(n == IPV6_EXT_HDRS_MAX))
			return 0;	/* stop, not malformed (above) */
		const uint8_t *h = v6_peek(c, 0, IPV6_EXT_MIN, buf);
		if (unlikely(!h))
			return -1;
		uint32_t len;
		if (*proto == IPPROTO_FRAGMENT) {
			uint16_t offlg = rte_be_to_cpu_16(load_be16(h + 2));
			*proto = h[0];
			c->off += IPV6_FRAG_HLEN;
			/* an atomic fragment (offset 0, M clear) is not
			 * one; OVS tests the whole field, reserved bits
			 * included */
			if (offlg) {
				*frag = FLOW_NW_FRAG_ANY;
				if (offlg & IPV6_FRAG_OFF_MASK) {
					*frag |= FLOW_NW_FRAG_LATER;
					*proto = IPPROTO_FRAGMENT;
					return 0;
				}
			}
			continue;
		}
		len = *proto == IPPROTO_AH ? ((uint32_t)h[1] + 2) * 4
					   : ((uint32_t)h[1] + 1) * 8;
		if (unlikely(len > c->end - c->off))
			return -1;
		*proto = h[0];
		c->off += len;
	}
	return 0;
}

/* Neighbour Discovery after the ICMPv6 header: the target, then options
 * up to the payload's end. */
static int
v6_parse_nd(struct v6_cursor *c, struct flow_key *key)
{
	uint8_t buf[ND_TARGET_LEN];
	const uint8_t *t = v6_peek(c, 0, ND_TARGET_LEN, buf);
	bool sll = false, tll = false, repeated = false;

	if (unlikely(!t))
		return -1;
	memcpy(&key->nd_target, t, ND_TARGET_LEN);
	c->off += ND_TARGET_LEN;
	while (c->end - c->off >= ND_OPT_UNIT) {
		const uint8_t *o = v6_peek(c, 0, ND_OPT_UNIT, buf);
		if (unlikely(!o))
			return -1;
		uint32_t len = (uint32_t)o[1] * ND_OPT_UNIT;
		if (unlikely(len == 0 || len > c->end - c->off))
			return -1;
		/* an Ethernet address option is exactly one unit */
		if (len == ND_OPT_UNIT && o[0] == ND_OPT_SOURCE_LINKADDR) {
			repeated |= sll;
			sll = true;
			memcpy(&key->nd_sll, o + 2, RTE_ETHER_ADDR_LEN);
		} else if (len == ND_OPT_UNIT &&
			   o[0] == ND_OPT_TARGET_LINKADDR) {
			repeated |= tll;
			tll = true;
			memcpy(&key->nd_tll, o + 2, RTE_ETHER_ADDR_LEN);
		}
		c->off += len;
	}
	if (unlikely(repeated)) {	/* OVS keeps none of them */
		memset(&key->nd_target, 0, sizeof key->nd_target);
		memset(&key->nd_sll, 0, sizeof key->nd_sll);
		memset(&key->nd_tll, 0, sizeof key->nd_tll);
	}
	return 0;
}

static int
v6_parse_l4(struct v6_cursor *c, uint8_t proto, struct flow_key *key)
{
	uint8_t buf[TCP_MIN_HLEN];
	const uint8_t *l4;

	switch (proto) {
	case IPPROTO_TCP: {
		l4 = v6_peek(c, 0, TCP_MIN_HLEN, buf);
		if (unlikely(!l4))
			return -1;
		uint32_t doff = (uint32_t)(l4[12] >> 4) * 4;
		if (unlikely((doff < TCP_MIN_HLEN) | (doff > c->end - c->off)))
			return -1;
		key->tp_src = load_be16(l4);
		key->tp_dst = load_be16(l4 + 2);
		return 0;
	}
	case IPPROTO_UDP:
		l4 = v6_peek(c, 0, UDP_HLEN, buf);
		if (unlikely(!l4))
			return -1;
		key->tp_src = load_be16(l4);
		key->tp_dst = load_be16(l4 + 2);
		return 0;
	case IPPROTO_ICMPV6:
		l4 = v6_peek(c, 0, ICMPV6_HLEN, buf);
		if (unlikely(!l4))
			return -1;
		key->tp_src = rte_cpu_to_be_16(l4[0]);	/* type */
		key->tp_dst = rte_cpu_to_be_16(l4[1]);	/* code */
		if (l4[1] == 0 && (l4[0] == ND_NEIGHBOR_SOLICIT ||
				   l4[0] == ND_NEIGHBOR_ADVERT)) {
			c->off += ICMPV6_HLEN;
			return v6_parse_nd(c, key);
		}
		return 0;
	default:
		return 0;
	}
}

int
miniflow_extract_ipv6(const struct rte_mbuf *m, uint32_t l3_off,
		      struct flow_key *key)
{
	uint8_t buf[IPV6_HLEN];
	uint32_t pkt_len = rte_pktmbuf_pkt_len(m);

	/* w7 and the whole second line, zero where a header is absent, so
	 * the key compares and hashes as plain words */
	uint8_t tun6 = key->ext_line & FLOW_EXT_TUN6;	/* decap's */

	key->w[7] = 0;
	memset(key->line2, 0, sizeof key->line2);
	key->ext_line = FLOW_EXT_LINE | tun6;

	if (unlikely(pkt_len - l3_off < IPV6_HLEN))
		return -1;
	const uint8_t *ip = rte_pktmbuf_read(m, l3_off, IPV6_HLEN, buf);
	if (unlikely(!ip))
		return -1;
	uint32_t vtcfl = rte_be_to_cpu_32(load_be32(ip));
	uint32_t plen = rte_be_to_cpu_16(load_be16(ip + 4));
	if (unlikely((vtcfl >> 28 != 6) |
		     (plen > pkt_len - l3_off - IPV6_HLEN)))
		return -1;

	key->ipv6_label = rte_cpu_to_be_32(vtcfl & FLOW_IPV6_LABEL_MASK);
	key->nw_tos = (uint8_t)(vtcfl >> 20) & NW_TOS_DSCP_MASK;
	key->nw_ttl = ip[7];
	memcpy(&key->ipv6_src, ip + 8, sizeof key->ipv6_src);
	memcpy(&key->ipv6_dst, ip + 24, sizeof key->ipv6_dst);

	struct v6_cursor c = { m, l3_off + IPV6_HLEN,
			       l3_off + IPV6_HLEN + plen };
	uint8_t proto = ip[6];
	if (unlikely(v6_is_ext_hdr(proto)) &&
	    v6_walk_ext_hdrs(&c, &proto, &key->nw_frag) < 0)
		return -1;
	key->nw_proto = proto;
	if (key->nw_frag & FLOW_NW_FRAG_LATER)
		return MINIFLOW_EXT;	/* only the first has the L4 header */
	if (v6_is_ext_hdr(proto))	/* the walk's bound: no L4 */
		return MINIFLOW_EXT;
	return v6_parse_l4(&c, proto, key) < 0 ? -1 : MINIFLOW_EXT;
}
