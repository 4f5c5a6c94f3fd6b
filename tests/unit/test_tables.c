/* SPDX-License-Identifier: BSD-3-Clause
 * The control tables' limits (issue 9): neighbours, routes and OpenFlow
 * rules are bounded and refuse with an error naming the limit; learned
 * neighbours beyond it are refused and counted; learned entries age out
 * and static ones do not; 40,000 tnl/arp/set and 40,000 route adds (the
 * old uint16_t wrap and use-after-free) work; learned changes are
 * published in batches that name only the changed next hops. */
#include <stdio.h>
#include <string.h>
#include <rte_malloc.h>
#include "neigh.h"
#include "ofproto.h"
#include "route.h"
#include "unit_test.h"

static struct rte_rcu_qsbr *qsbr;

static rte_be32_t
ip4(uint32_t host)
{
	return rte_cpu_to_be_32(host);
}

static struct rte_ether_addr
mac_of(uint32_t n)
{
	struct rte_ether_addr m = { { 0x02, 0, (uint8_t)(n >> 24),
				      (uint8_t)(n >> 16), (uint8_t)(n >> 8),
				      (uint8_t)n } };
	return m;
}

static int
tables_init(uint32_t neighbours, uint32_t routes, uint32_t flows)
{
	static struct vxs_config cfg;
	char err[CFG_ERR_MAX];

	memset(&cfg, 0, sizeof cfg);
	cfg.max_neighbours = neighbours;
	cfg.max_routes = routes;
	cfg.max_flows = flows;
	if (ofproto_init(&cfg, qsbr, err, sizeof err)) {
		printf("ofproto_init: %s\n", err);
		return -1;
	}
	return 0;
}

static void
test_neigh_limit_and_learn(void)
{
	char err[256];
	struct rte_ether_addr m = mac_of(1);
	const struct neigh_stats *ns = neigh_get_stats();

	/* a learned flood of 150 distinct addresses into a 100-entry table */
	for (uint32_t i = 0; i < 150; i++) {
		struct rte_ether_addr mi = mac_of(i);
		neigh_learn(ip4(0x0a000001 + i), &mi);
	}
	CHECK(neigh_count() == 100, "count %u", neigh_count());
	CHECK(ns->learned == 100 && ns->learn_refused == 50,
	      "learned %lu refused %lu", ns->learned, ns->learn_refused);
	CHECK_EXPR(dp_snapshot_neigh(NULL, ip4(0x0a000001)) != NULL);
	CHECK_EXPR(dp_snapshot_neigh(NULL, ip4(0x0a000001 + 149)) == NULL);

	/* tnl/arp/set on a full table: a clear error naming the limit */
	int rc = neigh_set(ip4(0x0b000001), &m, err, sizeof err);
	CHECK(rc == -1 && strstr(err, "max-neighbours") && strstr(err, "100"),
	      "rc %d err '%s'", rc, err);
	CHECK_EXPR(ns->set_refused == 1);
	/* ... but a known address may change (static now, new MAC) */
	rc = neigh_set(ip4(0x0a000001), &m, err, sizeof err);
	CHECK(rc == 0, "rc %d err '%s'", rc, err);
	const struct neigh_entry *e = dp_snapshot_neigh(NULL, ip4(0x0a000001));
	CHECK_EXPR(e && e->is_static && rte_is_same_ether_addr(&e->mac, &m));
	/* a learn never overrides a static entry */
	struct rte_ether_addr other = mac_of(77);
	CHECK_EXPR(!neigh_learn(ip4(0x0a000001), &other));

	/* flush: every learned entry goes, the static one stays */
	CHECK(neigh_flush() == 99, "flush");
	CHECK_EXPR(neigh_count() == 1);
	CHECK_EXPR(dp_snapshot_neigh(NULL, ip4(0x0a000002)) == NULL);
}

static void
test_neigh_aging(void)
{
	char err[256];
	const struct neigh_stats *ns = neigh_get_stats();
	uint64_t aged0 = ns->aged, now;

	neigh_set_aging_s(1);
	for (uint32_t i = 0; i < 5; i++) {
		struct rte_ether_addr mi = mac_of(i);
		neigh_learn(ip4(0x0c000001 + i), &mi);
		CHECK_EXPR(neigh_set(ip4(0x0d000001 + i), &mi, err,
				     sizeof err) == 0);
	}
	now = vxs_now_ms();
	neigh_age(now);		/* not yet */
	CHECK_EXPR(neigh_count() == 11);
	const struct neigh_entry *e = dp_snapshot_neigh(NULL, ip4(0x0c000001));
	CHECK_EXPR(e && neigh_expires_in_ms(e, now) <= 1000);
	e = dp_snapshot_neigh(NULL, ip4(0x0d000001));
	CHECK_EXPR(e && neigh_expires_in_ms(e, now) == UINT64_MAX);
	neigh_age(now + 1500);
	CHECK(neigh_count() == 6, "count %u after aging", neigh_count());
	CHECK_EXPR(ns->aged - aged0 == 5);
	CHECK_EXPR(dp_snapshot_neigh(NULL, ip4(0x0c000001)) == NULL);
	CHECK_EXPR(dp_snapshot_neigh(NULL, ip4(0x0d000001)) != NULL);
	neigh_set_aging_s(NEIGH_AGING_DEFAULT_S);
}

static void
test_publish_batching(void)
{
	const struct dp_snapshot *s;
	uint64_t gen0 = ofproto_publish_neigh();	/* aging's, pending */

	ofproto_set_publish_interval_ms(100000);	/* not due */
	for (uint32_t i = 0; i < 3; i++) {
		struct rte_ether_addr mi = mac_of(i);
		neigh_learn(ip4(0x0e000003 - i), &mi);
	}
	ofproto_tick();
	CHECK(dp_snapshot_get()->gen == gen0, "learning published at once");
	ofproto_set_publish_interval_ms(0);
	ofproto_tick();
	s = dp_snapshot_get();
	CHECK_EXPR(s->gen == gen0 + 1 && !s->reval_all);
	CHECK(s->n_neigh_changed == 3, "%u changed", s->n_neigh_changed);
	CHECK_EXPR(dp_snapshot_neigh_changed(s, ip4(0x0e000001)) &&
		   dp_snapshot_neigh_changed(s, ip4(0x0e000003)) &&
		   !dp_snapshot_neigh_changed(s, ip4(0x0e000004)));
	ofproto_tick();		/* nothing changed: nothing published */
	CHECK_EXPR(dp_snapshot_get()->gen == gen0 + 1);
	ofproto_set_publish_interval_ms(OFPROTO_PUBLISH_INTERVAL_DEFAULT_MS);
}

static void
test_routes(void)
{
	char err[256];
	const struct route_entry *r;
	int rc = 0;

	CHECK_EXPR(route_insert(ip4(0), 0, ip4(0x01010101), 0, false, err,
				sizeof err) == 0);
	CHECK_EXPR(route_insert(ip4(0x0a000000), 8, ip4(0x0a0000fe), 0, false,
				err, sizeof err) == 0);
	CHECK_EXPR(route_insert(ip4(0x0a010000), 16, 0, 0, true, err,
				sizeof err) == 0);
	CHECK_EXPR(route_insert(ip4(0x0a010203), 32, ip4(0x0a0101fe), 0,
				false, err, sizeof err) == 0);
	r = dp_snapshot_route(NULL, ip4(0x0a010203));
	CHECK_EXPR(r && r->plen == 32);
	r = dp_snapshot_route(NULL, ip4(0x0a010204));
	CHECK_EXPR(r && r->plen == 16 && r->connected);
	r = dp_snapshot_route(NULL, ip4(0x0a020304));
	CHECK_EXPR(r && r->plen == 8);
	r = dp_snapshot_route(NULL, ip4(0xc0a80001));
	CHECK_EXPR(r && r->plen == 0);
	CHECK_EXPR(route_remove(ip4(0x0a010000), 16) == 0);
	r = dp_snapshot_route(NULL, ip4(0x0a010204));
	CHECK_EXPR(r && r->plen == 8);
	CHECK_EXPR(route_remove(ip4(0x0a010000), 16) == -1);
	/* replacing a route keeps the count */
	CHECK_EXPR(route_insert(ip4(0x0a000000), 8, ip4(0x0a0000fd), 0, false,
				err, sizeof err) == 0);
	r = dp_snapshot_route(NULL, ip4(0x0a020304));
	CHECK_EXPR(r && neigh_addr_to4(&r->gateway) == ip4(0x0a0000fd));
	CHECK_EXPR(route_count() == 3);

	/* full at 50 */
	for (uint32_t i = 0; i < 60 && rc == 0; i++)
		rc = route_insert(ip4(0x14000000 + (i << 8)), 24, 0, 0, false,
				  err, sizeof err);
	CHECK(rc == -1 && strstr(err, "max-routes") && strstr(err, "50"),
	      "rc %d err '%s'", rc, err);
	CHECK(route_count() == 50, "%u routes", route_count());
	CHECK_EXPR(route_refused() == 1);

	uint32_t n;
	struct route_entry *v = route_list(&n);
	CHECK_EXPR(v && n == 50 && v[0].plen == 32 && v[n - 1].plen == 0);
	free(v);
}

static void
test_rule_limit(void)
{
	const char *four[] = { "priority=1,ip,nw_dst=1.0.0.1,actions=drop",
			       "priority=1,ip,nw_dst=1.0.0.2,actions=drop",
			       "priority=1,ip,nw_dst=1.0.0.3,actions=drop",
			       "priority=1,ip,nw_dst=1.0.0.4,actions=drop" };
	char err[256];
	int bad = 0, rc;

	rc = ofproto_add_flows(four, 4, &bad, err, sizeof err);
	CHECK(rc == -1 && bad == -1 && strstr(err, "max-flows"),
	      "rc %d bad %d err '%s'", rc, bad, err);
	CHECK_EXPR(ofproto_n_rules() == 0);
	CHECK(ofproto_add_flows(four, 3, &bad, err, sizeof err) == 0, "%s",
	      err);
	rc = ofproto_add_flows(four + 3, 1, &bad, err, sizeof err);
	CHECK_EXPR(rc == -1 && ofproto_n_rules() == 3);
	/* same match: replaces, no new rule */
	CHECK_EXPR(ofproto_add_flows(four, 1, &bad, err, sizeof err) == 0);
	/* a batch repeating one match counts it once */
	const char *dup[] = { four[3], four[3] };
	CHECK_EXPR(ofproto_del_flows("ip,nw_dst=1.0.0.1", false, err,
				     sizeof err) == 1);
	CHECK(ofproto_add_flows(dup, 2, &bad, err, sizeof err) == 0, "%s",
	      err);
	CHECK_EXPR(ofproto_n_rules() == 3);
}

/* add-flow on an existing match replaces the actions and the sg()/ct()
 * specs they point into: sg(allow,zone=5) replaced by sg(deny,zone=7)
 * must not keep allowing (the specs were once left behind, zeroed or
 * stale). */
static const struct ofp_rule *
rule_with_priority(uint16_t priority)
{
	for (uint32_t i = 0; i < ofproto_n_rules(); i++)
		if (ofproto_rule(i)->priority == priority)
			return ofproto_rule(i);
	return NULL;
}

static void
test_replace_sg(void)
{
	const char *allow = "priority=7,ip,nw_dst=1.0.0.9,"
			    "actions=sg(allow,zone=5)";
	const char *deny = "priority=7,ip,nw_dst=1.0.0.9,"
			   "actions=sg(deny,zone=7)";
	const char *plain = "priority=7,ip,nw_dst=1.0.0.9,actions=drop";
	char err[256];
	int bad = 0;

	CHECK(ofproto_add_flows(&allow, 1, &bad, err, sizeof err) == 0, "%s",
	      err);
	CHECK(ofproto_add_flows(&deny, 1, &bad, err, sizeof err) == 0, "%s",
	      err);
	const struct ofp_rule *r = rule_with_priority(7);
	CHECK_EXPR(r && r->n_actions == 1 && r->n_ct == 1);
	CHECK(r && !r->ct[0].allow && r->ct[0].is_sg && r->ct[0].zone == 7 &&
	      r->ct[0].zone_reg == -1, "allow %d zone %u reg %d",
	      r ? r->ct[0].allow : -1, r ? r->ct[0].zone : 0,
	      r ? r->ct[0].zone_reg : 0);
	CHECK(ofproto_add_flows(&plain, 1, &bad, err, sizeof err) == 0, "%s",
	      err);
	r = rule_with_priority(7);
	CHECK_EXPR(r && r->n_actions == 0 && r->n_ct == 0);
	CHECK_EXPR(ofproto_del_flows("priority=7,ip,nw_dst=1.0.0.9", true,
				     err, sizeof err) == 1);
}

/* The old uint16_t capacities wrapped at 32,768 (use after free). */
static void
test_many(void)
{
	char err[256];
	int bad_n = 0, bad_r = 0;

	for (uint32_t i = 0; i < 40000; i++) {
		struct rte_ether_addr mi = mac_of(i);
		bad_n += neigh_set(ip4(0x0a000000 + i), &mi, err,
				   sizeof err) != 0;
		bad_r += route_insert(ip4(0x0b000000 + i), 32, 0, 0, false,
				      err, sizeof err) != 0;
	}
	CHECK(!bad_n && !bad_r, "%d %d refused: %s", bad_n, bad_r, err);
	CHECK_EXPR(neigh_count() == 40000 && route_count() == 40000);
	uint32_t found = 0;
	for (uint32_t i = 0; i < 40000; i++) {
		const struct neigh_entry *e =
			dp_snapshot_neigh(NULL, ip4(0x0a000000 + i));
		struct rte_ether_addr mi = mac_of(i);
		found += e && rte_is_same_ether_addr(&e->mac, &mi) &&
			 dp_snapshot_route(NULL, ip4(0x0b000000 + i)) != NULL;
	}
	CHECK(found == 40000, "%u found", found);
	/* new MACs for all: each takes a fresh slot, old ones reclaimed */
	for (uint32_t i = 0; i < 40000; i++) {
		struct rte_ether_addr mi = mac_of(i + 1);
		bad_n += neigh_set(ip4(0x0a000000 + i), &mi, err,
				   sizeof err) != 0;
	}
	CHECK(!bad_n && neigh_count() == 40000, "%d refused: %s", bad_n, err);
}

int
main(void)
{
	if (unit_test_eal_init("test_tables", "256"))
		return 1;
	qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(2), 64);
	if (!qsbr || rte_rcu_qsbr_init(qsbr, 2))
		return 1;
	/* a reader that is always quiescent when we look: RCU paths run */
	rte_rcu_qsbr_thread_register(qsbr, 1);
	rte_rcu_qsbr_thread_online(qsbr, 1);
	rte_rcu_qsbr_thread_offline(qsbr, 1);

	if (tables_init(100, 50, 3))
		return 1;
	test_neigh_limit_and_learn();
	test_neigh_aging();
	test_publish_batching();
	test_routes();
	test_rule_limit();
	ofproto_fini();

	if (tables_init(65536, 65536, 0))
		return 1;
	test_many();
	test_replace_sg();
	ofproto_fini();

	rte_free(qsbr);
	rte_eal_cleanup();
	return unit_test_report();
}
