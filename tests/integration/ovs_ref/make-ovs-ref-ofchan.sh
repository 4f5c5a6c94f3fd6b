#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Makes ofchan/reference.txt and ofchan/raw.txt with Debian's real
# ovs-vswitchd (OVS 3.1, plain userspace: datapath_type=netdev, dummy
# ports p1 and p2 as OpenFlow ports 1 and 2) in a network namespace of its
# own, with a private ovsdb-server, as make-ovs-ref-flowmod.sh does:
#   reference.txt  for -O OpenFlow10, 13 and 15: ovs-ofctl show,
#                  dump-ports-desc, dump-desc, get-frags, set-frags,
#                  probe, ping, and `monitor br-int 65535` (a service
#                  connection gets asynchronous messages only with a
#                  miss_send_len, connmgr.c:1437) while a port is added and
#                  deleted (its port status messages); each with its exit
#                  status
#   raw.txt        python/vxswitch_tools/of_probe.py's hand-made byte
#                  sequences (hostile ones too) sent to br-int.mgmt and
#                  what came back
# tests/integration/test_openflow.py runs the same against vxswitch and
# compares, with the masks it names.
# Usage (root; needs openvswitch-switch):
#   tests/integration/ovs_ref/make-ovs-ref-ofchan.sh [OUTDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out=${1:-$here/ofchan}
. "$here/ovs_ref_env.sh"
ovs_ref_up vxs-ovsof ovsof
ovs_ref_vswitchd br-int 2

mkdir -p "$out"
ref=$out/reference.txt
: > "$ref"
step() {	# step OFVERSION CMD [ARGS...]: "## ..." then output and status
	local v=$1; shift
	echo "## -O $v $*" >> "$ref"
	rc=0
	in_ns timeout 10 ovs-ofctl -O "$v" "$@" >> "$ref" 2>&1 || rc=$?
	echo "exit $rc" >> "$ref"
}
for v in OpenFlow10 OpenFlow13 OpenFlow15; do
	step $v show br-int
	step $v dump-ports-desc br-int
	step $v dump-desc br-int
	step $v get-frags br-int
	step $v set-frags br-int drop
	step $v get-frags br-int
	step $v set-frags br-int reassemble
	step $v get-frags br-int
	step $v set-frags br-int normal
	step $v probe br-int
	step $v ping br-int 64
	echo "## -O $v monitor br-int 65535 (add-port p3, del-port p3)" >> "$ref"
	# line-buffered: timeout's SIGTERM would lose a full stdio buffer
	in_ns timeout 4 stdbuf -oL ovs-ofctl -O $v monitor br-int 65535 \
		> "$S/mon" 2>&1 &
	mon=$!
	sleep 1
	in_ns ovs-vsctl add-port br-int p3 -- set Interface p3 type=dummy \
		ofport_request=3
	sleep 0.5
	in_ns ovs-vsctl del-port br-int p3
	wait $mon || true
	# what monitor prints goes to stderr; less its own end
	grep -v "fatal_signal" "$S/mon" >> "$ref" || true
done
in_ns env PYTHONPATH="$repo/python" python3 -m vxswitch_tools.of_probe \
	"$S/br-int.mgmt" > "$out/raw.txt"
echo "written to $ref and $out/raw.txt"
