/* SPDX-License-Identifier: BSD-3-Clause
 * The rule identity index (app/ofproto/rule_index.c) and check_overlap's
 * test: 20 000 parsed rules (4 tables, 5 priorities, nw_dst, some with a
 * register or IPv6 match) each found by a copy parsed again, a different
 * priority, table or mask not found, removal of every other one, the
 * chain walked stays short; the same rules by uid; flags and importance
 * parsed and printed back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ofp_rule.h"
#include "rule_index.h"

static int n_passed, n_failed;

#define CHECK(ok, ...) do { \
	if (ok) { n_passed++; break; } \
	n_failed++; printf("FAIL (line %d): ", __LINE__); \
	printf(__VA_ARGS__); printf("\n"); \
} while (0)

#define N 20000

static void
text(int i, char *buf, size_t len)
{
	if (i % 7 == 0)
		snprintf(buf, len, "table=%d,priority=%d,ipv6,ipv6_dst=fd00::%x,"
			 "actions=drop", i % 4, 100 + i % 5, i);
	else if (i % 5 == 0)
		snprintf(buf, len, "table=%d,priority=%d,ip,reg3=%d,"
			 "nw_dst=10.%d.%d.0/24,actions=drop", i % 4,
			 100 + i % 5, i, (i >> 8) & 255, i & 255);
	else
		snprintf(buf, len, "table=%d,priority=%d,ip,nw_dst=10.%d.%d.%d,"
			 "actions=drop", i % 4, 100 + i % 5, (i >> 16) & 255,
			 (i >> 8) & 255, i & 255);
}

static bool
parse(const char *s, enum ofp_parse_mode mode, struct ofp_rule *r)
{
	char err[256];

	if (ofp_parse_flow(s, mode, NULL, r, err, sizeof err)) {
		printf("parse '%s': %s\n", s, err);
		return false;
	}
	return true;
}

static void
test_index(void)
{
	struct ofp_rule *rules = calloc(N, sizeof *rules);
	struct rule_index_node *nodes = calloc(N, sizeof *nodes);
	struct rule_index ix;
	char buf[256];
	int bad = 0;

	CHECK(rules && nodes && !rule_index_init(&ix, N), "init");
	for (int i = 0; i < N; i++) {
		text(i, buf, sizeof buf);
		bad += !parse(buf, OFP_PARSE_ADD, &rules[i]);
		rules[i].uid = (uint32_t)i + 1;
		nodes[i].rule = &rules[i];
		nodes[i].hash = rule_index_hash(&rules[i]);
		bad += rule_index_find(&ix, &rules[i], nodes[i].hash) != NULL;
		rule_index_insert(&ix, &nodes[i]);
	}
	CHECK(!bad && ix.n == N, "%d bad, %u in", bad, ix.n);
	/* found by a copy parsed again (a strict filter's way: a del-flows
	 * filter, table given) */
	bad = 0;
	for (int i = 0; i < N; i++) {
		struct ofp_rule f;
		text(i, buf, sizeof buf);
		*strstr(buf, ",actions=") = '\0';
		bad += !parse(buf, OFP_PARSE_MATCH, &f);
		bad += rule_index_find(&ix, &f, rule_index_hash(&f)) !=
		       &nodes[i];
	}
	CHECK(!bad, "%d rules not found by their filter", bad);
	/* another priority, table or mask: another rule */
	struct ofp_rule r = rules[1];
	r.priority++;
	CHECK(!rule_index_find(&ix, &r, rule_index_hash(&r)) ||
	      rule_index_find(&ix, &r, rule_index_hash(&r))->rule->priority ==
	      r.priority, "priority");
	r = rules[1];
	r.table_id = 9;
	CHECK(!rule_index_find(&ix, &r, rule_index_hash(&r)), "table");
	CHECK(parse("table=1,priority=101,ip,nw_dst=10.0.0.1/31,actions=drop",
		    OFP_PARSE_ADD, &r) &&
	      !rule_index_find(&ix, &r, rule_index_hash(&r)), "mask");
	CHECK(ix.longest <= 12, "longest chain %u for %d rules in %u buckets",
	      ix.longest, N, ix.mask + 1);
	/* every other one removed: those gone, the rest still found */
	for (int i = 0; i < N; i += 2)
		rule_index_remove(&ix, &nodes[i]);
	bad = 0;
	for (int i = 0; i < N; i++) {
		struct rule_index_node *n = rule_index_find(&ix, &rules[i],
							    nodes[i].hash);
		bad += i % 2 ? n != &nodes[i] : n != NULL;
	}
	CHECK(!bad && ix.n == N / 2, "%d wrong after removal, %u in", bad,
	      ix.n);
	/* by uid: the one inserted under it, none once removed, even when
	 * the rule's uid was cleared first (flow_table.c marks rules so) */
	bad = 0;
	for (int i = 0; i < N; i++)
		bad += rule_index_find_uid(&ix, (uint32_t)i + 1) !=
		       (i % 2 ? &nodes[i] : NULL);
	CHECK(!bad && !rule_index_find_uid(&ix, N + 1), "%d by uid", bad);
	rules[1].uid = 0;
	rule_index_remove(&ix, &nodes[1]);
	CHECK(!rule_index_find_uid(&ix, 2) &&
	      !rule_index_find(&ix, &rules[1], nodes[1].hash), "uid cleared");
	rule_index_fini(&ix);
	free(rules);
	free(nodes);
}

static void
test_overlap_and_flags(void)
{
	struct ofp_rule a, b;
	char buf[256];

	CHECK(parse("priority=10,ip,actions=drop", OFP_PARSE_ADD, &a) &&
	      parse("priority=10,ip,nw_dst=10.0.0.3,check_overlap,actions=drop",
		    OFP_PARSE_ADD, &b), "parse");
	CHECK(ofp_rule_overlaps(&a, &b), "ip and ip,nw_dst overlap");
	CHECK(parse("priority=10,ip,nw_dst=10.0.0.4,actions=drop",
		    OFP_PARSE_ADD, &a) && !ofp_rule_overlaps(&a, &b),
	      "two nw_dst do not");
	CHECK(parse("priority=11,ip,actions=drop", OFP_PARSE_ADD, &a) &&
	      !ofp_rule_overlaps(&a, &b), "another priority does not");
	CHECK(parse("table=2,priority=10,ip,actions=drop", OFP_PARSE_ADD, &a)
	      && !ofp_rule_overlaps(&a, &b), "another table does not");
	CHECK(parse("priority=10,reg1=5,actions=drop", OFP_PARSE_ADD, &a) &&
	      ofp_rule_overlaps(&a, &b), "a register and ip overlap");
	CHECK(parse("send_flow_rem,no_byte_counts,importance=9,priority=1,"
		    "actions=drop", OFP_PARSE_ADD, &a), "flags");
	ofp_format_fmod_words(&a, buf, sizeof buf);
	CHECK(!strcmp(buf, "send_flow_rem,no_byte_counts,importance=9,"),
	      "words: %s", buf);
	ofp_format_fmod_dump(&a, buf, sizeof buf);
	CHECK(!strcmp(buf, "send_flow_rem no_byte_counts importance=9, "),
	      "dump: %s", buf);
	char err[256];
	CHECK(ofp_parse_flow("send_flow_rem=1,actions=drop", OFP_PARSE_ADD,
			     NULL, &a, err, sizeof err) &&
	      strstr(err, "takes no value"), "a flag with a value: %s", err);
	CHECK(ofp_parse_flow("importance=70000,actions=drop", OFP_PARSE_ADD,
			     NULL, &a, err, sizeof err), "importance range");
	CHECK(ofp_parse_flow("out_port=1,actions=drop", OFP_PARSE_ADD,
			     NULL, &a, err, sizeof err) &&
	      strstr(err, "out_port"), "out_port in a new rule: %s", err);
	CHECK(parse("out_port=7", OFP_PARSE_MATCH, &a) && a.out_port == 7,
	      "out_port in a filter");
}

int
main(void)
{
	test_index();
	test_overlap_and_flags();
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
