# SPDX-License-Identifier: BSD-3-Clause
"""Admission by weight (issue 14) with live traffic, on test_offload's rig
(vxswitch_tools.offload_rig): one NIC filter (offload-guaranteed 1, no shared
pool), two VMs' flows at rates set by the test. The rule goes to the measured
rate, not to who came first: a flow slightly busier than the rule's holder does
not take it (hysteresis), a much busier one evicts it once the holder has been
in for the minimum residency, and when the load moves the rule moves back.
Every frame is delivered either way (the evicted flow goes on in software)."""
import threading
import time

from vxswitch_tools import packets as pktlib
from vxswitch_tools import harness as vxlib
from vxswitch_tools.offload_rig import MODEL

ONE_FILTER = dict(MODEL, **{"offload-guaranteed": 1, "offload-pool": 0})
TICK = 0.01


class Load:
    """Sends rate[vm] frames per second to each VM, in 10 ms ticks, from a
    thread, until stopped; rates may be changed while it runs."""

    def __init__(self, wire, rates):
        self.wire, self.rates = wire, dict(rates)
        self.frames = {vm: pktlib.vxlan_to_vm(vm, sport=42000 + vm)
                       for vm in (0, 1)}
        self.sent = {0: 0, 1: 0}
        self._acc = {0: 0.0, 1: 0.0}
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self.error = None

    def _run(self):
        try:
            while not self._stop.is_set():
                batch = []
                for vm, r in self.rates.items():
                    self._acc[vm] += r * TICK
                    k = int(self._acc[vm])
                    self._acc[vm] -= k
                    batch += [self.frames[vm]] * k
                    self.sent[vm] += k
                if batch:
                    self.wire.send(batch)
                self._stop.wait(TICK)
        except Exception as e:          # reported by stop()
            self.error = e

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join(10)
        assert self.error is None, self.error


def holder(rig):
    """The VM whose megaflow holds the NIC's one rule, or None. One dump
    for both VMs (two dumps could see the rule on each side of a move);
    the dump reads the PMDs one after another, so a move between two PMDs
    can still be caught half-way once: a second dump must not be."""
    for _ in range(2):
        flows = rig.megaflows()
        off = [vm for vm in (0, 1)
               if any(f["offloaded"] for f in rig.inner(vm, flows))]
        if len(off) <= 1:
            return off[0] if off else None
    assert len(off) <= 1, off


def test_the_rule_follows_the_rate(offload_rig_factory):
    rig = offload_rig_factory(2, phy=ONE_FILTER)
    st = rig.offload()
    assert st["admission"] == "weight", st
    before = rig.counters()
    with Load(rig.wire, {1: 60, 0: 0}) as load:
        # VM 1's flow comes first: the table has room, it gets the rule
        vxlib.wait_for(lambda: holder(rig) == 1, 10, 0.05,
                       lambda: "VM 1's rule: %r" % rig.offload())
        # VM 0 at 1.5x VM 1's rate: below the hysteresis, no eviction
        load.rates[0] = 90
        time.sleep(2.5)
        st = rig.offload()
        assert holder(rig) == 1 and st["evictions"] == 0, st
        # the table is full: what a flow must carry to be offered is
        # twice the holder's rate (about 120 pps), which VM 0 is not
        assert 80 <= st["threshold_pps"] <= 200, st
        assert st["candidates"] == 0, st
        # VM 0 at 10x: it evicts VM 1's rule (VM 1 was in > 1 s)
        load.rates[0] = 600
        vxlib.wait_for(lambda: holder(rig) == 0, 10, 0.1,
                       lambda: "VM 0 to take the rule: %r" % rig.offload())
        assert rig.offload()["evictions"] == 1
        # the load moves: VM 1 busy, VM 0 idle; the rule follows
        load.rates.update({0: 0, 1: 600})
        vxlib.wait_for(lambda: holder(rig) == 1, 15, 0.1,
                       lambda: "the rule back to VM 1: %r" % rig.offload())
        time.sleep(0.5)
    sent = dict(load.sent)

    def settled():
        d = pktlib.counter_delta(before, rig.counters())
        phy = d["ports"]["dpdk-phy"]
        ok = phy["rx_packets"] == sum(sent.values()) == phy["tx_packets"]
        return d if ok else None
    d = vxlib.wait_for(settled, 10, 0.1, "every frame through the switch")
    assert not any(d["drops"].values()), d["drops"]
    for vm in (0, 1):
        vp = d["ports"]["vhost-user%d" % vm]
        assert vp["tx_packets"] == vp["rx_packets"] == sent[vm], (vm, vp)
    # both flows spent time on the mark path, none was lost on the way
    assert 0 < d["pmd"]["mark_hits"] < sum(sent.values()), d["pmd"]
    st = rig.offload()
    assert st["evictions"] == 2 and st["installed"] == 1, st
    # the NIC's size is learnt from its one refusal (ice cannot be asked
    # for it); after that, evictions wait for the rule to go instead of
    # trying a create that fails
    assert st["failed"]["capacity"] == 1, st
