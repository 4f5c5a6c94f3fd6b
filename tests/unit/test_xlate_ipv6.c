/* SPDX-License-Identifier: BSD-3-Clause
 * The megaflow mask of a pipeline lookup over IPv6 rules (xlate_pipeline,
 * on a bare snapshot: no ports, no EAL):
 *  - a rule that matches carries its fields into the mask, with dl_type
 *    and nw_proto (its prerequisites, which the parser made part of it)
 *    and ext_line when it reads the label or the second line;
 *  - a rule that fails on an IPv6 field adds that field with ext_line;
 *  - an IPv4 key that meets the same rules gets a one-line mask (its
 *    dl_type decides, its stale second line is never read);
 *  - soundness, as dpcls_oracle does it for the classifier: every key
 *    that agrees with one under its mask finds the same rule;
 *  - the underlay's VXLAN over IPv6 to our VTEP: popped, its megaflow
 *    blind to the UDP source port (one megaflow for every inner flow of
 *    a sender), NS to us still told apart by ICMPv6 type.
 */
#include <arpa/inet.h>
#include <string.h>
#include "dp_rule_table.h"
#include "dp_snapshot.h"
#include "ofp_rule.h"
#include "unit_test.h"
#include "xlate.h"

#define N_KEYS 20000

/* by table, then priority descending (dp_snapshot.h) */
static const char *const flows[] = {
	"priority=100,icmp6,icmp_type=136,nd_target=fe80::1,actions=output:1",
	"priority=95,icmp6,icmp_type=135,nd_sll=00:00:00:00:00:01,"
	"actions=output:1",
	"priority=90,ipv6,ipv6_src=2001:db8::/64,actions=output:2",
	"priority=80,tcp6,ipv6_label=5,tp_dst=22,actions=output:3",
	"priority=70,ipv6,ipv6_dst=ff02::1:ff00:0/104,nw_ttl=255,"
	"actions=output:4",
	"priority=60,ip,nw_dst=10.0.0.1,actions=output:5",
	"priority=1,actions=drop",
};
#define N_RULES (sizeof flows / sizeof flows[0])

static struct ofp_rule rules[N_RULES];
static struct dp_snapshot snap;

static void
in6(struct flow_in6_addr *a, const char *s)
{
	inet_pton(AF_INET6, s, a->a);
}

static void
ipv6_key(struct flow_key *k, uint8_t proto, uint16_t tp_src,
	 uint16_t tp_dst, const char *src, const char *dst)
{
	flow_key_zero(k);
	k->in_port = 1;
	k->dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	k->ext_line = FLOW_EXT_LINE;
	k->nw_proto = proto;
	k->nw_ttl = 255;
	k->tp_src = rte_cpu_to_be_16(tp_src);
	k->tp_dst = rte_cpu_to_be_16(tp_dst);
	in6(&k->ipv6_src, src);
	in6(&k->ipv6_dst, dst);
}

static const struct ofp_rule *
lookup(const struct flow_key *k, struct flow_key *mask)
{
	struct xlate_pipeline pl;

	flow_key_zero(mask);
	return xlate_pipeline(&snap, k, NULL, mask, &pl);
}

static int
rule_index(const struct ofp_rule *r)
{
	return r ? (int)(r - rules) : -1;
}

static void
test_masks(void)
{
	struct flow_key k, m;
	const struct ofp_rule *r;

	/* an NA for fe80::1: rule 0, its fields and ext_line */
	ipv6_key(&k, IPPROTO_ICMPV6, 136, 0, "fe80::1", "ff02::1");
	in6(&k.nd_target, "fe80::1");
	r = lookup(&k, &m);
	CHECK(rule_index(r) == 0, "NA fe80::1: rule %d", rule_index(r));
	CHECK(m.dl_type == RTE_BE16(0xffff) && m.nw_proto == 0xff &&
	      m.tp_src == RTE_BE16(0xffff), "dl_type, nw_proto, icmp_type");
	CHECK(flow_mask_has_field(&m, MFF_ND_TARGET) && m.ext_line == FLOW_EXT_LINE,
	      "nd_target with ext_line");
	CHECK(!flow_mask_has_field(&m, MFF_IPV6_SRC), "ipv6_src not read");
	/* the megaflow as ofproto/trace prints it: IPv6's groups */
	char text[512];
	xlate_format_megaflow_match(&k, &m, text, sizeof text);
	CHECK(strstr(text, "eth_type(0x86dd),ipv6(") &&
	      strstr(text, "proto=58") && !strstr(text, "ipv4(") &&
	      strstr(text, "icmpv6(type=136") &&
	      strstr(text, "nd(target=fe80::1)"), "megaflow text: %s", text);

	/* another target: rule 0 fails on nd_target, rule 1 on icmp_type,
	 * rule 2 on ipv6_src (/64), rule 3 on nw_proto, rule 4 on ipv6_dst
	 * (ff02::1 is not in ff02::1:ff00:0/104), rule 5 on dl_type */
	in6(&k.nd_target, "fe80::2");
	r = lookup(&k, &m);
	CHECK(rule_index(r) == 6, "NA fe80::2: rule %d", rule_index(r));
	CHECK(m.ext_line == FLOW_EXT_LINE, "failed on line 2: ext_line");
	CHECK(m.ipv6_src.a[7] == 0xff && m.ipv6_src.a[8] == 0,
	      "ipv6_src: the /64 of the rule that failed on it");

	/* TCP from 2001:db8::5: rule 2 (a /64), ext_line */
	ipv6_key(&k, IPPROTO_TCP, 1000, 22, "2001:db8::5", "2001:db8:1::1");
	r = lookup(&k, &m);
	CHECK(rule_index(r) == 2, "tcp6: rule %d", rule_index(r));
	CHECK(m.ext_line == FLOW_EXT_LINE && m.ipv6_src.a[7] == 0xff &&
	      m.ipv6_src.a[8] == 0, "/64 and ext_line");

	/* the label: TCP port 22 from elsewhere */
	ipv6_key(&k, IPPROTO_TCP, 1000, 22, "2001:db9::5", "2001:db8:1::1");
	k.ipv6_label = rte_cpu_to_be_32(5);
	r = lookup(&k, &m);
	CHECK(rule_index(r) == 3, "label 5: rule %d", rule_index(r));
	CHECK(m.ipv6_label != 0 && m.ext_line == FLOW_EXT_LINE && m.tp_dst,
	      "label, tp_dst and ext_line");

	/* an IPv4 key: one line, whatever its stale second line holds */
	flow_key_zero(&k);
	k.dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	k.nw_dst = htonl(0x0a000001);
	memset(k.line2, 0xa5, sizeof k.line2);
	r = lookup(&k, &m);
	CHECK(rule_index(r) == 5, "ipv4: rule %d", rule_index(r));
	CHECK(!m.ext_line && !m.ipv6_label, "ipv4: no ext_line in the mask");
	for (int i = FLOW_KEY_LINE_WORDS; i < FLOW_KEY_WORDS; i++)
		CHECK(!m.w[i], "ipv4: line 2 word %d unmasked", i);
}

/* random IPv6 keys from few values, so that rules hit and miss */
static void
random_key(struct flow_key *k, uint64_t *seed)
{
	static const char *const addrs[] = {
		"fe80::1", "fe80::2", "2001:db8::5", "2001:db8::1:5",
		"2001:db9::5", "ff02::1:ff00:7", "ff02::1", "::",
	};
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP,
					  IPPROTO_ICMPV6, 47 };
	static const uint16_t types[] = { 135, 136, 128, 22 };
	uint64_t x = unit_xorshift64s(seed);

	ipv6_key(k, protos[x & 3], types[(x >> 2) & 3],
		 (x >> 4) & 1 ? 22 : 0, addrs[(x >> 5) & 7],
		 addrs[(x >> 8) & 7]);
	in6(&k->nd_target, addrs[(x >> 11) & 7]);
	k->nd_sll.addr_bytes[5] = (x >> 14) & 1;
	k->ipv6_label = rte_cpu_to_be_32((x >> 15) & 1 ? 5 : 6);
	k->nw_ttl = (x >> 16) & 1 ? 255 : 64;
	if ((x >> 17 & 15) == 0) {		/* some IPv4 keys too */
		k->dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		k->ext_line = 0;
		k->nw_dst = (x >> 21) & 1 ? htonl(0x0a000001) : 0;
	}
}

static void
test_soundness(void)
{
	uint64_t seed = 0x1234567;
	unsigned bad = 0;

	for (int i = 0; i < N_KEYS; i++) {
		struct flow_key k, m, k2, m2;
		random_key(&k, &seed);
		int want = rule_index(lookup(&k, &m));
		if (flow_mask_has_field(&m, MFF_IPV6_LABEL) ||
		    flow_mask_has_field(&m, MFF_IPV6_SRC) ||
		    flow_mask_has_field(&m, MFF_IPV6_DST) ||
		    flow_mask_has_field(&m, MFF_ND_TARGET) ||
		    flow_mask_has_field(&m, MFF_ND_SLL))
			bad += !(m.ext_line & FLOW_EXT_LINE);
		/* another key, the same under m */
		random_key(&k2, &seed);
		for (int w = 0; w < FLOW_KEY_WORDS; w++)
			k2.w[w] = (k.w[w] & m.w[w]) | (k2.w[w] & ~m.w[w]);
		/* as the extract makes them: a second line for IPv6 only */
		k2.ext_line = k2.dl_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) ?
			      FLOW_EXT_LINE : 0;
		int got = rule_index(lookup(&k2, &m2));
		if (got != want && bad++ < 5)
			printf("key %d: rule %d, a key the same under its "
			       "mask: rule %d\n", i, want, got);
	}
	CHECK(bad == 0, "%u unsound megaflow masks", bad);
}

/* The third line through xlate(): a rule on tun_ipv6_src, which OVS lets
 * any packet meet, decides a key without the line by its ext_line bit
 * alone (xlate.c), whatever stale bytes the key carries there, and a key
 * with the line by the rule's bits of it. */
static void
test_tun6_mask(void)
{
	static const char *const tflows[] = {
		"priority=50,tun_ipv6_src=2001:db8::/64,actions=drop",
		"priority=1,actions=drop",
	};
	struct ofp_rule trules[2];
	struct dp_snapshot tsnap = { 0 };
	struct xlate_out out;
	struct flow_key k;
	char err[256];

	for (int i = 0; i < 2; i++) {
		CHECK(ofp_parse_flow(tflows[i], OFP_PARSE_ADD, NULL, &trules[i],
				     err, sizeof err) == 0, "%s", err);
		trules[i].uid = 100 + (uint32_t)i;
	}
	CHECK(dp_snapshot_set_rules(&tsnap, trules, 2) == 0, "tables");

	flow_key_zero(&k);
	k.in_port = 1;
	k.dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	in6(&k.tun_ipv6_src, "2001:db8::1");	/* stale: no third line */
	xlate(&tsnap, &k, &out);
	CHECK(out.rule_uid == 101 && (out.mask.ext_line & FLOW_EXT_TUN6) &&
	      !out.mask.line3[0] && !out.mask.line3[1],
	      "no third line: rule %u, decided by ext_line alone",
	      out.rule_uid);
	xlate_out_release(&out);

	k.ext_line = FLOW_EXT_TUN6;
	xlate(&tsnap, &k, &out);
	CHECK(out.rule_uid == 100 && (out.mask.ext_line & FLOW_EXT_TUN6) &&
	      out.mask.line3[0] == UINT64_MAX && !out.mask.line3[1],
	      "third line: rule %u, its /64 in the mask", out.rule_uid);
	xlate_out_release(&out);

	in6(&k.tun_ipv6_src, "2001:db9::1");
	xlate(&tsnap, &k, &out);
	CHECK(out.rule_uid == 101 && out.mask.line3[0] == UINT64_MAX,
	      "another prefix: rule %u", out.rule_uid);
	xlate_out_release(&out);
	dp_snapshot_tables_release(&tsnap);
}

/* The underlay over IPv6 (xlate_underlay6): VXLAN to the VTEP's IPv6
 * address pops with the family and the port's zero-checksum policy, and
 * its megaflow does not read the UDP source port (one megaflow for every
 * outer flow: the ND check once read tp_src of every IPv6 frame); a
 * fragment is outer_frag, another port not_vtep; ND for us goes to the
 * responder. */
static void
test_underlay6(void)
{
	struct dp_snapshot u = { 0 };
	struct xlate_out out;
	struct flow_key k;

	u.has_underlay = true;
	u.underlay_ofport = 9;
	u.underlay_idx = 2;
	u.vtep_mac = (struct rte_ether_addr){ { 0x10, 0, 0, 0, 0, 1 } };
	u.has_vtep_ip6 = true;
	in6(&u.vtep_ip6, "fd00:172::100");
	u.vtep_ip6_snmac = (struct rte_ether_addr){
		{ 0x33, 0x33, 0xff, 0, 0x01, 0 } };
	u.has_tunnel = true;
	u.tnl_idx = 5;
	u.tnl_dst_port = 4789;
	u.tnl_udp6_zero_csum_ok = true;

	ipv6_key(&k, IPPROTO_UDP, 50123, 4789, "fd00:172::", "fd00:172::100");
	k.in_port = 9;
	k.dl_dst = u.vtep_mac;
	k.nw_ttl = 64;
	xlate(&u, &k, &out);
	CHECK(out.actions.n == 1 && out.actions.act[0].type == DP_ACT_TNL_POP &&
	      out.actions.act[0].port == 5 &&
	      out.actions.act[0].slot == (DP_TNL_POP_IPV6 |
					  DP_TNL_POP_ZERO_CSUM6),
	      "VXLAN to the VTEP's IPv6 address pops as IPv6");
	CHECK(!out.mask.tp_src && out.mask.tp_dst &&
	      flow_mask_has_field(&out.mask, MFF_IPV6_DST) &&
	      !flow_mask_has_field(&out.mask, MFF_IPV6_SRC),
	      "one megaflow whatever the outer source port and address");
	xlate_out_release(&out);

	u.tnl_udp6_zero_csum_ok = false;
	xlate(&u, &k, &out);
	CHECK(out.actions.act[0].slot == DP_TNL_POP_IPV6,
	      "udp6zerocsumrx false: the pop refuses zero checksums");
	xlate_out_release(&out);

	k.nw_frag = FLOW_NW_FRAG_ANY;
	xlate(&u, &k, &out);
	CHECK(out.actions.act[0].type == DP_ACT_DROP &&
	      out.actions.act[0].reason == DROP_OUTER_FRAG, "a fragment");
	xlate_out_release(&out);
	k.nw_frag = 0;
	k.tp_dst = RTE_BE16(4790);
	xlate(&u, &k, &out);
	CHECK(out.actions.act[0].type == DP_ACT_DROP &&
	      out.actions.act[0].reason == DROP_NOT_VTEP, "another port");
	xlate_out_release(&out);

	ipv6_key(&k, IPPROTO_ICMPV6, 135, 0, "fd00:172::", "ff02::1:ff00:100");
	k.in_port = 9;
	k.dl_dst = u.vtep_ip6_snmac;
	xlate(&u, &k, &out);
	CHECK(out.actions.act[0].type == DP_ACT_ARP_RESPOND && out.mask.tp_src,
	      "an NS for us: the responder");
	xlate_out_release(&out);
}

int
main(void)
{
	char err[256];

	for (size_t i = 0; i < N_RULES; i++) {
		int rc = ofp_parse_flow(flows[i], OFP_PARSE_ADD, NULL,
					&rules[i], err, sizeof err);
		CHECK(rc == 0, "'%s': %s", flows[i], err);
		rules[i].uid = (uint32_t)i + 1;
	}
	CHECK(dp_snapshot_set_rules(&snap, rules, N_RULES) == 0, "tables");
	test_masks();
	test_soundness();
	test_tun6_mask();
	test_underlay6();
	dp_snapshot_tables_release(&snap);
	printf("%u passed, %u failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
