/* SPDX-License-Identifier: BSD-3-Clause
 * test_ofp_parse, random input: thousands of random valid rules that must
 * round-trip, and random and mutated garbage that must never crash (run it
 * under ASan/UBSan). One generator state, so the sequence is as before.
 */
#include "ofp_parse_test.h"

/* ---- random valid rules ----------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint32_t
rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

static bool
coin(void)
{
	return rnd() & 1;
}

static uint32_t
random_port(void)
{
	switch (rnd_below(4)) {
	case 0:
		return 100;
	case 1:
		return 200;
	case 2:
		return 1 + rnd_below(32);
	default:
		return 1 + rnd_below(FLOW_IN_PORT_MAX);
	}
}

static rte_be32_t
random_ipv4_mask(void)
{
	switch (rnd_below(3)) {
	case 0:
		return UINT32_MAX;
	case 1: {
		uint32_t plen = rnd_below(33);
		return plen ? rte_cpu_to_be_32(UINT32_MAX << (32 - plen)) : 0;
	}
	default:
		return (rte_be32_t)rnd();
	}
}

static void
random_mac(struct rte_ether_addr *mac)
{
	for (int i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		mac->addr_bytes[i] = (uint8_t)rnd();
}

static void
random_ipv4_field(rte_be32_t *value, rte_be32_t *mask)
{
	*mask = random_ipv4_mask();
	*value = (rte_be32_t)rnd() & *mask;
}

static void
random_mac_field(struct rte_ether_addr *value, struct rte_ether_addr *mask)
{
	random_mac(value);
	if (coin())
		memset(mask, 0xff, sizeof *mask);
	else
		random_mac(mask);
	for (int i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		value->addr_bytes[i] &= mask->addr_bytes[i];
}

static void
random_vlan(struct flow_key *v, struct flow_key *m)
{
	uint16_t tci = (uint16_t)rnd(), mask;

	switch (rnd_below(3)) {
	case 0:		/* dl_vlan=VID */
		tci = FLOW_VLAN_CFI | (tci & 0x0fff);
		mask = 0x1fff;
		break;
	case 1:
		mask = UINT16_MAX;
		break;
	default:
		mask = (uint16_t)rnd();
		break;
	}
	v->vlan_tci = rte_cpu_to_be_16(tci & mask);
	m->vlan_tci = rte_cpu_to_be_16(mask);
}

static void
random_l4_port(rte_be16_t *value, rte_be16_t *mask)
{
	uint16_t m = coin() ? UINT16_MAX : (uint16_t)rnd();

	*mask = rte_cpu_to_be_16(m);
	*value = rte_cpu_to_be_16((uint16_t)rnd() & m);
}

static void
random_ip_fields(struct flow_key *v, struct flow_key *m)
{
	static const uint8_t frags[][2] = {
		{ 0, 1 }, { 1, 1 }, { 1, 3 }, { 3, 3 }, { 0, 2 },
	};

	if (coin()) {
		m->nw_tos = 0xfc;
		v->nw_tos = (uint8_t)rnd() & 0xfc;
	}
	if (coin()) {
		m->nw_ttl = 0xff;
		v->nw_ttl = (uint8_t)rnd();
	}
	if (coin()) {
		int i = (int)rnd_below(5);
		v->nw_frag = frags[i][0];
		m->nw_frag = frags[i][1];
	}
}

static void
random_transport(struct flow_key *v, struct flow_key *m, uint8_t proto)
{
	if (proto == IPPROTO_ICMP) {
		if (coin()) {
			m->tp_src = UINT16_MAX;
			v->tp_src = rte_cpu_to_be_16((uint16_t)rnd_below(256));
		}
		if (coin()) {
			m->tp_dst = UINT16_MAX;
			v->tp_dst = rte_cpu_to_be_16((uint16_t)rnd_below(256));
		}
		return;
	}
	if (coin())
		random_l4_port(&v->tp_src, &m->tp_src);
	if (coin())
		random_l4_port(&v->tp_dst, &m->tp_dst);
}

/* dl_type and what may follow it; the classes the parser allows. */
static void
random_protocol(struct flow_key *v, struct flow_key *m)
{
	static const uint8_t protos[] = { 0, IPPROTO_ICMP, IPPROTO_TCP,
					  IPPROTO_UDP, 47, 0 };
	uint32_t cls = rnd_below(6);
	static const uint16_t types[] = { 0, 0x0800, 0x0806, 0x86dd, 0x0800 };
	uint8_t proto;

	if (cls == 0)
		return;
	if (cls == 5) {		/* some other ethertype */
		m->dl_type = UINT16_MAX;
		v->dl_type = rte_cpu_to_be_16((uint16_t)rnd());
		return;
	}
	m->dl_type = UINT16_MAX;
	v->dl_type = rte_cpu_to_be_16(types[cls]);
	if (types[cls] == 0x86dd)
		return;
	if (coin())
		random_ipv4_field(&v->nw_src, &m->nw_src);
	if (coin())
		random_ipv4_field(&v->nw_dst, &m->nw_dst);
	if (types[cls] == 0x0806) {
		if (coin()) {
			m->nw_proto = 0xff;
			v->nw_proto = (uint8_t)rnd();
		}
		return;
	}
	random_ip_fields(v, m);
	proto = protos[rnd_below(sizeof protos)];
	if (!proto)
		return;
	m->nw_proto = 0xff;
	v->nw_proto = proto;
	if (proto != 47)
		random_transport(v, m, proto);
}

static void
random_match(struct flow_key *v, struct flow_key *m)
{
	flow_key_zero(v);
	flow_key_zero(m);
	if (coin()) {
		m->in_port = UINT16_MAX;
		v->in_port = random_port();
	}
	if (coin()) {
		m->tun_id = coin() ? UINT32_MAX : (uint32_t)rnd();
		v->tun_id = (uint32_t)rnd() & m->tun_id;
	}
	if (coin())
		random_ipv4_field(&v->tun_src, &m->tun_src);
	if (coin())
		random_ipv4_field(&v->tun_dst, &m->tun_dst);
	if (coin())
		random_vlan(v, m);
	if (coin())
		random_mac_field(&v->dl_src, &m->dl_src);
	if (coin())
		random_mac_field(&v->dl_dst, &m->dl_dst);
	random_protocol(v, m);
}

static void
random_action(struct ofp_action *a)
{
	memset(a, 0, sizeof *a);
	a->type = (enum ofp_action_type)rnd_below(OFPACT_SET_ETH_DST + 1);
	switch (a->type) {
	case OFPACT_OUTPUT:
		a->port = rnd_below(8) ? random_port() : OFPP_IN_PORT;
		break;
	case OFPACT_SET_TUNNEL:
		a->u32 = (uint32_t)rnd();
		break;
	case OFPACT_SET_TUN_SRC:
	case OFPACT_SET_TUN_DST:
		a->ip = (rte_be32_t)rnd();
		break;
	case OFPACT_SET_ETH_SRC:
	case OFPACT_SET_ETH_DST:
		random_mac(&a->mac);
		break;
	default:	/* pipeline actions: test_ofp_pipeline.c */
		break;
	}
}

static void
random_rule(struct ofp_rule *r)
{
	memset(r, 0, sizeof *r);
	r->priority = coin() ? OFP_DEFAULT_PRIORITY : (uint16_t)rnd();
	random_match(&r->match, &r->mask);
	r->n_actions = (uint8_t)rnd_below(OFP_MAX_ACTIONS + 1);
	for (int i = 0; i < r->n_actions; i++)
		random_action(&r->actions[i]);
}

/* A rule is covered by its own match, and by any filter made of a subset
 * of its fields. */
static void
check_coverage_of(const struct ofp_rule *r)
{
	struct ofp_rule filter = *r;

	CHECK(ofp_rule_covered_by(r, r), "a rule covers itself");
	for (int f = 0; f < MFF_N_IDS; f++) {
		if (coin())
			continue;
		memset((uint8_t *)&filter.mask + mf_fields[f].offset, 0,
		       mf_fields[f].len);
		memset((uint8_t *)&filter.match + mf_fields[f].offset, 0,
		       mf_fields[f].len);
	}
	CHECK(ofp_rule_covered_by(r, &filter), "a subset filter covers");
}

void
test_random_round_trips(void)
{
	char text[1024], err[256];
	struct ofp_rule r, back, match_only;

	for (int i = 0; i < 20000; i++) {
		random_rule(&r);
		check_round_trip(&r, "random rule");
		check_coverage_of(&r);

		/* The match alone, as a del-flows filter. */
		ofp_format_match(&r.match, &r.mask, &ports, text, sizeof text);
		if (ofp_parse_flow(text, OFP_PARSE_MATCH, &ports, &match_only,
				   err, sizeof err)) {
			CHECK(false, "match '%s' does not parse: %s", text, err);
			continue;
		}
		CHECK(!memcmp(&match_only.match, &r.match, sizeof r.match) &&
		      !memcmp(&match_only.mask, &r.mask, sizeof r.mask),
		      "match '%s' round trip", text);

		/* format is a fixed point after one parse */
		ofp_format_rule(&r, &ports, text, sizeof text);
		if (!ofp_parse_flow(text, OFP_PARSE_ADD, &ports, &back, err,
				    sizeof err)) {
			char again[1024];
			ofp_format_rule(&back, &ports, again, sizeof again);
			CHECK(!strcmp(text, again), "'%s' reformats as '%s'",
			      text, again);
		}
	}
}

/* ---- garbage in: never crash, and what parses round-trips -------------- */

static const char *const vocabulary[] = {
	"in_port", "vxlan", "vhost-user1", "ip", "arp", "udp", "tcp", "icmp",
	"ipv6", "nw_dst", "nw_src", "tp_dst", "tp_src", "tun_id", "dl_src",
	"dl_vlan", "vlan_tci", "ip_frag", "later", "nw_tos", "priority",
	"actions", "output", "set_field", "set_tunnel", "->", "tun_dst",
	"drop", "in_port", "mod_dl_src", "=", "=", ",", ",", " ", ":", "/",
	"1.2.3.4", "10.0.0.0", "24", "0x3e9", "aa:bb:cc:dd:ee:ff", "65535",
	"0", "table", "cookie", "icmp_type", "udp_dst", "arp_op", "\t",
};

static void
random_words(char *buf, size_t len)
{
	size_t n = 0, words = rnd_below(24);

	buf[0] = '\0';
	for (size_t i = 0; i < words; i++) {
		const char *w = vocabulary[rnd_below(sizeof vocabulary /
						     sizeof vocabulary[0])];
		size_t wl = strlen(w);
		if (n + wl + 1 >= len)
			break;
		memcpy(buf + n, w, wl + 1);
		n += wl;
	}
}

static void
random_bytes(char *buf, size_t len)
{
	size_t n = rnd_below((uint32_t)len);

	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(1 + rnd_below(255));
	buf[n] = '\0';
}

/* Deletes, duplicates or overwrites a few characters of a valid rule. */
static void
mutated_rule(char *buf, size_t len)
{
	static const char alphabet[] = "=,:/.-> \t0123456789abcdefx_";
	struct ofp_rule r;

	random_rule(&r);
	ofp_format_rule(&r, &ports, buf, len);
	for (int k = 1 + (int)rnd_below(3); k > 0; k--) {
		size_t n = strlen(buf);
		size_t at = n ? rnd_below((uint32_t)n) : 0;
		switch (rnd_below(3)) {
		case 0:
			memmove(buf + at, buf + at + 1, n - at);
			break;
		case 1:
			if (n + 2 < len) {
				memmove(buf + at + 1, buf + at, n - at + 1);
				buf[at] = alphabet[rnd_below(sizeof alphabet - 1)];
			}
			break;
		default:
			if (n)
				buf[at] = alphabet[rnd_below(sizeof alphabet - 1)];
			break;
		}
	}
}

static void
check_garbage(const char *s)
{
	struct ofp_rule r;
	size_t errlen = rnd_below(4) ? 256 : rnd_below(4);
	char err[256];

	for (int mode = OFP_PARSE_ADD; mode <= OFP_PARSE_MATCH; mode++) {
		int rc = ofp_parse_flow(s, mode, &ports, &r, err, errlen);
		if (rc == 0) {
			check_round_trip(&r, s);
		} else {
			CHECK(rc == -1, "rc %d", rc);
			CHECK(errlen < 2 || err[0], "'%s' failed silently", s);
		}
	}
}

void
test_garbage(void)
{
	char buf[1024];

	for (int i = 0; i < 20000; i++) {
		switch (i % 3) {
		case 0:
			random_words(buf, sizeof buf);
			break;
		case 1:
			random_bytes(buf, 120);
			break;
		default:
			mutated_rule(buf, sizeof buf);
			break;
		}
		check_garbage(buf);
	}
}
