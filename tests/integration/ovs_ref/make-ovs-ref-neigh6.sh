#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Makes the OVS 3.1 references of tnl/neigh/show and ovs/route/show with
# neighbours and routes of both families (test_ovs_appctl.py,
# test_tnl_neigh_and_route_show_ipv6), as make-ovs-ref.sh does: Debian's
# real ovs-vswitchd, userspace datapath, in a network namespace; br-phy
# with 172.1.0.100/24 and 2001:db8:1::100/64.
# Usage (root; needs openvswitch-switch):
#   tests/integration/ovs_ref/make-ovs-ref-neigh6.sh [OUTDIR]
set -euo pipefail
out=$(cd "${1:-$(dirname "$0")}" && pwd)
. "$(dirname "$0")/ovs_ref_env.sh"
ovs_ref_up vxs-ovsref6 ovsref6
in_ns ovs-vswitchd --enable-dummy --disable-system --disable-system-route \
	--detach --no-chdir --pidfile --log-file
in_ns ovs-vsctl add-br br-phy -- set bridge br-phy datapath_type=netdev \
	other-config:hwaddr=aa:55:aa:55:00:00
in_ns ip addr add 172.1.0.100/24 dev br-phy
in_ns ip addr add 2001:db8:1::100/64 dev br-phy nodad
in_ns ip link set br-phy up
a() { in_ns ovs-appctl "$@"; }
a ovs/route/add 172.1.0.0/24 br-phy
a ovs/route/add 2001:db8:1::/64 br-phy
a ovs/route/add 2001:db8:9::/48 br-phy 2001:db8:1::1
a tnl/arp/set br-phy 172.1.0.0 F8:BC:12:44:34:B6
a tnl/neigh/set br-phy 2001:db8:1::1 F8:BC:12:44:34:B7
a tnl/neigh/show > "$out/tnl-neigh-show-ipv6.txt"
a ovs/route/show > "$out/ovs-route-show-ipv6.txt"
echo "written to $out"
