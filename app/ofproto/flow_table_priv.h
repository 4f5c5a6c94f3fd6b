/* SPDX-License-Identifier: BSD-3-Clause
 * The rule table's state, shared by its files: flow_table.c (the table
 * and its flow_mod path) and flow_expiry.c (rule timeouts). Nothing else
 * includes it; the table's public side is ofproto.h, its life
 * flow_table.h.
 */
#ifndef VXS_FLOW_TABLE_PRIV_H
#define VXS_FLOW_TABLE_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include "ofproto.h"
#include "rule_index.h"

struct rule_slot {
	struct ofp_rule *rule;		/* immutable once published */
	struct ofproto_rule_stats stats;
	struct rule_index_node node;
	bool doomed;			/* to be removed (rules_sweep) */
};

struct flow_table {
	struct rule_slot **rules;	/* by table, priority, age */
	uint32_t n_rules, cap_rules;
	uint32_t next_uid;
	struct rule_index index;

	uint32_t max_rules;		/* datapath max-flows */
	uint64_t rules_refused;		/* rules of add-flow(s) refused by it */
	uint64_t expired_idle, expired_hard;	/* rules their timeouts took */

	/* Since the last publish: the tables changed (bit per table) and
	 * the rule objects no rule slot holds any more (the last snapshot
	 * may: freed after the next publish's grace period). */
	uint64_t dirty[4];
	struct ofp_rule **dropped;
	uint32_t n_dropped, cap_dropped;
};

/* the one rule table (flow_table.c), "ft" as its files have always said */
extern struct flow_table ft;

/* Drops the slots marked doomed from the order (their rule objects to
 * the next publish); how many, or -1 (out of memory: none dropped). */
int64_t rules_sweep(void);
/* The slot of the rule a megaflow names by uid, or NULL. */
struct rule_slot *slot_by_uid(uint32_t uid);

#endif
