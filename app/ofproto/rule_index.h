/* SPDX-License-Identifier: BSD-3-Clause
 * The rule table's identity index: rules by (table, priority, masked match
 * and metadata), the key OpenFlow's add, strict modify and strict delete
 * name a rule by, so each finds its rule in O(1) instead of a scan.
 * Chained through a node each rule carries; buckets fixed at init, a power
 * of two at least the rule limit (datapath max-flows), so chains stay
 * short without a rehash; the hash keyed by a secret drawn per process
 * (doc/hash-tables.md), though the keys are the operator's. Control thread
 * only: the PMDs never read it.
 */
#ifndef VXS_RULE_INDEX_H
#define VXS_RULE_INDEX_H

#include <stdint.h>
#include "ofp_rule.h"

struct rule_index_node {
	struct rule_index_node *next;	/* same bucket */
	struct rule_index_node *next_uid;	/* same uid bucket */
	const struct ofp_rule *rule;
	uint32_t hash;
	uint32_t uid;			/* rule->uid when inserted */
};

struct rule_index {
	struct rule_index_node **buckets;
	/* The same nodes by uid, the name the datapath gives a rule (its
	 * megaflows' counters and last use): sequential, so a multiply
	 * spreads them. */
	struct rule_index_node **uid_buckets;
	uint32_t mask;			/* buckets - 1, both arrays */
	uint32_t n;			/* nodes in it */
	uint32_t longest;		/* longest chain walked by a find */
};

/* 0, or -1 when out of memory. max_rules: the most rules it will hold. */
int rule_index_init(struct rule_index *ix, uint32_t max_rules);
void rule_index_fini(struct rule_index *ix);

uint32_t rule_index_hash(const struct ofp_rule *r);
/* The rule with r's identity (ofp_rule_same_match), or NULL. */
struct rule_index_node *rule_index_find(struct rule_index *ix,
					const struct ofp_rule *r,
					uint32_t hash);
/* The rule whose uid was uid when it was inserted, or NULL. */
struct rule_index_node *rule_index_find_uid(struct rule_index *ix,
					    uint32_t uid);
/* node->rule and node->hash set by the caller; the rule's identity must
 * not be in the index yet. A rule whose uid changes is removed first and
 * inserted again. */
void rule_index_insert(struct rule_index *ix, struct rule_index_node *node);
void rule_index_remove(struct rule_index *ix, struct rule_index_node *node);

#endif
