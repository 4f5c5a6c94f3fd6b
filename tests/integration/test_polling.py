# SPDX-License-Identifier: BSD-3-Clause
"""The PMD's poll scheduler and idle back-off (app/pmd/pmd_poll.h), end to end.

Same rig as test_forwarding.py (conftest's rig_factory): the NIC is
net_af_packet on a veth (the test plays the remote VTEP), the VMs one
testpmd in macswap.

  - adaptive polling (on by default): with 4 VMs of which only VM 0 has
    traffic, pmd-rxq-show shows the idle vhost queues polled about once
    per PMD_POLL_THRESH_MAX + 1 = 17 rounds, far less than the NIC (every
    round) and than VM 0; traffic to an idle VM still round-trips;
  - idle back-off (off by default): switched on with no traffic, the PMD
    sleeps (pmd-stats-show counts it) and its polling cycles drop; a frame
    sent then is still forwarded promptly.
"""

import time

from vxswitch_tools import packets as pktlib
from vxswitch_tools import harness as vxlib

THRESH_MAX = 16                 # app/pmd/pmd_poll.h PMD_POLL_THRESH_MAX
BOUND = THRESH_MAX + 1


def rxqs(sw):
    return {q["port"]: q for q in sw.ctl("dpif-netdev/pmd-rxq-show",
                                         json=True)}


def pmd(sw):
    return pktlib.pmd_stats(sw)


def roundtrip(rig, vm, n, sport=40000, timeout=10.0):
    """Sends n frames to VM vm; returns how many came back from it."""
    frames = [pktlib.vxlan_to_vm(vm, sport=sport + k) for k in range(n)]
    rig.wire.flush()
    rig.wire.send(frames)
    got = rig.wire.recv(n, timeout=timeout, quiet=0.1,
                        match=lambda b: pktlib.is_vxlan(b, vm=vm))
    return len(got)


def rtt(rig, vm, sport=47000):
    """Seconds for one frame to VM vm to come back."""
    rig.wire.flush()
    t = time.monotonic()
    rig.wire.send([pktlib.vxlan_to_vm(vm, sport=sport)])
    rig.wire.expect(lambda b: pktlib.is_vxlan(b, vm=vm), n=1, timeout=2.0)
    return time.monotonic() - t


def test_adaptive_polling_skips_idle_vhost_queues(rig_factory):
    rig = rig_factory(4)
    opts = rig.sw.ctl("dpif-netdev/opts-show", json=True)
    assert opts["adaptive-polling"] is True, opts
    rig.sw.ctl("dpif-netdev/pmd-stats-clear")

    # Only VM 0 has traffic: bursts of frames to it, which it sends back.
    t0 = time.monotonic()
    for k in range(10):
        assert roundtrip(rig, 0, 200, sport=40000 + 200 * k) == 200
    dt = dt_on = time.monotonic() - t0
    q = rxqs(rig.sw)
    text = rig.sw.ctl("dpif-netdev/pmd-rxq-show")
    nic, vm0 = q["dpdk-phy"], q["vhost-user0"]
    idle = [q["vhost-user%d" % i] for i in (1, 2, 3)]
    it = pmd(rig.sw)["iterations"]
    print("\n%.1f s, %d rounds (%.0f/s); polls/s: NIC %.0f, vhost-user0 "
          "%.0f (%d packets), idle VMs %s" % (
              dt, it, it / dt, nic["polls"] / dt, vm0["polls"] / dt,
              vm0["packets"],
              ", ".join("%.0f" % (i["polls"] / dt) for i in idle)))
    print(text)

    assert not nic["adaptive"] and all(i["adaptive"] for i in idle + [vm0])
    assert nic["threshold"] == 0 or not nic["adaptive"]
    assert nic["packets"] == 2000 and vm0["packets"] == 2000, text
    # the NIC is polled every round; an idle queue once per BOUND rounds
    # (a few more while it backed off after start and the stats clear)
    assert nic["polls"] > 1000, text
    for i in idle:
        assert i["packets"] == 0 and i["empty_polls"] == i["polls"], text
        assert i["polls"] <= nic["polls"] / BOUND + 200, text
        # not starved (the JSON reads the NIC's count a little later)
        assert i["polls"] >= nic["polls"] / BOUND * 0.99, text
        assert i["threshold"] == THRESH_MAX, text
        # VM 0's queue got the polls its traffic needed: more than any
        # idle one, and it found packets in them
        assert vm0["polls"] > i["polls"], text
    assert vm0["polls"] - vm0["empty_polls"] > 0
    # the text is OVS's shape (test_pmd_rxq.py): the poll scheduler's
    # numbers are in the JSON only
    assert "port: vhost-user1" in text and "pmd usage:" in text, text

    # An idle VM still gets its traffic, and answers through its backed-off
    # queue (polled within 17 rounds: microseconds).
    for vm in (1, 2, 3):
        assert roundtrip(rig, vm, 20, sport=45000) == 20, vm
    q2 = rxqs(rig.sw)
    for vm in (1, 2, 3):
        assert q2["vhost-user%d" % vm]["packets"] == 20

    # Off: round robin, every queue every round.
    rig.sw.ctl("dpif-netdev/set-opt", "adaptive-polling", "off")
    rig.sw.ctl("dpif-netdev/pmd-stats-clear")
    t0 = time.monotonic()
    time.sleep(0.5)
    q3 = rxqs(rig.sw)
    dt = time.monotonic() - t0
    n = q3["dpdk-phy"]["polls"]
    print("adaptive polling off: %.0f rounds/s (on: %.0f)"
          % (n / dt, it / dt_on))
    for vm in range(4):
        p = q3["vhost-user%d" % vm]["polls"]
        assert abs(p - n) <= n / 100, q3
    assert roundtrip(rig, 2, 10, sport=46000) == 10


def test_idle_backoff_sleeps_and_wakes(rig_factory):
    rig = rig_factory(2)
    assert roundtrip(rig, 0, 10) == 10

    def window(secs=1.0):
        a = pmd(rig.sw)
        t = time.monotonic()
        time.sleep(secs)
        b = pmd(rig.sw)
        dt = time.monotonic() - t
        hz = b["tsc_hz"]
        return {"idle_pct": 100.0 * (b["idle_cycles"] - a["idle_cycles"])
                / hz / dt,
                "busy_pct": 100.0 * (b["busy_cycles"] - a["busy_cycles"])
                / hz / dt,
                "rounds_per_s": (b["iterations"] - a["iterations"]) / dt,
                "sleeps_per_s": (b["sleeps"] - a["sleeps"]) / dt,
                "slept_pct": 100.0 * (b["sleep_cycles"] - a["sleep_cycles"])
                / hz / dt}

    off = window()
    assert off["sleeps_per_s"] == 0, off
    print("\nround trip busy polling: %.2f ms" % (rtt(rig, 0) * 1e3))
    rig.sw.ctl("dpif-netdev/set-opt", "idle-backoff", "on")
    time.sleep(0.2)
    on = window()
    print("\nbusy polling: %s\nidle back-off: %s" % (off, on))
    assert on["sleeps_per_s"] > 100, on
    assert on["slept_pct"] > 50, on
    # the PMD's polling cycles drop: it spends the time asleep
    assert on["idle_pct"] < off["idle_pct"] / 4, (off, on)
    text = rig.sw.ctl("dpif-netdev/pmd-stats-show", "-m")
    assert "idle back-off sleeps:" in text, text

    # A frame sent now wakes it: forwarded promptly, and the PMD busy
    # polls again while traffic flows.
    for vm in (0, 1):
        assert pmd(rig.sw)["sleeps"] > 0
        t = rtt(rig, vm)
        print("round trip to VM %d while backed off: %.2f ms"
              % (vm, t * 1e3))
        assert t < 0.5
    # A burst to a PMD that is asleep (again, after its hold): woken by
    # the first frames, it stays awake (PMD_POLL_IDLE_ROUNDS_AFTER_WAKE)
    # while the VM answers. 200: within one vhost ring (256); a bigger
    # burst from this test's raw socket can overflow the VM's ring even
    # with busy polling (the VMs share one core here).
    s0 = pmd(rig.sw)["sleeps"]
    vxlib.wait_for(lambda: pmd(rig.sw)["sleeps"] > s0 + 100, timeout=5,
                   what="asleep again")
    assert roundtrip(rig, 1, 200, sport=48000) == 200

    # switched off: busy polling again, no more sleeps
    rig.sw.ctl("dpif-netdev/set-opt", "idle-backoff", "off")
    time.sleep(0.1)
    again = window(0.5)
    assert again["sleeps_per_s"] == 0, again
    vxlib.wait_for(lambda: roundtrip(rig, 0, 5, sport=49000) == 5,
                   timeout=5, what="traffic after back-off off")
