#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Makes openflow/vectors.txt: the exact OpenFlow bytes Debian's ovs-ofctl
# sends for every line of openflow/flows.txt in OpenFlow 1.0, 1.3, 1.4, 1.5,
# and what Debian's ovs-vswitchd (OVS 3.1, userspace: datapath_type=netdev,
# dummy ports 1 and 2, a private ovsdb-server, a network namespace of its
# own) answers, recorded by ofwire_recorder.py, a proxy in front of the
# bridge's br0.mgmt socket. tests/unit/test_ofp_wire.c decodes them.
# Format: "## V CMD ARGS" then "exit RC" then one line per message,
# "> VERSION TYPE HEX" (ovs-ofctl to the switch) or "< ..." (the answer).
# Also openflow/errors.txt: the OFPT_ERROR ovs-vswitchd answers broken
# flow_mods with (ofwire_errors.py).
# Usage (root; needs openvswitch-switch):
#   tests/integration/ovs_ref/openflow/make-ovs-ref-ofwire.sh [VECTORS [ERRORS]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/vectors.txt}
errs=${2:-$here/errors.txt}
. "$here/../ovs_ref_env.sh"
ovs_ref_up vxs-ovsow ovsow
rec=
trap '[ -n "$rec" ] && kill "$rec" 2>/dev/null; ovs_ref_down' EXIT
ovs_ref_vswitchd br0 2
in_ns ovs-ofctl del-flows br0	# the bridge's own NORMAL rule

: > "$out"
python3 "$here/ofwire_recorder.py" "$S/proxy.sock" "$S/br0.mgmt" "$out" &
rec=$!
for _ in $(seq 50); do [ -S "$S/proxy.sock" ] && break; sleep 0.1; done
sock=unix:$S/proxy.sock

run() {		# VERSION CMD [ARGS...]
	local v=$1 rc=0; shift
	local fmt=()
	if [ "${2:-}" = -F ]; then fmt=(-F "$3"); set -- "$1" "${@:4}"; fi
	echo "## $v $*" >> "$out"
	ovs-ofctl -O "OpenFlow$v" "${fmt[@]}" --no-names "$1" "$sock" "${@:2}" \
		> /dev/null 2> "$S/err" || rc=$?
	echo "exit $rc" >> "$out"
	sed 's/^/# /' "$S/err" >> "$out"
}

for v in 10 13 14 15; do
	while IFS= read -r line; do
		case "$line" in ''|'#'*) continue ;; esac
		vers=10,13,14,15
		if [ "${line:0:1}" = @ ]; then
			vers=${line%% *}; vers=${vers#@}; line=${line#* }
		fi
		case ",$vers," in *",$v,"*) ;; *) continue ;; esac
		read -r -a w <<< "$line"
		run "$v" "${w[@]}"
		if [ "${w[0]}" = add-flow ]; then
			run "$v" dump-flows
			run "$v" del-flows
		fi
	done < "$here/flows.txt"
done
# OpenFlow 1.0 without Nicira's extensions (-F OpenFlow10): plain
# OFPT_FLOW_MOD, OFPST_FLOW and OFPST_AGGREGATE
for flow in "priority=100,in_port=1,actions=output:2" \
	"tcp,nw_src=10.0.0.0/8,tp_dst=80,actions=mod_dl_dst:00:00:00:00:00:01,output:65534" \
	"dl_vlan=10,arp,arp_op=1,actions=output:in_port"; do
	run 10 add-flow -F OpenFlow10 "$flow"
	run 10 dump-flows -F OpenFlow10
	run 10 dump-aggregate -F OpenFlow10
	run 10 del-flows -F OpenFlow10
done
sleep 0.2
# the errors OVS answers broken flow_mods with (ofwire_errors.py)
: > "$errs"
python3 "$here/ofwire_errors.py" "$S/br0.mgmt" "$out" "$errs"
echo "written to $out and $errs"
