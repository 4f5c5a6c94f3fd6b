# SPDX-License-Identifier: BSD-3-Clause
"""OVS's ct() with recirculation, the fallback to sg() (issue 12): the
same "allow egress, deny ingress" security group as test_sg.py, written
as Neutron's openvswitch firewall driver writes it
(policies/ct_allow_egress.flows: ct(table=T,zone=1), ct_state matches,
ct(commit,zone=1)), on the real-TCP rig. The verdicts it shares with the
sg() policy are test_sg_verdicts.py, run on both. Asserted here:
  - the megaflows of the recirculated passes match recirc_id and
    ct_state as OVS prints them (recirc_id(0x49),ct_state(+est+trk)...),
    and the first pass's megaflow ends in ct(zone=1),recirc(0x49);
  - every packet received ends in one counter (the rig's teardown).
"""

from pathlib import Path

import pytest

from vxswitch_tools import netns_apps as apps
from vxswitch_tools import netns_rig
from vxswitch_tools.netns_rig import OUT_IP

POLICY = Path(__file__).with_name("policies") / "ct_allow_egress.flows"
# the recirc id is the table the packet resumes in + 1 (ct_recirc.c)
RECIRC_72, RECIRC_82 = "recirc_id(0x49)", "recirc_id(0x53)"


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

    text = rig.sw.ctl("dpctl/dump-flows")
    # first pass from the VM: tracked, then recirculated to table 72
    assert "ct(zone=1),recirc(0x49)" in text, text
    # egress, new: committed by table 73's ct(commit,zone=1)
    assert RECIRC_72 + ",in_port(vm1),ct_state(+new-est" in text, text
    assert "ct(commit,zone=1)" in text, text
    # egress, established, original direction (ct_state as OVS prints it)
    assert RECIRC_72 + ",in_port(vm1),ct_state(-new+est" in text, text
    # the replies from the tunnel: recirculated to table 82, +est+rpl
    assert RECIRC_82 + ",in_port(vxlan)" in text, text
    assert "+est-rel+rpl" in text and "ct_zone(0x1)" in text, text
    assert rig.drops() == {}, rig.drops()


def test_recirc_bounded(rig):
    """A ct(table=) loop is cut after 6 recirculations, and a ct(table=)
    whose registers a recirculation would lose is not run differently:
    both drop every packet under recirc_limit (and the teardown's
    accounting holds)."""
    vm = rig.vm(1)
    # resumes in table 0, matches again, recirculates again...
    rig.load_flows(["table=0,priority=10,ip,actions=ct(zone=1,table=0)",
                    "table=0,priority=0,actions=drop"])
    before = rig.drops().get("recirc_limit", 0)
    assert apps.ping(vm.ns, OUT_IP, count=2)["received"] == 0
    assert rig.drops().get("recirc_limit", 0) >= before + 2, rig.drops()
    text = rig.sw.ctl("dpctl/dump-flows")
    # the first pass and one megaflow for each of the recirculated ones
    assert "recirc_id(0x1),in_port(vm1)" in text, text

    rig.load_flows(["table=0,priority=10,ip,actions=load:1->NXM_NX_REG0[],"
                    "resubmit(,1)",
                    "table=1,ip,actions=ct(zone=1,table=2)",
                    "table=2,reg0=1,actions=output:vxlan"])
    before = rig.drops().get("recirc_limit", 0)
    assert apps.ping(vm.ns, OUT_IP, count=2)["received"] == 0
    assert rig.drops().get("recirc_limit", 0) >= before + 2, rig.drops()
    assert "drop(recirc_limit)" in rig.sw.ctl("dpctl/dump-flows")
