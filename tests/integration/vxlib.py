# SPDX-License-Identifier: BSD-3-Clause
"""Harness for vxswitch's integration tests: real processes, real sockets.

  Switch     the daemon (build/app/vxswitch) with a topology given as a dict,
             its own EAL file prefix, run dir, control socket and log file;
             ctl() runs vxswitch-ctl against it.
  Testpmd    dpdk-testpmd as the VMs: one process, N virtio-user ports that
             own their vhost-user sockets (server=1) for the switch's
             dpdkvhostuserclient ports to connect to; macswap, non-interactive.
             Or any other testpmd (vdevs=..., interactive=True) as a peer.
  netns(), veth_pair(), read_pcap(), write_pcap(), gen_traffic(), wait_for()

Every process started here is registered and killed by the conftest
fixtures at teardown, whatever the test's outcome (reap_all()).

Cores: the machine has two (0, 1). The switch's main lcore is 0 and its
PMD 1; testpmd's main and forwarding lcores both run on CPU 0 by default.

Quirks of DPDK 22.11 (Debian) that shape the Testpmd class:
  - virtio-user with server=1 blocks in accept() while probing each port, in
    order: vm1.sock does not exist until something connected to vm0.sock. A
    switch reconnecting every second so needs ~1 s per VM port.
  - virtio-user shares its memory with the backend as one region per hugepage
    file and allows 8: without --single-file-segments the vhost side gets
    "Too many memory regions" and no packet ever flows. --single-file-segments
    cannot be combined with --huge-unlink; --in-memory works with it and
    leaves no hugepage files behind.
  - testpmd's stdout is block-buffered when it is not a tty: run under
    stdbuf -oL so the log can be waited on.
  - testpmd drains its rx queues before forwarding (flush_fwd_rx_queues):
    a finite net_pcap rx_pcap is swallowed whole unless --no-flush-rx.
  - with N ports in one testpmd, the default paired port topology forwards
    port 0 -> 1; a VM must answer on its own port: --port-topology=loop.
  - SIGINT while a server=1 port waits in accept() aborts only that port's
    probe; the next port then waits. stop() repeats SIGINT until it exits.
  - without --no-flush-rx / -i, a non-interactive testpmd waits for a key on
    stdin ("Press enter to exit"): stdin must be a pipe kept open, since EOF
    on stdin makes it exit at once.
"""

import contextlib
import copy
import importlib.util
import itertools
import json as jsonlib
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
HUGE_MNT = Path(os.environ.get("VXS_HUGE_MNT", "/dev/hugepages"))
DPDK_RUN = Path("/var/run/dpdk")

_counter = itertools.count()
_live = []          # every Popen we started, until it is reaped


class HarnessError(AssertionError):
    """A process of the harness misbehaved (did not start, did not stop)."""


# --------------------------------------------------------------- binaries

def build_dir():
    d = os.environ.get("VXS_BUILD_DIR")
    return Path(d).resolve() if d else REPO / "build"


def find_binary(name, bdir=None):
    """build/app/NAME (or anywhere under the build dir); fails if missing."""
    bdir = Path(bdir) if bdir else build_dir()
    for c in (bdir / "app" / name, bdir / name, bdir / "app" / "ctl" / name):
        if c.is_file() and os.access(c, os.X_OK):
            return c
    if bdir.is_dir():
        for c in sorted(bdir.rglob(name)):
            if c.is_file() and os.access(c, os.X_OK):
                return c
    raise HarnessError(
        "%s not found in build dir %s (VXS_BUILD_DIR); build first: "
        "meson setup build && meson compile -C build" % (name, bdir))


def unique_prefix(name="vx"):
    """A short EAL file prefix unique to this process and call."""
    tag = re.sub(r"[^A-Za-z0-9]", "", name)[:10] or "vx"
    return "vxt%d_%d_%s" % (os.getpid(), next(_counter), tag)


def short_tmpdir(tag="vxs"):
    """A short directory for unix sockets (sun_path has 108 bytes)."""
    return Path(tempfile.mkdtemp(prefix="%s-" % tag, dir="/tmp"))


def cleanup_dpdk_prefix(prefix):
    """Removes what a finished DPDK process with this file prefix left:
    its hugepage files and its runtime dir. Only for our unique prefixes
    (no other process can be using them)."""
    if HUGE_MNT.is_dir():
        for f in HUGE_MNT.glob(prefix + "map_*"):
            with contextlib.suppress(OSError):
                f.unlink()
    shutil.rmtree(DPDK_RUN / prefix, ignore_errors=True)


# -------------------------------------------------------------- processes

def _die_with_parent():
    """In the child: SIGKILL when pytest dies, even by SIGKILL (a busy-polling
    testpmd left behind would eat a core of the next run)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except Exception:   # best effort; reap_all() covers the normal case
        pass


def _spawn(argv, log_path, stdin=subprocess.DEVNULL, env=None):
    log = open(log_path, "ab")
    try:
        p = subprocess.Popen([str(a) for a in argv], stdin=stdin,
                             stdout=log, stderr=subprocess.STDOUT, env=env,
                             start_new_session=True,
                             preexec_fn=_die_with_parent)
    finally:
        log.close()
    _live.append(p)
    return p


def _kill(p, sig=signal.SIGKILL):
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(p.pid, sig)
    with contextlib.suppress(ProcessLookupError):
        p.send_signal(sig)


def reap_all(timeout=5):
    """Kills every process the harness started that is still running.
    Returns the argv[0]s of those it had to kill."""
    killed = []
    for p in list(_live):
        if p.poll() is None:
            killed.append(" ".join(map(str, p.args[:3])))
            _kill(p)
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout)
        _live.remove(p)
    for obj in list(_objects):
        with contextlib.suppress(Exception):
            obj._after_exit()
    _objects.clear()
    return killed


_objects = []       # Switch/Testpmd objects whose leftovers need cleaning


def _tail(path, n=40):
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join(lines[-n:])


def wait_for(cond, timeout=10.0, interval=0.1, what="condition"):
    """Polls cond() until it returns something truthy; returns that value.
    Raises TimeoutError naming `what` (a string or a callable giving one)."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() >= deadline:
            w = what() if callable(what) else what
            raise TimeoutError("timed out after %.1f s waiting for %s"
                               % (timeout, w))
        time.sleep(interval)


# ----------------------------------------------------------------- switch

class CtlError(AssertionError):
    def __init__(self, cmd, res, log_tail=""):
        self.cmd, self.res = cmd, res
        msg = ("%s: exit %d\nstdout: %s\nstderr: %s"
               % (" ".join(map(str, cmd)), res.returncode,
                  res.stdout.strip(), res.stderr.strip()))
        if log_tail:
            msg += "\n--- vxswitch log tail ---\n" + log_tail
        super().__init__(msg)


class _Process:
    """What Switch and Testpmd share: one DPDK process in self.proc (from
    _spawn()), with EAL file prefix self.prefix and its log at
    self.log_path. Subclasses set name, proc, returncode, prefix, log_path
    and define stop(); _exited() is their hook for once the process is
    gone."""

    @property
    def running(self):
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            _kill(self.proc)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5)
        self._after_exit()

    def _kill_and_raise(self, msg):
        """stop() gave up: SIGKILL, clean up, raise HarnessError(msg)."""
        _kill(self.proc)
        self.proc.wait(5)
        self._after_exit()
        raise HarnessError(msg)

    def _after_exit(self):
        if self.proc is None or self.proc.poll() is None:
            return
        self.returncode = self.proc.returncode
        if self.proc in _live:
            _live.remove(self.proc)
        self._exited()
        cleanup_dpdk_prefix(self.prefix)

    def _exited(self):
        """Called by _after_exit() with the process reaped (again at each
        later call)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.running:
            self.stop()

    @property
    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, n=40):
        return _tail(self.log_path, n)


class Switch(_Process):
    """One vxswitch daemon.

    topology: the topology file as a dict (see topology/*.yaml); it is
    copied, then given this switch's own eal.file-prefix and
    datapath.ctl-socket, and, unless set, eal.lcores "0-1", eal.no-pci and
    datapath.pmd-cores [1]. Written to WORKDIR/NAME.yaml; the log goes to
    WORKDIR/NAME.log. The control socket lives in RUNDIR (short path).

        sw = Switch(topo, tmp_path, rundir)      # starts, waits for ctl
        sw.ctl("add-flow", "in_port=1,actions=drop")
        sw.ctl("show", json=True)["ports"]
        rc = sw.stop()
    """

    def __init__(self, topology, workdir, rundir=None, name="vxswitch",
                 args=(), env=None, start=True, ready_timeout=20.0,
                 isolate=True):
        self.name = name
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.rundir = Path(rundir) if rundir else short_tmpdir("vxsw")
        self.prefix = unique_prefix(name)
        self.ctl_socket = self.rundir / ("%s.ctl" % name)
        self.config_path = self.workdir / ("%s.yaml" % name)
        self.log_path = self.workdir / ("%s.log" % name)
        self.bin = find_binary("vxswitch")
        self.ctl_bin = find_binary("vxswitch-ctl")
        self.args = list(args)
        self.env = env
        self.ready_timeout = ready_timeout
        self.topology = copy.deepcopy(topology)
        if isolate:
            eal = self.topology.setdefault("eal", {}) or {}
            self.topology["eal"] = eal
            eal["file-prefix"] = self.prefix
            eal.setdefault("lcores", "0-1")
            eal.setdefault("no-pci", True)
            dp = self.topology.setdefault("datapath", {}) or {}
            self.topology["datapath"] = dp
            dp["ctl-socket"] = str(self.ctl_socket)
            dp.setdefault("pmd-cores", [1])
        else:
            self.prefix = (self.topology.get("eal") or {}).get(
                "file-prefix", "vxswitch")
            self.ctl_socket = Path((self.topology.get("datapath") or {}).get(
                "ctl-socket", "/var/run/vxswitch/vxswitch.ctl"))
        self.proc = None
        self.returncode = None
        self.mbuf_baseline = None
        self.last_ctl = None
        _objects.append(self)
        if start:
            self.start()

    # -- lifecycle -------------------------------------------------------
    def write_config(self):
        with open(self.config_path, "w") as f:
            yaml.safe_dump(self.topology, f, sort_keys=False,
                           default_flow_style=False)
        return self.config_path

    def start(self):
        if self.proc and self.proc.poll() is None:
            raise HarnessError("%s already running" % self.name)
        self.write_config()
        with contextlib.suppress(FileNotFoundError):
            self.ctl_socket.unlink()
        with open(self.log_path, "ab") as f:
            f.write(("=== %s --config %s %s\n" % (self.bin, self.config_path,
                                                   " ".join(self.args)))
                    .encode())
        self.returncode = None
        self.proc = _spawn([self.bin, "--config", self.config_path]
                           + self.args, self.log_path, env=self.env)
        self.wait_ready(self.ready_timeout)
        with contextlib.suppress(Exception):
            self.mbuf_baseline = self.mempool()["in_use"]
        return self

    def wait_ready(self, timeout=20.0):
        """Waits until `vxswitch-ctl show` answers."""
        deadline = time.monotonic() + timeout
        while True:
            rc = self.proc.poll()
            if rc is not None:
                self._after_exit()
                raise HarnessError(
                    "%s exited with %d while starting\n--- log tail ---\n%s"
                    % (self.name, rc, self.log_tail()))
            if self.ctl_socket.exists():
                r = self.ctl_result("show", timeout=2)
                if r.returncode == 0:
                    return
            if time.monotonic() >= deadline:
                self.kill()
                raise HarnessError(
                    "%s: control socket %s did not answer 'show' within "
                    "%.0f s\n--- log tail ---\n%s"
                    % (self.name, self.ctl_socket, timeout, self.log_tail()))
            time.sleep(0.1)

    def stop(self, timeout=10.0, sig=signal.SIGTERM):
        """SIGTERM, wait; returns the exit code. Kills it and raises if it
        does not exit within timeout."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self._kill_and_raise(
                    "%s did not exit within %.0f s of %s; killed\n"
                    "--- log tail ---\n%s" % (self.name, timeout,
                                              signal.Signals(sig).name,
                                              self.log_tail()))
        self._after_exit()
        return self.returncode

    # -- control ---------------------------------------------------------
    def ctl_cmd(self, *args, json=False):
        return ([str(self.ctl_bin), "-s", str(self.ctl_socket)]
                + (["--json"] if json else []) + [str(a) for a in args])

    def ctl_result(self, *args, json=False, timeout=10.0, input=None):
        """Runs vxswitch-ctl; returns the CompletedProcess (never raises on
        a non-zero exit)."""
        cmd = self.ctl_cmd(*args, json=json)
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=timeout, input=input,
                               stdin=None if input is not None
                               else subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:
            r = subprocess.CompletedProcess(
                cmd, 124, (e.stdout or b"").decode(errors="replace")
                if isinstance(e.stdout, bytes) else (e.stdout or ""),
                "timed out after %.0f s" % timeout)
        self.last_ctl = r
        return r

    def ctl(self, *args, json=False, check=True, timeout=10.0, input=None):
        """vxswitch-ctl -s SOCK [--json] ARGS... -> stdout (json=True: the
        parsed JSON). check: raise CtlError on a non-zero exit (with the
        switch's log tail). The CompletedProcess stays in self.last_ctl."""
        r = self.ctl_result(*args, json=json, timeout=timeout, input=input)
        if check and r.returncode != 0:
            raise CtlError(r.args, r, self.log_tail(20))
        if json:
            if r.returncode != 0 and not r.stdout.strip():
                return None
            return jsonlib.loads(r.stdout)
        return r.stdout

    def show(self):
        return self.ctl("show", json=True)

    def mempool(self):
        """{"size": N, "in_use": N} from `show --json`."""
        return self.show()["mempool"]

    def port(self, name):
        for p in self.show()["ports"]:
            if p["name"] == name:
                return p
        raise KeyError("no port %r in show" % name)

    def wait_ports_up(self, *names, timeout=30.0):
        """Waits until the named ports (all ports if none) report state up."""
        def down():
            ports = self.show()["ports"]
            return [p["name"] for p in ports
                    if (not names or p["name"] in names)
                    and p.get("state") != "up"]
        last = []

        def ok():
            last[:] = down()
            return not last
        wait_for(ok, timeout, 0.2,
                 lambda: "ports up on %s (still down: %s)\n%s"
                 % (self.name, ", ".join(last), self.log_tail(20)))


def assert_no_mbuf_leak(switch, baseline=None, timeout=5.0):
    """Polls `show --json` until mempool.in_use is back to baseline (default:
    the value right after the switch started). Raises AssertionError with
    the numbers if it is not within timeout."""
    if baseline is None:
        baseline = switch.mbuf_baseline
    if baseline is None:
        raise HarnessError("%s: no mbuf baseline (show --json has no "
                           "'mempool'?)" % switch.name)
    seen = {}

    def back():
        mp = switch.mempool()
        seen.update(mp)
        return mp["in_use"] <= baseline
    try:
        wait_for(back, timeout, 0.1)
    except TimeoutError:
        raise AssertionError(
            "%s leaks mbufs: %d in use %.0f s after the test, %d at start "
            "(pool of %d)" % (switch.name, seen.get("in_use", -1), timeout,
                              baseline, seen.get("size", -1))) from None


def assert_packets_accounted(switch):
    """Every packet the switch received ended in exactly one counter
    (pmd.h): per PMD, received + copies == sent + consumed + dropped +
    in_flight, the terms read by the PMD itself between two bursts (exact
    even while traffic flows). Raises AssertionError with the terms."""
    bad = []
    for st in switch.ctl("dpif-netdev/pmd-stats-show", json=True):
        a = st["accounting"]
        lhs = a["received"] + a["copies"]
        rhs = a["sent"] + a["consumed"] + a["dropped"] + a["in_flight"]
        if lhs != rhs or not a["balanced"]:
            bad.append("core %s: received %d + copies %d != sent %d + "
                       "consumed %d + dropped %d + in flight %d (%+d); "
                       "drops %s" % (st["core"], a["received"], a["copies"],
                                     a["sent"], a["consumed"], a["dropped"],
                                     a["in_flight"], lhs - rhs,
                                     {k: v for k, v in st["drops"].items()
                                      if v}))
    if bad:
        raise AssertionError("%s: packets unaccounted for:\n  %s"
                             % (switch.name, "\n  ".join(bad)))


# ---------------------------------------------------------------- testpmd

FWD_STATS_RE = re.compile(
    r"-+ Forward statistics for port (\d+)\s+-+\s*\n"
    r"\s*RX-packets:\s*(\d+)\s+RX-dropped:\s*(\d+)\s+RX-total:\s*(\d+)\s*\n"
    r"\s*TX-packets:\s*(\d+)\s+TX-dropped:\s*(\d+)\s+TX-total:\s*(\d+)")
PORT_MAC_RE = re.compile(r"^Port (\d+): ([0-9A-Fa-f:]{17})\s*$", re.M)


def vm_mac(i):
    """VM i's MAC, as gen-traffic.py uses it: 52:54:00:00:hh:ll."""
    return "52:54:00:00:%02x:%02x" % ((i >> 8) & 0xFF, i & 0xFF)


class Testpmd(_Process):
    """dpdk-testpmd, by default as the VMs of the seed's benchmark.

    VM mode (sockets given): one virtio-user port per socket path,
    `--vdev net_virtio_user{i},path=SOCK,queues=1,server=1,queue_size=256,
    mac=52:54:00:00:00:i`, macswap, one forwarding core, ports looped back
    to themselves. The switch (dpdkvhostuserclient ports) connects to the
    sockets; the process is only forwarding once all of them are connected
    (wait_ready()). server=False makes testpmd the vhost-user client of a
    switch-owned socket (dpdkvhostuser) instead.

    Peer mode: vdevs=[...] any devargs, e.g. net_vhost / net_pcap.
    interactive=True runs `-i` and takes commands on stdin (cmd()).

    cpus: CPUs for [main, forwarding] lcores; one CPU hosts both.
    stop() -> exit code; then .stats = {port: {"rx", "rx_dropped", "tx",
    "tx_dropped"}} from testpmd's final forward statistics.
    """

    __test__ = False    # not a pytest test class

    def __init__(self, workdir, sockets=(), name="testpmd", vdevs=(),
                 cpus=(0,), fwd="macswap", nb_cores=1, server=True,
                 queue_size=256, macs=None, interactive=False,
                 port_topology=None, mbufs=None, eal_args=(), args=(),
                 start=True, socket_timeout=10.0):
        self.name = name
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.workdir / ("%s.log" % name)
        self.prefix = unique_prefix(name)
        self.sockets = [Path(s) for s in sockets]
        self.server = server
        self.interactive = interactive
        self.socket_timeout = socket_timeout
        self.proc = None
        self.returncode = None
        self.stats = {}
        self._log_start = 0

        cpus = [int(c) for c in cpus] or [0]
        fwd_cpus = cpus[1:] or cpus[:1]
        lcores = ["0@%d" % cpus[0]] + ["%d@%d" % (i + 1,
                                                 fwd_cpus[i % len(fwd_cpus)])
                                      for i in range(nb_cores)]
        vd = []
        for i, s in enumerate(self.sockets):
            mac = macs[i] if macs else vm_mac(i)
            vd.append("net_virtio_user%d,path=%s,queues=1,server=%d,"
                      "queue_size=%d,mac=%s" % (i, s, 1 if server else 0,
                                                queue_size, mac))
        vd += list(vdevs)
        nports = len(vd)
        if mbufs is None:
            mbufs = max(8192, 2048 + 768 * nports)
        if port_topology is None:
            port_topology = "loop" if self.sockets and not vdevs else "paired"
        eal = ["--lcores", ",".join(lcores), "--no-pci", "--in-memory",
               "--single-file-segments", "--file-prefix", self.prefix,
               "--log-level", "lib.eal:notice"]
        for v in vd:
            eal += ["--vdev", v]
        eal += list(eal_args)
        app = ["--forward-mode=%s" % fwd, "--nb-cores=%d" % nb_cores,
               "--port-topology=%s" % port_topology,
               "--rxq=1", "--txq=1", "--rxd=%d" % queue_size,
               "--txd=%d" % queue_size, "--total-num-mbufs=%d" % mbufs,
               "--no-flush-rx"]
        app += ["-i"] if interactive else ["--auto-start"]
        app += list(args)
        self.argv = (["stdbuf", "-oL", "-eL", "dpdk-testpmd"] + eal + ["--"]
                     + app)
        _objects.append(self)
        if start:
            self.start()

    def start(self):
        if self.server:
            for s in self.sockets:
                with contextlib.suppress(FileNotFoundError):
                    s.unlink()
        # wait_ready() looks only at this run's part of the (appended) log
        self._log_start = len(self.log)
        with open(self.log_path, "ab") as f:
            f.write(("=== %s\n" % " ".join(self.argv)).encode())
        self.proc = _spawn(self.argv, self.log_path, stdin=subprocess.PIPE)
        if self.server and self.sockets:
            # the first socket appears once EAL is up and probing
            s0 = self.sockets[0]
            try:
                wait_for(lambda: s0.exists() or self.proc.poll() is not None,
                         self.socket_timeout, 0.05)
            except TimeoutError:
                self.kill()
                raise HarnessError("%s: %s not created within %.0f s\n%s"
                                   % (self.name, s0, self.socket_timeout,
                                      self.log_tail()))
            if self.proc.poll() is not None:
                self._after_exit()
                raise HarnessError("%s exited with %d while starting\n%s"
                                   % (self.name, self.proc.returncode,
                                      self.log_tail()))
        return self

    def wait_ready(self, timeout=None):
        """Waits until testpmd forwards (all ports probed, i.e. connected,
        and started): 'Press enter to exit' or the interactive prompt.
        Default timeout: 15 s + 1.5 s per vhost-user socket."""
        if timeout is None:
            timeout = 15.0 + 1.5 * len(self.sockets)
        marker = "testpmd>" if self.interactive else "Press enter to exit"

        def ready():
            if self.proc.poll() is not None:
                raise HarnessError("%s exited with %d\n%s" % (
                    self.name, self.proc.returncode, self.log_tail()))
            return marker in self.log[self._log_start:]
        wait_for(ready, timeout, 0.1,
                 lambda: "%s to forward (%s)\n%s" % (self.name, marker,
                                                      self.log_tail(15)))

    def cmd(self, line):
        """Sends a line to an interactive testpmd."""
        self.proc.stdin.write((line.rstrip("\n") + "\n").encode())
        self.proc.stdin.flush()

    def port_macs(self):
        """{port: "aa:bb:.."} as testpmd printed them while configuring."""
        return {int(p): m.lower() for p, m in PORT_MAC_RE.findall(self.log)}

    def parse_stats(self, text=None):
        """The last forward statistics block per port."""
        st = {}
        for m in FWD_STATS_RE.finditer(self.log if text is None else text):
            v = [int(x) for x in m.groups()]
            st[v[0]] = {"rx": v[1], "rx_dropped": v[2], "tx": v[4],
                        "tx_dropped": v[5]}
        return st

    def stop(self, timeout=10.0):
        """Stops testpmd (quit / SIGINT, repeated: each SIGINT aborts one
        port still waiting for its connection); returns the exit code and
        fills .stats. Kills it and raises if it is still there after
        timeout."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            deadline = time.monotonic() + timeout
            if self.interactive:
                with contextlib.suppress(OSError, ValueError):
                    self.cmd("stop")
                    self.cmd("quit")
            else:
                self.proc.send_signal(signal.SIGINT)
            while self.proc.poll() is None:
                try:
                    self.proc.wait(1.0)
                except subprocess.TimeoutExpired:
                    if time.monotonic() >= deadline:
                        self._kill_and_raise(
                            "%s did not exit within %.0f s; killed\n%s"
                            % (self.name, timeout, self.log_tail()))
                    self.proc.send_signal(signal.SIGINT)
        self._after_exit()
        return self.returncode

    def _exited(self):
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin:
                self.proc.stdin.close()
        self.stats = self.parse_stats()


# ------------------------------------------------------------ networking

def sh(cmd, ns=None, check=True, timeout=30):
    """Runs a command (list or string), in netns `ns` if given; returns
    stdout. Raises AssertionError with stderr if check and it fails."""
    if isinstance(cmd, str):
        cmd = cmd.split()
    cmd = [str(c) for c in cmd]
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    if check and r.returncode != 0:
        raise AssertionError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                  r.stderr.strip()))
    return r.stdout


@contextlib.contextmanager
def netns(name=None):
    """Creates a network namespace (lo up); always deletes it, killing
    whatever still runs in it."""
    name = name or "vxt%d_%d" % (os.getpid(), next(_counter))
    sh(["ip", "netns", "add", name])
    try:
        sh(["ip", "link", "set", "lo", "up"], ns=name)
        yield name
    finally:
        pids = sh(["ip", "netns", "pids", name], check=False).split()
        for p in pids:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(p), signal.SIGKILL)
        sh(["ip", "netns", "del", name], check=False)


def offloads_off(dev, ns=None):
    """ethtool -K DEV tx off rx off gso off tso off gro off (each feature
    separately: a veth may not know all of them)."""
    for feat in ("tx", "rx", "gso", "tso", "gro"):
        sh(["ethtool", "-K", dev, feat, "off"], ns=ns, check=False)


@contextlib.contextmanager
def veth_pair(a, b, ns=None, ns_a=None, mtu=None, offloads=False, up=True):
    """Creates veth a <-> b; b is moved into netns `ns`, a into `ns_a` (or
    stays in the root ns). Offloads are switched off unless offloads=True
    (checksums then are real in captures). Deleted on exit."""
    sh(["ip", "link", "add", a, "type", "veth", "peer", "name", b])
    try:
        if ns:
            sh(["ip", "link", "set", b, "netns", ns])
        if ns_a:
            sh(["ip", "link", "set", a, "netns", ns_a])
        for dev, where in ((a, ns_a), (b, ns)):
            if mtu:
                sh(["ip", "link", "set", dev, "mtu", mtu], ns=where)
            if not offloads:
                offloads_off(dev, ns=where)
            if up:
                sh(["ip", "link", "set", dev, "up"], ns=where)
        yield a, b
    finally:
        sh(["ip", "link", "del", a], ns=ns_a, check=False)


# ------------------------------------------------------------------ pcaps

def read_pcap_raw(path, limit=None):
    """Frames of a pcap as bytes, the first `limit` only if given (a record
    cut short at the end of a file still being written is dropped)."""
    out = []
    with open(path, "rb") as f:
        gh = f.read(24)
        if len(gh) < 24:
            return out
        magic = struct.unpack("<I", gh[:4])[0]
        e = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        if magic not in (0xA1B2C3D4, 0xA1B23C4D, 0xD4C3B2A1, 0x4D3CB2A1):
            raise ValueError("%s: not a pcap file (magic %#x)" % (path, magic))
        while limit is None or len(out) < limit:
            h = f.read(16)
            if len(h) < 16:
                break
            incl = struct.unpack(e + "IIII", h)[2]
            b = f.read(incl)
            if len(b) < incl:
                break
            out.append(b)
    return out


def read_pcap(path, limit=None):
    """Frames of a pcap as scapy Ether packets (the first `limit` if given;
    scapy takes ~50 us a packet, so limit big captures)."""
    from scapy.layers.l2 import Ether
    return [Ether(b) for b in read_pcap_raw(path, limit)]


def pcap_count(path):
    """Number of complete records in a pcap, without reading the frames."""
    n = 0
    with open(path, "rb") as f:
        gh = f.read(24)
        if len(gh) < 24:
            return 0
        e = "<" if struct.unpack("<I", gh[:4])[0] in (0xA1B2C3D4,
                                                       0xA1B23C4D) else ">"
        size = os.fstat(f.fileno()).st_size
        pos = 24
        while pos + 16 <= size:
            f.seek(pos)
            incl = struct.unpack(e + "IIII", f.read(16))[2]
            if pos + 16 + incl > size:
                break
            pos += 16 + incl
            n += 1
    return n


def write_pcap(path, pkts):
    """Writes scapy packets or bytes to a plain pcap (Ethernet)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for n, p in enumerate(pkts):
            b = bytes(p)
            f.write(struct.pack("<IIII", n // 1000000, n % 1000000, len(b),
                                len(b)))
            f.write(b)
    return Path(path)


def gen_traffic(out, *args, check=True):
    """Runs scripts/gen-traffic.py ARGS --out OUT; returns OUT as a Path."""
    cmd = [sys.executable, str(SCRIPTS / "gen-traffic.py"), "-q",
           *[str(a) for a in args], "--out", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if check and r.returncode != 0:
        raise AssertionError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                  r.stderr.strip()))
    return Path(out)


def load_gen_traffic():
    """scripts/gen-traffic.py as a module (for vxlan_sport(), vm_mac())."""
    spec = importlib.util.spec_from_file_location(
        "gen_traffic", SCRIPTS / "gen-traffic.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# -------------------------------------------------------------- topology

_VAR_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def load_topology(path, **variables):
    """A topology file as a dict, ${VAR} / ${VAR:-default} replaced from
    `variables` (else the default; a VAR with neither is an error), so the
    file the Switch writes is concrete. `path`: a file, or a name in
    topology/ ("vxlan-2vm.yaml").

        topo = load_topology("vxlan-2vm.yaml", VXS_RUN_DIR=rundir,
                             VXS_RX_PCAP=rx, VXS_TX_PCAP=tx,
                             VXS_INFINITE_RX=0)
    """
    p = Path(path)
    if not p.exists() and not p.is_absolute():
        p = REPO / "topology" / path
    text = p.read_text()

    def sub(m):
        name, default = m.group(1), m.group(2)
        if name in variables:
            return str(variables[name])
        if default is not None:
            return default
        raise KeyError("%s: ${%s} has no value and no default" % (p, name))
    # leave comments alone (they quote ${VAR} as documentation)
    lines = []
    for line in text.splitlines():
        code, hash_, comment = line.partition(" #")
        if code.lstrip().startswith("#"):
            lines.append(line)
            continue
        lines.append(_VAR_RE.sub(sub, code) + hash_ + comment)
    return yaml.safe_load("\n".join(lines))


def vhost_paths(topology, type="dpdkvhostuserclient"):
    """Socket paths of the topology's vhost-user ports of `type`, in port
    order: the sockets for Testpmd(sockets=...)."""
    return [Path(p.get("path") or p.get("vhost-server-path"))
            for p in topology.get("ports", []) if p.get("type") == type]


# --------------------------------------------------------------- machine

def hugepages_free():
    """Free 2 MB hugepages."""
    try:
        return int(Path("/sys/kernel/mm/hugepages/hugepages-2048kB/"
                        "free_hugepages").read_text())
    except OSError:
        return 0


def ensure_hugepages(n=None):
    """Runs scripts/hugepages.sh (reserve, mount, clean stale files);
    returns the number of free 2 MB pages."""
    env = dict(os.environ)
    if n is not None:
        env["VXS_HUGEPAGES"] = str(n)
    r = subprocess.run(["bash", str(SCRIPTS / "hugepages.sh"), "-q"],
                       capture_output=True, text=True, env=env, timeout=120)
    if r.returncode != 0:
        raise HarnessError("hugepages.sh failed (%d): %s%s"
                           % (r.returncode, r.stdout, r.stderr))
    return hugepages_free()
