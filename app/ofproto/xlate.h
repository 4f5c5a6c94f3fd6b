/* SPDX-License-Identifier: BSD-3-Clause
 * The slow path's translation: a packet's flow key -> the megaflow that
 * covers it (the narrowest safe wildcard mask) and its datapath actions.
 * Pure: reads only the snapshot and the port table, so a PMD runs it on an
 * upcall and again, on the same key, to revalidate after a change.
 */
#ifndef VXS_XLATE_H
#define VXS_XLATE_H

#include "dp_actions.h"
#include "dp_snapshot.h"
#include "flow_key.h"

struct xlate_out {
	struct flow_key mask;
	struct dp_actions actions;
	uint32_t rule_uid;		/* 0: no OpenFlow rule involved */
	rte_be32_t need_arp;		/* next hop to resolve, 0 = none */
	rte_be32_t nexthop;		/* the neighbour the outcome depends
					 * on (resolved or not), 0 = none */
};

void xlate(const struct dp_snapshot *s, const struct flow_key *key,
	   struct xlate_out *out);

/* "in_port(vxlan),tunnel(...),eth_type(0x0800),ipv4(dst=...)" and
 * "tnl_push(...),dpdk-phy" as ovs-appctl dpctl/dump-flows writes them. */
int xlate_format_megaflow_match(const struct flow_key *key,
				const struct flow_key *mask, char *buf,
				size_t len);
int xlate_format_actions(const struct dp_actions *a, char *buf, size_t len);

#endif
