/* SPDX-License-Identifier: BSD-3-Clause
 * The snapshot's per-table arrays of rule pointers (dp_rule_table.h): a
 * publish copies only the pointers of the tables that changed, and the
 * others are shared with the previous snapshot by reference.
 */
#include <stdlib.h>
#include <string.h>
#include "ct_label_pred.h"
#include "dp_rule_table.h"
#include "ofproto.h"

int
ofp_rule_order(const struct ofp_rule *a, const struct ofp_rule *b)
{
	if (a->table_id != b->table_id)
		return a->table_id < b->table_id ? -1 : 1;
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	return a->uid < b->uid ? -1 : a->uid > b->uid;
}

struct dp_rule_table *
dp_rule_table_alloc(uint32_t n)
{
	struct dp_rule_table *t = malloc(sizeof *t + n * sizeof *t->rules);

	if (!t)
		return NULL;
	t->n_rules = n;
	t->refs = 1;
	t->n_label = 0;
	return t;
}

void
dp_rule_table_set(struct dp_rule_table *t, uint32_t i,
		  const struct ofp_rule *r)
{
	struct ct_label_pred p;

	t->rules[i] = r;
	t->n_label += ct_label_pred_of(r, &p);
}

struct dp_rule_table *
dp_rule_table_new(const struct ofp_rule *const *rules, uint32_t n)
{
	struct dp_rule_table *t = dp_rule_table_alloc(n);

	for (uint32_t i = 0; t && i < n; i++)
		dp_rule_table_set(t, i, rules[i]);
	return t;
}

void
dp_rule_table_ref(struct dp_rule_table *t)
{
	t->refs++;
}

void
dp_rule_table_unref(struct dp_rule_table *t)
{
	if (t && !--t->refs)
		free(t);
}

/* The first rule of table t or after in the rule table's order. */
static uint32_t
table_first(uint8_t t)
{
	uint32_t lo = 0, hi = ofproto_n_rules();

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ofproto_rule(mid)->table_id < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
dp_rule_tables_build(struct dp_snapshot *s, const struct dp_snapshot *prev,
		     const uint64_t dirty[4])
{
	uint32_t n = ofproto_n_rules();

	for (int t = 0; t < OFP_N_TABLES; t++) {
		if (prev && !((dirty[t >> 6] >> (t & 63)) & 1)) {
			s->tables[t] = prev->tables[t];
			if (s->tables[t])
				dp_rule_table_ref(s->tables[t]);
			continue;
		}
		s->tables_changed |= 1ull << (t % 64);
		uint32_t i = table_first((uint8_t)t), j = i;
		while (j < n && ofproto_rule(j)->table_id == t)
			j++;
		if (i == j)
			continue;
		s->tables[t] = dp_rule_table_alloc(j - i);
		if (!s->tables[t]) {
			dp_snapshot_tables_release(s);
			return -1;
		}
		for (uint32_t k = i; k < j; k++)
			dp_rule_table_set(s->tables[t], k - i, ofproto_rule(k));
	}
	s->n_rules = n;
	return 0;
}

static int
rule_ptr_order(const void *a, const void *b)
{
	return ofp_rule_order(*(const struct ofp_rule *const *)a,
			      *(const struct ofp_rule *const *)b);
}

int
dp_snapshot_set_rules(struct dp_snapshot *s, const struct ofp_rule *rules,
		      uint32_t n)
{
	const struct ofp_rule **p = malloc((n ? n : 1) * sizeof *p);
	int rc = 0;

	if (!p)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		p[i] = &rules[i];
	qsort(p, n, sizeof *p, rule_ptr_order);
	memset(s->tables, 0, sizeof s->tables);
	s->n_rules = n;
	for (uint32_t i = 0, j; i < n && !rc; i = j) {
		for (j = i; j < n && p[j]->table_id == p[i]->table_id; j++)
			;
		if (p[i]->table_id >= OFP_N_TABLES)
			continue;
		s->tables[p[i]->table_id] = dp_rule_table_new(p + i, j - i);
		rc = s->tables[p[i]->table_id] ? 0 : -1;
	}
	free(p);
	if (rc)
		dp_snapshot_tables_release(s);
	return rc;
}

void
dp_snapshot_tables_release(struct dp_snapshot *s)
{
	for (int t = 0; t < OFP_N_TABLES; t++) {
		dp_rule_table_unref(s->tables[t]);
		s->tables[t] = NULL;
	}
	s->n_rules = 0;
}
