# SPDX-License-Identifier: BSD-3-Clause
"""scripts/vxswitch-ovs (vxswitch-ovs(8)): Debian's ovs-ctl starts
ovsdb-server on a database it creates, then vxswitch --ovsdb runs as its
client with ovs-vswitchd's pidfile and unixctl socket, so that plain
ovs-vsctl and ovs-appctl (no --db, no -t: OVS_RUNDIR only) reach them.
Everything in private OVS_RUNDIR/OVS_DBDIR/OVS_LOGDIR/OVS_SYSCONFDIR
folders under the test's run dir: the host's OVS is never touched. Then:
status, a second start refused, restart, stop leaving nothing behind; a
start refused while another process holds ovs-vswitchd.pid; the script's
bad arguments."""

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
import yaml

from vxswitch_tools import harness as vxlib

SCRIPT = vxlib.SCRIPTS / "vxswitch-ovs"
OVS_CTL = Path("/usr/share/openvswitch/scripts/ovs-ctl")


class Ovs:
    """The private folders, the environment and the script."""

    def __init__(self, rundir, tmp_path):
        self.base = rundir / "o"
        self.run, self.db, self.log, self.etc = (
            self.base / n for n in ("run", "db", "log", "etc"))
        # what openvswitch-switch's package makes: ovs-ctl keeps the
        # system id in $OVS_SYSCONFDIR/openvswitch
        (self.etc / "openvswitch").mkdir(parents=True)
        self.env = dict(os.environ, OVS_RUNDIR=str(self.run),
                        OVS_DBDIR=str(self.db), OVS_LOGDIR=str(self.log),
                        OVS_SYSCONFDIR=str(self.etc),
                        VXSWITCH=str(vxlib.find_binary("vxswitch")))
        self.prefix = vxlib.unique_prefix("vxovs")
        self.ctl_socket = rundir / "vxswitch.ctl"
        self.topology = tmp_path / "topology.yaml"
        self.topology.write_text(yaml.safe_dump({
            "eal": {"memory-mb": 256, "file-prefix": self.prefix,
                    "lcores": "0-1", "no-pci": True},
            "datapath": {"pmd-cores": [1],
                         "ctl-socket": str(self.ctl_socket)},
            "ports": [{"name": "null0", "type": "dpdk",
                       "devargs": "net_null0,no-rx=1"}]}))
        self.pidfile = self.run / "ovs-vswitchd.pid"

    def script(self, *args, timeout=60):
        return subprocess.run([str(SCRIPT)] + [str(a) for a in args],
                              capture_output=True, text=True,
                              env=self.env, timeout=timeout,
                              stdin=subprocess.DEVNULL)

    def start(self, *extra):
        return self.script("start", "--config", self.topology, *extra)

    def tool(self, *argv):
        return subprocess.run([str(a) for a in argv], capture_output=True,
                              text=True, env=self.env, timeout=20)

    def pid(self, name="ovs-vswitchd"):
        return int((self.run / ("%s.pid" % name)).read_text())

    def cleanup(self):
        """Whatever the test left: the script's stop, then any process
        whose command line names the private folders (ovsdb-server and
        its monitor, vxswitch)."""
        if self.run.exists() and any(self.run.glob("*.pid")):
            self.script("stop")
        for p in Path("/proc").iterdir():
            if not p.name.isdigit():
                continue
            try:
                cmd = (p / "cmdline").read_bytes()
            except OSError:
                continue
            if str(self.base).encode() in cmd:
                try:
                    os.kill(int(p.name), signal.SIGKILL)
                except ProcessLookupError:
                    pass
        vxlib.cleanup_dpdk_prefix(self.prefix)


def alive(pid):
    return Path("/proc/%d" % pid).exists()


def comm(pid):
    return Path("/proc/%d/comm" % pid).read_text().strip()


@pytest.fixture
def ovs(build_dir, hugepages, rundir, tmp_path):
    missing = [t for t in ("ovsdb-server", "ovs-vsctl", "ovs-appctl")
               if not shutil.which(t)]
    if missing or not OVS_CTL.exists():
        pytest.fail("%s missing: apt-get install openvswitch-switch "
                    "(scripts/install-deps.sh)"
                    % ", ".join(missing + [str(OVS_CTL)]), pytrace=False)
    o = Ovs(rundir, tmp_path)
    yield o
    o.cleanup()


def test_start_status_stop(ovs):
    r = ovs.start()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Starting ovsdb-server" in r.stdout, r.stdout
    pid = ovs.pid()
    assert "Starting vxswitch (pid %d)." % pid in r.stdout, r.stdout
    assert comm(pid) == "vxswitch"
    db_pid = ovs.pid("ovsdb-server")
    assert (ovs.run / ("ovs-vswitchd.%d.ctl" % pid)).is_socket()
    assert (ovs.log / "vxswitch.log").is_file()
    # ovs-ctl's init: the versions and the system id
    r = ovs.tool("ovs-vsctl", "--no-wait", "get", "Open_vSwitch", ".",
                 "ovs_version", "db_version", "external_ids:system-id")
    assert r.returncode == 0 and len(r.stdout.split()) == 3, r

    # plain ovs-vsctl, on $OVS_RUNDIR/db.sock
    r = ovs.tool("ovs-vsctl", "--no-wait", "add-br", "br-int", "--", "set",
                 "bridge", "br-int", "datapath_type=netdev")
    assert r.returncode == 0, r.stderr
    r = ovs.tool("ovs-vsctl", "show")
    assert r.returncode == 0 and "Bridge br-int" in r.stdout and \
        "datapath_type: netdev" in r.stdout, r

    # plain ovs-appctl: $OVS_RUNDIR/ovs-vswitchd.pid, then the socket
    r = ovs.tool("ovs-appctl", "version")
    assert (r.returncode, r.stdout.split()[:2]) == (0, ["vxswitch",
                                                       "(vxswitch)"]), r

    def connected():
        t = ovs.tool("ovs-appctl", "ovsdb/show").stdout
        return "lock ovs_vswitchd: held" in t and "br-int" in t and t
    t = vxlib.wait_for(connected, 10, 0.1, "ovsdb/show with br-int")
    assert "unix:%s/db.sock" % ovs.run in t
    # what Debian's logrotate for /var/log/openvswitch/*.log asks
    r = ovs.tool("ovs-appctl", "-t", "ovs-vswitchd", "vlog/reopen")
    assert r.returncode == 0, r

    r = ovs.script("status")
    assert r.returncode == 0, r
    assert r.stdout == (
        "ovsdb-server is running with pid %d\nvxswitch is running with "
        "pid %d (as ovs-vswitchd: %s)\n" % (db_pid, pid, ovs.pidfile))

    # a second start changes nothing
    r = ovs.start()
    assert r.returncode == 1 and r.stderr == (
        "vxswitch-ovs: vxswitch is already running with pid %d (%s): use "
        "restart\n" % (pid, ovs.pidfile)), r
    assert ovs.pid() == pid and ovs.pid("ovsdb-server") == db_pid

    # restart: both, the database kept
    r = ovs.script("restart", "--config", ovs.topology)
    assert r.returncode == 0, r.stdout + r.stderr
    pid2 = ovs.pid()
    assert pid2 != pid and not alive(pid) and comm(pid2) == "vxswitch"
    assert ovs.pid("ovsdb-server") != db_pid and not alive(db_pid)
    assert "Bridge br-int" in ovs.tool("ovs-vsctl", "show").stdout
    db_pid = ovs.pid("ovsdb-server")

    r = ovs.script("stop")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Exiting vxswitch (%d)." % pid2 in r.stdout, r.stdout
    assert not alive(pid2) and not alive(db_pid)
    left = sorted(p.name for p in ovs.run.iterdir())
    assert left == [], left          # no pidfile, no unixctl socket, no db.sock
    assert not ovs.ctl_socket.exists()
    r = ovs.script("status")
    assert (r.returncode, r.stdout) == (
        1, "ovsdb-server is not running\nvxswitch is not running\n"), r


def test_refused_beside_ovs_vswitchd(ovs):
    """A live process in ovs-vswitchd.pid: an ovs-vswitchd on this
    database. Nothing starts, and stop stops nothing."""
    ovs.run.mkdir(parents=True)
    other = vxlib._spawn(["sleep", "60"], ovs.base / "sleep.out")
    ovs.pidfile.write_text("%d\n" % other.pid)

    r = ovs.start()
    assert r.returncode == 1, r
    assert r.stderr.startswith(
        "vxswitch-ovs: sleep (pid %d) holds %s: an ovs-vswitchd runs on "
        "this database; stop it first" % (other.pid, ovs.pidfile)), r.stderr
    assert not (ovs.db / "conf.db").exists()    # ovs-ctl did not run
    assert not (ovs.run / "ovsdb-server.pid").exists()

    r = ovs.script("status")
    assert r.returncode == 1 and "vxswitch is not running; sleep is, " \
        "with pid %d" % other.pid in r.stdout, r
    r = ovs.script("stop")
    assert r.returncode == 1 and "not vxswitch: not stopping it" in \
        r.stderr, r
    assert other.poll() is None
    other.kill()
    other.wait(5)

    # a stale pidfile (its process gone) does not stop a start
    r = ovs.start()
    assert r.returncode == 0, r.stdout + r.stderr
    assert ovs.pid() != other.pid and comm(ovs.pid()) == "vxswitch"
    assert ovs.script("stop").returncode == 0


def test_bad_arguments(ovs):
    cases = [
        ((), "missing command: start, stop, restart or status (use --help "
         "for help)"),
        (("bogus",), "unknown command 'bogus' (use --help for help)"),
        (("-x", "start"), "unknown option '-x' (use --help for help)"),
        (("stop", "--config", "x"),
         "stop takes no vxswitch options: '--config x'"),
        (("status", "-v"), "status takes no vxswitch options: '-v'"),
        (("start", "--detach"), "--detach: set by vxswitch-ovs itself "
         "(see --help)"),
        (("start", "--ovsdb=tcp:127.0.0.1:6640"),
         "--ovsdb=tcp:127.0.0.1:6640: set by vxswitch-ovs itself (see "
         "--help)"),
        (("start", "--pidfile"), "--pidfile: set by vxswitch-ovs itself "
         "(see --help)"),
        (("--system-id=a b", "start"),
         "an ovs-ctl option with a space: '--system-id=a b'"),
    ]
    for args, err in cases:
        r = ovs.script(*args)
        assert (r.returncode, r.stdout, r.stderr) == (
            1, "", "vxswitch-ovs: %s\n" % err), (args, r)
    assert not ovs.db.exists() and not ovs.run.exists()  # nothing ran

    r = ovs.script("--help")
    assert r.returncode == 0 and r.stdout.startswith(
        "usage: vxswitch-ovs [OVS-CTL-OPTION]... COMMAND "), r

    env = dict(ovs.env, VXSWITCH=str(ovs.base / "none"))
    r = subprocess.run([str(SCRIPT), "start"], capture_output=True,
                       text=True, env=env, timeout=10)
    assert (r.returncode, r.stderr) == (1, "vxswitch-ovs: VXSWITCH=%s is "
                                        "not an executable\n"
                                        % (ovs.base / "none")), r

    # vxswitch's own error, after ovsdb-server started (left running, as
    # ovs-ctl leaves it); stop then stops it
    r = ovs.script("start", "--config", ovs.base / "missing.yaml")
    assert r.returncode == 1, r
    assert "missing.yaml" in r.stderr and "Starting vxswitch ... failed " \
        "(exit status 2; ovsdb-server left running: vxswitch-ovs stop " \
        "stops it)." in r.stderr, r.stderr
    assert alive(ovs.pid("ovsdb-server"))
    r = ovs.script("stop")
    assert r.returncode == 0, r.stdout + r.stderr
    assert not any(ovs.run.glob("*.pid")), list(ovs.run.iterdir())
