# SPDX-License-Identifier: BSD-3-Clause
"""vxswitch as a daemon (app/lib/daemon.h) and its log (app/lib/vlog.h):

  --detach     returns only once the control socket answers (the test
               connects once, right after, with no retry); a start-up that
               fails returns non-zero with the error on the caller's stderr
  --pidfile    the daemon's pid, locked: a second daemon is refused
  --log-file   OVS's line format; SIGHUP and vlog/reopen reopen it under
               its name (logrotate); vlog/set changes what is logged
  sd_notify    READY=1 (with MAINPID) and STOPPING=1 on $NOTIFY_SOCKET
  no printf    the daemon's messages all go through the log macros

Each test starts one small switch (a net_null NIC, one vhost-user server
port: no guest, no traffic) and takes a few seconds."""

import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from vxswitch_tools import harness as vxlib
from vxswitch_tools import packets as P

REPO = Path(__file__).resolve().parents[2]
LOG_LINE = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\|\d{5}\|[a-z]+\|"
    r"(EMER|ERR|WARN|INFO|DBG)\|")


def small_switch(tmp_path, rundir, name, devargs="net_null0,no-rx=1"):
    topo = P.topology(devargs, rundir, n_vms=1, vhost_type="dpdkvhostuser")
    sw = vxlib.Switch(topo, tmp_path, rundir=rundir, name=name, start=False)
    sw.write_config()
    return sw


def run_detached(sw, *args):
    return subprocess.run([str(sw.bin), "--config", str(sw.config_path),
                           "--no-state", "--detach", *args],
                          capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def wait_gone(pid, timeout=15):
    def gone():
        try:
            with open("/proc/%d/status" % pid) as f:
                return "zombie" in f.read()
        except OSError:
            return True
    vxlib.wait_for(gone, timeout, what="pid %d to exit" % pid)


@contextlib.contextmanager
def daemon_cleanup(sw, pidfile):
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            pid = int(pidfile.read_text())
            os.kill(pid, signal.SIGKILL)
            time.sleep(0.5)
        vxlib.cleanup_dpdk_prefix(sw.prefix)


def test_detach_broken_topology(build_dir, hugepages, rundir, tmp_path):
    """A NIC whose pcap does not exist is only found once the EAL runs,
    after the fork: the foreground process still exits non-zero, with the
    daemon's error on its stderr, and nothing is left behind."""
    missing = tmp_path / "no-such.pcap"
    sw = small_switch(tmp_path, rundir, "broken",
                      "net_pcap0,rx_pcap=%s,tx_pcap=/dev/null" % missing)
    pidfile = rundir / "broken.pid"
    with daemon_cleanup(sw, pidfile):
        r = run_detached(sw, "--pidfile", str(pidfile))
        assert r.returncode == 1, r
        assert "cannot probe device 'net_pcap0" in r.stderr, r.stderr
        assert "vxswitch: " in r.stderr
        assert not pidfile.exists()
        assert not sw.ctl_socket.exists()


def test_detach_pidfile_log_reopen(build_dir, hugepages, rundir, tmp_path):
    sw = small_switch(tmp_path, rundir, "daemon")
    pidfile = rundir / "daemon.pid"
    log = tmp_path / "vxswitch.log"
    with daemon_cleanup(sw, pidfile):
        r = run_detached(sw, "--pidfile", str(pidfile), "--log-file=%s" % log)
        assert r.returncode == 0, r
        # ready means ready: one try, no waiting
        show = sw.ctl_result("show", timeout=5)
        assert show.returncode == 0, show
        assert "vhost-user0" in show.stdout
        pid = int(pidfile.read_text())
        assert pidfile.read_text() == "%d\n" % pid
        assert os.getsid(pid) == pid            # its own session
        assert os.readlink("/proc/%d/fd/1" % pid) == "/dev/null"

        # a second daemon on the same pidfile is refused before it starts
        r2 = run_detached(sw, "--pidfile", str(pidfile))
        assert r2.returncode == 1, r2
        assert "already running as pid %d, aborting" % pid in r2.stderr
        assert int(pidfile.read_text()) == pid

        text = log.read_text()
        lines = text.splitlines()
        assert lines[0].endswith("|00001|vlog|INFO|opened log file %s"
                                 % log), lines[0]
        assert all(LOG_LINE.match(x) for x in lines), text
        assert re.search(r"\|main\|INFO\|running: 3 ports, 1 PMDs", text)
        assert "|dpdk|INFO|EAL: " in text   # DPDK's own messages too

        # vlog/list: OVS's table; the defaults once detached
        out = sw.ctl("vlog/list")
        rows = out.splitlines()
        assert rows[0] == "                 console    syslog    file"
        assert rows[1] == "                 -------    ------    ------"
        assert "%-16s  %4s       %4s       %4s" % (
            "vlog", "INFO", "INFO", "INFO") in rows
        assert [x.split()[0] for x in rows[2:]] == sorted(
            x.split()[0] for x in rows[2:])

        # a bad spec names its token and changes nothing
        for bad, msg in (("nosuch:dbg", 'module "nosuch"'),
                         ("vlog:file:loud", 'module "loud"'),
                         ("vlog:info:warn", "multiple levels"),
                         ("file:syslog", "multiple destinations")):
            r = sw.ctl_result("vlog/set", "pmd:dbg", bad)
            assert r.returncode == 1 and msg in r.stderr, (bad, r)
        assert sw.ctl("vlog/list") == out

        # vlog/set changes what is logged, at run time
        sw.ctl("vlog/set", "vlog:file:off")
        assert "%-16s  %4s       %4s       %4s" % (
            "vlog", "INFO", "INFO", "OFF") in sw.ctl("vlog/list")
        before = log.read_text()
        sw.ctl("vlog/reopen")
        assert log.read_text() == before        # not logged: file is off
        sw.ctl("vlog/set", "VLOG:FILE:INFO")    # case does not matter
        sw.ctl("vlog/reopen")
        assert log.read_text().count("opened log file") == 2

        # bash completion: the commands of the daemon's own table
        assert vxlib.ctl_complete(sw, "vlog/") == [
            "vlog/list", "vlog/reopen", "vlog/set"]
        assert vxlib.ctl_complete(sw, "vlog/set", "pm") == ["pmd"]
        assert "dpif-netdev/pmd-stats-show" in vxlib.ctl_complete(sw, "dpif")

        # logrotate: rename, SIGHUP, new lines go to the new file
        rotated = tmp_path / "vxswitch.log.1"
        log.rename(rotated)
        os.kill(pid, signal.SIGHUP)
        vxlib.wait_for(log.exists, 5, what="log reopened")
        assert re.match(r"^\S+\|\d{5}\|vlog\|INFO\|opened log file %s$"
                        % re.escape(str(log)), log.read_text()), \
            log.read_text()
        assert sw.ctl_result("show").returncode == 0    # still running

        os.kill(pid, signal.SIGTERM)
        wait_gone(pid)
        new = log.read_text()
        assert "|main|INFO|shutting down (signal)" in new, new
        assert "mbufs in use at exit: 0" in new, new
        assert "shutting down" not in rotated.read_text()
        assert not pidfile.exists()
        assert not sw.ctl_socket.exists()


def test_sd_notify(build_dir, hugepages, rundir, tmp_path):
    """systemd's Type=notify, without systemd: READY=1 once the control
    socket answers, STOPPING=1 at shutdown."""
    sw = small_switch(tmp_path, rundir, "notify")
    path = str(rundir / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(30)
    p = subprocess.Popen([str(sw.bin), "--config", str(sw.config_path),
                          "--no-state"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env={**os.environ, "NOTIFY_SOCKET": path})
    try:
        msg = sock.recv(4096).decode()
        assert msg.startswith("READY=1\n"), msg
        assert "MAINPID=%d" % p.pid in msg.split("\n")
        assert "STATUS=running: 3 ports, 1 PMDs" in msg.split("\n")
        assert sw.ctl_result("show", timeout=5).returncode == 0
        p.send_signal(signal.SIGTERM)
        assert sock.recv(4096) == b"STOPPING=1"
        assert p.wait(15) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        sock.close()
        vxlib.cleanup_dpdk_prefix(sw.prefix)


def test_no_bare_printf():
    """The daemon prints through the log (vlog.h); what may still print
    directly: --help/--version/--check output (main.c, main_state.c), the
    log's own fallback, and what writes to a FILE it is handed (a report, a
    saved topology), not to stdout/stderr."""
    allowed = {
        "app/main.c": {'printf("vxswitch %s\\n", VXSWITCH_VERSION)',  # --version
                       'printf("%s: ok (%u ports, %u flows)\\n"',       # --check
                       '"vxswitch: cannot set up logging\\n"'},
        # --check: which of the topology and its state file a start runs
        "app/main_state.c": {'printf("%s: ok (%u ports, %u flows)\\n"',
                             'printf("%s: --reset-state: a start moves',
                             'printf("%s: a start restores it'},
        "app/lib/ds.c": {"ds: out of memory"},
    }
    bad = []
    for path in sorted(REPO.glob("app/**/*.c")) + sorted(
            REPO.glob("drivers/**/*.c")):
        rel = str(path.relative_to(REPO))
        if rel.startswith("app/ctl/"):         # the client, not the daemon
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            m = re.search(r"\b(printf|puts|perror)\s*\(|"
                          r"\bf(printf|puts)\s*\(\s*(stdout|stderr)", line)
            if not m:
                continue
            ok = allowed.get(rel, set())
            if rel == "app/main.c" and "fprintf(f," in line:
                continue                        # usage(FILE *)
            if any(a in line for a in ok):
                continue
            bad.append("%s:%d: %s" % (rel, n, line.strip()))
    assert not bad, "\n".join(bad)
