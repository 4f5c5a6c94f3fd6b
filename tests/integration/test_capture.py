# SPDX-License-Identifier: BSD-3-Clause
"""Debian's dpdk-dumpcap captures on the switch's ports during live VXLAN
traffic: the NIC (an ethdev, net_af_packet here) and a vhost-user port
(through its stand-in ethdev, net_null_<port>, as list-ports names it).
tshark decodes what it wrote: VXLAN with the overlay's VNI on the NIC,
the bare inner frames on the vhost port. Capturing does not stop the
datapath, and the switch's teardown checks that no mbuf leaked.

dpdk-dumpcap 22.11 stamps packets with wrong times (fixed in 23.11):
nothing here looks at them."""

import json
import subprocess
import sys
import threading
import time

import pytest

from vxswitch_tools import harness as vxlib
from vxswitch_tools import packets as pktlib
from vxswitch_tools.addressing import SEED

DUMPCAP = "/usr/bin/dpdk-dumpcap"
TSHARK = "/usr/bin/tshark"
N_CAPTURE = 1000


def capture_topology(wire, rundir):
    """One VM. The hugepage memory at a fixed address far above the
    sanitizer's shadow: a secondary maps it at the primary's addresses,
    and an ASan primary otherwise puts it where dumpcap's own libraries
    may already be (its EAL init then fails, at random)."""
    topo = pktlib.topology(wire.devargs(), rundir, 1, emc_inv_prob=1)
    topo["eal"]["extra-args"] = ["--base-virtaddr=0x200000000000"]
    return topo


@pytest.fixture
def rig(wire, make_switch, make_testpmd, rundir):
    topo = capture_topology(wire, rundir)
    vm = make_testpmd(sockets=vxlib.vhost_paths(topo), name="vm",
                      cpus=(0,))
    sw = make_switch(topo)
    vm.wait_ready()
    sw.wait_ports_up(timeout=30)
    return wire, sw


class Traffic:
    """VXLAN frames for VM 0 sent into the NIC until stopped; the VM
    (testpmd macswap) sends each one back, so every port sees both
    directions."""

    def __init__(self, wire):
        self.wire = wire
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        frames = [pktlib.vxlan_to_vm(0, sport=41000 + i) for i in range(16)]
        while not self.stop.is_set():
            self.wire.send(frames)
            self.wire.flush()               # what came back: not kept
            time.sleep(0.002)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(10)


def dumpcap(sw, iface, path, count=N_CAPTURE):
    r = subprocess.run([DUMPCAP, "--file-prefix", sw.prefix, "-i", iface,
                        "-c", str(count), "-w", str(path), "-q"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout + r.stderr


def tshark(path, *fields):
    """One tuple of field values per frame."""
    r = subprocess.run([TSHARK, "-r", str(path), "-T", "fields"]
                       + [a for f in fields for a in ("-e", f)],
                       capture_output=True, text=True, timeout=60,
                       check=True)
    return [tuple(line.split("\t")) for line in r.stdout.splitlines()]


def dumpcap_ports(sw):
    """dpdk-dumpcap -D: the ethdev names a capture can name."""
    r = subprocess.run([DUMPCAP, "--file-prefix", sw.prefix, "-D"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r
    return {line.split(". ", 1)[1] for line in r.stdout.splitlines()
            if ". " in line}


def capture_names(sw):
    return {p["name"]: p["capture"] for p in sw.ctl("list-ports", json=True)}


def test_dumpcap_nic_and_vhost(rig, tmp_path):
    wire, sw = rig
    names = capture_names(sw)
    assert names["vhost-user0"] == "net_null_vhost-user0"
    assert names["dpdk-phy"] == "net_af_packet0"
    assert names["vxlan"] == ""
    assert {"net_null_vhost-user0", "net_af_packet0"} <= dumpcap_ports(sw)

    nic, vhost = tmp_path / "nic.pcapng", tmp_path / "vhost.pcapng"
    with Traffic(wire):
        out = dumpcap(sw, "net_af_packet0", nic)
        assert "Capturing on 'net_af_packet0'" in out, out
        out = dumpcap(sw, "net_null_vhost-user0", vhost)
        assert "Capturing on 'net_null_vhost-user0'" in out, out

    # the NIC: VXLAN both ways (in from the remote VTEP, out from the VM),
    # VNI 1001, the inner IP the VM's
    rows = tshark(nic, "vxlan.vni", "ip.dst")
    assert len(rows) >= N_CAPTURE
    assert {r[0] for r in rows} == {str(pktlib.VNI)}, set(rows)
    assert all(r[1].split(",")[-1] == SEED.ip(0) for r in rows)
    srcs = {r[0] for r in tshark(nic, "ip.src")}
    assert srcs == {"%s,%s" % (pktlib.REMOTE_IP, pktlib.INNER_REMOTE_IP),
                    "%s,%s" % (pktlib.VTEP_IP, pktlib.INNER_REMOTE_IP)}, srcs

    # scripts/pcap-summary.py reads dumpcap's pcapng
    r = subprocess.run([sys.executable, str(vxlib.SCRIPTS / "pcap-summary.py"),
                        str(nic), "--json"], capture_output=True, text=True,
                       check=True)
    groups = {(g["outer_dst"], g["vni"], g["inner_dst"])
              for g in json.loads(r.stdout)["groups"]}
    assert groups == {(ip, str(pktlib.VNI), SEED.ip(0))
                      for ip in (pktlib.VTEP_IP, pktlib.REMOTE_IP)}, groups

    # the vhost port: the inner frames, to the VM and back, no VXLAN
    rows = tshark(vhost, "vxlan.vni", "ip.dst", "eth.src")
    assert len(rows) >= N_CAPTURE
    assert all(r[0] == "" and r[1] == SEED.ip(0) for r in rows), rows[:3]
    macs = {r[2] for r in rows}
    assert macs == {pktlib.INNER_REMOTE_MAC, SEED.mac(0)}, macs

    # capture over: the datapath still forwards, both ways
    wire.flush()
    wire.send([pktlib.vxlan_to_vm(0, sport=43000)])
    wire.expect(lambda b: pktlib.is_vxlan(b, vm=0), n=1, timeout=5)


def test_capture_ethdev_follows_add_and_del_port(wire, make_switch, rundir):
    sw = make_switch(capture_topology(wire, rundir))
    sock = str(rundir / "vm9.sock")
    sw.ctl("add-port", "vm9", "type=dpdkvhostuserclient",
           "options:vhost-server-path=" + sock)
    assert capture_names(sw)["vm9"] == "net_null_vm9"
    assert {"net_null_vm9", "net_null_vhost-user0",
            "net_af_packet0"} <= dumpcap_ports(sw)
    assert "vm9=net_null_vm9" in sw.ctl("show")
    sw.ctl("del-port", "vm9")
    assert "net_null_vm9" not in dumpcap_ports(sw)
    # the name (and an ethdev id) serves again
    sw.ctl("add-port", "vm9", "type=dpdkvhostuserclient",
           "options:vhost-server-path=" + sock)
    assert capture_names(sw)["vm9"] == "net_null_vm9"
    assert "net_null_vm9" in dumpcap_ports(sw)
