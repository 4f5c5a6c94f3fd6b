# SPDX-License-Identifier: BSD-3-Clause
"""A private ovsdb-server for tests (Debian's, on a database made by
ovsdb-tool from Debian's vswitch.ovsschema), as ovs_dpdk.py runs one for
the benchmarks: the OVSDB tests' fixtures (tests/integration/conftest.py
`ovsdb`) use it."""

import json
import os
import socket
import subprocess
import threading
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


BOOT_REQUEST = {"method": "transact", "id": "boot", "params": [
    "Open_vSwitch", {"op": "select", "table": "Open_vSwitch", "where": [],
                     "columns": ["other_config"]}]}


class FakeServer(socket.socket):
    """A listening unix socket for a hand-made server (the hostile ones of
    test_ovsdb.py and the fuzz suite): its first connection, vxswitch's
    read of other_config before the EAL (app/control/ovsdb_boot.h), is
    answered at once by a thread (an empty map), so that the switch starts
    without waiting for it; `boot` is the request it got. The caller
    accepts the connections after that one."""

    def serve_boot(self):
        self.boot = None
        try:
            conn, _ = self.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(10)
            try:
                self.boot = json.loads(conn.recv(65536))
                conn.sendall(json.dumps({
                    "id": "boot", "error": None, "result": [
                        {"rows": [{"other_config": ["map", []]}]}]})
                    .encode())
            except (OSError, ValueError):
                pass

    def boot_answered(self, timeout=20):
        """The boot request, once the thread is done with it."""
        self.boot_thread.join(timeout)
        return self.boot


def fake_server(path, timeout=20):
    srv = FakeServer(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(4)
    srv.settimeout(timeout)
    srv.boot_thread = threading.Thread(target=srv.serve_boot, daemon=True)
    srv.boot_thread.start()
    return srv
