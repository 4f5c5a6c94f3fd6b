# SPDX-License-Identifier: BSD-3-Clause
"""Path MTU discovery for the tunnel over an IPv6 underlay (issue 25,
item 6; app/datapath/dp_pmtud.h; design-ipv6-underlay.md, step 8):
test_pmtud.py against Linux's IPv4 and IPv6 stacks, on the rig of
test_kernel_vtep6.py (kernel_vtep_rig.kernel_vtep6()/vtep6_topology()):

    netns "vm"                root ns                    netns "vtep"
    tap 192.1.0.2      <->  net_tap0 [vxswitch] net_af_packet0 == veth ==
        fd00:192:1::2       (overlay)  (underlay, VTEP        2001:db8:1::1
        MTU 1500                        2001:db8:1::100/64,   vx0 (vxlan
                                        MTU 1500)             1001, remote
                                                              ::100, MTU
                                                              1500)
                                                              192.1.0.1
                                                              fd00:192:1::1

A new user's overlay: 1500 on both ends of a 1500-byte IPv6 underlay
(vx0 unbound: Linux refuses 1500 on a device bound to its 1500-byte
lower device; kernel_vtep_rig.vxlan6_device). VXLAN over IPv6 takes 70
bytes (14 + 40 + 8 + 8), so an inner IP packet fits the tunnel up to
1430 bytes, and 1430 is the MTU announced.

test_pmtud6_ping: a 1500-byte IPv4 ping with DF gets "Frag needed and DF
set (mtu = 1430)" from 192.1.0.1 and the kernel caches it (ip route get:
mtu 1430), after which 1430-byte pings get through; an IPv6 one gets
"Packet too big: mtu=1430" (ip -6 route get: mtu 1430); one error and one
mtu_exceeded drop each. dpif-netdev/set-param pmtud off: both pings are
dropped unanswered (mtu_exceeded only) and the vm's routes learn no MTU.

test_pmtud6_tcp: 1 MiB by TCP each way, IPv4 and IPv6 tenants, sha256
checked at both ends, both route caches flushed before each. vm -> kernel
host: the vm's full-size segments are answered (pmtud_frag_needed or
pmtud_too_big rises, mtu_exceeded with it) and the vm's route has mtu
1430 after. Kernel host -> vm: Linux's vxlan device at 1500 finds its
path MTU itself (skb_tunnel_check_pmtu; its route to the vm: mtu 1430):
its first too-long packets die in its own stack (Ip6FragFails), none
reaches the switch (mtu_exceeded unchanged), so vx0 at 1500 works.
Without the switch's answers the vm's upload stalls and tcp_transfer
fails after its 20 s (seen with pmtud off).

Every test ends with every mbuf back (the rig's teardown) and the packet
accounting balanced (conftest).
"""

import time

import pytest

from vxswitch_tools import harness as vxlib
from vxswitch_tools import netns_apps as A
from vxswitch_tools.harness import sh, wait_for
from vxswitch_tools.kernel_vtep_rig import (INNER_MTU6, KHOST_IP, VM_IP,
                                           counts_delta, flush_pmtu,
                                           kernel_vtep6, ping_df,
                                           pmtud_counts, snmp6, tag,
                                           vm_tap, vtep6_topology)

MTU = 1500
VM6 = "fd00:192:1::2"
KHOST6 = "fd00:192:1::1"
TCP_BYTES = 1024 * 1024


class Rig:
    pass


@pytest.fixture
def rig(request, make_switch):
    r = Rig()
    t = tag()
    r.phy, r.peer, r.tap = "p6u%s" % t, "p6v%s" % t, "p6t%s" % t
    with vxlib.netns("p6vtep%s" % t) as vtep, \
            vxlib.netns("p6vm%s" % t) as vm, \
            vxlib.veth_pair(r.phy, r.peer, ns=vtep, mtu=1500, up=False):
        r.vtep, r.vm = vtep, vm
        kernel_vtep6(r.phy, r.peer, vtep, [KHOST_IP + "/24", KHOST6 + "/64"],
                     inner_mtu=MTU)
        r.sw = make_switch(vtep6_topology(
            r.phy, {"name": "tap", "type": "dpdk",
                    "devargs": "net_tap0,iface=%s" % r.tap}),
            ready_timeout=60.0)
        vm_tap(r.tap, vm, MTU, [VM_IP + "/24", VM6 + "/64"])
        yield r
        vxlib.stop_if_passed(request, r.sw)


def reachable(r):
    def up():
        return " 0% packet loss" in ping_df(r.vm, KHOST_IP, 56) and \
            " 0% packet loss" in ping_df(r.vm, KHOST6, 56)
    wait_for(up, 30, 0.5, "ping and ping6 through the tunnel")


def route_get(ns, dst):
    return sh(["ip"] + (["-6"] if ":" in dst else []) + ["route", "get",
                                                          dst], ns=ns)


def test_pmtud6_ping(rig):
    r, sw = rig, rig.sw
    reachable(r)
    flush_pmtu(r.vm)

    # IPv4: 1472 + 28 = 1500 bytes with DF; 1430 fit
    c0 = pmtud_counts(sw)
    out = ping_df(r.vm, KHOST_IP, 1472)
    print("\n$ ping -M do -s 1472 -c 1 %s\n%s" % (KHOST_IP, out))
    assert "From %s icmp_seq=1 Frag needed and DF set (mtu = %d)" \
        % (KHOST_IP, INNER_MTU6) in out, out
    d = counts_delta(c0, pmtud_counts(sw))
    assert d["pmtud_frag_needed"] == 1 and d["mtu_exceeded"] == 1, d
    assert d["pmtud_policed"] == 0 and d["pmtud_too_big"] == 0, d
    route = route_get(r.vm, KHOST_IP)
    print("$ ip route get %s\n%s" % (KHOST_IP, route))
    assert "mtu %d" % INNER_MTU6 in route, route
    out = ping_df(r.vm, KHOST_IP, INNER_MTU6 - 28, count=3)
    assert " 0% packet loss" in out, out

    # IPv6: 1452 + 48 = 1500 bytes
    c0 = pmtud_counts(sw)
    out = ping_df(r.vm, KHOST6, 1452)
    print("$ ping -6 -M do -s 1452 -c 1 %s\n%s" % (KHOST6, out))
    assert "From %s icmp_seq=1 Packet too big: mtu=%d" % (KHOST6,
                                                          INNER_MTU6) \
        in out, out
    d = counts_delta(c0, pmtud_counts(sw))
    assert d["pmtud_too_big"] == 1 and d["mtu_exceeded"] == 1, d
    assert d["pmtud_policed"] == 0 and d["pmtud_frag_needed"] == 0, d
    route = route_get(r.vm, KHOST6)
    print("$ ip -6 route get %s\n%s" % (KHOST6, route))
    assert "mtu %d" % INNER_MTU6 in route, route
    out = ping_df(r.vm, KHOST6, INNER_MTU6 - 48, count=3)
    assert " 0% packet loss" in out, out

    # the answers are ours: with pmtud off the same pings are dropped
    # unanswered and the vm learns nothing
    assert sw.ctl("dpif-netdev/set-param", "pmtud", "off").strip() == \
        "pmtud off"
    flush_pmtu(r.vm)
    c0 = pmtud_counts(sw)
    for dst, size in ((KHOST_IP, 1472), (KHOST6, 1452)):
        out = ping_df(r.vm, dst, size)
        assert "mtu" not in out and " 100% packet loss" in out, out
        assert "mtu %d" % INNER_MTU6 not in route_get(r.vm, dst)
    d = counts_delta(c0, pmtud_counts(sw))
    assert d["mtu_exceeded"] == 2 and d["pmtud_frag_needed"] == 0 and \
        d["pmtud_too_big"] == 0 and d["copies"] == 0, d
    sw.ctl("dpif-netdev/set-param", "pmtud", "on")


def test_pmtud6_tcp(rig):
    r, sw = rig, rig.sw
    reachable(r)
    figs = {}
    for dst, vm_ip, key, port in ((KHOST_IP, VM_IP, "pmtud_frag_needed",
                                   5201),
                                  (KHOST6, VM6, "pmtud_too_big", 5202)):
        fam = "ipv6" if ":" in dst else "ipv4"
        for way in ("upload", "download"):
            # TCP's first full-size segments find the path MTU, each time
            flush_pmtu(r.vm)
            flush_pmtu(r.vtep)
            c0, k0 = pmtud_counts(sw), snmp6(r.vtep)
            t0 = time.monotonic()
            A.tcp_transfer(r.vm, r.vtep, dst, TCP_BYTES, port=port,
                           direction=way, timeout=20)
            figs["%s_%s_s" % (fam, way)] = round(time.monotonic() - t0, 2)
            d = counts_delta(c0, pmtud_counts(sw))
            k1 = snmp6(r.vtep)
            kd = {k: k1.get(k, 0) - k0.get(k, 0) for k in
                  ("Ip6FragFails", "Icmp6OutPktTooBigs")}
            figs["%s_%s" % (fam, way)] = dict(d, **kd)
            vm_route = route_get(r.vm, dst)
            k_route = route_get(r.vtep, vm_ip)
            if way == "upload":
                # the vm's segments of 1500 bytes, dropped and answered
                # (none policed at the default rate): the vm's TCP went
                # on at 1430
                assert d[key] >= 1 and d["pmtud_policed"] == 0 and \
                    d["mtu_exceeded"] == d[key], (fam, d)
                assert "mtu %d" % INNER_MTU6 in vm_route, vm_route
            else:
                # Linux's vxlan device (vx0 at 1500, unbound, not a
                # bridge port) checks each packet it sends against its
                # underlay route (skb_tunnel_check_pmtu, 1500 - 70): one
                # too long lowers its own inner route's path MTU to 1430
                # (no ICMP for a local sender) and goes on out; the outer
                # IPv6 packet, 1570 bytes, may not be fragmented by the
                # vxlan device's socket (not ignore_df), so ip6_fragment
                # drops it and sends the kernel itself a Packet Too Big
                # (Ip6FragFails, Icmp6OutPktTooBigs); TCP resends at
                # 1430. Nothing too long reaches the switch: vx0 needs
                # no MTU of 1430 for this direction to work.
                assert d[key] == 0 and d["mtu_exceeded"] == 0, (fam, d)
                assert "mtu %d" % INNER_MTU6 in k_route, k_route
                assert kd["Ip6FragFails"] >= 1 and \
                    kd["Icmp6OutPktTooBigs"] >= 1, (fam, kd)
            print("\n%s %s: %s\n  vm: %s\n  kernel: %s" % (
                fam, way, figs["%s_%s" % (fam, way)], " ".join(
                    vm_route.split()), " ".join(k_route.split())))
    print("seconds: %s" % {k: v for k, v in figs.items()
                           if k.endswith("_s")})
