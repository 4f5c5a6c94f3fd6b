#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# OVS 3.1's flow for each IPv6 frame of tests/vectors/ipv6_extract.txt
# (made by tests/vectors/gen_ipv6_packets.py): Debian's real ovs-vswitchd,
# userspace datapath, a dummy port, in a network namespace of its own;
# `ofproto/trace br0 in_port=1 HEX` extracts the frame with OVS's
# flow_extract and prints it on its "Flow:" line. Writes
# tests/vectors/ipv6_extract.expected ("NAME FLOW" a line), which
# tests/integration/test_ipv6_extract_ovs.py compares vxswitch's extract
# with. Usage (root; needs openvswitch-switch, which install-deps.sh leaves
# out: its service would start at install):
#   tests/integration/ovs_ref/make-ipv6-extract-ref.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
in=$root/tests/vectors/ipv6_extract.txt
out=$root/tests/vectors/ipv6_extract.expected
. "$(dirname "$0")/ovs_ref_env.sh"
ovs_ref_up vxs-ovs6 ovsref6
in_ns ovs-vswitchd --enable-dummy --disable-system --disable-system-route \
	--detach --no-chdir --pidfile --log-file
in_ns ovs-vsctl add-br br0 -- set bridge br0 datapath_type=netdev -- \
	add-port br0 p1 -- set Interface p1 type=dummy ofport_request=1
version=$(ovs-vswitchd --version | head -1)
{
	echo "# OVS's flow for each frame of ipv6_extract.txt: $version,"
	echo "# ofproto/trace br0 in_port=1 HEX (make-ipv6-extract-ref.sh)"
	while read -r name hex; do
		flow=$(in_ns ovs-appctl ofproto/trace br0 in_port=1 "$hex" |
		       sed -n 's/^Flow: //p')
		[ -n "$flow" ] || { echo "no Flow: line for $name" >&2; exit 1; }
		echo "$name $flow"
	done < "$in"
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
