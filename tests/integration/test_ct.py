# SPDX-License-Identifier: BSD-3-Clause
"""OVS's ct() with recirculation, the fallback to sg() (issue 12): the
same "allow egress, deny ingress" security group as test_sg.py, written
as Neutron's openvswitch firewall driver writes it
(policies/ct_allow_egress.flows: ct(table=T,zone=1), ct_state matches,
ct(commit,zone=1)), on the real-TCP rig. The verdicts it shares with the
sg() policy are test_sg_verdicts.py, run on both. Asserted here:
  - the megaflows of the recirculated passes match recirc_id and
    ct_state as OVS prints them (recirc_id(0x1),ct_state(+est+trk)...),
    and the first pass's megaflow ends in ct(zone=1),recirc(0x1), the
    id of the state it froze (recirc_id.h);
  - every packet received ends in one counter (the rig's teardown).
"""

import re
from pathlib import Path

import pytest

from vxswitch_tools import netns_apps as apps
from vxswitch_tools import netns_rig
from vxswitch_tools.netns_rig import OUT_IP

POLICY = Path(__file__).with_name("policies") / "ct_allow_egress.flows"


def recirc_ids(text, in_port):
    """The recirc ids the first-pass megaflows from in_port recirculate
    with (allocated per frozen state: recirc_id.h), from dpctl/dump-flows
    --names (OVS's key order: tunnel, ct_*, recirc_id, in_port)."""
    return {m.group(1) for m in re.finditer(
        r"^(?:tunnel\([^)]*\),)?(?:ct_\w+\([^)]*\),)*recirc_id\(0\),"
        r"in_port\(%s\)\S*, .*"
        r"recirc\((0x[0-9a-f]+)\)" % in_port, text, re.M)}


@pytest.fixture
def rig(request, make_switch):
    yield from netns_rig.for_test(request, make_switch, policy=POLICY)


def test_recirculated_megaflows(rig):
    vm = rig.vm(1)
    out = rig.out_ns
    p = apps.ping(vm.ns, OUT_IP, count=2)
    assert p["received"] == 2, p["output"]
    assert apps.tcp_transfer(vm.ns, out, OUT_IP, 256 * 1024,
                             direction="download")
    u = apps.udp_echo(vm.ns, out, OUT_IP, count=3, size=500)
    assert u["received"] == 3, u

    text = rig.sw.ctl("dpctl/dump-flows", "--names")
    # first pass from the VM: tracked, then recirculated to table 72
    (rid72,) = recirc_ids(text, "vm1")
    (rid82,) = recirc_ids(text, "vxlan")
    RECIRC_72, RECIRC_82 = "recirc_id(%s)" % rid72, "recirc_id(%s)" % rid82
    assert "ct(zone=1),recirc(%s)" % rid72 in text, text
    # egress, new: committed by table 73's ct(commit,zone=1) (OVS's key
    # order: the ct fields before recirc_id)
    assert re.search(r"ct_state\(\+new-est[^)]*\)\S*,%s,in_port\(vm1\)"
                     % re.escape(RECIRC_72), text), text
    assert "ct(commit,zone=1)" in text, text
    # egress, established, original direction (ct_state as OVS prints it)
    assert re.search(r"ct_state\(-new\+est[^)]*\)\S*,%s,in_port\(vm1\)"
                     % re.escape(RECIRC_72), text), text
    # the replies from the tunnel: recirculated to table 82, +est+rpl
    assert RECIRC_82 + ",in_port(vxlan)" in text, text
    assert "+est-rel+rpl" in text and "ct_zone(0x1)" in text, text
    assert rig.drops() == {}, rig.drops()

    # passes, as OVS counts them: every IP packet from the VM takes a
    # ct(table=) recirculation, every one from the tunnel an inner pass
    # and one: more than 1.9 passes a packet (sg(), test_sg, stays at 1
    # from the VM and 2 from the tunnel)
    st = rig.sw.ctl("dpif-netdev/pmd-stats-show", json=True)
    rx = sum(p["packets"] for p in st)
    rc = sum(p["recirculations"] for p in st)
    assert rc > 0.9 * rx, (rx, rc)
    text = rig.sw.ctl("dpif-netdev/pmd-stats-show")
    passes = [float(ln.split(":")[1]) for ln in text.splitlines()
              if "avg. datapath passes per packet" in ln]
    assert passes and max(passes) > 1.9, text


def test_recirc_bounded(rig):
    """A ct(table=) loop is cut after 6 recirculations: every packet
    drops under recirc_limit (and the teardown's accounting holds); the
    recirc id it freezes is freed with the megaflows. A ct(table=) with
    actions after it drops under recirc_limit too."""
    vm = rig.vm(1)
    # resumes in table 0, matches again, recirculates again...
    rig.load_flows(["table=0,priority=10,ip,actions=ct(zone=1,table=0)",
                    "table=0,priority=0,actions=drop"])
    before = rig.drops().get("recirc_limit", 0)
    assert apps.ping(vm.ns, OUT_IP, count=2)["received"] == 0
    assert rig.drops().get("recirc_limit", 0) >= before + 2, rig.drops()
    text = rig.sw.ctl("dpctl/dump-flows", "--names")
    # the first pass and one megaflow for each of the recirculated ones,
    # all with the one id of the one frozen state (table 0, no registers)
    (rid,) = recirc_ids(text, "vm1")
    assert "recirc_id(%s),in_port(vm1)" % rid in text, text
    assert rig.sw.ctl("limits/show", json=True)["recirc-ids"]["entries"] \
        >= 1
    rig.sw.ctl("dpctl/del-flows")
    assert rig.sw.ctl("limits/show", json=True)["recirc-ids"]["entries"] \
        == 0

    # actions after a ct(table=) (OVS runs them on an untracked copy):
    # not run differently, dropped
    rig.load_flows(["table=0,priority=10,ip,actions=ct(zone=1,table=1),"
                    "output:vxlan",
                    "table=1,actions=output:vxlan"])
    before = rig.drops().get("recirc_limit", 0)
    assert apps.ping(vm.ns, OUT_IP, count=2)["received"] == 0
    assert rig.drops().get("recirc_limit", 0) >= before + 2, rig.drops()
    assert "drop(recirc_limit)" in rig.sw.ctl("dpctl/dump-flows")
    # and its frozen state is given back at once
    assert rig.sw.ctl("limits/show", json=True)["recirc-ids"]["entries"] \
        == 0
