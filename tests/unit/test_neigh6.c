/* SPDX-License-Identifier: BSD-3-Clause
 * The neighbour and route tables with both families in them
 * (design-ipv6-underlay.md, step 3): one neighbour table keyed by 16-byte
 * addresses, IPv4 mapped, one bound, one aging, static and learned
 * entries for both; address digests for revalidation (IPv4's the address
 * itself); one route table whose IPv4 lookups see IPv4 routes only and
 * IPv6 lookups IPv6 ones, longest prefix first. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <rte_malloc.h>
#include "neigh.h"
#include "ofproto.h"
#include "route.h"
#include "unit_test.h"

static struct rte_rcu_qsbr *qsbr;

static struct flow_in6_addr
a6(const char *s)
{
	struct flow_in6_addr a;

	if (inet_pton(AF_INET6, s, a.a) != 1)
		memset(&a, 0xee, sizeof a);
	return a;
}

static rte_be32_t
ip4(const char *s)
{
	rte_be32_t ip = 0;

	inet_pton(AF_INET, s, &ip);
	return ip;
}

static struct rte_ether_addr
mac_of(uint32_t n)
{
	return (struct rte_ether_addr){ { 0x02, 0, (uint8_t)(n >> 24),
					  (uint8_t)(n >> 16),
					  (uint8_t)(n >> 8), (uint8_t)n } };
}

static int
tables_init(uint32_t neighbours, uint32_t routes)
{
	static struct vxs_config cfg;
	char err[CFG_ERR_MAX];

	memset(&cfg, 0, sizeof cfg);
	cfg.max_neighbours = neighbours;
	cfg.max_routes = routes;
	if (ofproto_init(&cfg, qsbr, err, sizeof err)) {
		printf("ofproto_init: %s\n", err);
		return -1;
	}
	return 0;
}

static void
test_addr_helpers(void)
{
	struct flow_in6_addr m = neigh_addr_from4(ip4("10.1.2.3"));
	struct flow_in6_addr ref = a6("::ffff:10.1.2.3");
	struct flow_in6_addr v6 = a6("2001:db8::1");

	CHECK_EXPR(!memcmp(&m, &ref, sizeof m));
	CHECK_EXPR(neigh_addr_is4(&m) && !neigh_addr_is4(&v6));
	CHECK_EXPR(neigh_addr_to4(&m) == ip4("10.1.2.3"));
	/* IPv4: the address is its own digest, nothing changes for IPv4 */
	CHECK_EXPR(neigh_addr_digest(&m) == ip4("10.1.2.3"));
	CHECK_EXPR(neigh_addr_digest(&v6) != 0);
	struct flow_in6_addr v6b = a6("2001:db8::2");
	CHECK_EXPR(neigh_addr_digest(&v6) != neigh_addr_digest(&v6b));
	struct flow_in6_addr zero = { { 0 } };
	CHECK_EXPR(neigh_addr_is_zero(&zero) && !neigh_addr_is_zero(&m));
}

/* Learn, static, bound, flush: one table, both families. */
static void
test_neigh_both_families(void)
{
	char err[256];
	const struct neigh_stats *ns = neigh_get_stats();
	struct rte_ether_addr m1 = mac_of(1), m2 = mac_of(2);
	struct flow_in6_addr x = a6("2001:db8::10");
	uint64_t learned0 = ns->learned;

	CHECK_EXPR(neigh_learn6(&x, &m1));
	CHECK_EXPR(neigh_learn(ip4("10.0.0.1"), &m1));
	CHECK_EXPR(ns->learned - learned0 == 2);
	const struct neigh_entry *e = dp_snapshot_neigh6(NULL, &x);
	CHECK_EXPR(e && !e->is_static && rte_is_same_ether_addr(&e->mac, &m1));
	/* the IPv4 one is found by its mapped address too, and the IPv6
	 * one never by an IPv4 address sharing its low 32 bits */
	struct flow_in6_addr m = neigh_addr_from4(ip4("10.0.0.1"));
	CHECK_EXPR(dp_snapshot_neigh6(NULL, &m) ==
		   dp_snapshot_neigh(NULL, ip4("10.0.0.1")));
	CHECK_EXPR(dp_snapshot_neigh(NULL, neigh_addr_to4(&x)) == NULL);
	/* the same again: no change; a new MAC: a change */
	CHECK_EXPR(!neigh_learn6(&x, &m1));
	CHECK_EXPR(neigh_learn6(&x, &m2));
	e = dp_snapshot_neigh6(NULL, &x);
	CHECK_EXPR(e && rte_is_same_ether_addr(&e->mac, &m2));
	/* static: a learn never overrides it */
	struct flow_in6_addr y = a6("2001:db8::20");
	CHECK_EXPR(neigh_set6(&y, &m1, err, sizeof err) == 0);
	CHECK_EXPR(!neigh_learn6(&y, &m2));
	e = dp_snapshot_neigh6(NULL, &y);
	CHECK_EXPR(e && e->is_static && rte_is_same_ether_addr(&e->mac, &m1));
	/* static over learned */
	CHECK_EXPR(neigh_set6(&x, &m2, err, sizeof err) == 0);
	CHECK_EXPR(dp_snapshot_neigh6(NULL, &x)->is_static);

	/* one bound for both families (10 here; 3 in use): the eighth of
	 * these is refused, whichever family */
	CHECK_EXPR(neigh_count() == 3);
	uint64_t refused0 = ns->learn_refused;
	for (uint32_t i = 0; i < 8; i++) {
		struct flow_in6_addr z = a6("2001:db8:1::");
		struct rte_ether_addr mi = mac_of(100 + i);
		z.a[15] = (uint8_t)(i + 1);
		if (i % 2)
			neigh_learn6(&z, &mi);
		else
			neigh_learn(rte_cpu_to_be_32(0x0b000001 + i), &mi);
	}
	CHECK(neigh_count() == 10, "count %u", neigh_count());
	CHECK_EXPR(ns->learn_refused - refused0 == 1);
	struct flow_in6_addr w = a6("2001:db8::99");
	int rc = neigh_set6(&w, &m1, err, sizeof err);
	CHECK(rc == -1 && strstr(err, "max-neighbours") && strstr(err, "10"),
	      "rc %d '%s'", rc, err);

	/* flush: learned of both families go, static ones of both stay */
	CHECK_EXPR(neigh_set(ip4("10.0.0.1"), &m1, err, sizeof err) == 0);
	uint32_t flushed = neigh_flush();
	CHECK(flushed == 7, "flushed %u", flushed);
	CHECK_EXPR(neigh_count() == 3);
	CHECK_EXPR(dp_snapshot_neigh6(NULL, &x) && dp_snapshot_neigh6(NULL, &y));
	CHECK_EXPR(dp_snapshot_neigh(NULL, ip4("10.0.0.1")) != NULL);
}

static void
test_neigh_aging6(void)
{
	const struct neigh_stats *ns = neigh_get_stats();
	uint64_t aged0 = ns->aged;
	struct flow_in6_addr l = a6("fd00::1");
	struct rte_ether_addr m = mac_of(9);

	neigh_flush();
	uint32_t n0 = neigh_count();
	neigh_set_aging_s(1);
	CHECK_EXPR(neigh_learn6(&l, &m));
	CHECK_EXPR(neigh_learn(ip4("10.9.9.9"), &m));
	uint64_t now = vxs_now_ms();
	neigh_age(now);
	CHECK_EXPR(neigh_count() == n0 + 2);
	const struct neigh_entry *e = dp_snapshot_neigh6(NULL, &l);
	CHECK_EXPR(e && neigh_expires_in_ms(e, now) <= 1000);
	neigh_age(now + 1500);
	CHECK(neigh_count() == n0, "count %u", neigh_count());
	CHECK_EXPR(ns->aged - aged0 == 2);
	CHECK_EXPR(dp_snapshot_neigh6(NULL, &l) == NULL);
	neigh_set_aging_s(NEIGH_AGING_DEFAULT_S);
}

/* A change of an IPv6 neighbour is published by its digest. */
static void
test_publish_digest(void)
{
	struct flow_in6_addr l = a6("fd00::77");
	struct rte_ether_addr m = mac_of(7);
	uint64_t gen0 = ofproto_publish_neigh();

	ofproto_set_publish_interval_ms(0);
	CHECK_EXPR(neigh_learn6(&l, &m));
	CHECK_EXPR(neigh_learn(ip4("10.7.7.7"), &m));
	ofproto_tick();
	const struct dp_snapshot *s = dp_snapshot_get();
	CHECK_EXPR(s->gen == gen0 + 1 && !s->reval_all);
	CHECK(s->n_neigh_changed == 2, "%u changed", s->n_neigh_changed);
	CHECK_EXPR(dp_snapshot_neigh_changed(s, neigh_addr_digest(&l)));
	CHECK_EXPR(dp_snapshot_neigh_changed(s, ip4("10.7.7.7")));
	CHECK_EXPR(!dp_snapshot_neigh_changed(s, ip4("10.7.7.8")));
	ofproto_set_publish_interval_ms(OFPROTO_PUBLISH_INTERVAL_DEFAULT_MS);
}

static void
test_routes6(void)
{
	char err[256];
	const struct route_entry *r;
	struct flow_in6_addr p, gw, d;

	/* IPv4 0/0 and IPv6 ::/0 are different routes */
	CHECK_EXPR(route_insert(0, 0, ip4("10.0.0.254"), 0, false, err,
				sizeof err) == 0);
	p = a6("::");
	gw = a6("fe80::1");
	CHECK_EXPR(route_insert6(&p, 0, &gw, 0, false, err, sizeof err) == 0);
	p = a6("2001:db8::");
	CHECK_EXPR(route_insert6(&p, 32, NULL, 1, true, err, sizeof err) == 0);
	p = a6("2001:db8:0:1::");
	gw = a6("2001:db8::fe");
	CHECK_EXPR(route_insert6(&p, 64, &gw, 0, false, err, sizeof err) == 0);
	p = a6("2001:db8:0:1::5");
	CHECK_EXPR(route_insert6(&p, 128, NULL, 2, false, err, sizeof err) == 0);
	/* a length no 32-bit word boundary: 65 and 127 */
	p = a6("2001:db8:0:1:8000::");
	CHECK_EXPR(route_insert6(&p, 65, NULL, 3, false, err, sizeof err) == 0);

	d = a6("2001:db8:0:1::5");
	r = dp_snapshot_route6(NULL, &d);
	CHECK_EXPR(r && r->plen == 128 && r->port_idx == 2 && !r->is_ipv4);
	d = a6("2001:db8:0:1::6");
	r = dp_snapshot_route6(NULL, &d);
	CHECK_EXPR(r && r->plen == 64 && route_has_gateway(r));
	CHECK_EXPR(r && !memcmp(&r->gateway, &gw, sizeof gw));
	d = a6("2001:db8:0:1:8000::9");
	r = dp_snapshot_route6(NULL, &d);
	CHECK_EXPR(r && r->plen == 65 && r->port_idx == 3);
	d = a6("2001:db8:ffff::1");
	r = dp_snapshot_route6(NULL, &d);
	CHECK_EXPR(r && r->plen == 32 && r->connected && !route_has_gateway(r));
	d = a6("3000::1");
	r = dp_snapshot_route6(NULL, &d);
	CHECK_EXPR(r && r->plen == 0 && !r->is_ipv4);
	/* an IPv4 destination sees IPv4 routes only, by either call */
	r = dp_snapshot_route(NULL, ip4("192.168.1.1"));
	CHECK_EXPR(r && r->is_ipv4 && r->plen == 0 &&
		   neigh_addr_to4(&r->gateway) == ip4("10.0.0.254"));
	d = neigh_addr_from4(ip4("192.168.1.1"));
	CHECK_EXPR(dp_snapshot_route6(NULL, &d) == r);
	/* and IPv6 ones never an IPv4 route, even ::/0 vs 0/0: remove
	 * IPv6's default, 3000::1 has no route */
	p = a6("::");
	CHECK_EXPR(route_remove6(&p, 0) == 0);
	d = a6("3000::1");
	CHECK_EXPR(dp_snapshot_route6(NULL, &d) == NULL);
	CHECK_EXPR(dp_snapshot_route(NULL, ip4("192.168.1.1")) != NULL);
	CHECK_EXPR(route_remove6(&p, 0) == -1);
	/* host bits are masked, as OVS's; bad lengths refused */
	p = a6("2001:db8:0:2::1");
	CHECK_EXPR(route_insert6(&p, 64, NULL, 0, false, err, sizeof err) == 0);
	d = a6("2001:db8:0:2::99");
	r = dp_snapshot_route6(NULL, &d);
	CHECK_EXPR(r && r->plen == 64);
	CHECK_EXPR(route_insert6(&p, 129, NULL, 0, false, err, sizeof err) ==
		   -1);
	CHECK_EXPR(route_insert(ip4("10.0.0.0"), 33, 0, 0, false, err,
				sizeof err) == -1);
	/* a gateway of the other family */
	p = a6("2001:db8:9::");
	gw = neigh_addr_from4(ip4("10.0.0.1"));
	CHECK(route_insert6(&p, 48, &gw, 0, false, err, sizeof err) == -1 &&
	      strstr(err, "family"), "'%s'", err);

	/* the list: IPv4 first, then longest first */
	uint32_t n;
	struct route_entry *v = route_list(&n);
	CHECK(v && n == route_count() && n == 6, "n %u", n);
	CHECK_EXPR(v && v[0].is_ipv4 && !v[1].is_ipv4 && v[1].plen == 128 &&
		   v[n - 1].plen == 32);
	free(v);
	/* removing the IPv4 0/0 leaves IPv6 lookups as they were */
	CHECK_EXPR(route_remove(0, 0) == 0);
	CHECK_EXPR(dp_snapshot_route(NULL, ip4("192.168.1.1")) == NULL);
	d = a6("2001:db8:0:1::5");
	CHECK_EXPR(dp_snapshot_route6(NULL, &d) != NULL);
}

int
main(void)
{
	if (unit_test_eal_init("test_neigh6", "256"))
		return 1;
	qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(2), 64);
	if (!qsbr || rte_rcu_qsbr_init(qsbr, 2))
		return 1;
	rte_rcu_qsbr_thread_register(qsbr, 1);
	rte_rcu_qsbr_thread_online(qsbr, 1);
	rte_rcu_qsbr_thread_offline(qsbr, 1);

	test_addr_helpers();
	if (tables_init(10, 50))
		return 1;
	test_neigh_both_families();
	test_neigh_aging6();
	test_publish_digest();
	test_routes6();
	ofproto_fini();

	rte_free(qsbr);
	rte_eal_cleanup();
	return unit_test_report();
}
