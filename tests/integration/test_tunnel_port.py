# SPDX-License-Identifier: BSD-3-Clause
"""The VXLAN tunnel port added and removed at run time (issue 26, step 3:
what `ovs-vsctl add-port br-int vxlan0 -- set Interface vxlan0
type=vxlan options:remote_ip=flow options:key=flow` becomes). The
underlay (its port, the VTEP address, routes) still comes from the
topology; the switches here start without a tunnel port.

  kernel VTEP     a Linux VXLAN device is the remote VTEP (the rig of
                  test_kernel_vtep): with the flows in place but no tunnel
                  port, nothing crosses; `add-port vx0 type=vxlan
                  remote_ip=flow key=flow`: ping both ways (encap to the
                  kernel, decap from it); `del-port vx0`: nothing crosses,
                  the decap megaflows gone; added again: ping both ways;
                  no mbuf leaked at the end (the harness's check)
  refusals        a second tunnel port, a fixed IPv6 remote_ip with an
                  IPv4 VTEP only, a local_ip that is not the VTEP's, a
                  missing remote_ip, del-port of the underlay; and with no
                  underlay at all; set Interface makes it again
  churn           20 add-port/del-port rounds under a stream both ways,
                  two PMDs: nothing leaked or lost track of, traffic after
  offload         the Flow Director model follows the port: decap
                  megaflows offloaded, their NIC rules gone with del-port
  restart         a run-time tunnel port is saved in the state file and
                  restored by a restart (the same frames, the same bytes);
                  removed, it is gone from the state file too
"""

import subprocess
import threading
import time
from pathlib import Path

import pytest

from vxswitch_tools import harness as vxlib
from vxswitch_tools import packets as P
from vxswitch_tools.addressing import SEED
from vxswitch_tools.harness import sh, wait_for
from vxswitch_tools.kernel_vtep_rig import (INNER_MTU, KHOST_IP, KVTEP_IP,
                                           VM_IP, VNI, VTEP_IP, kernel_vtep,
                                           tag)
from vxswitch_tools.offload_rig import MODEL, check_offload_show, to_vms


# ------------------------------------------------------------ kernel VTEP

def ping(ns, dst, count=3, wait=2):
    return subprocess.run(["ip", "netns", "exec", ns, "ping", "-c",
                           str(count), "-i", "0.2", "-W", str(wait), dst],
                          capture_output=True, text=True, timeout=60)


def reachable(ns, dst, within=10.0):
    """ping from ns gets through within `within` seconds: the neighbour
    cache flushed first (a failed entry answers at once), then one ping
    after another (the first ARP may be dropped while the switch
    resolves the kernel VTEP's MAC)."""
    sh(["ip", "neigh", "flush", "all"], ns=ns)
    end = time.monotonic() + within
    while time.monotonic() < end:
        if ping(ns, dst, count=1, wait=1).returncode == 0:
            return True
    return False


def unreachable(ns, dst):
    sh(["ip", "neigh", "flush", "all"], ns=ns)
    return ping(ns, dst, count=2, wait=1).returncode != 0


def pmd_sum(sw, key):
    return sum(p[key] for p in sw.ctl("dpif-netdev/pmd-stats-show",
                                      json=True))


def tnl_pop_megaflows(sw):
    return [f for f in sw.ctl("dpctl/dump-flows").splitlines()
            if "tnl_pop" in f]


@pytest.fixture
def krig(request, make_switch):
    """(switch, vm netns, vtep netns): the switch between a tap VM and
    the kernel VTEP, with the underlay and no tunnel port."""
    t = tag()
    phy, peer, tap = "tpu%s" % t, "tpp%s" % t, "tptap%s" % t
    with vxlib.netns("tvtep%s" % t) as vtep, \
            vxlib.netns("tvm%s" % t) as vm, \
            vxlib.veth_pair(phy, peer, ns=vtep, mtu=1500, up=False):
        kernel_vtep(phy, peer, vtep, KHOST_IP + "/24")
        sw = make_switch({
            "eal": {"memory-mb": 256},
            "underlay": {"port": "phy", "local-ip": VTEP_IP + "/24"},
            "ports": [
                {"name": "tap", "type": "dpdk",
                 "devargs": "net_tap0,iface=%s" % tap},
                {"name": "phy", "type": "dpdk",
                 "devargs": "net_af_packet0,iface=%s" % phy},
            ],
        }, ready_timeout=60.0)
        sh(["ip", "link", "set", tap, "netns", vm])
        sh(["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % tap],
           ns=vm, check=False)
        sh(["ip", "link", "set", tap, "mtu", INNER_MTU], ns=vm)
        sh(["ip", "addr", "add", VM_IP + "/24", "dev", tap], ns=vm)
        sh(["ip", "link", "set", tap, "up"], ns=vm)
        yield sw, vm, vtep
        vxlib.stop_if_passed(request, sw)


def refused(sw, *args):
    r = sw.ctl_result(*args)
    assert r.returncode == 1, (args, r.returncode, r.stdout)
    print("%s\n    %s" % (" ".join(args), r.stderr.strip()))
    return r.stderr


def test_tunnel_port_added_and_removed_with_kernel_vtep(krig):
    sw, vm, vtep = krig
    # the flows first: vx0 gets a number set aside for its name
    sw.ctl("add-flow", "in_port=tap,actions=set_tunnel:%d,"
           "set_field:%s->tun_dst,output:vx0" % (VNI, KVTEP_IP))
    sw.ctl("add-flow", "in_port=vx0,actions=output:tap")
    assert "vx0" not in sw.ctl("list-ports")
    assert unreachable(vm, KHOST_IP)
    assert unreachable(vtep, VM_IP)
    assert pmd_sum(sw, "tunnel_pushes") == 0
    assert pmd_sum(sw, "tunnel_pops") == 0

    # refused before there is a tunnel port
    assert "vxlan port 'vx6': remote_ip is IPv6 but the underlay has no " \
        "IPv6 'local-ip'" in refused(sw, "add-port", "vx6", "type=vxlan",
                                     "options:remote_ip=2001:db8::1")
    assert "local_ip is not the underlay local-ip '172.1.0.9'" in \
        refused(sw, "add-port", "vx6", "type=vxlan", "remote_ip=flow",
                "local_ip=172.1.0.9")
    assert "missing option 'remote_ip' in port 'vx6'" in \
        refused(sw, "add-port", "vx6", "type=vxlan", "key=flow")
    assert "vx6" not in sw.ctl("list-ports")

    for rnd in range(2):
        sw.ctl("add-port", "vx0", "type=vxlan", "options:remote_ip=flow",
               "options:key=flow")
        ports = {p["name"]: p for p in sw.ctl("list-ports", json=True)}
        assert ports["vx0"]["type"] == "vxlan"
        assert reachable(vm, KHOST_IP), rnd
        assert reachable(vtep, VM_IP), rnd
        r = ping(vm, KHOST_IP)
        assert r.returncode == 0, (rnd, r.stdout, r.stderr)
        r = ping(vtep, VM_IP)
        assert r.returncode == 0, (rnd, r.stdout, r.stderr)
        pushes, pops = (pmd_sum(sw, "tunnel_pushes"),
                        pmd_sum(sw, "tunnel_pops"))
        assert pushes >= 6 and pops >= 6, (pushes, pops)
        assert tnl_pop_megaflows(sw)
        if rnd == 0:
            assert "more than one vxlan port: 'vx0' is the tunnel port" in \
                refused(sw, "add-port", "vx1", "type=vxlan",
                        "remote_ip=flow", "key=flow")
            assert "phy: the underlay port cannot be removed at run " \
                "time" in refused(sw, "del-port", "phy")
            # set Interface makes it again from its own words
            ofport = ports["vx0"]["ofport"]
            sw.ctl("set", "Interface", "vx0", "options:dst_port=4789")
            ports = {p["name"]: p for p in sw.ctl("list-ports", json=True)}
            assert ports["vx0"]["ofport"] == ofport
            assert reachable(vm, KHOST_IP)
            pushes, pops = (pmd_sum(sw, "tunnel_pushes"),
                            pmd_sum(sw, "tunnel_pops"))

        sw.ctl("del-port", "vx0")
        assert "vx0" not in sw.ctl("list-ports")
        # the decap megaflows went, and those of decapsulated packets
        assert not tnl_pop_megaflows(sw), sw.ctl("dpctl/dump-flows")
        assert "in_port(vx0)" not in sw.ctl("dpctl/dump-flows")
        assert unreachable(vm, KHOST_IP)
        assert unreachable(vtep, VM_IP)
        # nothing was encapsulated or decapsulated after it went
        assert pmd_sum(sw, "tunnel_pushes") == pushes
        assert pmd_sum(sw, "tunnel_pops") == pops
    # and once more, left in place for the shutdown's leak check
    sw.ctl("add-port", "vx0", "type=vxlan", "remote_ip=flow", "key=flow")
    assert reachable(vm, KHOST_IP)
    assert reachable(vtep, VM_IP)


def test_no_underlay_refused(make_switch, one_port_topology):
    sw = make_switch(one_port_topology)
    assert "vx0: missing underlay 'port' for vxlan port 'vx0'" in \
        refused(sw, "add-port", "vx0", "type=vxlan", "remote_ip=flow")


# ---------------------------------------------------------------- restart

GW = "172.1.0.1"
GW_MAC = "10:00:00:00:00:09"
FAR_VTEP = "10.9.0.1"


def without_ip_id(b):
    """test_state's: the outer IPv4 id and checksum zeroed."""
    assert P.ip_csum_ok(b)
    return b[:18] + b"\0\0" + b[20:24] + b"\0\0" + b[26:]


def forward(phy, vm, n=8):
    """test_state's forward(): (what vm got, what phy got), of n frames
    each way."""
    phy.flush()
    vm.flush()
    phy.send([P.vxlan_to_vm(5, sport=41000 + i) for i in range(n)])
    to_vm = vm.recv(n, timeout=3, quiet=0.3)
    vm.send([P.inner_frame(7, src_ip=SEED.ip(5), dst_ip="192.2.0.9",
                           sport=42000 + i, size=90) for i in range(n)])
    to_phy = phy.recv(n, timeout=3, quiet=0.3, match=P.is_vxlan)
    return to_vm, [without_ip_id(b) for b in to_phy]


def wait_state(path, present, absent=()):
    def ok():
        t = path.read_text() if path.exists() else ""
        return all(s in t for s in present) and \
            not any(s in t for s in absent)
    wait_for(ok, 5.0, 0.05, what="%s to hold %s, not %s"
             % (path, present, absent))


def test_run_time_tunnel_port_saved_and_restored(make_switch, wires,
                                                 rundir):
    phy = P.Wire().__enter__()
    wires.append(phy)
    vm = P.Wire().__enter__()
    wires.append(vm)
    topo = P.topology(phy.devargs(), rundir, n_vms=0, static_arp=False)
    topo["eal"]["lcores"] = "0,(1-2)@1"
    topo["datapath"]["pmd-cores"] = [1, 2]
    topo["ports"] = [p for p in topo["ports"] if p["type"] != "vxlan"]
    topo["ports"].append({"name": "vm", "type": "dpdk",
                          "devargs": vm.devargs("net_af_packet1")})
    sw = make_switch(topo)
    state = Path(str(sw.config_path) + ".state")
    sw.ctl("add-flow", "in_port=vxlan,ip,nw_dst=%s,actions=output:vm"
           % SEED.ip(5))
    sw.ctl("add-flow", "in_port=vm,ip,actions=set_tunnel:%d,set_field:%s->"
           "tun_dst,set_field:%s->tun_src,output:vxlan"
           % (P.VNI, FAR_VTEP, P.VTEP_IP))
    sw.ctl("tnl/arp/set", GW, GW_MAC)
    sw.ctl("ovs/route/add", "10.9.0.0/16", "dpdk-phy", GW)
    assert forward(phy, vm) == ([], [])

    sw.ctl("add-port", "vxlan", "type=vxlan", "remote_ip=flow",
           "local_ip=flow", "key=flow", "dst_port=4789", "vnis=%d" % P.VNI)
    wait_state(state, ["name: vxlan", "type: vxlan", "vnis:"])
    to_vm, to_phy = forward(phy, vm)
    assert len(to_vm) == 8 and len(to_phy) == 8
    # a VNI the port does not take (vnis=) is dropped as the topology's
    phy.send([P.vxlan_to_vm(5, vni=P.VNI + 1)])
    assert vm.recv(1, timeout=1) == []

    assert sw.stop() == 0
    sw.start()
    assert "restoring running state from %s" % state in sw.log_tail(40)
    ports = {p["name"]: p for p in sw.ctl("list-ports", json=True)}
    assert ports["vxlan"]["type"] == "vxlan"
    assert forward(phy, vm) == (to_vm, to_phy), "forwarding differs"

    sw.ctl("del-port", "vxlan")
    wait_state(state, [], ["type: vxlan"])
    assert forward(phy, vm) == ([], [])
    assert sw.stop() == 0
    sw.start()
    assert "vxlan" not in sw.ctl("list-ports")
    assert forward(phy, vm) == ([], [])
    sw.ctl("add-port", "vxlan", "type=vxlan", "remote_ip=flow",
           "key=flow")
    time.sleep(0.1)
    assert forward(phy, vm) == (to_vm, to_phy)


def test_tunnel_port_churn_under_traffic(make_switch, wires, rundir):
    """Two PMDs decapsulate and encapsulate a stream both ways while the
    tunnel port is removed and added 20 times: the switch stays up, every
    frame is accounted for (the harness's check at the end), no mbuf is
    leaked, and the traffic flows again after the last add-port."""
    phy = P.Wire().__enter__()
    wires.append(phy)
    vm = P.Wire().__enter__()
    wires.append(vm)
    topo = P.topology(phy.devargs(), rundir, n_vms=0)
    topo["eal"]["lcores"] = "0,(1-2)@1"
    topo["datapath"]["pmd-cores"] = [1, 2]
    topo["ports"] = [p for p in topo["ports"] if p["type"] != "vxlan"]
    topo["ports"].append({"name": "vm", "type": "dpdk",
                          "devargs": vm.devargs("net_af_packet1")})
    sw = make_switch(topo, args=["--no-state"])
    sw.ctl("add-flow", "in_port=vx0,actions=output:vm")
    sw.ctl("add-flow", "in_port=vm,actions=set_tunnel:%d,set_field:%s->"
           "tun_dst,output:vx0" % (P.VNI, P.REMOTE_IP))
    stop = threading.Event()
    sent = [0, 0]

    def traffic():
        k = 0
        while not stop.is_set():
            phy.send([P.vxlan_to_vm(5, sport=40000 + (k + j) % 64)
                      for j in range(8)])
            vm.send([P.inner_frame(7, src_ip=SEED.ip(5), sport=42000 + j,
                                   size=90) for j in range(8)])
            sent[0] += 8
            sent[1] += 8
            k += 8
            time.sleep(0.002)

    t = threading.Thread(target=traffic, daemon=True)
    t.start()
    try:
        for _ in range(20):
            sw.ctl("add-port", "vx0", "type=vxlan", "remote_ip=flow",
                   "key=flow")
            time.sleep(0.05)
            sw.ctl("del-port", "vx0")
    finally:
        stop.set()
        t.join(10)
    assert sw.running
    print("\n%d frames each way during 20 add-port/del-port rounds"
          % sent[0])
    assert pmd_sum(sw, "tunnel_pops") > 0
    assert pmd_sum(sw, "tunnel_pushes") > 0
    sw.ctl("add-port", "vx0", "type=vxlan", "remote_ip=flow", "key=flow")
    phy.flush()
    vm.flush()
    phy.send([P.vxlan_to_vm(5, sport=43000 + i) for i in range(4)])
    assert len(vm.recv(4, timeout=5, quiet=0.3)) == 4
    vm.send([P.inner_frame(7, src_ip=SEED.ip(5), sport=44000 + i, size=90)
             for i in range(4)])
    assert len(phy.recv(4, timeout=5, quiet=0.3, match=P.is_vxlan)) == 4


def test_offload_follows_the_tunnel_port(offload_rig_factory):
    """The Flow Director model on the underlay, the tunnel port added at
    run time: its decap megaflows are offloaded (one NIC rule per inner
    megaflow, the second wave all marked); del-port takes the megaflows
    and their NIC rules away, and the frames are dropped as not_vtep
    (none delivered on a stale mark); added again, offloaded again."""
    def no_tunnel(topo):
        topo["ports"] = [p for p in topo["ports"] if p["type"] != "vxlan"]
        topo["datapath"]["ofport-names"] = {"vxlan": 9}
    rig = offload_rig_factory(2, phy=MODEL, edit=no_tunnel)
    sw = rig.sw
    frames, _ = to_vms(2, 2, 2)
    n = len(frames)
    _, d = rig.wave(frames, 0, drops=n)
    assert d["drops"]["not_vtep"] == n, d["drops"]
    check_offload_show(rig.offload(), 0)

    for rnd in range(2):
        sw.ctl("add-port", "vxlan", "type=vxlan", "remote_ip=flow",
               "key=flow", "vnis=%d" % P.VNI)
        assert {p["name"]: p["ofport"] for p in
                sw.ctl("list-ports", json=True)}["vxlan"] == 9
        rig.wave(frames, n)
        st, _ = rig.wait_installed(2, "round %d " % rnd)
        check_offload_show(st, 2)
        _, d = rig.wave(frames, n)
        assert d["pmd"]["mark_hits"] == n, d["pmd"]

        sw.ctl("del-port", "vxlan")
        st, _ = rig.wait_installed(0, "after del-port ")
        check_offload_show(st, 0)
        assert not [f for f in rig.megaflows()
                    if "in_port(vxlan)" in f["match"]], rig.megaflows()
        _, d = rig.wave(frames, 0, drops=n)
        assert d["drops"]["not_vtep"] == n, d["drops"]
        assert d["pmd"]["mark_hits"] == 0, d["pmd"]
