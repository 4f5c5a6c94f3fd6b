# SPDX-License-Identifier: BSD-3-Clause
"""OVSDB mode's session and plan (doc/design-control-plane.md, step 2):
vxswitch --ovsdb as a client of Debian's own ovsdb-server on a private
database made from Debian's vswitch.ovsschema, driven by Debian's ovs-vsctl
--no-wait; `ovsdb/show` after each change says what vxswitch configures or
refuses (test_ovsdb_apply.py: that it does, and what it writes back).
Then: ovsdb-server killed and started again (the client reconnects and
monitors again), the lock "ovs_vswitchd" held by another client
(contended: nothing would be configured, OVS's log line), and a hostile
server (echo answered; not an object, too deep, malformed JSON, a schema
of another major version, longer than 16 MiB: each drops the connection,
counted), and one that goes silent (the inactivity probe: an echo
after --ovsdb-probe-ms, the connection dropped when that goes unanswered
too)."""

import json
import os
import random
import re
import socket
import subprocess

import pytest

from vxswitch_tools import fuzz_ovsdb as FO
from vxswitch_tools import fuzz_ovsdb_inputs as FI
from vxswitch_tools import harness as vxlib
from vxswitch_tools.ovsdb_server import (BOOT_REQUEST, SCHEMA, OvsdbServer,
                                         fake_server, vsctl_get)

CONTENDED = "another ovs-vswitchd process is running, disabling this " \
    "process (pid %d) until it goes away"
EAFNOSUPPORT = "(Address family not supported by protocol)"


def show(sw):
    return sw.ctl("ovsdb/show")


def counters(text):
    block = text.split("counters:\n", 1)[1]
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^  (\w+): (\d+)$", block, re.M)}


def wait_show(sw, *needles, absent=(), timeout=5.0):
    """ovsdb/show once it has every needle (a string or a compiled
    regex) and none of `absent`."""
    def ok():
        t = show(sw)
        for n in needles:
            if (n.search(t) is None) if hasattr(n, "search") else n not in t:
                return None
        if any(a in t for a in absent):
            return None
        return t
    try:
        return vxlib.wait_for(ok, timeout, 0.05, "ovsdb/show")
    except TimeoutError:
        raise AssertionError("ovsdb/show never had %r (absent %r):\n%s"
                             % (needles, absent, show(sw)))


def iface_block(text, name):
    """The interface's line and its verdict line."""
    m = re.search(r"^    interface %s .*\n      \w+: .*$" % re.escape(name),
                  text, re.M)
    assert m, "no interface %s in:\n%s" % (name, text)
    return m.group(0)


def start_switch(make_switch, topo, remote):
    return make_switch(topo, args=["--ovsdb", remote])


def test_vsctl_rows(ovsdb, make_switch, one_port_topology):
    sw = start_switch(make_switch, one_port_topology,
                      "unix:%s" % ovsdb.sock)
    t = wait_show(sw, "monitor: current", "lock ovs_vswitchd: held")
    assert "state: connected" in t and "schema: 8." in t
    assert "io: epoll" in t     # in control_poll()'s set, not the tick
    assert "configuration:\nrefusals: 0" in t

    ovsdb.vsctl("add-br", "br-int", "--", "set", "bridge", "br-int",
                "datapath_type=netdev")
    t = wait_show(sw, "bridge br-int datapath_type=netdev "
                  "fail_mode=standalone: the OpenFlow bridge")
    assert "do: the bridge's local port (OFPP_LOCAL" in \
        iface_block(t, "br-int")

    ovsdb.vsctl("add-port", "br-int", "vm1", "--", "set", "Interface",
                "vm1", "type=dpdkvhostuserclient",
                "options:vhost-server-path=/tmp/x")
    t = wait_show(sw, "interface vm1 ")
    assert iface_block(t, "vm1").endswith(
        "do: add-port vm1 type=dpdkvhostuserclient path=/tmp/x")

    ovsdb.vsctl("add-port", "br-int", "vx0", "--", "set", "Interface",
                "vx0", "type=vxlan", "options:remote_ip=flow",
                "options:key=flow")
    t = wait_show(sw, "interface vx0 ")
    b = iface_block(t, "vx0")
    assert b.endswith("do: add-port vx0 type=vxlan key=flow remote_ip=flow"), b

    ovsdb.vsctl("set", "Interface", "vm1", "mtu_request=1450",
                "ofport_request=5", "other_config:pmd-rxq-affinity=0:1")
    t = wait_show(sw, "mtu=1450")
    assert iface_block(t, "vm1").endswith(
        "do: add-port vm1 type=dpdkvhostuserclient path=/tmp/x ofport=5 "
        "mtu=1450 rxq-affinity=0:1"), iface_block(t, "vm1")

    ovsdb.vsctl("set", "Open_vSwitch", ".", "other_config:pmd-cpu-mask=0x2")
    wait_show(sw, "other_config:pmd-cpu-mask=0x2\n      do: set-pmd-cores 1")

    ovsdb.vsctl("set-controller", "br-int", "tcp:127.0.0.1:6653")
    wait_show(sw, "  controller tcp:127.0.0.1:6653\n      do: an OpenFlow "
              "connection")
    ovsdb.vsctl("set-fail-mode", "br-int", "secure")
    wait_show(sw, "bridge br-int datapath_type=netdev fail_mode=secure")

    # refusals, with OVS's texts where OVS has one
    ovsdb.vsctl("add-port", "br-int", "p0", "--", "set", "Interface", "p0",
                "type=patch", "options:peer=p1")
    ovsdb.vsctl("add-port", "br-int", "d0", "--", "set", "Interface", "d0",
                "type=dpdk")
    ovsdb.vsctl("add-port", "br-int", "vx1", "--", "set", "Interface",
                "vx1", "type=vxlan", "options:remote_ip=10.0.0.1")
    ovsdb.vsctl("add-br", "br-sys")
    t = wait_show(sw, "interface p0 ", "interface d0 ", "interface vx1 ",
                  "bridge br-sys")
    assert iface_block(t, "p0").endswith(
        "refused: could not open network device p0 %s" % EAFNOSUPPORT)
    assert iface_block(t, "d0").endswith(
        "refused: 'd0' is missing 'options:dpdk-devargs'. The old "
        "'dpdk<port_id>' names are not supported")
    assert iface_block(t, "vx1").endswith("refused: vxswitch: one vxlan "
                                          "port")
    assert iface_block(t, "br-sys").endswith(
        "refused: could not open network device br-sys %s" % EAFNOSUPPORT)
    assert "refusals: 4" in t

    ovsdb.vsctl("del-port", "vm1")
    t = wait_show(sw, "refusals: 4", absent=("interface vm1 ",))
    assert "Interface 6" in t      # br-int p0 d0 vx0 vx1 br-sys

    # each refusal is a log line once, not once per update
    log = sw.log_path.read_text(errors="replace")
    assert log.count("ovsdb: Interface p0: refused: could not open network "
                     "device p0 %s" % EAFNOSUPPORT) == 1, log
    assert log.count("ovsdb: Interface vx1: refused: vxswitch: one vxlan "
                     "port") == 1, log
    assert log.count(": refused: ") == 4, log
    assert "refusals logged: 4" in t

    # --json: the same content, structured
    j = sw.ctl("ovsdb/show", json=True)
    t = show(sw)
    assert j["state"] == "connected" and j["monitored"] is True, j
    assert j["lock"] == {"name": "ovs_vswitchd", "state": "held"}, j
    assert j["schema"].startswith("8.") and j["rows"]["Interface"] == 6, j
    assert j["counters"] == {k: v for k, v in counters(t).items()}, j
    w = j["configuration"]
    assert w["why_not"] is None and w["refusals"] == 4, w
    by_name = {v["name"]: v for v in w["verdicts"]}
    p0_uuid = vsctl_get(ovsdb, "Interface", "p0", "_uuid")
    assert by_name["p0"] == {"uuid": p0_uuid,
        "table": "Interface", "name": "p0", "bridge": "br-int",
        "port": "p0", "verdict": "refused",
        "text": "could not open network device p0 %s" % EAFNOSUPPORT}, \
        by_name["p0"]
    assert by_name["vx0"]["verdict"] == "do", by_name["vx0"]
    # what ovsdb_apply.c runs
    assert by_name["vx0"]["argv"] == ["add-port", "vx0", "type=vxlan",
                                      "key=flow", "remote_ip=flow"]
    assert by_name["br-int"]["role"] == "local", by_name["br-int"]
    assert by_name["tcp:127.0.0.1:6653"]["table"] == "Controller"
    assert by_name["other_config:pmd-cpu-mask"]["text"] == \
        "set-pmd-cores 1"
    # one verdict a verdict line of the text, in its order
    lines = re.findall(r"^      (do|wait|refused): (.*)$", t, re.M)
    assert [(v["verdict"], v["text"]) for v in w["verdicts"]] == lines
    assert j["refusals_logged"] == 4 and j["probe_ms"] == 0, j
    assert j["epoll"] is True, j

    # applied (test_ovsdb_apply.py has the details): the topology's vm0
    # gave way to the database's ports, vm1 came and went; vx0 cannot be
    # made without an underlay
    assert sw.ctl("list-ports") == ""
    c = counters(t)
    assert c["connects"] == 1 and c["disconnects"] == 0, c
    assert c["updates"] >= 12, c
    for bad in ("too_long", "too_deep", "not_object", "bad_json", "bad_rpc",
                "bad_update", "row_limit", "server_errors",
                "schema_refused"):
        assert c[bad] == 0, c


def test_server_restart(ovsdb, make_switch, one_port_topology):
    ovsdb.vsctl("add-br", "br-int", "--", "set", "bridge", "br-int",
                "datapath_type=netdev")
    sw = start_switch(make_switch, one_port_topology,
                      "unix:%s" % ovsdb.sock)
    wait_show(sw, "monitor: current", "bridge br-int")
    ovsdb.kill()
    t = wait_show(sw, "last drop: connection closed by the server",
                  "configuring nothing: no replica")
    assert "Bridge 0" in t and counters(t)["eof"] == 1
    j = sw.ctl("ovsdb/show", json=True)
    assert j["configuration"] == {"why_not": "no replica",
                                    "refusals": 0, "verdicts": []}, j
    assert j["last_drop"] == "connection closed by the server", j
    assert j["state"] in ("backoff", "connecting"), j
    ovsdb.start()
    ovsdb.vsctl("add-port", "br-int", "vm2", "--", "set", "Interface",
                "vm2", "type=dpdkvhostuser")
    t = wait_show(sw, "monitor: current", "interface vm2 ", timeout=10)
    c = counters(t)
    assert c["connects"] == 2 and c["disconnects"] == 1, c
    assert "lock ovs_vswitchd: held" in t


def free_tcp_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_tcp_remote(ovs_tools, rundir, make_switch, one_port_topology):
    """tcp:IP:PORT: the non-blocking connect that completes later."""
    d = rundir / "ovs"
    d.mkdir()
    srv = OvsdbServer(d)
    port = free_tcp_port()
    srv.proc = vxlib._spawn(
        ["ovsdb-server", d / "conf.db", "--remote=ptcp:%d:127.0.0.1" % port,
         "--pidfile=%s" % (d / "ovsdb-server.pid"),
         "--unixctl=%s" % (d / "ovsdb-server.ctl"), "--no-chdir"],
        d / "ovsdb-server.out", env=srv.env)
    sw = start_switch(make_switch, one_port_topology,
                      "tcp:127.0.0.1:%d" % port)
    t = wait_show(sw, "monitor: current", "lock ovs_vswitchd: held",
                  timeout=10)
    assert "remote: tcp:127.0.0.1:%d" % port in t
    srv.kill()


@pytest.mark.parametrize("remote", ["bogus", "unix:", "tcp:1.2.3.4",
                                    "tcp:1.2.3.4:0", "tcp:host:6640",
                                    "tcp:[::1:6640"])
def test_bad_remote(remote, tmp_path):
    """A remote that is none is refused before anything starts (exit 2)."""
    r = subprocess.run([vxlib.find_binary("vxswitch"), "--config",
                        tmp_path / "none.yaml", "--ovsdb", remote],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 2, r
    assert "--ovsdb" in r.stdout + r.stderr, r


def jsonrpc(sock, msg):
    sock.sendall(json.dumps(msg).encode())
    return json.loads(sock.recv(65536))


def test_lock_contended(ovsdb, make_switch, one_port_topology):
    ovsdb.vsctl("add-br", "br-int", "--", "set", "bridge", "br-int",
                "datapath_type=netdev")
    holder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    holder.settimeout(5)
    holder.connect(str(ovsdb.sock))
    r = jsonrpc(holder, {"method": "lock", "params": ["ovs_vswitchd"],
                         "id": 1})
    assert r["result"] == {"locked": True}, r
    sw = start_switch(make_switch, one_port_topology,
                      "unix:%s" % ovsdb.sock)
    t = wait_show(sw, "lock ovs_vswitchd: contended", "monitor: current")
    assert "configuring nothing: lock ovs_vswitchd is contended" in t
    assert "bridge br-int" not in t
    assert counters(t)["lock_contended"] == 1
    assert sw.ctl("ovsdb/show", json=True)["configuration"]["why_not"] \
        == "lock ovs_vswitchd is contended"
    vxlib.wait_for(lambda: CONTENDED % sw.proc.pid in
                   sw.log_path.read_text(errors="replace"), 5, 0.1,
                   "OVS's contended line in the log")
    assert sw.ctl("list-ports") == "vm0\n"
    holder.close()      # the server gives the lock over: "locked"
    wait_show(sw, "lock ovs_vswitchd: held", "the OpenFlow bridge")


def accept_schema_request(srv):
    assert srv.boot_answered() == BOOT_REQUEST, srv.boot
    conn, _ = srv.accept()
    conn.settimeout(5)
    req = json.loads(conn.recv(65536))
    assert req == {"method": "get_schema", "params": ["Open_vSwitch"],
                   "id": "get_schema"}, req
    return conn


def test_hostile_server(rundir, make_switch, one_port_topology):
    path = rundir / "fake.sock"
    srv = fake_server(path)
    sw = start_switch(make_switch, one_port_topology, "unix:%s" % path)

    # echo answered, then a top level that is no object
    conn = accept_schema_request(srv)
    r = jsonrpc(conn, {"method": "echo", "params": ["hi", 1], "id": "e1"})
    assert r == {"result": ["hi", 1], "error": None, "id": "e1"}, r
    conn.sendall(b"[1]")
    conn.close()
    # nested too deep (never even complete)
    conn = accept_schema_request(srv)
    conn.sendall(b'{"a":' + b"[" * 40)
    conn.close()
    # malformed JSON in a well-framed message
    conn = accept_schema_request(srv)
    conn.sendall(b'{"id":"get_schema","result":tru,"error":null}')
    conn.close()
    # a schema of a major version vxswitch does not know
    conn = accept_schema_request(srv)
    conn.sendall(json.dumps({"id": "get_schema", "error": None, "result": {
        "name": "Open_vSwitch", "version": "9.0.0", "tables": {}}})
        .encode())
    conn.close()
    t = wait_show(sw, re.compile(r"schema_refused: 1$", re.M))
    assert "vxswitch knows major version 8 only" in t
    # longer than OVSDB_MAX_MSG (16 MiB), 8 s of backoff later
    conn = accept_schema_request(srv)
    conn.settimeout(10)
    try:
        conn.sendall(b'{"a":"' + b"x" * (16 << 20))
    except OSError:     # the client may hang up before all is sent
        pass
    conn.close()
    t = wait_show(sw, re.compile(r"too_long: 1$", re.M))
    c = counters(t)
    assert c["echo_replies"] == 1 and c["not_object"] == 1 and \
        c["too_deep"] == 1 and c["bad_json"] == 1, c
    assert c["connects"] == 5 and c["disconnects"] == 5, c
    assert sw.ctl("list-ports") == "vm0\n"
    srv.close()


class Reader:
    """The client's messages, one JSON object at a time (several may
    come in one recv)."""

    def __init__(self, conn):
        self.conn, self.buf = conn, ""

    def next(self):
        while True:
            text = self.buf.lstrip()
            if text:
                try:
                    msg, end = json.JSONDecoder().raw_decode(text)
                    self.buf = text[end:]
                    return msg
                except ValueError:
                    pass
            data = self.conn.recv(65536)
            if not data:
                return None
            self.buf += data.decode()


def test_inactivity_probe(rundir, make_switch, one_port_topology):
    """As OVS's jsonrpc session: an echo after the probe interval with
    nothing received; the connection dropped after another one without an
    answer (counted, logged, shown), then the backoff and a new one. An
    answered echo keeps the connection."""
    path = rundir / "fake.sock"
    srv = fake_server(path)
    sw = make_switch(one_port_topology, args=[
        "--ovsdb", "unix:%s" % path, "--ovsdb-probe-ms", "1000"])
    assert "inactivity probe: 1000 ms" in show(sw)

    # never answers get_schema: probed, then dropped
    conn = accept_schema_request(srv)
    rd = Reader(conn)
    assert rd.next() == {"method": "echo", "params": [], "id": "echo"}
    assert rd.next() is None        # the client hung up
    conn.close()
    t = wait_show(sw, "last drop: no response to inactivity probe after 1")
    c = counters(t)
    assert c["probes_sent"] == 1 and c["probe_timeouts"] == 1 and \
        c["disconnects"] == 1, c
    assert "no response to inactivity probe" in \
        sw.log_path.read_text(errors="replace")

    # a server that answers get_schema, lock and monitor, then the echo
    # once, then goes silent
    conn = accept_schema_request(srv)
    rd = Reader(conn)
    conn.sendall(json.dumps({"id": "get_schema", "error": None,
                             "result": json.loads(SCHEMA.read_text())})
                 .encode())
    for _ in range(2):
        m = rd.next()
        conn.sendall(json.dumps({"id": m["id"], "error": None, "result":
                                 {"locked": True} if m["id"] == "lock"
                                 else {}}).encode())
    wait_show(sw, "monitor: current", "lock ovs_vswitchd: held")
    m = rd.next()
    assert m["method"] == "echo", m
    conn.sendall(json.dumps({"id": "echo", "error": None,
                             "result": []}).encode())
    assert rd.next()["method"] == "echo"    # a second interval later
    assert rd.next() is None
    conn.close()
    t = wait_show(sw, re.compile(r"probe_timeouts: 2$", re.M))
    c = counters(t)
    assert c["probes_sent"] == 3 and c["disconnects"] == 2 and \
        c["unexpected"] == 0, c
    assert "configuring nothing: no replica" in t
    conn = accept_schema_request(srv)   # and it comes back
    conn.close()
    srv.close()


def test_probe_defaults(ovs_tools, rundir, make_switch, one_port_topology):
    """ovs-vswitchd's: no probe on unix:, 5 s on tcp:; a bad value is
    refused before anything starts."""
    sw = start_switch(make_switch, one_port_topology,
                      "unix:%s" % (rundir / "none.sock"))
    assert "inactivity probe: none" in show(sw)
    # a socket of its own: the first switch's vm0.sock is in use
    topo = dict(one_port_topology, ports=[dict(
        one_port_topology["ports"][0], path=str(rundir / "vm0b.sock"))])
    sw = start_switch(make_switch, topo,
                      "tcp:127.0.0.1:%d" % free_tcp_port())
    assert "inactivity probe: 5000 ms" in show(sw)
    for bad in ("999", "x", "-1"):
        r = subprocess.run([vxlib.find_binary("vxswitch"), "--config",
                            rundir / "none.yaml", "--ovsdb", "tcp:1.2.3.4:1",
                            "--ovsdb-probe-ms", bad],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode == 2 and "--ovsdb-probe-ms" in \
            r.stdout + r.stderr, r


def test_transact_unanswered(rundir, make_switch, one_port_topology):
    """A server that never answers vxswitch's write-back transaction: the
    write-back waits, the configuration does not (as ovs-vswitchd's
    bridge_reconfigure(), which no status transaction holds): a port the
    next update adds is made, one it deletes goes. (A transaction in
    flight once held every later reconfiguration.)"""
    path = rundir / "fake.sock"
    srv = FO.listen(path)
    sw = make_switch(one_port_topology, args=["--ovsdb", "unix:%s" % path],
                     env=dict(os.environ, OVS_RUNDIR=str(rundir)))
    db = FI.Db(random.Random(1))
    db.add_iface("vm1", "dpdkvhostuser")
    db.refresh()
    rows = db.copy_rows()
    conn, _ = srv.accept()
    peer = FO.Peer(conn, lambda: {t: {u: {"new": r} for u, r in
                                      rows[t].items()} for t in rows},
                   policy="never")
    assert peer.monitored.wait(10)
    vxlib.wait_for(lambda: sw.ctl("list-ports") == "vm1\n", 10, 0.05,
                   "vm1 made")
    vxlib.wait_for(lambda: peer.transacts, 10, 0.05, "a transaction")
    before = db.copy_rows()
    db.add_iface("vm2", "dpdkvhostuser")
    db.next_cfg += 1
    db.refresh()
    peer.send(FI.update_msg(FI.table_updates(before, db.rows)))
    vxlib.wait_for(lambda: sw.ctl("list-ports") == "vm1\nvm2\n", 10, 0.05,
                   "vm2 made while the transaction is unanswered")
    assert peer.transacts == 1
    peer.close()
    srv.close()


def test_vhost_name_of_a_live_socket(rundir, make_switch,
                                     one_port_topology):
    """A dpdkvhostuser interface named as a socket that is in use in
    OVS_RUNDIR (here the ovsdb-server's own, as db.sock is in OVS's
    layout): the socket is left to its owner, as OVS leaves it (DPDK's
    bind fails), the port refused; the connection to the server stays.
    (vxswitch unlinked any socket there, then, as the port failed, its
    own.)"""
    path = rundir / "db.sock"
    srv = FO.listen(path)
    sw = make_switch(one_port_topology, args=["--ovsdb", "unix:%s" % path],
                     env=dict(os.environ, OVS_RUNDIR=str(rundir)))
    db = FI.Db(random.Random(1))
    db.add_iface("db.sock", "dpdkvhostuser")
    db.refresh()
    rows = db.copy_rows()
    inode = os.stat(path).st_ino
    conn, _ = srv.accept()
    peer = FO.Peer(conn, lambda: {t: {u: {"new": r} for u, r in
                                      rows[t].items()} for t in rows})
    assert peer.monitored.wait(10)
    verdict = re.compile(r"ovsdb: (db\.sock added|Interface db\.sock: )")
    vxlib.wait_for(lambda: verdict.search(sw.log_path.read_text(
        errors="replace")), 10, 0.05, "db.sock's port tried")
    assert os.stat(path).st_ino == inode, "the server's socket was replaced"
    log = sw.log_path.read_text(errors="replace")
    assert "db.sock is in use (not a socket left by an earlier run)" \
        in log, log[-2000:]
    assert not peer.closed.is_set()
    peer.close()
    srv.close()
