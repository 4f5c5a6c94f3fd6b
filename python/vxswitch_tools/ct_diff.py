# SPDX-License-Identifier: BSD-3-Clause
"""Differential conntrack harness: the same scripted packet sequences
(ct_cases.py) through Debian's OVS 3.1 userspace conntrack and through
vxswitch, with the same OpenFlow rules; each packet's ct_state verdict,
its output bytes and the final dpctl/dump-conntrack are compared.

The rules (case_rules): table 0 is the case's (IP into ct(table=1,...);
a case may bring rules of other tables too, a whole pipeline that
reaches the verdict with resubmit(,1): ct_cases6's neutron_fw6); table 1
has one rule per ct_state with +trk (the 7 other bits each + or -: 128
rules) and one for -trk, matching ip, or ipv6, or both (Case.l3: the
IPv6 cases' rules, IPv4's unchanged). Each writes the state's bits, as OVS
numbers them (new 0x01 est 0x02 rel 0x04 rpl 0x08 inv 0x10 trk 0x20
snat 0x40 dnat 0x80), into the source MAC 02:00:00:00:00:XX and outputs
to port "out": every packet leaves with its verdict and its NATed bytes.
A case's on_new actions (a commit) run first in the rules with +new-inv
(OVS refuses ct(commit) in a rule that matches +inv: "actions are
invalid with specified match"; vxswitch accepts it). Rules vxswitch
refuses (e.g. ct() on an ipv6 rule before it tracked IPv6) are a
difference, recorded with the packets that then meet an empty table;
OVS refusing them is an error (no reference).

Ports, on both sides: a (ofport 1, host A's side), b (2, host B's side),
out (3). One packet at a time, each waited for until it left on "out" or
was counted dropped, so no burst ever holds two packets of a case:
  OVS       dummy ports, `ovs-appctl netdev-dummy/receive PORT HEX`, out
            with options:tx_pcap (tests/integration/ovs_ref/ct/
            make-ovs-ct-ref.py, which writes the references)
  vxswitch  a and b are net_tap ports whose taps sit in a namespace of
            their own (IPv6 off, no address: the kernel sends nothing),
            written from the kernel side with AF_PACKET by a helper in
            that namespace (IPv6 off stops the kernel's own ND/MLD
            frames, not the IPv6 frames written there); out is net_pcap
            with tx_pcap (VxsSide)

An IP fragment (IPv4, or IPv6 with a Fragment header: is_fragment) may
leave nothing and be counted nowhere: the switch holds it until its
datagram is whole (OVS's ipf, both families; its verdict is "held",
told by the fragment store's count: dpctl/ipf-get-status on OVS, the
PMDs' held term on vxswitch); the fragment that completes it brings out
every fragment of the datagram, its verdict then the verdicts of all
("+new+trk +new+trk +new+trk") and its "out" their bytes, a list.

The fragment store's counters a case moved (dpctl/ipf-get-status: OVS's
six v4 counters, accepted, completed, expired, too small, overlapped,
purged; for the IPv6 cases the six v6 ones too, "ipf6") are compared
too.

So are dpctl/dump-conntrack -m (exactly: OVS's userspace datapath prints
id=0,status=0 and the TCP detail), -s and -m -s (each timeout=N by the
default timeout it counts down from, normalise_timeouts: the two sides
dump seconds apart in wall-clock time), and, for a case with
flush-conntrack steps (Case.flushes), each step's success and the dump
after it.

References: tests/integration/ovs_ref/ct/CASE.json, one per case.
"""

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

from . import ct_cases
from .hostnet import netns, sh
from .pcap import read_pcap_raw, write_pcap
from .procs import REPO, wait_for

REF_DIR = REPO / "tests" / "integration" / "ovs_ref" / "ct"
PORTS = ("a", "b", "out")
OUT = "out"
CT_BITS = (("new", 0x01), ("est", 0x02), ("rel", 0x04), ("rpl", 0x08),
           ("inv", 0x10), ("trk", 0x20), ("snat", 0x40), ("dnat", 0x80))
TRK = 0x20
VERDICT_MAC = "02:00:00:00:00:%02x"
VERDICT_OUI = bytes.fromhex("0200000000")
DROP = "drop"           # the verdict of a packet that never left on out
HELD = "held"           # ... of a fragment the switch holds (reassembly)
WAIT_S = 3.0            # for one packet to leave or be counted dropped


# ------------------------------------------------------------ verdicts

def verdict_str(bits):
    """ct_state bits as OVS prints a match on them: "+new+trk" (its
    order: new est rel rpl inv trk snat dnat); "-trk" when untracked."""
    if not bits & TRK:
        return "-trk"
    return "".join("+" + n for n, b in CT_BITS if bits & b)


def verdict_of(frame):
    """The verdict an output frame carries in its source MAC."""
    if frame is None:
        return DROP
    if frame[6:11] != VERDICT_OUI:
        return "?src=%s" % frame[6:12].hex(":")
    return verdict_str(frame[11])


# IPv6 extension headers that may come before a Fragment header (44):
# hop-by-hop, routing, destination options (8-octet units after the
# first 8)
_IPV6_EXT = (0, 43, 60)


def is_fragment(frame):
    """An IPv4 fragment, or an IPv6 packet with a Fragment header (after
    any hop-by-hop, routing or destination options header)? Ethernet, no
    VLAN."""
    if len(frame) >= 34 and frame[12:14] == b"\x08\x00":
        return (int.from_bytes(frame[20:22], "big") & 0x3fff) != 0
    if len(frame) < 54 or frame[12:14] != b"\x86\xdd":
        return False
    nh, off = frame[20], 54
    while nh in _IPV6_EXT and off + 2 <= len(frame):
        nh, off = frame[off], off + 8 + 8 * frame[off + 1]
    return nh == 44


def packet_result(frames, held):
    """(verdict, out) of a packet that brought out frames (a list) or
    none, held or not."""
    if not frames:
        return (HELD if held else DROP), None
    if len(frames) == 1:
        return verdict_of(frames[0]), frames[0].hex()
    return (" ".join(verdict_of(f) for f in frames),
            [f.hex() for f in frames])


IPF_COUNTERS = ("accepted", "completed", "expired", "too small",
                "overlapped", "purged")


def shape(text):
    """Text lines with every number replaced by N: the layout compared
    where the numbers are the whole run's, not the case's."""
    return [re.sub(r"\d+", "N", ln) for ln in text.splitlines()]


def parse_ipf_status(text, v=4):
    """OVS's dpctl/ipf-get-status text -> {counter: N} of the v4 (v=4)
    or v6 (v=6) lines."""
    got = {}
    for c in IPF_COUNTERS:
        m = re.search(r"v%d frags %s: (\d+)" % (v, c), text)
        got[c] = int(m.group(1)) if m else None
    return got


def _match(bits):
    """ct_state=+trk+new-est... for the bits of one state with +trk."""
    return "+trk" + "".join(("+" if bits & b else "-") + n
                            for n, b in CT_BITS if b != TRK)


def verdict_rules(on_new=None, out=OUT, l3=("ip",)):
    """Table 1: 128 rules for the states with +trk, one for -trk; that
    for each L3 match in l3 ("ip", "ipv6")."""
    others = [b for _, b in CT_BITS if b != TRK]
    rules = []
    for nw in l3:
        for combo in range(1 << len(others)):
            bits = TRK | sum(b for i, b in enumerate(others)
                             if combo >> i & 1)
            pre = on_new + "," if on_new and bits & 0x11 == 0x01 else ""
            rules.append("table=1,priority=100,%s,ct_state=%s,actions=%s"
                         "mod_dl_src:%s,output:%s"
                         % (nw, _match(bits), pre, VERDICT_MAC % bits, out))
        rules.append("table=1,priority=100,%s,ct_state=-trk,"
                     "actions=mod_dl_src:%s,"
                     "output:%s" % (nw, VERDICT_MAC % 0, out))
    return rules


def case_rules(case):
    """Every rule of a case, in ovs-ofctl's syntax (both sides load
    exactly these). A case's table0 may hold rules of other tables too
    (a multi-table pipeline, e.g. ct_cases6's Neutron-style rule set),
    never of table 1: it reaches the verdict with resubmit(,1)."""
    return (list(case.table0) + ["table=0,priority=0,actions=drop"] +
            verdict_rules(case.on_new, l3=case.l3))


# ------------------------------------------------------- conntrack dump

# the session's id (after the reply tuple; not an ICMP tuple's id=) and
# its timeout
_DUMP_VOLATILE = re.compile(r"(?<=\)),id=\d+|,timeout=\d+")


def normalise_dump(lines):
    """dpctl/dump-conntrack lines as compared: without the session's id=
    and timeout= (OVS prints them only with -m/-s, which this dump never
    asks for), sorted (the order is the hash table's). Nothing else is
    changed."""
    return sorted(_DUMP_VOLATILE.sub("", ln.strip()) for ln in lines
                  if ln.strip())


# The timeouts a session counts down from (OVS 3.1's defaults,
# ct_dpif_netdev_tp_def; no case sets a timeout policy): tcp_syn_sent,
# tcp_syn_recv, tcp_close 30, tcp_time_wait 45, udp_first/single and
# icmp_first 60, udp_multiple and icmp_reply 30, tcp_fin_wait 900,
# tcp_established 86400.
TIMEOUT_CLASSES = (30, 45, 60, 900, 86400)
# How far a timeout may have counted down when it is dumped: the time
# since the session's last packet, at most a case's run (a few seconds on
# either side), well under the 15 s between two classes.
TIMEOUT_SLACK_S = 10


def timeout_class(n):
    """The class a dumped timeout=N counts down from: the smallest default
    timeout >= N, when N is within TIMEOUT_SLACK_S of it; else None."""
    for c in TIMEOUT_CLASSES:
        if n <= c:
            return c if c - n <= TIMEOUT_SLACK_S else None
    return None


def normalise_timeouts(lines):
    """dump-conntrack -s lines as compared: each ,timeout=N (seconds left,
    rounded down, read at the wall-clock moment of the dump, so OVS's and
    vxswitch's differ by the time their runs took) replaced by
    ,timeout~C, C its class (timeout_class); a timeout in no class is
    kept as ,timeout=N?, which differs from anything the other side
    prints. Sorted; nothing else changed."""
    def cls(m):
        c = timeout_class(int(m.group(1)))
        return ",timeout~%d" % c if c else ",timeout=%s?" % m.group(1)
    return sorted(re.sub(r",timeout=(\d+)", cls, ln.strip())
                  for ln in lines if ln.strip())


# ---------------------------------------------------------- the runner

def run_case(side, case):
    """Runs one case on a side (load_rules, flush, send, dump); returns
    the result as stored in a reference file."""
    # a side that refuses the rules says why (VxsSide; OVS's side raises:
    # no reference is made from rules OVS refuses)
    refused = side.load_rules(case_rules(case))
    side.flush()
    text0 = side.ipf_status()
    ipf0, ipf60 = parse_ipf_status(text0), parse_ipf_status(text0, 6)
    pkts = []
    for i, p in enumerate(case.packets):
        verdict, out = packet_result(*side.send(p.port, p.frame))
        pkts.append({"i": i, "port": p.port, "note": p.note,
                     "in": p.frame.hex(), "verdict": verdict,
                     "out": out})
    res = {"case": case.name, "doc": case.doc,
           "table0": list(case.table0), "on_new": case.on_new,
           "packets": pkts, "dump": normalise_dump(side.dump())}
    if refused:
        res["rules_refused"] = refused
    if tuple(case.l3) != ("ip",):   # only the IPv6 cases have the key
        res["l3"] = list(case.l3)
    text = side.ipf_status()
    ipf = parse_ipf_status(text)
    res["ipf"] = {c: ipf[c] - ipf0[c] for c in IPF_COUNTERS}
    if "ipv6" in case.l3:           # the v6 counters, IPv6 cases only
        ipf6 = parse_ipf_status(text, 6)
        res["ipf6"] = {c: None if ipf6[c] is None or ipf60[c] is None
                       else ipf6[c] - ipf60[c] for c in IPF_COUNTERS}
    # the commands' text: ct-stats-show of the case's sessions exactly,
    # its -m form (vxswitch adds its own counters after OVS's lines) and
    # ipf-get-status by layout (its counters run over the whole run)
    res["stats"] = side.ct_stats().splitlines()
    res["stats_m"] = side.ct_stats("-m").splitlines()
    res["ipf_text"] = shape(text)
    # dump-conntrack's options: -m exactly (id=0, status=0, both TCP
    # states, window scales, flags), -s and -m -s with their timeouts by
    # class (normalise_timeouts; the raw lines kept for reading)
    res["dump_m"] = sorted(ln.strip() for ln in side.dump("-m")
                           if ln.strip())
    for key, opts in (("dump_s", ("-s",)), ("dump_ms", ("-m", "-s"))):
        raw = side.dump(*opts)
        res[key] = normalise_timeouts(raw)
        res[key + "_raw"] = sorted(ln.strip() for ln in raw if ln.strip())
    # then the case's flush-conntrack steps, each: did it succeed, what
    # is left
    if case.flushes:
        res["flushes"] = []
        for args in case.flushes:
            ok = side.flush_args(args)
            res["flushes"].append({"args": list(args), "ok": ok,
                                   "dump": normalise_dump(side.dump())})
    return res


def compare(ref, got):
    """Differences between a reference (OVS) and a result (vxswitch):
    ({i: (ovs verdict, vxs verdict)} of the packets whose verdict
    differs, [texts of every difference])."""
    verdicts, texts = {}, []
    if (ref["table0"], ref.get("on_new"), ref.get("l3")) != \
            (got["table0"], got.get("on_new"), got.get("l3")) or \
            [p["in"] for p in ref["packets"]] != \
            [p["in"] for p in got["packets"]]:
        return None, ["the reference was made from other rules or packets "
                      "than ct_cases.py has now: regenerate it "
                      "(tests/integration/ovs_ref/ct/make-ovs-ct-ref.py)"]
    if got.get("rules_refused"):
        texts.append("vxswitch refused the case's rules (OVS loads them): "
                     "%s" % got["rules_refused"])
    for r, g in zip(ref["packets"], got["packets"]):
        if r["verdict"] != g["verdict"]:
            verdicts[r["i"]] = (r["verdict"], g["verdict"])
            texts.append("packet %d (%s): verdict OVS %s, vxswitch %s"
                         % (r["i"], r["note"], r["verdict"], g["verdict"]))
        elif r["out"] != g["out"]:
            texts.append("packet %d (%s): output bytes differ\n  OVS      "
                         "%s\n  vxswitch %s" % (r["i"], r["note"], r["out"],
                                                g["out"]))
    only_ref = [ln for ln in ref["dump"] if ln not in got["dump"]]
    only_got = [ln for ln in got["dump"] if ln not in ref["dump"]]
    if "ipf" in ref and ref["ipf"] != got.get("ipf"):
        texts.append("ipf-get-status counters: OVS %s, vxswitch %s"
                     % (ref["ipf"], got.get("ipf")))
    if "ipf6" in ref and ref["ipf6"] != got.get("ipf6"):
        texts.append("ipf-get-status v6 counters: OVS %s, vxswitch %s"
                     % (ref["ipf6"], got.get("ipf6")))
    if "stats" in ref and ref["stats"] != got.get("stats"):
        texts.append("ct-stats-show: OVS %s, vxswitch %s"
                     % (ref["stats"], got.get("stats")))
    if "stats_m" in ref and \
            ref["stats_m"] != got.get("stats_m", [])[:len(ref["stats_m"])]:
        texts.append("ct-stats-show -m: OVS %s, vxswitch %s"
                     % (ref["stats_m"], got.get("stats_m")))
    if "ipf_text" in ref and ref["ipf_text"] != got.get("ipf_text"):
        texts.append("ipf-get-status layout: OVS %s, vxswitch %s"
                     % (ref["ipf_text"], got.get("ipf_text")))
    for ln in only_ref:
        texts.append("dump: only OVS has     %s" % ln)
    for ln in only_got:
        texts.append("dump: only vxswitch has %s" % ln)
    for key, what in (("dump_m", "dump -m"), ("dump_s", "dump -s"),
                      ("dump_ms", "dump -m -s")):
        if key in ref and ref[key] != got.get(key):
            texts.append("%s: OVS %s, vxswitch %s (raw: OVS %s, vxswitch "
                         "%s)" % (what, ref[key], got.get(key),
                                  ref.get(key + "_raw"),
                                  got.get(key + "_raw")))
    if ref.get("flushes") != got.get("flushes"):
        for i, (r, g) in enumerate(zip(ref.get("flushes") or [],
                                       got.get("flushes") or [])):
            if r != g:
                texts.append("flush-conntrack step %d %s: OVS %s %s, "
                             "vxswitch %s %s" % (
                                 i, r["args"],
                                 "ok" if r["ok"] else "failed", r["dump"],
                                 "ok" if g["ok"] else "failed", g["dump"]))
        if len(ref.get("flushes") or []) != len(got.get("flushes") or []):
            texts.append("flush-conntrack steps: OVS %d, vxswitch %d" % (
                len(ref.get("flushes") or []),
                len(got.get("flushes") or [])))
    return verdicts, texts


# --------------------------------------------------------- references

def ref_path(name):
    return REF_DIR / ("%s.json" % name)


def load_ref(name):
    return json.loads(ref_path(name).read_text())


def write_ref(result, version, outdir=REF_DIR):
    r = dict(result)
    r["ovs_version"] = version
    r["generated_by"] = "tests/integration/ovs_ref/ct/make-ovs-ct-ref.py"
    p = Path(outdir) / ("%s.json" % result["case"])
    p.write_text(json.dumps(r, indent=1) + "\n")
    return p


# ------------------------------------------------------ vxswitch side

# The injector, run in the taps' namespace: one AF_PACKET socket per tap
# (protocol 0: it receives nothing), "PORT HEX" lines in, "ok" out.
_INJECTOR = r"""
import socket, sys
socks = {}
for arg in sys.argv[1:]:
    port, dev = arg.split("=")
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    s.bind((dev, 0))
    socks[port] = s
print("ready", flush=True)
for line in sys.stdin:
    port, frame = line.split()
    socks[port].send(bytes.fromhex(frame))
    print("ok", flush=True)
"""


def vxs_topology(taps, empty_pcap, out_pcap):
    return {"eal": {"memory-mb": 256},
            "ports": [{"name": "a", "type": "dpdk",
                       "devargs": "net_tap0,iface=%s" % taps["a"]},
                      {"name": "b", "type": "dpdk",
                       "devargs": "net_tap1,iface=%s" % taps["b"]},
                      {"name": OUT, "type": "dpdk",
                       "devargs": "net_pcap0,rx_pcap=%s,tx_pcap=%s"
                                  % (empty_pcap, out_pcap)}],
            "flows": ["priority=0,actions=drop"]}


class VxsSide:
    """vxswitch as a side of the harness (see the module's docstring).

        with VxsSide.started(make_switch, workdir) as side:
            result = run_case(side, case)
    make_switch(topology) -> a started vxswitch_tools.switch.Switch."""

    name = "vxswitch"

    def __init__(self, sw, ns, out_pcap, injector):
        self.sw, self.ns, self.out_pcap = sw, ns, out_pcap
        self.injector = injector
        self.n_out = 0

    @classmethod
    @contextlib.contextmanager
    def started(cls, make_switch, workdir, tag=None):
        workdir = Path(workdir)
        tag = tag or "%d" % (os.getpid() % 100000)
        taps = {"a": "ctda%s" % tag, "b": "ctdb%s" % tag}
        empty = write_pcap(workdir / "ct-diff-empty.pcap", [])
        out_pcap = workdir / "ct-diff-out.pcap"
        sw = make_switch(vxs_topology(taps, empty, out_pcap))
        with netns("ctd%s" % tag) as ns:
            # moved in, the taps take the namespace's defaults: IPv6 off
            for k in ("all", "default"):
                sh(["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % k],
                   ns=ns)
            for dev in taps.values():
                sh(["ip", "link", "set", dev, "netns", ns])
                sh(["ip", "link", "set", dev, "up"], ns=ns)
            inj = subprocess.Popen(
                ["ip", "netns", "exec", ns, sys.executable, "-u", "-c",
                 _INJECTOR] + ["%s=%s" % kv for kv in taps.items()],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                if inj.stdout.readline().strip() != "ready":
                    raise AssertionError("the AF_PACKET injector did not "
                                         "start in %s" % ns)
                side = cls(sw, ns, out_pcap, inj)
                side._wait_quiet()
                yield side
            finally:
                inj.stdin.close()
                try:
                    inj.wait(5)
                except subprocess.TimeoutExpired:
                    inj.kill()
                    inj.wait()

    def _counters(self):
        """(received on a and b, sent on out, dropped or consumed,
        held for reassembly)"""
        show = self.sw.ctl("show", json=True)
        ports = {p["name"]: p for p in show["ports"]}
        acc = show["accounting"]
        return (sum(ports[p]["rx_packets"] for p in ("a", "b")),
                ports[OUT]["tx_packets"], acc["dropped"] + acc["consumed"],
                acc.get("held", 0))

    def _wait_quiet(self, quiet_s=0.5, timeout=10.0):
        """Until nothing arrives on the taps for quiet_s (what the kernel
        sent while they were still in the root namespace)."""
        last, since = self._counters(), time.monotonic()
        deadline = since + timeout
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = self._counters()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet_s:
                self.n_out = len(read_pcap_raw(self.out_pcap)) \
                    if self.out_pcap.exists() else 0
                return
        raise AssertionError("the taps never went quiet: %s" % (last,))

    def load_rules(self, rules):
        """The case's rules, instead of the last case's; None, or the
        error where vxswitch refused them (its table then stays empty:
        run_case records the refusal, a difference from OVS, and the
        packets go through the empty table)."""
        self.sw.ctl("del-flows")
        self.sw.ctl("add-flows", "-", input="\n".join(rules) + "\n",
                    check=False)
        r = self.sw.last_ctl
        self.sw.ctl("dpctl/del-flows")
        if r.returncode:
            return (r.stderr.strip() or r.stdout.strip() or
                    "add-flows: exit %d" % r.returncode)
        return None

    def flush(self):
        self.sw.ctl("dpctl/flush-conntrack")

    def send(self, port, frame):
        """One frame into port a or b; (the frames it brought out on out,
        held): none when it was dropped (counted dropped or consumed, or
        nothing in WAIT_S) or held (a fragment the store keeps); several
        when it completed a fragmented datagram."""
        rx0, tx0, dr0, held0 = self._counters()
        self.injector.stdin.write("%s %s\n" % (port, frame.hex()))
        self.injector.stdin.flush()
        if self.injector.stdout.readline().strip() != "ok":
            raise AssertionError("the injector died")
        state = {}

        def done():
            rx, tx, dr, held = self._counters()
            state.update(rx=rx, tx=tx, dr=dr, held=held)
            return rx > rx0 and (tx > tx0 or dr > dr0 or held > held0)
        try:
            wait_for(done, WAIT_S, 0.005)
        except TimeoutError:
            if state.get("rx", rx0) <= rx0:
                raise AssertionError("vxswitch never received the frame "
                                     "on %s" % port) from None
        if state["tx"] > tx0 + 1:
            # a datagram's fragments: until the count stands still
            last = None
            while last != state["tx"]:
                last = state["tx"]
                time.sleep(0.05)
                done()
        if state["rx"] != rx0 + 1 or (state["tx"] > tx0 + 1 and
                                      not is_fragment(frame)):
            raise AssertionError("more than one frame moved: rx %d->%d tx "
                                 "%d->%d" % (rx0, state["rx"], tx0,
                                             state["tx"]))
        n_new = state["tx"] - tx0
        if not n_new:
            return [], state["held"] > held0
        frames = []
        wait_for(lambda: frames.__setitem__(
            slice(None), read_pcap_raw(self.out_pcap)) or
            len(frames) >= self.n_out + n_new, 2.0, 0.01,
            what="the frames in %s" % self.out_pcap)
        self.n_out += n_new
        return frames[self.n_out - n_new:self.n_out], False

    def dump(self, *opts):
        return self.sw.ctl("dpctl/dump-conntrack", *opts).splitlines()

    def flush_args(self, args):
        """dpctl/flush-conntrack ARGS...; whether it succeeded. An empty
        argument (OVS's way to give a reply tuple only) cannot travel on
        vxswitch-ctl's socket: those go on the OVS-style unixctl one, as
        ovs-appctl sends them."""
        if "" in args:
            return self._unixctl("dpctl/flush-conntrack", list(args))
        self.sw.ctl("dpctl/flush-conntrack", *args, check=False)
        return self.sw.last_ctl.returncode == 0

    def _unixctl(self, method, params):
        """One JSON-RPC request on the daemon's unixctl socket
        (vxswitch.PID.ctl beside its control socket); True if it
        answered with a result, not an error."""
        path = self.sw.ctl_socket.parent / ("vxswitch.%d.ctl"
                                            % self.sw.proc.pid)
        req = json.dumps({"id": 1, "method": method, "params": params})
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(10)
            s.connect(str(path))
            s.sendall(req.encode())
            buf, dec = b"", json.JSONDecoder()
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    raise AssertionError("unixctl closed: %r" % buf)
                buf += chunk
                try:
                    answer, _ = dec.raw_decode(buf.decode())
                    break
                except ValueError:
                    continue
        return answer.get("error") is None

    def ipf_status(self):
        return self.sw.ctl("dpctl/ipf-get-status")

    def ct_stats(self, *opts):
        return self.sw.ctl("dpctl/ct-stats-show", *opts)


def run_all(side, cases=None):
    return {c.name: run_case(side, c) for c in (cases or ct_cases.CASES)}
