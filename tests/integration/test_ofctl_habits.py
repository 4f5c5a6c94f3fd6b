# SPDX-License-Identifier: BSD-3-Clause
"""ovs-ofctl habits (issue 13): the commands an OVS operator types work as
ovs-ofctl's do, on the seed's 2-VM topology with its NIC replaying VXLAN
frames (net_pcap) and its VMs down:
  - BRIDGE arguments: dump-flows/add-flow/add-flows/mod-flows/del-flows
    take the bridge's name (br-int, or datapath: bridge:) and refuse any
    other as ovs-ofctl does ("X is not a bridge or a socket"), changing
    nothing;
  - dump-flows lines in ovs-ofctl's order: cookie, duration, table,
    n_packets, n_bytes, idle_timeout, hard_timeout, idle_age, hard_age
    (only after a modification), then the rule;
  - hard_timeout and idle_timeout remove rules (a rule the NIC's traffic
    keeps hitting outlives its idle timeout);
  - mod-flows changes actions and keeps counters, --strict needs the exact
    match and priority, cookie=V/M selects rules by cookie.
"""
import re
import time

import pytest

from vxswitch_tools import harness as vxlib

LINE = re.compile(
    r"^ cookie=0x[0-9a-f]+, duration=\d+\.\d{3}s, table=\d+, "
    r"n_packets=\d+, n_bytes=\d+, (idle_timeout=\d+, )?(hard_timeout=\d+, )?"
    r"idle_age=\d+, (hard_age=\d+, )?\S")


def start(make_switch, tmp_path, rundir, bridge=None, endless=False):
    rx = tmp_path / "rx.pcap"
    vxlib.gen_traffic(rx, "--nic", "--vms", "2", "--flows", "4",
                      "--count", "40")
    topo = vxlib.load_topology("vxlan-2vm.yaml", VXS_RUN_DIR=rundir,
                               VXS_RX_PCAP=rx,
                               VXS_TX_PCAP=tmp_path / "tx.pcap",
                               VXS_INFINITE_RX=1 if endless else 0)
    if bridge:
        topo["datapath"]["bridge"] = bridge
    return make_switch(topo)


def rules(sw, *args):
    return [l for l in sw.ctl("dump-flows", *args).splitlines() if l]


def fails(sw, *args):
    r = sw.ctl_result(*args)
    assert r.returncode == 1, (args, r)
    return r.stdout + r.stderr


def test_bridge_arguments(make_switch, tmp_path, rundir):
    sw = start(make_switch, tmp_path, rundir)
    all_rules = rules(sw)
    assert len(all_rules) == 6 and all(LINE.match(l) for l in all_rules), \
        all_rules
    # the same rules (their durations run on between the two dumps)
    assert len(rules(sw, "br-int")) == 6
    two = rules(sw, "br-int", "in_port=vxlan,ip")
    assert len(two) == 2 and all("ip,in_port=vxlan" in l for l in two), two
    for cmd in (["dump-flows", "br-foo"],
                ["dump-flows", "br-foo", "in_port=vxlan"],
                ["add-flow", "br-foo", "priority=5,actions=drop"],
                ["del-flows", "br-foo"],
                ["mod-flows", "br-foo", "in_port=vxlan,actions=drop"],
                ["del-flows", "--strict", "br-foo", "priority=5"]):
        assert "br-foo is not a bridge or a socket" in fails(sw, *cmd), cmd
    assert len(rules(sw)) == 6          # nothing changed
    sw.ctl("add-flow", "br-int", "priority=5,in_port=vxlan,udp,actions=drop")
    assert len(rules(sw)) == 7
    f = tmp_path / "more.flows"
    f.write_text("priority=6,in_port=vxlan,tcp,actions=drop\n")
    assert "1 flows added" in sw.ctl("add-flows", "br-int", str(f))
    assert "br-x is not a bridge" in fails(sw, "add-flows", "br-x", str(f))
    assert "1 flows deleted" in sw.ctl("del-flows", "br-int",
                                       "in_port=vxlan,udp")
    # --strict: the exact match and priority, or nothing
    assert "0 flows deleted" in sw.ctl("del-flows", "--strict", "br-int",
                                       "in_port=vxlan,tcp")
    assert "1 flows deleted" in sw.ctl("del-flows", "--strict", "br-int",
                                       "priority=6,in_port=vxlan,tcp")
    assert len(rules(sw)) == 6


def test_configured_bridge_name(make_switch, tmp_path, rundir):
    sw = start(make_switch, tmp_path, rundir, bridge="br-ovl")
    assert len(rules(sw, "br-ovl")) == 6
    err = fails(sw, "dump-flows", "br-int")
    assert "br-int is not a bridge or a socket" in err and \
        "this switch's bridge is br-ovl" in err, err
    # save-config keeps it, and a rule's cookie and timeouts
    sw.ctl("add-flow", "br-ovl", "cookie=0x7,idle_timeout=300,hard_timeout="
           "600,priority=3,in_port=vxlan,tcp,actions=drop")
    out = tmp_path / "saved.yaml"
    sw.ctl("save-config", str(out))
    text = out.read_text()
    assert "bridge: br-ovl" in text, text
    assert "cookie=0x7,idle_timeout=300,hard_timeout=600,priority=3,tcp," \
        "in_port=vxlan actions=drop" in text, text


def test_timeouts_and_ages(make_switch, tmp_path, rundir):
    sw = start(make_switch, tmp_path, rundir, endless=True)
    # the NIC's frames to 192.1.0.1 keep hitting the first rule; nothing
    # hits the other two
    sw.ctl("add-flow", "br-int", "priority=40000,idle_timeout=2,in_port=vxlan,"
           "ip,nw_dst=192.1.0.1,actions=output:vhost-user1")
    sw.ctl("add-flow", "br-int", "priority=40000,idle_timeout=2,in_port=vxlan,"
           "ip,nw_dst=192.1.9.9,actions=drop")
    sw.ctl("add-flow", "br-int", "cookie=0x12,priority=40000,hard_timeout=3,"
           "in_port=vxlan,ip,nw_dst=192.1.9.8,actions=drop")
    text = sw.ctl("dump-flows", "br-int", "cookie=0x12/-1")
    assert re.match(r"^ cookie=0x12, duration=\d\.\d{3}s, table=0, "
                    r"n_packets=0, n_bytes=0, hard_timeout=3, idle_age=\d, "
                    r"priority=40000,ip,in_port=vxlan,nw_dst=192\.1\.9\.8 "
                    r"actions=drop$", text), text
    time.sleep(4.5)
    left = "\n".join(rules(sw))
    assert "nw_dst=192.1.0.1 actions=output:vhost-user1" in left, left
    assert "192.1.9.9" not in left and "192.1.9.8" not in left, left
    hot = [l for l in rules(sw) if "priority=40000" in l]
    assert len(hot) == 1 and re.search(r"idle_timeout=2, idle_age=[01], ",
                                       hot[0]), hot
    # mod-flows: new actions, counters kept, hard_age appears
    before = int(re.search(r"n_packets=(\d+)", hot[0]).group(1))
    assert before > 0
    assert "0 flows modified" in sw.ctl(
        "mod-flows", "--strict", "br-int",
        "priority=39999,in_port=vxlan,ip,nw_dst=192.1.0.1,actions=drop")
    assert "1 flows modified" in sw.ctl(
        "mod-flows", "--strict", "br-int", "priority=40000,in_port=vxlan,ip,"
        "nw_dst=192.1.0.1,actions=output:vhost-user0")
    time.sleep(1.2)
    hot = [l for l in rules(sw) if "priority=40000" in l]
    assert "actions=output:vhost-user0" in hot[0], hot
    assert int(re.search(r"n_packets=(\d+)", hot[0]).group(1)) >= before
    assert re.search(r"idle_age=\d+, hard_age=\d+, ", hot[0]), hot


def test_cookie_masks(make_switch, tmp_path, rundir):
    sw = start(make_switch, tmp_path, rundir)
    for c, ip in ((0x110, "10.0.0.1"), (0x120, "10.0.0.2"),
                  (0x210, "10.0.0.3")):
        sw.ctl("add-flow", "cookie=%#x,priority=9,in_port=vxlan,ip,"
               "nw_dst=%s,actions=drop" % (c, ip))
    assert len(rules(sw, "cookie=0x100/0xf00")) == 2
    assert len(rules(sw, "cookie=0x120")) == 1
    assert "cookie: a mask is for" in fails(
        sw, "add-flow", "cookie=1/1,actions=drop")
    # mod-flows with a cookie and no mask sets it
    assert "2 flows modified" in sw.ctl(
        "mod-flows", "cookie=0x100/0xf00,actions=drop")
    assert "1 flows modified" in sw.ctl(
        "mod-flows", "--strict", "priority=9,in_port=vxlan,ip,"
        "nw_dst=10.0.0.3,cookie=0x999,actions=drop")
    assert len(rules(sw, "cookie=0x999")) == 1
    assert rules(sw, "cookie=0x210") == []
    assert "2 flows deleted" in sw.ctl("del-flows", "br-int",
                                       "cookie=0x100/0xf00")
    assert len(rules(sw, "cookie=0x999/-1")) == 1
    assert len(rules(sw)) == 7
