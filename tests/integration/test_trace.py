# SPDX-License-Identifier: BSD-3-Clause
"""The packet trace through the daemon (issue 24, item 3):
`dpif-netdev/trace add|show|clear` (also `trace`), app/control/cmd_trace.c
over app/datapath/dp_trace.h. tests/unit/test_dp_trace.c reads a trace
for each drop reason in process; these run the real switch.

The rig is test_forwarding's (conftest's rig_factory): the NIC a veth
driven by net_af_packet, the test the remote VTEP 172.1.0.0 on the other
end, the VMs one testpmd in macswap, so each VXLAN frame sent comes back
through the VM and is encapsulated again.

  round trip  the VM's port traced for 2 packets, then the NIC's for 2
              more (one trace, added to): the VM side's stages rx,
              extract, upcall then dpcls/emc, tnl_push, output, tx on
              the NIC; the NIC side's rx, outer lookup, tnl_pop, the
              inner pass's lookup, output and tx on the VM's port; every
              field checked against the frames on the wire, the
              megaflows against dpctl/dump-flows
  text        `trace show` and `trace show -m`: lines checked exactly
              (the header, stage names, ports by name with their ofport,
              the bytes as received 16 a line), one line an entry; bash
              completion of the command's words
  drops       no_rule, rule_drop, unknown_vni and not_vtep seen through
              the daemon: each traced packet's last stage is the drop,
              with the reason pmd-stats-show counted
  filter      `trace add dpdk-phy 5 udp,nw_dst=X` takes only the
              matching packets, 5 and no more with more sent; refused
              `trace add`s (unknown port, N 0 or above the room left,
              bad MATCH, a MATCH on metadata, wrong arguments) name the
              problem and change nothing; `trace add` adds to a trace,
              which goes on across set-pmd-cores; `trace clear` then
              `trace show`: no trace
  two PMDs    the NIC's two rx queues on two PMDs: a trace of N packets
              taken by both totals N, each record's PMD the one that
              polls the packet's queue

The conftest checks after each test that no mbuf leaked and every packet
is accounted for (a traced packet is forwarded or dropped as any other).
"""

import collections

from vxswitch_tools import harness as vxlib
from vxswitch_tools import packets as pktlib
from vxswitch_tools.packets import REMOTE_IP, VNI, VTEP_IP

MAX_PKTS = 1024         # DP_TRACE_MAX_PKTS (app/datapath/dp_trace.h)
LOOKUPS = ("emc", "dpcls", "upcall")
NO_TRACE = "no trace: dpif-netdev/trace add PORT N starts one\n"


# -------------------------------------------------------------- helpers

def show(sw):
    """trace show --json."""
    return sw.ctl("trace", "show", json=True)


def stages(pkt):
    return [s["stage"] for s in pkt["stages"]]


def in_order(names, want):
    """True if want is a subsequence of names."""
    it = iter(names)
    return all(w in it for w in want)


def only(pkt, stage, pass_=None):
    """The one entry of that stage (and pass) in pkt's record."""
    got = [s for s in pkt["stages"] if s["stage"] == stage and
           (pass_ is None or s["pass"] == pass_)]
    assert len(got) == 1, (stage, pass_, pkt["stages"])
    return got[0]


def lookup(pkt, pass_):
    (e,) = [s for s in pkt["stages"]
            if s["stage"] in LOOKUPS and s["pass"] == pass_]
    return e


def ufid_id(ufid):
    """A trace's ufid ("00000000-0000-0000-XXXX-XXXXXXXXXXXX") as
    dpctl/dump-flows --json's id."""
    return int(ufid.replace("-", ""), 16)


def ofports(sw):
    return {p["name"]: p["ofport"] for p in sw.ctl("show",
                                                   json=True)["ports"]}


def wait_taken(sw, n, timeout=10):
    """Waits until the trace has taken n records; returns trace show."""
    last = {}

    def ok():
        last["t"] = show(sw)
        return last["t"]["taken"] >= n
    vxlib.wait_for(ok, timeout, 0.05,
                   lambda: "trace to take %d (%s)" % (n, {
                       k: v for k, v in last.get("t", {}).items()
                       if k != "packets"}))
    return last["t"]


def wait_rx(sw, port, n, timeout=10):
    vxlib.wait_for(lambda: sw.port(port)["rx_packets"] >= n, timeout, 0.05,
                   what="%d packets received on %s" % (n, port))


def outer_fields(b):
    """(outer IPv4 dst, UDP source port, VNI) of a VXLAN frame."""
    return (".".join(map(str, b[30:34])), int.from_bytes(b[34:36], "big"),
            int.from_bytes(b[46:49], "big"))


# ---------------------------------------------------------------- tests

def test_vxlan_round_trip_stage_by_stage(rig_factory):
    """Both directions of the VXLAN path, stage by stage, against the
    wire. The VM's port first (2 packets: its first needs an upcall, the
    second hits the megaflow it installed), then, added to the same
    trace, the NIC's (2 more)."""
    rig = rig_factory(1)
    sw = rig.sw
    ofp = ofports(sw)
    assert sw.ctl("trace", "show") == NO_TRACE
    assert show(sw) == {"port": None, "match": "", "limit": 0, "taken": 0,
                        "packets": []}

    assert sw.ctl("trace", "add", "vhost-user0", "2") == \
        "tracing the next 2 packets received on vhost-user0\n"
    sent, wire = [], []
    for k in range(2):
        frame = pktlib.vxlan_to_vm(0, sport=40000)
        got, _ = rig.roundtrip([frame], 1)
        assert len(got) == 1
        sent.append(frame)
        wire.append(got[0])
    wait_taken(sw, 2)
    # the long name, and the ofport for the port
    assert sw.ctl("dpif-netdev/trace", "add", str(ofp["dpdk-phy"]), "2") \
        == "tracing the next 2 packets received on dpdk-phy\n"
    for k in range(2):
        frame = pktlib.vxlan_to_vm(0, sport=40000)
        got, _ = rig.roundtrip([frame], 1)
        assert len(got) == 1
        sent.append(frame)
        wire.append(got[0])
    t = wait_taken(sw, 4)
    assert (t["port"], t["match"], t["limit"], t["taken"]) == \
        ("dpdk-phy", "", 4, 4), t
    pkts = t["packets"]
    assert [p["packet"] for p in pkts] == [1, 2, 3, 4]
    assert [p["port"] for p in pkts] == ["vhost-user0"] * 2 + \
        ["dpdk-phy"] * 2
    flows = {f["id"]: f for f in sw.ctl("dpctl/dump-flows", json=True)}

    # -- from the VM: what it sent is the inner frame on the wire
    for k, p in enumerate(pkts[:2]):
        inner = wire[k][50:]
        assert (p["ofport"], p["pmd"], p["lost"]) == \
            (ofp["vhost-user0"], 0, 0), p
        assert p["len"] == len(inner) == 78, p
        assert bytes.fromhex(p["head"]) == inner
        names = stages(p)
        assert names[0] == "rx" and names[-1] == "tx", names
        assert names[3] in LOOKUPS, names
        assert in_order(names, ["rx", "extract", "hash", names[3], "action",
                                "tnl_push", "output", "tx"]), names
        assert all(s["pass"] == "outer" for s in p["stages"]), p
        rx = p["stages"][0]
        assert (rx["port"], rx["ofport"], rx["len"]) == \
            ("vhost-user0", ofp["vhost-user0"], 78)
        key = only(p, "extract")["key"]
        assert "in_port(vhost-user0)" in key, key
        assert "eth(src=%s,dst=%s)" % (inner[6:12].hex(":"),
                                       inner[0:6].hex(":")) in key, key
        assert "ipv4(src=192.2.0.1,dst=192.1.0.0,proto=17," in key, key
        assert "udp(src=40000,dst=5001)" in key, key
        # the outer headers tnl_push wrote are those on the wire
        push = only(p, "tnl_push")
        assert (push["dst"], push["udp_src"], push["vni"]) == \
            outer_fields(wire[k]) == (REMOTE_IP, push["udp_src"], VNI), \
            (push, outer_fields(wire[k]))
        assert 49152 <= push["udp_src"] <= 65535, push
        # an output action is its output entry (dp_trace_action)
        acts = [s for s in p["stages"] if s["stage"] == "action"]
        assert [a["action"] for a in acts] == ["tnl_push"], acts
        for st in ("output", "tx"):
            e = only(p, st)
            assert (e["port"], e["ofport"]) == ("dpdk-phy", ofp["dpdk-phy"])
    # the first one made the megaflow the second one hit
    up, hit = lookup(pkts[0], "outer"), lookup(pkts[1], "outer")
    assert up["stage"] == "upcall" and hit["stage"] in ("emc", "dpcls"), \
        (up, hit)
    assert up["ufid"] == hit["ufid"] and up["megaflow"] == hit["megaflow"]
    assert "in_port(vhost-user0)" in up["megaflow"], up
    f = flows[ufid_id(up["ufid"])]
    assert f["actions"].startswith("tnl_push(") and \
        "vni=0x3e9" in f["actions"], f
    assert f["packets"] >= 4, f     # every frame back from the VM

    # -- from the NIC: the frame sent, decapsulated, to the VM
    for k, p in enumerate(pkts[2:], 2):
        assert (p["ofport"], p["pmd"], p["lost"]) == \
            (ofp["dpdk-phy"], 0, 0), p
        assert p["len"] == len(sent[k]) == 128, p
        assert bytes.fromhex(p["head"]) == sent[k]
        names = stages(p)
        assert names[0] == "rx" and names[-1] == "tx", names
        pop_at = names.index("tnl_pop")
        assert in_order(names[:pop_at + 1],
                        ["rx", "extract", "hash", "action", "tnl_pop"]), \
            names
        assert all(s["pass"] == "outer" for s in p["stages"][:pop_at + 1])
        inner = p["stages"][pop_at + 1:]
        assert inner and all(s["pass"] == "inner" for s in inner), p
        assert [s["stage"] for s in inner if s["stage"] not in LOOKUPS] \
            == ["hash", "output", "tx"], names
        key = only(p, "extract")["key"]
        assert "ipv4(src=%s,dst=%s,proto=17," % (REMOTE_IP, VTEP_IP) in \
            key and "udp(src=50000,dst=4789)" in key, key
        assert only(p, "action", "outer")["action"] == "tnl_pop"
        pop = only(p, "tnl_pop")
        assert (pop["vni"], pop["src"], pop["dst"]) == \
            (VNI, REMOTE_IP, VTEP_IP), pop
        for st in ("output", "tx"):
            e = only(p, st, "inner")
            assert (e["port"], e["ofport"]) == \
                ("vhost-user0", ofp["vhost-user0"]), e
        outer_flow = flows[ufid_id(lookup(p, "outer")["ufid"])]
        assert outer_flow["actions"] == "tnl_pop(vxlan)", outer_flow
        inner_flow = flows[ufid_id(lookup(p, "inner")["ufid"])]
        assert inner_flow["actions"] == "vhost-user0", inner_flow
        assert "tunnel(tun_id=0x3e9)" in lookup(p, "inner")["megaflow"]
    # what went to the VM came back from it: the trace's NIC packets
    # are the frames sent, the VM's what went on the wire after them
    assert wire[2][50:] == bytes.fromhex(pkts[0]["head"])
    assert pkts[2]["us"] > pkts[1]["us"] > pkts[0]["us"] == 0


def test_text_output(rig_factory):
    """trace show's text: the header, one block a packet, one line an
    entry (as many as the JSON's stages, in the same order), ports by
    name and ofport; -m adds the bytes as received, 16 a line. Bash
    completion offers the command, add/show/clear, the ports and -m."""
    rig = rig_factory(1)
    sw = rig.sw
    ofp = ofports(sw)
    sw.ctl("trace", "add", "dpdk-phy", "1")
    frame = pktlib.vxlan_to_vm(0, sport=40000)
    got, _ = rig.roundtrip([frame], 1)
    assert len(got) == 1
    t = wait_taken(sw, 1)
    (p,) = t["packets"]
    text = sw.ctl("trace", "show").splitlines()
    phy = "dpdk-phy (ofport %d)" % ofp["dpdk-phy"]
    vm = "vhost-user0 (ofport %d)" % ofp["vhost-user0"]
    assert text[0] == "trace of dpdk-phy: 1 of 1 packets taken", text
    assert text[1] == ("Packet 1: pmd 0, +0.000 us, received on %s, "
                       "128 bytes" % phy), text
    entries = text[2:]
    assert len(entries) == len(p["stages"]), (text, p)
    for line, s in zip(entries, p["stages"]):
        assert line.startswith("  %-8s %-9s " % (s["pass"], s["stage"])), \
            (line, s)
    by_stage = {(s["pass"], s["stage"]): line
                for line, s in zip(entries, p["stages"])}
    assert by_stage["outer", "rx"] == \
        "  outer    rx        %s, 128 bytes" % phy
    assert by_stage["outer", "hash"] == \
        "  outer    hash      0x%08x (computed)" % only(p, "hash",
                                                         "outer")["hash"]
    assert by_stage["outer", "upcall"] == \
        "  outer    upcall    installed ufid:%s %s" % (
            only(p, "upcall", "outer")["ufid"],
            only(p, "upcall", "outer")["megaflow"])
    assert by_stage["outer", "action"] == "  outer    action    tnl_pop"
    assert by_stage["outer", "tnl_pop"] == \
        "  outer    tnl_pop   vni %d from %s to %s" % (VNI, REMOTE_IP,
                                                      VTEP_IP)
    assert ("inner", "action") not in by_stage     # the output entry
    assert by_stage["inner", "output"] == \
        "  inner    output    queued for %s" % vm
    assert by_stage["inner", "tx"] == "  inner    tx        sent by %s" % vm

    more = sw.ctl("trace", "show", "-m").splitlines()
    rows = ["  " + " ".join("%02x" % b for b in frame[i:i + 16])
            for i in range(0, len(frame), 16)]
    assert len(rows) == 8
    assert more == text[:2] + rows + text[2:], more

    # bash completion (scripts/completion/vxswitch-ctl): the command, its
    # words, the daemon's ports after add
    assert vxlib.ctl_complete(sw, "dpif-netdev/tr") == ["dpif-netdev/trace"]
    assert "trace" in vxlib.ctl_complete(sw, "tr")
    assert vxlib.ctl_complete(sw, "trace", "") == ["add", "clear", "show"]
    assert vxlib.ctl_complete(sw, "dpif-netdev/trace", "add", "") == \
        sorted(ofp)
    assert vxlib.ctl_complete(sw, "trace", "add", "vh") == ["vhost-user0"]
    assert vxlib.ctl_complete(sw, "trace", "show", "") == ["-m"]
    assert vxlib.ctl_complete(sw, "trace", "add", "vhost-user0", "") == []


def test_drops_through_the_daemon(rig_factory):
    """Four frames the switch drops, each for its own reason, traced from
    the NIC: each record ends in a drop stage with the reason (after the
    megaflow's drop action for those a rule decided), in the pass where
    it happened, and pmd-stats-show counted exactly those drops."""
    rig = rig_factory(1)
    sw = rig.sw
    sw.ctl("add-flow", "priority=40000,in_port=vxlan,ip,nw_dst=192.1.0.5,"
           "actions=drop")
    cases = [       # (frame, reason, pass)
        (pktlib.vxlan_to_vm(9), "no_rule", "inner"),
        (pktlib.vxlan_to_vm(5), "rule_drop", "inner"),
        (pktlib.vxlan_to_vm(0, vni=77), "unknown_vni", "inner"),
        (pktlib.vxlan_to_vm(0, dst_ip="172.1.0.99"), "not_vtep", "outer"),
    ]
    before = pktlib.pmd_drops(sw)
    sw.ctl("trace", "add", "dpdk-phy", str(len(cases)))
    for k, (frame, _, _) in enumerate(cases, 1):
        rig.wire.send([frame])
        wait_taken(sw, k)
    vxlib.wait_for(lambda: sum(pktlib.drops_delta(
        before, pktlib.pmd_drops(sw)).values()) >= len(cases), 10, 0.05,
        what="%d drops" % len(cases))
    delta = pktlib.drops_delta(before, pktlib.pmd_drops(sw))
    t = show(sw)
    assert t["taken"] == len(cases) == len(t["packets"]), t
    seen = collections.Counter()
    for p, (frame, reason, pass_) in zip(t["packets"], cases):
        assert bytes.fromhex(p["head"]) == frame, p
        last = p["stages"][-1]
        assert (last["stage"], last["reason"], last["copy"],
                last["pass"]) == ("drop", reason, False, pass_), \
            (reason, p["stages"])
        assert stages(p).count("drop") == 1, p
        if reason != "not_vtep":
            assert only(p, "tnl_pop")["vni"] == \
                int.from_bytes(frame[46:49], "big")
        act = p["stages"][-2]
        assert (act["stage"], act["action"], act["reason"]) == \
            ("action", "drop", reason), p["stages"]
        seen[reason] += 1
    assert delta == dict(seen), (delta, seen)
    text = sw.ctl("dpif-netdev/pmd-stats-show", "-m")
    for reason in seen:
        assert " %s=%d" % (reason, before[reason] + 1) in text, text
    lines = sw.ctl("trace", "show").splitlines()
    drops = [ln for ln in lines if ln.startswith(("  outer    drop ",
                                                  "  inner    drop "))]
    assert drops == ["  %-8s %-9s %s" % (pass_, "drop", reason)
                     for _, reason, pass_ in cases], lines


def test_match_filter_errors_and_clear(rig_factory):
    """A MATCH takes only the packets whose headers as received match it,
    and no more than N with more sent; a refused trace add names the
    problem and leaves the trace as it was; trace add adds N more (MATCH
    replaced), and the trace goes on across set-pmd-cores; trace clear
    ends it."""
    rig = rig_factory(1)
    sw = rig.sw
    match = "udp,nw_dst=172.1.0.99"
    assert sw.ctl("trace", "add", "dpdk-phy", "5", match) == \
        "tracing the next 5 packets received on dpdk-phy matching %s\n" \
        % match
    # 8 frames to our VTEP (forwarded) between 8 to another address
    # (not_vtep): only the latter match
    good = [pktlib.vxlan_to_vm(0, sport=40000 + k) for k in range(8)]
    bad = [pktlib.vxlan_to_vm(0, sport=41000 + k, dst_ip="172.1.0.99")
           for k in range(8)]
    for g, b in zip(good, bad):
        rig.wire.send([g, b])
    wait_rx(sw, "dpdk-phy", 16)
    back = rig.wire.recv(8, timeout=10, quiet=0.3, match=pktlib.is_vxlan)
    assert len(back) == 8
    t = show(sw)
    assert (t["port"], t["match"], t["limit"], t["taken"]) == \
        ("dpdk-phy", match, 5, 5), t
    assert [bytes.fromhex(p["head"]) for p in t["packets"]] == bad[:5]
    for p in t["packets"]:
        assert "dst=172.1.0.99," in only(p, "extract")["key"], p
        assert p["stages"][-1]["reason"] == "not_vtep", p
    text = sw.ctl("trace", "show")
    assert text.startswith("trace of dpdk-phy matching %s: 5 of 5 packets "
                           "taken\nPacket 1: " % match), text

    # refused: the error names the problem, the trace is as it was
    for args, err in [
            (("nosuch", "1"), "trace add: no port 'nosuch'"),
            (("99", "1"), "trace add: no port '99'"),
            (("dpdk-phy", "0"), "trace add: N '0': expected 1 to %d (%d "
             "records until trace clear, 5 taken)" % (MAX_PKTS - 5,
                                                      MAX_PKTS)),
            (("dpdk-phy", str(MAX_PKTS - 4)), "trace add: N '%d': expected "
             "1 to %d" % (MAX_PKTS - 4, MAX_PKTS - 5)),
            (("dpdk-phy", "-3"), "trace add: N '-3': expected 1 to"),
            (("dpdk-phy", "2x"), "trace add: N '2x': expected 1 to"),
            (("dpdk-phy", "1", "udp,nw_dst=300.1.1.1"),
             "trace add: MATCH: nw_dst: bad IPv4 address '300.1.1.1'"),
            (("dpdk-phy", "1", "ct_state=+trk"),
             "trace add: MATCH: only a received packet's headers (no "
             "registers, ct_*, tunnel or recirculation fields)"),
            (("dpdk-phy", "1", "tun_id=5"), "trace add: MATCH: only a "
             "received packet's headers"),
            (("dpdk-phy", "1", "reg0=1"), "trace add: MATCH: only a "
             "received packet's headers"),
            (("dpdk-phy",), "trace add: expected PORT N [MATCH]")]:
        r = sw.ctl_result("trace", "add", *args)
        assert r.returncode == 1 and err in r.stderr, (args, r)
        assert show(sw) == t, args
    for args, err in [(("clear", "now"), "trace clear: takes no arguments"),
                      (("show", "-x"), "trace show: expected [-m]"),
                      (("frob",), "trace: expected add PORT N [MATCH], "
                       "show [-m] or clear, not 'frob'")]:
        r = sw.ctl_result("trace", *args)
        assert r.returncode == 1 and err in r.stderr, (args, r)
    assert show(sw) == t
    # full: more matching frames take nothing
    rig.wire.send(bad[5:])
    wait_rx(sw, "dpdk-phy", 19)
    assert show(sw) == t

    # adds 2 more, on every packet of the port now (MATCH replaced); the
    # PMDs set-pmd-cores makes go on with it
    assert sw.ctl("trace", "add", "dpdk-phy", "2") == \
        "tracing the next 2 packets received on dpdk-phy\n"
    got, _ = rig.roundtrip(good[:1], 1)
    assert len(got) == 1
    wait_taken(sw, 6)
    sw.ctl("set-pmd-cores", "1")
    got, _ = rig.roundtrip(good[1:3], 2)
    assert len(got) == 2
    t2 = wait_taken(sw, 7)
    assert (t2["match"], t2["limit"], t2["taken"]) == ("", 7, 7), t2
    assert t2["packets"][:5] == t["packets"]
    assert [bytes.fromhex(p["head"]) for p in t2["packets"][5:]] == good[:2]
    assert all(p["stages"][-1]["stage"] == "tx" for p in t2["packets"][5:])

    assert sw.ctl("trace", "clear") == "OK\n"
    assert sw.ctl("trace", "show") == NO_TRACE
    assert show(sw)["taken"] == 0 and show(sw)["port"] is None
    assert sw.ctl("trace", "clear") == "OK\n"       # twice: still fine
    # after a clear the whole room again
    r = sw.ctl_result("trace", "add", "dpdk-phy", str(MAX_PKTS + 1))
    assert r.returncode == 1 and "expected 1 to %d (%d records until " \
        "trace clear, 0 taken)" % (MAX_PKTS, MAX_PKTS) in r.stderr, r
    sw.ctl("trace", "add", "dpdk-phy", str(MAX_PKTS))
    assert show(sw)["limit"] == MAX_PKTS
    sw.ctl("trace", "clear")


LCORES = "0,(1-2)@1"    # test_multi_pmd's: both PMDs on CPU 1


def test_two_pmds_total_n(make_switch, make_testpmd, wires, rundir):
    """The NIC's two rx queues on two PMDs sharing CPU 1 (test_multi_pmd's
    set-up; queue 1 pinned to core 1, so that queue 0 and the VM's go to
    core 2). A first trace finds which PMD takes each flow (the kernel's
    fanout hash picks the queue), and agrees with pmd-rxq-show's counts;
    then a trace of 6 is fed 3 frames of each PMD's flows, one at a time,
    and 10 more once it is full: it holds 6 records, 3 from each PMD in
    the order fed, every packet forwarded as without a trace."""
    wire = pktlib.Wire().__enter__()
    wires.append(wire)
    topo = pktlib.topology(wire.devargs(qpairs=2), rundir, 1,
                           datapath={"pmd-cores": [1, 2],
                                     "optimisations": {"idle-backoff":
                                                       True}})
    topo["eal"]["lcores"] = LCORES
    phy = next(p for p in topo["ports"] if p["name"] == "dpdk-phy")
    phy["n-rxq"] = 2
    # queue 1 on core 1 alone; queue 0 and the VM's on core 2
    phy["rxq-affinity"] = "1:1"
    vms = make_testpmd(sockets=vxlib.vhost_paths(topo), name="vms",
                       cpus=(0,))
    sw = make_switch(topo)
    vms.wait_ready()
    sw.wait_ports_up(timeout=30)
    def nic_queues():
        return {r["queue"]: r for r in sw.ctl("dpif-netdev/pmd-rxq-show",
                                              json=True)
                if r["port"] == "dpdk-phy"}
    assert {q: r["core"] for q, r in nic_queues().items()} == {0: 2, 1: 1}
    # 32 flows: both queues get 3 or more but once in 4 million
    frames = [pktlib.vxlan_to_vm(0, sport=40000 + k) for k in range(32)]

    sw.ctl("trace", "add", "dpdk-phy", "32")
    wire.send(frames, pace=0.002)
    t = wait_taken(sw, 32)
    pmd_of = {bytes.fromhex(p["head"]): p["pmd"] for p in t["packets"]}
    assert len(pmd_of) == 32
    by_pmd = collections.defaultdict(list)
    for f in frames:
        by_pmd[pmd_of[f]].append(f)
    assert sorted(by_pmd) == [0, 1] and min(map(len, by_pmd.values())) \
        >= 3, {k: len(v) for k, v in by_pmd.items()}
    # each PMD took what its queue received
    assert sorted(len(v) for v in by_pmd.values()) == \
        sorted(r["packets"] for r in nic_queues().values())
    sw.ctl("trace", "clear")

    sw.ctl("trace", "add", "dpdk-phy", "6")
    feed = [f for pair in zip(by_pmd[0][:3], by_pmd[1][:3]) for f in pair]
    for k, f in enumerate(feed, 1):
        wire.send([f])
        wait_taken(sw, k)
    rx = sw.port("dpdk-phy")["rx_packets"]
    wire.send(frames[:10])
    wait_rx(sw, "dpdk-phy", rx + 10)
    t = show(sw)
    assert (t["limit"], t["taken"], len(t["packets"])) == (6, 6, 6), t
    assert [bytes.fromhex(p["head"]) for p in t["packets"]] == feed
    assert [p["pmd"] for p in t["packets"]] == [0, 1] * 3, t
    assert all(p["stages"][-1]["stage"] == "tx" for p in t["packets"])
    # every frame came back: the trace changed nothing on the way
    back = wire.recv(32 + 6 + 10, timeout=10, quiet=0.3,
                     match=pktlib.is_vxlan)
    assert len(back) == 48, len(back)
