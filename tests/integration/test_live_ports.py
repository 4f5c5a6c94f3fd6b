# SPDX-License-Identifier: BSD-3-Clause
"""Ports that come and go while the switch runs (issue 11, items 1 and 2).

The NIC is a veth pair (packets.Wire): the test plays the remote VTEP.
The VMs are vhost_guest.Guest: a vhost-user frontend in this process (no
CPU spent polling, so 64 of them fit on this 2-core host), whose rings
the test reads and writes. The switch runs two PMDs on one CPU.

  zero loss       a flow to VM 0 and one from it, counted frame by frame
                  and byte for byte, while 50 vhost-user ports are added
                  and removed (server and client ones); add/del latency
  64 VMs          attached one by one at run time, each up and reached
  del under load  vm1 removed while a stream runs to it: each frame
                  delivered or dropped by reason, VM 0 loses nothing
  flow first      a flow naming vm9 before vm9 exists matches once it is
                  added; del-port keeps the flow (frames dropped and
                  counted); re-added, vm9 has its number back
  bad input       refused with exit 1 naming the token; nothing changes
  set Interface   rxq affinity moves the queue; n_rxq re-creates the port
                  under its number, the guest reconnects
  restart         ports added at run time and their flows come back from
                  the state file; the same frames give the same bytes
"""

import re
import statistics
import threading
import time
from pathlib import Path

import pytest

from vxswitch_tools import harness as vxlib
from vxswitch_tools import packets as P
from vxswitch_tools.addressing import SEED
from vxswitch_tools.vhost_guest import Guest

FAR_VTEP = P.REMOTE_IP


def topology(wire, rundir):
    topo = P.topology(wire.devargs(), rundir, n_vms=0)
    topo["eal"]["lcores"] = "0,(1-2)@1"
    topo["datapath"].update({"pmd-cores": [1, 2],
                             "pmd-rxq-assign": "group",
                             "pmd-rxq-isolate": False,
                             "optimisations": {"idle-backoff": True}})
    return topo


@pytest.fixture
def live(wires, make_switch, rundir):
    """(switch, wire) with no VM: the underlay, the tunnel, two PMDs."""
    def make(**kw):
        wire = P.Wire().__enter__()
        wires.append(wire)
        sw = make_switch(topology(wire, rundir), **kw)
        return sw, wire
    return make


@pytest.fixture
def guests():
    made = []
    yield made
    for g in made:
        g.close()


def vm_flows(name, i):
    """VM i on port `name`: decap to it by inner IP, encap what it sends."""
    return ["in_port=vxlan,ip,nw_dst=%s,actions=output:%s" % (SEED.ip(i),
                                                              name),
            "in_port=%s,actions=set_tunnel:%d,set_field:%s->tun_dst,"
            "set_field:%s->tun_src,output:vxlan" % (name, P.VNI, FAR_VTEP,
                                                    P.VTEP_IP)]


def add_vm(sw, rundir, guests, name, i=None, flows=True, extra=()):
    """A guest on RUNDIR/NAME.sock, add-port NAME (dpdkvhostuserclient),
    attached and up; with flows, VM i's two rules."""
    g = Guest.listen(rundir / ("%s.sock" % name))
    guests.append(g)
    sw.ctl("add-port", name, "type=dpdkvhostuserclient",
           "options:vhost-server-path=%s" % g.path, *extra)
    g.attach()
    sw.wait_ports_up(name, timeout=10)
    if flows:
        for f in vm_flows(name, i):
            sw.ctl("add-flow", f)
    return g


def to_vm(i, k=0, size=78):
    """(VXLAN frame for VM i, the inner frame it must deliver)."""
    inner = P.inner_frame(i, sport=41000 + k, size=size)
    return P.vxlan_frame(inner, sport=50000 + k % 1000), bytes(inner)


def from_vm(i, k=0):
    return bytes(P.inner_frame(0, src_ip=SEED.ip(i), dst_ip="192.2.0.9",
                               src_mac=SEED.mac(i),
                               dst_mac=P.INNER_REMOTE_MAC, sport=42000 + k,
                               size=90))


def no_ip_id(b):
    """The outer IPv4 id differs run to run (by design): it and the header
    checksum zeroed."""
    assert P.ip_csum_ok(b)
    return b[:18] + b"\0\0" + b[20:24] + b"\0\0" + b[26:]


def ports_of(sw):
    return {p["name"]: p for p in sw.ctl("list-ports", json=True)}


def drops(sw):
    return P.ctl_counters(sw)["pmd"].get("drops", {})


def state_text(path):
    """The state file but for the time it was written."""
    return re.sub(r"(?m)^# saved: .*$", "", path.read_text())


def rxq_pmd(sw, port):
    """{queue: core} from pmd-rxq-show --json."""
    return {q["queue"]: q["core"]
            for q in sw.ctl("dpif-netdev/pmd-rxq-show", json=True)
            if q["port"] == port}


# ------------------------------------------------------------------ tests

def test_zero_loss_while_50_ports_come_and_go(live, guests, rundir):
    sw, wire = live()
    vm = add_vm(sw, rundir, guests, "vm0", 0)
    # warm the flows up (the first frame of each is an upcall)
    f, inner = to_vm(0)
    wire.send([f])
    assert vm.recv(1) == [inner]
    vm.send([from_vm(0)])
    wire.expect(P.is_vxlan, 1)
    wire.flush()
    before = P.ctl_counters(sw)

    # the flows run from before the first add-port to after the last
    # del-port: the underlay sends bursts of 10 until the churn is over
    # (and 1000 frames at least); VM 0 sends 4 frames a round meanwhile
    down, up, got = [], [], []
    churning, stop = threading.Event(), threading.Event()
    churning.set()

    def underlay():
        k = 0
        while churning.is_set() or k < 1000:
            batch = [to_vm(0, k + j) for j in range(10)]
            wire.send([f for f, _ in batch])
            down.extend(inner for _, inner in batch)
            k += 10
            time.sleep(0.005)

    def guest():
        while not stop.is_set():
            got.extend(vm.poll())
            if churning.is_set() or len(up) < 400:
                frames = [from_vm(0, len(up) + j) for j in range(4)]
                vm.send(frames)
                up.extend(frames)
            time.sleep(0.002)
        got.extend(vm.recv(len(down) - len(got), timeout=5, quiet=0.3))

    t_wire = threading.Thread(target=underlay, daemon=True)
    t_vm = threading.Thread(target=guest, daemon=True)
    t_wire.start()
    t_vm.start()
    time.sleep(0.2)
    add_ms, del_ms = [], []
    for k in range(50):
        name = "tmp%d" % k
        kind = "dpdkvhostuserclient" if k % 5 == 4 else "dpdkvhostuser"
        t0 = time.monotonic()
        sw.ctl("add-port", name, "type=" + kind,
               "options:vhost-server-path=%s" % (rundir / (name + ".sock")))
        t1 = time.monotonic()
        if k % 10 == 0:
            assert name in ports_of(sw)
            assert 0 in rxq_pmd(sw, name), "%s not polled" % name
        t2 = time.monotonic()
        sw.ctl("del-port", name)
        t3 = time.monotonic()
        add_ms.append((t1 - t0) * 1e3)
        del_ms.append((t3 - t2) * 1e3)
    time.sleep(0.2)
    churning.clear()
    t_wire.join(30)
    time.sleep(0.2)
    stop.set()
    t_vm.join(15)
    n_in, n_out = len(down), len(up)
    print("\nadd-port: median %.1f ms, max %.1f ms; del-port: median %.1f "
          "ms, max %.1f ms (50 ports, vxswitch-ctl round trip included); "
          "%d frames to VM 0 and %d from it meanwhile"
          % (statistics.median(add_ms), max(add_ms),
             statistics.median(del_ms), max(del_ms), n_in, n_out))

    out = wire.recv(n_out, timeout=10, quiet=0.3, match=P.is_vxlan)
    d = P.counter_delta(before, P.ctl_counters(sw))
    counts = {"drops": {k: v for k, v in d["drops"].items() if v},
              "vm0": d["ports"]["vm0"], "phy": d["ports"]["dpdk-phy"]}
    assert len(got) == n_in, "VM 0 got %d of %d frames: %s" % (
        len(got), n_in, counts)
    assert got == down, "frames differ or are reordered"
    assert len(out) == n_out, "the wire got %d of %d: %s" % (
        len(out), n_out, counts)
    assert [b[50:] for b in out] == up
    assert counts["drops"] == {}
    assert (d["ports"]["vm0"]["tx_packets"], d["ports"]["vm0"]["rx_packets"],
            d["ports"]["dpdk-phy"]["rx_packets"],
            d["ports"]["dpdk-phy"]["tx_packets"]) == (n_in, n_out, n_in,
                                                      n_out), counts
    assert sorted(ports_of(sw)) == ["dpdk-phy", "vm0", "vxlan"]


def test_64_vms_attached_one_by_one(live, guests, rundir):
    sw, wire = live()
    n = 64
    t0 = time.monotonic()
    for i in range(n):
        name = "vm%d" % i
        g = add_vm(sw, rundir, guests, name, i)
        f, inner = to_vm(i, i)
        wire.send([f])
        assert g.recv(1, quiet=0) == [inner], "%s got nothing" % name
    took = time.monotonic() - t0
    print("\n%d VMs attached and reached one by one in %.1f s" % (n, took))
    shown = {p["name"]: p["state"] for p in sw.show()["ports"]}
    assert all(shown.get("vm%d" % i) == "up" for i in range(n)), shown
    # every one still reached, and every one answers, once all are there
    wire.send([to_vm(i, 100 + i)[0] for i in range(n)])
    for i, g in enumerate(guests):
        assert g.recv(1, quiet=0) == [to_vm(i, 100 + i)[1]], "vm%d" % i
        g.send([from_vm(i, i)])
    out = wire.recv(n, timeout=10, quiet=0.3, match=P.is_vxlan)
    assert sorted(b[50:] for b in out) == sorted(from_vm(i, i)
                                                 for i in range(n))
    assert {k: v for k, v in drops(sw).items() if v} == {}
    for i in range(n):
        sw.ctl("del-port", "vm%d" % i)
    assert sorted(ports_of(sw)) == ["dpdk-phy", "vxlan"]


def test_flow_naming_a_port_before_it_exists(live, guests, rundir):
    sw, wire = live()
    for f in vm_flows("vm9", 9):
        sw.ctl("add-flow", f)
    flows = sw.ctl("dump-flows")
    assert "output:vm9" in flows and "in_port=vm9" in flows, flows

    def burst(k0, n=5):
        frames = [to_vm(9, k0 + k) for k in range(n)]
        wire.send([f for f, _ in frames])
        return [inner for _, inner in frames]

    # no vm9 yet: dropped, counted
    d0 = drops(sw)
    burst(0)
    vxlib.wait_for(lambda: sum(P.drops_delta(d0, drops(sw)).values()) == 5,
                   5, 0.05, what="5 drops for the missing vm9")
    g = add_vm(sw, rundir, guests, "vm9", flows=False)
    ofport = ports_of(sw)["vm9"]["ofport"]
    want = burst(10)
    assert g.recv(5) == want
    g.send([from_vm(9)])
    assert [b[50:] for b in wire.expect(P.is_vxlan, 1)] == [from_vm(9)]

    sw.ctl("del-port", "vm9")
    assert "vm9" not in ports_of(sw)
    assert sw.ctl("dump-flows").count("vm9") == flows.count("vm9")
    d0 = drops(sw)
    burst(20)
    vxlib.wait_for(lambda: sum(P.drops_delta(d0, drops(sw)).values()) == 5,
                   5, 0.05, what="5 drops once vm9 is gone")
    print("\ndrops for a removed port: %s" % P.drops_delta(d0, drops(sw)))
    assert g.poll() == []

    sw.ctl("add-port", "vm9", "type=dpdkvhostuserclient",
           "options:vhost-server-path=%s" % g.path)
    g.attach()
    sw.wait_ports_up("vm9", timeout=10)
    assert ports_of(sw)["vm9"]["ofport"] == ofport
    assert g.poll() == [], "frames of the gap delivered late"
    want = burst(30)
    assert g.recv(5) == want


def test_bad_input_changes_nothing(live, guests, rundir):
    sw, wire = live()
    add_vm(sw, rundir, guests, "vm0", 0)
    sw.ctl("add-port", "srv1", "type=dpdkvhostuser",
           "options:vhost-server-path=%s" % (rundir / "srv1.sock"))
    used = str(rundir / "vm0.sock")
    fresh = str(rundir / "new.sock")

    def view():
        return (sw.ctl("list-ports", json=True),
                [(p["name"], p.get("ofport"), p.get("type"), p.get("state"))
                 for p in sw.show()["ports"]],
                vxlib.rules_without_stats(sw.ctl("dump-flows")),
                sorted((q["port"], q["queue"], q["core"]) for q in
                       sw.ctl("dpif-netdev/pmd-rxq-show", json=True)))
    state = Path(str(sw.config_path) + ".state")
    vxlib.wait_for(lambda: not sw.ctl("state/show", json=True)["pending"],
                   5, 0.05, what="the state file written")
    saved = state_text(state)
    before = view()
    client = ["type=dpdkvhostuserclient"]
    bad = [
        (["add-port", "x1", *client, "options:vhost-server-path=" + fresh,
          "options:bogus=1"], "bogus"),
        (["add-port", "x1", *client, "options:vhost-server-path=" + fresh,
          "options:n_rxq=abc"], "abc"),
        (["add-port", "x1", *client, "options:vhost-server-path=" + fresh,
          "options:n_rxq=0"], "n-rxq"),
        (["add-port", "x1", *client, "options:vhost-server-path=" + fresh,
          "options:n_rxq=99"], "n-rxq 99"),
        (["add-port", "vm0", *client, "options:vhost-server-path=" + fresh],
         "vm0"),
        (["add-port", "x1", *client, "options:vhost-server-path=" + used],
         used),
        (["add-port", "x1", "type=dpdkvhostuser",
          "options:vhost-server-path=" + used], used),
        (["add-port", "x1", "type=vxlan", "options:remote_ip=flow"],
         "more than one vxlan port: 'vxlan' is the tunnel port"),
        (["add-port", "x1", "type=vxlan"], "missing option 'remote_ip'"),
        (["add-port", "x1", "type=bogus"], "bogus"),
        (["add-port", "x1", *client], "path"),
        (["add-port", "x1", *client, "options:vhost-server-path=" + fresh,
          "ofport_request=1"], "ofport"),
        (["del-port", "dpdk-phy"], "the underlay port cannot be removed"),
        (["del-port", "nosuch"], "nosuch"),
        (["set", "Interface", "vm0", "options:bogus=1"], "bogus"),
        (["set", "Interface", "vm0", "options:n_rxq=0"], "n-rxq"),
        # taken apart and made again: refused before vm0 is touched
        (["set", "Interface", "srv1", "options:vhost-server-path=" + used],
         used),
        (["set", "Interface", "srv1", "ofport_request=1"], "ofport"),
        (["set", "Interface", "srv1", "options:n_rxq=99"], "n-rxq 99"),
        (["set", "Interface", "nosuch", "options:n_rxq=2"], "nosuch"),
        (["set", "Bridge", "vm0", "options:n_rxq=2"], "Bridge"),
        (["set", "Interface", "vm0", "other_config:pmd-rxq-affinity=x"],
         "rxq-affinity 'x'"),
    ]
    wrong = []
    for args, token in bad:
        r = sw.ctl_result(*args)
        if r.returncode != 1 or token not in r.stderr:
            wrong.append("%s -> %d %r" % (" ".join(args), r.returncode,
                                          r.stderr.strip()))
        else:
            print("%s\n    %s" % (" ".join(args), r.stderr.strip()))
    assert not wrong, "\n".join(wrong)
    assert view() == before
    assert sw.running
    time.sleep(0.3)
    # (n_rxq=99 is refused by the device once srv1 is taken apart: srv1
    # is made again as it was, and the state file written again the same)
    assert state_text(state) == saved
    # and vm0 still forwards
    f, inner = to_vm(0, 5)
    wire.send([f])
    assert guests[0].recv(1) == [inner]


def test_set_interface_affinity_and_n_rxq(live, guests, rundir):
    sw, wire = live()
    g = add_vm(sw, rundir, guests, "vm0", 0,
               extra=["other_config:pmd-rxq-affinity=0:1"])
    ofport = ports_of(sw)["vm0"]["ofport"]
    assert rxq_pmd(sw, "vm0") == {0: 1}

    def forwards(k):
        f, inner = to_vm(0, k)
        wire.send([f])
        assert g.recv(1, quiet=0) == [inner]
        g.send([from_vm(0, k)])
        assert [b[50:] for b in wire.expect(P.is_vxlan, 1)] == \
            [from_vm(0, k)]
    forwards(0)

    sw.ctl("set", "Interface", "vm0", "other_config:pmd-rxq-affinity=0:2")
    assert rxq_pmd(sw, "vm0") == {0: 2}
    assert g.connections == 1 and not g.closed(), "the guest was dropped"
    forwards(1)

    sw.ctl("set", "Interface", "vm0", "options:n_rxq=2")
    g.attach()                          # the switch connects again
    sw.wait_ports_up("vm0", timeout=10)
    assert g.connections == 2
    p = ports_of(sw)["vm0"]
    assert (p["ofport"], p["n_rxq"]) == (ofport, 2)
    queues = rxq_pmd(sw, "vm0")
    assert sorted(queues) == [0, 1] and queues[0] == 2, queues
    forwards(2)


def test_restart_restores_runtime_ports(live, guests, rundir):
    sw, wire = live()
    vms = [add_vm(sw, rundir, guests, "vm%d" % i, i) for i in range(2)]
    state = Path(str(sw.config_path) + ".state")
    vxlib.wait_for(lambda: state.exists() and all(
        s in state.read_text() for s in ("vm0.sock", "vm1.sock",
                                         "output:vm1")),
        5, 0.05, what="the state file to hold the ports and flows")
    ports = ports_of(sw)
    flows = vxlib.rules_without_stats(sw.ctl("dump-flows"))

    def forward():
        wire.flush()
        wire.send([to_vm(i, k)[0] for k in range(4) for i in range(2)])
        got = [g.recv(4) for g in vms]
        for i, g in enumerate(vms):
            g.send([from_vm(i, k) for k in range(4)])
        out = wire.recv(8, timeout=10, quiet=0.3, match=P.is_vxlan)
        assert len(out) == 8 and all(len(x) == 4 for x in got), \
            ([len(x) for x in got], len(out))
        return got, sorted(no_ip_id(b) for b in out)

    first = forward()
    assert first[0] == [[to_vm(i, k)[1] for k in range(4)] for i in range(2)]
    assert sw.stop() == 0
    sw.start()
    assert "restoring running state from %s" % state in sw.log_tail(60)
    for g in vms:
        g.attach()
    sw.wait_ports_up("vm0", "vm1", timeout=10)
    assert ports_of(sw) == ports
    assert vxlib.rules_without_stats(sw.ctl("dump-flows")) == flows
    assert forward() == first, "forwarding differs after the restart"


def test_del_port_under_traffic_to_it(live, guests, rundir):
    """vm1 removed while a stream runs to it and from it: every frame
    ends in vm1's tx counter or a drop reason, VM 0's stream loses
    nothing, and the mbufs vm1's frames held come back (checked at
    teardown with the accounting)."""
    sw, wire = live()
    vm0 = add_vm(sw, rundir, guests, "vm0", 0)
    vm1 = add_vm(sw, rundir, guests, "vm1", 1)
    for i, g in enumerate((vm0, vm1)):
        wire.send([to_vm(i, 999)[0]])
        assert len(g.recv(1, quiet=0)) == 1
    wire.flush()
    before = P.ctl_counters(sw)
    n = 600
    frames = [to_vm(k % 2, k) for k in range(n)]
    got = {0: [], 1: []}
    done = threading.Event()

    def underlay():
        for k in range(0, n, 10):
            wire.send([f for f, _ in frames[k:k + 10]])
            time.sleep(0.004)
        done.set()

    t = threading.Thread(target=underlay, daemon=True)
    t.start()
    while len(got[0]) + len(got[1]) < 150:
        got[0] += vm0.poll()
        got[1] += vm1.poll()
        vm1.send([from_vm(1, len(got[1]))])
        time.sleep(0.002)
    got[1] += vm1.poll()
    sw.ctl("del-port", "vm1")
    # del-port returns once every PMD has let go of the port: what is on
    # vm1's ring now was put there before (how many depends on how long
    # the grace period took); nothing may come after
    got[1] += vm1.poll()
    removed_at = len(got[1])
    while not done.is_set():
        got[0] += vm0.poll()
        time.sleep(0.002)
    t.join(10)
    got[0] += vm0.recv(n // 2 - len(got[0]), timeout=5)
    got[1] += vm1.poll()
    assert got[0] == [inner for k, (_, inner) in enumerate(frames)
                      if k % 2 == 0], "VM 0 lost frames"
    # vm1 got a prefix of its stream, nothing after it was removed
    want1 = [inner for k, (_, inner) in enumerate(frames) if k % 2]
    assert got[1] == want1[:len(got[1])]
    assert len(got[1]) == removed_at, "delivered after del-port returned"
    after = P.ctl_counters(sw)
    d = P.counter_delta(before, after)
    drops = {k: v for k, v in d["drops"].items() if v}
    print("\nvm1: %d delivered, then removed: drops %s" % (len(got[1]),
                                                           drops))
    assert d["ports"]["dpdk-phy"]["rx_packets"] == n
    assert sum(drops.values()) == n // 2 - len(got[1]), (drops, len(got[1]))


def test_dpdk_port_hotplug(live, wires):
    """A dpdk port (af_packet on a second veth) added at run time by its
    devargs (rte_dev_probe), forwarding decapsulated frames to the wire
    byte for byte; del-port unplugs the device (rte_dev_remove), so the
    same devargs can be added again and forward again."""
    sw, wire = live()
    ext = P.Wire().__enter__()
    wires.append(ext)
    devargs = ext.devargs(name="net_af_packet7")
    sw.ctl("add-flow", "in_port=vxlan,ip,nw_dst=%s,actions=output:ext"
           % SEED.ip(5))

    def forwards(k0):
        ext.flush()
        frames = [to_vm(5, k0 + k) for k in range(6)]
        wire.send([f for f, _ in frames])
        got = ext.recv(6, timeout=10, quiet=0.3)
        assert got == [inner for _, inner in frames], len(got)

    for round_ in range(2):
        sw.ctl("add-port", "ext", "type=dpdk",
               "options:dpdk-devargs=%s" % devargs)
        p = ports_of(sw)["ext"]
        assert p["type"] == "dpdk" and p["state"] == "up", p
        forwards(10 * round_)
        sw.ctl("del-port", "ext")
        assert "ext" not in ports_of(sw)
    # the flow stayed, waiting for the port; its number was kept
    assert "output:ext" in sw.ctl("dump-flows")
    assert drops(sw).get("mtu_exceeded", 0) == 0
