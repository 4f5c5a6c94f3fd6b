#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The dpcls lookup in instructions per key under callgrind, before and
# after a change to the classifier: builds perf/dpcls_hostile.c twice with
# the build's flags (-O3 -march=corei7, as meson.build), once against this
# tree's app/datapath/dpcls*.c and once against BASE's (default: the
# commit before the keyed subtable hash), runs both under
# valgrind --tool=callgrind and prints one line per configuration:
#   tree mode megaflows instructions/key
#
#   perf/dpcls_hostile.sh [BASE] [N,...]
#
# The bench needs only dpcls.c, dpcls_lookup.c and DPDK, so no build
# directory is used; the headers come from the same tree as the sources.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-390285b}
list=${2:-16,256,1024,4096}
command -v valgrind >/dev/null ||
	{ echo "dpcls_hostile.sh: valgrind not installed" >&2; exit 1; }
out=$(mktemp -d /tmp/dpcls-hostile.XXXXXX)
trap 'rm -rf "$out"' EXIT

mkdir -p "$out/base"
git -C "$root" archive "$base" app drivers | tar -x -C "$out/base"
# the bench and its keys are this tree's in both builds
mkdir -p "$out/base/tests/unit" "$out/base/perf"
cp "$root/tests/unit/dpcls_collide.h" "$out/base/tests/unit/"
cp "$root/perf/dpcls_hostile.c" "$out/base/perf/"

cg=""
[ -f /usr/include/valgrind/callgrind.h ] && cg=-DHAVE_CALLGRIND_H
for tree in base head; do
	src=$out/base
	[ $tree = head ] && src=$root
	inc=""
	for d in app app/lib app/datapath app/pmd app/ofproto app/conntrack \
		 app/config app/ports app/control drivers/offload; do
		inc="$inc -I$src/$d"
	done
	# shellcheck disable=SC2046,SC2086
	cc -std=c11 -O3 -march=corei7 -D_GNU_SOURCE -DNDEBUG $cg \
		-include rte_config.h $inc $(pkg-config --cflags libdpdk) \
		"$src/perf/dpcls_hostile.c" "$src/app/datapath/dpcls.c" \
		"$src/app/datapath/dpcls_lookup.c" \
		-o "$out/bench-$tree" $(pkg-config --libs libdpdk)
	valgrind --tool=callgrind --collect-atstart=no \
		--callgrind-out-file="$out/cg-$tree.out" \
		"$out/bench-$tree" "$list" >"$out/run-$tree.txt" \
		2>"$out/valgrind-$tree.txt" || {
		echo "dpcls_hostile.sh: $tree failed under valgrind:" >&2
		tail -20 "$out/valgrind-$tree.txt" >&2
		exit 1
	}
	echo "# $tree ($([ $tree = base ] && echo "$base" ||
		git -C "$root" rev-parse --short HEAD)+worktree):"
	sed 's/^/#   /' "$out/run-$tree.txt"
done
printf '%-5s %-8s %9s %14s\n' tree mode megaflows instr/key
for tree in base head; do
	for f in $(ls -v "$out"/cg-$tree.out.*); do
		awk -v tree=$tree '
		/^desc: Trigger: Client Request: dpcls/ {
			mode = $6; n = $7; split($8, a, "="); keys = a[2] }
		/^summary:/ { ir = $2 }
		/^totals:/ { if (!ir) ir = $2 }
		END { if (keys) printf "%-5s %-8s %9s %14.1f\n", tree, mode,
				      n, ir / keys }
		' "$f"
	done
done
