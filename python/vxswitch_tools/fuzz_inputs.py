# SPDX-License-Identifier: BSD-3-Clause
"""Inputs for the fuzz suite (fuzz.py): seeded, generated once per run.

scapy builds a few dozen valid frames; every mutant is then made from their
bytes (scapy is far too slow for millions of frames, so the runner replays
a few thousand distinct mutants in a loop with net_pcap infinite_rx).

  nic_mutants(rng, n)      underlay frames as the NIC receives them
  vm_mutants(rng, n)       frames as a guest sends them into a vhost port
  arp_flood(n_ips)         ARP requests/replies from n distinct sender IPs
  topology_mutants(rng, n) (name, bytes) mutations of the repo's topologies
  ctl_requests(rng, ...)   raw control-socket requests (see control.h)
"""

import struct
from pathlib import Path

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import (
    ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr,
    IPv6, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop)
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.layers.vxlan import VXLAN

from . import fuzz_ipv6 as V6
from . import harness as vxlib
from .addressing import SEED
from . import packets as P

# offsets of the header boundaries of a plain VXLAN frame (outer eth, ip,
# udp, vxlan, inner eth, inner ip, inner udp)
VXLAN_BOUNDS = (14, 34, 42, 50, 64, 84, 92)
# the frames of a 1-VM / 2-VM rig: what the switch's flows expect
REMOTE_VM_MAC = P.INNER_REMOTE_MAC
# the largest frame in one default mbuf (RTE_MBUF_DEFAULT_DATAROOM 2048):
# net_pcap's infinite_rx takes nothing larger
ONE_MBUF = 2048
# testpmd's mbufs for the VM side, so that jumbo frames fit in one
JUMBO_MBUF = 10240


# ------------------------------------------------------------- helpers

def _ipv4_csum_fix(b, off):
    if len(b) >= off + 20 and (b[off] >> 4) == 4:
        return P.ip_csum_fix(b, off)
    return bytes(b)


def _vxlan(inner, **kw):
    return P.vxlan_frame(inner, **kw)


def _tagged(frame, tags):
    """frame (bytes) with 802.1Q/802.1ad tags inserted after the MACs;
    tags: [(tpid, vid), ...] outermost first."""
    b = bytes(frame)
    hdr = b"".join(struct.pack("!HH", tpid, vid) for tpid, vid in tags)
    return b[:12] + hdr + b[12:]


def _with_ip_options(frame, off, opt=b"\x01\x01\x01\x00"):
    """An IPv4 header at off grown by opt (a multiple of 4 bytes): IHL,
    total length and checksum fixed."""
    b = bytearray(frame)
    ihl = b[off] & 0xF
    end = off + ihl * 4
    b[end:end] = opt
    b[off] = 0x40 | (ihl + len(opt) // 4)
    tl = int.from_bytes(b[off + 2:off + 4], "big") + len(opt)
    b[off + 2:off + 4] = tl.to_bytes(2, "big")
    return _ipv4_csum_fix(b, off)


def _fragment(frame, off, mf=True, offset=0):
    b = bytearray(frame)
    v = (0x2000 if mf else 0) | (offset & 0x1FFF)
    b[off + 6:off + 8] = v.to_bytes(2, "big")
    return _ipv4_csum_fix(b, off)


# ---------------------------------------------------------- base frames

# The VTEP's IPv6 address on the NIC rig (fuzz.py's _replay adds it to
# local-ip): the "outer ipv6 vxlan" base is sent to it, and the ND ones
# solicit it.
VTEP_IP6 = "fd01::1"
PEER_IP6 = "fd01::2"


def _vxlan6(inner, csum=None, ext=None):
    """VXLAN to the VTEP's IPv6 address (vxlan_decap6.c): scapy fills
    the UDP checksum unless csum is given; ext goes between IPv6 and UDP."""
    ip = IPv6(src=PEER_IP6, dst=VTEP_IP6)
    if ext is not None:
        ip = ip / ext
    udp = UDP(sport=50000, dport=4789) if csum is None else \
        UDP(sport=50000, dport=4789, chksum=csum)
    return bytes(Ether(src=P.REMOTE_MAC, dst=P.VTEP_MAC) / ip / udp /
                 VXLAN(vni=P.VNI) / bytes(inner))


def nd_bases():
    """(label, bytes) Neighbour Discovery for the VTEP's IPv6 address
    (nd_responder.c): solicitations with and without an SLL, duplicate
    address detection, advertisements solicited and not."""
    snma, snmac = "ff02::1:ff00:1", "33:33:ff:00:00:01"
    peer = P.REMOTE_MAC
    return [
        ("nd ns for vtep", Ether(src=peer, dst=snmac) /
         IPv6(src=PEER_IP6, dst=snma, hlim=255) /
         ICMPv6ND_NS(tgt=VTEP_IP6) / ICMPv6NDOptSrcLLAddr(lladdr=peer)),
        ("nd ns unicast no options", Ether(src=peer, dst=P.VTEP_MAC) /
         IPv6(src=PEER_IP6, dst=VTEP_IP6, hlim=255) /
         ICMPv6ND_NS(tgt=VTEP_IP6)),
        ("nd ns dad", Ether(src=peer, dst=snmac) /
         IPv6(src="::", dst=snma, hlim=255) / ICMPv6ND_NS(tgt=VTEP_IP6)),
        ("nd ns other", Ether(src=peer, dst=P.VTEP_MAC) /
         IPv6(src=PEER_IP6, dst=VTEP_IP6, hlim=255) /
         ICMPv6ND_NS(tgt="fd01::77") / ICMPv6NDOptSrcLLAddr(lladdr=peer)),
        ("nd na solicited", Ether(src=peer, dst=P.VTEP_MAC) /
         IPv6(src=PEER_IP6, dst=VTEP_IP6, hlim=255) /
         ICMPv6ND_NA(tgt=PEER_IP6, R=0, S=1, O=1) /
         ICMPv6NDOptDstLLAddr(lladdr=peer)),
        ("nd na no tll", Ether(src=peer, dst=P.VTEP_MAC) /
         IPv6(src=PEER_IP6, dst=VTEP_IP6, hlim=255) /
         ICMPv6ND_NA(tgt=PEER_IP6, R=0, S=1, O=0)),
        ("nd na unsolicited", Ether(src=peer, dst="33:33:00:00:00:01") /
         IPv6(src=PEER_IP6, dst="ff02::1", hlim=255) /
         ICMPv6ND_NA(tgt=PEER_IP6, R=0, S=0, O=1) /
         ICMPv6NDOptDstLLAddr(lladdr=peer)),
    ]


def nic_bases():
    """(label, bytes) valid or near-valid underlay frames: the shapes the
    mutants start from."""
    v0 = P.vxlan_to_vm(0, sport=1)
    v1 = P.vxlan_to_vm(1, sport=2)
    jumbo_inner = P.inner_frame(0, sport=3, size=8950)
    big = [("vxlan vm0", v0), ("vxlan vm1", v1),
           ("vxlan jumbo (multi-segment)", _vxlan(jumbo_inner)),
           ("vxlan 2000 bytes", _vxlan(P.inner_frame(1, sport=4,
                                                       size=1950)))]
    inner_arp = bytes(Ether(src=REMOTE_VM_MAC, dst="ff:ff:ff:ff:ff:ff") /
                      ARP(op=1, hwsrc=REMOTE_VM_MAC, psrc=P.INNER_REMOTE_IP,
                          pdst=SEED.ip(0)))
    inner_v6 = bytes(Ether(src=REMOTE_VM_MAC, dst=SEED.mac(0)) /
                     IPv6(src="fd00::1", dst="fd00::2") / UDP(sport=1,
                                                               dport=2))
    inner_vlan = _tagged(P.inner_frame(0, sport=5), [(0x8100, 10)])
    other = [
        ("outer vlan", _tagged(v0, [(0x8100, 100)])),
        ("outer qinq", _tagged(v1, [(0x88A8, 200), (0x8100, 100)])),
        ("outer ip options", _with_ip_options(v0, 14)),
        ("outer fragment mf", _fragment(v0, 14, mf=True, offset=0)),
        ("outer fragment tail", _fragment(v1, 14, mf=False, offset=100)),
        ("inner ip options", _vxlan(_with_ip_options(
            bytes(P.inner_frame(0, sport=6)), 14))),
        ("inner fragment", _vxlan(_fragment(
            bytes(P.inner_frame(1, sport=7)), 14, offset=3))),
        ("inner arp", _vxlan(inner_arp)),
        ("inner ipv6", _vxlan(inner_v6)),
        ("inner vlan", _vxlan(inner_vlan)),
        ("outer ipv6 vxlan", _vxlan6(bytes(P.inner_frame(0)))),
        ("outer ipv6 vxlan zero csum",
         _vxlan6(bytes(P.inner_frame(1, sport=8)), csum=0)),
        ("outer ipv6 vxlan inner ipv6", _vxlan6(inner_v6)),
        ("outer ipv6 vxlan jumbo (multi-segment)", _vxlan6(jumbo_inner)),
        ("outer ipv6 vxlan vlan",
         _tagged(_vxlan6(bytes(P.inner_frame(0, sport=9))), [(0x8100, 7)])),
        ("outer ipv6 vxlan hop-by-hop",
         _vxlan6(bytes(P.inner_frame(0)), ext=IPv6ExtHdrHopByHop())),
        ("outer ipv6 vxlan fragment",
         _vxlan6(bytes(P.inner_frame(1)), ext=IPv6ExtHdrFragment(m=1))),
        ("arp request for vtep", P.arp_request()),
        ("arp request other", P.arp_request(tpa="172.1.0.77")),
        ("arp reply", P.arp_reply("02:00:00:00:01:01", "172.1.0.5")),
        ("broadcast vxlan", _vxlan(P.inner_frame(0),
                                   dst_mac="ff:ff:ff:ff:ff:ff")),
        ("unknown vni", P.vxlan_to_vm(0, vni=2002)),
    ]
    v6 = [("inner " + l, _vxlan(bytes(f)))
          for l, f in V6.bases(REMOTE_VM_MAC, SEED.mac(0))]
    return [(l, bytes(b)) for l, b in big + other + v6 + nd_bases()]


def vm_bases(vm=0):
    """(label, bytes) frames as guest `vm` sends them: to the remote host
    behind the tunnel, and the odd things a guest may send."""
    mac = SEED.mac(vm)
    ip = SEED.ip(vm)

    def out(size=None, **kw):
        p = (Ether(src=mac, dst=REMOTE_VM_MAC) /
             IP(src=ip, dst=P.INNER_REMOTE_IP, id=9) /
             UDP(sport=5001, dport=40000, **kw))
        b = bytes(p)
        return b + b"\0" * max(0, (size or 0) - len(b))
    base = out(size=78)
    return [
        ("udp out", base),
        ("udp 1500", out(size=1514)),
        ("udp jumbo (multi-segment)", out(size=9000)),
        ("ip options", _with_ip_options(base, 14)),
        ("fragment", _fragment(base, 14, offset=9)),
        ("vlan", _tagged(base, [(0x8100, 5)])),
        ("qinq", _tagged(base, [(0x88A8, 6), (0x8100, 5)])),
        ("ipv6", bytes(Ether(src=mac, dst=REMOTE_VM_MAC) /
                       IPv6(src="fd00::2", dst="fd00::1") /
                       UDP(sport=1, dport=2))),
        ("arp", bytes(Ether(src=mac, dst="ff:ff:ff:ff:ff:ff") /
                      ARP(op=1, hwsrc=mac, psrc=ip,
                          pdst=P.INNER_REMOTE_IP))),
        ("vxlan from a guest", P.vxlan_to_vm(0)),
        ("broadcast", bytes(Ether(src=mac, dst="ff:ff:ff:ff:ff:ff")) +
         base[14:]),
    ] + [(l, bytes(f)) for l, f in V6.bases(mac, REMOTE_VM_MAC)]


# ------------------------------------------------------------- mutators

def _bounds(b):
    """Header boundaries worth truncating at: the VXLAN ones inside b,
    every 4 bytes of the first 100 and the last bytes."""
    cut = set(x for x in VXLAN_BOUNDS if x < len(b))
    cut.update(range(1, min(len(b), 100), 7))
    cut.update(x - 1 for x in VXLAN_BOUNDS if 1 < x <= len(b))
    cut.update((len(b) - 1, len(b) // 2))
    return sorted(c for c in cut if 0 < c < len(b))


def _ip_off(b):
    """Offset of the first IPv4 header (after VLAN tags), or None."""
    off, et = 12, b[12:14] if len(b) >= 14 else b""
    while et in (b"\x81\x00", b"\x88\xa8") and len(b) >= off + 6:
        off += 4
        et = b[off:off + 2]
    return off + 2 if et == b"\x08\x00" and len(b) >= off + 22 else None


def _m_trunc(rng, b):
    return b[:rng.choice(_bounds(b))] if len(b) > 1 else b


def _m_bitflip(rng, b):
    b = bytearray(b)
    for _ in range(rng.randint(1, 8)):
        # most flips in the headers, where they matter
        i = (rng.randrange(min(len(b), 100)) if rng.random() < 0.8
             else rng.randrange(len(b)))
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def _m_byte(rng, b):
    b = bytearray(b)
    i = rng.randrange(min(len(b), 100))
    b[i] = rng.choice((0, 0xFF, 0x80, 0x7F, rng.randrange(256)))
    return bytes(b)


def _m_ip_len(rng, b):
    off = _ip_off(b)
    if off is None:
        return _m_byte(rng, b)
    b = bytearray(b)
    near = max(0, len(b) - off + rng.randint(-30, 30))
    v = rng.choice((0, 1, 19, 20, 0xFFFF, len(b), near, rng.randrange(65536)))
    b[off + 2:off + 4] = (v & 0xFFFF).to_bytes(2, "big")
    # mostly with a good checksum, so that the length check is what fails
    return _ipv4_csum_fix(b, off) if rng.random() < 0.7 else bytes(b)


def _m_ihl(rng, b):
    off = _ip_off(b)
    if off is None:
        return _m_byte(rng, b)
    b = bytearray(b)
    b[off] = 0x40 | rng.randrange(16)
    return _ipv4_csum_fix(b, off)


def _m_udp_len(rng, b):
    off = _ip_off(b)
    if off is None or len(b) < off + 28:
        return _m_byte(rng, b)
    u = off + (b[off] & 0xF) * 4
    if len(b) < u + 8:
        return _m_byte(rng, b)
    b = bytearray(b)
    b[u + 4:u + 6] = rng.choice((0, 7, 8, 0xFFFF, rng.randrange(65536))
                                ).to_bytes(2, "big")
    return bytes(b)


def _m_csum(rng, b):
    off = _ip_off(b)
    if off is None:
        return _m_bitflip(rng, b)
    b = bytearray(b)
    if rng.random() < 0.5:
        b[off + 10] ^= 0xFF                 # ip checksum
    elif len(b) >= off + 28:
        u = off + (b[off] & 0xF) * 4
        if len(b) >= u + 8:
            b[u + 6:u + 8] = rng.randrange(1, 65536).to_bytes(2, "big")
    return bytes(b)


def _m_extend(rng, b):
    return b + bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))


def _m_arp(rng, b):
    """ARP fields: odd opcodes, lengths, hardware/protocol types."""
    if b[12:14] != b"\x08\x06" or len(b) < 42:
        return _m_bitflip(rng, b)
    b = bytearray(b)
    field = rng.randrange(4)
    if field == 0:
        b[20:22] = rng.choice((0, 3, 4, 8, 9, 0xFFFF, rng.randrange(65536))
                              ).to_bytes(2, "big")
    elif field == 1:
        b[18] = rng.choice((0, 4, 16, 255))    # hlen
    elif field == 2:
        b[19] = rng.choice((0, 6, 16, 255))    # plen
    else:
        b[14:18] = rng.choice((b"\x00\x06\x08\x00", b"\x00\x01\x86\xdd",
                               bytes(rng.randrange(256) for _ in range(4))))
    return bytes(b)


def _m_ipv6(rng, b):
    """One of fuzz_ipv6's (payload length, next header, a length byte);
    a byte anywhere for a frame without IPv6."""
    if V6.ip6_off(b) is None:
        return _m_byte(rng, b)
    return rng.choice(V6.MUTATORS)(rng, b)


MUTATORS = (_m_trunc, _m_trunc, _m_bitflip, _m_bitflip, _m_byte, _m_ip_len,
            _m_ihl, _m_udp_len, _m_csum, _m_extend, _m_arp, _m_ipv6)


def _runts(rng):
    """Frames shorter than an Ethernet header or with nothing after it."""
    out = []
    for n in range(1, 15):
        out.append(bytes(rng.randrange(256) for _ in range(n)))
    out.append(bytes(Ether(src=P.REMOTE_MAC, dst=P.VTEP_MAC, type=0x0800)))
    out.append(bytes(Ether(src=P.REMOTE_MAC, dst=P.VTEP_MAC, type=0x0806)))
    out.append(bytes(Ether(src=P.REMOTE_MAC, dst=P.VTEP_MAC, type=0x8100)))
    return out


def mutate(rng, bases, n, good_share=0.2):
    """n frames: every base truncated at every header boundary, the runts,
    then random mutants of random bases (1-3 mutations each), with
    good_share of the bases unchanged so that the good path stays busy."""
    out = []
    for _, b in bases:
        out.extend(b[:c] for c in _bounds(b))
        out.extend(V6.header_cuts(b))  # every byte of IPv6 headers
    out.extend(_runts(rng))
    while len(out) < n:
        _, b = rng.choice(bases)
        if rng.random() >= good_share:
            for _ in range(rng.randint(1, 3)):
                if len(b) > 1:
                    b = rng.choice(MUTATORS)(rng, b)
        out.append(b)
    rng.shuffle(out)
    return out


def nic_mutants(rng, n):
    return mutate(rng, nic_bases(), n)


_VTEP_IP_BYTES = bytes(int(x) for x in P.VTEP_IP.split("."))


def arp_consumed(b):
    """True for the frames that were freed with no counter before issue 9
    (app/datapath/arp_responder.c: consumed if a reply, arp_bad_op otherwise): a
    well-formed untagged Ethernet/IPv4 ARP for our VTEP IP whose opcode is
    not a request. test_fuzz replays them on their own too."""
    return (len(b) >= 42 and b[12:14] == b"\x08\x06" and
            b[14:20] == b"\x00\x01\x08\x00\x06\x04" and
            b[20:22] != b"\x00\x01" and b[38:42] == _VTEP_IP_BYTES)


def vm_mutants(rng, n):
    return mutate(rng, vm_bases(0), n)


# ------------------------------------------------------------ ARP flood

def _arp_bytes(op, sha, spa, tha, tpa, dst):
    return (dst + sha + b"\x08\x06" +
            struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + sha + spa + tha +
            tpa + b"\0" * 18)


def arp_flood(n_ips, first_ip=(10 << 24) | 1, replies=True):
    """n_ips ARP frames, each from its own sender IP (10.0.0.1 on) and MAC,
    requests for our VTEP IP, alternately with replies to it if replies:
    both are learned."""
    vtep_ip = bytes(int(x) for x in P.VTEP_IP.split("."))
    vtep_mac = bytes(int(x, 16) for x in P.VTEP_MAC.split(":"))
    out = []
    for k in range(n_ips):
        ip = (first_ip + k).to_bytes(4, "big")
        mac = b"\x02\x00" + (first_ip + k).to_bytes(4, "big")
        if replies and k % 2:
            out.append(_arp_bytes(2, mac, ip, vtep_mac, vtep_ip, vtep_mac))
        else:
            out.append(_arp_bytes(1, mac, ip, b"\0" * 6, vtep_ip,
                                  b"\xff" * 6))
    return out


# ------------------------------------------------------------- topology

TOPOLOGY_SOURCES = ("topology", "tests/unit/topologies")

HUGE = (b"99999999999999999999999", b"-1", b"4294967296", b"65536",
        b"18446744073709551616", b"-9223372036854775809", b"0", b"1e308",
        b"0x7fffffff", b"nan")


def topology_sources():
    out = []
    for d in TOPOLOGY_SOURCES:
        out += sorted((vxlib.REPO / d).glob("*.yaml"))
    return out


def _t_byteflip(rng, t):
    b = bytearray(t)
    for _ in range(rng.randint(1, 4)):
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    return bytes(b)


def _t_del_line(rng, t):
    ls = t.split(b"\n")
    del ls[rng.randrange(len(ls))]
    return b"\n".join(ls)


def _t_dup_line(rng, t):
    ls = t.split(b"\n")
    i = rng.randrange(len(ls))
    ls.insert(i, ls[i])
    return b"\n".join(ls)


def _values(ls):
    return [i for i, l in enumerate(ls) if b":" in l and
            not l.lstrip().startswith(b"#") and l.split(b":", 1)[1].strip()]


def _t_swap_values(rng, t):
    ls = t.split(b"\n")
    vs = _values(ls)
    if len(vs) < 2:
        return _t_byteflip(rng, t)
    a, b = rng.sample(vs, 2)
    ka, va = ls[a].split(b":", 1)
    kb, vb = ls[b].split(b":", 1)
    ls[a], ls[b] = ka + b":" + vb, kb + b":" + va
    return b"\n".join(ls)


def _t_huge(rng, t):
    ls = t.split(b"\n")
    vs = _values(ls)
    if not vs:
        return _t_byteflip(rng, t)
    i = rng.choice(vs)
    k, _ = ls[i].split(b":", 1)
    ls[i] = k + b": " + rng.choice(HUGE + (b"[]", b"{}", b"~", b'""',
                                           b"[" + b"1," * 5000 + b"1]"))
    return b"\n".join(ls)


def _t_insert(rng, t, what):
    i = rng.randrange(len(t) + 1)
    return t[:i] + what + t[i:]


def _t_nul(rng, t):
    return _t_insert(rng, t, b"\0")


def _t_bad_utf8(rng, t):
    return _t_insert(rng, t, rng.choice((b"\xff\xfe", b"\xc3\x28", b"\x80",
                                         b"\xed\xa0\x80", b"\xf8\x88\x80")))


def _t_truncate(rng, t):
    return t[:rng.randrange(len(t))]


def _t_indent(rng, t):
    ls = t.split(b"\n")
    i = rng.randrange(len(ls))
    ls[i] = rng.choice((b"  ", b"\t", b"")) + ls[i].lstrip() \
        if rng.random() < 0.5 else b"    " + ls[i]
    return b"\n".join(ls)


TOPO_MUTATORS = {"byte flip": _t_byteflip, "deleted line": _t_del_line,
                 "duplicated line": _t_dup_line,
                 "swapped values": _t_swap_values,
                 "huge number": _t_huge, "NUL": _t_nul,
                 "invalid UTF-8": _t_bad_utf8, "truncated": _t_truncate,
                 "indentation": _t_indent}


def topology_mutants(rng, n):
    """n (label, bytes): each a source file with 1-2 mutations of one
    kind (the label names the file and the kind)."""
    srcs = [(p, p.read_bytes()) for p in topology_sources()]
    kinds = sorted(TOPO_MUTATORS)
    out = []
    for k in range(n):
        path, text = srcs[k % len(srcs)]
        kind = kinds[(k // len(srcs)) % len(kinds)]
        t = text
        for _ in range(rng.randint(1, 2)):
            if t:
                t = TOPO_MUTATORS[kind](rng, t)
        out.append(("%s: %s" % (Path(path).name, kind), t))
    return out
