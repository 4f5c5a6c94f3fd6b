/* SPDX-License-Identifier: BSD-3-Clause
 * The per-table subtable index (rule_tss.h): built in one pass over a
 * table's rules, looked up by probing one hash per subtable in order of
 * the subtables' highest priorities, with an early stop.
 */
#include <stdlib.h>
#include <string.h>
#include <rte_hash_crc.h>
#include "ct_label_pred.h"
#include "rule_tss.h"

static bool
is_conjunctive(const struct ofp_rule *r)
{
	return r->n_actions && r->actions[0].type == OFPACT_CONJUNCTION;
}

/* The hash of key and meta under the subtable's masks. */
static uint32_t
masked_hash(const struct rule_tss_subtable *st, const struct flow_key *key,
	    const struct ofp_meta *meta)
{
	struct flow_key k;
	uint64_t m[RULE_TSS_META_WORDS];

	flow_key_mask(&k, key, &st->mask);
	for (int i = 0; i < RULE_TSS_META_WORDS; i++)
		m[i] = meta->w[i] & st->meta_mask[i];
	return rte_hash_crc(m, sizeof m, rte_hash_crc(k.w, sizeof k.w, 0));
}

static bool
rule_matches(const struct ofp_rule *r, const struct flow_key *key,
	     const struct ofp_meta *meta)
{
	uint64_t diff = 0;

	for (int i = 0; i < RULE_TSS_META_WORDS; i++)
		diff |= (meta->w[i] & r->meta_mask.w[i]) ^ r->meta_match.w[i];
	return !diff && flow_key_match(key, &r->match, &r->mask);
}

static struct rule_tss_subtable *
subtable_of(struct rule_tss *idx, const struct ofp_rule *r)
{
	for (uint32_t i = 0; i < idx->n_sub; i++) {
		struct rule_tss_subtable *st = &idx->sub[i];
		if (!memcmp(&st->mask, &r->mask, sizeof st->mask) &&
		    !memcmp(st->meta_mask, r->meta_mask.w,
			    sizeof st->meta_mask))
			return st;
	}
	struct rule_tss_subtable *st = &idx->sub[idx->n_sub++];
	memset(st, 0, sizeof *st);
	st->mask = r->mask;
	memcpy(st->meta_mask, r->meta_mask.w, sizeof st->meta_mask);
	st->max_priority = r->priority;	/* the first: rules come in order */
	return st;
}

static int
sub_order(const void *a, const void *b)
{
	const struct rule_tss_subtable *x = a, *y = b;
	return x->max_priority > y->max_priority ? -1 :
	       x->max_priority < y->max_priority;
}

int
rule_tss_build(struct rule_tss *idx, const struct dp_rule_table *t)
{
	uint32_t n = t ? t->n_rules : 0;
	uint32_t *sub_of = malloc((n ? n : 1) * sizeof *sub_of);

	memset(idx, 0, sizeof *idx);
	idx->sub = calloc(n ? n : 1, sizeof *idx->sub);
	idx->nodes = calloc(n ? n : 1, sizeof *idx->nodes);
	if (!sub_of || !idx->sub || !idx->nodes)
		goto oom;
	/* subtables, and their sizes, in the table's order */
	for (uint32_t i = 0; i < n; i++) {
		const struct ofp_rule *r = t->rules[i];
		struct ct_label_pred p;
		if (is_conjunctive(r) || ct_label_pred_of(r, &p)) {
			sub_of[i] = UINT32_MAX;
			idx->n_unindexed++;
			continue;
		}
		struct rule_tss_subtable *st = subtable_of(idx, r);
		st->n_rules++;
		sub_of[i] = (uint32_t)(st - idx->sub);
	}
	for (uint32_t s = 0; s < idx->n_sub; s++) {
		struct rule_tss_subtable *st = &idx->sub[s];
		uint32_t nb = 1;
		while (nb < st->n_rules)
			nb <<= 1;
		st->bucket_mask = nb - 1;
		st->buckets = calloc(nb, sizeof *st->buckets);
		if (!st->buckets)
			goto oom;
	}
	/* the rules into their buckets, appended: each chain stays in the
	 * table's order, so its first match is the one to take */
	for (uint32_t i = 0; i < n; i++) {
		if (sub_of[i] == UINT32_MAX)
			continue;
		struct rule_tss_subtable *st = &idx->sub[sub_of[i]];
		struct rule_tss_node *nd = &idx->nodes[idx->n_rules++];
		struct rule_tss_node **pp;
		nd->rule = t->rules[i];
		nd->hash = masked_hash(st, &nd->rule->match,
				       &nd->rule->meta_match);
		for (pp = &st->buckets[nd->hash & st->bucket_mask]; *pp;
		     pp = &(*pp)->next)
			;
		*pp = nd;
	}
	free(sub_of);
	/* the nodes point at the rules, the buckets at the nodes: sorting
	 * the subtables moves only the bucket arrays' owners */
	qsort(idx->sub, idx->n_sub, sizeof *idx->sub, sub_order);
	return 0;
oom:
	free(sub_of);
	rule_tss_fini(idx);
	return -1;
}

void
rule_tss_fini(struct rule_tss *idx)
{
	for (uint32_t s = 0; idx->sub && s < idx->n_sub; s++)
		free(idx->sub[s].buckets);
	free(idx->sub);
	free(idx->nodes);
	memset(idx, 0, sizeof *idx);
}

const struct ofp_rule *
rule_tss_lookup(const struct rule_tss *idx, const struct flow_key *key,
		const struct ofp_meta *meta, uint32_t *n_probed)
{
	const struct ofp_rule *best = NULL;
	uint32_t s;

	for (s = 0; s < idx->n_sub; s++) {
		const struct rule_tss_subtable *st = &idx->sub[s];
		/* equal priorities go on: an older rule may be in another */
		if (best && st->max_priority < best->priority)
			break;
		uint32_t h = masked_hash(st, key, meta);
		for (const struct rule_tss_node *nd =
		     st->buckets[h & st->bucket_mask]; nd; nd = nd->next) {
			const struct ofp_rule *r = nd->rule;
			if (nd->hash != h || !rule_matches(r, key, meta))
				continue;
			if (!best || r->priority > best->priority ||
			    (r->priority == best->priority &&
			     r->uid < best->uid))
				best = r;
			break;
		}
	}
	if (n_probed)
		*n_probed = s;
	return best;
}
