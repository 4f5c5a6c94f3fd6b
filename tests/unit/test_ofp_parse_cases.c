/* SPDX-License-Identifier: BSD-3-Clause
 * test_ofp_parse, fixed cases: seed rules, every field, errors and their
 * buffers, prerequisites in any order.
 */
#include "ofp_parse_test.h"

/* ---- seed rules ------------------------------------------------------- */

void
test_seed_rules(void)
{
	char s[256], expect[256];
	struct ofp_rule r;

	for (int i = 0; i < 32; i++) {
		snprintf(s, sizeof s,
			 "in_port=vhost-user%d,actions=set_tunnel:1001,"
			 "set_field:172.1.0.0->tun_dst,"
			 "set_field:172.1.0.100->tun_src,output:vxlan", i);
		if (!parse_ok(s, OFP_PARSE_ADD, &r))
			continue;
		CHECK(r.match.in_port == (uint32_t)i + 1 &&
		      r.mask.in_port == UINT16_MAX, "in_port of '%s'", s);
		CHECK(r.priority == OFP_DEFAULT_PRIORITY, "default priority");
		CHECK(r.n_actions == 4, "4 actions");
		CHECK(r.actions[0].type == OFPACT_SET_TUNNEL &&
		      r.actions[0].u32 == 1001, "set_tunnel:1001");
		CHECK(r.actions[1].type == OFPACT_SET_TUN_DST &&
		      r.actions[1].ip == ip("172.1.0.0"), "tun_dst");
		CHECK(r.actions[2].type == OFPACT_SET_TUN_SRC &&
		      r.actions[2].ip == ip("172.1.0.100"), "tun_src");
		CHECK(r.actions[3].type == OFPACT_OUTPUT &&
		      r.actions[3].port == 100, "output:vxlan");
		snprintf(expect, sizeof expect,
			 "in_port=vhost-user%d actions=set_tunnel:0x3e9,"
			 "set_field:172.1.0.0->tun_dst,"
			 "set_field:172.1.0.100->tun_src,output:vxlan", i);
		check_format(s, expect);

		snprintf(s, sizeof s,
			 "in_port=vxlan,ip,nw_dst=192.1.0.%d,"
			 "actions=output:vhost-user%d", i, i);
		if (!parse_ok(s, OFP_PARSE_ADD, &r))
			continue;
		const uint8_t *dst = (const uint8_t *)&r.match.nw_dst;
		CHECK(dst[0] == 192 && dst[1] == 1 && dst[2] == 0 && dst[3] == i,
		      "nw_dst is in network order");
		CHECK(r.mask.nw_dst == UINT32_MAX, "nw_dst exact");
		CHECK(r.match.dl_type == rte_cpu_to_be_16(0x0800) &&
		      r.mask.dl_type == UINT16_MAX, "ip sets dl_type");
		CHECK(r.n_actions == 1 && r.actions[0].port == (uint32_t)i + 1,
		      "output:vhost-user%d", i);
		snprintf(expect, sizeof expect,
			 "ip,in_port=vxlan,nw_dst=192.1.0.%d "
			 "actions=output:vhost-user%d", i, i);
		check_format(s, expect);
	}
	check_format("priority=100,in_port=vxlan,ip,nw_dst=192.1.0.1,"
		     "actions=output:vhost-user1",
		     "priority=100,ip,in_port=vxlan,nw_dst=192.1.0.1 "
		     "actions=output:vhost-user1");
}

/* ---- every field ------------------------------------------------------ */

static const struct {
	const char *in, *out;
} format_cases[] = {
	/* in_port */
	{ "in_port=vxlan,actions=drop", "in_port=vxlan actions=drop" },
	{ "in_port=5,actions=drop", "in_port=vhost-user4 actions=drop" },
	{ "in_port=300,actions=drop", "in_port=300 actions=drop" },
	{ "in_port=dpdk-phy,actions=drop", "in_port=dpdk-phy actions=drop" },
	/* tunnel */
	{ "tun_id=1001,actions=drop", "tun_id=0x3e9 actions=drop" },
	{ "tun_id=0,actions=drop", "tun_id=0x0 actions=drop" },
	{ "tun_id=0xffffffff,actions=drop", "tun_id=0xffffffff actions=drop" },
	{ "tunnel_id=0x1f/0xf0,actions=drop", "tun_id=0x10/0xf0 actions=drop" },
	{ "tun_id=5/0,actions=drop", "actions=drop" },
	{ "tun_src=172.1.0.100,actions=drop", "tun_src=172.1.0.100 actions=drop" },
	{ "tun_dst=10.1.2.3/8,actions=drop", "tun_dst=10.0.0.0/8 actions=drop" },
	{ "tun_dst=10.1.2.3/255.0.255.0,actions=drop",
	  "tun_dst=10.0.2.0/255.0.255.0 actions=drop" },
	/* L2 */
	{ "dl_src=AA:bb:0c:d:ee:ff,actions=drop",
	  "dl_src=aa:bb:0c:0d:ee:ff actions=drop" },
	{ "eth_src=aa:bb:cc:dd:ee:ff,actions=drop",
	  "dl_src=aa:bb:cc:dd:ee:ff actions=drop" },
	{ "eth_dst=03:00:00:00:00:01/01:00:00:00:00:00,actions=drop",
	  "dl_dst=01:00:00:00:00:00/01:00:00:00:00:00 actions=drop" },
	{ "dl_dst=00:00:00:00:00:01,actions=drop",
	  "dl_dst=00:00:00:00:00:01 actions=drop" },
	{ "dl_type=0x0800,actions=drop", "ip actions=drop" },
	{ "eth_type=2054,actions=drop", "arp actions=drop" },
	{ "dl_type=0x86dd,actions=drop", "ipv6 actions=drop" },
	{ "ipv6,actions=drop", "ipv6 actions=drop" },
	{ "dl_type=0x88cc,actions=drop", "dl_type=0x88cc actions=drop" },
	{ "dl_vlan=5,actions=drop", "dl_vlan=5 actions=drop" },
	{ "dl_vlan=0,actions=drop", "dl_vlan=0 actions=drop" },
	{ "dl_vlan=4095,actions=drop", "dl_vlan=4095 actions=drop" },
	{ "vlan_tci=0x1005/0x1fff,actions=drop", "dl_vlan=5 actions=drop" },
	{ "dl_vlan=0xffff,actions=drop", "vlan_tci=0x0000 actions=drop" },
	{ "vlan_tci=0,actions=drop", "vlan_tci=0x0000 actions=drop" },
	{ "vlan_tci=0x3005,actions=drop", "vlan_tci=0x3005 actions=drop" },
	{ "vlan_tci=0x2000/0xe000,actions=drop",
	  "vlan_tci=0x2000/0xe000 actions=drop" },
	{ "vlan_tci=0x1000/0x1000,actions=drop",
	  "vlan_tci=0x1000/0x1000 actions=drop" },
	/* L3 */
	{ "ip,nw_src=10.0.0.0/255.0.0.0,actions=drop",
	  "ip,nw_src=10.0.0.0/8 actions=drop" },
	{ "ip,nw_dst=10.9.8.7/255.0.255.0,actions=drop",
	  "ip,nw_dst=10.0.8.0/255.0.255.0 actions=drop" },
	{ "ip,nw_dst=1.2.3.4/32,actions=drop", "ip,nw_dst=1.2.3.4 actions=drop" },
	{ "ip,nw_dst=1.2.3.4/0,actions=drop", "ip actions=drop" },
	{ "ip,ip_src=1.2.3.4/31,actions=drop", "ip,nw_src=1.2.3.4/31 actions=drop" },
	{ "ip,ip_dst=1.2.3.4/1,actions=drop", "ip,nw_dst=0.0.0.0/1 actions=drop" },
	{ "arp,nw_src=1.2.3.4,actions=drop", "arp,arp_spa=1.2.3.4 actions=drop" },
	{ "arp,arp_tpa=1.2.3.0/24,actions=drop", "arp,arp_tpa=1.2.3.0/24 actions=drop" },
	{ "arp,arp_op=2,actions=drop", "arp,arp_op=2 actions=drop" },
	{ "arp,nw_proto=1,actions=drop", "arp,arp_op=1 actions=drop" },
	{ "ip,nw_proto=17,actions=drop", "udp actions=drop" },
	{ "ip_proto=6,ip,actions=drop", "tcp actions=drop" },
	{ "ip,nw_proto=1,actions=drop", "icmp actions=drop" },
	{ "ip,nw_proto=47,actions=drop", "ip,nw_proto=47 actions=drop" },
	{ "ip,nw_tos=184,actions=drop", "ip,nw_tos=184 actions=drop" },
	{ "ip,nw_tos=0,actions=drop", "ip,nw_tos=0 actions=drop" },
	{ "ip,nw_ttl=64,actions=drop", "ip,nw_ttl=64 actions=drop" },
	{ "ip,ip_frag=no,actions=drop", "ip,nw_frag=no actions=drop" },
	{ "ip,ip_frag=yes,actions=drop", "ip,nw_frag=yes actions=drop" },
	{ "ip,ip_frag=first,actions=drop", "ip,nw_frag=first actions=drop" },
	{ "ip,ip_frag=later,actions=drop", "ip,nw_frag=later actions=drop" },
	{ "ip,ip_frag=not_later,actions=drop", "ip,nw_frag=not_later actions=drop" },
	/* L4 */
	{ "udp,tp_dst=4789,actions=drop", "udp,tp_dst=4789 actions=drop" },
	{ "tcp,tp_src=0x50,actions=drop", "tcp,tp_src=80 actions=drop" },
	{ "tcp_dst=80,actions=drop", "tcp,tp_dst=80 actions=drop" },
	{ "udp_src=0x1234/0xf000,actions=drop",
	  "udp,tp_src=0x1000/0xf000 actions=drop" },
	{ "ip,nw_proto=17,udp_dst=53,actions=drop", "udp,tp_dst=53 actions=drop" },
	{ "icmp,icmp_type=8,icmp_code=0,actions=drop",
	  "icmp,icmp_type=8,icmp_code=0 actions=drop" },
	{ "icmp,icmp_code=3,actions=drop", "icmp,icmp_code=3 actions=drop" },
	/* priority, cookie, table */
	{ "priority=100,ip,actions=drop", "priority=100,ip actions=drop" },
	{ "priority=32768,ip,actions=drop", "ip actions=drop" },
	{ "priority=0,actions=drop", "priority=0 actions=drop" },
	{ "priority=65535,actions=drop", "priority=65535 actions=drop" },
	{ "cookie=0x10,ip,actions=drop", "ip actions=drop" },
	{ "table=0,ip,actions=drop", "ip actions=drop" },
	/* everything at once, in an odd order */
	{ "tp_dst=53,nw_ttl=3,udp,nw_tos=4,ip_frag=no,nw_src=1.1.1.1,"
	  "nw_dst=2.2.2.0/24,dl_dst=00:00:00:00:00:02,dl_src=00:00:00:00:00:01,"
	  "dl_vlan=7,tun_dst=9.9.9.9,tun_src=8.8.8.8,tun_id=7,in_port=vxlan,"
	  "priority=7,actions=drop",
	  "priority=7,udp,tun_id=0x7,tun_src=8.8.8.8,tun_dst=9.9.9.9,"
	  "in_port=vxlan,dl_vlan=7,dl_src=00:00:00:00:00:01,"
	  "dl_dst=00:00:00:00:00:02,nw_src=1.1.1.1,nw_dst=2.2.2.0/24,nw_tos=4,"
	  "nw_ttl=3,nw_frag=no,tp_dst=53 actions=drop" },
	/* whitespace */
	{ "  in_port = vxlan ,  ip , nw_dst=1.2.3.4   actions = output:1 ",
	  "ip,in_port=vxlan,nw_dst=1.2.3.4 actions=output:vhost-user0" },
	{ "in_port=vxlan ip nw_dst=1.2.3.4 actions=output:1",
	  "ip,in_port=vxlan,nw_dst=1.2.3.4 actions=output:vhost-user0" },
	{ "in_port=vxlan\tip\n,actions=output:1 , output:2",
	  "ip,in_port=vxlan actions=output:vhost-user0,output:vhost-user1" },
	{ "ip,,,nw_dst=1.2.3.4,actions=,output:1,,",
	  "ip,nw_dst=1.2.3.4 actions=output:vhost-user0" },
	{ "action=drop", "actions=drop" },
	/* actions */
	{ "actions=2", "actions=output:vhost-user1" },
	{ "actions=vhost-user1", "actions=output:vhost-user1" },
	{ "actions=output:300", "actions=output:300" },
	{ "actions=OUTPUT:dpdk-phy", "actions=output:dpdk-phy" },
	{ "actions=in_port", "actions=in_port" },
	{ "actions=output:IN_PORT", "actions=in_port" },
	{ "actions=set_tunnel64:0x3e9", "actions=set_tunnel:0x3e9" },
	{ "actions=set_tunnel:0", "actions=set_tunnel:0x0" },
	{ "actions=set_tunnel:4294967295", "actions=set_tunnel:0xffffffff" },
	{ "actions=set_field:1001->tun_id", "actions=set_tunnel:0x3e9" },
	{ "actions=set_field:0x10->tunnel_id", "actions=set_tunnel:0x10" },
	{ "actions=set_field:aa:bb:cc:dd:ee:ff->eth_src",
	  "actions=mod_dl_src:aa:bb:cc:dd:ee:ff" },
	{ "actions=set_field:aa:bb:cc:dd:ee:ff->dl_src",
	  "actions=mod_dl_src:aa:bb:cc:dd:ee:ff" },
	{ "actions=set_field:AA:bb:cc:dd:ee:1->eth_dst",
	  "actions=mod_dl_dst:aa:bb:cc:dd:ee:01" },
	{ "actions=set_field:aa:bb:cc:dd:ee:ff->dl_dst",
	  "actions=mod_dl_dst:aa:bb:cc:dd:ee:ff" },
	{ "actions=mod_dl_src:00:11:22:33:44:55,mod_dl_dst:66:77:88:99:aa:bb",
	  "actions=mod_dl_src:00:11:22:33:44:55,mod_dl_dst:66:77:88:99:aa:bb" },
	{ "actions=set_field:1.2.3.4->tun_src,set_field:5.6.7.8->tun_dst",
	  "actions=set_field:1.2.3.4->tun_src,set_field:5.6.7.8->tun_dst" },
	{ "actions=", "actions=drop" },
	{ "actions=drop", "actions=drop" },
	{ "actions=DROP", "actions=drop" },
	{ "actions=drop,drop", "actions=drop" },
	{ "actions=output:1,output:1", "actions=output:vhost-user0,output:vhost-user0" },
};

void
test_format_cases(void)
{
	for (size_t i = 0; i < sizeof format_cases / sizeof format_cases[0]; i++)
		check_format(format_cases[i].in, format_cases[i].out);
}

/* Stored values: network order for packet fields, host order for metadata,
 * match already masked. */
void
test_stored_values(void)
{
	struct ofp_rule r;

	if (parse_ok("tun_id=0x12345678/0xffff0000,udp,tp_dst=0x1234/0xff00,"
		     "dl_vlan=0x123,nw_tos=0xfc,in_port=7", OFP_PARSE_MATCH, &r)) {
		CHECK(r.match.tun_id == 0x12340000 && r.mask.tun_id == 0xffff0000,
		      "tun_id host order, masked");
		CHECK(r.match.tp_dst == rte_cpu_to_be_16(0x1200) &&
		      r.mask.tp_dst == rte_cpu_to_be_16(0xff00), "tp_dst be16");
		CHECK(r.match.vlan_tci == rte_cpu_to_be_16(0x1123) &&
		      r.mask.vlan_tci == rte_cpu_to_be_16(0x1fff), "dl_vlan tci");
		CHECK(r.match.nw_proto == 17 && r.mask.nw_proto == 0xff, "udp");
		CHECK(r.match.nw_tos == 0xfc && r.mask.nw_tos == 0xfc, "dscp");
		CHECK(r.match.in_port == 7, "in_port");
		CHECK(r.n_actions == 0, "match mode: no actions");
	}
	if (parse_ok("icmp,icmp_type=3,icmp_code=4", OFP_PARSE_MATCH, &r)) {
		CHECK(r.match.tp_src == rte_cpu_to_be_16(3) &&
		      r.match.tp_dst == rte_cpu_to_be_16(4), "icmp in tp_*");
		CHECK(r.match.nw_proto == 1, "icmp proto");
	}
	if (parse_ok("ip,ip_frag=later", OFP_PARSE_MATCH, &r))
		CHECK(r.match.nw_frag == 3 && r.mask.nw_frag == 3, "later");
	if (parse_ok("ip,ip_frag=not_later", OFP_PARSE_MATCH, &r))
		CHECK(r.match.nw_frag == 0 && r.mask.nw_frag == 2, "not_later");
	if (parse_ok("dl_src=01:02:03:04:05:06/ff:00:ff:00:ff:00",
		     OFP_PARSE_MATCH, &r))
		CHECK(r.match.dl_src.addr_bytes[0] == 1 &&
		      r.match.dl_src.addr_bytes[1] == 0 &&
		      r.match.dl_src.addr_bytes[4] == 5, "dl_src masked");
	if (parse_ok("cookie=0xfeedfacecafebeef,priority=9", OFP_PARSE_MATCH, &r))
		CHECK(r.cookie == 0xfeedfacecafebeefull && r.priority == 9,
		      "cookie and priority in match mode");
	if (parse_ok("", OFP_PARSE_MATCH, &r)) {
		struct flow_key zero;
		flow_key_zero(&zero);
		CHECK(flow_key_equal(&r.mask, &zero), "empty filter");
	}
	if (parse_ok("actions=set_field:0x3e9->tun_id", OFP_PARSE_ADD, &r))
		CHECK(r.actions[0].type == OFPACT_SET_TUNNEL &&
		      r.actions[0].u32 == 1001, "set_field tun_id");
	if (parse_ok("actions=in_port", OFP_PARSE_ADD, &r))
		CHECK(r.actions[0].port == OFPP_IN_PORT, "in_port action");
}

/* ---- errors ----------------------------------------------------------- */

static const struct {
	enum ofp_parse_mode mode;
	const char *in, *expect;
} error_cases[] = {
	{ OFP_PARSE_ADD, "nw_dstt=1.2.3.4,actions=drop", "unknown field 'nw_dstt'" },
	{ OFP_PARSE_ADD, "ip,nw_dst=192.1.0.300,actions=drop",
	  "nw_dst: bad IPv4 address '192.1.0.300'" },
	{ OFP_PARSE_ADD, "ip,nw_dst=1.2.3,actions=drop", "'1.2.3'" },
	{ OFP_PARSE_ADD, "ip,nw_dst=1.2.3.4/33,actions=drop",
	  "nw_dst: bad IPv4 mask '33'" },
	{ OFP_PARSE_ADD, "ip,nw_src=1.2.3.4/255.0.0,actions=drop",
	  "nw_src: bad IPv4 mask '255.0.0'" },
	{ OFP_PARSE_ADD, "ip,nw_src=,actions=drop", "nw_src: bad IPv4 address ''" },
	{ OFP_PARSE_ADD, "tun_dst=1.2.3.4.5,actions=drop", "'1.2.3.4.5'" },
	{ OFP_PARSE_ADD, "actions=output:vhost-user99",
	  "output: unknown port 'vhost-user99'" },
	{ OFP_PARSE_ADD, "actions=output:0", "output: unknown port '0'" },
	{ OFP_PARSE_ADD, "actions=output:4294967295", "'4294967295'" },
	{ OFP_PARSE_ADD, "actions=vhost-user99", "'vhost-user99'" },
	{ OFP_PARSE_ADD, "in_port=vhost-user99,actions=drop",
	  "in_port: unknown port 'vhost-user99'" },
	{ OFP_PARSE_ADD, "in_port=0,actions=drop", "in_port: unknown port '0'" },
	{ OFP_PARSE_ADD, "in_port=,actions=drop", "in_port: unknown port ''" },
	/* the key's in_port is 16 bits (flow_key.h): 0xff00.. refused */
	{ OFP_PARSE_ADD, "in_port=65280,actions=drop",
	  "in_port: port out of range '65280' (ofports are 1..65279)" },
	{ OFP_PARSE_ADD, "in_port=70000,actions=drop",
	  "in_port: port out of range '70000'" },
	{ OFP_PARSE_ADD, "actions=resubmit(70000,1)",
	  "resubmit: port out of range '70000'" },
	{ OFP_PARSE_ADD, "udp_dst=53,tp_dst=54,actions=drop", "tp_dst" },
	{ OFP_PARSE_ADD, "tp_dst=53,actions=drop",
	  "tp_dst requires tcp or udp (add 'udp' or 'nw_proto=17')" },
	{ OFP_PARSE_ADD, "ip,tp_dst=53,actions=drop", "tp_dst requires tcp or udp" },
	{ OFP_PARSE_ADD, "icmp,tp_src=1,actions=drop", "tp_src requires tcp or udp" },
	{ OFP_PARSE_ADD, "arp,nw_proto=17,tp_src=1,actions=drop",
	  "tp_src requires tcp or udp" },
	{ OFP_PARSE_ADD, "udp,icmp_type=1,actions=drop", "icmp_type requires icmp" },
	{ OFP_PARSE_ADD, "icmp_code=1,actions=drop", "icmp_code requires icmp" },
	{ OFP_PARSE_ADD, "nw_dst=1.2.3.4,actions=drop", "nw_dst requires ip or arp" },
	{ OFP_PARSE_ADD, "ip_src=1.2.3.4,actions=drop", "ip_src requires ip or arp" },
	{ OFP_PARSE_ADD, "ipv6,nw_src=1.2.3.4,actions=drop",
	  "nw_src requires ip or arp" },
	{ OFP_PARSE_ADD, "nw_proto=6,actions=drop", "nw_proto requires ip, ipv6 or arp" },
	{ OFP_PARSE_ADD, "dl_type=0x88cc,nw_proto=6,actions=drop",
	  "nw_proto requires ip, ipv6 or arp" },
	{ OFP_PARSE_ADD, "ip,arp_spa=1.2.3.4,actions=drop", "arp_spa requires arp" },
	{ OFP_PARSE_ADD, "arp_op=1,actions=drop", "arp_op requires arp" },
	{ OFP_PARSE_ADD, "nw_tos=4,actions=drop", "nw_tos requires ip" },
	{ OFP_PARSE_ADD, "arp,nw_ttl=4,actions=drop", "nw_ttl requires ip" },
	{ OFP_PARSE_ADD, "ip_frag=no,actions=drop", "ip_frag requires ip" },
	{ OFP_PARSE_ADD, "ip,nw_dst=0.0.0.0/0,nw_ttl=1,arp,actions=drop",
	  "conflicting values for dl_type ('arp')" },
	{ OFP_PARSE_ADD, "in_port=vxlan", "missing 'actions='" },
	{ OFP_PARSE_ADD, "", "missing 'actions='" },
	{ OFP_PARSE_ADD, "actions", "missing '=' after 'actions'" },
	{ OFP_PARSE_MATCH, "in_port=vxlan,actions=drop",
	  "actions are not allowed here ('actions=drop')" },
	{ OFP_PARSE_ADD, "actions=normal", "unsupported action 'normal'" },
	{ OFP_PARSE_ADD, "actions=NORMAL", "unsupported action 'NORMAL'" },
	{ OFP_PARSE_ADD, "actions=flood", "unsupported action 'flood'" },
	{ OFP_PARSE_ADD, "actions=controller", "unsupported action 'controller'" },
	{ OFP_PARSE_ADD, "actions=controller:65535",
	  "unsupported action 'controller'" },
	{ OFP_PARSE_ADD, "actions=move:NXM_NX_REG0[]->NXM_NX_REG1[]",
	  "unsupported action 'move'" },
	{ OFP_PARSE_ADD, "actions=ct(commit,zone=1)",
	  "ct() requires ip or ipv6 (add 'ip' or 'ipv6')" },
	{ OFP_PARSE_ADD, "ipv6,actions=ct(commit,nat(src=10.0.0.1))",
	  "ct(nat(src|dst=ADDRESS)): an IPv4 range requires ip" },
	{ OFP_PARSE_ADD, "ip,actions=ct(commit,nat(src=2001:db8::1))",
	  "ct(nat(src|dst=ADDRESS)): an IPv6 range requires ipv6" },
	{ OFP_PARSE_ADD,
	  "ipv6,actions=ct(commit,nat(src=[2001:db8::5]-[2001:db8::1]))",
	  "nat: invalid nat range" },
	{ OFP_PARSE_ADD, "ipv6,actions=ct(commit,nat(src=[2001:db8::1))",
	  "nat: invalid nat range" },
	{ OFP_PARSE_ADD, "ipv6,actions=ct(commit,nat(dst=[2001:db8::1]x))",
	  "nat: garbage (x) after nat range" },
	{ OFP_PARSE_ADD, "ip,actions=sg(allow,commit),output:1",
	  "sg: no commit argument" },
	{ OFP_PARSE_ADD, "ip,actions=sg(deny,nat(src=10.0.0.1)),output:1",
	  "sg: deny takes no nat(src|dst)" },
	{ OFP_PARSE_ADD, "actions=ct_clear", "unsupported action 'ct_clear'" },
	{ OFP_PARSE_ADD, "actions=frobnicate:1", "unknown action 'frobnicate'" },
	{ OFP_PARSE_ADD, "actions=drop,output:1", "'drop' must be the only action" },
	{ OFP_PARSE_ADD, "actions=output:1,drop", "'drop' must be the only action" },
	{ OFP_PARSE_ADD, "actions=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2",
	  "too many actions (max 16) at '2'" },
	{ OFP_PARSE_ADD, "actions=output", "missing argument for 'output'" },
	{ OFP_PARSE_ADD, "actions=output:", "missing argument for 'output'" },
	{ OFP_PARSE_ADD, "actions=set_tunnel", "missing argument for 'set_tunnel'" },
	{ OFP_PARSE_ADD, "ip,actions=conjunction(1,1/2),output:1",
	  "conjunction() cannot be mixed with other actions" },
	{ OFP_PARSE_ADD, "actions=conjunction(1,3/2)",
	  "conjunction: clause 3/2: the number of clauses is 2..64 and the "
	  "clause 1..that" },
	{ OFP_PARSE_ADD, "conj_id=3,actions=conjunction(1,1/2)",
	  "a conjunction() rule cannot match conj_id" },
	{ OFP_PARSE_ADD, "actions=conjunction(1)",
	  "conjunction: expected conjunction(ID,K/N), got 'conjunction(1)'" },
	{ OFP_PARSE_ADD, "actions=set_tunnel:abc", "set_tunnel: bad VNI 'abc'" },
	{ OFP_PARSE_ADD, "actions=set_tunnel:0x100000000",
	  "set_tunnel: bad VNI '0x100000000'" },
	{ OFP_PARSE_ADD, "actions=set_tunnel64:-1", "set_tunnel64: bad VNI '-1'" },
	{ OFP_PARSE_ADD, "actions=set_field:1.2.3.4->nw_dst",
	  "set_field: unsupported field 'nw_dst'" },
	{ OFP_PARSE_ADD, "actions=set_field:1.2.3.4",
	  "set_field: expected VALUE->FIELD, got '1.2.3.4'" },
	{ OFP_PARSE_ADD, "actions=set_field:1.2.3->tun_dst",
	  "set_field: bad IPv4 address '1.2.3'" },
	{ OFP_PARSE_ADD, "actions=set_field:1.2.3.4/24->tun_dst",
	  "set_field: masks are not supported ('1.2.3.4/24')" },
	{ OFP_PARSE_ADD, "actions=set_field:zz->eth_src",
	  "set_field: bad MAC address 'zz'" },
	{ OFP_PARSE_ADD, "actions=mod_dl_src:zz", "mod_dl_src: bad MAC address 'zz'" },
	{ OFP_PARSE_ADD, "actions=mod_dl_dst:00:11:22:33:44:55:66",
	  "mod_dl_dst: bad MAC address '00:11:22:33:44:55:66'" },
	{ OFP_PARSE_ADD, "table=255,actions=drop", "table: bad table '255' (0..254)" },
	{ OFP_PARSE_ADD, "table=x,actions=drop", "table: bad table 'x'" },
	{ OFP_PARSE_ADD, "table=1,table=2,actions=drop",
	  "conflicting values for table ('table=2')" },
	{ OFP_PARSE_ADD, "priority=65536,actions=drop",
	  "priority: bad number '65536'" },
	{ OFP_PARSE_ADD, "priority=-1,actions=drop", "priority: bad number '-1'" },
	{ OFP_PARSE_ADD, "priority=1,priority=2,actions=drop",
	  "conflicting values for priority ('priority=2')" },
	{ OFP_PARSE_ADD, "cookie=1/1,actions=drop",
	  "cookie: a mask is for dump-flows, del-flows and mod-flows" },
	{ OFP_PARSE_MATCH, "cookie=1/zz", "cookie: bad mask in 'cookie=1/zz'" },
	{ OFP_PARSE_MATCH, "cookie=x/1", "cookie: bad number 'x/1'" },
	{ OFP_PARSE_ADD, "cookie=0x1g,actions=drop", "cookie: bad number '0x1g'" },
	{ OFP_PARSE_ADD, "tun_id=0x100000000,actions=drop",
	  "tun_id: bad number '0x100000000'" },
	{ OFP_PARSE_ADD, "tun_id=0x0x5,actions=drop", "tun_id: bad number '0x0x5'" },
	{ OFP_PARSE_ADD, "tun_id=1/0x1ffffffff,actions=drop", "tun_id: bad mask" },
	{ OFP_PARSE_ADD, "tun_id= +5,actions=drop", "tun_id: bad number '+5'" },
	{ OFP_PARSE_ADD, "ip,nw_dst=1.2.3.4,nw_dst=1.2.3.5,actions=drop",
	  "conflicting values for nw_dst ('nw_dst=1.2.3.5')" },
	{ OFP_PARSE_ADD, "arp,nw_src=1.2.3.4,arp_spa=1.2.3.5,actions=drop",
	  "conflicting values for nw_src ('arp_spa=1.2.3.5')" },
	{ OFP_PARSE_ADD, "udp,tcp,actions=drop",
	  "conflicting values for nw_proto ('tcp')" },
	{ OFP_PARSE_ADD, "arp,ip,actions=drop", "conflicting values for dl_type ('ip')" },
	{ OFP_PARSE_ADD, "tcp,udp_dst=53,actions=drop",
	  "conflicting values for nw_proto ('udp_dst=53')" },
	{ OFP_PARSE_ADD, "dl_vlan=5,vlan_tci=0x1006/0x1fff,actions=drop",
	  "conflicting values for vlan_tci" },
	{ OFP_PARSE_ADD, "in_port=1,in_port=2,actions=drop",
	  "conflicting values for in_port ('in_port=2')" },
	{ OFP_PARSE_ADD, "dl_src=aa:bb:cc:dd:ee,actions=drop",
	  "dl_src: bad MAC address 'aa:bb:cc:dd:ee'" },
	{ OFP_PARSE_ADD, "dl_src=aa:bb:cc:dd:ee:fff,actions=drop",
	  "'aa:bb:cc:dd:ee:fff'" },
	{ OFP_PARSE_ADD, "dl_dst=aa:bb:cc:dd:ee:ff/xx,actions=drop",
	  "dl_dst: bad MAC mask 'xx'" },
	{ OFP_PARSE_ADD, "dl_vlan=4096,actions=drop", "dl_vlan: bad VLAN ID '4096'" },
	{ OFP_PARSE_ADD, "vlan_tci=0x10000,actions=drop",
	  "vlan_tci: bad number '0x10000'" },
	{ OFP_PARSE_ADD, "dl_type=0x10000,actions=drop", "dl_type: bad number" },
	{ OFP_PARSE_ADD, "dl_type=0x800/0xffff,actions=drop",
	  "dl_type: bad number '0x800/0xffff'" },
	{ OFP_PARSE_ADD, "ip,nw_proto=256,actions=drop", "nw_proto: bad number '256'" },
	{ OFP_PARSE_ADD, "ip,nw_tos=5,actions=drop", "nw_tos: bad nw_tos '5'" },
	{ OFP_PARSE_ADD, "ip,nw_tos=256,actions=drop", "nw_tos: bad nw_tos '256'" },
	{ OFP_PARSE_ADD, "ip,nw_ttl=x,actions=drop", "nw_ttl: bad number 'x'" },
	{ OFP_PARSE_ADD, "ip,ip_frag=maybe,actions=drop",
	  "ip_frag: bad value 'maybe'" },
	{ OFP_PARSE_ADD, "udp,tp_dst=65536,actions=drop", "tp_dst: bad number '65536'" },
	{ OFP_PARSE_ADD, "udp,tp_dst=1/0x10000,actions=drop",
	  "tp_dst: bad mask '0x10000'" },
	{ OFP_PARSE_ADD, "icmp,icmp_type=256,actions=drop",
	  "icmp_type: bad number '256'" },
	{ OFP_PARSE_ADD, "nw_dst,actions=drop", "missing value for 'nw_dst'" },
	{ OFP_PARSE_ADD, "priority,actions=drop", "missing value for 'priority'" },
	{ OFP_PARSE_ADD, "ip=1,actions=drop", "'ip' takes no value" },
	{ OFP_PARSE_ADD, "=5,actions=drop", "unknown field ''" },
	{ OFP_PARSE_ADD, "idle_timeout=65536,actions=drop",
	  "idle_timeout: bad number '65536' (seconds, 0..65535)" },
	{ OFP_PARSE_MATCH, "hard_timeout=5",
	  "hard_timeout: only a new rule has one (add-flow), not a filter" },
	{ OFP_PARSE_MODIFY, "idle_timeout=5,actions=drop",
	  "idle_timeout: only a new rule has one (add-flow), not mod-flows" },
	{ OFP_PARSE_MODIFY, "in_port=1", "missing 'actions='" },
	{ OFP_PARSE_ADD, "IP,actions=drop", "unknown field 'IP'" },
};

void
test_errors(void)
{
	for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++)
		check_error(error_cases[i].mode, error_cases[i].in,
			    error_cases[i].expect);
}

/* The error buffer may be short or absent. */
void
test_error_buffers(void)
{
	struct ofp_rule r;
	char err[8];

	memset(err, 'x', sizeof err);
	CHECK(ofp_parse_flow("nw_dstt=1,actions=drop", OFP_PARSE_ADD, &ports,
			     &r, err, sizeof err) == -1, "short buffer fails");
	CHECK(!strcmp(err, "unknown"), "truncated error '%s'", err);
	CHECK(ofp_parse_flow("nw_dstt=1", OFP_PARSE_ADD, &ports, &r, NULL, 0) ==
	      -1, "NULL error buffer");
	CHECK(ofp_parse_flow(NULL, OFP_PARSE_ADD, &ports, &r, err, sizeof err) ==
	      -1, "NULL string");
	err[0] = 'x';
	CHECK(ofp_parse_flow("ip,actions=drop", OFP_PARSE_ADD, &ports, &r, err,
			     sizeof err) == 0 && err[0] == '\0',
	      "success clears err");
	/* Without a port map only numbers work. */
	CHECK(ofp_parse_flow("in_port=vxlan,actions=drop", OFP_PARSE_ADD, NULL,
			     &r, NULL, 0) == -1, "no map: names fail");
	CHECK(ofp_parse_flow("in_port=3,actions=4", OFP_PARSE_ADD, NULL, &r,
			     NULL, 0) == 0, "no map: numbers work");
}

/* ---- prerequisites: order does not matter ----------------------------- */

void
test_prereq_order(void)
{
	static const char *const ok[] = {
		"nw_dst=1.2.3.4,ip",
		"nw_src=1.2.3.4,arp",
		"tp_dst=53,nw_proto=17,ip",
		"tp_dst=53,ip,nw_proto=6",
		"tp_src=1,dl_type=0x0800,ip_proto=17",
		"icmp_type=3,icmp",
		"icmp_code=3,nw_proto=1,dl_type=2048",
		"nw_ttl=1,nw_tos=4,ip_frag=first,ip",
		"arp_op=2,arp_tpa=1.2.3.4,arp",
		"udp_dst=53",
		"tcp_src=1,tcp",
		"udp_src=1,udp_dst=2,ip",
		"nw_proto=17,arp",
	};
	struct ofp_rule r;

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (parse_ok(ok[i], OFP_PARSE_MATCH, &r))
			check_round_trip(&r, ok[i]);
}
