# SPDX-License-Identifier: BSD-3-Clause
"""The fuzz suite's `ovsdb` category's inputs (fuzz_ovsdb.py runs them): a
small valid Open_vSwitch database as OVSDB rows (the monitored columns of
vxswitch's monitor request, app/control/ovsdb_replica.h), the "update"
notifications that change it validly, and mutants of them.

A mutant is (label, expect, data, shadow): `data` the bytes sent, one
message or more; `expect` what the switch must do with it:

  "update"    take each into its replica (a valid OVSDB table-updates whose
              values are wrong for vxswitch: the plan refuses or ignores
              them), counted in `updates`; `shadow(replica)` applies it to
              the harness's copy of the switch's replica
  COUNTER     drop the connection, counting it in ovsdb/show's COUNTER
              (bad_update, bad_json, bad_rpc, too_deep, too_long,
              not_object, row_limit, eof)
"""

import json
import uuid as uuidlib

TABLES = {
    "Open_vSwitch": ("bridges", "other_config", "next_cfg", "datapaths"),
    "Bridge": ("name", "datapath_type", "ports", "controller", "fail_mode"),
    "Port": ("name", "interfaces"),
    "Interface": ("name", "type", "options", "other_config",
                  "ofport_request", "mtu_request"),
    "Controller": ("target",),
}
EMPTY = ["set", []]
MONITOR_ID = "vxswitch"


def uid(rng):
    return str(uuidlib.UUID(int=rng.getrandbits(128), version=4))


def smap(d):
    return ["map", [[k, v] for k, v in sorted(d.items())]]


def uset(uuids):
    return ["set", [["uuid", u] for u in uuids]]


def opt_int(v):
    return EMPTY if v is None else v


class Db:
    """The valid database: rows[table][uuid] = {column: datum}, every
    monitored column present (as ovsdb-server's initial monitor reply)."""

    def __init__(self, rng):
        self.rng = rng
        self.rows = {t: {} for t in TABLES}
        self.root = uid(rng)
        self.br = uid(rng)
        self.ctl = uid(rng)
        self.next_cfg = 1
        self.pmd_mask = "0x2"
        self.iface_port = {}        # interface uuid -> its port's uuid
        self.rows["Controller"][self.ctl] = {"target": "tcp:127.0.0.1:6653"}
        self.add_iface("br-int", "internal")
        self.rows["Bridge"][self.br] = {}
        self.refresh()

    def add_iface(self, name, itype, options=None, ofport=None, mtu=None,
                  affinity=None):
        iu, pu = uid(self.rng), uid(self.rng)
        self.rows["Interface"][iu] = {
            "name": name, "type": itype, "options": smap(options or {}),
            "other_config": smap({"pmd-rxq-affinity": affinity}
                                 if affinity else {}),
            "ofport_request": opt_int(ofport), "mtu_request": opt_int(mtu)}
        self.rows["Port"][pu] = {"name": name, "interfaces": uset([iu])}
        self.iface_port[iu] = pu
        return iu

    def del_iface(self, iu):
        pu = self.iface_port.pop(iu)
        del self.rows["Interface"][iu]
        del self.rows["Port"][pu]

    def refresh(self):
        """The bridge and root rows after a change of ports/next_cfg."""
        self.rows["Bridge"][self.br] = {
            "name": "br-int", "datapath_type": "netdev",
            "ports": uset(sorted(self.rows["Port"])),
            "controller": uset([self.ctl]), "fail_mode": EMPTY}
        self.rows["Open_vSwitch"][self.root] = {
            "bridges": uset([self.br]),
            "other_config": smap({"pmd-cpu-mask": self.pmd_mask}),
            "next_cfg": self.next_cfg, "datapaths": ["map", []]}

    def names(self, rows=None):
        return {r["name"] for r in (rows or self.rows)["Interface"].values()}

    def vhost_names(self, rows=None):
        """The interfaces vxswitch makes a port for, whatever else."""
        out = set()
        for r in (rows or self.rows)["Interface"].values():
            opts = dict(r["options"][1])
            if r["type"] == "dpdkvhostuser" or (
                    r["type"] == "dpdkvhostuserclient" and
                    opts.get("vhost-server-path")):
                out.add(r["name"])
        return out

    def copy_rows(self):
        return {t: {u: dict(r) for u, r in rows.items()}
                for t, rows in self.rows.items()}


def make_db(rng, rundir, n_ifaces=6):
    """br-int (netdev) with vhost-user server and client ports, a vxlan
    and dpdk ports, options, ofport_request, mtu_request, rxq affinity,
    pmd-cpu-mask."""
    db = Db(rng)
    for k in range(n_ifaces):
        kind = k % 4
        if kind == 0:
            db.add_iface("vhu%d" % k, "dpdkvhostuser", ofport=10 + k,
                         mtu=1500 + k, affinity="0:1")
        elif kind == 1:
            db.add_iface("vhc%d" % k, "dpdkvhostuserclient", {
                "vhost-server-path": "%s/vhc%d.sock" % (rundir, k)},
                mtu=9000)
        elif kind == 2:
            db.add_iface("vx%d" % k, "vxlan", {"remote_ip": "flow",
                                               "key": "flow"}, ofport=4)
        else:
            db.add_iface("dpdk%d" % k, "dpdk", {"n_rxq": "1"})
    db.refresh()
    return db


def table_updates(before, after):
    """The table-updates that make `before` (rows by table) `after`:
    inserts, full-row modifies and deletes."""
    out = {}
    for t in TABLES:
        b, a = before.get(t, {}), after.get(t, {})
        tu = {}
        for u, r in a.items():
            if u not in b:
                tu[u] = {"new": r}
            elif b[u] != r:     # as ovsdb-server: the old values of
                # the columns that changed
                tu[u] = {"old": {c: v for c, v in b[u].items()
                                 if r.get(c) != v}, "new": r}
        for u, r in b.items():
            if u not in a:
                tu[u] = {"old": r}
        if tu:
            out[t] = tu
    return out


def apply_updates(rows, tus):
    """As ovsdb_replica.c: insert, merge "new" into the row, delete."""
    for t, tu in tus.items():
        for u, ru in tu.items():
            if "new" not in ru:
                rows[t].pop(u, None)
            elif "old" not in ru:
                rows[t][u] = dict(ru["new"])
            else:
                rows[t][u].update(ru["new"])


def update_msg(tus, monitor_id=MONITOR_ID):
    return json.dumps({"id": None, "method": "update",
                       "params": [monitor_id, tus]}).encode()


# ---- values for the mutants ---------------------------------------------

INTS = [-1, 0, 1, 65279, 65280, 65535, 65536, 2**31, 2**32 + 1, -2**31,
        2**63 - 1, -2**63, 68, 67, 9710, 9711]
REALS = [1.5, -0.0, 1e308, -1e-308, 65535.0]
ODD_NAMES = ["", ".", "..", "a/b", "../escape", "/etc/passwd", "x" * 300,
             "sp ace", "tab\t", "nl\n", "\x01\x1f\x7f", "caf\u00e9",
             "\u202e", "-", "0123", "a=b", "%s%n%x", "vm0", "br-int",
             # sockets in use in OVS_RUNDIR: the server's, the switch's
             "db.sock", "vxswitch.ctl"]
MASKS = ["", "0x", "0X", "zz", "-1", "0x0", "0", "  ", "0x" + "f" * 200,
         "0xffffffffffffffffffffffffffffffffff", "ffffffff", "0x-1",
         "0x1 0x2", "1,2", "\x00x1"[1:], "0x8000000000000000"]
AFFINITIES = ["", "0", "0:", ":1", "0:1,0:2", "99999:1", "0:99999",
              "-1:-1", "a:b", "0:1," * 200, "0:1:2"]


def bad_values(rng, big):
    """Datums that are valid OVSDB shapes but no value vxswitch takes."""
    vals = [5, -5, True, False, 1.5, "x", "", EMPTY,
            ["set", ["a", "b"]], ["set", [1, 2, 3]],
            ["set", [["uuid", uid(rng)]]],
            ["set", [["named-uuid", "row1"]]], ["named-uuid", "x"],
            ["uuid", uid(rng)],
            ["map", []], ["map", [[1, 2]]], ["map", [[True, "x"]]],
            ["map", [[["uuid", uid(rng)], "v"]]],
            ["map", [["a", "1"], ["a", "2"]]],          # a key twice
            ["map", [["k%d" % i, "v"] for i in range(300)]],
            "y" * big]
    vals += [rng.choice(INTS) for _ in range(4)] + REALS
    vals += rng.sample(ODD_NAMES, 4)
    return vals


def accepted_mutants(rng, db, n, big):
    """n mutants the replica takes (expect "update"): every monitored
    column of every table given wrong values, odd names, huge numbers and
    strings, bad references, masks, affinities, orphan and dangling
    rows; rounds of them (each with new random values) until n."""
    out = []
    while len(out) < n:
        out += _round(rng, db, n, big)
    out = out[:n]
    # one message just under the 16 MiB limit (OVSDB_MAX_MSG), and one
    # that takes it back (with its 16 MiB "old", as ovsdb-server would
    # send it, it would be past the limit)
    ocfg = db.rows["Open_vSwitch"][db.root]["other_config"]
    huge = {"Open_vSwitch": {db.root: {"old": {}, "new": {
        "other_config": smap({"pmd-cpu-mask": db.pmd_mask,
                              "z": "z" * ((16 << 20) - 4096)})}}}}
    back = {"Open_vSwitch": {db.root: {"old": {}, "new": {
        "other_config": ocfg}}}}

    def both(rows):
        apply_updates(rows, huge)
        apply_updates(rows, back)
    out.insert(len(out) // 2, ("a message of 16 MiB less 4 KiB, and "
                               "back", "update", update_msg(huge) +
                               update_msg(back), both))
    return out


def _round(rng, db, n, big):
    """One round of accepted_mutants(), shuffled."""
    out = []

    def add(label, tus):
        out.append((label, "update", update_msg(tus),
                    lambda rows, tus=tus: apply_updates(rows, tus)))

    ifaces = sorted(db.rows["Interface"])
    # every column of every table, wrong values
    for tname, cols in TABLES.items():
        for col in cols:
            for v in bad_values(rng, big)[:3 + n // 40]:
                u = rng.choice(sorted(db.rows[tname]))
                tus = {tname: {u: {"old": {}, "new": {col: v}}}}
                add("%s.%s=%s" % (tname, col, json.dumps(v)[:30]), tus)
    # targeted: names, numbers, options, other_config
    for name in ODD_NAMES:
        add("Interface.name=%r" % name[:20], {"Interface": {
            rng.choice(ifaces): {"old": {}, "new": {"name": name}}}})
    # a server-mode vhost port named as a socket in use in OVS_RUNDIR
    vhu = [u for u in ifaces
           if db.rows["Interface"][u]["type"] == "dpdkvhostuser"]
    for name in ("db.sock", "vxswitch.ctl", "db.sock.lock"):
        add("dpdkvhostuser named %s" % name, {"Interface": {
            rng.choice(vhu): {"old": {}, "new": {"name": name}}}})
    for v in INTS:
        for col in ("ofport_request", "mtu_request"):
            add("%s=%d" % (col, v), {"Interface": {
                rng.choice(ifaces): {"old": {}, "new": {col: v}}}})
    for m in MASKS:
        add("pmd-cpu-mask=%r" % m[:20], {"Open_vSwitch": {db.root: {
            "old": {}, "new": {"other_config": smap({
                "pmd-cpu-mask": m})}}}})
    for a in AFFINITIES:
        add("pmd-rxq-affinity=%r" % a[:20], {"Interface": {
            rng.choice(ifaces): {"old": {}, "new": {"other_config": smap(
                {"pmd-rxq-affinity": a})}}}})
    for t in ("dpdkvhostuser", "dpdkvhostuserclient", "vxlan", "dpdk",
              "internal", "patch", "geneve", "", "x" * 500, "system"):
        opts = rng.choice([{}, {"vhost-server-path": "/nonexistent/x"},
                           {"vhost-server-path": "/" + "p" * 400},
                           {"remote_ip": "999.1.1.1", "key": "-1"},
                           {"remote_ip": "flow", "dst_port": "0"},
                           {"dpdk-devargs": "garbage,,=="},
                           {"dpdk-devargs": "0000:ff:1f.7"},
                           {"n_rxq": "-1", "dpdk-devargs": ""},
                           {"peer": "p1", "x" * 100: "y" * 1000}])
        add("type=%s options=%s" % (t[:12], sorted(opts)[:2]),
            {"Interface": {rng.choice(ifaces): {"old": {}, "new": {
                "type": t, "options": smap(opts)}}}})
    # next_cfg backwards, huge, a string
    for v in (-1, 0, 2**63 - 1, "7", 1.5):
        add("next_cfg=%r" % (v,), {"Open_vSwitch": {db.root: {
            "old": {}, "new": {"next_cfg": v}}}})
    # orphan rows, and rows naming rows that do not exist
    for _ in range(3):
        u = uid(rng)
        add("orphan Interface", {"Interface": {u: {"new": {
            "name": "orphan", "type": "dpdkvhostuser"}}}})
        pu = uid(rng)
        add("Port naming a missing Interface", {"Port": {pu: {"new": {
            "name": "dangling", "interfaces": uset([uid(rng)])}}}})
        add("Bridge ports: missing rows", {"Bridge": {db.br: {
            "old": {}, "new": {"ports": uset(
                sorted(db.rows["Port"])[:1] + [uid(rng), pu])}}}})
        add("a second root row", {"Open_vSwitch": {uid(rng): {"new": {
            "bridges": uset([uid(rng)]), "next_cfg": 5}}}})
    # a port with two interfaces (a bond), a second bridge, a Controller
    # row referenced twice, a bridge named as another
    add("bond", {"Port": {sorted(db.rows["Port"])[0]: {"old": {}, "new": {
        "interfaces": uset(ifaces[:3])}}}})
    b2 = uid(rng)
    add("second bridge with the same ports", {
        "Bridge": {b2: {"new": {"name": "br-int", "datapath_type": "netdev",
                                "ports": db.rows["Bridge"][db.br]["ports"]}}},
        "Open_vSwitch": {db.root: {"old": {}, "new": {
            "bridges": uset([db.br, b2])}}}})
    add("controller targets", {"Controller": {db.ctl: {"old": {}, "new": {
        "target": rng.choice(["ssl:1.2.3.4:6653", "tcp:", "unix:" +
                              "u" * 2000, "ptcp:-1", "\x02"])}}}})
    rng.shuffle(out)
    return out


def many_ifaces(rng, db, rundir, k):
    """k dpdkvhostuserclient interfaces added in one update, and the update
    that deletes them all: (add, delete) as table-updates, and the valid
    db's rows in between (for the expectation)."""
    before = db.copy_rows()
    added = [db.add_iface("m%d" % i, "dpdkvhostuserclient", {
        "vhost-server-path": "%s/m%d.sock" % (rundir, i)})
        for i in range(k)]
    db.next_cfg += 1
    db.refresh()
    middle = db.copy_rows()
    for iu in added:
        db.del_iface(iu)
    db.next_cfg += 1
    db.refresh()
    return (table_updates(before, middle), middle,
            table_updates(middle, db.copy_rows()))


def dropped_mutants(rng, db, huge):
    """Mutants after which the switch must drop the connection, each with
    the counter that says why: (label, counter, data). huge: the size of
    the message past the 16 MiB limit (too_long)."""
    iu = sorted(db.rows["Interface"])[0]
    ghost = uid(rng)

    def upd(tus, mid=MONITOR_ID):
        return update_msg(tus, mid)
    good = {"Interface": {iu: {"old": {}, "new": {"mtu_request": 1500}}}}
    deep = "[" * 10 + "]" * 10     # within the framing depth (32)
    out = [
        # the replica's refusals (bad_update)
        ("delete of a row that does not exist", "bad_update",
         upd({"Interface": {ghost: {"old": {"name": "x"}}}})),
        ("modify of an unknown row", "bad_update",
         upd({"Port": {ghost: {"old": {}, "new": {"name": "x"}}}})),
        ("insert of a row that exists", "bad_update",
         upd({"Interface": {iu: {"new": {"name": "again"}}}})),
        ("row key not a UUID", "bad_update",
         upd({"Interface": {"not-a-uuid": {"new": {}}}})),
        ("bad UUID atom", "bad_update", upd({"Bridge": {db.br: {
            "old": {}, "new": {"ports": ["set", [["uuid", "1234"]]]}}}})),
        ("unknown table", "bad_update", upd({"Flow_Table": {}})),
        ("unmonitored column", "bad_update", upd({"Interface": {iu: {
            "old": {}, "new": {"ofport": 5}}}})),
        ("row-update not an object", "bad_update",
         upd({"Interface": {iu: [1]}})),
        ("neither old nor new", "bad_update",
         upd({"Interface": {iu: {}}})),
        ("table-updates not an object", "bad_update",
         json.dumps({"method": "update", "id": None,
                     "params": [MONITOR_ID, 5]}).encode()),
        ("nested datum", "bad_update", upd({"Interface": {iu: {
            "old": {}, "new": {"options": json.loads(deep)}}}})),
        ("map of three", "bad_update", upd({"Interface": {iu: {
            "old": {}, "new": {"options": ["map", [["a", "b", "c"]]]}}}})),
        ("object as a value", "bad_update", upd({"Interface": {iu: {
            "old": {}, "new": {"name": {"a": 1}}}}})),
        ("null as a value", "bad_update", upd({"Interface": {iu: {
            "old": {}, "new": {"name": None}}}})),
        # JSON-RPC shape (bad_rpc)
        ("another monitor's update", "bad_rpc", upd(good, "other")),
        ("params not an array", "bad_rpc",
         b'{"method":"update","params":{"a":1},"id":null}'),
        ("neither request nor reply", "bad_rpc", b'{"x":1}'),
        # JSON itself (bad_json)
        ("duplicate key", "bad_json",
         b'{"method":"update","method":"update","params":[],"id":null}'),
        ("duplicate column", "bad_json", upd(good).replace(
            b'"mtu_request": 1500', b'"mtu_request": 1, "mtu_request": 2')),
        ("not UTF-8", "bad_json", upd(good).replace(
            b'"mtu_request"', b'"mtu_\xff\xfe_request"')),
        ("NUL escape", "bad_json", upd({"Interface": {iu: {
            "old": {}, "new": {"name": "a\u0000b"}}}})),
        ("integer past 64 bits", "bad_json", upd(good).replace(
            b"1500", b"18446744073709551616")),
        ("real past double", "bad_json", upd(good).replace(
            b"1500", b"1e999")),
        ("truncated, then a message", "bad_json",
         b'{"method":"update","params":["vxswitch",{"Interface":{"'
         + iu.encode() + b'":{"old":{},"new":{"mtu_request":15}'
         + upd(good) + b"}}}]}"),
        ("bare word", "bad_json", b'{"method":update}'),
        # framing
        ("nested too deep", "too_deep",
         b'{"method":"update","params":' + b"[" * 200 + b"]" * 200 + b"}"),
        ("not an object", "not_object", b"[1,2,3]"),
        ("close bracket", "not_object", b"{]"),
        ("past 16 MiB", "too_long",
         b'{"method":"update","params":["' + b"x" * huge),
        ("truncated, then EOF", "eof",
         upd(good)[:-7]),
        # more rows than OVSDB_REPLICA_MAX_ROWS in one update
        ("16385 rows", "row_limit", upd({"Controller": {
            uid(rng): {"new": {"target": "tcp:1.1.1.1:%d" % i}}
            for i in range(16385)}})),
    ]
    rng.shuffle(out)
    # one of each counter first: a small run sees every kind
    first = {}
    for k, m in enumerate(out):
        first.setdefault(m[1], k)
    return sorted(out, key=lambda m: (out.index(m) != first[m[1]],
                                      out.index(m)))
