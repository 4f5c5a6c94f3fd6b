/* SPDX-License-Identifier: BSD-3-Clause
 * test_vxlan, encap: the scapy vectors, checksums, the UDP source port,
 * headroom, lengths and flags; over IPv6, every field, the UDP checksum
 * against a byte-wise reference sum (0 sent as 0xffff, chains, odd
 * lengths), batches of both families, max_inner.
 */
#include "vxlan_test.h"

/* ---- encap -------------------------------------------------------------- */

void
test_encap_vectors(void)
{
	for (int i = 0; i < n_vectors; i++) {
		const struct vector *v = &vectors[i];
		struct vxlan_tnl_template t;
		struct pkt_batch b, dropped;
		uint32_t hashes[BATCH_MAX] = { v->hash };
		uint16_t ip_id = v->ip_id;

		if (strcmp(v->mode, "both"))
			continue;
		CHECK(vxlan_udp_src_port(v->hash) == v->sport,
		      "%s: sport %u, vector says %u", v->name,
		      vxlan_udp_src_port(v->hash), v->sport);

		vector_template(v, &t);
		batch_of(&b, mbuf_from(v->inner, v->inner_len));
		pkt_batch_init(&dropped);
		uint16_t n_dropped = vxlan_encap_batch(&b, &t, hashes, &ip_id,
						       &dropped);
		CHECK(n_dropped == 0 && b.n == 1 && dropped.n == 0,
		      "%s: dropped", v->name);
		CHECK(ip_id == (uint16_t)(v->ip_id + 1), "%s: next id 0x%x",
		      v->name, ip_id);
		if (b.n == 1 && !mbuf_equals(b.pkts[0], v->outer, v->outer_len)) {
			CHECK(false, "%s: encap differs from scapy", v->name);
			print_diff(b.pkts[0], v->outer, v->outer_len);
		}
		pkt_batch_free(&b);
		pkt_batch_free(&dropped);
	}
}

/* The cases of a group share a template: one batch, one id counter. */
void
test_encap_vector_groups(void)
{
	int n_groups = 0;

	for (int i = 0; i < n_vectors; i++) {
		const struct vector *first = &vectors[i];
		const struct vector *members[BATCH_MAX];
		struct vxlan_tnl_template t;
		struct pkt_batch b, dropped;
		uint32_t hashes[BATCH_MAX];
		int n = 0;
		bool seen = false;

		if (!strcmp(first->group, "-") || strcmp(first->mode, "both"))
			continue;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(vectors[j].group, first->group);
		if (seen)
			continue;

		vector_template(first, &t);
		pkt_batch_init(&b);
		for (int j = i; j < n_vectors && n < BATCH_MAX; j++) {
			const struct vector *v = &vectors[j];
			if (strcmp(v->group, first->group))
				continue;
			members[n] = v;
			hashes[n++] = v->hash;
			pkt_batch_add(&b, mbuf_from(v->inner, v->inner_len));
		}
		n_groups++;

		uint16_t ip_id = first->ip_id;
		pkt_batch_init(&dropped);
		vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
		CHECK(b.n == n && dropped.n == 0, "group %s: dropped",
		      first->group);
		CHECK(ip_id == (uint16_t)(members[n - 1]->ip_id + 1),
		      "group %s: next id 0x%x", first->group, ip_id);
		for (int k = 0; k < b.n; k++)
			if (!mbuf_equals(b.pkts[k], members[k]->outer,
					 members[k]->outer_len)) {
				CHECK(false, "group %s: %s differs from scapy",
				      first->group, members[k]->name);
				print_diff(b.pkts[k], members[k]->outer,
					   members[k]->outer_len);
			}
		pkt_batch_free(&b);
	}
	CHECK(n_groups > 0, "no vector groups");
}

/* Tiny deterministic PRNG (xorshift64*): failures must reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void
random_template(struct vxlan_tnl_template *t)
{
	struct rte_ether_addr src, dst;
	uint64_t r = rng();

	memcpy(src.addr_bytes, &r, 6);
	r = rng();
	memcpy(dst.addr_bytes, &r, 6);
	r = rng();
	vxlan_tnl_template_build(t, &src, &dst, (rte_be32_t)r,
				 (rte_be32_t)(r >> 32), (uint32_t)rng(),
				 (uint16_t)rng(), (uint8_t)rng(), rng() & 1);
}

void
test_ip_csum_incremental(void)
{
	const int rounds = 100000;
	int mismatches = 0;

	for (int i = 0; i < rounds; i++) {
		struct vxlan_tnl_template t;
		struct rte_ipv4_hdr ip;
		uint64_t r = rng();
		uint16_t len = (uint16_t)r, id = (uint16_t)(r >> 16);

		/* the ends of the ranges too, not only what chance picks */
		if (i < 4) {
			len = i & 1 ? 0xffff : 0;
			id = i & 2 ? 0xffff : 0;
		}
		random_template(&t);
		memcpy(&ip, t.hdr + VXLAN_TNL_IP_OFF, sizeof ip);
		ip.total_length = rte_cpu_to_be_16(len);
		ip.packet_id = rte_cpu_to_be_16(id);
		ip.hdr_checksum = 0;

		rte_be16_t want = rte_ipv4_cksum(&ip);
		rte_be16_t got = vxlan_encap_ip_csum(&t, len, id);
		if (got != want && mismatches++ < 5)
			CHECK(false, "len %u id %u: 0x%04x, rte_ipv4_cksum 0x%04x",
			      len, id, got, want);
	}
	CHECK(mismatches == 0, "%d of %d checksums differ", mismatches, rounds);
	mismatches = 0;

	/* and through the real stage: every header must verify */
	for (int round = 0; round < 200; round++) {
		struct vxlan_tnl_template t;
		struct pkt_batch b, dropped;
		uint32_t hashes[BATCH_MAX];
		uint16_t ip_id = (uint16_t)rng();
		static uint8_t frame[1500];

		random_template(&t);
		pkt_batch_init(&b);
		for (int k = 0; k < BATCH_MAX; k++) {
			size_t len = RTE_ETHER_HDR_LEN +
				     rng() % (sizeof frame - RTE_ETHER_HDR_LEN);
			hashes[k] = (uint32_t)rng();
			pkt_batch_add(&b, mbuf_from(frame, len));
		}
		pkt_batch_init(&dropped);
		vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
		for (int k = 0; k < b.n; k++) {
			const struct rte_ipv4_hdr *ip =
				rte_pktmbuf_mtod_offset(b.pkts[k],
					const struct rte_ipv4_hdr *,
					VXLAN_TNL_IP_OFF);
			if (rte_raw_cksum(ip, sizeof *ip) != 0xffff &&
			    mismatches++ < 5)
				CHECK(false, "encapsulated header does not verify");
		}
		pkt_batch_free(&b);
	}
	CHECK(mismatches == 0, "%d encapsulated headers do not verify",
	      mismatches);
}

void
test_udp_src_port(void)
{
	static bool hit[VXLAN_SRC_PORT_MASK + 1];
	static const uint32_t edges[] = { 0, 1, 0x3fff, 0x4000, 0xc000,
					  0x7fffffff, 0x80000000, 0xffffffff };
	int bad = 0;

	for (uint32_t i = 0; i < 200000; i++) {
		uint32_t h = (uint32_t)rng();

		if (i < RTE_DIM(edges))
			h = edges[i];
		else if (i < RTE_DIM(edges) + RTE_DIM(hit))	/* each low */
			h = (h & ~VXLAN_SRC_PORT_MASK) | (i - RTE_DIM(edges));
		uint16_t p = vxlan_udp_src_port(h);
		if (p < 49152 || p != 49152 + (h & 0x3fff)) {
			if (bad++ < 5)
				CHECK(false, "hash 0x%08x -> port %u", h, p);
			continue;
		}
		hit[p - 49152] = true;
	}
	int missed = 0;
	for (size_t i = 0; i < RTE_DIM(hit); i++)
		missed += !hit[i];
	CHECK(bad == 0 && missed == 0, "%d bad ports, %d of 16384 never used",
	      bad, missed);

	/* in the packet, per packet, from its own hash */
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct vxlan_tnl_template t;
	struct pkt_batch b, dropped;
	uint32_t hashes[BATCH_MAX], want[BATCH_MAX];
	uint16_t ip_id = 0;

	vector_template(v, &t);
	pkt_batch_init(&b);
	for (int k = 0; k < BATCH_MAX; k++) {
		want[k] = hashes[k] = (uint32_t)rng();
		pkt_batch_add(&b, mbuf_from(v->inner, v->inner_len));
	}
	pkt_batch_init(&dropped);
	vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
	for (int k = 0; k < b.n; k++) {
		const struct rte_udp_hdr *udp =
			rte_pktmbuf_mtod_offset(b.pkts[k],
				const struct rte_udp_hdr *, VXLAN_TNL_UDP_OFF);
		uint16_t p = rte_be_to_cpu_16(udp->src_port);
		CHECK(p == vxlan_udp_src_port(want[k]) && udp->dgram_cksum == 0,
		      "packet %d: port %u", k, p);
	}
	pkt_batch_free(&b);
}

void
test_encap_no_headroom(void)
{
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct vxlan_tnl_template t;
	struct pkt_batch b, dropped;
	struct rte_mbuf *m[6];
	uint32_t hashes[BATCH_MAX];
	uint16_t ip_id = 0xfffe;

	vector_template(v, &t);
	/* dropped is appended to, not overwritten */
	pkt_batch_init(&dropped);
	struct rte_mbuf *earlier = mbuf_from(v->inner, v->inner_len);
	pkt_batch_add(&dropped, earlier);

	pkt_batch_init(&b);
	for (int k = 0; k < 6; k++) {
		/* 1, 3: one byte short; 5: exactly enough */
		m[k] = rte_pktmbuf_alloc(pool);
		if (k == 1 || k == 3)
			m[k]->data_off = VXLAN_TNL_HDR_LEN - 1;
		if (k == 5)
			m[k]->data_off = VXLAN_TNL_HDR_LEN;
		memcpy(rte_pktmbuf_append(m[k], (uint16_t)v->inner_len),
		       v->inner, v->inner_len);
		hashes[k] = 100 + k;
		pkt_batch_add(&b, m[k]);
	}

	uint16_t n = vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
	CHECK(n == 2, "returned %u", n);
	CHECK(b.n == 4 && b.pkts[0] == m[0] && b.pkts[1] == m[2] &&
	      b.pkts[2] == m[4] && b.pkts[3] == m[5], "kept order");
	CHECK(hashes[0] == 100 && hashes[1] == 102 && hashes[2] == 104 &&
	      hashes[3] == 105, "hashes compacted with the packets");
	CHECK(dropped.n == 3 && dropped.pkts[0] == earlier &&
	      dropped.pkts[1] == m[1] &&
	      dropped.pkts[2] == m[3], "dropped order");
	CHECK(ip_id == 0x0002, "ids used only by sent packets: 0x%x", ip_id);
	for (int k = 1; k <= 3; k += 2)
		CHECK(mbuf_equals(m[k], v->inner, v->inner_len) &&
		      m[k]->data_off == VXLAN_TNL_HDR_LEN - 1,
		      "dropped packet %d was changed", k);
	static const uint16_t ids[] = { 0xfffe, 0xffff, 0x0000, 0x0001 };
	for (int k = 0; k < b.n; k++) {
		const struct rte_udp_hdr *udp =
			rte_pktmbuf_mtod_offset(b.pkts[k],
				const struct rte_udp_hdr *, VXLAN_TNL_UDP_OFF);
		const struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(b.pkts[k],
				const struct rte_ipv4_hdr *, VXLAN_TNL_IP_OFF);
		CHECK(rte_be_to_cpu_16(ip->packet_id) == ids[k] &&
		      rte_raw_cksum(ip, sizeof *ip) == 0xffff &&
		      udp->src_port == rte_cpu_to_be_16(
			      vxlan_udp_src_port(hashes[k])),
		      "packet %d headers", k);
	}
	CHECK(m[5]->data_off == 0, "exact headroom used up");
	pkt_batch_free(&b);
	pkt_batch_free(&dropped);
}

void
test_encap_lengths_and_flags(void)
{
	static uint8_t big[VXLAN_ENCAP_MAX_INNER_LEN + 1];
	struct vxlan_tnl_template t;
	struct pkt_batch b, dropped;
	uint32_t hashes[BATCH_MAX] = { 1, 2 };
	uint16_t ip_id = 0;

	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)(i * 13);
	random_template(&t);
	pkt_batch_init(&b);
	struct rte_mbuf *max = mbuf_chain_from(big, sizeof big - 1, 2000);
	struct rte_mbuf *over = mbuf_chain_from(big, sizeof big, 2000);
	max->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_VLAN |
			RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_RSS_HASH;
	max->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			   RTE_PTYPE_L4_UDP;
	pkt_batch_add(&b, max);
	pkt_batch_add(&b, over);
	pkt_batch_init(&dropped);

	vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
	CHECK(b.n == 1 && b.pkts[0] == max && dropped.n == 1 &&
	      dropped.pkts[0] == over, "only the over-long frame dropped");

	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(max, const struct rte_ipv4_hdr *,
					VXLAN_TNL_IP_OFF);
	const struct rte_udp_hdr *udp =
		rte_pktmbuf_mtod_offset(max, const struct rte_udp_hdr *,
					VXLAN_TNL_UDP_OFF);
	CHECK(ip->total_length == RTE_BE16(0xffff) &&
	      udp->dgram_len == RTE_BE16(0xffff - 20) &&
	      rte_raw_cksum(ip, sizeof *ip) == 0xffff,
	      "largest frame: lengths %u/%u",
	      rte_be_to_cpu_16(ip->total_length),
	      rte_be_to_cpu_16(udp->dgram_len));
	CHECK(rte_pktmbuf_pkt_len(max) == 0xffff + RTE_ETHER_HDR_LEN &&
	      mbuf_equals(over, big, sizeof big), "mbuf lengths");
	CHECK(max->ol_flags == RTE_MBUF_F_RX_RSS_HASH &&
	      max->packet_type == RTE_PTYPE_UNKNOWN,
	      "stale offload flags 0x%" PRIx64 " ptype 0x%x", max->ol_flags,
	      max->packet_type);
	pkt_batch_free(&b);
	pkt_batch_free(&dropped);

	/* an empty batch is fine and uses no ids */
	pkt_batch_init(&b);
	CHECK(vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped) == 0 &&
	      ip_id == 1 && b.n == 0, "empty batch");
}

/* ---- encap over IPv6 ---------------------------------------------------- */

static const struct rte_ether_addr mac6_src = {{ 0x02, 0, 0, 0, 0x06, 0x01 }};
static const struct rte_ether_addr mac6_dst = {{ 0x02, 0, 0, 0, 0x06, 0x02 }};
/* 2001:db8::1 and 2001:db8:0:ff::2 */
static const struct flow_in6_addr ip6_src = {{ 0x20, 0x01, 0x0d, 0xb8,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01 }};
static const struct flow_in6_addr ip6_dst = {{ 0x20, 0x01, 0x0d, 0xb8,
	0, 0, 0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x02 }};

/* The UDP checksum of the IPv6 frame f (len bytes, 70-byte outer header
 * first), the plain way: big-endian 16-bit words added byte by byte over
 * the pseudo-header (RFC 8200 section 8.1: addresses, 32-bit upper-layer
 * length, three zero bytes and next header 17) and the datagram from the
 * UDP header to the end of the frame with its checksum field read as 0;
 * folded, complemented, not yet made 0xffff. Shares no code with encap. */
static uint16_t
udp6_csum_ref(const uint8_t *f, size_t len)
{
	const size_t udp_off = 14 + 40, udp_len = len - udp_off;
	uint32_t sum = 0;

	for (size_t i = 0; i < 32; i++)		/* source, destination */
		sum += (uint32_t)f[22 + i] << (i % 2 ? 0 : 8);
	sum += (uint32_t)(udp_len >> 16) + (udp_len & 0xffff);
	sum += 17;
	for (size_t i = 0; i < udp_len; i++) {
		if (i == 6 || i == 7)		/* the checksum field */
			continue;
		sum += (uint32_t)f[udp_off + i] << (i % 2 ? 0 : 8);
	}
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* m's bytes, copied out (m may be a chain); the caller frees them. */
static uint8_t *
mbuf_bytes(const struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t *copy = malloc(len + 1);
	const uint8_t *p = rte_pktmbuf_read(m, 0, len, copy);

	if (p != copy)
		memcpy(copy, p, len);
	return copy;
}

/* Every field of one IPv6-encapsulated frame against what went in. */
static bool
check_encap6(const char *what, const struct rte_mbuf *m,
	     const struct vxlan_tnl_template *t, const uint8_t *inner,
	     size_t inner_len, uint32_t hash)
{
	uint8_t *f = mbuf_bytes(m);
	const uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint16_t udp_len = (uint16_t)(inner_len + 16);
	const uint16_t sport = (uint16_t)(49152 + (hash & 0x3fff));
	bool ok = true;
	uint16_t want = udp6_csum_ref(f, len);

	if (want == 0)
		want = 0xffff;
#define F(cond) do { if (!(cond)) { ok = false;				\
		CHECK(false, "%s: %s", what, #cond); } } while (0)
	F(len == inner_len + 70);
	F(!memcmp(f, t->hdr, 12));			/* MACs */
	F(f[12] == 0x86 && f[13] == 0xdd);
	F(!memcmp(f + 14, t->hdr + 14, 4));		/* version, class */
	F(f[14] >> 4 == 6 && (f[15] & 0x0f) == 0 && f[16] == 0 && f[17] == 0);
	F((f[18] << 8 | f[19]) == udp_len);		/* payload_len */
	F(f[20] == 17);
	F(f[21] == t->hdr[21]);				/* hop limit */
	F(!memcmp(f + 22, t->hdr + 22, 32));		/* addresses */
	F((f[54] << 8 | f[55]) == sport);
	F(!memcmp(f + 56, t->hdr + 56, 2));		/* destination port */
	F((f[58] << 8 | f[59]) == udp_len);
	F((f[60] << 8 | f[61]) == want);
	F(!memcmp(f + 62, t->hdr + 62, 8));		/* VXLAN */
	F(!memcmp(f + 70, inner, inner_len));
	F(m->packet_type == RTE_PTYPE_UNKNOWN);
#undef F
	free(f);
	return ok;
}

/* len bytes from seed, in one mbuf with headroom bytes before them
 * (-1: the pool's default) */
static struct rte_mbuf *
frame_of(size_t len, uint8_t seed, int headroom)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		abort();
	if (headroom >= 0)
		m->data_off = (uint16_t)headroom;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL)
		abort();
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7);
	return m;
}

void
test_encap6_fields(void)
{
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct vxlan_tnl_template t;
	struct pkt_batch b, dropped;
	uint32_t hashes[BATCH_MAX] = { 0x12345678, 0xffffffff };
	uint16_t ip_id = 0x4242;

	vxlan_tnl_template_build6(&t, &mac6_src, &mac6_dst, &ip6_src, &ip6_dst,
				  0x123456, 4789, 64, 0);
	/* the header as OVS builds it, by hand */
	static const uint8_t want_hdr[70] = {
		0x02, 0, 0, 0, 0x06, 0x02, 0x02, 0, 0, 0, 0x06, 0x01,
		0x86, 0xdd,
		0x60, 0, 0, 0, 0, 0, 17, 64,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x02,
		0, 0, 0x12, 0xb5, 0, 0, 0xff, 0xff,
		0x08, 0, 0, 0, 0x12, 0x34, 0x56, 0,
	};
	CHECK(!memcmp(t.hdr, want_hdr, sizeof want_hdr), "template bytes");
	CHECK(t.family == VXLAN_TNL_IPV6 && t.pad == 0 &&
	      t.max_inner == 65535 - 16, "family %u max_inner %u", t.family,
	      t.max_inner);

	pkt_batch_init(&b);
	pkt_batch_add(&b, mbuf_from(v->inner, v->inner_len));
	pkt_batch_add(&b, mbuf_from(v->inner, v->inner_len - 1));  /* odd */
	b.pkts[0]->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			      RTE_MBUF_F_RX_L4_CKSUM_GOOD |
			      RTE_MBUF_F_RX_RSS_HASH;
	pkt_batch_init(&dropped);
	CHECK(vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped) == 0 &&
	      b.n == 2, "dropped");
	CHECK(ip_id == 0x4242, "IPv6 used IPv4 ids: 0x%x", ip_id);
	check_encap6("64-byte inner", b.pkts[0], &t, v->inner, v->inner_len,
		     0x12345678);
	check_encap6("odd inner", b.pkts[1], &t, v->inner, v->inner_len - 1,
		     0xffffffff);
	CHECK(b.pkts[0]->ol_flags == RTE_MBUF_F_RX_RSS_HASH,
	      "stale flags 0x%" PRIx64, b.pkts[0]->ol_flags);
	/* the receiver's verification: the whole sum is 0xffff */
	uint8_t *f = mbuf_bytes(b.pkts[0]);
	struct rte_ipv6_hdr ip;
	memcpy(&ip, f + 14, sizeof ip);
	uint32_t all = rte_ipv6_phdr_cksum(&ip, 0) +
		       rte_raw_cksum(f + 54, rte_be_to_cpu_16(ip.payload_len));
	CHECK(__rte_raw_cksum_reduce(all) == 0xffff,
	      "the receiver's sum 0x%04x", __rte_raw_cksum_reduce(all));
	free(f);
	pkt_batch_free(&b);

	/* traffic class and hop limit as given; flow label 0 */
	vxlan_tnl_template_build6(&t, &mac6_src, &mac6_dst, &ip6_src, &ip6_dst,
				  1, 8472, 255, 0xb8);
	CHECK(!memcmp(t.hdr + 14, "\x6b\x80\x00\x00", 4) && t.hdr[21] == 255 &&
	      t.hdr[56] == 0x21 && t.hdr[57] == 0x18, "tclass/hlimit/port");
}

/* A datagram whose checksum computes to 0 goes out with 0xffff (RFC 768;
 * 0 means "none", forbidden over IPv6): two inner bytes chosen so that
 * the whole sum is 0xffff, by the reference sum. */
void
test_encap6_csum_zero(void)
{
	struct vxlan_tnl_template t;
	struct pkt_batch b, dropped;
	uint32_t hashes[BATCH_MAX] = { 77 };
	uint16_t ip_id = 0;
	uint8_t inner[100], frame[170];

	for (size_t i = 0; i < sizeof inner; i++)
		inner[i] = (uint8_t)(i * 31 + 5);
	inner[40] = inner[41] = 0;	/* the adjustment word, even offset */
	vxlan_tnl_template_build6(&t, &mac6_src, &mac6_dst, &ip6_src, &ip6_dst,
				  5001, 4789, 64, 0);
	/* the frame encap will make, by hand: template, lengths, port */
	memcpy(frame, t.hdr, 70);
	frame[18] = frame[58] = 0;
	frame[19] = frame[59] = sizeof inner + 16;
	frame[54] = (uint8_t)((49152 + 77) >> 8);
	frame[55] = (uint8_t)(49152 + 77);
	memcpy(frame + 70, inner, sizeof inner);
	uint16_t sum = (uint16_t)~udp6_csum_ref(frame, sizeof frame);
	uint16_t adjust = (uint16_t)(0xffff - sum);
	inner[40] = (uint8_t)(adjust >> 8);
	inner[41] = (uint8_t)adjust;
	memcpy(frame + 70, inner, sizeof inner);
	CHECK(udp6_csum_ref(frame, sizeof frame) == 0,
	      "test case: computed checksum 0x%04x, not 0",
	      udp6_csum_ref(frame, sizeof frame));

	batch_of(&b, mbuf_from(inner, sizeof inner));
	pkt_batch_init(&dropped);
	vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
	CHECK(b.n == 1, "dropped");
	if (b.n == 1) {
		const uint8_t *p = rte_pktmbuf_mtod(b.pkts[0], const uint8_t *);
		CHECK(p[60] == 0xff && p[61] == 0xff, "zero sent as %02x%02x",
		      p[60], p[61]);
		check_encap6("zero checksum", b.pkts[0], &t, inner,
			     sizeof inner, 77);
	}
	pkt_batch_free(&b);
}

/* Random templates, lengths (odd ones too), contents and chains: every
 * checksum as the reference computes it. */
void
test_encap6_random(void)
{
	int bad = 0;

	for (int round = 0; round < 200; round++) {
		struct vxlan_tnl_template t;
		struct rte_ether_addr src, dst;
		struct flow_in6_addr a, z;
		struct pkt_batch b, dropped;
		uint32_t hashes[BATCH_MAX], want_hash[BATCH_MAX];
		static uint8_t data[BATCH_MAX][1500];
		size_t lens[BATCH_MAX];
		uint16_t ip_id = 9;
		uint64_t r = rng();

		memcpy(src.addr_bytes, &r, 6);
		r = rng();
		memcpy(dst.addr_bytes, &r, 6);
		for (int k = 0; k < 16; k += 8) {
			r = rng();
			memcpy(a.a + k, &r, 8);
			r = rng();
			memcpy(z.a + k, &r, 8);
		}
		r = rng();
		vxlan_tnl_template_build6(&t, &src, &dst, &a, &z, (uint32_t)r,
					  (uint16_t)(r >> 24),
					  (uint8_t)(r >> 40),
					  (uint8_t)(r >> 48));
		pkt_batch_init(&b);
		for (int k = 0; k < BATCH_MAX; k++) {
			lens[k] = RTE_ETHER_HDR_LEN +
				  rng() % (sizeof data[0] - RTE_ETHER_HDR_LEN);
			for (size_t i = 0; i < lens[k]; i++)
				data[k][i] = (uint8_t)rng();
			want_hash[k] = hashes[k] = (uint32_t)rng();
			/* every fourth a chain of odd-sized segments */
			pkt_batch_add(&b, k % 4 == 3 ?
				      mbuf_chain_from(data[k], lens[k],
						      101 + 2 * (rng() % 300)) :
				      mbuf_from(data[k], lens[k]));
		}
		pkt_batch_init(&dropped);
		vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
		CHECK(b.n == BATCH_MAX && dropped.n == 0 && ip_id == 9,
		      "round %d: dropped", round);
		for (int k = 0; k < b.n; k++) {
			char what[48];
			snprintf(what, sizeof what, "round %d packet %d", round,
				 k);
			if (!check_encap6(what, b.pkts[k], &t, data[k], lens[k],
					  want_hash[k]) && ++bad >= 5)
				break;
		}
		pkt_batch_free(&b);
		if (bad >= 5)
			break;
	}
	CHECK(bad == 0, "%d frames wrong", bad);
}

/* Batches of both families one after another, as a megaflow with an IPv4
 * and an IPv6 tunnel output makes them: the IPv4 frames are the vector's
 * bytes, ids advance only with them. */
void
test_encap_mixed_families(void)
{
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct vxlan_tnl_template t4, t6;
	uint16_t ip_id = v->ip_id;

	vector_template(v, &t4);
	vxlan_tnl_template_build6(&t6, &mac6_src, &mac6_dst, &ip6_src, &ip6_dst,
				  v->vni, 4789, 64, 0);
	CHECK(t4.family == VXLAN_TNL_IPV4 && t4.pad == 0, "IPv4 family");
	for (int i = VXLAN_TNL_HDR_LEN; i < VXLAN_TNL_HDR_MAX; i++)
		CHECK(t4.hdr[i] == 0, "IPv4 template byte %d not zero", i);
	for (int round = 0; round < 4; round++) {
		struct pkt_batch b, dropped;
		uint32_t hashes[BATCH_MAX];
		bool v6 = round % 2;
		uint16_t id0 = ip_id;

		pkt_batch_init(&b);
		for (int k = 0; k < 3; k++) {
			hashes[k] = v->hash;
			pkt_batch_add(&b, mbuf_from(v->inner, v->inner_len));
		}
		pkt_batch_init(&dropped);
		vxlan_encap_batch(&b, v6 ? &t6 : &t4, hashes, &ip_id, &dropped);
		CHECK(b.n == 3, "round %d: dropped", round);
		CHECK(ip_id == (uint16_t)(id0 + (v6 ? 0 : 3)),
		      "round %d: id 0x%x", round, ip_id);
		for (int k = 0; k < b.n; k++) {
			if (v6) {
				check_encap6("mixed", b.pkts[k], &t6, v->inner,
					     v->inner_len, v->hash);
				continue;
			}
			/* the vector's id is its first packet's */
			struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
				b.pkts[k], struct rte_ipv4_hdr *,
				VXLAN_TNL_IP_OFF);
			CHECK(rte_be_to_cpu_16(ip->packet_id) ==
			      (uint16_t)(id0 + k), "round %d: id", round);
			if (round == 0 && k == 0)
				CHECK(mbuf_equals(b.pkts[0], v->outer,
						  v->outer_len),
				      "IPv4 frame differs from scapy");
		}
		pkt_batch_free(&b);
	}
}

/* max_inner over IPv6: the port's longest frame less 70, at most
 * 65535 - 16; one byte more is not encapsulated (the stage sends it to
 * dp_pmtud as mtu_exceeded), nor is a frame with 69 bytes of headroom. */
void
test_encap6_max_inner(void)
{
	struct vxlan_tnl_template t;
	struct pkt_batch b, dropped;
	uint32_t hashes[BATCH_MAX] = { 1, 2, 3, 4 };
	uint16_t ip_id = 0;

	vxlan_tnl_template_build6(&t, &mac6_src, &mac6_dst, &ip6_src, &ip6_dst,
				  7, 4789, 64, 0);
	vxlan_tnl_template_set_max_frame(&t, 1514);
	CHECK(t.max_inner == 1444, "1500 underlay: %u", t.max_inner);
	vxlan_tnl_template_set_max_frame(&t, 70);
	CHECK(t.max_inner == 0, "70: %u", t.max_inner);
	vxlan_tnl_template_set_max_frame(&t, UINT32_MAX);
	CHECK(t.max_inner == 65519, "no limit: %u", t.max_inner);
	vxlan_tnl_template_set_max_frame(&t, 65535 + 70);
	CHECK(t.max_inner == 65519, "65605: %u", t.max_inner);
	struct vxlan_tnl_template t4;
	vector_template(find_vector("udp64_df_ttl64_vni1001"), &t4);
	vxlan_tnl_template_set_max_frame(&t4, 1514);
	CHECK(t4.max_inner == 1464, "IPv4, 1500 underlay: %u", t4.max_inner);

	vxlan_tnl_template_set_max_frame(&t, 1514);
	pkt_batch_init(&b);
	struct rte_mbuf *fits = frame_of(1444, 1, -1);
	struct rte_mbuf *over = frame_of(1445, 2, -1);
	struct rte_mbuf *short_room = frame_of(100, 3, VXLAN_TNL6_HDR_LEN - 1);
	struct rte_mbuf *room = frame_of(100, 4, VXLAN_TNL6_HDR_LEN);
	pkt_batch_add(&b, fits);
	pkt_batch_add(&b, over);
	pkt_batch_add(&b, short_room);
	pkt_batch_add(&b, room);
	pkt_batch_init(&dropped);
	CHECK(vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped) == 2 &&
	      b.n == 2 && b.pkts[0] == fits && b.pkts[1] == room &&
	      dropped.n == 2 && dropped.pkts[0] == over &&
	      dropped.pkts[1] == short_room, "kept/dropped");
	CHECK(rte_pktmbuf_pkt_len(fits) == 1514 && room->data_off == 0 &&
	      rte_pktmbuf_pkt_len(over) == 1445 &&
	      short_room->data_off == VXLAN_TNL6_HDR_LEN - 1,
	      "lengths/headroom");
	pkt_batch_free(&b);
	pkt_batch_free(&dropped);

	/* the largest datagram: payload_len and UDP length 0xffff */
	static uint8_t big[65519 + 1];
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)(i * 13);
	vxlan_tnl_template_set_max_frame(&t, UINT32_MAX);
	pkt_batch_init(&b);
	struct rte_mbuf *max = mbuf_chain_from(big, sizeof big - 1, 2001);
	struct rte_mbuf *too = mbuf_chain_from(big, sizeof big, 2001);
	pkt_batch_add(&b, max);
	pkt_batch_add(&b, too);
	pkt_batch_init(&dropped);
	vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
	CHECK(b.n == 1 && b.pkts[0] == max && dropped.n == 1 &&
	      dropped.pkts[0] == too, "65519 kept, 65520 dropped");
	if (b.n == 1)
		check_encap6("largest", max, &t, big, sizeof big - 1, 1);
	pkt_batch_free(&b);
	pkt_batch_free(&dropped);
}
