#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Makes the OVS 3.1 references of issue 26 step 3 (OVSDB applies and
# writes back) with Debian's real DPDK ovs-vswitchd: a private
# ovsdb-server on a database from `ovsdb-tool create` and Debian's
# vswitch.ovsschema, ovs-vswitchd-dpdk (dpdk-init=true, --no-pci, no
# device given to EAL: the dpdk ports attach net_null vdevs through
# dpdk-devargs) in a network namespace of its own (its taps stay there),
# then the scenario of python/vxswitch_tools/ovsdb_scenario.py: plain
# ovs-vsctl commands that wait for cur_cfg (no --no-wait, --timeout=20),
# ovs-ofctl dump-flows, and after each change the listings of what the
# switch wrote back. The vxswitch-side test replays the same STEPS with
# the same normaliser against vxswitch --ovsdb and compares.
#
# Output, in OUTDIR (default: this folder):
#   NN-step.txt             one per step: a "# NN-step: title" line, then
#                           per command "$ ovs-vsctl ARGS", "exit N",
#                           "stdout:" lines, "stderr:" lines (where
#                           ovs-vsctl prints "Error detected while
#                           setting up"), normalised
#   ovs-vswitchd-log.txt    ovs-vswitchd's WARN/ERR lines per step (no
#                           time, no sequence number): what OVS says in
#                           its log; for reading, not compared
#   NOTES.md                written by hand: what these files show, and
#                           where the design guessed otherwise
#
# Normalised (ovsdb_scenario.normalise, which says why): UUIDs, MAC
# addresses but 00:00:00:00:00:00, datapath_id, the run directory
# ($RUNDIR), statistics values (names kept), sec_since_* values, ovs-ofctl
# durations and n_packets/n_bytes; `list` records and `show`'s bridges and
# ports sorted by name (ovs-vsctl prints them in UUID order). Two runs
# give the same files (the log keeps each line once a step: retries and
# PMD reassignments repeat lines as often as timing has it).
#
# The guest of step 09 is vhost_frontend.py (a vhost-user frontend in
# Python, no QEMU): it sets up two vrings, sends nothing.
#
# Needs (root): openvswitch-switch and openvswitch-switch-dpdk (Debian 12:
# OVS 3.1.0, DPDK 22.11; install-deps.sh leaves them out, their services
# would start at install: install them behind a policy-rc.d that exits
# 101), python3, 2 MB hugepages (scripts/hugepages.sh; 256 MB used,
# --in-memory: no files left). Uses CPU 0 (lcore) and CPU 1 (PMD,
# pmd-maxsleep=10000 so that it sleeps when idle). Never touches the
# system's /var/run/openvswitch: OVS_RUNDIR, OVS_DBDIR, OVS_LOGDIR,
# OVS_SYSCONFDIR are a mktemp folder, removed at the end (KEEP=1 keeps
# it). The host here has no openvswitch kernel module: the
# datapath_type=system steps record that case.
# Runs about 50 s here (2 vCPUs): 36 steps; listings wait 0.5 s at
# least to settle, step 09 up to 11 s for the stats refresh, step 33 a few
# seconds for the Controller status.
# Usage:
#   tests/integration/ovs_ref/ovsdb/make-ovs-ref-ovsdb.sh [OUTDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
out=$(cd "${1:-$here}" && pwd)
bin=/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk
schema=/usr/share/openvswitch/vswitch.ovsschema
for f in "$bin" "$schema"; do
	[ -e "$f" ] || { echo "$f missing: apt-get install" \
		"openvswitch-switch-dpdk" >&2; exit 1; }
done
free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if [ "${free:-0}" -lt 160 ]; then
	echo "only ${free:-0} free 2 MB hugepages: run scripts/hugepages.sh" >&2
	exit 1
fi
ns=vxs-ovsdbref-$$
prefix=vxsovsdbref$$
S=$(mktemp -d /tmp/ovsdbref.XXXXXX)
export OVS_RUNDIR=$S OVS_LOGDIR=$S OVS_DBDIR=$S OVS_SYSCONFDIR=$S
cleanup() {
	ovs-appctl -t "$S/ovs-vswitchd.ctl" exit 2>/dev/null || true
	ovs-appctl -t "$S/ovsdb-server.ctl" exit 2>/dev/null || true
	for p in ovs-vswitchd ovsdb-server; do
		pid=$(cat "$S/$p.pid" 2>/dev/null) && kill "$pid" 2>/dev/null || true
	done
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "/var/run/dpdk/$prefix"
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $S"; else rm -rf "$S"; fi
}
trap cleanup EXIT
db=unix:$S/db.sock
vsctl() { ovs-vsctl --db="$db" --timeout=20 "$@"; }
start=$(date +%s)

ip netns add "$ns"
ip -n "$ns" link set lo up
ovsdb-tool create "$S/conf.db" "$schema"
taskset -c 0 ovsdb-server "$S/conf.db" --remote=punix:"$S/db.sock" \
	--pidfile="$S/ovsdb-server.pid" --unixctl="$S/ovsdb-server.ctl" \
	--log-file="$S/ovsdb-server.log" --no-chdir --detach 2>"$S/ovsdb-server.out"
vsctl --no-wait init
vsctl --no-wait set Open_vSwitch . other_config:dpdk-init=true \
	other_config:dpdk-socket-mem=256 other_config:dpdk-lcore-mask=0x1 \
	other_config:pmd-cpu-mask=0x2 other_config:pmd-maxsleep=10000 \
	other_config:dpdk-extra="\"--file-prefix=$prefix --no-pci\""
ip netns exec "$ns" "$bin" "$db" --pidfile="$S/ovs-vswitchd.pid" \
	--unixctl="$S/ovs-vswitchd.ctl" --log-file="$S/ovs-vswitchd.log" \
	--no-chdir --detach 2>"$S/ovs-vswitchd.out"
# ovs-vswitchd sets dpdk_initialized once EAL is up
for _ in $(seq 100); do
	[ "$(vsctl get Open_vSwitch . dpdk_initialized)" = true ] && break
	sleep 0.2
done
# the files of a previous run (steps may have been renumbered)
rm -f "$out"/[0-9][0-9]-*.txt "$out/ovs-vswitchd-log.txt"
# the steps talk to the database and to BRIDGE.mgmt by path: the
# commands run outside the namespace
PYTHONPATH=$repo/python python3 -m vxswitch_tools.ovsdb_scenario \
	--db "$db" --rundir "$S" --log "$S/ovs-vswitchd.log" --out "$out"
echo "written to $out in $(( $(date +%s) - start )) s"
