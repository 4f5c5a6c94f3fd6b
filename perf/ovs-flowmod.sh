#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The OVS side of perf/flowmod-bench.py: Debian's ovs-vswitchd (userspace
# datapath, one dummy port, a private ovsdb-server in a namespace of its
# own: tests/integration/ovs_ref/ovs_ref_env.sh) takes each rule file with
# `ovs-ofctl -O OpenFlow15 add-flows [--bundle] br0 FILE`; prints one line
# per file, "batch SECONDS", then "rules N" (dump-flows' count) and
# "rss_kb BEFORE AFTER" (ovs-vswitchd's VmRSS).
# Usage (root): perf/ovs-flowmod.sh [--bundle] FILE...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=
if [ "${1:-}" = --bundle ]; then bundle=--bundle; shift; fi
. "$here/../tests/integration/ovs_ref/ovs_ref_env.sh"
ovs_ref_up vxs-ovsbench ovsbench
ovs_ref_vswitchd br0 1
in_ns ovs-ofctl del-flows br0	# the bridge's own NORMAL rule
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$(cat "$S/ovs-vswitchd.pid")/status"; }
rss0=$(rss)
for f in "$@"; do
	t0=$EPOCHREALTIME
	in_ns ovs-ofctl -O OpenFlow15 $bundle add-flows br0 "$f"
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "batch %.3f\n", b - a }'
done
echo "rules $(in_ns ovs-ofctl -O OpenFlow15 dump-flows br0 --no-stats |
	grep -c actions=)"
echo "rss_kb $rss0 $(rss)"
