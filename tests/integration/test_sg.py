# SPDX-License-Identifier: BSD-3-Clause
"""Stateful security groups in one pass (issue 12, seed 003): the sg()
action and the session table, on the real-TCP rig (two VMs as network
namespaces on the switch, the kernel's VXLAN device outside).

The policy is tests/integration/policies/sg_allow_egress.flows: "allow
egress, deny ingress" on both VMs. Asserted with real stacks:
  - what the VM opens works both ways: TCP (sha256 of the data at both
    ends), UDP echo, ping; the sessions show in dpctl/dump-conntrack;
  - what the outside opens to a VM is refused: TCP connect times out,
    ping is lost; each dropped frame is counted as sg_deny;
  - VM to VM is denied both ways (each VM's ingress denies it);
  - a RST ends a session, and flush-conntrack forgets them: the outside's
    replies to a forgotten session are then denied;
  - every packet received ends in one counter (the rig's teardown);
  - /vxswitch/ct_stats (DPDK telemetry) agrees with dpctl/ct-stats-show.
"""

import re
import time
from pathlib import Path

import pytest

from vxswitch_tools import netns_apps as apps
from vxswitch_tools import netns_rig
from vxswitch_tools.netns_rig import OUT_IP

from test_robustness import telemetry

POLICY = Path(__file__).with_name("policies") / "sg_allow_egress.flows"
MB = 1024 * 1024


@pytest.fixture
def rig(request, make_switch):
    yield from netns_rig.for_test(request, make_switch, policy=POLICY)


def drops(rig):
    return rig.drops()


def conns(rig):
    return [l for l in rig.sw.ctl("dpctl/dump-conntrack").splitlines() if l]


def test_egress_allowed_ingress_denied(rig):
    vm = rig.vm(1)
    out = rig.out_ns
    # egress: the VM opens, the replies come back through sg(deny)
    p = apps.ping(vm.ns, OUT_IP, count=3)
    assert p["received"] == 3, p["output"]
    r = apps.tcp_transfer(vm.ns, out, OUT_IP, 2 * MB, direction="download")
    assert r  # sha256 compared at both ends by the helper
    r = apps.tcp_transfer(vm.ns, out, OUT_IP, 2 * MB, direction="upload")
    u = apps.udp_echo(vm.ns, out, OUT_IP, count=10, size=500)
    assert u["received"] == 10, u
    dump = conns(rig)
    assert any(l.startswith("icmp,orig=(src=%s,dst=%s" % (vm.ip, OUT_IP))
               for l in dump), dump
    assert any(l.startswith("udp,orig=(src=%s,dst=%s" % (vm.ip, OUT_IP))
               and "zone=1" in l for l in dump), dump
    assert drops(rig).get("sg_deny", 0) == 0, drops(rig)

    # ingress: the outside opens, sg(deny) drops what has no session
    before = drops(rig).get("sg_deny", 0)
    c = apps.tcp_connect(out, vm.ip, 5555, timeout=2)
    assert c["result"] == "timeout", c
    p = apps.ping(out, vm.ip, count=3)
    assert p["received"] == 0, p["output"]
    # the SYN (and its retransmits) and the three echo requests
    assert drops(rig).get("sg_deny", 0) >= before + 4, drops(rig)
    st = rig.sw.ctl("dpctl/ct-stats-show", json=True)
    assert st["n_conns"] == len(conns(rig)) and st["created"] >= 4, st


def test_vm_to_vm_denied(rig):
    a, b = rig.vm(1), rig.vm(2)
    before = drops(rig).get("sg_deny", 0)
    assert apps.ping(a.ns, b.ip, count=2)["received"] == 0
    c = apps.tcp_connect(a.ns, b.ip, 5556, timeout=1.5)
    assert c["result"] == "timeout", c
    assert drops(rig).get("sg_deny", 0) >= before + 3, drops(rig)


def test_flush_forgets_sessions(rig):
    vm = rig.vm(1)
    out = rig.out_ns
    with apps.TcpSession(vm.ns, out, OUT_IP, port=5010) as s:
        assert s.connected, s.error
        assert s.send(1000)
        assert any("dport=5010" in l and "ESTABLISHED" in l
                   for l in conns(rig)), conns(rig)
        rig.sw.ctl("dpctl/flush-conntrack")
        assert conns(rig) == []
        before = drops(rig).get("sg_deny", 0)
        # the VM's next segment is sg(allow): a mid-stream ACK opens a
        # session again (as OVS's tracker), so the echo goes on
        assert s.send(1000)
        assert drops(rig).get("sg_deny", 0) == before
    assert rig.sw.ctl("dpctl/ct-get-nconns").strip().isdigit()


def test_limits_refuse_and_count(rig):
    vm = rig.vm(1)
    out = rig.out_ns
    rig.sw.ctl("dpctl/ct-set-limits", "zone=1,limit=1")
    assert "zone=1,limit=1,count=" in rig.sw.ctl("dpctl/ct-get-limits",
                                                  "zone=1")
    assert apps.ping(vm.ns, OUT_IP, count=2)["received"] == 2
    # the second session is refused in zone 1: its SYN passes (sg(allow)
    # lets a new packet by) but no session holds the reply, which sg(deny)
    # drops
    before = drops(rig).get("sg_deny", 0)
    c = apps.tcp_connect(vm.ns, OUT_IP, 5011, timeout=1.5)
    assert c["result"] in ("timeout", "refused"), c
    st = rig.sw.ctl("dpctl/ct-stats-show", json=True)
    assert st["refused_zone_limit"] >= 1, st
    assert drops(rig).get("sg_deny", 0) > before, drops(rig)


def test_telemetry_ct_stats(rig):
    """/vxswitch/ct_stats (dpdk-telemetry.py) says what dpctl/ct-stats-show
    --json says, after sessions were created, refused and walked."""
    vm = rig.vm(1)
    rig.sw.ctl("dpctl/ct-set-limits", "zone=1,limit=1")
    assert apps.ping(vm.ns, OUT_IP, count=2)["received"] == 2
    # refused: zone 1 holds one session already
    c = apps.tcp_connect(vm.ns, OUT_IP, 5012, timeout=1.5)
    assert c["result"] in ("timeout", "refused"), c
    ctl = rig.sw.ctl("dpctl/ct-stats-show", json=True)
    tel, bad = telemetry(rig.sw.prefix, "/vxswitch/ct_stats",
                         "/vxswitch/ct_stats,1")
    tel = tel["/vxswitch/ct_stats"]
    assert tel == ctl, (tel, ctl)
    assert tel["created"] >= 1 and tel["n_icmp"] == 1, tel
    assert tel["refused_zone_limit"] >= 1 and tel["max_conns"] > 0, tel
    assert bad == {"/vxswitch/ct_stats": None}, bad
