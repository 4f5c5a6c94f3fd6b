/* SPDX-License-Identifier: BSD-3-Clause
 * The per-table subtable index (app/ofproto/rule_tss.c) against the
 * table scan classify() does: 2 000 random rules of 6 shapes (so a few
 * subtables, many rules each) with priorities 1..8 (ties, decided by
 * age; the /16 shape 1..3 only), 20 000 random keys near them: the index finds the same rule as a
 * scan of the table in order, every time; it stops early (probes fewer
 * subtables than it has) on some; conjunction and ct_label rules are left
 * out and counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include "dp_rule_table.h"
#include "ct_label_pred.h"
#include "rule_tss.h"
#include "unit_test.h"

#define N_RULES 2000
#define N_KEYS 20000

static struct ofp_rule rules[N_RULES + 2];

static unsigned
rnd(unsigned n)
{
	return (unsigned)rand() % n;
}

static void
random_rule(char *buf, size_t len)
{
	unsigned p = 1 + rnd(8);

	switch (rnd(6)) {
	case 0:
		snprintf(buf, len, "priority=%u,ip,nw_dst=10.%u.%u.0/24,"
			 "actions=drop", p, rnd(8), rnd(8));
		break;
	case 1:		/* lower: the lookups that beat it stop early */
		snprintf(buf, len, "priority=%u,ip,nw_dst=10.%u.0.0/16,"
			 "actions=drop", 1 + rnd(3), rnd(8));
		break;
	case 2:
		snprintf(buf, len, "priority=%u,udp,tp_dst=%u,actions=drop",
			 p, 1 + rnd(8));
		break;
	case 3:
		snprintf(buf, len, "priority=%u,in_port=%u,actions=drop", p,
			 1 + rnd(8));
		break;
	case 4:
		snprintf(buf, len, "priority=%u,reg0=%u,ip,actions=drop", p,
			 rnd(8));
		break;
	default:
		snprintf(buf, len, "priority=%u,udp,nw_src=192.168.%u.%u,"
			 "tp_dst=%u,actions=drop", p, rnd(4), rnd(4),
			 1 + rnd(8));
		break;
	}
}

static void
random_key(struct flow_key *k, struct ofp_meta *m)
{
	flow_key_zero(k);
	memset(m, 0, sizeof *m);
	k->in_port = 1 + rnd(9);
	k->dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	k->nw_proto = rnd(4) ? 17 : 6;
	k->nw_src = rte_cpu_to_be_32(0xc0a80000 | rnd(5) << 8 | rnd(5));
	k->nw_dst = rte_cpu_to_be_32(0x0a000000 | rnd(9) << 16 |
				     rnd(9) << 8 | rnd(256));
	k->tp_dst = rte_cpu_to_be_16((uint16_t)(1 + rnd(9)));
	m->regs[0] = rnd(9);
}

/* classify()'s answer among the rules the index takes: the first in
 * table order that matches (conjunction and ct_label rules skipped). */
static const struct ofp_rule *
scan(const struct dp_rule_table *t, const struct flow_key *k,
     const struct ofp_meta *m)
{
	for (uint32_t i = 0; i < t->n_rules; i++) {
		const struct ofp_rule *r = t->rules[i];
		struct ct_label_pred p;
		uint64_t diff = 0;
		if ((r->n_actions &&
		     r->actions[0].type == OFPACT_CONJUNCTION) ||
		    ct_label_pred_of(r, &p))
			continue;
		for (int w = 0; w < RULE_TSS_META_WORDS; w++)
			diff |= (m->w[w] & r->meta_mask.w[w]) ^
				r->meta_match.w[w];
		if (!diff && flow_key_match(k, &r->match, &r->mask))
			return r;
	}
	return NULL;
}

int
main(void)
{
	static const char *const extra[] = {
		"priority=9,ip,actions=conjunction(1,1/2)",
		"priority=9,ct_state=+trk,ct_label=0x1/0x1,actions=drop",
	};
	struct dp_snapshot s;
	struct rule_tss idx;
	char text[160], err[256];
	uint32_t n_sub_total = 0, early = 0, bad = 0, hits = 0;

	srand(26);
	for (uint32_t i = 0; i < N_RULES + 2; i++) {
		if (i < N_RULES)
			random_rule(text, sizeof text);
		else
			snprintf(text, sizeof text, "%s", extra[i - N_RULES]);
		CHECK(ofp_parse_flow(text, OFP_PARSE_ADD, NULL, &rules[i], err,
				     sizeof err) == 0, "%s: %s", text, err);
		rules[i].uid = i + 1;
	}
	memset(&s, 0, sizeof s);
	CHECK_EXPR(dp_snapshot_set_rules(&s, rules, N_RULES + 2) == 0);
	const struct dp_rule_table *t = s.tables[0];
	CHECK_EXPR(rule_tss_build(&idx, t) == 0);
	CHECK(idx.n_rules == N_RULES && idx.n_unindexed == 2 &&
	      idx.n_sub >= 6 && idx.n_sub < 20, "%u indexed, %u not, %u "
	      "subtables", idx.n_rules, idx.n_unindexed, idx.n_sub);
	for (uint32_t s1 = 1; s1 < idx.n_sub; s1++)
		CHECK(idx.sub[s1 - 1].max_priority >=
		      idx.sub[s1].max_priority, "subtable %u out of order",
		      s1);

	for (int i = 0; i < N_KEYS; i++) {
		struct flow_key k;
		struct ofp_meta m;
		uint32_t probed;
		random_key(&k, &m);
		const struct ofp_rule *want = scan(t, &k, &m);
		const struct ofp_rule *got = rule_tss_lookup(&idx, &k, &m,
							     &probed);
		hits += want != NULL;
		if (got != want && bad++ < 5)
			printf("key %d: scan rule %u, index rule %u\n", i,
			       want ? want->uid : 0, got ? got->uid : 0);
		early += probed < idx.n_sub;
		n_sub_total += probed;
	}
	CHECK(bad == 0, "%u of %d keys found another rule", bad, N_KEYS);
	CHECK(hits > N_KEYS / 2 && hits < N_KEYS, "%u of %d keys match: the "
	      "keys should mostly, not all, hit", hits, N_KEYS);
	CHECK(early > 0, "no lookup stopped early");
	printf("%u subtables, %.2f probed a lookup, %u of %d stopped early\n",
	       idx.n_sub, (double)n_sub_total / N_KEYS, early, N_KEYS);

	/* an empty table */
	rule_tss_fini(&idx);
	CHECK_EXPR(rule_tss_build(&idx, NULL) == 0 &&
		   rule_tss_lookup(&idx, &(struct flow_key){ 0 },
				   &(struct ofp_meta){ 0 }, NULL) == NULL);
	rule_tss_fini(&idx);
	dp_snapshot_tables_release(&s);
	return unit_test_report();
}
