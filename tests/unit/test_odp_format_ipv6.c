/* SPDX-License-Identifier: BSD-3-Clause
 * dpctl/dump-flows' text for IPv6 megaflows (odp_format_key). The
 * expected strings are what OVS 3.1's ovs-vswitchd (Debian, userspace
 * datapath, dummy ports; tests/integration/ovs_ref/make-ovs-ref-ipv6.sh,
 * its output beside it) printed for the same keys and masks with
 * `ovs-appctl dpctl/dump-flows [-m]`, IPv6 ND, TCP, UDP with a flow label
 * and ICMPv6 packets through rules on ipv6_src/dst, ipv6_label, nw_tos,
 * nw_ttl, tp_dst, icmp_type and nd_sll; the nd(...) cases OVS's megaflows
 * did not produce follow lib/odp-util.c's format_odp_key_attr (OVS_KEY_
 * ATTR_ND: format_in6_addr, format_eth).
 */
#include <arpa/inet.h>
#include <string.h>
#include "odp_format.h"
#include "unit_test.h"

static void
in6(struct flow_in6_addr *a, const char *s)
{
	inet_pton(AF_INET6, s, a->a);
}

static void
mac(struct rte_ether_addr *m, const char *s)
{
	rte_ether_unformat_addr(s, m);
}

/* An IPv6 key (dl_type, ext_line) and a mask with in_port, dl_type,
 * recirc_id exact, as xlate makes every megaflow's. */
static void
start(struct flow_key *k, struct flow_key *m)
{
	flow_key_zero(k);
	flow_key_zero(m);
	k->in_port = 2;
	k->dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	k->ext_line = FLOW_EXT_LINE;
	flow_mask_set_field(m, MFF_IN_PORT);
	flow_mask_set_field(m, MFF_DL_TYPE);
	m->recirc_id = 0xff;
}

/* The text from ",eth_type(" on must be want. */
static void
check(const struct flow_key *k, const struct flow_key *m, bool verbose,
      const char *want)
{
	struct odp_format_opts o = { .verbose = verbose, .names = false };
	struct ds ds = DS_EMPTY_INITIALIZER;

	odp_format_key(&ds, k, m, &o);
	const char *got = strstr(ds_cstr(&ds), "eth_type(");
	CHECK(got && !strcmp(got, want), "\n  got:  %s\n  want: %s",
	      ds_cstr(&ds), want);
	ds_destroy(&ds);
}

static void
test_tcp(void)
{
	struct flow_key k, m;

	start(&k, &m);
	in6(&k.ipv6_src, "2001:db8::5");
	in6(&m.ipv6_src, "ffff:0:ffff::");
	in6(&k.ipv6_dst, "2001:db8:1::1");
	flow_mask_set_field(&m, MFF_IPV6_DST);
	flow_mask_set_field(&m, MFF_IPV6_LABEL);
	k.nw_proto = IPPROTO_TCP;
	m.nw_proto = 0xff;
	m.nw_tos = 0xfc;
	k.nw_ttl = 64;
	m.nw_ttl = 0xff;
	m.nw_frag = FLOW_NW_FRAG_MASK;
	k.tp_dst = RTE_BE16(80);
	m.tp_dst = RTE_BE16(0xffff);
	check(&k, &m, false,
	      "eth_type(0x86dd),ipv6(src=2001:db8::5/ffff:0:ffff::,"
	      "dst=2001:db8:1::1,label=0,proto=6,tclass=0/0xfc,hlimit=64,"
	      "frag=no),tcp(dst=80)");
	k.tp_src = RTE_BE16(1000);
	check(&k, &m, true,
	      "eth_type(0x86dd),ipv6(src=2001:db8::5/ffff:0:ffff::,"
	      "dst=2001:db8:1::1,label=0,proto=6,tclass=0/0xfc,hlimit=64,"
	      "frag=no),tcp(src=1000/0,dst=80)");
}

static void
test_udp_label(void)
{
	struct flow_key k, m;

	start(&k, &m);
	in6(&k.ipv6_src, "2001:db8:9::5");
	in6(&m.ipv6_src, "ffff:0:ffff::");
	k.ipv6_label = rte_cpu_to_be_32(0x12345);
	flow_mask_set_field(&m, MFF_IPV6_LABEL);
	k.nw_proto = IPPROTO_UDP;
	m.nw_proto = 0xff;
	k.nw_tos = 0x20;
	m.nw_tos = 0xfc;
	k.nw_ttl = 64;
	m.nw_ttl = 0xff;
	m.nw_frag = FLOW_NW_FRAG_MASK;
	check(&k, &m, false,
	      "eth_type(0x86dd),ipv6(src=2001:db8:9::5/ffff:0:ffff::,"
	      "label=0x12345,proto=17,tclass=0x20/0xfc,hlimit=64,frag=no)");
	/* a partial label mask (format_ipv6_label) */
	m.ipv6_label = rte_cpu_to_be_32(0xff);
	k.ipv6_label = rte_cpu_to_be_32(0x45);
	check(&k, &m, false,
	      "eth_type(0x86dd),ipv6(src=2001:db8:9::5/ffff:0:ffff::,"
	      "label=0x45/0xff,proto=17,tclass=0x20/0xfc,hlimit=64,frag=no)");
}

static void
test_prefix_and_zero(void)
{
	struct flow_key k, m;

	start(&k, &m);
	in6(&k.ipv6_src, "2001:db8:2::1");
	in6(&m.ipv6_src, "ffff:ffff:ffff:ffff::");
	in6(&k.ipv6_dst, "2001:db8:1::7");
	flow_mask_set_field(&m, MFF_IPV6_DST);
	flow_mask_set_field(&m, MFF_IPV6_LABEL);
	m.nw_proto = 0xff;
	m.nw_tos = 0xfc;
	m.nw_ttl = 0xff;
	m.nw_frag = FLOW_NW_FRAG_MASK;
	check(&k, &m, false,
	      "eth_type(0x86dd),ipv6(src=2001:db8:2::1/ffff:ffff:ffff:ffff::,"
	      "dst=2001:db8:1::7,label=0,proto=0,tclass=0/0xfc,hlimit=0,"
	      "frag=no)");
	/* today's IPv6 megaflow, before any IPv6 rule: frag alone */
	start(&k, &m);
	m.nw_frag = FLOW_NW_FRAG_MASK;
	check(&k, &m, false, "eth_type(0x86dd),ipv6(frag=no)");
	/* nothing matched past dl_type: no ipv6(...) (as no ipv4(...)) */
	start(&k, &m);
	check(&k, &m, false, "eth_type(0x86dd)");
}

static void
test_icmpv6_nd(void)
{
	struct flow_key k, m;

	start(&k, &m);
	k.nw_proto = IPPROTO_ICMPV6;
	m.nw_proto = 0xff;
	m.nw_frag = FLOW_NW_FRAG_MASK;
	k.tp_src = RTE_BE16(128);
	m.tp_src = m.tp_dst = RTE_BE16(0xffff);
	check(&k, &m, false,
	      "eth_type(0x86dd),ipv6(proto=58,frag=no),icmpv6(type=128,code=0)");
	k.tp_src = RTE_BE16(135);
	m.tp_dst = 0;
	check(&k, &m, false,
	      "eth_type(0x86dd),ipv6(proto=58,frag=no),icmpv6(type=135)");
	/* -m: every field, the key's values and the masks, nd(...) for an
	 * ND key */
	in6(&k.ipv6_src, "fe80::f816:3eff:fe00:1");
	in6(&k.ipv6_dst, "ff02::1:ff00:2");
	k.nw_ttl = 255;
	in6(&k.nd_target, "fe80::2");
	mac(&k.nd_sll, "fa:16:3e:00:00:01");
	check(&k, &m, true,
	      "eth_type(0x86dd),ipv6(src=fe80::f816:3eff:fe00:1/::,"
	      "dst=ff02::1:ff00:2/::,label=0/0,proto=58,tclass=0/0,"
	      "hlimit=255/0,frag=no),icmpv6(type=135,code=0/0),"
	      "nd(target=fe80::2/::,sll=fa:16:3e:00:00:01/00:00:00:00:00:00,"
	      "tll=00:00:00:00:00:00/00:00:00:00:00:00)");
	/* nd(...) as its mask says (format_in6_addr, format_eth) */
	start(&k, &m);
	k.nw_proto = IPPROTO_ICMPV6;
	m.nw_proto = 0xff;
	m.nw_frag = FLOW_NW_FRAG_MASK;
	k.tp_src = RTE_BE16(136);
	m.tp_src = RTE_BE16(0xffff);
	in6(&k.nd_target, "fe80::f816:3eff:fe00:1");
	flow_mask_set_field(&m, MFF_ND_TARGET);
	check(&k, &m, false,
	      "eth_type(0x86dd),ipv6(proto=58,frag=no),icmpv6(type=136),"
	      "nd(target=fe80::f816:3eff:fe00:1)");
	in6(&k.nd_target, "fe80::");
	in6(&m.nd_target, "ffff:ffff:ffff:ffff::");
	mac(&k.nd_tll, "fa:16:3e:00:00:00");
	mac(&m.nd_tll, "ff:ff:ff:00:00:00");
	check(&k, &m, false,
	      "eth_type(0x86dd),ipv6(proto=58,frag=no),icmpv6(type=136),"
	      "nd(target=fe80::/ffff:ffff:ffff:ffff::,"
	      "tll=fa:16:3e:00:00:00/ff:ff:ff:00:00:00)");
	/* a later fragment has no L4 */
	start(&k, &m);
	k.nw_frag = FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER;
	m.nw_frag = FLOW_NW_FRAG_MASK;
	k.nw_proto = IPPROTO_TCP;
	m.nw_proto = 0xff;
	m.tp_dst = RTE_BE16(0xffff);
	check(&k, &m, false, "eth_type(0x86dd),ipv6(proto=6,frag=later)");
}

int
main(void)
{
	test_tcp();
	test_udp_label();
	test_prefix_and_zero();
	test_icmpv6_nd();
	printf("%u passed, %u failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
