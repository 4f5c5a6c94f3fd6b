# SPDX-License-Identifier: BSD-3-Clause
"""QEMU guests for the integration tests: guests.py's command
lines and domain XML, the image of scripts/guest-image.sh, and a driver for
the guest's serial console (a shell: commands in, output and exit status
back between markers).

KVM or TCG: VXS_GUEST_ACCEL=kvm|tcg forces one; otherwise accel() boots
the image once under KVM and uses it if the kernel reaches its init within
KVM_PROBE_S, TCG if not (on these VMs /dev/kvm exists but a stock Debian
kernel hangs early under it). The choice is printed and recorded.
"""
import contextlib
import os
import pathlib
import re
import socket
import subprocess
import time

from . import guests
from . import harness as vxlib

ROOT = pathlib.Path(__file__).resolve().parents[2]

KVM_PROBE_S = 25
_accel = None
_image_checked = False


def ensure_image():
    """Builds (or finds in the cache) the guest image; returns its
    manifest dict. The script runs once a process: even with the image
    cached it takes ~15 s (apt-cache), which each guest test paid."""
    global _image_checked
    if _image_checked:
        return guests.image()
    r = subprocess.run([str(ROOT / "scripts" / "guest-image.sh")],
                       capture_output=True, text=True, timeout=900)
    if r.returncode:
        raise vxlib.HarnessError("guest-image.sh failed:\n%s%s"
                                 % (r.stdout, r.stderr))
    _image_checked = True
    return guests.image()


def accel(img, workdir):
    """'kvm' or 'tcg' (see the module docstring); probed once."""
    global _accel
    if _accel:
        return _accel
    forced = os.environ.get("VXS_GUEST_ACCEL")
    if forced in ("kvm", "tcg"):
        _accel = forced
        return _accel
    _accel = "tcg"
    if os.access("/dev/kvm", os.R_OK | os.W_OK):
        log = pathlib.Path(workdir) / "kvm-probe.log"
        p = subprocess.Popen(
            ["qemu-system-x86_64", "-accel", "kvm", "-cpu",
             "host,-arch-capabilities", "-m", "128", "-nodefaults",
             "-display", "none", "-no-reboot", "-kernel", img["kernel"],
             "-initrd", img["initrd"], "-append",
             "console=ttyS0 panic=-1 vx.name=probe", "-serial",
             "file:%s" % log], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            end = time.monotonic() + KVM_PROBE_S
            while time.monotonic() < end and p.poll() is None:
                if log.exists() and b"VXGUEST" in log.read_bytes():
                    _accel = "kvm"
                    break
                time.sleep(0.2)
        finally:
            p.kill()
            p.wait(5)
    print("guest accel: %s" % _accel)
    return _accel


class Console:
    """The guest's ttyS0 shell over QEMU's unix-socket chardev."""

    def __init__(self, path, timeout=30.0):
        self.path = str(path)
        self.sock = None
        self.n = 0
        end = time.monotonic() + timeout
        while True:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.path)
                self.sock = s
                break
            except OSError:
                s.close()
                if time.monotonic() > end:
                    raise
                time.sleep(0.1)
        self.buf = b""

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None

    def _read_until(self, pat, timeout):
        rx = re.compile(pat)
        end = time.monotonic() + timeout
        while True:
            m = rx.search(self.buf)
            if m:
                out, self.buf = self.buf[:m.end()], self.buf[m.end():]
                return out, m
            left = end - time.monotonic()
            if left <= 0:
                raise vxlib.HarnessError(
                    "console %s: no %r within %.0f s; last output: %r"
                    % (self.path, pat, timeout, self.buf[-500:]))
            self.sock.settimeout(min(left, 1.0))
            try:
                b = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not b:
                raise vxlib.HarnessError("console %s closed" % self.path)
            self.buf += b

    def sync(self, timeout=60.0):
        """Waits for the shell to answer (after boot or reboot)."""
        end = time.monotonic() + timeout
        while True:
            self.n += 1
            tag = "SYNC%d" % self.n
            self.sock.sendall(("\necho %s_$((6*7))\n" % tag).encode())
            try:
                self._read_until((r"%s_42" % tag).encode(), 3)
                self.buf = b""
                break
            except vxlib.HarnessError:
                if time.monotonic() > end:
                    raise
        # Echo off before the first run(): with echo on, the tty can echo
        # the rest of a typed line into the middle of a printed marker
        # ("@@B3@@@@' $?"), so it is switched off here and confirmed by a
        # tag that only the shell's arithmetic can produce.
        self.n += 1
        tag = "SYNC%d" % self.n
        self.sock.sendall(("stty -echo\necho %s_$((6*7))\n" % tag).encode())
        self._read_until((r"%s_42" % tag).encode(), 10)
        self.buf = b""

    def run(self, cmd, timeout=60.0, check=True):
        """Runs cmd in the guest's shell; returns (status, output)."""
        self.n += 1
        beg, fin = "@@B%d@@" % self.n, "@@E%d@@" % self.n
        # the markers are printed, not typed: an echoed command line
        # cannot match them
        line = ("printf '%%s\\n' '@@B'%d'@@'\n%s\nprintf '%%s %%s\\n' "
                "'@@E'%d'@@' $?\n" % (self.n, cmd, self.n))
        self.sock.sendall(line.encode())
        self._read_until(re.escape(beg).encode() + rb"\r?\n", timeout)
        out, m = self._read_until(re.escape(fin).encode() + rb" (\d+)\r?\n",
                                  timeout)
        status = int(m.group(1))
        text = out[:m.start()].decode(errors="replace").replace("\r", "")
        if check and status:
            raise vxlib.HarnessError("guest: %r exited %d: %s"
                                     % (cmd, status, text[-1000:]))
        return status, text

    def send(self, text):
        self.sock.sendall(text.encode())


class QemuGuest:
    """A QEMU guest from scripts/guests.Guest, run as a harness process."""

    def __init__(self, g, workdir):
        self.g = g
        self.workdir = pathlib.Path(workdir)
        self.log_path = self.workdir / ("%s.qemu.log" % g.name)
        self.proc = None
        self.console = None
        self.boots = []         # seconds from start to READY, per boot

    @property
    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def start(self):
        for p in (self.g.console, self.g.monitor):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(p)
        self.t_start = time.monotonic()
        self.proc = vxlib._spawn(self.g.qemu_argv(), self.log_path)
        return self

    def _console_log(self):
        try:
            return pathlib.Path(self.g.console_log).read_bytes()
        except OSError:
            return b""

    def wait_ready(self, timeout=240.0, since=0):
        """Waits for "VXGUEST READY" in the console log after byte
        offset since; returns the READY line's fields."""
        def ready():
            if self.proc.poll() is not None:
                raise vxlib.HarnessError(
                    "%s exited %s: %s" % (self.g.name, self.proc.returncode,
                                          vxlib._tail(self.log_path, 20)))
            m = re.search(rb"VXGUEST READY ([^\r\n]*)\r?\n",
                          self._console_log()[since:])
            return m
        m = vxlib.wait_for(ready, timeout, 0.2, "%s to boot (console: %s)"
                           % (self.g.name, self.g.console_log))
        self.boots.append(time.monotonic() - self.t_start)
        fields = dict(kv.split("=", 1) for kv in
                      m.group(1).decode().split() if "=" in kv)
        if self.console is None:
            self.console = Console(self.g.console)
        self.console.sync()
        return fields

    def reboot(self, timeout=240.0):
        """reboot -f inside the guest (a real guest reset: virtio-net goes
        away and comes back); waits until it is up again."""
        since = len(self._console_log())
        self.t_start = time.monotonic()
        self.console.send("reboot -f\n")
        return self.wait_ready(timeout, since=since)

    def stop(self):
        if self.console:
            self.console.close()
            self.console = None
        if self.proc is not None and self.proc.poll() is None:
            vxlib._kill(self.proc)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
        if self.proc in vxlib._live:
            vxlib._live.remove(self.proc)
