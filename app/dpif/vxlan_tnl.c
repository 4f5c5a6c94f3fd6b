/* SPDX-License-Identifier: BSD-3-Clause
 * Building and printing the VXLAN header template (see vxlan_tnl.h).
 * Runs on the slow path only.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "flow_key.h"
#include "vxlan_tnl.h"

/* OVS_VPORT_TYPE_VXLAN, printed as type= so dumps read like OVS's. */
#define OVS_VPORT_TYPE_VXLAN 4

void
vxlan_tnl_template_build(struct vxlan_tnl_template *t,
			 const struct rte_ether_addr *src_mac,
			 const struct rte_ether_addr *dst_mac,
			 rte_be32_t src_ip, rte_be32_t dst_ip,
			 uint32_t vni, uint16_t dst_port,
			 uint8_t ttl, bool df)
{
	struct rte_ether_hdr eth;
	struct rte_ipv4_hdr ip;
	struct rte_udp_hdr udp;
	struct rte_vxlan_hdr vxlan;

	/* Zeroed whole so the padding after hdr[] is zero too: templates are
	 * compared with memcmp when megaflows are revalidated. */
	memset(t, 0, sizeof *t);

	rte_ether_addr_copy(dst_mac, &eth.dst_addr);
	rte_ether_addr_copy(src_mac, &eth.src_addr);
	eth.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);

	memset(&ip, 0, sizeof ip);
	ip.version_ihl = RTE_IPV4_VHL_DEF;
	ip.fragment_offset = df ? RTE_BE16(RTE_IPV4_HDR_DF_FLAG) : 0;
	ip.time_to_live = ttl;
	ip.next_proto_id = IPPROTO_UDP;
	ip.src_addr = src_ip;
	ip.dst_addr = dst_ip;

	memset(&udp, 0, sizeof udp);
	udp.dst_port = rte_cpu_to_be_16(dst_port);

	vxlan.vx_flags = RTE_BE32(VXLAN_FLAGS_WORD);
	vxlan.vx_vni = rte_cpu_to_be_32((vni & VXLAN_VNI_MAX) << 8);

	memcpy(t->hdr, &eth, sizeof eth);
	memcpy(t->hdr + VXLAN_TNL_IP_OFF, &ip, sizeof ip);
	memcpy(t->hdr + VXLAN_TNL_UDP_OFF, &udp, sizeof udp);
	memcpy(t->hdr + VXLAN_TNL_VXLAN_OFF, &vxlan, sizeof vxlan);

	/* rte_raw_cksum sums words as the CPU loads them; the ones-complement
	 * sum commutes with byte swapping, so one swap gives the host-order
	 * sum that encap adds host-order lengths and ids to. */
	t->csum_partial = rte_be_to_cpu_16(rte_raw_cksum(&ip, sizeof ip));
	t->family = VXLAN_TNL_IPV4;
	t->max_inner = VXLAN_ENCAP_MAX_INNER_LEN;
}

void
vxlan_tnl_template_build6(struct vxlan_tnl_template *t,
			  const struct rte_ether_addr *src_mac,
			  const struct rte_ether_addr *dst_mac,
			  const struct flow_in6_addr *src,
			  const struct flow_in6_addr *dst,
			  uint32_t vni, uint16_t dst_port,
			  uint8_t hop_limit, uint8_t tclass)
{
	struct rte_ether_hdr eth;
	struct rte_ipv6_hdr ip;
	struct rte_udp_hdr udp;
	struct rte_vxlan_hdr vxlan;

	memset(t, 0, sizeof *t);	/* compared with memcmp, as above */

	rte_ether_addr_copy(dst_mac, &eth.dst_addr);
	rte_ether_addr_copy(src_mac, &eth.src_addr);
	eth.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);

	/* version 6, traffic class, flow label 0 (OVS writes no label) */
	memset(&ip, 0, sizeof ip);
	ip.vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tclass << 20);
	ip.proto = IPPROTO_UDP;
	ip.hop_limits = hop_limit;
	memcpy(ip.src_addr, src->a, sizeof ip.src_addr);
	memcpy(ip.dst_addr, dst->a, sizeof ip.dst_addr);

	memset(&udp, 0, sizeof udp);
	udp.dst_port = rte_cpu_to_be_16(dst_port);

	vxlan.vx_flags = RTE_BE32(VXLAN_FLAGS_WORD);
	vxlan.vx_vni = rte_cpu_to_be_32((vni & VXLAN_VNI_MAX) << 8);

	/* The constant part of the UDP checksum: the pseudo-header with
	 * length 0 (payload_len is 0 here), then UDP and VXLAN with the
	 * source port, length and checksum still 0. Raw order, as
	 * rte_raw_cksum sums (dp_actions.h). */
	uint32_t sum = rte_ipv6_phdr_cksum(&ip, 0);
	sum = __rte_raw_cksum(&udp, sizeof udp, sum);
	sum = __rte_raw_cksum(&vxlan, sizeof vxlan, sum);
	t->csum_partial = __rte_raw_cksum_reduce(sum);

	/* what OVS's header holds: "compute the checksum later" */
	udp.dgram_cksum = RTE_BE16(0xffff);

	memcpy(t->hdr, &eth, sizeof eth);
	memcpy(t->hdr + VXLAN_TNL6_IP_OFF, &ip, sizeof ip);
	memcpy(t->hdr + VXLAN_TNL6_UDP_OFF, &udp, sizeof udp);
	memcpy(t->hdr + VXLAN_TNL6_VXLAN_OFF, &vxlan, sizeof vxlan);
	t->family = VXLAN_TNL_IPV6;
	t->max_inner = VXLAN6_ENCAP_MAX_INNER_LEN;
}

void
vxlan_tnl_template_set_max_frame(struct vxlan_tnl_template *t,
				 uint32_t max_frame)
{
	const uint32_t hdr_len = vxlan_tnl_hdr_len(t);
	const uint32_t bound = t->family == VXLAN_TNL_IPV6 ?
			       VXLAN6_ENCAP_MAX_INNER_LEN :
			       VXLAN_ENCAP_MAX_INNER_LEN;
	uint32_t inner = max_frame > hdr_len ? max_frame - hdr_len : 0;

	t->max_inner = (uint16_t)RTE_MIN(inner, bound);
}

/* OVS's ipv4(...) or ipv6(...) of a tnl_push header (lib/odp-util.c,
 * format_odp_tnl_push_header), with its trailing comma. */
static void
format_ip(const struct vxlan_tnl_template *t, char *buf, size_t len)
{
	if (t->family == VXLAN_TNL_IPV6) {
		struct rte_ipv6_hdr ip;
		char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];

		memcpy(&ip, t->hdr + VXLAN_TNL6_IP_OFF, sizeof ip);
		inet_ntop(AF_INET6, ip.src_addr, src, sizeof src);
		inet_ntop(AF_INET6, ip.dst_addr, dst, sizeof dst);
		uint32_t flow = rte_be_to_cpu_32(ip.vtc_flow);
		snprintf(buf, len, "ipv6(src=%s,dst=%s,label=%" PRIu32
			 ",proto=%" PRIu8 ",tclass=0x%" PRIx32
			 ",hlimit=%" PRIu8 "),",
			 src, dst, flow & 0xfffff, ip.proto,
			 (flow >> 20) & 0xff, ip.hop_limits);
		return;
	}

	struct rte_ipv4_hdr ip;
	uint8_t src[4], dst[4];

	memcpy(&ip, t->hdr + VXLAN_TNL_IP_OFF, sizeof ip);
	memcpy(src, &ip.src_addr, 4);
	memcpy(dst, &ip.dst_addr, 4);
	snprintf(buf, len, "ipv4(src=%u.%u.%u.%u,dst=%u.%u.%u.%u,proto=%" PRIu8
		 ",tos=%#" PRIx8 ",ttl=%" PRIu8 ",frag=0x%" PRIx16 "),",
		 src[0], src[1], src[2], src[3],
		 dst[0], dst[1], dst[2], dst[3],
		 ip.next_proto_id, ip.type_of_service, ip.time_to_live,
		 rte_be_to_cpu_16(ip.fragment_offset));
}

int
vxlan_tnl_template_format(const struct vxlan_tnl_template *t,
			  char *buf, size_t len)
{
	const int udp_off = t->family == VXLAN_TNL_IPV6 ? VXLAN_TNL6_UDP_OFF :
							  VXLAN_TNL_UDP_OFF;
	struct rte_ether_hdr eth;
	struct rte_udp_hdr udp;
	struct rte_vxlan_hdr vxlan;
	char dst_mac[RTE_ETHER_ADDR_FMT_SIZE], src_mac[RTE_ETHER_ADDR_FMT_SIZE];
	char ip[160];

	memcpy(&eth, t->hdr, sizeof eth);
	memcpy(&udp, t->hdr + udp_off, sizeof udp);
	memcpy(&vxlan, t->hdr + udp_off + sizeof udp, sizeof vxlan);
	format_ip(t, ip, sizeof ip);

	/* DPDK prints MACs upper case; OVS lower case. */
	snprintf(dst_mac, sizeof dst_mac, "%02x:%02x:%02x:%02x:%02x:%02x",
		 eth.dst_addr.addr_bytes[0], eth.dst_addr.addr_bytes[1],
		 eth.dst_addr.addr_bytes[2], eth.dst_addr.addr_bytes[3],
		 eth.dst_addr.addr_bytes[4], eth.dst_addr.addr_bytes[5]);
	snprintf(src_mac, sizeof src_mac, "%02x:%02x:%02x:%02x:%02x:%02x",
		 eth.src_addr.addr_bytes[0], eth.src_addr.addr_bytes[1],
		 eth.src_addr.addr_bytes[2], eth.src_addr.addr_bytes[3],
		 eth.src_addr.addr_bytes[4], eth.src_addr.addr_bytes[5]);

	return snprintf(buf, len,
			"tnl_push(tnl_port(vxlan),header(size=%u,type=%u,"
			"eth(dst=%s,src=%s,dl_type=0x%04" PRIx16 "),%s"
			"udp(src=%" PRIu16 ",dst=%" PRIu16 ",csum=0x%" PRIx16 "),"
			"vxlan(flags=0x%" PRIx32 ",vni=0x%" PRIx32 ")))",
			(unsigned)vxlan_tnl_hdr_len(t),
			(unsigned)OVS_VPORT_TYPE_VXLAN,
			dst_mac, src_mac, rte_be_to_cpu_16(eth.ether_type), ip,
			rte_be_to_cpu_16(udp.src_port),
			rte_be_to_cpu_16(udp.dst_port),
			rte_be_to_cpu_16(udp.dgram_cksum),
			rte_be_to_cpu_32(vxlan.vx_flags),
			rte_be_to_cpu_32(vxlan.vx_vni) >> 8);
}
