# SPDX-License-Identifier: BSD-3-Clause
"""One security group, "allow egress, deny ingress", written twice: with
the seed's sg() (policies/sg_allow_egress.flows, one pass) and as
Neutron's openvswitch firewall driver writes it with ct() and ct_state
(policies/ct_allow_egress.flows, recirculation). Every test here runs on
both, on the real-TCP rig (netns_rig.py: VMs are namespaces on net_tap
ports, the outside is the kernel's VXLAN device), and asserts the same
verdicts; only the drop counter's name differs: a packet sg() refuses
counts as sg_deny (no session) or sg_invalid (+inv), one the ct() rules
drop counts as rule_drop (Neutron's table 93).

  test_egress_both_ways: what the VM opens works both ways (TCP
    transfers with sha256 at both ends, UDP echo, ping; the ICMP port
    unreachable of a datagram to a closed port), its sessions are
    in zone 1 of dpctl/dump-conntrack, and not one packet was dropped;
  test_vm_to_vm_denied: VM to VM is denied (2 echo requests + 1 SYN),
    no session;
  test_ingress_refused: what the outside opens to the VM (TCP to a port
    the VM listens on, UDP to a bound port, ping) never reaches it, each
    packet counted once: exactly 1 SYN + 3 datagrams + 3 echo requests;
    no session is created for them;
  test_close_and_late_packets: a RST, and a FIN each way, close a
    session: dump-conntrack shows it closed in OVS's format, and it
    expires after the zone's tcp_close timeout (add-zone-tp, 3 s; the
    other TCP timeouts left at OVS's defaults of minutes and hours, so
    only the close can have put it there); a late packet out of window
    while it is closed is invalid, one after it expired is new from the
    outside: refused; neither reaches the VM (capture on its tap);
  test_udp_session_expires: a UDP "connection" the VM opened lets the
    outside's datagrams in while it lives and expires after the zone's
    udp timeouts (2 s), swept by the control loop with no traffic; the
    outside's datagrams on the same 5-tuple are then refused.

After each test the rig checks that every packet received ended in one
counter and no mbuf leaked.
"""

import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from vxswitch_tools import netns_apps as apps
from vxswitch_tools import netns_rig
from vxswitch_tools.netns_rig import OUT_IP
from vxswitch_tools.procs import wait_for

POLICIES = Path(__file__).with_name("policies")
MB = 1024 * 1024


@dataclass
class Policy:
    name: str
    path: Path
    deny: str       # the counter of a new packet the group refuses
    invalid: str    # the counter of a +inv packet


SG = Policy("sg", POLICIES / "sg_allow_egress.flows", "sg_deny",
            "sg_invalid")
# Neutron's tables send both to 93 (drop): both count as rule_drop
CT = Policy("ct", POLICIES / "ct_allow_egress.flows", "rule_drop",
            "rule_drop")


@pytest.fixture(params=[SG, CT], ids=lambda p: p.name)
def policy(request):
    return request.param


@pytest.fixture
def rig(request, make_switch, policy):
    yield from netns_rig.for_test(request, make_switch, policy=policy.path)


def conns(rig, match=""):
    return [ln for ln in rig.sw.ctl("dpctl/dump-conntrack").splitlines()
            if ln and match in ln]


def moved(before, after):
    """The drop counters that moved, by how much."""
    return {k: after.get(k, 0) - before.get(k, 0)
            for k in set(before) | set(after)
            if after.get(k, 0) != before.get(k, 0)}


def expect_drops(policy, deny=0, invalid=0):
    """The drop counters that must have moved: deny new packets and
    invalid ones (one counter in the ct() policy)."""
    want = {}
    for name, n in ((policy.deny, deny), (policy.invalid, invalid)):
        if n:
            want[name] = want.get(name, 0) + n
    return want


def test_egress_both_ways(rig, policy):
    vm, out = rig.vm(1), rig.out_ns
    p = apps.ping(vm.ns, OUT_IP, count=3)
    assert p["received"] == 3, p["output"]
    apps.tcp_transfer(vm.ns, out, OUT_IP, MB, direction="download")
    apps.tcp_transfer(vm.ns, out, OUT_IP, MB, direction="upload")
    u = apps.udp_echo(vm.ns, out, OUT_IP, count=10, size=500)
    assert u == dict(u, sent=10, received=10, bad=0), u
    # an ICMP error about a VM's connection is related: it comes in
    assert apps.udp_to_closed_port(vm.ns, OUT_IP, 6009, count=2) == 2
    dump = rig.sw.ctl("dpctl/dump-conntrack", "zone=1").splitlines()
    for proto in ("icmp", "udp", "tcp"):
        assert any(ln.startswith("%s,orig=(src=%s,dst=%s" %
                                 (proto, vm.ip, OUT_IP)) and "zone=1" in ln
                   for ln in dump), (proto, dump)
    st = rig.sw.ctl("dpctl/ct-stats-show", json=True)
    assert st["n_conns"] == len(conns(rig)) and st["created"] >= 4, st
    # not one packet of the VM's connections was refused or invalid
    assert rig.drops() == {}, rig.drops()


def test_ingress_refused(rig, policy):
    vm, out = rig.vm(1), rig.out_ns
    before = rig.drops()
    # the VM listens: without the group the connect succeeds and the
    # datagrams arrive (test_tcp_rig), so what fails here is the switch
    tcp_srv = apps.server(vm.ns, "tcp-echo-serve", 5555)
    udp_srv = apps.udp_receiver(vm.ns, 5556, 3, 1.5)
    try:
        # shorter than the first SYN retransmission (1 s): one SYN
        c = apps.tcp_connect(out, vm.ip, 5555, timeout=0.5)
        assert c["result"] == "timeout", c
        apps.udp_send(out, 6000, vm.ip, 5556, count=3)
        p = apps.ping(out, vm.ip, count=3, wait=1)
        assert p["transmitted"] == 3 and p["received"] == 0, p["output"]
        assert udp_srv.result(10)["received"] == 0
    finally:
        tcp_srv.stop()
        udp_srv.stop()
    assert moved(before, rig.drops()) == expect_drops(policy, deny=7), \
        rig.drops()
    # nothing the outside opened was kept
    assert conns(rig) == [], conns(rig)


def test_vm_to_vm_denied(rig, policy):
    """vm1's egress allows, vm2's ingress denies: denied, no session
    (sg(): the composed rule is sg(deny); ct(): the ingress pipeline
    sees the egress ct()'s +new, uncommitted)."""
    a, b = rig.vm(1), rig.vm(2)
    before = rig.drops()
    assert apps.ping(a.ns, b.ip, count=2, wait=1)["received"] == 0
    srv = apps.server(b.ns, "tcp-echo-serve", 5556)
    try:
        c = apps.tcp_connect(a.ns, b.ip, 5556, timeout=0.5)   # one SYN
    finally:
        srv.stop()
    assert c["result"] == "timeout", c
    assert moved(before, rig.drops()) == expect_drops(policy, deny=3), \
        rig.drops()
    assert conns(rig) == [], conns(rig)


def last_segment(segs, src, sport, dport):
    s = [x for x in segs if x["src"] == src and x["sport"] == sport
         and x["dport"] == dport]
    assert s, (src, sport, dport, segs)
    return s[-1]


def test_close_and_late_packets(rig, policy, tmp_path):
    vm, out = rig.vm(1), rig.out_ns
    # only the closed class is short: a session that is not closed keeps
    # OVS's tcp_established (a day) and tcp_fin_wait (15 minutes)
    rig.sw.ctl("add-zone-tp", "zone=1", "tcp_close=3")
    assert "Zone:1, Timeout Policies:" in rig.sw.ctl("list-zone-tp")
    assert " tcp_close=3 " in rig.sw.ctl("list-zone-tp")
    assert " tcp_established=86400 " in rig.sw.ctl("list-zone-tp")
    pcap = tmp_path / "vm1.pcap"
    with apps.capture(vm.ns, vm.iface, pcap, "tcp"):
        with apps.TcpSession(vm.ns, out, OUT_IP, port=5021) as by_rst, \
                apps.TcpSession(vm.ns, out, OUT_IP, port=5022) as by_fin:
            assert by_rst.connected and by_fin.connected
            assert by_rst.send(2000) and by_fin.send(2000)
            est = conns(rig, "ESTABLISHED")
            assert len([ln for ln in est if "dport=502" in ln]) == 2, est
            assert by_rst.rst()
            assert by_fin.fin()     # the VM's FIN, the server's FIN
            t_closed = time.monotonic()
        time.sleep(0.2)
        rst_line = conns(rig, "dport=5021")
        fin_line = conns(rig, "dport=5022")
        # OVS's userspace tracker: RST -> both TIME_WAIT; FIN and its ACK
        # each way -> both FIN_WAIT_2 (the tcp_close class), which OVS's
        # dump without -m prints as TIME_WAIT too
        assert len(rst_line) == 1 and \
            "protoinfo=(state=TIME_WAIT)" in rst_line[0], rst_line
        assert len(fin_line) == 1 and \
            "protoinfo=(state=TIME_WAIT)" in fin_line[0], fin_line
        assert rst_line[0].startswith(
            "tcp,orig=(src=%s,dst=%s,sport=" % (vm.ip, OUT_IP))
        assert ",zone=1," in rst_line[0], rst_line

        # the outside's last segments, from the capture so far
        time.sleep(0.2)
        segs = apps.tcp_segments(pcap)
        late = {}
        for port, line in ((5021, rst_line[0]), (5022, fin_line[0])):
            vm_port = int(line.split("sport=")[1].split(",")[0])
            s = last_segment(segs, OUT_IP, port, vm_port)
            late[port] = (vm_port, s["seq"] + 1, s["ack"])

        # 1. while the session is closed but not expired: a segment far
        # out of its window is invalid
        before = rig.drops()
        for port, (vm_port, seq, ack) in late.items():
            apps.tcp_segment(out, OUT_IP, vm.ip, port, vm_port, "A",
                             seq + (1 << 30), ack, 100)
        assert time.monotonic() - t_closed < 2.6, "too slow for the check"
        assert len(conns(rig, "dport=502")) == 2
        assert moved(before, rig.drops()) == expect_drops(policy,
                                                          invalid=2)

        # 2. the sweeper removes them after tcp_close (3 s), no traffic
        st0 = rig.sw.ctl("dpctl/ct-stats-show", json=True)
        wait_for(lambda: not conns(rig, "dport=502"), 7, 0.1,
                 lambda: "the closed sessions to expire: %s" % conns(rig))
        gone = time.monotonic() - t_closed
        assert 2.5 < gone < 6, gone
        st = rig.sw.ctl("dpctl/ct-stats-show", json=True)
        assert st["expired"] >= st0["expired"] + 2, (st0, st)

        # 3. a late segment of either connection is now a new packet from
        # the outside: refused
        before = rig.drops()
        for port, (vm_port, seq, ack) in late.items():
            apps.tcp_segment(out, OUT_IP, vm.ip, port, vm_port, "PA", seq,
                             ack, 100)
        time.sleep(0.1)
        assert moved(before, rig.drops()) == expect_drops(policy, deny=2)
        assert conns(rig, "dport=502") == []
    # none of the hand-made segments reached the VM
    got = [x for x in apps.tcp_segments(pcap) if x["len"] == 100
           and x["src"] == OUT_IP]
    assert got == [], got


def test_udp_session_expires(rig, policy):
    vm, out = rig.vm(1), rig.out_ns
    rig.sw.ctl("add-zone-tp", "zone=1", "udp_first=2", "udp_single=2",
               "udp_multiple=2", "icmp_first=2", "icmp_reply=2")
    # the VM opens: 6001 -> the outside's 6002
    r = apps.udp_receiver(out, 6002, 1, 3)
    apps.udp_send(vm.ns, 6001, OUT_IP, 6002)
    assert r.result(10)["received"] == 1
    # while the session lives the outside's datagrams come in
    r = apps.udp_receiver(vm.ns, 6001, 1, 3)
    apps.udp_send(out, 6002, vm.ip, 6001)
    assert r.result(10)["received"] == 1
    t0 = time.monotonic()     # the ICMP session's packets come after it
    assert apps.ping(vm.ns, OUT_IP, count=1)["received"] == 1
    udp = conns(rig, "udp,orig=(src=%s,dst=%s,sport=6001,dport=6002)"
                % (vm.ip, OUT_IP))
    assert len(udp) == 1 and "zone=1" in udp[0], conns(rig)
    assert conns(rig, "icmp,"), conns(rig)
    st0 = rig.sw.ctl("dpctl/ct-stats-show", json=True)

    # no traffic: the control loop's sweeper expires both
    wait_for(lambda: rig.sw.ctl("dpctl/ct-get-nconns").strip() == "0", 6,
             0.1, lambda: "the sessions to expire: %s" % conns(rig))
    assert 1.9 < time.monotonic() - t0 < 5, time.monotonic() - t0
    st = rig.sw.ctl("dpctl/ct-stats-show", json=True)
    assert st["expired"] >= st0["expired"] + 2, (st0, st)

    # the same 5-tuple from the outside is now a new connection: refused
    before = rig.drops()
    r = apps.udp_receiver(vm.ns, 6001, 2, 1.0)
    apps.udp_send(out, 6002, vm.ip, 6001, count=2)
    assert r.result(10)["received"] == 0
    assert moved(before, rig.drops()) == expect_drops(policy, deny=2)
    assert conns(rig) == [], conns(rig)
