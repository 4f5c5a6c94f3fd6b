# SPDX-License-Identifier: BSD-3-Clause
"""The fuzz suite's `ovsdb` category (fuzz.py's cat_ovsdb): a hostile
ovsdb-server on a unix socket that `vxswitch --ovsdb unix:PATH` connects
to. It answers get_schema with Debian's vswitch.ovsschema, the lock with
locked:true and the monitor with a small valid database
(fuzz_ovsdb_inputs.make_db), then sends "update" notifications that are
mutants of valid ones (fuzz_ovsdb_inputs.py says which):

  accepted  wrong values in every column, odd names, huge numbers and
            strings, bad references, pmd-cpu-mask garbage, ... sent in
            batches; each must be taken (`updates` counts it, no drop);
            then the valid update that restores the database, after
            which `list-ports` names no port the valid database does not
            and every vhost-user port it does
  dropped   a message that must end the connection, counted in the
            counter named (bad_update, bad_json, too_long, ...); the
            switch reconnects (1 s of backoff) and monitors again
  many      hundreds of interfaces in one update, then all deleted in one
  transact  vxswitch's write-back transactions answered with an error
            (server_errors, a drop), garbage (txn_errors), or never; a
            valid update after each must still be applied

After each batch the switch is alive, ovsdb/show and list-ports answer,
and the counters account for every message; fuzz.py's finish_switch checks
its exit, sanitizer reports, mbufs and packet accounting at the end.
"""

import json
import socket
import threading
import time

from . import fuzz_ovsdb_inputs as I
from . import ovsdb_server
from .ovsdb_server import SCHEMA

ACCEPT_TIMEOUT = 15.0


class Peer:
    """One connection from the switch, served by a thread: get_schema,
    lock, monitor (the initial rows from initial()), echo, and transact as
    `policy` says: "ok", "error", "garbage" or "never"."""

    def __init__(self, conn, initial, policy="ok"):
        self.conn = conn
        self.initial = initial
        self.policy = policy
        self.wlock = threading.Lock()
        self.monitored = threading.Event()
        self.closed = threading.Event()
        self.transacts = 0
        self.got = []           # the methods received, in order
        self.errors = []
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def send(self, data):
        """False if the switch already hung up."""
        try:
            with self.wlock:
                self.conn.sendall(data)
            return True
        except OSError:
            return False

    def reply(self, id_, result, error=None):
        self.send(json.dumps({"id": id_, "result": result,
                              "error": error}).encode())

    def _run(self):
        buf = ""
        dec = json.JSONDecoder()
        while True:
            try:
                data = self.conn.recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                self.closed.set()
                return
            buf += data.decode(errors="surrogateescape")
            while True:
                text = buf.lstrip()
                try:
                    msg, end = dec.raw_decode(text)
                except ValueError:
                    break
                buf = text[end:]
                try:
                    self._handle(msg)
                except Exception as e:     # noqa: BLE001 (the report's)
                    self.errors.append("%r: %s" % (msg, e))

    def _handle(self, msg):
        m, id_ = msg.get("method"), msg.get("id")
        self.got.append(m or "reply %s" % id_)
        if m == "get_schema":
            self.send(b'{"id":"get_schema","error":null,"result":' +
                      SCHEMA.read_bytes() + b"}")
        elif m == "lock":
            self.reply(id_, {"locked": True})
        elif m == "monitor":
            self.reply(id_, self.initial())
            self.monitored.set()
        elif m == "echo":
            self.reply(id_, msg.get("params"))
        elif m == "transact":
            self.transacts += 1
            ops = msg["params"][1:]
            if self.policy == "ok":
                self.reply(id_, [{"count": 1} if o.get("op") == "update"
                                 else {} for o in ops])
            elif self.policy == "error":
                self.reply(id_, None, {"error": "not allowed",
                                       "details": "\x01" * 40})
            elif self.policy == "garbage":
                self.reply(id_, [{"error": "constraint violation",
                                  "details": "\u00e9" * 100}, 5, None,
                                 "x"][:len(ops) + 1])
            # "never": no answer
        elif id_ is not None and "result" not in msg:
            self.errors.append("unexpected request %r" % (msg,))

    def close(self):
        try:
            self.conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.conn.close()
        self.t.join(5)


class Session:
    """The hostile server and the harness's view of the switch: its
    counters, its replica (the shadow), the valid database."""

    def __init__(self, fz, row, sw, srv, db, rundir):
        self.fz, self.row, self.sw, self.db = fz, row, sw, db
        self.rundir = rundir
        self.srv = srv
        self.peer = None
        self.shadow = None
        self.want = {}          # counter -> value expected
        self.policy = "ok"

    # -- the switch's side ------------------------------------------
    def show(self):
        r = self.sw.ctl_result("ovsdb/show", json=True, timeout=10)
        if r.returncode != 0:
            return None
        return json.loads(r.stdout)

    def fail(self, what):
        self.row.other += 1
        self.row.note(what[:400])

    def alive(self, what):
        return self.fz.alive(self.row, self.sw, what)

    def wait(self, ok, what, timeout=10.0):
        """Polls ovsdb/show until ok(show) or the time is up (a failure
        noted); the last show, or None."""
        deadline = time.monotonic() + timeout
        s = None
        while time.monotonic() < deadline:
            if not self.alive(what):
                return None
            s = self.show()
            if s is not None and ok(s):
                return s
            time.sleep(0.05)
        self.fail("%s: not within %.0f s (counters %s, last drop %s)" % (
            what, timeout, s and {k: v for k, v in s["counters"].items()
                                  if v}, s and s["last_drop"]))
        return None

    def check_counters(self, s, what):
        c = s["counters"]
        bad = {k: (c.get(k), v) for k, v in self.want.items()
               if c.get(k) != v}
        if bad:
            self.fail("%s: counters (have, want): %s" % (what, bad))
            self.want.update({k: c.get(k) for k in bad})

    # -- connections -----------------------------------------------
    def connect(self, what):
        """Accepts the switch's next connection and serves it until it
        monitors."""
        self.shadow = self.db.copy_rows()
        rows = self.db.copy_rows()
        for _ in range(4):
            try:
                conn, _ = self.srv.accept()
            except socket.timeout:
                self.fail("%s: the switch did not connect again" % what)
                return False
            self.peer = Peer(conn, lambda: {t: {u: {"new": r} for u, r in
                                                rows[t].items()}
                                            for t in rows if rows[t]},
                             self.policy)
            # a connection that ends with nothing said: the switch's look
            # at a socket a vhost-user port's name named (is it in use?)
            if not (self.peer.closed.wait(0.2) and not self.peer.got):
                break
            self.peer.close()
        if not self.peer.monitored.wait(10):
            self.fail("%s: no monitor request (received %s, closed %s, "
                      "errors %s)" % (what, self.peer.got[:8],
                                      self.peer.closed.is_set(),
                                      self.peer.errors[:2]))
            return False
        self.want["connects"] = self.want.get("connects", 0) + 1
        self.want["updates"] = self.want.get("updates", 0) + 1
        s = self.wait(lambda s: s["monitored"] and
                      s["counters"]["updates"] >= self.want["updates"],
                      what + ": monitored")
        return s is not None

    def send_accepted(self, batch, what):
        """Mutants the replica must take: all counted in updates, no
        drop."""
        for label, _, data, shadow in batch:
            self.row.inputs += 1
            self.peer.send(data)
            shadow(self.shadow)
        self.want["updates"] += sum(m[2].count(b'"method": "update"')
                                    for m in batch)
        s = self.wait(lambda s: s["counters"]["updates"] >=
                      self.want["updates"] or
                      s["counters"]["disconnects"] >
                      self.want.get("disconnects", 0), what)
        if s is None:
            return False
        if s["counters"]["disconnects"] > self.want.get("disconnects", 0):
            self.fail("%s: dropped (%s); the batch: %s" % (
                what, s["last_drop"], [b[0] for b in batch]))
            return False
        self.check_counters(s, what)
        return True

    def restore(self, what):
        """The valid update (next_cfg + 1) after the mutants: then the
        ports are those of the valid database."""
        self.db.next_cfg += 1
        self.db.refresh()
        tus = I.table_updates(self.shadow, self.db.rows)
        self.shadow = self.db.copy_rows()
        self.peer.send(I.update_msg(tus))
        self.want["updates"] += 1
        if self.wait(lambda s: s["counters"]["updates"] >=
                     self.want["updates"], what + ": restored"):
            self.ports_match(what)

    def ports_match(self, what, timeout=15.0, rows=None):
        """list-ports names no port the valid database (or rows) does not,
        and every vhost-user port it does."""
        allowed = self.db.names(rows)
        need = self.db.vhost_names(rows)
        have = None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive(what):
                return False
            r = self.sw.ctl_result("list-ports", json=True, timeout=10)
            if r.returncode == 0:
                have = {p["name"] for p in json.loads(r.stdout)}
                if have <= allowed and need <= have:
                    return True
            time.sleep(0.1)
        self.fail("%s: list-ports %s; the valid database: %s" % (
            what, sorted(have or ()), sorted(allowed)))
        return False

    def send_dropped(self, label, counter, data):
        """A mutant the switch must drop the connection for, counted in
        counter; then the next connection."""
        self.row.inputs += 1
        self.peer.send(data)
        if counter == "eof":
            self.peer.close()
        elif not self.peer.closed.wait(20):
            self.fail("%s: connection not dropped" % label)
            self.peer.close()
        else:
            self.peer.close()
        self.want[counter] = self.want.get(counter, 0) + 1
        self.want["disconnects"] = self.want.get("disconnects", 0) + 1
        s = self.wait(lambda s: s["counters"]["disconnects"] >=
                      self.want["disconnects"], label)
        if s is not None:
            self.check_counters(s, label)
        return self.connect("after " + label)


def listen(path):
    """The hostile server's listening socket (its first connection, the
    switch's read of other_config before the EAL, answered by
    ovsdb_server.FakeServer's thread)."""
    return ovsdb_server.fake_server(path, ACCEPT_TIMEOUT)


def run(fz, row, sw, srv, db, rundir):
    """The category's phases against a started switch (fuzz.cat_ovsdb)."""
    sizes = fz.sizes
    rng = fz.rng
    ss = Session(fz, row, sw, srv, db, rundir)
    try:
        _phases(ss, sizes, rng, rundir)
    finally:
        if ss.peer:
            ss.peer.close()
        ss.srv.close()
        errs = ss.peer.errors if ss.peer else []
        if errs:
            ss.fail("the server's own errors: %s" % errs[:3])


def _phases(ss, sizes, rng, rundir):
    if not ss.connect("first connection") or not ss.ports_match("initial"):
        return
    # accepted mutants in batches, each followed by the valid update
    t0 = time.monotonic()
    muts = I.accepted_mutants(rng, ss.db, sizes["ovsdb_accepted"],
                              sizes["ovsdb_big"])
    bs = sizes["ovsdb_batch"]
    for k in range(0, len(muts), bs):
        what = "accepted batch %d" % (k // bs)
        if not ss.send_accepted(muts[k:k + bs], what):
            if not ss.alive(what) or not ss.connect("after " + what):
                return
            continue
        ss.restore(what)
        if not ss.alive(what):
            return
    ss.row.note("accepted mutants: %.1f s" % (time.monotonic() - t0))
    t0 = time.monotonic()
    # hundreds of interfaces, then all deleted in one update
    add, middle, delete = I.many_ifaces(rng, ss.db, rundir,
                                        sizes["ovsdb_many"])
    for label, tus, rows in (("many added", add, middle),
                             ("many deleted", delete, None)):
        ss.row.inputs += 1
        ss.peer.send(I.update_msg(tus))
        I.apply_updates(ss.shadow, tus)
        ss.want["updates"] += 1
        if not ss.wait(lambda s: s["counters"]["updates"] >=
                       ss.want["updates"], label, timeout=30):
            return
        ss.ports_match(label, timeout=60, rows=rows)
    ss.row.note("%d interfaces: %.1f s" % (sizes["ovsdb_many"],
                                           time.monotonic() - t0))
    # the transactions answered badly
    # (never last: the transaction it leaves in flight holds every later
    # one on that connection)
    t0 = time.monotonic()
    for policy in ("garbage", "error", "never"):
        what = "transact %s" % policy
        ss.peer.policy = policy
        n0 = ss.peer.transacts
        if policy != "error":
            ss.restore(what)    # a change: a transaction follows
        else:   # the connection may end before the update is counted
            ss.db.next_cfg += 1
            ss.db.refresh()
            ss.peer.send(I.update_msg(I.table_updates(ss.shadow,
                                                      ss.db.rows)))
            ss.row.inputs += 1
            ss.want["server_errors"] = ss.want.get("server_errors", 0) + 1
            ss.want["disconnects"] = ss.want.get("disconnects", 0) + 1
            ss.policy = "ok"
            if not ss.peer.closed.wait(20):
                ss.fail("%s: not dropped" % what)
            ss.peer.close()
            s = ss.wait(lambda s: s["counters"]["disconnects"] >=
                        ss.want["disconnects"], what)
            if s is not None:   # the update, taken or not before the end
                ss.want["updates"] = s["counters"]["updates"]
            if not ss.connect("after " + what):
                return
            continue
        s = ss.wait(lambda s: ss.peer.transacts > n0, what + ": sent")
        if s is None:
            continue
        ss.row.inputs += 1
        if policy == "garbage":
            s = ss.wait(lambda s: s["counters"]["txn_errors"] >
                        ss.want.get("txn_errors", 0), what)
            # the status turns' transactions fail too, as many as
            # there are: not counted exactly
        # whatever became of the transaction, a valid change is applied
        iu = ss.db.add_iface("late%d" % ss.peer.transacts, "dpdkvhostuser")
        ss.restore(what + ": then a port added")
        ss.db.del_iface(iu)
        ss.restore(what + ": then that port deleted")
        ss.policy = ss.peer.policy = "ok"
    ss.row.note("transactions: %.1f s" % (time.monotonic() - t0))
    t0 = time.monotonic()
    # the connection-dropping mutants, each on a connection of its own
    drops = I.dropped_mutants(rng, ss.db, sizes["ovsdb_huge"])
    for label, counter, data in drops[:sizes["ovsdb_dropped"]]:
        if not ss.send_dropped(label, counter, data):
            return
        if not ss.alive(label):
            return
    ss.row.note("dropped mutants: %.1f s" % (time.monotonic() - t0))
    ss.restore("after the dropped mutants")
    s = ss.show()
    if s is not None:
        ss.check_counters(s, "the end")
        ss.row.note("ovsdb counters: %s" % {
            k: v for k, v in s["counters"].items() if v})
