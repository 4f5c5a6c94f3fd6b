# SPDX-License-Identifier: BSD-3-Clause
"""Robustness of a running vxswitch, with live traffic on a real wire.

The NIC is net_af_packet on a veth whose peer sits in a netns owned by the
test (pktlib.Wire); the test plays the remote VTEP 172.1.0.0 from there,
sending frames and reading what the switch sends, at any moment of the run.
The VMs are testpmd virtio-user ports in macswap (vxlib.Testpmd): a VXLAN
frame for VM i is decapsulated, delivered, swapped, re-encapsulated and
comes back on the wire.

  drops       every kind of bad underlay frame is dropped, counted under
              exactly one reason, exactly once, and goes nowhere
  arp         the VTEP answers ARP, learns, tnl/arp/set|flush; an unknown
              remote VTEP MAC is resolved by an ARP request (no_neigh
              drops meanwhile), then the learned MAC is used
  vm restart  SIGKILL of the VMs' testpmd: ports go down, port_down drops,
              a new testpmd on the same sockets brings them back; three
              clean stop/start cycles
  64 VMs      dpdkvhostuser (server) ports, two testpmds of 32 ports each
  telemetry   dpdk-telemetry.py agrees with vxswitch-ctl
  shutdown    SIGINT/SIGTERM exit 0 with no mbuf in use; --detach/--pidfile
"""

import contextlib
import os
import re
import signal
import subprocess
import threading
import time

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Ether
from scapy.layers.vxlan import VXLAN

from vxswitch_tools import packets as P
from vxswitch_tools import harness as vxlib
from vxswitch_tools.addressing import SEED
from vxswitch_tools.forwarding_rig import settle, start_rig, wait_packets


# ---------------------------------------------------------------- set-up

def round_trip(sw, wire, vm, n=3, timeout=10):
    """Sends n frames for VM `vm`; all n must come back encapsulated, as
    that VM sent them back. Returns the frames."""
    wire.send([P.vxlan_to_vm(vm, sport=40000 + k) for k in range(n)])
    return wire.expect(lambda b: P.is_vxlan(b, vm=vm), n=n,
                       timeout=timeout)


# ----------------------------------------------------------------- drops

def _bad_ihl(k):
    b = bytearray(bytes(P.vxlan_to_vm(0, sport=k)))
    b[14] = 0x44                    # IHL 4 (< 5), checksum still valid
    return P.ip_csum_fix(b)


def _bad_ip_csum(k):
    b = bytearray(bytes(P.vxlan_to_vm(0, sport=k)))
    b[24] ^= 0xFF
    return bytes(b)


def _bad_udp_csum(k):
    p = Ether(P.vxlan_to_vm(0, sport=k))
    p[UDP].chksum = 0x1234          # wrong (0 would mean "none")
    return bytes(p)


def _ip_len_too_big(k):
    b = bytearray(bytes(P.vxlan_to_vm(0, sport=k)))
    b[16:18] = (len(b) - 14 + 40).to_bytes(2, "big")
    return P.ip_csum_fix(b)


def _inner_truncated(k):
    """A good outer VXLAN header around an inner IPv4 header that claims
    more than is there: the inner parse must reject it."""
    inner = bytearray(bytes(P.inner_frame(0, sport=k, size=78)))
    inner[16:18] = (1400).to_bytes(2, "big")
    inner = P.ip_csum_fix(inner)
    return bytes(Ether(src=P.REMOTE_MAC, dst=P.VTEP_MAC) /
                 IP(src=P.REMOTE_IP, dst=P.VTEP_IP, flags="DF") /
                 UDP(sport=50000, dport=4789, chksum=0) /
                 VXLAN(flags=0x08, vni=P.VNI) / inner)


def _runt(k):
    """An Ethernet header saying IPv4 and 2 bytes (or none) after it."""
    h = bytes(Ether(src=P.REMOTE_MAC, dst=P.VTEP_MAC, type=0x0800))
    return h + (b"\x45\x00" if k % 2 else b"")


# (drop reason, label, k -> frame): the brief's cases first
BAD = [
    ("unknown_vni", "vni 2002", lambda k: P.vxlan_to_vm(0, sport=k, vni=2002)),
    ("not_vtep", "udp port 4790",
     lambda k: P.vxlan_to_vm(0, sport=k, udp_dport=4790)),
    ("bad_vxlan", "vxlan flags 0x00",
     lambda k: P.vxlan_to_vm(0, sport=k, flags=0x00)),
    ("malformed", "truncated in the vxlan header",
     lambda k: bytes(P.vxlan_to_vm(0, sport=k))[:14 + 20 + 8 + 4]),
    ("malformed", "ip ihl 4", _bad_ihl),
    ("malformed", "runt", _runt),
    ("not_vtep", "ip dst 172.1.0.99",
     lambda k: P.vxlan_to_vm(0, sport=k, dst_ip="172.1.0.99")),
    # more of the same families
    ("malformed", "ip total length past the frame", _ip_len_too_big),
    ("malformed", "inner ip truncated", _inner_truncated),
    ("bad_vxlan", "outer ip checksum", _bad_ip_csum),
    ("bad_vxlan", "outer udp checksum", _bad_udp_csum),
    ("not_vtep", "tcp to the vtep",
     lambda k: Ether(src=P.REMOTE_MAC, dst=P.VTEP_MAC) /
     IP(src=P.REMOTE_IP, dst=P.VTEP_IP) / TCP(sport=k, dport=4789)),
    ("not_vtep", "ipv6",
     lambda k: Ether(src=P.REMOTE_MAC, dst=P.VTEP_MAC) /
     IPv6(src="fe80::2", dst="fe80::1") / UDP(sport=k, dport=4789)),
    ("arp_ignored", "arp for another ip",
     lambda k: P.arp_request(tpa="172.1.0.%d" % (150 + k % 50))),
    ("no_rule", "inner dst with no flow",
     lambda k: P.vxlan_to_vm(7, sport=k)),
]


def test_drops_counted_by_reason(make_switch, make_testpmd, rundir, wire):
    sw, vms = start_rig(make_switch, make_testpmd, rundir, wire)
    # the path works: a good frame comes back (so "nothing came back"
    # below means something)
    round_trip(sw, wire, 0, n=1)
    round_trip(sw, wire, 1, n=1)
    # The frame is on the wire a moment before the PMD counts it sent:
    # take the baseline once the counters say both round trips are done.
    def settled():
        ports = {p["name"]: p for p in sw.show()["ports"]}
        return ports if ports["dpdk-phy"]["tx_packets"] == 2 else None
    base_ports = vxlib.wait_for(settled, 5, 0.05,
                                "counters of the round trips")

    for n_kind, (reason, label, build) in enumerate(BAD):
        n = 3 + n_kind % 4          # a different count per case
        st0 = P.pmd_stats(sw)
        frames = [build(1000 * n_kind + k) for k in range(n)]
        wire.send(frames)
        st1 = settle(sw, st0, n)
        assert st1["packets"] - st0["packets"] == n, label
        assert P.drops_delta(st0["drops"], st1["drops"]) == {reason: n}, \
            "%s: expected exactly %d %s drops" % (label, n, reason)
        assert st1["tunnel_pushes"] == st0["tunnel_pushes"], label
        assert st1["arp_replies"] == st0["arp_replies"], label

    # nothing reached a VM, nothing went back out of the NIC
    back = wire.drain(0.5)
    assert back == [], "%d frames came back, first: %r" % (
        len(back), Ether(back[0]).summary())
    ports = {p["name"]: p for p in sw.show()["ports"]}
    for name in ("vhost-user0", "vhost-user1", "dpdk-phy"):
        assert ports[name]["tx_packets"] == base_ports[name]["tx_packets"]
        assert ports[name]["tx_dropped"] == 0
    for name in ("vhost-user0", "vhost-user1"):
        assert ports[name]["rx_packets"] == base_ports[name]["rx_packets"]
    total = sum(3 + i % 4 for i in range(len(BAD)))
    assert (ports["dpdk-phy"]["rx_packets"] -
            base_ports["dpdk-phy"]["rx_packets"]) == total

    # and the good path still works after all that
    round_trip(sw, wire, 1, n=2)
    assert sum(P.pmd_drops(sw).values()) == total
    vms.stop()


# ------------------------------------------------------------------- ARP

def arp_table(sw):
    return {e["ip"]: (e["mac"].lower(), e["static"])
            for e in sw.ctl("tnl/arp/show", json=True)}


def test_arp_responder_and_table(make_switch, make_testpmd, rundir, wire):
    sw, _ = start_rig(make_switch, make_testpmd, rundir, wire)
    req_mac, req_ip = "02:00:00:00:00:07", "172.1.0.7"
    assert arp_table(sw) == {P.REMOTE_IP: (P.REMOTE_MAC, True)}

    st0 = P.pmd_stats(sw)
    wire.send([P.arp_request(tpa=P.VTEP_IP, spa=req_ip, sha=req_mac)])
    rep = Ether(wire.expect(lambda b: P.is_arp(b), n=1, timeout=5)[0])
    a = rep[ARP]
    assert (rep.dst, rep.src, rep.type) == (req_mac, P.VTEP_MAC, 0x0806)
    assert (a.hwtype, a.ptype, a.hwlen, a.plen) == (1, 0x0800, 6, 4)
    assert a.op == 2
    assert (a.hwsrc, a.psrc) == (P.VTEP_MAC, P.VTEP_IP)
    assert (a.hwdst, a.pdst) == (req_mac, req_ip)
    assert P.pmd_stats(sw)["arp_replies"] == st0["arp_replies"] + 1
    vxlib.wait_for(lambda: req_ip in arp_table(sw), 5,
                   what="requester in tnl/arp/show")
    assert arp_table(sw)[req_ip] == (req_mac, False)
    text = sw.ctl("tnl/arp/show")
    line = [l for l in text.splitlines() if l.startswith(req_ip + " ")]
    assert len(line) == 1 and req_mac in line[0], text

    # a request for another address: no reply, not learned
    wire.send([P.arp_request(tpa="172.1.0.55", spa="172.1.0.8",
                             sha="02:00:00:00:00:08")])
    assert not [b for b in wire.drain(0.5) if P.is_arp(b)]
    assert "172.1.0.8" not in arp_table(sw)

    # static entries: tnl/arp/set [BRIDGE] IP MAC
    sw.ctl("tnl/arp/set", "br-phy", "172.1.0.9", "02:00:00:00:00:09")
    sw.ctl("tnl/arp/set", "172.1.0.10", "02:00:00:00:00:0a")
    t = arp_table(sw)
    assert t["172.1.0.9"] == ("02:00:00:00:00:09", True)
    assert t["172.1.0.10"] == ("02:00:00:00:00:0a", True)
    assert [l for l in sw.ctl("tnl/arp/show").splitlines()
            if l.startswith("172.1.0.9 ")][0].split()[1] == \
        "02:00:00:00:00:09"

    # flush drops the dynamic entries only
    sw.ctl("tnl/arp/flush")
    assert arp_table(sw) == {
        P.REMOTE_IP: (P.REMOTE_MAC, True),
        "172.1.0.9": ("02:00:00:00:00:09", True),
        "172.1.0.10": ("02:00:00:00:00:0a", True)}

    # a learned address never overrides a static one
    wire.send([P.arp_request(tpa=P.VTEP_IP, spa="172.1.0.9",
                             sha="02:00:00:00:00:99")])
    wire.expect(lambda b: P.is_arp(b, op=2), n=1, timeout=5)
    time.sleep(0.2)
    assert arp_table(sw)["172.1.0.9"] == ("02:00:00:00:00:09", True)


def test_table_limits_and_aging(make_switch, make_testpmd, rundir, wire):
    """Issue 9: a full neighbour table refuses tnl/arp/set with an error
    naming the limit and refuses (and counts) learned entries; a flow
    batch past max-flows is refused whole; the switch keeps forwarding;
    learned entries age out (tnl/neigh/aging) and static ones stay."""
    sw, _ = start_rig(make_switch, make_testpmd, rundir, wire,
                      datapath={"max-neighbours": 8, "max-flows": 8,
                                "neigh-aging": 2})
    lim = sw.ctl("limits/show", json=True)
    assert lim["neighbours"] == {"entries": 1, "limit": 8, "refused": 0}
    assert lim["neigh_aging_s"] == 2
    assert sw.ctl("tnl/neigh/aging").strip() == "2"

    # a learned flood of 20 distinct senders: 7 fit beside the static one
    wire.send([P.arp_request(tpa=P.VTEP_IP, spa="172.1.0.%d" % (20 + k),
                             sha="02:00:00:00:01:%02x" % k)
               for k in range(20)])
    wire.expect(lambda b: P.is_arp(b, op=2), n=20, timeout=5)
    vxlib.wait_for(lambda: sw.ctl("limits/show", json=True)
                   ["neigh_learn_refused"] == 13, 5,
                   what="13 learned entries refused")
    assert len(arp_table(sw)) == 8
    r = sw.ctl_result("tnl/arp/set", "172.1.0.99", "02:00:00:00:00:99")
    assert r.returncode == 1, r
    assert "neighbour table full" in r.stderr, r
    assert "max-neighbours" in r.stderr and "8" in r.stderr, r
    assert "172.1.0.99" not in arp_table(sw)

    # flows: 4 in the topology (2 VMs), 8 at most: 5 more refused whole
    n_flows = len(sw.ctl("dump-flows", json=True))
    more = ["priority=5,ip,nw_dst=10.9.0.%d,actions=drop" % k
            for k in range(9 - n_flows)]
    f = rundir / "more.flows"
    f.write_text("\n".join(more) + "\n")
    r = sw.ctl_result("add-flows", str(f))
    assert r.returncode == 1 and "max-flows" in r.stderr, r
    assert len(sw.ctl("dump-flows", json=True)) == n_flows
    assert sw.ctl("limits/show", json=True)["flows"]["refused"] == len(more)

    # still forwarding, both ways, with the tables full
    for vm in (0, 1):
        round_trip(sw, wire, vm)

    # aging: the learned ones go within the aging time (plus a sweep),
    # the static one stays; room again for tnl/arp/set
    vxlib.wait_for(lambda: arp_table(sw) ==
                   {P.REMOTE_IP: (P.REMOTE_MAC, True)}, 6,
                   what="learned entries aged out")
    assert sw.ctl("limits/show", json=True)["neigh_aged"] == 7
    sw.ctl("tnl/arp/set", "172.1.0.99", "02:00:00:00:00:99")
    ent = [e for e in sw.ctl("tnl/arp/show", json=True)
           if e["ip"] == "172.1.0.99"]
    assert ent == [{"ip": "172.1.0.99", "mac": "02:00:00:00:00:99",
                    "static": True, "expires_s": None}]
    round_trip(sw, wire, 0)


def test_arp_resolves_remote_vtep(make_switch, make_testpmd, rundir, wire):
    """No static ARP for 172.1.0.0: the VMs' traffic makes the switch ask
    for it, is dropped as no_neigh until the reply, then uses its MAC."""
    sw, _ = start_rig(make_switch, make_testpmd, rundir, wire,
                      static_arp=False)
    assert arp_table(sw) == {}
    learned = "02:aa:bb:cc:dd:01"

    st0 = P.pmd_stats(sw)
    n = 4
    wire.send([P.vxlan_to_vm(0, sport=40000 + k) for k in range(n)])
    req = Ether(wire.expect(lambda b: P.is_arp(b, op=1), n=1,
                            timeout=10)[0])
    a = req[ARP]
    assert (req.dst, req.src) == ("ff:ff:ff:ff:ff:ff", P.VTEP_MAC)
    assert (a.hwsrc, a.psrc, a.pdst) == (P.VTEP_MAC, P.VTEP_IP, P.REMOTE_IP)
    assert a.hwdst == "00:00:00:00:00:00"
    # every frame the VM sent back was dropped for want of the MAC: the
    # 4 from the NIC plus the 4 from the VM went through the PMD
    wait_packets(sw, st0["packets"] + 2 * n)
    vxlib.wait_for(lambda: P.pmd_drops(sw)["no_neigh"] -
                   st0["drops"]["no_neigh"] == n, 5,
                   what="%d no_neigh drops" % n)
    st1 = P.pmd_stats(sw)
    assert P.drops_delta(st0["drops"], st1["drops"]) == {"no_neigh": n}
    assert st1["tunnel_pushes"] == st0["tunnel_pushes"]
    assert not [b for b in wire.drain(0.3) if P.is_vxlan(b)]

    # the remote VTEP answers; the entry is dynamic
    wire.send([P.arp_reply(sha=learned, spa=P.REMOTE_IP)])
    vxlib.wait_for(lambda: P.REMOTE_IP in arp_table(sw), 5,
                   what="172.1.0.0 learned")
    assert arp_table(sw)[P.REMOTE_IP] == (learned, False)

    # from now on frames are encapsulated towards the learned MAC
    got = round_trip(sw, wire, 0, n=3) + round_trip(sw, wire, 1, n=3)
    for b in got:
        p = Ether(b)
        assert (p.dst, p.src) == (learned, P.VTEP_MAC)
        assert (p[IP].src, p[IP].dst) == (P.VTEP_IP, P.REMOTE_IP)
        assert p[VXLAN].vni == P.VNI
    assert P.pmd_drops(sw)["no_neigh"] == st1["drops"]["no_neigh"]

    # a changed MAC (new ARP reply) is followed too
    wire.send([P.arp_reply(sha="02:aa:bb:cc:dd:02", spa=P.REMOTE_IP)])
    vxlib.wait_for(lambda: arp_table(sw).get(P.REMOTE_IP, ("",))[0] ==
                   "02:aa:bb:cc:dd:02", 5, what="new MAC learned")
    got = round_trip(sw, wire, 0, n=2)
    assert {Ether(b).dst for b in got} == {"02:aa:bb:cc:dd:02"}


# ---------------------------------------------------- VM disconnects

class Sender:
    """Background traffic to VMs 0 and 1 (a frame every `gap` s, 64
    microflows)."""

    def __init__(self, wire, vms=(0, 1), gap=0.001):
        self.wire, self.gap = wire, gap
        self.frames = [bytes(P.vxlan_to_vm(vms[k % len(vms)], sport=k))
                       for k in range(64)]
        self.sent = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.wire.send([self.frames[self.sent % len(self.frames)]])
            self.sent += 1
            time.sleep(self.gap)

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join(5)


def vhost_ports(sw):
    return {p["name"]: p for p in sw.show()["ports"]
            if p["type"].startswith("dpdkvhostuser")}


def wait_state(sw, state, timeout=20):
    last = {}

    def ok():
        last.update({n: p["state"] for n, p in vhost_ports(sw).items()})
        return all(s == state for s in last.values())
    vxlib.wait_for(ok, timeout, 0.1,
                   lambda: "vhost ports %s (now %s)" % (state, last))


@pytest.mark.parametrize("vhost_type", ["dpdkvhostuserclient",
                                        "dpdkvhostuser"])
def test_vm_killed_and_reconnected(make_switch, make_testpmd, rundir, wire,
                                   vhost_type):
    sw, vms = start_rig(make_switch, make_testpmd, rundir, wire,
                        vhost_type=vhost_type)
    assert {n: p["connects"] for n, p in vhost_ports(sw).items()} == \
        {"vhost-user0": 1, "vhost-user1": 1}

    with Sender(wire):
        wire.expect(lambda b: P.is_vxlan(b, vm=0), n=20, timeout=10)
        wire.expect(lambda b: P.is_vxlan(b, vm=1), n=20, timeout=10)
        d0 = P.pmd_drops(sw)["port_down"]
        vxlib._kill(vms.proc, signal.SIGKILL)
        vms.proc.wait(10)
        wait_state(sw, "down")
        assert sw.running
        # traffic to the VMs that are gone is counted, not sent
        vxlib.wait_for(lambda: P.pmd_drops(sw)["port_down"] > d0 + 10, 10,
                       what="port_down drops while the VMs are away")
    assert sw.running
    vms.kill()                      # cleans its files

    # exact: n frames for a missing VM are n port_down drops, nothing else
    wire.drain(0.3)
    st0 = P.pmd_stats(sw)
    n = 7
    wire.send([P.vxlan_to_vm(k % 2, sport=k) for k in range(n)])
    st1 = settle(sw, st0, n)
    assert P.drops_delta(st0["drops"], st1["drops"]) == {"port_down": n}
    assert wire.drain(0.3) == []

    # a new VM process on the same sockets: the switch reconnects by itself
    vms2 = make_testpmd(sockets=vms.sockets, name="vms2",
                        server=vms.server)
    vms2.wait_ready()
    wait_state(sw, "up")
    assert {n: p["connects"] for n, p in vhost_ports(sw).items()} == \
        {"vhost-user0": 2, "vhost-user1": 2}
    round_trip(sw, wire, 0, n=5)
    round_trip(sw, wire, 1, n=5)
    vxlib.assert_no_mbuf_leak(sw)
    assert vms2.stop() == 0
    assert vms2.stats[0]["rx"] == 5 and vms2.stats[1]["rx"] == 5


def test_vm_clean_restart_cycles(make_switch, make_testpmd, rundir, wire):
    sw, vms = start_rig(make_switch, make_testpmd, rundir, wire)
    sockets = vms.sockets
    for cycle in range(1, 4):
        round_trip(sw, wire, 0, n=2)
        round_trip(sw, wire, 1, n=2)
        assert vms.stop() == 0, vms.log_tail()
        assert vms.stats[0]["rx"] == 2 and vms.stats[1]["rx"] == 2
        wait_state(sw, "down")
        vms = make_testpmd(sockets=sockets, name="vms%d" % cycle)
        vms.wait_ready()
        wait_state(sw, "up")
        assert {n: p["connects"] for n, p in vhost_ports(sw).items()} == \
            {"vhost-user0": cycle + 1, "vhost-user1": cycle + 1}
    round_trip(sw, wire, 0, n=2)
    round_trip(sw, wire, 1, n=2)
    assert sum(P.pmd_drops(sw).values()) == 0
    assert sw.running


# ---------------------------------------------------------------- 64 VMs

def hugepage_mb(pid):
    """MB of hugepage files mapped by a process (EAL unlinks them)."""
    total = 0
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            if str(vxlib.HUGE_MNT) + "/" in line:
                a, b = line.split()[0].split("-")
                total += int(b, 16) - int(a, 16)
    return total >> 20


MEM_64 = int(os.environ.get("VXS_MEM_64", "128"))


def test_64_vms(make_switch, make_testpmd, rundir, wire):
    """64 dpdkvhostuser ports (the switch owns the sockets), two testpmds
    of 32 virtio-user clients each (testpmd itself is bounded by
    RTE_MAX_ETHPORTS = 32). Every port comes up, and VM 63 answers."""
    t0 = time.monotonic()
    topo = P.topology(wire.devargs(), rundir, n_vms=64,
                      vhost_type="dpdkvhostuser", memory_mb=MEM_64)
    sw = make_switch(topo)
    socks = vxlib.vhost_paths(topo, type="dpdkvhostuser")
    assert len(socks) == 64 and all(s.exists() for s in socks)
    halves = []
    for h in range(2):
        idx = range(32 * h, 32 * h + 32)
        halves.append(make_testpmd(
            sockets=[socks[i] for i in idx], name="vms%d" % h, server=False,
            macs=[SEED.mac(i) for i in idx]))
    for tp in halves:
        tp.wait_ready(timeout=60)
    sw.wait_ports_up(timeout=60)
    pool = sw.mempool()
    sw_mb = hugepage_mb(sw.pid)
    ports = vhost_ports(sw)
    assert len(ports) == 64
    assert all(p["state"] == "up" and p["connects"] == 1
               for p in ports.values())
    wire.drain(0.2)
    for vm in (63, 32, 31, 0):
        got = round_trip(sw, wire, vm, n=2)
        p = Ether(got[0])
        assert p[VXLAN].payload.src == SEED.mac(vm)
        assert p[VXLAN][IP].dst == SEED.ip(vm)
    assert vhost_ports(sw)["vhost-user63"]["tx_packets"] == 2
    assert vhost_ports(sw)["vhost-user63"]["rx_packets"] == 2
    for tp in halves:
        assert tp.stop(timeout=20) == 0
    assert halves[1].stats[31]["rx"] == 2 and halves[1].stats[31]["tx"] == 2
    assert halves[1].stats[0]["rx"] == 2 and halves[0].stats[31]["rx"] == 2
    print("64 VMs: %.1f s, switch: pool %s, %d MB of hugepages"
          % (time.monotonic() - t0, pool, sw_mb))


# ------------------------------------------------------------- telemetry

def test_telemetry_matches_ctl(make_switch, make_testpmd, rundir, wire):
    sw, _ = start_rig(make_switch, make_testpmd, rundir, wire)
    round_trip(sw, wire, 0, n=4)
    round_trip(sw, wire, 1, n=2)
    wire.send([P.vxlan_to_vm(0, vni=2002), P.vxlan_to_vm(0, udp_dport=4790)])
    vxlib.wait_for(lambda: P.pmd_stats(sw)["packets"] >= 14, 5)
    time.sleep(0.1)

    show = {p["name"]: p for p in sw.show()["ports"]}
    pmd = P.pmd_stats(sw)
    names = list(show)
    cmds = (["/vxswitch/ports"] +
            ["/vxswitch/port_stats,%s" % n for n in names] +
            ["/vxswitch/port_stats,%d" % (len(names) - 1),
             "/vxswitch/pmd_stats,1", "/vxswitch/port_stats,nosuch",
             "/vxswitch/pmd_stats,7"])
    replies = vxlib.telemetry(sw.prefix, *cmds)
    assert replies[0] == {"/vxswitch/ports": names}
    for name, rep in zip(names, replies[1:1 + len(names)]):
        st = rep["/vxswitch/port_stats"]
        want = show[name]
        assert st["name"] == name and st["type"] == want["type"]
        assert st["state"] == want["state"]
        for k in ("rx_packets", "rx_bytes", "tx_packets", "tx_bytes",
                  "tx_dropped"):
            assert st[k] == want[k], (name, k, st, want)
    # by index: the last port, the NIC
    assert replies[1 + len(names)]["/vxswitch/port_stats"]["name"] == \
        names[-1]
    # 6 frames in and 6 out per direction, plus the 2 dropped ones
    assert show["dpdk-phy"]["rx_packets"] == 8
    assert show["dpdk-phy"]["tx_packets"] == 6
    tel = replies[2 + len(names)]["/vxswitch/pmd_stats"]
    assert tel["core"] == 1
    for k in ("packets", "emc_hits", "megaflow_hits", "upcalls",
              "tunnel_pops", "tunnel_pushes"):
        assert tel[k] == pmd[k], (k, tel, pmd)
    for reason, v in pmd["drops"].items():
        assert tel["drop_" + reason] == v, reason
    assert tel["drop_unknown_vni"] == 1 and tel["drop_not_vtep"] == 1
    assert tel["packets"] == 14 and tel["tunnel_pushes"] == 6
    assert tel["mbufs_in_use"] == sw.mempool()["in_use"]
    # bad parameters: no data
    assert replies[-2] == {"/vxswitch/port_stats": None}
    assert replies[-1] == {"/vxswitch/pmd_stats": None}


# -------------------------------------------------------------- shutdown

@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM],
                         ids=["SIGINT", "SIGTERM"])
def test_shutdown_signal(make_switch, make_testpmd, rundir, wire, sig):
    sw, vms = start_rig(make_switch, make_testpmd, rundir, wire)
    with Sender(wire, gap=0.002):
        wire.expect(lambda b: P.is_vxlan(b), n=50, timeout=10)
        t = time.monotonic()
        rc = sw.stop(sig=sig, timeout=15)
        took = time.monotonic() - t
    assert rc == 0, sw.log_tail()
    log = sw.log
    assert "vxswitch: shutting down (signal)" in log
    assert "mbufs in use at exit: 0\n" in log, sw.log_tail()
    assert took < 10
    # its files are gone: control socket, runtime dir
    assert not sw.ctl_socket.exists()
    vms.stop()


def test_detach_pidfile(build_dir, hugepages, rundir, tmp_path, wire):
    topo = P.topology(wire.devargs(), rundir, n_vms=1)
    # the switch object only to write the file and name things; started
    # by hand below since the foreground process exits at once
    sw = vxlib.Switch(topo, tmp_path, rundir=rundir, name="daemon",
                      start=False)
    cfg = sw.write_config()
    pidfile = rundir / "vxswitch.pid"
    log = tmp_path / "daemon.log"
    pid = None
    try:
        with open(log, "wb") as f:
            fg = subprocess.Popen([str(sw.bin), "--config", str(cfg),
                                   "--detach", "--pidfile", str(pidfile),
                                   "--log-file", str(log)],
                                  stdin=subprocess.DEVNULL, stdout=f,
                                  stderr=subprocess.STDOUT)
            rc = fg.wait(20)
        assert rc == 0, log.read_text()
        vxlib.wait_for(lambda: pidfile.exists() and
                       pidfile.read_text().endswith("\n"), 10,
                       what="pidfile")
        pid = int(pidfile.read_text())
        assert pid != fg.pid and os.path.exists("/proc/%d" % pid)
        # it is a daemon: its own session, not our child
        assert os.getsid(pid) == pid
        vxlib.wait_for(lambda: sw.ctl_result("show").returncode == 0, 20,
                       what="daemon's control socket")
        assert sw.ctl("show", json=True)["ports"][0]["name"] == "vhost-user0"
        os.kill(pid, signal.SIGTERM)
        vxlib.wait_for(lambda: not os.path.exists("/proc/%d" % pid) or
                       "zombie" in _proc_state(pid), 15,
                       what="daemon to exit on SIGTERM")
        pid = None
        vxlib.wait_for(lambda: not pidfile.exists(), 5,
                       what="pidfile removed")
        text = log.read_text()   # detached: the log file, not stdout
        assert "mbufs in use at exit: 0" in text, text
        assert not sw.ctl_socket.exists()
    finally:
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.5)
        vxlib.cleanup_dpdk_prefix(sw.prefix)


def _proc_state(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("State:"):
                    return line
    except OSError:
        return "gone"
    return ""


def test_pidfile_errors(build_dir, hugepages, rundir, tmp_path, wire):
    """A pidfile that cannot be written is an error the caller sees (exit
    1 from the foreground process even with --detach, nothing started);
    a start-up that fails after the pidfile was written removes it."""
    topo = P.topology(wire.devargs(), rundir, n_vms=1)
    sw = vxlib.Switch(topo, tmp_path, rundir=rundir, name="pidf",
                      start=False)
    cfg = sw.write_config()
    try:
        for detach in ([], ["--detach"]):
            r = subprocess.run([str(sw.bin), "--config", str(cfg), *detach,
                                "--pidfile", str(rundir / "no" / "x.pid")],
                               capture_output=True, text=True, timeout=20,
                               stdin=subprocess.DEVNULL)
            assert r.returncode == 1, (detach, r)
            assert "cannot write pidfile" in r.stderr
            time.sleep(0.3)
            assert not sw.ctl_socket.exists()
            assert not (vxlib.DPDK_RUN / sw.prefix).exists()
        pidfile = rundir / "x.pid"
        r = subprocess.run([str(sw.bin), "--config", str(cfg), "--pidfile",
                            str(pidfile), "--eal-args", "--no-such-eal-opt"],
                           capture_output=True, text=True, timeout=20,
                           stdin=subprocess.DEVNULL)
        assert r.returncode == 1 and "EAL init failed" in r.stderr, r
        assert not pidfile.exists()
    finally:
        vxlib.cleanup_dpdk_prefix(sw.prefix)


def test_pcap_multiseg_infinite_rx_refused(make_switch, rundir, tmp_path):
    """net_pcap's infinite_rx cannot replay a frame larger than one mbuf:
    DPDK 22.11 fails the rx queue set-up and leaks that frame's mbuf chain
    (the fuzz saw "mbufs in use at exit: 5"). The switch refuses the pcap
    before probing it, names the packet, and exits with nothing leaked."""
    good = P.vxlan_to_vm(0)
    jumbo = Ether(dst=P.VTEP_MAC) / IP() / UDP() / (b"j" * 9000)
    pcap = vxlib.write_pcap(tmp_path / "jumbo.pcap", [good, jumbo, good])
    topo = P.topology("net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap, rundir)
    sw = make_switch(topo, start=False)
    with pytest.raises(vxlib.HarnessError):
        sw.start()
    log = sw.log
    assert "packet 2 is %d bytes, more than one mbuf" % len(jumbo) in log, \
        log[-2000:]
    assert "Multiseg" not in log, log[-2000:]
    leaked = [int(n) for n in re.findall(r"mbufs in use at exit: (\d+)",
                                         log)]
    assert leaked in ([], [0]), log[-2000:]
