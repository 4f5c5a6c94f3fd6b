/* SPDX-License-Identifier: BSD-3-Clause
 * The rule table's identity index (rule_index.h). */
#include <stdlib.h>
#include <rte_random.h>
#include "nh_hash.h"
#include "rule_index.h"

/* Words hashed: table and priority, then the match and mask lines in use
 * and the metadata match and mask: at most 1 + 2 * 24 + 2 * 8. */
#define KEY_WORDS_MAX (1 + 2 * FLOW_KEY_WORDS + 2 * 8)
#define SECRETS ((KEY_WORDS_MAX + NH_MAX_WORDS - 1) / NH_MAX_WORDS)

static struct nh_secret secrets[SECRETS];
static bool secrets_drawn;

static unsigned
put_key(uint64_t *w, unsigned n, const struct flow_key *k)
{
	for (int i = 0; i < FLOW_KEY_LINE_WORDS; i++)
		w[n++] = k->w[i];
	/* unused lines are not part of the identity (flow_key_equal) */
	if (flow_key_has_line2(k))
		for (int i = 0; i < FLOW_KEY_LINE_WORDS; i++)
			w[n++] = k->line2[i];
	if (flow_key_has_line3(k))
		for (int i = 0; i < FLOW_KEY_LINE_WORDS; i++)
			w[n++] = k->line3[i];
	return n;
}

uint32_t
rule_index_hash(const struct ofp_rule *r)
{
	uint64_t w[KEY_WORDS_MAX];
	unsigned n = 0;
	uint32_t h = 0;

	w[n++] = (uint64_t)r->table_id << 16 | r->priority;
	n = put_key(w, n, &r->match);
	n = put_key(w, n, &r->mask);
	for (int i = 0; i < 8; i++)
		w[n++] = r->meta_match.w[i];
	for (int i = 0; i < 8; i++)
		w[n++] = r->meta_mask.w[i];
	/* NH of each run of 8 words under its own secret, the runs' hashes
	 * rotated apart so that two runs cannot cancel */
	for (unsigned k = 0, s = 0; k < n; k += NH_MAX_WORDS, s++) {
		uint32_t x = nh_hash_words(&secrets[s], w + k,
					   n - k < NH_MAX_WORDS ?
					   n - k : NH_MAX_WORDS);
		h = (h << 5 | h >> 27) ^ x;
	}
	return h;
}

int
rule_index_init(struct rule_index *ix, uint32_t max_rules)
{
	uint32_t n = 64;

	if (!secrets_drawn) {
		for (unsigned s = 0; s < SECRETS; s++)
			nh_secret_draw(&secrets[s], rte_rand);
		secrets_drawn = true;
	}
	/* past 2^20 buckets (8 MiB) chains grow instead: 16 a bucket at 2^24 rules */
	while (n < max_rules && n < (1u << 20))
		n <<= 1;
	ix->buckets = calloc(n, sizeof *ix->buckets);
	ix->uid_buckets = calloc(n, sizeof *ix->uid_buckets);
	if (!ix->buckets || !ix->uid_buckets) {
		rule_index_fini(ix);
		return -1;
	}
	ix->mask = n - 1;
	ix->n = 0;
	ix->longest = 0;
	return 0;
}

void
rule_index_fini(struct rule_index *ix)
{
	free(ix->buckets);
	free(ix->uid_buckets);
	ix->buckets = ix->uid_buckets = NULL;
	ix->n = 0;
}

struct rule_index_node *
rule_index_find(struct rule_index *ix, const struct ofp_rule *r,
		uint32_t hash)
{
	uint32_t walked = 0;

	for (struct rule_index_node *n = ix->buckets[hash & ix->mask]; n;
	     n = n->next) {
		walked++;
		if (n->hash == hash && ofp_rule_same_match(n->rule, r)) {
			if (walked > ix->longest)
				ix->longest = walked;
			return n;
		}
	}
	if (walked > ix->longest)
		ix->longest = walked;
	return NULL;
}

static struct rule_index_node **
uid_bucket(struct rule_index *ix, uint32_t uid)
{
	/* Fibonacci hashing: consecutive uids land apart */
	return &ix->uid_buckets[(uint32_t)(uid * 2654435769u) >> 8 & ix->mask];
}

struct rule_index_node *
rule_index_find_uid(struct rule_index *ix, uint32_t uid)
{
	for (struct rule_index_node *n = *uid_bucket(ix, uid); n;
	     n = n->next_uid)
		if (n->uid == uid)
			return n;
	return NULL;
}

void
rule_index_insert(struct rule_index *ix, struct rule_index_node *node)
{
	struct rule_index_node **b = &ix->buckets[node->hash & ix->mask];

	node->next = *b;
	*b = node;
	node->uid = node->rule->uid;
	b = uid_bucket(ix, node->uid);
	node->next_uid = *b;
	*b = node;
	ix->n++;
}

void
rule_index_remove(struct rule_index *ix, struct rule_index_node *node)
{
	struct rule_index_node **p = &ix->buckets[node->hash & ix->mask];

	while (*p && *p != node)
		p = &(*p)->next;
	if (!*p)
		return;
	*p = node->next;
	ix->n--;
	for (p = uid_bucket(ix, node->uid); *p && *p != node;
	     p = &(*p)->next_uid)
		;
	if (*p)
		*p = node->next_uid;
}
