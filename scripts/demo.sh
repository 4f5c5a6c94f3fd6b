#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The demo (README "Two commands"): on a fresh Debian 12, as root, installs
# what vxswitch needs (scripts/install-deps.sh: apt packages, hugepages),
# builds it (meson/ninja, in build/), then runs scripts/demo.py, which
# forwards real traffic for a few seconds and prints what happened.
#
# Arguments are passed to demo.py (--seconds S, --flows F, --keep; --help).
#
# Environment:
#   VXS_SKIP_DEPS=1    do not run scripts/install-deps.sh (hugepages are
#                      still checked by demo.py)
#   VXS_SKIP_BUILD=1   use build/ as it is
#   VXS_JOBS=N         build parallelism (default: ninja's)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if [ "${VXS_SKIP_DEPS:-0}" != 1 ]; then
	echo "== demo: installing dependencies (scripts/install-deps.sh)"
	bash scripts/install-deps.sh
fi

if [ "${VXS_SKIP_BUILD:-0}" != 1 ]; then
	echo "== demo: building (meson setup build && meson compile -C build)"
	log=$(mktemp /tmp/vxswitch-demo-build.XXXXXX)
	trap 'rm -f "$log"' EXIT
	setup=(meson setup build)
	[ -d build/meson-private ] && setup=(meson setup --reconfigure build)
	jobs=()
	[ -n "${VXS_JOBS:-}" ] && jobs=(-j "$VXS_JOBS")
	if ! { "${setup[@]}" && meson compile -C build "${jobs[@]}"; } \
		>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		echo "demo: build failed (last 40 lines of its log above)" >&2
		exit 1
	fi
	grep -E '^ninja: no work to do|^\[[0-9]+/[0-9]+\] Linking' "$log" |
		sed 's/^/  /' || true
	rm -f "$log"
	trap - EXIT
fi

exec /usr/bin/python3 "$root/scripts/demo.py" "$@"
