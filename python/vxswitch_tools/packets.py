# SPDX-License-Identifier: BSD-3-Clause
"""Live-wire and packet helpers for the integration tests, on top of vxlib.

Instead of net_pcap (whose rx file replays once at start-up), the switch's
NIC is net_af_packet on the root-namespace end of a veth pair whose other
end lives in a network namespace the test owns. The test plays the remote
VTEP 172.1.0.0 from there: it sends frames with a raw AF_PACKET socket and
reads what the switch sends back on the same socket, at any time of the
run, with no subprocess and no tcpdump.

  Wire          netns + veth pair, IPv6 off on both ends (the kernel sends
                nothing of its own); send(), recv(), expect(), drain(),
                flush()
  topology()    topology/vxlan-2vm.yaml's shape with N VMs, NIC on a Wire
  inner_frame(), vxlan_frame(), vxlan_to_vm(), arp_request(), arp_reply()
                the frames the remote host / remote VTEP sends
  is_vxlan(), is_arp()       predicates on captured frames (bytes)
  ip_csum_ok(), ip_csum_fix()  IPv4 header checksum
  ctl_counters(), counter_delta(), pmd_stats(), pmd_drops(), drops_delta()
                counters from vxswitch-ctl --json
"""

import contextlib
import ctypes
import errno
import itertools
import os
import select
import socket
import threading
import time

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Ether
from scapy.layers.vxlan import VXLAN

from . import harness as vxlib
from .addressing import SEED

VTEP_MAC = "10:00:00:00:00:01"
VTEP_IP = "172.1.0.100"
REMOTE_MAC = "10:00:00:00:00:02"
REMOTE_IP = "172.1.0.0"
VNI = 1001
INNER_REMOTE_MAC = "a0:00:00:00:00:02"
INNER_REMOTE_IP = "192.2.0.1"

ETH_P_ALL = 0x0003
SOL_PACKET = getattr(socket, "SOL_PACKET", 263)
PACKET_IGNORE_OUTGOING = 23
PACKET_OUTGOING = 4
CLONE_NEWNET = 0x40000000
SO_SNDBUFFORCE = getattr(socket, "SO_SNDBUFFORCE", 32)
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)
IFNAMSIZ = 16


# ----------------------------------------------------------------- wire

def _in_netns(ns, fn):
    """Runs fn() in a thread that has entered netns `ns` (setns(2) moves
    only the calling thread; a socket keeps the namespace it was created
    in); returns its result or raises its exception."""
    out = {}

    def run():
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        try:
            fd = os.open("/var/run/netns/%s" % ns, os.O_RDONLY)
            try:
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    e = ctypes.get_errno()
                    raise OSError(e, "setns(%s): %s" % (ns, os.strerror(e)))
            finally:
                os.close(fd)
            out["v"] = fn()
        except BaseException as e:     # handed to the caller
            out["e"] = e
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(10)
    if "e" in out:
        raise out["e"]
    if "v" not in out:
        raise vxlib.HarnessError("netns thread for %s did not finish" % ns)
    return out["v"]


def _sysctl(key, value, ns=None):
    vxlib.sh(["sysctl", "-q", "-w", "%s=%s" % (key, value)], ns=ns,
             check=False)


_wire_ids = itertools.count(1)


class Wire:
    """The underlay link: veth root_if (the switch's NIC, root netns) <->
    peer_if (in netns .ns, the test's side, raw socket .sock).

        with Wire() as w:
            topo = topology(w.devargs(), rundir)
            ...
            w.send([frame, ...])
            got = w.expect(lambda b: is_vxlan(b, vm=0), n=1, timeout=5)

    Interface names: "vxr"/"vxp" + this process's pid + a per-process
    counter, both in hex ("vxr1a2b_3"): unique among the processes running
    now and within this one, and short (pid_max <= 2^22: 6 hex digits).
    """

    def __init__(self, tag=None):
        tag = tag or "%x_%x" % (os.getpid(), next(_wire_ids))
        self.root_if = "vxr" + tag
        self.peer_if = "vxp" + tag
        if len(self.root_if) >= IFNAMSIZ:
            raise vxlib.HarnessError("interface name %r too long"
                                     % self.root_if)
        self._stack = contextlib.ExitStack()
        self.ns = None
        self.sock = None

    def __enter__(self):
        try:
            self.ns = self._stack.enter_context(vxlib.netns())
            self._stack.enter_context(vxlib.veth_pair(
                self.root_if, self.peer_if, ns=self.ns, up=False))
            # no IPv6 (router solicitations, MLD) nor anything else of the
            # kernel's own on the link: counters must see only our frames
            for dev, ns in ((self.root_if, None), (self.peer_if, self.ns)):
                _sysctl("net.ipv6.conf.%s.disable_ipv6" % dev, 1, ns)
                vxlib.sh(["ip", "link", "set", dev, "up"], ns=ns)
            self.sock = _in_netns(self.ns, self._open_socket)
            self._stack.callback(self.sock.close)
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc):
        self._stack.close()

    def _open_socket(self):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                          socket.htons(ETH_P_ALL))
        # the *FORCE variants pass net.core.[rw]mem_max (we are root): a
        # capture read only at the end of a stream must not overflow
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
        s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 4 << 20)
        # our own frames are not captured (Linux >= 4.20; _read() skips
        # them anyway)
        with contextlib.suppress(OSError):
            s.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
        s.bind((self.peer_if, ETH_P_ALL))
        s.setblocking(False)
        return s

    def devargs(self, name="net_af_packet0", qpairs=1):
        """The switch port's devargs for the root end of the pair. With
        qpairs > 1 the kernel spreads received frames over the queues by
        flow hash (net_af_packet's PACKET_FANOUT_HASH)."""
        return "%s,iface=%s,qpairs=%d" % (name, self.root_if, qpairs)

    # -- send ----------------------------------------------------------
    def send(self, frames, pace=0.0):
        """Sends each frame (bytes or scapy packet) out of the peer end,
        i.e. into the switch's NIC. pace: seconds to sleep between frames.
        Thread-safe against recv()."""
        for f in frames:
            b = bytes(f)
            for _ in range(200):
                try:
                    self.sock.send(b)
                    break
                except (BlockingIOError, InterruptedError):
                    time.sleep(0.001)
                except OSError as e:
                    if e.errno != errno.ENOBUFS:
                        raise
                    time.sleep(0.001)
            else:
                raise vxlib.HarnessError("cannot send on %s" % self.peer_if)
            if pace:
                time.sleep(pace)

    # -- receive -------------------------------------------------------
    def _read(self, timeout):
        """One frame the switch sent, or None after timeout seconds (our
        own outgoing frames are skipped without ending the wait)."""
        end = time.monotonic() + max(timeout, 0)
        while True:
            r, _, _ = select.select([self.sock], [], [],
                                    max(end - time.monotonic(), 0))
            if not r:
                return None
            try:
                data, addr = self.sock.recvfrom(65536)
            except (BlockingIOError, InterruptedError):
                continue
            if addr[2] != PACKET_OUTGOING:
                return data

    def recv(self, n=None, timeout=10.0, quiet=0.5, match=None):
        """Frames the switch sent (bytes), those passing match(bytes) if
        given (the others are discarded): waits until n of them arrived or
        timeout passed, then `quiet` more seconds for stragglers (so that
        extra frames are caught too). With n None: until no frame came for
        `quiet` seconds (or timeout passed)."""
        out = []
        deadline = time.monotonic() + timeout
        while n is None or len(out) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            f = self._read(min(left, quiet) if n is None else left)
            if f is None:
                if n is None and left >= quiet:
                    return out              # quiet for `quiet` seconds
                continue
            if match is None or match(f):
                out.append(f)
        end = time.monotonic() + quiet
        while True:
            f = self._read(end - time.monotonic())
            if f is None:
                break
            if match is None or match(f):
                out.append(f)
        return out

    def expect(self, match=lambda b: True, n=1, timeout=10.0):
        """Waits until n frames satisfying match(bytes) arrived; returns
        them and any more already there. Raises TimeoutError if fewer
        came within timeout."""
        got = self.recv(n, timeout=timeout, quiet=0, match=match)
        if len(got) < n:
            raise TimeoutError("%d of %d expected frames on %s within "
                               "%g s" % (len(got), n, self.peer_if,
                                           timeout))
        return got

    def drain(self, quiet=0.2, timeout=30.0):
        """Reads until nothing arrived for `quiet` seconds; returns it."""
        return self.recv(None, timeout=timeout, quiet=quiet)

    def flush(self):
        """Discards whatever was captured so far."""
        self.drain(0)


# ------------------------------------------------------------- topology

def vm_flows(i, egress_vni=VNI):
    """The seed's two rules for VM i."""
    return ["in_port=vhost-user%d,actions=set_tunnel:%d,"
            "set_field:%s->tun_dst,set_field:%s->tun_src,output:vxlan"
            % (i, egress_vni, REMOTE_IP, VTEP_IP),
            "in_port=vxlan,ip,nw_dst=%s,actions=output:vhost-user%d"
            % (SEED.ip(i), i)]


def topology(devargs, rundir, n_vms=2, vhost_type="dpdkvhostuserclient",
             static_arp=True, memory_mb=256, vnis=(VNI,), egress_vnis=None,
             emc_inv_prob=100, datapath=None):
    """topology/vxlan-2vm.yaml's shape with n_vms VMs and the NIC on
    `devargs`. VM i: port vhost-user{i} at RUNDIR/vhost{i}.sock, inner
    192.1.0.i. static_arp: the remote VTEP's MAC in underlay.arp;
    egress_vnis: {vm: VNI its traffic is sent with} (default VNI);
    emc_inv_prob: datapath.emc-insert-inv-prob (1: every flow);
    datapath: more datapath keys (limits: max-neighbours, ...)."""
    ports = [{"name": "vhost-user%d" % i, "type": vhost_type,
              "path": str(rundir / ("vhost%d.sock" % i))}
             for i in range(n_vms)]
    ports += [{"name": "vxlan", "type": "vxlan",
               "options": {"remote_ip": "flow", "local_ip": "flow",
                           "key": "flow", "dst_port": 4789,
                           "vnis": list(vnis)}},
              {"name": "dpdk-phy", "type": "dpdk", "devargs": devargs,
               "n-rxq": 1}]
    flows = []
    for i in range(n_vms):
        flows += vm_flows(i, (egress_vnis or {}).get(i, VNI))
    underlay = {"port": "dpdk-phy", "local-ip": VTEP_IP + "/24",
                "mac": VTEP_MAC,
                "routes": [{"prefix": "172.1.0.0/24"}]}
    if static_arp:
        underlay["arp"] = [{"ip": REMOTE_IP, "mac": REMOTE_MAC}]
    return {"eal": {"lcores": "0-1", "memory-mb": memory_mb, "no-pci": True},
            "datapath": {"pmd-cores": [1],
                         "emc-insert-inv-prob": emc_inv_prob,
                         **(datapath or {})},
            "underlay": underlay, "ports": ports, "flows": flows}


# --------------------------------------------------------------- frames

def inner_frame(vm, src_ip=INNER_REMOTE_IP, sport=40000, dport=5001,
                payload=b"", dst_mac=None, src_mac=INNER_REMOTE_MAC,
                dst_ip=None, size=None):
    """The inner Ethernet/IPv4/UDP frame the remote host sends to VM vm
    (192.1.0.vm, MAC SEED.mac(vm)), as scapy builds it with every
    checksum filled in; zero-padded to `size` bytes if given."""
    p = (Ether(src=src_mac, dst=dst_mac or SEED.mac(vm)) /
         IP(src=src_ip, dst=dst_ip or SEED.ip(vm), ttl=64, id=7) /
         UDP(sport=sport, dport=dport) / payload)
    if size is not None:
        p = p / (b"\0" * max(0, size - len(p)))
    return Ether(bytes(p))


def vxlan_frame(inner, sport=50000, vni=VNI, src_mac=REMOTE_MAC,
                dst_mac=VTEP_MAC, src_ip=REMOTE_IP, dst_ip=VTEP_IP,
                udp_dport=4789, flags=0x08):
    """inner (scapy packet or bytes) in VXLAN from the remote VTEP, as
    bytes; outer UDP checksum 0 as Linux sends it."""
    p = (Ether(src=src_mac, dst=dst_mac) /
         IP(src=src_ip, dst=dst_ip, ttl=64, id=1, flags="DF") /
         UDP(sport=sport, dport=udp_dport, chksum=0) /
         VXLAN(flags=flags, vni=vni) / bytes(inner))
    return bytes(p)


def vxlan_to_vm(vm, sport=40000, **kw):
    """A VXLAN frame from the remote VTEP for VM `vm` (128 bytes, bytes):
    inner UDP source port `sport`, outer 50000 + sport % 1000; kw as for
    vxlan_frame()."""
    return vxlan_frame(inner_frame(vm, sport=sport, size=78),
                       sport=50000 + sport % 1000, **kw)


def _pad60(p):
    b = bytes(p)
    return b + b"\0" * max(0, 60 - len(b))


def arp_request(tpa=VTEP_IP, spa=REMOTE_IP, sha=REMOTE_MAC):
    return _pad60(Ether(src=sha, dst="ff:ff:ff:ff:ff:ff") /
                  ARP(op=1, hwsrc=sha, psrc=spa, hwdst="00:00:00:00:00:00",
                      pdst=tpa))


def arp_reply(sha, spa, tha=VTEP_MAC, tpa=VTEP_IP):
    return _pad60(Ether(src=sha, dst=tha) /
                  ARP(op=2, hwsrc=sha, psrc=spa, hwdst=tha, pdst=tpa))


def is_vxlan(b, vm=None):
    """b (bytes) is a VXLAN frame (UDP to 4789), as the switch sends for a
    VM; with vm given, one that VM sent back: testpmd's macswap swaps the
    MACs only, so the inner source MAC is the VM's and the inner IP is
    still to it."""
    p = Ether(b)
    if VXLAN not in p or UDP not in p or p[UDP].dport != 4789:
        return False
    if vm is None:
        return True
    inner = p[VXLAN].payload
    return (isinstance(inner, Ether) and inner.src == SEED.mac(vm) and
            IP in inner and inner[IP].dst == SEED.ip(vm))


def is_arp(b, op=None):
    p = Ether(b)
    return ARP in p and (op is None or p[ARP].op == op)


def _ones_sum(b, off, n):
    """The 16-bit ones' complement sum of b[off:off + n]."""
    s = sum(int.from_bytes(b[off + i:off + i + 2], "big")
            for i in range(0, n, 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def ip_csum_ok(b, off=14):
    """True if the IPv4 header at off in b sums to 0xffff."""
    return _ones_sum(b, off, (b[off] & 0xF) * 4) == 0xFFFF


def ip_csum_fix(b, off=14):
    """b (bytes) with the IPv4 header checksum at off recomputed, over
    what the IHL says (20 bytes if it says 0)."""
    b = bytearray(b)
    b[off + 10:off + 12] = b"\0\0"
    s = _ones_sum(b, off, (b[off] & 0xF) * 4 or 20)
    b[off + 10:off + 12] = ((~s) & 0xFFFF).to_bytes(2, "big")
    return bytes(b)


def normalise(b):
    """b (a VXLAN frame) with the outer IPv4 id and header checksum zeroed:
    the only bytes that differ between two runs of the same frames."""
    b = bytearray(b)
    b[18:20] = b"\0\0"
    b[24:26] = b"\0\0"
    return bytes(b)


# ------------------------------------------------------------- counters

def _delta(before, after):
    return {k: v - before.get(k, 0) for k, v in after.items()}


def ctl_counters(sw):
    """{"ports": {name: show-json port}, "pmd": summed pmd-stats (ints;
    "drops" a dict)} from one show and one pmd-stats-show."""
    ports = {p["name"]: p for p in sw.ctl("show", json=True)["ports"]}
    pmd = {}
    for st in sw.ctl("dpif-netdev/pmd-stats-show", json=True):
        for k, v in st.items():
            if k == "drops":
                d = pmd.setdefault("drops", {})
                for r, n in v.items():
                    d[r] = d.get(r, 0) + n
            elif isinstance(v, int):
                pmd[k] = pmd.get(k, 0) + v
    return {"ports": ports, "pmd": pmd}


def counter_delta(before, after):
    """after - before for ctl_counters() results: {"ports": {name: {field:
    delta}}, "pmd": {...}, "drops": {reason: delta, every reason}} (int
    fields only)."""
    d = {"ports": {}, "pmd": {}}
    for name, p in after["ports"].items():
        q = before["ports"].get(name, {})
        d["ports"][name] = _delta(q, {k: v for k, v in p.items()
                                      if isinstance(v, int)
                                      and not isinstance(v, bool)})
    d["pmd"] = _delta(before["pmd"], {k: v for k, v in after["pmd"].items()
                                      if k != "drops"})
    d["drops"] = _delta(before["pmd"].get("drops", {}),
                        after["pmd"].get("drops", {}))
    return d


def pmd_stats(sw):
    """dpif-netdev/pmd-stats-show --json of the switch's one PMD."""
    st = sw.ctl("dpif-netdev/pmd-stats-show", json=True)
    assert len(st) == 1, st
    return st[0]


def pmd_drops(sw):
    return pmd_stats(sw)["drops"]


def drops_delta(before, after):
    """{reason: after - before} for the reasons that changed."""
    return {k: v for k, v in _delta(before, after).items() if v}
