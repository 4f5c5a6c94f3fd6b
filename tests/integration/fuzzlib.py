# SPDX-License-Identifier: BSD-3-Clause
"""vxswitch's own fuzz suite: the engine behind tests/integration/
test_fuzz.py (small, in CI, against whichever build VXS_BUILD_DIR names)
and scripts/fuzz.py (long runs: --packets 10M against build-asan).

Categories (CATEGORIES), each run against a fresh switch:

  nic        malformed underlay frames (fuzz_inputs.nic_mutants: truncated
             at every header, bad lengths/checksums, IP options, fragments,
             VLAN/QinQ, IPv6, runts, jumbo/multi-segment, bit flips, odd
             ARP) replayed by net_pcap infinite_rx into the NIC; two
             testpmd VMs in macswap send what reaches them back
  arp-flood  ARP requests/replies from N distinct sender IPs into the NIC,
             with good VXLAN frames between them
  vm         malformed guest frames: a testpmd with a net_pcap port
             (rx_pcap=mutants, infinite_rx) and a virtio-user port to the
             switch, --forward-mode=io
  vhost      hostile vhost-user frontends: tests/integration/
             vhost_frontend.py --socket PATH --case NAME for each of its
             cases (--list-cases), against a dpdkvhostuser port; "not
             available" while that module is missing
  ctl        the control socket: garbage, NULs, huge requests, idle and
             half-closed clients, random commands from list-commands with
             random arguments, table exhaustion (tnl/arp/set, ovs/route/add,
             add-flow)
  topology   mutated topology/ and tests/unit/topologies files through
             `vxswitch --check`: a file:line:col error or success, never a
             crash, a hang or a sanitizer report
  restart    a testpmd guest SIGKILLed and restarted while traffic flows;
             the switch forwards again after each cycle

Every category reports a Row: inputs tried, crashes (the switch died or
exited other than 0/3, or --check died by a signal), sanitizer reports
(ASan/LSan/UBSan lines in its log), leaked mbufs ("mbufs in use at exit"),
counter mismatches (conservation_gap() on the switch's final counters),
and other failures (hangs, stalls, bad error messages, no forwarding
after a restart). A run fails if any cell but inputs is non-zero.
"""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import fuzz_ctl as C
import fuzz_inputs as F
import pktlib as P
import vxlib

CATEGORIES = ("nic", "arp-flood", "vm", "vhost", "ctl", "topology",
              "restart")

SANITIZER_RE = re.compile(r"ERROR: AddressSanitizer|ERROR: LeakSanitizer|"
                          r"runtime error:")
LEAK_RE = re.compile(r"mbufs in use at exit: (\d+)")
FILE_LINE_COL_RE = re.compile(r"^vxswitch: .+:\d+:\d+: ", re.M)
# today's errors short of file:line:col (issue 9 item 7): a NUL or invalid
# UTF-8 gives a byte offset, a bad flow a line with no column
KNOWN_FORMAT_RE = re.compile(r"^vxswitch: .+: .* at byte \d+$|"
                             r"^vxswitch: [^:\n]+:\d+: ", re.M)

# Sizes of one run. SMALL: CI (seconds per category); LONG: the issue's
# closing run.
SMALL = dict(nic_packets=300_000, vm_packets=100_000, mutants=3000,
             arp_ips=2000, vhost_cases=3, ctl_requests=3000,
             ctl_exhaust=1000, ctl_tables=("flow",), ctl_idle=4,
             topo_mutations=60, restarts=2)
LONG = dict(nic_packets=10_000_000, vm_packets=10_000_000, mutants=5000,
            arp_ips=100_000, vhost_cases=24, ctl_requests=100_000,
            ctl_exhaust=40_000, ctl_tables=("flow", "route", "arp"),
            ctl_idle=20, topo_mutations=600,
            restarts=200)


class Row:
    COLS = ("inputs", "crashes", "sanitizer", "leaked_mbufs",
            "mismatches", "other")

    def __init__(self, category):
        self.category = category
        self.available = True
        self.inputs = self.crashes = self.sanitizer = 0
        self.leaked_mbufs = self.mismatches = self.other = 0
        self.seconds = 0.0
        self.notes = []
        self.known_format_errors = 0    # of other: KNOWN_FORMAT_RE

    def note(self, text):
        if len(self.notes) < 8:
            self.notes.append(text)

    @property
    def failed(self):
        return self.available and any(getattr(self, c) for c in
                                      self.COLS[1:])

    def as_dict(self):
        d = {c: getattr(self, c) for c in self.COLS}
        d.update(category=self.category, available=self.available,
                 seconds=round(self.seconds, 1), notes=self.notes,
                 known_format_errors=self.known_format_errors)
        return d


def table(rows):
    """The report: one line per category."""
    head = ("category", "inputs", "crashes", "sanitizer", "leaked mbufs",
            "mismatches", "other", "s")
    lines = ["| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    for r in rows:
        if not r.available:
            cells = [r.category, "not available"] + [""] * 6
        else:
            cells = [r.category] + [str(getattr(r, c)) for c in Row.COLS] \
                + ["%.0f" % r.seconds]
        lines.append("| " + " | ".join(cells) + " |")
    for r in rows:
        for n in r.notes:
            lines.append("  %s: %s" % (r.category, n))
    return "\n".join(lines)


# ------------------------------------------------------- counters, logs

EXIT_PORT_RE = re.compile(r"^  (\S+)\s+\d+\s+(\S+)\s+\S+\s+(\d+)\s+(\d+)"
                          r"\s+(\d+)\s*$", re.M)
EXIT_PKTS_RE = re.compile(r"^  packets received: (\d+)$", re.M)
EXIT_DROPS_RE = re.compile(r"^  drops: (.*)$", re.M)


def exit_counters(log):
    """The counters --stats-on-exit printed (after the PMDs stopped, so
    nothing is in flight in them): {"ports": {name: {type, rx, tx,
    tx_dropped}}, "pmd_packets": N, "drops": {reason: N}} or None."""
    cut = log.rfind("vxswitch: shutting down")
    if cut < 0:
        return None
    text = log[cut:]
    ports = {m[0]: {"type": m[1], "rx": int(m[2]), "tx": int(m[3]),
                    "tx_dropped": int(m[4])}
             for m in EXIT_PORT_RE.findall(text)}
    drops = {}
    for line in EXIT_DROPS_RE.findall(text):
        for kv in line.split():
            k, _, v = kv.partition("=")
            drops[k] = drops.get(k, 0) + int(v)
    return {"ports": ports, "drops": drops,
            "pmd_packets": sum(map(int, EXIT_PKTS_RE.findall(text)))}


def conservation_gap(c):
    """received - (sent + every drop + in flight) over the switch's real
    ports (the vxlan vport counts decapsulated packets, already counted on
    the NIC): 0 when every packet ended in exactly one counter. The one
    place to switch to the daemon's own equation once show --json has it
    (a "conservation" object with received/sent/dropped/in_flight)."""
    if c is None:
        return 0
    cons = c.get("conservation")
    if cons:
        return cons["received"] - (cons["sent"] + cons["dropped"] +
                                   cons.get("in_flight", 0))
    real = [p for p in c["ports"].values() if p["type"] != "vxlan"]
    rx = sum(p["rx"] for p in real)
    tx = sum(p["tx"] for p in real)
    return rx - tx - sum(c["drops"].values())


def sanitizer_reports(text):
    return len(SANITIZER_RE.findall(text))


def child_env():
    """Our environment, with sanitizer options that report and go on
    (UBSan) unless the caller set its own (CI sets abort_on_error)."""
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    return env


# ----------------------------------------------------------------- run

class Fuzz:
    """One run: fuzz = Fuzz(workdir, sizes, seed); fuzz.run(categories)
    -> [Row]. workdir holds the pcaps, logs and mutated files."""

    def __init__(self, workdir, sizes=None, seed=1, log=print):
        import random
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.sizes = dict(SMALL)
        self.sizes.update(sizes or {})
        self.seed = seed
        self.rng = random.Random(seed)
        self.log = log
        self.env = child_env()
        self.bin = vxlib.find_binary("vxswitch")
        self.ready_timeout = 60.0
        self._n = 0

    def run(self, categories=CATEGORIES):
        rows = []
        for cat in categories:
            rows.append(self.run_one(cat))
        return rows

    def run_one(self, cat, **kw):
        row = Row(cat)
        t = time.monotonic()
        fn = getattr(self, "cat_" + cat.replace("-", "_"))
        try:
            fn(row, **kw)
        finally:
            vxlib.reap_all()
            row.seconds = time.monotonic() - t
        self.log("fuzz: %-9s %s" % (cat, {k: v for k, v in row.as_dict()
                                           .items() if k != "notes"}))
        return row

    # -- switch lifecycle --------------------------------------------
    def _dir(self, tag):
        self._n += 1
        d = self.workdir / ("%02d-%s" % (self._n, tag))
        d.mkdir(parents=True, exist_ok=True)
        return d

    def start_switch(self, row, topo, wd, rundir):
        """A started switch (--stats-on-exit), or None (a crash counted)
        if it died while starting."""
        sw = vxlib.Switch(topo, wd, rundir, name="vxswitch",
                          args=["--stats-on-exit"], env=self.env,
                          start=False, ready_timeout=self.ready_timeout)
        try:
            return sw.start()
        except vxlib.HarnessError as e:
            died = sw.returncode is not None and sw.returncode not in (
                -signal.SIGKILL, 2)
            if died:
                row.crashes += 1
            else:       # killed by the harness: it never answered
                row.other += 1
            row.note("switch did not start (%s): %s" % (
                "exit %s" % sw.returncode if died else "no answer to show",
                str(e)[-300:]))
            return None

    def alive(self, row, sw, what):
        if sw.proc.poll() is None:
            return True
        row.crashes += 1
        row.note("switch died (exit %s) during %s: %s"
                 % (sw.proc.returncode, what, self._crash_line(sw.log)))
        return False

    @staticmethod
    def _crash_line(log):
        for pat in ("ERROR: AddressSanitizer", "runtime error:",
                    "ERROR: LeakSanitizer", "Segmentation", "Bus error",
                    "PANIC"):
            i = log.find(pat)
            if i >= 0:
                return log[i:i + 160].splitlines()[0]
        return log.strip().splitlines()[-1][:160] if log.strip() else ""

    def finish_switch(self, row, sw, check_conservation=True):
        """Stops the switch (SIGTERM) if it still runs and accounts its
        exit: code, sanitizer reports, leaked mbufs, conservation."""
        was_running = sw.proc is not None and sw.proc.poll() is None
        hung = False
        if was_running:
            try:
                sw.stop(timeout=30)
            except vxlib.HarnessError:
                hung = True         # SIGKILLed by stop(): not a crash
                row.other += 1
                row.note("switch did not exit within 30 s of SIGTERM")
        sw.kill()
        log = sw.log
        rc = sw.returncode
        if was_running and not hung and rc not in (0, 3):
            row.crashes += 1
            row.note("switch exited %s on SIGTERM: %s"
                     % (rc, self._crash_line(log)))
        row.sanitizer += sanitizer_reports(log)
        m = LEAK_RE.findall(log)
        if m:
            row.leaked_mbufs += int(m[-1])
        if was_running and check_conservation:
            c = exit_counters(log)
            gap = conservation_gap(c)
            if gap:
                row.mismatches += 1
                row.note("received - (sent + drops) = %d (drops %s)"
                         % (gap, {k: v for k, v in c["drops"].items()
                                  if v}))
        return log

    def wait_counter(self, row, sw, get, target, what, min_rate=20_000):
        """Polls get(show json) until >= target; False if the switch died
        or it took longer than target/min_rate + 30 s."""
        deadline = time.monotonic() + target / min_rate + 30
        last = 0
        while time.monotonic() < deadline:
            if not self.alive(row, sw, what):
                return False
            r = sw.ctl_result("show", json=True, timeout=10)
            if r.returncode == 0:
                import json
                last = get(json.loads(r.stdout))
                if last >= target:
                    return True
            time.sleep(0.2)
        if self.alive(row, sw, what):
            row.other += 1
            row.note("%s: only %d of %d packets within the time limit"
                     % (what, last, target))
        return False

    @staticmethod
    def port_field(name, field):
        def get(show):
            for p in show["ports"]:
                if p["name"] == name:
                    return p[field]
            return 0
        return get

    # -- NIC side ------------------------------------------------------
    def _nic_rig(self, row, tag, frames, n_vms=2, infinite=True,
                 pcap_mbufs=0):
        """pcap_mbufs: mbufs to add to the switch's pool for a large
        infinite_rx pcap (net_pcap keeps all of it in mbufs)."""
        wd = self._dir(tag)
        rundir = vxlib.short_tmpdir("fz")
        pcap = vxlib.write_pcap(wd / "rx.pcap", frames)
        n_mbufs = (1 << (pcap_mbufs + 16384).bit_length()) - 1
        topo = P.topology("net_pcap0,rx_pcap=%s,infinite_rx=%d"
                          % (pcap, infinite), rundir, n_vms=n_vms,
                          memory_mb=256 + (n_mbufs * 2560 >> 20
                                           if pcap_mbufs else 0))
        if pcap_mbufs:
            topo["datapath"]["n-mbufs"] = n_mbufs
        vms = vxlib.Testpmd(wd, sockets=vxlib.vhost_paths(topo),
                            name="vms")
        sw = self.start_switch(row, topo, wd, rundir)
        if sw:
            try:
                vms.wait_ready(timeout=60)
            except (vxlib.HarnessError, TimeoutError) as e:
                row.note("VMs not ready: %s" % str(e)[-200:])
        return wd, topo, sw, vms

    def cat_nic(self, row, arp_consumed=None):
        """arp_consumed: None all mutants, False without those
        fuzz_inputs.arp_consumed() picks (uncounted today), True only
        those."""
        frames = F.nic_mutants(self.rng, self.sizes["mutants"])
        if arp_consumed is not None:
            frames = [f for f in frames
                      if F.arp_consumed(f) == arp_consumed]
        if arp_consumed:
            # among good frames, as on a real wire: alone, at line rate,
            # their learning starves the control thread (issue 9 item 2)
            frames += [P.vxlan_to_vm(k % 2, sport=k)
                       for k in range(min(20 * len(frames), 4000))]
        # net_pcap's infinite_rx refuses frames larger than one mbuf: the
        # jumbo (multi-segment) ones are replayed once, by a second switch
        small = [f for f in frames if len(f) <= F.ONE_MBUF]
        jumbo = [f for f in frames if len(f) > F.ONE_MBUF]
        self._replay(row, "nic", small, self.sizes["nic_packets"])
        if jumbo:
            self._replay(row, "nic-jumbo", jumbo, len(jumbo),
                         infinite=False)

    def cat_arp_flood(self, row, n_ips=None, replies=True):
        """replies: half the senders reply rather than ask (replies are
        uncounted today: fuzz_inputs.arp_consumed())."""
        n_ips = n_ips or self.sizes["arp_ips"]
        frames = []
        good = [P.vxlan_to_vm(k % 2, sport=k) for k in range(16)]
        for k, f in enumerate(F.arp_flood(n_ips, replies=replies)):
            frames.append(f)
            if k % 8 == 0:
                frames.append(good[(k // 8) % len(good)])
        # every sender IP twice (the PMD drops learn events the control
        # thread is too far behind to take); infinite_rx holds the whole
        # pcap in mbufs: the pool is sized for it
        self._replay(row, "arp-flood", frames, 2 * len(frames),
                     pcap_mbufs=len(frames))

    def _replay(self, row, tag, frames, target, infinite=True,
                pcap_mbufs=0):
        wd, topo, sw, vms = self._nic_rig(row, tag, frames,
                                          infinite=infinite,
                                          pcap_mbufs=pcap_mbufs)
        if not sw:
            return
        self.wait_counter(row, sw, self.port_field("dpdk-phy",
                                                   "rx_packets"),
                          target, tag)
        with_show = sw.ctl_result("show", json=True)
        self.finish_switch(row, sw)
        row.inputs += self._final_rx(sw, "dpdk-phy", with_show)
        vms.stop()

    @staticmethod
    def _final_rx(sw, port, last_show):
        c = exit_counters(sw.log)
        if c and port in c["ports"]:
            return c["ports"][port]["rx"]
        import json
        try:
            for p in json.loads(last_show.stdout)["ports"]:
                if p["name"] == port:
                    return p["rx_packets"]
        except (ValueError, KeyError):
            pass
        return 0

    # -- VM side -------------------------------------------------------
    def cat_vm(self, row):
        wd = self._dir("vm")
        rundir = vxlib.short_tmpdir("fz")
        pcap = vxlib.write_pcap(wd / "vm-rx.pcap",
                                F.vm_mutants(self.rng,
                                             self.sizes["mutants"]))
        topo = P.topology("net_null0,no-rx=1", rundir, n_vms=1)
        vm = vxlib.Testpmd(wd, sockets=vxlib.vhost_paths(topo), name="vm",
                           vdevs=["net_pcap0,rx_pcap=%s,infinite_rx=1"
                                  % pcap], fwd="io",
                           port_topology="paired",
                           # jumbo frames in one mbuf: infinite_rx takes
                           # no multi-segment ones
                           args=["--mbuf-size=%d" % F.JUMBO_MBUF])
        sw = self.start_switch(row, topo, wd, rundir)
        if not sw:
            return
        try:
            vm.wait_ready(timeout=60)
        except (vxlib.HarnessError, TimeoutError) as e:
            row.other += 1
            row.note("guest not ready: %s" % str(e)[-200:])
        self.wait_counter(row, sw, self.port_field("vhost-user0",
                                                   "rx_packets"),
                          self.sizes["vm_packets"], "vm")
        last = sw.ctl_result("show", json=True)
        self.finish_switch(row, sw)
        row.inputs += self._final_rx(sw, "vhost-user0", last)
        vm.stop()

    # -- hostile vhost-user frontends ---------------------------------
    FRONTEND = Path(__file__).resolve().parent / "vhost_frontend.py"
    FRONTEND_DEFAULT_CASES = ("tiny-ring-idx-jump", "mem-past-memfd",
                              "stalled-message")

    def frontend_cases(self):
        r = subprocess.run([sys.executable, str(self.FRONTEND),
                            "--list-cases"], capture_output=True,
                           text=True, timeout=30)
        names = r.stdout.split() if r.returncode == 0 else []
        return names or list(self.FRONTEND_DEFAULT_CASES)

    def cat_vhost(self, row):
        if not self.FRONTEND.exists():
            row.available = False
            row.note("%s is missing" % self.FRONTEND.name)
            return
        wd = self._dir("vhost")
        rundir = vxlib.short_tmpdir("fz")
        topo = P.topology("net_null0,no-rx=1", rundir, n_vms=1,
                          vhost_type="dpdkvhostuser")
        sock = vxlib.vhost_paths(topo, "dpdkvhostuser")[0]
        sw = self.start_switch(row, topo, wd, rundir)
        if not sw:
            return
        cases = self.frontend_cases()
        for k in range(self.sizes["vhost_cases"]):
            case = cases[k % len(cases)]
            row.inputs += 1
            try:
                r = subprocess.run([sys.executable, str(self.FRONTEND),
                                    "--socket", str(sock), "--case", case],
                                   capture_output=True, text=True,
                                   timeout=120, env=self.env)
                if r.returncode != 0:
                    row.other += 1
                    row.note("case %s: exit %d: %s" % (
                        case, r.returncode,
                        (r.stderr or r.stdout).strip()[-200:]))
            except subprocess.TimeoutExpired:
                row.other += 1
                row.note("case %s: frontend did not finish in 120 s"
                         % case)
            if not self.alive(row, sw, "case " + case):
                break
            if sw.ctl_result("show", timeout=10).returncode != 0:
                row.other += 1
                row.note("case %s: show failed after it" % case)
        self.finish_switch(row, sw, check_conservation=False)

    # -- control socket ------------------------------------------------
    def cat_ctl(self, row, exhaust=None, n_exhaust=None):
        wd = self._dir("ctl")
        rundir = vxlib.short_tmpdir("fz")
        topo = P.topology("net_null0,no-rx=1", rundir, n_vms=2,
                          vhost_type="dpdkvhostuser")
        sw = self.start_switch(row, topo, wd, rundir)
        if not sw:
            return
        cl = C.Client(sw.ctl_socket, timeout=10)
        try:
            self._ctl_phases(row, sw, cl,
                             exhaust or self.sizes["ctl_tables"],
                             n_exhaust or self.sizes["ctl_exhaust"])
        except OSError as e:
            # a refused connect: the switch is gone (or its socket is)
            if self.alive(row, sw, "ctl"):
                row.other += 1
                row.note("control socket: %s" % e)
        self.finish_switch(row, sw, check_conservation=False)

    def _answer(self, row, sw, what, st, must_answer=True):
        row.inputs += 1
        if st == "timeout" or (must_answer and st == "closed"):
            row.other += 1
            row.note("%s: %s" % (what, st))
        return st

    def _ctl_phases(self, row, sw, cl, exhaust, n_exhaust):
        n = self.sizes["ctl_requests"]
        names = C.command_names(cl)
        # garbage, NULs, huge requests
        for label, data, must in C.garbage_requests(self.rng,
                                                    max(20, n // 20)):
            st, _ = cl.raw(data)
            self._answer(row, sw, label, st, must)
            if not self.alive(row, sw, "garbage: " + label):
                return
        # idle and half-closed clients, then a show among them
        for half in (False, True):
            k = self.sizes["ctl_idle"]
            idle = C.IdleClients(cl, k, half_closed=half)
            st, took = C.timed_show(cl, timeout=5 + 2.0 * k)
            idle.close()
            self._answer(row, sw, "show with %d %s clients" % (
                k, "half-closed" if half else "idle"), st)
            row.note("show with %d %s clients: %.2f s" % (
                k, "half-closed" if half else "idle", took))
            if not self.alive(row, sw, "idle clients"):
                return
        # clients that send a request and go without reading the answer
        for _ in range(20):
            s = cl.connect()
            s.sendall(b"dump-flows\0\0")
            s.close()
            row.inputs += 1
        # random commands with random arguments
        while row.inputs < n:
            args = C.random_command(self.rng, names)
            st, _ = cl.request(args, json=self.rng.random() < 0.3)
            self._answer(row, sw, " ".join(args)[:80], st)
            if row.inputs % 500 == 0 and not self.alive(row, sw, "random"):
                return
        # table exhaustion: "kind" (n_exhaust entries) or "kind:N"
        for spec in exhaust:
            kind, _, count = spec.partition(":")
            ok = errs = 0
            for args in C.exhaustion_requests(
                    kind, parse_count(count) if count else n_exhaust):
                st, body = cl.request(args)
                self._answer(row, sw, "%s exhaustion" % kind, st)
                ok += st == "OK"
                errs += st == "ERROR"
                if st not in ("OK", "ERROR") and \
                        not self.alive(row, sw, "%s exhaustion at %d"
                                       % (kind, ok + errs)):
                    return
            row.note("%s exhaustion: %d accepted, %d refused" % (
                kind, ok, errs))
            for show in ("tnl/arp/show", "ovs/route/show", "dump-flows"):
                st, _ = cl.request([show], json=True, timeout=30)
                self._answer(row, sw, show + " after exhaustion", st)
                if not self.alive(row, sw, show + " after exhaustion"):
                    return

    # -- topology files ------------------------------------------------
    def cat_topology(self, row):
        wd = self._dir("topology")
        for k, (label, text) in enumerate(
                F.topology_mutants(self.rng, self.sizes["topo_mutations"])):
            f = wd / ("m%04d.yaml" % k)
            f.write_bytes(text)
            row.inputs += 1
            try:
                r = subprocess.run([str(self.bin), "--config", str(f),
                                    "--check"], capture_output=True,
                                   timeout=20, env=self.env,
                                   stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                row.other += 1
                row.note("%s (%s): --check hung" % (f.name, label))
                continue
            out = (r.stdout + r.stderr).decode(errors="replace")
            n_san = sanitizer_reports(out)
            row.sanitizer += n_san
            if r.returncode < 0 or r.returncode >= 128 or (
                    n_san and r.returncode not in (0, 1, 2)):
                row.crashes += 1
                row.note("%s (%s): exit %d %s" % (f.name, label,
                                                   r.returncode,
                                                   self._crash_line(out)))
            elif r.returncode != 0 and not n_san and \
                    not FILE_LINE_COL_RE.search(out):
                row.other += 1
                row.known_format_errors += bool(KNOWN_FORMAT_RE.search(out))
                row.note("%s (%s): no file:line:col: %s" % (
                    f.name, label, out.strip()[:160]))
            elif r.returncode not in (0, 1, 2):
                row.other += 1
                row.note("%s (%s): exit %d" % (f.name, label,
                                               r.returncode))

    # -- guest kill / restart ------------------------------------------
    def cat_restart(self, row):
        frames = [P.vxlan_to_vm(0, sport=k) for k in range(32)]
        wd, topo, sw, vms = self._nic_rig(row, "restart", frames, n_vms=1)
        if not sw:
            return
        socks = vxlib.vhost_paths(topo)
        get_tx = self.port_field("vhost-user0", "tx_packets")
        get_back = self.port_field("dpdk-phy", "tx_packets")
        for cycle in range(self.sizes["restarts"]):
            if not self._forwards(row, sw, get_tx, get_back, cycle):
                if not self.alive(row, sw, "restart %d" % cycle):
                    break
            vxlib._kill(vms.proc, signal.SIGKILL)
            vms.proc.wait(10)
            vms.kill()
            row.inputs += 1
            if not self.alive(row, sw, "guest kill %d" % cycle):
                break
            try:
                vms = vxlib.Testpmd(wd, sockets=socks, name="vms%d"
                                    % (cycle % 2))
                vms.wait_ready(timeout=60)
            except (vxlib.HarnessError, TimeoutError) as e:
                row.other += 1
                row.note("cycle %d: guest did not come back: %s"
                         % (cycle, str(e)[-200:]))
        else:
            self._forwards(row, sw, get_tx, get_back, "last")
        self.finish_switch(row, sw)
        vms.stop()

    def _forwards(self, row, sw, get_tx, get_back, cycle):
        """The switch delivers to the guest and encapsulates what comes
        back (both counters move) within 20 s."""
        import json

        def counts():
            r = sw.ctl_result("show", json=True, timeout=10)
            if r.returncode != 0:
                return None
            s = json.loads(r.stdout)
            return get_tx(s), get_back(s)
        c0 = counts()
        deadline = time.monotonic() + 20
        while c0 is not None and time.monotonic() < deadline:
            c = counts()
            if c and c[0] > c0[0] and c[1] > c0[1]:
                return True
            time.sleep(0.1)
        row.other += 1
        row.note("cycle %s: no forwarding through the guest" % cycle)
        return False


def parse_count(s):
    """10M, 500k, 1000 -> int."""
    s = str(s).strip().lower()
    mult = {"k": 1000, "m": 1000_000, "g": 1000_000_000}.get(s[-1:], 1)
    return int(float(s[:-1] if mult != 1 else s) * mult)
