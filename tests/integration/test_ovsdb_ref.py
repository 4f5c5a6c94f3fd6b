# SPDX-License-Identifier: BSD-3-Clause
"""OVSDB mode against Debian's ovs-vswitchd, differentially: the 36 steps
of python/vxswitch_tools/ovsdb_scenario.py (plain ovs-vsctl, waiting for
cur_cfg; refusals; a vhost-user guest; listings of every column
ovs-vswitchd writes back) replayed against vxswitch --ovsdb with the same
normaliser, each step's text compared with the reference that
tests/integration/ovs_ref/ovsdb/make-ovs-ref-ovsdb.sh recorded from
ovs-vswitchd-dpdk (OVS 3.1.0, DPDK 22.11). A step that differs must be
in DIFFERENT below, with the reason; one that matches must not be (so
the list stays true)."""

import difflib
import os
import re
from pathlib import Path

from vxswitch_tools import ovsdb_scenario as sc

REF = Path(__file__).parent / "ovs_ref" / "ovsdb"

# What vxswitch answers otherwise everywhere, by design: each pattern is
# replaced in both texts before they are compared (so the rest of the
# line, and every other line, must still be equal), with the reason.
ACCEPTED = [
    (r"(?m)^(datapath_types|iface_types)( +): \[.*\]$", r"\1\2: <types>",
     "vxswitch lists the types it has: netdev; dpdk, dpdkvhostuser, "
     "dpdkvhostuserclient, internal (a bridge's own), vxlan"),
    (r"(?m)^statistics( +): \{.*\}$", r"statistics\1: <counters>",
     "vxswitch's counters per port are rx/tx packets and bytes and "
     "tx_dropped (every 5 s, as OVS); OVS's keys are its drivers' "
     "(ovs_tx_retries, rx_1_to_64_packets, ...)"),
    (r"status( +): \{driver_name=tun, driver_version=\S+, "
     r"firmware_version=\S+\}", r"status\1: {}",
     "a bridge's local port is a kernel tap in OVS (driver tun); "
     "vxswitch has no kernel device for it"),
    (r"port_no=\"\d+\"", "port_no=<n>",
     "the DPDK port id: vxswitch's capture stand-ins take ids too"),
    (r"(?m)^capabilities( +): \{.*\}$", r"capabilities\1: <caps>",
     "the same 27 keys, each with vxswitch's own answer (ovsdb_write.c: "
     "what it lacks is false, so that ovn-controller does not use it)"),
]

# step name -> why vxswitch's answer differs from ovs-vswitchd's: a
# reason alone (the step differs, as the reason says), or (reason,
# pattern): only what the pattern matches may differ (it is masked in
# both texts, and the rest of the step must be equal)
OFPORT_NUMBERS = r"(?m)^(ofport +): \d+$"
NO_KERNEL = ("vxswitch opens no kernel device and has no %s: the type is "
             "refused, \"could not open network device NAME (Address "
             "family not supported by protocol)\", OVS's text for a type it "
             "lacks")
DIFFERENT = {
    "06-dpdk-mtu": "mtu_request cleared: vxswitch makes the port again at "
    "the device's own MTU (1500); OVS leaves the last one set (9000)",
    "10-same-socket": "a second dpdkvhostuserclient on a socket another "
    "port uses: refused (two ports would share one guest's rings); OVS "
    "takes it",
    "14-dpdk-same-devargs": ("ofport numbers: step 10's vm1b has one in "
                             "OVS", OFPORT_NUMBERS),
    "15-vxlan": ("ofport numbers, as 14", OFPORT_NUMBERS),
    "16-vxlan-second": "one tunnel port: a second vxlan port (another "
    "remote_ip) is refused, \"vxswitch: one vxlan port\"; OVS takes it",
    "17-vxlan-same-config": "one tunnel port, as 16 (OVS: \"could not add "
    "network device vxlan1b to ofproto (File exists)\")",
    "18-vxlan-unknown-option": "one tunnel port, as 16 (the unknown option "
    "alone is ignored, as OVS)",
    "20-type-system": NO_KERNEL % "system (kernel) interfaces; OVS: "
    "\"(No such device)\", for a name no kernel device has",
    "21-type-internal": NO_KERNEL % "internal ports but a bridge's own",
    "22-type-patch": NO_KERNEL % "patch ports (one OpenFlow bridge); OVS: "
    "\"patch type requires valid 'peer' argument\"",
    "23-type-patch-peer": NO_KERNEL % "patch ports (one OpenFlow bridge)",
    "24-type-geneve": NO_KERNEL % "geneve tunnels",
    "25-type-tap": NO_KERNEL % "tap ports",
    "27-set-type-unknown": ("ofport numbers: OVS numbered the interfaces "
                            "of the types vxswitch refuses (steps 21-25), "
                            "so its next number is higher", OFPORT_NUMBERS),
    "30-ofport-taken": ("ofport numbers, as 27", OFPORT_NUMBERS),
    "35-state": "the MTU kept after mtu_request is cleared, as 06; ofport "
    "numbers, as 14",
    "33-controller": "ovs-ofctl dump-flows: the channel's flow stats "
    "wait for the rule codec (step 6's part A: OFPBRC_BAD_STAT until "
    "then), the NORMAL flow of fail-mode standalone and Controller "
    "status are step 7 of doc/design-control-plane.md",
}


def accepted(text):
    for pattern, repl, _ in ACCEPTED:
        text = re.sub(pattern, repl, text)
    return text


def test_scenario_against_ovs(ovsdb, make_switch, tmp_path):
    topo = {"eal": {"memory-mb": 256},
            "underlay": {"port": "phy0", "mac": "02:00:00:00:00:01",
                         "local-ip": "192.0.2.1/24"},
            # the underlay is br-phy's in OVS, whose numbers are its
            # own: out of br-int's way here
            "ports": [{"name": "phy0", "type": "null", "ofport": 65000}]}
    make_switch(topo, args=["--ovsdb", "unix:%s" % ovsdb.sock],
                env=dict(os.environ, OVS_RUNDIR=str(ovsdb.dir)))
    runner = sc.Runner("unix:%s" % ovsdb.sock, ovsdb.dir, env=ovsdb.env)
    out = tmp_path / "vxswitch"
    out.mkdir()
    differ, report = {}, []
    for i in range(len(sc.STEPS)):
        name = sc.step_name(i)
        got = sc.run_step(runner, i)
        (out / ("%s.txt" % name)).write_text(got)
        want = accepted((REF / ("%s.txt" % name)).read_text())
        got = accepted(got)
        why = DIFFERENT.get(name)
        if isinstance(why, tuple):      # only what the pattern masks
            want = re.sub(why[1], r"\1: <masked>", want)
            got = re.sub(why[1], r"\1: <masked>", got)
            if got != want:
                report.append("".join(difflib.unified_diff(
                    want.splitlines(True), got.splitlines(True),
                    "ovs-vswitchd/" + name, "vxswitch/" + name)))
                differ[name] = "beyond its pattern"
            continue
        if got != want:
            differ[name] = True
            report.append("".join(difflib.unified_diff(
                want.splitlines(True), got.splitlines(True),
                "ovs-vswitchd/" + name, "vxswitch/" + name)))
    print("\n".join(report))
    unexplained = sorted(n for n in differ
                         if n not in DIFFERENT or differ[n] is not True)
    stale = sorted(n for n in DIFFERENT
                   if n not in differ and not isinstance(DIFFERENT[n],
                                                         tuple))
    assert not unexplained and not stale, (
        "differ, not in DIFFERENT: %s\nin DIFFERENT, but equal: %s\n%s"
        % (unexplained, stale, "\n".join(report)))
