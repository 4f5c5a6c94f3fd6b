/* SPDX-License-Identifier: BSD-3-Clause
 * The ct_label predicate table (ct_label_pred.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "ct_label_pred.h"

static struct {
	struct ct_label_pred slot[FLOW_CT_LABEL_PREDS];
	uint16_t used;			/* slots holding a predicate */
	uint64_t renumbered_gen;	/* last gen a used slot was freed */
	uint64_t refused;
} lp;

bool
ct_label_pred_of(const struct ofp_rule *r, struct ct_label_pred *p)
{
	const uint64_t *m = r->meta_mask.ct_label, *v = r->meta_match.ct_label;

	if (!m[0] && !m[1])
		return false;
	for (int i = 0; i < 2; i++) {
		p->mask[i] = m[i];
		p->value[i] = v[i] & m[i];
	}
	return true;
}

static bool
pred_equal(const struct ct_label_pred *a, const struct ct_label_pred *b)
{
	return !memcmp(a, b, sizeof *a);
}

/* Slot of p among the slots in used, -1 if none */
static int
slot_of(const struct ct_label_pred *slots, uint16_t used,
	const struct ct_label_pred *p)
{
	for (int i = 0; i < FLOW_CT_LABEL_PREDS; i++)
		if ((used & (1u << i)) && pred_equal(&slots[i], p))
			return i;
	return -1;
}

int
ct_label_pred_find(const struct dp_snapshot *s, const struct ct_label_pred *p)
{
	return slot_of(s->label_preds, s->label_preds_used, p);
}

/* "0x1/0x1" (the low 64 bits alone when the high ones are zero) */
static void
put_pred(char *buf, size_t len, const struct ct_label_pred *p)
{
	char v[40], m[40];

	if (p->value[0])
		snprintf(v, sizeof v, "0x%" PRIx64 "%016" PRIx64, p->value[0],
			 p->value[1]);
	else
		snprintf(v, sizeof v, "%#" PRIx64, p->value[1]);
	if (p->mask[0])
		snprintf(m, sizeof m, "0x%" PRIx64 "%016" PRIx64, p->mask[0],
			 p->mask[1]);
	else
		snprintf(m, sizeof m, "%#" PRIx64, p->mask[1]);
	snprintf(buf, len, "%s/%s", v, m);
}

int
ct_label_preds_admit(const struct ofp_rule *batch, int n, int *bad,
		     char *err, size_t errlen)
{
	struct ct_label_pred fresh[FLOW_CT_LABEL_PREDS];
	int n_used = __builtin_popcount(lp.used), n_fresh = 0;

	for (int i = 0; i < n; i++) {
		struct ct_label_pred p;
		if (!ct_label_pred_of(&batch[i], &p) ||
		    slot_of(lp.slot, lp.used, &p) >= 0)
			continue;
		bool seen = false;
		for (int j = 0; j < n_fresh && !seen; j++)
			seen = pred_equal(&fresh[j], &p);
		if (seen)
			continue;
		if (n_used + n_fresh == FLOW_CT_LABEL_PREDS) {
			char tok[96];
			put_pred(tok, sizeof tok, &p);
			snprintf(err, errlen, "ct_label=%s: too many distinct "
				 "ct_label matches (the datapath tracks at most "
				 "%d ct_label=V/M predicates; the rules use %d)",
				 tok, FLOW_CT_LABEL_PREDS, n_used + n_fresh);
			*bad = i;
			lp.refused++;
			return -1;
		}
		fresh[n_fresh++] = p;
	}
	return 0;
}

void
ct_label_preds_publish(struct dp_snapshot *s)
{
	uint16_t referenced = 0;

	/* the predicates that stay keep their slots; only the tables with
	 * ct_label rules are read */
	for (int t = 0; t < OFP_N_TABLES; t++) {
		const struct dp_rule_table *rt = s->tables[t];
		for (uint32_t i = 0; rt && rt->n_label && i < rt->n_rules;
		     i++) {
			struct ct_label_pred p;
			if (!ct_label_pred_of(rt->rules[i], &p))
				continue;
			int k = slot_of(lp.slot, lp.used, &p);
			if (k >= 0)
				referenced |= (uint16_t)(1u << k);
		}
	}
	if (lp.used & ~referenced)
		lp.renumbered_gen = s->gen;
	lp.used = referenced;
	/* the new ones take the lowest free slots (admit made room) */
	for (int t = 0; t < OFP_N_TABLES; t++) {
		const struct dp_rule_table *rt = s->tables[t];
		for (uint32_t i = 0; rt && rt->n_label && i < rt->n_rules;
		     i++) {
			struct ct_label_pred p;
			if (!ct_label_pred_of(rt->rules[i], &p) ||
			    slot_of(lp.slot, lp.used, &p) >= 0)
				continue;
			uint32_t free_slots = ~(uint32_t)lp.used &
					      ((1u << FLOW_CT_LABEL_PREDS) - 1);
			if (!free_slots)	/* admit prevents it */
				continue;
			int k = __builtin_ctz(free_slots);
			lp.slot[k] = p;
			lp.used |= (uint16_t)(1u << k);
		}
	}
	s->label_preds_used = lp.used;
	s->label_preds_gen = lp.renumbered_gen;
	memcpy(s->label_preds, lp.slot, sizeof s->label_preds);
}

void
ct_label_preds_get_stats(struct ct_label_pred_stats *st)
{
	st->in_use = (uint32_t)__builtin_popcount(lp.used);
	st->refused = lp.refused;
}

void
ct_label_preds_reset(void)
{
	memset(&lp, 0, sizeof lp);
}
