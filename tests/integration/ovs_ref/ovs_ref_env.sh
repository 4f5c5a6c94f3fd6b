# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the make-*-ref.sh scripts here: a private Open vSwitch for
# Debian's ovs-vswitchd to run in, so a reference run touches nothing of
# the host's (its database, run and log folders in a temporary folder,
# ovsdb-server and ovs-vswitchd in a network namespace of their own, where
# the bridges' tap ports stay).
#   ovs_ref_up NS DIR   makes the namespace NS-$$ and the folder $S
#                       (mktemp /tmp/DIR.XXXXXX), exports OVS_RUNDIR,
#                       OVS_LOGDIR, OVS_DBDIR, OVS_SYSCONFDIR=$S, starts
#                       ovsdb-server on a new database with Debian's schema
#                       and runs `ovs-vsctl --no-wait init`; at exit both
#                       daemons are stopped and both places removed
#   in_ns CMD...        runs CMD in the namespace
#   ovs_ref_vswitchd BRIDGE N
#                       starts Debian's userspace ovs-vswitchd (dummy
#                       ports, no system datapath) and a netdev BRIDGE with
#                       dummy ports p1..pN at OpenFlow ports 1..N (the
#                       bridge keeps OVS's own NORMAL rule)
# Others start the ovs-vswitchd they need (options differ).

in_ns() { ip netns exec "$ns" "$@"; }

ovs_ref_down() {
	ip netns exec "$ns" ovs-appctl -t ovs-vswitchd exit 2>/dev/null || true
	ip netns exec "$ns" ovs-appctl -t ovsdb-server exit 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$S"
}

ovs_ref_up() {
	ns=$1-$$
	S=$(mktemp -d "/tmp/$2.XXXXXX")
	export OVS_RUNDIR=$S OVS_LOGDIR=$S OVS_DBDIR=$S OVS_SYSCONFDIR=$S
	ip netns add "$ns"
	trap ovs_ref_down EXIT
	ovsdb-tool create "$S/conf.db" /usr/share/openvswitch/vswitch.ovsschema
	in_ns ovsdb-server --detach --no-chdir --pidfile --log-file \
		--remote=punix:"$S/db.sock" "$S/conf.db"
	in_ns ovs-vsctl --no-wait init
}

ovs_ref_vswitchd() {
	local br=$1 n=$2 i
	local add=(add-br "$br" -- set bridge "$br" datapath_type=netdev)
	for i in $(seq "$n"); do
		add+=(-- add-port "$br" "p$i" -- set Interface "p$i" type=dummy
		      "ofport_request=$i")
	done
	in_ns /usr/lib/openvswitch-switch/ovs-vswitchd --enable-dummy \
		--disable-system --disable-system-route --detach --no-chdir \
		--pidfile --log-file
	in_ns ovs-vsctl "${add[@]}"
}
