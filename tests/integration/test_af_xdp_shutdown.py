# SPDX-License-Identifier: BSD-3-Clause
"""net_af_xdp as the NIC: at shutdown its driver keeps the mbufs of its
fill ring (DPDK 22.11 never gives them back at close). They are counted as
kept by the driver, measured while the port still existed, not as leaked:
the switch exits 0 with "mbufs in use at exit: 0", after real traffic, one
way (test_af_xdp_fill_ring_not_a_leak) and both ways with a kernel VTEP
(test_af_xdp_both_ways_exits_clean: the frames sent last). Skipped where
the kernel or the driver cannot run AF_XDP here."""

import os
import socket
import time

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from vxswitch_tools import packets as P
from vxswitch_tools import harness as vxlib


# For the sanitizer build: the driver's own leak (see the file) is not
# ours; full stacks so that the suppression can see the driver's frame.
SAN_ENV = dict(os.environ,
               ASAN_OPTIONS="fast_unwind_on_malloc=0",
               LSAN_OPTIONS="suppressions=%s" % (
                   vxlib.REPO / "tests/integration/lsan-af_xdp.supp"))


def af_xdp_topology(rundir, iface):
    return {"eal": {"memory-mb": 256},
            "ports": [{"name": "phy", "type": "dpdk",
                       "devargs": "net_af_xdp0,iface=%s,start_queue=0,"
                                  "queue_count=1" % iface}],
            "flows": ["priority=0,actions=drop"]}


def test_af_xdp_fill_ring_not_a_leak(make_switch, rundir):
    if not any("af_xdp" in f for f in
               os.listdir("/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0")):
        pytest.skip("no net_af_xdp driver installed")
    a, b = "vxx%d" % (os.getpid() % 10000), "vxy%d" % (os.getpid() % 10000)
    with vxlib.veth_pair(a, b):
        try:
            sw = make_switch(af_xdp_topology(rundir, a), env=SAN_ENV)
        except vxlib.HarnessError as e:
            if "af_xdp" in str(e).lower() or "xsk" in str(e).lower():
                pytest.skip("AF_XDP cannot run here: %s" % str(e)[-300:])
            raise
        with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
            s.bind((b, 0))
            frame = bytes(Ether(dst="ff:ff:ff:ff:ff:ff",
                                src="02:00:00:00:00:01") /
                          IP(src="10.0.0.1", dst="10.0.0.2") /
                          UDP(sport=1, dport=2) / (b"x" * 64))
            # More than the fill ring holds (2048), paced so that the
            # driver refills it as it goes.
            for _ in range(30):
                for _ in range(100):
                    s.send(frame)
                time.sleep(0.005)
        vxlib.wait_for(lambda: P.pmd_stats(sw)["packets"] >= 2500, 10, 0.05,
                       what="the PMD to receive 2500 frames")
        rc = sw.stop()
        log = sw.log
        assert rc == 0, log[-2000:]
        assert "mbufs in use at exit: 0\n" in log, log[-2000:]
        assert "phy: its driver kept " in log, log[-2000:]


# -------------------------------------------------- traffic both ways
#
#     netns vm                 root ns                        netns vtep
#     tap 192.1.0.2 <-> net_tap0 [vxswitch] net_af_xdp0 == veth == 172.1.0.1
#                                 (VTEP 172.1.0.100)          vx0 192.1.0.1
#
# The switch sends as well as receives on the AF_XDP socket: a frame it
# sends stays in the driver (its completion ring) until the driver's next
# send. DPDK 22.11 never collects those at close, so after the last burst
# one mbuf or more was missing at exit (exit code 3); the switch now sends
# empty bursts at shutdown until the driver hands them back
# (port_ethdev_stop's tx drain).

VNI, VTEP_IP, KVTEP_IP = 1001, "172.1.0.100", "172.1.0.1"
VM_IP, KHOST_IP = "192.1.0.2", "192.1.0.1"


def vtep_topology(iface, tap):
    return {
        "eal": {"memory-mb": 256},
        "underlay": {"port": "phy", "local-ip": VTEP_IP + "/24"},
        "ports": [
            {"name": "tap", "type": "dpdk",
             "devargs": "net_tap0,iface=%s" % tap},
            {"name": "vxlan", "type": "vxlan",
             "options": {"remote_ip": "flow", "key": "flow",
                         "dst_port": 4789, "vnis": [VNI]}},
            {"name": "phy", "type": "dpdk",
             "devargs": "net_af_xdp0,iface=%s,start_queue=0,"
                        "queue_count=1" % iface},
        ],
        "flows": [
            "in_port=tap,actions=set_tunnel:%d,set_field:%s->tun_dst,"
            "output:vxlan" % (VNI, KVTEP_IP),
            "in_port=vxlan,actions=output:tap",
        ],
    }


def test_af_xdp_both_ways_exits_clean(make_switch, rundir):
    """Ping and TCP both ways between a VM (tap in a netns) and a host
    behind a Linux VXLAN device, over net_af_xdp; then SIGTERM: exit 0,
    every mbuf back but the fill ring's."""
    from vxswitch_tools import hostnet, netns_apps
    if not any("af_xdp" in f for f in
               os.listdir("/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0")):
        pytest.skip("no net_af_xdp driver installed")
    tag = "%d" % (os.getpid() % 100000)
    phy, peer, tap = "xdu%s" % tag, "xdp%s" % tag, "xdtap%s" % tag
    with vxlib.netns("xvtep%s" % tag) as vtep, \
            vxlib.netns("xvm%s" % tag) as vm, \
            vxlib.veth_pair(phy, peer, ns=vtep, mtu=1500, up=False):
        hostnet.kernel_vtep(phy, peer, vtep, KHOST_IP + "/24", KVTEP_IP,
                            VTEP_IP, VNI, 1450)
        try:
            sw = make_switch(vtep_topology(phy, tap), env=SAN_ENV,
                             ready_timeout=60.0)
        except vxlib.HarnessError as e:
            if "af_xdp" in str(e).lower() or "xsk" in str(e).lower():
                pytest.skip("AF_XDP cannot run here: %s" % str(e)[-300:])
            raise
        vxlib.sh(["ip", "link", "set", tap, "netns", vm])
        vxlib.sh(["ip", "link", "set", tap, "mtu", "1450"], ns=vm)
        vxlib.sh(["ip", "addr", "add", VM_IP + "/24", "dev", tap], ns=vm)
        vxlib.sh(["ip", "link", "set", tap, "up"], ns=vm)

        for ns, dst in ((vm, KHOST_IP), (vtep, VM_IP)):
            p = netns_apps.ping(ns, dst, count=5)
            assert p["received"] >= 4, (p["output"], sw.ctl("show"))
        for direction in ("upload", "download"):
            netns_apps.tcp_transfer(vm, vtep, KHOST_IP, 2 * 1024 * 1024,
                                    direction=direction)
        st = P.pmd_stats(sw)
        assert st["tunnel_pops"] > 1000 and st["tunnel_pushes"] > 1000, st
        ports = {p["name"]: p for p in sw.ctl("show", json=True)["ports"]}
        assert ports["phy"]["tx_packets"] > 1000, ports["phy"]

        rc = sw.stop()
        log = sw.log
        assert rc == 0, log[-2000:]
        assert "mbufs in use at exit: 0\n" in log, log[-2000:]
