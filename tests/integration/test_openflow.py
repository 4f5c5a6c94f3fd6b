# SPDX-License-Identifier: BSD-3-Clause
"""The OpenFlow channel (doc/design-control-plane.md, step 6): Debian's
own ovs-ofctl, as plain as an operator types it (`ovs-ofctl -O
OpenFlow13 show br-int`, found through OVS_RUNDIR/br-int.mgmt), against
vxswitch, compared with what the same commands print against Debian's
ovs-vswitchd (tests/integration/ovs_ref/make-ovs-ref-ofchan.sh recorded
ofchan/reference.txt and ofchan/raw.txt); hand-made and hostile bytes
(python/vxswitch_tools/of_probe.py) likewise; a client that never reads,
the connection limit; OVSDB mode's bridge from ovs-vsctl."""

import os
import re
import socket
import struct
import subprocess
import time
from pathlib import Path

import pytest

from vxswitch_tools import harness as vxlib
from vxswitch_tools import of_probe

REF = Path(__file__).parent / "ovs_ref" / "ofchan"
VERSIONS = ("OpenFlow10", "OpenFlow13", "OpenFlow15")
MAX_CONNS = 64          # of_chan.h's OF_CHAN_MAX_CONNS

# What differs by design everywhere, masked in both texts (the rest of
# each line must be equal), each with its reason.
MASKS = [
    (r"dpid:[0-9a-f]{16}", "dpid:<dpid>",
     "datapath_id: OVS's is its local tap's random MAC, vxswitch's the "
     "MAC it derives from the bridge's name (the one it writes to OVSDB)"),
    (r"addr:[0-9a-f:]{17}", "addr:<mac>",
     "MACs: OVS's dummy ports have aa:55:aa:55:00:0N, vxswitch's null "
     "ports none (zeros), the local ports differ as the dpid"),
    (r"(?m)^(Manufacturer|Hardware|Software): .*$", r"\1: <desc>",
     "desc: OVS says Nicira, Inc. / Open vSwitch / 3.1.0, vxswitch says "
     "who it is"),
    (r"time=\d+\.\d ms", "time=<t> ms", "ping's round-trip times"),
]

# step -> why vxswitch answers otherwise (the step must differ, and one
# that has become equal fails the test, so the list stays true)
FRAGS = ("fragment handling: vxswitch does \"normal\" only; OVS's "
         "userspace datapath also drops fragments (\"drop\"). vxswitch "
         "keeps normal, as OVS keeps its mode for one it lacks "
         "(\"reassemble\"), so ovs-ofctl says the switch does not "
         "support it")
DIFFERENT = {}
for _v in VERSIONS:
    DIFFERENT["-O %s set-frags br-int drop" % _v] = FRAGS
    # the get-frags after drop and after reassemble: OVS "drop"
    DIFFERENT["-O %s get-frags br-int #2" % _v] = FRAGS
    DIFFERENT["-O %s get-frags br-int #3" % _v] = FRAGS
for _v in VERSIONS[1:]:   # 1.0 has no LIVE bit: equal there
    DIFFERENT["-O %s monitor br-int 65535 (add-port p3, del-port p3)"
              % _v] = ("liveness: OVS adds a port without LIVE and sets "
                       "it in a MOD message a turn later; vxswitch knows "
                       "a null port is live when it adds it (the ADD and "
                       "DEL are compared below)")

# raw probes: the hello vxswitch sends, and cases answered otherwise
RAW_HELLO = (r"(?m)^v=0x06 type=0 xid=0x[0-9a-f]+ body=[0-9a-f]*$",
             "v=0x06 type=0 <hello>",
             "hello: OVS speaks 1.0 to 1.5, contiguous, so its hello has "
             "no version bitmap; vxswitch's 1.0, 1.3-1.5 need one. OVS "
             "numbers its xids, vxswitch sends 0")
RAW_DIFFERENT = {
    "hello-only-11": "vxswitch does not speak 1.1 (nor 1.2): no common "
    "version, OFPHFC_INCOMPATIBLE with OVS's text, closed",
    "hello-only-12-no-bitmap-then-more": "1.2 likewise",
    "hello-only-16": "OVS's error says \"We support version 0x06 and "
    "earlier\", vxswitch's \"versions 0x01, 0x04, 0x05, 0x06\"; the "
    "rest is equal (checked below)",
    "set-config-then-get-13": FRAGS,
}


def mask(text):
    for pat, rep, _why in MASKS:
        text = re.sub(pat, rep, text)
    return text


def split_steps(text):
    """'## name' sections -> {name: body}; a name repeated is "name #2",
    "name #3" ..."""
    steps, name = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            name, n = line[3:], 1
            while name in steps:
                n += 1
                name = "%s #%d" % (line[3:], n)
            steps[name] = []
        elif name is not None:
            steps[name].append(line)
    return {k: "\n".join(v) + "\n" for k, v in steps.items()}


def ofctl(sw, version, *args, timeout=10):
    """Plain ovs-ofctl with the switch's run directory as OVS_RUNDIR, so
    that "br-int" is <rundir>/br-int.mgmt as for ovs-vswitchd."""
    return subprocess.run(["ovs-ofctl", "-O", version] + list(args),
                          capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, OVS_RUNDIR=str(sw.rundir)))


def null_topology():
    return {"eal": {"memory-mb": 256},
            "ports": [{"name": "p1", "type": "null"},
                      {"name": "p2", "type": "null"}]}


@pytest.fixture
def switch(make_switch):
    sw = make_switch(null_topology())
    vxlib.wait_for(lambda: (sw.rundir / "br-int.mgmt").exists(), 10, 0.05,
                   "br-int.mgmt")
    return sw


def show(sw):
    return sw.ctl("openflow/show", json=True)


def run_reference_steps(sw):
    """reference.txt's steps against vxswitch, in the same text."""
    out = []

    def step(v, *args):
        out.append("## -O %s %s" % (v, " ".join(args)))
        r = ofctl(sw, v, *args)
        out.append((r.stdout + r.stderr).rstrip("\n"))
        out.append("exit %d" % r.returncode)

    for v in VERSIONS:
        step(v, "show", "br-int")
        step(v, "dump-ports-desc", "br-int")
        step(v, "dump-desc", "br-int")
        step(v, "get-frags", "br-int")
        step(v, "set-frags", "br-int", "drop")
        step(v, "get-frags", "br-int")
        step(v, "set-frags", "br-int", "reassemble")
        step(v, "get-frags", "br-int")
        step(v, "set-frags", "br-int", "normal")
        step(v, "probe", "br-int")
        step(v, "ping", "br-int", "64")
        out.append("## -O %s monitor br-int 65535 (add-port p3, del-port "
                   "p3)" % v)
        mon = subprocess.Popen(
            ["timeout", "4", "stdbuf", "-oL", "ovs-ofctl", "-O", v,
             "monitor", "br-int", "65535"], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True,
            env=dict(os.environ, OVS_RUNDIR=str(sw.rundir)))
        time.sleep(1)
        sw.ctl("add-port", "p3", "type=null")
        time.sleep(0.5)
        sw.ctl("del-port", "p3")
        text, _ = mon.communicate(timeout=10)
        out.append("\n".join(line for line in text.splitlines()
                             if "fatal_signal" not in line))
    return "\n".join(line for line in out if line) + "\n"


def port_status_events(text):
    """(reason, port) of each port status message ovs-ofctl printed."""
    return re.findall(r"OFPT_PORT_STATUS.*: (ADD|DEL|MOD): (\S+):", text)


def test_ofctl_against_ovs(switch):
    ref = split_steps(mask((REF / "reference.txt").read_text()))
    got = split_steps(mask(run_reference_steps(switch)))
    assert list(got) == list(ref)
    problems = []
    for name in ref:
        if name in DIFFERENT:
            if got[name] == ref[name]:
                problems.append("%s: listed as different (%s) but equal"
                                % (name, DIFFERENT[name]))
            continue
        if got[name] != ref[name]:
            problems.append("%s:\n--- ovs-vswitchd\n%s--- vxswitch\n%s"
                            % (name, ref[name], got[name]))
    assert not problems, "\n".join(problems)
    # what differs in the monitor steps is only OVS's liveness MOD
    for v in VERSIONS:
        name = "-O %s monitor br-int 65535 (add-port p3, del-port p3)" % v
        want = [e for e in port_status_events(ref[name]) if e[0] != "MOD"]
        assert want == [("ADD", "3(p3)"), ("DEL", "3(p3)")], ref[name]
        assert port_status_events(got[name]) == want, got[name]
    # the dpid ovs-ofctl shows is the one the channel says is its
    # bridge's (OVSDB mode checks it against the Bridge row)
    r = ofctl(switch, "OpenFlow13", "show", "br-int")
    assert re.search(r"dpid:0000[0-9a-f]{12}\n", r.stdout), r.stdout
    # every message ended in exactly one counter
    assert_accounted(show(switch))


def assert_accounted(js):
    n = js["counters"]
    handled = sum(t["handled"] for t in js["messages"])
    refused = sum(t["refused"] for t in js["messages"])
    assert n["msgs_in"] == handled + refused + n["not_hello_first"] + \
        n["bad_version"] + n["incompatible"], js


def test_raw_against_ovs(switch):
    """Hand-made bytes, hostile ones among them: what comes back, and
    whether the connection is closed, as from ovs-vswitchd."""
    ref = split_steps((REF / "raw.txt").read_text())
    path = str(switch.rundir / "br-int.mgmt")
    problems = []
    for name, chunks in of_probe.CASES.items():
        got = of_probe.format_case(name, *of_probe.run_case(path, chunks))
        got = split_steps(re.sub(RAW_HELLO[0], RAW_HELLO[1], got))[name]
        want = re.sub(RAW_HELLO[0], RAW_HELLO[1], ref[name])
        if name in RAW_DIFFERENT:
            if got == want:
                problems.append("%s: listed as different but equal" % name)
            continue
        if got != want:
            problems.append("%s:\n--- ovs-vswitchd\n%s--- vxswitch\n%s"
                            % (name, want, got))
    assert not problems, "\n".join(problems)
    # the cases vxswitch answers otherwise, as it says it does
    msgs, closed = of_probe.run_case(path, of_probe.CASES["hello-only-11"])
    assert closed and msgs[1][:2] == (2, 1), msgs
    assert msgs[1][3][:4] == b"\x00\x00\x00\x00"   # HELLO_FAILED/INCOMPAT.
    # OVS's words (vconn.c's vcs_send_error, version_bitmap_to_string)
    assert msgs[1][3][4:] == (b"We support versions 0x01, 0x04, 0x05, "
                              b"0x06, you support version 0x02, no common "
                              b"versions.")
    # OFPHFC_INCOMPATIBLE for a version neither speaks: OVS's message,
    # version and text but for the list of versions supported
    lines = ref["hello-only-16"].splitlines()
    ovs_err = bytes.fromhex(lines[1].split("body=")[1])
    msgs, closed = of_probe.run_case(path, of_probe.CASES["hello-only-16"])
    assert closed and lines[2] == "closed"
    assert msgs[1][:3] == (1, 1, 0) and lines[1].startswith(
        "v=0x01 type=1 xid=0x0 "), (msgs, lines)
    assert ovs_err.startswith(b"\x00\x00\x00\x00We support version "
                              b"0x06 and earlier, ")
    assert msgs[1][3] == b"\x00\x00\x00\x00We support versions 0x01, " \
        b"0x04, 0x05, 0x06, " + ovs_err.split(b"earlier, ")[1]
    js = show(switch)
    n = js["counters"]
    assert n["bad_length"] == 2 and n["not_hello_first"] == 1, n
    assert n["incompatible"] == 5 and n["bad_version"] == 3, n
    assert n["frag_unsupported"] == 1, n
    assert_accounted(js)
    # the switch still answers
    assert ofctl(switch, "OpenFlow13", "probe", "br-int").returncode == 0


def hello13():
    return of_probe.hello(4, 0x10)


def recv_some(s, n, timeout=5.0):
    s.settimeout(timeout)
    buf = b""
    while len(buf) < n:
        d = s.recv(n - len(buf))
        if not d:
            break
        buf += d
    return buf


def test_client_that_never_reads(switch):
    """One client floods echo requests of 60 KiB and reads nothing: it is
    dropped once its replies pass the limit, while another is answered
    all along, and the switch's other interfaces too."""
    path = str(switch.rundir / "br-int.mgmt")
    hog = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hog.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    hog.connect(path)
    hog.sendall(hello13())
    body = b"x" * 60000
    echo = of_probe.msg(4, of_probe.OFPT_ECHO_REQUEST, 7, body)
    hog.settimeout(0.2)
    sent = 0
    t0 = time.monotonic()
    dropped = False
    while time.monotonic() - t0 < 20:
        try:
            hog.sendall(echo)
            sent += 1
        except (socket.timeout, BlockingIOError):
            pass
        except (BrokenPipeError, ConnectionResetError):
            dropped = True
            break
        if sent % 8 == 0:
            r = ofctl(switch, "OpenFlow13", "probe", "br-int", timeout=5)
            assert r.returncode == 0, r.stderr
            if show(switch)["counters"]["tx_overflow"]:
                dropped = True
                break
    hog.close()
    assert dropped, "the hog was never dropped (%d echoes sent)" % sent
    vxlib.wait_for(lambda: show(switch)["counters"]["tx_overflow"] == 1,
                   5, 0.1, "tx_overflow counted")
    assert ofctl(switch, "OpenFlow15", "show", "br-int").returncode == 0
    assert "p1" in switch.ctl("show")
    assert_accounted(show(switch))


def test_connection_limit(switch):
    path = str(switch.rundir / "br-int.mgmt")
    conns = []
    for _ in range(MAX_CONNS):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(hello13())
        assert recv_some(s, 16)[:2] == b"\x06\x00"   # our hello
        conns.append(s)
    extra = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    extra.connect(path)       # accepted by the kernel, closed by vxswitch
    assert recv_some(extra, 16) == b""
    extra.close()
    # our hello goes out at accept: the client's may still be unread
    js = vxlib.wait_for(lambda: (lambda j: j if all(
        c["version"] == "OpenFlow13" for c in j["connections"]) else None)(
            show(switch)), 5, 0.05, "every hello negotiated")
    assert js["counters"]["refused_limit"] == 1, js["counters"]
    assert len(js["connections"]) == MAX_CONNS
    text = switch.ctl("openflow/show")
    assert "connections: %d (at most %d" % (MAX_CONNS, MAX_CONNS) in text
    assert "refused_limit: 1" in text
    r = ofctl(switch, "OpenFlow13", "probe", "br-int")
    assert r.returncode != 0          # full: refused too
    for s in conns:
        s.close()
    vxlib.wait_for(lambda: not show(switch)["connections"], 5, 0.05,
                   "connections closed")
    assert ofctl(switch, "OpenFlow13", "probe", "br-int").returncode == 0


def test_socket_removed_at_exit(make_switch):
    sw = make_switch(null_topology())
    sock = sw.rundir / "br-int.mgmt"
    vxlib.wait_for(sock.exists, 10, 0.05, "br-int.mgmt")
    assert sw.stop() == 0
    assert not sock.exists()


# ---- OVSDB mode: the bridge ovs-vsctl makes ----

def vsctl(srv, *args):
    r = subprocess.run(["ovs-vsctl", "--db=unix:%s" % srv.sock,
                        "--timeout=10"] + list(args), capture_output=True,
                       text=True, env=srv.env, timeout=20)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_ovsdb_bridge(ovsdb, make_switch, one_port_topology):
    sw = make_switch(one_port_topology,
                     args=["--ovsdb", "unix:%s" % ovsdb.sock],
                     env=dict(os.environ, OVS_RUNDIR=str(ovsdb.dir)))
    sw.rundir = ovsdb.dir       # where ovs-ofctl looks (OVS_RUNDIR)
    sock = ovsdb.dir / "br-int.mgmt"
    vxlib.wait_for(lambda: "monitor: current" in sw.ctl("ovsdb/show"), 10,
                   0.05, "the replica")
    assert show(sw)["bridge"] is None and not sock.exists()
    vsctl(ovsdb, "add-br", "br-int", "--", "set", "bridge", "br-int",
          "datapath_type=netdev")
    vxlib.wait_for(sock.exists, 10, 0.05, "br-int.mgmt")
    dpid = vsctl(ovsdb, "get", "Bridge", "br-int", "datapath_id")
    r = ofctl(sw, "OpenFlow13", "show", "br-int")
    assert r.returncode == 0, r.stderr
    assert "dpid:%s" % dpid.strip('"') in r.stdout, (dpid, r.stdout)
    assert re.search(r"LOCAL\(br-int\)", r.stdout)
    # a monitoring connection (miss_send_len set) sees ports come and go
    mon = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mon.connect(str(sock))
    mon.sendall(hello13() + of_probe.msg(4, 9, 2, struct.pack("!HH", 0,
                                                              65535)))
    assert recv_some(mon, 16)[:2] == b"\x06\x00"
    time.sleep(0.3)
    vsctl(ovsdb, "add-port", "br-int", "vm1", "--", "set", "Interface",
          "vm1", "type=dpdkvhostuser")
    status = recv_some(mon, 8 + 8 + 64)
    assert status[1] == 12 and status[8] == 0, status.hex()   # ADD
    assert status[32:35] == b"vm1", status.hex()
    assert struct.unpack("!I", status[16:20])[0] == \
        int(vsctl(ovsdb, "get", "Interface", "vm1", "ofport"))
    # no guest: the link is down, as link_state says
    assert struct.unpack("!I", status[52:56])[0] == 1
    vsctl(ovsdb, "del-port", "br-int", "vm1")
    status = recv_some(mon, 8 + 8 + 64)
    assert status[1] == 12 and status[8] == 1, status.hex()   # DELETE
    mon.close()
    vsctl(ovsdb, "del-br", "br-int")
    vxlib.wait_for(lambda: not sock.exists(), 10, 0.05,
                   "br-int.mgmt removed")
    assert show(sw)["bridge"] is None


def mutants(rng, n):
    """Byte strings made from of_probe's cases: a byte flipped, a length
    rewritten, cut short, doubled, or random bytes after a good hello."""
    base = [b"".join(c) for c in of_probe.CASES.values()]
    for _ in range(n):
        b = bytearray(rng.choice(base))
        op = rng.randrange(5)
        if op == 0 and b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif op == 1 and len(b) > 12:
            at = 8 * rng.randrange(1, max(2, len(b) // 8))
            at = min(at, len(b) - 4)
            struct.pack_into("!H", b, at + 2, rng.choice(
                [0, 7, 8, 9, 15, 16, 65535, rng.randrange(65536)]))
        elif op == 2 and b:
            b = b[:rng.randrange(len(b))]
        elif op == 3:
            b = b + b
        else:
            b = of_probe.hello(rng.choice([1, 4, 5, 6])) + bytes(
                rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        yield bytes(b)


def test_mutants(switch):
    """300 mutated inputs, each on its own connection: whatever comes back
    is well framed, the switch stays up and answers others, and every
    message it read is in one counter."""
    import random
    rng = random.Random(26)
    path = str(switch.rundir / "br-int.mgmt")
    for i, data in enumerate(mutants(rng, 300)):
        msgs, _closed = of_probe.run_case(path, [data], wait=0.05)
        for v, t, _x, _body in msgs:
            # an echo reply in the request's version, whatever it was,
            # as OVS (raw.txt's echo-unknown-version)
            assert (v in (1, 2, 3, 4, 5, 6) or t == 3) and t in (
                0, 1, 2, 3, 6, 8, 12, 17, 19, 21, 25), (i, data.hex(), msgs)
        if i % 50 == 0:
            assert ofctl(switch, "OpenFlow13", "probe",
                         "br-int").returncode == 0
    vxlib.wait_for(lambda: not show(switch)["connections"], 5, 0.05,
                   "connections closed")
    js = show(switch)
    assert js["counters"]["accepted"] >= 300
    assert_accounted(js)
    assert "p1" in switch.ctl("show")
    assert ofctl(switch, "OpenFlow15", "show", "br-int").returncode == 0


def test_socket_in_use(make_switch, rundir):
    """A br-int.mgmt a live process listens on (a real ovs-vswitchd) is
    left alone, said so and logged once; once it is gone the switch takes
    the name (it tries every 5 s)."""
    other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    other.bind(str(rundir / "br-int.mgmt"))
    other.listen(1)
    sw = make_switch(null_topology())
    js = show(sw)
    assert js["socket"] is None and "in use by another process" in \
        js["socket_error"], js
    assert "socket: none: " in sw.ctl("openflow/show")
    other.close()             # its file stays, with no one listening
    vxlib.wait_for(lambda: show(sw)["socket"], 10, 0.1, "the socket")
    assert ofctl(sw, "OpenFlow13", "probe", "br-int").returncode == 0
    assert sw.log_path.read_text().count("no management socket") == 1
