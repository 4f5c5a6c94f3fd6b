# SPDX-License-Identifier: BSD-3-Clause
"""Stateful security groups in one pass (issue 12, seed 003): the sg()
action and the session table, on the real-TCP rig (two VMs as network
namespaces on the switch, the kernel's VXLAN device outside).

The policy is tests/integration/policies/sg_allow_egress.flows: "allow
egress, deny ingress" on both VMs. The verdicts it shares with the ct()
form of the same policy (egress works both ways, ingress and VM to VM
refused, RST/FIN close, expiry, exact drop counts) are test_sg_verdicts.py,
run on both. Asserted here, with real stacks:
  - flush-conntrack forgets the sessions: the VM's next segment opens
    one again (mid-stream pick-up, as OVS);
  - per-zone limits refuse sessions and count the refusals: sg(allow)
    drops what it cannot commit (sg_refused);
  - every packet received ends in one counter (the rig's teardown);
  - /vxswitch/ct_stats (DPDK telemetry) agrees with dpctl/ct-stats-show.
"""

from pathlib import Path

import pytest

from vxswitch_tools import netns_apps as apps
from vxswitch_tools import netns_rig
from vxswitch_tools.harness import telemetry
from vxswitch_tools.netns_rig import OUT_IP

POLICY = Path(__file__).with_name("policies") / "sg_allow_egress.flows"


@pytest.fixture
def rig(request, make_switch):
    yield from netns_rig.for_test(request, make_switch, policy=POLICY)


def drops(rig):
    return rig.drops()


def conns(rig):
    return [l for l in rig.sw.ctl("dpctl/dump-conntrack").splitlines() if l]


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


def test_flush_by_tuple(rig):
    """flush-conntrack with OVS 3.1's ct tuples: only the sessions whose
    original (and reply) tuple has every field given go; a bad field is
    refused by name and nothing is flushed."""
    vm = rig.vm(1)
    for sport in (7001, 7002, 7003):
        apps.udp_send(vm.ns, sport, OUT_IP, 9000)
    udp = lambda: sorted(l for l in conns(rig) if l.startswith("udp,"))
    assert len(udp()) == 3, conns(rig)
    for bad in ("ct_nw_src=300.1.1.1", "ct_tp_src=70000", "frob=1",
                "ct_nw_proto"):
        r = rig.sw.ctl("dpctl/flush-conntrack", "zone=1", bad, check=False)
        assert rig.sw.last_ctl.returncode != 0, (bad, r)
    assert len(udp()) == 3, udp()
    rig.sw.ctl("dpctl/flush-conntrack", "zone=1",
               "ct_nw_src=%s,ct_nw_proto=17,ct_tp_src=7001" % vm.ip)
    left = udp()
    assert len(left) == 2 and not any("sport=7001," in l for l in left), left
    # a reply tuple: the session whose replies go to port 7002
    rig.sw.ctl("dpctl/flush-conntrack", "ct_nw_proto=17", "ct_tp_dst=7002")
    left = udp()
    assert len(left) == 1 and "sport=7003," in left[0], left
    # another zone: nothing
    rig.sw.ctl("dpctl/flush-conntrack", "zone=2", "ct_nw_proto=17")
    assert len(udp()) == 1, udp()


def test_limits_refuse_and_count(rig):
    vm = rig.vm(1)
    out = rig.out_ns
    rig.sw.ctl("dpctl/ct-set-limits", "zone=1,limit=1")
    assert "zone=1,limit=1,count=" in rig.sw.ctl("dpctl/ct-get-limits",
                                                  "zone=1")
    assert apps.ping(vm.ns, OUT_IP, count=2)["received"] == 2
    # the second session is refused in zone 1: sg(allow) cannot commit
    # it, so its SYN (and each retransmission) is dropped, sg_refused,
    # and the outside never sees it
    before = drops(rig).get("sg_refused", 0)
    c = apps.tcp_connect(vm.ns, OUT_IP, 5011, timeout=1.5)
    assert c["result"] == "timeout", c
    st = rig.sw.ctl("dpctl/ct-stats-show", json=True)
    assert st["refused_zone_limit"] >= 1, st
    refused = drops(rig).get("sg_refused", 0) - before
    assert refused == st["refused_zone_limit"], (refused, st)
    # ct-del-limits: zone 1 back to the default limit, which is an eighth
    # of ct-max-conns unless the topology says else (no zone fills the
    # table for all); then the connection is admitted
    rig.sw.ctl("dpctl/ct-del-limits", "zone=1,7")
    maxc = int(rig.sw.ctl("dpctl/ct-get-maxconns").strip())
    lim = rig.sw.ctl("dpctl/ct-get-limits", "zone=1")
    assert lim.startswith("default limit=%d\n" % (maxc // 8)), lim
    assert "zone=1,limit=%d,count=" % (maxc // 8) in lim, lim
    for bad in ("zone=", "zone=1,,2", "zone=70000", "zones=1"):
        r = rig.sw.ctl("dpctl/ct-del-limits", bad, check=False)
        assert rig.sw.last_ctl.returncode != 0, (bad, r)
    c = apps.tcp_connect(vm.ns, OUT_IP, 5011, timeout=1.5)
    assert c["result"] in ("connected", "refused"), c


def test_zone_timeout_policy_commands(rig):
    """add-zone-tp / del-zone-tp / list-zone-tp (ovs-vsctl's names; what
    the policies do to sessions: test_sg_verdicts.py): bad input refused
    with a reason, at most 15 zones with a policy of their own."""
    def refused(*args):
        r = rig.sw.ctl(*args, check=False)
        assert rig.sw.last_ctl.returncode != 0, (args, r)
        return rig.sw.last_ctl.stdout + rig.sw.last_ctl.stderr
    assert "udp_multiple" in refused("add-zone-tp", "zone=1", "tcp_bogus=3")
    assert "bad zone" in refused("add-zone-tp", "zone=70000")
    assert "bad" in refused("add-zone-tp", "zone=1", "tcp_close=-1")
    assert "missing" in refused("add-zone-tp", "netdev@ovs-netdev")
    assert "no timeout policy" in refused("del-zone-tp", "zone=9")
    assert rig.sw.ctl("list-zone-tp") == ""
    # OVS's defaults for the attributes not named; the DP name is taken
    rig.sw.ctl("add-zone-tp", "netdev@ovs-netdev", "zone=1", "udp_first=5")
    assert rig.sw.ctl("list-zone-tp").strip() == (
        "Zone:1, Timeout Policies: tcp_syn_sent=30 tcp_syn_recv=30 "
        "tcp_established=86400 tcp_fin_wait=900 tcp_time_wait=45 "
        "tcp_close=30 udp_first=5 udp_single=60 udp_multiple=30 "
        "icmp_first=60 icmp_reply=30")
    rig.sw.ctl("add-zone-tp", "zone=1", "udp_first=7")     # replaced
    for z in range(2, 16):
        rig.sw.ctl("add-zone-tp", "zone=%d" % z, "icmp_first=%d" % z)
    assert len(rig.sw.ctl("list-zone-tp").splitlines()) == 15
    assert "no room" in refused("add-zone-tp", "zone=16")
    rig.sw.ctl("del-zone-tp", "zone=2")
    rig.sw.ctl("add-zone-tp", "zone=16")
    lines = rig.sw.ctl("list-zone-tp").splitlines()
    assert len(lines) == 15 and "Zone:2," not in "\n".join(lines), lines
    assert any(ln.startswith("Zone:1,") and " udp_first=7 " in ln
               for ln in lines), lines


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
    # the text is OVS 3.1's dpctl_ct_stats_show, line for line; -m adds
    # the per-state lines and then vxswitch's own counters
    n = ctl["n_conns"]
    text = rig.sw.ctl("dpctl/ct-stats-show")
    assert text.startswith("Connections Stats:\n    Total: %d\n" % n), text
    assert "  ICMP: 1\n" in text and "Created" not in text, text
    more = rig.sw.ctl("dpctl/ct-stats-show", "-m")
    assert more.startswith(text) and "Created: " in more, more
