# SPDX-License-Identifier: BSD-3-Clause
"""The real-TCP rig (python/vxswitch_tools/netns_rig.py), proven with plain
forwarding and no security group, so that the security-group tests can
stand on it: every helper must show success where traffic flows and
failure where it does not.

test_vm_and_outside: VM <-> the kernel VTEP's overlay address and the
routed network behind it: ping, TCP both ways with the VM as client and as
server (sha256 of 4 MB compared at both ends), UDP echo; the tunnel
counters moved by at least the data's frames and nothing was dropped.

test_vm_to_vm: two VMs on the same switch: ping, TCP both ways, UDP echo,
and none of it went into the tunnel.

test_refusal_close_and_drop: what the SG tests will observe, here with
its no-SG outcome: a connect to a closed port is refused (a RST came back,
seen on the VM's tap), a connect to an address nobody answers times out
(the switch counted the drops), a held session echoes, counts as one
established socket at each end, and closes with a FIN each way or with a
RST, seen on the wire.

test_policy_files_match_the_rig: policies/ct_allow_egress.flows (Neutron's
OVS firewall driver tables, ct()) and policies/sg_allow_egress.flows (the
seed's sg()) name exactly the rig's ports, MACs and addresses (they are
loaded on the rig as they are, once the datapath executes them).

After each test, the rig checks (before its namespaces go) that the switch
returned every mbuf, accounted for every packet it received and exits 0.
"""

import re
import time
from pathlib import Path

import pytest

from vxswitch_tools import netns_apps as apps
from vxswitch_tools import netns_rig
from vxswitch_tools.addressing import NETNS_RIG
from vxswitch_tools.netns_rig import FAR_IP, OUT_IP

MB = 1024 * 1024
PAYLOAD = 4 * MB
POLICIES = Path(__file__).with_name("policies")


@pytest.fixture
def rig(request, make_switch):
    yield from netns_rig.for_test(request, make_switch)


def no_drops(rig, *allowed):
    d = {k: v for k, v in rig.drops().items() if k not in allowed}
    assert not d, (d, rig.sw.ctl("dpif-netdev/pmd-stats-show"))


def assert_ping(rig, ns, dst, count=5):
    p = apps.ping(ns, dst, count=count)
    assert p["transmitted"] == count and p["received"] == count, (
        "%s\n%s\n%s" % (p["output"], rig.sw.ctl("show"),
                        rig.sw.ctl("dpif-netdev/pmd-stats-show")))
    return p


def test_vm_and_outside(rig):
    vm = rig.vm(1)
    out = rig.out_ns
    t0 = time.monotonic()
    before = rig.pmd_totals()
    ports_before = rig.port_stats()
    assert_ping(rig, vm.ns, OUT_IP)
    assert_ping(rig, out, vm.ip)
    assert_ping(rig, vm.ns, FAR_IP)      # routed by the outside's kernel

    moved = {}
    # the VM as the client, data both ways; then as the server
    for name, cli, srv, ip, way in (
            ("vm_uploads", vm.ns, out, OUT_IP, "upload"),
            ("vm_downloads", vm.ns, out, OUT_IP, "download"),
            ("out_uploads_to_vm", out, vm.ns, vm.ip, "upload"),
            ("vm_downloads_from_far", vm.ns, rig.far_ns, FAR_IP,
             "download")):
        r = apps.tcp_transfer(cli, srv, ip, PAYLOAD, direction=way)
        moved[name] = r["client"]["seconds"]
    u = apps.udp_echo(vm.ns, out, OUT_IP, count=20, size=1000)
    assert u == dict(u, sent=20, received=20, bad=0), u
    print("\nVM <-> outside, %d bytes each, seconds: %s (total %.1f s)"
          % (PAYLOAD, moved, time.monotonic() - t0))

    after = rig.pmd_totals()
    # every data segment is one frame of at most the inner MTU (the
    # veth has no offloads; vx0 segments before encapsulating): the VM
    # sent one payload, the outside three (ACKs come on top, coalesced)
    seg = PAYLOAD // netns_rig.INNER_MTU
    pops = after["tunnel_pops"] - before["tunnel_pops"]
    pushes = after["tunnel_pushes"] - before["tunnel_pushes"]
    assert pushes > seg and pops > 3 * seg, (pushes, pops, seg)
    no_drops(rig)
    ports = rig.port_stats()
    # vm1's traffic went to vm1 only
    assert (ports["vm1"]["tx_packets"] - ports_before["vm1"]["tx_packets"]
            > 3 * seg), ports["vm1"]
    assert ports["vm2"]["tx_packets"] == ports_before["vm2"]["tx_packets"]
    assert apps.conn_count(vm.ns) == apps.conn_count(out) == 0


def test_vm_to_vm(rig):
    a, b = rig.vm(1), rig.vm(2)
    before = rig.pmd_totals()
    assert_ping(rig, a.ns, b.ip)
    assert_ping(rig, b.ns, a.ip)
    apps.tcp_transfer(a.ns, b.ns, b.ip, PAYLOAD, direction="upload")
    apps.tcp_transfer(a.ns, b.ns, b.ip, PAYLOAD, direction="download")
    u = apps.udp_echo(b.ns, a.ns, a.ip, count=20, size=1400)
    assert u == dict(u, sent=20, received=20, bad=0), u
    after = rig.pmd_totals()
    # switched on the host: nothing went through the tunnel
    assert after["tunnel_pushes"] == before["tunnel_pushes"], after
    ports = rig.port_stats()
    for p in ("vm1", "vm2"):
        # each sent the data one way
        assert ports[p]["rx_packets"] > PAYLOAD // netns_rig.INNER_MTU, \
            ports[p]
        assert ports[p]["tx_dropped"] == 0, ports[p]
    no_drops(rig)


def test_refusal_close_and_drop(rig, tmp_path):
    vm = rig.vm(1)
    out = rig.out_ns
    assert_ping(rig, out, vm.ip, count=2)      # neighbours resolved

    with apps.capture(vm.ns, vm.iface, tmp_path / "vm1.pcap",
                      "tcp") as pcap:
        # a closed port: refused at once, by the VM's own stack
        r = apps.tcp_connect(out, vm.ip, 7777, timeout=3)
        assert r["result"] == "refused" and r["seconds"] < 1.0, r

        # a session held open: out -> the VM's echo server
        with apps.TcpSession(out, vm.ns, vm.ip, port=5002) as s:
            assert s.connected, s.error
            assert s.send(1000) and s.send(20000)
            assert apps.conn_count(out, port=5002) == 1
            assert apps.conn_count(vm.ns, port=5002) == 1
            assert s.fin()
        # the other way, closed by a RST
        with apps.TcpSession(vm.ns, out, OUT_IP, port=5004) as s:
            assert s.connected, s.error
            assert s.send(3000)
            assert s.rst()
            time.sleep(0.3)
            assert apps.conn_count(out, port=5004) == 0
    segs = apps.tcp_segments(pcap)

    def seen(src, dport=None, sport=None, flag=""):
        return [x for x in segs if x["src"] == src and flag in x["flags"]
                and (dport is None or x["dport"] == dport)
                and (sport is None or x["sport"] == sport)]
    assert seen(OUT_IP, dport=7777, flag="S"), segs
    assert seen(vm.ip, sport=7777, flag="R"), segs
    assert seen(OUT_IP, dport=5002, flag="F"), segs
    assert seen(vm.ip, sport=5002, flag="F"), segs
    assert seen(vm.ip, dport=5004, flag="R"), segs
    assert not seen(OUT_IP, sport=5004, flag="R"), segs
    assert apps.conn_count(vm.ns, "established") == 0

    # an address nobody answers: ARP for it from the outside matches no
    # rule, so the switch drops it (counted); the connect times out
    drops0 = rig.pmd_totals()["drops"].get("no_rule", 0)
    r = apps.tcp_connect(out, "192.1.0.99", 7777, timeout=1.5)
    assert r["result"] in ("timeout", "unreachable"), r
    assert rig.pmd_totals()["drops"].get("no_rule", 0) > drops0
    no_drops(rig, "no_rule")


def test_policy_files_match_the_rig():
    """Every port and IPv4 address the policy files name is the rig's (the
    files are loaded on the rig as they are)."""
    vms = range(1, 3)                   # the rig's default two VMs
    ports = {"vxlan"} | {"vm%d" % i for i in vms}
    addrs = ({NETNS_RIG.ip(i) for i in vms} | {netns_rig.KVTEP_IP}
             | {NETNS_RIG.mac(i) for i in vms})
    names = {}
    for f in ("ct_allow_egress.flows", "sg_allow_egress.flows"):
        rules = [ln for ln in (POLICIES / f).read_text().splitlines()
                 if ln.strip() and not ln.lstrip().startswith("#")]
        assert rules, f
        used_ports, used_addrs = set(), set()
        for rule in rules:
            assert " " not in rule, (f, rule)
            used_ports |= set(re.findall(r"(?:in_port=|output:)([\w-]+)",
                                         rule))
            used_addrs |= set(re.findall(
                r"\b\d+\.\d+\.\d+\.\d+\b|\b(?:[0-9a-f]{2}:){5}[0-9a-f]{2}\b",
                rule))
        assert used_ports == ports, (f, used_ports ^ ports)
        assert used_addrs == addrs, (f, used_addrs ^ addrs)
        names[f] = (used_ports, used_addrs)
    assert names["ct_allow_egress.flows"] == names["sg_allow_egress.flows"]
