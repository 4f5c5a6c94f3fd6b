/* SPDX-License-Identifier: BSD-3-Clause
 * test_vxlan, encap: the scapy vectors, checksums, the UDP source port,
 * headroom, lengths and flags.
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
