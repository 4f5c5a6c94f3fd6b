#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The test command (README, .ci/run): installs dependencies, builds, runs the
# unit tests, builds again with ASan+UBSan and runs the unit tests there,
# then runs the integration tests (pytest, real processes) against the
# normal build and again against the sanitizer build. Every step runs even
# when an earlier one failed (except the tests of a build that failed);
# exits non-zero if anything failed.
#
# Environment:
#   VXS_SKIP_DEPS=1         skip scripts/install-deps.sh (hugepages.sh runs
#                           anyway unless VXS_SKIP_HUGEPAGES=1)
#   VXS_SKIP_ASAN=1         skip the sanitizer build and its tests
#   VXS_SKIP_INTEGRATION=1  skip pytest
#   VXS_JOBS=N              build/test parallelism (default: nproc, max 2)
#   VXS_PYTEST_ARGS="..."   extra pytest arguments (e.g. -k vxlan -x)
#   VXS_MESON_ARGS="..."    extra meson setup arguments for both builds
#   PYTHON=...              interpreter with pytest+scapy (/usr/bin/python3)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

PYTHON=${PYTHON:-/usr/bin/python3}
jobs=${VXS_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs" -gt 2 ] && [ -z "${VXS_JOBS:-}" ] && jobs=2
read -r -a meson_extra <<<"${VXS_MESON_ARGS:-}"
read -r -a pytest_extra <<<"${VXS_PYTEST_ARGS:-}"

# sanitizer runtime settings for the ASan build's tests (overridable)
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
asan_opts=${VXS_ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}

declare -a names=() results=() times=()
failed=0
t_all=$(date +%s)

# step NAME CMD...: runs CMD, records PASS/FAIL and its duration
step() {
	local name=$1; shift
	local t0 rc
	t0=$(date +%s)
	echo
	echo "=================== $name"
	echo "+ $*"
	"$@"
	rc=$?
	names+=("$name")
	times+=($(( $(date +%s) - t0 )))
	if [ $rc -eq 0 ]; then
		results+=("PASS")
	else
		results+=("FAIL (exit $rc)")
		failed=1
	fi
	return $rc
}
skip() {	# skip NAME WHY
	names+=("$1"); results+=("SKIP ($2)"); times+=(0)
	echo
	echo "=================== $1: skipped ($2)"
}

# meson_setup DIR [OPTIONS...]: configure, or reconfigure with OPTIONS
meson_setup() {
	local dir=$1; shift
	if [ -f "$dir/build.ninja" ] && [ -d "$dir/meson-private" ]; then
		meson setup --reconfigure "$dir" "$@" "${meson_extra[@]}" ||
			{ echo "run-tests: reconfigure failed, wiping $dir" >&2
			  meson setup --wipe "$dir" "$@" "${meson_extra[@]}"; }
	else
		rm -rf "$dir"
		meson setup "$dir" "$@" "${meson_extra[@]}"
	fi
}

# pytest_run BUILD_DIR [VAR=VALUE...]: the integration tests against that
# build's binaries, with those variables in their environment
pytest_run() {
	local bdir=$1
	shift
	env "$@" VXS_BUILD_DIR="$root/$bdir" PYTHONDONTWRITEBYTECODE=1 \
		"$PYTHON" -m pytest -v -p no:cacheprovider \
		--junitxml="$root/$bdir/integration-junit.xml" \
		"${pytest_extra[@]}" tests/integration
	local rc=$?
	if [ $rc -eq 5 ]; then
		echo "run-tests: pytest collected no tests (exit 5): counted as a failure" >&2
	fi
	return $rc
}

# ------------------------------------------------------------------ steps
if [ "${VXS_SKIP_DEPS:-0}" = 1 ]; then
	skip "install-deps" "VXS_SKIP_DEPS=1"
	if [ "${VXS_SKIP_HUGEPAGES:-0}" != 1 ]; then
		step "hugepages" bash scripts/hugepages.sh
	fi
else
	step "install-deps" bash scripts/install-deps.sh
fi

if step "build: setup" meson_setup build &&
   step "build: compile" meson compile -C build -j "$jobs"; then
	step "unit tests" meson test -C build --print-errorlogs \
		--num-processes "$jobs"
	build_ok=1
else
	skip "unit tests" "build failed"
	build_ok=0
fi

if [ "${VXS_SKIP_ASAN:-0}" = 1 ]; then
	skip "asan+ubsan build" "VXS_SKIP_ASAN=1"
else
	if step "asan build: setup" meson_setup build-asan \
		-Db_sanitize=address,undefined -Db_lundef=false &&
	   step "asan build: compile" meson compile -C build-asan -j "$jobs"; then
		step "asan unit tests" env ASAN_OPTIONS="$asan_opts" \
			meson test -C build-asan --print-errorlogs \
			--num-processes "$jobs" --timeout-multiplier 3
	else
		skip "asan unit tests" "asan build failed"
	fi
fi

if [ "${VXS_SKIP_INTEGRATION:-0}" = 1 ]; then
	skip "integration tests" "VXS_SKIP_INTEGRATION=1"
elif [ $build_ok -ne 1 ]; then
	skip "integration tests" "build failed"
else
	step "integration tests" pytest_run build
fi

# The same suite once more with the daemon built with ASan+UBSan: the
# sanitizers then see real vhost-user, af_packet and tap traffic, and a
# leak at exit fails the test through the daemon's exit code.
if [ "${VXS_SKIP_INTEGRATION:-0}" = 1 ] || [ "${VXS_SKIP_ASAN:-0}" = 1 ]; then
	skip "asan integration" "skipped"
elif [ ! -x build-asan/app/vxswitch ]; then
	skip "asan integration" "asan build failed"
else
	step "asan integration" pytest_run build-asan \
		ASAN_OPTIONS="$asan_opts" \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi

# ---------------------------------------------------------------- summary
echo
echo "=================== summary ($(( $(date +%s) - t_all )) s)"
for i in "${!names[@]}"; do
	printf '  %-22s %-16s %5ss\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
done
if [ $failed -ne 0 ]; then
	echo "run-tests: FAILED"
	exit 1
fi
echo "run-tests: all passed"
exit 0
