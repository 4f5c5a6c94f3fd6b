# SPDX-License-Identifier: BSD-3-Clause
"""pmd-perf-show's end-to-end cost breakdown (PMD_STAGES,
app/datapath/dp_stats.h).

Same rig as test_forwarding.py (conftest's rig_factory): the NIC is
net_af_packet on a veth (the test plays the remote VTEP), two VMs in one
testpmd in macswap.

  - NIC -> VM -> NIC traffic moves all four I/O stages (rx_nic, rx_vhost,
    tx_vhost, tx_nic), the datapath stages, flush and loop; the stages add
    up to the busy cycles: the TSC chain is unbroken, so "other" is 0
    (to 1 %: a read can land inside a round);
  - a vhost-only flow (the two VMs bouncing frames to each other through
    the switch) moves rx_vhost and tx_vhost but not a cycle of rx_nic or
    tx_nic, and the per-kind counters say the same;
  - with io-timing off, rx and empty polls are not timed: rx_nic, rx_vhost
    and poll_empty stay still and their cycles fall into "other".
"""

import time

from vxswitch_tools import packets as pktlib

IO = ("rx_nic", "rx_vhost", "poll_empty", "tx_nic", "tx_vhost")


def perf(sw):
    (p,) = sw.ctl("dpif-netdev/pmd-perf-show", json=True)
    return p


def cycles(p, stage):
    return p["stages"][stage]["cycles"]


def staged(p):
    return sum(v["cycles"] for k, v in p["stages"].items() if k != "other")


def sums_to_busy(p):
    """The stages add up to the busy cycles. Not exactly: pmd-perf-show
    reads the counters while the PMD runs, so a round in progress may
    have charged some stages and not yet its busy cycles (or the
    reverse); one round is far under 1 % of a test's busy cycles."""
    return abs(staged(p) - p["busy_cycles"]) < 0.01 * p["busy_cycles"]


def roundtrip(rig, n, sport=40000):
    frames = [pktlib.vxlan_to_vm(k % 2, sport=sport + k) for k in range(n)]
    rig.wire.flush()
    rig.wire.send(frames)
    got = rig.wire.recv(n, timeout=10, quiet=0.2,
                        match=lambda b: pktlib.is_vxlan(b))
    assert len(got) == n


def test_stages_sum_to_busy_and_move_with_their_traffic(rig_factory):
    rig = rig_factory(2)
    sw = rig.sw
    assert sw.ctl("dpif-netdev/opts-show", json=True)["io-timing"] is True
    roundtrip(rig, 50)                  # megaflows in place
    sw.ctl("dpif-netdev/pmd-stats-clear")
    for k in range(5):
        roundtrip(rig, 200, sport=41000 + 200 * k)
    p = perf(sw)
    busy = p["busy_cycles"]
    print("\nNIC round trip:", {k: round(v["cycles_per_packet"], 1)
                                for k, v in p["stages"].items()})
    for st in IO + ("extract", "emc", "actions", "flush", "loop"):
        assert cycles(p, st) > 0, (st, p["stages"])
    assert sums_to_busy(p), (staged(p), busy)
    # every cycle of a busy round is in a stage: "other" was once ~170
    # cycles a round (the gap between the rx call's TSC read and the
    # datapath's, and an idle round's flush scan), a third of the
    # per-packet cost when packets trickle in one a round
    assert cycles(p, "other") < 0.01 * busy, p["stages"]
    other_on = p["stages"]["other"]["cycles_per_packet"]

    assert p["packets"] == 2000 and p["rx_packets_vhost"] == 1000, p
    assert p["tx_packets"] == 2000 and p["tx_packets_vhost"] == 1000, p
    assert p["polls"] > p["polls_empty"] > 0, p
    text = sw.ctl("dpif-netdev/pmd-perf-show")
    for st in IO + ("flush", "loop", "other"):
        assert "\n    %-20s " % st in text, (st, text)
    assert "  - vhost rx:                1000 pkts" in text, text

    # vhost only: the VMs bounce frames to each other through the switch
    sw.ctl("add-flow", "priority=60000,in_port=vhost-user0,"
           "actions=output:vhost-user1")
    sw.ctl("add-flow", "priority=60000,in_port=vhost-user1,"
           "actions=output:vhost-user0")
    rig.wire.send([pktlib.vxlan_to_vm(0, sport=43000 + k) for k in range(8)])
    time.sleep(0.3)
    sw.ctl("dpif-netdev/pmd-stats-clear")
    time.sleep(0.5)
    p = perf(sw)
    sw.ctl("del-flows", "--strict", "priority=60000,in_port=vhost-user0")
    sw.ctl("del-flows", "--strict", "priority=60000,in_port=vhost-user1")
    print("vhost only:", {k: round(v["cycles_per_packet"], 1)
                          for k, v in p["stages"].items()})
    assert p["packets"] > 1000, p
    assert cycles(p, "rx_vhost") > 0 and cycles(p, "tx_vhost") > 0, p
    assert cycles(p, "rx_nic") == 0 and cycles(p, "tx_nic") == 0, p
    assert p["rx_packets_vhost"] == p["packets"], p
    assert p["tx_packets_vhost"] == p["tx_packets"] > 0, p
    assert sums_to_busy(p), (staged(p), p["busy_cycles"])
    assert cycles(p, "other") < 0.01 * p["busy_cycles"], p["stages"]

    # io-timing off: rx and empty polls untimed, in "other"; a preemption
    # or a slow af_packet read swings one sample by thousands of cycles a
    # packet, so alternate off and on rounds and compare the least of each
    other = {"on": [], "off": []}
    for k in range(3):
        for mode in ("off", "on"):
            sw.ctl("dpif-netdev/set-opt", "io-timing", mode)
            sw.ctl("dpif-netdev/pmd-stats-clear")
            roundtrip(rig, 200, sport=44000 + 400 * k + 200 * (mode == "on"))
            p = perf(sw)
            other[mode].append(p["stages"]["other"]["cycles_per_packet"])
            if mode == "on":
                assert cycles(p, "rx_nic") > 0, p["stages"]
                continue
            for st in ("rx_nic", "rx_vhost", "poll_empty"):
                assert cycles(p, st) == 0, (st, p["stages"])
            assert cycles(p, "extract") > 0 and cycles(p, "flush") > 0
            assert staged(p) <= p["busy_cycles"] * 1.01
    sw.ctl("dpif-netdev/set-opt", "io-timing", "on")
    print("other, cycles/packet:", other)
    # the rx calls are in it now: an rx call costs hundreds of cycles
    # (190 a packet the least seen here), "other" with io-timing on 0
    assert min(other["off"]) > max(50, 2 * min(other["on"])), other
