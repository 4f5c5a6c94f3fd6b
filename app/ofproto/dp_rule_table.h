/* SPDX-License-Identifier: BSD-3-Clause
 * The snapshot's rule tables (struct dp_rule_table, dp_snapshot.h): one
 * array of rule pointers per OpenFlow table, in lookup order, shared by
 * consecutive snapshots while the table does not change. Made and
 * released by the control thread only; PMDs only read them.
 */
#ifndef VXS_DP_RULE_TABLE_H
#define VXS_DP_RULE_TABLE_H

#include <stdint.h>
#include "dp_snapshot.h"

/* The lookup order within a table, and the rule table's order: table,
 * then priority descending, then age (uid ascending). */
int ofp_rule_order(const struct ofp_rule *a, const struct ofp_rule *b);

/* A table of n rules (already in order), one reference; NULL out of
 * memory. */
struct dp_rule_table *dp_rule_table_new(const struct ofp_rule *const *rules,
					uint32_t n);
/* A table for n rules, one reference, its rules set with
 * dp_rule_table_set; NULL out of memory. */
struct dp_rule_table *dp_rule_table_alloc(uint32_t n);
void dp_rule_table_set(struct dp_rule_table *t, uint32_t i,
		       const struct ofp_rule *r);
void dp_rule_table_ref(struct dp_rule_table *t);
/* Frees t with its last reference (not the rules: the rule table and the
 * snapshots' dropped lists own those). */
void dp_rule_table_unref(struct dp_rule_table *t);

/* Fills s's tables from the rule table (ofproto_rule()): the tables
 * dirty says changed (every one without prev, the snapshot published
 * last) made anew and noted in s->tables_changed, the others shared with
 * prev; 0, or -1 out of memory (s then holds no table). */
int dp_rule_tables_build(struct dp_snapshot *s, const struct dp_snapshot *prev,
			 const uint64_t dirty[4]);

/* s's tables made from n rules in any order (a snapshot made by hand:
 * tests); 0, or -1 out of memory. dp_snapshot_tables_release gives the
 * tables back. */
int dp_snapshot_set_rules(struct dp_snapshot *s, const struct ofp_rule *rules,
			  uint32_t n);
void dp_snapshot_tables_release(struct dp_snapshot *s);

#endif
