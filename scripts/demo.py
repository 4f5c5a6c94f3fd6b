#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""vxswitch demo: forwards real VXLAN traffic for a few seconds and prints
what happened (README, "What the demo does").

Two VMs (one dpdk-testpmd, two virtio-user ports with server=1, macswap)
attach to vxswitch over vhost-user; the NIC is DPDK's net_pcap replaying
scapy-made VXLAN frames from the remote VTEP (172.1.0.0 -> our VTEP
172.1.0.100, VNI 1001). Every frame goes NIC -> decap -> VM i -> macswap ->
encap -> NIC: the full loop. The switch runs exactly as the README says:

    build/app/vxswitch --config topology/vxlan-2vm.yaml

with the topology's variables pointing at the run dir. It runs twice:

 1. the measured run: rx.pcap replayed in a loop (infinite_rx=1) for
    --seconds after a warm-up; the NIC's tx_pcap is /dev/null, since at
    full rate it would write ~350 MB/s to disk (and the disk writes would
    be part of what we measure). Prints per-port counters and Mpps, drops
    by reason, the PMD's cycles per packet, cache hits, the megaflows
    (dpctl/dump-flows) and the OpenFlow rules (dump-flows).
 2. the sample run: a few frames (4 per flow, at most 256) replayed once
    (infinite_rx=0) and tx_pcap written to a real file, so every frame in
    can be matched with a frame out, and the output decoded
    (scripts/pcap-summary.py). rx_pcap is a FIFO the demo writes into only
    once both VMs are attached: net_pcap reads a finite rx_pcap as soon as
    the port starts, before any VM is connected, and would drop it all.

Needs root, hugepages (scripts/hugepages.sh) and a build
(meson setup build && meson compile -C build); scripts/demo.sh does all of
that first. Exit status: 0 when frames made the full loop in both runs,
every sample frame came back and the switch returned every mbuf; 1
otherwise (2: bad arguments, 130: interrupted).
"""

import argparse
import contextlib
import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from vxswitch_tools import harness as vxlib
from vxswitch_tools.cpuload import CpuOthers

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts"
TOPOLOGY = REPO / "topology" / "vxlan-2vm.yaml"
PYTHON = "/usr/bin/python3"
RUN_DIR = Path("/tmp/vxswitch-demo")
LOCK_FILE = "/tmp/vxswitch-demo.lock"
N_VMS = 2                       # fixed by topology/vxlan-2vm.yaml
FRAME = 128                     # outer frame size on the wire, without FCS
WARMUP_S = 1.0                  # before the window: megaflows, rings settle
SWITCH_MEM_MB = 600             # eal.memory-mb 512 + what EAL maps (~70)
TESTPMD_MEM_MB = 64             # --in-memory, 8192 mbufs: ~34 MB mapped
EAL_PREFIX = "vxswitch-demo"    # topology/vxlan-2vm.yaml's eal.file-prefix
MBUF_EXIT_RE = re.compile(r"vxswitch: mbufs in use at exit: (\d+)")

DROP_WHY = {
    "malformed": "a frame failed the header sanity checks",
    "no_rule": "no OpenFlow rule matched (e.g. an inner dst with no VM)",
    "rule_drop": "a rule said actions=drop",
    "not_vtep": "an underlay frame was not addressed to our VTEP",
    "bad_vxlan": "VXLAN flags or length were wrong",
    "unknown_vni": "the VNI is not configured on the vxlan port",
    "no_neigh": "the remote VTEP's MAC was not known yet (ARP pending)",
    "no_route": "no underlay route to the remote VTEP",
    "arp_ignored": "an ARP frame was not for our VTEP IP",
    "port_down": "the output VM's vhost-user port was not connected",
    "no_headroom": "no room in the mbuf to push the outer headers",
    "tx_full": "a VM's vring was full: both VMs are one testpmd thread on "
               "CPU 0, slower than the NIC's replay",
    "upcall_fail": "the megaflow table was full",
    "loop": "the output port was the input port",
}


class DemoError(Exception):
    """A failure to report in one line (plus an optional log tail)."""


def say(msg=""):
    print(msg, flush=True)


def head(title):
    say()
    say("== " + title)


# -------------------------------------------------------------- preflight

def read_int(path, default=0):
    try:
        return int(Path(path).read_text().strip())
    except (OSError, ValueError):
        return default


def check_hugepages():
    """Fails with what to do unless hugetlbfs is mounted and enough 2 MB
    pages are free for the switch and the VMs."""
    mounts = Path("/proc/mounts").read_text().splitlines()
    if not any(len(m.split()) > 2 and m.split()[2] == "hugetlbfs"
               for m in mounts):
        raise DemoError(
            "no hugetlbfs mounted: run scripts/hugepages.sh as root (or "
            "scripts/demo.sh without VXS_SKIP_DEPS=1)")
    sysdir = "/sys/kernel/mm/hugepages/hugepages-2048kB/"
    total = read_int(sysdir + "nr_hugepages")
    free = read_int(sysdir + "free_hugepages")
    need = (SWITCH_MEM_MB + TESTPMD_MEM_MB) // 2
    if free < need:
        raise DemoError(
            "only %d free 2 MB hugepages (%d reserved), the demo needs %d: "
            "run scripts/hugepages.sh as root (VXS_HUGEPAGES=N to reserve "
            "more; it also removes hugepage files left by killed DPDK "
            "processes)" % (free, total, need))
    return free


def preflight(build):
    if os.geteuid() != 0:
        raise DemoError("run as root (hugepages, vhost-user sockets): "
                        "sudo scripts/demo.sh")
    for b in ("vxswitch", "vxswitch-ctl"):
        p = build / "app" / b
        if not (p.is_file() and os.access(p, os.X_OK)):
            raise DemoError(
                "%s is missing: build first (scripts/demo.sh does it, or "
                "meson setup build && meson compile -C build)" % p)
    if not shutil.which("dpdk-testpmd"):
        raise DemoError("dpdk-testpmd not found (Debian package dpdk; "
                        "scripts/install-deps.sh installs it)")
    if not shutil.which("stdbuf"):
        raise DemoError("stdbuf not found (coreutils)")
    r = subprocess.run([PYTHON, "-c", "import scapy, yaml"],
                       capture_output=True, text=True)
    if r.returncode:
        raise DemoError("%s lacks scapy or yaml (python3-scapy, python3-"
                        "yaml; scripts/install-deps.sh installs them)"
                        % PYTHON)
    check_hugepages()


# --------------------------------------------------------------- processes

def _die_with_parent():
    """In the child: SIGKILL when the demo dies, even by SIGKILL (a
    busy-polling process left behind would eat a core)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


def tail(path, n=25):
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join("    " + l for l in lines[-n:])


class Switch:
    """build/app/vxswitch --config topology/vxlan-2vm.yaml, its variables
    (VXS_*) from env; log in the run dir; ctl() runs vxswitch-ctl."""

    def __init__(self, build, rundir, env, log_name):
        self.bin = build / "app" / "vxswitch"
        self.ctl_bin = build / "app" / "vxswitch-ctl"
        self.sock = rundir / "vxswitch.ctl"
        self.env = dict(os.environ, **env)
        self.log_path = rundir / log_name
        self.proc = None
        self.returncode = None

    def start(self):
        with contextlib.suppress(FileNotFoundError):
            self.sock.unlink()
        log = open(self.log_path, "wb")
        try:
            self.proc = subprocess.Popen(
                [str(self.bin), "--config", str(TOPOLOGY)], cwd=REPO,
                env=self.env, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=_die_with_parent)
        finally:
            log.close()
        deadline = time.monotonic() + 30
        while True:
            if self.proc.poll() is not None:
                raise DemoError("vxswitch exited with %d while starting; "
                                "its log:\n%s" % (self.proc.returncode,
                                                  tail(self.log_path)))
            if self.sock.exists() and self.ctl_ok("show"):
                return
            if time.monotonic() > deadline:
                raise DemoError("vxswitch's control socket %s did not answer "
                                "within 30 s; its log:\n%s"
                                % (self.sock, tail(self.log_path)))
            time.sleep(0.1)

    def run_ctl(self, *args, json_out=False, timeout=10):
        cmd = [str(self.ctl_bin), "-s", str(self.sock), "--timeout", str(timeout)]
        cmd += (["--json"] if json_out else []) + list(args)
        try:
            return subprocess.run(cmd, capture_output=True, text=True,
                                  timeout=timeout + 5,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(cmd, 124, "", "timed out")

    def ctl_ok(self, *args):
        return self.run_ctl(*args, timeout=2).returncode == 0

    def ctl(self, *args, json_out=False):
        r = self.run_ctl(*args, json_out=json_out)
        if r.returncode != 0:
            raise DemoError("vxswitch-ctl %s: exit %d: %s%s\nswitch log:\n%s"
                            % (" ".join(args), r.returncode, r.stdout.strip(),
                               r.stderr.strip(), tail(self.log_path)))
        return json.loads(r.stdout) if json_out else r.stdout

    def ports(self):
        return {p["name"]: p for p in self.ctl("show", json_out=True)["ports"]}

    def wait_vhost_up(self, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise DemoError("vxswitch exited with %d; its log:\n%s"
                                % (self.proc.returncode, tail(self.log_path)))
            down = [n for n, p in self.ports().items()
                    if p["type"].startswith("dpdkvhostuser")
                    and p.get("state") != "up"]
            if not down:
                return
            if time.monotonic() > deadline:
                raise DemoError("vhost-user port(s) %s not up after %d s; "
                                "switch log:\n%s"
                                % (", ".join(down), timeout,
                                   tail(self.log_path)))
            time.sleep(0.1)

    def stop(self):
        """SIGTERM, as doc/running.md says; returns (exit code, the 'mbufs in
        use at exit' line)."""
        if self.proc is None:
            return None, None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
                raise DemoError("vxswitch did not exit within 15 s of "
                                "SIGTERM (killed); its log:\n%s"
                                % tail(self.log_path))
        self.returncode = self.proc.returncode
        m = None
        with contextlib.suppress(OSError):
            m = MBUF_EXIT_RE.search(self.log_path.read_text(errors="replace"))
        return self.returncode, m.group(0) if m else None

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5)


# ---------------------------------------------------------------- helpers

def gen_traffic(out, flows, count=0):
    cmd = [PYTHON, str(SCRIPTS / "gen-traffic.py"), "--nic", "--vms",
           str(N_VMS), "--flows", str(flows), "--size", str(FRAME), "-q",
           "--out", str(out)]
    if count:
        cmd += ["--count", str(count)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise DemoError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                              r.stderr.strip()))


def rel(p):
    """p relative to the repository when it is inside it."""
    try:
        return str(Path(p).relative_to(REPO))
    except ValueError:
        return str(p)


def indent(text, by="  "):
    return "\n".join(by + l for l in text.rstrip().splitlines())


def mpps(n, secs):
    return n / secs / 1e6 if secs > 0 else 0.0


def start_vms(rundir, sockets, name, quiet=False):
    """One dpdk-testpmd, a virtio-user port per VM socket (server=1),
    macswap, both lcores on CPU 0 (vxlib.Testpmd: the testpmd quirks)."""
    tp = vxlib.Testpmd(rundir, sockets=sockets, name=name, cpus=(0,))
    if quiet:
        say("  the VMs: a fresh dpdk-testpmd, same command")
    else:
        say("  %s" % " ".join(tp.argv))
    return tp


# ----------------------------------------------------------------- phases

def measured_run(a, build, rundir, rx_pcap, sockets, tp_box, result):
    env = {"VXS_RUN_DIR": str(rundir), "VXS_RX_PCAP": str(rx_pcap),
           "VXS_TX_PCAP": "/dev/null", "VXS_INFINITE_RX": "1"}
    head("1/2 measured run: rx.pcap replayed in a loop, %.1f s window"
         % a.seconds)
    say("  the VMs: one dpdk-testpmd, %d virtio-user ports (server=1), "
        "macswap:" % N_VMS)
    tp_box.append(start_vms(rundir, sockets, "vms-measured"))
    tp = tp_box[-1]
    sw = Switch(build, rundir, env, "vxswitch-measured.log")
    result["switches"].append(sw)
    say("  the switch:")
    say("  %s %s --config %s" % (" ".join("%s=%s" % kv for kv in env.items()),
                                 rel(sw.bin), rel(TOPOLOGY)))
    t0 = time.monotonic()
    sw.start()
    sw.wait_vhost_up()
    tp.wait_ready()
    say("  both VMs attached after %.1f s; warming up %.1f s"
        % (time.monotonic() - t0, WARMUP_S))
    time.sleep(WARMUP_S)

    sw.ctl("dpif-netdev/pmd-stats-clear")
    t_start = time.monotonic()
    cpu = CpuOthers([sw.proc.pid, tp.proc.pid, os.getpid()])
    time.sleep(a.seconds)
    ports = sw.ports()
    secs = time.monotonic() - t_start
    pmds = sw.ctl("dpif-netdev/pmd-stats-show", json_out=True)
    report(ports, pmds, secs, cpu.cpus(), result)

    head("megaflows (vxswitch-ctl dpctl/dump-flows)")
    say(indent(sw.ctl("dpctl/dump-flows")) or "  (none)")
    head("OpenFlow rules (vxswitch-ctl dump-flows)")
    say(indent(sw.ctl("dump-flows")) or "  (none)")

    head("stopping the switch (SIGTERM) and the VMs")
    rc, line = sw.stop()
    say("  %s (exit code %d)" % (line or "no 'mbufs in use at exit' line in "
                                 "its log", rc))
    result["exit_codes"].append(rc)
    stop_vms(tp)


def report(ports, pmds, secs, cpu, result):
    head("counters over the %.2f s window (after vxswitch-ctl "
         "dpif-netdev/pmd-stats-clear)" % secs)
    say("  %-12s %12s %8s %12s %8s %10s" % ("port", "rx packets", "Mpps",
                                             "tx packets", "Mpps",
                                             "tx drops"))
    for name, p in ports.items():
        note = ""
        if p["type"] == "vxlan" and not (p["rx_packets"] or p["tx_packets"]):
            note = "  (tunnel port: see tunnel pops/pushes)"
        say("  %-12s %12d %8.3f %12d %8.3f %10d%s"
            % (name, p["rx_packets"], mpps(p["rx_packets"], secs),
               p["tx_packets"], mpps(p["tx_packets"], secs),
               p["tx_dropped"], note))
    nic = next((p for p in ports.values() if p.get("underlay")), None)
    if nic is None:
        raise DemoError("show --json names no underlay port")
    loop = nic["tx_packets"]
    result["loop_packets"] = loop
    say()
    say("  full loop (NIC -> decap -> VM -> macswap -> encap -> NIC): "
        "%.3f Mpps" % mpps(loop, secs))
    say("    %d frames sent back out of %s encapsulated (%.2f Gbit/s of "
        "%d-byte frames)" % (loop, nic["name"],
                             loop * FRAME * 8 / secs / 1e9, FRAME))
    say("  NIC rx: %.3f Mpps (%d frames: net_pcap fills every rx burst the "
        "switch asks for)" % (mpps(nic["rx_packets"], secs),
                              nic["rx_packets"]))
    if nic["rx_packets"]:
        say("    %.1f%% of them made the full loop"
            % (100.0 * loop / nic["rx_packets"]))

    drops = {}
    for pmd in pmds:
        for k, v in pmd.get("drops", {}).items():
            drops[k] = drops.get(k, 0) + v
    say()
    nz = {k: v for k, v in drops.items() if v}
    if not nz:
        say("  drops: none")
    else:
        say("  drops by reason (pmd-stats-show):")
        for k, v in sorted(nz.items(), key=lambda kv: -kv[1]):
            say("    %-12s %12d  %.3f Mpps  %s"
                % (k, v, mpps(v, secs), DROP_WHY.get(k, "")))
            if k == "tx_full":
                by_port = ["%s %d" % (n, p["tx_dropped"])
                           for n, p in ports.items() if p["tx_dropped"]]
                say("    %-12s %12s  per port: %s" % ("", "",
                                                      ", ".join(by_port)))

    for pmd in pmds:
        busy, idle = pmd["busy_cycles"], pmd["idle_cycles"]
        total = busy + idle
        pk = pmd["packets"]
        hz = total / secs if secs else 0
        say()
        say("  PMD on core %d (dpif-netdev/pmd-stats-show):" % pmd["core"])
        say("    packets received: %d (from the NIC and the VMs: a full "
            "loop is two)" % pk)
        say("    processing cycles per packet: %.1f, busy %.1f%% of its "
            "cycles" % (pmd["cycles_per_packet"],
                        100.0 * busy / total if total else 0))
        if pmd["cycles_per_packet"] and hz:
            say("      at ~%.2f GHz that is ~%.1f Mpps for one fully busy "
                "core" % (hz / 1e9, hz / pmd["cycles_per_packet"] / 1e6))
        say("    lookups: EMC hits %d, megaflow hits %d, upcalls %d%s"
            % (pmd["emc_hits"], pmd["megaflow_hits"], pmd["upcalls"],
               " (megaflows installed during the warm-up)"
               if not pmd["upcalls"] else ""))
        say("    tunnel pops (decap) %d, pushes (encap) %d; %.1f packets "
            "per output batch; %d megaflows"
            % (pmd["tunnel_pops"], pmd["tunnel_pushes"],
               pmd["tx_packets"] / pmd["tx_batches"]
               if pmd["tx_batches"] else 0, pmd["megaflows"]))
    if cpu is not None and cpu > 0.1:
        say()
        say("  note: other processes used %.0f%% of a CPU on CPUs 0-1 during "
            "the window, time the switch and the VMs did not poll: expect "
            "lower rates than on a quiet host" % (100 * cpu))


def sample_run(a, build, rundir, sockets, tp_box, result):
    n = min(4 * a.flows, 256)
    result["sample_n"] = n
    head("2/2 sample run: %d frames (4 per flow, at most 256) replayed once, "
         "tx_pcap to a file" % n)
    rx = rundir / "rx-sample.pcap"
    fifo = rundir / "rx-sample.fifo"
    tx = rundir / "tx.pcap"
    gen_traffic(rx, a.flows, n)
    data = rx.read_bytes()
    os.mkfifo(fifo, 0o600)
    # O_RDWR: neither this open nor the switch's fopen() waits for the
    # other end; the switch reads the pcap header at probe time, then
    # blocks in its first rx burst until the frames come (or EOF)
    fd = os.open(fifo, os.O_RDWR)
    result["fifo_fd"] = fd
    os.write(fd, data[:24])
    env = {"VXS_RUN_DIR": str(rundir), "VXS_RX_PCAP": str(fifo),
           "VXS_TX_PCAP": str(tx), "VXS_INFINITE_RX": "0"}
    # a fresh testpmd: the measured run's one does take the new switch's
    # connection (virtio-user server=1 reconnects), but the new switch then
    # also dequeues what the VMs had queued for the old one (in one try,
    # 128 frames in, 512 out)
    tp_box.append(start_vms(rundir, sockets, "vms-sample", quiet=True))
    tp = tp_box[-1]
    sw = Switch(build, rundir, env, "vxswitch-sample.log")
    result["switches"].append(sw)
    say("  %s %s --config %s" % (" ".join("%s=%s" % kv for kv in env.items()),
                                 rel(sw.bin), rel(TOPOLOGY)))
    say("  (rx_pcap is a FIFO: the frames go in once both VMs are attached)")
    sw.start()
    sw.wait_vhost_up()
    tp.wait_ready()
    # now let the frames in, then EOF
    view = memoryview(data)[24:]
    while view:
        k = os.write(fd, view)
        view = view[k:]
    os.close(fd)
    result["fifo_fd"] = None

    nic_name = next(nm for nm, p in sw.ports().items() if p.get("underlay"))
    last, t_last = -1, time.monotonic()
    while True:
        out = sw.ports()[nic_name]["tx_packets"]
        if out >= n:
            break
        if out != last:
            last, t_last = out, time.monotonic()
        elif time.monotonic() - t_last > 2:
            break
        time.sleep(0.05)
    ports = sw.ports()
    pmds = sw.ctl("dpif-netdev/pmd-stats-show", json_out=True)
    nic = ports[nic_name]
    result["sample_in"], result["sample_out"] = nic["rx_packets"], \
        nic["tx_packets"]
    say("  %d frames into %s, %d back out encapsulated%s"
        % (nic["rx_packets"], nic_name, nic["tx_packets"],
           "" if nic["tx_packets"] == n else "  <-- expected %d" % n))
    say("  %s" % ", ".join("%s rx %d tx %d" % (nm, p["rx_packets"],
                                                p["tx_packets"])
                           for nm, p in ports.items()))
    drops = {}
    for pmd in pmds:
        for k, v in pmd.get("drops", {}).items():
            if v:
                drops[k] = drops.get(k, 0) + v
        say("  PMD core %d: %d packets, tunnel pops %d, pushes %d, EMC hits "
            "%d, megaflow hits %d, upcalls %d"
            % (pmd["core"], pmd["packets"], pmd["tunnel_pops"],
               pmd["tunnel_pushes"], pmd["emc_hits"], pmd["megaflow_hits"],
               pmd["upcalls"]))
    say("  drops: " + (", ".join("%s=%d" % kv for kv in drops.items())
                       or "none"))
    rc, line = sw.stop()
    say("  switch stopped (SIGTERM): %s (exit code %d)"
        % (line or "no 'mbufs in use at exit' line in its log", rc))
    result["exit_codes"].append(rc)
    stop_vms(tp)
    return tx


def decode(tx):
    head("output frames (%s, scripts/pcap-summary.py -k 4)" % tx.name)
    r = subprocess.run([PYTHON, str(SCRIPTS / "pcap-summary.py"), str(tx),
                        "-k", "4"], capture_output=True, text=True)
    out = (r.stdout + r.stderr).rstrip()
    say("\n".join("  " + l for l in out.splitlines()))
    if r.returncode:
        raise DemoError("pcap-summary.py failed (exit %d)" % r.returncode)
    say("  (inner: testpmd's macswap swaps the MACs only, so the inner IPs "
        "and ports are those the NIC delivered; the outer UDP source port "
        "is the switch's hash of the inner flow)")


def stop_vms(tp):
    tp.stop()
    if tp.stats:
        say("  the VMs (testpmd's forward statistics, its whole run): "
            + "; ".join(
            "VM%d rx %d tx %d tx-dropped %d"
            % (p, s["rx"], s["tx"], s["tx_dropped"])
            for p, s in sorted(tp.stats.items())))


# ------------------------------------------------------------------- main

def take_lock():
    """One demo at a time (they share the run dir, the sockets and the
    EAL file prefix): an flock held until the demo exits."""
    import fcntl
    f = open(LOCK_FILE, "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        pid = f.read().strip() or "?"
        raise DemoError("another demo is running (pid %s holds %s): wait "
                        "for it or stop it" % (pid, LOCK_FILE)) from None
    f.seek(0)
    f.truncate()
    f.write("%d\n" % os.getpid())
    f.flush()
    return f


def check_prefix_free():
    """Fails if a DPDK process runs with the topology's EAL file prefix (a
    vxswitch started by hand from topology/vxlan-2vm.yaml)."""
    import fcntl
    cfg = Path("/var/run/dpdk") / EAL_PREFIX / "config"
    try:
        fd = os.open(cfg, os.O_RDWR)
    except OSError:
        return
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.lockf(fd, fcntl.LOCK_UN)
    except OSError:
        raise DemoError(
            "a DPDK process is running with the EAL file prefix '%s' (a "
            "vxswitch started from %s?): stop it first"
            % (EAL_PREFIX, rel(TOPOLOGY))) from None
    finally:
        os.close(fd)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description="vxswitch demo: 2 VMs (testpmd) and a net_pcap NIC "
        "replaying VXLAN traffic; prints counters, Mpps, drops, megaflows "
        "and a decode of the output.",
        epilog="run dir: %s (removed at the end unless --keep or the demo "
        "failed); environment: VXS_BUILD_DIR (default: build)" % RUN_DIR)
    ap.add_argument("--seconds", type=float, default=5.0,
                    help="measured window in seconds (default 5)")
    ap.add_argument("--flows", type=int, default=32,
                    help="inner microflows in the NIC's traffic (default 32)")
    ap.add_argument("--vms", type=int, default=N_VMS, choices=[N_VMS],
                    help="VMs: 2, fixed by topology/vxlan-2vm.yaml")
    ap.add_argument("--keep", action="store_true",
                    help="keep the run dir (pcaps, logs) afterwards")
    a = ap.parse_args(argv)
    if a.seconds <= 0 or a.seconds > 600:
        ap.error("--seconds must be in (0, 600]")
    if a.flows < N_VMS:
        ap.error("--flows must be >= %d (one per VM at least)" % N_VMS)
    return a


def on_sigterm(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    a = parse_args(argv)
    signal.signal(signal.SIGTERM, on_sigterm)
    signal.signal(signal.SIGHUP, on_sigterm)
    build = Path(os.environ.get("VXS_BUILD_DIR", REPO / "build")).resolve()
    rundir = RUN_DIR

    result = {"switches": [], "exit_codes": [], "fifo_fd": None,
              "loop_packets": 0, "sample_n": 0, "sample_in": 0,
              "sample_out": 0}
    tp_box = []
    ok = False
    rc = 1
    lock = None
    made_rundir = False
    try:
        preflight(build)
        lock = take_lock()      # noqa: F841 (held until exit)
        check_prefix_free()
        shutil.rmtree(rundir, ignore_errors=True)
        rundir.mkdir(parents=True)
        made_rundir = True
        say("vxswitch demo: %d VMs (testpmd, macswap) on vhost-user, a "
            "net_pcap NIC replaying VXLAN from the remote VTEP; run dir %s"
            % (N_VMS, rundir))
        sockets = [rundir / ("vhost%d.sock" % i) for i in range(N_VMS)]

        head("traffic: scripts/gen-traffic.py --nic --vms %d --flows %d"
             % (N_VMS, a.flows))
        rx_pcap = rundir / "rx.pcap"
        gen_traffic(rx_pcap, a.flows)
        say("  %s: %d VXLAN frames of %d B, one per flow: eth "
            "10:00:00:00:00:02 > 10:00:00:00:00:01, 172.1.0.0 > 172.1.0.100 "
            "udp > 4789, VNI 1001, inner 192.2.0.0 > 192.1.0.i (VM i = flow "
            "%% %d)" % (rx_pcap, a.flows, FRAME, N_VMS))

        measured_run(a, build, rundir, rx_pcap, sockets, tp_box, result)
        tx = sample_run(a, build, rundir, sockets, tp_box, result)
        decode(tx)

        head("verdict")
        bad = []
        if result["loop_packets"] == 0:
            bad.append("no frame made the full loop in the measured run")
        if result["sample_out"] == 0:
            bad.append("no frame of the sample made the full loop")
        elif not (result["sample_out"] == result["sample_in"]
                  == result["sample_n"]):
            bad.append("sample: %d frames written, %d received by the NIC, "
                       "%d sent" % (result["sample_n"], result["sample_in"],
                                    result["sample_out"]))
        if any(rc != 0 for rc in result["exit_codes"]):
            bad.append("vxswitch exit codes %s (3: mbufs leaked)"
                       % result["exit_codes"])
        for b in bad:
            say("  FAIL: " + b)
        ok = not bad
        if ok:
            say("  OK: traffic made the full loop; every mbuf came back")
            rc = 0
    except DemoError as e:
        say()
        print("demo: error: %s" % e, file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        say()
        print("demo: interrupted; stopping everything", file=sys.stderr,
              flush=True)
        rc = 130
    except (AssertionError, TimeoutError, OSError) as e:
        # vxlib's HarnessError (testpmd did not start or stop) and the like
        say()
        print("demo: error: %s: %s" % (type(e).__name__, e), file=sys.stderr,
              flush=True)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if result["fifo_fd"] is not None:
            with contextlib.suppress(OSError):
                os.close(result["fifo_fd"])    # EOF: unblocks the PMD
        for sw in result["switches"]:
            if sw.proc is not None and sw.proc.poll() is None:
                with contextlib.suppress(Exception):
                    sw.stop()
                sw.kill()
        for tp in tp_box:
            with contextlib.suppress(Exception):
                if tp.running:
                    tp.stop(timeout=5)
            tp.kill()
        vxlib.reap_all()
        if result["switches"]:
            # our switches' hugepage files and runtime dir (fixed prefix)
            for f in Path("/dev/hugepages").glob(EAL_PREFIX + "map_*"):
                with contextlib.suppress(OSError):
                    f.unlink()
            shutil.rmtree(Path("/var/run/dpdk") / EAL_PREFIX,
                          ignore_errors=True)
        if made_rundir:
            if a.keep or not ok:
                say("run dir kept: %s (logs, pcaps)" % rundir)
            else:
                shutil.rmtree(rundir, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
