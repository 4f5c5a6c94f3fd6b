/* SPDX-License-Identifier: BSD-3-Clause
 * test_miniflow, well-formed packets: every key field of UDP, TCP, ICMP,
 * VLAN, ARP and other L2 packets; IPv4 options, fragments, padding.
 */
#include "miniflow_test.h"

/* ---- well-formed packets ---- */

void
test_udp_tcp_icmp(void)
{
	struct pkt p = udp_pkt((struct ip4){ .ttl = 64, .proto = 17 },
			       5000, 4789);
	struct flow_key k = l4_key(17, 5000, 4789);
	expect_key("udp", mbuf_pkt(&p), &k);

	p = tcp_pkt((struct ip4){ .ttl = 64, .proto = 6 }, 40000, 443);
	k = l4_key(6, 40000, 443);
	expect_key("tcp", mbuf_pkt(&p), &k);

	/* TCP with options: data offset 15 */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0800);
	uint32_t ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 6 });
	put_tcp(&p, 1, 65535, 15, 40);
	ip_set_total(&p, ip);
	k = l4_key(6, 1, 65535);
	expect_key("tcp doff 15", mbuf_pkt(&p), &k);

	/* ICMP echo request: type 8 code 0; and dest unreachable 3/13 */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0800);
	ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 1 });
	put8(&p, 8);
	put8(&p, 0);
	put16(&p, 0);
	put32(&p, 0x00010001);
	ip_set_total(&p, ip);
	k = l4_key(1, 8, 0);
	expect_key("icmp echo", mbuf_pkt(&p), &k);

	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0800);
	ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 1 });
	put8(&p, 3);
	put8(&p, 13);
	put16(&p, 0);
	ip_set_total(&p, ip);
	k = l4_key(1, 3, 13);
	expect_key("icmp unreach, 4-byte header", mbuf_pkt(&p), &k);

	/* an L4 protocol we do not parse: GRE */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0800);
	ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 47 });
	put32(&p, 0x00006558);
	ip_set_total(&p, ip);
	k = ip_key(47, 0, 64);
	expect_key("gre: no ports", mbuf_pkt(&p), &k);

	/* no payload at all for an unparsed protocol is fine */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0800);
	ip = put_ipv4(&p, (struct ip4){ .ttl = 1, .proto = 89 });
	ip_set_total(&p, ip);
	k = ip_key(89, 0, 1);
	expect_key("ospf, empty payload", mbuf_pkt(&p), &k);
}

void
test_tos_ttl(void)
{
	/* DSCP kept, ECN bits dropped, as OVS's nw_tos */
	struct pkt p = udp_pkt((struct ip4){ .tos = 0xbb, .ttl = 255,
					     .proto = 17 }, 1, 2);
	struct flow_key k = l4_key(17, 1, 2);
	k.nw_tos = 0xb8;
	k.nw_ttl = 255;
	expect_key("tos 0xbb -> 0xb8", mbuf_pkt(&p), &k);

	p = udp_pkt((struct ip4){ .tos = 0x03, .ttl = 0, .proto = 17 }, 1, 2);
	k = l4_key(17, 1, 2);
	k.nw_tos = 0;
	k.nw_ttl = 0;
	expect_key("tos ecn only, ttl 0", mbuf_pkt(&p), &k);
}

void
test_vlan(void)
{
	static const uint16_t tpids[] = { 0x8100, 0x88a8 };
	for (int i = 0; i < 2; i++) {
		struct pkt p = { .len = 0 };
		put_eth(&p, tpids[i]);
		put_vlan(&p, 0x2064, 0x0800);	/* pcp 1, vid 100 */
		uint32_t ip = put_ipv4(&p, (struct ip4){ .ttl = 64,
							  .proto = 17 });
		put_udp(&p, 53, 33000, 0);
		ip_set_total(&p, ip);
		struct flow_key k = l4_key(17, 53, 33000);
		k.vlan_tci = RTE_BE16(0x2064 | FLOW_VLAN_CFI);
		expect_key(i ? "802.1ad + ipv4" : "802.1q + ipv4",
			   mbuf_pkt(&p), &k);
	}

	/* vid 0 (priority tag) is still a tag: CFI marks it present */
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x8100);
	put_vlan(&p, 0x0000, 0x86dd);
	put32(&p, 0x60000000);
	put16(&p, 0);		/* payload length */
	put8(&p, 59);		/* no next header */
	put_zeros(&p, 33);	/* hop limit, addresses */
	struct flow_key k = ipv6_key(59, 0, 0, 0);
	memset(&k.ipv6_src, 0, 16);
	memset(&k.ipv6_dst, 0, 16);
	k.vlan_tci = RTE_BE16(FLOW_VLAN_CFI);
	expect_key("priority tag + ipv6", mbuf_pkt(&p), &k);

	/* QinQ: outer tag parsed, inner TPID becomes dl_type, stop there */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x88a8);
	put_vlan(&p, 0x0fff, 0x8100);
	put_vlan(&p, 0x0005, 0x0800);
	uint32_t ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 17 });
	put_udp(&p, 1, 2, 0);
	ip_set_total(&p, ip);
	k = l2_key(0x8100);
	k.vlan_tci = RTE_BE16(0x0fff | FLOW_VLAN_CFI);
	expect_key("qinq", mbuf_pkt(&p), &k);

	/* QinQ with nothing after the inner TPID: still not malformed */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x8100);
	put_vlan(&p, 0xe00a, 0x88a8);
	k = l2_key(0x88a8);
	k.vlan_tci = RTE_BE16(0xe00a | FLOW_VLAN_CFI);
	expect_key("qinq, bare inner tpid", mbuf_pkt(&p), &k);

	/* a tag whose inner type is an 802.3 length */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x8100);
	put_vlan(&p, 0x0001, 46);
	put_zeros(&p, 46);
	k = l2_key(FLOW_DL_TYPE_NONE);
	k.vlan_tci = RTE_BE16(0x0001 | FLOW_VLAN_CFI);
	expect_key("vlan + 802.3", mbuf_pkt(&p), &k);

	/* a TPID with the tag cut short */
	for (uint32_t len = 14; len < 18; len++) {
		p = (struct pkt){ .len = 0 };
		put_eth(&p, 0x8100);
		put_vlan(&p, 0x0064, 0x0800);
		expect_malformed("truncated vlan tag", mbuf_of(p.b, len));
	}
}

void
test_arp(void)
{
	static const uint16_t ops[] = { 1, 2, 0x0104 };
	for (int i = 0; i < 3; i++) {
		struct pkt p = { .len = 0 };
		put_eth(&p, 0x0806);
		put_arp(&p, 1, 0x0800, ops[i]);
		put_zeros(&p, 18);	/* padding to 60 */
		struct flow_key k = l2_key(0x0806);
		k.nw_proto = ops[i] & 0xff;
		k.nw_src = RTE_BE32(IP_SRC);
		k.nw_dst = RTE_BE32(IP_DST);
		expect_key(ops[i] == 1 ? "arp request" : "arp reply/other",
			   mbuf_pkt(&p), &k);
	}

	/* ARP in a VLAN */
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x8100);
	put_vlan(&p, 0x000a, 0x0806);
	put_arp(&p, 1, 0x0800, 2);
	struct flow_key k = l2_key(0x0806);
	k.vlan_tci = RTE_BE16(0x000a | FLOW_VLAN_CFI);
	k.nw_proto = 2;
	k.nw_src = RTE_BE32(IP_SRC);
	k.nw_dst = RTE_BE32(IP_DST);
	expect_key("vlan arp", mbuf_pkt(&p), &k);

	/* not Ethernet/IPv4: legal, nothing to match beyond L2 */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0806);
	put_arp(&p, 6, 0x0800, 1);	/* IEEE 802 htype */
	k = l2_key(0x0806);
	expect_key("arp htype 6", mbuf_pkt(&p), &k);

	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0806);
	put_arp(&p, 1, 0x86dd, 1);
	expect_key("arp ptype ipv6", mbuf_pkt(&p), &k);

	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0806);
	put_arp(&p, 1, 0x0800, 1);
	p.b[14 + 5] = 16;		/* plen 16 */
	expect_key("arp plen 16", mbuf_pkt(&p), &k);

	/* only the fixed part of a foreign ARP is required */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0806);
	put_arp(&p, 6, 0x0800, 1);
	expect_key("arp htype 6, 8 bytes", mbuf_of(p.b, 14 + 8), &k);

	/* truncated Ethernet/IPv4 ARP */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0806);
	put_arp(&p, 1, 0x0800, 1);
	for (uint32_t len = 14; len < 14 + 28; len++)
		expect_malformed("truncated arp", mbuf_of(p.b, len));
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0806);
	put_arp(&p, 6, 0x0800, 1);
	for (uint32_t len = 14; len < 14 + 8; len++)
		expect_malformed("truncated arp fixed part",
				 mbuf_of(p.b, len));
}

void
test_other_l2(void)
{
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x86dd);
	put32(&p, 0x60000000);
	put16(&p, 8);
	put8(&p, 17);
	put8(&p, 64);
	put_zeros(&p, 32 + 8);
	struct flow_key k = ipv6_key(17, 0, 64, 0);
	memset(&k.ipv6_src, 0, 16);
	memset(&k.ipv6_dst, 0, 16);
	expect_key("ipv6", mbuf_pkt(&p), &k);

	/* IPv6 ethertype with nothing behind it (test_miniflow_ipv6.c has
	 * the rest) */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	expect_malformed("ipv6, ethernet header only", mbuf_pkt(&p));

	/* 802.3: a length, not a type (LLC/STP here) */
	static const uint16_t lens[] = { 0, 38, 0x05dc, 0x05ff };
	for (int i = 0; i < 4; i++) {
		p = (struct pkt){ .len = 0 };
		put_eth(&p, lens[i]);
		put8(&p, 0x42);
		put8(&p, 0x42);
		put8(&p, 0x03);
		put_zeros(&p, 35);
		k = l2_key(FLOW_DL_TYPE_NONE);
		expect_key("802.3 length frame", mbuf_pkt(&p), &k);
	}

	/* 0x0600 is the first real ethertype */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0600);
	k = l2_key(0x0600);
	expect_key("ethertype 0x0600", mbuf_pkt(&p), &k);

	/* a type we do not parse, with nothing behind it */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x88cc);
	k = l2_key(0x88cc);
	expect_key("lldp, header only", mbuf_pkt(&p), &k);
}

/* ---- IPv4 details ---- */

void
test_ip_options(void)
{
	for (uint8_t ihl = 6; ihl <= 15; ihl++) {
		struct pkt p = udp_pkt((struct ip4){ .ihl = ihl, .ttl = 64,
						     .proto = 17 },
				       1000 + ihl, 2000 + ihl);
		struct flow_key k = l4_key(17, 1000 + ihl, 2000 + ihl);
		expect_key("udp after options", mbuf_pkt(&p), &k);

		p = tcp_pkt((struct ip4){ .ihl = ihl, .ttl = 64, .proto = 6 },
			    3000 + ihl, 80);
		k = l4_key(6, 3000 + ihl, 80);
		expect_key("tcp after options", mbuf_pkt(&p), &k);

		/* options + VLAN + TCP with options: the deepest header */
		p = (struct pkt){ .len = 0 };
		put_eth(&p, 0x8100);
		put_vlan(&p, 7, 0x0800);
		uint32_t ip = put_ipv4(&p, (struct ip4){ .ihl = ihl,
							  .ttl = 64,
							  .proto = 6 });
		put_tcp(&p, 9, 10, 15, 40);
		ip_set_total(&p, ip);
		k = l4_key(6, 9, 10);
		k.vlan_tci = RTE_BE16(7 | FLOW_VLAN_CFI);
		expect_key("vlan, options, tcp doff 15", mbuf_pkt(&p), &k);
	}
}

void
test_fragments(void)
{
	/* first fragment: MF set, offset 0: has L4 */
	struct pkt p = udp_pkt((struct ip4){ .ttl = 64, .proto = 17,
					     .frag = 0x2000 }, 7, 8);
	struct flow_key k = l4_key(17, 7, 8);
	k.nw_frag = FLOW_NW_FRAG_ANY;
	expect_key("first fragment", mbuf_pkt(&p), &k);

	/* DF alone is not a fragment */
	p = udp_pkt((struct ip4){ .ttl = 64, .proto = 17, .frag = 0x4000 },
		    7, 8);
	k = l4_key(17, 7, 8);
	expect_key("DF", mbuf_pkt(&p), &k);

	/* later fragments: no L4, whatever the bytes there look like */
	static const uint16_t later[] = { 0x0001, 0x2001, 0x1fff, 0x3fff,
					  0x6010 };
	for (int i = 0; i < 5; i++) {
		p = udp_pkt((struct ip4){ .ttl = 64, .proto = 17,
					  .frag = later[i] }, 7, 8);
		k = ip_key(17, 0, 64);
		k.nw_frag = FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER;
		expect_key("later fragment", mbuf_pkt(&p), &k);
	}

	/* a later fragment too short for an L4 header is fine */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0800);
	uint32_t ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 6,
						  .frag = 0x00b9 });
	put_zeros(&p, 3);
	ip_set_total(&p, ip);
	k = ip_key(6, 0, 64);
	k.nw_frag = FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER;
	expect_key("later fragment, 3 bytes", mbuf_pkt(&p), &k);
}

void
test_padding(void)
{
	/* 60-byte minimum frame: bytes after total_length are padding */
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x0800);
	uint32_t ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 17 });
	put_udp(&p, 11, 12, 0);
	ip_set_total(&p, ip);
	memset(p.b + p.len, 0xee, 18);
	p.len += 18;
	struct flow_key k = l4_key(17, 11, 12);
	expect_key("padded udp", mbuf_pkt(&p), &k);

	/* L4 bounds come from total_length, not from the padded frame */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0800);
	ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 17 });
	put16(&p, 11);
	put16(&p, 12);
	ip_set_total(&p, ip);		/* 4 bytes of UDP */
	put_zeros(&p, 22);		/* padding that would fit a header */
	expect_malformed("udp cut by total_length, padded",
			 mbuf_pkt(&p));

	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0800);
	ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 6 });
	put_tcp(&p, 1, 2, 5, 0);
	set16(p.b, ip + 2, 20 + 19);
	expect_malformed("tcp cut by total_length", mbuf_pkt(&p));
}
