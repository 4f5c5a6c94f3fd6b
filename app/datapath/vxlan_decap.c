/* SPDX-License-Identifier: BSD-3-Clause
 * VXLAN decapsulation (see vxlan_decap.h). Unlike encap, nothing about the
 * outer headers is known in advance: a remote VTEP may add a VLAN tag or IP
 * options, and anyone on the underlay can send us garbage on port 4789, so
 * every offset comes from the packet and every length is checked before
 * it is used.
 *
 * The decap stage (dp_tnl_pop, at the end) runs it on a tnl_pop megaflow's
 * batch, parses the inner headers and hands the inner packets back to the
 * pipeline.
 */
#include <string.h>
#include <rte_branch_prediction.h>
#include <rte_mbuf_ptype.h>
#include <rte_prefetch.h>

#include "csum_chain.h"
#include "dp_stages.h"
#include "miniflow_fast.h"
#include "port.h"
#include "vxlan_decap.h"
#include "vxlan_tnl.h"
#include "unaligned.h"

/* UDP + VXLAN + inner Ethernet: the least a UDP length may cover. */
#define MIN_UDP_LEN ((uint32_t)(sizeof(struct rte_udp_hdr) + \
				sizeof(struct rte_vxlan_hdr) + RTE_ETHER_HDR_LEN))

/* The UDP checksum over udp_len bytes at l4_off plus the IPv4
 * pseudo-header. The pseudo-header takes the UDP length, not the IP
 * payload length: they differ when IP carries bytes past the datagram. */
static bool
udp_csum_ok(const struct rte_mbuf *m, const struct rte_ipv4_hdr *ip,
	    uint32_t l4_off, rte_be16_t udp_len_be)
{
	const uint32_t udp_len = rte_be_to_cpu_16(udp_len_be);
	uint16_t data_sum;

	if (likely(l4_off + udp_len <= rte_pktmbuf_data_len(m)))
		data_sum = rte_raw_cksum(rte_pktmbuf_mtod_offset(m,
					 const void *, l4_off), udp_len);
	else if (!csum_chain(m, l4_off, udp_len, &data_sum))
		return false;

	/* Every term as the CPU loads the wire bytes, like rte_raw_cksum. */
	uint32_t sum = data_sum;
	sum += (ip->src_addr & 0xffff) + (ip->src_addr >> 16);
	sum += (ip->dst_addr & 0xffff) + (ip->dst_addr >> 16);
	sum += rte_cpu_to_be_16(IPPROTO_UDP);
	sum += udp_len_be;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* The checked packet loses its outer headers; its key becomes the inner
 * lookup's, whatever it held (ct_label_bits included: the caller need not
 * have copied the outer key in). extracted: the inner headers' words
 * (w2..w5) are about to be written by an extractor, which writes all of
 * them (miniflow.h); only w6/w7 need zeroing. */
static inline __rte_always_inline void
strip_outer(struct rte_mbuf *m, uint32_t inner_off,
	    const struct rte_ipv4_hdr *ip, const struct rte_vxlan_hdr *vxh,
	    struct flow_key *key, uint32_t tnl_ofport, bool extracted)
{
	const rte_be32_t tun_src = ip->src_addr;
	const rte_be32_t tun_dst = ip->dst_addr;
	const uint32_t vni = rte_be_to_cpu_32(vxh->vx_vni) >> 8;

	rte_pktmbuf_adj(m, (uint16_t)inner_off);
	m->ol_flags &= ~VXLAN_STALE_RX_FLAGS;
	m->packet_type = RTE_PTYPE_UNKNOWN;

	key->in_port = (uint16_t)tnl_ofport;
	key->ct_label_bits = 0;
	key->tun_id = vni;
	key->tun_src = tun_src;
	key->tun_dst = tun_dst;
	if (extracted)
		key->w[6] = key->w[7] = 0;
	else
		memset(&key->w[2], 0,
		       (FLOW_KEY_LINE_WORDS - 2) * sizeof key->w[0]);
}

static inline __rte_always_inline bool
decap_one(struct rte_mbuf *m, struct flow_key *key, uint32_t tnl_ofport)
{
	const uint32_t seg_len = rte_pktmbuf_data_len(m);
	const uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);

	/* Enough to read the Ethernet type and the IPv4 version/IHL below,
	 * even behind a VLAN tag. */
	if (unlikely(seg_len < VXLAN_DECAP_MIN_LEN))
		return false;

	uint32_t l3_off = RTE_ETHER_HDR_LEN;
	rte_be16_t eth_type = load_be16(frame + l3_off - 2);
	if (eth_type == RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
	    eth_type == RTE_BE16(RTE_ETHER_TYPE_QINQ)) {
		l3_off += sizeof(struct rte_vlan_hdr);
		eth_type = load_be16(frame + l3_off - 2);
	}
	if (unlikely(eth_type != RTE_BE16(RTE_ETHER_TYPE_IPV4)))
		return false;

	const struct rte_ipv4_hdr *ip =
		(const struct rte_ipv4_hdr *)(frame + l3_off);
	const uint32_t ihl = (ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) *
			     RTE_IPV4_IHL_MULTIPLIER;
	if (unlikely((ip->version_ihl >> 4) != 4 ||
		     ihl < sizeof(struct rte_ipv4_hdr)))
		return false;

	const uint32_t l4_off = l3_off + ihl;
	const uint32_t inner_off = l4_off + sizeof(struct rte_udp_hdr) +
				   sizeof(struct rte_vxlan_hdr);
	/* Headers contiguous in the first segment: adj can only strip from
	 * there, and the caller re-extracts the inner Ethernet header. */
	if (unlikely(seg_len < inner_off + RTE_ETHER_HDR_LEN))
		return false;

	if (unlikely(ip->next_proto_id != IPPROTO_UDP ||
		     (ip->fragment_offset &
		      RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))))
		return false;

	const struct rte_udp_hdr *udp =
		(const struct rte_udp_hdr *)(frame + l4_off);
	const uint32_t ip_len = rte_be_to_cpu_16(ip->total_length);
	const uint32_t udp_len = rte_be_to_cpu_16(udp->dgram_len);
	if (unlikely(udp_len < MIN_UDP_LEN || ihl + udp_len > ip_len ||
		     l3_off + ip_len > pkt_len))
		return false;

	const struct rte_vxlan_hdr *vxh =
		(const struct rte_vxlan_hdr *)(frame + l4_off +
					       sizeof(struct rte_udp_hdr));
	if (unlikely(vxh->vx_flags != RTE_BE32(VXLAN_FLAGS_WORD)))
		return false;

	/* Checksums last: they are the only checks that cost more than a
	 * compare, and most garbage has failed something cheaper by now. */
	bool ip_verified, udp_verified;
	vxlan_outer_csum_verified(m, &ip_verified, &udp_verified);
	if (!ip_verified && unlikely(rte_raw_cksum(ip, ihl) != 0xffff))
		return false;
	if (udp->dgram_cksum != 0 && !udp_verified &&
	    unlikely(!udp_csum_ok(m, ip, l4_off, udp->dgram_len)))
		return false;

	/* Bytes past the datagram (Ethernet padding, trailers) are not part
	 * of the inner frame. trim can only cut from the last segment: a
	 * trailer longer than that is too odd to be worth walking for. */
	const uint32_t excess = pkt_len - (l4_off + udp_len);
	if (unlikely(excess != 0) &&
	    (excess > UINT16_MAX || rte_pktmbuf_trim(m, (uint16_t)excess) < 0))
		return false;

	strip_outer(m, inner_off, ip, vxh, key, tnl_ofport, false);
	return true;
}

bool
vxlan_decap_pkt(struct rte_mbuf *m, struct flow_key *key, uint32_t tnl_ofport)
{
	return decap_one(m, key, tnl_ofport);
}

/* The ones-complement sum of an IPv4 header without options: two 8-byte
 * and one 4-byte load instead of rte_raw_cksum's loop over ten words,
 * added as 64-bit words with end-around carries (2^64, 2^32 and 2^16 are
 * all 1 modulo 0xffff, so the grouping does not change the sum), then
 * folded. Nonzero input never folds to 0, so a good header gives 0xffff
 * as rte_raw_cksum does. */
static inline uint16_t
ipv4_hdr20_sum(const struct rte_ipv4_hdr *ip)
{
	const uint8_t *p = (const uint8_t *)ip;
	const uint64_t b = load64(p + 8), c = load32(p + 16);
	uint64_t s = load64(p) + b;

	s += s < b;
	s += c;
	s += s < c;
	uint32_t t = (uint32_t)s + (uint32_t)(s >> 32);
	t += t < (uint32_t)(s >> 32);
	t = (t & 0xffff) + (t >> 16);
	t = (t & 0xffff) + (t >> 16);
	return (uint16_t)t;
}

/* decap_one for a packet whose outer key hit a tnl_pop megaflow
 * (xlate_underlay): that match already proved dl_type IPv4 (maybe behind
 * a tag), protocol UDP, not a fragment, our VTEP address and port. What it
 * cannot prove is checked here: the fast shape (one segment, untagged,
 * version 4 / IHL 5, one compare of bytes 12..15; anything else takes
 * decap_one's full path), the lengths, the VXLAN flags and the checksums.
 * Verdicts equal decap_one's on every packet such a key can come from
 * (tests/unit/test_vxlan_decap.c runs both on each). */
static inline __rte_always_inline bool
decap_one_trusted(struct rte_mbuf *m, struct flow_key *key,
		  uint32_t tnl_ofport)
{
	const uint32_t seg_len = rte_pktmbuf_data_len(m);
	const uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);

	if (unlikely((seg_len != pkt_len) | (seg_len < VXLAN_DECAP_MIN_LEN)) ||
	    unlikely((load32(frame + 12) & rte_cpu_to_be_32(0xffffff00)) !=
		     rte_cpu_to_be_32(0x08004500)))
		return decap_one(m, key, tnl_ofport);

	enum { L3 = RTE_ETHER_HDR_LEN, L4 = L3 + 20,
	       INNER = L4 + sizeof(struct rte_udp_hdr) +
		       sizeof(struct rte_vxlan_hdr) };
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(frame + L3);
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(frame + L4);
	const struct rte_vxlan_hdr *vxh =
		(const struct rte_vxlan_hdr *)(frame + L4 +
					       sizeof(struct rte_udp_hdr));
	const uint32_t ip_len = rte_be_to_cpu_16(ip->total_length);
	const uint32_t udp_len = rte_be_to_cpu_16(udp->dgram_len);
	/* also puts the inner Ethernet header inside the one segment */
	if (unlikely((udp_len < MIN_UDP_LEN) | (20 + udp_len > ip_len) |
		     (L3 + ip_len > pkt_len)))
		return false;
	if (unlikely(vxh->vx_flags != RTE_BE32(VXLAN_FLAGS_WORD)))
		return false;

	bool ip_verified, udp_verified;
	vxlan_outer_csum_verified(m, &ip_verified, &udp_verified);
	if (!ip_verified && unlikely(ipv4_hdr20_sum(ip) != 0xffff))
		return false;
	if (udp->dgram_cksum != 0 && !udp_verified &&
	    unlikely(!udp_csum_ok(m, ip, L4, udp->dgram_len)))
		return false;

	/* one segment: trim cannot fail */
	const uint32_t excess = pkt_len - (L4 + udp_len);
	if (unlikely(excess != 0))
		rte_pktmbuf_trim(m, (uint16_t)excess);

	strip_outer(m, INNER, ip, vxh, key, tnl_ofport, true);
	return true;
}

/* What the decap loop does after a good decap (the tnl_pop stage's trusted
 * path extracts the inner key in the same loop). */
enum inner_extract { NO_EXTRACT, EXTRACT_FAST, EXTRACT_GENERIC };

/* One loop for both decaps, so that the choice is made once per batch;
 * keys[kept] is free to overwrite: decap does not read the outer key, and
 * kept <= i. With extract, a good packet whose inner frame is malformed
 * goes to *malformed (after decap, as miniflow_extract_batch would have
 * it). Returns the bytes of every packet decapsulated. */
static inline __rte_always_inline uint64_t
decap_batch(struct pkt_batch *b, struct flow_key keys[], uint32_t tnl_ofport,
	    struct pkt_batch *bad, bool trusted, enum inner_extract extract,
	    struct pkt_batch *malformed, bool *ext)
{
	const uint16_t n = b->n;
	uint16_t kept = 0;
	uint64_t bytes = 0;
	bool any_ext = false;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		struct flow_key *key = &keys[kept];

		/* the outer headers: read back long after extract did */
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(b->pkts[i + 1], void *));
		const bool good = trusted ? decap_one_trusted(m, key, tnl_ofport)
					  : decap_one(m, key, tnl_ofport);
		if (unlikely(!good)) {
			pkt_batch_add(bad, m);
			continue;
		}
		bytes += rte_pktmbuf_pkt_len(m);
		if (extract != NO_EXTRACT) {
			const int rc = extract == EXTRACT_FAST ?
				       miniflow_extract_fast_inline(m, key) :
				       miniflow_extract(m, key);
			if (unlikely(rc != 0)) {
				if (rc < 0) {
					pkt_batch_add(malformed, m);
					continue;
				}
				any_ext = true;		/* MINIFLOW_EXT */
			}
		}
		b->pkts[kept++] = m;
	}
	b->n = kept;
	if (any_ext)
		*ext = true;
	return bytes;
}

uint64_t
vxlan_decap_extract_trusted(struct pkt_batch *b, struct flow_key keys[],
			    uint32_t tnl_ofport, struct pkt_batch *bad,
			    struct pkt_batch *malformed, bool fast, bool *ext)
{
	if (fast)
		return decap_batch(b, keys, tnl_ofport, bad, true,
				   EXTRACT_FAST, malformed, ext);
	return decap_batch(b, keys, tnl_ofport, bad, true, EXTRACT_GENERIC,
			   malformed, ext);
}

uint16_t
vxlan_decap_batch(struct pkt_batch *b, struct flow_key keys[],
		  uint32_t tnl_ofport, struct pkt_batch *bad)
{
	const uint16_t n = b->n;

	decap_batch(b, keys, tnl_ofport, bad, false, NO_EXTRACT, NULL,
		    NULL);
	return (uint16_t)(n - b->n);
}

/* ---- the decap stage ---------------------------------------------------- */

/* The unbatched baseline for A/B runs (batched-tunnel off), as for encap. */
static void
vxlan_decap_each(struct pkt_batch *b, struct flow_key keys[],
		 uint32_t tnl_ofport, struct pkt_batch *bad)
{
	uint16_t kept = 0;

	for (uint16_t i = 0; i < b->n; i++) {
		struct pkt_batch one = { .n = 1, .pkts = { b->pkts[i] } };
		struct flow_key k = keys[i];
		vxlan_decap_batch(&one, &k, tnl_ofport, bad);
		if (one.n) {
			b->pkts[kept] = one.pkts[0];
			flow_key_copy(&keys[kept++], &k);
		}
	}
	b->n = kept;
}

/* The IPv6 underlay's pop: one path whatever the decap options (they are
 * A/B switches of the IPv4 one), every kept key with its third line. */
static void
tnl_pop6(struct dp_ctx *ctx, struct pmd_port_stats *ps, uint32_t ofport,
	 bool zero_csum_ok, bool fast, struct pkt_batch *b,
	 struct flow_key ik[], struct dp_inner *inner)
{
	struct vxlan_decap6_out out;

	pkt_batch_init(&out.bad);
	pkt_batch_init(&out.zero_csum_refused);
	pkt_batch_init(&out.malformed);
	out.zero_csum_accepted = 0;
	ps->rx_bytes += vxlan_decap6_extract(b, ik, ofport, zero_csum_ok, &out,
					     fast);
	if (out.bad.n)
		dp_drop_batch(ctx, &out.bad, DROP_BAD_VXLAN);
	if (out.zero_csum_refused.n)
		dp_drop_batch(ctx, &out.zero_csum_refused,
			      DROP_UDP6_ZERO_CSUM);
	const uint16_t popped = (uint16_t)(b->n + out.malformed.n);
	ctx->stats->tunnel_pops += popped;
	ctx->stats->udp6_zero_csum_rx += out.zero_csum_accepted;
	ps->rx_packets += popped;
	if (out.malformed.n)
		dp_drop_batch(ctx, &out.malformed, DROP_MALFORMED);
	if (b->n)
		inner->ext = true;
	dp_stage_mark(ctx, PMD_STAGE_ACTIONS);
}

/* Hands the inner packets back: the pipeline looks them up in its inner
 * pass (dp_pipeline.c), with no second pass of the PMD loop. */
void
dp_tnl_pop(struct dp_ctx *ctx, const struct megaflow *outer, uint16_t tnl_idx,
	   uint8_t flags, struct pkt_batch *b, const struct flow_key keys[],
	   const uint8_t idx[], struct dp_inner *inner)
{
	struct flow_key *ik = &inner->keys[inner->b.n];
	struct pmd_port_stats *ps = &ctx->port_stats[tnl_idx];
	const uint32_t ofport = ports[tnl_idx]->ofport;
	const bool fast = ctx->opts & DP_OPT_BIT(DP_OPT_FAST_EXTRACT);
	struct pkt_batch bad, malformed;

	pkt_batch_init(&bad);
	pkt_batch_init(&malformed);
	if (unlikely(flags & DP_TNL_POP_IPV6)) {
		tnl_pop6(ctx, ps, ofport, flags & DP_TNL_POP_ZERO_CSUM6, fast,
			 b, ik, inner);
	} else if (likely(ctx->opts & DP_OPT_BIT(DP_OPT_DECAP_TRUST_OUTER) &&
		   ctx->opts & DP_OPT_BIT(DP_OPT_BATCHED_TUNNEL))) {
		/* decap writes every word of the inner keys (no copy of
		 * the outer ones first) and extracts them in the same loop:
		 * its cycles are all the actions stage's */
		ps->rx_bytes += vxlan_decap_extract_trusted(b, ik, ofport, &bad,
							    &malformed, fast,
							    &inner->ext);
		if (bad.n)
			dp_drop_batch(ctx, &bad, DROP_BAD_VXLAN);
		const uint16_t popped = (uint16_t)(b->n + malformed.n);
		ctx->stats->tunnel_pops += popped;
		ps->rx_packets += popped;
		if (malformed.n)
			dp_drop_batch(ctx, &malformed, DROP_MALFORMED);
		dp_stage_mark(ctx, PMD_STAGE_ACTIONS);
	} else {
		for (uint16_t j = 0; j < b->n; j++)
			flow_key_copy(&ik[j], &keys[idx[j]]);
		if (likely(ctx->opts & DP_OPT_BIT(DP_OPT_BATCHED_TUNNEL)))
			vxlan_decap_batch(b, ik, ofport, &bad);
		else
			vxlan_decap_each(b, ik, ofport, &bad);
		if (bad.n)
			dp_drop_batch(ctx, &bad, DROP_BAD_VXLAN);
		ctx->stats->tunnel_pops += b->n;
		ps->rx_packets += b->n;
		for (uint16_t j = 0; j < b->n; j++)
			ps->rx_bytes += rte_pktmbuf_pkt_len(b->pkts[j]);
		dp_stage_mark(ctx, PMD_STAGE_ACTIONS);
		/* strip_outer zeroed w7: only the extract can set ext_line */
		if (miniflow_extract_batch_ext(b, ik, &malformed, fast,
					       &inner->ext))
			dp_drop_batch(ctx, &malformed, DROP_MALFORMED);
		dp_stage_mark(ctx, PMD_STAGE_EXTRACT);
	}
	if (!b->n)
		return;
	if (unlikely(ctx->trace))
		dp_trace_tnl_pop(ctx, b, ik);
	memcpy(&inner->b.pkts[inner->b.n], b->pkts, b->n * sizeof b->pkts[0]);
	inner->b.n += b->n;
	inner->runs[inner->n_runs].end = inner->b.n;
	inner->runs[inner->n_runs++].outer = outer;
	b->n = 0;
}
