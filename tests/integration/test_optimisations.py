# SPDX-License-Identifier: BSD-3-Clause
"""The fast-path optimisations change speed, never answers.

The same frames go through the switch with every optimisation on, all
off, and each one off alone (switched at run time with
dpif-netdev/set-opt, megaflows flushed in between so every path is taken
from the upcall on): what comes back on the wire must be byte-identical
(but for the outer IP id, which counts per packet), and the per-reason
drop counters must move the same way.
"""
import pytest
from scapy.layers.l2 import Ether

from vxswitch_tools import packets as pktlib
from vxswitch_tools import harness as vxlib

N_VMS = 2


def frames():
    """Flows to both VMs, consecutive repeats (hash reuse), a frame no
    rule matches and one with an unknown VNI."""
    out = []
    for flow in range(8):
        vm = flow % N_VMS
        out += [pktlib.vxlan_to_vm(vm, sport=41000 + flow)] * 3
    out.append(pktlib.vxlan_frame(pktlib.inner_frame(0, dst_ip="192.1.0.77",
                                                     size=78)))
    out.append(pktlib.vxlan_to_vm(1, sport=42000, vni=4242))
    return out


N_BACK = 8 * 3


@pytest.fixture
def rig(wire, make_switch, make_testpmd, rundir):
    topo = pktlib.topology(wire.devargs(), rundir, N_VMS, emc_inv_prob=1)
    vms = make_testpmd(sockets=vxlib.vhost_paths(topo), name="vms",
                       cpus=(0,))
    sw = make_switch(topo)
    vms.wait_ready()
    sw.wait_ports_up(timeout=30)
    return wire, sw


def run(wire, sw, opts):
    for name, on in opts.items():
        sw.ctl("dpif-netdev/set-opt", name, "on" if on else "off")
    assert sw.ctl("dpif-netdev/opts-show", json=True) == opts
    sw.ctl("dpctl/del-flows")
    before = pktlib.pmd_drops(sw)
    wire.send(frames())
    back = wire.expect(lambda b: pktlib.is_vxlan(b), n=N_BACK)
    assert wire.drain(0.3) == []
    # the PMD counts a drop just after the frame went by: settle
    want = {"no_rule": 1, "unknown_vni": 1}
    vxlib.wait_for(lambda: pktlib.drops_delta(before, pktlib.pmd_drops(sw))
                   == want, 5, 0.1, "drops %r" % want)
    return sorted(pktlib.normalise(b) for b in back)


def test_every_optimisation_gives_the_same_bytes(rig):
    wire, sw = rig
    names = list(sw.ctl("dpif-netdev/opts-show", json=True))
    assert {"hash-reuse", "specialised-dpcls", "batched-tunnel",
            "fast-extract", "adaptive-polling"} <= set(names)
    all_on = {n: True for n in names}
    reference = run(wire, sw, all_on)
    assert len(reference) == N_BACK
    # each returned frame is the encapsulation of what was sent
    assert all(Ether(b).haslayer("VXLAN") for b in reference)

    configs = [{n: False for n in names}]
    configs += [dict(all_on, **{n: False}) for n in names]
    for opts in configs:
        got = run(wire, sw, opts)
        off = [n for n, on in opts.items() if not on]
        assert got == reference, "output differs with %s off" % off


N_MANY = 960


def test_bypassed_emc_gives_the_same_bytes(rig):
    """emc-bypass and cls-port-hint engage only when the EMC misses burst
    after burst (tens of bursts): every frame here a new microflow, on
    each pass (outer, inner, and the VMs' replies to encap), so with the
    options on the passes skip the EMC, the inner one its hash, and encap
    still gets the same UDP source ports."""
    wire, sw = rig
    many = [pktlib.vxlan_to_vm(f % N_VMS, sport=20000 + f)
            for f in range(N_MANY)]

    def send(opts):
        for name, on in opts.items():
            sw.ctl("dpif-netdev/set-opt", name, "on" if on else "off")
        sw.ctl("dpctl/del-flows")
        got = []
        for k in range(0, N_MANY, 40):
            wire.send(many[k:k + 40])
            got += wire.expect(lambda b: pktlib.is_vxlan(b), n=40)
        assert wire.drain(0.3) == []
        return sorted(pktlib.normalise(b) for b in got)

    both = {"emc-bypass": True, "cls-port-hint": True}
    reference = send({n: False for n in both})
    assert len(reference) == N_MANY
    assert send(both) == reference
    assert send({"emc-bypass": True, "cls-port-hint": False}) == reference
