#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Makes the OVS 3.1 IPv6 megaflow references in this folder
# (dpctl-dump-flows-ipv6*.txt) with Debian's real ovs-vswitchd: userspace
# datapath, plain dummy ports (no PMD thread, no netns, no root), IPv6
# rules of each kind (nd_target, nd_sll, ipv6_src/dst prefixes and masks,
# ipv6_label, nw_tos, nw_ttl, nw_frag, tp_dst, icmp_type) and one packet
# for each. tests/unit/test_odp_format_ipv6.c pins vxswitch's text for
# the same keys and masks to these.
# Usage: tests/integration/ovs_ref/make-ovs-ref-ipv6.sh [OUTDIR]
set -euo pipefail
out=$(cd "${1:-$(dirname "$0")}" && pwd)
S=$(mktemp -d /tmp/ovsref6.XXXXXX)
trap 'ovs-appctl -t ovs-vswitchd exit 2>/dev/null || true;
      ovs-appctl -t ovsdb-server exit 2>/dev/null || true; rm -rf "$S"' EXIT
export OVS_RUNDIR=$S OVS_LOGDIR=$S OVS_DBDIR=$S OVS_SYSCONFDIR=$S
ovsdb-tool create $S/conf.db /usr/share/openvswitch/vswitch.ovsschema
ovsdb-server --detach --no-chdir --pidfile --log-file --remote=punix:$S/db.sock $S/conf.db
ovs-vsctl --no-wait init
ovs-vswitchd --enable-dummy --disable-system --disable-system-route --detach --no-chdir --pidfile --log-file
ovs-vsctl add-br br0 -- set bridge br0 datapath_type=netdev -- \
  add-port br0 p1 -- set Interface p1 type=dummy ofport_request=1 -- \
  add-port br0 p2 -- set Interface p2 type=dummy ofport_request=2
ovs-ofctl del-flows br0
ovs-ofctl add-flows br0 - <<'FL'
priority=1,actions=drop
table=0,priority=100,icmp6,in_port=1,icmp_type=136,nd_target=fe80::f816:3eff:fe00:1,actions=output:2
table=0,priority=100,icmp6,in_port=1,icmp_type=135,nd_sll=fa:16:3e:00:00:01,actions=output:2
table=0,priority=90,ipv6,in_port=1,ipv6_src=2001:db8::/64,actions=output:2
table=0,priority=95,tcp6,in_port=1,ipv6_dst=2001:db8:1::1,tp_dst=80,actions=output:2
table=0,priority=96,udp6,in_port=1,ipv6_label=0x12345,nw_tos=32,nw_ttl=64,actions=output:2
table=0,priority=97,ipv6,in_port=1,ipv6_src=2001:db8:2::1/ffff:0:ffff::,nw_frag=later,actions=output:2
table=0,priority=98,icmp6,in_port=1,icmp_type=128,icmp_code=0,actions=output:2
FL
R() { ovs-appctl netdev-dummy/receive p1 "$1"; }
R 'in_port(1),eth(src=fa:16:3e:00:00:01,dst=33:33:ff:00:00:01),eth_type(0x86dd),ipv6(src=fe80::f816:3eff:fe00:1,dst=ff02::1,label=0,proto=58,tclass=0,hlimit=255,frag=no),icmpv6(type=136,code=0),nd(target=fe80::f816:3eff:fe00:1,sll=00:00:00:00:00:00,tll=fa:16:3e:00:00:01)'
R 'in_port(1),eth(src=fa:16:3e:00:00:01,dst=33:33:ff:00:00:02),eth_type(0x86dd),ipv6(src=fe80::f816:3eff:fe00:1,dst=ff02::1:ff00:2,label=0,proto=58,tclass=0,hlimit=255,frag=no),icmpv6(type=135,code=0),nd(target=fe80::2,sll=fa:16:3e:00:00:01,tll=00:00:00:00:00:00)'
R 'in_port(1),eth(src=fa:16:3e:00:00:01,dst=fa:16:3e:00:00:02),eth_type(0x86dd),ipv6(src=2001:db8::5,dst=2001:db8:1::1,label=0,proto=6,tclass=0,hlimit=64,frag=no),tcp(src=1000,dst=80)'
R 'in_port(1),eth(src=fa:16:3e:00:00:01,dst=fa:16:3e:00:00:02),eth_type(0x86dd),ipv6(src=2001:db8:9::5,dst=2001:db8:1::7,label=0x12345,proto=17,tclass=0x20,hlimit=64,frag=no),udp(src=1000,dst=53)'
R 'in_port(1),eth(src=fa:16:3e:00:00:01,dst=fa:16:3e:00:00:02),eth_type(0x86dd),ipv6(src=2001:db8:2::1,dst=2001:db8:1::7,label=0,proto=44,tclass=0,hlimit=64,frag=later)'
R 'in_port(1),eth(src=fa:16:3e:00:00:01,dst=fa:16:3e:00:00:02),eth_type(0x86dd),ipv6(src=2001:db9::1,dst=2001:db8:1::7,label=0,proto=58,tclass=0,hlimit=64,frag=no),icmpv6(type=128,code=0)'
sleep 1
ovs-appctl dpctl/dump-flows > "$out/dpctl-dump-flows-ipv6.txt"
ovs-appctl dpctl/dump-flows -m > "$out/dpctl-dump-flows-ipv6-m.txt"
