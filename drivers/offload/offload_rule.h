/* SPDX-License-Identifier: BSD-3-Clause
 * A NIC flow rule as rte_flow_create() takes it, with the storage its
 * items and actions point into, so one value can be built, queued to the
 * offload thread, compared and destroyed without dangling pointers.
 *
 * Produced by the E810 Flow Director rule builder (ice_fdir_rule.c) from a
 * megaflow; consumed by rte_flow on a real E810, or by the software Flow
 * Director model (fdir_model.c) everywhere else, which accepts and rejects
 * exactly what the ice PMD would.
 */
#ifndef VXS_OFFLOAD_RULE_H
#define VXS_OFFLOAD_RULE_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_flow.h>

#define OFFLOAD_MAX_ITEMS 8
#define OFFLOAD_MAX_ACTIONS 4
#define OFFLOAD_MAX_RSS_QUEUES 128

/* The Flow Director flow types we use; the E810 allows one input set
 * (the set of matched fields) per flow type at a time, so each has one
 * canonical key. */
enum offload_flow_type {
	OFFLOAD_FT_IPV4_UDP,		/* outer eth/ipv4(dst)/udp(dst) */
	OFFLOAD_FT_VXLAN_IPV4,		/* + vxlan(vni) / eth / ipv4(dst) */
	OFFLOAD_FT_N
};

struct offload_rule {
	enum offload_flow_type type;
	struct rte_flow_attr attr;
	struct rte_flow_item items[OFFLOAD_MAX_ITEMS];	/* END-terminated */
	struct rte_flow_action actions[OFFLOAD_MAX_ACTIONS];	/* END-term. */

	/* what items[] and actions[] point into */
	struct rte_flow_item_eth eth_spec, eth_mask;
	struct rte_flow_item_ipv4 ipv4_spec, ipv4_mask;
	struct rte_flow_item_udp udp_spec, udp_mask;
	struct rte_flow_item_vxlan vxlan_spec, vxlan_mask;
	struct rte_flow_item_eth ieth_spec, ieth_mask;
	struct rte_flow_item_ipv4 iipv4_spec, iipv4_mask;
	struct rte_flow_action_mark mark;
	struct rte_flow_action_rss rss;
	uint16_t rss_queues[OFFLOAD_MAX_RSS_QUEUES];
};

#endif
