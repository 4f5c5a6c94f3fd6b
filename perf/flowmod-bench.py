#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""100 000 rules through `vxswitch-ctl add-flows`, build against build.

For each build dir given (label=DIR, e.g. the "before" of main's HEAD and
the "after" of a branch), starts vxswitch on a one-port topology with
`max-flows` above --flows (no traffic), writes --flows distinct rules
(`table=T,priority=P,ip,nw_dst=10.a.b.c,actions=...`, 16 tables, 4
priorities) into files of --batch rules (the control socket takes 16 384
arguments and 2 MiB a request: control.h), sends each with
`vxswitch-ctl add-flows FILE` and times it; then reads the switch's
resident memory (VmRSS) and prints, per build, the total time, the rate,
the slowest batch, and the resident memory grown per rule (the rule table
and the published snapshot together, as the process holds them). Then,
with the rules in, one publish: the median time of a one-rule `add-flow`
into a new table and into table 0, beside a `version` (the round trip),
and the switch's own timing of its last publish (limits/show's
last_build_us, last_publish_us) where the build has it.

    perf/flowmod-bench.py before=/tmp/vxs-before/build after=build
    perf/flowmod-bench.py --flows 20000 --batch 5000 after=build
    perf/flowmod-bench.py vxswitch=build ovs=ovs ovs-bundle=ovs-bundle

A build dir ending in ":ofctl" (`vxswitch=build:ofctl`) takes the files
through Debian's `ovs-ofctl -O OpenFlow15 add-flows br-int` on
vxswitch's OpenFlow channel instead of vxswitch-ctl. The build "ovs" is
Debian's ovs-vswitchd (userspace datapath) taking the
same files with `ovs-ofctl -O OpenFlow15 add-flows`, "ovs-bundle" with
`add-flows --bundle` (perf/ovs-flowmod.sh: root, openvswitch-switch).

A build whose whole run passes --limit seconds is stopped and shown as
such (the quadratic "before" can take minutes).
"""

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))


def rule(i):
    t, p = i % 16, 100 + (i // 16) % 4
    return ("table=%d,priority=%d,ip,nw_dst=10.%d.%d.%d,"
            "actions=load:%d->NXM_NX_REG0[],resubmit(,%d)" %
            (t, p, (i >> 16) & 255, (i >> 8) & 255, i & 255, i & 0xffff,
             min(t + 1, 254)))


def rss_kb(pid):
    for line in Path("/proc/%d/status" % pid).read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def run_ovs(label, how, a, files):
    cmd = [str(HERE / "ovs-flowmod.sh")]
    if how == "ovs-bundle":
        cmd.append("--bundle")
    try:
        out = subprocess.run(cmd + [str(f) for f in files], check=True,
                             capture_output=True, text=True,
                             timeout=a.limit).stdout
    except subprocess.TimeoutExpired:
        return {"label": label, "timeout": True, "done": 0}
    times, n, rss = [], 0, (0, 0)
    for line in out.splitlines():
        w = line.split()
        if w[0] == "batch":
            times.append(float(w[1]))
        elif w[0] == "rules":
            n = int(w[1])
        elif w[0] == "rss_kb":
            rss = (int(w[1]), int(w[2]))
    return {"label": label, "timeout": False, "total": sum(times),
            "max": max(times), "rules": n,
            "rss_per_rule": (rss[1] - rss[0]) * 1024.0 / max(n, 1)}


def run_build(label, bdir, a, files):
    if bdir in ("ovs", "ovs-bundle"):
        return run_ovs(label, bdir, a, files)
    via_ofctl = bdir.endswith(":ofctl")
    bdir = bdir[:-len(":ofctl")] if via_ofctl else bdir
    os.environ["VXS_BUILD_DIR"] = str(Path(bdir).resolve())
    from vxswitch_tools import switch
    tmp = tempfile.TemporaryDirectory(prefix="flowmod-bench")
    rundir = Path(tempfile.mkdtemp(prefix="vxfm", dir="/tmp"))
    topo = {"eal": {"lcores": "0-1", "memory-mb": 512, "no-pci": True},
            "datapath": {"pmd-cores": [1],
                         "max-flows": a.flows + 16 + 2 * a.repeat},
            "ports": [{"name": "vm0", "type": "dpdkvhostuser",
                       "path": str(rundir / "vm0.sock")}]}
    sw = switch.Switch(topo, tmp.name, rundir, name="flowmod")
    try:
        pid = sw.proc.pid
        for _ in range(200):        # the OpenFlow channel's socket
            if not via_ofctl or (rundir / "br-int.mgmt").exists():
                break
            time.sleep(0.05)
        rss0 = rss_kb(pid)
        times = []
        t_all = time.perf_counter()
        for f in files:
            t0 = time.perf_counter()
            left = a.limit - (t0 - t_all)
            if left <= 0:
                return {"label": label, "timeout": True, "done": len(times)}
            try:
                if via_ofctl:
                    subprocess.run(
                        ["ovs-ofctl", "-O", "OpenFlow15", "add-flows",
                         "br-int", str(f)], check=True, timeout=left,
                        env=dict(os.environ, OVS_RUNDIR=str(rundir)))
                else:
                    sw.ctl("add-flows", str(f), timeout=left)
            except subprocess.TimeoutExpired:
                return {"label": label, "timeout": True, "done": len(times)}
            times.append(time.perf_counter() - t0)
        total = time.perf_counter() - t_all
        n = int(sw.ctl("dump-flows").count("\n"))
        rss1 = rss_kb(pid)
        row = {"label": label, "timeout": False, "total": total,
               "max": max(times), "rules": n,
               "rss_per_rule": (rss1 - rss0) * 1024.0 / max(n, 1)}
        row.update(one_publish(sw, a))
        return row
    finally:
        sw.stop()
        tmp.cleanup()


def median_ms(fn, n):
    t = []
    for k in range(n):
        t0 = time.perf_counter()
        fn(k)
        t.append((time.perf_counter() - t0) * 1000.0)
    return sorted(t)[n // 2]


def one_publish(sw, a):
    """With the rules in: the median time of one `add-flow` (one rule,
    one publish) into a table of its own and into table 0 (1/16 of the
    rules), beside a `version` (the round trip alone); and the switch's
    own figures for the last publish where it has them (limits/show)."""
    def last_publish():
        lim = sw.ctl("limits/show", json=True) or {}
        if "last_build_us" not in lim:
            return "-"
        return "%d / %d" % (lim["last_build_us"], lim["last_publish_us"])
    out = {"rtt": median_ms(lambda k: sw.ctl("version"), a.repeat)}
    out["add_new"] = median_ms(lambda k: sw.ctl(
        "add-flow", "table=200,priority=1,ip,nw_dst=1.2.3.%d,"
        "actions=drop" % k), a.repeat)
    out["pub_new"] = last_publish()
    out["add_big"] = median_ms(lambda k: sw.ctl(
        "add-flow", "table=0,priority=7,ip,nw_dst=1.2.4.%d,"
        "actions=drop" % k), a.repeat)
    out["pub_big"] = last_publish()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("builds", nargs="+", help="LABEL=BUILD_DIR")
    ap.add_argument("--flows", type=int, default=100000)
    ap.add_argument("--batch", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=11,
                    help="single add-flows timed after the load (11)")
    ap.add_argument("--limit", type=float, default=600.0,
                    help="seconds per build before giving up (600)")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="flowmod-rules"))
    files = []
    for k in range(0, a.flows, a.batch):
        f = work / ("batch%03d.txt" % (k // a.batch))
        f.write_text("".join(rule(i) + "\n"
                             for i in range(k, min(k + a.batch, a.flows))))
        files.append(f)
    rows = [run_build(*b.split("=", 1), a, files) for b in a.builds]
    print("host: %s, %d CPUs, %s; %d rules in batches of %d" % (
        platform.node(), os.cpu_count(), platform.platform(), a.flows,
        a.batch))
    print("| build | total s | rules/s | slowest batch s | rules | "
          "RSS bytes/rule |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        if r["timeout"]:
            print("| %s | > %.0f (%d of %d batches) | | | | |" % (
                r["label"], a.limit, r["done"], len(files)))
            continue
        print("| %s | %.2f | %.0f | %.2f | %d | %.0f |" % (
            r["label"], r["total"], a.flows / r["total"], r["max"],
            r["rules"], r["rss_per_rule"]))
    print()
    print("One publish with the %d rules in (median of %d; add-flow is one "
          "rule, one publish, its round trip included):" % (a.flows,
                                                            a.repeat))
    print("| build | version ms | add-flow, new table ms | its publish: "
          "build / all us | add-flow, table 0 ms | its publish: build / "
          "all us |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        if r["timeout"] or "rtt" not in r:     # ovs rows: not measured
            continue
        print("| %s | %.2f | %.2f | %s | %.2f | %s |" % (
            r["label"], r["rtt"], r["add_new"], r["pub_new"], r["add_big"],
            r["pub_big"]))
    for f in files:
        f.unlink()
    work.rmdir()


if __name__ == "__main__":
    main()
