# SPDX-License-Identifier: BSD-3-Clause
"""The forwarding rig of the integration tests (test_forwarding and the
tests that reuse its set-up; the fixture is conftest.py's rig_factory).

The NIC is a veth pair (packets.Wire): the switch drives its root-namespace
end with net_af_packet, the test sends scapy-built VXLAN frames from the
remote VTEP into the other end and captures what the switch sends back.
The VMs are one dpdk-testpmd with a virtio-user port per VM in macswap.

  Rig      the wire, the switch and the VMs of one rig_factory(n) call
  Stream   a numbered stream of frames to VM 0, from a thread
  seq_of   a captured frame's sequence number
  start_rig, wait_packets, settle
           test_robustness's rig (the fixtures' make_switch/make_testpmd
           and a wire): start, wait for n packets, wait for n drops
"""

import json
import threading
import time

from . import harness as vxlib
from . import packets as pktlib

RECV_TIMEOUT = 15.0


def traffic_counters(c):
    """The packet counts of a ctl_counters() result (no cycle counts)."""
    keep = ("packets", "tunnel_pops", "tunnel_pushes", "upcalls",
            "tx_packets", "drops", "arp_replies")
    return {"ports": {n: {k: v for k, v in p.items()
                          if k.endswith(("_packets", "_bytes", "_dropped"))}
                      for n, p in c["ports"].items()},
            "pmd": {k: v for k, v in c["pmd"].items() if k in keep}}


class Rig:
    def __init__(self, wire, sw, vms, n_vms):
        self.wire, self.sw, self.vms, self.n = wire, sw, vms, n_vms

    def counters(self):
        return pktlib.ctl_counters(self.sw)

    def roundtrip(self, frames, expect, timeout=RECV_TIMEOUT):
        """Sends frames, returns (captured VXLAN frames, counter delta).
        Waits for `expect` frames back, then settles until the switch's
        counters stop moving."""
        before = self.counters()
        self.wire.flush()
        self.wire.send(frames)
        got = self.wire.recv(expect, timeout=timeout, quiet=0.3,
                             match=pktlib.is_vxlan)
        after = self.settle(before, len(frames))
        return got, pktlib.counter_delta(before, after)

    def settle(self, before, n_sent, timeout=10.0):
        """Counters once the switch has received all n_sent frames and the
        counters stopped changing."""
        last = [None]

        def stable():
            c = self.counters()
            rx = (c["ports"]["dpdk-phy"]["rx_packets"]
                  - before["ports"]["dpdk-phy"]["rx_packets"])
            key = json.dumps(traffic_counters(c), sort_keys=True)
            ok = rx >= n_sent and key == last[0]
            last[0] = key
            return c if ok else None
        return vxlib.wait_for(stable, timeout, 0.2,
                              what="switch counters to settle")


class Stream:
    """Sends frames to 192.1.0.0 from a thread, one every `gap` seconds,
    each with its sequence number in the inner payload, until stopped.
    times[seq]: when frame seq was handed to the kernel."""

    def __init__(self, wire, gap=0.002):
        self.wire, self.gap = wire, gap
        self.sent = 0
        self.frames = {}
        self.times = {}
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self.error = None

    def frame(self, seq):
        """(inner frame, VXLAN frame) number seq: to VM 0, one flow."""
        inner = pktlib.inner_frame(
            0, sport=43000, payload=b"seq=%08d" % seq + b"\0" * 16)
        return inner, pktlib.vxlan_frame(inner)

    def _run(self):
        try:
            while not self._stop.is_set():
                seq = self.sent
                inner, frame = self.frame(seq)
                self.frames[seq] = inner
                self.wire.send([frame])
                self.times[seq] = time.monotonic()
                self.sent = seq + 1
                self._stop.wait(self.gap)
        except Exception as e:       # reported by stop()
            self.error = e

    def __enter__(self):
        self._t.start()
        return self

    def stop(self):
        self._stop.set()
        self._t.join(10)
        assert not self._t.is_alive()
        if self.error:
            raise self.error
        return self.sent

    def __exit__(self, *exc):
        if self._t.is_alive():
            self._stop.set()
            self._t.join(10)


def seq_of(b):
    i = b.find(b"seq=", 50)
    assert i > 0, b.hex()
    return int(b[i + 4:i + 12])


# A frame sent this long before a rule change may still be in the switch
# or a VM when it happens, and take either path (be lost, if no rule is
# left for it): only those sent earlier must have taken the old path.
IN_FLIGHT_S = 0.25


def start_rig(make_switch, make_testpmd, rundir, wire, n_vms=2,
              vhost_type="dpdkvhostuserclient", **topo_kw):
    """The VMs and the switch, in the order their vhost-user roles need
    (whoever owns the sockets first); returns both once every port is up
    and the wire is quiet."""
    topo = pktlib.topology(wire.devargs(), rundir, n_vms=n_vms,
                      vhost_type=vhost_type, **topo_kw)
    socks = vxlib.vhost_paths(topo, type=vhost_type)
    if vhost_type == "dpdkvhostuserclient":
        vms = make_testpmd(sockets=socks, name="vms")
        sw = make_switch(topo)
    else:
        sw = make_switch(topo)
        vms = make_testpmd(sockets=socks, name="vms", server=False)
    vms.wait_ready()
    sw.wait_ports_up(timeout=30)
    wire.drain(0.2)
    return sw, vms


def wait_packets(sw, target, timeout=10):
    """Waits until the PMD has received `target` packets in total."""
    last = {}

    def ok():
        last["n"] = pktlib.pmd_stats(sw)["packets"]
        return last["n"] >= target
    vxlib.wait_for(ok, timeout, 0.05,
                   lambda: "PMD to receive %d packets (has %s)"
                   % (target, last.get("n")))
    return last["n"]


def settle(sw, st0, n, timeout=10):
    """After sending n frames that must all be dropped: waits until the
    PMD has received them and counted n drops (a PMD sharing its core with
    other busy pollers may be between the two), then a little longer for
    anything counted twice; returns the PMD stats."""
    wait_packets(sw, st0["packets"] + n, timeout)
    vxlib.wait_for(lambda: sum(pktlib.pmd_drops(sw).values()) -
                   sum(st0["drops"].values()) >= n, timeout, 0.05,
                   what="%d more drops" % n)
    time.sleep(0.05)
    return pktlib.pmd_stats(sw)
