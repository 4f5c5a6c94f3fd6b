/* SPDX-License-Identifier: BSD-3-Clause
 * A per-table subtable index ("tuple space search", as OVS's classifier):
 * one table's rules grouped by mask (flow and metadata masks), each
 * group a hash of the masked key to its rules in lookup order, the
 * groups in order of their highest priority so that a lookup stops at
 * the first group that cannot beat what it found. Built from a
 * snapshot's dp_rule_table; read-only after.
 *
 * NOT used by the translation yet (xlate_pipeline.c's classify() scans
 * the table): the megaflow mask a lookup through it should produce (the
 * masks of the groups it probed, as OVS's, instead of the deciding
 * fields of each rule looked at) is not shown equal or safely wider than
 * classify()'s, which tests/integration check. Conjunction rules and
 * ct_label matches are left out of the index (n_unindexed): a table with
 * any must still be scanned.
 */
#ifndef VXS_RULE_TSS_H
#define VXS_RULE_TSS_H

#include <stdbool.h>
#include <stdint.h>
#include "dp_snapshot.h"

/* the metadata words a rule matches besides ct_label: registers,
 * ct_state, ct_mark, ct_zone, conj_id (struct ofp_meta's w[0..5]) */
#define RULE_TSS_META_WORDS 6

struct rule_tss_node {
	const struct ofp_rule *rule;
	struct rule_tss_node *next;	/* same bucket, lookup order */
	uint32_t hash;
};

struct rule_tss_subtable {
	struct flow_key mask;
	uint64_t meta_mask[RULE_TSS_META_WORDS];
	uint16_t max_priority;
	uint32_t n_rules;
	uint32_t bucket_mask;		/* buckets - 1, a power of two */
	struct rule_tss_node **buckets;
};

struct rule_tss {
	struct rule_tss_subtable *sub;	/* by max_priority descending */
	uint32_t n_sub;
	struct rule_tss_node *nodes;	/* one per indexed rule */
	uint32_t n_rules;		/* indexed */
	uint32_t n_unindexed;		/* conjunction, ct_label: left out */
};

/* The index of t's rules (in t's order: priority descending, then age);
 * 0, or -1 out of memory (idx then empty). */
int rule_tss_build(struct rule_tss *idx, const struct dp_rule_table *t);
void rule_tss_fini(struct rule_tss *idx);

/* The rule classify() would take among the indexed ones for key and the
 * registers/ct fields in meta: the highest priority matching, the oldest
 * (lowest uid) of equal ones; NULL none. *n_probed (if not NULL): the
 * subtables probed before the early stop. */
const struct ofp_rule *rule_tss_lookup(const struct rule_tss *idx,
				       const struct flow_key *key,
				       const struct ofp_meta *meta,
				       uint32_t *n_probed);

#endif
