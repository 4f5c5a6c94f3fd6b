# SPDX-License-Identifier: BSD-3-Clause
"""IPv4 fragments through the connection tracker (issue 23: OVS 3.1's
ipf; IPv6 fragments: test_kernel_vtep_ipv6.py), on the real-TCP rig (netns_rig.py: VMs are namespaces on net_tap
ports behind the security group, the outside is the kernel's VXLAN
device). The group is "allow egress, deny ingress", written with sg()
(one pass) and with Neutron's ct() tables (ct(table=), recirculation):

  test_ping_3000: `ping -s 3000` from a VM: each echo request leaves the
    VM's stack in 3 fragments, each reply comes back in 3; the switch
    holds them until their datagram is whole, tracks the reassembled
    packet (+new out, +est+rpl back) and forwards the fragments
    themselves; dpctl/ipf-get-status counts them accepted and completed,
    and holds none after; not one packet dropped;
  test_udp_64k: a 65000-byte UDP datagram from the VM to an echo server
    outside and back (46 fragments each way, more than a burst): echoed
    byte for byte;
  test_ingress_fragments_refused: the outside's fragmented pings to the
    VM open nothing: every fragment dropped, counted once, no session;
  test_commands (sg only): OVS's dpctl/ipf-* commands and status text,
    both families (v6 on by default, min-frag 1280, OVS's bounds);
    reassembly off makes fragments +inv again (the pings fail), on again
    they pass.

After each test the rig checks that every packet received ended in one
counter (the held term included: fragments the store holds) and that no
mbuf leaked; here also that the store is empty (held summed over the
PMDs == 0 == num frag).
"""

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from vxswitch_tools import netns_apps as apps
from vxswitch_tools import netns_rig
from vxswitch_tools.netns_rig import OUT_IP
from vxswitch_tools.procs import wait_for

POLICIES = Path(__file__).with_name("policies")


@dataclass
class Policy:
    name: str
    path: Path
    deny: str       # the counter of a new packet the group refuses


SG = Policy("sg", POLICIES / "sg_allow_egress.flows", "sg_deny")
CT = Policy("ct", POLICIES / "ct_allow_egress.flows", "rule_drop")


@pytest.fixture(params=[SG, CT], ids=lambda p: p.name)
def policy(request):
    return request.param


@pytest.fixture
def rig(request, make_switch, policy):
    yield from netns_rig.for_test(request, make_switch, policy=policy.path)


@pytest.fixture
def sg_rig(request, make_switch):
    yield from netns_rig.for_test(request, make_switch, policy=SG.path)


def status(rig):
    return rig.sw.ctl("dpctl/ipf-get-status", json=True)


def held_by_pmds(rig):
    return sum(st["accounting"]["held"] for st in
               rig.sw.ctl("dpif-netdev/pmd-stats-show", json=True))


def assert_store_empty(rig):
    """Nothing held: by the store's count and by the PMDs' accounting."""
    wait_for(lambda: status(rig)["nfrag"] == 0, 5, 0.1,
             lambda: "fragments held: %s" % status(rig))
    assert held_by_pmds(rig) == 0, rig.sw.ctl("dpif-netdev/pmd-stats-show")


def test_ping_3000(rig, policy):
    vm = rig.vm(1)
    before = status(rig)["v4"]
    p = apps.ping(vm.ns, OUT_IP, count=3, size=3000)
    assert p["received"] == 3, p["output"]
    v4 = status(rig)["v4"]
    # 3 requests and 3 replies of 3 fragments each (at least: the VM's
    # stack may resend)
    accepted = v4["accepted"] - before["accepted"]
    assert accepted >= 18, v4
    assert v4["completed"] - before["completed"] == accepted, v4
    assert all(v4[k] == before[k] for k in
               ("expired", "too_small", "overlap", "invalid", "malformed",
                "refused_full", "refused_zone")), v4
    assert any(ln.startswith("icmp,orig=(src=%s,dst=%s" % (vm.ip, OUT_IP))
               for ln in rig.sw.ctl("dpctl/dump-conntrack",
                                    "zone=1").splitlines())
    assert rig.drops() == {}, rig.drops()
    assert_store_empty(rig)


def test_udp_64k(rig, policy):
    vm = rig.vm(1)
    before = status(rig)["v4"]
    u = apps.udp_echo(vm.ns, rig.out_ns, OUT_IP, count=3, size=65000,
                      timeout=2.0)
    assert u == dict(u, sent=3, received=3, bad=0), u
    v4 = status(rig)["v4"]
    # 65008 bytes of UDP in 1424-byte pieces (MTU 1450): 46 a datagram
    assert v4["accepted"] - before["accepted"] >= 3 * 46 * 2, v4
    assert v4["completed"] - before["completed"] == \
        v4["accepted"] - before["accepted"], v4
    assert rig.drops() == {}, rig.drops()
    assert_store_empty(rig)


def test_ingress_fragments_refused(rig, policy):
    vm = rig.vm(1)
    before = rig.drops()
    p = apps.ping(rig.out_ns, vm.ip, count=2, size=3000, wait=1)
    assert p["transmitted"] == 2 and p["received"] == 0, p["output"]
    after = rig.drops()
    moved = {k: after.get(k, 0) - before.get(k, 0) for k in after
             if after.get(k, 0) != before.get(k, 0)}
    # each echo request's 3 fragments, judged as their datagram
    assert moved == {policy.deny: 6}, moved
    assert not [ln for ln in rig.sw.ctl("dpctl/dump-conntrack").splitlines()
                if "src=%s,dst=%s" % (OUT_IP, vm.ip) in ln]
    assert_store_empty(rig)


OVS_STATUS = [
    r"        Fragmentation Module Status",
    r"        ---------------------------",
    r"        v4 enabled: [01]",
    r"        v6 enabled: [01]",
    r"        max num frags \(v4/v6\): \d+",
    r"        num frag: \d+",
    r"        min v4 frag size: \d+",
] + [r"        v4 frags %s: \d+" % c for c in
     ("accepted", "completed", "expired", "too small", "overlapped",
      "purged")] + [r"        min v6 frag size: \d+"] + \
    [r"        v6 frags %s: \d+" % c for c in
     ("accepted", "completed", "expired", "too small", "overlapped",
      "purged")]


def test_commands(sg_rig):
    rig, vm = sg_rig, sg_rig.vm(1)
    ctl = rig.sw.ctl
    lines = ctl("dpctl/ipf-get-status").splitlines()
    assert len(lines) == len(OVS_STATUS), lines
    for ln, pat in zip(lines, OVS_STATUS):
        assert re.fullmatch(pat, ln), (ln, pat)
    assert "        v4 enabled: 1" in lines
    assert "        v6 enabled: 1" in lines     # OVS's default too
    assert "        min v6 frag size: 1280" in lines
    assert "        max num frags (v4/v6): 1000" in lines
    assert "        min v4 frag size: 1200" in lines

    assert ctl("dpctl/ipf-set-min-frag", "v4", "1000").strip() == \
        "setting minimum fragment size successful"
    assert ctl("dpctl/ipf-set-max-nfrags", "netdev@ovs-netdev",
               "500").strip() == "setting maximum fragments successful"
    st = status(rig)
    assert st["min_v4_frag_size"] == 1000 and st["max_nfrags"] == 500, st
    # OVS's bounds: min-frag >= 400, max-nfrags <= 5000
    r = rig.sw.ctl_result("dpctl/ipf-set-min-frag", "v4", "399")
    assert r.returncode != 0 and "too small" in r.stdout + r.stderr, r
    r = rig.sw.ctl_result("dpctl/ipf-set-max-nfrags", "5001")
    assert r.returncode != 0 and "maximum fragments failed" in \
        r.stdout + r.stderr, r
    # IPv6's: OVS's lower bound (400) too, its own setting
    r = rig.sw.ctl_result("dpctl/ipf-set-min-frag", "v6", "399")
    assert r.returncode != 0 and "at least 400" in r.stdout + r.stderr, r
    assert ctl("dpctl/ipf-set-min-frag", "v6", "1300").strip() == \
        "setting minimum fragment size successful"
    assert ctl("dpctl/ipf-set-disabled", "v6").startswith("disabling")
    st = status(rig)
    assert st["min_v6_frag_size"] == 1300 and not st["v6_enabled"] and \
        st["v4_enabled"] and st["min_v4_frag_size"] == 1000, st
    assert ctl("dpctl/ipf-set-enabled", "v6").strip() == \
        "enabling fragmentation reassembly successful"
    assert ctl("dpctl/ipf-set-min-frag", "v6", "1280").startswith("setting")

    # off: fragments reach the tracker unassembled, +inv, as before
    assert ctl("dpctl/ipf-set-enabled", "v4", "0").strip() == \
        "disabling fragmentation reassembly successful"
    before = rig.drops().get("sg_invalid", 0)
    p = apps.ping(vm.ns, OUT_IP, count=1, size=3000, wait=1)
    assert p["received"] == 0, p["output"]
    assert rig.drops().get("sg_invalid", 0) - before == 3
    # on again (OVS's form, no 0|1): they pass
    assert ctl("dpctl/ipf-set-enabled", "v4").strip() == \
        "enabling fragmentation reassembly successful"
    assert apps.ping(vm.ns, OUT_IP, count=2, size=3000)["received"] == 2
    more = ctl("dpctl/ipf-get-status", "-m")
    assert "        Fragment Lists:" in more and \
        "        max frags per zone: 70" in more, more
    assert ctl("dpctl/ipf-set-disabled", "v4").startswith("disabling")
    assert ctl("dpctl/ipf-set-enabled", "v4", "1").startswith("enabling")
    assert_store_empty(rig)
