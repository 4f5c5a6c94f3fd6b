# SPDX-License-Identifier: BSD-3-Clause
"""Several PMDs on this 2-core host (issue 11, items 3 and 5).

Every PMD runs on an EAL lcore mapped onto CPU 1 (eal.lcores "0,(1-4)@1")
with the idle back-off on, so that up to 4 PMDs share one CPU without
starving each other: these tests check function, not speed.

  same output   the seed topology (the NIC a veth pair driven by
                net_af_packet, VMs one testpmd in macswap) forwarded by 1,
                2 and 4 PMDs: with 2 and 4 the NIC has as many rx queues
                (af_packet qpairs) and the queues are spread over the PMDs;
                the frames back on the wire are the 1-PMD run's, byte for
                byte (sorted: order across queues may differ; the outer
                IPv4 id, random per run, masked)
  set-pmd-cores 1 -> 2 -> 4 -> 1 PMDs while a stream flows: every frame
                comes back, pmd-rxq-show has the queues on the new cores,
                port counters never go backwards
  pmd-auto-lb   two busy net_null queues on one PMD, the other idle: after
                the window the auto-lb moves one (log line, pmd-rxq-show);
                pinned together with set Interface, then the pin taken
                away (pmd-rxq-affinity=): spread again by their load
  rebalance     dpif-netdev/pmd-rxq-rebalance with pmd-rxq-assign=cycles
                places the queues by their measured load

The conftest checks at teardown that no mbuf leaked and that every PMD's
accounting balances; switches stopped inside a test are checked here.
"""

import re
import time

from vxswitch_tools import forwarding_rig as forwarding
from vxswitch_tools import harness as vxlib
from vxswitch_tools import packets as pktlib

LCORES = "0,(1-4)@1"        # main lcore on CPU 0, lcores 1-4 all on CPU 1
N_VMS = 4
IDLE_BACKOFF = {"idle-backoff": True}


def seed_topology(wire, rundir, n_pmds, nic_queues=None):
    """The seed's VXLAN overlay with N_VMS VMs on PMDs 1..n_pmds; the NIC
    with nic_queues rx/tx queue pairs (default: one per PMD)."""
    q = nic_queues or n_pmds
    topo = pktlib.topology(wire.devargs(qpairs=q), rundir, N_VMS,
                           emc_inv_prob=1)
    topo["eal"]["lcores"] = LCORES
    topo["datapath"]["pmd-cores"] = list(range(1, n_pmds + 1))
    topo["datapath"]["optimisations"] = IDLE_BACKOFF
    next(p for p in topo["ports"] if p["name"] == "dpdk-phy")["n-rxq"] = q
    return topo


def rxq_cores(sw):
    """{(port, queue): core} from pmd-rxq-show --json."""
    return {(r["port"], r["queue"]): r["core"]
            for r in sw.ctl("dpif-netdev/pmd-rxq-show", json=True)}


def normalise(b):
    """The outer IPv4 id and header checksum zeroed: the id starts at
    random in each run (as Linux's ip_idents), every other byte must be
    the same."""
    assert pktlib.ip_csum_ok(b)
    return b[:18] + b"\0\0" + b[20:24] + b"\0\0" + b[26:]


def frames_to_vms():
    """8 inner flows to each VM, sizes from 78 to 302 bytes, each frame
    twice: the outer UDP source ports differ, so the kernel's fanout hash
    spreads them over the NIC's rx queues."""
    out = []
    for k in range(8 * N_VMS):
        vm = k % N_VMS
        inner = pktlib.inner_frame(vm, sport=41000 + k, size=78 + 7 * k,
                                   payload=b"flow-%03d" % k)
        out += [pktlib.vxlan_frame(inner, sport=50000 + 17 * k)] * 2
    return out


def start_seed(make_switch, make_testpmd, wire, rundir, n_pmds, tag):
    run = rundir / tag
    run.mkdir()
    topo = seed_topology(wire, run, n_pmds)
    vms = make_testpmd(sockets=vxlib.vhost_paths(topo), name="vms" + tag,
                       cpus=(0,))
    sw = make_switch(topo, name="vxs" + tag)
    vms.wait_ready()
    sw.wait_ports_up(timeout=30)
    return sw, vms


def forward_once(make_switch, make_testpmd, wire, rundir, n_pmds):
    """Starts the seed topology on n_pmds PMDs, sends frames_to_vms(),
    returns (the frames back, normalised and sorted, per-PMD packets,
    where the queues were); stops the switch after checking it."""
    sw, vms = start_seed(make_switch, make_testpmd, wire, rundir, n_pmds,
                         "p%d" % n_pmds)
    cores = rxq_cores(sw)
    assert sorted(set(cores.values())) == list(range(1, n_pmds + 1)), cores
    sent = frames_to_vms()
    wire.flush()
    wire.send(sent)
    back = wire.recv(len(sent), timeout=20, quiet=0.5, match=pktlib.is_vxlan)
    assert len(back) == len(sent), "%d PMDs: %d of %d frames back" % (
        n_pmds, len(back), len(sent))
    # every frame once in, once out of the NIC and of its VM
    vxlib.wait_for(lambda: sw.port("dpdk-phy")["tx_packets"] == len(sent),
                   10, 0.1, what="dpdk-phy tx_packets")
    phy = sw.port("dpdk-phy")
    assert phy["rx_packets"] == len(sent), phy
    for i in range(N_VMS):
        vp = sw.port("vhost-user%d" % i)
        assert vp["tx_packets"] == vp["rx_packets"] == len(sent) // N_VMS
    rxqs = sw.ctl("dpif-netdev/pmd-rxq-show", json=True)
    per_pmd = {}
    for st in sw.ctl("dpif-netdev/pmd-stats-show", json=True):
        per_pmd[st["core"]] = st["accounting"]["received"]
    vxlib.assert_packets_accounted(sw)
    vxlib.assert_no_mbuf_leak(sw)
    assert sw.stop() == 0
    assert vms.stop() == 0
    return sorted(normalise(b) for b in back), per_pmd, rxqs


def test_same_output_on_1_2_4_pmds(make_switch, make_testpmd, wires,
                                   rundir):
    wire = pktlib.Wire().__enter__()
    wires.append(wire)
    ref, per_pmd, _ = forward_once(make_switch, make_testpmd, wire, rundir,
                                   1)
    assert len(ref) == len(frames_to_vms()) and list(per_pmd) == [1]
    for n in (2, 4):
        got, per_pmd, rxqs = forward_once(make_switch, make_testpmd, wire,
                                          rundir, n)
        # the NIC's queues on every PMD, and they all took frames
        nic = {r["queue"]: r for r in rxqs if r["port"] == "dpdk-phy"}
        assert sorted(nic) == list(range(n)), rxqs
        assert len({r["core"] for r in nic.values()}) == n, rxqs
        assert sum(1 for r in nic.values() if r["packets"]) >= 2, nic
        # the VMs' queues on different PMDs
        vm_cores = {r["core"] for r in rxqs if r["port"] != "dpdk-phy"}
        assert len(vm_cores) >= 2, rxqs
        # more than one PMD forwarded, and each frame went through
        assert sorted(per_pmd) == list(range(1, n + 1)), per_pmd
        assert sum(1 for v in per_pmd.values() if v) >= 2, per_pmd
        assert got == ref, "%d PMDs: output differs from 1 PMD's" % n


class Stream(forwarding.Stream):
    """forwarding_rig's numbered stream, to VMs 0 and 1 in turn, 8 flows
    (outer UDP source ports: the NIC's fanout spreads them over its
    queues)."""

    def frame(self, seq):
        inner = pktlib.inner_frame(seq % 2, sport=43000 + seq % 8,
                                   payload=b"seq=%08d" % seq + b"\0" * 16)
        return inner, pktlib.vxlan_frame(inner, sport=50000 + seq % 8)


PORT_COUNTERS = ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes")


def port_counters(sw):
    return {(p["name"], k): p[k] for p in sw.show()["ports"]
            for k in PORT_COUNTERS}


def test_set_pmd_cores_under_traffic(make_switch, make_testpmd, wires,
                                     rundir):
    """1 -> 2 -> 4 -> 1 PMDs while a stream flows through both VMs: after
    each change the stream goes on, the queues are polled by the new
    PMDs, no port counter ever went backwards (the retired PMDs' counts
    are kept), and at the end every frame sent came back once."""
    wire = pktlib.Wire().__enter__()
    wires.append(wire)
    topo = seed_topology(wire, rundir, 1, nic_queues=4)
    vms = make_testpmd(sockets=vxlib.vhost_paths(topo), name="vms",
                       cpus=(0,))
    sw = make_switch(topo)
    vms.wait_ready()
    sw.wait_ports_up(timeout=30)
    wire.flush()
    last = port_counters(sw)

    def no_step_back():
        nonlocal last
        now = port_counters(sw)
        back = {k: (last[k], v) for k, v in now.items() if v < last[k]}
        assert not back, "counters went backwards: %s" % back
        last = now

    def phy_tx():
        return sw.port("dpdk-phy")["tx_packets"]

    with Stream(wire) as stream:
        for cores in ("1-2", "1-4", "1"):
            before = phy_tx()
            vxlib.wait_for(lambda: phy_tx() >= before + 20, 10, 0.05,
                           what="the stream before set-pmd-cores %s" % cores)
            no_step_back()
            sw.ctl("set-pmd-cores", cores)
            no_step_back()
            want = list(range(1, int(cores[-1]) + 1))
            stats = sw.ctl("dpif-netdev/pmd-stats-show", json=True)
            assert sorted(st["core"] for st in stats) == want, stats
            where = rxq_cores(sw)
            # every queue polled, by the new PMDs (4 NIC queues, 2 VMs)
            assert len(where) == 4 + N_VMS, where
            assert sorted(set(where.values())) == want, where
            # the stream goes on through the new PMDs
            start = phy_tx()
            vxlib.wait_for(lambda: phy_tx() >= start + 20, 10, 0.05,
                           what="the stream after set-pmd-cores %s" % cores)
            no_step_back()
    n_sent = stream.sent
    back = wire.recv(n_sent, timeout=20, quiet=0.5, match=pktlib.is_vxlan)
    seqs = sorted(forwarding.seq_of(b) for b in back)
    missing = sorted(set(range(n_sent)) - set(seqs))
    assert seqs == list(range(n_sent)), (
        "%d of %d frames back; missing %s; twice %s" % (
            len(back), n_sent, missing[:20],
            sorted({s for s in seqs if seqs.count(s) > 1})[:20]))
    no_step_back()
    phy = sw.port("dpdk-phy")
    # rx may count a frame the kernel sent on the veth itself (IPv6
    # neighbour discovery, dropped by reason): what the stream sent all
    # came in and went back out
    assert phy["tx_packets"] == n_sent <= phy["rx_packets"], phy
    assert "set-pmd-cores: 1 PMDs" in sw.log_tail(200)


def busy_topology(rundir, assign, **datapath):
    """2 PMDs; "busy": a net_null port with 2 rx queues that never run dry
    (its frames dropped by a rule); "idle": 2 queues with nothing to
    receive. The load window is 12 x 100 ms."""
    return {
        "eal": {"lcores": LCORES, "memory-mb": 256, "no-huge": True},
        # 256 MiB without hugepages: a small session pool (no sg here)
        # and megaflow table (a megaflow is 896 bytes: 56 MiB a PMD at
        # the default 65536; one rule here makes a handful)
        "datapath": {"pmd-cores": [1, 2], "pmd-rxq-assign": assign,
                     "pmd-load-interval-ms": 100, "ct-max-conns": 4096,
                     "max-megaflows": 8192,
                     "optimisations": IDLE_BACKOFF, **datapath},
        "ports": [
            {"name": "idle", "type": "dpdk",
             "devargs": "net_null1,no-rx=1", "n-rxq": 2},
            {"name": "busy", "type": "dpdk", "devargs": "net_null0",
             "n-rxq": 2},
            {"name": "vm0", "type": "dpdkvhostuser",
             "path": str(rundir / "vm0.sock")}],
        "flows": ["in_port=busy,actions=drop"]}


def busy_cores(sw):
    where = rxq_cores(sw)
    return where[("busy", 0)], where[("busy", 1)]


def test_auto_lb_moves_a_busy_queue(make_switch, rundir):
    """group assignment, queues not pinned: "idle"'s two queues are pinned
    to core 2 (pmd-rxq-isolate false: that PMD still takes others), so by
    queue count both busy queues start on core 1, at 100 %, and core 2
    idles. Once core 1 has been overloaded for the whole window, the
    auto-lb's dry run finds the variance of the PMDs' loads improved by
    100 % and rebalances: the busy queues end on different PMDs."""
    topo = busy_topology(rundir, "group", **{
        "pmd-rxq-isolate": False, "pmd-auto-lb": True,
        "pmd-auto-lb-rebal-interval": "0.01",       # 600 ms
    })
    topo["ports"][0]["rxq-affinity"] = "0:2,1:2"
    sw = make_switch(topo)
    assert busy_cores(sw) == (1, 1), sw.ctl("dpif-netdev/pmd-rxq-show")
    vxlib.wait_for(lambda: len(set(busy_cores(sw))) == 2, 30, 0.2,
                   what=lambda: "the auto-lb to move a busy queue\n%s\n%s"
                   % (sw.ctl("dpif-netdev/pmd-rxq-show"), sw.log_tail(30)))
    text = sw.ctl("dpif-netdev/pmd-rxq-show")
    print("\n" + text)
    log = sw.log_tail(300)
    m = re.search(r"pmd-auto-lb: variance (\d+) -> (\d+) \((\d+) % better\)"
                  r": rebalancing", log)
    assert m, log
    assert int(m[1]) > int(m[2]) and int(m[3]) >= 25, m[0]
    assert re.search(r"pmd-rxq-rebalance \(pmd-auto-lb\): [12] queues "
                     r"moved", log), log
    # the idle queues stay pinned on core 2
    where = rxq_cores(sw)
    assert where[("idle", 0)] == where[("idle", 1)] == 2, where
    # once balanced, each PMD has one busy queue and nothing more to move
    time.sleep(1.5)
    assert len(set(busy_cores(sw))) == 2, sw.ctl("dpif-netdev/pmd-rxq-show")
    assert sw.log_path.read_text().count("rebalancing") == 1
    # pinned together at run time, then the pin removed: the queues are
    # assigned again by their measured load, on different PMDs again
    sw.ctl("set", "Interface", "busy", "other_config:pmd-rxq-affinity=0:1,1:1")
    assert busy_cores(sw) == (1, 1), sw.ctl("dpif-netdev/pmd-rxq-show")
    sw.ctl("set", "Interface", "busy", "other_config:pmd-rxq-affinity=")
    assert len(set(busy_cores(sw))) == 2, sw.ctl("dpif-netdev/pmd-rxq-show")
    sw.remove_endless_rx("busy")


ASSIGNED = re.compile(r"Core +(\d+) on numa node \d+ assigned port '(\S+)' rx "
                      r"queue (\d+) \(measured processing cycles (\d+)\)")


def test_rxq_rebalance_by_measured_cycles(make_switch, rundir):
    """pmd-rxq-assign=cycles: before any load is known the queues go in
    port order, PMDs 1,2,2,1 (idle q0 -> 1, busy q0 and q1 -> 2, vm0 -> 1).
    Once measured, dpif-netdev/pmd-rxq-rebalance sorts them by load: the
    two busy queues first, to cores 1 and 2, the idle ones after."""
    topo = busy_topology(rundir, "cycles")
    topo["ports"][0]["n-rxq"] = 1
    sw = make_switch(topo)
    assert busy_cores(sw) == (2, 2), sw.ctl("dpif-netdev/pmd-rxq-show")
    # both busy queues measured over a few intervals
    vxlib.wait_for(lambda: all(r["cycles"] > 0 for r in sw.ctl(
        "dpif-netdev/pmd-rxq-show", json=True) if r["port"] == "busy"),
        10, 0.1, what="load measured on the busy queues")
    n_log = len(sw.log_path.read_text())
    out = sw.ctl("dpif-netdev/pmd-rxq-rebalance")
    assert re.fullmatch(r"pmd rxq rebalance: [123] queues? moved\n", out), out
    assert sorted(busy_cores(sw)) == [1, 2], sw.ctl("dpif-netdev/pmd-rxq-show")
    log = sw.log_path.read_text()[n_log:]
    got = [(int(c), p, int(q), int(cyc)) for c, p, q, cyc
           in ASSIGNED.findall(log)]
    # in the order of their measured load, highest first: busy, busy,
    # then the idle ones (0 cycles) by port number
    assert [(c, p) for c, p, _, _ in got] == [
        (1, "busy"), (2, "busy"), (2, "idle"), (1, "vm0")], log
    assert got[0][3] >= got[1][3] > 0 and got[2][3] == got[3][3] == 0, got
    assert "pmd-rxq-rebalance (operator)" in log, log
    # Again: a moved queue took its load history with it (OVS keeps an
    # rxq's interval history across a reload), so both busy queues are
    # still seen busy and still go to different PMDs. (Whether they swap
    # cores depends on which of two equal loads measured higher.)
    n_log = len(sw.log_path.read_text())
    sw.ctl("dpif-netdev/pmd-rxq-rebalance")
    assert sorted(busy_cores(sw)) == [1, 2], sw.ctl("dpif-netdev/pmd-rxq-show")
    again = [(int(c), p, int(q), int(cyc)) for c, p, q, cyc
             in ASSIGNED.findall(sw.log_path.read_text()[n_log:])]
    assert [p for _, p, _, cyc in again if cyc > 0] == ["busy", "busy"], \
        again
    sw.remove_endless_rx("busy")
