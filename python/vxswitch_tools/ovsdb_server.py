# SPDX-License-Identifier: BSD-3-Clause
"""A private ovsdb-server for tests (Debian's, on a database made by
ovsdb-tool from Debian's vswitch.ovsschema), as ovs_dpdk.py runs one for
the benchmarks: the OVSDB tests' fixtures (tests/integration/conftest.py
`ovsdb`) use it."""

import os
import subprocess
from pathlib import Path

from . import harness as vxlib

SCHEMA = Path("/usr/share/openvswitch/vswitch.ovsschema")


class OvsdbServer:
    """A private ovsdb-server (as python/vxswitch_tools/ovs_dpdk.py runs
    one), in the foreground under the harness, which kills it if the
    test does not."""

    def __init__(self, d):
        self.dir = d
        self.sock = d / "db.sock"
        self.env = dict(os.environ, OVS_RUNDIR=str(d), OVS_DBDIR=str(d),
                        OVS_LOGDIR=str(d), OVS_SYSCONFDIR=str(d))
        subprocess.run(["ovsdb-tool", "create", d / "conf.db", SCHEMA],
                       check=True, env=self.env)
        self.proc = None

    def start(self):
        with_suppress_unlink(self.sock)
        self.proc = vxlib._spawn(
            ["ovsdb-server", self.dir / "conf.db",
             "--remote=punix:%s" % self.sock,
             "--pidfile=%s" % (self.dir / "ovsdb-server.pid"),
             "--unixctl=%s" % (self.dir / "ovsdb-server.ctl"),
             "--log-file=%s" % (self.dir / "ovsdb-server.log"),
             "--no-chdir"], self.dir / "ovsdb-server.out", env=self.env)
        vxlib.wait_for(self.sock.exists, 10, 0.05, "ovsdb-server's socket")
        return self

    def kill(self):
        self.proc.kill()
        self.proc.wait(5)

    def vsctl(self, *args):
        r = subprocess.run(["ovs-vsctl", "--db=unix:%s" % self.sock,
                            "--timeout=10", "--no-wait"] + list(args),
                           capture_output=True, text=True, env=self.env,
                           timeout=20)
        assert r.returncode == 0, "ovs-vsctl %s: %s" % (args, r.stderr)
        return r.stdout


def vsctl_get(srv, table, row, column):
    return srv.vsctl("get", table, row, column).strip().strip('"')


def with_suppress_unlink(p):
    try:
        p.unlink()
    except FileNotFoundError:
        pass
