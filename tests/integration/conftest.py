# SPDX-License-Identifier: BSD-3-Clause
"""pytest fixtures for vxswitch's integration tests (see
python/vxswitch_tools/harness.py, imported here as vxlib; pytest.ini's
`pythonpath` puts python/ on the path).

  build_dir        the build to test (env VXS_BUILD_DIR, default ./build);
                   fails (never skips) when vxswitch/vxswitch-ctl are missing
  hugepages        reserves/mounts hugepages, cleans stale DPDK files;
                   the number of free 2 MB pages
  rundir           a short per-test directory for unix sockets, removed after
  one_port_topology  one dpdkvhostuser port (vm0) in rundir, no NIC
  wire             a pktlib.Wire (veth NIC), closed after the switches stop
  wires            a list for more Wires, closed after the switches stop
  make_switch      make_switch(topology_dict, **kw) -> vxlib.Switch, started
  make_testpmd     make_testpmd(sockets=[...], **kw) -> vxlib.Testpmd, started
  rig_factory      rig_factory(n_vms, ...) -> forwarding_rig.Rig: a veth NIC,
                   the switch and n_vms testpmd VMs in macswap, ports up
  offload_rig_factory  the same with an offload engine on dpdk-phy
                   -> offload_rig.OffloadRig
  guest_rig        a QEMU guest behind the switch, the kernel VTEP at the
                   far end (guest_rig.GuestRig; needs qemu-system-x86_64)

After each test that passed, every switch still running must have returned
its mbufs (vxlib.assert_no_mbuf_leak against the count right after start),
must account for every packet it received (vxlib.assert_packets_accounted:
received + copies = sent + consumed + dropped + in flight, per PMD)
and must exit 0 on SIGTERM; a failure there is reported as a test error.
Whatever the outcome, every process the harness started is killed and its
hugepage files and runtime dir are removed.
"""

import os
import shutil

import pytest

from vxswitch_tools import harness as vxlib
from vxswitch_tools import kernel_vtep_rig, qemu_guest
from vxswitch_tools import packets as pktlib
from vxswitch_tools.forwarding_rig import Rig
from vxswitch_tools.guest_rig import GUEST, GuestRig
from vxswitch_tools.offload_rig import OffloadRig
from vxswitch_tools.ovsdb_server import SCHEMA, OvsdbServer


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the item (item.rep_setup/rep_call)."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


def _test_passed(request):
    rep = getattr(request.node, "rep_call", None)
    return rep is not None and rep.passed


@pytest.fixture(scope="session")
def is_root():
    return os.geteuid() == 0


@pytest.fixture(scope="session")
def build_dir():
    """The build under test. Fails when the binaries are missing: CI builds
    before it runs these tests (scripts/run-tests.sh)."""
    d = vxlib.build_dir()
    try:
        vxlib.find_binary("vxswitch", d)
        vxlib.find_binary("vxswitch-ctl", d)
    except vxlib.HarnessError as e:
        pytest.fail(str(e), pytrace=False)
    return d


@pytest.fixture(scope="session")
def hugepages():
    """Free 2 MB hugepages after scripts/hugepages.sh ran."""
    if os.geteuid() != 0:
        pytest.fail("integration tests need root (hugepages, vhost sockets, "
                    "netns)", pytrace=False)
    try:
        free = vxlib.ensure_hugepages()
    except vxlib.HarnessError as e:
        pytest.fail(str(e), pytrace=False)
    if free < 64:
        pytest.fail("only %d free 2 MB hugepages (need >= 64); see "
                    "scripts/hugepages.sh" % free, pytrace=False)
    return free


@pytest.fixture
def rundir():
    """Short directory for vhost-user and control sockets."""
    d = vxlib.short_tmpdir("vxt")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def one_port_topology(rundir):
    """A switch with one dpdkvhostuser port, vm0, and no NIC (256 MB of
    EAL memory): enough for the control socket and telemetry."""
    return {"eal": {"memory-mb": 256},
            "ports": [{"name": "vm0", "type": "dpdkvhostuser",
                       "path": str(rundir / "vm0.sock")}]}


@pytest.fixture(autouse=True)
def _reap_processes():
    """Kills whatever the harness started and the test left running."""
    yield
    killed = vxlib.reap_all()
    if killed:
        # the fixtures below stop their own processes; anything here was
        # started directly from the harness and not stopped by the test
        print("harness: killed leftover processes: %s" % ", ".join(killed))


@pytest.fixture
def wire():
    """A pktlib.Wire (veth NIC) opened before make_switch, so closed after
    it: the switch is stopped (and its mbufs checked) before its NIC goes
    away."""
    with pktlib.Wire() as w:
        yield w


@pytest.fixture
def wires():
    """pktlib.Wire()s a test opens before make_switch (the switch must not
    see its NIC vanish): closed after the switches have stopped, since
    fixtures are torn down in the reverse order of their setup."""
    ws = []
    yield ws
    for w in ws:
        w.__exit__(None, None, None)


@pytest.fixture
def make_switch(request, build_dir, hugepages, tmp_path, rundir):
    """make_switch(topology, name="vxswitch", **kw) -> started vxlib.Switch.

    kw as vxlib.Switch: args=[...] (extra vxswitch options), env, start,
    ready_timeout, isolate. Logs and the written topology are in tmp_path.
    """
    switches = []

    def make(topology, name=None, **kw):
        name = name or ("vxswitch" if not switches
                        else "vxswitch%d" % len(switches))
        kw.setdefault("rundir", rundir)
        start = kw.pop("start", True)
        sw = vxlib.Switch(topology, tmp_path, name=name, start=False, **kw)
        switches.append(sw)
        if start:
            sw.start()
        return sw

    yield make

    errors = []
    check = _test_passed(request)
    for sw in switches:
        if not sw.running:
            sw.kill()       # cleans its files
            continue
        try:
            if check and sw.mbuf_baseline is not None:
                vxlib.assert_no_mbuf_leak(sw)
        except AssertionError as e:
            errors.append(str(e))
        try:
            if check:
                vxlib.assert_packets_accounted(sw)
        except AssertionError as e:
            errors.append(str(e))
        try:
            rc = sw.stop()
            if check and rc != 0:
                errors.append("%s exited with %d on SIGTERM\n%s"
                              % (sw.name, rc, sw.log_tail(20)))
        except AssertionError as e:
            errors.append(str(e))
        finally:
            sw.kill()
    if errors:
        pytest.fail("\n\n".join(errors), pytrace=False)


@pytest.fixture
def make_testpmd(request, hugepages, tmp_path, rundir):
    """make_testpmd(sockets=None, n=None, **kw) -> started vxlib.Testpmd.

    sockets: vhost-user socket paths; or n: that many, named
    RUNDIR/vhost{i}.sock (the paths are on .sockets). kw as vxlib.Testpmd.
    """
    pmds = []

    def make(sockets=None, n=None, name=None, **kw):
        if sockets is None and n is not None:
            sockets = [rundir / ("vhost%d.sock" % i) for i in range(n)]
        name = name or ("testpmd" if not pmds else "testpmd%d" % len(pmds))
        start = kw.pop("start", True)
        tp = vxlib.Testpmd(tmp_path, sockets=sockets or (), name=name,
                           start=False, **kw)
        pmds.append(tp)
        if start:
            tp.start()
        return tp

    yield make

    for tp in pmds:
        try:
            if tp.running:
                tp.stop()
        except AssertionError as e:
            print("harness: %s" % e)
        finally:
            tp.kill()


@pytest.fixture
def rig_factory(wires, make_switch, make_testpmd, rundir):
    """rig_factory(n_vms, vhost_type=..., **kw) -> forwarding_rig.Rig: a
    veth NIC (pktlib.Wire), the switch with pktlib.topology(n_vms, ...)
    and one testpmd in macswap as the VMs, ports up."""

    def make(n_vms, vhost_type="dpdkvhostuserclient", **kw):
        wire = pktlib.Wire().__enter__()
        wires.append(wire)
        topo = pktlib.topology(wire.devargs(), rundir, n_vms, vhost_type,
                               **kw)
        socks = vxlib.vhost_paths(topo, vhost_type)
        if vhost_type == "dpdkvhostuserclient":
            vms = make_testpmd(sockets=socks, name="vms", cpus=(0,))
            sw = make_switch(topo)
        else:
            sw = make_switch(topo)
            vms = make_testpmd(sockets=socks, name="vms", cpus=(0,),
                               server=False)
        vms.wait_ready()
        sw.wait_ports_up(timeout=30)
        return Rig(wire, sw, vms, n_vms)

    return make


@pytest.fixture
def offload_rig_factory(wires, make_switch, make_testpmd, rundir):
    """offload_rig_factory(n_vms, phy=None, flows=None, tag="a", edit=None)
    -> offload_rig.OffloadRig: forwarding's rig with emc_inv_prob=1 and the
    dpdk-phy port's options (phy) for an offload engine."""

    def make(n_vms, phy=None, flows=None, tag="a", edit=None):
        """phy: options for the dpdk-phy port ({"offload": "model", ...});
        flows: OpenFlow rules instead of pktlib.vm_flows' for each VM;
        edit: a function changing the topology before the start."""
        wire = pktlib.Wire().__enter__()
        wires.append(wire)
        d = rundir / tag
        d.mkdir(exist_ok=True)
        topo = pktlib.topology(wire.devargs(), d, n_vms, emc_inv_prob=1)
        port = topo["ports"][-1]
        assert port["name"] == "dpdk-phy"
        port.update(phy or {})
        if flows is not None:
            topo["flows"] = flows
        if edit is not None:
            edit(topo)
        vms = make_testpmd(sockets=vxlib.vhost_paths(topo), name="vms" + tag,
                           cpus=(0,))
        sw = make_switch(topo, name="vxswitch" + tag)
        vms.wait_ready()
        sw.wait_ports_up(timeout=30)
        if (phy or {}).get("offload", "off") != "off":
            cmds = sw.ctl("list-commands")
            assert "offload/show" in cmds, (
                "the switch has no offload/show command: partial offload "
                "(issue 4) is not wired into the daemon\n%s" % cmds)
        return OffloadRig(wire, sw, vms, n_vms)

    return make


@pytest.fixture
def guest_rig(request, make_switch, tmp_path):
    """guest_rig.GuestRig: the kernel VTEP in a netns on a veth, the switch
    between it and the vhost-user port of guest GUEST (not started:
    guest_rig.start_guest); the guest stopped, the switch checked after.
    The overlay MTU, the guest's and the kernel VTEP's vx0, over the
    1500-byte underlay: kernel_vtep_rig.INNER_MTU (1450), or the test's
    indirect parameter (pytest.mark.parametrize("guest_rig", [1500],
    indirect=True): a new user's 1500 everywhere, path MTU discovery)."""
    img = qemu_guest.ensure_image()
    r = GuestRig()
    r.mtu = getattr(request, "param", None) or kernel_vtep_rig.INNER_MTU
    r.tag = kernel_vtep_rig.tag()
    r.phy, r.peer = "gvu%s" % r.tag, "gvp%s" % r.tag
    r.tmp = tmp_path
    r.sockdir = vxlib.short_tmpdir("vxg")
    with vxlib.netns("gvtep%s" % r.tag) as vtep, \
            vxlib.veth_pair(r.phy, r.peer, ns=vtep, mtu=1500, up=False):
        r.vtep = vtep
        kernel_vtep_rig.kernel_vtep(r.phy, r.peer, vtep,
                                    kernel_vtep_rig.KHOST_IP + "/16",
                                    inner_mtu=r.mtu)

        r.accel = qemu_guest.accel(img, tmp_path)
        r.g = qemu_guest.guests.Guest(GUEST, r.sockdir, r.sockdir, img,
                                      accel=r.accel, backing="memfd",
                                      mtu=r.mtu)
        # the switch first: QEMU, the vhost-user server, blocks until its
        # client connects
        r.sw = make_switch(kernel_vtep_rig.vtep_topology(r.phy, {
            "name": "vm", "type": "dpdkvhostuserclient", "path": r.g.sock}),
            ready_timeout=60.0)
        try:
            yield r
        finally:
            if r.guest:
                r.guest.stop()
        vxlib.stop_if_passed(request, r.sw)
        shutil.rmtree(r.sockdir, ignore_errors=True)


@pytest.fixture(scope="session")
def ovs_tools():
    """Debian's OVS tools the OVSDB tests drive."""
    missing = [t for t in ("ovsdb-server", "ovsdb-tool", "ovs-vsctl")
               if not shutil.which(t)]
    if missing or not SCHEMA.exists():
        pytest.fail("%s missing: apt-get install openvswitch-common "
                    "openvswitch-switch (scripts/install-deps.sh)"
                    % ", ".join(missing + ([str(SCHEMA)] if not
                                           SCHEMA.exists() else [])),
                    pytrace=False)


@pytest.fixture
def ovsdb(ovs_tools, rundir):
    """A private ovsdb-server (ovsdb_server.OvsdbServer), initialised as
    ovs-ctl does (ovs-vsctl init)."""
    d = rundir / "ovs"
    d.mkdir()
    srv = OvsdbServer(d).start()
    srv.vsctl("init")
    yield srv
    if srv.proc.poll() is None:
        srv.kill()
