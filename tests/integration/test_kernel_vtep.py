# SPDX-License-Identifier: BSD-3-Clause
"""vxswitch against a real Linux VXLAN device as the remote VTEP.

    netns "vm"                root ns                    netns "vtep"
    tap 192.1.0.2  <->  net_tap0 [vxswitch] net_af_packet0 == veth ==
                        (overlay)           (underlay,      veth 172.1.0.1
                                             VTEP            vx0 (vxlan 1001,
                                             172.1.0.100)        remote .100)
                                                                 192.1.0.1

Nothing is configured by hand on the switch's side of the underlay: no
static ARP. The switch learns 172.1.0.1's MAC from ARP (the kernel's
request for 172.1.0.100, which the VTEP's responder answers, or the reply to
the switch's own request when it first has to encapsulate). The overlay
flows match no L3 field, so the inner ARP between 192.1.0.1 and 192.1.0.2
crosses the tunnel like any other frame.

test_kernel_vxlan_peer: with both neighbour caches flushed before each
step, the kernel ARPs for us (responder answers, switch learns), then the
switch ARPs for the kernel; ping both ways, a TCP transfer both ways (sha256
of 4 MB), tnl/arp/show (dynamic, the veth's MAC), the ARP frames on the
wire, pmd-stats (pops, pushes, no malformed/bad_vxlan/... drops), the
kernel's vx0 counters, and the outer headers the switch writes compared
field by field with those the kernel writes (tcpdump in the vtep netns):
TTL, DF and TOS must be what a kernel VTEP sends; the rest is reported
(test output with -s, and kernel_vtep_headers.json in the test's tmp dir).

test_lost_arp_reply_is_retried: the switch's first ARP request is lost
(the kernel's link is down); traffic that keeps coming must get through
soon after the link is back (the 'no neighbour' megaflow is short-lived).

Addresses live only in the two namespaces; the switch's end of the veth in
the root ns has none (and offloads off, so af_packet sees whole frames with
real checksums).
"""

import hashlib
import json
import os
import struct
import subprocess
import sys
import time

import pytest

from vxswitch_tools import harness as vxlib
from vxswitch_tools import netns_apps
from vxswitch_tools.harness import sh, wait_for
from vxswitch_tools.hostnet import link_mac
from vxswitch_tools.kernel_vtep_rig import (INNER_MTU, KHOST_IP, KVTEP_IP,
                                           PAYLOAD, PEER, VM_IP, VNI, VTEP_IP,
                                           kernel_vtep, tag, vtep_topology)


def link_stats(dev, ns):
    """{"rx_packets", "rx_bytes", "tx_packets", "tx_bytes"} from ip -s."""
    j = json.loads(sh(["ip", "-s", "-j", "link", "show", dev], ns=ns))[0]
    st = j["stats64"]
    return {"rx_packets": st["rx"]["packets"], "rx_bytes": st["rx"]["bytes"],
            "tx_packets": st["tx"]["packets"], "tx_bytes": st["tx"]["bytes"]}


def ping(ns, dst, count=5):
    r = subprocess.run(["ip", "netns", "exec", ns, "ping", "-c", str(count),
                        "-i", "0.2", "-W", "2", dst],
                       capture_output=True, text=True, timeout=60)
    return r


def pmd_totals(sw):
    tot = {"tunnel_pops": 0, "tunnel_pushes": 0, "arp_replies": 0,
           "drops": {}}
    for p in sw.ctl("dpif-netdev/pmd-stats-show", json=True):
        for k in ("tunnel_pops", "tunnel_pushes", "arp_replies"):
            tot[k] += p[k]
        for r, n in p["drops"].items():
            tot["drops"][r] = tot["drops"].get(r, 0) + n
    return tot


# ------------------------------------------------------ outer header decode

def decode_outer(frame):
    """Outer eth/IPv4/UDP/VXLAN fields of one captured VXLAN frame, or None.
    The capture's snap length may cut the inner frame; the IPv4 header
    checksum is verified here (the UDP one needs the whole datagram)."""
    if len(frame) < 14 + 20 + 8 + 8:
        return None
    dst, src, etype = frame[0:6], frame[6:12], struct.unpack("!H",
                                                             frame[12:14])[0]
    if etype != 0x0800:
        return None
    ip = frame[14:34]
    vihl, tos, tot_len, ip_id, frag, ttl, proto, csum = struct.unpack(
        "!BBHHHBBH", ip[:12])
    if vihl != 0x45 or proto != 17:
        return None
    s = 0
    for i in range(0, 20, 2):
        s += (ip[i] << 8) | ip[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    udp = frame[34:42]
    sport, dport, ulen, ucsum = struct.unpack("!HHHH", udp)
    if dport != 4789:
        return None
    vx = frame[42:50]
    return {
        "eth_src": src.hex(":"), "eth_dst": dst.hex(":"),
        "ip_src": ".".join(map(str, ip[12:16])),
        "ip_dst": ".".join(map(str, ip[16:20])),
        "tos": tos, "ttl": ttl, "df": bool(frag & 0x4000),
        "mf_or_off": frag & 0x3FFF, "ip_id": ip_id, "ip_len": tot_len,
        "ip_csum_ok": s == 0xFFFF, "sport": sport, "udp_len": ulen,
        "udp_csum": ucsum, "vxlan_flags": vx[0],
        "vni": int.from_bytes(vx[4:7], "big"),
    }


def udp_csum_ok(frame):
    """The outer UDP checksum of a whole captured frame (0 = none: ok)."""
    ip = frame[14:34]
    ulen = struct.unpack("!H", frame[38:40])[0]
    seg = frame[34:34 + ulen]
    if len(seg) < ulen:
        return None     # cut by the snap length
    if struct.unpack("!H", seg[6:8])[0] == 0:
        return True
    data = ip[12:20] + struct.pack("!BBH", 0, 17, ulen) + seg
    if len(data) & 1:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def summarize(hdrs, frames):
    """What one VTEP's frames have in common, and how they vary."""
    ids = [h["ip_id"] for h in hdrs]
    steps = [(b - a) & 0xFFFF for a, b in zip(ids, ids[1:])]
    sports = sorted({h["sport"] for h in hdrs})
    csum = [udp_csum_ok(f) for f in frames]
    return {
        "frames": len(hdrs),
        "eth_src": sorted({h["eth_src"] for h in hdrs}),
        "eth_dst": sorted({h["eth_dst"] for h in hdrs}),
        "ttl": sorted({h["ttl"] for h in hdrs}),
        "df": sorted({h["df"] for h in hdrs}),
        "tos": sorted({h["tos"] for h in hdrs}),
        "frag_offset_or_mf": sorted({h["mf_or_off"] for h in hdrs}),
        "ip_csum_ok": all(h["ip_csum_ok"] for h in hdrs),
        "ip_id_first": ids[:8],
        "ip_id_step_plus1_share": (round(sum(1 for d in steps if d == 1)
                                         / len(steps), 3) if steps else None),
        "ip_id_zero_share": round(sum(1 for i in ids if i == 0)
                                  / max(1, len(ids)), 3),
        "udp_sport_min": sports[0] if sports else None,
        "udp_sport_max": sports[-1] if sports else None,
        "udp_sports_distinct": len(sports),
        "udp_csum_zero_share": round(sum(1 for h in hdrs if h["udp_csum"] == 0)
                                     / max(1, len(hdrs)), 3),
        "udp_csum_valid": (all(c for c in csum if c is not None)
                           if any(c is not None for c in csum) else None),
        "vxlan_flags": sorted({h["vxlan_flags"] for h in hdrs}),
        "vni": sorted({h["vni"] for h in hdrs}),
    }


# ---------------------------------------------------------------------- rig

class Rig:
    """The two namespaces, the veth, the kernel VTEP and a running switch."""
    tag = vtep = vm = phy = peer = tap = None
    sw = None
    phy_mac = peer_mac = None


def arp_frames(frames):
    """(op, sha, spa, tpa) of every ARP frame of a capture."""
    out = []
    for f in frames:
        if len(f) < 42 or f[12:14] != b"\x08\x06":
            continue
        op = struct.unpack("!H", f[20:22])[0]
        out.append((op, f[22:28].hex(":"), ".".join(map(str, f[28:32])),
                    ".".join(map(str, f[38:42]))))
    return out


def capture(r, tmp_path, name):
    """tcpdump on the kernel VTEP's veth (ARP and VXLAN, whole frames);
    a context that yields the pcap path, complete once the block has
    exited."""
    return netns_apps.capture(r.vtep, r.peer, tmp_path / ("%s.pcap" % name),
                              "arp or udp port 4789", snaplen=0)


def forget_neighbours(r):
    """Both VTEPs forget each other's MAC: what happens next is ARP."""
    def forgotten():
        # The kernel first, so it has nothing left to ARP us about; an
        # ARP already on its way may still teach the switch: then again.
        sh(["ip", "neigh", "flush", "dev", r.peer], ns=r.vtep)
        r.sw.ctl("tnl/arp/flush")
        return not [e for e in r.sw.ctl("tnl/arp/show", json=True)
                    if e["ip"] == KVTEP_IP]
    wait_for(forgotten, 5, 0.2, "both VTEPs to forget each other")


@pytest.fixture
def rig(request, make_switch, tmp_path):
    r = Rig()
    r.tag = tag()
    r.phy, r.peer = "kvu%s" % r.tag, "kvp%s" % r.tag     # <= 15 characters
    r.tap = "kvtap%s" % r.tag
    with vxlib.netns("vtep%s" % r.tag) as vtep, \
            vxlib.netns("vm%s" % r.tag) as vm, \
            vxlib.veth_pair(r.phy, r.peer, ns=vtep, mtu=1500, up=False):
        r.vtep, r.vm = vtep, vm
        kernel_vtep(r.phy, r.peer, vtep, KHOST_IP + "/24")
        r.peer_mac = link_mac(r.peer, vtep)
        r.phy_mac = link_mac(r.phy)

        # -- the switch: af_packet on the veth, tap for the VM
        r.sw = make_switch(vtep_topology(
            r.phy, {"name": "tap", "type": "dpdk",
                    "devargs": "net_tap0,iface=%s" % r.tap}),
            ready_timeout=60.0)

        # -- the VM: the switch's tap, moved into its own netns (the tap
        # PMD keeps its fd; only its ioctls by name stop reaching it)
        sh(["ip", "link", "set", r.tap, "netns", vm])
        sh(["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % r.tap],
           ns=vm, check=False)
        sh(["ip", "link", "set", r.tap, "mtu", INNER_MTU], ns=vm)
        sh(["ip", "addr", "add", VM_IP + "/24", "dev", r.tap], ns=vm)
        sh(["ip", "link", "set", r.tap, "up"], ns=vm)

        yield r

        # A clean exit with every mbuf back, checked while its ports still
        # exist (leaving the block deletes the veth and the namespaces);
        # after a failure make_switch's teardown just kills it.
        vxlib.stop_if_passed(request, r.sw)


# --------------------------------------------------------------------- tests

def test_kernel_vxlan_peer(rig, tmp_path):
    """ARP both ways, ping both ways, TCP both ways, counters, and the
    outer headers of both VTEPs compared."""
    r, sw = rig, rig.sw
    t_start = time.monotonic()
    report = {}
    vx0_before = link_stats("vx0", r.vtep)

    with capture(r, tmp_path, "underlay") as pcap:
        # -- 1. the kernel ARPs for our VTEP: the responder answers, and
        # the switch learns 172.1.0.1 from the request
        forget_neighbours(r)
        p = ping(r.vtep, VM_IP)
        assert p.returncode == 0, ("vtep -> %s failed:\n%s%s\n%s\n%s" % (
            VM_IP, p.stdout, p.stderr, sw.ctl("tnl/arp/show"),
            sw.ctl("dpif-netdev/pmd-stats-show")))
        st = pmd_totals(sw)
        assert st["arp_replies"] >= 1, st
        learned = [e for e in sw.ctl("tnl/arp/show", json=True)
                   if e["ip"] == KVTEP_IP]
        assert learned and learned[0]["mac"].lower() == r.peer_mac, learned

        # -- 2. the switch ARPs for the kernel VTEP when it must encap
        forget_neighbours(r)
        p = ping(r.vm, KHOST_IP)
        assert p.returncode == 0, ("vm -> %s failed:\n%s%s\n%s\n%s" % (
            KHOST_IP, p.stdout, p.stderr, sw.ctl("tnl/arp/show"),
            sw.ctl("dpif-netdev/pmd-stats-show")))
        report["ping_vm_to_vtep"] = p.stdout.strip().splitlines()[-2:]

        # -- 3. TCP both ways, a few MB each, compared by sha256
        script = tmp_path / "peer.py"
        script.write_text(PEER)
        data = tmp_path / "payload.bin"
        data.write_bytes(os.urandom(PAYLOAD))
        want = "%s %d" % (hashlib.sha256(data.read_bytes()).hexdigest(),
                          PAYLOAD)
        for name, rx_ns, tx_ns, dst in (("vm_to_vtep", r.vtep, r.vm,
                                         KHOST_IP),
                                        ("vtep_to_vm", r.vm, r.vtep, VM_IP)):
            out = tmp_path / ("%s.sha" % name)
            t0 = time.monotonic()
            srv = subprocess.Popen(
                ["ip", "netns", "exec", rx_ns, sys.executable, str(script),
                 "recv", "5001", str(out)], start_new_session=True)
            vxlib._live.append(srv)
            wait_for(lambda: (tmp_path / ("%s.sha.ready" % name)).exists()
                     or srv.poll() is not None, 15, 0.05,
                     "tcp server in %s" % rx_ns)
            cli = subprocess.run(
                ["ip", "netns", "exec", tx_ns, sys.executable, str(script),
                 "send", dst, "5001", str(data)],
                capture_output=True, text=True, timeout=120)
            try:
                srv.wait(30)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv.wait(5)
            got = out.read_text().strip() if out.exists() else "(none)"
            report["tcp_" + name] = {
                "seconds": round(time.monotonic() - t0, 2),
                "ok": got == want}
            assert cli.returncode == 0, "%s client: %s" % (name, cli.stderr)
            assert got == want, ("%s: received %s, sent %s\n%s"
                                 % (name, got, want,
                                    sw.ctl("dpif-netdev/pmd-stats-show")))

    # -- the switch learned the kernel VTEP's MAC, as a dynamic entry
    arp_text = sw.ctl("tnl/arp/show")
    ent = [e for e in sw.ctl("tnl/arp/show", json=True)
           if e["ip"] == KVTEP_IP]
    assert ent, "172.1.0.1 not learned:\n%s" % arp_text
    assert ent[0]["mac"].lower() == r.peer_mac, arp_text
    assert ent[0]["static"] is False, arp_text
    assert [ln.split()[1] for ln in arp_text.splitlines()
            if ln.startswith(KVTEP_IP + " ")] == [r.peer_mac], arp_text

    # -- the ARP exchanges on the wire: the kernel asked for us and got
    # our MAC; we asked for the kernel and got its MAC
    frames = vxlib.read_pcap_raw(pcap)
    arps = arp_frames(frames)
    report["arp_on_wire"] = sorted(set(arps))
    assert (1, r.peer_mac, KVTEP_IP, VTEP_IP) in arps, arps
    assert (2, r.phy_mac, VTEP_IP, KVTEP_IP) in arps, arps
    assert (1, r.phy_mac, VTEP_IP, KVTEP_IP) in arps, arps
    assert (2, r.peer_mac, KVTEP_IP, VTEP_IP) in arps, arps

    # -- datapath counters
    st = pmd_totals(sw)
    report["pmd"] = st
    min_frames = PAYLOAD // INNER_MTU        # one way's data segments
    assert st["tunnel_pops"] > min_frames, st
    assert st["tunnel_pushes"] > min_frames, st
    for why in ("malformed", "bad_vxlan", "unknown_vni", "no_route",
                "upcall_fail", "no_headroom", "not_vtep", "tx_full"):
        assert st["drops"].get(why, 0) == 0, (why, st)

    # -- the kernel's vx0 counted the same traffic
    vx0 = link_stats("vx0", r.vtep)
    report["vx0_delta"] = {k: vx0[k] - vx0_before[k] for k in vx0}
    # (vx0 has TSO: its tx counts what the stack gave it, GSO packets as
    # one, so the packet count is only checked to have moved)
    assert vx0["rx_packets"] - vx0_before["rx_packets"] > min_frames
    assert vx0["tx_packets"] - vx0_before["tx_packets"] > 0
    assert vx0["rx_bytes"] - vx0_before["rx_bytes"] > PAYLOAD
    assert vx0["tx_bytes"] - vx0_before["tx_bytes"] > PAYLOAD

    # -- outer headers: kernel-made vs switch-made
    kern, ours = [], []
    for f in frames:
        h = decode_outer(f)
        if h is None:
            continue
        if h["ip_src"] == KVTEP_IP and h["ip_dst"] == VTEP_IP:
            kern.append((h, f))
        elif h["ip_src"] == VTEP_IP and h["ip_dst"] == KVTEP_IP:
            ours.append((h, f))
    assert kern and ours, "captured %d frames, kernel %d, switch %d" % (
        len(frames), len(kern), len(ours))
    ks = summarize([h for h, _ in kern], [f for _, f in kern])
    ss = summarize([h for h, _ in ours], [f for _, f in ours])
    report["outer_kernel"] = ks
    report["outer_switch"] = ss
    report["first_kernel_frame"] = kern[0][0]
    report["first_switch_frame"] = ours[0][0]
    report["differences"] = {k: {"kernel": ks[k], "switch": ss[k]}
                             for k in ks if ks[k] != ss[k]}
    report["seconds"] = round(time.monotonic() - t_start, 1)
    (tmp_path / "kernel_vtep_headers.json").write_text(
        json.dumps(report, indent=2, sort_keys=True))
    print("\nkernel VTEP report:\n" + json.dumps(report, indent=2,
                                                  sort_keys=True))

    # what a kernel VTEP does (Linux vxlan defaults: ttl auto = 64, df
    # unset = 0, tos 0), the switch does
    assert ss["ttl"] == ks["ttl"] == [64], report["differences"]
    assert ss["df"] == ks["df"], report["differences"]
    assert ss["tos"] == ks["tos"] == [0], report["differences"]
    # and its headers are right on their own
    assert ss["ip_csum_ok"] and ss["udp_csum_valid"] is not False, ss
    assert ss["frag_offset_or_mf"] == [0], ss
    # inner MTU 1450 + 50 fits the 1500 underlay: nobody fragments
    assert ks["frag_offset_or_mf"] == [0], ks
    assert max(len(f) for f in frames) <= 1514
    assert ss["eth_src"] == [r.phy_mac] and ss["eth_dst"] == [r.peer_mac], ss
    assert ss["vxlan_flags"] == [0x08] and ss["vni"] == [VNI], ss
    assert 49152 <= ss["udp_sport_min"] <= ss["udp_sport_max"] <= 65535, ss
    assert ss["udp_sports_distinct"] >= 2, ss   # ARP, ICMP, TCP flows


def test_lost_arp_reply_is_retried(rig, tmp_path):
    """The switch's ARP request for the kernel VTEP goes unanswered (the
    kernel's link is down); once it is back, traffic that keeps coming must
    get through within a few ARP retry intervals, not wait for a quiet
    spell long enough to expire the 'no neighbour' megaflow."""
    r, sw = rig, rig.sw
    forget_neighbours(r)
    sh(["ip", "link", "set", r.peer, "down"], ns=r.vtep)
    # (not -w: iputils ping gives up at the first error when it has a
    # deadline, and 'Destination Host Unreachable' is one)
    log = tmp_path / "ping.log"
    with open(log, "wb") as f:
        pg = subprocess.Popen(
            ["ip", "netns", "exec", r.vm, "stdbuf", "-oL", "ping", "-n",
             "-i", "0.2", "-c", "200", KHOST_IP],
            stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
    vxlib._live.append(pg)
    try:
        # the switch has asked at least once, into the void
        wait_for(lambda: pmd_totals(sw)["drops"].get("no_neigh", 0) > 0,
                 10, 0.1, "a no_neigh drop")
        time.sleep(2.0)
        assert " bytes from " not in log.read_text()
        sh(["ip", "link", "set", r.peer, "up"], ns=r.vtep)
        t_up = time.monotonic()
        wait_for(lambda: " bytes from " in log.read_text(), 15, 0.1,
                 lambda: "a ping reply after the kernel VTEP came back\n"
                 "%s\n%s\n%s" % (log.read_text()[-600:],
                                 sw.ctl("tnl/arp/show"),
                                 sw.ctl("dpif-netdev/pmd-stats-show")))
        took = time.monotonic() - t_up
        print("\nfirst reply %.1f s after the kernel VTEP's link came up"
              % took)
        assert took < 8.0, took
    finally:
        pg.kill()
        pg.wait(5)
    ent = [e for e in sw.ctl("tnl/arp/show", json=True)
           if e["ip"] == KVTEP_IP]
    assert ent and ent[0]["mac"].lower() == r.peer_mac, ent
