/* SPDX-License-Identifier: BSD-3-Clause
 * VXLAN encapsulation of a batch: the DP_ACT_TNL_PUSH stage.
 */
#ifndef VXS_VXLAN_ENCAP_H
#define VXS_VXLAN_ENCAP_H

#include <stdint.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include "dp_actions.h"
#include "pkt_batch.h"

/* VXLAN_ENCAP_MAX_INNER_LEN, the largest inner frame whose outer IPv4
 * total length still fits 16 bits, and VXLAN6_ENCAP_MAX_INNER_LEN, whose
 * IPv6 payload_len does: dp_actions.h, beside the template whose
 * max_inner they bound. */

/* Prepends t to every packet of b and fills in the per-packet fields.
 * IPv4 template: total length, id ((*ip_id)++, so consecutive packets of
 * a tunnel get consecutive ids whatever DF says) and header checksum, UDP
 * length and source port (from hashes[i], the inner flow hash), UDP
 * checksum 0. IPv6 template: payload_len, UDP length and source port (the
 * same port), and the UDP checksum over the pseudo-header and the whole
 * datagram, a computed 0 sent as 0xffff; *ip_id is not used.
 *
 * A packet with less headroom than t's header (VXLAN_TNL_HDR_LEN or
 * VXLAN_TNL6_HDR_LEN), or longer than t->max_inner (at most
 * VXLAN_ENCAP_MAX_INNER_LEN or VXLAN6_ENCAP_MAX_INNER_LEN; the encap stage,
 * dp_tnl_push, sends those to dp_pmtud.h instead), is moved untouched to
 * the end of *dropped
 * (which must have room for b->n more) and b is compacted, order kept;
 * hashes[] is compacted with it so it stays indexed like b->pkts[].
 *
 * Any TX offload request already on a packet (l2_len/l3_len, checksum or
 * TSO flags, e.g. from a vhost guest) still describes the inner headers and
 * is not rewritten into tunnel offloads: resolve it before encap. (The
 * encap stage, dp_tnl_push, with tx-csum-offload over an IPv6 underlay,
 * replaces them with the outer UDP checksum's request.)
 *
 * Returns the number of packets moved to *dropped. */
uint16_t vxlan_encap_batch(struct pkt_batch *b,
			   const struct vxlan_tnl_template *t,
			   uint32_t hashes[], uint16_t *ip_id,
			   struct pkt_batch *dropped);

/* The outer IPv4 header checksum (network order, ready to store) of a
 * packet of template t with the given total length and id (host order):
 * one incremental update of the template's partial sum. */
static inline rte_be16_t
vxlan_encap_ip_csum(const struct vxlan_tnl_template *t, uint16_t total_len,
		    uint16_t ip_id)
{
	/* At most three 16-bit terms: two folds always absorb the carries. */
	uint32_t sum = (uint32_t)t->csum_partial + total_len + ip_id;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return rte_cpu_to_be_16((uint16_t)~sum);
}

/* The outer UDP checksum (network order, ready to store) of a packet of
 * IPv6 template t: udp_len and src_port as stored (network order), and
 * inner_sum, the inner frame's unfolded __rte_raw_cksum. udp_len counts
 * twice: in the pseudo-header and in the UDP header. A computed 0 is sent
 * as 0xffff (RFC 768; 0 would mean "no checksum", which IPv6 forbids). */
static inline rte_be16_t
vxlan_encap_udp6_csum(const struct vxlan_tnl_template *t, rte_be16_t udp_len,
		      rte_be16_t src_port, uint32_t inner_sum)
{
	/* inner_sum < 2^31 for 64 KB: these terms cannot overflow 32 bits */
	uint32_t sum = (uint32_t)t->csum_partial + 2u * udp_len + src_port +
		       inner_sum;
	uint16_t csum = (uint16_t)~__rte_raw_cksum_reduce(sum);

	return csum ? csum : RTE_BE16(0xffff);
}

/* The pseudo-header checksum of a packet of an IPv6 template, whose
 * vxlan_tnl_phdr6_base is base, with this UDP length (as stored): folded,
 * not complemented, what RTE_MBUF_F_TX_UDP_CKSUM wants in the field
 * (rte_ipv6_phdr_cksum's value) for the NIC to finish. */
static inline rte_be16_t
vxlan_encap_udp6_phdr(uint32_t base, rte_be16_t udp_len)
{
	return (rte_be16_t)__rte_raw_cksum_reduce(base + udp_len);
}

#endif
