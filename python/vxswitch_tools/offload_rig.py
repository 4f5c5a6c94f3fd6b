# SPDX-License-Identifier: BSD-3-Clause
"""The offload rig of the integration tests (test_offload,
test_offload_admission, test_offload_probe; the fixture is conftest.py's
offload_rig_factory): forwarding_rig's veth NIC and testpmd VMs, the
switch's dpdk-phy port with an offload engine (MODEL: the rte_flow model).

  OffloadRig          the wire, the switch and the VMs; wave(), offload(),
                      megaflows(), wait_installed(), close()
  to_vms              frames of n inner flows to each VM
  check_offload_show  offload/show against what is expected
"""

import re

from . import harness as vxlib
from . import packets as pktlib
from .forwarding_rig import RECV_TIMEOUT

FAIL_REASONS = ("not_canonical", "capacity", "validate", "exists",
                "cancelled", "profile", "collision", "no_tunnel_port")
MODEL = {"offload": "model"}


def to_vms(n_vms, flows_per_vm, repeats, base=41000):
    """flows_per_vm inner flows (inner UDP source ports) to each VM, each
    frame `repeats` times in a row; returns (frames, {vm: count})."""
    frames, per_vm = [], {}
    for flow in range(n_vms * flows_per_vm):
        vm = flow % n_vms
        frames += [pktlib.vxlan_to_vm(vm, sport=base + flow)] * repeats
        per_vm[vm] = per_vm.get(vm, 0) + repeats
    return frames, per_vm


class OffloadRig:
    def __init__(self, wire, sw, vms, n_vms):
        self.wire, self.sw, self.vms, self.n = wire, sw, vms, n_vms

    def counters(self):
        return pktlib.ctl_counters(self.sw)

    def wave(self, frames, n_back, drops=0):
        """Sends frames; waits for n_back VXLAN frames back and for the
        switch to have received every frame sent and counted `drops`
        drops. Returns (returned frames, normalised and sorted; counter
        delta, with "mark_hits" in delta["pmd"])."""
        before = self.counters()
        self.wire.flush()
        self.wire.send(frames)
        back = self.wire.recv(n_back, timeout=RECV_TIMEOUT, quiet=0.3,
                              match=pktlib.is_vxlan)
        assert len(back) == n_back, ("%d of %d frames came back"
                                     % (len(back), n_back))

        def settled():
            d = pktlib.counter_delta(before, self.counters())
            ok = (d["ports"]["dpdk-phy"]["rx_packets"] == len(frames) and
                  d["ports"]["dpdk-phy"]["tx_packets"] == n_back and
                  sum(d["drops"].values()) >= drops)
            return d if ok else None
        d = vxlib.wait_for(settled, 10, 0.1, "switch counters to settle")
        assert "mark_hits" in d["pmd"], (
            "dpif-netdev/pmd-stats-show has no mark_hits: %r"
            % pktlib.pmd_stats(self.sw))
        return sorted(pktlib.normalise(b) for b in back), d

    def offload(self):
        return self.sw.ctl("offload/show", json=True)

    def megaflows(self):
        """dpctl/dump-flows --json; every megaflow must say whether it is
        offloaded and with which mark."""
        flows = self.sw.ctl("dpctl/dump-flows", json=True)
        for f in flows:
            assert "offloaded" in f and "mark" in f, (
                "dpctl/dump-flows megaflow without offloaded/mark: %r" % f)
            assert isinstance(f["offloaded"], bool), f
            assert (f["mark"] != 0) == f["offloaded"], f
        return flows

    def inner(self, vm, flows=None):
        """The megaflows that deliver to VM vm (behind the tnl_pop), of
        one dump (flows) or a new one."""
        return [f for f in (self.megaflows() if flows is None else flows)
                if "in_port(vxlan)" in f["match"]
                and f["actions"] == "vhost-user%d" % vm]

    def wait_installed(self, n, what=""):
        """Waits until offload/show says n rules are installed and n
        megaflows show offloaded:true (the PMD took the completions);
        returns (offload/show, the offloaded megaflows)."""
        last = [None]

        def ok():
            st = self.offload()
            off = [f for f in self.megaflows() if f["offloaded"]]
            last[0] = (st, off)
            return (st, off) if st["installed"] == n and len(off) == n \
                else None
        return vxlib.wait_for(
            ok, 10, 0.05, lambda: "%d rules installed %s(offload/show, "
            "offloaded megaflows: %r)\n%s" % (n, what, last[0],
                                              self.sw.log_tail(20)))

    def close(self):
        """Stops the switch (mbufs back, exit 0) and the VMs."""
        vxlib.assert_no_mbuf_leak(self.sw)
        assert self.sw.stop() == 0, self.sw.log_tail(20)
        self.vms.stop()


def check_offload_show(st, installed, failed=None, text=None):
    """offload/show --json (and its text form) against what is expected;
    failed: {reason: n}, the others 0."""
    assert st["engine"] == "model", st
    assert st["installed"] == installed, st
    assert st["marks_in_use"] == installed, st
    assert st["dropped_requests"] == 0, st
    assert set(st["failed"]) == set(FAIL_REASONS), st
    want = dict.fromkeys(FAIL_REASONS, 0)
    want.update(failed or {})
    assert st["failed"] == want, st
    assert st["requests"] >= installed + sum(want.values()), st
    lat = st["insert_latency_us"]
    if installed:
        assert 0 <= lat["p50"] <= lat["p99"] <= lat["max"], st
    if text is not None:
        assert "model" in text, text
        m = re.search(r"installed\W*(\d+)", text)
        assert m and int(m.group(1)) == installed, text
