# SPDX-License-Identifier: BSD-3-Clause
"""Datapath hardening with real frames on a real wire (the rig of
test_robustness: net_af_packet on a veth played by the test as the remote
VTEP, testpmd macswap VMs on vhost-user):

  foreign MAC   VXLAN to a foreign unicast, zero or broadcast MAC, and ARP
                unicast to a foreign MAC: dropped as foreign_mac, never
                decapsulated; ARP with a bad opcode: arp_bad_op; ARP
                replies: arp_consumed. (Outer fragments: test_dp_accounting;
                net_af_packet's socket reassembles them, PACKET_FANOUT_FLAG_
                DEFRAG, so here they would arrive whole.)
  rewrites      mod_dl_dst:A,output:vhost-user0,mod_dl_dst:B,
                output:vhost-user1: each VM gets its own address
  vhost mtu     a vhost port's mtu: holds frames to the guest
The conftest checks the accounting equation after each.
"""

from scapy.layers.l2 import ARP, Ether
from scapy.layers.vxlan import VXLAN

from vxswitch_tools import packets as P
from vxswitch_tools import harness as vxlib
from vxswitch_tools.forwarding_rig import settle, start_rig


CASES = [
    ("foreign_mac", "foreign unicast",
     lambda k: [P.vxlan_to_vm(0, sport=k, dst_mac="02:00:00:00:00:99")]),
    ("foreign_mac", "zero mac",
     lambda k: [P.vxlan_to_vm(0, sport=k, dst_mac="00:00:00:00:00:00")]),
    ("foreign_mac", "broadcast vxlan",
     lambda k: [P.vxlan_to_vm(0, sport=k, dst_mac="ff:ff:ff:ff:ff:ff")]),
    ("foreign_mac", "arp to a foreign mac",
     lambda k: [bytes(Ether(src=P.REMOTE_MAC, dst="02:00:00:00:00:99") /
                      ARP(op=1, hwsrc=P.REMOTE_MAC, psrc=P.REMOTE_IP,
                          pdst=P.VTEP_IP))]),
    ("arp_bad_op", "arp opcode 3",
     lambda k: [bytes(Ether(src=P.REMOTE_MAC, dst=P.VTEP_MAC) /
                      ARP(op=3, hwsrc=P.REMOTE_MAC, psrc=P.REMOTE_IP,
                          hwdst=P.VTEP_MAC, pdst=P.VTEP_IP))]),
]


def test_underlay_drops_and_arp_accounting(make_switch, make_testpmd, rundir,
                                           wires):
    wire = P.Wire().__enter__()
    wires.append(wire)
    sw, vms = start_rig(make_switch, make_testpmd, rundir, wire)
    for reason, label, build in CASES:
        st0 = P.pmd_stats(sw)
        frames = [f for k in range(3) for f in build(k)]
        wire.send(frames)
        st1 = settle(sw, st0, len(frames))
        assert P.drops_delta(st0["drops"], st1["drops"]) == \
            {reason: len(frames)}, label
        assert st1["tunnel_pops"] == st0["tunnel_pops"], label
    assert wire.drain(0.3) == []

    # ARP replies for our VTEP: learned, counted as consumed, no drop
    st0 = P.pmd_stats(sw)
    wire.send([P.arp_reply(sha=P.REMOTE_MAC, spa=P.REMOTE_IP)
               for _ in range(20)])
    vxlib.wait_for(lambda: P.pmd_stats(sw)["arp_consumed"] -
                   st0["arp_consumed"] == 20, 10, 0.05,
                   what="20 ARP replies consumed")
    st1 = P.pmd_stats(sw)
    assert P.drops_delta(st0["drops"], st1["drops"]) == {}
    acc = st1["accounting"]
    assert acc["balanced"] and acc["consumed"] >= 20, acc
    assert wire.drain(0.3) == []
    vms.stop()


def test_per_output_rewrites(make_switch, make_testpmd, rundir, wires):
    wire = P.Wire().__enter__()
    wires.append(wire)
    sw, vms = start_rig(make_switch, make_testpmd, rundir, wire)
    a, b = "02:aa:00:00:00:0a", "02:bb:00:00:00:0b"
    sw.ctl("add-flow", "priority=40000,in_port=vxlan,ip,nw_dst=192.1.0.0,"
           "actions=mod_dl_dst:%s,output:vhost-user0,mod_dl_dst:%s,"
           "output:vhost-user1" % (a, b))
    copies0 = P.pmd_stats(sw)["copies"]
    wire.send([P.vxlan_to_vm(0, sport=41000)])
    # macswap: each VM sends back, from the address it was sent to
    back = wire.expect(lambda f: P.is_vxlan(f), n=2, timeout=10)
    srcs = sorted(Ether(f)[VXLAN].payload.src for f in back)
    assert srcs == [a, b], srcs
    assert P.pmd_stats(sw)["copies"] - copies0 == 1
    vms.stop()


def test_vhost_mtu_enforced(make_switch, make_testpmd, rundir, wires):
    wire = P.Wire().__enter__()
    wires.append(wire)
    topo = P.topology(wire.devargs(), rundir)
    topo["ports"][0]["mtu"] = 1000          # vhost-user0
    socks = vxlib.vhost_paths(topo, type="dpdkvhostuserclient")
    vms = make_testpmd(sockets=socks, name="vms")
    sw = make_switch(topo)
    vms.wait_ready()
    sw.wait_ports_up(timeout=30)
    wire.drain(0.2)

    st0 = P.pmd_stats(sw)
    # 1014-byte frame: fits (1000 + 14); 1015 and 1200: too long
    fits = P.vxlan_frame(P.inner_frame(0, sport=1, size=1014))
    wire.send([fits])
    wire.expect(lambda f: P.is_vxlan(f, vm=0), n=1, timeout=10)
    wire.send([P.vxlan_frame(P.inner_frame(0, sport=2, size=n))
               for n in (1015, 1200)])
    st1 = settle(sw, st0, 2)
    assert P.drops_delta(st0["drops"], st1["drops"]) == {"mtu_exceeded": 2}
    assert wire.drain(0.3) == []
    vms.stop()
