/* SPDX-License-Identifier: BSD-3-Clause
 * The rule table's struct entry points (ofproto_add_rules, _mod_rules,
 * _del_rules), which the OpenFlow channel calls with decoded flow_mods:
 * they do what the text ones do, and each refusal names the OpenFlow
 * error OVS sends for it (OFPFMFC_TABLE_FULL, OFPFMFC_OVERLAP,
 * OFPFMFC_BAD_TABLE_ID), changing nothing.
 */
#include <stdio.h>
#include <string.h>
#include <rte_malloc.h>
#include "ofproto.h"
#include "unit_test.h"

static struct rte_rcu_qsbr *qsbr;

static struct ofp_rule
rule(const char *text, enum ofp_parse_mode mode)
{
	struct ofp_rule r;
	char err[256];

	CHECK(ofp_parse_flow(text, mode, ports_ofp_map_adding(), &r, err,
			     sizeof err) == 0, "%s: %s", text, err);
	return r;
}

static void
test_struct_rules(void)
{
	struct ofp_rule b[4];
	enum ofp_wire_error why = OFPW_OK;
	char err[256];
	int bad = 0, rc;

	for (int i = 0; i < 4; i++) {
		char t[128];
		snprintf(t, sizeof t, "priority=1,ip,nw_dst=1.0.0.%d,"
			 "actions=drop", i + 1);
		b[i] = rule(t, OFP_PARSE_ADD);
	}
	/* past max-flows (3): all refused, OFPFMFC_TABLE_FULL */
	rc = ofproto_add_rules(b, 4, &bad, &why, err, sizeof err);
	CHECK(rc == -1 && bad == -1 && why == OFPW_FMFC_TABLE_FULL &&
	      ofproto_n_rules() == 0, "rc %d bad %d why %s", rc, bad,
	      ofp_wire_err_name(why));
	CHECK(ofproto_add_rules(b, 2, &bad, &why, err, sizeof err) == 0,
	      "%s", err);
	CHECK_EXPR(ofproto_n_rules() == 2);
	/* check_overlap against a rule of the table: OFPFMFC_OVERLAP */
	struct ofp_rule ov = rule("priority=1,ip,check_overlap,actions=drop",
				  OFP_PARSE_ADD);
	rc = ofproto_add_rules(&ov, 1, &bad, &why, err, sizeof err);
	CHECK(rc == -1 && bad == 0 && why == OFPW_FMFC_OVERLAP,
	      "rc %d why %s", rc, ofp_wire_err_name(why));
	/* table 255 is no table for a rule */
	struct ofp_rule t255 = b[2];
	t255.table_id = OFP_TABLE_ALL;
	rc = ofproto_add_rules(&t255, 1, &bad, &why, err, sizeof err);
	CHECK(rc == -1 && why == OFPW_FMFC_BAD_TABLE_ID, "rc %d why %s", rc,
	      ofp_wire_err_name(why));
	CHECK_EXPR(ofproto_n_rules() == 2);
	/* modify: the filter's actions land in the rules it selects */
	struct ofp_rule mod = rule("ip,nw_dst=1.0.0.1,actions=output:1",
				   OFP_PARSE_MODIFY);
	CHECK_EXPR(ofproto_mod_rules(&mod, false, &why, err, sizeof err) == 1);
	CHECK_EXPR(ofproto_rule(0)->n_actions == 1 ||
		   ofproto_rule(1)->n_actions == 1);
	struct ofp_rule none = rule("ip,nw_dst=9.9.9.9,actions=output:1",
				    OFP_PARSE_MODIFY);
	CHECK_EXPR(ofproto_mod_rules(&none, true, &why, err, sizeof err) == 0);
	/* delete: strict needs the priority, loose does not */
	struct ofp_rule del = rule("ip,nw_dst=1.0.0.2", OFP_PARSE_MATCH);
	CHECK_EXPR(ofproto_del_rules(&del, true) == 0);
	CHECK_EXPR(ofproto_del_rules(&del, false) == 1);
	struct ofp_rule all = rule("", OFP_PARSE_MATCH);
	CHECK_EXPR(ofproto_del_rules(&all, false) == 1);
	CHECK_EXPR(ofproto_n_rules() == 0);
}

int
main(void)
{
	static struct vxs_config cfg;
	char err[CFG_ERR_MAX];

	if (unit_test_eal_init("test_ofproto_rules", "256"))
		return 1;
	qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(2), 64);
	if (!qsbr || rte_rcu_qsbr_init(qsbr, 2))
		return 1;
	rte_rcu_qsbr_thread_register(qsbr, 1);
	rte_rcu_qsbr_thread_online(qsbr, 1);
	rte_rcu_qsbr_thread_offline(qsbr, 1);
	memset(&cfg, 0, sizeof cfg);
	cfg.max_neighbours = 16;
	cfg.max_routes = 16;
	cfg.max_flows = 3;
	if (ofproto_init(&cfg, qsbr, err, sizeof err)) {
		printf("ofproto_init: %s\n", err);
		return 1;
	}
	test_struct_rules();
	ofproto_fini();
	rte_free(qsbr);
	rte_eal_cleanup();
	return unit_test_report();
}
