/* SPDX-License-Identifier: BSD-3-Clause
 * The control plane's tables - OpenFlow rules, neighbours (tnl/arp),
 * routes (ovs/route) - owned by the control thread alone. Every change
 * ends in ofproto_publish(), which freezes them into a new dp_snapshot for
 * the PMDs. A batch of changes is validated whole before anything is
 * applied, so a bad flow in a list changes nothing.
 */
#ifndef VXS_OFPROTO_H
#define VXS_OFPROTO_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_rcu_qsbr.h>
#include "config.h"
#include "dp_snapshot.h"
#include "ofp_rule.h"

struct ofproto_rule_stats {
	uint64_t packets, bytes;	/* of megaflows already retired */
	uint64_t created_ms;
};

int ofproto_init(const struct vxs_config *cfg, struct rte_rcu_qsbr *qsbr,
		 char *err, size_t errlen);
void ofproto_fini(void);

/* Makes the current tables visible to the PMDs; returns the generation. */
uint64_t ofproto_publish(void);

/* add-flow / add-flows: all or nothing. A rule with the same priority and
 * match as an existing one replaces its actions (as ovs-ofctl add-flow). On
 * error *bad is the index of the offending flow. */
int ofproto_add_flows(const char *const *flows, int n, int *bad, char *err,
		      size_t errlen);
/* del-flows [--strict] [FLOW]; returns the number of rules removed. */
int ofproto_del_flows(const char *filter, bool strict, char *err,
		      size_t errlen);

uint32_t ofproto_n_rules(void);
const struct ofp_rule *ofproto_rule(uint32_t i);	/* in table order */
const struct ofproto_rule_stats *ofproto_rule_stats(uint32_t i);
void ofproto_account_retired(uint32_t uid, uint64_t packets, uint64_t bytes);

/* neighbours */
int neigh_set(rte_be32_t ip, const struct rte_ether_addr *mac, bool is_static);
bool neigh_learn(rte_be32_t ip, const struct rte_ether_addr *mac);
int neigh_flush(void);
uint16_t neigh_count(void);
const struct neigh_entry *neigh_at(uint16_t i);

/* routes */
int route_add(rte_be32_t prefix, uint8_t plen, rte_be32_t gw,
	      uint16_t port_idx, char *err, size_t errlen);
int route_del(rte_be32_t prefix, uint8_t plen);
uint16_t route_count(void);
const struct route_entry *route_at(uint16_t i);

#endif
