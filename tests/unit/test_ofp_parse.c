/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests for ofp_parse.c and ofp_format.c: field parsing, errors that
 * name their token, prerequisites, format(parse(s)) round trips (fixed
 * cases and thousands of random rules), del-flows coverage, and random and
 * mutated input that must never crash (run it under ASan/UBSan).
 *
 * This file: the checks, the port map, the helpers, covered_by/same_match,
 * formatting details and main; fixed cases (seed rules, every field,
 * errors, prerequisites) are in test_ofp_parse_cases.c, random rules and
 * garbage in test_ofp_parse_random.c.
 */
#include "ofp_parse_test.h"

int n_passed, n_failed;

void __attribute__((format(printf, 3, 4)))
check_at(int line, bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		n_passed++;
		return;
	}
	n_failed++;
	printf("FAIL (line %d): ", line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- port map: vhost-user0..31 = 1..32, vxlan = 100, dpdk-phy = 200 ---- */

static char vhost_names[32][24];

static uint32_t
test_port_by_name(const char *name, void *aux)
{
	(void)aux;
	if (!strcmp(name, "vxlan"))
		return 100;
	if (!strcmp(name, "dpdk-phy"))
		return 200;
	for (int i = 0; i < 32; i++)
		if (!strcmp(name, vhost_names[i]))
			return (uint32_t)i + 1;
	return 0;
}

static const char *
test_name_by_port(uint32_t port, void *aux)
{
	(void)aux;
	if (port == 100)
		return "vxlan";
	if (port == 200)
		return "dpdk-phy";
	if (port >= 1 && port <= 32)
		return vhost_names[port - 1];
	return NULL;
}

const struct ofp_port_map ports = {
	.port_by_name = test_port_by_name,
	.name_by_port = test_name_by_port,
};

static void
init_ports(void)
{
	for (int i = 0; i < 32; i++)
		snprintf(vhost_names[i], sizeof vhost_names[i], "vhost-user%d",
			 i);
}

/* ---- helpers ---------------------------------------------------------- */

bool
rules_equal(const struct ofp_rule *a, const struct ofp_rule *b)
{
	return a->priority == b->priority && a->table_id == b->table_id &&
	       !memcmp(&a->match, &b->match, sizeof a->match) &&
	       !memcmp(&a->mask, &b->mask, sizeof a->mask) &&
	       !memcmp(&a->meta_match, &b->meta_match, sizeof a->meta_match) &&
	       !memcmp(&a->meta_mask, &b->meta_mask, sizeof a->meta_mask) &&
	       a->n_actions == b->n_actions && a->n_ct == b->n_ct &&
	       !memcmp(a->actions, b->actions,
		       a->n_actions * sizeof a->actions[0]) &&
	       !memcmp(a->ct, b->ct, a->n_ct * sizeof a->ct[0]);
}

bool
parse_ok(const char *s, enum ofp_parse_mode mode, struct ofp_rule *r)
{
	char err[256];
	int rc = ofp_parse_flow(s, mode, &ports, r, err, sizeof err);

	CHECK(rc == 0, "parse '%s': %s", s, err);
	return rc == 0;
}

void
format(const struct ofp_rule *r, char *buf, size_t len)
{
	int n = ofp_format_rule(r, &ports, buf, len);

	CHECK(n >= 0 && (size_t)n < len, "format length %d", n);
}

/* format(parse(s)) must parse back into the same rule. */
void
check_round_trip(const struct ofp_rule *r, const char *origin)
{
	char text[1024], err[256];
	struct ofp_rule back;
	int rc;

	format(r, text, sizeof text);
	rc = ofp_parse_flow(text, OFP_PARSE_ADD, &ports, &back, err, sizeof err);
	CHECK(rc == 0, "round trip of '%s': '%s' does not parse: %s", origin,
	      text, err);
	/* a filter's "every table" comes back as a rule's table 0 */
	if (r->table_id == OFP_TABLE_ALL && back.table_id == 0)
		back.table_id = OFP_TABLE_ALL;
	if (rc == 0)
		CHECK(rules_equal(r, &back), "round trip of '%s' via '%s' differs",
		      origin, text);
}

/* Parses s (ADD), checks the canonical text and that it round-trips. */
void
check_format(const char *s, const char *expect)
{
	struct ofp_rule r;
	char text[1024];

	if (!parse_ok(s, OFP_PARSE_ADD, &r))
		return;
	format(&r, text, sizeof text);
	CHECK(!strcmp(text, expect), "'%s' formats as '%s', expected '%s'", s,
	      text, expect);
	check_round_trip(&r, s);
}

void
check_error(enum ofp_parse_mode mode, const char *s, const char *expect)
{
	struct ofp_rule r;
	char err[256] = "";
	int rc = ofp_parse_flow(s, mode, &ports, &r, err, sizeof err);

	CHECK(rc == -1, "'%s' should fail with \"%s\"", s, expect);
	CHECK(strstr(err, expect) != NULL, "'%s': error \"%s\" lacks \"%s\"",
	      s, err, expect);
}

rte_be32_t
ip(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

/* ---- covered_by / same_match ------------------------------------------ */

static bool
covers(const char *filter, const char *rule)
{
	struct ofp_rule f, r;

	if (!parse_ok(filter, OFP_PARSE_MATCH, &f) ||
	    !parse_ok(rule, OFP_PARSE_MATCH, &r))
		return false;
	return ofp_rule_covered_by(&r, &f);
}

static void
test_covered_by(void)
{
	static const struct {
		const char *filter, *rule;
		bool covered;
	} cases[] = {
		{ "", "in_port=vxlan,ip,nw_dst=192.1.0.1", true },
		{ "", "", true },
		{ "in_port=vxlan", "in_port=vxlan,ip,nw_dst=192.1.0.1", true },
		{ "in_port=vxlan", "in_port=vhost-user1,ip,nw_dst=192.1.0.1", false },
		{ "in_port=vxlan", "ip,nw_dst=192.1.0.1", false },
		{ "in_port=vxlan", "", false },
		{ "ip,nw_dst=10.0.0.0/8", "ip,nw_dst=10.1.2.3", true },
		{ "ip,nw_dst=10.0.0.0/8", "ip,nw_dst=10.0.0.0/8", true },
		{ "ip,nw_dst=10.0.0.0/8", "udp,nw_dst=10.2.0.0/16,tp_dst=53", true },
		{ "ip,nw_dst=10.0.0.0/8", "ip,nw_dst=0.0.0.0/0", false },
		{ "ip,nw_dst=10.0.0.0/8", "ip", false },
		{ "ip,nw_dst=10.0.0.0/8", "ip,nw_dst=11.0.0.1", false },
		{ "ip,nw_dst=10.0.0.0/8", "ip,nw_dst=10.0.0.0/7", false },
		{ "ip,nw_dst=10.0.0.0/8", "arp,nw_dst=10.0.0.1", false },
		{ "udp", "udp,tp_dst=53", true },
		{ "udp", "ip", false },
		{ "udp", "tcp", false },
		{ "ip", "udp", true },
		{ "priority=5,in_port=vxlan", "priority=100,in_port=vxlan,ip", true },
		{ "tun_id=0x3e9", "tun_id=0x3e9,in_port=vxlan", true },
		{ "tun_id=0x3e9", "tun_id=0x3ea", false },
		{ "tun_id=0x300/0xf00", "tun_id=0x3e9", true },
		{ "tun_id=0x300/0xf00", "tun_id=0x3e9/0xff", false },
		{ "dl_vlan=5", "vlan_tci=0x1005", true },
		{ "vlan_tci=0x1005", "dl_vlan=5", false },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		CHECK(covers(cases[i].filter, cases[i].rule) == cases[i].covered,
		      "filter '%s' %s rule '%s'", cases[i].filter,
		      cases[i].covered ? "should cover" : "should not cover",
		      cases[i].rule);
}

static void
test_same_match(void)
{
	struct ofp_rule a, b;

	if (parse_ok("priority=5,in_port=vxlan,ip,nw_dst=1.2.3.4,actions=drop",
		     OFP_PARSE_ADD, &a) &&
	    parse_ok("nw_dst=1.2.3.4 ip in_port=100 priority=5 actions=output:1",
		     OFP_PARSE_ADD, &b))
		CHECK(ofp_rule_same_match(&a, &b), "same match, other actions");
	if (parse_ok("priority=6,in_port=vxlan,ip,nw_dst=1.2.3.4",
		     OFP_PARSE_MATCH, &b))
		CHECK(!ofp_rule_same_match(&a, &b), "other priority");
	if (parse_ok("priority=5,in_port=vxlan,ip,nw_dst=1.2.3.4/31",
		     OFP_PARSE_MATCH, &b))
		CHECK(!ofp_rule_same_match(&a, &b), "other mask");
	if (parse_ok("priority=5,in_port=vxlan,ip,nw_dst=1.2.3.5",
		     OFP_PARSE_MATCH, &b))
		CHECK(!ofp_rule_same_match(&a, &b), "other value");
}

/* ---- formatting details ----------------------------------------------- */

static void
test_format_buffers(void)
{
	const char *s = "priority=100,in_port=vxlan,ip,nw_dst=192.1.0.1 "
			"actions=output:vhost-user1";
	struct ofp_rule r;
	char small[10], big[256];
	int n;

	if (!parse_ok(s, OFP_PARSE_ADD, &r))
		return;
	n = ofp_format_rule(&r, &ports, small, sizeof small);
	CHECK(n == (int)strlen(s), "format returns the full length (%d)", n);
	CHECK(!strcmp(small, "priority="), "truncated output '%s'", small);
	CHECK(ofp_format_rule(&r, &ports, NULL, 0) == (int)strlen(s),
	      "format with no buffer");
	n = ofp_format_match(&r.match, &r.mask, &ports, big, sizeof big);
	CHECK(!strcmp(big, "ip,in_port=vxlan,nw_dst=192.1.0.1") &&
	      n == (int)strlen(big), "format_match '%s'", big);
	n = ofp_format_actions(&r, &ports, big, sizeof big);
	CHECK(!strcmp(big, "output:vhost-user1") && n == (int)strlen(big),
	      "format_actions '%s'", big);
	n = ofp_format_rule(&r, NULL, big, sizeof big);
	CHECK(!strcmp(big, "priority=100,ip,in_port=100,nw_dst=192.1.0.1 "
			   "actions=output:2"), "no port map: numbers '%s'", big);
	r.n_actions = 0;
	ofp_format_actions(&r, &ports, big, sizeof big);
	CHECK(!strcmp(big, "drop"), "no actions is drop");
	flow_key_zero(&r.mask);
	ofp_format_match(&r.match, &r.mask, &ports, big, sizeof big);
	CHECK(!strcmp(big, ""), "empty match is ''");
}

int
main(void)
{
	init_ports();
	test_seed_rules();
	test_format_cases();
	test_stored_values();
	test_errors();
	test_error_buffers();
	test_prereq_order();
	test_ipv6();
	test_covered_by();
	test_same_match();
	test_format_buffers();
	test_random_round_trips();
	test_garbage();
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
