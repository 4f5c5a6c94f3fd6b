# SPDX-License-Identifier: BSD-3-Clause
"""Small packet helpers for the integration tests, on top of vxlib.

  Wire       a veth pair whose root-namespace end is the switch's NIC
             (net_af_packet devargs) and whose other end lives in a netns
             of its own, with one raw AF_PACKET socket there to send frames
             into the switch and to capture what it sends back. IPv6 is off
             on both ends, so the kernel adds no frames of its own.
  vxlan_frame()   a VXLAN frame from the remote VTEP, built with scapy
  ip_csum_ok()    recomputes an IPv4 header checksum
  ctl_counters()  the per-port and PMD counters of a vxlib.Switch in one dict

The socket is opened inside the netns by a short-lived thread that enters
it with setns(2) (network namespaces are per thread), so sending and
capturing need no subprocess and no tcpdump.
"""

import contextlib
import ctypes
import errno
import os
import select
import socket
import threading
import time

import vxlib

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
CLONE_NEWNET = 0x40000000
SO_SNDBUFFORCE = getattr(socket, "SO_SNDBUFFORCE", 32)
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)

REMOTE_MAC = "10:00:00:00:00:02"
VTEP_MAC = "10:00:00:00:00:01"
REMOTE_IP = "172.1.0.0"
VTEP_IP = "172.1.0.100"
VNI = 1001


def _in_netns(ns, fn):
    """Runs fn() in a thread that has entered netns `ns`; returns its
    result (or raises its exception)."""
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


def _sysctl(path, value, ns=None):
    vxlib.sh(["sysctl", "-q", "-w", "%s=%s" % (path, value)], ns=ns,
             check=False)


class Wire:
    """The switch's NIC as a veth pair; see the module docstring.

        with Wire() as w:
            topo["ports"].append({"name": "dpdk-phy", "type": "dpdk",
                                  "devargs": w.devargs()})
            ...
            w.flush()
            w.send(frames)
            got = w.recv(len(frames), timeout=10)
    """

    def __init__(self, tag=None):
        # pid: unique among processes running now (pid_max is 32768 here,
        # and the name holds 8 hex digits anyway)
        tag = tag or "%x_%x" % (os.getpid(), next(_wire_ids))
        self.root_if = ("vxf" + tag)[:15]
        self.ns_if = ("vxg" + tag)[:15]
        self._stack = contextlib.ExitStack()
        self.ns = None
        self.sock = None

    def __enter__(self):
        try:
            self.ns = self._stack.enter_context(vxlib.netns())
            self._stack.enter_context(vxlib.veth_pair(
                self.root_if, self.ns_if, ns=self.ns, up=False))
            for dev, ns in ((self.root_if, None), (self.ns_if, self.ns)):
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
        s.bind((self.ns_if, ETH_P_ALL))
        s.setblocking(False)
        return s

    def devargs(self, name="net_af_packet0"):
        """The switch port's devargs for the root end of the pair."""
        return "%s,iface=%s,qpairs=1" % (name, self.root_if)

    def send(self, frames, pace=0.0):
        """Sends each frame (bytes or scapy packet) into the switch's NIC.
        pace: seconds to sleep between frames."""
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
                raise vxlib.HarnessError("cannot send on %s" % self.ns_if)
            if pace:
                time.sleep(pace)

    def _read(self, timeout):
        """One frame the switch sent, or None after timeout seconds."""
        r, _, _ = select.select([self.sock], [], [], max(timeout, 0))
        if not r:
            return None
        while True:
            try:
                data, addr = self.sock.recvfrom(65536)
            except BlockingIOError:
                return None
            if addr[2] != PACKET_OUTGOING:
                return data

    def flush(self):
        """Discards whatever was captured so far."""
        while self._read(0) is not None:
            pass

    def recv(self, n=None, timeout=10.0, quiet=0.5, match=None):
        """Frames the switch sent: waits until n frames (passing match(bytes)
        if given) arrived or timeout passed; with n None, until no frame
        came for `quiet` seconds. Then waits `quiet` more seconds for
        stragglers (so that extra frames are caught too). Returns bytes."""
        out = []
        deadline = time.monotonic() + timeout
        while n is None or len(out) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            f = self._read(min(left, quiet) if n is None else left)
            if f is None:
                if n is None:
                    break
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


_wire_ids = iter(range(1, 1 << 30))


# ------------------------------------------------------------- packets

def inner_frame(vm, src_ip="192.2.0.1", sport=40000, dport=5001,
                payload=b"", dst_mac=None, src_mac="a0:00:00:00:00:02",
                dst_ip=None):
    """The inner Ethernet/IPv4/UDP frame the remote host sends to VM vm
    (192.1.0.vm, MAC vxlib.vm_mac(vm)), as scapy builds it with every
    checksum filled in."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    p = (Ether(src=src_mac, dst=dst_mac or vxlib.vm_mac(vm)) /
         IP(src=src_ip, dst=dst_ip or "192.1.0.%d" % vm, ttl=64, id=7) /
         UDP(sport=sport, dport=dport) / payload)
    return Ether(bytes(p))


def vxlan_frame(inner, sport=50000, vni=VNI, src_mac=REMOTE_MAC,
                dst_mac=VTEP_MAC, src_ip=REMOTE_IP, dst_ip=VTEP_IP,
                udp_dport=4789, flags=0x08):
    """inner (scapy packet or bytes) in VXLAN from the remote VTEP, as
    bytes; outer UDP checksum 0 as Linux sends it."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.layers.vxlan import VXLAN
    p = (Ether(src=src_mac, dst=dst_mac) /
         IP(src=src_ip, dst=dst_ip, ttl=64, id=1, flags="DF") /
         UDP(sport=sport, dport=udp_dport, chksum=0) /
         VXLAN(flags=flags, vni=vni) / bytes(inner))
    return bytes(p)


def is_vxlan_from_switch(b, dport=4789):
    """Cheap filter on raw bytes: IPv4/UDP to dport, no VLAN tag."""
    return (len(b) >= 50 and b[12:14] == b"\x08\x00" and b[23] == 17
            and int.from_bytes(b[14 + (b[14] & 0xF) * 4 + 2:
                                 14 + (b[14] & 0xF) * 4 + 4], "big") == dport)


def ip_csum_ok(b, off=14):
    """True if the IPv4 header at off in b sums to 0xffff."""
    ihl = (b[off] & 0xF) * 4
    s = 0
    for i in range(off, off + ihl, 2):
        s += (b[i] << 8) | b[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


# ------------------------------------------------------------- counters

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
    delta}}, "pmd": {...}, "drops": {...}} (int fields only)."""
    d = {"ports": {}, "pmd": {}, "drops": {}}
    for name, p in after["ports"].items():
        q = before["ports"].get(name, {})
        d["ports"][name] = {k: v - q.get(k, 0) for k, v in p.items()
                            if isinstance(v, int) and not isinstance(v, bool)}
    for k, v in after["pmd"].items():
        if k != "drops":
            d["pmd"][k] = v - before["pmd"].get(k, 0)
    for r, n in after["pmd"].get("drops", {}).items():
        d["drops"][r] = n - before["pmd"].get("drops", {}).get(r, 0)
    return d
