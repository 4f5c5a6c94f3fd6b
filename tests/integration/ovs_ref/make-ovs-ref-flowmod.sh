#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Makes flowmod/reference.txt with Debian's real ovs-vswitchd (OVS 3.1,
# plain userspace: datapath_type=netdev, dummy ports p1 and p2 as OpenFlow
# ports 1 and 2) in a network namespace of its own, with a private
# ovsdb-server: every line of flowmod/steps.txt run as
# `ovs-ofctl -O OpenFlow15 CMD br0 [--strict] FLOW` (a step may give its own -O), its output and exit status,
# and after each, `ovs-ofctl -O OpenFlow15 --no-names dump-flows --no-stats
# br0`, sorted. tests/integration/test_flowmod_ref.py replays the steps
# through vxswitch-ctl and compares.
# Usage (root; needs openvswitch-switch):
#   tests/integration/ovs_ref/make-ovs-ref-flowmod.sh [OUTFILE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/flowmod/reference.txt}
. "$(dirname "$0")/ovs_ref_env.sh"
ovs_ref_up vxs-ovsfm ovsfm
ovs_ref_vswitchd br0 2
in_ns ovs-ofctl del-flows br0	# the bridge's own NORMAL rule

: > "$out"
while IFS= read -r line; do
	case "$line" in ''|'#'*) continue ;; esac
	read -r -a w <<< "$line"
	cmd=${w[0]}; args=("${w[@]:1}"); opts=(-O OpenFlow15)
	if [ "${args[0]:-}" = -O ]; then opts=(-O "${args[1]}"); args=("${args[@]:2}"); fi
	strict=()
	if [ "${args[0]:-}" = --strict ]; then strict=(--strict); args=("${args[@]:1}"); fi
	echo "## $line" >> "$out"
	rc=0
	in_ns ovs-ofctl "${opts[@]}" "$cmd" "${strict[@]}" br0 "${args[@]}" \
		>> "$out" 2>&1 || rc=$?
	echo "exit $rc" >> "$out"
	in_ns ovs-ofctl -O OpenFlow15 --no-names dump-flows --no-stats br0 |
		grep '^ ' | sort >> "$out" || true
done < "$here/flowmod/steps.txt"
echo "written to $out"
