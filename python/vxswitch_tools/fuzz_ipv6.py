# SPDX-License-Identifier: BSD-3-Clause
"""The fuzz suite's IPv6 frames and mutators (fuzz_inputs.py uses them on
both sides, the NIC's inner frames and a guest's): extension-header
chains (hop-by-hop, routing, destination options, fragment), first and
later fragments, Neighbour Discovery with its options, MLD behind
hop-by-hop, ICMPv6, TCP. The mutators aim at what the IPv6 parser
(app/datapath/miniflow_ipv6.c) reads: the payload length, the next-header
bytes of the chain, extension-header and ND option lengths; and every base
is also cut at every byte of its headers (truncated at every header).
"""

from scapy.layers.inet import TCP, UDP
from scapy.layers.inet6 import (
    ICMPv6EchoRequest, ICMPv6MLQuery, ICMPv6ND_NA, ICMPv6ND_NS,
    ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr, IPv6, IPv6ExtHdrDestOpt,
    IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, RouterAlert)
from scapy.layers.l2 import Ether

# extension headers the parser walks, and a few it stops at
NEXT_HEADERS = (0, 43, 60, 51, 44, 6, 17, 58, 59, 50, 255)
# how far past the IPv6 header's start the every-byte cuts go: the longest
# base's headers (the chain: 40 + 8 * 4, then UDP) and an ND option
HEADER_SPAN = 96


def bases(src_mac, dst_mac, src="fd00::2", dst="fd00::1"):
    """(label, Ether frame) IPv6 shapes from src to dst."""
    def e():
        return Ether(src=src_mac, dst=dst_mac)
    ll, ll_peer = "fe80::2", "fe80::1"
    return [
        ("ipv6 tcp", e() / IPv6(src=src, dst=dst, fl=0x12345, tc=0x20) /
         TCP(sport=1, dport=22)),
        ("ipv6 ext chain", e() / IPv6(src=src, dst=dst) /
         IPv6ExtHdrHopByHop() / IPv6ExtHdrRouting() / IPv6ExtHdrDestOpt() /
         IPv6ExtHdrFragment(m=1, id=5) / UDP(sport=3, dport=4) /
         (b"f" * 24)),
        ("ipv6 fragment later", e() / IPv6(src=src, dst=dst) /
         IPv6ExtHdrFragment(offset=4, m=0, id=5, nh=17) / (b"g" * 16)),
        ("ipv6 nd ns", e() / IPv6(src=ll, dst=ll_peer, hlim=255) /
         ICMPv6ND_NS(tgt=ll_peer) / ICMPv6NDOptSrcLLAddr(lladdr=src_mac)),
        ("ipv6 nd na", e() / IPv6(src=ll, dst=ll_peer, hlim=255) /
         ICMPv6ND_NA(tgt=ll, S=1) / ICMPv6NDOptDstLLAddr(lladdr=src_mac)),
        ("ipv6 echo", e() / IPv6(src=src, dst=dst) /
         ICMPv6EchoRequest(id=1, seq=1)),
        ("ipv6 mld", e() / IPv6(src=ll, dst="ff02::1", hlim=1) /
         IPv6ExtHdrHopByHop(options=[RouterAlert()]) / ICMPv6MLQuery()),
    ]


def ip6_off(b):
    """Offset of the first IPv6 header: untagged or tagged, or inside a
    VXLAN frame (inner Ethernet at 50); None if there is none."""
    for et in (12, 16, 20, 62, 66):
        if (b[et:et + 2] == b"\x86\xdd" and len(b) >= et + 42 and
                b[et + 2] >> 4 == 6):
            return et + 2
    return None


def _chain(b, off):
    """Offsets of the next-header bytes of the chain at off, and of the
    length bytes of the extension headers on it."""
    nh, lens, proto, pos = [off + 6], [], b[off + 6], off + 40
    while proto in (0, 43, 60, 51, 44) and pos + 8 <= len(b):
        nh.append(pos)
        lens.append(pos + 1)
        step = (8 if proto == 44 else (b[pos + 1] + 2) * 4 if proto == 51
                else (b[pos + 1] + 1) * 8)
        proto, pos = b[pos], pos + step
    return nh, lens, pos


def m_plen(rng, b):
    off = ip6_off(b)
    if off is None:
        return b
    b = bytearray(b)
    near = max(0, len(b) - off - 40 + rng.randint(-24, 24))
    v = rng.choice((0, 1, 7, 8, 0xFFFF, near, rng.randrange(65536)))
    b[off + 4:off + 6] = (v & 0xFFFF).to_bytes(2, "big")
    return bytes(b)


def m_next_header(rng, b):
    off = ip6_off(b)
    if off is None:
        return b
    nh, _, _ = _chain(b, off)
    b = bytearray(b)
    b[rng.choice(nh)] = rng.choice(NEXT_HEADERS)
    return bytes(b)


def m_lengths(rng, b):
    """An extension header's or an ND option's length byte."""
    off = ip6_off(b)
    if off is None:
        return b
    _, lens, end = _chain(b, off)
    b = bytearray(b)
    # ND: the ICMPv6 header (8) and target (16), then options
    if b[off + 6] == 58 and end + 26 <= len(b):
        lens.append(end + 25)
    if lens:
        b[rng.choice(lens)] = rng.choice((0, 1, 2, 3, 0x7F, 0xFF,
                                          rng.randrange(256)))
    return bytes(b)


MUTATORS = (m_plen, m_next_header, m_lengths)


def header_cuts(b):
    """Every cut of b inside its IPv6 headers (none if it has none)."""
    off = ip6_off(b)
    if off is None:
        return []
    return [b[:c] for c in range(off, min(len(b), off + HEADER_SPAN))]
