#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Makes the OVS 3.1 reference outputs in this folder with Debian's real
# ovs-vswitchd (openvswitch-switch), userspace datapath, dummy-pmd ports,
# in a network namespace of its own (its tap ports stay there), on the
# topology of tests/integration/test_ovs_appctl.py: a VM port vm1, a VXLAN
# port to 172.1.0.0 with key 1001, and br-phy (172.1.0.100) with its NIC
# p0; one frame each way. test_ovs_appctl.py compares vxswitch's outputs
# with these line by line (labels, order, layout; not the numbers).
# Usage (root; needs openvswitch-switch, which install-deps.sh leaves out:
# its service would start at install):
#   tests/integration/ovs_ref/make-ovs-ref.sh [OUTDIR]
set -euo pipefail
out=$(cd "${1:-$(dirname "$0")}" && pwd)
. "$(dirname "$0")/ovs_ref_env.sh"
ovs_ref_up vxs-ovsref ovsref
in_ns ovs-vswitchd --enable-dummy --disable-system --disable-system-route \
	--detach --no-chdir --pidfile --log-file
in_ns ovs-vsctl set Open_vSwitch . other_config:pmd-cpu-mask=0x2
in_ns ovs-vsctl add-br br-int -- set bridge br-int datapath_type=netdev -- \
	add-port br-int vm1 -- set Interface vm1 type=dummy-pmd ofport_request=1 -- \
	add-port br-int vxlan0 -- set Interface vxlan0 type=vxlan \
	options:remote_ip=172.1.0.0 options:key=1001 ofport_request=2
in_ns ovs-vsctl add-br br-phy -- set bridge br-phy datapath_type=netdev \
	other-config:hwaddr=aa:55:aa:55:00:00 -- \
	add-port br-phy p0 -- set Interface p0 type=dummy-pmd ofport_request=1
in_ns ip addr add 172.1.0.100/24 dev br-phy
in_ns ip link set br-phy up
in_ns ovs-appctl ovs/route/add 172.1.0.0/24 br-phy
in_ns ovs-appctl tnl/arp/set br-phy 172.1.0.0 F8:BC:12:44:34:B6
in_ns ovs-ofctl add-flow br-int "in_port=vm1,actions=output:vxlan0"
in_ns ovs-ofctl add-flow br-int "in_port=vxlan0,actions=output:vm1"
in_ns ovs-ofctl add-flow br-phy actions=NORMAL
in_ns ovs-appctl netdev-dummy/receive vm1 'in_port(1),eth(src=52:54:00:00:00:01,dst=52:54:00:00:00:02),eth_type(0x0800),ipv4(src=192.1.0.1,dst=192.1.0.2,proto=17,tos=0,ttl=64,frag=no),udp(src=1234,dst=80)'
# the reply, in VXLAN from 172.1.0.0 to br-phy's MAC
frame=$(/usr/bin/python3 -c '
from scapy.all import Ether, IP, UDP, raw
from scapy.layers.vxlan import VXLAN
inner = (Ether(src="52:54:00:00:00:02", dst="52:54:00:00:00:01") /
         IP(src="192.1.0.2", dst="192.1.0.1") / UDP(sport=80, dport=1234))
f = (Ether(src="f8:bc:12:44:34:b6", dst="aa:55:aa:55:00:00") /
     IP(src="172.1.0.0", dst="172.1.0.100") / UDP(sport=50000, dport=4789) /
     VXLAN(vni=1001) / inner)
print(raw(f).hex())')
in_ns ovs-appctl netdev-dummy/receive p0 "$frame"
sleep 1
a() { in_ns ovs-appctl "$@"; }
a dpif-netdev/pmd-stats-show > "$out/pmd-stats-show.txt"
a dpif-netdev/pmd-rxq-show > "$out/pmd-rxq-show.txt"
a dpctl/dump-flows > "$out/dpctl-dump-flows.txt"
a dpctl/dump-flows -m > "$out/dpctl-dump-flows-m.txt"
a tnl/arp/show > "$out/tnl-arp-show.txt"
a ovs/route/show > "$out/ovs-route-show.txt"
{ a nosuch-command 2>&1 || echo "exit $?"; } > "$out/error-unknown-command.txt"
{ a tnl/arp/show x 2>&1 || echo "exit $?"; } > "$out/error-too-many-args.txt"
{ a ovs/route/add 10.2.0.0/16 nosuch 2>&1 || echo "exit $?"; } \
	> "$out/error-route-add-nosuch.txt"
{ a dpctl/dump-flows system@ovs-system 2>&1 || echo "exit $?"; } \
	> "$out/error-dp-not-found.txt"
echo "written to $out"
