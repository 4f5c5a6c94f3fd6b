# SPDX-License-Identifier: BSD-3-Clause
"""OVSDB mode applies the database and writes back (doc/design-control-
plane.md, step 3): Debian's own ovs-vsctl, *waiting* as an operator runs
it (it returns once vxswitch has written cur_cfg = next_cfg), changes the
running switch: ports added, re-made and removed, the Interface columns
ovs-vswitchd writes (ofport, error, link_state, status, statistics),
Open_vSwitch's datapath_types/iface_types/dpdk_*, Bridge datapath_id,
Datapath capabilities; a refusal is ovs-vsctl's own "Error detected while
setting up" line; the topology's own ports give way to the database's."""

import os
import re
import subprocess

import pytest

from vxswitch_tools import harness as vxlib


def vsctl(srv, *args, timeout=10):
    """Plain ovs-vsctl: waits for cur_cfg, as an operator's does."""
    return subprocess.run(["ovs-vsctl", "--db=unix:%s" % srv.sock,
                           "--timeout=%d" % timeout] + list(args),
                          capture_output=True, text=True, env=srv.env,
                          timeout=timeout + 10)


def ok(srv, *args):
    r = vsctl(srv, *args)
    assert r.returncode == 0 and not r.stderr, \
        "ovs-vsctl %s: rc %d: %s" % (args, r.returncode, r.stderr)
    return r.stdout


def get(srv, table, row, column):
    out = ok(srv, "--no-wait", "get", table, row, column).strip()
    return out.strip('"') if out.startswith('"') else out


def ports(sw):
    return {p["name"]: p for p in sw.ctl("list-ports", json=True)}


def held(sw):
    vxlib.wait_for(lambda: "lock ovs_vswitchd: held" in
                   sw.ctl("ovsdb/show") and "monitor: current" in
                   sw.ctl("ovsdb/show"), 10, 0.05, "the lock and monitor")


@pytest.fixture
def switch(ovsdb, make_switch, one_port_topology):
    # OVS_RUNDIR: where a dpdkvhostuser socket goes, as for OVS
    sw = make_switch(one_port_topology, args=["--ovsdb",
                                               "unix:%s" % ovsdb.sock],
                     env=dict(os.environ, OVS_RUNDIR=str(ovsdb.dir)))
    held(sw)
    return sw


def test_vsctl_waits_and_applies(ovsdb, switch, rundir):
    sw = switch
    # the database names no vm0: the topology's port gives way
    ok(ovsdb, "add-br", "br-int", "--", "set", "bridge", "br-int",
       "datapath_type=netdev")
    assert ports(sw) == {}
    assert get(ovsdb, "Interface", "br-int", "ofport") == "65534"
    assert get(ovsdb, "Interface", "br-int", "error") == "[]"
    dpid = get(ovsdb, "Bridge", "br-int", "datapath_id")
    assert re.fullmatch(r"[0-9a-f]{16}", dpid), dpid
    assert get(ovsdb, "Bridge", "br-int", "datapath_version") == \
        "<built-in>"
    cur = int(get(ovsdb, "Open_vSwitch", ".", "cur_cfg"))
    assert cur == int(get(ovsdb, "Open_vSwitch", ".", "next_cfg")) >= 1
    assert get(ovsdb, "Open_vSwitch", ".", "datapath_types") == '[netdev]'
    assert "dpdkvhostuserclient" in get(ovsdb, "Open_vSwitch", ".",
                                        "iface_types")
    assert get(ovsdb, "Open_vSwitch", ".", "dpdk_initialized") == "true"
    assert get(ovsdb, "Open_vSwitch", ".", "dpdk_version").startswith(
        "DPDK 22.11")

    sock = rundir / "vm1.sock"
    ok(ovsdb, "add-port", "br-int", "vm1", "--", "set", "Interface", "vm1",
       "type=dpdkvhostuserclient", "options:vhost-server-path=%s" % sock)
    p = ports(sw)
    assert list(p) == ["vm1"] and p["vm1"]["type"] == "dpdkvhostuserclient", p
    assert get(ovsdb, "Interface", "vm1", "ofport") == \
        str(p["vm1"]["ofport"])
    assert get(ovsdb, "Interface", "vm1", "link_state") == "down"
    assert get(ovsdb, "Interface", "vm1", "admin_state") == "up"
    st = get(ovsdb, "Interface", "vm1", "status")
    assert 'mode=client' in st and 'status=disconnected' in st, st

    ok(ovsdb, "add-port", "br-int", "vm2", "--", "set", "Interface", "vm2",
       "type=dpdkvhostuser", "ofport_request=10", "mtu_request=1450")
    assert ports(sw)["vm2"]["ofport"] == 10
    assert get(ovsdb, "Interface", "vm2", "ofport") == "10"
    # as OVS: a vhost port's MTU is 0 until a first guest
    assert get(ovsdb, "Interface", "vm2", "mtu") == "0"
    assert "add-port vm2 type=dpdkvhostuser path=%s/vm2 ofport=10 " \
        "mtu=1450" % ovsdb.dir in sw.ctl("ovsdb/show")

    # a change of words makes the port again, under its number
    ok(ovsdb, "set", "Interface", "vm2", "mtu_request=1400")
    assert ports(sw)["vm2"]["ofport"] == 10
    assert "ovsdb: vm2 removed (to be made again)" in \
        sw.log_path.read_text()
    # pmd-rxq-affinity alone moves queues: the port stays
    ok(ovsdb, "set", "Interface", "vm1",
       "other_config:pmd-rxq-affinity=0:1")
    assert ports(sw)["vm1"]["ofport"] == p["vm1"]["ofport"]
    assert "ovsdb: vm1 removed" not in sw.log_path.read_text()

    # refused: ovs-vsctl's own line with the error we wrote
    r = vsctl(ovsdb, "add-port", "br-int", "d0", "--", "set", "Interface",
              "d0", "type=dpdk")
    assert r.returncode == 0 and r.stderr.startswith(
        "ovs-vsctl: Error detected while setting up 'd0': 'd0' is missing "
        "'options:dpdk-devargs'. The old 'dpdk<port_id>' names are not "
        "supported.  See ovs-vswitchd log for details.\n"), r.stderr
    assert get(ovsdb, "Interface", "d0", "ofport") == "-1"
    r = vsctl(ovsdb, "add-port", "br-int", "p0", "--", "set", "Interface",
              "p0", "type=patch", "options:peer=p1")
    assert "Error detected while setting up 'p0': could not open network " \
        "device p0 (Address family not supported by protocol)" in r.stderr
    assert "d0" not in ports(sw) and "p0" not in ports(sw)

    # one source of truth: the control socket's port commands refused
    for cmd in (("add-port", "x", "type=dpdkvhostuser"), ("del-port", "vm1"),
                ("set", "Interface", "vm1", "mtu_request=1400"),
                ("set-pmd-cores", "1")):
        r = sw.ctl_result(*cmd)
        assert r.returncode != 0 and "%s: OVSDB mode: the database is " \
            "the source of truth (use ovs-vsctl)" % " ".join(
                cmd[:2] if cmd[0] == "set" else cmd[:1]) in r.stderr, r
    assert sorted(ports(sw)) == ["vm1", "vm2"]

    # removed from the database: removed from the switch
    ok(ovsdb, "del-port", "vm1")
    assert list(ports(sw)) == ["vm2"]
    ok(ovsdb, "del-br", "br-int")
    assert ports(sw) == {}

    t = sw.ctl("ovsdb/show")
    c = {m.group(1): int(m.group(2))
         for m in re.finditer(r"^  (\w+): (\d+)$", t, re.M)}
    assert c["txn_errors"] == 0 and c["reconfigures"] >= 8, c
    assert c["disconnects"] == 0, c


def test_link_status_statistics(ovsdb, switch, rundir, make_testpmd):
    """link_state and status follow the guest (a testpmd virtio-user
    peer), checked every second; statistics every 5 s, counting what the
    guest sent."""
    sw = switch
    sock = rundir / "vm1.sock"
    ok(ovsdb, "add-br", "br-int", "--", "set", "bridge", "br-int",
       "datapath_type=netdev")
    ok(ovsdb, "add-port", "br-int", "vm1", "--", "set", "Interface", "vm1",
       "type=dpdkvhostuserclient", "options:vhost-server-path=%s" % sock)
    assert get(ovsdb, "Interface", "vm1", "link_state") == "down"
    make_testpmd(sockets=[sock], fwd="txonly", cpus=(1,))
    sw.wait_ports_up("vm1")
    vxlib.wait_for(lambda: get(ovsdb, "Interface", "vm1", "link_state")
                   == "up", 3, 0.1, "link_state up")
    st = get(ovsdb, "Interface", "vm1", "status")
    assert "status=connected" in st and "socket=\"%s\"" % sock in st and \
        'num_of_vrings="2"' in st, st

    def rx_packets():
        m = re.search(r"rx_packets=(\d+)",
                      get(ovsdb, "Interface", "vm1", "statistics"))
        return m and int(m.group(1))
    n = vxlib.wait_for(rx_packets, 8, 0.2, "rx_packets > 0")
    assert n > 0
    # the switch's own counter, read after: never less
    now = [p for p in sw.show()["ports"] if p["name"] == "vm1"][0]
    assert 0 < n <= now["rx_packets"], (n, now)


def test_datapath_capabilities(ovsdb, switch):
    """The Datapath row ovn-controller creates gets capabilities."""
    ok(ovsdb, "--", "--id=@dp", "create", "Datapath",
       "external_ids:by=test", "--", "set", "Open_vSwitch", ".", "datapaths:netdev=@dp")
    caps = vxlib.wait_for(
        lambda: (lambda c: c != "{}" and c)(
            ok(ovsdb, "--no-wait", "--columns=capabilities", "list",
               "Datapath").split(":", 1)[1].strip()), 5, 0.1,
        "capabilities")
    assert 'ct_state="true"' in caps and 'recirc="true"' in caps, caps


def test_database_is_the_truth_at_start(ovsdb, make_switch,
                                       one_port_topology):
    """With vxswitch down, nobody writes cur_cfg: a plain ovs-vsctl times
    out as it does with ovs-vswitchd down. What --no-wait put in the
    database meanwhile is what vxswitch runs once started: ports and
    their ofports, written back; no state file is written."""
    ok(ovsdb, "--no-wait", "add-br", "br-int", "--", "set", "bridge",
       "br-int", "datapath_type=netdev")
    r = vsctl(ovsdb, "add-port", "br-int", "vm1", "--", "set",
              "Interface", "vm1", "type=dpdkvhostuser", timeout=1)
    assert r.returncode != 0, r
    ok(ovsdb, "--no-wait", "add-port", "br-int", "vm2", "--", "set",
       "Interface", "vm2", "type=dpdkvhostuser", "ofport_request=7")
    assert get(ovsdb, "Interface", "vm2", "ofport") == "[]"
    sw = make_switch(one_port_topology,
                     args=["--ovsdb", "unix:%s" % ovsdb.sock],
                     env=dict(os.environ, OVS_RUNDIR=str(ovsdb.dir)))
    vxlib.wait_for(lambda: get(ovsdb, "Interface", "vm2", "ofport") == "7",
                   10, 0.05, "vm2's ofport")
    assert sorted(ports(sw)) == ["vm1", "vm2"]
    assert get(ovsdb, "Open_vSwitch", ".", "cur_cfg") == \
        get(ovsdb, "Open_vSwitch", ".", "next_cfg")
    assert not list(sw.config_path.parent.glob("*.state")), \
        list(sw.config_path.parent.iterdir())


def test_delete_everything_under_traffic(ovsdb, switch, rundir,
                                         make_testpmd):
    """One transaction removes every port while a guest sends through the
    switch: the switch stays up, answers, and once the ports are back the
    traffic flows again (no leaked mbuf, every packet counted: checked at
    shutdown by the harness)."""
    sw = switch
    socks = [rundir / "vm1.sock", rundir / "vm2.sock"]

    def add_ports():
        ok(ovsdb, "--may-exist", "add-br", "br-int", "--", "set", "bridge",
           "br-int", "datapath_type=netdev",
           "--", "add-port", "br-int", "vm1", "--", "set", "Interface",
           "vm1", "type=dpdkvhostuserclient", "ofport_request=1",
           "options:vhost-server-path=%s" % socks[0],
           "--", "add-port", "br-int", "vm2", "--", "set", "Interface",
           "vm2", "type=dpdkvhostuserclient", "ofport_request=2",
           "options:vhost-server-path=%s" % socks[1])
        sw.wait_ports_up("vm1", "vm2")

    def vm2_tx():
        """what the switch sent to vm2 (txonly reads nothing: once its
        ring is full, the rest is tx_dropped)"""
        p = [p for p in sw.show()["ports"] if p["name"] == "vm2"][0]
        return p["tx_packets"] + p["tx_dropped"]

    make_testpmd(sockets=socks, fwd="txonly", cpus=(1,))
    add_ports()
    sw.ctl("add-flow", "in_port=vm1,actions=output:vm2")
    vxlib.wait_for(lambda: vm2_tx() > 1000, 10, 0.1, "vm1 -> vm2")

    ok(ovsdb, "del-br", "br-int")
    assert ports(sw) == {}
    assert "vm1" not in sw.ctl("list-ports")

    add_ports()
    vxlib.wait_for(lambda: vm2_tx() > 1000, 10, 0.1, "vm1 -> vm2 again")
    t = sw.ctl("ovsdb/show")
    assert "txn_errors: 0" in t, t


def test_overlay_from_ovs_vsctl(ovsdb, make_switch, request):
    """The overlay as an OpenStack host makes it, with ovs-vsctl only:
    br-phy holds the underlay NIC (the topology's), br-int a VM port and
    the VXLAN tunnel (remote_ip=flow, key=flow); with the flows, a netns
    VM and a Linux VXLAN device ping each other both ways; the tunnel
    port deleted in the database, they cannot."""
    from test_tunnel_port import reachable, unreachable
    from vxswitch_tools.kernel_vtep_rig import (INNER_MTU, KHOST_IP,
                                               KVTEP_IP, VM_IP, VNI,
                                               VTEP_IP, kernel_vtep, tag,
                                               vm_tap)
    t = tag()
    phy, peer, tap = "tou%s" % t, "top%s" % t, "totap%s" % t
    with vxlib.netns("ovtep%s" % t) as vtep, \
            vxlib.netns("ovm%s" % t) as vm, \
            vxlib.veth_pair(phy, peer, ns=vtep, mtu=1500, up=False):
        kernel_vtep(phy, peer, vtep, KHOST_IP + "/24")
        devargs = "net_af_packet0,iface=%s" % phy
        sw = make_switch({
            "eal": {"memory-mb": 256},
            "underlay": {"port": "phy", "local-ip": VTEP_IP + "/24"},
            "ports": [{"name": "phy", "type": "dpdk", "devargs": devargs}],
        }, args=["--ovsdb", "unix:%s" % ovsdb.sock],
            env=dict(os.environ, OVS_RUNDIR=str(ovsdb.dir)),
            ready_timeout=60.0)
        held(sw)
        ok(ovsdb, "add-br", "br-phy", "--", "set", "bridge", "br-phy",
           "datapath_type=netdev", "--", "add-port", "br-phy", "phy", "--",
           "set", "Interface", "phy", "type=dpdk",
           "options:dpdk-devargs=%s" % devargs)
        ok(ovsdb, "add-br", "br-int", "--", "set", "bridge", "br-int",
           "datapath_type=netdev", "--", "add-port", "br-int", "tap", "--",
           "set", "Interface", "tap", "type=dpdk",
           "options:dpdk-devargs=net_tap0,iface=%s" % tap)
        assert get(ovsdb, "Interface", "phy", "ofport") == \
            str(ports(sw)["phy"]["ofport"])
        # the tap's rx ring holds mbufs from now on: the leak check's
        # baseline (the exit's own check, "mbufs in use at exit", is 0)
        sw.mbuf_baseline = sw.mempool()["in_use"]
        vm_tap(tap, vm, INNER_MTU, [VM_IP + "/24"])
        sw.ctl("add-flow", "in_port=tap,actions=set_tunnel:%d,"
               "set_field:%s->tun_dst,output:vx0" % (VNI, KVTEP_IP))
        sw.ctl("add-flow", "in_port=vx0,actions=output:tap")
        assert unreachable(vm, KHOST_IP)

        ok(ovsdb, "add-port", "br-int", "vx0", "--", "set", "Interface",
           "vx0", "type=vxlan", "options:remote_ip=flow", "options:key=flow")
        assert ports(sw)["vx0"]["type"] == "vxlan"
        assert get(ovsdb, "Interface", "vx0", "link_state") == "up"
        assert reachable(vm, KHOST_IP) and reachable(vtep, VM_IP)

        ok(ovsdb, "del-port", "vx0")
        assert "vx0" not in ports(sw)
        assert unreachable(vm, KHOST_IP) and unreachable(vtep, VM_IP)
        vxlib.stop_if_passed(request, sw)


def test_dpdk_keys_before_the_eal(ovsdb, make_switch, one_port_topology):
    """Open_vSwitch other_config's dpdk-* keys are read before the EAL,
    as ovs-vswitchd reads them: dpdk-extra appended, dpdk-socket-mem in
    place of the topology's memory-mb; the keys vxswitch does not use
    said so."""
    ok(ovsdb, "--no-wait", "set", "Open_vSwitch", ".",
       "other_config:dpdk-extra=--iova-mode=va",
       "other_config:dpdk-socket-mem=256",
       "other_config:dpdk-lcore-mask=0x1", "other_config:dpdk-init=true")
    sw = make_switch(one_port_topology,
                     args=["--ovsdb", "unix:%s" % ovsdb.sock],
                     env=dict(os.environ, OVS_RUNDIR=str(ovsdb.dir)))
    held(sw)
    log = sw.log_path.read_text()
    assert "ovsdb: other_config:dpdk-extra=--iova-mode=va for the EAL" in \
        log, log
    assert "ovsdb: other_config:dpdk-socket-mem=256 for the EAL" in log
    assert "ovsdb: other_config:dpdk-lcore-mask not used" in log
    assert "ovsdb: other_config:dpdk-init not used: vxswitch always runs " \
        "DPDK" in log
    # the EAL took them (and no "-m" beside --socket-mem: it refuses both)
    assert "EAL: Selected IOVA mode 'VA'" in log, log[-3000:]
    eal = [ln for ln in log.splitlines() if "EAL ARGS: vxswitch " in ln]
    assert len(eal) == 1, log[-3000:]
    assert eal[0].endswith(" --iova-mode=va --socket-mem 256"), eal[0]
    assert " -m " not in eal[0], eal[0]


def test_dpdk_extra_wins(ovsdb, make_switch, one_port_topology):
    """As ovs-vswitchd: an EAL option dpdk-extra already has is not taken
    again from its database key, with OVS's warning; of dpdk-alloc-mem and
    dpdk-socket-mem, both set, OVS's error and the later (the mapping
    itself is compared with ovs-vswitchd-dpdk's in tests/unit/
    test_ovsdb_eal.c)."""
    ok(ovsdb, "--no-wait", "set", "Open_vSwitch", ".",
       'other_config:dpdk-extra="--socket-mem 192 --iova-mode=va"',
       "other_config:dpdk-socket-mem=256",
       "other_config:dpdk-alloc-mem=512")
    sw = make_switch(one_port_topology,
                     args=["--ovsdb", "unix:%s" % ovsdb.sock],
                     env=dict(os.environ, OVS_RUNDIR=str(ovsdb.dir)))
    held(sw)
    log = sw.log_path.read_text()
    assert "Multiple defined options for memory type. Please check your " \
        "database settings and reconfigure if necessary." in log, log
    assert "Ignoring database defined option '--socket-mem' due to " \
        "dpdk-extra config" in log, log
    eal = [ln for ln in log.splitlines() if "EAL ARGS: vxswitch " in ln]
    assert len(eal) == 1 and eal[0].endswith(
        " --socket-mem 192 --iova-mode=va"), eal
    assert eal[0].count("--socket-mem") == 1 and " -m " not in eal[0], eal
    assert "EAL: Selected IOVA mode 'VA'" in log, log[-3000:]
