# SPDX-License-Identifier: BSD-3-Clause
"""Live-wire helpers for the robustness tests (test_robustness.py).

Instead of net_pcap (whose rx file replays once at start-up, before the VMs
are there), the switch's NIC is `net_af_packet` on the root-namespace end of
a veth pair whose other end lives in a network namespace the test owns.
The test plays the remote VTEP from inside that namespace: it sends frames
with a raw AF_PACKET socket and reads what the switch sends back on the
same socket, at any time during the run.

  Wire        netns + veth (IPv6 off on both ends, so the kernel sends
              nothing of its own), .sock: a raw socket on the netns end;
              send(frames), expect(pred, n), drain()
  topology()  the 2-VM (or N-VM) topology of topology/vxlan-2vm.yaml with
              the NIC on the veth; static ARP for the remote VTEP optional
  vxlan_to_vm(), vm_frame()  the frames the remote VTEP / a VM would send
  pmd_drops(), port_stat()   counters from vxswitch-ctl --json
"""

import contextlib
import ctypes
import os
import select
import socket
import threading
import time

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Ether
from scapy.layers.vxlan import VXLAN

import vxlib

VTEP_MAC = "10:00:00:00:00:01"
VTEP_IP = "172.1.0.100"
REMOTE_MAC = "10:00:00:00:00:02"
REMOTE_IP = "172.1.0.0"
VNI = 1001
INNER_REMOTE_MAC = "a0:00:00:00:00:02"
INNER_REMOTE_IP = "192.2.0.1"

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
CLONE_NEWNET = 0x40000000


def vm_ip(i):
    return "192.1.0.%d" % i


# ----------------------------------------------------------------- wire

def _socket_in_netns(ns, iface):
    """A raw AF_PACKET socket bound to `iface` in netns `ns`. setns() moves
    only the calling thread, so a short-lived thread does it; the socket
    keeps the namespace it was created in."""
    out = {}

    def run():
        try:
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            fd = os.open("/run/netns/%s" % ns, os.O_RDONLY)
            try:
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    e = ctypes.get_errno()
                    raise OSError(e, "setns(%s): %s" % (ns, os.strerror(e)))
            finally:
                os.close(fd)
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                              socket.htons(ETH_P_ALL))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            s.bind((iface, 0))
            out["sock"] = s
        except Exception as e:      # re-raised in the caller
            out["err"] = e
    t = threading.Thread(target=run)
    t.start()
    t.join()
    if "err" in out:
        raise out["err"]
    return out["sock"]


def _sysctl(key, value, ns=None):
    vxlib.sh(["sysctl", "-q", "-w", "%s=%s" % (key, value)], ns=ns,
             check=False)


class Wire:
    """The underlay link: veth ROOT (switch side, root netns) <-> PEER (in
    netns NS, the test's side). Use as a context manager.

        with Wire() as w:
            topo = topology(w.root_if, rundir)
            ...
            w.send([frame, ...])
            got = w.expect(lambda f: ..., n=1, timeout=5)
    """

    def __init__(self, tag=None):
        tag = tag or "%x" % ((os.getpid() * 7919 + id(self)) & 0xFFFFFF)
        self.root_if = ("vxr" + tag)[:15]
        self.peer_if = ("vxp" + tag)[:15]
        self._stack = contextlib.ExitStack()
        self.ns = None
        self.sock = None
        self.received = []          # every frame read so far, in order

    def __enter__(self):
        try:
            self.ns = self._stack.enter_context(vxlib.netns())
            self._stack.enter_context(vxlib.veth_pair(
                self.root_if, self.peer_if, ns=self.ns, up=False))
            # no IPv6 (router solicitations, MLD) nor anything else of the
            # kernel's own on the link: counters must see only our frames
            _sysctl("net.ipv6.conf.%s.disable_ipv6" % self.root_if, 1)
            _sysctl("net.ipv6.conf.%s.disable_ipv6" % self.peer_if, 1,
                    ns=self.ns)
            vxlib.sh(["ip", "link", "set", self.root_if, "up"])
            vxlib.sh(["ip", "link", "set", self.peer_if, "up"], ns=self.ns)
            self.sock = _socket_in_netns(self.ns, self.peer_if)
            self._stack.callback(self.sock.close)
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc):
        self._stack.close()

    @property
    def devargs(self):
        return "net_af_packet0,iface=%s" % self.root_if

    # -- send ----------------------------------------------------------
    def send(self, frames, gap=0.0):
        """Sends frames (scapy packets or bytes) out of the peer end, i.e.
        into the switch's NIC. gap: seconds between frames."""
        n = 0
        for f in frames:
            self.sock.send(bytes(f))
            n += 1
            if gap:
                time.sleep(gap)
        return n

    # -- receive -------------------------------------------------------
    def _read(self, timeout):
        """Frames that arrive within timeout (the first wait), then
        whatever is already queued. Our own sends are skipped."""
        got = []
        r, _, _ = select.select([self.sock], [], [], max(timeout, 0))
        while r:
            data, addr = self.sock.recvfrom(65535)
            if addr[2] != PACKET_OUTGOING:
                got.append(data)
            r, _, _ = select.select([self.sock], [], [], 0)
        self.received.extend(got)
        return got

    def drain(self, quiet=0.2):
        """Reads until nothing arrived for `quiet` seconds; returns it."""
        got = []
        while True:
            more = self._read(quiet)
            if not more:
                return got
            got += more

    def expect(self, pred=lambda b: True, n=1, timeout=10.0):
        """Waits until n received frames (bytes) satisfy pred; returns
        them (all frames read meanwhile stay in .received)."""
        deadline = time.monotonic() + timeout
        hits = []
        while len(hits) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(
                    "%d of %d expected frames on %s within %.0f s (%d "
                    "frames read)" % (len(hits), n, self.peer_if, timeout,
                                      len(self.received)))
            hits += [b for b in self._read(min(left, 0.2)) if pred(b)]
        return hits


# ------------------------------------------------------------- topology

def topology(devargs, rundir, n_vms=2, vhost_type="dpdkvhostuserclient",
             static_arp=True, memory_mb=256, vnis=(VNI,)):
    """topology/vxlan-2vm.yaml's shape with N VMs and the NIC on `devargs`.
    VM i: port vhost-user{i} at RUNDIR/vhost{i}.sock, inner 192.1.0.i."""
    ports = []
    flows = []
    for i in range(n_vms):
        ports.append({"name": "vhost-user%d" % i, "type": vhost_type,
                      "path": str(rundir / ("vhost%d.sock" % i))})
        flows.append("in_port=vhost-user%d,actions=set_tunnel:%d,"
                     "set_field:%s->tun_dst,set_field:%s->tun_src,"
                     "output:vxlan" % (i, VNI, REMOTE_IP, VTEP_IP))
        flows.append("in_port=vxlan,ip,nw_dst=%s,actions=output:vhost-user%d"
                     % (vm_ip(i), i))
    ports.append({"name": "vxlan", "type": "vxlan",
                  "options": {"remote_ip": "flow", "local_ip": "flow",
                              "key": "flow", "dst_port": 4789,
                              "vnis": list(vnis)}})
    ports.append({"name": "dpdk-phy", "type": "dpdk", "devargs": devargs,
                  "n-rxq": 1})
    underlay = {"port": "dpdk-phy", "local-ip": VTEP_IP + "/24",
                "mac": VTEP_MAC,
                "routes": [{"prefix": "172.1.0.0/24"}]}
    if static_arp:
        underlay["arp"] = [{"ip": REMOTE_IP, "mac": REMOTE_MAC}]
    return {"eal": {"lcores": "0-1", "memory-mb": memory_mb, "no-pci": True},
            "datapath": {"pmd-cores": [1], "emc-insert-inv-prob": 100},
            "underlay": underlay, "ports": ports, "flows": flows}


# --------------------------------------------------------------- frames

def inner_frame(vm, sport=40000, size=78):
    """What the remote host sends to VM `vm` (inner Ethernet/IP/UDP)."""
    p = (Ether(src=INNER_REMOTE_MAC, dst=vxlib.vm_mac(vm)) /
         IP(src=INNER_REMOTE_IP, dst=vm_ip(vm), ttl=64) /
         UDP(sport=sport, dport=5001))
    return p / (b"\0" * max(0, size - len(p)))


def vxlan_to_vm(vm, sport=40000, vni=VNI, dst_ip=VTEP_IP, udp_dport=4789,
                flags=0x08, src_mac=REMOTE_MAC, dst_mac=VTEP_MAC,
                src_ip=REMOTE_IP):
    """A VXLAN frame from the remote VTEP for VM `vm` (128 bytes)."""
    return (Ether(src=src_mac, dst=dst_mac) /
            IP(src=src_ip, dst=dst_ip, ttl=64, flags="DF") /
            UDP(sport=50000 + sport % 1000, dport=udp_dport, chksum=0) /
            VXLAN(flags=flags, vni=vni) / inner_frame(vm, sport))


def arp_request(tpa=VTEP_IP, spa=REMOTE_IP, sha=REMOTE_MAC):
    p = bytes(Ether(src=sha, dst="ff:ff:ff:ff:ff:ff") /
              ARP(op=1, hwsrc=sha, psrc=spa, hwdst="00:00:00:00:00:00",
                  pdst=tpa))
    return p + b"\0" * max(0, 60 - len(p))


def arp_reply(sha, spa, tha=VTEP_MAC, tpa=VTEP_IP):
    p = bytes(Ether(src=sha, dst=tha) /
              ARP(op=2, hwsrc=sha, psrc=spa, hwdst=tha, pdst=tpa))
    return p + b"\0" * max(0, 60 - len(p))


def is_vxlan_from_vm(b, vm=None):
    """An encapsulated frame (what the switch sends for a VM), optionally
    one that VM `vm` sent back: testpmd's macswap swaps the MACs only, so
    the inner source MAC is the VM's and the inner IP is still to it."""
    p = Ether(b)
    if VXLAN not in p or UDP not in p or p[UDP].dport != 4789:
        return False
    inner = p[VXLAN].payload
    if vm is None:
        return True
    return (isinstance(inner, Ether) and inner.src == vxlib.vm_mac(vm) and
            IP in inner and inner[IP].dst == vm_ip(vm))


def is_arp(b, op=None):
    p = Ether(b)
    return ARP in p and (op is None or p[ARP].op == op)


# ------------------------------------------------------------- counters

def pmd_stats(sw):
    """dpif-netdev/pmd-stats-show --json of the switch's one PMD."""
    st = sw.ctl("dpif-netdev/pmd-stats-show", json=True)
    assert len(st) == 1, st
    return st[0]


def pmd_drops(sw):
    return pmd_stats(sw)["drops"]


def drops_delta(before, after):
    """{reason: after - before} for the reasons that changed."""
    return {k: after[k] - before.get(k, 0) for k in after
            if after[k] != before.get(k, 0)}


def port_stat(sw, name):
    return sw.port(name)
