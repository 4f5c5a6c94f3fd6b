/* SPDX-License-Identifier: BSD-3-Clause
 * The VXLAN outer header as this switch writes it (RFC 7348 over IPv4 or
 * IPv6), and the per-tunnel template that encap copies in front of every
 * packet.
 *
 * The template is built once, when the slow path translates a flow, so the
 * per-packet work in vxlan_encap.c is a fixed-size copy plus the handful of
 * fields that depend on the packet (lengths, IPv4 id and checksum, UDP
 * source port; over IPv6 the UDP checksum). Decap (vxlan_decap.c) reads
 * whatever a remote VTEP sent, so it shares only the wire constants
 * below, not the template.
 */
#ifndef VXS_VXLAN_TNL_H
#define VXS_VXLAN_TNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include <rte_vxlan.h>
#include "dp_actions.h"

/* Where each header sits in the template (and so in an encapsulated
 * packet): no VLAN tag and no IP options on the way out. */
#define VXLAN_TNL_IP_OFF	RTE_ETHER_HDR_LEN
#define VXLAN_TNL_UDP_OFF	(VXLAN_TNL_IP_OFF + (int)sizeof(struct rte_ipv4_hdr))
#define VXLAN_TNL_VXLAN_OFF	(VXLAN_TNL_UDP_OFF + (int)sizeof(struct rte_udp_hdr))

_Static_assert(VXLAN_TNL_VXLAN_OFF + sizeof(struct rte_vxlan_hdr) ==
	       VXLAN_TNL_HDR_LEN, "template is eth + ipv4 + udp + vxlan");

/* The same over an IPv6 underlay (no extension headers). */
#define VXLAN_TNL6_IP_OFF	RTE_ETHER_HDR_LEN
#define VXLAN_TNL6_UDP_OFF	(VXLAN_TNL6_IP_OFF + (int)sizeof(struct rte_ipv6_hdr))
#define VXLAN_TNL6_VXLAN_OFF	(VXLAN_TNL6_UDP_OFF + (int)sizeof(struct rte_udp_hdr))

_Static_assert(VXLAN_TNL6_VXLAN_OFF + sizeof(struct rte_vxlan_hdr) ==
	       VXLAN_TNL6_HDR_LEN, "template is eth + ipv6 + udp + vxlan");

/* The first word of the VXLAN header: the I flag ("VNI is valid") and
 * nothing else; the three bytes after the flags are reserved (zero). */
#define VXLAN_FLAG_I		0x08
#define VXLAN_FLAGS_WORD	((uint32_t)VXLAN_FLAG_I << 24)

#define VXLAN_VNI_MAX		0xffffffu

/* UDP source ports come from the inner flow hash, in the IANA dynamic range
 * as RFC 7348 section 5 recommends (Linux's udp_flow_src_port uses
 * ip_local_port_range unless told: 32768-60999), so a receiving NIC's RSS
 * spreads the flows of one tunnel over its queues. */
#define VXLAN_SRC_PORT_MIN	49152u
#define VXLAN_SRC_PORT_MASK	0x3fffu

static inline uint16_t
vxlan_udp_src_port(uint32_t inner_hash)
{
	return (uint16_t)(VXLAN_SRC_PORT_MIN | (inner_hash & VXLAN_SRC_PORT_MASK));
}

/* RX offload results that describe headers a tunnel stage has just added or
 * removed. Both encap and decap clear them (and the packet type) so nothing
 * downstream trusts a checksum verdict or a stripped VLAN tag that belongs to
 * another header. The RSS hash and flow director marks stay: they are still
 * a stable per-flow value, which is all anyone uses them for. */
#define VXLAN_STALE_RX_FLAGS						\
	(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK |	\
	 RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD |				\
	 RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK |				\
	 RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED |		\
	 RTE_MBUF_F_RX_QINQ | RTE_MBUF_F_RX_QINQ_STRIPPED)

/* TX offload requests that describe other headers than the outer ones:
 * cleared where encap asks the NIC for the outer UDP checksum. */
#define VXLAN_STALE_TX_FLAGS						\
	(RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 |	\
	 RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_SEG |		\
	 RTE_MBUF_F_TX_UDP_SEG | RTE_MBUF_F_TX_TUNNEL_MASK |		\
	 RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IPV6 |		\
	 RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM)

/* Fills t with the outer headers for one tunnel over IPv4. Addresses and
 * ports as on the wire (src_ip, dst_ip network order) except dst_port,
 * host order. vni must be at most VXLAN_VNI_MAX (higher bits are
 * dropped). The IPv4 total length, id and checksum and the UDP source port
 * and length are left zero for encap to fill; csum_partial is the
 * checksum sum over the rest; max_inner is VXLAN_ENCAP_MAX_INNER_LEN (no
 * port's limit yet). */
void vxlan_tnl_template_build(struct vxlan_tnl_template *t,
			      const struct rte_ether_addr *src_mac,
			      const struct rte_ether_addr *dst_mac,
			      rte_be32_t src_ip, rte_be32_t dst_ip,
			      uint32_t vni, uint16_t dst_port,
			      uint8_t ttl, bool df);

struct flow_in6_addr;		/* flow_key.h */

/* Fills t with the outer headers for one tunnel over IPv6, as OVS writes
 * them (netdev_tnl_ip_build_header, udp_build_header): version 6, traffic
 * class tclass, flow label 0, next header UDP, hop limit hop_limit
 * (xlate: 64 and 0, as the IPv4 TTL and TOS), the UDP checksum field
 * 0xffff (computed per packet). Other arguments as
 * vxlan_tnl_template_build. payload_len, the UDP source port and length
 * are left zero for encap; csum_partial is the UDP checksum's constant
 * part (dp_actions.h); max_inner is VXLAN6_ENCAP_MAX_INNER_LEN. */
void vxlan_tnl_template_build6(struct vxlan_tnl_template *t,
			       const struct rte_ether_addr *src_mac,
			       const struct rte_ether_addr *dst_mac,
			       const struct flow_in6_addr *src,
			       const struct flow_in6_addr *dst,
			       uint32_t vni, uint16_t dst_port,
			       uint8_t hop_limit, uint8_t tclass);

/* The outer header's length: VXLAN_TNL_HDR_LEN or VXLAN_TNL6_HDR_LEN. */
static inline uint16_t
vxlan_tnl_hdr_len(const struct vxlan_tnl_template *t)
{
	return t->family == VXLAN_TNL_IPV6 ? VXLAN_TNL6_HDR_LEN :
					     VXLAN_TNL_HDR_LEN;
}

/* IPv6 template t's pseudo-header sum without its length, unfolded: the
 * addresses and the next header (UDP), in __rte_raw_cksum's order. */
static inline uint32_t
vxlan_tnl_phdr6_base(const struct vxlan_tnl_template *t)
{
	const struct rte_ipv6_hdr *ip =
		(const struct rte_ipv6_hdr *)(t->hdr + VXLAN_TNL6_IP_OFF);

	return __rte_raw_cksum(ip->src_addr, 32, 0) +
	       rte_cpu_to_be_16(IPPROTO_UDP);
}

/* The longest inner frame t may carry out of a port whose longest frame
 * is max_frame (port.h: tx_max_frame; UINT32_MAX: no limit): sets
 * t->max_inner (max_frame less t's header), never above
 * VXLAN_ENCAP_MAX_INNER_LEN (IPv4) or VXLAN6_ENCAP_MAX_INNER_LEN. The
 * template builders leave it at that bound; xlate sets it from the
 * tunnel's egress port. */
void vxlan_tnl_template_set_max_frame(struct vxlan_tnl_template *t,
				      uint32_t max_frame);

/* Writes t in the form of OVS's tnl_push action (ovs-appctl dpctl/dump-flows)
 * into buf, always NUL-terminated when len > 0. Returns what snprintf does:
 * the length the full text needs, so a return >= len means it was cut. */
int vxlan_tnl_template_format(const struct vxlan_tnl_template *t,
			      char *buf, size_t len);

#endif
