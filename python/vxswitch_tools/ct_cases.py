# SPDX-License-Identifier: BSD-3-Clause
"""The scripted packet sequences of the differential conntrack harness
(ct_diff.py): each Case is a list of frames, built with scapy, full
checksums, explicit TCP sequence and acknowledgement numbers, sent one at a
time into port "a" (host A's side) or port "b" (host B's side), plus the
table-0 rules that send them into conntrack and, optionally, the actions
that commit a +new packet in table 1 (ct_diff.case_rules).

Hosts: A 10.0.0.1 on port a, B 10.0.0.2 on port b (MACs 52:54:00:00:00:0a
and :0b); R 10.0.0.254 a router on B's side (ICMP errors); NAT addresses
203.0.113.7 (A's public address) and 203.0.113.80 (a service DNATed to B).
TCP windows are 65535 with no window scaling. The hosts' IPv6 addresses
(Host.ipv6, Host.ll6) are the IPv6 cases', ct_cases6.py: CASES ends with
them.

IPv4 fragments (frags()): a datagram cut as its sender's stack cuts it
(scapy's fragment(), IP payload in pieces of a multiple of 8 bytes), each
fragment its own Pkt, in offset order or another. A fragment the switch
holds until its datagram is whole has the verdict "held"; the one that
completes it brings every fragment out, each with the verdict of the
reassembled packet (ct_diff.run_case).

Commit policies (table 0, ct_diff.py generates table 1):
  commit_all()      ct(commit,table=1,zone=Z): every IP packet committed
  track_only()      ct(table=1,zone=Z): nothing committed
  per_port(...)     a different ct() per input port (zones, commit from
                    one side only)
  on_new=ACTIONS    in table 1, the rules of the states with +new run
                    ACTIONS (e.g. ct(commit,zone=1)) before the verdict:
                    "commit +new only", as OVS users write it
"""

import random
from dataclasses import dataclass, field

from scapy.layers.inet import GRE, ICMP, IP, TCP, UDP, fragment
from scapy.layers.l2 import Ether
from scapy.packet import Raw


@dataclass(frozen=True)
class Host:
    name: str
    ip: str
    mac: str
    port: str
    ipv6: str = None    # its global IPv6 address (ct_cases6.py)
    ll6: str = None     # its link-local IPv6 address (ND, DHCPv6)


A = Host("A", "10.0.0.1", "52:54:00:00:00:0a", "a",
         "2001:db8::1", "fe80::5054:ff:fe00:a")
B = Host("B", "10.0.0.2", "52:54:00:00:00:0b", "b",
         "2001:db8::2", "fe80::5054:ff:fe00:b")
R = Host("R", "10.0.0.254", "52:54:00:00:00:0b", "b",  # a router, B's side
         "2001:db8::fe", "fe80::1")
A_PUB = "203.0.113.7"
SVC = "203.0.113.80"
WIN = 65535


@dataclass
class Pkt:
    port: str           # the input port: "a" or "b"
    frame: bytes
    note: str


@dataclass
class Case:
    name: str
    doc: str
    table0: list
    packets: list = field(default_factory=list)
    on_new: str = None  # actions before the verdict for +new states
    # after the packets: dpctl/flush-conntrack's arguments, one list a
    # step; each step's success and the dump after it are compared
    flushes: list = field(default_factory=list)
    # the L3 matches of the verdict table's rules (ct_diff.verdict_rules):
    # ("ip",) for IPv4, ("ipv6",) or ("ip", "ipv6") for the IPv6 cases
    l3: tuple = ("ip",)


def commit_all(zone=1, extra=""):
    return ["table=0,priority=100,ip,actions=ct(commit,table=1,zone=%d%s)"
            % (zone, extra)]


def track_only(zone=1, extra=""):
    return ["table=0,priority=100,ip,actions=ct(table=1,zone=%d%s)"
            % (zone, extra)]


def per_port(ct_a, ct_b):
    """ct_a / ct_b: the inside of ct(...) for frames from port a / b."""
    return ["table=0,priority=100,ip,in_port=a,actions=ct(%s)" % ct_a,
            "table=0,priority=100,ip,in_port=b,actions=ct(%s)" % ct_b]


# ------------------------------------------------------------- frames

def _eth(src, dst):
    return Ether(src=src.mac, dst=dst.mac)


def _ip(src, dst, src_ip=None, dst_ip=None, ident=1, **kw):
    return IP(src=src_ip or src.ip, dst=dst_ip or dst.ip, id=ident, **kw)


def tcp(src, dst, flags, seq, ack=0, data=b"", sport=None, dport=None,
        src_ip=None, dst_ip=None, port=None, note=None, chksum=None,
        wscale=None):
    """A TCP segment src -> dst. Ports default to A:40000 <-> B:80 in the
    direction of src. chksum: a wrong checksum to write instead. wscale:
    the window scale option with that shift."""
    if sport is None:
        sport = 40000 if src is A else 80
    if dport is None:
        dport = 80 if src is A else 40000
    f = (_eth(src, dst) / _ip(src, dst, src_ip, dst_ip) /
         TCP(sport=sport, dport=dport, flags=flags, seq=seq, ack=ack,
             window=WIN, chksum=chksum,
             options=[("WScale", wscale)] if wscale is not None else []))
    if data:
        f = f / Raw(data)
    txt = "%s>%s %d>%d %s seq=%d%s%s%s" % (
        src.name, dst.name, sport, dport, flags or "(no flags)", seq,
        " ack=%d" % ack if "A" in flags else "",
        " len=%d" % len(data) if data else "",
        " bad checksum" if chksum is not None else "") + (
        " wscale=%d" % wscale if wscale is not None else "")
    return Pkt(port or src.port, bytes(f), note or txt)


def udp(src, dst, sport, dport, data=b"x" * 8, src_ip=None, dst_ip=None,
        port=None, note=None, chksum=None, ident=1):
    """chksum: written instead of the right one (0: none, valid in IPv4)."""
    f = (_eth(src, dst) / _ip(src, dst, src_ip, dst_ip, ident) /
         UDP(sport=sport, dport=dport, chksum=chksum) / Raw(data))
    return Pkt(port or src.port, bytes(f),
               note or "%s>%s udp %d>%d%s" % (
                   src.name, dst.name, sport, dport,
                   "" if chksum is None else " checksum=%#x" % chksum))


def echo(src, dst, typ, ident, seq, port=None, data=b"ping" * 4, ip_id=1):
    f = (_eth(src, dst) / _ip(src, dst, ident=ip_id) /
         ICMP(type=typ, id=ident, seq=seq) / Raw(data))
    return Pkt(port or src.port, bytes(f), "%s>%s icmp %s id=%d seq=%d" % (
        src.name, dst.name, {8: "echo-request", 0: "echo-reply"}[typ],
        ident, seq))


def icmp_error(src, dst, quoted, typ=3, code=3, port=None, note=None,
               src_ip=None, dst_ip=None):
    """An ICMP error src -> dst quoting the IP datagram of Pkt `quoted`
    (whole, as Linux quotes a short datagram)."""
    inner = bytes(quoted.frame)[14:]
    f = (_eth(src, dst) / _ip(src, dst, src_ip, dst_ip) /
         ICMP(type=typ, code=code) / Raw(inner))
    return Pkt(port or src.port, bytes(f),
               note or "%s>%s icmp unreachable(%d/%d) quoting [%s]"
               % (src.name, dst.name, typ, code, quoted.note))


def gre(src, dst, port=None):
    inner = IP(src="192.168.0.1", dst="192.168.0.2") / UDP(sport=1, dport=2)
    f = _eth(src, dst) / _ip(src, dst) / GRE(proto=0x0800) / inner
    return Pkt(port or src.port, bytes(f),
               "%s>%s gre (ip proto 47)" % (src.name, dst.name))


def frags(pkt, size=1400, order=None):
    """Pkt's IP datagram as fragments of size bytes of IP payload (a
    multiple of 8; the last gets the rest), as Pkts in offset order, or in
    order (indices into that)."""
    eth = Ether(pkt.frame)
    pieces = fragment(eth[IP], fragsize=size)
    out = [Pkt(pkt.port, bytes(Ether(src=eth.src, dst=eth.dst) / p),
               "%s [fragment %d/%d, offset %d%s]" % (
                   pkt.note, i + 1, len(pieces), p.frag * 8,
                   ", more" if p.flags.MF else ""))
           for i, p in enumerate(pieces)]
    return [out[i] for i in order] if order else out


# ------------------------------------------------------ TCP sequences

ISN_A, ISN_B = 1000, 5000


def handshake(isn_a=ISN_A, isn_b=ISN_B, **kw):
    return [tcp(A, B, "S", isn_a, **kw),
            tcp(B, A, "SA", isn_b, isn_a + 1, **kw),
            tcp(A, B, "A", isn_a + 1, isn_b + 1, **kw)]


def data_both_ways(isn_a=ISN_A, isn_b=ISN_B):
    """After handshake(): A sends 100 bytes, B acks and sends 200, A acks.
    Returns (packets, next seq of A, next seq of B)."""
    a, b = isn_a + 1, isn_b + 1
    return ([tcp(A, B, "PA", a, b, b"a" * 100),
             tcp(B, A, "A", b, a + 100),
             tcp(B, A, "PA", b, a + 100, b"b" * 200),
             tcp(A, B, "A", a + 100, b + 200)], a + 100, b + 200)


def fin_close(a, b):
    """A closes first: FIN, B's FIN (acking A's), A's last ACK."""
    return [tcp(A, B, "FA", a, b),
            tcp(B, A, "FA", b, a + 1),
            tcp(A, B, "A", a + 1, b + 1)]


def full_connection():
    d, a, b = data_both_ways()
    return handshake() + d + fin_close(a, b)


def zombie_tail():
    """After A:40000 -> B:80 closed: B opens B:80 -> A:40000 (the reverse
    tuple of the closed session), handshake and one segment of data."""
    return [tcp(B, A, "S", 9000, note="B>A 80>40000 S seq=9000 (reverse "
                "tuple of the closed session)"),
            tcp(A, B, "SA", 7000, 9001),
            tcp(B, A, "A", 9001, 7001),
            tcp(B, A, "PA", 9001, 7001, b"z" * 10),
            tcp(A, B, "A", 7001, 9011)]


# ------------------------------------------------------------- cases

def _cases():
    cs = []

    def add(name, doc, table0, packets, on_new=None, flushes=()):
        cs.append(Case(name, doc, table0, packets, on_new, list(flushes)))

    d, a, b = data_both_ways()
    add("tcp_basic", "3-way handshake, data both ways, FIN/FIN/ACK close",
        commit_all(), handshake() + d + fin_close(a, b))

    d, a, b = data_both_ways()
    add("tcp_rst", "handshake, data, A resets; B's data after the RST; "
        "A opens the same tuple again with a new ISN",
        commit_all(), handshake() + d + [
            tcp(A, B, "RA", a, b),
            tcp(B, A, "PA", b, a, b"late"),
            tcp(A, B, "S", 30000),
            tcp(B, A, "SA", 60000, 30001),
            tcp(A, B, "A", 30001, 60001)])

    add("tcp_reopen_same_dir", "A:40000->B:80 opens and closes "
        "(FIN/FIN/ACK), then A opens the same tuple again, new ISN",
        commit_all(), full_connection() + handshake(20000, 50000))

    add("tcp_zombie_commit", "the zombie: A:40000->B:80 opens and closes "
        "(FIN/FIN/ACK), then B sends SYN B:80->A:40000; every packet "
        "committed", commit_all(), full_connection() + zombie_tail())

    add("tcp_zombie_nocommit", "the zombie, committing only what comes "
        "from port a: B's SYN B:80->A:40000 is tracked, not committed",
        per_port("commit,table=1,zone=1", "table=1,zone=1"),
        full_connection() + zombie_tail())

    add("tcp_zombie_commit_new", "the zombie, nothing committed in table "
        "0; table 1 commits the +new states (ct(commit,zone=1))",
        track_only(), full_connection() + zombie_tail(),
        on_new="ct(commit,zone=1)")

    add("tcp_syn_retransmit", "unanswered SYN retransmitted with the "
        "same ISN, then answered",
        commit_all(), [tcp(A, B, "S", ISN_A)] + handshake())

    add("tcp_syn_new_isn", "unanswered SYN, then a SYN on the same tuple "
        "with a new ISN, answered for the new ISN",
        commit_all(), [tcp(A, B, "S", 1000)] + handshake(3000, 5000))

    add("tcp_simultaneous_open", "both send SYN, both answer SYN-ACK, "
        "then data", commit_all(), [
            tcp(A, B, "S", ISN_A),
            tcp(B, A, "S", ISN_B),
            tcp(A, B, "SA", ISN_A, ISN_B + 1),
            tcp(B, A, "SA", ISN_B, ISN_A + 1),
            tcp(A, B, "PA", ISN_A + 1, ISN_B + 1, b"s" * 20),
            tcp(B, A, "A", ISN_B + 1, ISN_A + 21)])

    a, b = ISN_A + 1, ISN_B + 1
    # window scaling: dump-conntrack -m's wscale_orig/wscale_reply and
    # flags_orig/flags_reply (WINDOW_SCALE) compared with OVS's
    add("tcp_wscale", "window scaling both ways (A shift 7, B shift 2): "
        "handshake, data both ways with scaled windows, open at the end",
        commit_all(), [
            tcp(A, B, "S", ISN_A, wscale=7),
            tcp(B, A, "SA", ISN_B, ISN_A + 1, wscale=2),
            tcp(A, B, "A", ISN_A + 1, ISN_B + 1),
            tcp(A, B, "PA", ISN_A + 1, ISN_B + 1, b"w" * 100),
            tcp(B, A, "PA", ISN_B + 1, ISN_A + 101, b"v" * 50),
            tcp(A, B, "A", ISN_A + 101, ISN_B + 51)])
    add("tcp_wscale_one_side", "A offers window scaling (shift 7), B does "
        "not: no scaling either way; data both ways",
        commit_all(), [
            tcp(A, B, "S", ISN_A, wscale=7),
            tcp(B, A, "SA", ISN_B, ISN_A + 1),
            tcp(A, B, "A", ISN_A + 1, ISN_B + 1),
            tcp(A, B, "PA", ISN_A + 1, ISN_B + 1, b"w" * 100),
            tcp(B, A, "A", ISN_B + 1, ISN_A + 101)])

    add("tcp_out_of_window", "after the handshake: A's data 200000 bytes "
        "beyond the window, B acking data never sent, then valid data",
        commit_all(), handshake() + [
            tcp(A, B, "PA", a + 200000, b, b"o" * 10),
            tcp(B, A, "A", b, a + 200000),
            tcp(A, B, "PA", a, b, b"i" * 10),
            tcp(B, A, "A", b, a + 10)])

    add("tcp_ack_first", "no SYN seen: a mid-stream ACK from A, B's "
        "answer, and a lone SYN-ACK on another tuple",
        commit_all(), [
            tcp(A, B, "A", 70000, 80000),
            tcp(B, A, "A", 80000, 70000),
            tcp(A, B, "PA", 70000, 80000, b"m" * 10),
            tcp(B, A, "SA", 90000, 91000, sport=81, dport=40001)])

    d, a, b = data_both_ways()
    add("tcp_passive_close", "B closes first (FIN, A's ACK, A's FIN, B's "
        "ACK), then A sends data on the closed session",
        commit_all(), handshake() + d + [
            tcp(B, A, "FA", b, a), tcp(A, B, "A", a, b + 1),
            tcp(A, B, "FA", a, b + 1), tcp(B, A, "A", b + 1, a + 1),
            tcp(A, B, "PA", a + 1, b + 1, b"after")])

    d, a, b = data_both_ways()
    add("tcp_zombie_halfclose", "A:40000->B:80 half-closed (A's FIN, B's "
        "ACK), then B sends SYN B:80->A:40000; every packet committed",
        commit_all(), handshake() + d + [
            tcp(A, B, "FA", a, b), tcp(B, A, "A", b, a + 1)] +
        zombie_tail()[:3])

    d, a, b = data_both_ways()
    add("tcp_zombie_after_rst", "A:40000->B:80 reset by A, then B sends "
        "SYN B:80->A:40000; every packet committed",
        commit_all(), handshake() + d + [tcp(A, B, "RA", a, b)] +
        zombie_tail()[:3])

    add("tcp_rst_syn_sent", "A's SYN answered by RST-ACK, A retries with "
        "a new ISN", commit_all(), [
            tcp(A, B, "S", ISN_A), tcp(B, A, "RA", 0, ISN_A + 1),
            tcp(A, B, "S", 2000), tcp(B, A, "SA", 6000, 2001),
            tcp(A, B, "A", 2001, 6001)])

    add("tcp_bad_flags", "segments with no session and impossible flags "
        "(SYN+FIN, none, SYN+RST, FIN alone), then a good SYN",
        commit_all(), [
            tcp(A, B, "SF", 100), tcp(A, B, "", 100),
            tcp(A, B, "SR", 100), tcp(A, B, "F", 100),
            tcp(A, B, "S", ISN_A)])

    a, b = ISN_A + 1, ISN_B + 1
    add("tcp_bad_checksum", "a SYN with a wrong TCP checksum, then a "
        "good handshake and a data segment with a wrong checksum",
        commit_all(), [tcp(A, B, "S", ISN_A, chksum=0x1234)] +
        handshake() + [tcp(A, B, "PA", a, b, b"c" * 10, chksum=0x1234),
                       tcp(A, B, "PA", a, b, b"c" * 10)])

    add("udp_checksums", "UDP with a wrong checksum, then without one "
        "(0), answered with one", commit_all(), [
            udp(A, B, 5000, 53, chksum=0x1234),
            udp(A, B, 5000, 53, chksum=0),
            udp(B, A, 53, 5000)])

    syn = tcp(A, B, "S", ISN_A)
    add("icmp_error_tcp", "ICMP port unreachable from B quoting A's SYN "
        "(committed), then the SYN retried", commit_all(),
        [syn, icmp_error(B, A, syn), syn])

    add("udp_both_ways", "A:5000->B:53, reply, again; B:6000->A:7000 new",
        commit_all(), [udp(A, B, 5000, 53), udp(B, A, 53, 5000),
                       udp(A, B, 5000, 53), udp(B, A, 53, 5000),
                       udp(B, A, 6000, 7000)])

    add("udp_nocommit", "UDP both ways, tracked but never committed",
        track_only(), [udp(A, B, 5000, 53), udp(B, A, 53, 5000),
                       udp(A, B, 5000, 53)])

    add("icmp_echo", "echo request/reply twice; an unsolicited echo reply",
        commit_all(), [echo(A, B, 8, 77, 1), echo(B, A, 0, 77, 1),
                       echo(A, B, 8, 77, 2), echo(B, A, 0, 77, 2),
                       echo(B, A, 0, 99, 1)])

    u = udp(A, B, 5000, 53)
    stray = udp(A, B, 5001, 53)
    add("icmp_error", "ICMP port unreachable quoting a committed UDP "
        "datagram, from B and from a router; one quoting a datagram no "
        "session has", commit_all(), [
            u, icmp_error(B, A, u),
            icmp_error(R, A, u, 3, 1, port="b",
                       note="R>A icmp host unreachable quoting [%s]"
                       % u.note),
            icmp_error(B, A, stray)])

    add("gre_other", "IP protocol 47 (GRE) A->B, B->A, A->B",
        commit_all(), [gre(A, B), gre(B, A), gre(A, B)])

    add("two_zones", "port a in zone 1, port b in zone 2: the same TCP "
        "tuple opened in both zones; UDP from A in zone 1 answered in "
        "zone 2", per_port("commit,table=1,zone=1", "commit,table=1,zone=2"),
        [tcp(A, B, "S", ISN_A),
         tcp(A, B, "S", ISN_A, port="b",
             note="A>B 40000>80 S seq=1000 (on port b: zone 2)"),
         tcp(B, A, "SA", ISN_B, ISN_A + 1, port="a",
             note="B>A 80>40000 SA seq=5000 ack=1001 (on port a: zone 1)"),
         tcp(B, A, "SA", ISN_B, ISN_A + 1),
         udp(A, B, 5000, 53),
         udp(B, A, 53, 5000)])

    add("nat_snat", "SNAT of A to 203.0.113.7: ct(nat,table=1) in table "
        "0, ct(commit,nat(src=...)) for +new in table 1; B answers the "
        "public address", track_only(extra=",nat"), [
            tcp(A, B, "S", ISN_A),
            tcp(B, A, "SA", ISN_B, ISN_A + 1, dst_ip=A_PUB),
            tcp(A, B, "A", ISN_A + 1, ISN_B + 1),
            tcp(A, B, "PA", ISN_A + 1, ISN_B + 1, b"n" * 10),
            tcp(B, A, "A", ISN_B + 1, ISN_A + 11, dst_ip=A_PUB)],
        on_new="ct(commit,zone=1,nat(src=%s))" % A_PUB)

    add("nat_dnat", "DNAT of 203.0.113.80 to B: A opens to the service "
        "address, B answers from its own", track_only(extra=",nat"), [
            tcp(A, B, "S", ISN_A, dst_ip=SVC),
            tcp(B, A, "SA", ISN_B, ISN_A + 1),
            tcp(A, B, "A", ISN_A + 1, ISN_B + 1, dst_ip=SVC),
            udp(A, B, 5000, 53, dst_ip=SVC),
            udp(B, A, 53, 5000)],
        on_new="ct(commit,zone=1,nat(dst=%s))" % B.ip)

    # ICMP errors about NATed sessions: translated back (outer address,
    # the quoted datagram and its checksums), so PMTU discovery and
    # port unreachables work behind NAT
    out = udp(A, B, 5000, 53, src_ip=A_PUB)
    add("nat_snat_icmp_error", "SNAT of A's UDP to 203.0.113.7; a "
        "router's fragmentation-needed to the public address quoting the "
        "datagram as it left; B's port unreachable too",
        track_only(extra=",nat"), [
            udp(A, B, 5000, 53),
            icmp_error(R, A, out, 3, 4, port="b", dst_ip=A_PUB,
                       note="R>A_PUB icmp frag-needed quoting [%s]"
                       % out.note),
            icmp_error(B, A, out, port="b", dst_ip=A_PUB,
                       note="B>A_PUB icmp port-unreachable quoting [%s]"
                       % out.note)],
        on_new="ct(commit,zone=1,nat(src=%s))" % A_PUB)

    sent = udp(A, B, 5000, 53, dst_ip=SVC)
    to_b = udp(A, B, 5000, 53)
    add("nat_dnat_icmp_error", "DNAT of 203.0.113.80 to B; B's port "
        "unreachable quoting the datagram as B got it",
        track_only(extra=",nat"), [
            sent, icmp_error(B, A, to_b, port="b",
                             note="B>A icmp port-unreachable quoting [%s]"
                             % to_b.note)],
        on_new="ct(commit,zone=1,nat(dst=%s))" % B.ip)

    # -- IPv4 fragments (OVS's ipf): held until the datagram is whole
    big = b"f" * 3000
    add("frag_udp", "a 3000-byte UDP datagram A->B in 3 fragments, in "
        "order; the answer in 3 fragments, last first",
        commit_all(), frags(udp(A, B, 5000, 53, big, ident=11)) +
        frags(udp(B, A, 53, 5000, big, ident=12), order=[2, 1, 0]))

    add("frag_icmp_echo", "ping -s 3000: the echo request and its reply "
        "in 3 fragments each, the request's middle one first",
        commit_all(), frags(echo(A, B, 8, 77, 1, data=big, ip_id=21),
                            order=[1, 0, 2]) +
        frags(echo(B, A, 0, 77, 1, data=big, ip_id=22)))

    add("frag_dup_small", "fragments of 600 bytes (under min-frag 1200, "
        "not the last) are +inv; an exact copy of a held fragment is "
        "+inv and the datagram completes without it",
        commit_all(), frags(udp(A, B, 5001, 53, big, ident=31),
                            size=600)[:2] +
        [frags(udp(A, B, 5002, 53, big, ident=32))[i] for i in (0, 0, 1, 2)])

    add("frag_track_only", "fragmented UDP both ways, tracked, never "
        "committed: every fragment +new", track_only(),
        frags(udp(A, B, 5003, 53, big, ident=41)) +
        frags(udp(B, A, 53, 5003, big, ident=42)))

    add("frag_nat_snat", "SNAT of A to 203.0.113.7 (ct(nat,table=1), "
        "ct(commit,nat(src=...)) for +new) on fragmented UDP: addresses "
        "rewritten in every fragment, the port and checksum in the first; "
        "the answer's fragments un-NATed",
        track_only(extra=",nat"),
        frags(udp(A, B, 5004, 53, big, ident=51)) +
        frags(udp(B, A, 53, 7000, big, dst_ip=A_PUB, ident=52)),
        on_new="ct(commit,zone=1,nat(src=%s:7000))" % A_PUB)

    # flush-conntrack with OVS 3.1's ct tuples (ct_dpif_flush_tuple): a
    # whole original tuple and no reply tuple is one lookup, of an
    # original or reply key, in the zone given or zone 0, an error when
    # none; anything else compares the fields given (not 0) of every
    # session's two tuples, ICMP's id, type and code always
    a_tcp = "ct_nw_src=10.0.0.1,ct_nw_dst=10.0.0.2,ct_nw_proto=6"
    add("flush_tuples", "sessions in zone 0 (port a) and zone 2 (port b), "
        "then flush-conntrack by whole and partial tuples, with and "
        "without zone=; each step's exit status and dump compared",
        per_port("commit,table=1", "commit,table=1,zone=2"),
        [tcp(A, B, "S", ISN_A),
         udp(A, B, 5000, 53), udp(A, B, 5001, 53), udp(A, B, 5002, 54),
         echo(A, B, 8, 7, 1),
         tcp(A, B, "S", ISN_A, port="b",
             note="A>B 40000>80 S seq=1000 (on port b: zone 2)"),
         udp(A, B, 5000, 53, port="b",
             note="A>B udp 5000>53 (on port b: zone 2)"),
         echo(A, B, 8, 7, 1, port="b"),
         udp(B, A, 53, 6000)],
        flushes=[
            # no zone=: zone 0's only
            [a_tcp + ",ct_tp_src=40000,ct_tp_dst=80"],
            # the reply tuple as the original: found by its reply key
            ["zone=2", "ct_nw_src=10.0.0.2,ct_nw_dst=10.0.0.1,"
             "ct_nw_proto=6,ct_tp_src=80,ct_tp_dst=40000"],
            # no such session: an error, nothing flushed
            ["ct_nw_src=10.0.0.1,ct_nw_dst=10.0.0.2,ct_nw_proto=17,"
             "ct_tp_src=5009,ct_tp_dst=53"],
            # a port without a protocol: refused
            ["ct_tp_src=5000"],
            # partial, in a zone
            ["zone=2", "ct_nw_proto=17,ct_tp_src=5000"],
            # ICMP partial: the reply tuple's id must be 0 too (3.1)
            ["ct_nw_proto=1,icmp_id=7,icmp_type=8"],
            # ICMP whole: a lookup in zone 2
            ["zone=2", "ct_nw_src=10.0.0.1,ct_nw_dst=10.0.0.2,"
             "ct_nw_proto=1,icmp_id=7,icmp_type=8"],
            # no original tuple, a reply tuple
            ["", "ct_nw_proto=17,ct_tp_dst=5001"],
            # addresses only: every zone
            ["ct_nw_src=10.0.0.2"],
            # a zone, no tuple
            ["zone=0"],
        ])
    return cs


# ------------------------------------------------------- fuzz cases
#
# Seeded random mutations of real sequences, stored as references like
# the scripted cases (make-ovs-ct-ref.py runs them through OVS): a TCP
# connection (handshake, data both ways, close) with packets dropped,
# repeated, swapped, their flags, sequence or acknowledgement numbers
# changed, or RSTs and SYNs thrown in, under a random commit policy; and
# UDP/ICMP exchanges with random directions, ports and ids. The seed
# fixes every byte, so a reference stays valid until the generator
# changes (then: make-ovs-ct-ref.py again).

FUZZ_SEED = 20231
FUZZ_TCP_CASES = 20
FUZZ_OTHER_CASES = 4
_FLAGS = ["S", "SA", "A", "PA", "FA", "R", "RA", "F", "", "SF", "SR", "U",
          "FPU", "SAF"]
_DELTAS = [1, -1, 2, 100, -100, 65535, 70000, -70000, 2 ** 31]


def _fuzz_tcp(rng, name):
    d, a, b = data_both_ways()
    base = [(A, "S", ISN_A, 0, 0), (B, "SA", ISN_B, ISN_A + 1, 0),
            (A, "A", ISN_A + 1, ISN_B + 1, 0),
            (A, "PA", ISN_A + 1, ISN_B + 1, 100),
            (B, "A", ISN_B + 1, ISN_A + 101, 0),
            (B, "PA", ISN_B + 1, ISN_A + 101, 200),
            (A, "A", ISN_A + 101, ISN_B + 201, 0),
            (A, "FA", a, b, 0), (B, "FA", b, a + 1, 0),
            (A, "A", a + 1, b + 1, 0)]
    if rng.random() < 0.3:	# the reverse tuple opened afterwards
        base += [(B, "S", 9000, 0, 0), (A, "SA", 7000, 9001, 0),
                 (B, "A", 9001, 7001, 0)]
    segs = [list(x) for x in base]
    done = []
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(segs))
        op = rng.choice(["drop", "dup", "swap", "flags", "seq", "ack",
                         "insert"])
        if op == "drop" and len(segs) > 3:
            del segs[i]
        elif op == "dup":
            segs.insert(i, list(segs[i]))
        elif op == "swap" and i + 1 < len(segs):
            segs[i], segs[i + 1] = segs[i + 1], segs[i]
        elif op == "flags":
            segs[i][1] = rng.choice(_FLAGS)
        elif op == "seq":
            segs[i][2] = (segs[i][2] + rng.choice(_DELTAS)) % 2 ** 32
        elif op == "ack":
            segs[i][3] = (segs[i][3] + rng.choice(_DELTAS)) % 2 ** 32
        elif op == "insert":
            who = rng.choice([A, B])
            segs.insert(i, [who, rng.choice(["R", "RA", "S"]),
                            rng.randrange(2 ** 32), segs[i][3], 0])
        else:
            continue
        done.append("%s@%d" % (op, i))
    policy = rng.choice(["commit_all", "commit_new", "a_commits"])
    table0, on_new = {
        "commit_all": (commit_all(), None),
        "commit_new": (track_only(), "ct(commit,zone=1)"),
        "a_commits": (per_port("commit,table=1,zone=1",
                               "table=1,zone=1"), None),
    }[policy]
    pkts = [tcp(src, B if src is A else A, flags, seq, ack,
                b"d" * n) for src, flags, seq, ack, n in segs]
    return Case(name, "fuzz: TCP connection, %s; %s" % (
        policy, ", ".join(done) or "unchanged"), table0, pkts, on_new)


def _fuzz_other(rng, name):
    pkts = []
    for _ in range(rng.randint(4, 10)):
        src = rng.choice([A, B])
        dst = B if src is A else A
        kind = rng.choice(["udp", "echo", "reply"])
        if kind == "udp":
            pkts.append(udp(src, dst, rng.choice([5000, 5001, 53]),
                            rng.choice([53, 5000, 5001])))
        else:
            pkts.append(echo(src, dst, 8 if kind == "echo" else 0,
                             rng.choice([7, 8]), rng.randrange(4)))
    policy = rng.choice(["commit_all", "commit_new"])
    table0, on_new = {"commit_all": (commit_all(), None),
                      "commit_new": (track_only(), "ct(commit,zone=1)")
                      }[policy]
    return Case(name, "fuzz: UDP and ICMP echo both ways, %s" % policy,
                table0, pkts, on_new)


def fuzz_cases(seed=FUZZ_SEED):
    rng = random.Random(seed)
    return ([_fuzz_tcp(rng, "fuzz_tcp_%02d" % i)
             for i in range(FUZZ_TCP_CASES)] +
            [_fuzz_other(rng, "fuzz_other_%02d" % i)
             for i in range(FUZZ_OTHER_CASES)])


# the IPv6 cases (ct_cases6.py, which imports this module's builders: by
# now they are all defined)
from . import ct_cases6  # noqa: E402

CASES = _cases() + fuzz_cases() + ct_cases6.cases()
BY_NAME = {c.name: c for c in CASES}
assert len(BY_NAME) == len(CASES), "case names must be unique"
