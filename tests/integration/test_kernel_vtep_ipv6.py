# SPDX-License-Identifier: BSD-3-Clause
"""IPv6 tenant traffic over the IPv4 underlay, against a Linux VXLAN device
(test_kernel_vtep.py's rig: netns "vm" with the switch's tap, the switch,
netns "vtep" with vx0), through Neutron-style IPv6 anti-spoofing rules:
the VM may advertise (NA) only its own addresses (nd_target), send only
from its own addresses (ipv6_src: its global, its link-local /64, :: for
DAD), everything else IPv6 from it is dropped.

test_ipv6_tenant_over_kernel_vtep, with both neighbour caches flushed:
  - Neighbour Discovery both ways, no static entry anywhere: each side
    learns the other's MAC (ip -6 neigh in both namespaces);
  - ping6 both ways; TCP both ways over IPv6 (4 MB, sha256 at both ends);
    UDP echo over IPv6 at sizes up to the tenant MTU (every datagram back
    byte for byte);
  - a spoofed NA from the VM (a target not its own) is dropped by its rule
    and the kernel learns nothing from it; a datagram from an address not
    the VM's is dropped by its rule;
  - the rules' counters and the megaflows say the same: dpctl/dump-flows
    has IPv6 megaflows with nd(target=...) from the NA rules;
  - every mbuf back, no malformed drop.

test_ipv6_sg_allows_egress_refuses_ingress: the same rig under an IPv6
security group in sg() form ("allow egress, deny ingress", Neighbour
Discovery let by before it, as Neutron's firewall does):
  - ping6, TCP (1 MB, sha256) and UDP echo from the VM pass: each opens an
    IPv6 session (dpctl/dump-conntrack prints it as OVS does) whose
    replies come back through sg(deny);
  - ping6 and TCP connections from the kernel host to the VM are dropped
    by sg(deny) (sg_deny counts them), none +inv.

test_ipv6_fragments_through_sg: the same group, IPv6 fragments (OVS 3.1's
ipf for IPv6: dpctl/ipf-get-status's v6 lines):
  - `ping6 -s 3000` from the VM: requests and replies in 3 fragments
    each, held until whole, the reassembled packet tracked (an icmpv6
    session), every fragment sent; a 65000-byte UDP datagram each way
    (47 fragments), echoed byte for byte; v6 accepted == completed, no
    refusal, no drop;
  - the kernel host's fragmented ping6 to the VM: every fragment dropped
    by sg(deny), judged as its datagram;
  - the store empty after (num frag 0, the PMDs' held 0).
"""

import json
import subprocess

import pytest

from vxswitch_tools import harness as vxlib
from vxswitch_tools import netns_apps as A
from vxswitch_tools import packets as P
from vxswitch_tools.harness import sh, wait_for
from vxswitch_tools.hostnet import link_mac
from vxswitch_tools.kernel_vtep_rig import (INNER_MTU, KHOST_IP, KVTEP_IP,
                                           VM_IP, VNI, kernel_vtep, tag,
                                           vtep_topology)

VM6 = "fd00:1::2"
KHOST6 = "fd00:1::1"
SPOOF6 = "fd00:1::66"
TUNNEL = "set_tunnel:%d,set_field:%s->tun_dst,output:vxlan" % (VNI, KVTEP_IP)


def v6_rules(vm_ll):
    """Neutron's openvswitch firewall's IPv6 anti-spoofing, in short."""
    return [
        "priority=100,icmp6,in_port=tap,icmp_type=136,nd_target=%s,"
        "actions=%s" % (VM6, TUNNEL),
        "priority=100,icmp6,in_port=tap,icmp_type=136,nd_target=%s,"
        "actions=%s" % (vm_ll, TUNNEL),
        "priority=90,icmp6,in_port=tap,icmp_type=136,actions=drop",
        "priority=80,ipv6,in_port=tap,ipv6_src=%s,actions=%s" % (VM6, TUNNEL),
        "priority=80,ipv6,in_port=tap,ipv6_src=fe80::/64,actions=%s" % TUNNEL,
        "priority=80,ipv6,in_port=tap,ipv6_src=::,actions=%s" % TUNNEL,
        "priority=70,ipv6,in_port=tap,actions=drop",
    ]


def addrs6(ns, dev):
    """{scope: [(address, tentative)]} of dev's IPv6 addresses."""
    j = json.loads(sh(["ip", "-6", "-j", "addr", "show", "dev", dev], ns=ns))
    out = {}
    for a in j[0].get("addr_info", []):
        out.setdefault(a["scope"], []).append(
            (a["local"], bool(a.get("tentative"))))
    return out


def link_local(ns, dev):
    def ready():
        ll = addrs6(ns, dev).get("link", [])
        return ll and not ll[0][1] and ll[0][0]
    return wait_for(ready, 10, 0.2, "%s's link-local address" % dev)


def neigh6(ns, dev, ip):
    """(lladdr, state) of ip in dev's neighbour table, or None."""
    for e in json.loads(sh(["ip", "-6", "-j", "neigh", "show", "dev", dev],
                           ns=ns)):
        if e["dst"] == ip and e.get("lladdr"):
            return e["lladdr"], e["state"]
    return None


def rule_packets(sw):
    return {r["rule"]: r["n_packets"] for r in sw.ctl("dump-flows",
                                                      json=True)}


def packets_of(rules, *parts):
    """n_packets of the one rule whose text has every part."""
    hit = [n for r, n in rules.items() if all(p in r for p in parts)]
    assert len(hit) == 1, (parts, rules)
    return hit[0]


def send_from_vm(ns, dev, frame_py):
    """One frame built by scapy (frame_py: an expression) sent on dev."""
    code = ("from scapy.all import *\n"
            "sendp(%s, iface=%r, verbose=False)\n" % (frame_py, dev))
    subprocess.run(["ip", "netns", "exec", ns, "/usr/bin/python3", "-c",
                    code], check=True, timeout=60)


@pytest.fixture
def rig(request, make_switch):
    class R:
        pass
    r = R()
    t = tag()
    r.phy, r.peer, r.tap = "k6u%s" % t, "k6p%s" % t, "k6tap%s" % t
    with vxlib.netns("vtep6%s" % t) as vtep, \
            vxlib.netns("vm6%s" % t) as vm, \
            vxlib.veth_pair(r.phy, r.peer, ns=vtep, mtu=1500, up=False):
        r.vtep, r.vm = vtep, vm
        kernel_vtep(r.phy, r.peer, vtep, KHOST_IP + "/24")
        # IPv6 on the tenant network only (the underlay stays IPv4)
        sh(["sysctl", "-qw", "net.ipv6.conf.vx0.disable_ipv6=0"], ns=vtep)
        sh(["ip", "-6", "addr", "add", KHOST6 + "/64", "dev", "vx0",
            "nodad"], ns=vtep)
        topo = vtep_topology(r.phy, {"name": "tap", "type": "dpdk",
                                     "devargs": "net_tap0,iface=%s" % r.tap})
        # the catch-all below the anti-spoofing rules (IPv4, ARP)
        topo["flows"] = ["priority=10,in_port=tap,actions=" + TUNNEL,
                         "in_port=vxlan,actions=output:tap"]
        r.sw = make_switch(topo, ready_timeout=60.0)
        sh(["ip", "link", "set", r.tap, "netns", vm])
        sh(["ip", "link", "set", r.tap, "mtu", INNER_MTU], ns=vm)
        sh(["ip", "addr", "add", VM_IP + "/24", "dev", r.tap], ns=vm)
        sh(["ip", "-6", "addr", "add", VM6 + "/64", "dev", r.tap, "nodad"],
           ns=vm)
        sh(["ip", "link", "set", r.tap, "up"], ns=vm)
        r.vm_mac = link_mac(r.tap, vm)
        r.vx_mac = link_mac("vx0", vtep)
        r.vm_ll = link_local(vm, r.tap)
        link_local(vtep, "vx0")
        # the anti-spoofing rules above the topology's catch-all
        for f in v6_rules(r.vm_ll):
            r.sw.ctl("add-flow", f)
        yield r
        vxlib.stop_if_passed(request, r.sw)


def test_ipv6_tenant_over_kernel_vtep(rig):
    r, sw = rig, rig.sw
    sh(["ip", "-6", "neigh", "flush", "dev", r.tap], ns=r.vm)
    sh(["ip", "-6", "neigh", "flush", "dev", "vx0"], ns=r.vtep)

    # -- ND both ways with ping6 both ways: the VM solicits the kernel
    # host, which advertises; then the kernel, having forgotten the VM
    # (which taught it its MAC in its solicitation), solicits it and the
    # VM advertises through its nd_target rule
    p = A.ping(r.vm, KHOST6)
    assert p["received"] == p["transmitted"] > 0, p["output"]
    sh(["ip", "-6", "neigh", "flush", "dev", "vx0"], ns=r.vtep)
    p = A.ping(r.vtep, VM6)
    assert p["received"] == p["transmitted"] > 0, p["output"]
    got = neigh6(r.vm, r.tap, KHOST6)
    assert got and got[0] == r.vx_mac, (got, r.vx_mac)
    got = neigh6(r.vtep, "vx0", VM6)
    assert got and got[0] == r.vm_mac, (got, r.vm_mac)

    # -- TCP both ways, UDP echo up to the tenant MTU
    for direction in ("upload", "download"):
        A.tcp_transfer(r.vm, r.vtep, KHOST6, 4 * 1024 * 1024,
                       direction=direction)
    # IPv6 48 + UDP 8 of the 1450-byte tenant MTU: 1402-byte payloads
    for size in (1, 64, 512, 1200, INNER_MTU - 48):
        e = A.udp_echo(r.vm, r.vtep, KHOST6, count=5, size=size)
        assert e["received"] == 5 and e["bad"] == 0, (size, e)

    # -- spoofing: an NA for an address not the VM's, a datagram from one
    before = rule_packets(sw)
    send_from_vm(r.vm, r.tap,
                 "Ether(src=%r, dst='33:33:00:00:00:01') / "
                 "IPv6(src=%r, dst='ff02::1', hlim=255) / "
                 "ICMPv6ND_NA(tgt=%r, O=1) / "
                 "ICMPv6NDOptDstLLAddr(lladdr=%r)" % (
                     r.vm_mac, r.vm_ll, SPOOF6, r.vm_mac))
    send_from_vm(r.vm, r.tap,
                 "Ether(src=%r, dst=%r) / IPv6(src=%r, dst=%r) / "
                 "UDP(sport=7, dport=9)" % (r.vm_mac, r.vx_mac, SPOOF6,
                                            KHOST6))

    def dropped():
        now = rule_packets(sw)
        na = packets_of(now, "priority=90", "icmp_type=136")
        src = packets_of(now, "priority=70", "ipv6")
        return (na > packets_of(before, "priority=90", "icmp_type=136") and
                src > packets_of(before, "priority=70", "ipv6"))
    try:
        wait_for(dropped, 5, 0.2, "the spoofed NA and datagram dropped")
    except TimeoutError:
        raise AssertionError((rule_packets(sw), sw.ctl("dpctl/dump-flows"),
                              sw.ctl("dpif-netdev/pmd-stats-show")))
    assert neigh6(r.vtep, "vx0", SPOOF6) is None
    rules = rule_packets(sw)
    assert packets_of(rules, "priority=100", "nd_target=%s" % VM6) > 0, rules
    assert packets_of(rules, "priority=80", "ipv6_src=%s" % VM6) > 0, rules

    # -- the megaflows: IPv6, the NA rules' nd(target=...)
    flows = sw.ctl("dpctl/dump-flows")
    assert "ipv6(" in flows and "nd(target=" in flows, flows
    drops = {}
    for p in sw.ctl("dpif-netdev/pmd-stats-show", json=True):
        for k, n in p["drops"].items():
            drops[k] = drops.get(k, 0) + n
    assert not drops.get("malformed"), drops


def sg_rules():
    """"allow egress, deny ingress" for the VM, in sg() form; ND before
    it (the topology's "in_port=vxlan" rule has OVS's default priority,
    32768: the ingress rules sit above it)."""
    nd = "icmp6,icmp_type=%d,in_port=%s,actions=%s"
    rules = []
    for t in (133, 135, 136):
        rules.append("priority=300," + nd % (t, "tap", TUNNEL))
        rules.append("priority=40100," + nd % (t, "vxlan", "output:tap"))
    rules += [
        "priority=200,ipv6,in_port=tap,ipv6_src=%s,actions=sg(allow,zone=1),"
        "%s" % (VM6, TUNNEL),
        "priority=40000,ipv6,in_port=vxlan,ipv6_dst=%s,"
        "actions=sg(deny,zone=1),output:tap" % VM6,
    ]
    return rules


def sg_drops(sw):
    d = P.ctl_counters(sw)["pmd"].get("drops", {})
    return {k: d.get(k, 0) for k in ("sg_deny", "sg_invalid", "sg_refused")}


def test_ipv6_sg_allows_egress_refuses_ingress(rig):
    r, sw = rig, rig.sw
    for f in sg_rules():
        sw.ctl("add-flow", f)
    before = sg_drops(sw)

    # -- egress: the VM opens sessions; their replies pass sg(deny)
    p = A.ping(r.vm, KHOST6)
    assert p["received"] == p["transmitted"] > 0, p["output"]
    A.tcp_transfer(r.vm, r.vtep, KHOST6, 1024 * 1024, port=5101)
    A.tcp_transfer(r.vm, r.vtep, KHOST6, 1024 * 1024, port=5102,
                   direction="download")
    e = A.udp_echo(r.vm, r.vtep, KHOST6, count=5, size=1000, port=5103)
    assert e["received"] == 5 and e["bad"] == 0, e
    conns = sw.ctl("dpctl/dump-conntrack")
    for want in ("icmpv6,orig=(src=%s,dst=%s," % (VM6, KHOST6),
                 "tcp,orig=(src=%s,dst=%s," % (VM6, KHOST6),
                 "udp,orig=(src=%s,dst=%s," % (VM6, KHOST6)):
        assert want in conns, (want, conns)
    mid = sg_drops(sw)
    assert mid == before, (before, mid, sw.ctl("dpctl/dump-flows"))

    # -- ingress: new connections from outside are dropped by sg(deny)
    p = A.ping(r.vtep, VM6, count=3, wait=1)
    assert p["received"] == 0, p["output"]
    c = A.tcp_connect(r.vtep, VM6, 5104)
    assert c["result"] == "timeout", c
    after = sg_drops(sw)
    assert after["sg_deny"] - mid["sg_deny"] >= 3 + 1, (mid, after)
    assert after["sg_invalid"] == mid["sg_invalid"], (mid, after)
    assert after["sg_refused"] == 0, after


def ipf_v6(sw):
    return sw.ctl("dpctl/ipf-get-status", json=True)


def test_ipv6_fragments_through_sg(rig):
    r, sw = rig, rig.sw
    for f in sg_rules():
        sw.ctl("add-flow", f)
    st = ipf_v6(sw)
    assert st["v6_enabled"] and st["min_v6_frag_size"] == 1280, st
    before, drops0 = st["v6"], sg_drops(sw)

    # -- egress: fragmented both ways, through sg(allow) and sg(deny)
    p = A.ping(r.vm, KHOST6, count=3, size=3000)
    assert p["received"] == 3, p["output"]
    e = A.udp_echo(r.vm, r.vtep, KHOST6, count=3, size=65000, port=5105,
                   timeout=2.0)
    assert e == dict(e, sent=3, received=3, bad=0), e
    v6 = ipf_v6(sw)["v6"]
    moved = {k: v6[k] - before[k] for k in v6}
    # 3 + 3 echo fragments of 3, 3 + 3 datagrams of 47 (1400-byte pieces)
    assert moved["accepted"] >= 18 + 6 * 47, moved
    assert moved["completed"] == moved["accepted"], moved
    assert not any(moved[k] for k in moved
                   if k not in ("accepted", "completed")), moved
    assert "icmpv6,orig=(src=%s,dst=%s," % (VM6, KHOST6) in \
        sw.ctl("dpctl/dump-conntrack")
    assert sg_drops(sw) == drops0, (drops0, sg_drops(sw))

    # -- ingress: the kernel host's fragmented echo requests open nothing
    p = A.ping(r.vtep, VM6, count=2, size=3000, wait=1)
    assert p["received"] == 0, p["output"]
    after = sg_drops(sw)
    assert after["sg_deny"] - drops0["sg_deny"] == 2 * 3, (drops0, after)
    assert after["sg_invalid"] == drops0["sg_invalid"], (drops0, after)

    # -- nothing held
    wait_for(lambda: ipf_v6(sw)["nfrag"] == 0, 5, 0.1, "the store empty")
    held = sum(p["accounting"]["held"] for p in
               sw.ctl("dpif-netdev/pmd-stats-show", json=True))
    assert held == 0, sw.ctl("dpif-netdev/pmd-stats-show")
