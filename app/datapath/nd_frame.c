/* SPDX-License-Identifier: BSD-3-Clause
 * Neighbour Discovery frames: see nd_frame.h. */
#include <string.h>
#include <rte_ip.h>
#include "nd_frame.h"

const struct flow_in6_addr nd_all_nodes = { { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
					      0, 0, 0, 0, 0, 0, 0, 1 } };

struct flow_in6_addr
nd_snma(const struct flow_in6_addr *a)
{
	struct flow_in6_addr g = { { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				     0x01, 0xff } };

	memcpy(&g.a[13], &a->a[13], 3);
	return g;
}

struct rte_ether_addr
nd_mcast_mac(const struct flow_in6_addr *group)
{
	return (struct rte_ether_addr){ { 0x33, 0x33, group->a[12],
					  group->a[13], group->a[14],
					  group->a[15] } };
}

uint16_t
nd_icmp6_cksum(const void *ip6, const void *icmp, uint32_t len)
{
	const uint8_t *h = ip6;
	/* RFC 8200 8.1's pseudo-header: addresses, length, next header */
	struct {
		uint8_t addrs[32];
		rte_be32_t len;
		uint8_t zero[3], nh;
	} __rte_packed ph;

	memcpy(ph.addrs, h + 8, sizeof ph.addrs);
	ph.len = rte_cpu_to_be_32(len);
	memset(ph.zero, 0, sizeof ph.zero);
	ph.nh = IPPROTO_ICMPV6;
	uint32_t sum = rte_raw_cksum(&ph, sizeof ph);
	sum += rte_raw_cksum(icmp, len);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

void
nd_frame_write(void *p, const struct rte_ether_addr *eth_dst,
	       const struct rte_ether_addr *eth_src,
	       const struct flow_in6_addr *ip_src,
	       const struct flow_in6_addr *ip_dst, uint8_t type,
	       uint32_t na_flags, const struct flow_in6_addr *target,
	       uint8_t lla_type)
{
	struct rte_ether_hdr *eh = p;
	uint8_t *ip6 = (uint8_t *)(eh + 1);
	uint8_t *icmp = ip6 + ND_IPV6_HDR_LEN;
	rte_be32_t flags = rte_cpu_to_be_32(na_flags);
	rte_be16_t plen = RTE_BE16(ND_MSG_LEN + ND_OPT_LLA_LEN);
	uint16_t csum;

	eh->dst_addr = *eth_dst;
	eh->src_addr = *eth_src;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	memset(ip6, 0, ND_IPV6_HDR_LEN);
	ip6[0] = 0x60;
	memcpy(ip6 + 4, &plen, 2);
	ip6[6] = IPPROTO_ICMPV6;
	ip6[7] = 255;			/* RFC 4861 7.1.1 */
	memcpy(ip6 + 8, ip_src->a, 16);
	memcpy(ip6 + 24, ip_dst->a, 16);
	icmp[0] = type;
	icmp[1] = 0;
	icmp[2] = icmp[3] = 0;
	memcpy(icmp + 4, &flags, 4);
	memcpy(icmp + 8, target->a, 16);
	icmp[24] = lla_type;
	icmp[25] = 1;			/* 8 bytes */
	memcpy(icmp + 26, eth_src->addr_bytes, RTE_ETHER_ADDR_LEN);
	csum = nd_icmp6_cksum(ip6, icmp, ND_MSG_LEN + ND_OPT_LLA_LEN);
	memcpy(icmp + 2, &csum, 2);
}

void
nd_ns_write(void *p, const struct rte_ether_addr *our_mac,
	    const struct flow_in6_addr *our_ip,
	    const struct flow_in6_addr *target)
{
	struct flow_in6_addr group = nd_snma(target);
	struct rte_ether_addr dst = nd_mcast_mac(&group);

	nd_frame_write(p, &dst, our_mac, our_ip, &group, ND_ICMP_NS, 0,
		       target, ND_OPT_SLL);
}
