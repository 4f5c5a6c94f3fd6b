/* SPDX-License-Identifier: BSD-3-Clause
 * test_ofp_parse, IPv6: every IPv6 field and shorthand printed as
 * ovs-ofctl 3.1 prints it (each expected text is what `ovs-ofctl -O
 * OpenFlow13 parse-flows` printed for the same input, in_port=3 aside,
 * which the test's port map names, and one case marked), what the parser
 * stores (network order, ext_line for the label and the second line),
 * the refusals with their exact messages, and del-flows filters on the
 * second line.
 */
#include "ofp_parse_test.h"

static const struct {
	const char *in, *out;
} ipv6_format_cases[] = {
	{ "ipv6,actions=drop", "ipv6 actions=drop" },
	{ "ip6,actions=drop", "ipv6 actions=drop" },
	{ "dl_type=0x86dd,nw_proto=58,actions=drop", "icmp6 actions=drop" },
	{ "dl_type=0x86dd,nw_proto=6,actions=drop", "tcp6 actions=drop" },
	{ "ipv6,nw_proto=17,tp_src=5,actions=drop", "udp6,tp_src=5 actions=drop" },
	{ "ipv6,nw_proto=47,actions=drop", "ipv6,nw_proto=47 actions=drop" },
	{ "udp6,udp_src=1/0xff,actions=drop",
	  "udp6,tp_src=0x1/0xff actions=drop" },
	{ "tcp6,tcp_dst=80,actions=drop", "tcp6,tp_dst=80 actions=drop" },
	/* udp_dst & co. mean ip unless the rule says ipv6, in any order
	 * (vxswitch's, as for IPv4: ovs-ofctl drops the port, "ipv6") */
	{ "udp_dst=53,ipv6,actions=drop", "udp6,tp_dst=53 actions=drop" },
	/* addresses: inet_ntop's compression, CIDR as /len, masked value */
	{ "ipv6,ipv6_src=2001:db8::/64,actions=drop",
	  "ipv6,ipv6_src=2001:db8::/64 actions=drop" },
	{ "ipv6,ipv6_src=2001:db8::1/ffff:ffff::,actions=drop",
	  "ipv6,ipv6_src=2001:db8::/32 actions=drop" },
	{ "ipv6,ipv6_src=2001:db8::1/ffff:0:ffff::,actions=drop",
	  "ipv6,ipv6_src=2001::/ffff:0:ffff:: actions=drop" },
	{ "ipv6,ipv6_src=2001:db8::1/ffff::1,actions=drop",
	  "ipv6,ipv6_src=2001::1/ffff::1 actions=drop" },
	{ "ipv6,ipv6_dst=2001:DB8:0:0:0:0:0:1,actions=drop",
	  "ipv6,ipv6_dst=2001:db8::1 actions=drop" },
	{ "ipv6,ipv6_src=2001:db8::1/128,actions=drop",
	  "ipv6,ipv6_src=2001:db8::1 actions=drop" },
	{ "ipv6,ipv6_src=2001:db8::1/0,actions=drop", "ipv6 actions=drop" },
	{ "ipv6,ipv6_src=::,actions=drop", "ipv6,ipv6_src=:: actions=drop" },
	{ "ipv6,ipv6_src=::ffff:1.2.3.4,actions=drop",
	  "ipv6,ipv6_src=::ffff:1.2.3.4 actions=drop" },
	{ "ipv6,ipv6_src=::ffff:0:0/96,actions=drop",
	  "ipv6,ipv6_src=::ffff:0.0.0.0/96 actions=drop" },
	{ "ipv6,ipv6_src=64:ff9b::1.2.3.4,actions=drop",
	  "ipv6,ipv6_src=64:ff9b::102:304 actions=drop" },
	{ "ipv6,ipv6_src=1:0:0:1:0:0:0:1,actions=drop",
	  "ipv6,ipv6_src=1:0:0:1::1 actions=drop" },
	{ "ipv6,ipv6_src=2001:db8:0:0:1:0:0:1,actions=drop",
	  "ipv6,ipv6_src=2001:db8::1:0:0:1 actions=drop" },
	{ "ipv6,ipv6_dst=ff02::1:ff00:0/104,actions=drop",
	  "ipv6,ipv6_dst=ff02::1:ff00:0/104 actions=drop" },
	/* the label: 0x%05x */
	{ "ipv6,ipv6_label=0x12345,actions=drop",
	  "ipv6,ipv6_label=0x12345 actions=drop" },
	{ "ipv6,ipv6_label=5,actions=drop", "ipv6,ipv6_label=0x00005 actions=drop" },
	{ "ipv6,ipv6_label=0x12345/0xff,actions=drop",
	  "ipv6,ipv6_label=0x00045/0x000ff actions=drop" },
	{ "ipv6,ipv6_label=0x12345/0xfffff,actions=drop",
	  "ipv6,ipv6_label=0x12345 actions=drop" },
	{ "ipv6,ipv6_label=0x12345/0xffffffff,actions=drop",
	  "ipv6,ipv6_label=0x12345 actions=drop" },
	{ "ipv6,ipv6_label=0/0,actions=drop", "ipv6 actions=drop" },
	/* w5 on IPv6 */
	{ "ipv6,nw_tos=8,nw_ttl=3,nw_frag=first,actions=drop",
	  "ipv6,nw_tos=8,nw_ttl=3,nw_frag=first actions=drop" },
	{ "ipv6,ip_dscp=2,actions=drop", "ipv6,nw_tos=8 actions=drop" },
	{ "ipv6,ip_dscp=63,actions=drop", "ipv6,nw_tos=252 actions=drop" },
	{ "ip,ip_dscp=2,actions=drop", "ip,nw_tos=8 actions=drop" },
	{ "ipv6,nw_frag=later,actions=drop", "ipv6,nw_frag=later actions=drop" },
	/* ICMPv6 prints as icmp_type/icmp_code; Neighbour Discovery */
	{ "icmp6,icmpv6_type=135,icmpv6_code=0,actions=drop",
	  "icmp6,icmp_type=135,icmp_code=0 actions=drop" },
	{ "icmp,icmpv6_type=3,actions=drop", "icmp,icmp_type=3 actions=drop" },
	{ "icmp6,icmp_code=3,actions=drop", "icmp6,icmp_code=3 actions=drop" },
	{ "icmp6,icmp_type=135,nd_target=fe80::1,actions=drop",
	  "icmp6,icmp_type=135,nd_target=fe80::1 actions=drop" },
	{ "icmp6,icmp_type=136,nd_target=fe80::1/64,actions=drop",
	  "icmp6,icmp_type=136,nd_target=fe80::/64 actions=drop" },
	{ "icmp6,icmp_type=135,nd_target=fe80::1/ffff::ff,actions=drop",
	  "icmp6,icmp_type=135,nd_target=fe80::1/ffff::ff actions=drop" },
	{ "icmp6,icmp_type=135,nd_sll=00:11:22:33:44:55,actions=drop",
	  "icmp6,icmp_type=135,nd_sll=00:11:22:33:44:55 actions=drop" },
	{ "icmp6,icmp_type=136,nd_tll=00:11:22:33:44:55/ff:ff:ff:00:00:00,"
	  "actions=drop",
	  "icmp6,icmp_type=136,nd_tll=00:11:22:00:00:00/ff:ff:ff:00:00:00 "
	  "actions=drop" },
	{ "icmp6,icmp_code=0,nd_target=::1,icmp_type=135,actions=drop",
	  "icmp6,icmp_type=135,icmp_code=0,nd_target=::1 actions=drop" },
	/* ovs-ofctl's field order */
	{ "priority=7,tcp6,in_port=3,dl_src=00:00:00:00:00:01,ipv6_dst=::1,"
	  "ipv6_src=fe80::/10,ipv6_label=1,nw_tos=4,nw_ttl=9,nw_frag=no,"
	  "tp_src=1,tp_dst=2,actions=drop",
	  "priority=7,tcp6,in_port=vhost-user2,dl_src=00:00:00:00:00:01,"
	  "ipv6_src=fe80::/10,ipv6_dst=::1,ipv6_label=0x00001,nw_tos=4,"
	  "nw_ttl=9,nw_frag=no,tp_src=1,tp_dst=2 actions=drop" },
	{ "icmp6,icmp_type=136,icmp_code=0,nd_tll=aa:bb:cc:dd:ee:ff,"
	  "nd_target=fe80::f816:3eff:fe00:1,dl_vlan=3,actions=drop",
	  "icmp6,dl_vlan=3,icmp_type=136,icmp_code=0,"
	  "nd_target=fe80::f816:3eff:fe00:1,nd_tll=aa:bb:cc:dd:ee:ff "
	  "actions=drop" },
};

static const char *const ipv6_errors[][2] = {
	{ "ipv6,ipv6_src=2001:db8::g,actions=drop",
	  "ipv6_src: bad IPv6 address '2001:db8::g'" },
	{ "ipv6,ipv6_src=1.2.3.4,actions=drop",
	  "ipv6_src: bad IPv6 address '1.2.3.4'" },
	{ "ipv6,ipv6_src=[2001:db8::1],actions=drop",
	  "ipv6_src: bad IPv6 address '[2001:db8::1]'" },
	{ "ipv6,ipv6_dst=2001:db8::1/129,actions=drop",
	  "ipv6_dst: bad IPv6 mask '129' (a prefix length 0..128 or an IPv6 "
	  "address)" },
	{ "ipv6,ipv6_dst=2001:db8::1/0x40,actions=drop",
	  "ipv6_dst: bad IPv6 mask '0x40'" },
	{ "ipv6,ipv6_dst=2001:db8::1/ffff::/64,actions=drop",
	  "ipv6_dst: bad IPv6 mask 'ffff::/64'" },
	{ "ipv6,ipv6_label=0x100000,actions=drop",
	  "ipv6_label: bad flow label '0x100000' (max 0xfffff)" },
	{ "ipv6,ipv6_label=1/0x100000000,actions=drop",
	  "ipv6_label: bad mask '0x100000000'" },
	{ "ipv6,ip_dscp=64,actions=drop", "ip_dscp: bad ip_dscp '64' (0..63)" },
	{ "icmp6,icmp_type=135,nd_sll=zz,actions=drop",
	  "nd_sll: bad MAC address 'zz'" },
	{ "icmpv6,actions=drop", "unknown field 'icmpv6'" },
	{ "sctp6,actions=drop", "'sctp6': SCTP is not supported" },
	{ "sctp,actions=drop", "'sctp': SCTP is not supported" },
	{ "ipv6,ipv6_src=::1,ipv6_src=::2,actions=drop",
	  "conflicting values for ipv6_src ('ipv6_src=::2')" },
	{ "tcp6,udp,actions=drop", "conflicting values for dl_type ('udp')" },
	{ "ipv6_src=2001:db8::1,actions=drop",
	  "ipv6_src requires ipv6 (add 'ipv6'), in 'ipv6_src=2001:db8::1'" },
	{ "ip,ipv6_dst=::1/64,actions=drop",
	  "ipv6_dst requires ipv6 (add 'ipv6'), in 'ipv6_dst=::1/64'" },
	{ "ip,ipv6_label=1,actions=drop", "ipv6_label requires ipv6" },
	{ "ipv6,nw_src=1.2.3.4,actions=drop", "nw_src requires ip or arp" },
	{ "ipv6,tp_dst=80,actions=drop",
	  "tp_dst requires tcp6 or udp6 (add 'udp6' or 'nw_proto=17'), in "
	  "'tp_dst=80'" },
	{ "icmp6,tp_src=1,actions=drop", "tp_src requires tcp6 or udp6" },
	{ "ipv6,icmp_type=135,actions=drop",
	  "icmp_type requires icmp or icmp6 (add 'icmp' or 'icmp6'), in "
	  "'icmp_type=135'" },
	{ "tcp6,icmpv6_code=0,actions=drop",
	  "icmpv6_code requires icmp or icmp6" },
	{ "nw_ttl=1,actions=drop", "nw_ttl requires ip or ipv6 (add 'ip' or "
	  "'ipv6'), in 'nw_ttl=1'" },
	{ "arp,ip_dscp=4,actions=drop", "ip_dscp requires ip or ipv6" },
	{ "arp,udp_dst=53,actions=drop", "udp_dst requires ip or ipv6" },
	{ "icmp6,nd_target=::1,actions=drop",
	  "nd_target requires icmp6 with icmp_type=135 or 136 and icmp_code=0 "
	  "(add 'icmp6,icmp_type=135' or 'icmp6,icmp_type=136'), in "
	  "'nd_target=::1'" },
	{ "icmp6,icmp_type=134,nd_target=::1,actions=drop",
	  "nd_target requires icmp6 with icmp_type=135 or 136" },
	{ "icmp6,icmp_type=135,icmp_code=1,nd_target=::1,actions=drop",
	  "nd_target requires icmp6 with icmp_type=135 or 136 and icmp_code=0" },
	{ "icmp,icmp_type=135,nd_target=::1,actions=drop",
	  "nd_target requires icmp6" },
	{ "icmp6,icmp_type=136,nd_sll=00:11:22:33:44:55,actions=drop",
	  "nd_sll requires icmp6 with icmp_type=135 and icmp_code=0 "
	  "(neighbour solicitation: add 'icmp6,icmp_type=135'), in "
	  "'nd_sll=00:11:22:33:44:55'" },
	{ "icmp6,icmp_type=135,nd_tll=00:11:22:33:44:55,actions=drop",
	  "nd_tll requires icmp6 with icmp_type=136 and icmp_code=0 "
	  "(neighbour advertisement: add 'icmp6,icmp_type=136')" },
};

static void
test_ipv6_stored(void)
{
	struct ofp_rule r;

	if (parse_ok("ipv6,ipv6_src=2001:db8::1/64,ipv6_label=0x12345",
		     OFP_PARSE_MATCH, &r)) {
		static const uint8_t net[16] = { 0x20, 0x01, 0x0d, 0xb8 };
		CHECK(!memcmp(r.match.ipv6_src.a, net, 16),
		      "ipv6_src network order, masked");
		CHECK(r.mask.ipv6_src.a[7] == 0xff && r.mask.ipv6_src.a[8] == 0,
		      "/64 mask");
		CHECK(r.match.ipv6_label == rte_cpu_to_be_32(0x12345) &&
		      r.mask.ipv6_label == rte_cpu_to_be_32(0xfffff),
		      "label be32, 20-bit mask");
		CHECK(r.mask.ext_line == FLOW_EXT_LINE && r.match.ext_line == FLOW_EXT_LINE,
		      "a line-2 rule has ext_line");
	}
	if (parse_ok("ipv6,ipv6_label=1", OFP_PARSE_MATCH, &r))
		CHECK(r.mask.ext_line == FLOW_EXT_LINE && r.match.ext_line == FLOW_EXT_LINE,
		      "the label (w7) needs ext_line too");
	if (parse_ok("icmp6,icmp_type=136,nd_tll=01:02:03:04:05:06",
		     OFP_PARSE_MATCH, &r)) {
		CHECK(r.mask.ext_line == FLOW_EXT_LINE, "nd_tll: ext_line");
		CHECK(r.match.nd_tll.addr_bytes[5] == 6, "nd_tll stored");
		CHECK(r.match.tp_src == rte_cpu_to_be_16(136) &&
		      r.match.nw_proto == 58, "icmp6 type in tp_src");
	}
	/* w5 only, or a /0 mask: one line, as an IPv4 rule */
	if (parse_ok("tcp6,nw_ttl=3,tp_dst=22", OFP_PARSE_MATCH, &r))
		CHECK(!r.mask.ext_line && !r.match.ext_line, "tcp6: no line 2");
	if (parse_ok("ipv6,ipv6_dst=::/0,ipv6_label=0/0", OFP_PARSE_MATCH, &r))
		CHECK(!r.mask.ext_line, "empty masks: no line 2");
	if (parse_ok("udp_src=1,udp6", OFP_PARSE_MATCH, &r))
		CHECK(r.match.dl_type == RTE_BE16(0x86dd), "udp_src on ipv6");
	if (parse_ok("udp_src=1", OFP_PARSE_MATCH, &r))
		CHECK(r.match.dl_type == RTE_BE16(0x0800), "udp_src alone: ip");
}

/* del-flows/dump-flows filters on IPv6 fields (the second line, w7) */
static void
test_ipv6_covered_by(void)
{
	struct ofp_rule r, f;

	if (!parse_ok("tcp6,ipv6_src=2001:db8::1,ipv6_label=7,tp_dst=22,"
		      "actions=drop", OFP_PARSE_ADD, &r))
		return;
	if (parse_ok("ipv6,ipv6_src=2001:db8::/32", OFP_PARSE_MATCH, &f))
		CHECK(ofp_rule_covered_by(&r, &f), "prefix filter covers");
	if (parse_ok("ipv6,ipv6_src=2001:db9::/32", OFP_PARSE_MATCH, &f))
		CHECK(!ofp_rule_covered_by(&r, &f), "other prefix");
	if (parse_ok("ipv6,ipv6_label=8", OFP_PARSE_MATCH, &f))
		CHECK(!ofp_rule_covered_by(&r, &f), "other label");
	if (parse_ok("ipv6,ipv6_dst=::1", OFP_PARSE_MATCH, &f))
		CHECK(!ofp_rule_covered_by(&r, &f), "r has no ipv6_dst");
	if (parse_ok("tcp6", OFP_PARSE_MATCH, &f))
		CHECK(ofp_rule_covered_by(&r, &f), "tcp6 covers");
	if (parse_ok("tcp", OFP_PARSE_MATCH, &f))
		CHECK(!ofp_rule_covered_by(&r, &f), "tcp does not");
}

void
test_ipv6(void)
{
	static const char *const prereq_any_order[] = {
		"ipv6_src=::1,ipv6",
		"nd_target=::1,icmp_type=135,icmp6",
		"nd_sll=00:00:00:00:00:01,icmpv6_type=135,nw_proto=58,"
		"dl_type=0x86dd",
		"nd_tll=00:00:00:00:00:01,icmp_type=136,icmp_code=0,icmp6",
		"tp_dst=1,tcp6",
		"nw_ttl=1,ip_frag=no,ipv6",
	};
	struct ofp_rule r;

	for (size_t i = 0; i < RTE_DIM(ipv6_format_cases); i++)
		check_format(ipv6_format_cases[i].in, ipv6_format_cases[i].out);
	for (size_t i = 0; i < RTE_DIM(ipv6_errors); i++)
		check_error(OFP_PARSE_ADD, ipv6_errors[i][0], ipv6_errors[i][1]);
	for (size_t i = 0; i < RTE_DIM(prereq_any_order); i++)
		if (parse_ok(prereq_any_order[i], OFP_PARSE_MATCH, &r))
			check_round_trip(&r, prereq_any_order[i]);
	test_ipv6_stored();
	test_ipv6_covered_by();
}
