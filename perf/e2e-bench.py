#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""End-to-end benchmark of the seed's 32-VM VXLAN overlay (seed 002): the
full loop NIC rx -> decap -> VM -> macswap -> encap -> NIC tx, through
vxswitch and, side by side, through Open vSwitch with DPDK.

    perf/e2e-bench.py                               # vxswitch, N=32
    perf/e2e-bench.py --compare --vms 2,32 --flows 32,1k,250k
    perf/e2e-bench.py --vms 32 --flows 1k --rxd 256 --txd 256 \
        --vm-queue-size 128 --tag q256
    perf/e2e-bench.py --compare --sg none,sg,ct --ovs-sg none,ct \
        --vms 2,32 --flows 32,1k     # security groups: perf/e2e_sg.py
    perf/e2e-bench.py --compare --sg none,sg,ct --ovs-sg none,ct \
        --proto udp,tcp --vms 2 --flows 32   # the same, UDP then TCP
    perf/e2e-bench.py --inner ipv4,ipv6,ipv6,ipv4 --vms 2,32 \
        --tag ipv6-vs-v4     # IPv6 tenant traffic against IPv4: e2e_inner.py
    perf/e2e-bench.py --compare --ipv6 --vms 2,32   # IPv6: against OVS

Topology: scripts/gen-topology.py --vms N --pmd-cores 1 --main-lcore 0
with the NIC as DPDK's net_pcap replaying scripts/gen-traffic.py --nic
--vms N --flows M (outer UDP source port hashed on the inner header) in a
loop (infinite_rx=1, no tx options: net_pcap counts and drops what is
sent). The VMs are one dpdk-testpmd with N virtio-user ports (server=1,
macswap, --port-topology=loop) whose two lcores share CPU 0
(vxswitch_tools.testpmd's Testpmd), or one testpmd per VM
(--per-vm-testpmd, pinned round robin over --vm-cpus).

OVS-DPDK (--switch ovs / --compare): Debian's openvswitch-switch-dpdk
binary run straight from /usr/lib/openvswitch-switch-dpdk (no
update-alternatives), ovsdb-server and ovs-vswitchd in a private run dir
(OVS_RUNDIR/OVS_DBDIR/OVS_LOGDIR, own conf.db, unix sockets there) and
ovs-vswitchd in a private network namespace, so that br-phy's kernel tap
and its address 172.1.0.100/24 (which OVS needs: native tunnel pop only
happens for addresses configured on the bridge's interface) stay there.
Both are stopped and the namespace deleted at the end. Configured as the
seed's script, with pmd-cpu-mask 0x2 and dpdk-lcore-mask 0x1 for this box.

Measurement, per (switch, N, M): start everything, wait until every VM
port is up, warm up (--warmup s), then --reps windows of --seconds each,
each one after pmd-stats-clear: Mpps = NIC tx packets over the window
(vxswitch: `vxswitch-ctl show --json`, dpdk-phy tx_packets; OVS:
`ovs-appctl dpctl/show -s`, dpdk-phy TX packets, read live from the
datapath, not the 5 s-stale Interface statistics column), busy cycles
from pmd-stats-show. Repetitions are consecutive windows on the same
processes (--fresh restarts everything for each one instead).

Output: perf/results/e2e-<tag>.csv (one row per window),
e2e-<tag>-summary.csv (median [min, max] per switch/N/M) and
e2e-<tag>.png, plus the table on stdout.
"""

import argparse
import contextlib
import csv
import datetime
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml

import e2e_inner    # perf/e2e_inner.py, --inner/--ipv6
import e2e_sg   # perf/e2e_sg.py, --sg
import e2e_stages   # perf/e2e_stages.py, the stage table and --ring

from vxswitch_tools import harness as vxlib
from vxswitch_tools.bench import (PMD_CORE, BenchError, fmt_count,
                                  parse_count, run, say, write_rows)
from vxswitch_tools.cpuload import CpuOthers
from vxswitch_tools.ovs_dpdk import OvsRun
from vxswitch_tools.pcap import pcap_count

REPO = Path(__file__).resolve().parents[1]

PYTHON = "/usr/bin/python3"
SCRIPTS = REPO / "scripts"
RESULTS = REPO / "perf" / "results"
FRAME = 128
OVS_MBUFS = 262144          # OVS's shared mempool size (fixed)


# ----------------------------------------------------------- traffic, VMs

def gen_pcap(rundir, n_vms, flows, inner="ipv4"):
    out = rundir / e2e_inner.pcap_name(n_vms, flows, inner)
    if not out.exists():
        run([PYTHON, SCRIPTS / "gen-traffic.py", "--nic", "--vms", n_vms,
             "--flows", flows, "--size", FRAME, "-q", "--out", out]
            + e2e_inner.args(inner), timeout=600)
    return out


def start_vms(a, rundir, sockets, ring="split"):
    """One testpmd with all VM ports (both lcores on --vm-cpus[0]), or one
    per VM (--per-vm-testpmd), pinned round robin over --vm-cpus; ring:
    the virtqueues' layout (e2e_stages.RINGS)."""
    qs = a.vm_queue_size
    extra = e2e_stages.RINGS[ring]
    if not a.per_vm_testpmd:
        mbufs = max(8192, 2048 + 3 * qs * len(sockets))
        return [vxlib.Testpmd(rundir, sockets=sockets, name="vms",
                              cpus=(a.vm_cpus[0],), queue_size=qs,
                              mbufs=mbufs, fwd=a.fwd, vdev_extra=extra)]
    tps = []
    for i, s in enumerate(sockets):
        c = a.vm_cpus[i % len(a.vm_cpus)]
        tps.append(vxlib.Testpmd(rundir, sockets=[s], name="vm%d" % i,
                                 cpus=(c,), queue_size=qs,
                                 mbufs=max(4096, 4 * qs + 2048), fwd=a.fwd,
                                 vdev_extra=extra))
    return tps


def wait_vms(tps):
    for tp in tps:
        tp.wait_ready()


def start_all(a, sw, rundir, sockets, n_vms, ring="split"):
    """The VMs (virtio-user servers), then the switch; every port up, then
    --warmup s. -> the VMs' testpmds (stopped again if the start fails)."""
    t0 = time.monotonic()
    tps = start_vms(a, rundir, sockets, ring)
    try:
        sw.start()
        sw.wait_up(30 + sw.attach_s_per_vm * n_vms)
        wait_vms(tps)
    except BaseException:
        stop_vms(tps)
        raise
    say("    %s: %d VMs attached after %.1f s; warm-up %.1f s"
        % (sw.name, n_vms, time.monotonic() - t0, a.warmup))
    time.sleep(a.warmup)
    return tps


def stop_vms(tps):
    for tp in tps:
        with contextlib.suppress(Exception):
            tp.stop(timeout=10)
        tp.kill()


# --------------------------------------------------------------- vxswitch

def vx_topology(a, rundir, n_vms, flows, pcap, inner="ipv4"):
    devargs = "net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap
    text = run([PYTHON, SCRIPTS / "gen-topology.py", "--vms", n_vms,
                "--pmd-cores", str(PMD_CORE), "--main-lcore", "0",
                "--nic-devargs", devargs, "--sock-dir", rundir]
               + (["--sg", "none"] if a.sg_modes else [])
               + e2e_inner.args(inner))
    topo = yaml.safe_load(text)
    eal = topo["eal"]
    eal.pop("socket-mem", None)     # one NUMA node here: -m instead
    eal["no-pci"] = True
    n_mbufs = 0
    n_pkts = pcap_count(pcap)
    if n_pkts > 4096:
        # net_pcap's infinite_rx holds the whole pcap in mbufs of the
        # port's pool; the switch sizes its pool from the ports only
        n_mbufs = n_pkts + 65536
    eal["memory-mb"] = max(512, 256 + (n_mbufs * 2500) // (1 << 20))
    if n_mbufs:
        topo["datapath"]["n-mbufs"] = n_mbufs
    for p in topo["ports"]:
        if p["type"] == "dpdk":
            if a.offload != "off":
                p["offload"] = a.offload
            if a.rxd:
                p["rxd"] = a.rxd
            if a.txd:
                p["txd"] = a.txd
    return topo


class VxRun:
    name = "vxswitch"
    attach_s_per_vm = 2.0       # virtio-user server=1 accepts one at a time

    def __init__(self, a, rundir, n_vms, flows, pcap, sockets,
                 inner="ipv4"):
        self.topo = vx_topology(a, rundir, n_vms, flows, pcap, inner)
        self.rundir = rundir
        self.sw = None

    def start(self):
        # the switch restores a state file left by the last run in this
        # dir (its ports, the last pcap, its rules) instead of the topology
        (self.rundir / "vxswitch.yaml.state").unlink(missing_ok=True)
        self.sw = vxlib.Switch(self.topo, self.rundir, self.rundir,
                               name="vxswitch", ready_timeout=120)

    def pids(self):
        return [self.sw.pid]

    def wait_up(self, timeout):
        self.sw.wait_ports_up(timeout=timeout)

    def set_opt(self, name, on):
        self.sw.ctl("dpif-netdev/set-opt", name, "on" if on else "off")

    def clear(self):
        self.sw.ctl("dpif-netdev/pmd-stats-clear")

    def nic(self):
        p = self.sw.port("dpdk-phy")
        return p["rx_packets"], p["tx_packets"]

    def pmd(self):
        st = self.sw.ctl("dpif-netdev/pmd-stats-show", json=True)
        pm = [p for p in st if p["core"] == PMD_CORE] or st
        p = pm[0]
        return {"pmd_rx": p["packets"], "busy": p["busy_cycles"],
                "idle": p["idle_cycles"], "emc_hits": p.get("emc_hits", 0),
                "megaflow_hits": p.get("megaflow_hits", 0),
                "upcalls": p.get("upcalls", 0),
                "pkts_per_batch": (p["tx_packets"] / p["tx_batches"]
                                   if p.get("tx_batches") else 0)}

    def stages(self):
        """Busy cycles per received packet by stage, the I/O calls'
        figures (e2e_stages.perf_stages) and the received bursts' sizes
        (pmd-perf-show): where a mode's cost is."""
        st = self.sw.ctl("dpif-netdev/pmd-perf-show", json=True)
        p = ([p for p in st if p["core"] == PMD_CORE] or st)[0]
        out = e2e_stages.perf_stages(p)
        b = p["burst_sizes"]
        out["bursts_lt8"] = sum(b[k] for k in ("1", "2-3", "4-7"))
        out["bursts_8up"] = sum(b[k] for k in ("8-15", "16-31", "32"))
        return out

    def drops(self):
        st = self.sw.ctl("dpif-netdev/pmd-stats-show", json=True)
        d = {}
        for p in st:
            for k, v in p.get("drops", {}).items():
                if v:
                    d[k] = d.get(k, 0) + v
        return d

    # --sg (e2e_sg.py): replace the rules, read what the group did
    def sg_load(self, rules):
        path = self.rundir / "sg-flows.txt"
        path.write_text("\n".join(rules) + "\n")
        self.sw.ctl("del-flows")
        self.sw.ctl("add-flows", path)
        self.sg_flush()

    def sg_flush(self):
        self.sw.ctl("dpctl/del-flows")
        self.sw.ctl("dpctl/flush-conntrack")

    def sg_nconns(self):
        return int(self.sw.ctl("dpctl/ct-get-nconns").strip())

    def sg_policy_drops(self):
        d = self.drops()
        return sum(d.get(k, 0) for k in e2e_sg.VX_POLICY_DROPS)

    def dp_flows(self):
        return self.sw.ctl("dpctl/dump-flows")

    def sg_conntrack(self):
        return self.sw.ctl("dpctl/dump-conntrack")

    def stop(self):
        if self.sw is None:
            return
        rc = None
        with contextlib.suppress(Exception):
            rc = self.sw.stop(timeout=20)
        self.sw.kill()
        if rc not in (0, None):
            say("    vxswitch exit code %s (3: mbufs leaked)" % rc)

    def log_tail(self):
        return self.sw.log_tail(20) if self.sw else ""


# ------------------------------------------------------------ measurement

def hugepages_for(a, topo, n_vms):
    """Reserves the 2 MB hugepages that this run's switch (its topology's
    eal.memory-mb) and the VMs' testpmd (their mbufs) need, if fewer are
    free: 1M microflows need ~1400 for net_pcap's replay ring alone."""
    mbufs = max(8192, 2048 + 3 * a.vm_queue_size * n_vms)
    need = (topo["eal"]["memory-mb"] + (mbufs * 2500 >> 20)) // 2 + 128
    free = vxlib.hugepages_free()
    if free >= need:
        return
    total = int(Path("/sys/kernel/mm/hugepages/hugepages-2048kB/"
                     "nr_hugepages").read_text())
    got = vxlib.ensure_hugepages(total - free + need)
    say("    hugepages: %d free of the %d needed, reserved: %d free now"
        % (free, need, got))
    if got < need:
        raise BenchError("hugepages: %d free, %d needed" % (got, need))


def measure(a, cls, n_vms, flows, rundir, pcap, ring="split",
            inner="ipv4"):
    """-> list of per-window dicts."""
    sockets = [rundir / ("vhostsock%d" % i) for i in range(n_vms)]
    rows = []
    ab = a.ab if cls.name == "vxswitch" else []
    reps_left = a.reps * (1 + len(ab))
    states = e2e_stages.ab_states(ab, reps_left)
    while reps_left > 0:
        windows = 1 if a.fresh else reps_left
        reps_left -= windows
        tps, sw = [], cls(a, rundir, n_vms, flows, pcap, sockets,
                          **({"inner": inner} if inner != "ipv4" else {}))
        try:
            if hasattr(sw, "topo"):
                hugepages_for(a, sw.topo, n_vms)
            tps = start_all(a, sw, rundir, sockets, n_vms, ring)
            for w_i in range(windows):
                opts = ""
                if ab:      # --ab: this window's option states
                    off = states[len(rows)]
                    for o in ab:
                        sw.set_opt(o, o != off)
                    opts = "%s=off" % off if off else ",".join(ab) + "=on"
                sw.clear()
                rx0, tx0 = sw.nic()
                t_start = time.monotonic()
                cpu = CpuOthers(sw.pids() + [tp.pid for tp in tps]
                                + [os.getpid()])
                prof = None
                if a.profile and w_i == 0:
                    prof = start_profile(a, sw, n_vms, flows)
                time.sleep(a.seconds)
                rx1, tx1 = sw.nic()
                secs = time.monotonic() - t_start
                others = cpu.cpus() or 0.0
                if prof:
                    prof.wait(a.seconds + 30)
                pm = sw.pmd()
                loop = tx1 - tx0
                row = {
                    "switch": sw.name, "vms": n_vms, "flows": flows,
                    "rep": len(rows) + 1, "seconds": round(secs, 3),
                    "nic_rx": rx1 - rx0, "nic_tx": loop,
                    "mpps": loop / secs / 1e6,
                    "nic_rx_mpps": (rx1 - rx0) / secs / 1e6,
                    "pmd_rx": int(pm["pmd_rx"]), "busy": int(pm["busy"]),
                    "idle": int(pm["idle"]),
                    "busy_pct": 100.0 * pm["busy"] / (pm["busy"] + pm["idle"])
                    if pm["busy"] + pm["idle"] else 0,
                    "cyc_per_rx_pkt": pm["busy"] / pm["pmd_rx"]
                    if pm["pmd_rx"] else 0,
                    "cyc_per_loop_pkt": pm["busy"] / loop if loop else 0,
                    "emc_hits": int(pm.get("emc_hits", 0)),
                    "megaflow_hits": int(pm.get("megaflow_hits", 0)),
                    "upcalls": int(pm.get("upcalls", 0)),
                    "pkts_per_batch": round(pm.get("pkts_per_batch", 0), 2),
                    "nic_rxd": a.rxd or "", "nic_txd": a.txd or "",
                    "vm_queue_size": a.vm_queue_size,
                    "vm_mode": "per-vm" if a.per_vm_testpmd else "one",
                    "others_cpu": round(others, 3), "ring": ring,
                    "opts": opts, "inner": inner,
                }
                if hasattr(sw, "stages"):
                    row.update(sw.stages())
                rows.append(row)
                say("    rep %d%s: %.3f Mpps loop (NIC rx %.3f Mpps), %.0f busy "
                    "cycles/rx pkt, %.0f busy cycles/loop pkt, busy %.0f%%, "
                    "%.1f pkts/batch"
                    % (row["rep"], " (%s)" % opts if opts else "",
                       row["mpps"], row["nic_rx_mpps"],
                       row["cyc_per_rx_pkt"], row["cyc_per_loop_pkt"],
                       row["busy_pct"], row["pkts_per_batch"]))
                if others > 0.05:
                    say("    (other processes used %.0f%% of a CPU on CPUs "
                        "0-1 during this window)" % (100 * others))
                if row["upcalls"] > 200 * a.seconds and hasattr(sw,
                                                                "dp_flows"):
                    # upcalls after the warm-up: what the megaflows were
                    dump = rundir / ("upcalls-%dvm-%s-%s-%d.txt" % (
                        n_vms, fmt_count(flows), inner, row["rep"]))
                    dump.write_text(sw.dp_flows() + sw.log_tail())
                    say("    %d upcalls in the window: %s" % (row["upcalls"],
                                                            dump))
            d = sw.drops()
            if d:
                say("    drops/coverage since start: %s"
                    % ", ".join("%s=%d" % kv for kv in sorted(d.items())))
        except (BenchError, AssertionError, TimeoutError, OSError,
                subprocess.SubprocessError) as e:
            say("    FAILED: %s" % str(e)[:3000])
            say("    log tail:\n%s" % sw.log_tail())
            rows.append({"switch": sw.name, "vms": n_vms, "flows": flows,
                         "ring": ring, "inner": inner, "rep": 0,
                         "error": str(e).splitlines()[0][:300]})
            reps_left = 0
        finally:
            sw.stop()
            stop_vms(tps)
            vxlib.reap_all()
    return rows


def start_profile(a, sw, n_vms, flows):
    """perf/profile.sh over this window, output to perf/results/."""
    out = RESULTS / ("profile-%s-%s-%dvm-%s.txt" % (a.tag, sw.name, n_vms,
                                                    fmt_count(flows)))
    cmd = [str(REPO / "perf" / "profile.sh"), "-c", str(PMD_CORE), "-s",
           str(int(a.seconds)), "--no-clear"]
    if sw.name == "ovs":
        cmd += ["--ovs", str(sw.dir / "ovs-vswitchd.ctl")]
    else:
        cmd += ["-S", str(sw.sw.ctl_socket)]
    log = open(out, "w")
    say("    profiling this window: %s > %s" % (" ".join(cmd),
                                               out.relative_to(REPO)))
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                            env=dict(os.environ, VXS_CTL=str(
                                REPO / "build" / "app" / "vxswitch-ctl")))


# ---------------------------------------------------------------- reports

def summarize(rows):
    out = {}
    for r in rows:
        if r.get("rep", 0) == 0:
            continue
        out.setdefault((r["switch"], r["vms"], r["flows"],
                        e2e_stages.variant(r)), []).append(r)
    summ = {}
    for k, rs in out.items():
        m = [r["mpps"] for r in rs]
        summ[k] = {"median": statistics.median(m), "min": min(m),
                   "max": max(m), "n": len(m),
                   "cyc_rx": statistics.median(r["cyc_per_rx_pkt"]
                                               for r in rs),
                   "cyc_loop": statistics.median(r["cyc_per_loop_pkt"]
                                                 for r in rs),
                   "busy_pct": statistics.median(r["busy_pct"] for r in rs)}
    return summ


def table(summ, vms_list, flows_list, switches, variants=("split",)):
    def cell(s):
        if not s:
            return "n/a"
        return "%.3f [%.3f, %.3f]" % (s["median"], s["min"], s["max"])
    lines = []
    hdr = "| N VMs | microflows | ring (opts) |"
    sep = "|---|---|---|"
    for sw in switches:
        hdr += " %s Mpps median [min, max] |" % sw
        sep += "---|"
    if len(switches) == 2:
        hdr += " ratio |"
        sep += "---|"
    for sw in switches:
        hdr += " %s busy cyc/rx pkt (cyc/loop pkt, busy %%) |" % sw
        sep += "---|"
    lines += [hdr, sep]
    for n, f, ring in [(n, f, r) for n in vms_list for f in flows_list
                       for r in variants]:
        ss = [summ.get((sw, n, f, ring)) for sw in switches]
        if not any(ss):
            continue
        line = "| %d | %s | %s |" % (n, fmt_count(f), ring)
        for s in ss:
            line += " %s |" % cell(s)
        if len(switches) == 2:
            line += (" %.2fx |" % (ss[0]["median"] / ss[1]["median"])
                     if all(ss) and ss[1]["median"] else " n/a |")
        for s in ss:
            line += (" %.0f (%.0f, %.0f%%) |" % (s["cyc_rx"], s["cyc_loop"],
                                                 s["busy_pct"])
                     if s else " n/a |")
        lines.append(line)
    return "\n".join(lines)


# ------------------------------------------------------------------- main

def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description="Full-loop VXLAN benchmark (seed 002 topology): "
        "vxswitch and/or OVS-DPDK, N VMs in testpmd, net_pcap NIC.")
    ap.add_argument("--switch", choices=["vxswitch", "ovs", "both"],
                    default="vxswitch")
    ap.add_argument("--compare", action="store_true",
                    help="same as --switch both")
    ap.add_argument("--vms", default="32",
                    help="comma-separated VM counts (default 32)")
    ap.add_argument("--flows", default="32,1k,250k",
                    help="comma-separated microflow counts, k/M suffixes "
                    "(default 32,1k,250k; 1M needs ~1400 2 MB hugepages "
                    "for net_pcap's replay ring, reserved as needed; OVS "
                    "is skipped above 250k: its pool is fixed)")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--fresh", action="store_true",
                    help="restart switch and VMs for every repetition")
    ap.add_argument("--offload", choices=["off", "model", "rte_flow"],
                    default="off",
                    help="vxswitch's partial offload on the NIC port: the "
                    "software Flow Director model marks what an E810 "
                    "would (default off)")
    ap.add_argument("--rxd", type=int, default=0,
                    help="NIC rx descriptors (default: the switch's own: "
                    "vxswitch 1024, OVS 2048)")
    ap.add_argument("--txd", type=int, default=0,
                    help="NIC tx descriptors (default: the switch's own)")
    ap.add_argument("--vm-queue-size", type=int, default=256,
                    help="virtio queue_size and testpmd --rxd/--txd "
                    "(default 256, the seed's)")
    ap.add_argument("--per-vm-testpmd", action="store_true",
                    help="one testpmd per VM (for hosts with cores to spare)")
    ap.add_argument("--vm-cpus", default="0",
                    help="CPUs for the VMs' testpmd(s) (default 0)")
    ap.add_argument("--tag", default=None,
                    help="results name: perf/results/e2e-TAG.* (default: "
                    "date-time)")
    ap.add_argument("--rundir", default="/tmp/vxs-e2e",
                    help="run dir (pcaps, logs, sockets)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--merge", nargs="+", metavar="TAG",
                    help="run nothing: merge perf/results/e2e-TAG.csv of "
                    "earlier runs (TAG:SWITCH takes only that switch's "
                    "rows) into e2e-<--tag>{.md,-summary.csv,.png}")
    ap.add_argument("--sg", default=None, metavar="MODES",
                    help="a security group on every VM port (perf/e2e_sg.py"
                    "): vxswitch modes of none,sg,ct, each in turn on the "
                    "same processes; VMs forward with 5tswap; output "
                    "perf/results/e2e-sg-TAG.*")
    ap.add_argument("--ovs-sg", default="ct", metavar="MODES",
                    help="with --sg: OVS's modes, of none,ct (default ct)")
    ap.add_argument("--proto", default="udp", metavar="PROTOS",
                    help="with --sg: the NIC's traffic, udp (default), tcp "
                    "(established-TCP data segments, gen-traffic.py --proto"
                    " tcp) or udp,tcp: each in turn (a start of switch and "
                    "VMs each), the group allowing all of them in; tables "
                    "and ratios per protocol")
    ap.add_argument("--probe-every", type=int, default=1024,
                    help="with --sg: one denied probe per this many NIC "
                    "packets (default 1024)")
    ap.add_argument("--ring", default="split", metavar="RINGS",
                    help="the VMs' virtqueue layouts, each measured in "
                    "turn: split (default), packed (virtio-user "
                    "packed_vq=1), or split,packed")
    ap.add_argument("--inner", default=None, metavar="FAMILIES",
                    help="the tenant traffic, ipv4 (default), "
                    "ipv6, or a list measured in turn per N and M, a start "
                    "each, repeats allowed: ipv4,ipv6,ipv6,ipv4 (ABBA); "
                    "IPv6 rows are the variant 'RING ipv6', set against "
                    "IPv4 in e2e-TAG-inner.md (perf/e2e_inner.py)")
    ap.add_argument("--ipv6", action="store_true",
                    help="same as --inner ipv6")
    ap.add_argument("--ab", default="", metavar="OPT[,OPT]",
                    help="vxswitch: DP options (dpif-netdev/opts-show) "
                    "switched per window on the same processes, all on "
                    "then each off alone, ABBA-interleaved; --reps "
                    "windows of each state ('opts' column)")
    ap.add_argument("--profile", action="store_true",
                    help="run perf/profile.sh over the first window of "
                    "each switch (perf/results/profile-TAG-*.txt)")
    a = ap.parse_args(argv)
    if a.compare:
        a.switch = "both"
    a.vms_list = [int(x) for x in a.vms.split(",")]
    a.flows_list = [parse_count(x) for x in a.flows.split(",")]
    a.vm_cpus = [int(x) for x in a.vm_cpus.split(",")]
    a.ab = [o for o in a.ab.split(",") if o]
    try:
        a.rings = e2e_stages.parse_rings(a.ring)
    except ValueError as e:
        ap.error(str(e))
    if a.ipv6 and a.inner not in (None, "ipv6"):
        ap.error("--ipv6 is --inner ipv6: not both")
    try:
        a.inners = e2e_inner.parse("ipv6" if a.ipv6 else a.inner or "ipv4")
    except ValueError as e:
        ap.error(str(e))
    if PMD_CORE in a.vm_cpus and os.cpu_count() > 2:
        ap.error("--vm-cpus must not include the PMD core %d" % PMD_CORE)
    a.switches = {"vxswitch": ["vxswitch"], "ovs": ["ovs"],
                  "both": ["vxswitch", "ovs"]}[a.switch]
    a.tag = a.tag or datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    a.argv = list(sys.argv[1:] if argv is None else argv)
    a.sg_modes = a.sg.split(",") if a.sg else []
    a.ovs_sg_modes = a.ovs_sg.split(",") if a.sg else []
    for m in a.sg_modes + a.ovs_sg_modes:
        if m not in ("none", "sg", "ct"):
            ap.error("security group mode %r: one of none, sg, ct" % m)
    if e2e_inner.check(a):
        ap.error(e2e_inner.check(a))
    if "sg" in a.ovs_sg_modes:
        ap.error("--ovs-sg: OVS has no sg() action")
    a.protos = list(dict.fromkeys(a.proto.split(",")))
    if not set(a.protos) <= set(e2e_sg.PROTOS):
        ap.error("--proto: udp, tcp or udp,tcp")
    if a.protos != ["udp"] and not a.sg:
        ap.error("--proto tcp needs --sg (the loop without a group is UDP)")
    if a.probe_every < 2:
        ap.error("--probe-every must be at least 2")
    # 5tswap: a VM's answer is the reply direction of the connection
    a.fwd = "5tswap" if a.sg else "macswap"
    return a


def build_id():
    """The vxswitch binary measured: HEAD commit (+dirty) and the binary's
    mtime (others rebuild build/ while benchmarks run)."""
    b = vxlib.build_dir() / "app" / "vxswitch"
    head = subprocess.run(["git", "-C", str(REPO), "describe", "--always",
                           "--dirty"], capture_output=True,
                          text=True).stdout.strip()
    try:
        mt = datetime.datetime.utcfromtimestamp(b.stat().st_mtime)
        return "%s, binary built %s UTC" % (head, mt.strftime("%H:%M:%S"))
    except OSError:
        return head


def read_rows(tag):
    rows = []
    with open(RESULTS / ("e2e-%s.csv" % tag), newline="") as fh:
        for r in csv.DictReader(fh):
            if r.get("error"):
                continue
            for k in ("vms", "flows", "rep"):
                r[k] = int(r[k])
            for k in ("mpps", "cyc_per_rx_pkt", "cyc_per_loop_pkt",
                      "busy_pct"):
                r[k] = float(r[k])
            rows.append(r)
    return rows


def merge(a):
    rows = []
    for t in a.merge:
        tag, _, only = t.partition(":")
        rows += [r for r in read_rows(tag) if not only or r["switch"] == only]
    summ = summarize(rows)
    vms = sorted({k[1] for k in summ}, reverse=True)
    flows = sorted({k[2] for k in summ})
    variants = list(dict.fromkeys(e2e_stages.variant(r) for r in rows))
    sws = [s for s in ("vxswitch", "ovs") if any(k[0] == s for k in summ)]
    text = table(summ, vms, flows, sws, variants)
    text += "\n\n" + e2e_stages.stage_table(rows)
    ratios = e2e_inner.ratio_table(rows)    # --inner: IPv6 against IPv4
    text += "\n\n" + ratios if ratios else ""
    (RESULTS / ("e2e-%s.md" % a.tag)).write_text(
        "Merged from %s\n\n%s\n" % (", ".join(a.merge), text))
    write_summary(RESULTS / ("e2e-%s-summary.csv" % a.tag), summ, a)
    with contextlib.suppress(Exception):
        e2e_stages.chart(summ, vms, flows, sws,
                         RESULTS / ("e2e-%s.png" % a.tag),
                         "full loop NIC->decap->VM(macswap)->encap->NIC, "
                         "merged: " + ", ".join(a.merge), variants)
    say(text)
    return 0


def write_summary(path, summ, a):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["switch", "vms", "flows", "ring", "mpps_median", "mpps_min",
                    "mpps_max", "reps", "busy_cyc_per_rx_pkt",
                    "busy_cyc_per_loop_pkt", "busy_pct", "nic_rxd",
                    "nic_txd", "vm_queue_size"])
        for (sw, n, f, ring), s in sorted(summ.items()):
            w.writerow([sw, n, f, ring, "%.4f" % s["median"], "%.4f" % s["min"],
                        "%.4f" % s["max"], s["n"], "%.0f" % s["cyc_rx"],
                        "%.0f" % s["cyc_loop"], "%.1f" % s["busy_pct"],
                        a.rxd or "default", a.txd or "default",
                        a.vm_queue_size])


def main(argv=None):
    a = parse_args(argv)
    if a.merge:
        return merge(a)
    if os.geteuid() != 0:
        say("run as root")
        return 2
    signal.signal(signal.SIGTERM, lambda *x: (_ for _ in ()).throw(
        KeyboardInterrupt()))
    rundir = Path(a.rundir)
    rundir.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    vxlib.ensure_hugepages() if vxlib.hugepages_free() < 600 else None
    say("e2e-bench: switches %s, VMs %s, flows %s, %d x %.0f s, NIC "
        "rxd/txd %s/%s, VM queue size %d, VMs as %s"
        % (",".join(a.switches), a.vms_list,
           [fmt_count(f) for f in a.flows_list], a.reps, a.seconds,
           a.rxd or "default", a.txd or "default", a.vm_queue_size,
           "one testpmd per VM" if a.per_vm_testpmd else
           "one testpmd, lcores on CPU %d" % a.vm_cpus[0]))
    build = build_id()
    say("vxswitch binary: %s" % build)
    if a.sg:
        return e2e_sg.sg_main(a, dict(
            REPO=REPO, PYTHON=PYTHON, SCRIPTS=SCRIPTS, RESULTS=RESULTS,
            VxRun=VxRun, OvsRun=OvsRun, start_all=start_all,
            stop_vms=stop_vms, build=build,
            rundir=rundir))
    rows = []
    try:
        for n in a.vms_list:
            for f in a.flows_list:
                t = time.monotonic()
                pcaps = {i: gen_pcap(rundir, n, f, i) for i in a.inners}
                say("== N=%d VMs, %s microflows (%s, %.1f s to write)"
                    % (n, fmt_count(f), ", ".join(p.name for p in
                                                  pcaps.values()),
                       time.monotonic() - t))
                for sw in a.switches:
                    if sw == "ovs" and f > 250000:
                        say("    ovs: n/a: %d flows do not fit OVS's "
                            "fixed %d-mbuf pool with net_pcap's replay "
                            "ring" % (f, OVS_MBUFS))
                        continue
                    cls = VxRun if sw == "vxswitch" else OvsRun
                    for ring, inner in [(r, i) for r in a.rings
                                        for i in a.inners]:
                        if len(a.rings) > 1 or len(a.inners) > 1:
                            say("    %s, %s rings, inner %s" % (sw, ring,
                                                               inner))
                        new = measure(a, cls, n, f, rundir, pcaps[inner],
                                      ring, inner)
                        for r in new:
                            r["build"] = build if sw == "vxswitch" else \
                                "ovs-vswitchd-dpdk 3.1.0"
                        rows += new
    except KeyboardInterrupt:
        say("interrupted")
    finally:
        vxlib.reap_all()
    fields = ["switch", "vms", "flows", "rep", "seconds", "mpps",
              "nic_rx_mpps", "nic_rx", "nic_tx", "pmd_rx", "busy", "idle",
              "busy_pct", "cyc_per_rx_pkt", "cyc_per_loop_pkt", "emc_hits",
              "megaflow_hits", "upcalls", "pkts_per_batch", "nic_rxd",
              "nic_txd", "vm_queue_size", "vm_mode", "ring", "opts",
              "inner", "others_cpu",
              "build", "error"] + e2e_stages.FIELDS
    raw = write_rows(RESULTS / ("e2e-%s.csv" % a.tag), fields, rows)
    summ = summarize(rows)
    sp = RESULTS / ("e2e-%s-summary.csv" % a.tag)
    write_summary(sp, summ, a)
    png = RESULTS / ("e2e-%s.png" % a.tag)
    title = ("full loop NIC->decap->VM(macswap)->encap->NIC, %d x %.0f s, "
             "NIC rxd/txd %s/%s, VM queue %d" % (a.reps, a.seconds,
                                                 a.rxd or "def",
                                                 a.txd or "def",
                                                 a.vm_queue_size))
    variants = list(dict.fromkeys(e2e_stages.variant(r) for r in rows))
    with contextlib.suppress(Exception):
        e2e_stages.chart(summ, a.vms_list, a.flows_list, a.switches, png,
                         title, variants)
    stages = e2e_stages.stage_table(rows)
    (RESULTS / ("e2e-%s-stages.md" % a.tag)).write_text(stages + "\n")
    with contextlib.suppress(Exception):
        e2e_stages.stage_chart(rows, RESULTS / ("e2e-%s-stages.png" % a.tag),
                               "where the PMD's cycles go: " + title)
    say()
    say(table(summ, a.vms_list, a.flows_list, a.switches, variants))
    say()
    say(stages)
    say()
    ratios = e2e_inner.ratio_table(rows)
    if ratios:
        (RESULTS / ("e2e-%s-inner.md" % a.tag)).write_text(
            "e2e-bench.py %s\nvxswitch: %s\n\n%s\n"
            % (" ".join(a.argv), build, ratios))
        say(ratios + "\n")
    say("results: %s, %s, e2e-%s-stages.md%s" % (
        raw.relative_to(REPO), sp.relative_to(REPO), a.tag,
        ", " + str(png.relative_to(REPO)) if png.exists() else ""))
    if not a.keep:
        for p in rundir.glob("*.log"):
            p.unlink()
    errs = [r for r in rows if r.get("rep") == 0]
    return 1 if errs or not summ else 0


if __name__ == "__main__":
    sys.exit(main())
