#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""How vxswitch scales with PMDs: the decap path of the seed's overlay on
1, 2, 4... PMDs, one run per count in one invocation, side by side.

    perf/pmd-scaling.py                          # 1,2,4 PMDs where cores allow
    perf/pmd-scaling.py --pmds 1,2,4,8 --flows 1k --seconds 10 --tag big
    perf/pmd-scaling.py --allow-shared           # counts that share a CPU too

Topology: the seed's (flows and underlay as topology/vxlan-2vm.yaml, N
VMs). The NIC is net_pcap replaying scripts/gen-traffic.py --nic --vms N
--flows M in a loop (infinite_rx=1), with one rx queue per PMD (one
rx_pcap per queue), queue q pinned to PMD q; it never runs dry, so every
PMD is 100 % busy and the rate is the switch's own. The VMs are net_null
ethdevs (no-rx=1; tx frees): decapsulated frames are counted and freed
there, with a tx queue per PMD (no lock), so nothing outside the switch
limits the rate and no resource is shared between the PMDs but the CPUs.

Cores: the main lcore goes on the first CPU this process may run on
(sched_getaffinity, or --cpus), each PMD on a CPU of its own among the
rest. A count that needs more CPUs than are left is skipped unless
--allow-shared, which maps the PMDs onto those CPUs round robin (EAL
--lcores "1@c1,2@c2,3@c1...") with the idle back-off on: that checks
function, and its Mpps is not a scaling figure.

Per count: start the switch, wait --warmup seconds, then read the
counters over --seconds. Columns: PMDs; Mpps = packets the PMDs received
over the window (all PMDs; "fwd" = what reached the VMs); per PMD: Mpps,
busy cycles per received packet, busy % (busy / (busy + idle + sleep)).
others = CPUs' worth used by other processes on the switch's CPUs during
the window (a busy neighbour makes a window slow: rerun it).

Output: the table on stdout and in perf/results/pmd-scaling-TAG.txt, one
CSV row per PMD in perf/results/pmd-scaling-TAG.csv.
"""

import argparse
import contextlib
import csv
import datetime
import os
import platform
import shutil
import sys
import time
from pathlib import Path

from vxswitch_tools import harness as vxlib
from vxswitch_tools import packets as pktlib
from vxswitch_tools import traffic_gen
from vxswitch_tools.bench import BenchError, parse_count, say
from vxswitch_tools.cpuload import CpuOthers

RESULTS = Path(__file__).resolve().parent / "results"


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pmds", default="1,2,4",
                    help="PMD counts (default 1,2,4)")
    ap.add_argument("--vms", type=int, default=4, help="VMs (default 4)")
    ap.add_argument("--flows", default="1k",
                    help="inner microflows (default 1k)")
    ap.add_argument("--seconds", type=float, default=5.0,
                    help="measured window (default 5)")
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--cpus", help="CPUs to use (default: this process's "
                    "affinity), e.g. 0-7; the first one is the main lcore's")
    ap.add_argument("--allow-shared", action="store_true",
                    help="run counts that would put two PMDs on one CPU")
    ap.add_argument("--tag", default="run")
    ap.add_argument("--no-save", action="store_true",
                    help="print only, write nothing to perf/results")
    return ap.parse_args(argv)


def cpu_list(s):
    out = []
    for part in s.split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return sorted(set(out))


def lcores_for(n_pmds, main_cpu, pmd_cpus):
    """EAL --lcores: lcore 0 on main_cpu, lcore i (1..n) on pmd_cpus round
    robin."""
    return ",".join(["0@%d" % main_cpu] +
                     ["%d@%d" % (i, pmd_cpus[(i - 1) % len(pmd_cpus)])
                      for i in range(1, n_pmds + 1)])


def topology(rundir, pcap, n_vms, n_pmds, lcores, shared):
    """The seed's overlay, NIC on net_pcap (a queue per PMD, pinned), VMs
    on net_null."""
    topo = pktlib.topology("net_pcap0", rundir, n_vms, memory_mb=1024)
    for i, p in enumerate(topo["ports"]):
        if p["name"].startswith("vhost-user"):
            topo["ports"][i] = {"name": p["name"], "type": "dpdk",
                                "devargs": "net_null%d,no-rx=1" % (i + 1),
                                "n-rxq": 1}
        elif p["name"] == "dpdk-phy":
            p["devargs"] = "net_pcap0,%s,infinite_rx=1" % ",".join(
                ["rx_pcap=%s" % pcap] * n_pmds)
            p["n-rxq"] = n_pmds
            p["rxq-affinity"] = ",".join("%d:%d" % (q, q + 1)
                                         for q in range(n_pmds))
    topo["eal"].update({"lcores": lcores, "file-prefix":
                        vxlib.unique_prefix("pmdscale")})
    dp = topo["datapath"]
    dp["pmd-cores"] = list(range(1, n_pmds + 1))
    dp["emc-insert-inv-prob"] = 100
    if shared:
        dp["optimisations"] = {"idle-backoff": True}
    return topo


def sample(sw):
    pmds = {st["core"]: st for st in
            sw.ctl("dpif-netdev/pmd-stats-show", json=True)}
    ports = {p["name"]: p for p in sw.show()["ports"]}
    return time.monotonic(), pmds, ports


def measure(a, rundir, pcap, n_pmds, main_cpu, pmd_cpus, shared):
    lcores = lcores_for(n_pmds, main_cpu, pmd_cpus)
    topo = topology(rundir, pcap, a.vms, n_pmds, lcores, shared)
    sw = vxlib.Switch(topo, rundir, rundir, name="vxs%d" % n_pmds,
                      ready_timeout=60)
    try:
        sw.wait_ports_up(timeout=30)
        phy = sw.port("dpdk-phy")
        where = {(r["port"], r["queue"]): r["core"] for r in
                 sw.ctl("dpif-netdev/pmd-rxq-show", json=True)}
        nic_cores = sorted(c for (p, _), c in where.items() if p == "dpdk-phy")
        if nic_cores != list(range(1, n_pmds + 1)):
            raise BenchError("NIC queues on cores %s, want one per PMD"
                             % nic_cores)
        vm_shared = [p["name"] for p in sw.show()["ports"]
                     if p["name"].startswith("vhost-user")
                     and p.get("tx_shared")]
        time.sleep(a.warmup)
        cpus = sorted({main_cpu} | set(pmd_cpus[:n_pmds]))
        others = CpuOthers([sw.pid], cores=cpus)
        t0, p0, q0 = sample(sw)
        time.sleep(a.seconds)
        t1, p1, q1 = sample(sw)
        other_cpus = others.cpus()
        vxlib.assert_packets_accounted(sw)
    finally:
        with contextlib.suppress(Exception):
            sw.stop(timeout=20)
        sw.kill()
    dt = t1 - t0
    rows = []
    for core in sorted(p1):
        a0, a1 = p0[core], p1[core]

        def d(k):
            return a1.get(k, 0) - a0.get(k, 0)
        pk, busy = d("packets"), d("busy_cycles")
        total = busy + d("idle_cycles") + d("sleep_cycles")
        rows.append({"core": core, "cpu": pmd_cpus[(core - 1) % len(pmd_cpus)],
                     "mpps": pk / dt / 1e6,
                     "cyc_per_pkt": busy / pk if pk else 0.0,
                     "busy_pct": 100.0 * busy / total if total else 0.0})
    fwd = sum(q1[n]["tx_packets"] - q0[n]["tx_packets"]
              for n in q1 if n.startswith("vhost-user"))
    return {"pmds": n_pmds, "lcores": lcores, "shared": shared,
            "mpps": sum(r["mpps"] for r in rows), "fwd_mpps": fwd / dt / 1e6,
            "per_pmd": rows, "others": other_cpus, "seconds": dt,
            "nic_queues": phy["n_rxq"] if "n_rxq" in phy else n_pmds,
            "vm_tx_shared": vm_shared}


def table(results, skipped):
    lines = ["| PMDs | Mpps | fwd Mpps | per-PMD Mpps | cycles/pkt per PMD "
             "| busy % per PMD | others | lcores |",
             "|---:|---:|---:|---|---|---|---:|---|"]
    for r in results:
        pp = r["per_pmd"]
        lines.append("| %d%s | %.3f | %.3f | %s | %s | %s | %.2f | %s |" % (
            r["pmds"], " (shared CPU)" if r["shared"] else "", r["mpps"],
            r["fwd_mpps"], " / ".join("%.3f" % x["mpps"] for x in pp),
            " / ".join("%.0f" % x["cyc_per_pkt"] for x in pp),
            " / ".join("%.0f" % x["busy_pct"] for x in pp),
            r["others"] or 0.0, r["lcores"]))
    for n, why in skipped:
        lines.append("| %d | skipped: %s | | | | | | |" % (n, why))
    return "\n".join(lines)


def main(argv=None):
    a = parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("pmd-scaling: run as root (hugepages, EAL)")
    counts = [int(x) for x in a.pmds.split(",")]
    cpus = cpu_list(a.cpus) if a.cpus else sorted(os.sched_getaffinity(0))
    main_cpu, pmd_cpus = cpus[0], cpus[1:]
    if not pmd_cpus:
        if not a.allow_shared:
            raise SystemExit("pmd-scaling: one CPU only; --allow-shared to "
                             "run the PMDs on it with the main lcore")
        pmd_cpus = [main_cpu]
    flows = parse_count(a.flows)
    say("CPUs %s: main lcore on %d, PMDs on %s (%d free)" % (
        cpus, main_cpu, pmd_cpus, len(pmd_cpus)))
    if vxlib.hugepages_free() < 600:
        vxlib.ensure_hugepages()
    rundir = vxlib.short_tmpdir("vxps")
    pcap = rundir / "nic.pcap"
    traffic_gen.main(["--nic", "--vms", str(a.vms), "--flows", str(flows),
                      "-o", str(pcap), "-q"])
    results, skipped = [], []
    try:
        for n in counts:
            shared = n > len(pmd_cpus)
            if shared and not a.allow_shared:
                why = ("needs %d CPUs for PMDs, %d free (--allow-shared)"
                       % (n, len(pmd_cpus)))
                say("%d PMDs: skipped, %s" % (n, why))
                skipped.append((n, why))
                continue
            say("%d PMDs%s ..." % (n, " (sharing CPUs)" if shared else ""))
            r = measure(a, rundir, pcap, n, main_cpu, pmd_cpus, shared)
            if r["vm_tx_shared"]:
                say("  note: VM ports with a shared tx queue: %s"
                    % r["vm_tx_shared"])
            results.append(r)
    finally:
        vxlib.reap_all()
        shutil.rmtree(rundir, ignore_errors=True)
    head = ("vxswitch PMD scaling, %s; host %s, %d CPUs (%s); %d VMs, %s "
            "microflows, decap, %g s window after %g s warm-up; "
            "vxswitch %s" % (
                datetime.datetime.now(datetime.timezone.utc).strftime(
                    "%Y-%m-%d %H:%M UTC"), platform.node(), os.cpu_count(),
                ",".join(map(str, cpus)), a.vms, a.flows, a.seconds,
                a.warmup, git_rev()))
    text = head + "\n\n" + table(results, skipped) + "\n"
    say("\n" + text)
    if not a.no_save:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / ("pmd-scaling-%s.txt" % a.tag)).write_text(text)
        with open(RESULTS / ("pmd-scaling-%s.csv" % a.tag), "w",
                  newline="") as f:
            w = csv.writer(f)
            w.writerow(["pmds", "shared", "core", "cpu", "mpps",
                        "cycles_per_packet", "busy_pct", "total_mpps",
                        "fwd_mpps", "others_cpus"])
            for r in results:
                for p in r["per_pmd"]:
                    w.writerow([r["pmds"], int(r["shared"]), p["core"],
                                p["cpu"], "%.4f" % p["mpps"],
                                "%.1f" % p["cyc_per_pkt"],
                                "%.1f" % p["busy_pct"], "%.4f" % r["mpps"],
                                "%.4f" % r["fwd_mpps"],
                                "%.2f" % (r["others"] or 0)])
        say("written: perf/results/pmd-scaling-%s.{txt,csv}" % a.tag)
    return 0


def git_rev():
    try:
        return vxlib.sh(["git", "-C", str(Path(__file__).parent),
                         "describe", "--always", "--dirty"],
                        check=False).strip() or "?"
    except Exception:
        return "?"


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as e:
        raise SystemExit("pmd-scaling: %s" % e)
