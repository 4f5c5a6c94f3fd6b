#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Makes the OVS 3.1 reference for a VXLAN tunnel over an IPv6 underlay
# (dpctl-dump-flows-tnl6.txt) with Debian's real ovs-vswitchd: the rig of
# make-ovs-ref.sh (userspace datapath, dummy-pmd ports, a netns of its
# own) with the tunnel's remote fd00:172::1 and br-phy at fd00:172::100,
# and one frame from the VM. Its tnl_push(...) header is what
# vxlan_tnl_template_build6() + vxlan_tnl_template_format() must print
# for the same MACs, addresses and VNI (tests/unit/test_vxlan.c,
# template6_format_ovs, reads this file).
# Usage (root; needs openvswitch-switch):
#   tests/integration/ovs_ref/make-ovs-ref-tnl6.sh [OUTDIR]
set -euo pipefail
out=$(cd "${1:-$(dirname "$0")}" && pwd)
. "$(dirname "$0")/ovs_ref_env.sh"
ovs_ref_up vxs-ovsref6 ovsref6t
in_ns ovs-vswitchd --enable-dummy --disable-system --disable-system-route \
	--detach --no-chdir --pidfile --log-file
in_ns ovs-vsctl set Open_vSwitch . other_config:pmd-cpu-mask=0x2
in_ns ovs-vsctl add-br br-int -- set bridge br-int datapath_type=netdev -- \
	add-port br-int vm1 -- set Interface vm1 type=dummy-pmd ofport_request=1 -- \
	add-port br-int vxlan0 -- set Interface vxlan0 type=vxlan \
	options:remote_ip=fd00:172::1 options:key=1001 ofport_request=2
in_ns ovs-vsctl add-br br-phy -- set bridge br-phy datapath_type=netdev \
	other-config:hwaddr=aa:55:aa:55:00:00 -- \
	add-port br-phy p0 -- set Interface p0 type=dummy-pmd ofport_request=1
in_ns ip link set br-phy up
in_ns ip -6 addr add fd00:172::100/64 dev br-phy nodad
in_ns ovs-appctl ovs/route/add fd00:172::/64 br-phy
in_ns ovs-appctl tnl/neigh/set br-phy fd00:172::1 F8:BC:12:44:34:B6
in_ns ovs-ofctl add-flow br-int "in_port=vm1,actions=output:vxlan0"
in_ns ovs-ofctl add-flow br-phy actions=NORMAL
in_ns ovs-appctl netdev-dummy/receive vm1 'in_port(1),eth(src=52:54:00:00:00:01,dst=52:54:00:00:00:02),eth_type(0x0800),ipv4(src=192.1.0.1,dst=192.1.0.2,proto=17,tos=0,ttl=64,frag=no),udp(src=1234,dst=80)'
sleep 1
in_ns ovs-appctl dpctl/dump-flows > "$out/dpctl-dump-flows-tnl6.txt"
echo "written to $out"
