/* SPDX-License-Identifier: BSD-3-Clause
 * The one ARP frame builder (arp_responder.c), for whoever sends or fakes
 * ARP: the control thread's requests (pmd/ctl_events.c),
 * perf/arpflood and the unit rigs (tests/unit/pipeline_rig.h).
 */
#ifndef VXS_ARP_FRAME_H
#define VXS_ARP_FRAME_H

#include <stdint.h>
#include <rte_byteorder.h>
#include <rte_ether.h>

/* Writes ARP_FRAME_LEN bytes at p: an Ethernet header (dst; src = sha;
 * type ARP) and an Ethernet/IPv4 ARP header, opcode op (host order),
 * sender sha/sip, target MAC zero, target IP tip (addresses in network
 * order). */
#define ARP_FRAME_LEN (RTE_ETHER_HDR_LEN + 28)
void arp_frame_write(void *p, const struct rte_ether_addr *dst, uint16_t op,
		     const struct rte_ether_addr *sha, rte_be32_t sip,
		     rte_be32_t tip);

#endif
