#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Instructions per packet of the datapath, from callgrind: runs dpbench
# (perf/dpbench.c) under valgrind --tool=callgrind in a reduced mode. Only
# the measured region (dp_process_burst + the tx flush) is collected
# (CALLGRIND_TOGGLE_COLLECT in dpbench, with --collect-atstart=no), and each
# configuration ends in its own dump, named with its packet count.
#
#   perf/callgrind.sh [BUILD_DIR] [-- DPBENCH_ARGS...]
#
# Default: 32 and 1k microflows, all optimisations on vs all off, decap and
# encap, 200 bursts each. Prints one line per configuration:
#   path config flows instructions/packet
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
bench="$build/perf/dpbench"
[ -x "$bench" ] || { echo "callgrind.sh: no $bench (build first)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not installed" >&2; exit 1; }

out=$(mktemp -d /tmp/dpbench-callgrind.XXXXXX)
trap 'rm -rf "$out"' EXIT
if [ $# -eq 0 ]; then
	set -- --flows 32,1k --bursts 200 --opts each
fi
valgrind --tool=callgrind --collect-atstart=no \
	--callgrind-out-file="$out/cg.out" \
	"$bench" --mem 512 "$@" >"$out/dpbench.txt" 2>"$out/valgrind.txt" || {
	echo "callgrind.sh: dpbench failed under valgrind:" >&2
	tail -20 "$out/valgrind.txt" >&2
	exit 1
}
# Each dump: "desc: Trigger: Client Request: dpbench PATH CONFIG FLOWS
# packets=N" and "summary: IR" (or "totals:").
printf '%-6s %-24s %8s %14s\n' path config flows instr/packet
for f in $(ls -v "$out"/cg.out.*); do
	awk '
	/^desc: Trigger: Client Request: dpbench/ {
		path = $6; cfg = $7; flows = $8; split($9, a, "="); pkts = a[2] }
	/^summary:/ { ir = $2 }
	/^totals:/ { if (!ir) ir = $2 }
	END { if (pkts) printf "%-6s %-24s %8s %14.1f\n", path, cfg, flows, ir / pkts }
	' "$f"
done
