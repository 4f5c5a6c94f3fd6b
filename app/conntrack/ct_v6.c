/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 in the connection tracker, as OVS's userspace tracker has it
 * (lib/conntrack.c: extract_l3_ipv6, extract_l4_icmp6, checksum_valid):
 * the extension headers walked to the L4 header (parse_ipv6_ext_hdrs:
 * hop-by-hop, routing, destination options, AH, fragment), the checks a
 * packet must pass before it touches a session (TCP, UDP (0 included) and
 * ICMPv6 checksums over the IPv6 pseudo-header, L4 lengths), and ICMPv6:
 * echo request and reply by id, errors (unreachable, packet too big, time
 * exceeded, parameter problem) related to the session of the packet they
 * quote; every other type, Neighbour Discovery included, is +inv, as in
 * OVS (Neutron's firewall lets ND by before ct()).
 *
 * Keys: an IPv6 session has the 16-byte key of an IPv4 one, its address
 * words a SipHash-1-3 digest of the address pair under a secret of its
 * own (ct_private.h says why, and what a hit then checks).
 */
#include <errno.h>
#include <string.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include "flow_key.h"
#include "ct_private.h"

#define IPV6_HLEN 40
#define IPV6_SRC_OFS 8
#define IPV6_DST_OFS 24
#define IPV6_EXT_MIN 8
#define IPV6_FRAG_OFF_MASK 0xfff8
/* The flow extract's bound (miniflow_ipv6.c): past it the walk stops and
 * the header found is the protocol, so the key agrees with the flow's. */
#define IPV6_EXT_HDRS_MAX 16

#define ICMP6_HLEN 8
#define ICMP6_DST_UNREACH 1
#define ICMP6_PACKET_TOO_BIG 2
#define ICMP6_TIME_EXCEEDED 3
#define ICMP6_PARAM_PROB 4
#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
/* An error quotes at least this much of its packet's L4 header (OVS's
 * ICMP_ERROR_DATA_L4_LEN). */
#define ICMP_ERROR_L4_LEN 8

struct siphash_key ct_addr6_key;

static inline bool
is_ext_hdr(uint8_t proto)
{
	return proto == IPPROTO_HOPOPTS || proto == IPPROTO_ROUTING ||
	       proto == IPPROTO_DSTOPTS || proto == IPPROTO_AH ||
	       proto == IPPROTO_FRAGMENT;
}

int
ct_ipv6_walk(const uint8_t *ip6, uint32_t end, uint8_t *proto, uint8_t *frag,
	     uint32_t *ofs, uint32_t fh[2])
{
	uint32_t nh = 6;	/* the next-header byte naming *proto */

	*proto = ip6[6];
	*frag = 0;
	*ofs = IPV6_HLEN;
	for (unsigned n = 0; is_ext_hdr(*proto); n++) {
		if (n == IPV6_EXT_HDRS_MAX)
			return 0;
		if (end - *ofs < IPV6_EXT_MIN)
			return -1;
		const uint8_t *h = ip6 + *ofs;
		if (*proto == IPPROTO_FRAGMENT) {
			uint16_t offlg = (uint16_t)(h[2] << 8 | h[3]);
			*proto = h[0];
			if (offlg && fh) {
				fh[0] = *ofs;
				fh[1] = nh;
			}
			nh = *ofs;
			*ofs += IPV6_EXT_MIN;
			if (offlg) {	/* an atomic fragment is not one */
				*frag = FLOW_NW_FRAG_ANY;
				if (offlg & IPV6_FRAG_OFF_MASK) {
					*frag |= FLOW_NW_FRAG_LATER;
					*proto = IPPROTO_FRAGMENT;
					return 0;
				}
			}
			continue;
		}
		uint32_t len = *proto == IPPROTO_AH ? (h[1] + 2u) * 4
						    : (h[1] + 1u) * 8;
		if (len > end - *ofs)
			return -1;
		*proto = h[0];
		nh = *ofs;
		*ofs += len;
	}
	return 0;
}

int
ct_pkt_meta_l4_ipv6(struct ct_pkt_meta *mt, const struct rte_mbuf *m,
		    uint16_t l3_ofs)
{
	if ((uint32_t)l3_ofs + IPV6_HLEN > m->data_len)
		return -EINVAL;
	const uint8_t *ip6 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						     l3_ofs);
	uint32_t end = IPV6_HLEN + (uint32_t)(ip6[4] << 8 | ip6[5]);
	uint8_t proto, frag;
	uint32_t ofs;

	/* the payload within the frame; the headers walked within the
	 * first segment */
	if ((ip6[0] >> 4) != 6 || end > rte_pktmbuf_pkt_len(m) - l3_ofs ||
	    ct_ipv6_walk(ip6, RTE_MIN(end, (uint32_t)m->data_len - l3_ofs),
			 &proto, &frag, &ofs, NULL) < 0)
		return -EINVAL;
	mt->l3_ofs = l3_ofs;
	mt->l4_ofs = (uint16_t)(l3_ofs + ofs);
	mt->l4_len = (uint16_t)(end - ofs);
	mt->nw_proto = proto;
	mt->nw_frag = frag;
	mt->is_ipv6 = 1;
	return 0;
}

bool
ct_ip6_l4(const uint8_t *ip6, uint32_t len, uint8_t *proto, uint32_t *ofs)
{
	uint8_t frag;

	return len >= IPV6_HLEN &&
	       ct_ipv6_walk(ip6, len, proto, &frag, ofs, NULL) == 0 &&
	       !frag;
}

void
ct_key6_set_addrs(struct ct_key *k, const uint8_t src[16],
		  const uint8_t dst[16])
{
	uint64_t w[4];

	memcpy(w, src, 16);
	memcpy(w + 2, dst, 16);
	uint64_t h = siphash_32(&ct_addr6_key, w, 1, 3);
	k->src = (rte_be32_t)h;
	k->dst = (rte_be32_t)(h >> 32);
	k->v6 = 1;
}

int
ct_icmp6_reply_type(uint8_t type)
{
	return type == ICMP6_ECHO_REQUEST ? ICMP6_ECHO_REPLY : -1;
}

bool
ct_key6_reply(const struct ct_key *k, const struct ct_addr6 *a6,
	      struct ct_key *r)
{
	bool ok = ct_key_reply(k, r);

	ct_key6_set_addrs(r, a6->dst, a6->src);
	return ok;
}

/* The one's-complement sum of the L4 bytes and the IPv6 pseudo-header
 * (RFC 8200 8.1: the upper-layer length, not the payload length, which
 * counts the extension headers): 0xffff when the checksum is right. */
uint16_t
ct_l4_sum6(const struct rte_mbuf *m, const struct ct_pkt_meta *mt)
{
	struct {
		uint8_t addrs[32];
		rte_be32_t len;
		uint8_t zero[3];
		uint8_t proto;
	} __rte_packed ph;
	uint16_t raw = 0;

	if (rte_raw_cksum_mbuf(m, mt->l4_ofs, mt->l4_len, &raw))
		return 0;
	memcpy(ph.addrs, rte_pktmbuf_mtod_offset(m, const uint8_t *,
						 mt->l3_ofs + IPV6_SRC_OFS),
	       sizeof ph.addrs);
	ph.len = rte_cpu_to_be_32(mt->l4_len);
	memset(ph.zero, 0, sizeof ph.zero);
	ph.proto = mt->nw_proto;
	uint32_t s = (uint32_t)raw + rte_raw_cksum(&ph, sizeof ph);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)((s & 0xffff) + (s >> 16));
}

/* conn_key_extract's checks (ct_other.c's packet_sane, for IPv6) */
static bool
packet_sane6(const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
	     const uint8_t *l4)
{
	switch (mt->nw_proto) {
	case IPPROTO_TCP:
	case IPPROTO_ICMPV6:
		return ct_l4_sum6(m, mt) == 0xffff;
	case IPPROTO_UDP: {
		const struct rte_udp_hdr *u = (const void *)l4;
		uint16_t len = rte_be_to_cpu_16(u->dgram_len);
		if (len < sizeof *u || len > mt->l4_len)
			return false;
		/* 0 is no checksum over IPv4 only (RFC 8200 8.1: an IPv6
		 * receiver discards it; OVS 3.1's check_l4_udp) */
		return ct_l4_sum6(m, mt) == 0xffff;
	}
	default:
		return true;
	}
}

/* ICMPv6's queries: echo request and reply (an error quoting an error
 * is refused, as OVS's extract_l4_icmp6 without related) */
bool
ct_icmp6_is_query(uint8_t type)
{
	return type == ICMP6_ECHO_REQUEST || type == ICMP6_ECHO_REPLY;
}

/* An ICMPv6 error: the key of the packet it quotes, reversed (the error
 * travels back to that packet's sender). */
static bool
icmp6_error_key(const uint8_t *l4, uint32_t avail, uint16_t zone,
		const struct ct_addr6 *outer, struct ct_key *k,
		struct ct_addr6 *a6)
{
	const uint8_t *in = l4 + ICMP6_HLEN;
	uint32_t quoted = avail - ICMP6_HLEN;
	uint8_t proto, frag;
	uint32_t ofs;

	if (avail < ICMP6_HLEN + IPV6_HLEN ||
	    ct_ipv6_walk(in, quoted, &proto, &frag, &ofs, NULL) < 0 || frag)
		return false;
	/* the quoted packet was sent by the error's addressee */
	if (memcmp(in + IPV6_SRC_OFS, outer->dst, 16))
		return false;
	struct ct_key inner = { .zone = zone, .proto = proto };
	struct ct_addr6 ia;
	memcpy(ia.src, in + IPV6_SRC_OFS, 16);
	memcpy(ia.dst, in + IPV6_DST_OFS, 16);
	if ((proto == IPPROTO_TCP || proto == IPPROTO_UDP) &&
	    quoted - ofs < ICMP_ERROR_L4_LEN)
		return false;
	if (!ct_l4_ports(in + ofs, quoted - ofs, proto, true, &inner))
		return false;
	ct_key6_set_addrs(&inner, ia.src, ia.dst);
	memcpy(a6->src, ia.dst, 16);
	memcpy(a6->dst, ia.src, 16);
	return ct_key6_reply(&inner, &ia, k);
}

bool
ct_flow_est_key6(struct ct_key *k, const struct flow_key *f, uint16_t zone)
{
	if ((f->nw_proto != IPPROTO_UDP && f->nw_proto != IPPROTO_TCP) ||
	    f->nw_frag)
		return false;
	*k = (struct ct_key){ .sport = f->tp_src, .dport = f->tp_dst,
			      .zone = zone, .proto = f->nw_proto };
	ct_key6_set_addrs(k, (const uint8_t *)&f->ipv6_src,
			  (const uint8_t *)&f->ipv6_dst);
	return true;
}

bool
ct_l4_sane6(const struct rte_mbuf *m, uint16_t l3_ofs, uint8_t proto,
	    uint16_t *l4_ofs, uint16_t *l4_len)
{
	struct ct_pkt_meta mt = { 0 };
	uint32_t hdr = proto == IPPROTO_TCP ? sizeof(struct rte_tcp_hdr)
					    : sizeof(struct rte_udp_hdr);

	if (ct_pkt_meta_l4_ipv6(&mt, m, l3_ofs) < 0 || mt.nw_proto != proto ||
	    mt.nw_frag || mt.l4_len < hdr ||
	    (uint32_t)mt.l4_ofs + hdr > m->data_len)
		return false;
	const uint8_t *l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    mt.l4_ofs);
	if (proto == IPPROTO_TCP) {
		uint32_t doff = (l4[12] >> 4) * 4u;
		if (doff < hdr || doff > mt.l4_len ||
		    (uint32_t)mt.l4_ofs + doff > m->data_len)
			return false;
	}
	*l4_ofs = mt.l4_ofs;
	*l4_len = mt.l4_len;
	return packet_sane6(m, &mt, l4);
}

bool
ct_key_extract6(const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
		uint16_t zone, struct ct_key *k, struct ct_addr6 *a6,
		bool *related)
{
	*related = false;
	/* a fragment here is one the fragment store (ct_ipf.h) refused,
	 * or reassembly is off: +inv, as OVS's. A reassembled datagram has
	 * no Fragment header left, an atomic one (offset 0, M clear) is no
	 * fragment (ct_ipv6_walk) */
	if ((mt->nw_frag & FLOW_NW_FRAG_ANY) || mt->l4_ofs > m->data_len)
		return false;
	const uint8_t *ip6 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						     mt->l3_ofs);
	memcpy(a6->src, ip6 + IPV6_SRC_OFS, 16);
	memcpy(a6->dst, ip6 + IPV6_DST_OFS, 16);
	*k = (struct ct_key){ .zone = zone, .proto = mt->nw_proto };

	uint32_t avail = RTE_MIN((uint32_t)mt->l4_len,
				 (uint32_t)m->data_len - mt->l4_ofs);
	const uint8_t *l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    mt->l4_ofs);
	switch (mt->nw_proto) {
	case IPPROTO_TCP: {
		const struct rte_tcp_hdr *t = (const void *)l4;
		if (avail < sizeof *t)
			return false;
		uint32_t doff = (t->data_off >> 4) * 4u;
		if (doff < sizeof *t || doff > avail || !packet_sane6(m, mt, l4))
			return false;
		break;
	}
	case IPPROTO_UDP:
		if (avail < sizeof(struct rte_udp_hdr) ||
		    !packet_sane6(m, mt, l4))
			return false;
		break;
	case IPPROTO_ICMPV6:
		if (avail < ICMP6_HLEN || !packet_sane6(m, mt, l4))
			return false;
		switch (l4[0]) {
		case ICMP6_DST_UNREACH:
		case ICMP6_PACKET_TOO_BIG:
		case ICMP6_TIME_EXCEEDED:
		case ICMP6_PARAM_PROB: {
			struct ct_addr6 outer = *a6;
			*related = true;
			return icmp6_error_key(l4, avail, zone, &outer, k, a6);
		}
		}
		break;
	}
	if (!ct_l4_ports(l4, avail, mt->nw_proto, true, k))
		return false;
	ct_key6_set_addrs(k, a6->src, a6->dst);
	return true;
}
