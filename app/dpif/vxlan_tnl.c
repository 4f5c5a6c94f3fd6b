/* SPDX-License-Identifier: BSD-3-Clause
 * Building and printing the VXLAN header template (see vxlan_tnl.h).
 * Runs on the slow path only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
	t->ip_csum_partial = rte_be_to_cpu_16(rte_raw_cksum(&ip, sizeof ip));
	t->max_inner = VXLAN_ENCAP_MAX_INNER_LEN;
}

void
vxlan_tnl_template_set_max_frame(struct vxlan_tnl_template *t,
				 uint32_t max_frame)
{
	uint32_t inner = max_frame > VXLAN_TNL_HDR_LEN ?
			 max_frame - VXLAN_TNL_HDR_LEN : 0;

	t->max_inner = (uint16_t)RTE_MIN(inner,
					 (uint32_t)VXLAN_ENCAP_MAX_INNER_LEN);
}

int
vxlan_tnl_template_format(const struct vxlan_tnl_template *t,
			  char *buf, size_t len)
{
	struct rte_ether_hdr eth;
	struct rte_ipv4_hdr ip;
	struct rte_udp_hdr udp;
	struct rte_vxlan_hdr vxlan;
	char dst_mac[RTE_ETHER_ADDR_FMT_SIZE], src_mac[RTE_ETHER_ADDR_FMT_SIZE];
	uint8_t src[4], dst[4];

	memcpy(&eth, t->hdr, sizeof eth);
	memcpy(&ip, t->hdr + VXLAN_TNL_IP_OFF, sizeof ip);
	memcpy(&udp, t->hdr + VXLAN_TNL_UDP_OFF, sizeof udp);
	memcpy(&vxlan, t->hdr + VXLAN_TNL_VXLAN_OFF, sizeof vxlan);
	memcpy(src, &ip.src_addr, 4);
	memcpy(dst, &ip.dst_addr, 4);

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
			"eth(dst=%s,src=%s,dl_type=0x%04" PRIx16 "),"
			"ipv4(src=%u.%u.%u.%u,dst=%u.%u.%u.%u,proto=%" PRIu8
			",tos=%#" PRIx8 ",ttl=%" PRIu8 ",frag=0x%" PRIx16 "),"
			"udp(src=%" PRIu16 ",dst=%" PRIu16 ",csum=0x%" PRIx16 "),"
			"vxlan(flags=0x%" PRIx32 ",vni=0x%" PRIx32 ")))",
			(unsigned)VXLAN_TNL_HDR_LEN, (unsigned)OVS_VPORT_TYPE_VXLAN,
			dst_mac, src_mac, rte_be_to_cpu_16(eth.ether_type),
			src[0], src[1], src[2], src[3],
			dst[0], dst[1], dst[2], dst[3],
			ip.next_proto_id, ip.type_of_service, ip.time_to_live,
			rte_be_to_cpu_16(ip.fragment_offset),
			rte_be_to_cpu_16(udp.src_port),
			rte_be_to_cpu_16(udp.dst_port),
			rte_be_to_cpu_16(udp.dgram_cksum),
			rte_be_to_cpu_32(vxlan.vx_flags),
			rte_be_to_cpu_32(vxlan.vx_vni) >> 8);
}
