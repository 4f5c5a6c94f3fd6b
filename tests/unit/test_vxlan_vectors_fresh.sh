#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The committed VXLAN vectors must be exactly what their generator makes
# now: regenerate into a temporary file and diff. A difference means the
# generator was edited without regenerating, or the .txt by hand.
#
# Usage: test_vxlan_vectors_fresh.sh GENERATOR.py COMMITTED.txt
# Exit 77 (meson: skipped) when no python3 with scapy is found.
set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 GENERATOR.py COMMITTED.txt" >&2
	exit 2
fi
gen=$1
committed=$2

# A python3 earlier in PATH (pyenv, a venv) may lack the distribution's
# python3-scapy, so try the system one too.
py=
for candidate in python3 /usr/bin/python3; do
	if "$candidate" -c 'import scapy.all' >/dev/null 2>&1; then
		py=$candidate
		break
	fi
done
if [ -z "$py" ]; then
	echo "no python3 with scapy: skipped"
	exit 77
fi

fresh=$(mktemp "${TMPDIR:-/tmp}/vxlan_vectors.XXXXXX")
trap 'rm -f "$fresh"' EXIT INT TERM

"$py" "$gen" "$fresh"
if diff -u "$committed" "$fresh"; then
	echo "vectors fresh: $committed"
else
	echo "STALE: $committed differs from what $gen makes now;" \
	     "rerun it and commit the result" >&2
	exit 1
fi
