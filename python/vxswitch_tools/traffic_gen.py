# SPDX-License-Identifier: BSD-3-Clause
"""Writes pcaps of the benchmark traffic of the 32-VM VXLAN study (seed 002).

Modes (exactly one):

  --nic       outer VXLAN packets as they arrive from the remote VTEP:
              eth 10:00:00:00:00:02 -> 10:00:00:00:00:01, IPv4 172.1.0.0 ->
              172.1.0.100, UDP <hash> -> 4789, VXLAN flags 0x08 VNI 1001,
              inner eth/IPv4/UDP to VM i (inner dst 192.1.0.i, MAC
              52:54:00:00:hh:ll with i = hh*256+ll) for i in 0..--vms-1.
  --vm I      plain inner packets as VM I would send them (src 192.1.0.I, MAC
              52:54:00:00:hh:ll) towards the remote hosts.
  --bad KIND  malformed / negative cases seen from the NIC side (see KINDS).

Microflows: --flows M distinct inner 5-tuples; flow f goes to VM f % N
(round robin), and within a VM, flow j = f // N uses inner remote address
192.2.0.0 + j // 1024 and remote UDP port 40000 + j % 1024 (VM side port
5001). Packet k belongs to flow (k // --burst) % M.

The outer UDP source port is derived from the inner header as Linux and
OVS do (RFC 7348 s.5): h = fmix32(CRC32(inner src, dst, sport, dport,
proto)) (murmur3's finaliser, for a non-linear hash like the kernel's);
then as Linux's udp_flow_src_port(): h ^= h << 16; sport = ((h * (max -
min + 1)) >> 32) + min, over 49152-65535 by default.

--proto tcp makes the inner packets TCP instead of UDP (same addresses and
ports): ACK+PSH data segments with a payload, window 65535, no options,
and sequence number = acknowledgment number, a constant per flow
(TCP_SEQ_BASE + flow index * TCP_SEQ_STEP): segments of connections
already established, as a conntrack that picks up mid-stream takes them
(OVS's tcp_valid_new: any non-SYN, non-SYN+ACK segment may create a
session). A VM that swaps addresses and ports (testpmd's 5tswap) answers
with the same seq and ack, which is in window in the reply direction, and
the pcap's loop re-sends the same segment: an in-window retransmission.
The --vm frames of flow j carry the same seq/ack as the --nic ones.

--ipv6 makes the inner packets IPv6 (same ports, same frame sizes, so
the same bytes on the wire and 20 more bytes of header, 20 less payload):
VM i is fd00:1:: + i (--vm-ip-base), flow j's remote host fd00:2:: +
j // 1024 (--remote-base), hop limit 64, flow label 0; the UDP (or TCP)
checksum over the IPv6 pseudo-header, which IPv6 requires, is patched in
from precomputed sums as IPv4's (only the remote address's last 32 bits
vary); the outer source port hashes the two 16-byte addresses, the ports
and the protocol. The topology to match: gen-topology.py --ipv6.

--size is the total frame length without FCS (outer frame for --nic/--bad,
the VM's frame for --vm; default 128 and 78 = 128 - 50 bytes of outer
headers, so a VM frame encapsulates to 128). Inner UDP and IPv4 checksums
are valid; the outer UDP checksum is 0 (as Linux sends VXLAN by default).

Scapy builds one template per VM; each packet is then the template with
addresses, ports and checksums patched in with struct, and the pcap is
written directly, so 1M packets take a few seconds.
"""

import argparse
import ipaddress
import struct
import sys
import zlib

from .addressing import SEED

KINDS = {
    "unknown-vni": "VXLAN VNI not configured on the switch (--vni + 1)",
    "wrong-udp-port": "outer UDP destination port 4790 instead of 4789",
    "bad-vxlan-flags": "VXLAN flags 0x00 (I bit clear: VNI not valid)",
    "truncated": "frame cut inside the VXLAN header (IP length claims more)",
    "bad-ip-ihl": "outer IPv4 IHL 4 (< 5), header checksum otherwise valid",
    "not-for-vtep": "outer IPv4 destination not our VTEP (172.1.0.99)",
    "arp-request": "ARP who-has <VTEP IP> from the remote VTEP's MAC",
}

ETH_LEN, IP_LEN, UDP_LEN, VXLAN_LEN = 14, 20, 8, 8
IP6_LEN = 40
TCP_LEN = 20
OUTER_LEN = ETH_LEN + IP_LEN + UDP_LEN + VXLAN_LEN  # 50
INNER_HDR_LEN = ETH_LEN + IP_LEN + UDP_LEN          # 42
# --ipv6: the VMs' and the remote hosts' default bases
VM_IP6_BASE, REMOTE_IP6_BASE = "fd00:1::", "fd00:2::"
# --proto: (IP protocol number, L4 header length, checksum offset in it)
PROTOS = {"udp": (17, UDP_LEN, 6), "tcp": (6, TCP_LEN, 16)}
# --proto tcp: seq = ack = TCP_SEQ_BASE + j * TCP_SEQ_STEP for flow j
TCP_SEQ_BASE, TCP_SEQ_STEP = 0x10000000, 0x10000
TCP_WINDOW = 65535
VM_PORT = 5001
REMOTE_PORT_BASE = 40000
FLOWS_PER_REMOTE_IP = 1024


def ip2int(s):
    return int(ipaddress.IPv4Address(s))


def mac2bytes(s):
    b = bytes(int(x, 16) for x in s.split(":"))
    if len(b) != 6:
        raise argparse.ArgumentTypeError("bad MAC address %r" % s)
    return b


def remote_ip(j, base="192.2.0.0"):
    """Flow j's remote host: base + j // 1024 (IPv4 or IPv6, as base)."""
    return str(ipaddress.ip_address(base) + j // FLOWS_PER_REMOTE_IP)


def remote_port(j):
    return REMOTE_PORT_BASE + j % FLOWS_PER_REMOTE_IP


def vxlan_sport(src, dst, sport, dport, proto=17, lo=49152, hi=65535,
                v6=False):
    """Outer UDP source port from the inner 5-tuple (ints, host order;
    v6: the addresses are IPv6, hashed as their 16 bytes)."""
    if v6:
        h = zlib.crc32(src.to_bytes(16, "big") + dst.to_bytes(16, "big")
                       + struct.pack("!HHB", sport, dport, proto))
    else:
        h = zlib.crc32(struct.pack("!IIHHB", src, dst, sport, dport, proto))
    # murmur3's finaliser: CRC32 alone is linear, and a linear hash of
    # 5-tuples that differ in a few bits collides far more than chance
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    h ^= h >> 16
    # Linux udp_flow_src_port(): fold the low half in, scale to the range
    h = (h ^ (h << 16)) & 0xFFFFFFFF
    return ((h * (hi - lo + 1)) >> 32) + lo


def _fold(s):
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def _sum16(b):
    if len(b) % 2:
        b = b + b"\0"
    return sum(struct.unpack("!%dH" % (len(b) // 2), b))


def tcp_seq(j):
    """--proto tcp: flow j's sequence (= acknowledgment) number."""
    return (TCP_SEQ_BASE + j * TCP_SEQ_STEP) & 0xFFFFFFFF


def inner_hdr_len(proto, ipv6=False):
    return ETH_LEN + (IP6_LEN if ipv6 else IP_LEN) + PROTOS[proto][1]


def flow_of_packet(k, nflows, burst):
    return (k // burst) % nflows


class Gen:
    """Builds packets from per-VM scapy templates, patching per-flow fields."""

    def __init__(self, a):
        self.a = a
        self.ipv6 = getattr(a, "ipv6", False)
        self.vms = SEED.rebased(a.vm_mac_base, a.vm_ip_base)
        self.lo, self.hi = a.sport_min, a.sport_max
        self.proto = getattr(a, "proto", "udp")
        self.ipproto, self.l4len, self.csum_off = PROTOS[self.proto]
        self.ip_len = IP6_LEN if self.ipv6 else IP_LEN
        self.hdr_len = inner_hdr_len(self.proto, self.ipv6)
        self.remote_base = int(ipaddress.ip_address(a.remote_base))

    # -- templates -------------------------------------------------------
    def _inner(self, src_mac, dst_mac, src_ip, dst_ip, sport, dport, size):
        from scapy.layers.inet import IP, TCP, UDP
        from scapy.layers.inet6 import IPv6
        from scapy.layers.l2 import Ether
        pay = max(0, size - self.hdr_len)
        if self.proto == "tcp":
            # seq and ack are patched in per flow (build); 0 here
            l4 = TCP(sport=sport, dport=dport, seq=0, ack=0, flags="PA",
                     window=TCP_WINDOW)
        else:
            l4 = UDP(sport=sport, dport=dport)
        if self.ipv6:
            l3 = IPv6(src=src_ip, dst=dst_ip, hlim=64)
        else:
            l3 = IP(src=src_ip, dst=dst_ip, ttl=64, id=0)
        p = Ether(src=src_mac, dst=dst_mac) / l3 / l4 / (b"\x00" * pay)
        return bytes(p)

    def _outer(self, inner, sport, vni=None, udp_dport=None, flags=0x08,
               outer_dst=None):
        from scapy.layers.inet import IP, UDP
        from scapy.layers.l2 import Ether
        from scapy.layers.vxlan import VXLAN
        a = self.a
        vni = a.vni if vni is None else vni
        p = (Ether(src=a.outer_src_mac, dst=a.outer_dst_mac) /
             IP(src=a.outer_src, dst=outer_dst or a.outer_dst, ttl=64, id=0,
                flags="DF") /
             UDP(sport=sport, dport=udp_dport or a.udp_port, chksum=0) /
             VXLAN(flags=flags, vni=vni) / inner)
        b = bytearray(bytes(p))
        struct.pack_into("!H", b, ETH_LEN + IP_LEN + 6, 0)  # UDP csum 0
        return b

    def nic_templates(self, nvms, size, **outer_kw):
        """Per VM: (bytearray frame, base sums) for the NIC direction."""
        a = self.a
        inner_size = size - OUTER_LEN
        if inner_size < self.hdr_len:
            sys.exit("--size %d too small: VXLAN frames need >= %d bytes"
                     % (size, OUTER_LEN + self.hdr_len))
        t = []
        for i in range(nvms):
            inner = self._inner(a.inner_src_mac, self.vms.mac(i),
                                remote_ip(0, a.remote_base),
                                self.vms.ip(i),
                                remote_port(0), VM_PORT, inner_size)
            frame = self._outer(inner, self.lo, **outer_kw)
            t.append(self._prep(frame, OUTER_LEN, vary_src=True))
        return t

    def vm_template(self, vm, size):
        a = self.a
        if size < self.hdr_len:
            sys.exit("--size %d too small: need >= %d" % (size, self.hdr_len))
        inner = self._inner(self.vms.mac(vm), a.inner_src_mac,
                            self.vms.ip(vm),
                            remote_ip(0, a.remote_base), VM_PORT,
                            remote_port(0), size)
        return self._prep(bytearray(inner), 0, vary_src=False)

    def _prep(self, frame, off, vary_src):
        """Precomputes the checksum sums of everything that does not vary.

        NIC direction: the remote side (inner src IP, src port) varies.
        VM direction: the remote side is the destination (dst IP, dst port).
        IPv6: no header checksum; the remote address's last 32 bits vary,
        its first 96 go into the L4 checksum's fixed sum.
        """
        ip = off + ETH_LEN
        udp = ip + self.ip_len
        if self.ipv6:
            src_o, alen = 8, 16
            ip_base = 0
        else:
            src_o, alen = 12, 4
            hdr = bytearray(frame[ip:ip + IP_LEN])
            hdr[10:12] = b"\0\0"
        rem = ip + src_o + (0 if vary_src else alen)    # remote address
        oth = ip + src_o + (alen if vary_src else 0)    # VM's address
        var_ip = rem + alen - 4 - ip
        if not self.ipv6:
            hdr[var_ip:var_ip + 4] = b"\0\0\0\0"
            ip_base = _sum16(bytes(hdr))
        udp_len = len(frame) - udp
        u = bytearray(frame[udp:])
        c = self.csum_off
        u[c:c + 2] = b"\0\0"
        var_port = 0 if vary_src else 2
        u[var_port:var_port + 2] = b"\0\0"
        other_ip = bytes(frame[oth:oth + alen])
        # the L4 checksum's sum of what does not vary (TCP: seq and ack
        # are 0 in the template and added per flow)
        udp_base = (_sum16(bytes(u)) + _sum16(other_ip) + self.ipproto
                    + udp_len + _sum16(bytes(frame[rem:rem + alen - 4])))
        fixed_ip = int.from_bytes(other_ip, "big")
        fixed_port = struct.unpack("!H", frame[udp + (2 if vary_src else 0):
                                               udp + (4 if vary_src else 2)])[0]
        return dict(frame=frame, off=off, ip_base=ip_base, udp_base=udp_base,
                    var_ip=ip + var_ip, var_port=udp + var_port,
                    fixed_ip=fixed_ip, fixed_port=fixed_port, vary_src=vary_src)

    def build(self, t, j):
        """Flow j of template t -> bytes."""
        b = t["frame"]
        rip = self.remote_base + j // FLOWS_PER_REMOTE_IP
        lo32 = rip & 0xFFFFFFFF     # IPv4: all of it; IPv6: what varies
        rport = remote_port(j)
        struct.pack_into("!I", b, t["var_ip"], lo32)
        ipo = t["off"] + ETH_LEN
        if not self.ipv6:
            s_ip = _fold(t["ip_base"] + (rip >> 16) + (rip & 0xFFFF))
            struct.pack_into("!H", b, ipo + 10, (~s_ip) & 0xFFFF)
        struct.pack_into("!H", b, t["var_port"], rport)
        s_udp = t["udp_base"] + (lo32 >> 16) + (lo32 & 0xFFFF) + rport
        l4o = ipo + self.ip_len
        if self.ipproto == 6:
            sq = tcp_seq(j)
            struct.pack_into("!II", b, l4o + 4, sq, sq)
            s_udp += 2 * ((sq >> 16) + (sq & 0xFFFF))
        c = (~_fold(s_udp)) & 0xFFFF
        if self.ipproto == 17:
            c = c or 0xFFFF     # UDP: 0 means no checksum
        struct.pack_into("!H", b, l4o + self.csum_off, c)
        if t["off"]:
            # outer source port from the inner 5-tuple
            if t["vary_src"]:
                sp = vxlan_sport(rip, t["fixed_ip"], rport, t["fixed_port"],
                                 self.ipproto, self.lo, self.hi, self.ipv6)
            else:
                sp = vxlan_sport(t["fixed_ip"], rip, t["fixed_port"], rport,
                                 self.ipproto, self.lo, self.hi, self.ipv6)
            struct.pack_into("!H", b, ETH_LEN + IP_LEN, sp)
        return bytes(b)


class PcapWriter:
    """Plain libpcap writer (microsecond timestamps, DLT_EN10MB)."""

    def __init__(self, path, snaplen=65535):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0,
                                 snaplen, 1))
        self.buf = []
        self.n = 0
        self.rec = struct.Struct("<IIII")

    def write(self, pkt):
        n = self.n
        self.buf.append(self.rec.pack(n // 1000000, n % 1000000,
                                      len(pkt), len(pkt)))
        self.buf.append(pkt)
        self.n = n + 1
        if len(self.buf) >= 16384:
            self.f.write(b"".join(self.buf))
            self.buf = []

    def close(self):
        self.f.write(b"".join(self.buf))
        self.buf = []
        self.f.close()


def gen_flows(g, templates, nflows, count, burst, w):
    """Writes count packets cycling over nflows flows spread over templates."""
    n = len(templates)
    cache = {} if nflows <= 65536 and count > nflows else None
    for k in range(count):
        f = flow_of_packet(k, nflows, burst)
        if cache is not None and f in cache:
            w.write(cache[f])
            continue
        p = g.build(templates[f % n], f // n)
        if cache is not None:
            cache[f] = p
        w.write(p)


def gen_bad(g, a, w):
    from scapy.layers.l2 import ARP, Ether
    kind = a.bad
    count = a.count or 1
    if kind == "arp-request":
        p = bytes(Ether(src=a.outer_src_mac, dst="ff:ff:ff:ff:ff:ff") /
                  ARP(op="who-has", hwsrc=a.outer_src_mac, psrc=a.outer_src,
                      hwdst="00:00:00:00:00:00", pdst=a.outer_dst))
        p = p + b"\0" * max(0, 60 - len(p))
        for _ in range(count):
            w.write(p)
        return
    kw = {}
    if kind == "unknown-vni":
        kw["vni"] = a.vni + 1
    elif kind == "wrong-udp-port":
        kw["udp_dport"] = 4790 if a.udp_port != 4790 else 4789
    elif kind == "bad-vxlan-flags":
        kw["flags"] = 0x00
    elif kind == "not-for-vtep":
        kw["outer_dst"] = a.not_vtep_ip
    templates = g.nic_templates(a.vms, a.size, **kw)
    nflows = a.flows
    for k in range(count):
        f = flow_of_packet(k, nflows, a.burst)
        p = bytearray(g.build(templates[f % len(templates)],
                              f // len(templates)))
        if kind == "truncated":
            p = p[:ETH_LEN + IP_LEN + UDP_LEN + VXLAN_LEN // 2]
        elif kind == "bad-ip-ihl":
            p[ETH_LEN] = 0x44
            struct.pack_into("!H", p, ETH_LEN + 10, 0)
            c = (~_fold(_sum16(bytes(p[ETH_LEN:ETH_LEN + IP_LEN])))) & 0xFFFF
            struct.pack_into("!H", p, ETH_LEN + 10, c)
        w.write(bytes(p))


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="bad kinds:\n" + "\n".join("  %-16s %s" % kv
                                          for kv in KINDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    m = ap.add_mutually_exclusive_group(required=True)
    m.add_argument("--nic", action="store_true",
                   help="VXLAN packets from the remote VTEP to the VMs")
    m.add_argument("--vm", type=int, metavar="I",
                   help="plain packets as VM I sends them")
    m.add_argument("--bad", choices=sorted(KINDS), metavar="KIND",
                   help="malformed/negative case: " + ", ".join(KINDS))
    m.add_argument("--list-bad", action="store_true",
                   help="list the --bad kinds and exit")
    ap.add_argument("--vms", type=int, default=2, help="VMs (default 2)")
    ap.add_argument("--flows", type=int, default=32,
                    help="distinct microflows (default 32)")
    ap.add_argument("--count", type=int, default=0,
                    help="packets (default: one per flow; --bad: 1)")
    ap.add_argument("--burst", type=int, default=1,
                    help="consecutive packets per flow (default 1)")
    ap.add_argument("--size", type=int, default=0,
                    help="frame length without FCS (default 128; --vm: 78)")
    ap.add_argument("--proto", choices=sorted(PROTOS), default="udp",
                    help="inner L4 protocol (default udp); tcp: ACK+PSH "
                    "data segments of established connections, seq = ack "
                    "constant per flow (see above)")
    ap.add_argument("--ipv6", action="store_true",
                    help="inner IPv6 instead of IPv4 (see above; the "
                    "address bases default to fd00:1:: and fd00:2::)")
    ap.add_argument("--out", "-o", help="output pcap")
    ap.add_argument("--vni", type=int, default=1001)
    ap.add_argument("--udp-port", type=int, default=4789,
                    help="VXLAN UDP destination port (default 4789)")
    ap.add_argument("--outer-src", default="172.1.0.0",
                    help="remote VTEP IP (default 172.1.0.0)")
    ap.add_argument("--outer-dst", default="172.1.0.100",
                    help="our VTEP IP (default 172.1.0.100)")
    ap.add_argument("--outer-src-mac", default="10:00:00:00:00:02",
                    help="remote VTEP MAC")
    ap.add_argument("--outer-dst-mac", default="10:00:00:00:00:01",
                    help="our VTEP MAC (the NIC's)")
    ap.add_argument("--not-vtep-ip", default="172.1.0.99",
                    help="outer dst for --bad not-for-vtep")
    ap.add_argument("--inner-src-mac", default="a0:00:00:00:00:02",
                    help="MAC of the remote hosts behind the remote VTEP")
    ap.add_argument("--vm-mac-base", default="52:54:00:00:00:00",
                    help="VM i's MAC = base + i")
    ap.add_argument("--vm-ip-base", default=None,
                    help="VM i's IP = base + i (default 192.1.0.0, "
                    "--ipv6: fd00:1::)")
    ap.add_argument("--remote-base", default=None,
                    help="first inner remote host IP (default 192.2.0.0, "
                    "--ipv6: fd00:2::)")
    ap.add_argument("--sport-min", type=int, default=49152)
    ap.add_argument("--sport-max", type=int, default=65535)
    ap.add_argument("--quiet", "-q", action="store_true")
    a = ap.parse_args(argv)
    if a.list_bad:
        for k, v in KINDS.items():
            print("%-16s %s" % (k, v))
        sys.exit(0)
    if not a.out:
        ap.error("--out is required")
    if a.vms < 1 or a.flows < 1 or a.burst < 1 or a.count < 0:
        ap.error("--vms, --flows, --burst must be >= 1, --count >= 0")
    if a.nic and a.flows < a.vms:
        ap.error("--flows must be >= --vms so every VM gets a flow")
    if not 0 <= a.sport_min <= a.sport_max <= 65535:
        ap.error("bad --sport-min/--sport-max")
    if not 0 <= a.vni < (1 << 24):
        ap.error("--vni must fit in 24 bits")
    if a.size == 0:
        a.size = 78 if a.vm is not None else 128
    if a.vm_ip_base is None:
        a.vm_ip_base = VM_IP6_BASE if a.ipv6 else "192.1.0.0"
    if a.remote_base is None:
        a.remote_base = REMOTE_IP6_BASE if a.ipv6 else "192.2.0.0"
    want = 6 if a.ipv6 else 4
    for opt in ("vm_ip_base", "remote_base"):
        try:
            v = ipaddress.ip_address(getattr(a, opt)).version
        except ValueError as e:
            ap.error(str(e))
        if v != want:
            ap.error("--%s %s: not an IPv%d address%s"
                     % (opt.replace("_", "-"), getattr(a, opt), want,
                        "" if a.ipv6 else " (--ipv6 for IPv6)"))
    for opt in ("outer_src_mac", "outer_dst_mac", "inner_src_mac",
                "vm_mac_base"):
        mac2bytes(getattr(a, opt))
    return a


def main(argv=None):
    a = parse_args(argv)
    g = Gen(a)
    w = PcapWriter(a.out)
    try:
        if a.nic:
            count = a.count or a.flows
            gen_flows(g, g.nic_templates(a.vms, a.size), a.flows, count,
                      a.burst, w)
            what = ("%d VXLAN packets, %d %s%s flows over %d VMs, %d B"
                    % (count, a.flows, "IPv6 " if a.ipv6 else "",
                       a.proto.upper(), a.vms, a.size))
        elif a.vm is not None:
            count = a.count or a.flows
            gen_flows(g, [g.vm_template(a.vm, a.size)], a.flows, count,
                      a.burst, w)
            what = ("%d packets from VM %d, %d %s%s flows, %d B"
                    % (count, a.vm, a.flows, "IPv6 " if a.ipv6 else "",
                       a.proto.upper(), a.size))
        else:
            gen_bad(g, a, w)
            what = "%d '%s' packets" % (w.n, a.bad)
    finally:
        w.close()
    if not a.quiet:
        print("gen-traffic: wrote %s: %s" % (a.out, what))
    return 0


if __name__ == "__main__":
    sys.exit(main())
