# SPDX-License-Identifier: BSD-3-Clause
"""Path MTU discovery for the tunnel (issue 25, item 6;
app/datapath/dp_pmtud.h) against Linux's own IPv4 and IPv6 stacks, with
no QEMU (test_guests.py's test_guest_pmtu does it with a guest):

    netns "vm"                root ns                    netns "vtep"
    tap 192.1.0.2      <->  net_tap0 [vxswitch] net_af_packet0 == veth ==
        fd00:192:1::2       (overlay)           (underlay,     veth 172.1.0.1
        MTU 1500                                 MTU 1500)     vx0 192.1.0.1
                                                                   fd00:192:1::1
                                                                   MTU 1500

A new user's overlay: 1500 on both ends of a 1500-byte underlay. The
sender in netns vm is the kernel itself (ping with DF):

test_pmtud_linux_sender: a 1500-byte IPv4 ping with DF gets "Frag needed
and DF set (mtu = 1450)" from 192.1.0.1 and the kernel caches the path
MTU (ip route get: mtu 1450), after which 1450-byte pings get through; an
IPv6 one gets "Packet too big: mtu=1450" (ip -6 route get: mtu 1450); the
counters (pmtud_frag_needed, pmtud_too_big, mtu_exceeded) and pmd-stats-
show -m's lines say so; a trace of one such packet shows its pmtud entry,
its drop and the ICMP error's output and tx. dpif-netdev/set-param
pmtud off: the ping is dropped unanswered (mtu_exceeded only), save-config
keeps `pmtud: false`; pmtud-rate 1 / pmtud-burst 1: one answer, the rest
refused and counted (pmtud_policed); bad values are refused naming them.
"""

import re
import time

import pytest

from vxswitch_tools import harness as vxlib
from vxswitch_tools.harness import sh, wait_for
from vxswitch_tools.kernel_vtep_rig import (KHOST_IP, VM_IP, flush_pmtu,
                                           kernel_vtep, ping_df, tag,
                                           vtep_topology)
from vxswitch_tools.kernel_vtep_rig import counts_delta as delta
from vxswitch_tools.kernel_vtep_rig import pmtud_counts as counts

MTU = 1500
VM_IP6 = "fd00:192:1::2"
KHOST_IP6 = "fd00:192:1::1"


class Rig:
    tag = vtep = vm = phy = peer = tap = sw = None


@pytest.fixture
def rig(request, make_switch, tmp_path):
    r = Rig()
    r.tag = tag()
    r.phy, r.peer = "pmu%s" % r.tag, "pmp%s" % r.tag
    r.tap = "pmtap%s" % r.tag
    with vxlib.netns("pmvtep%s" % r.tag) as vtep, \
            vxlib.netns("pmvm%s" % r.tag) as vm, \
            vxlib.veth_pair(r.phy, r.peer, ns=vtep, mtu=1500, up=False):
        r.vtep, r.vm = vtep, vm
        kernel_vtep(r.phy, r.peer, vtep, KHOST_IP + "/24", inner_mtu=MTU)
        r.sw = make_switch(vtep_topology(
            r.phy, {"name": "tap", "type": "dpdk",
                    "devargs": "net_tap0,iface=%s" % r.tap}),
            ready_timeout=60.0)
        sh(["ip", "link", "set", r.tap, "netns", vm])
        # IPv6 with a ULA on both ends, no DAD (the overlay is ours)
        for ns, dev in ((vm, r.tap), (vtep, "vx0")):
            for key in ("accept_dad=0", "disable_ipv6=0"):
                sh(["sysctl", "-qw", "net.ipv6.conf.%s.%s" % (dev, key)],
                   ns=ns)
        sh(["ip", "link", "set", r.tap, "mtu", MTU], ns=vm)
        sh(["ip", "addr", "add", VM_IP + "/24", "dev", r.tap], ns=vm)
        sh(["ip", "addr", "add", VM_IP6 + "/64", "dev", r.tap, "nodad"],
           ns=vm)
        sh(["ip", "addr", "add", KHOST_IP6 + "/64", "dev", "vx0", "nodad"],
           ns=vtep)
        sh(["ip", "link", "set", r.tap, "up"], ns=vm)
        yield r
        vxlib.stop_if_passed(request, r.sw)


def ping(r, dst, size, **kw):
    return ping_df(r.vm, dst, size, **kw)


# n UDP datagrams of size bytes with DF whatever the path MTU the kernel
# learned (IP_PMTUDISC_PROBE, IPV6_PMTUDISC_PROBE: iputils' ping here has
# no -M probe), as fast as they go
PROBE = r'''
import socket, sys
dst, size, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
v6 = ":" in dst
s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET,
                  socket.SOCK_DGRAM)
if v6:
    s.setsockopt(socket.IPPROTO_IPV6, 23, 3)    # IPV6_MTU_DISCOVER, PROBE
else:
    s.setsockopt(socket.IPPROTO_IP, 10, 3)      # IP_MTU_DISCOVER, PROBE
for _ in range(n):
    s.sendto(b"x" * size, (dst, 9))
'''


def probe(r, dst, size, n):
    sh(["python3", "-c", PROBE, dst, size, n], ns=r.vm)


def reachable(r):
    def up():
        return " 0% packet loss" in ping(r, KHOST_IP, 56) and \
            " 0% packet loss" in ping(r, KHOST_IP6, 56)
    wait_for(up, 30, 0.5, "ping and ping6 through the tunnel")


def test_pmtud_linux_sender(rig):
    r, sw = rig, rig.sw
    reachable(r)
    flush_pmtu(r.vm)

    # IPv4: 1472 + 28 = 1500 bytes with DF
    c0 = counts(sw)
    out = ping(r, KHOST_IP, 1472)
    print("\n$ ping -M do -s 1472 -c 1 %s\n%s" % (KHOST_IP, out))
    assert "From %s icmp_seq=1 Frag needed and DF set (mtu = 1450)" \
        % KHOST_IP in out, out
    d = delta(c0, counts(sw))
    assert d["pmtud_frag_needed"] == 1 and d["mtu_exceeded"] == 1, d
    assert d["pmtud_policed"] == 0 and d["pmtud_too_big"] == 0, d
    route = sh(["ip", "route", "get", KHOST_IP], ns=r.vm)
    print("$ ip route get %s\n%s" % (KHOST_IP, route))
    assert "mtu 1450" in route, route
    assert " 0% packet loss" in ping(r, KHOST_IP, 1422), "1450 with DF"

    # IPv6: 1452 + 48 = 1500 bytes
    c0 = counts(sw)
    out = ping(r, KHOST_IP6, 1452)
    print("$ ping -6 -M do -s 1452 -c 1 %s\n%s" % (KHOST_IP6, out))
    assert "From %s icmp_seq=1 Packet too big: mtu=1450" % KHOST_IP6 \
        in out, out
    d = delta(c0, counts(sw))
    assert d["pmtud_too_big"] == 1 and d["mtu_exceeded"] == 1, d
    route = sh(["ip", "-6", "route", "get", KHOST_IP6], ns=r.vm)
    print("$ ip -6 route get %s\n%s" % (KHOST_IP6, route))
    assert "mtu 1450" in route, route
    assert " 0% packet loss" in ping(r, KHOST_IP6, 1402), "1450 IPv6"

    more = sw.ctl("dpif-netdev/pmd-stats-show", "-m")
    lines = [l for l in more.splitlines()
             if "path MTU" in l or "accounting" in l]
    print("$ vxswitch-ctl dpif-netdev/pmd-stats-show -m | "
          "grep -e 'path MTU' -e accounting")
    print("\n".join(lines))
    js = sw.ctl("dpif-netdev/pmd-stats-show", json=True)[0]
    print("$ vxswitch-ctl --json dpif-netdev/pmd-stats-show: %s" % {
        k: js[k] for k in ("pmtud_frag_needed", "pmtud_too_big",
                           "pmtud_policed", "copies")})
    assert re.search(r"path MTU: ICMP fragmentation needed sent: [1-9]",
                     more), more
    assert re.search(r"path MTU: ICMPv6 packet too big sent: [1-9]",
                     more), more
    assert "accounting:" in more and "(balanced)" in more, more

    # a trace of one
    flush_pmtu(r.vm)
    sw.ctl("trace", "add", "tap", "1", "icmp")
    ping(r, KHOST_IP, 1472)
    text = sw.ctl("trace", "show")
    print("$ vxswitch-ctl trace add tap 1 icmp; ping ...; "
          "vxswitch-ctl trace show\n%s" % text)
    assert re.search(r"pmtud +too long for the tunnel \(mtu 1450\): "
                     r"answered: ICMP fragmentation needed, to tap", text), \
        text
    assert re.search(r"drop +mtu_exceeded", text), text
    assert re.search(r"tx +sent by tap", text), text
    js = sw.ctl("trace", "show", json=True)
    st = [s for s in js["packets"][0]["stages"] if s["stage"] == "pmtud"]
    assert st and st[0]["verdict"] == "frag_needed" and \
        st[0]["mtu"] == 1450 and st[0]["port"] == "tap", st
    sw.ctl("trace", "clear")


def test_pmtud_set_param(rig, tmp_path):
    r, sw = rig, rig.sw
    saved = tmp_path / "saved.yaml"
    reachable(r)

    def pmtud_lines():
        sw.ctl("save-config", saved)
        return [l.strip() for l in saved.read_text().splitlines()
                if l.strip().startswith("pmtud")]
    assert pmtud_lines() == []              # the defaults: not written

    for args, token in ((("pmtud", "maybe"), "'maybe'"),
                        (("pmtud-rate", "-1"), "'-1'"),
                        (("pmtud-burst", "0"), "'0'"),
                        (("pmtud-rates", "5"), "'pmtud-rates'")):
        res = sw.ctl_result("dpif-netdev/set-param", *args)
        assert res.returncode != 0 and token in res.stdout + res.stderr, res
    assert pmtud_lines() == []

    # off: dropped, not answered
    assert sw.ctl("dpif-netdev/set-param", "pmtud", "off").strip() == \
        "pmtud off"
    assert pmtud_lines() == ["pmtud: false"]
    flush_pmtu(r.vm)
    c0 = counts(sw)
    out = ping(r, KHOST_IP, 1472)
    assert "Frag needed" not in out and " 100% packet loss" in out, out
    out = ping(r, KHOST_IP6, 1452)
    assert "Packet too big" not in out and " 100% packet loss" in out, out
    d = delta(c0, counts(sw))
    assert d["mtu_exceeded"] == 2 and d["pmtud_frag_needed"] == 0 and \
        d["pmtud_too_big"] == 0 and d["copies"] == 0, d

    # on again, one a second, one at once: of 5 quick 1500-byte UDP
    # datagrams with DF, one answered, 4 refused
    sw.ctl("dpif-netdev/set-param", "pmtud", "on")
    sw.ctl("dpif-netdev/set-param", "pmtud-rate", "1")
    assert sw.ctl("dpif-netdev/set-param", "pmtud-burst", "1").strip() == \
        "pmtud-burst 1"
    assert sorted(pmtud_lines()) == ["pmtud-burst: 1", "pmtud-rate: 1"]
    for dst, size, key in ((KHOST_IP, 1472, "pmtud_frag_needed"),
                           (KHOST_IP6, 1452, "pmtud_too_big")):
        c0 = counts(sw)
        probe(r, dst, size, 5)
        wait_for(lambda: delta(c0, counts(sw))["mtu_exceeded"] == 5, 5,
                 0.1, "5 datagrams too long for the tunnel")
        d = delta(c0, counts(sw))
        # one token a second: a slow host may earn a second one
        assert d[key] >= 1 and d[key] + d["pmtud_policed"] == 5 and \
            d["pmtud_policed"] >= 3, (dst, d)
        time.sleep(1.0)             # the next family's token
    # IPv4 without DF: dropped, never answered (and takes no token)
    flush_pmtu(r.vm)
    c0 = counts(sw)
    out = ping(r, KHOST_IP, 1472, count=3, interval="0.01", pmtudisc="dont")
    d = delta(c0, counts(sw))
    assert d["mtu_exceeded"] == 3 and d["pmtud_frag_needed"] == 0 and \
        d["pmtud_policed"] == 0, (d, out)
    sw.ctl("dpif-netdev/set-param", "pmtud-rate", "1000")
    sw.ctl("dpif-netdev/set-param", "pmtud-burst", "50")
    assert pmtud_lines() == []
