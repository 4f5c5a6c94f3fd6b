# SPDX-License-Identifier: BSD-3-Clause
"""perf/e2e-bench.py --sg: the full loop with a security group on every VM
port, no group vs sg() vs ct() recirculation in vxswitch, and OVS-DPDK with
the same ct() rules, in one run (issue 12).

The policy (vxswitch_tools/sg_policy.py): egress allowed, ingress allowed
for UDP to port 5001 (gen-traffic.py's flows) and for established
connections, the rest dropped; one conntrack zone per VM port. Modes:
none (port security only), sg (the sg() action), ct (Neutron-style
ct(table=)/ct_state/ct(commit)).

What makes the sessions real: the VMs run testpmd's 5tswap (MACs, IPs and
UDP ports swapped), so a VM's answer is the reply direction of the
connection the NIC's packet opened (+est+rpl), not a second copy of it.

--proto udp,tcp measures each protocol in turn (a start of switch and VMs
each, on the same rules: the group allows every listed protocol in to
5001): with tcp the NIC's frames are gen-traffic.py --proto tcp,
ACK+PSH data segments with seq = ack constant per flow, which a tracker
that picks up mid-stream (OVS's, and vxswitch's that follows it) takes as
a new session of an established connection; 5tswap's answer (same
seq/ack) is in window in the reply direction, the looped replays are
in-window retransmissions, so every packet after the first of a flow is
+est. The probes are then TCP segments to 5002.

What shows the group is applied (checked in every window, and a window
that fails is marked FAIL in the table, kept out of the ratios):
- the NIC pcap carries one denied probe every --probe-every packets (UDP
  to port 5002 of VM j, j round robin): the policy's drops in the window
  (vxswitch: rule_drop + sg_deny + sg_invalid + no_rule + recirc_limit +
  resubmit_limit; OVS: the packets of megaflows whose action is drop)
  must equal the probes the NIC received (its rx times probes/pcap
  length, within 2 % + 64), and be 0 with no group: the group drops all
  the denied traffic and nothing of the allowed;
- sessions (dpctl/ct-get-nconns) = the microflow count with a group, 0
  without (probes never create one);
- ct mode: megaflows matching ct_state +est+rpl carry packets (the VMs'
  answers are tracked as replies of established sessions);
- no packet tracked +inv: vxswitch's sg_invalid drops in the window plus
  the packets of megaflows matching ct_state +inv since the mode's rules
  were loaded (both switches) must be 0;
- before the window no session of the probe port may be left from the
  previous mode (an answer of a probe that passed with no group,
  committed as the VM's egress): if there is one, the sessions are
  flushed once more and the warm-up repeated ('reflushed' column);
- TCP with a group: every session in dpctl/dump-conntrack is
  protoinfo=(state=ESTABLISHED) (both peers past SYN_SENT: the VM's
  answers were in window in the reply direction).

Per (switch, N, M) everything starts once; then --reps rounds, each
running every mode once (rules replaced with del-flows/add-flows, sessions
and megaflows flushed, --warmup, check, one window; the first mode of a
round rotates): the modes of a round are seconds apart, so a ratio of two
modes of one switch is taken per round and the rounds' median reported.
"""

import contextlib
import csv
import os
import re
import statistics
import struct
import subprocess
import time

from vxswitch_tools import harness as vxlib
from vxswitch_tools import sg_policy
from vxswitch_tools.bench import BenchError, fmt_count, run, say, write_rows
from vxswitch_tools.cpuload import CpuOthers
from vxswitch_tools.pcap import read_pcap_raw, write_pcap

PROBE_PORT = 5002
# inner L4 header (UDP or TCP: ports first) in a --nic frame (50 bytes of
# outer headers, then eth 14 + IPv4 20), and the checksum's offset in it
INNER_UDP = 50 + 14 + 20
L4_CSUM = {"udp": 6, "tcp": 16}
PROTOS = ("udp", "tcp")
DRAIN_S = 0.5
VX_POLICY_DROPS = ("rule_drop", "sg_deny", "sg_invalid", "no_rule",
                   "recirc_limit", "resubmit_limit")


# ----------------------------------------------------------------- traffic

def _csum_replace16(csum, old, new, udp=True):
    """RFC 1624 incremental update of a ones' complement checksum."""
    if csum == 0 and udp:       # UDP: no checksum
        return 0
    s = (~csum & 0xFFFF) + (~old & 0xFFFF) + new
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s & 0xFFFF) or 0xFFFF


def sg_pcap(python, scripts, rundir, n_vms, flows, every, proto="udp"):
    """gen-traffic.py --nic --proto PROTO with --count a multiple of the
    flows, >= every * n_vms packets, and a denied probe after every
    `every` - 1 packets (PROTO to PROBE_PORT of VM j for the j-th probe:
    each VM port's group is probed). -> (path, packets, probes)."""
    if flows < n_vms:
        raise BenchError("--sg needs --flows >= --vms (%d < %d)"
                         % (flows, n_vms))
    count = -(-max(flows, every * n_vms) // flows) * flows
    sfx = "" if proto == "udp" else "-" + proto
    base = rundir / ("rx-sg-%dvm-%s%s-base.pcap" % (n_vms, fmt_count(flows),
                                                    sfx))
    out = rundir / ("rx-sg-%dvm-%s%s-p%d.pcap" % (n_vms, fmt_count(flows),
                                                   sfx, every))
    if not base.exists():
        run([python, scripts / "gen-traffic.py", "--nic", "--vms", n_vms,
             "--flows", flows, "--count", count, "--size", 128, "-q",
             "--proto", proto, "--out", base], timeout=600)
    co = INNER_UDP + L4_CSUM[proto]
    frames = read_pcap_raw(base)
    pkts, probes = [], 0
    for k, fr in enumerate(frames):
        if k % (every - 1) == 0 and k:
            # packet j of the pcap goes to VM j % n_vms (flow j, round robin)
            b = bytearray(frames[probes % n_vms])
            old = struct.unpack_from("!H", b, INNER_UDP + 2)[0]
            csum = struct.unpack_from("!H", b, co)[0]
            # only the destination port changes (until 2026-11-27 the UDP
            # probe's length was zeroed too: a malformed datagram, which
            # both trackers mark +inv, so the probes tested the invalid
            # drop, not the group's deny of a new connection)
            struct.pack_into("!H", b, INNER_UDP + 2, PROBE_PORT)
            struct.pack_into("!H", b, co,
                             _csum_replace16(csum, old, PROBE_PORT,
                                             udp=proto == "udp"))
            pkts.append(bytes(b))
            probes += 1
        pkts.append(fr)
    if not out.exists():
        write_pcap(out, pkts)
    return out, len(pkts), probes


# ------------------------------------------------------------ measurement

def check_window(mode, sw, row, flows, probe_frac, proto="udp"):
    """The group's checks of one window (see the docstring) -> list of
    failures; fills row's check columns."""
    fails = []
    exp = row["nic_rx"] * probe_frac if mode != "none" else 0
    got = row["denied"]
    row["denied_expected"] = int(round(exp))
    if abs(got - exp) > 0.02 * exp + 64:
        fails.append("policy drops %d, expected %d (denied probes)"
                     % (got, exp))
    want = flows if mode != "none" else 0
    if row["sessions"] != want:
        fails.append("%d sessions, expected %d" % (row["sessions"], want))
    if mode == "ct" and not row["est_rpl_megaflows"]:
        fails.append("no megaflow with ct_state +est+rpl carried packets")
    if row["invalid"]:
        fails.append("%d packets tracked +inv" % row["invalid"])
    if proto == "tcp" and mode != "none" and row["tcp_established"] != want:
        fails.append("%d TCP sessions ESTABLISHED of %d (%s)"
                     % (row["tcp_established"], want, row["ct_states"]))
    row["check"] = "; ".join(fails) or "ok"
    return fails


EST_RPL_RE = re.compile(r"ct_state\([^)]*\+est[^)]*\+rpl[^)]*\).*?"
                        r"packets:(\d+)")


INV_RE = re.compile(r"ct_state\([^)]*\+inv[^)]*\).*?packets:(\d+)")
CT_STATE_RE = re.compile(r"protoinfo=\(state=(\w+)\)")


def est_rpl_megaflows(text):
    return sum(1 for m in EST_RPL_RE.finditer(text) if int(m.group(1)))


def inv_megaflow_packets(text):
    """Packets of the megaflows matching ct_state +inv (OVS's and
    vxswitch's dpctl/dump-flows print the match alike)."""
    return sum(int(m.group(1)) for m in INV_RE.finditer(text))


def ct_states(text):
    """dpctl/dump-conntrack -> {TCP state: sessions}."""
    out = {}
    for m in CT_STATE_RE.finditer(text):
        out[m.group(1)] = out.get(m.group(1), 0) + 1
    return out


def measure_sg(a, cls, n_vms, flows, rundir, pcap, n_pkts, n_probes, modes,
               vms, proto="udp"):
    """One start of switch and VMs (a second try if the first does not come
    up: on the shared host another helper's cleanup has taken a testpmd's
    EAL runtime dir away mid-start); then a.reps rounds over the modes."""
    start_all, stop_vms = vms
    sockets = [rundir / ("vhostsock%d" % i) for i in range(n_vms)]
    # the same rules for every protocol of the run (--proto)
    rules = {m: sg_policy.flows(m, n_vms, protos=a.protos) for m in modes}
    for attempt in (1, 2):
        rows, tps, started = [], [], False
        sw = cls(a, rundir, n_vms, flows, pcap, sockets)
        try:
            tps = start_all(a, sw, rundir, sockets, n_vms)
            started = True
            for rep in range(1, a.reps + 1):
                # each round starts with the next mode: no mode always
                # follows the same one
                k = (rep - 1) % len(modes)
                for mode in modes[k:] + modes[:k]:
                    sw.sg_load(rules[mode])
                    # and again once the VMs' rings have drained: an
                    # answer of the previous mode's traffic (a probe that
                    # passed with no group) still in flight when the rules
                    # changed commits a session under the new ones (the VM
                    # opening it: egress is allowed), and the probes pass
                    # from then on as its replies
                    time.sleep(DRAIN_S)
                    sw.sg_flush()
                    time.sleep(a.warmup)
                    # OVS, none -> ct, about one change in ten on the busy
                    # host: a session of a probe's answer (VM:5002 ->
                    # remote, committed as egress) was there even after
                    # the second flush, and the probes then passed as its
                    # replies. Once: flush again and warm up again (if
                    # the probes opened it themselves, it comes back and
                    # the window fails its checks)
                    stale = probe_sessions(sw.sg_conntrack())
                    if stale:
                        say("    %s %s: %d session(s) of the probe port "
                            "before the window, flushed again: %s"
                            % (proto, mode, len(stale), "; ".join(stale)))
                        sw.sg_flush()
                        time.sleep(a.warmup)
                    rows.append(window(a, sw, mode, rep, n_vms, flows, tps,
                                       n_probes / n_pkts, proto))
                    rows[-1]["reflushed"] = len(stale)
            return rows
        except (BenchError, AssertionError, TimeoutError, OSError,
                subprocess.SubprocessError) as e:
            say("    FAILED%s: %s" % ("" if started else " to start",
                                      str(e)[:2000]))
            say("    log tail:\n%s" % sw.log_tail())
            rows.append({"switch": sw.name, "vms": n_vms, "flows": flows,
                         "proto": proto, "rep": 0,
                         "error": str(e).splitlines()[0][:300]})
            if started or attempt == 2:
                return rows
            say("    starting again")
        finally:
            sw.stop()
            stop_vms(tps)
            vxlib.reap_all()
    return rows


def trim_conntrack(text, keep=16):
    """dump-conntrack for -dumps.txt: the count by protocol and state, the
    sessions not of a flow to port 5001 (probes'), and the first `keep`."""
    lines = text.splitlines()
    odd = [x for x in lines if "port=5001" not in x]
    by = {}
    for x in lines:
        m = CT_STATE_RE.search(x)
        k = x.split(",", 1)[0] + (" " + m.group(1) if m else "")
        by[k] = by.get(k, 0) + 1
    return (" (%d sessions: %s; %d not of a flow to port 5001%s):\n%s\n"
            % (len(lines), ", ".join("%s %d" % kv for kv in sorted(
                by.items())) or "none", len(odd),
               "" if len(lines) <= keep else ", those and the first %d"
               % keep,
               "\n".join(odd + [x for x in lines[:keep] if x not in odd])))


def probe_sessions(text):
    """dump-conntrack's sessions of the probe port."""
    return [x for x in text.splitlines() if "port=%d" % PROBE_PORT in x]


def _odd_first(lines):
    """Sessions not of the flows to port 5001 first (the probes')."""
    return sorted(lines, key=lambda x: "port=5001" in x)


def window(a, sw, mode, rep, n_vms, flows, tps, probe_frac, proto="udp"):
    sw.clear()
    d0 = sw.sg_policy_drops()
    rx0, tx0 = sw.nic()
    t = time.monotonic()
    cpu = CpuOthers(sw.pids() + [tp.pid for tp in tps] + [os.getpid()])
    time.sleep(a.seconds)
    rx1, tx1 = sw.nic()
    secs = time.monotonic() - t
    others = cpu.cpus() or 0.0
    d1 = sw.sg_policy_drops()
    inv1 = sw.drops().get("sg_invalid", 0) if sw.name == "vxswitch" else 0
    pm = sw.pmd()
    dpf = sw.dp_flows()
    states = ct_states(sw.sg_conntrack()) if proto == "tcp" else {}
    loop = tx1 - tx0
    row = {"switch": sw.name, "mode": mode, "vms": n_vms, "flows": flows,
           "proto": proto, "rep": rep, "seconds": round(secs, 3), "nic_rx": rx1 - rx0,
           "nic_tx": loop, "mpps": loop / secs / 1e6,
           "nic_rx_mpps": (rx1 - rx0) / secs / 1e6,
           "pmd_rx": int(pm["pmd_rx"]), "busy": int(pm["busy"]),
           "idle": int(pm["idle"]),
           "busy_pct": 100.0 * pm["busy"] / (pm["busy"] + pm["idle"])
           if pm["busy"] + pm["idle"] else 0,
           "cyc_per_loop_pkt": pm["busy"] / loop if loop else 0,
           "cyc_per_rx_pkt": pm["busy"] / pm["pmd_rx"] if pm["pmd_rx"]
           else 0,
           "recirc": int(pm.get("recirc", 0)),
           "upcalls": int(pm.get("upcalls", 0)),
           "denied": d1 - d0, "sessions": sw.sg_nconns(),
           "est_rpl_megaflows": est_rpl_megaflows(dpf)
           if mode == "ct" else "",
           "invalid": inv1 + inv_megaflow_packets(dpf),
           "tcp_established": states.get("ESTABLISHED", 0),
           "ct_states": " ".join("%s:%d" % kv for kv in sorted(
               states.items())),
           "others_cpu": round(others, 3)}
    if hasattr(sw, "stages"):
        row.update(sw.stages())
    if rep == a.reps and mode != "none":
        # the evidence of the last round (-dumps.txt): the sessions and
        # their states, and the megaflows with their ct_state matches
        row["_dump"] = ("## %s %s, %s, %d VMs, %s flows, round %d\n\n"
                        "dpctl/dump-conntrack%s\ndpctl/dump-flows:\n%s"
                        % (sw.name, mode, proto.upper(), n_vms,
                           fmt_count(flows), rep,
                           trim_conntrack(sw.sg_conntrack()), dpf))
    fails = check_window(mode, sw, row, flows, probe_frac, proto)
    say("    %s rep %d %-4s: %.3f Mpps loop (NIC rx %.3f), busy cycles %.0f/rx "
        "pkt %.0f/loop pkt, busy %.0f%%, denied %d (expected %d), %d "
        "sessions%s%s"
        % (proto, rep, mode, row["mpps"], row["nic_rx_mpps"], row["cyc_per_rx_pkt"],
           row["cyc_per_loop_pkt"], row["busy_pct"], row["denied"],
           row["denied_expected"], row["sessions"],
           (", %d +est+rpl megaflows" % row["est_rpl_megaflows"]
            if mode == "ct" else "")
           + (", TCP states %s" % (row["ct_states"] or "-")
              if proto == "tcp" else "")
           + (", %d +inv" % row["invalid"] if row["invalid"] else "")
           + ("\n    sessions: " + "\n      ".join(
               _odd_first(sw.sg_conntrack().splitlines())[:8])
              if fails and row["sessions"] != (flows if mode != "none"
                                               else 0) else ""),
           "" if not fails else "\n    CHECK FAILED: " + "; ".join(fails)))
    if others > 0.05:
        say("    (other processes used %.0f%% of a CPU on CPUs 0-1)"
            % (100 * others))
    return row


# ---------------------------------------------------------------- reports

FIELDS = ["switch", "mode", "vms", "flows", "proto", "rep", "seconds", "mpps",
          "nic_rx_mpps", "nic_rx", "nic_tx", "pmd_rx", "busy", "idle",
          "busy_pct", "cyc_per_rx_pkt", "cyc_per_loop_pkt", "recirc", "upcalls", "denied",
          "denied_expected", "sessions", "est_rpl_megaflows", "invalid",
          "tcp_established", "ct_states", "reflushed", "check",
          "others_cpu", "build", "error"] + \
    ["st_%s" % k for k in ("rx_nic", "rx_vhost", "poll_empty", "extract",
                           "hash", "emc", "dpcls", "upcall", "actions",
                           "tx_nic", "tx_vhost", "flush", "loop",
                           "other")] + \
    ["bursts_lt8", "bursts_8up"]


def summarize(rows):
    """(switch, mode, N, M, proto) -> the median [min, max] of the windows
    that passed the checks."""
    by = {}
    for r in rows:
        if r.get("rep", 0) and r.get("check") == "ok":
            by.setdefault((r["switch"], r["mode"], r["vms"], r["flows"],
                           r.get("proto", "udp")), []).append(r)
    return {k: {"median": statistics.median(r["mpps"] for r in rs),
                "min": min(r["mpps"] for r in rs),
                "max": max(r["mpps"] for r in rs), "n": len(rs),
                "cyc": statistics.median(r["cyc_per_rx_pkt"] for r in rs),
                "others": statistics.median(r["others_cpu"] for r in rs)}
            for k, rs in by.items()}


VARIANTS = [("vxswitch", "none"), ("vxswitch", "sg"), ("vxswitch", "ct"),
            ("ovs", "none"), ("ovs", "ct")]
# (label, x, y): x's rate over y's. Within one switch the ratio is taken
# per round (the windows of one round are seconds apart, so a busy host
# slows them alike) and the median of the rounds reported; across
# switches (different processes, minutes apart) as median over median.
RATIOS = [("vxswitch sg / no SG", ("vxswitch", "sg"), ("vxswitch", "none")),
          ("vxswitch ct / no SG", ("vxswitch", "ct"), ("vxswitch", "none")),
          ("vxswitch sg / ct", ("vxswitch", "sg"), ("vxswitch", "ct")),
          ("OVS ct / OVS no SG", ("ovs", "ct"), ("ovs", "none")),
          ("vxswitch sg / OVS ct", ("vxswitch", "sg"), ("ovs", "ct")),
          ("vxswitch ct / OVS ct", ("vxswitch", "ct"), ("ovs", "ct")),
          ("vxswitch no SG / OVS no SG", ("vxswitch", "none"),
           ("ovs", "none"))]


def ratio(rows, summ, x, y, n, f, pr="udp"):
    """-> (value, how) or None."""
    if x[0] == y[0]:
        by_rep = {}
        for r in rows:
            if (r.get("rep") and r.get("check") == "ok" and r["vms"] == n
                    and r["flows"] == f and r["switch"] == x[0]
                    and r.get("proto", "udp") == pr):
                by_rep.setdefault(r["rep"], {})[r["mode"]] = r["mpps"]
        rs = [m[x[1]] / m[y[1]] for m in by_rep.values()
              if x[1] in m and y[1] in m and m[y[1]]]
        if rs:
            return statistics.median(rs), "%d rounds, [%.2f, %.2f]" % (
                len(rs), min(rs), max(rs))
        return None
    sx, sy = summ.get(x + (n, f, pr)), summ.get(y + (n, f, pr))
    if sx and sy and sy["median"]:
        return sx["median"] / sy["median"], "medians"
    return None


def table(summ, rows):
    failed = {}
    for r in rows:
        if r.get("rep") and r.get("check") != "ok":
            k = (r["switch"], r["mode"], r["vms"], r["flows"],
                 r.get("proto", "udp"))
            failed[k] = failed.get(k, 0) + 1
    configs = sorted({k[2:] for k in summ} | {k[2:] for k in failed},
                     key=lambda x: (-x[0], x[1], PROTOS.index(x[2])))
    lines = ["| N VMs | flows | proto | switch, group | loop Mpps median "
             "[min, max] | windows | busy cycles / rx pkt | others' CPU |",
             "|---|---|---|---|---|---|---|---|"]
    for n, f, pr in configs:
        for v in VARIANTS:
            s = summ.get(v + (n, f, pr))
            bad = failed.get(v + (n, f, pr), 0)
            if not s and not bad:
                continue
            lines.append("| %d | %s | %s | %s %s | %s | %s | %s | %s |" % (
                n, fmt_count(f), pr.upper(), v[0],
                "no SG" if v[1] == "none" else v[1],
                "%.3f [%.3f, %.3f]" % (s["median"], s["min"], s["max"])
                if s else "n/a", ("%d" % s["n"] if s else "0")
                + (" (+%d failed checks)" % bad if bad else ""),
                "%.0f" % s["cyc"] if s else "", "%.2f" % s["others"]
                if s else ""))
    lines += ["", "| N VMs | flows | proto | ratio | value | from |",
              "|---|---|---|---|---|---|"]
    for n, f, pr in configs:
        for label, x, y in RATIOS:
            r = ratio(rows, summ, x, y, n, f, pr)
            if r:
                lines.append("| %d | %s | %s | %s | %.2f | %s |"
                             % (n, fmt_count(f), pr.upper(), label, r[0],
                                r[1]))
    # with both protocols: each ratio side by side, TCP over UDP too
    prs = sorted({c[2] for c in configs}, key=PROTOS.index)
    if len(prs) > 1:
        lines += ["", "| N VMs | flows | ratio | %s |" % " | ".join(
            p.upper() for p in prs), "|---|---|---|%s" % ("---|" * len(prs))]
        for n, f in sorted({c[:2] for c in configs},
                           key=lambda x: (-x[0], x[1])):
            for label, x, y in RATIOS:
                vals = [ratio(rows, summ, x, y, n, f, pr) for pr in prs]
                if any(vals):
                    lines.append("| %d | %s | %s | %s |" % (
                        n, fmt_count(f), label, " | ".join(
                            "%.2f" % v[0] if v else "n/a" for v in vals)))
            for v in VARIANTS:
                ss = [summ.get(v + (n, f, pr)) for pr in prs]
                if ss[0] and all(ss):
                    lines.append("| %d | %s | %s %s: TCP / UDP rate | %s |"
                                 % (n, fmt_count(f), v[0],
                                    "no SG" if v[1] == "none" else v[1],
                                    " | ".join("%.2f" % (x["median"]
                                                         / ss[0]["median"])
                                               for x in ss)))
    return "\n".join(lines)


def write(results, tag, rows, summ, conditions):
    raw = write_rows(results / ("e2e-sg-%s.csv" % tag), FIELDS, rows)
    sp = results / ("e2e-sg-%s-summary.csv" % tag)
    with open(sp, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["switch", "mode", "vms", "flows", "proto",
                    "mpps_median",
                    "mpps_min", "mpps_max", "windows",
                    "busy_cyc_per_rx_pkt", "others_cpu_median"])
        for (sw, mode, n, f, pr), s in sorted(summ.items()):
            w.writerow([sw, mode, n, f, pr, "%.4f" % s["median"],
                        "%.4f" % s["min"], "%.4f" % s["max"], s["n"],
                        "%.0f" % s["cyc"], "%.2f" % s["others"]])
    text = table(summ, rows)
    md = results / ("e2e-sg-%s.md" % tag)
    md.write_text("%s\n\n%s\n" % (conditions, text))
    return raw, sp, md, text


def sg_main(a, ctx):
    """ctx: the e2e-bench pieces (REPO, PYTHON, SCRIPTS, RESULTS, VxRun,
    OvsRun, start_all, stop_vms, build, rundir)."""
    rundir = ctx["rundir"]
    rows = []
    switches = [(sw, m) for sw, m in (("vxswitch", a.sg_modes),
                                      ("ovs", a.ovs_sg_modes))
                if sw in a.switches and m]
    try:
        for n, f, pr in [(n, f, pr) for n in a.vms_list
                         for f in a.flows_list for pr in a.protos]:
            # one start of each switch per protocol (the NIC's pcap)
            pcap, n_pkts, n_probes = sg_pcap(
                ctx["PYTHON"], ctx["SCRIPTS"], rundir, n, f,
                a.probe_every, pr)
            say("== N=%d VMs, %s %s microflows (%s: %d packets, %d "
                "denied probes)" % (n, fmt_count(f), pr.upper(),
                                    pcap.name, n_pkts, n_probes))
            for sw, modes in switches:
                cls = ctx["VxRun"] if sw == "vxswitch" else ctx["OvsRun"]
                new = measure_sg(a, cls, n, f, rundir, pcap, n_pkts,
                                 n_probes, modes,
                                 (ctx["start_all"], ctx["stop_vms"]), pr)
                for r in new:
                    r["build"] = ctx["build"] if sw == "vxswitch" \
                        else "ovs-vswitchd-dpdk 3.1.0"
                rows += new
    except KeyboardInterrupt:
        say("interrupted")
    finally:
        vxlib.reap_all()
    summ = summarize(rows)
    cond = ("e2e-bench --sg: %s; %d rounds x %.0f s windows, warm-up %.0f s "
            "per mode; VMs one testpmd 5tswap on CPU %d, switch PMD on CPU "
            "1; protocols %s (the group allows each in to 5001); a denied "
            "probe every %d packets; vxswitch %s; %s UTC"
            % (" ".join(a.argv), a.reps, a.seconds, a.warmup, a.vm_cpus[0],
               ",".join(a.protos), a.probe_every, ctx["build"],
               time.strftime("%Y-%m-%d %H:%M", time.gmtime())))
    raw, sp, md, text = write(ctx["RESULTS"], a.tag, rows, summ, cond)
    dumps = ctx["RESULTS"] / ("e2e-sg-%s-dumps.txt" % a.tag)
    dumps.write_text("%s\n\n%s" % (cond, "\n".join(
        r["_dump"] for r in rows if r.get("_dump"))))
    say()
    say(text)
    say()
    say("results: %s" % ", ".join(str(p.relative_to(ctx["REPO"]))
                                  for p in (raw, sp, md, dumps)))
    with contextlib.suppress(Exception):
        for p in rundir.glob("*.log"):
            if not a.keep:
                p.unlink()
    bad = [r for r in rows if r.get("rep") == 0 or r.get("check") != "ok"]
    return 1 if bad or not summ else 0
