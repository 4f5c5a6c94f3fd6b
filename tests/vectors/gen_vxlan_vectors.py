#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the VXLAN reference vectors that tests/unit/test_vxlan.c checks
encap and decap against, byte for byte.

Scapy builds every outer packet from the parameters alone (it computes the
IPv4 checksum and lengths itself), so the C code is compared with an
independent implementation rather than with itself. The output is
committed; tests/unit/test_vxlan_vectors_fresh.sh regenerates it and fails
on any difference, so edit this script, never the .txt.

    gen_vxlan_vectors.py [OUTPUT]     (default: vxlan_vectors.txt beside it)
"""

import os
import sys

import scapy.all  # noqa: F401  (loads every layer and its bindings)
from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.layers.vxlan import VXLAN
from scapy.packet import Raw

# The encap side: our VTEP and the next hop towards the remote one.
VTEP_MAC = "02:00:00:00:00:01"
NEXTHOP_MAC = "02:00:00:00:00:02"
VTEP_IP = "192.0.2.1"
REMOTE_IP = "192.0.2.2"

# The overlay: two VMs.
VM1_MAC = "52:54:00:00:00:01"
VM2_MAC = "52:54:00:00:00:02"
VM1_IP = "10.0.0.1"
VM2_IP = "10.0.0.2"


def vm_eth():
    return Ether(src=VM1_MAC, dst=VM2_MAC)


def inner_udp64():
    # 64 bytes on the wire without the FCS: the smallest common frame.
    hdrs = vm_eth() / IP(src=VM1_IP, dst=VM2_IP) / UDP(sport=1234, dport=5678)
    return hdrs / Raw(bytes(range(64 - len(hdrs))))


def inner_tcp():
    return (vm_eth() / IP(src=VM1_IP, dst=VM2_IP, id=4242)
            / TCP(sport=40000, dport=80, flags="PA", seq=1000, ack=2000)
            / Raw(b"GET / HTTP/1.1\r\nHost: vm2\r\n\r\n"))


def inner_icmp():
    return (vm_eth() / IP(src=VM1_IP, dst=VM2_IP, ttl=63)
            / ICMP(type=8, id=0x77, seq=1) / Raw(bytes(56)))


def inner_udp1400():
    return (vm_eth() / IP(src=VM1_IP, dst=VM2_IP)
            / UDP(sport=5001, dport=5001)
            / Raw(bytes((i * 7) & 0xff for i in range(1400))))


def inner_arp():
    return (Ether(src=VM1_MAC, dst="ff:ff:ff:ff:ff:ff")
            / ARP(op=1, hwsrc=VM1_MAC, psrc=VM1_IP, pdst=VM2_IP))


def inner_vlan():
    # The overlay frame may carry its own tag; encap must not care.
    return (vm_eth() / Dot1Q(vlan=10, prio=5) / IP(src=VM1_IP, dst=VM2_IP)
            / UDP(sport=7, dport=7) / Raw(b"tagged inner"))


def outer(p, inner, *, vlan=None, ip_options=None, udp_csum=False, tos=0,
          pad=b""):
    """The VXLAN packet a VTEP with parameters p sends for inner."""
    eth = Ether(src=p["src_mac"], dst=p["dst_mac"])
    if vlan is not None:
        eth = eth / Dot1Q(vlan=vlan, prio=3)
    ip = IP(src=p["src_ip"], dst=p["dst_ip"], ttl=p["ttl"], tos=tos,
            id=p["ip_id"], flags="DF" if p["df"] else 0, proto=17)
    if ip_options is not None:
        ip.options = ip_options
    udp = UDP(sport=p["sport"], dport=p["dst_port"],
              chksum=None if udp_csum else 0)
    vx = VXLAN(flags=0x08, vni=p["vni"])
    return bytes(eth / ip / udp / vx / inner) + pad


def params(**kw):
    p = dict(src_mac=VTEP_MAC, dst_mac=NEXTHOP_MAC, src_ip=VTEP_IP,
             dst_ip=REMOTE_IP, vni=1001, dst_port=4789, ttl=64, df=True,
             ip_id=0, hash=0, group="-")
    p.update(kw)
    # The spec, not the C code: RFC 6335 dynamic range from the flow hash.
    p["sport"] = 49152 + (p["hash"] & 0x3fff)
    return p


def cases():
    """(name, mode, params, inner bytes, outer bytes). mode 'both': encap
    of inner must give outer and decap of outer must give inner; 'decap':
    outer is something a remote VTEP may send that encap never makes."""
    out = []

    def both(name, inner, **kw):
        p = params(**kw)
        out.append((name, "both", p, bytes(inner), outer(p, inner)))

    def decap(name, inner, okw, **kw):
        p = params(**kw)
        out.append((name, "decap", p, bytes(inner), outer(p, inner, **okw)))

    both("udp64_df_ttl64_vni1001", inner_udp64(), hash=0x00000000)
    both("tcp_nodf", inner_tcp(), df=False, ip_id=1, hash=0xdeadbeef)
    both("icmp_ttl1_vnimax", inner_icmp(), ttl=1, vni=0xffffff,
         ip_id=0x1234, hash=0xffffffff)
    both("udp1400", inner_udp1400(), ip_id=0xfffe, hash=0x3fff)
    both("arp_vni1", inner_arp(), vni=1, ttl=255, df=False, ip_id=7,
         hash=0x12344000)
    both("inner_vlan", inner_vlan(), hash=0xc0de)
    both("other_addrs_port8472", inner_udp64(), src_mac="0a:1b:2c:3d:4e:5f",
         dst_mac="f0:e1:d2:c3:b4:a5", src_ip="10.255.0.1",
         dst_ip="172.16.254.3", dst_port=8472, vni=0x800001, ip_id=0x8000,
         hash=0x00002000)

    # One tunnel, consecutive packets: ids run through the 16-bit wrap.
    wrap = dict(group="wrap", df=False, vni=0xffffff)
    both("wrap_ffff", inner_udp64(), ip_id=0xffff, hash=0x11111111, **wrap)
    both("wrap_0000", inner_tcp(), ip_id=0x0000, hash=0x22222222, **wrap)
    both("wrap_0001", inner_icmp(), ip_id=0x0001, hash=0x33333333, **wrap)

    decap("outer_vlan", inner_udp64(), dict(vlan=100))
    decap("outer_ip_options", inner_tcp(),
          dict(ip_options=IPOption(b"\x01\x01\x01\x00")))  # NOPs + EOL: IHL 6
    decap("outer_udp_csum", inner_udp1400(), dict(udp_csum=True), ip_id=99)
    decap("outer_all", inner_icmp(),
          dict(vlan=4094, ip_options=IPOption(b"\x01\x01\x01\x00"),
               udp_csum=True, tos=0x10), vni=5000, ttl=3, df=False)
    decap("outer_padded", inner_arp(), dict(pad=bytes(range(1, 7))))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        here, "vxlan_vectors.txt")
    lines = [
        "# VXLAN reference vectors, generated by gen_vxlan_vectors.py with",
        "# scapy: do not edit, regenerate. One block per case, 'case NAME'",
        "# to 'end', one 'key value' per line; MACs, IPs as text, numbers",
        "# decimal or 0x hex; inner/outer as hex bytes. mode 'both': encap",
        "# of inner (template from the parameters, IP id ip_id, flow hash",
        "# hash) gives outer, and decap of outer gives inner; mode 'decap':",
        "# decap only. Cases of one group (not '-') share a template and",
        "# take consecutive ids: encap them as one batch.",
    ]
    for name, mode, p, inner, outer_bytes in cases():
        lines += [
            f"case {name}",
            f"mode {mode}",
            f"group {p['group']}",
            f"src_mac {p['src_mac']}",
            f"dst_mac {p['dst_mac']}",
            f"src_ip {p['src_ip']}",
            f"dst_ip {p['dst_ip']}",
            f"vni {p['vni']:#x}",
            f"dst_port {p['dst_port']}",
            f"ttl {p['ttl']}",
            f"df {int(p['df'])}",
            f"ip_id {p['ip_id']:#x}",
            f"hash {p['hash']:#010x}",
            f"sport {p['sport']}",
            f"inner {inner.hex()}",
            f"outer {outer_bytes.hex()}",
            "end",
        ]
    with open(path, "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
