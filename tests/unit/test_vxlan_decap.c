/* SPDX-License-Identifier: BSD-3-Clause
 * test_vxlan, decap: the scapy vectors, truncated frames, VXLAN flags, IPv4
 * and UDP checksum checks, mixed batches.
 */
#include "miniflow.h"
#include "vxlan_test.h"

/* ---- decap -------------------------------------------------------------- */

static bool
key_is_tunnel(const struct flow_key *k, const struct vector *v)
{
	for (int w = 2; w < FLOW_KEY_LINE_WORDS; w++)
		if (k->w[w])
			return false;
	return k->in_port == TNL_OFPORT && k->tun_id == v->vni &&
	       k->tun_src == v->src_ip && k->tun_dst == v->dst_ip;
}

/* The trusted decap (the tnl_pop stage's, decap-trust-outer) against the
 * full one: how often they were compared, and how often on a packet both
 * rejected, so that a test can check that it exercised both verdicts. */
static unsigned trusted_compared, trusted_rejected, trusted_malformed;

/* Whether a tnl_pop megaflow could have sent m to decap: the key the
 * switch extracts has IPv4, UDP and no fragment bits (xlate_underlay's
 * match; the VTEP address and port are the vectors'). Only such packets
 * reach vxlan_decap_batch_trusted. */
static bool
megaflow_would_pop(const struct rte_mbuf *m)
{
	struct flow_key k;

	flow_key_zero(&k);
	return miniflow_extract(m, &k) == 0 &&
	       k.dl_type == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
	       k.nw_proto == IPPROTO_UDP && k.nw_frag == 0;
}

/* The full decap then miniflow_extract_batch, against the trusted decap
 * that extracts in its loop (fast or generic extractor), each on its own
 * copy of frame (in segments of seg bytes, 0 = one segment): the same
 * verdict (good, bad VXLAN, malformed inner), and for a good packet the
 * same inner bytes, key, flags and byte count; a rejected one untouched.
 * Skipped when no tnl_pop megaflow could have matched the frame. */
static void
trusted_agrees(const uint8_t *frame, size_t len, size_t seg,
	       uint64_t ol_flags, uint32_t ptype)
{
	enum { FULL, FAST, GENERIC, N_WAYS };
	struct rte_mbuf *m[N_WAYS];
	struct flow_key keys[N_WAYS][BATCH_MAX];
	struct pkt_batch b[N_WAYS], bad[N_WAYS], malformed[N_WAYS];
	uint64_t bytes[N_WAYS] = { 0 };

	for (int k = 0; k < N_WAYS; k++) {
		m[k] = seg ? mbuf_chain_from(frame, len, seg)
			   : mbuf_from(frame, len);
		m[k]->ol_flags = ol_flags;
		m[k]->packet_type = ptype;
		batch_of(&b[k], m[k]);
		pkt_batch_init(&bad[k]);
		pkt_batch_init(&malformed[k]);
		memset(keys[k], 0xa5 ^ k, sizeof keys[k]);
	}
	if (!megaflow_would_pop(m[FULL]))
		goto out;
	vxlan_decap_batch(&b[FULL], keys[FULL], TNL_OFPORT, &bad[FULL]);
	if (b[FULL].n)
		bytes[FULL] = rte_pktmbuf_pkt_len(m[FULL]);
	miniflow_extract_batch(&b[FULL], keys[FULL], &malformed[FULL], true);
	for (int k = FAST; k < N_WAYS; k++) {
		bool ext = false;

		bytes[k] = vxlan_decap_extract_trusted(&b[k], keys[k],
						       TNL_OFPORT, &bad[k],
						       &malformed[k],
						       k == FAST, &ext);
		/* no extractor returns MINIFLOW_EXT yet: all one-line */
		CHECK(!ext, "a one-line key flagged as two-line");
	}
	trusted_compared++;
	for (int k = FAST; k < N_WAYS; k++) {
		const char *how = k == FAST ? "fast" : "generic";

		CHECK(b[FULL].n == b[k].n && bad[FULL].n == bad[k].n &&
		      malformed[FULL].n == malformed[k].n &&
		      bytes[FULL] == bytes[k],
		      "trusted decap (%s) says %u good %u bad %u malformed, "
		      "full decap %u %u %u (len %zu, seg %zu)", how, b[k].n,
		      bad[k].n, malformed[k].n, b[FULL].n, bad[FULL].n,
		      malformed[FULL].n, len, seg);
		if (bad[k].n) {
			CHECK(bytes[k] == 0 && mbuf_equals(m[k], frame, len) &&
			      m[k]->ol_flags == ol_flags &&
			      m[k]->packet_type == ptype,
			      "trusted decap (%s) changed a rejected packet "
			      "(len %zu)", how, len);
			continue;
		}
		uint8_t inner[2048];
		const uint32_t n = rte_pktmbuf_pkt_len(m[FULL]);
		const void *p = rte_pktmbuf_read(m[FULL], 0, n, inner);

		CHECK(p != NULL && mbuf_equals(m[k], p, n) &&
		      (b[k].n == 0 ||
		       flow_key_equal(keys[FULL], keys[k])) &&
		      m[FULL]->ol_flags == m[k]->ol_flags &&
		      m[FULL]->packet_type == m[k]->packet_type,
		      "trusted decap's (%s) packet or key differs (len %zu)",
		      how, len);
	}
	if (bad[FAST].n)
		trusted_rejected++;
	if (malformed[FAST].n)
		trusted_malformed++;
out:
	for (int k = 0; k < N_WAYS; k++) {
		pkt_batch_free(&b[k]);
		pkt_batch_free(&bad[k]);
		pkt_batch_free(&malformed[k]);
	}
}

void
test_decap_vectors(void)
{
	struct flow_key keys[BATCH_MAX];
	const struct vector *in_batch[BATCH_MAX];
	struct pkt_batch all, bad;

	pkt_batch_init(&all);
	for (int i = 0; i < n_vectors; i++) {
		const struct vector *v = &vectors[i];
		struct pkt_batch b;

		batch_of(&b, mbuf_from(v->outer, v->outer_len));
		pkt_batch_init(&bad);
		memset(keys, 0xa5, sizeof keys);	/* must all be rewritten */
		uint16_t n = vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
		CHECK(n == 0 && b.n == 1 && bad.n == 0, "%s: rejected",
		      v->name);
		if (b.n == 1) {
			if (!mbuf_equals(b.pkts[0], v->inner, v->inner_len)) {
				CHECK(false, "%s: inner differs", v->name);
				print_diff(b.pkts[0], v->inner, v->inner_len);
			}
			CHECK(key_is_tunnel(&keys[0], v), "%s: key", v->name);
			CHECK(b.pkts[0]->packet_type == RTE_PTYPE_UNKNOWN,
			      "%s: ptype", v->name);
		}
		pkt_batch_free(&b);
		pkt_batch_free(&bad);
		trusted_agrees(v->outer, v->outer_len, 0, 0, 0);

		if (all.n < BATCH_MAX) {
			in_batch[all.n] = v;
			pkt_batch_add(&all, mbuf_from(v->outer, v->outer_len));
		}
	}

	/* all of them at once: every shape of outer header in one batch */
	memset(keys, 0xa5, sizeof keys);
	pkt_batch_init(&bad);
	vxlan_decap_batch(&all, keys, TNL_OFPORT, &bad);
	CHECK(bad.n == 0, "batch: %u rejected", bad.n);
	for (int k = 0; k < all.n; k++)
		CHECK(mbuf_equals(all.pkts[k], in_batch[k]->inner,
				  in_batch[k]->inner_len) &&
		      key_is_tunnel(&keys[k], in_batch[k]),
		      "batch: %s", in_batch[k]->name);
	pkt_batch_free(&all);
	pkt_batch_free(&bad);
}

/* Decaps one copy of frame (len bytes, ol_flags/ptype as given): true if
 * accepted. A rejected packet must come back untouched. The trusted decap
 * must agree wherever it could be called. */
static bool
decap_accepts_as(const uint8_t *frame, size_t len, uint64_t ol_flags,
		 uint32_t ptype)
{
	trusted_agrees(frame, len, 0, ol_flags, ptype);

	struct flow_key keys[BATCH_MAX];
	struct pkt_batch b, bad;
	struct rte_mbuf *m = mbuf_from(frame, len);

	m->ol_flags = ol_flags;
	m->packet_type = ptype;
	batch_of(&b, m);
	pkt_batch_init(&bad);
	vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
	bool accepted = b.n == 1;
	if (!accepted)
		CHECK(bad.n == 1 && bad.pkts[0] == m &&
		      mbuf_equals(m, frame, len) && m->ol_flags == ol_flags &&
		      m->packet_type == ptype, "rejected packet was changed");
	pkt_batch_free(&b);
	pkt_batch_free(&bad);
	return accepted;
}

static bool
decap_accepts(const uint8_t *frame, size_t len)
{
	return decap_accepts_as(frame, len, 0, 0);
}

/* Offsets into a vector's outer frame (no VLAN, no options unless said). */
struct outer_offsets {
	size_t ip, udp, vxlan, inner;
};

static struct outer_offsets
offsets_of(const uint8_t *frame)
{
	struct outer_offsets o;
	uint16_t type = (uint16_t)(frame[12] << 8 | frame[13]);

	o.ip = type == RTE_ETHER_TYPE_VLAN ? 18 : 14;
	o.udp = o.ip + (frame[o.ip] & 0xf) * 4;
	o.vxlan = o.udp + 8;
	o.inner = o.vxlan + 8;
	return o;
}

static void
fix_ip_csum(uint8_t *frame, size_t ip_off)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame + ip_off);

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

void
test_decap_truncated(void)
{
	static const char *const names[] = {
		"udp64_df_ttl64_vni1001", "outer_vlan", "outer_ip_options",
		"outer_all", "udp1400", "outer_padded",
	};

	for (size_t i = 0; i < RTE_DIM(names); i++) {
		const struct vector *v = find_vector(names[i]);
		struct outer_offsets o = offsets_of(v->outer);
		size_t frame_len = v->inner_len + o.inner;
		int wrong = 0;

		/* every length short of the full frame; the padded vector
		 * is also good with any part of its padding */
		for (size_t len = 0; len < v->outer_len; len++) {
			bool want = len >= frame_len;
			if (decap_accepts(v->outer, len) != want && wrong++ < 3)
				CHECK(false, "%s cut to %zu: %s", v->name, len,
				      want ? "rejected" : "accepted");
		}
		CHECK(wrong == 0, "%s: %d lengths wrong", v->name, wrong);
	}
}

void
test_decap_vxlan_flags(void)
{
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct outer_offsets o = offsets_of(v->outer);
	uint8_t frame[256];

	static const uint8_t bad_flags[] = { 0x00, 0x0c, 0x88, 0x09, 0x48,
					     0xff };
	for (size_t i = 0; i < RTE_DIM(bad_flags); i++) {
		memcpy(frame, v->outer, v->outer_len);
		frame[o.vxlan] = bad_flags[i];
		CHECK(!decap_accepts(frame, v->outer_len),
		      "flags 0x%02x accepted", bad_flags[i]);
	}
	for (int byte = 1; byte <= 3; byte++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(frame, v->outer, v->outer_len);
			frame[o.vxlan + byte] = (uint8_t)(1 << bit);
			CHECK(!decap_accepts(frame, v->outer_len),
			      "reserved byte %d bit %d accepted", byte, bit);
		}

	/* RFC 7348: the reserved byte after the VNI is ignored on receipt */
	memcpy(frame, v->outer, v->outer_len);
	frame[o.vxlan + 7] = 0x5a;
	CHECK(decap_accepts(frame, v->outer_len), "byte after VNI rejected");
}

/* The outer IPv4 checksum on headers whose sums carry a lot (the
 * trusted decap adds 64-bit words, the full one 16-bit ones): random
 * tos, id, ttl and source address, with 0xff bytes one time in four;
 * right checksums accepted, a checksum off by any nonzero amount
 * rejected, by both decaps (decap_accepts compares them). */
void
test_decap_ip_csum_sums(void)
{
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct outer_offsets o = offsets_of(v->outer);
	const size_t len = v->outer_len;
	const size_t fields[] = { o.ip + 1, o.ip + 4, o.ip + 5, o.ip + 8,
				  o.ip + 12, o.ip + 13, o.ip + 14, o.ip + 15 };
	uint32_t x = 2463534242u;
	unsigned bad_ok = 0, good_rejected = 0;
	uint8_t frame[256];

	for (unsigned k = 0; k < 400; k++) {
		memcpy(frame, v->outer, len);
		for (size_t f = 0; f < RTE_DIM(fields); f++) {
			x ^= x << 13;	/* xorshift32 */
			x ^= x >> 17;
			x ^= x << 5;
			frame[fields[f]] = (k & 3) == 0 ? 0xff : (uint8_t)x;
		}
		fix_ip_csum(frame, o.ip);
		good_rejected += !decap_accepts(frame, len);
		uint16_t delta = (uint16_t)(x >> 8) | 1;
		uint16_t c = (uint16_t)(frame[o.ip + 10] << 8 | frame[o.ip + 11]);
		c = (uint16_t)(c + delta);
		if (c == 0xffff)	/* -0 and +0: the same sum */
			c = 0x1234;
		frame[o.ip + 10] = (uint8_t)(c >> 8);
		frame[o.ip + 11] = (uint8_t)c;
		bad_ok += decap_accepts(frame, len);
	}
	CHECK(good_rejected == 0, "%u right checksums rejected", good_rejected);
	CHECK(bad_ok == 0, "%u wrong checksums accepted", bad_ok);
}

void
test_decap_ip_checks(void)
{
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct outer_offsets o = offsets_of(v->outer);
	const size_t len = v->outer_len;
	const uint32_t tunnel_ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
				      RTE_PTYPE_L4_UDP | RTE_PTYPE_TUNNEL_VXLAN;
	const unsigned compared0 = trusted_compared;
	const unsigned rejected0 = trusted_rejected;
	uint8_t frame[256];

	memcpy(frame, v->outer, len);
	frame[o.ip + 10] ^= 0x01;
	CHECK(!decap_accepts(frame, len), "bad IP checksum accepted");
	CHECK(decap_accepts_as(frame, len, RTE_MBUF_F_RX_IP_CKSUM_GOOD, 0),
	      "NIC's IP_CKSUM_GOOD not trusted");
	CHECK(!decap_accepts_as(frame, len, RTE_MBUF_F_RX_IP_CKSUM_BAD, 0),
	      "bad IP checksum accepted with IP_CKSUM_BAD");
	CHECK(!decap_accepts_as(frame, len, RTE_MBUF_F_RX_IP_CKSUM_NONE, 0),
	      "bad IP checksum accepted with IP_CKSUM_NONE");
	CHECK(!decap_accepts_as(frame, len, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
				tunnel_ptype),
	      "inner IP_CKSUM_GOOD of a tunnel ptype taken for the outer");

	struct {
		const char *what;
		size_t off;
		uint8_t val;
		bool fix_csum;
	} mutations[] = {
		{ "IPv6 version", o.ip, 0x65, true },
		{ "IHL 4", o.ip, 0x44, true },
		{ "IHL 0", o.ip, 0x40, true },
		{ "protocol TCP", o.ip + 9, IPPROTO_TCP, true },
		{ "more fragments", o.ip + 6, 0x60, true },
		{ "fragment offset", o.ip + 7, 0x01, true },
		{ "fragment offset high bits", o.ip + 6, 0x5f, true },
		{ "IP total length past the frame", o.ip + 3,
		  (uint8_t)(len - o.ip + 1), true },
		{ "IP total length short of the UDP length", o.ip + 3,
		  (uint8_t)(len - o.ip - 1), true },
		{ "UDP length below UDP+VXLAN+Ethernet", o.udp + 5, 29, false },
		{ "UDP length past the IP payload", o.udp + 5,
		  (uint8_t)(len - o.udp + 1), false },
		{ "ethertype 0x8600", 12, 0x86, false },
		{ "ethertype ARP", 13, 0x06, false },
	};
	for (size_t i = 0; i < RTE_DIM(mutations); i++) {
		memcpy(frame, v->outer, len);
		frame[mutations[i].off] = mutations[i].val;
		if (mutations[i].fix_csum)
			fix_ip_csum(frame, o.ip);
		CHECK(!decap_accepts(frame, len), "%s accepted",
		      mutations[i].what);
	}

	/* DF either way is fine */
	memcpy(frame, v->outer, len);
	frame[o.ip + 6] = 0x00;
	fix_ip_csum(frame, o.ip);
	CHECK(decap_accepts(frame, len), "DF clear rejected");

	/* IP may carry bytes past the UDP datagram: trimmed off, not
	 * delivered as part of the inner frame */
	memcpy(frame, v->outer, len);
	memset(frame + len, 0xee, 4);
	frame[o.ip + 3] = (uint8_t)(frame[o.ip + 3] + 4);
	fix_ip_csum(frame, o.ip);
	{
		struct flow_key keys[BATCH_MAX];
		struct pkt_batch b, bad;

		batch_of(&b, mbuf_from(frame, len + 4));
		pkt_batch_init(&bad);
		vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
		CHECK(b.n == 1 && mbuf_equals(b.pkts[0], v->inner,
					      v->inner_len),
		      "bytes past the UDP datagram not trimmed");
		pkt_batch_free(&b);
		pkt_batch_free(&bad);
	}

	/* two VLAN tags: the switch parses one */
	const struct vector *tagged = find_vector("outer_vlan");
	memcpy(frame, tagged->outer, 16);
	frame[16] = 0x81;
	frame[17] = 0x00;
	frame[18] = 0x00;
	frame[19] = 0x05;
	memcpy(frame + 20, tagged->outer + 16, tagged->outer_len - 16);
	CHECK(!decap_accepts(frame, tagged->outer_len + 4),
	      "two VLAN tags accepted");

	/* an 802.1ad tag is one tag too */
	memcpy(frame, tagged->outer, tagged->outer_len);
	frame[12] = 0x88;
	frame[13] = 0xa8;
	CHECK(decap_accepts(frame, tagged->outer_len), "802.1ad tag rejected");

	/* good VXLAN around a malformed inner frame (inner IHL 4): both
	 * decapsulate it, then find it malformed */
	memcpy(frame, v->outer, len);
	CHECK(frame[o.inner + 12] == 0x08 && frame[o.inner + 13] == 0x00,
	      "vector's inner frame is not IPv4");
	frame[o.inner + RTE_ETHER_HDR_LEN] = 0x44;
	const unsigned malformed0 = trusted_malformed;
	trusted_agrees(frame, len, 0, 0, 0);
	CHECK(trusted_malformed == malformed0 + 1,
	      "inner IHL 4 not found malformed after decap");

	/* the trusted decap met the bad checksums, lengths, IHLs and both
	 * tags (IPv6, TCP, fragments and ARP cannot reach it) */
	CHECK(trusted_compared - compared0 >= 10 &&
	      trusted_rejected - rejected0 >= 7,
	      "trusted decap compared on %u packets, %u rejected",
	      trusted_compared - compared0, trusted_rejected - rejected0);
}

void
test_decap_udp_csum(void)
{
	const struct vector *v = find_vector("outer_udp_csum");
	struct outer_offsets o = offsets_of(v->outer);
	const size_t len = v->outer_len;
	const uint32_t tunnel_ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
				      RTE_PTYPE_L4_UDP | RTE_PTYPE_TUNNEL_VXLAN;
	static uint8_t frame[2048];

	CHECK(v->outer[o.udp + 6] || v->outer[o.udp + 7],
	      "vector has no UDP checksum");
	CHECK(decap_accepts(v->outer, len), "good UDP checksum rejected");

	memcpy(frame, v->outer, len);
	frame[o.udp + 7] ^= 0x01;
	CHECK(!decap_accepts(frame, len), "bad UDP checksum accepted");
	CHECK(decap_accepts_as(frame, len, RTE_MBUF_F_RX_L4_CKSUM_GOOD, 0),
	      "NIC's L4_CKSUM_GOOD not trusted");
	CHECK(!decap_accepts_as(frame, len, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
				tunnel_ptype),
	      "inner L4_CKSUM_GOOD of a tunnel ptype taken for the outer");
	CHECK(decap_accepts_as(frame, len, RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD,
			       tunnel_ptype),
	      "NIC's OUTER_L4_CKSUM_GOOD not trusted");

	/* a flipped payload bit, far from the headers */
	memcpy(frame, v->outer, len);
	frame[len - 100] ^= 0x10;
	CHECK(!decap_accepts(frame, len), "corrupt payload accepted");

	/* checksum 0 means none, whatever the payload */
	frame[o.udp + 6] = frame[o.udp + 7] = 0;
	CHECK(decap_accepts(frame, len), "UDP checksum 0 not skipped");

	/* the same vector split over segments; odd sizes make segments
	 * start at odd offsets of the datagram, where the partial sums must
	 * be byte-swapped (and where DPDK 22.11's rte_raw_cksum_mbuf errs) */
	memcpy(frame, v->outer, len);
	frame[len - 100] ^= 0x10;
	for (size_t seg = o.inner + RTE_ETHER_HDR_LEN; seg < len; seg += 111) {
		struct flow_key keys[BATCH_MAX];
		struct pkt_batch b, bad;

		trusted_agrees(frame, len, seg, 0, 0);
		trusted_agrees(v->outer, len, seg, 0, 0);
		batch_of(&b, mbuf_chain_from(frame, len, seg));
		pkt_batch_init(&bad);
		vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
		CHECK(b.n == 0 && bad.n == 1,
		      "corrupt payload in segments of %zu accepted", seg);
		pkt_batch_free(&b);
		pkt_batch_free(&bad);

		batch_of(&b, mbuf_chain_from(v->outer, len, seg));
		pkt_batch_init(&bad);
		vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
		CHECK(b.n == 1 && mbuf_equals(b.pkts[0], v->inner,
					      v->inner_len) &&
		      key_is_tunnel(&keys[0], v), "segments of %zu: %s",
		      seg, b.n != 1 ? "rejected" : "wrong inner or key");
		pkt_batch_free(&b);
		pkt_batch_free(&bad);
	}

	/* headers not all in the first segment: rejected, not misread */
	struct flow_key keys[BATCH_MAX];
	struct pkt_batch b, bad;
	trusted_agrees(v->outer, len, o.inner + 13, 0, 0);
	batch_of(&b, mbuf_chain_from(v->outer, len, o.inner + 13));
	pkt_batch_init(&bad);
	vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
	CHECK(b.n == 0 && bad.n == 1, "split inner Ethernet header accepted");
	pkt_batch_free(&bad);
}

void
test_decap_mixed_batch(void)
{
	const struct vector *good[3] = {
		find_vector("tcp_nodf"), find_vector("outer_vlan"),
		find_vector("icmp_ttl1_vnimax"),
	};
	const struct vector *base = find_vector("udp64_df_ttl64_vni1001");
	struct outer_offsets o = offsets_of(base->outer);
	uint8_t bad_flags[256], bad_csum[256];
	struct rte_mbuf *m[5];
	struct flow_key keys[BATCH_MAX];
	struct pkt_batch b, bad;

	memcpy(bad_flags, base->outer, base->outer_len);
	bad_flags[o.vxlan] = 0;
	memcpy(bad_csum, base->outer, base->outer_len);
	bad_csum[o.ip + 11] ^= 0x80;

	m[0] = mbuf_from(good[0]->outer, good[0]->outer_len);
	m[1] = mbuf_from(bad_flags, base->outer_len);
	m[2] = mbuf_from(good[1]->outer, good[1]->outer_len);
	m[3] = mbuf_from(bad_csum, base->outer_len);
	m[4] = mbuf_from(good[2]->outer, good[2]->outer_len);
	m[0]->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			 RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_VLAN |
			 RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_RSS_HASH |
			 RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
	m[0]->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			    RTE_PTYPE_L4_UDP;
	pkt_batch_init(&b);
	for (int k = 0; k < 5; k++)
		pkt_batch_add(&b, m[k]);
	pkt_batch_init(&bad);

	uint16_t n = vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
	CHECK(n == 2 && bad.n == 2 && bad.pkts[0] == m[1] &&
	      bad.pkts[1] == m[3], "bad ones, in order");
	CHECK(b.n == 3 && b.pkts[0] == m[0] && b.pkts[1] == m[2] &&
	      b.pkts[2] == m[4], "good ones, in order");
	for (int k = 0; k < b.n && k < 3; k++)
		CHECK(key_is_tunnel(&keys[k], good[k]) &&
		      mbuf_equals(b.pkts[k], good[k]->inner,
				  good[k]->inner_len),
		      "key/packet %d not compacted together", k);
	CHECK(m[0]->ol_flags == RTE_MBUF_F_RX_RSS_HASH &&
	      m[0]->packet_type == RTE_PTYPE_UNKNOWN,
	      "stale offload flags 0x%" PRIx64, m[0]->ol_flags);
	pkt_batch_free(&b);
	pkt_batch_free(&bad);

	/* empty batch */
	pkt_batch_init(&b);
	CHECK(vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad) == 0 && b.n == 0,
	      "empty batch");
}
