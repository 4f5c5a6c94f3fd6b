/* SPDX-License-Identifier: BSD-3-Clause
 * Miniflow extract (see miniflow.h). Runs once per received packet, so it
 * reads the headers through one contiguous pointer and keeps the checks to
 * a handful of combined comparisons per layer.
 */
#include "miniflow.h"
#include "unaligned.h"

#include <netinet/in.h>
#include <string.h>
#include <rte_arp.h>
#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>

#define ETH_HLEN RTE_ETHER_HDR_LEN
#define ETH_TYPE_MIN 0x0600	/* below: an 802.3 length, not a type */
#define VLAN_HLEN 4
#define IPV4_MIN_HLEN 20
#define IPV4_MAX_HLEN 60
#define TCP_MIN_HLEN 20
#define UDP_HLEN 8
#define ICMP_MIN_HLEN 4
#define ARP_FIXED_HLEN 8	/* htype ptype hlen plen op */
#define ARP_ETH_IPV4_LEN 28

#define IPV4_MF 0x2000
#define IPV4_OFFSET_MASK 0x1fff
#define NW_TOS_DSCP_MASK 0xfc	/* OVS's nw_tos drops the ECN bits */

/* The deepest header byte ever read: one VLAN tag (a second one stops
 * parsing), IPv4 with full options, then a TCP header. Every read is also
 * checked against pkt_len, so a buffer of min(pkt_len, MF_HDR_MAX) bytes
 * covers everything the parsers below can touch. */
#define MF_HDR_MAX 128u
_Static_assert(ETH_HLEN + VLAN_HLEN + IPV4_MAX_HLEN + TCP_MIN_HLEN
		       <= MF_HDR_MAX, "header buffer too small");
_Static_assert(ETH_HLEN + VLAN_HLEN + ARP_ETH_IPV4_LEN <= MF_HDR_MAX,
	       "header buffer too small for ARP");

static inline int
is_vlan_tpid(rte_be16_t type)
{
	return (type == RTE_BE16(RTE_ETHER_TYPE_VLAN)) |
	       (type == RTE_BE16(RTE_ETHER_TYPE_QINQ));
}

/* l4 points at len bytes of IP payload (as the IPv4 total length says). */
static inline int
parse_l4(const uint8_t *l4, uint32_t len, uint8_t proto,
	 struct flow_key *key)
{
	switch (proto) {
	case IPPROTO_TCP: {
		if (unlikely(len < TCP_MIN_HLEN))
			return -1;
		uint32_t doff = (uint32_t)(l4[12] >> 4) * 4;
		if (unlikely((doff < TCP_MIN_HLEN) | (doff > len)))
			return -1;
		key->tp_src = load_be16(l4);
		key->tp_dst = load_be16(l4 + 2);
		return 0;
	}
	case IPPROTO_UDP:
		if (unlikely(len < UDP_HLEN))
			return -1;
		key->tp_src = load_be16(l4);
		key->tp_dst = load_be16(l4 + 2);
		return 0;
	case IPPROTO_ICMP:
		if (unlikely(len < ICMP_MIN_HLEN))
			return -1;
		key->tp_src = rte_cpu_to_be_16(l4[0]);	/* type */
		key->tp_dst = rte_cpu_to_be_16(l4[1]);	/* code */
		return 0;
	default:
		return 0;
	}
}

/* ip points at the L3 header; len is what pkt_len leaves after L2. */
static inline int
parse_ipv4(const uint8_t *ip, uint32_t len, struct flow_key *key)
{
	if (unlikely(len < IPV4_MIN_HLEN))
		return -1;

	uint32_t version = ip[0] >> 4;
	uint32_t hlen = (uint32_t)(ip[0] & 0x0f) * 4;
	uint32_t total = rte_be_to_cpu_16(load_be16(ip + 2));
	/* hlen <= total <= len also bounds the header by what we have;
	 * anything after total is link padding and is ignored. */
	if (unlikely((version != 4) | (hlen < IPV4_MIN_HLEN) | (total < hlen) |
		     (total > len)))
		return -1;

	uint32_t frag = rte_be_to_cpu_16(load_be16(ip + 6));
	uint32_t later = (frag & IPV4_OFFSET_MASK) != 0;
	uint32_t any = later | ((frag & IPV4_MF) != 0);

	key->nw_src = load_be32(ip + 12);
	key->nw_dst = load_be32(ip + 16);
	key->nw_proto = ip[9];
	key->nw_tos = ip[1] & NW_TOS_DSCP_MASK;
	key->nw_ttl = ip[8];
	key->nw_frag = (uint8_t)((any * FLOW_NW_FRAG_ANY) |
				 (later * FLOW_NW_FRAG_LATER));

	/* Only the first fragment carries the L4 header. */
	if (later)
		return 0;
	return parse_l4(ip + hlen, total - hlen, ip[9], key);
}

/* Ethernet/IPv4 ARP only; other hardware or protocol types are legal ARP
 * that we do not match on, so they keep zero fields. */
static inline int
parse_arp(const uint8_t *arp, uint32_t len, struct flow_key *key)
{
	if (unlikely(len < ARP_FIXED_HLEN))
		return -1;
	if ((load_be16(arp) != RTE_BE16(RTE_ARP_HRD_ETHER)) |
	    (load_be16(arp + 2) != RTE_BE16(RTE_ETHER_TYPE_IPV4)) |
	    (arp[4] != RTE_ETHER_ADDR_LEN) | (arp[5] != 4))
		return 0;
	if (unlikely(len < ARP_ETH_IPV4_LEN))
		return -1;

	key->nw_proto = arp[7];			/* low byte of the opcode */
	key->nw_src = load_be32(arp + 14);	/* spa */
	key->nw_dst = load_be32(arp + 24);	/* tpa */
	return 0;
}

int
miniflow_extract(const struct rte_mbuf *m, struct flow_key *key)
{
	uint8_t buf[MF_HDR_MAX];
	uint32_t pkt_len = rte_pktmbuf_pkt_len(m);

	key->w[2] = 0;
	key->w[3] = 0;
	key->w[4] = 0;
	key->w[5] = 0;

	if (unlikely(pkt_len < ETH_HLEN))
		return -1;

	/* A pointer into the first segment, or a copy when the headers
	 * straddle segments. */
	const uint8_t *p = rte_pktmbuf_read(m, 0, RTE_MIN(pkt_len, MF_HDR_MAX),
					    buf);
	if (unlikely(p == NULL))
		return -1;

	memcpy(&key->dl_dst, p, RTE_ETHER_ADDR_LEN);
	memcpy(&key->dl_src, p + RTE_ETHER_ADDR_LEN, RTE_ETHER_ADDR_LEN);

	uint32_t l2_len = ETH_HLEN;
	rte_be16_t type = load_be16(p + 12);
	if (is_vlan_tpid(type)) {
		if (unlikely(pkt_len < ETH_HLEN + VLAN_HLEN))
			return -1;
		key->vlan_tci = load_be16(p + ETH_HLEN) |
				RTE_BE16(FLOW_VLAN_CFI);
		type = load_be16(p + ETH_HLEN + 2);
		l2_len += VLAN_HLEN;
		/* QinQ: the key has room for one tci, so a second tag's TPID
		 * becomes dl_type and, being neither IPv4 nor ARP, ends the
		 * parse below. */
	}

	if (unlikely(rte_be_to_cpu_16(type) < ETH_TYPE_MIN)) {
		key->dl_type = RTE_BE16(FLOW_DL_TYPE_NONE);
		return 0;
	}
	key->dl_type = type;

	if (likely(type == RTE_BE16(RTE_ETHER_TYPE_IPV4)))
		return parse_ipv4(p + l2_len, pkt_len - l2_len, key);
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		return miniflow_extract_ipv6(m, l2_len, key);
	if (type == RTE_BE16(RTE_ETHER_TYPE_ARP))
		return parse_arp(p + l2_len, pkt_len - l2_len, key);
	return 0;
}
