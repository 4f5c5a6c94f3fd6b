/* SPDX-License-Identifier: BSD-3-Clause
 * VXLAN encapsulation (see vxlan_encap.h). Everything that is the same for
 * the whole tunnel was decided when the template was built; what is left
 * per packet is a constant-size copy and a few stores, with no branch on
 * the tunnel's settings (DF, TTL, ...); over IPv6, also the UDP checksum,
 * whose inner-frame sum is the only per-packet work that grows with the
 * packet. The underlay's family is the template's, so it is decided once
 * per batch.
 *
 * The encap stage (dp_tnl_push, at the end) runs it on a megaflow's batch
 * and counts what went into the tunnel; what the underlay's MTU cannot
 * carry goes to path MTU discovery (dp_pmtud.c) instead.
 */
#include <string.h>
#include <rte_branch_prediction.h>
#include <rte_mbuf_ptype.h>

#include "dp_pmtud.h"
#include "dp_snapshot.h"
#include "csum_chain.h"
#include "dp_stages.h"
#include "vxlan_encap.h"
#include "vxlan_tnl.h"

/* Outer IPv4 total length minus the inner frame's length. */
#define OUTER_IP_OVERHEAD (VXLAN_TNL_HDR_LEN - RTE_ETHER_HDR_LEN)
/* Outer UDP length (and IPv6 payload_len) minus the inner frame's. */
#define OUTER_UDP6_OVERHEAD (VXLAN_TNL6_HDR_LEN - VXLAN_TNL6_UDP_OFF)

/* The IPv6 per-packet fields of m, whose template t (family 6) has just
 * been copied in front of its inner_len-byte inner frame: payload_len and
 * UDP length (the same: no extension headers), source port, and the UDP
 * checksum over the pseudo-header and the whole datagram, mandatory over
 * IPv6 (RFC 8200 section 8.1) and always sent by OVS there. The inner
 * frame is summed here, per packet; the rest is the template's
 * csum_partial. */
static inline __rte_always_inline void
encap6_fields(struct rte_mbuf *m, uint8_t *hdr,
	      const struct vxlan_tnl_template *t, uint32_t inner_len,
	      uint32_t hash, const bool hw, uint32_t phdr_base)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(hdr +
							  VXLAN_TNL6_IP_OFF);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(hdr +
							 VXLAN_TNL6_UDP_OFF);
	const rte_be16_t len = rte_cpu_to_be_16((uint16_t)(inner_len +
							   OUTER_UDP6_OVERHEAD));
	const rte_be16_t sport = rte_cpu_to_be_16(vxlan_udp_src_port(hash));
	uint32_t inner_sum;

	ip->payload_len = len;
	udp->dgram_len = len;
	udp->src_port = sport;
	if (hw) {
		/* The NIC sums the datagram from l2_len + l3_len on, over
		 * the pseudo-header's sum in the checksum field (what
		 * rte_ipv6_phdr_cksum gives; DPDK's contract for
		 * RTE_MBUF_F_TX_UDP_CKSUM). Plain L4 flags, no tunnel ones:
		 * the outer header is all the NIC needs to know, and ice
		 * keeps its vector TX path for them. l4_len for PMDs that
		 * copy the headers (net_tap). */
		m->l2_len = RTE_ETHER_HDR_LEN;
		m->l3_len = sizeof(struct rte_ipv6_hdr);
		m->l4_len = sizeof(struct rte_udp_hdr);
		m->ol_flags = (m->ol_flags & ~VXLAN_STALE_TX_FLAGS) |
			      RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
		udp->dgram_cksum = vxlan_encap_udp6_phdr(phdr_base, len);
		return;
	}
	/* The inner frame starts 16 bytes into the datagram, an even
	 * offset: its own word sum is its share of the datagram's. */
	if (likely(m->nb_segs == 1)) {
		inner_sum = __rte_raw_cksum(hdr + VXLAN_TNL6_HDR_LEN,
					    inner_len, 0);
	} else {
		uint16_t folded;

		/* the chain holds the inner frame: it cannot be short */
		csum_chain(m, VXLAN_TNL6_HDR_LEN, inner_len, &folded);
		inner_sum = folded;
	}
	udp->dgram_cksum = vxlan_encap_udp6_csum(t, len, sport, inner_sum);
}

/* The loop of vxlan_encap_batch, for templates of one family: v6, a
 * compile-time constant, picks the IPv6 fields, so the IPv4 loop is what
 * it was before IPv6 templates existed. idx: NULL (hashes[i] is
 * b->pkts[i]'s), or the packets' positions in hashes[] (the encap stage
 * passes the lookup pass's hashes and its group's positions, which saves
 * gathering them first). kept_hashes: NULL, or where the kept packets'
 * hashes go, in step with b. Packets longer than t->max_inner go to
 * *over (which may be dropped), with their positions in over_at[] (NULL:
 * not kept). Returns the inner bytes of the packets encapsulated (the
 * tunnel port's tx_bytes). */
static inline __rte_always_inline uint64_t
encap_loop(struct pkt_batch *b, const struct vxlan_tnl_template *t,
	   const uint32_t hashes[], const uint8_t idx[],
	   uint32_t kept_hashes[], uint16_t *ip_id, struct pkt_batch *dropped,
	   struct pkt_batch *over, uint8_t over_at[], const bool v6,
	   const bool hw)
{
	const uint16_t hdr_len = v6 ? VXLAN_TNL6_HDR_LEN : VXLAN_TNL_HDR_LEN;
	/* hw: the template's pseudo-header less its length, once a batch */
	const uint32_t phdr_base = v6 && hw ? vxlan_tnl_phdr6_base(t) : 0;
	const uint16_t n = b->n;
	uint16_t kept = 0;
	uint16_t id = *ip_id;
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		const uint32_t inner_len = rte_pktmbuf_pkt_len(m);
		const uint32_t hash = hashes[idx ? idx[i] : i];

		/* max_inner: the underlay's MTU (or the 64 KB bound) */
		if (unlikely(inner_len > t->max_inner ||
			     rte_pktmbuf_headroom(m) < hdr_len)) {
			if (inner_len <= t->max_inner) {
				pkt_batch_add(dropped, m);
				continue;
			}
			if (over_at)
				over_at[over->n] = idx ? idx[i] : (uint8_t)i;
			pkt_batch_add(over, m);
			continue;
		}

		/* rte_pktmbuf_prepend without its headroom check: made
		 * above, where a packet that fails it is dropped */
		m->data_off = (uint16_t)(m->data_off - hdr_len);
		m->data_len = (uint16_t)(m->data_len + hdr_len);
		m->pkt_len = inner_len + hdr_len;
		uint8_t *hdr = rte_pktmbuf_mtod(m, uint8_t *);
		/* A compile-time length: the compiler emits a few vector
		 * moves, no call and no length loop. */
		memcpy(hdr, t->hdr, hdr_len);

		if (v6) {
			encap6_fields(m, hdr, t, inner_len, hash, hw,
				      phdr_base);
		} else {
			struct rte_ipv4_hdr *ip =
				(struct rte_ipv4_hdr *)(hdr + VXLAN_TNL_IP_OFF);
			struct rte_udp_hdr *udp =
				(struct rte_udp_hdr *)(hdr + VXLAN_TNL_UDP_OFF);
			const uint16_t ip_len =
				(uint16_t)(inner_len + OUTER_IP_OVERHEAD);

			ip->total_length = rte_cpu_to_be_16(ip_len);
			ip->packet_id = rte_cpu_to_be_16(id);
			ip->hdr_checksum = vxlan_encap_ip_csum(t, ip_len, id);
			id++;

			udp->src_port =
				rte_cpu_to_be_16(vxlan_udp_src_port(hash));
			udp->dgram_len = rte_cpu_to_be_16((uint16_t)(ip_len -
						sizeof(struct rte_ipv4_hdr)));
			/* dgram_cksum stays 0 from the template: optional
			 * for UDP over IPv4 (RFC 7348 section 5). Linux
			 * VTEPs accept it; they send a checksum by default
			 * (vxlan "udpcsum"). */
		}

		m->ol_flags &= ~VXLAN_STALE_RX_FLAGS;
		m->packet_type = RTE_PTYPE_UNKNOWN;

		bytes += inner_len;
		b->pkts[kept] = m;
		if (kept_hashes)
			kept_hashes[kept] = hash;
		kept++;
	}

	*ip_id = id;
	b->n = kept;
	return bytes;
}

/* encap_loop for t's family: one branch per batch, not per packet. hw:
 * the underlay's NIC sums IPv6 outer UDP checksums (dp_tnl_push). */
static inline __rte_always_inline uint64_t
encap_family(struct pkt_batch *b, const struct vxlan_tnl_template *t,
	     const uint32_t hashes[], const uint8_t idx[],
	     uint32_t kept_hashes[], uint16_t *ip_id,
	     struct pkt_batch *dropped, struct pkt_batch *over,
	     uint8_t over_at[], bool hw)
{
	if (unlikely(t->family == VXLAN_TNL_IPV6))
		return hw ? encap_loop(b, t, hashes, idx, kept_hashes, ip_id,
				       dropped, over, over_at, true, true)
			  : encap_loop(b, t, hashes, idx, kept_hashes, ip_id,
				       dropped, over, over_at, true, false);
	return encap_loop(b, t, hashes, idx, kept_hashes, ip_id, dropped,
			  over, over_at, false, false);
}

uint16_t
vxlan_encap_batch(struct pkt_batch *b, const struct vxlan_tnl_template *t,
		  uint32_t hashes[], uint16_t *ip_id, struct pkt_batch *dropped)
{
	const uint16_t n = b->n;

	encap_family(b, t, hashes, NULL, hashes, ip_id, dropped, dropped,
		     NULL, false);
	return (uint16_t)(n - b->n);
}

/* ---- the encap stage ---------------------------------------------------- */

/* The unbatched baseline for A/B runs (batched-tunnel off): the same
 * stage called one packet at a time, as a per-packet datapath would. */
static void
vxlan_encap_each(struct pkt_batch *b, const struct vxlan_tnl_template *t,
		 const uint32_t hashes[], const uint8_t idx[], uint16_t *ip_id,
		 struct pkt_batch *dropped, struct pkt_batch *over,
		 uint8_t over_at[], bool hw)
{
	uint16_t kept = 0;

	for (uint16_t i = 0; i < b->n; i++) {
		struct pkt_batch one = { .n = 1, .pkts = { b->pkts[i] } };
		uint32_t h = hashes[idx[i]];
		uint16_t n_over = over->n;

		encap_family(&one, t, &h, NULL, NULL, ip_id, dropped, over,
			     NULL, hw);
		if (one.n)
			b->pkts[kept++] = one.pkts[0];
		else if (over->n != n_over)
			over_at[n_over] = idx[i];
	}
	b->n = kept;
}

void
dp_tnl_push(struct dp_ctx *ctx, const struct vxlan_tnl_template *t,
	    struct pkt_batch *b, const struct flow_key keys[],
	    const uint32_t hashes[], const uint8_t idx[])
{
	struct pkt_batch dropped, over;
	uint8_t over_at[BATCH_MAX];
	uint64_t inner_bytes;

	pkt_batch_init(&dropped);
	pkt_batch_init(&over);
	/* a tnl_push's packets go to the underlay port (xlate): its NIC */
	const bool hw = ctx->snap->underlay_tx_udp_csum &&
			(ctx->opts & DP_OPT_BIT(DP_OPT_TX_CSUM_OFFLOAD));
	if (likely(ctx->opts & DP_OPT_BIT(DP_OPT_BATCHED_TUNNEL))) {
		inner_bytes = encap_family(b, t, hashes, idx, NULL,
					   &ctx->ip_id, &dropped, &over,
					   over_at, hw);
	} else {
		vxlan_encap_each(b, t, hashes, idx, &ctx->ip_id, &dropped,
				 &over, over_at, hw);
		inner_bytes = 0;
		for (uint16_t j = 0; j < b->n; j++)
			inner_bytes += rte_pktmbuf_pkt_len(b->pkts[j]) -
				       vxlan_tnl_hdr_len(t);
	}
	if (unlikely(ctx->trace))
		dp_trace_tnl_push(ctx, b);
	ctx->stats->tunnel_pushes += b->n;
	if (hw && t->family == VXLAN_TNL_IPV6)
		ctx->stats->udp6_csum_offloaded += b->n;
	/* The tunnel port's own counters, as OVS shows them for a vxlan
	 * vport: packets that went into the tunnel. */
	struct pmd_port_stats *ts = &ctx->port_stats[ctx->snap->tnl_idx];
	ts->tx_packets += b->n;
	ts->tx_bytes += inner_bytes;
	if (dropped.n)
		dp_drop_batch(ctx, &dropped, DROP_NO_HEADROOM);
	/* too long for the underlay: never encapsulated (dp_pmtud.h) */
	if (unlikely(over.n))
		dp_pmtud(ctx, t->max_inner, &over, keys, over_at);
}
