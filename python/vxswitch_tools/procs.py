# SPDX-License-Identifier: BSD-3-Clause
"""Process bookkeeping of the harness: the build's binaries, EAL file
prefixes, spawning children that die with us, the registry reap_all()
empties, wait_for(), and _Process (what Switch and Testpmd share)."""

import contextlib
import itertools
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

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
