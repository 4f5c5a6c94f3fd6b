# SPDX-License-Identifier: BSD-3-Clause
"""Rules through the OpenFlow channel (app/control/of_flows.c) with
Debian's plain ovs-ofctl, as an operator or a controller sends them:

- tests/integration/ovs_ref/flowmod/steps.txt, the 23 `ovs-ofctl -O
  OpenFlow15` commands make-ovs-ref-flowmod.sh ran against Debian's
  ovs-vswitchd, now run with the same ovs-ofctl against vxswitch's
  br-int.mgmt: every step's output (OVS's OFPT_ERROR text included, xids
  and all), its exit status and the `dump-flows --no-stats` after it must
  equal the reference's (test_flowmod_ref.py replays the same steps
  through vxswitch-ctl);
- every add-flow of ovs_ref/openflow/flows.txt, in OpenFlow 1.0, 1.3 and
  1.5, makes the same rule as `vxswitch-ctl add-flow` of the same text
  (one rule table, one flow_mod path), and ovs-ofctl's dump-flows
  through the channel prints what vxswitch-ctl's prints;
- dump-aggregate by filter, dump-flows with its statistics;
- refusals: a buffer_id, a flow_mod past max-flows, an action with no
  datapath form: OVS's error, nothing changed, the switch answering.
"""
import os
import re
import subprocess
from pathlib import Path

import pytest

from vxswitch_tools import harness as vxlib

HERE = Path(__file__).resolve().parent
STEPS = HERE / "ovs_ref" / "flowmod" / "steps.txt"
REFERENCE = HERE / "ovs_ref" / "flowmod" / "reference.txt"
FLOWS = HERE / "ovs_ref" / "openflow" / "flows.txt"
VERSIONS = ("OpenFlow10", "OpenFlow13", "OpenFlow15")


def ofctl(sw, *args, check=False, timeout=20):
    r = subprocess.run(["ovs-ofctl"] + list(args), capture_output=True,
                       text=True, timeout=timeout,
                       env=dict(os.environ, OVS_RUNDIR=str(sw.rundir)))
    if check:
        assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r


def topology(max_flows=None):
    topo = {"eal": {"memory-mb": 256},
            "ports": [{"name": "p1", "type": "null", "ofport": 1},
                      {"name": "p2", "type": "null", "ofport": 2}]}
    if max_flows:
        topo["datapath"] = {"max-flows": max_flows}
    return topo


def started(make_switch, **kw):
    sw = make_switch(topology(**kw))
    vxlib.wait_for(lambda: (sw.rundir / "br-int.mgmt").exists(), 10, 0.05,
                   "br-int.mgmt")
    return sw


def dump_no_stats(sw, version="OpenFlow15"):
    r = ofctl(sw, "-O", version, "--no-names", "dump-flows", "--no-stats",
              "br-int", check=True)
    return sorted(l for l in r.stdout.splitlines() if l.startswith(" "))


def test_flowmod_steps_against_ovs(make_switch):
    """make-ovs-ref-flowmod.sh's loop, word for word, against vxswitch."""
    sw = started(make_switch)
    out = []
    for line in STEPS.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        w = line.split()
        cmd, args = w[0], w[1:]
        strict = []
        if args and args[0] == "--strict":
            strict, args = ["--strict"], args[1:]
        out.append("## " + line)
        r = ofctl(sw, "-O", "OpenFlow15", cmd, *strict, "br-int", *args)
        out.extend((r.stdout + r.stderr).splitlines())
        out.append("exit %d" % r.returncode)
        out.extend(dump_no_stats(sw))
    ours, theirs = "\n".join(out) + "\n", REFERENCE.read_text()
    assert ours == theirs, "\n".join(
        "%s\n  ours:   %s\n  theirs: %s" % (i, a, b)
        for i, (a, b) in enumerate(zip(ours.splitlines(),
                                       theirs.splitlines())) if a != b)
    s = sw.ctl("openflow/show", json=True)
    assert s["counters"]["flow_mods"] >= 20, s["counters"]
    assert s["counters"]["flow_mods_refused"] == 1, s["counters"]


def added_flows():
    """flows.txt's add-flow lines for version v: (text)"""
    for line in FLOWS.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        vers = None
        if line.startswith("@"):
            tag, line = line.split(None, 1)
            vers = ["OpenFlow1%s" % v[-1] for v in tag[1:].split(",")]
        w = line.split(None, 1)
        if w[0] == "add-flow":
            yield vers, w[1]


def our_dump(sw):
    out = sw.ctl("dump-flows", "--no-stats")
    return sorted(l for l in out.splitlines() if l.startswith(" "))


@pytest.mark.parametrize("version", VERSIONS)
def test_same_rule_either_way(make_switch, version):
    """Each flow added with ovs-ofctl is the rule vxswitch-ctl makes of
    its text, and the channel's dump-flows prints vxswitch-ctl's."""
    sw = started(make_switch)
    checked = 0
    for vers, flow in added_flows():
        if vers and version not in vers:
            continue
        if version == "OpenFlow10" and ("goto_table" in flow or
                                        "reset_counts" in flow or
                                        "set_field" in flow):
            # 1.0 has none: ovs-ofctl sends resubmit, a reset always,
            # and NXAST_REG_LOAD, which OVS too prints back as load
            continue
        ofctl(sw, "-O", version, "add-flow", "br-int", flow, check=True)
        via_of = our_dump(sw)
        if version == "OpenFlow10":
            # OVS's 1.0 add always asks reset_counts (ofp-flow.c), and
            # keeps the flag: ovs-vswitchd's dump shows it too
            via_of = [l.replace(" reset_counts", "", 1) for l in via_of]
        ofctl_text = dump_no_stats(sw, version)
        sw.ctl("del-flows")
        sw.ctl("add-flow", flow)
        via_ctl = our_dump(sw)
        sw.ctl("del-flows")
        assert via_of == via_ctl, (version, flow, via_of, via_ctl)
        assert len(ofctl_text) == 1, (flow, ofctl_text)
        checked += 1
    assert checked >= (30 if version == "OpenFlow10" else 40), checked


def test_aggregate_and_stats(make_switch):
    """dump-aggregate counts the rules a filter selects; dump-flows with
    statistics carries OVS's duration and the counters."""
    sw = started(make_switch)
    ofctl(sw, "-O", "OpenFlow13", "add-flow", "br-int",
          "cookie=0x7,priority=5,actions=drop", check=True)
    ofctl(sw, "-O", "OpenFlow13", "add-flow", "br-int",
          "table=3,priority=5,ip,actions=output:2", check=True)
    r = ofctl(sw, "-O", "OpenFlow13", "dump-aggregate", "br-int",
              check=True)
    assert "flow_count=2" in r.stdout, r.stdout
    r = ofctl(sw, "-O", "OpenFlow13", "dump-aggregate", "br-int",
              "table=3", check=True)
    assert "flow_count=1" in r.stdout, r.stdout
    r = ofctl(sw, "-O", "OpenFlow15", "dump-flows", "br-int", check=True)
    lines = [l for l in r.stdout.splitlines() if l.startswith(" ")]
    assert len(lines) == 2, r.stdout
    assert all(re.search(r"duration=\d+\.\d+s, ", l) for l in lines), lines
    assert all("n_packets=0, n_bytes=0" in l for l in lines), lines


def test_refusals(make_switch):
    """OVS's errors, nothing changed, the channel still answering."""
    sw = started(make_switch, max_flows=4)
    for i in range(4):
        ofctl(sw, "-O", "OpenFlow13", "add-flow", "br-int",
              "priority=%d,actions=drop" % (10 + i), check=True)
    r = ofctl(sw, "-O", "OpenFlow13", "add-flow", "br-int",
              "priority=99,actions=drop")
    assert r.returncode != 0 and "OFPFMFC_TABLE_FULL" in r.stderr, r
    # a replacing add is not a new rule: taken
    ofctl(sw, "-O", "OpenFlow13", "add-flow", "br-int",
          "priority=10,actions=output:1", check=True)
    # what vxswitch has no datapath form for: OVS's error for it
    r = ofctl(sw, "-O", "OpenFlow13", "add-flow", "br-int",
              "priority=10,actions=learn(table=1)")
    assert r.returncode != 0, r
    assert len(dump_no_stats(sw)) == 4
    assert " priority=10 actions=output:1" in dump_no_stats(sw)
    r = ofctl(sw, "-O", "OpenFlow13", "del-flows", "br-int", check=True)
    assert dump_no_stats(sw) == []


def test_flow_mods_publish_in_bursts(make_switch, tmp_path):
    """ovs-ofctl add-flows sends each flow_mod with its barrier: the rule
    table takes each at once, the PMDs' snapshot follows within
    OFPROTO_HOLD_MAX_MS (10 ms) and the control loop's 20 ms poll, one
    publish for many flow_mods, not one each; the whole table comes
    back in one ovs-ofctl dump-flows."""
    sw = started(make_switch)
    flows = tmp_path / "flows.txt"
    flows.write_text("".join("priority=%d,ip,nw_dst=10.0.%d.%d,"
                             "actions=drop\n" % (10 + i % 7, i >> 8,
                                                 i & 255)
                             for i in range(5000)))
    before = sw.ctl("limits/show", json=True)["publishes"]
    ofctl(sw, "-O", "OpenFlow15", "add-flows", "br-int", str(flows),
          check=True)
    # every rule in the table as soon as ovs-ofctl returns, and in one
    # flow dump through the channel (past OF_CHAN_TX_MAX: one reply is
    # queued whole)
    assert len(our_dump(sw)) == 5000
    assert len(dump_no_stats(sw)) == 5000
    vxlib.wait_for(lambda: sw.ctl("limits/show", json=True)["publishes"]
                   > before, 1.0, 0.01, "a publish after the flow_mods")
    grown = sw.ctl("limits/show", json=True)["publishes"] - before
    assert grown < 5000 // 4, grown
