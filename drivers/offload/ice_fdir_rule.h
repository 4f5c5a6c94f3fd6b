/* SPDX-License-Identifier: BSD-3-Clause
 * Rule builder for the Intel E810's Flow Director (DPDK `ice` PMD).
 *
 * Turns a megaflow (or an outer tnl_pop megaflow plus the inner
 * in_port=vxlan megaflow it feeds) into an rte_flow rule that the ice PMD's
 * Flow Director parser accepts, with MARK as the only action by default.
 * Megaflows whose shape the FDIR cannot express exactly are refused with
 * -ENOTSUP and a short reason: they stay in software.
 *
 * The two canonical input sets (one per FDIR flow type, since the E810 keeps
 * one input set per flow type at a time):
 *   OFFLOAD_FT_IPV4_UDP    eth / ipv4(dst) / udp(dst)          MARK
 *   OFFLOAD_FT_VXLAN_IPV4  eth / ipv4(dst) / udp / vxlan(vni) / eth /
 *                          ipv4(dst)                           MARK
 * (the outer UDP dst 4789 of the VXLAN rule is implied by the packet type:
 * the ice FDIR does not accept UDP ports in the VXLAN outer input set; the
 * port must be registered with rte_eth_dev_udp_tunnel_port_add()).
 */
#ifndef VXS_ICE_FDIR_RULE_H
#define VXS_ICE_FDIR_RULE_H

#include <stdint.h>
#include "flow_key.h"
#include "offload_rule.h"

/* What the port's ice PMD needs that differs by release, found at run
 * time (offload_probe.c), never from the headers we were built against:
 * the DPDK that runs the port may be another one (a shared libdpdk of
 * another stable release), and ice changed the meaning of attr.group
 * inside stable series (drivers/offload/README.md, "ice behaviours").
 *   group        attr.group that reaches the FDIR engine on this port
 *   tunnel_port  the UDP port registered as VXLAN on the port
 *                (rte_eth_dev_udp_tunnel_port_add succeeded), 0 if none:
 *                VXLAN rules are then refused (ice validates them but
 *                every create fails), and a plain eth/ipv4/udp rule on
 *                that port is refused (the NIC parses such packets as
 *                tunnel packets, so the rule would not match them) */
struct ice_fdir_target {
	uint32_t group;
	uint16_t tunnel_port;
};

/* attr.group values the probe tries, in order */
#define ICE_FDIR_GROUP_DEFAULT 0u	/* 22.11; 23.11.4+ (group ignored) */
#define ICE_FDIR_GROUP_FDIR 2u		/* 23.11.0-.3, 24.03-24.11.1 */

/* The FDIR's flow-id "no match" value: never a mark. */
#define ICE_FDIR_MARK_INVALID 0xFFFFFFFFu

/* Queue region limits of an FDIR RSS action. */
#define ICE_FDIR_QREGION_MIN 2u
#define ICE_FDIR_QREGION_MAX 128u

#define ICE_FDIR_VXLAN_PORT 4789u

/* The refusal of a VXLAN flow over an IPv6 underlay (an outer megaflow
 * with dl_type IPv6): no ice FDIR or switch-filter row has a VXLAN
 * pattern with an IPv6 outer header in DPDK 22.11.11, 23.11, 24.11, 25.11
 * or 26.07 (doc/design-ipv6-underlay.md, "Partial offload"). */
#define ICE_FDIR_WHY_OUTER_IPV6 \
	"outer IPv6: ice FDIR has no eth/ipv6/udp/vxlan pattern (22.11 to 26.07)"

/* Builds out from the outer megaflow (outer_key, outer_mask) and, for a
 * VXLAN flow, the inner megaflow (inner_key, inner_mask; NULL for an
 * outer-only flow). Keys are already masked, as in struct megaflow.
 * The rule's actions are MARK(mark) only; see ice_fdir_rule_add_rss().
 * Returns 0, or -ENOTSUP (-EINVAL for NULL arguments) with *why set to a
 * short static reason (why may be NULL). out is fully overwritten and
 * self-contained: items/actions point into its own storage, so a copy must
 * be re-pointed with ice_fdir_rule_relink(). */
int ice_fdir_rule_build(const struct flow_key *outer_key,
			const struct flow_key *outer_mask,
			const struct flow_key *inner_key,
			const struct flow_key *inner_mask,
			uint32_t mark, const struct ice_fdir_target *tgt,
			struct offload_rule *out, const char **why);

/* Optional: adds an RSS action spreading the rule's packets over the
 * contiguous queue region [first_queue, first_queue + n_queues), as the
 * ice FDIR reads RSS: n_queues a power of two in 2..128, the region inside
 * the port's nb_rx_queues. Returns 0 or -EINVAL (*why set) leaving the
 * rule unchanged. */
int ice_fdir_rule_add_rss(struct offload_rule *r, uint16_t first_queue,
			  uint16_t n_queues, uint16_t nb_rx_queues,
			  const char **why);

/* Re-points items[] and actions[] of r into r's own storage (after a
 * memcpy of a built rule). */
void ice_fdir_rule_relink(struct offload_rule *r);

#endif
