/* SPDX-License-Identifier: BSD-3-Clause
 * test_miniflow, the hard shapes: malformed packets, packets split over
 * segments at every point, and the batch stage.
 */
#include "miniflow_test.h"

/* ---- malformed ---- */

void
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

void
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

void
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
