/* SPDX-License-Identifier: BSD-3-Clause
 * miniflow_extract: hand-built packets with every key field checked, the
 * malformed cases, segmented packets, the batch stage, and a randomized
 * property test (no crash, segmentation never changes the answer, every
 * mbuf comes back to the pool).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "miniflow.h"
#include "unit_test.h"

#define POOL_SIZE 1023
#define PKT_MAX 256
#define RNG_SEED 0x9e3779b97f4a7c15ull
#include "pkt_build.h"

static struct rte_mempool *pool;

/* ---- packet bytes ---- */

static const uint8_t MAC_DST[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0d };
static const uint8_t MAC_SRC[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x05 };
#define IP_SRC 0x0a000001u	/* 10.0.0.1 */
#define IP_DST 0xc0a80102u	/* 192.168.1.2 */

static void
put_eth(struct pkt *p, uint16_t type)
{
	put(p, MAC_DST, 6);
	put(p, MAC_SRC, 6);
	put16(p, type);
}

static void
put_vlan(struct pkt *p, uint16_t tci, uint16_t inner_type)
{
	put16(p, tci);
	put16(p, inner_type);
}

struct ip4 {
	uint8_t version;	/* 0 = 4 */
	uint8_t ihl;		/* 0 = 5; options filled with NOPs */
	uint8_t tos, ttl, proto;
	uint16_t frag;		/* flags | offset, host order */
};

/* Returns the header's offset; finish with ip_set_total(). */
static uint32_t
put_ipv4(struct pkt *p, struct ip4 h)
{
	uint32_t off = p->len;
	uint8_t ihl = h.ihl ? h.ihl : 5;

	put8(p, (uint8_t)((h.version ? h.version : 4) << 4 | ihl));
	put8(p, h.tos);
	put16(p, 0);		/* total length: set later */
	put16(p, 0x1234);	/* id */
	put16(p, h.frag);
	put8(p, h.ttl);
	put8(p, h.proto);
	put16(p, 0xbeef);	/* checksum: not checked by the extractor */
	put32(p, IP_SRC);
	put32(p, IP_DST);
	for (int i = 5; i < ihl; i++)
		put32(p, 0x01010101);	/* NOP options */
	return off;
}

/* total length = everything from the IP header to the current end */
static void
ip_set_total(struct pkt *p, uint32_t ip_off)
{
	set16(p->b, ip_off + 2, (uint16_t)(p->len - ip_off));
}

static void
put_udp(struct pkt *p, uint16_t sport, uint16_t dport, uint32_t payload)
{
	put16(p, sport);
	put16(p, dport);
	put16(p, (uint16_t)(8 + payload));
	put16(p, 0);
	put_zeros(p, payload);
}

static void
put_tcp(struct pkt *p, uint16_t sport, uint16_t dport, uint8_t doff_words,
	uint32_t options_and_payload)
{
	put16(p, sport);
	put16(p, dport);
	put32(p, 1000);		/* seq */
	put32(p, 0);		/* ack */
	put8(p, (uint8_t)(doff_words << 4));
	put8(p, 0x02);		/* SYN */
	put16(p, 65535);
	put16(p, 0);
	put16(p, 0);
	put_zeros(p, options_and_payload);
}

static void
put_arp(struct pkt *p, uint16_t htype, uint16_t ptype, uint16_t op)
{
	put16(p, htype);
	put16(p, ptype);
	put8(p, 6);
	put8(p, 4);
	put16(p, op);
	put(p, MAC_SRC, 6);
	put32(p, IP_SRC);
	put_zeros(p, 6);
	put32(p, IP_DST);
}

/* Common builds: eth ipv4 udp / tcp. */
static struct pkt
udp_pkt(struct ip4 h, uint16_t sport, uint16_t dport)
{
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x0800);
	uint32_t ip = put_ipv4(&p, h);
	put_udp(&p, sport, dport, 10);
	ip_set_total(&p, ip);
	return p;
}

static struct pkt
tcp_pkt(struct ip4 h, uint16_t sport, uint16_t dport)
{
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x0800);
	uint32_t ip = put_ipv4(&p, h);
	put_tcp(&p, sport, dport, 5, 0);
	ip_set_total(&p, ip);
	return p;
}

/* ---- mbufs ---- */

static struct rte_mbuf *
mbuf_of(const uint8_t *d, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	if (m == NULL) {
		printf("pool empty\n");
		exit(2);
	}
	char *x = rte_pktmbuf_append(m, (uint16_t)len);
	if (x == NULL) {
		printf("append %u failed\n", len);
		exit(2);
	}
	if (len)
		memcpy(x, d, len);
	return m;
}

/* The packet split at the given increasing offsets (segments may be
 * empty when two cuts are equal). */
static struct rte_mbuf *
mbuf_split(const uint8_t *d, uint32_t len, const uint32_t *cuts, int n_cuts)
{
	uint32_t start = 0;
	struct rte_mbuf *head = NULL;

	for (int i = 0; i <= n_cuts; i++) {
		uint32_t end = i < n_cuts ? cuts[i] : len;
		struct rte_mbuf *seg = mbuf_of(d + start, end - start);
		if (head == NULL)
			head = seg;
		else if (rte_pktmbuf_chain(head, seg) != 0) {
			printf("chain failed\n");
			exit(2);
		}
		start = end;
	}
	return head;
}

static struct rte_mbuf *
mbuf_pkt(const struct pkt *p)
{
	return mbuf_of(p->b, p->len);
}

/* ---- keys ---- */

/* The caller's words that the extractor must not touch. */
static void
set_metadata(struct flow_key *k, uint32_t port)
{
	k->in_port = port;
	k->tun_id = 5001;
	k->tun_src = RTE_BE32(0xc6336401);
	k->tun_dst = RTE_BE32(0xc6336402);
	k->w[6] = 0x6666666666666666ull;
	k->w[7] = 0x7777777777777777ull;
}

static struct flow_key
l2_key(uint16_t dl_type)
{
	struct flow_key k;
	flow_key_zero(&k);
	set_metadata(&k, 3);
	memcpy(&k.dl_dst, MAC_DST, 6);
	memcpy(&k.dl_src, MAC_SRC, 6);
	k.dl_type = rte_cpu_to_be_16(dl_type);
	return k;
}

static struct flow_key
ip_key(uint8_t proto, uint8_t tos, uint8_t ttl)
{
	struct flow_key k = l2_key(0x0800);
	k.nw_src = RTE_BE32(IP_SRC);
	k.nw_dst = RTE_BE32(IP_DST);
	k.nw_proto = proto;
	k.nw_tos = tos;
	k.nw_ttl = ttl;
	return k;
}

static struct flow_key
l4_key(uint8_t proto, uint16_t sport, uint16_t dport)
{
	struct flow_key k = ip_key(proto, 0, 64);
	k.tp_src = rte_cpu_to_be_16(sport);
	k.tp_dst = rte_cpu_to_be_16(dport);
	return k;
}

static void
print_field_diff(const struct flow_key *got, const struct flow_key *exp)
{
	static const struct flow_key all_ones = {
		.w = { ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull }
	};
	for (int f = 0; f < MFF_N_IDS; f++) {
		if (!flow_field_differs(got, exp, &all_ones, f))
			continue;
		printf("    %s: got", mf_fields[f].name);
		for (int i = 0; i < mf_fields[f].len; i++)
			printf(" %02x", ((const uint8_t *)got)[mf_fields[f].offset + i]);
		printf(", want");
		for (int i = 0; i < mf_fields[f].len; i++)
			printf(" %02x", ((const uint8_t *)exp)[mf_fields[f].offset + i]);
		printf("\n");
	}
	for (int i = 6; i < 8; i++)
		if (got->w[i] != exp->w[i])
			printf("    w%d: got %016llx\n", i,
			       (unsigned long long)got->w[i]);
}

/* Extracts into a key whose header words start as garbage, so a field
 * the extractor forgets to write shows up. */
static int
extract_dirty(const struct rte_mbuf *m, struct flow_key *k, uint32_t port)
{
	memset(k, 0xa5, sizeof *k);
	set_metadata(k, port);
	return miniflow_extract(m, k);
}

static void
expect_key_(const char *what, int line, struct rte_mbuf *m,
	    const struct flow_key *exp)
{
	struct flow_key got;
	int rc = extract_dirty(m, &got, exp->in_port);
	bool same = true;
	for (int i = 0; i < FLOW_KEY_WORDS; i++)
		same &= got.w[i] == exp->w[i];
	if (rc == 0 && same) {
		n_passed++;
	} else {
		n_failed++;
		printf("FAIL line %d %s: rc %d\n", line, what, rc);
		print_field_diff(&got, exp);
	}
	rte_pktmbuf_free(m);
}
#define expect_key(what, m, exp) expect_key_(what, __LINE__, m, exp)

static void
expect_malformed_(const char *what, int line, struct rte_mbuf *m)
{
	struct flow_key got;
	int rc = extract_dirty(m, &got, 1);
	if (rc == -1) {
		n_passed++;
	} else {
		n_failed++;
		printf("FAIL line %d %s: rc %d, want -1 (malformed)\n", line,
		       what, rc);
	}
	rte_pktmbuf_free(m);
}
#define expect_malformed(what, m) expect_malformed_(what, __LINE__, m)

/* ---- well-formed packets ---- */

static void
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

static void
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

static void
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
	put_zeros(&p, 40);
	struct flow_key k = l2_key(0x86dd);
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

static void
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

static void
test_other_l2(void)
{
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x86dd);
	put32(&p, 0x60000000);
	put16(&p, 8);
	put8(&p, 17);
	put8(&p, 64);
	put_zeros(&p, 32 + 8);
	struct flow_key k = l2_key(0x86dd);
	expect_key("ipv6", mbuf_pkt(&p), &k);

	/* IPv6 ethertype with nothing behind it: we do not parse it */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x86dd);
	expect_key("ipv6, header only", mbuf_pkt(&p), &k);

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

static void
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

static void
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

static void
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

/* ---- malformed ---- */

static void
test_malformed(void)
{
	struct pkt full = udp_pkt((struct ip4){ .ttl = 64, .proto = 17 },
				  1, 2);

	for (uint32_t len = 0; len < 14; len++)
		expect_malformed("runt", mbuf_of(full.b, len));

	for (uint32_t len = 14; len < 34; len++)
		expect_malformed("truncated ipv4 header", mbuf_of(full.b, len));

	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		struct pkt p = full;
		p.b[14] = 0x40 | ihl;
		expect_malformed("ihl < 5", mbuf_pkt(&p));
	}

	/* IHL beyond the packet (and beyond total_length) */
	struct pkt p = full;
	p.len = 14 + 40;
	p.b[14] = 0x4f;
	set16(p.b, 16, 40);
	expect_malformed("ihl 15 > available", mbuf_pkt(&p));

	/* IHL within the packet but beyond total_length */
	p = full;
	p.b[14] = 0x47;			/* 28 bytes of header... */
	set16(p.b, 16, 24);		/* ...in a 24-byte datagram */
	expect_malformed("ihl*4 > total_length", mbuf_pkt(&p));

	static const uint8_t versions[] = { 0, 6, 5, 15 };
	for (int i = 0; i < 4; i++) {
		p = full;
		p.b[14] = (uint8_t)(versions[i] << 4 | 5);
		expect_malformed("bad version", mbuf_pkt(&p));
	}

	p = full;
	set16(p.b, 16, (uint16_t)(full.len - 14 + 1));
	expect_malformed("total_length > packet", mbuf_pkt(&p));
	p = full;
	set16(p.b, 16, 0xffff);
	expect_malformed("total_length 65535", mbuf_pkt(&p));

	for (uint16_t tot = 0; tot < 20; tot++) {
		p = full;
		set16(p.b, 16, tot);
		expect_malformed("total_length < ihl*4", mbuf_pkt(&p));
	}

	/* truncated L4: the datagram ends inside the header */
	for (uint32_t l4 = 0; l4 < 8; l4++) {
		p = (struct pkt){ .len = 0 };
		put_eth(&p, 0x0800);
		uint32_t ip = put_ipv4(&p, (struct ip4){ .ttl = 64,
							  .proto = 17 });
		put_udp(&p, 1, 2, 0);
		p.len = ip + 20 + l4;
		ip_set_total(&p, ip);
		expect_malformed("truncated udp", mbuf_pkt(&p));
	}
	for (uint32_t l4 = 0; l4 < 20; l4++) {
		p = (struct pkt){ .len = 0 };
		put_eth(&p, 0x0800);
		uint32_t ip = put_ipv4(&p, (struct ip4){ .ttl = 64,
							  .proto = 6 });
		put_tcp(&p, 1, 2, 5, 0);
		p.len = ip + 20 + l4;
		ip_set_total(&p, ip);
		expect_malformed("truncated tcp", mbuf_pkt(&p));
	}
	for (uint32_t l4 = 0; l4 < 4; l4++) {
		p = (struct pkt){ .len = 0 };
		put_eth(&p, 0x0800);
		uint32_t ip = put_ipv4(&p, (struct ip4){ .ttl = 64,
							  .proto = 1 });
		put32(&p, 0x08000000);
		p.len = ip + 20 + l4;
		ip_set_total(&p, ip);
		expect_malformed("truncated icmp", mbuf_pkt(&p));
	}
	/* first fragment too short for its L4 header */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0800);
	uint32_t ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 6,
						  .frag = 0x2000 });
	put_zeros(&p, 8);
	ip_set_total(&p, ip);
	expect_malformed("tiny first fragment", mbuf_pkt(&p));

	for (uint8_t doff = 0; doff < 5; doff++) {
		p = tcp_pkt((struct ip4){ .ttl = 64, .proto = 6 }, 1, 2);
		p.b[14 + 20 + 12] = (uint8_t)(doff << 4);
		expect_malformed("tcp doff < 5", mbuf_pkt(&p));
	}
	p = tcp_pkt((struct ip4){ .ttl = 64, .proto = 6 }, 1, 2);
	p.b[14 + 20 + 12] = 6 << 4;
	expect_malformed("tcp doff > datagram", mbuf_pkt(&p));

	/* the same checks hold behind a VLAN tag */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x8100);
	put_vlan(&p, 1, 0x0800);
	ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 17 });
	ip_set_total(&p, ip);
	set16(p.b, ip + 2, 21);
	expect_malformed("vlan, total_length > packet", mbuf_pkt(&p));
}

/* ---- segmentation ---- */

/* Every 2- and 3-way split of p gives the single-segment answer. */
static void
check_splits(const char *what, const struct pkt *p)
{
	struct flow_key want, got;
	struct rte_mbuf *m = mbuf_pkt(p);
	int want_rc = extract_dirty(m, &want, 9);
	rte_pktmbuf_free(m);

	int bad = 0;
	for (uint32_t a = 0; a <= p->len; a++) {
		for (uint32_t b = a; b <= p->len; b += 7) {
			uint32_t cuts[2] = { a, b };
			m = mbuf_split(p->b, p->len, cuts, 2);
			int rc = extract_dirty(m, &got, 9);
			if (rc != want_rc || (rc == 0 && !flow_key_equal(&got, &want)))
				bad++;
			rte_pktmbuf_free(m);
		}
	}
	CHECK(bad == 0, "%s: %d splits differ from the linear packet", what,
	      bad);
}

static void
test_multiseg(void)
{
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x8100);
	put_vlan(&p, 0x0123, 0x0800);
	uint32_t ip = put_ipv4(&p, (struct ip4){ .ihl = 15, .tos = 0x28,
						  .ttl = 3, .proto = 6 });
	put_tcp(&p, 12345, 22, 15, 40 + 17);
	ip_set_total(&p, ip);

	struct flow_key k = l4_key(6, 12345, 22);
	k.vlan_tci = RTE_BE16(0x0123 | FLOW_VLAN_CFI);
	k.nw_tos = 0x28;
	k.nw_ttl = 3;
	k.in_port = 9;
	/* the headers cut right inside the TCP ports */
	uint32_t cuts[] = { 5, 16, 14 + 4 + 60 + 1 };
	expect_key("3 segments", mbuf_split(p.b, p.len, cuts, 3), &k);

	check_splits("vlan ipv4-options tcp", &p);

	struct pkt u = udp_pkt((struct ip4){ .ttl = 64, .proto = 17,
					     .frag = 0x2000 }, 1, 2);
	check_splits("udp first fragment", &u);

	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0806);
	put_arp(&p, 1, 0x0800, 1);
	check_splits("arp", &p);

	/* a malformed one stays malformed however it is cut */
	p = tcp_pkt((struct ip4){ .ttl = 64, .proto = 6 }, 1, 2);
	p.len -= 1;
	check_splits("truncated tcp", &p);

	/* a long packet: the header copy is bounded, not the packet */
	p = (struct pkt){ .len = 0 };
	put_eth(&p, 0x0800);
	ip = put_ipv4(&p, (struct ip4){ .ttl = 64, .proto = 17 });
	put_udp(&p, 3, 4, 200);
	ip_set_total(&p, ip);
	uint32_t c2[] = { 20, 40 };
	k = l4_key(17, 3, 4);
	expect_key("long udp, 3 segments", mbuf_split(p.b, p.len, c2, 2), &k);
}

/* ---- batch ---- */

static void
test_batch(void)
{
	struct pkt good = udp_pkt((struct ip4){ .ttl = 64, .proto = 17 },
				  100, 200);
	struct pkt bad = good;
	bad.len = 20;

	/* pattern: bad at 0, 3, 4, 31; good elsewhere, port = index */
	struct pkt_batch b, mal;
	struct flow_key keys[BATCH_MAX];
	pkt_batch_init(&b);
	pkt_batch_init(&mal);
	for (uint32_t i = 0; i < BATCH_MAX; i++) {
		int is_bad = i == 0 || i == 3 || i == 4 || i == 31;
		struct pkt p = is_bad ? bad : good;
		if (!is_bad)
			set16(p.b, 14 + 20, (uint16_t)(1000 + i)); /* sport */
		pkt_batch_add(&b, mbuf_pkt(&p));
		memset(&keys[i], 0, sizeof keys[i]);
		set_metadata(&keys[i], i);
	}
	struct rte_mbuf *orig[BATCH_MAX];
	memcpy(orig, b.pkts, sizeof orig);

	uint16_t moved = miniflow_extract_batch(&b, keys, &mal, false);
	CHECK(moved == 4, "moved %u, want 4", moved);
	CHECK(b.n == 28 && mal.n == 4, "kept %u malformed %u", b.n, mal.n);
	CHECK(mal.pkts[0] == orig[0] && mal.pkts[1] == orig[3] &&
		      mal.pkts[2] == orig[4] && mal.pkts[3] == orig[31],
	      "malformed not moved in order");

	int misaligned = 0;
	uint32_t j = 0;
	for (uint32_t i = 0; i < BATCH_MAX; i++) {
		if (i == 0 || i == 3 || i == 4 || i == 31)
			continue;
		struct flow_key k = l4_key(17, (uint16_t)(1000 + i), 200);
		set_metadata(&k, i);
		if (b.pkts[j] != orig[i] || !flow_key_equal(&keys[j], &k))
			misaligned++;
		j++;
	}
	CHECK(misaligned == 0, "%d kept packets lost their key", misaligned);
	pkt_batch_free(&b);
	pkt_batch_free(&mal);

	/* all good: nothing moves; all bad: everything moves; empty */
	pkt_batch_init(&b);
	pkt_batch_init(&mal);
	for (int i = 0; i < 5; i++)
		pkt_batch_add(&b, mbuf_pkt(&good));
	moved = miniflow_extract_batch(&b, keys, &mal, false);
	CHECK(moved == 0 && b.n == 5 && mal.n == 0, "all good: moved %u",
	      moved);
	pkt_batch_free(&b);

	for (int i = 0; i < 5; i++)
		pkt_batch_add(&b, mbuf_pkt(&bad));
	pkt_batch_add(&mal, mbuf_pkt(&bad));	/* appends after this one */
	moved = miniflow_extract_batch(&b, keys, &mal, false);
	CHECK(moved == 5 && b.n == 0 && mal.n == 6, "all bad: moved %u",
	      moved);
	pkt_batch_free(&mal);

	moved = miniflow_extract_batch(&b, keys, &mal, false);
	CHECK(moved == 0 && b.n == 0 && mal.n == 0, "empty batch");
}

/* ---- randomized ---- */


/* A plausible packet, so the mutations reach the deeper parsers. */
static struct pkt
random_template(void)
{
	static const uint16_t types[] = { 0x0800, 0x0800, 0x0800, 0x0806,
					  0x86dd, 0x8100, 0x88a8, 0x0042 };
	static const uint8_t protos[] = { 6, 17, 1, 47, 6, 17 };
	struct pkt p = { .len = 0 };
	uint16_t type = types[rnd_below(8)];

	put_eth(&p, type);
	if (type == 0x8100 || type == 0x88a8) {
		type = rnd_below(4) ? 0x0800 : 0x8100;
		put_vlan(&p, (uint16_t)rnd(), type);
	}
	if (type == 0x0806) {
		put_arp(&p, 1, 0x0800, (uint16_t)rnd_below(3));
	} else if (type == 0x0800) {
		uint8_t proto = protos[rnd_below(6)];
		uint16_t frag = rnd_below(4) ? 0 : (uint16_t)rnd();
		uint32_t ip = put_ipv4(&p, (struct ip4){
			.ihl = (uint8_t)(5 + rnd_below(11)), .ttl = 64,
			.proto = proto, .frag = frag });
		if (proto == 6)
			put_tcp(&p, 1, 2, (uint8_t)(5 + rnd_below(11)), 40);
		else
			put_udp(&p, 1, 2, rnd_below(16));
		ip_set_total(&p, ip);
	}
	put_zeros(&p, rnd_below(32));
	return p;
}

static struct pkt
random_packet(void)
{
	struct pkt p;
	if (rnd_below(8) == 0) {
		p.len = rnd_below(PKT_MAX);
		for (uint32_t i = 0; i < p.len; i++)
			p.b[i] = (uint8_t)rnd();
		return p;
	}
	p = random_template();
	/* flip a few bytes, biased to the headers */
	for (uint32_t n = rnd_below(4); n > 0 && p.len; n--)
		p.b[rnd_below(RTE_MIN(p.len, 80u))] = (uint8_t)rnd();
	if (rnd_below(3) == 0)
		p.len = rnd_below(p.len + 1);
	return p;
}

static struct rte_mbuf *
random_mbuf(const struct pkt *p)
{
	uint32_t cuts[3];
	int n = (int)rnd_below(4);
	for (int i = 0; i < n; i++)
		cuts[i] = rnd_below(p->len + 1);
	/* sort the cuts so the segments are in order */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && cuts[j] < cuts[j - 1]; j--) {
			uint32_t t = cuts[j];
			cuts[j] = cuts[j - 1];
			cuts[j - 1] = t;
		}
	return mbuf_split(p->b, p->len, cuts, n);
}

/* ASan cannot see past a packet inside its mbuf (the pool is one
 * allocation), so reads beyond pkt_len are caught by changing what is there
 * and checking the answer does not move. */
static void
fill_tailroom(struct rte_mbuf *m, uint8_t v)
{
	memset(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len), v,
	       rte_pktmbuf_tailroom(m));
}

/* What any successful extraction must look like, whatever the input. */
static int
key_invariants_hold(const struct flow_key *k, uint32_t port)
{
	struct flow_key meta;
	set_metadata(&meta, port);
	if (k->w[0] != meta.w[0] || k->w[1] != meta.w[1] ||
	    k->w[6] != meta.w[6] || k->w[7] != meta.w[7])
		return 0;
	uint16_t t = rte_be_to_cpu_16(k->dl_type);
	if (t != 0x0800 && t != 0x0806 && (k->w[4] || k->w[5]))
		return 0;
	if (t == 0x0806 && (k->nw_tos || k->nw_ttl || k->nw_frag ||
			    k->tp_src || k->tp_dst))
		return 0;
	if ((k->nw_frag & FLOW_NW_FRAG_LATER) &&
	    (!(k->nw_frag & FLOW_NW_FRAG_ANY) || k->tp_src || k->tp_dst))
		return 0;
	if (k->nw_tos & 0x03)
		return 0;
	if (k->vlan_tci && !(k->vlan_tci & RTE_BE16(FLOW_VLAN_CFI)))
		return 0;
	return 1;
}

static void
test_random(void)
{
	const char *seed_env = getenv("MINIFLOW_SEED");
	if (seed_env)
		rng_state = strtoull(seed_env, NULL, 0);
	if (rng_state == 0)
		rng_state = 1;	/* xorshift's one dead state */
	printf("random seed 0x%llx\n", (unsigned long long)rng_state);

	unsigned before = rte_mempool_avail_count(pool);
	int differ = 0, broken = 0, batch_bad = 0, overread = 0;
	unsigned n_ok = 0, n_malformed = 0;

	for (int round = 0; round < 1000; round++) {
		struct pkt_batch b, mal;
		struct flow_key keys[BATCH_MAX], lin[BATCH_MAX];
		int lin_rc[BATCH_MAX];
		pkt_batch_init(&b);
		pkt_batch_init(&mal);

		uint32_t n = 1 + rnd_below(BATCH_MAX);
		for (uint32_t i = 0; i < n; i++) {
			struct pkt p = random_packet();
			/* the linear answer is the reference; it must not
			 * depend on the bytes past the packet's end */
			struct flow_key tail_key;
			struct rte_mbuf *m = mbuf_pkt(&p);
			fill_tailroom(m, 0x00);
			lin_rc[i] = extract_dirty(m, &lin[i], i);
			fill_tailroom(m, 0xff);
			int tail_rc = extract_dirty(m, &tail_key, i);
			rte_pktmbuf_free(m);
			if (tail_rc != lin_rc[i] ||
			    (tail_rc == 0 && !flow_key_equal(&tail_key, &lin[i])))
				overread++;
			if (lin_rc[i] == 0 && !key_invariants_hold(&lin[i], i))
				broken++;
			if (lin_rc[i])
				n_malformed++;
			else
				n_ok++;

			pkt_batch_add(&b, random_mbuf(&p));
			memset(&keys[i], 0x5a, sizeof keys[i]);
			set_metadata(&keys[i], i);
		}

		uint32_t want_bad = 0;
		for (uint32_t i = 0; i < n; i++)
			want_bad += lin_rc[i] != 0;
		uint16_t moved = miniflow_extract_batch(&b, keys, &mal, false);
		if (moved != want_bad || b.n + mal.n != n)
			batch_bad++;
		/* survivors, in order, carry the linear key of their packet */
		for (uint32_t i = 0, j = 0; i < n && j < b.n; i++) {
			if (lin_rc[i])
				continue;
			if (keys[j].in_port != i || !flow_key_equal(&keys[j], &lin[i]))
				differ++;
			j++;
		}
		pkt_batch_free(&b);
		pkt_batch_free(&mal);
	}
	CHECK(broken == 0, "%d keys break the invariants", broken);
	CHECK(batch_bad == 0, "%d batches moved the wrong count", batch_bad);
	CHECK(overread == 0, "%d keys depend on bytes past pkt_len", overread);
	CHECK(differ == 0, "%d segmented keys differ from linear", differ);
	CHECK(n_ok > 1000 && n_malformed > 1000,
	      "coverage: %u ok, %u malformed", n_ok, n_malformed);
	CHECK(rte_mempool_avail_count(pool) == before,
	      "pool leaked: %u before, %u after", before,
	      rte_mempool_avail_count(pool));
	printf("random: %u ok, %u malformed\n", n_ok, n_malformed);
}

int
main(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (unit_test_eal_init("test_miniflow", "128"))
		return 1;
	pool = rte_pktmbuf_pool_create("miniflow_test", POOL_SIZE, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		printf("pool create failed\n");
		return 2;
	}

	test_udp_tcp_icmp();
	test_tos_ttl();
	test_vlan();
	test_arp();
	test_other_l2();
	test_ip_options();
	test_fragments();
	test_padding();
	test_malformed();
	test_multiseg();
	test_batch();
	test_random();

	CHECK(rte_mempool_avail_count(pool) == POOL_SIZE,
	      "pool not full at exit: %u of %u",
	      rte_mempool_avail_count(pool), POOL_SIZE);

	/* EAL leaves its runtime dir behind (empty with --no-shconf and
	 * --no-telemetry) */
	char runtime_dir[PATH_MAX];
	snprintf(runtime_dir, sizeof runtime_dir, "%s",
		 rte_eal_get_runtime_dir());
	rte_mempool_free(pool);
	rte_eal_cleanup();
	rmdir(runtime_dir);
	return unit_test_report();
}
