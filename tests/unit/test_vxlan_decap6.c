/* SPDX-License-Identifier: BSD-3-Clause
 * test_vxlan, decap over an IPv6 underlay (vxlan_decap6.c): frames built
 * here, their UDP checksum by a byte-wise reference sum; the key's third
 * line; zero checksums accepted and refused; every malformed outer header
 * and every truncation refused; chains, tags, padding; the batch stage
 * with the inner extract.
 */
#include "miniflow.h"
#include "vxlan_test.h"

#define VNI6 0x123456u
#define OUTER6_LEN (14 + 40 + 8 + 8)

static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t dst6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* an inner eth/ipv4/udp frame of len bytes (>= 42) */
static size_t
inner_frame(uint8_t *p, size_t len)
{
	static const uint8_t hdr[] = {
		0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00,
		0x45, 0, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0,
		10, 0, 0, 1, 10, 0, 0, 2,
		0x30, 0x39, 0x00, 0x35, 0, 0, 0, 0,
	};
	memcpy(p, hdr, sizeof hdr);
	p[16] = (uint8_t)((len - 14) >> 8), p[17] = (uint8_t)(len - 14);
	p[38] = (uint8_t)((len - 34) >> 8), p[39] = (uint8_t)(len - 34);
	for (size_t i = sizeof hdr; i < len; i++)
		p[i] = (uint8_t)(i * 7);
	return len;
}

/* the ones-complement sum of 16-bit big-endian words, byte by byte */
static uint32_t
ref_sum(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		sum += i & 1 ? p[i] : (uint32_t)p[i] << 8;
	return sum;
}

static uint16_t
ref_udp6_csum(const uint8_t *ip6, const uint8_t *udp, uint32_t udp_len)
{
	uint32_t sum = ref_sum(0, ip6 + 8, 32);

	sum += udp_len + IPPROTO_UDP;
	sum = ref_sum(sum, udp, udp_len);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	uint16_t c = (uint16_t)~sum;
	return c ? c : 0xffff;
}

/* eth/ipv6/udp/vxlan around an inner frame of inner_len; the checksum by
 * the reference unless csum0. Returns the frame's length. */
static size_t
frame6(uint8_t *f, size_t inner_len, bool csum0)
{
	const uint32_t udp_len = 16 + (uint32_t)inner_len;
	uint8_t *ip6 = f + 14, *udp = ip6 + 40;

	memset(f, 0, OUTER6_LEN);
	memcpy(f, "\x02\x00\x00\x00\x00\xaa\x02\x00\x00\x00\x00\xbb\x86\xdd",
	       14);
	ip6[0] = 0x60;
	ip6[4] = (uint8_t)(udp_len >> 8), ip6[5] = (uint8_t)udp_len;
	ip6[6] = IPPROTO_UDP;
	ip6[7] = 64;
	memcpy(ip6 + 8, src6, 16);
	memcpy(ip6 + 24, dst6, 16);
	udp[0] = 0xc3, udp[1] = 0x50;			/* 50000 */
	udp[2] = 0x12, udp[3] = 0xb5;			/* 4789 */
	udp[4] = (uint8_t)(udp_len >> 8), udp[5] = (uint8_t)udp_len;
	udp[8] = 0x08;
	udp[12] = VNI6 >> 16, udp[13] = (VNI6 >> 8) & 0xff, udp[14] = VNI6 & 0xff;
	inner_frame(f + OUTER6_LEN, inner_len);
	if (!csum0) {
		uint16_t c = ref_udp6_csum(ip6, udp, udp_len);
		udp[6] = (uint8_t)(c >> 8), udp[7] = (uint8_t)c;
	}
	return OUTER6_LEN + inner_len;
}

static enum vxlan_decap6_verdict
decap6(const uint8_t *f, size_t len, size_t seg, bool zero_ok,
       struct flow_key *k, struct rte_mbuf **out)
{
	struct rte_mbuf *m = seg ? mbuf_chain_from(f, len, seg)
				 : mbuf_from(f, len);

	memset(k, 0xa5, sizeof *k);
	enum vxlan_decap6_verdict v = vxlan_decap6_pkt(m, k, TNL_OFPORT,
						       zero_ok);
	if (out)
		*out = m;
	else
		rte_pktmbuf_free(m);
	return v;
}

void
test_decap6_good(void)
{
	uint8_t f[2048];
	struct flow_key k;
	struct rte_mbuf *m;

	for (size_t inner_len = 42; inner_len <= 1444; inner_len += 97) {
		size_t len = frame6(f, inner_len, false);

		CHECK(decap6(f, len, 0, false, &k, &m) == VXLAN_DECAP6_OK,
		      "inner %zu: good frame refused", inner_len);
		CHECK(mbuf_equals(m, f + OUTER6_LEN, inner_len),
		      "inner %zu: inner bytes", inner_len);
		CHECK(k.in_port == TNL_OFPORT && k.tun_id == VNI6 &&
		      k.w[1] == 0 && k.ext_line == FLOW_EXT_TUN6 &&
		      !memcmp(k.tun_ipv6_src.a, src6, 16) &&
		      !memcmp(k.tun_ipv6_dst.a, dst6, 16) &&
		      !k.line3[4] && !k.line3[5] && !k.line3[6] &&
		      !k.line3[7] && !k.w[2] && !k.w[5] && !k.w[6] &&
		      !k.ipv6_label, "inner %zu: the key", inner_len);
		rte_pktmbuf_free(m);
		/* in chains whose first segment holds the headers */
		CHECK(decap6(f, len, 100, false, &k, &m) == VXLAN_DECAP6_OK &&
		      mbuf_equals(m, f + OUTER6_LEN, inner_len),
		      "inner %zu: chained", inner_len);
		rte_pktmbuf_free(m);
		/* headers over two segments: not ours to strip */
		CHECK(decap6(f, len, 60, false, &k, NULL) == VXLAN_DECAP6_BAD,
		      "inner %zu: headers in two segments", inner_len);
	}

	/* one 802.1Q tag, and Ethernet padding past the datagram */
	size_t len = frame6(f, 60, false);
	uint8_t t[2048];

	memcpy(t, f, 12);
	memcpy(t + 12, "\x81\x00\x00\x05", 4);
	memcpy(t + 16, f + 12, len - 12);
	CHECK(decap6(t, len + 4, 0, false, &k, &m) == VXLAN_DECAP6_OK &&
	      mbuf_equals(m, f + OUTER6_LEN, 60), "tagged");
	rte_pktmbuf_free(m);
	memset(f + len, 0, 8);
	CHECK(decap6(f, len + 8, 0, false, &k, &m) == VXLAN_DECAP6_OK &&
	      mbuf_equals(m, f + OUTER6_LEN, 60), "padding trimmed");
	rte_pktmbuf_free(m);
}

void
test_decap6_checksum(void)
{
	uint8_t f[2048];
	struct flow_key k;
	struct rte_mbuf *m;
	size_t len = frame6(f, 200, true);

	CHECK(decap6(f, len, 0, true, &k, NULL) == VXLAN_DECAP6_OK_ZERO_CSUM,
	      "a zero checksum accepted where the port allows it");
	CHECK(decap6(f, len, 0, false, &k, &m) ==
	      VXLAN_DECAP6_ZERO_CSUM_REFUSED &&
	      rte_pktmbuf_pkt_len(m) == len && mbuf_equals(m, f, len),
	      "refused where it does not, untouched");
	rte_pktmbuf_free(m);

	len = frame6(f, 200, false);
	unsigned wrong = 0;
	for (size_t i = 14 + 8; i < len; i++) {
		if (i >= 14 + 40 + 6 && i < 14 + 40 + 8)
			continue;	/* the checksum field itself */
		f[i] ^= 0x10;
		/* a flipped length or header fails some other check: BAD
		 * either way; payload and address flips fail the sum */
		wrong += decap6(f, len, 0, true, &k, NULL) != VXLAN_DECAP6_BAD;
		f[i] ^= 0x10;
	}
	CHECK(!wrong, "%u corrupted frames accepted", wrong);
	/* the NIC's verdict is trusted, as over IPv4 */
	f[len - 1] ^= 1;
	m = mbuf_from(f, len);
	m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	CHECK(vxlan_decap6_pkt(m, &k, TNL_OFPORT, false) == VXLAN_DECAP6_OK,
	      "NIC-verified checksum not summed again");
	rte_pktmbuf_free(m);
	f[len - 1] ^= 1;
	/* in a chain cut at an odd offset of the datagram */
	CHECK(decap6(f, len, 101, false, &k, NULL) == VXLAN_DECAP6_OK,
	      "odd segment boundary");
}

void
test_decap6_refused(void)
{
	uint8_t f[2048];
	struct flow_key k;
	size_t len = frame6(f, 100, false);
	struct {
		const char *what;
		size_t off;
		uint8_t val;
	} bad[] = {
		{ "ethertype IPv4", 12, 0x08 },
		{ "version 4", 14, 0x40 },
		{ "hop-by-hop before UDP", 14 + 6, 0 },
		{ "a fragment header", 14 + 6, 44 },
		{ "TCP", 14 + 6, IPPROTO_TCP },
		{ "payload longer than the frame", 14 + 4, 0x7f },
		{ "UDP longer than the payload", 14 + 40 + 4, 0x7f },
		{ "UDP too short", 14 + 40 + 5, 16 + 13 },
		{ "VXLAN flags", 14 + 48, 0x0c },
		{ "VXLAN reserved bits", 14 + 49, 1 },
	};
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		uint8_t save = f[bad[i].off];
		struct rte_mbuf *m;

		f[bad[i].off] = bad[i].val;
		if (bad[i].off == 14 + 40 + 5)
			f[14 + 40 + 4] = 0;
		CHECK(decap6(f, len, 0, true, &k, &m) == VXLAN_DECAP6_BAD &&
		      mbuf_equals(m, f, len), "%s: accepted", bad[i].what);
		rte_pktmbuf_free(m);
		f[bad[i].off] = save;
		if (bad[i].off == 14 + 40 + 5)
			len = frame6(f, 100, false);
	}
	unsigned took = 0;
	for (size_t cut = 0; cut < len; cut++)
		took += decap6(f, cut, 0, true, &k, NULL) != VXLAN_DECAP6_BAD;
	CHECK(!took, "%u truncations accepted", took);
}

/* The stage: a batch of good, bad and zero-checksum frames, the inner
 * keys extracted (by both extractors) with the third line kept. */
void
test_decap6_batch(void)
{
	uint8_t good[2048], zero[2048], broken[2048];
	size_t lg = frame6(good, 90, false), lz = frame6(zero, 90, true);
	size_t lb = frame6(broken, 90, false);

	broken[14 + 48] = 0;
	for (int fast = 0; fast < 2; fast++) {
		for (int zero_ok = 0; zero_ok < 2; zero_ok++) {
			struct pkt_batch b;
			struct flow_key keys[BATCH_MAX];
			struct vxlan_decap6_out out;

			pkt_batch_init(&b);
			pkt_batch_add(&b, mbuf_from(zero, lz));
			pkt_batch_add(&b, mbuf_from(good, lg));
			pkt_batch_add(&b, mbuf_from(broken, lb));
			pkt_batch_add(&b, mbuf_from(good, lg));
			pkt_batch_init(&out.bad);
			pkt_batch_init(&out.zero_csum_refused);
			pkt_batch_init(&out.malformed);
			out.zero_csum_accepted = 0;
			uint64_t bytes = vxlan_decap6_extract(&b, keys,
							      TNL_OFPORT,
							      zero_ok, &out,
							      fast);
			uint16_t want = zero_ok ? 3 : 2;
			CHECK(b.n == want && out.bad.n == 1 &&
			      out.zero_csum_refused.n == !zero_ok &&
			      out.zero_csum_accepted == (uint32_t)zero_ok &&
			      !out.malformed.n && bytes == 90u * want,
			      "fast %d zero_ok %d: kept %u", fast, zero_ok,
			      b.n);
			for (uint16_t i = 0; i < b.n; i++)
				CHECK(keys[i].ext_line == FLOW_EXT_TUN6 &&
				      keys[i].dl_type ==
				      RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
				      keys[i].nw_src == RTE_BE32(0x0a000001) &&
				      keys[i].tp_dst == RTE_BE16(53) &&
				      !memcmp(keys[i].tun_ipv6_dst.a, dst6,
					      16), "inner key %u", i);
			for (uint16_t i = 0; i < b.n; i++)
				rte_pktmbuf_free(b.pkts[i]);
			for (uint16_t i = 0; i < out.bad.n; i++)
				rte_pktmbuf_free(out.bad.pkts[i]);
			for (uint16_t i = 0; i < out.zero_csum_refused.n; i++)
				rte_pktmbuf_free(out.zero_csum_refused.pkts[i]);
		}
	}
}
