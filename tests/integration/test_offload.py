# SPDX-License-Identifier: BSD-3-Clause
"""Partial offload through the software Flow Director model (issue 4).

With `offload: model` on the underlay port the switch attaches the model
to its NIC (an ethdev rx callback marks received frames exactly as an E810
would) and runs the offload thread: the first frame of each inner megaflow
behind a tnl_pop (in_port=vxlan, tun_id, ip, nw_dst) takes the slow path,
the offload thread installs eth/ipv4/udp/vxlan(vni)/eth/ipv4(dst) + MARK,
and later frames arrive marked and skip parse and lookup (mark_hits).

The rig is vxswitch_tools.offload_rig (conftest's offload_rig_factory), on
test_forwarding's: the NIC is net_af_packet on a veth (pktlib.Wire), the VMs
one testpmd in macswap, so every frame delivered to VM i comes back in VXLAN
and the bytes can be compared.

  - offloaded and software runs of the same frames give the same bytes
    (but the outer IP id and checksum) and the same counters; the model
    run installs one rule per inner megaflow and its second wave takes the
    mark path entirely;
  - a full table (guaranteed 1, pool 0) leaves the rest in software,
    counted as 'capacity', and nothing is lost;
  - a rule change revalidates the offloaded megaflow away: its NIC rule
    goes, and frames still carrying the old mark stop using its actions at
    once; removing the rule brings traffic and the offload back;
  - a megaflow whose inner nw_dst is a prefix is not canonical for the
    Flow Director and stays in software;
  - with 2 PMDs, one per NIC rx queue, a VM's inner megaflow exists on
    both: one NIC rule, its mark in both PMDs' megaflows; it stays while
    one of them holds it and goes with the last;
  - a port without rte_flow: the start-up probe turns offload off, and
    offload/show says why (the rest of issue 14's start-up and collisions:
    test_offload_probe.py).
"""
import re
import time

from scapy.layers.inet import IP
from scapy.layers.l2 import Ether
from scapy.layers.vxlan import VXLAN

from vxswitch_tools import packets as pktlib
from vxswitch_tools import harness as vxlib
from vxswitch_tools.addressing import SEED
from vxswitch_tools.forwarding_rig import (IN_FLIGHT_S, RECV_TIMEOUT, Stream,
                                          seq_of)
from vxswitch_tools.offload_rig import (FAIL_REASONS, MODEL,
                                       check_offload_show, to_vms)

DROP_VM0 = "priority=40000,in_port=vxlan,ip,nw_dst=192.1.0.0,actions=drop"
DROP_VM0_MATCH = DROP_VM0.split(",actions")[0]
STREAM_GAP = 0.0001


def traffic(port_delta):
    """The packet and byte counts of a port's counter delta."""
    return {k: v for k, v in port_delta.items()
            if k.endswith(("_packets", "_bytes", "_dropped"))}


# ------------------------------------------------------------------ rig

# --------------------------------------------------------------- tests

def test_offloaded_and_software_give_the_same_bytes(offload_rig_factory):
    """The same frames (2 VMs, 4 inner flows each, 3 times each) in two
    waves through a switch without offload and one with the model: the
    same bytes come back and the same counters move; with the model the
    first wave installs one rule per inner megaflow (2, distinct marks)
    and the whole second wave takes the mark path."""
    frames, per_vm = to_vms(2, 4, 3)
    n = len(frames)
    runs = {}
    for mode in ("software", "model"):
        rig = offload_rig_factory(2,
                                  phy=MODEL if mode == "model" else None,
                                  tag=mode[0])
        w1, d1 = rig.wave(frames, n)
        if mode == "model":
            st, off = rig.wait_installed(2, "after the first wave ")
            check_offload_show(st, 2, text=rig.sw.ctl("offload/show"))
            marks = {}
            for vm in range(2):
                mf = rig.inner(vm)
                assert len(mf) == 1 and mf[0]["offloaded"], mf
                assert "tun_id=0x3e9" in mf[0]["match"], mf
                marks[vm] = mf[0]["mark"]
            assert sorted(f["mark"] for f in off) == sorted(marks.values())
            assert len(set(marks.values())) == 2 and 0 not in \
                marks.values() and 0xFFFFFFFF not in marks.values(), marks
            text = rig.sw.ctl("dpctl/dump-flows", "-m")
            assert text.count("offloaded:partial") == 2, text
            for vm, m in marks.items():
                line = [ln for ln in text.splitlines()
                        if "offloaded:partial, mark:%d" % m in ln]
                assert len(line) == 1, (vm, m, text)
                assert "in_port(vxlan)" in line[0] and \
                    "vhost-user%d" % vm in line[0], (vm, m, text)
            # every frame of the second wave arrives marked
            assert d1["pmd"]["mark_hits"] <= n - 2, d1["pmd"]
        else:
            assert not any(f["offloaded"] for f in rig.megaflows())
        w2, d2 = rig.wave(frames, n)
        want_hits = n if mode == "model" else 0
        assert d2["pmd"]["mark_hits"] == want_hits, (mode, d2["pmd"])
        if mode == "software":
            assert d1["pmd"]["mark_hits"] == 0, d1["pmd"]
        else:
            check_offload_show(rig.offload(), 2)    # nothing new
        for d in (d1, d2):
            assert not any(d["drops"].values()), (mode, d["drops"])
            for vm, k in per_vm.items():
                vp = d["ports"]["vhost-user%d" % vm]
                assert vp["tx_packets"] == vp["rx_packets"] == k, (mode, vp)
        assert w1 == w2, "%s: the two waves differ" % mode
        # the mark path counts like the full path
        mf = {vm: [(f["packets"], f["bytes"]) for f in rig.inner(vm)]
              for vm in range(2)}
        for vm, k in per_vm.items():
            assert len(mf[vm]) == 1 and mf[vm][0][0] == 2 * k, (mode, mf)
        rules = {r["rule"]: (r["n_packets"], r["n_bytes"])
                 for r in rig.sw.ctl("dump-flows", json=True)}
        runs[mode] = {"w1": w1, "w2": w2, "megaflows": mf, "rules": rules,
                      "vhost": [traffic(d["ports"]["vhost-user%d" % vm])
                                for d in (d1, d2) for vm in range(2)]}
        if mode == "software":
            rig.close()

    sw, hw = runs["software"], runs["model"]
    assert len(sw["w1"]) == n and all(Ether(b).haslayer(VXLAN)
                                      for b in sw["w1"])
    assert hw["w1"] == sw["w1"], "first wave: output differs with offload"
    assert hw["w2"] == sw["w2"], "second wave (marked): output differs"
    assert hw["megaflows"] == sw["megaflows"]
    assert hw["rules"] == sw["rules"]
    assert hw["vhost"] == sw["vhost"]


def test_capacity_exhausted_stays_in_software(offload_rig_factory):
    """A table of one filter (guaranteed 1, no pool) and 3 VMs, first-come
    admission (`offload-admission: fifo`): one inner megaflow is
    offloaded, the other two fail as 'capacity' and run in software; every
    frame still comes back and the counters are exact, also after more
    traffic (no retries). (By weight, the default, the two wait as
    candidates instead: test_offload_admission.py.)"""
    rig = offload_rig_factory(3, phy=dict(MODEL, **{
        "offload-guaranteed": 1, "offload-pool": 0,
        "offload-admission": "fifo"}))
    frames, per_vm = to_vms(3, 2, 2)
    n = len(frames)
    _, d1 = rig.wave(frames, n)
    failed = {"capacity": 2}

    def two_failed():
        st = rig.offload()
        return st if st["failed"]["capacity"] >= 2 else None
    vxlib.wait_for(two_failed, 10, 0.05, "2 capacity failures")
    st, off = rig.wait_installed(1)
    check_offload_show(st, 1, failed, text=rig.sw.ctl("offload/show"))
    assert len(off) == 1 and "in_port(vxlan)" in off[0]["match"], off
    hw_vm = int(re.fullmatch(r"vhost-user(\d)", off[0]["actions"]).group(1))
    for vm in range(3):
        mf = rig.inner(vm)
        assert len(mf) == 1 and mf[0]["offloaded"] == (vm == hw_vm), mf

    _, d2 = rig.wave(frames, n)
    assert d2["pmd"]["mark_hits"] == per_vm[hw_vm], d2["pmd"]
    for d in (d1, d2):
        assert not any(d["drops"].values()), d["drops"]
        for vm, k in per_vm.items():
            vp = d["ports"]["vhost-user%d" % vm]
            assert vp["tx_packets"] == vp["rx_packets"] == k, (vm, vp)
    time.sleep(0.3)
    check_offload_show(rig.offload(), 1, failed)
    for vm, k in per_vm.items():
        mf = rig.inner(vm)
        assert len(mf) == 1 and mf[0]["packets"] == 2 * k, mf
        assert mf[0]["offloaded"] == (vm == hw_vm), mf


def test_rule_change_removes_the_nic_rule(offload_rig_factory):
    """A drop rule over VM 0's offloaded megaflow: the megaflow is
    revalidated away and its NIC rule destroyed; frames to VM 0 are
    dropped (rule_drop), VM 1's still take the mark path. Under a live
    stream, every frame sent after add-flow returned is dropped, although
    the NIC still marks the first of them with the old mark. Deleting the
    rule (--strict) brings VM 0's traffic and its offload back."""
    rig = offload_rig_factory(2, phy=MODEL)
    sw = rig.sw
    frames, per_vm = to_vms(2, 2, 2)
    n = len(frames)
    vm0 = [f for f in frames if pktlib.is_vxlan(f) and
           Ether(f)[VXLAN].payload[IP].dst == SEED.ip(0)]
    vm1 = [f for f in frames if f not in vm0]
    assert len(vm0) == per_vm[0] and len(vm1) == per_vm[1]

    def offload_both(what):
        rig.wave(frames, n)
        st, off = rig.wait_installed(2, what)
        check_offload_show(st, 2)
        (m0,) = rig.inner(0)
        assert m0["offloaded"], m0
        _, d = rig.wave(frames, n)
        assert d["pmd"]["mark_hits"] == n, d["pmd"]
        return m0["mark"]

    def drop_rule_in_place(what):
        rules = [r["rule"] for r in sw.ctl("dump-flows", json=True)]
        assert sum(r.startswith("priority=40000") for r in rules) == 1, \
            (what, rules)

    def vm0_revalidated_away(what):
        assert not rig.inner(0), (what, rig.megaflows())
        (m1,) = rig.inner(1)
        assert m1["offloaded"], (what, m1)

    offload_both("at first ")

    # A. the rule change alone (no traffic): VM 0's NIC rule goes
    sw.ctl("add-flow", DROP_VM0)
    drop_rule_in_place("A")
    st, off = rig.wait_installed(1, "after add-flow (VM 0's rule "
                                 "destroyed) ")
    check_offload_show(st, 1)
    vm0_revalidated_away("A")
    _, d = rig.wave(vm0 + vm1, len(vm1), drops=len(vm0))
    assert d["drops"]["rule_drop"] == len(vm0), d["drops"]
    assert sum(d["drops"].values()) == len(vm0), d["drops"]
    assert d["ports"]["vhost-user0"]["tx_packets"] == 0, d["ports"]
    # VM 1's frames all marked; VM 0's not by the old rule (gone), only
    # perhaps by one for the new drop megaflow, after its first frame
    assert len(vm1) <= d["pmd"]["mark_hits"] < n, d["pmd"]
    assert sw.ctl("del-flows", "--strict", DROP_VM0_MATCH).strip() == \
        "1 flows deleted"
    offload_both("after del-flows --strict ")

    # B. the rule change under a live stream to VM 0 (marked frames)
    def vm0_rule_packets():
        (r,) = [r for r in sw.ctl("dump-flows", json=True)
                if re.search(r"nw_dst=192\.1\.0\.0\b", r["rule"])
                and "vhost-user0" in r["rule"]]
        return r["n_packets"]

    rig.wire.flush()
    before = rig.counters()
    rule_before = vm0_rule_packets()
    # back to back: frames the PMD takes in after its revalidation but
    # before the offload thread removed the NIC rule carry the old mark
    with Stream(rig.wire, gap=STREAM_GAP) as stream:
        start = pktlib.pmd_stats(sw)["mark_hits"]
        vxlib.wait_for(lambda: pktlib.pmd_stats(sw)["mark_hits"] >=
                       start + 30, 20, 0.05, "30 marked stream frames")
        t0 = time.monotonic()
        sw.ctl("add-flow", DROP_VM0)
        first_after = stream.sent + 1
        vxlib.wait_for(lambda: stream.sent > first_after + 200, 20, 0.02,
                       "200 more frames sent")
        n_sent = stream.stop()
    got = rig.wire.recv(None, timeout=RECV_TIMEOUT, quiet=0.5,
                        match=pktlib.is_vxlan)
    seqs = sorted(seq_of(b) for b in got)
    late = [s for s in seqs if s >= first_after]
    assert not late, ("%d frames sent after add-flow returned reached VM 0 "
                      "(first after: %d): %s" % (len(late), first_after,
                                                 late[:20]))
    early = [s for s in range(first_after)
             if stream.times[s] < t0 - IN_FLIGHT_S]
    assert set(early) <= set(seqs), sorted(set(early) - set(seqs))[:20]

    def settled():
        d = pktlib.counter_delta(before, rig.counters())
        rx = d["ports"]["dpdk-phy"]["rx_packets"]
        vm_tx = d["ports"]["vhost-user0"]["tx_packets"]
        return d if rx == n_sent and \
            d["drops"].get("rule_drop", 0) == n_sent - vm_tx else None
    d = vxlib.wait_for(settled, 10, 0.1, "stream counters to settle")
    assert sum(d["drops"].values()) == d["drops"]["rule_drop"], d["drops"]
    assert d["ports"]["vhost-user0"]["tx_packets"] == len(seqs), d["ports"]
    # a frame that took a stale mark to the retired megaflow would reach
    # VM 0 uncounted by its rule (the megaflow's counts were credited to
    # the rule when it was retired)
    assert vm0_rule_packets() - rule_before == len(seqs), (
        vm0_rule_packets(), rule_before, len(seqs))
    drop_rule_in_place("B")
    vm0_revalidated_away("B")
    st = rig.offload()
    assert st["installed"] == sum(f["offloaded"] for f in rig.megaflows()), \
        (st, rig.megaflows())
    assert sw.ctl("del-flows", "--strict", DROP_VM0_MATCH).strip() == \
        "1 flows deleted"
    offload_both("after the second del-flows --strict ")


def test_prefix_megaflow_stays_in_software(offload_rig_factory):
    """VM 1's rule matches an inner prefix (192.1.0.2/31, ranked above VM
    0's exact rule so that its megaflow keeps the prefix): the Flow
    Director has no prefix match, so that megaflow is not offloaded (failed
    not_canonical, or never asked) while VM 0's is; both VMs' traffic
    still comes back."""
    push = pktlib.vm_flows(1)[0]
    flows = pktlib.vm_flows(0) + [
        push, "priority=40000,in_port=vxlan,ip,nw_dst=192.1.0.2/31,"
        "actions=output:vhost-user1"]
    rig = offload_rig_factory(2, phy=MODEL, flows=flows)
    frames, per_vm = to_vms(1, 3, 2)
    for k, dst in enumerate(("192.1.0.2", "192.1.0.3") * 2):
        inner = pktlib.inner_frame(1, dst_ip=dst, sport=42000 + k, size=78)
        frames += [pktlib.vxlan_frame(inner, sport=50000 + k)] * 2
    per_vm[1] = len(frames) - per_vm[0]
    n = len(frames)
    _, d1 = rig.wave(frames, n)
    st, off = rig.wait_installed(1)
    time.sleep(0.3)             # a request for VM 1 would be answered
    st = rig.offload()
    nc = st["failed"]["not_canonical"]
    assert nc in (0, 1), st
    check_offload_show(st, 1, {"not_canonical": nc})
    (m0,) = rig.inner(0)
    assert m0["offloaded"], m0
    m1 = rig.inner(1)
    assert len(m1) == 1, m1         # one megaflow for .2 and .3: a prefix
    assert not m1[0]["offloaded"] and m1[0]["mark"] == 0, m1
    assert "tun_id=0x3e9" in m1[0]["match"], m1

    _, d2 = rig.wave(frames, n)
    assert d2["pmd"]["mark_hits"] == per_vm[0], d2["pmd"]
    for d in (d1, d2):
        assert not any(d["drops"].values()), d["drops"]
        for vm, k in per_vm.items():
            vp = d["ports"]["vhost-user%d" % vm]
            assert vp["tx_packets"] == vp["rx_packets"] == k, (vm, vp)
    st = rig.offload()
    assert st["failed"]["not_canonical"] == nc, st      # not asked again
    check_offload_show(st, 1, {"not_canonical": nc})


def test_port_without_rte_flow_runs_in_software(offload_rig_factory):
    """`offload: rte_flow` on a NIC whose driver has no rte_flow
    (net_af_packet): the start-up probe's rte_flow_validate refuses the
    VXLAN rule with group 0 and with group 2, so offload is off for the
    port and offload/show (and the log) says why; the tunnel port's
    refusal and the metadata negotiation are shown too. Nothing is asked,
    installed or marked, and all the traffic comes back as it does
    without offload."""
    rig = offload_rig_factory(2, phy={"offload": "rte_flow"})
    st = rig.offload()
    nosys = "Function not implemented"     # rte_flow_validate: ENOSYS
    want_off = ("no FDIR group: group 0 refused: %s; group 2 refused: %s"
                % (nosys, nosys))
    assert (st["engine"], st["active"], st["off_reason"], st["group"],
            st["model_profile"]) == ("rte_flow", False, want_off, None,
                                     None), st
    # net_af_packet has no udp_tunnel_port_add and no metadata op
    assert st["tunnel_port"] == {"port": 4789, "registered": False,
                                 "error": "Operation not supported"}, st
    assert st["rx_metadata"] == ("not supported by the driver (marks "
                                 "delivered as is)"), st
    text = rig.sw.ctl("offload/show")
    for line in ("offload engine: rte_flow", "  offload off: " + want_off,
                 "  tunnel port 4789: refused: Operation not supported "
                 "(errno 95)"):
        assert line in text.splitlines(), (line, text)
    assert "offload: dpdk-phy: offload off (%s); flows stay in software" \
        % want_off in rig.sw.log_tail(400), rig.sw.log_tail(40)
    frames, per_vm = to_vms(2, 3, 2)
    n = len(frames)
    _, d1 = rig.wave(frames, n)
    st = rig.offload()
    assert st["installed"] == 0 and st["marks_in_use"] == 0, st
    assert st["requests"] == 0, st     # no offload thread: nothing asked
    assert st["failed"] == dict.fromkeys(FAIL_REASONS, 0), st
    _, d2 = rig.wave(frames, n)
    for d in (d1, d2):
        assert d["pmd"]["mark_hits"] == 0, d["pmd"]
        assert not any(d["drops"].values()), d["drops"]
        for vm, k in per_vm.items():
            vp = d["ports"]["vhost-user%d" % vm]
            assert vp["tx_packets"] == vp["rx_packets"] == k, (vm, vp)
    assert not any(f["offloaded"] for f in rig.megaflows())
    assert rig.offload()["requests"] == 0
    rig.close()


# ------------------------------------------------------- two PMDs

IDLE_MS = 1500      # datapath.flow-max-idle-ms of the 2-PMD rig


def two_pmds(topo):
    """2 PMDs on this 2-core host (lcores 1 and 2 share CPU 1, idle
    back-off on), each polling one of the NIC's 2 rx queues (af_packet
    qpairs=2: the kernel spreads frames by a hash of the outer flow);
    megaflows idle for IDLE_MS expire."""
    topo["eal"]["lcores"] = "0,(1-2)@1"
    # both PMDs have a pinned NIC queue: with OVS's default isolation
    # neither would take the guest's queue (OVS leaves it unpolled)
    topo["datapath"].update({"pmd-cores": [1, 2],
                             "pmd-rxq-assign": "group",
                             "pmd-rxq-isolate": False,
                             "optimisations": {"idle-backoff": True},
                             "flow-max-idle-ms": IDLE_MS})
    phy = topo["ports"][-1]
    phy["devargs"] = phy["devargs"].replace("qpairs=1", "qpairs=2")
    phy.update({"n-rxq": 2, "rxq-affinity": "0:1,1:2"})


def per_pmd(sw):
    """{core: pmd-stats-show --json of that PMD}."""
    return {p["core"]: p
            for p in sw.ctl("dpif-netdev/pmd-stats-show", json=True)}


def test_megaflow_on_two_pmds_shares_one_nic_rule(offload_rig_factory):
    """VM 0's flows arrive on both rx queues, so PMD 1 and PMD 2 each make
    an inner megaflow of the same pattern: the offload thread installs one
    NIC rule (no 'exists' failure), both megaflows show its mark, and both
    PMDs take the mark path. When PMD 2's megaflow expires (its queue idle)
    the rule stays and PMD 1's frames are still marked; PMD 2's next frames
    arrive marked with a mark it no longer holds, take the full path
    (mark_fallbacks) and come back, and its new megaflow joins the rule.
    When both megaflows have expired the rule is gone and its mark free."""
    rig = offload_rig_factory(1, phy=MODEL, edit=two_pmds)
    sw = rig.sw

    def inner_by_pmd():
        return {f["pmd"]: f for f in rig.inner(0)}

    # which queue (PMD) each flow hashes to: one frame at a time, seen as
    # one more packet on that PMD's megaflow
    flows = [pktlib.vxlan_to_vm(0, sport=41000 + k) for k in range(12)]
    by_pmd = {}
    for f in flows:
        before = {c: mf["packets"] for c, mf in inner_by_pmd().items()}
        rig.wire.send([f])

        def moved():
            now = {c: mf["packets"] for c, mf in inner_by_pmd().items()}
            d = [c for c in now if now[c] != before.get(c, 0)]
            return d if sum(now.values()) == sum(before.values()) + 1 \
                else None
        (core,) = vxlib.wait_for(moved, 10, 0.02, "the frame's megaflow")
        by_pmd.setdefault(core, []).append(f)
    assert sorted(by_pmd) == [1, 2], (
        "all 12 flows hashed to one rx queue: %r" % {c: len(v) for c, v in
                                                     by_pmd.items()})
    a, b = by_pmd[1], by_pmd[2]

    def shared_by(cores, what):
        def ok():
            mf = inner_by_pmd()
            marks = {mf[c]["mark"] for c in cores if c in mf}
            return mf if (sorted(mf) == sorted(cores) and
                          all(mf[c]["offloaded"] for c in cores) and
                          len(marks) == 1) else None
        return vxlib.wait_for(ok, 10, 0.05, lambda: "%s: megaflows %r"
                              % (what, rig.inner(0)))

    def offload_is(installed, holders, shared, created, what):
        st = rig.offload()
        assert (st["installed"], st["marks_in_use"], st["holders"],
                st["shared"], st["created"]) == \
            (installed, installed, holders, shared, created), (what, st)
        assert st["failed"] == dict.fromkeys(FAIL_REASONS, 0), (what, st)
        return st

    mf = shared_by([1, 2], "both PMDs' megaflows offloaded, one mark")
    mark = mf[1]["mark"]
    assert mark == mf[2]["mark"] and mark not in (0, 0xFFFFFFFF), mf
    offload_is(1, 2, 1, 1, "one rule for two megaflows")
    text = sw.ctl("offload/show")
    assert re.search(r"holders: 2 megaflows on 1 rules, shared: 1\b",
                     text), text
    assert sw.ctl("dpctl/dump-flows", "-m").count(
        "offloaded:partial, mark:%d" % mark) == 2

    # every frame, on either PMD, takes the mark path
    frames = (a + b) * 2
    before = per_pmd(sw)
    _, d = rig.wave(frames, len(frames))
    after = per_pmd(sw)
    hits = {c: after[c]["mark_hits"] - before[c]["mark_hits"] for c in (1, 2)}
    assert hits == {1: 2 * len(a), 2: 2 * len(b)}, hits
    assert not any(d["drops"].values()), d["drops"]

    # PMD 2's megaflow expires (no frames on its queue), PMD 1's is kept
    # alive: the rule stays, PMD 1's frames are still marked
    def b_gone():
        rig.wire.send(a[:1])
        return 2 not in inner_by_pmd()
    vxlib.wait_for(b_gone, 5 + IDLE_MS / 1000, 0.2,
                   "PMD 2's megaflow to expire")
    mf = shared_by([1], "PMD 1's megaflow still offloaded")
    assert mf[1]["mark"] == mark, mf
    offload_is(1, 1, 1, 1, "PMD 2 let go")
    before = per_pmd(sw)
    rig.wave(a, len(a))
    after = per_pmd(sw)
    assert after[1]["mark_hits"] - before[1]["mark_hits"] == len(a)

    # PMD 2 gets marked frames for a mark it does not hold: full path, and
    # every frame comes back; its new megaflow joins the rule
    frames = a + b
    before = per_pmd(sw)
    _, d = rig.wave(frames, len(frames))
    after = per_pmd(sw)
    # every one of PMD 2's frames came marked: the first ones fall back,
    # those after its new megaflow got the mark hit
    fb, hit = (after[2][k] - before[2][k]
               for k in ("mark_fallbacks", "mark_hits"))
    assert fb >= 1 and fb + hit == len(b), (fb, hit, len(b))
    assert not any(d["drops"].values()), d["drops"]
    assert d["ports"]["vhost-user0"]["tx_packets"] == len(frames), d
    mf = shared_by([1, 2], "PMD 2's new megaflow joined the rule")
    assert mf[2]["mark"] == mark, mf
    offload_is(1, 2, 2, 1, "PMD 2 holds it again")
    before = per_pmd(sw)
    rig.wave(frames, len(frames))
    after = per_pmd(sw)
    hits = {c: after[c]["mark_hits"] - before[c]["mark_hits"] for c in (1, 2)}
    assert hits == {1: len(a), 2: len(b)}, hits

    # no more traffic: both megaflows expire, and the rule goes with the
    # last of them
    vxlib.wait_for(lambda: not rig.inner(0), 5 + IDLE_MS / 1000, 0.1,
                   "both megaflows to expire")
    vxlib.wait_for(lambda: rig.offload()["installed"] == 0, 5, 0.05,
                   lambda: "the rule to go: %r" % rig.offload())
    st = offload_is(0, 0, 2, 1, "no holder left")
    assert st["destroyed"] == 1, st
    rig.close()

