#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What Debian's ovs-vswitchd-dpdk makes of Open_vSwitch other_config's
# dpdk-* keys: for each case of eal/cases.txt, a private OVS
# (ovs_ref_env.sh) with those keys and dpdk-init=true, ovs-vswitchd-dpdk
# started until it logs "EAL ARGS:", then stopped; eal/reference.txt gets
# the case's dpdk and svec warnings and errors (level, text) and its EAL
# ARGS line. tests/unit/test_ovsdb_eal.c compares vxswitch's mapping
# (app/control/ovsdb_eal.c) with it.
# Usage (root; openvswitch-switch-dpdk, 2 MB hugepages free):
#   tests/integration/ovs_ref/make-ovs-ref-eal.sh [OUT]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/eal/reference.txt}
bin=/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk
[ -x "$bin" ] || { echo "$bin missing: apt-get install" \
	"openvswitch-switch-dpdk" >&2; exit 1; }
. "$here/ovs_ref_env.sh"
tmp=$(mktemp)
{
	echo "# made by tests/integration/ovs_ref/make-ovs-ref-eal.sh with"
	echo "# $(dpkg-query -W -f='${Package} ${Version}' openvswitch-switch-dpdk)"
} > "$tmp"
grep -v '^#' "$here/eal/cases.txt" | while IFS=$'\t' read -r name keys; do
	[ -n "$name" ] || continue
	( ovs_ref_up vxs-ovseal ovseal
	  args=(other_config:dpdk-init=true)
	  while IFS= read -r kv; do args+=("$kv"); done < <(
		/usr/bin/python3 -c 'import json, sys
for k, v in json.loads(sys.argv[1]).items():
    print("other_config:%s=%s" % (k, json.dumps(v)))' "$keys")
	  in_ns ovs-vsctl --no-wait set Open_vSwitch . "${args[@]}"
	  in_ns "$bin" --detach --no-chdir --pidfile="$S/ovs-vswitchd.pid" \
		--log-file="$S/ovs-vswitchd.log" \
		>/dev/null 2>&1 || true
	  for _ in $(seq 100); do
		grep -q 'EAL ARGS:' "$S/ovs-vswitchd.log" 2>/dev/null && break
		sleep 0.1
	  done
	  echo "case $name"
	  sed -n 's/^[^|]*|[0-9]*|\(dpdk\|svec\)|\(WARN\|ERR\)|/\2 /p;
		  s/^[^|]*|[0-9]*|dpdk|INFO|\(EAL ARGS: .*\)/\1/p' \
		"$S/ovs-vswitchd.log" | sed '/^EAL ARGS/q'
	  in_ns ovs-appctl -t ovs-vswitchd exit 2>/dev/null || true
	  pkill -F "$S/ovs-vswitchd.pid" 2>/dev/null || true ) >> "$tmp"
done
mv "$tmp" "$out"
echo "written to $out"
