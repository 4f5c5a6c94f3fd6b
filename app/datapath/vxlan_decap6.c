/* SPDX-License-Identifier: BSD-3-Clause
 * VXLAN decapsulation over an IPv6 underlay (vxlan_decap.h; the design is
 * doc/design-ipv6-underlay.md, "Decap"). A packet comes here from a
 * tnl_pop megaflow whose outer match proved IPv6, UDP, our VTEP's IPv6
 * address and the tunnel port (xlate_underlay); as for IPv4, everything
 * a remote could get wrong is checked again from the packet itself, so
 * one function serves the trusted path and any other caller.
 *
 * What differs from IPv4:
 *  - the UDP checksum covers the whole datagram and a pseudo-header of
 *    both 128-bit addresses (RFC 8200 section 8.1). A zero checksum is
 *    accepted and counted (udp6_zero_csum_rx), as OVS does in both its
 *    datapaths, or refused (drop udp6_zero_csum) where the port says
 *    udp6zerocsumrx: false, as Linux's VXLAN device does by default: RFC
 *    6936 section 5 lets a configured tunnel port take zero checksums;
 *  - extension headers between IPv6 and UDP (a fragment header among
 *    them) are refused as bad_vxlan: no VTEP we know sends them (OVS
 *    builds none) and a fragment is never reassembled here;
 *  - the key's tunnel addresses are the third line (tun_ipv6_src/dst,
 *    ext_line FLOW_EXT_TUN6), tun_src = tun_dst = 0 as in OVS.
 */
#include <string.h>
#include <rte_branch_prediction.h>
#include <rte_mbuf_ptype.h>
#include <rte_prefetch.h>

#include "csum_chain.h"
#include "miniflow_fast.h"
#include "unaligned.h"
#include "vxlan_decap.h"
#include "vxlan_tnl.h"

#define IPV6_HDR_LEN ((uint32_t)sizeof(struct rte_ipv6_hdr))
#define MIN_UDP_LEN ((uint32_t)(sizeof(struct rte_udp_hdr) + \
				sizeof(struct rte_vxlan_hdr) + RTE_ETHER_HDR_LEN))

/* The UDP checksum over udp_len bytes at l4_off and the IPv6
 * pseudo-header (addresses, the UDP length as 32 bits, next header 17):
 * every term as the CPU loads the wire bytes, like rte_raw_cksum. */
static bool
udp6_csum_ok(const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip6,
	     uint32_t l4_off, uint32_t udp_len)
{
	uint16_t data_sum;

	if (likely(l4_off + udp_len <= rte_pktmbuf_data_len(m)))
		data_sum = rte_raw_cksum(rte_pktmbuf_mtod_offset(m,
					 const void *, l4_off), udp_len);
	else if (!csum_chain(m, l4_off, udp_len, &data_sum))
		return false;

	uint32_t sum = data_sum;
	sum += rte_raw_cksum(ip6->src_addr, 32);	/* both addresses */
	sum += rte_cpu_to_be_16((uint16_t)udp_len);	/* < 2^16 */
	sum += rte_cpu_to_be_16(IPPROTO_UDP);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* The checked packet loses its outer headers; its key becomes the inner
 * lookup's (w2..w5 for the extractor to write, as strip_outer). */
static inline __rte_always_inline void
strip_outer6(struct rte_mbuf *m, uint32_t inner_off,
	     const struct rte_ipv6_hdr *ip6, const struct rte_vxlan_hdr *vxh,
	     struct flow_key *key, uint32_t tnl_ofport)
{
	const uint32_t vni = rte_be_to_cpu_32(vxh->vx_vni) >> 8;

	memcpy(key->line3, ip6->src_addr, 32);		/* src, dst */
	memset(&key->line3[4], 0, 4 * sizeof key->line3[0]);
	rte_pktmbuf_adj(m, (uint16_t)inner_off);
	m->ol_flags &= ~VXLAN_STALE_RX_FLAGS;
	m->packet_type = RTE_PTYPE_UNKNOWN;

	key->in_port = (uint16_t)tnl_ofport;
	key->ct_label_bits = 0;
	key->tun_id = vni;
	key->w[1] = 0;				/* tun_src, tun_dst */
	memset(&key->w[2], 0, (FLOW_KEY_LINE_WORDS - 2) * sizeof key->w[0]);
	key->ext_line = FLOW_EXT_TUN6;
}

enum vxlan_decap6_verdict
vxlan_decap6_pkt(struct rte_mbuf *m, struct flow_key *key,
		 uint32_t tnl_ofport, bool zero_csum_ok)
{
	const uint32_t seg_len = rte_pktmbuf_data_len(m);
	const uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	enum vxlan_decap6_verdict ok = VXLAN_DECAP6_OK;

	if (unlikely(seg_len < VXLAN6_DECAP_MIN_LEN))
		return VXLAN_DECAP6_BAD;
	uint32_t l3_off = RTE_ETHER_HDR_LEN;
	rte_be16_t eth_type = load_be16(frame + l3_off - 2);
	if (eth_type == RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
	    eth_type == RTE_BE16(RTE_ETHER_TYPE_QINQ)) {
		l3_off += sizeof(struct rte_vlan_hdr);
		eth_type = load_be16(frame + l3_off - 2);
	}
	const struct rte_ipv6_hdr *ip6 =
		(const struct rte_ipv6_hdr *)(frame + l3_off);
	const uint32_t l4_off = l3_off + IPV6_HDR_LEN;
	const uint32_t inner_off = l4_off + sizeof(struct rte_udp_hdr) +
				   sizeof(struct rte_vxlan_hdr);
	/* the headers and the inner Ethernet header in the first segment
	 * (adj strips from there); next header UDP directly */
	if (unlikely(eth_type != RTE_BE16(RTE_ETHER_TYPE_IPV6) ||
		     seg_len < inner_off + RTE_ETHER_HDR_LEN ||
		     (frame[l3_off] >> 4) != 6 || ip6->proto != IPPROTO_UDP))
		return VXLAN_DECAP6_BAD;

	const struct rte_udp_hdr *udp =
		(const struct rte_udp_hdr *)(frame + l4_off);
	const uint32_t payload_len = rte_be_to_cpu_16(ip6->payload_len);
	const uint32_t udp_len = rte_be_to_cpu_16(udp->dgram_len);
	if (unlikely(udp_len < MIN_UDP_LEN || udp_len > payload_len ||
		     l4_off + payload_len > pkt_len))
		return VXLAN_DECAP6_BAD;
	const struct rte_vxlan_hdr *vxh =
		(const struct rte_vxlan_hdr *)(frame + l4_off +
					       sizeof(struct rte_udp_hdr));
	if (unlikely(vxh->vx_flags != RTE_BE32(VXLAN_FLAGS_WORD)))
		return VXLAN_DECAP6_BAD;

	/* the checksum last, as for IPv4: the one check that costs */
	if (udp->dgram_cksum == 0) {
		if (!zero_csum_ok)
			return VXLAN_DECAP6_ZERO_CSUM_REFUSED;
		ok = VXLAN_DECAP6_OK_ZERO_CSUM;
	} else {
		bool ip_verified, udp_verified;	/* IPv6 has no header sum */

		vxlan_outer_csum_verified(m, &ip_verified, &udp_verified);
		if (!udp_verified &&
		    unlikely(!udp6_csum_ok(m, ip6, l4_off, udp_len)))
			return VXLAN_DECAP6_BAD;
	}

	/* bytes past the datagram are not the inner frame's */
	const uint32_t excess = pkt_len - (l4_off + udp_len);
	if (unlikely(excess != 0) &&
	    (excess > UINT16_MAX || rte_pktmbuf_trim(m, (uint16_t)excess) < 0))
		return VXLAN_DECAP6_BAD;

	strip_outer6(m, inner_off, ip6, vxh, key, tnl_ofport);
	return ok;
}

uint64_t
vxlan_decap6_extract(struct pkt_batch *b, struct flow_key keys[],
		     uint32_t tnl_ofport, bool zero_csum_ok,
		     struct vxlan_decap6_out *out, bool fast)
{
	const uint16_t n = b->n;
	uint16_t kept = 0;
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		struct flow_key *key = &keys[kept];

		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(b->pkts[i + 1], void *));
		switch (vxlan_decap6_pkt(m, key, tnl_ofport, zero_csum_ok)) {
		case VXLAN_DECAP6_BAD:
			pkt_batch_add(&out->bad, m);
			continue;
		case VXLAN_DECAP6_ZERO_CSUM_REFUSED:
			pkt_batch_add(&out->zero_csum_refused, m);
			continue;
		case VXLAN_DECAP6_OK_ZERO_CSUM:
			out->zero_csum_accepted++;
			break;
		case VXLAN_DECAP6_OK:
			break;
		}
		bytes += rte_pktmbuf_pkt_len(m);
		/* the extract keeps ext_line's FLOW_EXT_TUN6 (miniflow.h) */
		const int rc = fast ? miniflow_extract_fast_inline(m, key)
				    : miniflow_extract(m, key);
		if (unlikely(rc < 0)) {
			pkt_batch_add(&out->malformed, m);
			continue;
		}
		b->pkts[kept++] = m;
	}
	b->n = kept;
	return bytes;
}
