/* SPDX-License-Identifier: BSD-3-Clause
 * miniflow_extract on IPv6 (app/datapath/miniflow_ipv6.c): every key field
 * of hand-built packets (addresses, label, traffic class, hop limit, L4,
 * ICMPv6, Neighbour Discovery), the extension-header walk as OVS's
 * (hop-by-hop, routing, destination options, AH, fragment: first, later,
 * atomic), the walk's bound, the malformed cases (every truncation of a
 * full chain), link padding, and segmentation at every offset never
 * changing the answer. OVS's own answers for the same packets are checked
 * by tests/integration/test_ipv6_extract_ovs.py.
 */
#include <netinet/in.h>
#include "miniflow_test.h"

static const uint8_t SRC6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				  0, 0, 0, 0, 0, 0, 0, 0x01 };
static const uint8_t DST6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				  0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44,
				  0x55 };
static const uint8_t TGT6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				  0xf8, 0x16, 0x3e, 0xff, 0xfe, 0, 0, 0x01 };
static const uint8_t LLA1[6] = { 0xfa, 0x16, 0x3e, 0x00, 0x00, 0x01 };
static const uint8_t LLA2[6] = { 0xfa, 0x16, 0x3e, 0x00, 0x00, 0x02 };

/* Returns the header's offset; finish with ipv6_set_plen(). */
static uint32_t
put_ipv6(struct pkt *p, uint8_t tclass, uint32_t label, uint8_t nxt,
	 uint8_t hlim)
{
	uint32_t off = p->len;

	put32(p, 6u << 28 | (uint32_t)tclass << 20 | label);
	put16(p, 0);			/* payload length: set later */
	put8(p, nxt);
	put8(p, hlim);
	put(p, SRC6, 16);
	put(p, DST6, 16);
	return off;
}

static void
ipv6_set_plen(struct pkt *p, uint32_t ip_off)
{
	uint32_t plen = p->len - ip_off - 40;
	p->b[ip_off + 4] = (uint8_t)(plen >> 8);
	p->b[ip_off + 5] = (uint8_t)plen;
}

/* A generic extension header (hop-by-hop, routing, destination options)
 * of (len + 1) * 8 bytes, its body padded with PadN-like bytes. */
static void
put_ext(struct pkt *p, uint8_t nxt, uint8_t len)
{
	put8(p, nxt);
	put8(p, len);
	put8(p, 1);			/* PadN */
	put8(p, (uint8_t)(len * 8 + 4));
	put_zeros(p, len * 8u + 4);
}

static void
put_frag(struct pkt *p, uint8_t nxt, uint16_t offset, bool more)
{
	put8(p, nxt);
	put8(p, 0);
	put16(p, (uint16_t)(offset << 3 | more));
	put32(p, 0xabcd0001);		/* identification */
}

static void
put_icmp6(struct pkt *p, uint8_t type, uint8_t code)
{
	put8(p, type);
	put8(p, code);
	put16(p, 0xbeef);		/* checksum: not checked */
	put32(p, 0x60000000);		/* echo id/seq, ND flags, ... */
}

static void
put_lla(struct pkt *p, uint8_t type, const uint8_t mac[6])
{
	put8(p, type);
	put8(p, 1);			/* 8 bytes */
	put(p, mac, 6);
}

struct flow_key
ipv6_key(uint8_t proto, uint8_t tclass, uint8_t hlim, uint32_t label)
{
	struct flow_key k = l2_key(0x86dd);

	k.w[7] = 0;
	k.ext_line = FLOW_EXT_LINE;
	k.ipv6_label = rte_cpu_to_be_32(label);
	memset(k.line2, 0, sizeof k.line2);
	memcpy(&k.ipv6_src, SRC6, 16);
	memcpy(&k.ipv6_dst, DST6, 16);
	k.nw_proto = proto;
	k.nw_tos = tclass & 0xfc;
	k.nw_ttl = hlim;
	return k;
}

static void
set_ports(struct flow_key *k, uint16_t src, uint16_t dst)
{
	k->tp_src = rte_cpu_to_be_16(src);
	k->tp_dst = rte_cpu_to_be_16(dst);
}

static void
test_l4(void)
{
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x86dd);
	uint32_t ip = put_ipv6(&p, 0xb9, 0xfedcb, IPPROTO_TCP, 7);
	put_tcp(&p, 40000, 443, 5, 0);
	ipv6_set_plen(&p, ip);
	/* tclass 0xb9: DSCP 46 kept, ECN 1 dropped as for IPv4 */
	struct flow_key k = ipv6_key(IPPROTO_TCP, 0xb8, 7, 0xfedcb);
	set_ports(&k, 40000, 443);
	expect_key("ipv6 tcp", mbuf_pkt(&p), &k);

	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	ip = put_ipv6(&p, 0, 0, IPPROTO_UDP, 64);
	put_udp(&p, 5353, 53, 20);
	ipv6_set_plen(&p, ip);
	k = ipv6_key(IPPROTO_UDP, 0, 64, 0);
	set_ports(&k, 5353, 53);
	expect_key("ipv6 udp", mbuf_pkt(&p), &k);

	/* link padding after the payload length is never read */
	put_zeros(&p, 30);
	expect_key("ipv6 udp, padded", mbuf_pkt(&p), &k);

	/* ICMPv6 echo request: type and code in the ports */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	ip = put_ipv6(&p, 0, 0, IPPROTO_ICMPV6, 64);
	put_icmp6(&p, 128, 0);
	ipv6_set_plen(&p, ip);
	k = ipv6_key(IPPROTO_ICMPV6, 0, 64, 0);
	set_ports(&k, 128, 0);
	expect_key("icmpv6 echo", mbuf_pkt(&p), &k);

	/* a protocol we do not parse further: nw_proto only */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	ip = put_ipv6(&p, 0, 0, IPPROTO_GRE, 64);
	put_zeros(&p, 4);
	ipv6_set_plen(&p, ip);
	k = ipv6_key(IPPROTO_GRE, 0, 64, 0);
	expect_key("ipv6 gre", mbuf_pkt(&p), &k);
}

/* NS / NA with their options; what OVS keeps of odd ones */
static void
test_nd(void)
{
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x86dd);
	uint32_t ip = put_ipv6(&p, 0, 0, IPPROTO_ICMPV6, 255);
	put_icmp6(&p, 135, 0);
	put(&p, TGT6, 16);
	put_lla(&p, 1, LLA1);
	ipv6_set_plen(&p, ip);
	struct flow_key ns = ipv6_key(IPPROTO_ICMPV6, 0, 255, 0);
	set_ports(&ns, 135, 0);
	memcpy(&ns.nd_target, TGT6, 16);
	memcpy(&ns.nd_sll, LLA1, 6);
	expect_key("nd ns + sll", mbuf_pkt(&p), &ns);

	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	ip = put_ipv6(&p, 0, 0, IPPROTO_ICMPV6, 255);
	put_icmp6(&p, 136, 0);
	put(&p, TGT6, 16);
	put8(&p, 14);			/* an option we skip: nonce, 8 bytes */
	put8(&p, 1);
	put_zeros(&p, 6);
	put_lla(&p, 2, LLA2);
	ipv6_set_plen(&p, ip);
	struct flow_key na = ipv6_key(IPPROTO_ICMPV6, 0, 255, 0);
	set_ports(&na, 136, 0);
	memcpy(&na.nd_target, TGT6, 16);
	memcpy(&na.nd_tll, LLA2, 6);
	expect_key("nd na + nonce + tll", mbuf_pkt(&p), &na);

	/* no options: the target only; a trailing 4 bytes are ignored */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	ip = put_ipv6(&p, 0, 0, IPPROTO_ICMPV6, 255);
	put_icmp6(&p, 135, 0);
	put(&p, TGT6, 16);
	put_zeros(&p, 4);
	ipv6_set_plen(&p, ip);
	struct flow_key k = ipv6_key(IPPROTO_ICMPV6, 0, 255, 0);
	set_ports(&k, 135, 0);
	memcpy(&k.nd_target, TGT6, 16);
	expect_key("nd ns, no options", mbuf_pkt(&p), &k);

	/* SLL twice: OVS keeps no ND field at all; so do we */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	ip = put_ipv6(&p, 0, 0, IPPROTO_ICMPV6, 255);
	put_icmp6(&p, 135, 0);
	put(&p, TGT6, 16);
	put_lla(&p, 1, LLA1);
	put_lla(&p, 1, LLA2);
	ipv6_set_plen(&p, ip);
	k = ipv6_key(IPPROTO_ICMPV6, 0, 255, 0);
	set_ports(&k, 135, 0);
	expect_key("nd ns, sll twice", mbuf_pkt(&p), &k);

	/* a code other than 0 is not ND: type and code only */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	ip = put_ipv6(&p, 0, 0, IPPROTO_ICMPV6, 255);
	put_icmp6(&p, 135, 1);
	put(&p, TGT6, 16);
	ipv6_set_plen(&p, ip);
	k = ipv6_key(IPPROTO_ICMPV6, 0, 255, 0);
	set_ports(&k, 135, 1);
	expect_key("nd ns code 1", mbuf_pkt(&p), &k);

	/* malformed: an option of length 0, one past the end, no target */
	static const uint8_t bad_len[] = { 0, 2 };
	for (int i = 0; i < 2; i++) {
		p = (struct pkt){ .len = 0 };
		put_eth(&p, 0x86dd);
		ip = put_ipv6(&p, 0, 0, IPPROTO_ICMPV6, 255);
		put_icmp6(&p, 135, 0);
		put(&p, TGT6, 16);
		put8(&p, 1);
		put8(&p, bad_len[i]);
		put(&p, LLA1, 6);
		ipv6_set_plen(&p, ip);
		expect_malformed(i ? "nd option past the end"
				   : "nd option of length 0", mbuf_pkt(&p));
	}
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	ip = put_ipv6(&p, 0, 0, IPPROTO_ICMPV6, 255);
	put_icmp6(&p, 136, 0);
	put_zeros(&p, 8);
	ipv6_set_plen(&p, ip);
	expect_malformed("nd na without a whole target", mbuf_pkt(&p));
}

/* The full chain: hop-by-hop, routing, destination options, AH,
 * fragment (first), TCP. Returns the IPv6 header's offset. */
static uint32_t
chain_pkt(struct pkt *p, uint16_t frag_off, bool more)
{
	put_eth(p, 0x86dd);
	uint32_t ip = put_ipv6(p, 0, 0x12345, IPPROTO_HOPOPTS, 64);
	put_ext(p, IPPROTO_ROUTING, 0);
	put_ext(p, IPPROTO_DSTOPTS, 1);
	put_ext(p, IPPROTO_AH, 0);
	put8(p, IPPROTO_FRAGMENT);	/* AH: (len + 2) * 4 = 16 bytes */
	put8(p, 2);
	put_zeros(p, 14);
	put_frag(p, IPPROTO_TCP, frag_off, more);
	put_tcp(p, 1234, 22, 5, 0);
	ipv6_set_plen(p, ip);
	return ip;
}

static void
test_ext_hdrs(void)
{
	struct pkt p = { .len = 0 };
	chain_pkt(&p, 0, true);
	struct flow_key k = ipv6_key(IPPROTO_TCP, 0, 64, 0x12345);
	k.nw_frag = FLOW_NW_FRAG_ANY;
	set_ports(&k, 1234, 22);
	expect_key("ext chain, first fragment", mbuf_pkt(&p), &k);

	/* atomic fragment (offset 0, M clear): not a fragment */
	p = (struct pkt){ .len = 0 };
	chain_pkt(&p, 0, false);
	k.nw_frag = 0;
	expect_key("ext chain, atomic fragment", mbuf_pkt(&p), &k);

	/* a later fragment: nw_proto 44, no L4, whatever follows */
	p = (struct pkt){ .len = 0 };
	chain_pkt(&p, 185, true);
	k = ipv6_key(IPPROTO_FRAGMENT, 0, 64, 0x12345);
	k.nw_frag = FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER;
	expect_key("ext chain, later fragment", mbuf_pkt(&p), &k);

	/* every truncation of the first-fragment chain: malformed, whether
	 * the frame or only the payload length is cut */
	p = (struct pkt){ .len = 0 };
	uint32_t ip = chain_pkt(&p, 0, true);
	for (uint32_t len = 14; len < p.len; len++)
		expect_malformed("ext chain, frame cut", mbuf_of(p.b, len));
	for (uint32_t plen = 0; plen < p.len - ip - 40; plen++) {
		struct pkt q = p;
		q.b[ip + 4] = (uint8_t)(plen >> 8);
		q.b[ip + 5] = (uint8_t)plen;
		expect_malformed("ext chain, payload length cut",
				 mbuf_pkt(&q));
	}

	/* the walk's bound: 16 headers are walked, the 17th is where the
	 * key stops (nw_proto 60, no ports), not malformed */
	for (int n = 16; n <= 17; n++) {
		p = (struct pkt){ .len = 0 };
		put_eth(&p, 0x86dd);
		ip = put_ipv6(&p, 0, 0, IPPROTO_DSTOPTS, 64);
		for (int i = 0; i < n; i++)
			put_ext(&p, i + 1 < n ? IPPROTO_DSTOPTS : IPPROTO_UDP,
				0);
		put_udp(&p, 7, 9, 0);
		ipv6_set_plen(&p, ip);
		k = ipv6_key(n == 16 ? IPPROTO_UDP : IPPROTO_DSTOPTS, 0, 64,
			     0);
		if (n == 16)
			set_ports(&k, 7, 9);
		expect_key(n == 16 ? "16 extension headers"
				   : "17 extension headers: the walk stops",
			   mbuf_pkt(&p), &k);
	}
}

static void
test_malformed_v6(void)
{
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x86dd);
	uint32_t ip = put_ipv6(&p, 0, 0, IPPROTO_UDP, 64);
	put_udp(&p, 1, 2, 0);
	ipv6_set_plen(&p, ip);
	for (uint32_t len = 14; len < p.len; len++)
		expect_malformed("ipv6 udp, frame cut", mbuf_of(p.b, len));

	struct pkt q = p;
	q.b[ip] = 0x40;			/* version 4 in an 0x86dd frame */
	expect_malformed("ipv6 version 4", mbuf_pkt(&q));
	q = p;
	q.b[ip + 5] += 1;		/* payload length past the frame */
	expect_malformed("ipv6 payload length past the frame",
			 mbuf_pkt(&q));

	/* TCP with a data offset past the payload */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	ip = put_ipv6(&p, 0, 0, IPPROTO_TCP, 64);
	put_tcp(&p, 1, 2, 6, 0);
	ipv6_set_plen(&p, ip);
	expect_malformed("ipv6 tcp doff past the payload", mbuf_pkt(&p));

	/* ICMPv6 of 4 bytes */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	ip = put_ipv6(&p, 0, 0, IPPROTO_ICMPV6, 64);
	put32(&p, 0x80000000);
	ipv6_set_plen(&p, ip);
	expect_malformed("icmpv6 of 4 bytes", mbuf_pkt(&p));
}

/* Every split of the chain and of an ND packet into two or three
 * segments gives the key of the contiguous packet. */
static void
test_multiseg_v6(void)
{
	struct pkt pk[2] = { { .len = 0 }, { .len = 0 } };
	chain_pkt(&pk[0], 0, true);
	put_eth(&pk[1], 0x86dd);
	uint32_t ip = put_ipv6(&pk[1], 0, 0, IPPROTO_ICMPV6, 255);
	put_icmp6(&pk[1], 135, 0);
	put(&pk[1], TGT6, 16);
	put_lla(&pk[1], 1, LLA1);
	ipv6_set_plen(&pk[1], ip);

	for (int i = 0; i < 2; i++) {
		struct flow_key want, got;
		struct rte_mbuf *m = mbuf_pkt(&pk[i]);
		int rc_want = extract_dirty(m, &want, 1);
		rte_pktmbuf_free(m);
		unsigned bad = 0;
		for (uint32_t a = 1; a < pk[i].len; a++) {
			for (uint32_t b = a; b < pk[i].len; b += 7) {
				uint32_t cuts[2] = { a, b };
				m = mbuf_split(pk[i].b, pk[i].len, cuts, 2);
				int rc = extract_dirty(m, &got, 1);
				bad += rc != rc_want ||
				       memcmp(&got, &want, sizeof got);
				rte_pktmbuf_free(m);
			}
		}
		if (bad == 0 && rc_want == MINIFLOW_EXT) {
			n_passed++;
		} else {
			n_failed++;
			printf("FAIL ipv6 segmented (%s): %u splits differ, "
			       "rc %d\n", i ? "nd" : "chain", bad, rc_want);
		}
	}
}

void
test_ipv6(void)
{
	test_l4();
	test_nd();
	test_ext_hdrs();
	test_malformed_v6();
	test_multiseg_v6();
}
