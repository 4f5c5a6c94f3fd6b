# SPDX-License-Identifier: BSD-3-Clause
"""NAT rewrites and restores addresses (issue 12): sg(...,nat(...)) in one
pass and ct(nat,table=T) + ct(commit,nat(...)) with recirculation, on the
real-TCP rig (netns_rig.py), with policies/sg_nat.flows and
policies/ct_nat.flows, the same traffic through each:
  - SNAT: vm1 (192.1.0.11) opens a TCP transfer (sha256 at both ends),
    pings and UDP echo to the outside; a capture on the outside (the
    kernel VXLAN device) sees only 203.0.113.7 as vm1's address, and the
    VM's stack, which answers only for 192.1.0.11, gets the replies;
  - DNAT: the outside opens a TCP transfer to 203.0.113.80, which is vm1:
    vm1 serves it, the outside sees only 203.0.113.80;
  - dpctl/dump-conntrack shows each session with its NAT as OVS does (the
    reply tuple is the translated one);
  - the outside cannot open a connection to the public address or to the
    VM's own one (same verdict in both forms);
  - every packet received ends in one counter (the rig's teardown).
The ct() form also shows the recirculated pass matching the rewritten
headers (table 10 matches nw_src=203.0.113.7, table 20 nw_dst=192.1.0.11)
and ct_state +snat/+dnat as OVS sets them.
"""

import re
from pathlib import Path

import pytest

from vxswitch_tools import netns_apps as apps
from vxswitch_tools import netns_rig
from vxswitch_tools.addressing import NETNS_RIG
from vxswitch_tools.hostnet import sh
from vxswitch_tools.netns_rig import OUT_IP

POLICIES = Path(__file__).with_name("policies")
PUB = "203.0.113.7"          # vm1's SNAT address
SVC = "203.0.113.80"         # the service address DNATed to vm1
VM1 = NETNS_RIG.ip(1)
KB = 1024


@pytest.fixture(params=["sg", "ct"])
def rig(request, make_switch):
    policy = POLICIES / ("%s_nat.flows" % request.param)
    for r in netns_rig.for_test(request, make_switch, n_vms=1,
                                policy=policy):
        # the outside reaches both public addresses through vm1's MAC
        for ip in (PUB, SVC):
            sh(["ip", "route", "add", ip + "/32", "via", VM1, "dev",
                "vx0"], ns=r.out_ns)
        r.form = request.param
        yield r


def conns(rig):
    return [l for l in rig.sw.ctl("dpctl/dump-conntrack").splitlines() if l]


def wire_addresses(pcap):
    """{(src, dst)} of the TCP segments of a capture."""
    return {(s["src"], s["dst"]) for s in apps.tcp_segments(pcap)}


def test_snat_rewrites_and_restores(rig, tmp_path):
    vm, out = rig.vm(1), rig.out_ns
    pcap = tmp_path / "out.pcap"
    with apps.capture(out, "vx0", pcap, bpf="tcp port 5020"):
        apps.tcp_transfer(vm.ns, out, OUT_IP, 256 * KB, port=5020,
                          direction="download")
    seen = wire_addresses(pcap)
    # translated both ways on the outside: vm1's own address never shows
    assert seen == {(PUB, OUT_IP), (OUT_IP, PUB)}, seen
    p = apps.ping(vm.ns, OUT_IP, count=2, interval=0.1)
    assert p["received"] == 2, p["output"]
    u = apps.udp_echo(vm.ns, out, OUT_IP, count=3, size=300, port=5022)
    assert u["received"] == 3, u

    dump = conns(rig)
    tcp = [l for l in dump if l.startswith(
        "tcp,orig=(src=%s,dst=%s," % (VM1, OUT_IP)) and "dport=5020)" in l]
    # OVS's line for an SNATed session: the reply goes to the public
    # address
    assert len(tcp) == 1 and (
        "reply=(src=%s,dst=%s,sport=5020," % (OUT_IP, PUB)) in tcp[0] and \
        "zone=1" in tcp[0], dump
    assert any(l.startswith("icmp,orig=(src=%s,dst=%s" % (VM1, OUT_IP)) and
               "reply=(src=%s,dst=%s" % (OUT_IP, PUB) in l for l in dump), dump
    assert any(l.startswith("udp,orig=(src=%s,dst=%s" % (VM1, OUT_IP)) and
               "reply=(src=%s,dst=%s" % (OUT_IP, PUB) in l for l in dump), dump
    st = rig.sw.ctl("dpctl/ct-stats-show", json=True)
    assert st["refused_nat"] == 0 and st["n_conns"] == len(dump), st

    # nothing the outside opens reaches vm1, by either address
    drops_before = sum(rig.drops().values())
    for ip in (PUB, VM1):
        c = apps.tcp_connect(out, ip, 5555, timeout=1)
        assert c["result"] == "timeout", (ip, c)
    reason = "sg_deny" if rig.form == "sg" else "rule_drop"
    assert rig.drops().get(reason, 0) >= 2, rig.drops()
    assert sum(rig.drops().values()) >= drops_before + 2
    assert len(conns(rig)) == len(dump), conns(rig)

    if rig.form == "ct":
        text = rig.sw.ctl("dpctl/dump-flows")
        # the new connection's commit carries its NAT, its mark and the
        # zone of reg6 (frozen across ct(table=10)); the recirculated
        # passes match the rewritten headers and OVS's NAT bits
        assert ("ct(commit,zone=1,mark=0x1/0xffffffff,nat(src=%s))" % PUB
                in text), text
        assert re.search(r"ct\(zone=1,nat\),recirc\(0x[0-9a-f]+\)", text), \
            text
        assert "+snat" in text and "+dnat" in text, text
        # the SNATed sessions vm1 opened are marked
        assert all("mark=1" in l for l in dump
                   if "orig=(src=%s," % VM1 in l), dump
    else:
        text = rig.sw.ctl("dpctl/dump-flows")
        assert "sg(allow,zone=1,nat(src=%s))" % PUB in text, text
        assert "sg(deny,zone=1,nat)" in text, text
        assert rig.drops().get("recirc_limit", 0) == 0


def test_dnat_service(rig, tmp_path):
    vm, out = rig.vm(1), rig.out_ns
    pcap = tmp_path / "out.pcap"
    with apps.capture(out, "vx0", pcap, bpf="tcp port 5021"):
        apps.tcp_transfer(out, vm.ns, SVC, 256 * KB, port=5021,
                          direction="upload")
    seen = wire_addresses(pcap)
    assert seen == {(OUT_IP, SVC), (SVC, OUT_IP)}, seen
    dump = conns(rig)
    tcp = [l for l in dump if l.startswith(
        "tcp,orig=(src=%s,dst=%s," % (OUT_IP, SVC))]
    # the reply tuple comes from the VM's address
    assert len(tcp) == 1 and (
        "reply=(src=%s,dst=%s,sport=5021," % (VM1, OUT_IP)) in tcp[0], dump


def udp_sources(pcap):
    """{(src, sport)} of the IPv4/UDP datagrams of an Ethernet capture."""
    out = set()
    for f in apps.read_pcap_raw(pcap):
        if len(f) < 14 + 20 + 8 or f[12:14] != b"\x08\x00" or f[23] != 17:
            continue
        u = 14 + (f[14] & 0x0F) * 4
        out.add((".".join(map(str, f[26:30])), int.from_bytes(f[u:u + 2],
                                                              "big")))
    return out


def test_nat_range_exhausted(rig, tmp_path):
    """A nat() range of one address and one port holds one session. The
    second connection vm1 opens cannot be translated (refused_nat): sg()
    drops it (sg_refused), so vm1's own address never leaves; ct(commit,
    nat) lets it go on +trk+new and untranslated, as OVS's tracker does,
    and the policy's +new rule sends it out with vm1's address."""
    vm, out = rig.vm(1), rig.out_ns
    one = "nat(src=%s:40000)" % PUB
    tail = "set_tunnel:1001,set_field:172.1.0.1->tun_dst,output:vxlan"
    if rig.form == "sg":
        rig.sw.ctl("add-flow", "priority=90,ip,in_port=vm1,dl_src="
                   "52:54:00:12:00:11,nw_src=192.1.0.11,actions=sg(allow,"
                   "zone=1,%s),%s" % (one, tail))
    else:
        rig.sw.ctl("add-flow", "table=10,priority=100,ct_state=+trk+new,ip,"
                   "in_port=vm1,actions=ct(commit,zone=NXM_NX_REG6[0..15],"
                   "%s,exec(set_field:0x1->ct_mark)),%s" % (one, tail))
    pcap = tmp_path / "out.pcap"
    before = rig.drops().get("sg_refused", 0)
    with apps.capture(out, "vx0", pcap, bpf="udp port 5030"):
        rx = apps.udp_receiver(out, 5030, 4, 3)
        apps.udp_send(vm.ns, 6001, OUT_IP, 5030, count=2)
        apps.udp_send(vm.ns, 6002, OUT_IP, 5030, count=2)
        got = rx.result(10)
    st = rig.sw.ctl("dpctl/ct-stats-show", json=True)
    assert st["refused_nat"] == 2, st
    seen = udp_sources(pcap)
    refused = rig.drops().get("sg_refused", 0) - before
    if rig.form == "sg":
        assert seen == {(PUB, 40000)}, seen
        assert refused == 2, rig.drops()
        assert got["received"] == 2, got
    else:
        assert seen == {(PUB, 40000), (VM1, 6002)}, seen
        assert refused == 0, rig.drops()
        assert got["received"] >= 2, got
    udp = [l for l in conns(rig) if l.startswith("udp,")]
    assert len(udp) == 1 and "sport=6001" in udp[0] and \
        "reply=(src=%s,dst=%s,sport=5030,dport=40000)" % (OUT_IP, PUB) \
        in udp[0], udp
