/* SPDX-License-Identifier: BSD-3-Clause
 * test_config, broken files: each rejected at file:line:col, naming the
 * token; and a missing file.
 */
#include "config_test.h"

/* ---- broken files: each rejected at file:line:col, naming the token ---- */

struct bad_file {
	const char *name;
	const char *yaml;
	int line, col;
	const char *message;	/* must appear in the error, token quoted */
};

#define NIC "  - {name: nic, type: dpdk, devargs: net_null0}\n"
#define VXLAN_OK "underlay: {port: nic, local-ip: 10.0.0.1/24}\nports:\n" NIC

static const struct bad_file bad_files[] = {
	{ "unknown-top-key", "ports:\n" NIC "bogus: 1\n", 3, 1,
	  "unknown key 'bogus'" },
	{ "unknown-port-key",
	  "ports:\n  - name: dpdk-phy\n    type: dpdk\n    devargs: x\n"
	  "    n-rxqs: 2\n", 5, 5,
	  "unknown key 'n-rxqs' in port 'dpdk-phy'" },
	{ "bad-prefix",
	  "underlay:\n  port: nic\n  local-ip: 172.1.0.300/24\nports:\n" NIC,
	  3, 13, "bad IPv4 prefix '172.1.0.300/24'" },
	{ "prefix-33",
	  "underlay:\n  port: nic\n  local-ip: 10.0.0.1/33\nports:\n" NIC,
	  3, 13, "bad IPv4 prefix '10.0.0.1/33'" },
	{ "dup-port-name",
	  "ports:\n"
	  "  - {name: vhost-user0, type: dpdkvhostuserclient, path: /tmp/a}\n"
	  "  - {name: vhost-user0, type: dpdkvhostuserclient, path: /tmp/b}\n",
	  3, 12, "duplicate port name 'vhost-user0'" },
	{ "dup-key",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: a\n"
	  "    devargs: b\n", 5, 5, "duplicate key 'devargs' in port 'p0'" },
	{ "dup-alias",
	  "ports:\n  - name: v0\n    type: dpdkvhostuser\n    path: /tmp/a\n"
	  "    vhost-server-path: /tmp/b\n", 5, 5,
	  "duplicate key 'vhost-server-path' in port 'v0'" },
	{ "key-wrong-type",
	  "ports:\n  - name: v0\n    type: dpdkvhostuserclient\n"
	  "    path: /tmp/a\n    devargs: net_null0\n", 5, 5,
	  "key 'devargs' does not apply to type 'dpdkvhostuserclient' in port 'v0'" },
	{ "missing-devargs", "ports:\n  - name: p0\n    type: dpdk\n", 2, 5,
	  "missing key 'devargs' in port 'p0'" },
	{ "missing-path", "ports:\n  - {name: v0, type: dpdkvhostuser}\n", 2,
	  5, "missing key 'path' in port 'v0'" },
	{ "missing-type", "ports:\n  - {name: p0}\n", 2, 5,
	  "missing key 'type' in port 'p0'" },
	{ "missing-name", "ports:\n  - {type: dpdk}\n", 2, 5,
	  "missing key 'name' in port" },
	{ "unknown-type", "ports:\n  - {name: p0, type: system}\n", 2, 22,
	  "unknown port type 'system'" },
	{ "bad-offload-admission",
	  "ports:\n  - {name: p0, type: dpdk, devargs: x, "
	  "offload-admission: lifo}\n", 2, 59,
	  "offload-admission is weight or fifo, not 'lifo'" },
	{ "bad-port-name",
	  "ports:\n  - {name: \"a,b\", type: dpdk, devargs: x}\n", 2, 12,
	  "bad port name 'a,b'" },
	{ "numeric-port-name",
	  "ports:\n  - {name: 123, type: dpdk, devargs: x}\n", 2, 12,
	  "bad port name '123'" },
	{ "n-rxq-zero",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    n-rxq: 0\n", 5, 12, "bad n-rxq (an integer 1..1024) '0'" },
	{ "rxd-not-number",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    rxd: 1k\n", 5, 10, "bad rxd (an integer 32..32768) '1k'" },
	{ "mtu-hex",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    mtu: 0x600\n", 5, 10, "'0x600'" },
	{ "offload-model-profile",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    offload: model\n    offload-model-profile: ice-23.11\n", 6,
	  28, "offload-model-profile is ice-22.11, ice-23.11.0, ice-23.11.4 "
	  "or ice-26.07, not 'ice-23.11'" },
	{ "affinity-queue",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    n-rxq: 2\n    rxq-affinity: \"2:1\"\n", 6, 19,
	  "rxq-affinity queue is not below n-rxq 2 '2'" },
	{ "affinity-core",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    rxq-affinity: \"0:3\"\n", 5, 19,
	  "rxq-affinity core is not a pmd core '3'" },
	{ "affinity-syntax",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    rxq-affinity: 0-1\n", 5, 19, "bad rxq-affinity '0-1'" },
	{ "affinity-dup",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    rxq-affinity: \"0:1,0:1\"\n", 5, 19,
	  "rxq-affinity names queue twice '0'" },
	{ "pmd-is-main", "datapath:\n  pmd-cores: [1, 0]\nports:\n" NIC, 2,
	  18, "pmd core is the main lcore '0'" },
	{ "pmd-not-in-lcores",
	  "eal:\n  lcores: \"0-1\"\ndatapath:\n  pmd-cores: \"1-2\"\nports:\n" NIC,
	  4, 14, "pmd core is not in eal lcores '2'" },
	{ "default-pmd-is-main", "eal:\n  main-lcore: 1\nports:\n" NIC, 2, 15,
	  "pmd core is the main lcore '1'" },
	{ "main-not-in-lcores",
	  "eal:\n  lcores: \"1-2\"\n  main-lcore: 0\ndatapath:\n"
	  "  pmd-cores: [2]\nports:\n" NIC, 3, 15,
	  "main-lcore is not in eal lcores '0'" },
	{ "pmd-twice", "datapath:\n  pmd-cores: [1, 1]\nports:\n" NIC, 2, 18,
	  "core listed twice '1'" },
	{ "pmd-bad-list", "datapath:\n  pmd-cores: \"1-\"\nports:\n" NIC, 2,
	  14, "bad core list '1-'" },
	{ "pmd-range", "datapath:\n  pmd-cores: [128]\nports:\n" NIC, 2, 15,
	  "bad pmd core (an integer 0..127) '128'" },
	{ "lcores-syntax", "eal:\n  lcores: \"0-1@\"\nports:\n" NIC, 2, 11,
	  "bad lcore list (the EAL's --lcores syntax, e.g. 0-2 or "
	  "0,(1-4)@1) '0-1@'" },
	{ "lcores-paren", "eal:\n  lcores: \"0,(1-2\"\nports:\n" NIC, 2, 11,
	  "bad lcore list (the EAL's --lcores syntax, e.g. 0-2 or "
	  "0,(1-4)@1) '0,(1-2'" },
	{ "lcores-mapped-pmd-missing", "eal:\n  lcores: \"0,(1-2)@1\"\n"
	  "datapath:\n  pmd-cores: [1, 3]\nports:\n" NIC, 4, 18,
	  "pmd core is not in eal lcores '3'" },
	{ "rxq-assign", "datapath:\n  pmd-rxq-assign: cycle\nports:\n" NIC,
	  2, 19, "bad pmd-rxq-assign (roundrobin, cycles or group) 'cycle'" },
	{ "rxq-isolate", "datapath:\n  pmd-rxq-isolate: 2\nports:\n" NIC,
	  2, 20, "bad pmd-rxq-isolate (true or false) '2'" },
	{ "alb-load", "datapath:\n  pmd-auto-lb-load-threshold: 101\n"
	  "ports:\n" NIC, 2, 31,
	  "bad pmd-auto-lb-load-threshold (an integer 0..100) '101'" },
	{ "alb-improvement",
	  "datapath:\n  pmd-auto-lb-improvement-threshold: 25%\nports:\n"
	  NIC, 2, 38,
	  "bad pmd-auto-lb-improvement-threshold (an integer 0..100) '25%'" },
	{ "alb-interval-max",
	  "datapath:\n  pmd-auto-lb-rebal-interval: 20000.5\nports:\n" NIC,
	  2, 31, "bad pmd-auto-lb-rebal-interval (minutes 0..20000, "
	  "fractions allowed, at least 1 ms) '20000.5'" },
	{ "alb-interval-tiny",
	  "datapath:\n  pmd-auto-lb-rebal-interval: 0.00000001\nports:\n"
	  NIC, 2, 31, "'0.00000001'" },
	{ "alb-interval-syntax",
	  "datapath:\n  pmd-auto-lb-rebal-interval: 1e3\nports:\n" NIC,
	  2, 31, "'1e3'" },
	{ "alb-interval-dot",
	  "datapath:\n  pmd-auto-lb-rebal-interval: \"1.\"\nports:\n" NIC,
	  2, 31, "'1.'" },
	{ "underlay-no-port", "underlay:\n  port: nic9\nports:\n" NIC, 2, 9,
	  "no such port 'nic9'" },
	{ "underlay-not-dpdk",
	  "underlay:\n  port: v0\nports:\n"
	  "  - {name: v0, type: dpdkvhostuser, path: /tmp/v0}\n", 2, 9,
	  "not a port of type dpdk 'v0'" },
	{ "vxlan-no-local-ip",
	  "underlay:\n  port: nic\nports:\n" NIC
	  "  - {name: vx, type: vxlan, options: {remote_ip: flow}}\n", 2, 3,
	  "missing underlay 'local-ip' for vxlan port 'vx'" },
	{ "vxlan-no-underlay",
	  "ports:\n  - {name: vx, type: vxlan, options: {remote_ip: flow}}\n",
	  2, 5, "missing underlay 'port' for vxlan port 'vx'" },
	{ "two-vxlan",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: flow}}\n"
	  "  - {name: vx2, type: vxlan, options: {remote_ip: flow}}\n", 5, 5,
	  "more than one vxlan port 'vx2'" },
	{ "vxlan-no-options", VXLAN_OK "  - {name: vx, type: vxlan}\n", 4, 5,
	  "missing key 'options' in port 'vx'" },
	{ "vxlan-no-remote",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {key: flow}}\n", 4,
	  38, "missing option 'remote_ip' in port 'vx'" },
	{ "vxlan-key-range",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: flow, "
	  "key: 16777216}}\n", 4, 61,
	  "bad key (an integer 0..16777215) '16777216'" },
	{ "vxlan-bad-remote",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: 1.2.3}}\n",
	  4, 50, "bad IPv4 address '1.2.3'" },
	{ "vxlan-unknown-option",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: flow, "
	  "tos: inherit}}\n", 4, 56, "unknown key 'tos' in options of port 'vx'" },
	{ "vxlan-local-ip-mismatch",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: flow, "
	  "local_ip: 10.0.0.2}}\n", 4, 66,
	  "local_ip is not the underlay local-ip '10.0.0.2'" },
	{ "vxlan-vni-twice",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: flow, "
	  "vnis: [5, 5]}}\n", 4, 66, "VNI listed twice '5'" },
	{ "env-unset",
	  "ports:\n  - name: p0\n    type: dpdk\n"
	  "    devargs: \"net_pcap0,rx_pcap=${VXS_TEST_UNSET_VAR}\"\n", 4, 14,
	  "unset environment variable 'VXS_TEST_UNSET_VAR'" },
	{ "env-unterminated",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: \"${VXS_X\"\n",
	  4, 14, "unterminated '${' in '${VXS_X'" },
	{ "env-bad-name",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: \"${1X}\"\n", 4,
	  14, "bad variable name '1X'" },
	{ "bad-mac",
	  "underlay:\n  port: nic\n  mac: \"10:00:00:00:00\"\nports:\n" NIC, 3,
	  8, "bad MAC address '10:00:00:00:00'" },
	{ "multicast-mac",
	  "underlay:\n  port: nic\n  mac: \"01:00:5e:00:00:01\"\nports:\n" NIC,
	  3, 8, "MAC address is not unicast '01:00:5e:00:00:01'" },
	{ "dup-ofport",
	  "ports:\n  - {name: a, type: dpdk, devargs: net_null0, ofport: 5}\n"
	  "  - {name: b, type: dpdk, devargs: net_null1, ofport: 5}\n", 3, 55,
	  "duplicate ofport '5'" },
	{ "ofport-range",
	  "ports:\n  - {name: a, type: dpdk, devargs: net_null0, ofport: 65280}\n",
	  2, 55, "bad ofport (an integer 1..65279) '65280'" },
	{ "route-host-bits",
	  "underlay:\n  port: nic\n  routes:\n    - {prefix: 10.0.0.1/8}\n"
	  "ports:\n" NIC, 4, 16, "route prefix has host bits set '10.0.0.1/8'" },
	{ "route-dup",
	  "underlay:\n  port: nic\n  routes:\n    - {prefix: 10.0.0.0/8}\n"
	  "    - {prefix: 10.0.0.0/8, gateway: 10.0.0.1}\nports:\n" NIC, 5, 16,
	  "duplicate route '10.0.0.0/8'" },
	{ "route-bad-port",
	  "underlay:\n  port: nic\n  routes:\n"
	  "    - {prefix: 10.0.0.0/8, port: eth9}\nports:\n" NIC, 4, 34,
	  "no such port 'eth9'" },
	{ "route-no-port",
	  "underlay:\n  routes:\n    - {prefix: 10.0.0.0/8}\nports:\n" NIC, 3,
	  7, "route needs a port (no underlay port) '10.0.0.0/8'" },
	{ "route-no-prefix",
	  "underlay:\n  port: nic\n  routes:\n    - {gateway: 10.0.0.1}\n"
	  "ports:\n" NIC, 4, 7, "missing key 'prefix' in route" },
	{ "route-unknown-key",
	  "underlay:\n  port: nic\n  routes:\n"
	  "    - {prefix: 10.0.0.0/8, metric: 5}\nports:\n" NIC, 4, 28,
	  "unknown key 'metric' in route" },
	{ "arp-dup",
	  "underlay:\n  port: nic\n  arp:\n"
	  "    - {ip: 10.0.0.1, mac: \"02:00:00:00:00:01\"}\n"
	  "    - {ip: 10.0.0.1, mac: \"02:00:00:00:00:02\"}\nports:\n" NIC, 5,
	  12, "duplicate arp entry '10.0.0.1'" },
	{ "local-ip6-bad",
	  "underlay:\n  port: nic\n  local-ip: \"2001:db8::1/129\"\nports:\n"
	  NIC, 3, 13, "bad IPv6 prefix '2001:db8::1/129'" },
	{ "local-ip6-multicast",
	  "underlay:\n  port: nic\n  local-ip: \"ff02::1/64\"\nports:\n" NIC,
	  3, 13, "bad local-ip 'ff02::1/64'" },
	{ "local-ip-two-ipv4",
	  "underlay:\n  port: nic\n  local-ip: [10.0.0.1/24, 10.0.1.1/24]\n"
	  "ports:\n" NIC, 3, 27, "more than one IPv4 local-ip '10.0.1.1/24'" },
	{ "local-ip-three",
	  "underlay:\n  port: nic\n  local-ip: [10.0.0.1/24, \"fd00::1/64\", "
	  "10.0.1.1/24]\nports:\n" NIC, 3, 13,
	  "local-ip: one prefix, or one IPv4 and one IPv6 '3'" },
	{ "route6-host-bits",
	  "underlay:\n  port: nic\n  routes:\n"
	  "    - {prefix: \"2001:db8::1/64\"}\nports:\n" NIC, 4, 16,
	  "route prefix has host bits set '2001:db8::1/64'" },
	{ "route6-gateway-family",
	  "underlay:\n  port: nic\n  routes:\n"
	  "    - {prefix: \"2001:db8::/64\", gateway: 10.0.0.1}\nports:\n"
	  NIC, 4, 42,
	  "route gateway is not of the prefix's address family '10.0.0.1'" },
	{ "route6-bad-gateway",
	  "underlay:\n  port: nic\n  routes:\n"
	  "    - {prefix: \"2001:db8::/64\", gateway: \"2001:db8::x\"}\n"
	  "ports:\n" NIC, 4, 42, "bad IPv6 address '2001:db8::x'" },
	{ "route6-dup",
	  "underlay:\n  port: nic\n  routes:\n"
	  "    - {prefix: \"2001:db8::/64\"}\n"
	  "    - {prefix: \"2001:db8:0::/64\"}\nports:\n" NIC, 5, 16,
	  "duplicate route '2001:db8:0::/64'" },
	{ "neigh6-dup",
	  "underlay:\n  port: nic\n  neighbours:\n"
	  "    - {ip: \"fd00::1\", mac: \"02:00:00:00:00:01\"}\n"
	  "    - {ip: \"fd00:0::1\", mac: \"02:00:00:00:00:02\"}\nports:\n"
	  NIC, 5, 12, "duplicate arp entry 'fd00:0::1'" },
	{ "neigh6-multicast",
	  "underlay:\n  port: nic\n  arp:\n"
	  "    - {ip: \"ff02::1\", mac: \"02:00:00:00:00:01\"}\nports:\n"
	  NIC, 4, 12, "bad ip 'ff02::1'" },
	{ "arp-and-neighbours",
	  "underlay:\n  port: nic\n  arp: []\n  neighbours: []\nports:\n"
	  NIC, 4, 3, "duplicate key 'neighbours'" },
	{ "vxlan-ipv6-only",
	  "underlay: {port: nic, local-ip: \"fd00::1/64\"}\nports:\n" NIC
	  "  - {name: vx, type: vxlan, options: {remote_ip: 10.0.0.9}}\n", 1,
	  11, "vxlan port 'vx': remote_ip is IPv4 but the underlay has no "
	  "IPv4 'local-ip'" },
	{ "vxlan-ipv4-only",
	  "underlay: {port: nic, local-ip: \"10.0.0.1/24\"}\nports:\n" NIC
	  "  - {name: vx, type: vxlan, options: {remote_ip: \"fd00::9\"}}\n",
	  1, 11, "vxlan port 'vx': remote_ip is IPv6 but the underlay has no "
	  "IPv6 'local-ip'" },
	{ "vxlan-remote-ip6-multicast",
	  "underlay: {port: nic, local-ip: \"fd00::1/64\"}\nports:\n" NIC
	  "  - {name: vx, type: vxlan, options: {remote_ip: \"ff02::1\"}}\n",
	  4, 50, "bad remote_ip 'ff02::1'" },
	{ "vxlan-remote-ip6-bad",
	  "underlay: {port: nic, local-ip: \"fd00::1/64\"}\nports:\n" NIC
	  "  - {name: vx, type: vxlan, options: {remote_ip: \"fd00::g\"}}\n",
	  4, 50, "bad IPv6 address 'fd00::g'" },
	{ "vxlan-local-ip6-not-vtep",
	  "underlay: {port: nic, local-ip: \"fd00::1/64\"}\nports:\n" NIC
	  "  - {name: vx, type: vxlan, options: {remote_ip: \"fd00::9\", "
	  "local_ip: \"fd00::2\"}}\n",
	  4, 71, "local_ip is not the underlay local-ip 'fd00::2'" },
	{ "vxlan-local-remote-families",
	  "underlay: {port: nic, local-ip: [\"fd00::1/64\", 10.0.0.1/24]}\n"
	  "ports:\n" NIC
	  "  - {name: vx, type: vxlan, options: {remote_ip: \"fd00::9\", "
	  "local_ip: 10.0.0.1}}\n",
	  4, 71, "local_ip and remote_ip of two families '10.0.0.1'" },
	{ "vxlan-udp6zerocsumrx",
	  "underlay: {port: nic, local-ip: \"fd00::1/64\"}\nports:\n" NIC
	  "  - {name: vx, type: vxlan, options: {remote_ip: \"fd00::9\", "
	  "udp6zerocsumrx: maybe}}\n",
	  4, 77, "bad udp6zerocsumrx (true or false) 'maybe'" },
	{ "arp-no-mac",
	  "underlay:\n  port: nic\n  arp:\n    - {ip: 10.0.0.1}\nports:\n" NIC,
	  4, 7, "missing key 'mac' in arp entry" },
	{ "memory-both",
	  "eal:\n  memory-mb: 512\n  socket-mem: \"512,0\"\nports:\n" NIC, 3,
	  15, "memory-mb and socket-mem exclude each other 'socket-mem'" },
	{ "socket-mem-no-huge",
	  "eal:\n  no-huge: true\n  socket-mem: \"512\"\nports:\n" NIC, 3, 15,
	  "socket-mem needs hugepages (no-huge is set) 'socket-mem'" },
	{ "socket-mem-syntax", "eal:\n  socket-mem: \"512,,0\"\nports:\n" NIC,
	  2, 15, "bad socket-mem '512,,0'" },
	{ "bad-bool", "eal:\n  no-pci: maybe\nports:\n" NIC, 2, 11,
	  "bad no-pci (true or false) 'maybe'" },
	{ "file-prefix-slash", "eal:\n  file-prefix: a/b\nports:\n" NIC, 2, 16,
	  "bad file-prefix (no '/') 'a/b'" },
	{ "extra-arg-empty", "eal:\n  extra-args: [\"\"]\nports:\n" NIC, 2, 16,
	  "empty value for 'extra-args'" },
	{ "n-mbufs-range", "datapath:\n  n-mbufs: 2000000000\nports:\n" NIC, 2,
	  12, "bad n-mbufs (an integer 0..1073741824) '2000000000'" },
	{ "eal-not-mapping", "eal: [1]\nports:\n" NIC, 1, 6,
	  "expected a mapping for 'eal'" },
	{ "flows-not-list", "flows: x\nports:\n" NIC, 1, 8,
	  "expected a list for 'flows'" },
	{ "flow-not-string", "ports:\n" NIC "flows:\n  - {in_port: 1}\n", 4, 5,
	  "expected a single value for 'flow'" },
	{ "flow-empty", "ports:\n" NIC "flows:\n  - \"\"\n", 4, 5,
	  "empty value for 'flow'" },
	{ "no-ports", "eal: {no-pci: true}\n", 1, 1, "missing key 'ports'" },
	{ "empty-ports", "ports: []\n", 1, 8, "ports needs 1..65279 ports '0'" },
	{ "root-list", "- a\n", 1, 1, "expected a mapping for 'topology'" },
	{ "two-documents", "ports:\n" NIC "---\nfoo: 1\n", 4, 1,
	  "more than one YAML document '---'" },
	{ "dup-devargs",
	  "ports:\n" NIC "  - {name: nic2, type: dpdk, devargs: net_null0}\n",
	  3, 39, "duplicate devargs 'net_null0'" },
	{ "dup-socket-path",
	  "ports:\n  - {name: a, type: dpdkvhostuser, path: /tmp/x.sock}\n"
	  "  - {name: b, type: dpdkvhostuserclient, path: /tmp/x.sock}\n", 3,
	  48, "duplicate socket path '/tmp/x.sock'" },
	{ "socket-path-long",
	  "ports:\n  - name: v\n    type: dpdkvhostuser\n    path: /tmp/"
	  "0123456789012345678901234567890123456789012345678901234567890123456789"
	  "0123456789012345678901234567890123456789\n", 4, 11,
	  "path too long for a unix socket (max 107)" },
	{ "empty-file", "", 1, 1, "empty topology file" },
	{ "comments-only", "# nothing here\n", 1, 1, "empty topology file" },
	{ "syntax-flow-mapping", "ports:\n  - {name: p0, type: dpdk\n", 3, 1,
	  "did not find expected ',' or '}' (while parsing a flow mapping at line 2)" },
	{ "syntax-tab", "ports:\n\t- a\n", 2, 1,
	  "found character that cannot start any token" },
};

static void
test_bad_file(const struct bad_file *b)
{
	struct vxs_config c;
	char name[96], err[CFG_ERR_MAX] = "", prefix[CFG_PATH_MAX + 32];

	snprintf(name, sizeof name, "%s.yaml", b->name);
	const char *path = write_tmp(name, b->yaml);
	int rc = config_load(path, &c, err, sizeof err);
	snprintf(prefix, sizeof prefix, "%s:%d:%d: ", path, b->line, b->col);
	check(rc == -1, __FILE__, __LINE__, "%s: loaded", b->name);
	check(strncmp(err, prefix, strlen(prefix)) == 0 &&
	      strstr(err, b->message) != NULL, __FILE__, __LINE__,
	      "%s: got \"%s\", expected \"%s...%s\"", b->name, err, prefix,
	      b->message);
	check(is_empty(&c), __FILE__, __LINE__, "%s: cfg not emptied",
	      b->name);
	unlink(path);
}

void
test_bad_files(void)
{
	unsetenv("VXS_TEST_UNSET_VAR");
	for (size_t i = 0; i < RTE_DIM(bad_files); i++)
		test_bad_file(&bad_files[i]);
}

void
test_missing_file(void)
{
	struct vxs_config c;
	char err[CFG_ERR_MAX] = "", path[CFG_PATH_MAX];

	snprintf(path, sizeof path, "%s/no-such.yaml", tmpdir);
	CHECK_INT(config_load(path, &c, err, sizeof err), -1);
	CHECK(strncmp(err, path, strlen(path)) == 0 &&
	      strstr(err, "No such file") != NULL);
	CHECK(is_empty(&c));
	CHECK_INT(config_load(path, &c, NULL, 0), -1);	/* err is optional */
}
