#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""IPv6 frames for the flow-extract differential test: prints
"NAME HEX" a line, deterministic. tests/vectors/ipv6_extract.txt is its
output; tests/integration/ovs_ref/make-ipv6-extract-ref.sh gives each
frame to Debian's ovs-vswitchd (ofproto/trace) for OVS's flow, and
tests/integration/test_ipv6_extract_ovs.py compares vxswitch's extract
with it.

Left out on purpose: chains of more than 16 extension headers (vxswitch
stops its walk there, OVS walks on: miniflow_ipv6.c says why) and frames
vxswitch calls malformed (a header cut short: OVS keeps a partial key
where vxswitch drops; tests/unit/test_miniflow_ipv6.c covers them).
Usage: gen_ipv6_packets.py > tests/vectors/ipv6_extract.txt
"""
from scapy.layers.ipsec import AH
from scapy.all import Dot1Q, Ether, IPv6, Raw, TCP, UDP, raw
from scapy.layers.inet6 import (
    ICMPv6DestUnreach, ICMPv6EchoReply, ICMPv6EchoRequest,
    ICMPv6MLQuery, ICMPv6MLReport2, ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6ND_RA,
    ICMPv6ND_RS, ICMPv6NDOptDstLLAddr, ICMPv6NDOptMTU,
    ICMPv6NDOptPrefixInfo, ICMPv6NDOptSrcLLAddr, ICMPv6PacketTooBig,
    IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
    IPv6ExtHdrRouting, RouterAlert)

VM = "fa:16:3e:00:00:01"
GW = "fa:16:3e:00:00:fe"
A = "2001:db8:10::5"
B = "2001:db8:20::7"
LL = "fe80::f816:3eff:fe00:1"
LL_GW = "fe80::f816:3eff:fe00:fe"


def eth(dst=GW, src=VM):
    return Ether(dst=dst, src=src)


def frames():
    yield "tcp", eth() / IPv6(src=A, dst=B) / TCP(sport=40000, dport=443)
    yield "tcp-syn-tclass-label", (
        eth() / IPv6(src=A, dst=B, tc=0xb9, fl=0xfedcb, hlim=7) /
        TCP(sport=1, dport=22, flags="S"))
    yield "udp", eth() / IPv6(src=A, dst=B) / UDP(sport=5353, dport=53)
    yield "udp-padded-payload", (
        eth() / IPv6(src=A, dst=B) / UDP(sport=1000, dport=2000) /
        Raw(b"x" * 100))
    yield "vlan-udp", (
        eth() / Dot1Q(vlan=100, prio=5) / IPv6(src=A, dst=B) /
        UDP(sport=7, dport=9))
    yield "icmp6-echo", (
        eth() / IPv6(src=A, dst=B) / ICMPv6EchoRequest(id=1, seq=2))
    yield "icmp6-echo-reply", (
        eth() / IPv6(src=B, dst=A) / ICMPv6EchoReply(id=1, seq=2))
    yield "icmp6-too-big", (
        eth() / IPv6(src=LL_GW, dst=A) / ICMPv6PacketTooBig(mtu=1450) /
        IPv6(src=A, dst=B) / UDP(sport=1, dport=2) / Raw(b"y" * 40))
    yield "icmp6-unreach", (
        eth() / IPv6(src=B, dst=A) / ICMPv6DestUnreach(code=4) /
        IPv6(src=A, dst=B) / UDP(sport=3, dport=4))
    yield "nd-ns-sll", (
        eth(dst="33:33:ff:00:00:fe") /
        IPv6(src=LL, dst="ff02::1:ff00:fe", hlim=255) /
        ICMPv6ND_NS(tgt=LL_GW) / ICMPv6NDOptSrcLLAddr(lladdr=VM))
    yield "nd-ns-dad", (
        eth(dst="33:33:ff:00:00:01") /
        IPv6(src="::", dst="ff02::1:ff00:1", hlim=255) /
        ICMPv6ND_NS(tgt=LL))
    yield "nd-na-tll", (
        eth(dst=VM, src=GW) / IPv6(src=LL_GW, dst=LL, hlim=255) /
        ICMPv6ND_NA(tgt=LL_GW, R=1, S=1, O=1) /
        ICMPv6NDOptDstLLAddr(lladdr=GW))
    yield "nd-na-no-option", (
        eth(dst=VM, src=GW) / IPv6(src=LL_GW, dst=LL, hlim=255) /
        ICMPv6ND_NA(tgt=LL_GW, S=1))
    yield "nd-ns-sll-twice", (
        eth() / IPv6(src=LL, dst=LL_GW, hlim=255) / ICMPv6ND_NS(tgt=LL_GW) /
        ICMPv6NDOptSrcLLAddr(lladdr=VM) /
        ICMPv6NDOptSrcLLAddr(lladdr="fa:16:3e:00:00:99"))
    yield "nd-ns-code1", (
        eth() / IPv6(src=LL, dst=LL_GW, hlim=255) /
        ICMPv6ND_NS(tgt=LL_GW, code=1))
    yield "nd-na-with-sll", (
        eth(dst=VM, src=GW) / IPv6(src=LL_GW, dst=LL, hlim=255) /
        ICMPv6ND_NA(tgt=LL_GW) / ICMPv6NDOptSrcLLAddr(lladdr=GW) /
        ICMPv6NDOptDstLLAddr(lladdr=GW))
    yield "nd-rs", (
        eth(dst="33:33:00:00:00:02") / IPv6(src=LL, dst="ff02::2",
                                            hlim=255) /
        ICMPv6ND_RS() / ICMPv6NDOptSrcLLAddr(lladdr=VM))
    yield "nd-ra", (
        eth(dst="33:33:00:00:00:01", src=GW) /
        IPv6(src=LL_GW, dst="ff02::1", hlim=255) / ICMPv6ND_RA() /
        ICMPv6NDOptSrcLLAddr(lladdr=GW) / ICMPv6NDOptMTU(mtu=1450) /
        ICMPv6NDOptPrefixInfo(prefix="2001:db8:10::", prefixlen=64))
    yield "mld-query-hbh", (
        eth(dst="33:33:00:00:00:01", src=GW) /
        IPv6(src=LL_GW, dst="ff02::1", hlim=1) /
        IPv6ExtHdrHopByHop(options=[RouterAlert()]) / ICMPv6MLQuery())
    yield "mldv2-report-hbh", (
        eth(dst="33:33:00:00:00:16") /
        IPv6(src=LL, dst="ff02::16", hlim=1) /
        IPv6ExtHdrHopByHop(options=[RouterAlert()]) / ICMPv6MLReport2())
    yield "hbh-dstopt-udp", (
        eth() / IPv6(src=A, dst=B) / IPv6ExtHdrHopByHop() /
        IPv6ExtHdrDestOpt() / UDP(sport=11, dport=12))
    yield "routing-tcp", (
        eth() / IPv6(src=A, dst=B) /
        IPv6ExtHdrRouting(addresses=["2001:db8:30::1"], segleft=1) /
        TCP(sport=13, dport=14))
    yield "ah-tcp", (
        eth() / IPv6(src=A, dst=B) / AH(spi=0x100, seq=1, nh=6, payloadlen=4,
                                     icv=b"\0" * 12) /
        TCP(sport=15, dport=16))
    yield "frag-first-udp", (
        eth() / IPv6(src=A, dst=B) / IPv6ExtHdrFragment(offset=0, m=1,
                                                         id=7, nh=17) /
        UDP(sport=17, dport=18) / Raw(b"z" * 32))
    yield "frag-later", (
        eth() / IPv6(src=A, dst=B) / IPv6ExtHdrFragment(offset=185, m=0,
                                                         id=7, nh=17) /
        Raw(b"z" * 32))
    yield "frag-later-more", (
        eth() / IPv6(src=A, dst=B) / IPv6ExtHdrFragment(offset=1, m=1,
                                                         id=8, nh=6) /
        Raw(b"w" * 16))
    yield "frag-atomic", (
        eth() / IPv6(src=A, dst=B) / IPv6ExtHdrFragment(offset=0, m=0,
                                                         id=9, nh=17) /
        UDP(sport=19, dport=20))
    yield "hbh-frag-first-icmp6", (
        eth() / IPv6(src=A, dst=B) / IPv6ExtHdrHopByHop() /
        IPv6ExtHdrFragment(offset=0, m=1, id=10, nh=58) /
        ICMPv6EchoRequest(id=3, seq=4) / Raw(b"p" * 24))
    yield "chain-16", (
        eth() / IPv6(src=A, dst=B) /
        chain_of(16) / UDP(sport=21, dport=22))
    yield "no-next-header", (
        eth() / IPv6(src=A, dst=B, nh=59))
    yield "esp", eth() / IPv6(src=A, dst=B, nh=50) / Raw(b"\0" * 16)
    yield "gre", eth() / IPv6(src=A, dst=B, nh=47) / Raw(b"\0" * 8)
    yield "sctp-unparsed", eth() / IPv6(src=A, dst=B, nh=132) / Raw(b"\0" * 12)
    yield "multicast-udp", (
        eth(dst="33:33:00:01:00:03") / IPv6(src=LL, dst="ff02::1:3",
                                            hlim=1) /
        UDP(sport=5355, dport=5355))


def chain_of(n):
    hdr = IPv6ExtHdrDestOpt()
    for _ in range(n - 1):
        hdr = hdr / IPv6ExtHdrDestOpt()
    return hdr


if __name__ == "__main__":
    for name, f in frames():
        print(name, raw(f).hex())
