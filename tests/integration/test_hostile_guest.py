# SPDX-License-Identifier: BSD-3-Clause
"""Guests cannot hurt the host or each other (issue 9, part 3).

VM 0 is a well-behaved guest (testpmd virtio-user, macswap); vhost-user1's
socket is driven by our hostile frontend (vhost_frontend.py), one case
after another. After each case the switch must still be running and still
forward VM 0's traffic byte for byte; refusals are counted on the port
(show --json: refused_mem, refused_ring) and the switch exits with 0 and
no mbuf leaked (make_switch's teardown).
"""

import time

import pytest

from vxswitch_tools import packets as pktlib
from vxswitch_tools import vhost_frontend as vf
from vxswitch_tools import harness as vxlib

HOSTILE = "vhost-user1"


class HostileRig:
    def __init__(self, wire, sw, vm, sock):
        self.wire, self.sw, self.vm, self.sock = wire, sw, vm, sock

    def port(self, name=HOSTILE):
        return self.sw.port(name)

    def forwards(self, n=8):
        """VM 0 gets n frames and sends them back, encapsulated."""
        frames = [pktlib.vxlan_to_vm(0, sport=41000 + i) for i in range(n)]
        self.wire.flush()
        self.wire.send(frames)
        got = self.wire.recv(n, timeout=10, quiet=0.3,
                             match=lambda b: pktlib.is_vxlan(b, 0))
        assert len(got) == n, "VM 0 got %d of %d frames back\n%s" % (
            len(got), n, self.sw.log_tail(20))

    def case(self, name, **opts):
        """Runs one frontend case on the hostile socket (the switch
        connects to it within its 1 s reconnect interval)."""
        res = vf.run_case(name, self.sock, accept_timeout=15, **opts)
        assert self.sw.running, "switch died in case %s\n%s" % (
            name, self.sw.log_tail(30))
        return res


@pytest.fixture
def hostile_rig(wires, make_switch, make_testpmd, rundir):
    def make(args=()):
        wire = pktlib.Wire().__enter__()
        wires.append(wire)
        topo = pktlib.topology(wire.devargs(), rundir, 2)
        # only VM 0 has flows: what the hostile guest sends is a counted
        # miss, not a VXLAN frame on the wire
        topo["flows"] = pktlib.vm_flows(0)
        socks = vxlib.vhost_paths(topo)
        vm = make_testpmd(sockets=socks[:1], name="vm0", cpus=(0,))
        sw = make_switch(topo, args=list(args))
        vm.wait_ready()
        sw.wait_ports_up("vhost-user0", timeout=30)
        return HostileRig(wire, sw, vm, socks[1])
    return make


def test_hostile_frontend_cases(hostile_rig):
    """Every hostile case, one after another on one switch: it survives
    each, keeps forwarding for VM 0, and refuses (counts, disconnects) the
    tiny ring and the memory table past the end of its file."""
    rig = hostile_rig()
    rig.forwards()

    r = rig.case("good")
    assert r["closed_after"] is None and r["used"] == 256, r

    r = rig.case("tiny_ring")
    assert r["closed_after"] is not None, r
    assert rig.port()["refused_ring"] == 1
    assert "refused SET_VRING_NUM" in rig.sw.log
    rig.forwards()

    r = rig.case("mem_past_end")
    assert r["closed_after"] is not None, r
    assert rig.port()["refused_mem"] == 1
    assert "past the end of its file" in rig.sw.log
    rig.forwards()

    for name in ("idx_jump", "desc_oob", "desc_loop"):
        rig.case(name, hold=1.0)
        rig.forwards()

    for name in ("oversized", "unknown_request"):
        r = rig.case(name)
        assert r["closed_after"] is not None, (name, r)
    rig.case("disconnect_mid_message")
    assert vf.flood(rig.sock, count=3, hold=10)["connections"] == 3
    rig.forwards()

    # still a working port for a guest that behaves
    r = rig.case("good", hold=1.0)
    assert r["closed_after"] is None and r["used"] == 256, r
    c = rig.port()
    assert (c["refused_ring"], c["refused_mem"]) == (1, 1)


def stall_and_reattach(rig, hold):
    """Stalls a frontend on the hostile socket (a header, no payload) and,
    meanwhile, restarts VM 0. Returns (seconds until the switch cut the
    stalled frontend off or None, seconds VM 0 took to come back up)."""
    srv = vf.listen(rig.sock)
    srv.settimeout(15)
    s, _ = srv.accept()
    fe = vf.Frontend(s)
    try:
        fe.negotiate()
        fe.send(vf.SET_MEM_TABLE, b"", fds=[fe.memfd], size=8 + 32)
        t_stall = time.monotonic()
        rig.vm.stop()
        vxlib.wait_for(lambda: rig.sw.port("vhost-user0")["state"] == "down",
                       10, 0.05, what="vhost-user0 down")
        t0 = time.monotonic()
        rig.vm.start()
        rig.vm.wait_ready(timeout=hold + 15)
        rig.sw.wait_ports_up("vhost-user0", timeout=hold + 15)
        attach = time.monotonic() - t0
        closed = fe.wait_closed(max(0.0, hold - (time.monotonic() - t_stall)))
        if closed is not None:
            closed += t0 - t_stall
        return closed, attach
    finally:
        fe.close()
        srv.close()


def test_stalled_frontend_is_cut_off(hostile_rig):
    """A frontend that sends a header and never its payload is
    disconnected after --vhost-msg-timeout, and while it stalls a
    well-behaved guest attaches (rte_vhost reads every guest's messages in
    one thread: without the timeout VM 0 waits for the stall to end)."""
    rig = hostile_rig(args=["--vhost-msg-timeout", "500"])
    closed, attach = stall_and_reattach(rig, hold=8.0)
    assert closed is not None, "the stalled frontend was never cut off"
    assert attach < 4.0, "VM 0 took %.1f s to attach" % attach
    rig.forwards()
