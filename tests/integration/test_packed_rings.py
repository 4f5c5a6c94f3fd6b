# SPDX-License-Identifier: BSD-3-Clause
"""Packed-ring guests (virtio 1.1, testpmd virtio-user packed_vq=1) and the
options that only act on them: vhost-rx-ask (a smaller dequeue ask),
vhost-tx-align4 (flushes by 4s, a tail held back), and tx-pending-list
and rx-prefetch (any ring; rx-prefetch learns only split rings' lines, so
here it must do nothing harmful).

The same frames go to two packed-ring VMs and come back (macswap, then
encapsulated to the wire) with each option off and on: the bytes are the
same, every packet is accounted for and the mbuf pool's in-use count
returns to where it started (a held tail or a short ask leaks nothing).
"""
import pytest

from vxswitch_tools import packets as pktlib
from vxswitch_tools import harness as vxlib
from vxswitch_tools.switch import assert_no_mbuf_leak

N_VMS = 2
H2_OPTS = ("vhost-rx-ask", "vhost-tx-align4", "tx-pending-list",
           "rx-prefetch")


def frames():
    """8 flows x 3 over both VMs, then 7 more to VM 0 (4 + a tail of 3)."""
    out = []
    for flow in range(8):
        out += [pktlib.vxlan_to_vm(flow % N_VMS, sport=41000 + flow)] * 3
    out += [pktlib.vxlan_to_vm(0, sport=43000 + i) for i in range(7)]
    return out


@pytest.fixture
def rig(wire, make_switch, make_testpmd, rundir):
    topo = pktlib.topology(wire.devargs(), rundir, N_VMS, emc_inv_prob=1)
    vms = make_testpmd(sockets=vxlib.vhost_paths(topo), name="vms",
                       cpus=(0,), vdev_extra="packed_vq=1")
    sw = make_switch(topo)
    vms.wait_ready()
    sw.wait_ports_up(timeout=30)
    return wire, sw


def set_opts(sw, on):
    for name in H2_OPTS:
        sw.ctl("dpif-netdev/set-opt", name, "on" if name in on else "off")
    opts = sw.ctl("dpif-netdev/opts-show", json=True)
    assert {n: opts[n] for n in H2_OPTS} == {n: n in on for n in H2_OPTS}


def round_trip(wire, sw, sent):
    """Sends sent, returns what came back (sorted, normalised), checking
    the pool and the counters balance."""
    sw.ctl("dpctl/del-flows")
    baseline = sw.mempool()["in_use"]
    before = pktlib.pmd_stats(sw)
    wire.send(sent)
    back = wire.expect(lambda b: pktlib.is_vxlan(b), n=len(sent))
    assert wire.drain(0.3) == []
    assert_no_mbuf_leak(sw, baseline)
    after = pktlib.pmd_stats(sw)
    # into the VMs and back out: the PMDs received each frame twice
    # (wire, then VM) and sent it twice (VM, then wire)
    keys = ("packets", "tx_packets", "rx_packets_vhost", "tx_packets_vhost")
    got = {k: after[k] - before[k] for k in keys}
    n = len(sent)
    assert got == {"packets": 2 * n, "tx_packets": 2 * n,
                   "rx_packets_vhost": n, "tx_packets_vhost": n}
    return sorted(pktlib.normalise(b) for b in back)


def test_packed_guests_same_bytes_each_option(rig):
    wire, sw = rig
    log = sw.log_tail(400)
    assert log.count("packed rings") >= N_VMS, log
    set_opts(sw, ())
    reference = round_trip(wire, sw, frames())
    assert len(reference) == len(frames())
    for on in [(n,) for n in H2_OPTS] + [H2_OPTS]:
        set_opts(sw, on)
        assert round_trip(wire, sw, frames()) == reference, \
            "output differs with %s on" % (on,)


def test_single_packet_not_held(rig):
    """vhost-tx-align4 keeps a tail of n % 4 only for a round: a lone
    packet to a packed VM still arrives (and comes back) at once."""
    wire, sw = rig
    set_opts(sw, H2_OPTS)
    for i in range(3):
        one = [pktlib.vxlan_to_vm(i % N_VMS, sport=44000 + i)]
        assert len(round_trip(wire, sw, one)) == 1


def test_set_param_tx_flush_interval(rig, tmp_path):
    """dpif-netdev/set-param tx-flush-interval-us: bad input names its
    token and changes nothing; a good value reaches the running config
    (save-config) and traffic still flows."""
    wire, sw = rig
    saved = tmp_path / "saved.yaml"

    def interval():
        sw.ctl("save-config", saved)
        lines = [l.strip() for l in saved.read_text().splitlines()
                 if "tx-flush-interval-us" in l]
        return lines[0] if lines else None
    default = interval()
    for args, token in ((("tx-flush-interval-us", "1001"), "'1001'"),
                        (("tx-flush-interval-us", "-1"), "'-1'"),
                        (("tx-flush-interval-us", "20x"), "'20x'"),
                        (("tx-flush-interval-us", "+5"), "'+5'"),
                        (("tx-flush-intervals", "20"),
                         "'tx-flush-intervals'")):
        r = sw.ctl_result("dpif-netdev/set-param", *args)
        assert r.returncode != 0 and token in r.stdout + r.stderr, r
        assert interval() == default
    assert sw.ctl("dpif-netdev/set-param", "tx-flush-interval-us",
                  "200").strip() == "tx-flush-interval-us 200"
    assert interval() == "tx-flush-interval-us: 200"
    set_opts(sw, H2_OPTS)
    assert len(round_trip(wire, sw, frames())) == len(frames())
    sw.ctl("dpif-netdev/set-param", "tx-flush-interval-us", "0")
    assert interval() in ("tx-flush-interval-us: 0", None)
    assert len(round_trip(wire, sw, frames())) == len(frames())
