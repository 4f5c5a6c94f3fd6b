# SPDX-License-Identifier: BSD-3-Clause
"""Tests of scripts/gen-traffic.py and scripts/pcap-summary.py, and of the
harness itself (vxlib.Testpmd, netns/veth helpers) with no switch involved:
testpmd as the VMs, a second testpmd (net_vhost + net_pcap) in the switch's
place replaying gen-traffic's pcaps.
"""

import collections
import ipaddress
import json
import os
import subprocess
import sys
import time

import pytest
import yaml
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Ether
from scapy.layers.vxlan import VXLAN

from vxswitch_tools import harness as vxlib
from vxswitch_tools.addressing import SEED

GT = vxlib.load_gen_traffic()

REMOTE_MAC = "10:00:00:00:00:02"
VTEP_MAC = "10:00:00:00:00:01"
REMOTE_IP = "172.1.0.0"
VTEP_IP = "172.1.0.100"


def gen(tmp_path, *args, name="t.pcap"):
    return vxlib.read_pcap(vxlib.gen_traffic(tmp_path / name, *args))


def checksums_ok(p):
    """Recomputes every IPv4/UDP checksum scapy knows of; outer UDP 0 ok."""
    q = Ether(bytes(p))
    for layer in (IP, UDP):
        i = 1
        while q.getlayer(layer, i) is not None:
            lay = q.getlayer(layer, i)
            if layer is UDP and lay.chksum == 0:
                i += 1
                continue
            want = lay.chksum
            lay.chksum = None
            got = Ether(bytes(q)).getlayer(layer, i).chksum
            lay.chksum = want
            if want != got:
                return False
            i += 1
    return True


def inner5(p):
    ip = p[VXLAN][IP]
    return (ip.src, ip.dst, ip[UDP].sport, ip[UDP].dport, ip.proto)


# ----------------------------------------------------------------- --nic

def test_nic_outer_headers(tmp_path):
    pkts = gen(tmp_path, "--nic", "--vms", 2, "--flows", 32)
    assert len(pkts) == 32
    for k, p in enumerate(pkts):
        assert len(bytes(p)) == 128
        assert (p.src, p.dst, p.type) == (REMOTE_MAC, VTEP_MAC, 0x0800)
        assert (p[IP].src, p[IP].dst, p[IP].proto) == (REMOTE_IP, VTEP_IP, 17)
        assert p[IP].ihl == 5 and p[IP].len == 128 - 14
        assert p[UDP].dport == 4789 and p[UDP].chksum == 0
        assert 49152 <= p[UDP].sport <= 65535
        assert p[UDP].len == 128 - 14 - 20
        assert int(p[VXLAN].flags) == 0x08 and p[VXLAN].vni == 1001
        inner = p[VXLAN].payload
        assert isinstance(inner, Ether)
        vm = k % 2
        assert inner.dst == SEED.mac(vm)
        assert inner[IP].dst == "192.1.0.%d" % vm
        assert inner[UDP].dport == 5001
        assert checksums_ok(p), p.show(dump=True)


def test_nic_matches_scapy_built_packets(tmp_path):
    """The struct-patched fast path gives exactly what scapy would build."""
    pkts = gen(tmp_path, "--nic", "--vms", 3, "--flows", 7000)
    for k in (0, 1, 2, 5, 3 * 1024 + 1, 6999):
        vm, j = k % 3, k // 3
        src = "192.2.0.%d" % (j // 1024)
        sport = 40000 + j % 1024
        osport = GT.vxlan_sport(GT.ip2int(src), GT.ip2int("192.1.0.%d" % vm),
                                sport, 5001)
        ref = (Ether(src=REMOTE_MAC, dst=VTEP_MAC) /
               IP(src=REMOTE_IP, dst=VTEP_IP, ttl=64, id=0, flags="DF") /
               UDP(sport=osport, dport=4789, chksum=0) /
               VXLAN(flags=0x08, vni=1001) /
               Ether(src="a0:00:00:00:00:02", dst=SEED.mac(vm)) /
               IP(src=src, dst="192.1.0.%d" % vm, ttl=64, id=0) /
               UDP(sport=sport, dport=5001) / (b"\0" * 36))
        assert bytes(pkts[k]) == bytes(ref), k


def test_microflows_round_robin(tmp_path):
    pkts = gen(tmp_path, "--nic", "--vms", 32, "--flows", 1000)
    assert len(pkts) == 1000
    tuples = [inner5(p) for p in pkts]
    assert len(set(tuples)) == 1000
    per_vm = collections.Counter(p[VXLAN][IP].dst for p in pkts)
    assert len(per_vm) == 32
    assert set(per_vm.values()) <= {31, 32}     # 1000 = 8*32 + 24*31
    for k, p in enumerate(pkts):
        assert p[VXLAN][IP].dst == "192.1.0.%d" % (k % 32)


def test_count_and_burst(tmp_path):
    pkts = gen(tmp_path, "--nic", "--vms", 2, "--flows", 8, "--count", 64,
               "--burst", 4)
    assert len(pkts) == 64
    tuples = [inner5(p) for p in pkts]
    assert len(set(tuples)) == 8
    for k in range(64):
        assert tuples[k] == tuples[(k // 4) * 4]          # bursts of 4
    assert tuples[0] != tuples[4]
    assert tuples[0] == tuples[32]                        # then it cycles
    assert collections.Counter(tuples).most_common()[-1][1] == 8


def test_default_count_is_one_per_flow(tmp_path):
    pkts = gen(tmp_path, "--nic", "--flows", 5, "--vms", 1)
    assert len(pkts) == 5 and len({inner5(p) for p in pkts}) == 5


def test_vxlan_sport_hash(tmp_path):
    pkts = gen(tmp_path, "--nic", "--vms", 4, "--flows", 2000, "--count",
               4000)
    by_flow = collections.defaultdict(set)
    for p in pkts:
        by_flow[inner5(p)].add(p[UDP].sport)
    # the same inner 5-tuple always gets the same outer source port
    assert all(len(s) == 1 for s in by_flow.values())
    sports = [next(iter(s)) for s in by_flow.values()]
    assert all(49152 <= s <= 65535 for s in sports)
    # spread over the range: ~1880 distinct of 2000 expected in 16384 slots
    assert len(set(sports)) > 1800
    assert min(sports) < 49152 + 1000 and max(sports) > 65535 - 1000
    # it is the documented hash of the inner header
    for t, s in list(by_flow.items())[:50]:
        src, dst, sp, dp, proto = t
        assert GT.vxlan_sport(GT.ip2int(src), GT.ip2int(dst), sp, dp,
                              proto) == next(iter(s))


def test_sport_range_option(tmp_path):
    pkts = gen(tmp_path, "--nic", "--flows", 200, "--sport-min", 32768,
               "--sport-max", 32775)
    sports = {p[UDP].sport for p in pkts}
    assert sports <= set(range(32768, 32776)) and len(sports) == 8


@pytest.mark.parametrize("size", [92, 128, 256, 1514])
def test_sizes(tmp_path, size):
    pkts = gen(tmp_path, "--nic", "--flows", 4, "--size", size)
    assert {len(bytes(p)) for p in pkts} == {size}
    assert all(checksums_ok(p) for p in pkts)


def test_size_too_small_is_an_error(tmp_path):
    r = subprocess.run([sys.executable, str(vxlib.SCRIPTS / "gen-traffic.py"),
                        "--nic", "--size", "91", "--out",
                        str(tmp_path / "x.pcap")], capture_output=True,
                       text=True)
    assert r.returncode != 0 and "too small" in r.stderr


def test_options(tmp_path):
    pkts = gen(tmp_path, "--nic", "--flows", 2, "--vni", 5000,
               "--outer-src", "10.9.8.7", "--outer-dst", "10.9.8.1",
               "--udp-port", 8472)
    for p in pkts:
        assert (p[IP].src, p[IP].dst) == ("10.9.8.7", "10.9.8.1")
        assert p[UDP].dport == 8472
        v = VXLAN(bytes(p[UDP].payload))
        assert v.vni == 5000


# ------------------------------------------------------------------ --vm

def test_vm_mode(tmp_path):
    pkts = gen(tmp_path, "--vm", 3, "--flows", 100)
    assert len(pkts) == 100
    assert len({(p[IP].dst, p[UDP].dport) for p in pkts}) == 100
    for p in pkts:
        assert len(bytes(p)) == 78          # + 50 B of VXLAN = 128
        assert p.src == SEED.mac(3) and p.dst == "a0:00:00:00:00:02"
        assert p[IP].src == "192.1.0.3" and p[UDP].sport == 5001
        assert VXLAN not in p
        assert checksums_ok(p)


def test_vm_and_nic_flows_mirror(tmp_path):
    """VM i's flow j is the reverse of the NIC's flow j to VM i."""
    nic = gen(tmp_path, "--nic", "--vms", 1, "--flows", 50, name="n.pcap")
    vm = gen(tmp_path, "--vm", 0, "--flows", 50, name="v.pcap")
    for a, b in zip(nic, vm):
        s, d, sp, dp, _ = inner5(a)
        assert (b[IP].src, b[IP].dst, b[UDP].sport, b[UDP].dport) == \
            (d, s, dp, sp)


def test_nic_tcp_matches_scapy_built_packets(tmp_path):
    """--proto tcp: established-TCP data segments (ACK+PSH, seq = ack
    constant per flow), byte for byte what scapy builds, checksums valid,
    the outer source port hashed with protocol 6."""
    pkts = gen(tmp_path, "--nic", "--vms", 3, "--flows", 3100, "--proto",
               "tcp")
    for k in (0, 1, 2, 5, 1024 * 3 + 1, 3099):
        vm, j = k % 3, k // 3
        src = "192.2.0.%d" % (j // 1024)
        sport = 40000 + j % 1024
        osport = GT.vxlan_sport(GT.ip2int(src), GT.ip2int("192.1.0.%d" % vm),
                                sport, 5001, 6)
        seq = GT.tcp_seq(j)
        ref = (Ether(src=REMOTE_MAC, dst=VTEP_MAC) /
               IP(src=REMOTE_IP, dst=VTEP_IP, ttl=64, id=0, flags="DF") /
               UDP(sport=osport, dport=4789, chksum=0) /
               VXLAN(flags=0x08, vni=1001) /
               Ether(src="a0:00:00:00:00:02", dst=SEED.mac(vm)) /
               IP(src=src, dst="192.1.0.%d" % vm, ttl=64, id=0) /
               TCP(sport=sport, dport=5001, seq=seq, ack=seq, flags="PA",
                   window=65535) / (b"\0" * 24))
        assert bytes(pkts[k]) == bytes(ref), k
    seqs = set()
    for p in pkts[:64]:
        t = p[VXLAN][TCP]
        assert str(t.flags) == "PA" and t.seq == t.ack
        assert len(bytes(t.payload)) == 24
        seqs.add((p[VXLAN][IP].dst, t.sport, t.seq))
        q = Ether(bytes(p))
        want = q[VXLAN][TCP].chksum
        q[VXLAN][TCP].chksum = None
        assert Ether(bytes(q))[VXLAN][TCP].chksum == want
    assert len(seqs) == 64


def test_vm_and_nic_tcp_flows_mirror(tmp_path):
    """--proto tcp: VM i's flow j is the NIC's flow j with addresses and
    ports swapped and the same seq/ack (what testpmd's 5tswap answers)."""
    nic = gen(tmp_path, "--nic", "--vms", 1, "--flows", 50, "--proto", "tcp",
              name="n.pcap")
    vm = gen(tmp_path, "--vm", 0, "--flows", 50, "--proto", "tcp",
             name="v.pcap")
    for a, b in zip(nic, vm):
        ia, tb = a[VXLAN][IP], b[TCP]
        assert (b[IP].src, b[IP].dst, tb.sport, tb.dport, b[IP].proto) == \
            (ia.dst, ia.src, ia[TCP].dport, ia[TCP].sport, 6)
        assert (tb.seq, tb.ack, tb.flags) == (ia[TCP].seq, ia[TCP].ack,
                                               ia[TCP].flags)
        assert len(bytes(b)) == 78 and checksums_ok(b)


def test_nic_ipv6_matches_scapy_built_packets(tmp_path):
    """--ipv6: inner eth/IPv6/UDP, VM i fd00:1::i, remote fd00:2:: +
    j // 1024, the frame as long as IPv4's, byte for byte what scapy
    builds (UDP checksum included), the outer port hashed on the
    16-byte addresses."""
    pkts = gen(tmp_path, "--nic", "--vms", 3, "--flows", 7000, "--ipv6")
    for k in (0, 1, 2, 5, 3 * 1024 + 1, 6999):
        vm, j = k % 3, k // 3
        src, dst = "fd00:2::%x" % (j // 1024), "fd00:1::%x" % vm
        sport = 40000 + j % 1024
        osport = GT.vxlan_sport(int(ipaddress.ip_address(src)),
                                int(ipaddress.ip_address(dst)), sport, 5001,
                                v6=True)
        ref = (Ether(src=REMOTE_MAC, dst=VTEP_MAC) /
               IP(src=REMOTE_IP, dst=VTEP_IP, ttl=64, id=0, flags="DF") /
               UDP(sport=osport, dport=4789, chksum=0) /
               VXLAN(flags=0x08, vni=1001) /
               Ether(src="a0:00:00:00:00:02", dst=SEED.mac(vm)) /
               IPv6(src=src, dst=dst, hlim=64) /
               UDP(sport=sport, dport=5001) / (b"\0" * 16))
        assert bytes(pkts[k]) == bytes(ref), k
        assert len(bytes(pkts[k])) == 128
    assert len({p[UDP].sport for p in pkts}) > 5000


@pytest.mark.parametrize("proto", ["udp", "tcp"])
def test_vm_and_nic_ipv6_flows_mirror(tmp_path, proto):
    """--ipv6 --vm: the NIC's flows reversed, L4 checksums valid."""
    nic = gen(tmp_path, "--nic", "--vms", 1, "--flows", 2100, "--ipv6",
              "--proto", proto, name="n.pcap")
    vm = gen(tmp_path, "--vm", 0, "--flows", 2100, "--ipv6", "--proto",
             proto, name="v.pcap")
    l4 = UDP if proto == "udp" else TCP
    for a, b in list(zip(nic, vm))[::97]:
        ia = a[VXLAN][IPv6]
        assert (b[IPv6].src, b[IPv6].dst, b[l4].sport, b[l4].dport) == \
            (ia.dst, ia.src, ia[l4].dport, ia[l4].sport)
        assert len(bytes(b)) == 78
        for p in (Ether(bytes(b)), Ether(bytes(a[VXLAN].payload))):
            want = p[l4].chksum
            p[l4].chksum = None
            assert want and Ether(bytes(p))[l4].chksum == want


def test_ipv6_address_family_checked(tmp_path):
    r = subprocess.run([sys.executable, str(vxlib.SCRIPTS / "gen-traffic.py"),
                        "--nic", "--ipv6", "--vm-ip-base", "192.1.0.0",
                        "--out", str(tmp_path / "x.pcap")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "not an IPv6 address" in r.stderr


def test_ipv6_topology_matches_traffic(tmp_path):
    """gen-topology.py --ipv6 sends each VM's gen-traffic.py --ipv6 inner
    destination to its port, and the daemon's --check takes the file."""
    topo_path = tmp_path / "t6.yaml"
    subprocess.run([sys.executable, str(vxlib.SCRIPTS / "gen-topology.py"),
                    "--vms", "4", "--ipv6", "--pmd-cores", "1",
                    "--main-lcore", "0", "--out", str(topo_path)],
                   check=True, timeout=30)
    flows = yaml.safe_load(topo_path.read_text())["flows"]
    decap = {f.split("ipv6_dst=")[1].split(",")[0]:
             f.rsplit("output:", 1)[1] for f in flows if "ipv6_dst=" in f}
    pkts = gen(tmp_path, "--nic", "--vms", 4, "--flows", 8, "--ipv6")
    for k, p in enumerate(pkts):
        assert decap[p[VXLAN][IPv6].dst] == "vhost-user%d" % (k % 4)
    assert not [f for f in flows if "nw_dst" in f]
    r = subprocess.run([str(vxlib.find_binary("vxswitch")), "--config",
                        str(topo_path), "--check", "--no-state"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "8 flows" in r.stdout + r.stderr, \
        r.stdout + r.stderr


# ----------------------------------------------------------------- --bad

def test_bad_kinds_listed():
    r = subprocess.run([sys.executable, str(vxlib.SCRIPTS / "gen-traffic.py"),
                        "--list-bad"], capture_output=True, text=True,
                       check=True)
    kinds = {l.split()[0] for l in r.stdout.splitlines() if l.strip()}
    assert kinds == set(GT.KINDS)


@pytest.mark.parametrize("kind", sorted(GT.KINDS))
def test_bad(tmp_path, kind):
    raw = vxlib.read_pcap_raw(vxlib.gen_traffic(tmp_path / "b.pcap",
                                                "--bad", kind))
    assert len(raw) == 1
    b = raw[0]
    p = Ether(b)
    assert p.src == REMOTE_MAC
    if kind == "arp-request":
        assert p.dst == "ff:ff:ff:ff:ff:ff" and len(b) == 60
        a = p[ARP]
        assert (a.op, a.psrc, a.pdst, a.hwsrc) == (1, REMOTE_IP, VTEP_IP,
                                                  REMOTE_MAC)
        return
    assert p.dst == VTEP_MAC
    if kind == "truncated":
        assert len(b) == 14 + 20 + 8 + 4
        assert p[IP].len == 128 - 14        # claims the whole frame
        return
    assert len(b) == 128
    if kind == "bad-ip-ihl":
        assert b[14] == 0x44
        # the header checksum is right for the 20 bytes: only IHL is wrong
        s = sum(int.from_bytes(b[14 + i:16 + i], "big")
                for i in range(0, 20, 2))
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        assert s == 0xFFFF
        return
    assert checksums_ok(p)
    if kind == "unknown-vni":
        assert p[VXLAN].vni == 1002 and p[UDP].dport == 4789
    elif kind == "wrong-udp-port":
        assert p[UDP].dport == 4790
        assert VXLAN(bytes(p[UDP].payload)).vni == 1001
    elif kind == "bad-vxlan-flags":
        assert int(p[VXLAN].flags) == 0 and p[VXLAN].vni == 1001
    elif kind == "not-for-vtep":
        assert p[IP].dst == "172.1.0.99" and p[VXLAN].vni == 1001
    else:
        pytest.fail("untested kind %s" % kind)


def test_bad_count(tmp_path):
    raw = vxlib.read_pcap_raw(vxlib.gen_traffic(
        tmp_path / "b.pcap", "--bad", "unknown-vni", "--count", 10,
        "--flows", 5))
    assert len(raw) == 10
    assert len({inner5(Ether(b)) for b in raw}) == 5


# ------------------------------------------------------ scale and summary

def test_one_million_flows_fast(tmp_path):
    out = tmp_path / "1m.pcap"
    t = time.monotonic()
    vxlib.gen_traffic(out, "--nic", "--vms", 32, "--flows", 1000000)
    took = time.monotonic() - t
    assert out.stat().st_size == 24 + 1000000 * (16 + 128)
    assert took < 60, "1M flows took %.1f s" % took
    # spot checks at the far end
    with open(out, "rb") as f:
        f.seek(24 + 999999 * 144 + 16)
        last = Ether(f.read(128))
    j = 999999 // 32
    assert last[VXLAN][IP].dst == "192.1.0.%d" % (999999 % 32)
    assert last[VXLAN][IP].src == "192.2.%d.%d" % ((j // 1024) >> 8,
                                                   (j // 1024) & 0xFF)
    assert last[VXLAN][UDP].sport == 40000 + j % 1024
    assert checksums_ok(last)
    out.unlink()


def test_pcap_summary(tmp_path):
    """The same counts from the pcap and from its pcapng (dpdk-dumpcap's
    format; converted by Wireshark's editcap)."""
    f = vxlib.gen_traffic(tmp_path / "s.pcap", "--nic", "--vms", 3,
                          "--flows", 30, "--count", 90)
    ng = tmp_path / "s.pcapng"
    subprocess.run(["editcap", "-F", "pcapng", str(f), str(ng)], check=True)
    assert ng.read_bytes()[:4] == b"\x0a\x0d\x0d\x0a"   # section header
    for path in (f, ng):
        r = subprocess.run([sys.executable,
                            str(vxlib.SCRIPTS / "pcap-summary.py"), str(path),
                            "--json"], capture_output=True, text=True,
                           check=True)
        d = json.loads(r.stdout)
        assert d["packets"] == 90 and d["sizes"] == {"128": 90}
        assert sorted((g["outer_dst"], g["vni"], g["inner_dst"],
                       g["packets"]) for g in d["groups"]) == \
            [(VTEP_IP, "1001", "192.1.0.%d" % i, 30) for i in range(3)]
        r = subprocess.run([sys.executable,
                            str(vxlib.SCRIPTS / "pcap-summary.py"), str(path),
                            "-k", "2"], capture_output=True, text=True,
                           check=True)
        assert "vxlan flags 0x08 vni 1001" in r.stdout
        assert "192.1.0.2" in r.stdout and "90 packets" in r.stdout
    r = subprocess.run([sys.executable,
                        str(vxlib.SCRIPTS / "pcap-summary.py"),
                        str(vxlib.SCRIPTS / "pcap-summary.py")],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "not a pcap or pcapng" in r.stderr, r


# --------------------------------------------------------------- harness

def test_testpmd_vms_through_vhost_peer(tmp_path, rundir, make_testpmd):
    """Testpmd as 2 VMs (virtio-user server=1, macswap); in the switch's
    place a second testpmd connects net_vhost clients to them and feeds
    each one gen-traffic frames from a net_pcap port; the VMs must return
    every frame with its MACs swapped."""
    inp = vxlib.gen_traffic(tmp_path / "in.pcap", "--vm", 0, "--flows", 100,
                            "--count", 500)
    # net_pcap hands the peer all 500 frames at once and neither testpmd
    # retries a full ring: rings that hold them all keep a VM that is
    # descheduled for a while (a busy CI host) from dropping any
    vms = make_testpmd(n=2, name="vms", cpus=(0,), queue_size=1024)
    assert vms.running
    outs = [tmp_path / ("out%d.pcap" % i) for i in range(2)]
    vdevs = []
    for i in range(2):
        vdevs.append("net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (i, inp, outs[i]))
        vdevs.append("net_vhost%d,iface=%s,client=1,queues=1"
                     % (i, vms.sockets[i]))
    peer = make_testpmd(name="peer", vdevs=vdevs, cpus=(1,), fwd="io",
                        interactive=True)
    vms.wait_ready()
    peer.wait_ready()
    assert vms.port_macs() == {0: SEED.mac(0), 1: SEED.mac(1)}
    peer.cmd("start")
    vxlib.wait_for(lambda: all(len(vxlib.read_pcap_raw(o)) >= 500
                               for o in outs if o.exists()) and
                   all(o.exists() for o in outs), 20,
                   what="500 frames back in each tx pcap")
    assert peer.stop() == 0
    assert vms.stop() == 0
    assert vms.stats == {0: {"rx": 500, "rx_dropped": 0, "tx": 500,
                             "tx_dropped": 0},
                         1: {"rx": 500, "rx_dropped": 0, "tx": 500,
                             "tx_dropped": 0}}
    assert peer.stats[0]["rx"] == 500 and peer.stats[1]["tx"] == 500
    sent = vxlib.read_pcap(inp)
    for o in outs:
        back = vxlib.read_pcap(o)
        assert len(back) == 500
        for a, b in zip(sent, back):
            assert (b.src, b.dst) == (a.dst, a.src)
            assert bytes(b)[12:] == bytes(a)[12:]


def test_testpmd_stop_before_connect(tmp_path, make_testpmd):
    """Nobody connects: stop() still ends it (SIGINT per waiting port)."""
    tp = make_testpmd(n=3, name="lonely")
    time.sleep(0.5)
    assert tp.running
    t = time.monotonic()
    tp.stop(timeout=15)
    assert time.monotonic() - t < 15
    assert not tp.running and tp.stats == {}
    assert not list(vxlib.HUGE_MNT.glob(tp.prefix + "map_*"))
    assert not (vxlib.DPDK_RUN / tp.prefix).exists()


def test_netns_veth(is_root):
    if not is_root:
        pytest.fail("needs root", pytrace=False)
    tag = "%x" % (os.getpid() & 0xFFFFF)
    a, b = "vxa" + tag, "vxb" + tag
    with vxlib.netns() as ns:
        with vxlib.veth_pair(a, b, ns=ns) as (da, db):
            vxlib.sh(["ip", "addr", "add", "10.250.0.1/30", "dev", da])
            vxlib.sh(["ip", "addr", "add", "10.250.0.2/30", "dev", db], ns=ns)
            feats = vxlib.sh(["ethtool", "-k", db], ns=ns)
            assert "tx-checksumming: off" in feats
            assert "generic-receive-offload: off" in feats
            vxlib.sh(["ping", "-c", "1", "-W", "2", "10.250.0.2"])
        assert a not in vxlib.sh(["ip", "link", "show"])
        assert ns in vxlib.sh(["ip", "netns", "list"])
    assert ns not in vxlib.sh(["ip", "netns", "list"])


def test_wait_for():
    t = time.monotonic()
    assert vxlib.wait_for(lambda: time.monotonic() - t > 0.2 and 7, 2) == 7
    with pytest.raises(TimeoutError, match="the moon"):
        vxlib.wait_for(lambda: False, 0.2, what="the moon")


class _FakeSwitch:
    name = "fake"

    def __init__(self, seq, baseline=100):
        self.seq, self.mbuf_baseline = list(seq), baseline

    def mempool(self):
        v = self.seq.pop(0) if len(self.seq) > 1 else self.seq[0]
        return {"size": 1023, "in_use": v}


def test_assert_no_mbuf_leak():
    vxlib.assert_no_mbuf_leak(_FakeSwitch([130, 120, 100]), timeout=2)
    vxlib.assert_no_mbuf_leak(_FakeSwitch([40], baseline=40), timeout=0.5)
    with pytest.raises(AssertionError, match=r"leaks mbufs: 132 in use"):
        vxlib.assert_no_mbuf_leak(_FakeSwitch([132]), timeout=0.3)
    with pytest.raises(AssertionError, match="no mbuf baseline"):
        vxlib.assert_no_mbuf_leak(_FakeSwitch([1], baseline=None))
