#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarises a pcap of vxswitch traffic.

Prints a one-line decode (outer | inner) of the first K packets with scapy,
then counts over the whole file per (outer dst IP, VNI, inner dst IP); plain
(not VXLAN) frames are counted with VNI '-' and their own dst IP. Reads pcap
and pcapng (dpdk-dumpcap's format) through scapy's raw readers; the counting
pass parses headers with struct, so million-packet files take seconds.

  pcap-summary.py FILE [-k K] [--max N] [--json] [--vxlan-port 4789]
"""

import argparse
import collections
import ipaddress
import json
import struct
import sys


def read_pcap(path, limit=None):
    """Yields raw frames from a pcap (any variant) or a pcapng (as
    dpdk-dumpcap writes), through scapy's raw readers: nothing is
    dissected here, so large files stay fast."""
    from scapy.error import Scapy_Exception
    from scapy.utils import RawPcapReader

    try:
        reader = RawPcapReader(path)
    except (Scapy_Exception, EOFError) as ex:
        raise SystemExit("%s: not a pcap or pcapng (%s)" % (path, ex))
    try:
        n = 0
        for frame, meta in reader:
            if limit is not None and n >= limit:
                return
            # pcap: one link type per file; pcapng: per interface
            linktype = (meta.linktype if hasattr(meta, "linktype")
                        else reader.linktype)
            if linktype != 1:
                raise SystemExit("%s: link type %d, expected Ethernet (1)"
                                 % (path, linktype))
            yield frame
            n += 1
    finally:
        reader.close()


def ip(b):
    return str(ipaddress.IPv4Address(b))


def classify(p, vxlan_port):
    """-> (outer dst, vni, inner dst) for counting; strings, '-' if absent."""
    if len(p) < 14:
        return ("runt", "-", "-")
    et = struct.unpack_from("!H", p, 12)[0]
    off = 14
    if et == 0x8100 and len(p) >= 18:
        et = struct.unpack_from("!H", p, 16)[0]
        off = 18
    if et == 0x0806:
        tpa = ip(p[off + 24:off + 28]) if len(p) >= off + 28 else "?"
        return ("arp " + tpa, "-", "-")
    if et != 0x0800 or len(p) < off + 20:
        return ("ethertype %#06x" % et, "-", "-")
    ihl = (p[off] & 0x0F) * 4
    odst = ip(p[off + 16:off + 20])
    proto = p[off + 9]
    if ihl < 20:
        return (odst, "-", "bad ihl")
    u = off + ihl
    if proto != 17 or len(p) < u + 8:
        return (odst, "-", "proto %d" % proto)
    dport = struct.unpack_from("!H", p, u + 2)[0]
    if dport != vxlan_port:
        # other tunnel ports by number (a wrong-port case), the rest plain
        if dport in (4790, 6081, 8472):
            return (odst, "-", "udp/%d" % dport)
        return (odst, "-", "plain udp")
    v = u + 8
    if len(p) < v + 8:
        return (odst, "trunc", "-")
    flags = p[v]
    vni = struct.unpack_from("!I", p, v + 4)[0] >> 8
    vni_s = str(vni) if flags & 0x08 else "%d(I=0)" % vni
    i = v + 8
    if len(p) < i + 14 + 20 or struct.unpack_from("!H", p, i + 12)[0] != 0x0800:
        return (odst, vni_s, "non-ip")
    return (odst, vni_s, ip(p[i + 14 + 16:i + 14 + 20]))


def decode(p):
    """One line per packet using scapy's dissectors."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import ARP, Ether
    from scapy.layers.vxlan import VXLAN

    def l3(x):
        if ARP in x and x[ARP].underlayer is x:
            a = x[ARP]
            return "ARP %s %s(%s) -> %s" % ("who-has" if a.op == 1 else
                                            "is-at", a.psrc, a.hwsrc, a.pdst)
        s = "%s > %s" % (x.src, x.dst)
        if IP in x:
            ipl = x[IP]
            s += " %s > %s" % (ipl.src, ipl.dst)
            if UDP in ipl and ipl[UDP].underlayer is ipl:
                s += " udp %d > %d" % (ipl[UDP].sport, ipl[UDP].dport)
            else:
                s += " proto %d" % ipl.proto
        else:
            s += " type %#06x" % x.type
        return s

    e = Ether(p)
    line = "%4dB %s" % (len(p), l3(e))
    if VXLAN in e:
        vx = e[VXLAN]
        line += " | vxlan flags %#04x vni %d" % (int(vx.flags), vx.vni)
        inner = vx.payload
        if isinstance(inner, Ether):
            line += " | " + l3(inner)
    return line


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pcap")
    ap.add_argument("-k", "--decode", type=int, default=8, metavar="K",
                    help="decode the first K packets (default 8)")
    ap.add_argument("--max", type=int, default=None,
                    help="count only the first N packets")
    ap.add_argument("--vxlan-port", type=int, default=4789)
    ap.add_argument("--json", action="store_true",
                    help="print the counts as JSON instead of a table")
    a = ap.parse_args(argv)

    counts = collections.Counter()
    sizes = collections.Counter()
    total = 0
    first = []
    for p in read_pcap(a.pcap, a.max):
        if total < a.decode:
            first.append(p)
        counts[classify(p, a.vxlan_port)] += 1
        sizes[len(p)] += 1
        total += 1

    if a.json:
        json.dump({"packets": total,
                   "sizes": {str(k): v for k, v in sorted(sizes.items())},
                   "groups": [{"outer_dst": k[0], "vni": k[1],
                               "inner_dst": k[2], "packets": v}
                              for k, v in sorted(counts.items())]},
                  sys.stdout, indent=1)
        print()
        return 0

    if first:
        print("first %d of %d packets:" % (len(first), total))
        for n, p in enumerate(first):
            try:
                print("  #%-3d %s" % (n, decode(p)))
            except Exception as ex:  # malformed on purpose, say so
                print("  #%-3d %4dB undecodable: %s" % (n, len(p), ex))
    print("%d packets; frame sizes: %s" % (
        total, ", ".join("%dB x%d" % kv for kv in sorted(sizes.items())[:8])
        + (" ..." if len(sizes) > 8 else "")))
    print("%-18s %-10s %-16s %10s" % ("outer dst", "vni", "inner dst",
                                      "packets"))
    for (odst, vni, idst), c in sorted(counts.items(),
                                       key=lambda kv: (-kv[1], kv[0])):
        print("%-18s %-10s %-16s %10d" % (odst, vni, idst, c))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)
