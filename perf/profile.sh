#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Profiles a running switch's PMD core over a window, as the seed (Intel's
# 32-VM VXLAN study) does: `perf stat -C 2 -e LLC-load,LLC-load-miss sleep 10`.
#
#   perf/profile.sh [-c CORE] [-s SECONDS] [-S CTL_SOCKET | --ovs UNIXCTL]
#                   [--no-clear]
#
#   -c CORE      the PMD core (default 1)
#   -s SECONDS   window (default 10)
#   -S SOCKET    vxswitch's control socket (default: vxswitch-ctl's own)
#   --ovs CTL    profile OVS instead: ovs-vswitchd's unixctl socket (or "" for
#                ovs-appctl's default target)
#   --no-clear   do not pmd-stats-clear first (the caller already did)
#
# Hardware counters when the host has them (checked with `perf stat -e
# cycles true`): cycles, instructions, cache-references, cache-misses,
# LLC-loads, LLC-load-misses, branches, branch-misses on the PMD core.
# Where they are not supported (VMs without a virtual PMU, like this 2-core
# box), software events instead: task-clock, context-switches,
# cpu-migrations, page-faults (a PMD core should show ~0 switches and no
# faults; anything else means something else runs on it). In both cases the
# switch's own view over the same window: dpif-netdev/pmd-stats-show (busy
# and idle cycles, cycles per packet, cache hits) and, if the switch has it,
# dpif-netdev/pmd-perf-show (where the busy cycles go).
#
# Needs root (perf -C is system-wide; perf_event_paranoid) and linux-perf
# (apt-get install -y linux-perf).
set -euo pipefail

CORE=1
SECS=10
SOCK=""
OVS=""
MODE=vxswitch
CLEAR=1
REPO=$(cd "$(dirname "$0")/.." && pwd)
CTL=${VXS_CTL:-$REPO/build/app/vxswitch-ctl}

while [ $# -gt 0 ]; do
	case "$1" in
	-c) CORE=$2; shift 2 ;;
	-s) SECS=$2; shift 2 ;;
	-S) SOCK=$2; shift 2 ;;
	--ovs) MODE=ovs; OVS=$2; shift 2 ;;
	--no-clear) CLEAR=0; shift ;;
	-h|--help) sed -n '3,28p' "$0"; exit 0 ;;
	*) echo "profile.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done

if ! command -v perf >/dev/null; then
	echo "profile.sh: perf not found: apt-get install -y linux-perf" >&2
	exit 2
fi

sw() {	# sw COMMAND...: vxswitch-ctl or ovs-appctl
	if [ "$MODE" = ovs ]; then
		if [ -n "$OVS" ]; then ovs-appctl -t "$OVS" "$@"
		else ovs-appctl "$@"; fi
	else
		if [ -n "$SOCK" ]; then "$CTL" -s "$SOCK" "$@"
		else "$CTL" "$@"; fi
	fi
}

HW_EVENTS=cycles,instructions,cache-references,cache-misses,LLC-loads,LLC-load-misses,branches,branch-misses
SW_EVENTS=task-clock,context-switches,cpu-migrations,page-faults

if perf stat -e cycles true 2>&1 | grep -q -E '<not supported>|not counted|Error|failed'; then
	EVENTS=$SW_EVENTS
	KIND="software events (no hardware counters on this host: 'perf stat -e cycles true' says <not supported>)"
else
	EVENTS=$HW_EVENTS,$SW_EVENTS
	KIND="hardware counters"
fi

echo "== $MODE PMD core $CORE, ${SECS} s window, $KIND"
echo "   $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs"
if [ "$CLEAR" = 1 ]; then
	sw dpif-netdev/pmd-stats-clear >/dev/null
fi
echo "== perf stat -C $CORE -e $EVENTS sleep $SECS"
perf stat -C "$CORE" -e "$EVENTS" sleep "$SECS" 2>&1 | sed -n '/Performance/,$p'
echo "== dpif-netdev/pmd-stats-show (same window)"
sw dpif-netdev/pmd-stats-show -m || true
if sw dpif-netdev/pmd-perf-show >/tmp/profile-perf-show.$$ 2>&1; then
	echo "== dpif-netdev/pmd-perf-show (same window)"
	cat /tmp/profile-perf-show.$$
else
	echo "== dpif-netdev/pmd-perf-show: not available ($(head -c 200 /tmp/profile-perf-show.$$))"
fi
rm -f /tmp/profile-perf-show.$$
