# SPDX-License-Identifier: BSD-3-Clause
"""Debian's own ovs-appctl (openvswitch-common 3.1) drives vxswitch over its
unixctl socket (OVS's JSON-RPC, app/control/control_unixctl.c), and what
it prints has the shapes OVS 3.1 prints for the same topology: one VM, a
VXLAN port with key 1001 to 172.1.0.0, the NIC, one flow each way.

The references in ovs_ref/ were made by ovs_ref/make-ovs-ref.sh with the
real ovs-vswitchd (userspace datapath, dummy-pmd ports) on that topology;
the numbers, names and addresses differ, the labels, their order and the
field layout must not. The rig: the NIC is a veth pair (pktlib.Wire), the
VM a testpmd in macswap, as in test_forwarding.py.
"""

import glob
import re
import socket
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from vxswitch_tools import harness as vxlib
from vxswitch_tools import packets as pktlib

REF = Path(__file__).with_name("ovs_ref")
N_FRAMES = 8


def ref(name):
    return (REF / name).read_text()


def appctl(path, *args, timeout=10):
    """ovs-appctl -t PATH ARGS... -> CompletedProcess."""
    return subprocess.run(["ovs-appctl", "-t", str(path)] + list(args),
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def ovs_appctl_present():
    try:
        subprocess.run(["ovs-appctl", "--version"], capture_output=True,
                       check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.fail("ovs-appctl missing: apt-get install openvswitch-common "
                    "(scripts/install-deps.sh)", pytrace=False)


@pytest.fixture
def rig(ovs_appctl_present, wires, make_switch, make_testpmd, rundir):
    wire = pktlib.Wire().__enter__()
    wires.append(wire)
    topo = pktlib.topology(wire.devargs(), rundir, 1)
    vms = make_testpmd(sockets=vxlib.vhost_paths(topo, "dpdkvhostuserclient"),
                       name="vms", cpus=(0,))
    sw = make_switch(topo)
    vms.wait_ready()
    sw.wait_ports_up(timeout=30)
    # the VM echoes each frame (macswap): a decap, an inner and an encap
    # megaflow, as OVS has in ovs_ref/
    wire.send([pktlib.vxlan_to_vm(0, sport=40000 + i)
               for i in range(N_FRAMES)])
    got = wire.recv(N_FRAMES, timeout=15, match=pktlib.is_vxlan)
    assert len(got) == N_FRAMES
    paths = glob.glob(str(sw.ctl_socket.parent /
                          ("vxswitch.%d.ctl" % sw.proc.pid)))
    assert len(paths) == 1, "no unixctl socket beside %s" % sw.ctl_socket
    return sw, Path(paths[0])


def ok(path, *args):
    r = appctl(path, *args)
    assert r.returncode == 0 and not r.stderr, (args, r)
    return r.stdout


# ------------------------------------------------------------ shapes

NUM = re.compile(r"\d+(\.\d+)?")


def blocks(text):
    """pmd-stats-show's blocks: {header shape: [line shapes]}."""
    out, cur = {}, None
    for line in text.splitlines():
        if not line.startswith("  "):
            cur = out.setdefault(NUM.sub("N", line), [])
        else:
            cur.append(NUM.sub("N", line))
    return out


def test_pmd_stats_show(rig):
    sw, path = rig
    ours = ok(path, "dpif-netdev/pmd-stats-show")
    # line by line: every label, in OVS's order, with OVS's number layout
    # (the PMD saw packets, so its cycle lines are there as in OVS's)
    assert blocks(ours) == blocks(ref("pmd-stats-show.txt")), ours
    assert list(blocks(ours)) == ["pmd thread numa_id N core_id N:",
                                  "main thread:"]
    # the values are the switch's: 8 in, 8 echoed back
    m = re.search(r"^  packets received: (\d+)$", ours, re.M)
    assert int(m[1]) == 2 * N_FRAMES, ours
    hits = sum(int(re.search(r"^  %s: (\d+)$" % k, ours, re.M)[1])
               for k in ("emc hits", "megaflow hits",
                         "miss with success upcall"))
    assert hits >= 2 * N_FRAMES, ours
    # -pmd picks one core (no main thread); an unknown core: nothing
    core = re.search(r"core_id (\d+):", ours)[1]
    one = ok(path, "dpif-netdev/pmd-stats-show", "-pmd", core,
             "netdev@ovs-netdev")
    assert list(blocks(one)) == ["pmd thread numa_id N core_id N:"]
    assert ok(path, "dpif-netdev/pmd-stats-show", "-pmd", "99") == ""


def test_pmd_rxq_show(rig):
    sw, path = rig

    def shape(text):
        t = re.sub(r"port: (\S+) +queue-id", "port: P queue-id", text)
        return [NUM.sub("N", re.sub(r"pmd usage: +(\d+ %|NOT AVAIL)",
                                    "pmd usage: U", l))
                for l in t.splitlines()]
    ours = ok(path, "dpif-netdev/pmd-rxq-show")
    want = shape(ref("pmd-rxq-show.txt"))
    assert shape(ours) == want, ours        # 2 rx queues in both
    for line in ours.splitlines():          # OVS's padding, to the byte
        m = re.match(r"^  port: (\S+) +queue-id: +(\d+) \((\w+)\) +"
                     r"pmd usage: (.*)$", line)
        if m:
            assert line == "  port: %-16s  queue-id: %2d %s  pmd usage: %s" \
                % (m[1], int(m[2]), "(%s)%s" % (m[3], " " * (m[3] ==
                   "enabled")), m[4]), line


def top_names(key):
    """The attribute names of an ODP key, depth 0, in order."""
    names, depth, cur = [], 0, ""
    for c in key + ",":
        if c == "," and depth == 0:
            names.append(cur.split("(")[0])
            cur = ""
            continue
        depth += (c == "(") - (c == ")")
        cur += c
    return names


def action_part(actions, name):
    """The first NAME(...) in an action list, parentheses balanced."""
    i = actions.find(name + "(")
    if i < 0:
        return None
    depth = 0
    for j in range(i, len(actions)):
        depth += (actions[j] == "(") - (actions[j] == ")")
        if depth == 0 and actions[j] == ")":
            return actions[i:j + 1]
    return None


MAC = re.compile(r"([0-9a-f]{2}:){5}[0-9a-f]{2}")
IP = re.compile(r"\d+\.\d+\.\d+\.\d+")


def tnl_push_shape(a):
    a = re.sub(r"(tnl_port|out_port)\([^)]*\)", r"\1(P)", a)
    a = re.sub(r"frag=0x[0-9a-f]+", "frag=F", MAC.sub("M", IP.sub("I", a)))
    return a


PLAIN = re.compile(r"^(?P<key>.*), packets:\d+, bytes:\d+, "
                   r"used:(\d+\.\d{3}s|never), actions:(?P<act>.*)$")
MORE = re.compile(r"^ufid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                  r"[0-9a-f]{12}, (?P<key>.*), packets:\d+, bytes:\d+, "
                  r"used:(\d+\.\d{3}s|never)(, offloaded:\w+(, mark:\d+)?)?"
                  r", dp:ovs, actions:(?P<act>.*?)"
                  r"(, dp-extra-info:\S+)?$")


def flows_by_kind(text, pattern):
    """{'encap'|'decap'|'inner': (key names, actions)} of the PMD's
    flows, and the header lines."""
    kinds, headers, pmd = {}, [], False
    for line in text.splitlines():
        if line.startswith("flow-dump from"):
            headers.append(NUM.sub("N", line))
            pmd = "pmd" in line
            continue
        m = pattern.match(line)
        assert m, "not OVS's shape: %r" % line
        if not pmd:
            continue            # OVS's main thread: the tap's IPv6
        act = m["act"]
        kind = ("encap" if "tnl_push(" in act else
                "decap" if act.startswith("tnl_pop(") else "inner")
        kinds[kind] = (top_names(m["key"]), act)
    return kinds, headers


def check_order(ours, theirs):
    """Our attribute names appear in OVS's (ODP) order, with the ones OVS
    always prints."""
    order = {n: i for i, n in enumerate(theirs)}
    assert all(n in order for n in ours), (ours, theirs)
    assert [order[n] for n in ours] == sorted(order[n] for n in ours), \
        (ours, theirs)
    for n in ("recirc_id", "in_port", "packet_type"):
        assert n in ours, (n, ours)


def test_dpctl_dump_flows(rig):
    sw, path = rig
    ours, hdr = flows_by_kind(ok(path, "dpctl/dump-flows"), PLAIN)
    theirs, ref_hdr = flows_by_kind(ref("dpctl-dump-flows.txt"), PLAIN)
    assert hdr == ["flow-dump from pmd on cpu core: N"], hdr
    assert hdr[0] in ref_hdr
    assert set(ours) == set(theirs) == {"encap", "decap", "inner"}, ours
    # ODP order: OVS's verbose dump of the decapsulated flow has every
    # attribute (tunnel included)
    theirs_m, _ = flows_by_kind(ref("dpctl-dump-flows-m.txt"), MORE)
    for kind in ours:
        check_order(ours[kind][0], theirs_m["inner"][0])
    # tnl_push: the header we build, as OVS prints its own, and the port
    # it leaves by; plain dumps name ports by number
    enc = action_part(ours["encap"][1], "tnl_push")
    assert tnl_push_shape(enc) == tnl_push_shape(
        action_part(theirs["encap"][1], "tnl_push")), enc
    assert re.search(r"tnl_port\(\d+\).*out_port\(\d+\)\)$", enc), enc
    assert re.fullmatch(r"tnl_pop\(\d+\)", ours["decap"][1])
    assert ours["inner"][0][0] == "tunnel" and \
        re.fullmatch(r"\d+", ours["inner"][1]), ours["inner"]

    # -m: the ufid first, every attribute OVS's verbose dump has, names
    more, _ = flows_by_kind(ok(path, "dpctl/dump-flows", "-m",
                               "netdev@ovs-netdev"), MORE)
    # (a megaflow here keeps only what its mask covers: no L3/L4 header
    # its rules do not look at, so compare the metadata and L2 part)
    for kind in more:
        names = more[kind][0]
        check_order(names, theirs_m["inner"][0])
        upto = theirs_m[kind][0].index("eth_type") + 1
        assert names[:upto] == theirs_m[kind][0][:upto], (kind, names)
    assert "tnl_port(vxlan)" in more["encap"][1] and \
        "out_port(dpdk-phy)" in more["encap"][1], more["encap"]
    assert more["decap"][1] == "tnl_pop(vxlan)"
    assert more["inner"][1] == "vhost-user0"
    # --names without -m: the plain form with names
    named, _ = flows_by_kind(ok(path, "dpctl/dump-flows", "--names"), PLAIN)
    assert named["decap"][1] == "tnl_pop(vxlan)"


def test_tnl_arp_and_route_show(rig):
    sw, path = rig
    ours = ok(path, "tnl/arp/show").splitlines()
    theirs = ref("tnl-arp-show.txt").splitlines()
    assert ours[:2] == theirs[:2]           # the header, to the byte
    want = "%-46s%s   %s" % (pktlib.REMOTE_IP, pktlib.REMOTE_MAC, "dpdk-phy")
    assert ours[2:] == [want], ours
    assert len(ours[2]) - len("dpdk-phy") == len(theirs[2]) - len("br-phy")

    line = re.compile(r"^(User|Cached): \d+\.\d+\.\d+\.\d+/\d+ dev \S+"
                      r"( GW \S+)? SRC \d+\.\d+\.\d+\.\d+$")
    routes = ok(path, "ovs/route/show").splitlines()
    assert routes[0] == ref("ovs-route-show.txt").splitlines()[0]
    assert all(line.match(l) for l in ref("ovs-route-show.txt")
               .splitlines()[1:])
    assert routes[1:] and all(line.match(l) for l in routes[1:]), routes
    assert "172.1.0.0/24 dev dpdk-phy SRC %s" % pktlib.VTEP_IP in routes[1]
    # the same command table as vxswitch-ctl's socket
    assert sw.ctl("ovs/route/show").splitlines() == routes


def test_tnl_neigh_and_route_show_ipv6(ovs_appctl_present, wires,
                                       make_switch, rundir):
    """Neighbours and routes of both families, set and shown through
    ovs-appctl, printed as OVS 3.1 prints them (ovs_ref/
    make-ovs-ref-neigh6.sh: the same commands on br-phy with
    172.1.0.100/24 and 2001:db8:1::100/64), our NIC's name for br-phy."""
    wire = pktlib.Wire().__enter__()
    wires.append(wire)
    topo = pktlib.topology(wire.devargs(), rundir, 1)
    topo["underlay"]["local-ip"] = [pktlib.VTEP_IP + "/24",
                                    "2001:db8:1::100/64"]
    sw = make_switch(topo)
    paths = glob.glob(str(sw.ctl_socket.parent /
                          ("vxswitch.%d.ctl" % sw.proc.pid)))
    assert len(paths) == 1
    path = Path(paths[0])

    def mine(line):
        return line.replace("br-phy", "dpdk-phy")

    ok(path, "ovs/route/add", "2001:db8:9::/48", "br-phy", "2001:db8:1::1")
    ok(path, "tnl/neigh/set", "br-phy", "2001:db8:1::1", "F8:BC:12:44:34:B7")
    ok(path, "tnl/arp/set", "br-phy", "172.1.0.0", "F8:BC:12:44:34:B6")
    theirs = ref("tnl-neigh-show-ipv6.txt").splitlines()
    ours = ok(path, "tnl/neigh/show").splitlines()
    assert ours[:2] == theirs[:2]
    # the reference's rows, in the table's order
    assert [mine(l) for l in theirs[2:]] == sorted(ours[2:]), ours
    routes = ok(path, "ovs/route/show").splitlines()
    for line in ref("ovs-route-show-ipv6.txt").splitlines():
        if "2001:db8:9::" in line:
            assert mine(line) in routes, routes
    # the VTEP's own IPv6 prefix, connected, with its address as source
    assert "Cached: 2001:db8:1::/64 dev dpdk-phy SRC 2001:db8:1::100" \
        in routes, routes
    # save-config writes them back (state_save.c) in the topology's keys
    saved = Path(rundir) / "saved6.yaml"
    assert "saved to" in sw.ctl("save-config", saved)
    under = yaml.safe_load(saved.read_text())["underlay"]
    assert under["local-ip"] == ["172.1.0.100/24", "2001:db8:1::100/64"]
    assert {"prefix": "2001:db8:9::/48", "gateway": "2001:db8:1::1",
            "port": "dpdk-phy"} in under["routes"], under
    assert {"ip": "2001:db8:1::1", "mac": "F8:BC:12:44:34:B7"} \
        in under["arp"], under
    # and deleted again
    ok(path, "ovs/route/del", "2001:db8:9::/48")
    assert not [l for l in ok(path, "ovs/route/show").splitlines()
                if "2001:db8:9::" in l]
    # a gateway of the other family is refused, in OVS's words
    r = appctl(path, "ovs/route/add", "2001:db8:8::/48", "br-phy",
               "172.1.0.1")
    assert r.returncode != 0 and "Invalid pkt_mark or IPv6 gateway" \
        in r.stderr, r


def error_lines(r, path):
    """ovs-appctl's stderr with the target as OVS's would read."""
    return r.stderr.replace(str(path), "ovs-vswitchd").splitlines()


@pytest.mark.parametrize("args,ref_file", [
    (["nosuch-command"], "error-unknown-command.txt"),
    (["tnl/arp/show", "x"], "error-too-many-args.txt"),
    (["ovs/route/add", "10.2.0.0/16", "nosuch"], "error-route-add-nosuch.txt"),
    (["dpctl/dump-flows", "system@ovs-system"], "error-dp-not-found.txt"),
])
def test_errors_as_ovs(rig, args, ref_file):
    sw, path = rig
    routes = ok(path, "ovs/route/show")
    r = appctl(path, *args)
    want = ref(ref_file).splitlines()
    assert want[-1] == "exit 2" and r.returncode == 2, r
    got = error_lines(r, path)
    assert r.stdout == "" and got[-1] == want[-2], got   # "server returned.."
    if ref_file == "error-dp-not-found.txt":   # the program's name first
        assert got[0].startswith(want[0].replace("ovs-vswitchd",
                                                 "vxswitch")), got
        assert "system@ovs-system" in got[0], got
    else:
        assert got[0] == want[0], got
    assert ok(path, "ovs/route/show") == routes     # nothing changed


def test_unixctl_protocol(rig):
    """Several requests on one connection (OVS's Python client keeps it),
    an idle connection and a half-sent request do not hold up ovs-appctl,
    and a non-string argument gets OVS's error."""
    sw, path = rig
    from ovs.unixctl.client import UnixctlClient
    idle = socket.socket(socket.AF_UNIX)
    idle.connect(str(path))
    stalled = socket.socket(socket.AF_UNIX)
    stalled.connect(str(path))
    stalled.sendall(b'{"id":0,"method":"version","params":[')
    try:
        err, client = UnixctlClient.create(str(path))
        assert not err
        # transact() -> (errno, error text, result text)
        for _ in range(3):
            err, error, result = client.transact("version", [])
            assert (err, error) == (0, None), (err, error)
            assert result == "vxswitch (vxswitch) %s\n" % vxlib_version(sw)
        err, error, result = client.transact("tnl/arp/show", ["x"])
        assert error == '"tnl/arp/show" command takes at most 0 ' \
            'arguments\n' and result is None
        client.close()
        t0 = time.monotonic()
        assert "core_id" in ok(path, "dpif-netdev/pmd-stats-show")
        assert time.monotonic() - t0 < 2
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(path))
            s.sendall(b'{"method":"tnl/arp/show","params":[1],"id":7}')
            assert s.recv(4096) == b'{"id":7,"error":"\\"tnl/arp/show\\" ' \
                b'command has non-string argument\\n","result":null}'
    finally:
        idle.close()
        stalled.close()


def vxlib_version(sw):
    out = subprocess.run([str(sw.bin), "--version"], capture_output=True,
                         text=True).stdout
    return re.search(r"(\d+\.\d+\.\d+)", out)[1]
