# SPDX-License-Identifier: BSD-3-Clause
"""The vxswitch daemon under test (Switch) and the checks every test
ends with: no mbuf leaked, every packet accounted for."""

import contextlib
import copy
import json as jsonlib
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import yaml

from .procs import (REPO, CtlError, HarnessError, _objects, _Process, _spawn,
                    find_binary, short_tmpdir, unique_prefix, wait_for)

class Switch(_Process):
    """One vxswitch daemon.

    topology: the topology file as a dict (see topology/*.yaml); it is
    copied, then given this switch's own eal.file-prefix and
    datapath.ctl-socket, and, unless set, eal.lcores "0-1", eal.no-pci and
    datapath.pmd-cores [1]. Written to WORKDIR/NAME.yaml; the log goes to
    WORKDIR/NAME.log. The control socket lives in RUNDIR (short path),
    which is also its OVS_RUNDIR unless env sets one (with --ovsdb, the
    unixctl socket's default is OVS_RUNDIR/ovs-vswitchd.<pid>.ctl).

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
            # with --ovsdb, ovs-vswitchd.pid's and the unixctl socket's
            # defaults are in OVS's run directory: this switch's own
            if "OVS_RUNDIR" not in (env or {}):
                self.env = dict(os.environ if env is None else env,
                                OVS_RUNDIR=str(self.rundir))
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

    def remove_endless_rx(self, *names):
        """del-port each named port whose rx never runs dry (net_null):
        while it runs, every PMD polling it holds up to a burst of mbufs
        between rx and free, so `in_use` at the leak check would depend on
        when it is sampled. Without them, what is left in use is a leak."""
        for name in names:
            self.ctl("del-port", name)

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


# What dump-flows prints that changes with time and traffic, as ovs-ofctl
# prints it: duration, counters, ages.
_RULE_STATS = re.compile(r"duration=[0-9.]+s, |n_packets=\d+, n_bytes=\d+, |"
                         r"idle_age=\d+, |hard_age=\d+, ")


def rules_without_stats(dump):
    """dump-flows' rule lines, sorted, without their durations, counters
    and ages: what must be the same across a restart or a reload."""
    return sorted(_RULE_STATS.sub("", l).strip() for l in dump.splitlines()
                  if l.strip())


def rules_json_without_ages(rules):
    """dump-flows --json's rules without what runs on with time alone
    (duration_ms, idle_age, hard_age): equal when nothing changed."""
    return [{k: v for k, v in r.items()
             if k not in ("duration_ms", "idle_age", "hard_age")}
            for r in rules]


def stop_if_passed(request, switch):
    """A rig fixture's teardown (pytest's request): after a test that
    passed (conftest keeps its report on the item), every mbuf back and a
    clean exit, status 0; after one that failed, nothing more to say."""
    rep = getattr(request.node, "rep_call", None)
    if switch.running and rep is not None and rep.passed:
        assert_no_mbuf_leak(switch)
        assert switch.stop() == 0, switch.log_tail(30)


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
    (dp_stats.h): per PMD, received + copies == sent + consumed + dropped +
    in_flight + held, the terms read by the PMD itself between two bursts
    (exact even while traffic flows; held: IPv4 fragments the PMD gave
    the fragment store less those it took back, negative on a PMD that
    sent another's). Raises AssertionError with the terms."""
    bad = []
    for st in switch.ctl("dpif-netdev/pmd-stats-show", json=True):
        a = st["accounting"]
        lhs = a["received"] + a["copies"]
        rhs = (a["sent"] + a["consumed"] + a["dropped"] + a["in_flight"] +
               a.get("held", 0))
        if lhs != rhs or not a["balanced"]:
            bad.append("core %s: received %d + copies %d != sent %d + "
                       "consumed %d + dropped %d + in flight %d + held %d "
                       "(%+d); drops %s" % (
                           st["core"], a["received"], a["copies"],
                           a["sent"], a["consumed"], a["dropped"],
                           a["in_flight"], a.get("held", 0), lhs - rhs,
                           {k: v for k, v in st["drops"].items() if v}))
    if bad:
        raise AssertionError("%s: packets unaccounted for:\n  %s"
                             % (switch.name, "\n  ".join(bad)))


def telemetry(prefix, *cmds, timeout=10):
    """Runs Debian's dpdk-telemetry.py -f PREFIX with cmds on stdin; one
    JSON reply per command."""
    r = subprocess.run(["/usr/bin/python3", "/usr/bin/dpdk-telemetry.py",
                        "-f", prefix], input="\n".join(cmds) + "\n",
                       capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise HarnessError("dpdk-telemetry.py -f %s: exit %d: %s"
                           % (prefix, r.returncode, r.stderr))
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    if len(lines) != len(cmds):
        raise HarnessError("dpdk-telemetry.py: %d replies to %d commands: %s"
                           % (len(lines), len(cmds), r.stdout + r.stderr))
    return [jsonlib.loads(ln) for ln in lines]


def ctl_complete(sw, *words):
    """What scripts/completion/vxswitch-ctl offers after
    'vxswitch-ctl -s SOCKET WORDS...' (the last word being completed),
    sorted; sw's vxswitch-ctl first on PATH."""
    line = ["vxswitch-ctl", "-s", str(sw.ctl_socket), *words]
    script = ('source "$1"; shift; COMP_WORDS=("$@"); '
              'COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _vxswitch_ctl; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    r = subprocess.run(["bash", "-c", script, "complete",
                        str(REPO / "scripts/completion/vxswitch-ctl"), *line],
                       capture_output=True, text=True, timeout=20,
                       env={**os.environ, "PATH": "%s:%s" % (
                           sw.ctl_bin.parent, os.environ["PATH"])})
    assert r.returncode == 0, r
    return sorted(x for x in r.stdout.splitlines() if x)
