# SPDX-License-Identifier: BSD-3-Clause
"""The ovs-vsctl scenario of issue 26 step 3 (OVSDB applies and writes
back), its runner and its normaliser, shared by
tests/integration/ovs_ref/ovsdb/make-ovs-ref-ovsdb.sh (which runs it
against Debian's ovs-vswitchd-dpdk and commits the outputs) and the
vxswitch-side test (which replays the same steps against vxswitch --ovsdb
and compares with those files).

A step is a list of commands run in order; every command is recorded as

    $ ovs-vsctl ARGS            (or ovs-ofctl ARGS)
    exit N
    stdout:
    <normalised lines>
    stderr:
    <normalised lines>

Commands that change the database are plain `ovs-vsctl --timeout=T`:
they wait for Open_vSwitch.cur_cfg to reach next_cfg (no --no-wait), as
a user's would. Read-only listings (`list`, `show`, `get`, ovs-ofctl
dumps) are repeated every 0.5 s until two normalised outputs in a row are
equal (5 s at most), as the switch writes status and statistics in
transactions of their own after cur_cfg.

Placeholders in the arguments: {run} is the switch's run directory
(OVS_RUNDIR: vhost sockets, br-int.mgmt), printed as $RUNDIR.

Besides ovs-vsctl and ovs-ofctl, two pseudo-commands: `guest start SOCK`
(a vhost-user frontend, vhost_frontend.py, listens on $RUNDIR/SOCK and
sets up its vrings once the switch connects) and `guest stop`; `sleep
S`; and
until(REGEX, LISTING), a listing repeated until it matches (Controller
status, which ovs-vswitchd writes on a timer). The runner sets
OVS_RUNDIR and OVS_LOGDIR to the run directory for the tools (ovs-vsctl
names the log directory in its "Error detected" message).

The vxswitch side: Runner(db, rundir), then run_step(runner, i) for i in
range(len(STEPS)), each text compared with the file step_name(i) + ".txt"
of tests/integration/ovs_ref/ovsdb/; or this module's command line
(--out DIR) and a diff. Nothing is left out of the comparison but what
normalise() drops: ofport numbers, error texts, status keys and values,
statistics names are compared as OVS wrote them.

The normaliser (normalise()) drops what differs from run to run or
between two switches for reasons that are not behaviour:
  - UUIDs -> <uuid> (random);
  - MAC addresses -> <mac>, except 00:00:00:00:00:00 (kept: it says that a
    device has no address yet); datapath_id -> <dpid> (made from a MAC);
  - the run directory -> $RUNDIR;
  - statistics={k=v, ...} -> statistics={k, ...}: the counter names are
    kept, their values dropped;
  - numbers of seconds in status maps (sec_since_connect=,
    sec_since_disconnect=) -> <n>; ovs-ofctl duration=N.NNNs -> <t>,
    n_packets=, n_bytes= -> <n>;
  - records of `list` sorted by their name column, and `show`'s Bridge
    and Port blocks by name (ovs-vsctl prints both in UUID order); map
    keys as ovs-vsctl prints them (sorted already).
"""

import argparse
import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import vhost_frontend

VSCTL_TIMEOUT = 20
IFACE_COLS = ("--columns=name,type,ofport,error,admin_state,link_state,"
              "mtu,mac_in_use,status,statistics")
OVS_COLS = ("--columns=cur_cfg,next_cfg,datapath_types,iface_types,"
            "dpdk_initialized,dpdk_version,datapaths")
BRIDGE_COLS = "--columns=name,datapath_type,datapath_id,datapath_version," \
    "fail_mode,status"
CTRL_COLS = "--columns=target,is_connected,role,status"


def vs(*args):
    return ("vsctl",) + args


def of(*args):
    return ("ofctl",) + args


def until(regex, cmd, timeout=15):
    """cmd, a listing, repeated until its normalised stdout matches regex
    (timeout seconds at most; then the last output is recorded, as it
    is): for columns the switch writes on a timer of its own (Controller
    status). Recorded as cmd alone."""
    return ("until", regex, timeout, cmd)


def guest(action, sock=None):
    """("guest", "start", SOCK): a vhost-user frontend (vhost_frontend.py)
    listens on {run}/SOCK, as a VM does for a dpdkvhostuserclient port,
    and once the switch connects sets up two 256-entry vrings (VERSION_1
    only, no packets); ("guest", "stop"): it closes the connection."""
    return ("guest", action) + ((sock,) if sock else ())


def ifaces(*names):
    """list Interface, the columns written back, the named rows."""
    return vs(IFACE_COLS, "list", "Interface", *names)


# (name, title, commands); the file is NN-name.txt, NN the step's place
# in this list from 01. The state carries over from step to step.
STEPS = [
    ("add-br", "a netdev bridge, then show", [
        vs("add-br", "br-int", "--", "set", "bridge", "br-int",
           "datapath_type=netdev"),
        vs("show"),
        ifaces("br-int"),
        vs(BRIDGE_COLS, "list", "Bridge"),
        vs(OVS_COLS, "list", "Open_vSwitch"),
    ]),
    ("vhostuserclient", "dpdkvhostuserclient, no guest behind it", [
        vs("add-port", "br-int", "vm1", "--", "set", "Interface", "vm1",
           "type=dpdkvhostuserclient",
           "options:vhost-server-path={run}/vm1.sock"),
        ifaces("vm1"),
    ]),
    ("ofport-request", "dpdkvhostuserclient with ofport_request=10", [
        vs("add-port", "br-int", "vm2", "--", "set", "Interface", "vm2",
           "type=dpdkvhostuserclient",
           "options:vhost-server-path={run}/vm2.sock", "ofport_request=10"),
        ifaces("vm2"),
    ]),
    ("mtu-request", "dpdkvhostuserclient with mtu_request=9000", [
        vs("add-port", "br-int", "vm3", "--", "set", "Interface", "vm3",
           "type=dpdkvhostuserclient",
           "options:vhost-server-path={run}/vm3.sock", "mtu_request=9000"),
        ifaces("vm3"),
    ]),
    ("dpdk-n-rxq", "dpdk on net_null0 (no-rx=1: no packets) with "
     "options:n_rxq=2", [
        vs("add-port", "br-int", "dpdk0", "--", "set", "Interface", "dpdk0",
           "type=dpdk", 'options:dpdk-devargs="net_null0,no-rx=1"', "options:n_rxq=2"),
        ifaces("dpdk0"),
    ]),
    ("dpdk-mtu", "mtu_request=9000 on dpdk0 (net_null: max_rx_pktlen "
     "1518), then cleared; the bridge's internal port beside it", [
        vs("set", "Interface", "dpdk0", "mtu_request=9000"),
        ifaces("dpdk0", "br-int"),
        vs("clear", "Interface", "dpdk0", "mtu_request"),
        ifaces("dpdk0", "br-int"),
    ]),
    ("rxq-affinity", "dpdkvhostuserclient with pmd-rxq-affinity=0:1", [
        vs("add-port", "br-int", "vm4", "--", "set", "Interface", "vm4",
           "type=dpdkvhostuserclient",
           "options:vhost-server-path={run}/vm4.sock",
           "other_config:pmd-rxq-affinity=0:1"),
        ifaces("vm4"),
        vs("del-port", "vm4"),
    ]),
    ("vhostuser", "dpdkvhostuser, the server socket in the run dir", [
        vs("add-port", "br-int", "vhu1", "--", "set", "Interface", "vhu1",
           "type=dpdkvhostuser"),
        ifaces("vhu1"),
    ]),
    ("guest", "dpdkvhostuserclient with a guest that sets up its "
     "vrings, then leaves", [
        guest("start", "vmg.sock"),
        vs("add-port", "br-int", "vmg", "--", "set", "Interface", "vmg",
           "type=dpdkvhostuserclient",
           "options:vhost-server-path={run}/vmg.sock"),
        # the counters of a running vhost device come with the next stats
        # refresh (every 5 s): rx_packets and the others
        until("rx_packets", ifaces("vmg")),
        guest("stop"),
        # past the next stats refresh: what the columns settle to
        ("sleep", "6"),
        ifaces("vmg"),
        vs("del-port", "vmg"),
    ]),
    ("same-socket", "a second vhostuserclient on vm1's socket", [
        vs("add-port", "br-int", "vm1b", "--", "set", "Interface", "vm1b",
           "type=dpdkvhostuserclient",
           "options:vhost-server-path={run}/vm1.sock"),
        ifaces("vm1", "vm1b"),
        vs("del-port", "vm1b"),
    ]),
    ("dpdk-no-devargs", "dpdk with no dpdk-devargs", [
        vs("add-port", "br-int", "dpdk1", "--", "set", "Interface", "dpdk1",
           "type=dpdk"),
        ifaces("dpdk1"),
        vs("show"),
        vs("del-port", "dpdk1"),
    ]),
    ("dpdk-nosuch-vdev", "dpdk, devargs of a vdev driver that does not "
     "exist", [
        vs("add-port", "br-int", "dpdk2", "--", "set", "Interface", "dpdk2",
           "type=dpdk", "options:dpdk-devargs=net_nosuch0"),
        ifaces("dpdk2"),
        vs("del-port", "dpdk2"),
    ]),
    ("dpdk-nosuch-pci", "dpdk, devargs of a PCI address (EAL has "
     "--no-pci)", [
        vs("add-port", "br-int", "dpdk3", "--", "set", "Interface", "dpdk3",
           "type=dpdk", "options:dpdk-devargs=0000:00:1f.7"),
        ifaces("dpdk3"),
        vs("del-port", "dpdk3"),
    ]),
    ("dpdk-same-devargs", "two dpdk interfaces on the same devargs "
     "(net_null1)", [
        vs("add-port", "br-int", "dpdk4", "--", "set", "Interface", "dpdk4",
           "type=dpdk", 'options:dpdk-devargs="net_null1,no-rx=1"'),
        vs("add-port", "br-int", "dpdk5", "--", "set", "Interface", "dpdk5",
           "type=dpdk", 'options:dpdk-devargs="net_null1,no-rx=1"'),
        ifaces("dpdk4", "dpdk5"),
        vs("del-port", "dpdk5"),
        vs("del-port", "dpdk4"),
    ]),
    ("vxlan", "vxlan, remote_ip=flow key=flow", [
        vs("add-port", "br-int", "vxlan0", "--", "set", "Interface",
           "vxlan0", "type=vxlan", "options:remote_ip=flow",
           "options:key=flow"),
        ifaces("vxlan0"),
    ]),
    ("vxlan-second", "a second vxlan port (another remote)", [
        vs("add-port", "br-int", "vxlan1", "--", "set", "Interface",
           "vxlan1", "type=vxlan", "options:remote_ip=192.0.2.1",
           "options:key=5"),
        ifaces("vxlan1"),
        vs("del-port", "vxlan1"),
    ]),
    ("vxlan-same-config", "a second vxlan port with vxlan0's options", [
        vs("add-port", "br-int", "vxlan1b", "--", "set", "Interface",
           "vxlan1b", "type=vxlan", "options:remote_ip=flow",
           "options:key=flow"),
        ifaces("vxlan1b"),
        vs("del-port", "vxlan1b"),
    ]),
    ("vxlan-unknown-option", "vxlan with an unknown option", [
        vs("add-port", "br-int", "vxlan2", "--", "set", "Interface",
           "vxlan2", "type=vxlan", "options:remote_ip=192.0.2.2",
           "options:nosuch=1"),
        ifaces("vxlan2"),
        vs("del-port", "vxlan2"),
    ]),
    ("vxlan-no-remote", "vxlan with no remote_ip", [
        vs("add-port", "br-int", "vxlan3", "--", "set", "Interface",
           "vxlan3", "type=vxlan", "options:key=7"),
        ifaces("vxlan3"),
        vs("del-port", "vxlan3"),
    ]),
    ("type-system", 'type "" (system) on a netdev bridge', [
        vs("add-port", "br-int", "sys0"),
        ifaces("sys0"),
        vs("del-port", "sys0"),
    ]),
    ("type-internal", "an internal interface that is not the bridge's", [
        vs("add-port", "br-int", "int0", "--", "set", "Interface", "int0",
           "type=internal"),
        ifaces("int0"),
        vs("del-port", "int0"),
    ]),
    ("type-patch", "patch, no peer", [
        vs("add-port", "br-int", "patch0", "--", "set", "Interface",
           "patch0", "type=patch"),
        ifaces("patch0"),
        vs("del-port", "patch0"),
    ]),
    ("type-patch-peer", "patch with a peer that does not exist", [
        vs("add-port", "br-int", "patch1", "--", "set", "Interface",
           "patch1", "type=patch", "options:peer=nosuch"),
        ifaces("patch1"),
        vs("del-port", "patch1"),
    ]),
    ("type-geneve", "geneve", [
        vs("add-port", "br-int", "gnv0", "--", "set", "Interface", "gnv0",
           "type=geneve", "options:remote_ip=192.0.2.3"),
        ifaces("gnv0"),
        vs("del-port", "gnv0"),
    ]),
    ("type-tap", "tap", [
        vs("add-port", "br-int", "tap0", "--", "set", "Interface", "tap0",
           "type=tap"),
        ifaces("tap0"),
        vs("del-port", "tap0"),
    ]),
    ("type-unknown", "a type no netdev class has", [
        vs("add-port", "br-int", "unk0", "--", "set", "Interface", "unk0",
           "type=nosuchtype"),
        ifaces("unk0"),
        vs("del-port", "unk0"),
    ]),
    ("set-type-unknown", "an existing interface's type changed to one no "
     "netdev class has (set, not add-port: ovs-vsctl reports errors of "
     "the interfaces it inserts only), then back", [
        vs("add-port", "br-int", "vm6", "--", "set", "Interface", "vm6",
           "type=dpdkvhostuserclient",
           "options:vhost-server-path={run}/vm6.sock"),
        vs("set", "Interface", "vm6", "type=nosuchtype"),
        ifaces("vm6"),
        vs("set", "Interface", "vm6", "type=dpdkvhostuserclient"),
        ifaces("vm6"),
        vs("del-port", "vm6"),
    ]),
    ("br-system", "a bridge with datapath_type=system (no openvswitch "
     "kernel module on the host)", [
        vs("add-br", "br-sys", "--", "set", "bridge", "br-sys",
           "datapath_type=system"),
        vs(BRIDGE_COLS, "list", "Bridge", "br-sys"),
        ifaces("br-sys"),
        vs("del-br", "br-sys"),
    ]),
    ("br-empty-type", "a bridge with datapath_type empty", [
        vs("add-br", "br-def"),
        vs(BRIDGE_COLS, "list", "Bridge", "br-def"),
        ifaces("br-def"),
        vs("del-br", "br-def"),
    ]),
    ("ofport-taken", "ofport_request=10, already vm2's", [
        vs("add-port", "br-int", "vm5", "--", "set", "Interface", "vm5",
           "type=dpdkvhostuserclient",
           "options:vhost-server-path={run}/vm5.sock", "ofport_request=10"),
        ifaces("vm2", "vm5"),
        vs("del-port", "vm5"),
    ]),
    ("mtu-change", "set Interface vm1 mtu_request=1400", [
        vs("set", "Interface", "vm1", "mtu_request=1400"),
        ifaces("vm1"),
    ]),
    ("del-port", "del-port vm1", [
        vs("del-port", "vm1"),
        vs("show"),
    ]),
    ("controller", "set-controller (nothing listening), then "
     "set-fail-mode secure", [
        of("-O", "OpenFlow13", "dump-flows", "br-int"),
        vs("set-controller", "br-int", "tcp:127.0.0.1:6653"),
        until("last_error=", vs(CTRL_COLS, "list", "Controller")),
        of("-O", "OpenFlow13", "dump-flows", "br-int"),
        vs("set-fail-mode", "br-int", "secure"),
        vs(CTRL_COLS, "list", "Controller"),
        vs("show"),
        of("-O", "OpenFlow13", "dump-flows", "br-int"),
        vs("del-controller", "br-int"),
        of("-O", "OpenFlow13", "dump-flows", "br-int"),
        vs("del-fail-mode", "br-int"),
        of("-O", "OpenFlow13", "dump-flows", "br-int"),
    ]),
    ("datapath", "a Datapath row as ovn-controller makes it (an empty "
     "row: ovs-vsctl create needs one column, ct_zones={} is the default; "
     "Open_vSwitch datapaths:netdev)", [
        vs("--", "--id=@dp", "create", "Datapath", "ct_zones={}", "--",
           "set", "Open_vSwitch", ".", "datapaths:netdev=@dp"),
        vs("--columns=capabilities,ct_zones,datapath_version,external_ids",
           "list", "Datapath"),
        vs(OVS_COLS, "list", "Open_vSwitch"),
    ]),
    ("state", "the database state: Open_vSwitch, Bridge, every "
     "Interface", [
        vs(OVS_COLS, "list", "Open_vSwitch"),
        vs(BRIDGE_COLS, "list", "Bridge"),
        vs("show"),
        ifaces(),
    ]),
    ("del-br", "del-br br-int", [
        vs("del-br", "br-int"),
        vs("show"),
        vs(OVS_COLS, "list", "Open_vSwitch"),
    ]),
]

UUID_RE = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                     r"[0-9a-f]{12}\b")
MAC_RE = re.compile(r"\b[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}\b")
DPID_RE = re.compile(r'(datapath_id\s*:\s*)"[0-9a-f]{16}"')
STATS_RE = re.compile(r"(statistics\s*:\s*)\{([^}]*)\}")
SECS_RE = re.compile(r"\b(sec_since_\w+)=\"?\d+\"?")
DURATION_RE = re.compile(r"duration=\d+(?:\.\d+)?s")
OFCOUNT_RE = re.compile(r"\b(n_packets|n_bytes)=\d+")


def _stats_keys(m):
    keys = [kv.split("=", 1)[0].strip() for kv in m.group(2).split(",")
            if kv.strip()]
    return "%s{%s}" % (m.group(1), ", ".join(keys))


def _mac(m):
    s = m.group(0)
    return s if s == "00:00:00:00:00:00" else "<mac>"


def _sort_records(text):
    """`list` prints one block per row, blank-line separated, in UUID
    order: sort the blocks by their name (or target) line."""
    blocks = [b for b in text.split("\n\n") if b.strip()]
    if len(blocks) < 2:
        return text

    def key(b):
        m = re.search(r"^(?:name|target)\s*:\s*(.*)$", b, re.M)
        return m.group(1) if m else b
    return "\n\n".join(b.strip("\n") for b in sorted(blocks, key=key)) + "\n"


def _sort_show(text):
    """`show` prints bridges and ports in UUID order: sort the Bridge
    blocks, and the Port blocks within each, by their header line (the
    other lines of a block, datapath_type, fail_mode, Controller, come
    before the ports in OVS's output and keep their order)."""
    root = ("", [])
    stack = [(-1, root)]
    for line in text.rstrip("\n").split("\n"):
        ind = len(line) - len(line.lstrip(" "))
        while stack[-1][0] >= ind:
            stack.pop()
        node = (line, [])
        stack[-1][1][1].append(node)
        stack.append((ind, node))

    def emit(node, out):
        fixed = [c for c in node[1]
                 if not c[0].lstrip().startswith(("Bridge ", "Port "))]
        blocks = sorted((c for c in node[1] if c not in fixed),
                        key=lambda c: c[0])
        for c in fixed + blocks:
            out.append(c[0])
            emit(c, out)
    out = []
    emit(root, out)
    return "\n".join(out) + "\n"


def normalise(text, rundir, listing=False, show=False):
    if rundir:
        text = text.replace(str(rundir), "$RUNDIR")
    text = UUID_RE.sub("<uuid>", text)
    text = DPID_RE.sub(r'\1"<dpid>"', text)
    text = MAC_RE.sub(_mac, text)
    text = STATS_RE.sub(_stats_keys, text)
    text = SECS_RE.sub(r"\1=<n>", text)
    text = DURATION_RE.sub("duration=<t>", text)
    text = OFCOUNT_RE.sub(r"\1=<n>", text)
    if show and text.strip():
        text = _sort_show(text)
    elif listing:
        text = _sort_records(text)
    return text


def _verb(cmd):
    a = [x for x in cmd[1:] if not x.startswith("-")]
    return a[0] if a else ""


def _is_listing(cmd):
    return cmd[0] == "ofctl" or _verb(cmd) in ("list", "show", "get",
                                                "find")


class Runner:
    """Runs commands against one switch: db is ovs-vsctl's --db, rundir
    the switch's OVS_RUNDIR (ovs-ofctl finds BRIDGE.mgmt there)."""

    def __init__(self, db, rundir, env=None, timeout=VSCTL_TIMEOUT):
        self.db, self.rundir, self.timeout = db, Path(rundir), timeout
        # OVS_LOGDIR: ovs-vsctl names it in its "Error detected" message
        self.env = dict(env if env is not None else os.environ,
                        OVS_RUNDIR=str(self.rundir),
                        OVS_LOGDIR=str(self.rundir))
        self.guest = None

    # the guest: one at a time
    def _guest_start(self, sock):
        path = self.rundir / sock
        srv = vhost_frontend.listen(path)
        srv.settimeout(self.timeout)
        stop = threading.Event()
        g = {"srv": srv, "stop": stop, "err": None, "path": path}

        def serve():
            fe = None
            try:
                s, _ = srv.accept()
                fe = vhost_frontend.Frontend(s)
                fe.setup()
                stop.wait(120)
            except Exception as e:      # reported by "guest stop"
                g["err"] = "%s: %s" % (type(e).__name__, e)
            finally:
                if fe:
                    fe.close()
        g["thread"] = threading.Thread(target=serve, daemon=True)
        g["thread"].start()
        self.guest = g
        return 0, "", ""

    def _guest_stop(self):
        g, self.guest = self.guest, None
        g["stop"].set()
        g["thread"].join(10)
        g["srv"].close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(g["path"])
        if g["err"]:
            return 1, "", normalise(g["err"], self.rundir) + "\n"
        return 0, "", ""

    def argv(self, cmd):
        args = [a.replace("{run}", str(self.rundir)) for a in cmd[1:]]
        if cmd[0] == "vsctl":
            return ["ovs-vsctl", "--db=%s" % self.db,
                    "--timeout=%d" % self.timeout] + args
        return ["ovs-ofctl"] + args

    def once(self, cmd):
        p = subprocess.run(self.argv(cmd), env=self.env, text=True,
                           capture_output=True, timeout=self.timeout + 10)
        show = cmd[0] == "vsctl" and _verb(cmd) == "show"
        return (p.returncode,
                normalise(p.stdout, self.rundir, _is_listing(cmd), show),
                normalise(p.stderr, self.rundir))

    def run(self, cmd):
        if cmd[0] == "until":
            _, regex, timeout, inner = cmd
            deadline = time.monotonic() + timeout
            r = self.run(inner)
            while (not re.search(regex, r[1])
                   and time.monotonic() < deadline):
                time.sleep(0.5)
                r = self.run(inner)
            return r
        if cmd[0] == "sleep":
            time.sleep(float(cmd[1]))
            return 0, "", ""
        if cmd[0] == "guest":
            return (self._guest_start(cmd[2]) if cmd[1] == "start"
                    else self._guest_stop())
        r = self.once(cmd)
        if _is_listing(cmd):
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                time.sleep(0.5)
                r2 = self.once(cmd)
                if r2 == r:
                    break
                r = r2
        return r


def shown(cmd):
    """The command as recorded: tool, arguments, $RUNDIR for {run}; the
    --db and --timeout the runner adds are left out."""
    if cmd[0] == "until":
        return shown(cmd[3])
    tool = {"vsctl": "ovs-vsctl", "ofctl": "ovs-ofctl"}.get(cmd[0], cmd[0])
    args = list(cmd[1:])
    if cmd[0] == "guest" and len(args) > 1:
        args[1] = "{run}/" + args[1]
    return " ".join([tool] + [a.replace("{run}", "$RUNDIR") for a in args])


def record(cmd, result):
    rc, out, err = result
    lines = ["$ " + shown(cmd), "exit %d" % rc, "stdout:"]
    lines += out.rstrip("\n").split("\n") if out.strip() else []
    lines.append("stderr:")
    lines += err.rstrip("\n").split("\n") if err.strip() else []
    return "\n".join(lines) + "\n"


def step_name(i):
    """The file name of STEPS[i], without .txt."""
    return "%02d-%s" % (i + 1, STEPS[i][0])


def run_step(runner, i):
    _, title, cmds = STEPS[i]
    parts = ["# %s: %s\n" % (step_name(i), title)]
    for c in cmds:
        parts.append(record(c, runner.run(c)))
    return "\n".join(parts)


LOG_RE = re.compile(r"^\S+\|\d+\|(\w+)\|(WARN|ERR|EMER)\|(.*)$")


def log_lines(path, offset, rundir):
    """ovs-vswitchd's WARN/ERR lines written since offset, without the
    time and sequence number (and without timeval's), normalised, each
    once (retries, PMD reassignments repeat them as often as timing
    has it); and the new offset."""
    with open(path, "rb") as f:
        f.seek(offset)
        data = f.read()
        end = f.tell()
    out = []
    for line in data.decode(errors="replace").splitlines():
        m = LOG_RE.match(line)
        # timeval's "Unreasonably long poll interval" lines: the host's
        # load, not the switch's answer
        if m and m.group(1) != "timeval":
            line = normalise("%s|%s|%s" % m.groups(), rundir)
            if line not in out:
                out.append(line)
    return out, end


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", required=True, help="ovs-vsctl's --db")
    ap.add_argument("--rundir", required=True, help="the switch's "
                    "OVS_RUNDIR")
    ap.add_argument("--out", required=True, help="folder for NN-*.txt")
    ap.add_argument("--log", help="the switch's log: its WARN/ERR lines "
                    "per step go to OUT/ovs-vswitchd-log.txt")
    ap.add_argument("--only", help="run the steps up to this one only")
    a = ap.parse_args(argv)
    out = Path(a.out)
    runner = Runner(a.db, a.rundir)
    offset = os.path.getsize(a.log) if a.log else 0
    logtext = []
    for i in range(len(STEPS)):
        name = step_name(i)
        t = time.monotonic()
        text = run_step(runner, i)
        (out / ("%s.txt" % name)).write_text(text)
        if a.log:
            lines, offset = log_lines(a.log, offset, a.rundir)
            logtext.append("# %s\n%s" % (name, "".join(
                l + "\n" for l in lines)))
        print("%-28s %5.1f s" % (name, time.monotonic() - t),
              file=sys.stderr)
        if a.only and name == a.only:
            break
    if a.log:
        (out / "ovs-vswitchd-log.txt").write_text("\n".join(logtext))
    return 0


if __name__ == "__main__":
    sys.exit(main())
