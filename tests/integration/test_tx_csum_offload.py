# SPDX-License-Identifier: BSD-3-Clause
"""The outer UDP checksum over an IPv6 underlay left to the port
(tx-csum-offload; app/datapath/vxlan_encap.c, port_ethdev.c), against
Linux's VXLAN device, which verifies every checksum it receives:

    netns "vm"                root ns                     netns "vtep"
    tap 192.1.0.2      <->  net_tap0 [vxswitch] net_tap1  ->  tap (moved
        fd00:1::2           (overlay)  (underlay, VTEP        here)
                                        2001:db8:1::100/64)   2001:db8:1::1
                                                              vx0 192.1.0.1
                                                              fd00:1::1

DPDK's net_tap offers RTE_ETH_TX_OFFLOAD_UDP_CKSUM and does the NIC's
work in software from the mbuf's flags and lengths, so a wrong flag or
length is a bad checksum on the wire, counted by the kernel
(Udp6InCsumErrors) and dropped. (net_tap sums the pseudo-header itself
rather than finishing the one in the field, as a NIC does: that value is
test_encap_offload's, a unit test.)

test_udp6_csum_by_port: the port took the offload (its log line); ND
both ways, ping and ping6 both ways, UDP echo over sizes up to the
inner MTU (odd and even), TCP 1 MiB both ways by sha256, for IPv4 and
IPv6 tenants; every tunnel push counted udp6_csum_offloaded; the
kernel's Udp6InCsumErrors and Udp6InErrors unchanged. Then
dpif-netdev/set-opt tx-csum-offload off: the same traffic passes with
the checksum summed in software and nothing more counted offloaded.

Every test ends with every mbuf back (the rig's teardown) and the packet
accounting balanced (conftest).
"""

import pytest

from vxswitch_tools import harness as vxlib
from vxswitch_tools import netns_apps as A
from vxswitch_tools import packets as P
from vxswitch_tools.harness import sh, wait_for
from vxswitch_tools.kernel_vtep_rig import (INNER_MTU6, KHOST_IP, VM_IP,
                                           kernel_vtep6_end, snmp6, tag,
                                           vm_tap, vtep6_topology)

VM6 = "fd00:1::2"
KHOST6 = "fd00:1::1"
TCP_BYTES = 1024 * 1024
# UDP payloads: small, odd, even, and the largest each family's inner MTU
# (1430) carries
SIZES4 = [1, 2, 63, 64, 255, 1001, 1024, INNER_MTU6 - 29, INNER_MTU6 - 28]
SIZES6 = [1, 2, 63, 64, 255, 1001, 1024, INNER_MTU6 - 49, INNER_MTU6 - 48]


class Rig:
    pass


@pytest.fixture
def rig(request, make_switch):
    r = Rig()
    t = tag()
    r.under, r.tap = "cou%s" % t, "cot%s" % t
    with vxlib.netns("covtep%s" % t) as vtep, \
            vxlib.netns("covm%s" % t) as vm:
        r.vtep, r.vm = vtep, vm
        topo = vtep6_topology(r.under, {
            "name": "tap", "type": "dpdk",
            "devargs": "net_tap0,iface=%s" % r.tap})
        for p in topo["ports"]:
            if p["name"] == "phy":
                p["devargs"] = "net_tap1,iface=%s" % r.under
        r.sw = make_switch(topo, ready_timeout=60.0)
        sh(["ip", "link", "set", r.under, "netns", vtep])
        kernel_vtep6_end(r.under, vtep, [KHOST_IP + "/24", KHOST6 + "/64"])
        vm_tap(r.tap, vm, INNER_MTU6, [VM_IP + "/24", VM6 + "/64"])
        yield r
        vxlib.stop_if_passed(request, r.sw)


def pmd(sw):
    return P.ctl_counters(sw)["pmd"]


def traffic(r, tcp=True):
    """Both tenant families both ways; returns what moved."""
    wait_for(lambda: A.ping(r.vm, KHOST6, count=1)["received"] == 1, 20,
             0.2, "ping6 through the tunnel")
    for ns, dst in ((r.vm, KHOST_IP), (r.vtep, VM_IP), (r.vm, KHOST6),
                    (r.vtep, VM6)):
        p = A.ping(ns, dst, count=3)
        assert p["received"] == 3, (dst, p["output"], diag(r))
    for dst, sizes in ((KHOST_IP, SIZES4), (KHOST6, SIZES6)):
        for size in sizes:
            e = A.udp_echo(r.vm, r.vtep, dst, count=2, size=size)
            assert e["received"] == 2 and e["bad"] == 0, (dst, size, e,
                                                          diag(r))
    if not tcp:
        return
    # (tcp_transfer asserts the byte counts and the sha256 at both ends)
    for dst in (KHOST_IP, KHOST6):
        for way in ("upload", "download"):
            A.tcp_transfer(r.vm, r.vtep, dst, TCP_BYTES, direction=way,
                           timeout=20)


def diag(r):
    return "%s\n%s" % (r.sw.ctl("tnl/neigh/show"),
                       r.sw.ctl("dpif-netdev/pmd-stats-show"))


def test_udp6_csum_by_port(rig):
    r, sw = rig, rig.sw
    assert "outer UDP checksums over IPv6 by the NIC" in sw.log_tail(200), \
        sw.log_tail(40)
    for opt, offloaded in (("on", True), ("off", False)):
        sw.ctl("dpif-netdev/set-opt", "tx-csum-offload", opt)
        snmp0, st0 = snmp6(r.vtep), pmd(sw)
        traffic(r, tcp=offloaded)
        snmp, st = snmp6(r.vtep), pmd(sw)
        pushes = st["tunnel_pushes"] - st0["tunnel_pushes"]
        by_port = st["udp6_csum_offloaded"] - st0["udp6_csum_offloaded"]
        print("\ntx-csum-offload %s: %d tunnel pushes, %d with the UDP "
              "checksum by the port; kernel Udp6InDatagrams +%d, "
              "Udp6InCsumErrors +%d" % (
                  opt, pushes, by_port,
                  snmp["Udp6InDatagrams"] - snmp0["Udp6InDatagrams"],
                  snmp["Udp6InCsumErrors"] - snmp0["Udp6InCsumErrors"]))
        assert pushes > 40, st
        assert by_port == (pushes if offloaded else 0), (opt, pushes,
                                                         by_port)
        for k in ("Udp6InCsumErrors", "Udp6InErrors"):
            assert snmp.get(k, 0) == snmp0.get(k, 0), (opt, k, snmp)
