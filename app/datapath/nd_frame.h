/* SPDX-License-Identifier: BSD-3-Clause
 * The one Neighbour Discovery frame builder (RFC 4861; nd_frame.c), for
 * whoever sends or fakes ND: the responder's advertisements
 * (nd_responder.c), the control thread's solicitations
 * (pmd/ctl_events.c), perf/arpflood and the unit tests. Untagged
 * Ethernet, IPv6 with hop limit 255 and no extension header, ICMPv6 with
 * one link-layer address option.
 */
#ifndef VXS_ND_FRAME_H
#define VXS_ND_FRAME_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include "flow_key.h"

#define ND_ICMP_NS 135
#define ND_ICMP_NA 136
#define ND_OPT_SLL 1			/* source link-layer address */
#define ND_OPT_TLL 2			/* target link-layer address */
#define ND_NA_ROUTER 0x80000000u	/* NA flags, host order */
#define ND_NA_SOLICITED 0x40000000u
#define ND_NA_OVERRIDE 0x20000000u

#define ND_IPV6_HDR_LEN 40
#define ND_MSG_LEN 24			/* type..target */
#define ND_OPT_LLA_LEN 8		/* an Ethernet address option */
/* An NS or NA with one link-layer address option, whole frame: 86. */
#define ND_FRAME_LEN (RTE_ETHER_HDR_LEN + ND_IPV6_HDR_LEN + ND_MSG_LEN + \
		      ND_OPT_LLA_LEN)

/* The solicited-node multicast address of a (RFC 4291 2.7.1:
 * ff02::1:ffXX:XXXX) and its MAC (RFC 2464 7: 33:33 and its low 32 bits). */
struct flow_in6_addr nd_snma(const struct flow_in6_addr *a);
struct rte_ether_addr nd_mcast_mac(const struct flow_in6_addr *group);
extern const struct flow_in6_addr nd_all_nodes;	/* ff02::1 */

/* Writes ND_FRAME_LEN bytes at p: eth dst/src, IPv6 src/dst, ICMPv6 type
 * (ND_ICMP_NS or _NA), NA flags (host order; 0 for an NS), target, and
 * one link-layer option of lla_type (SLL for an NS, TLL for an NA) with
 * the source MAC; the ICMPv6 checksum computed. */
void nd_frame_write(void *p, const struct rte_ether_addr *eth_dst,
		    const struct rte_ether_addr *eth_src,
		    const struct flow_in6_addr *ip_src,
		    const struct flow_in6_addr *ip_dst, uint8_t type,
		    uint32_t na_flags, const struct flow_in6_addr *target,
		    uint8_t lla_type);

/* The multicast NS OVS's compose_nd_ns sends for target, from our MAC
 * and address: to target's solicited-node group, with our SLL. */
void nd_ns_write(void *p, const struct rte_ether_addr *our_mac,
		 const struct flow_in6_addr *our_ip,
		 const struct flow_in6_addr *target);

/* The ICMPv6 checksum field's value for an IPv6 packet at ip6 (its
 * header's payload length, addresses and next header 58) whose ICMPv6
 * message of len bytes is at icmp, its checksum field as it is (0 to
 * compute one; a valid one sums to 0). */
uint16_t nd_icmp6_cksum(const void *ip6, const void *icmp, uint32_t len);

#endif
