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
                the window the auto-lb moves one (log line, pmd-rxq-show)
  rebalance     dpif-netdev/pmd-rxq-rebalance with pmd-rxq-assign=cycles
                places the queues by their measured load

The conftest checks at teardown that no mbuf leaked and that every PMD's
accounting balances; switches stopped inside a test are checked here.
"""

import re
import threading
import time

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
