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
  vhost      hostile vhost-user frontends: scripts/vhost-frontend.py
             --socket PATH --case NAME (vhost_frontend.py), every case of its
             table (and a connection flood), in client mode (the frontend
             listens, a dpdkvhostuserclient port) and server mode
             (--connect, a dpdkvhostuser port); after each, a well-behaved
             testpmd guest on another port still forwards
  ctl        the control socket: garbage, NULs, huge requests; the
             unixctl socket: malformed JSON-RPC (fuzz_unixctl.py), answered
             with JSON-RPC answers only; idle and half-closed clients,
             random commands from list-commands with random arguments,
             table exhaustion (tnl/arp/set, ovs/route/add,
             add-flow) up to the topology's datapath max-* limits, which
             must refuse
  ovsdb      a hostile ovsdb-server for vxswitch --ovsdb (fuzz_ovsdb.py):
             update mutants the replica takes (the plan refuses them),
             each batch followed by a valid update and list-ports checked
             against it; hundreds of interfaces added and deleted at
             once; transactions answered with garbage, errors or never;
             messages that must drop the connection, each counted
  topology   mutated topology/ and tests/unit/topologies files through
             `vxswitch --check`: a file:line:col error or success, never a
             crash, a hang or a sanitizer report
  restart    a testpmd guest SIGKILLed and restarted while traffic flows;
             the switch forwards again after each cycle

Every category reports a Row: inputs tried, crashes (the switch died or
exited other than 0/3, or --check died by a signal), sanitizer reports
(ASan/LSan/UBSan lines in its log), leaked mbufs ("mbufs in use at exit"),
counter mismatches (the switch's own accounting equation, dp_stats.h:
received + copies = sent + consumed + dropped + in flight, per PMD, read
live by harness.assert_packets_accounted() before SIGTERM and again from
the --stats-on-exit lines), and other failures (hangs, stalls, a `show`
slower than SHOW_SLOW_S, bad error messages, a full table that does not
refuse, no forwarding after a restart or a hostile frontend). A run fails
if any cell but inputs is non-zero.
"""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from . import fuzz_ctl as C
from . import fuzz_inputs as F
from . import fuzz_unixctl as U
from . import harness as vxlib
from . import packets as P
from .fuzz_report import (Row, conservation_gap, exit_counters,
                          sanitizer_reports)
from .fuzz_report import table  # noqa: F401 (fuzz.table, for its users)

CATEGORIES = ("nic", "arp-flood", "vm", "vhost", "ctl", "ovsdb",
              "topology", "restart")

LEAK_RE = re.compile(r"mbufs in use at exit: (\d+)")
FILE_LINE_COL_RE = re.compile(r"^vxswitch: .+:\d+:\d+: ", re.M)
# a `show` slower than this (during a flood, among idle clients) is a stall
SHOW_SLOW_S = 2.0

# Sizes of one run. SMALL: CI (seconds per category); LONG: the issue's
# closing run.
# vhost_cases: frontend runs (every case, then again, modes alternating);
# vhost_hold: seconds a case keeps its connection (None: the case's own);
# ctl_limits: the topology's datapath max-* keys (small ones reach "table
# full" in a few hundred requests).
SMALL = dict(nic_packets=100_000, vm_packets=50_000, mutants=2000,
             arp_ips=2000, vhost_cases=12, vhost_hold=0.3,
             ctl_requests=1500, ctl_exhaust=300,
             ctl_tables=("flow", "route", "arp"),
             ctl_limits={"max-flows": 200, "max-routes": 200,
                         "max-neighbours": 200},
             ctl_idle=4, topo_mutations=108, restarts=2,
             arp_limits={"max-neighbours": 500},
             ovsdb_accepted=120, ovsdb_batch=40, ovsdb_big=1 << 16,
             ovsdb_many=100, ovsdb_dropped=12, ovsdb_huge=17 << 20)
LONG = dict(nic_packets=10_000_000, vm_packets=10_000_000, mutants=5000,
            arp_ips=100_000, vhost_cases=48, vhost_hold=None,
            ctl_requests=100_000, ctl_exhaust=40_000,
            ctl_tables=("flow", "route", "arp"),
            # past the old uint16_t wrap (32,768) and on to "full"
            ctl_limits={"max-flows": 36_000, "max-routes": 36_000,
                        "max-neighbours": 36_000},
            ctl_idle=20, topo_mutations=600, restarts=200,
            arp_limits=None,       # the default 65,536: the flood fills it
            ovsdb_accepted=10_000, ovsdb_batch=40, ovsdb_big=1 << 20,
            ovsdb_many=500, ovsdb_dropped=1000, ovsdb_huge=17 << 20)




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

    def start_switch(self, row, topo, wd, rundir, args=(), env=None):
        """A started switch (--stats-on-exit), or None (a crash counted)
        if it died while starting."""
        sw = vxlib.Switch(topo, wd, rundir, name="vxswitch",
                          args=["--stats-on-exit"] + list(args),
                          env=env or self.env,
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
        exit: code, sanitizer reports, leaked mbufs, conservation (live,
        with the conftest's helper, then on the exit counters)."""
        was_running = sw.proc is not None and sw.proc.poll() is None
        hung = False
        if was_running and check_conservation:
            try:
                vxlib.assert_packets_accounted(sw)
            except vxlib.CtlError as e:     # an AssertionError too
                row.other += 1
                row.note("pmd-stats-show --json failed: %s" % str(e)[-200:])
            except AssertionError as e:
                row.mismatches += 1
                row.note(str(e)[-300:])
            except (vxlib.HarnessError, ValueError) as e:
                row.other += 1
                row.note("pmd-stats-show --json failed: %s" % str(e)[-200:])
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
        if was_running and not hung and check_conservation:
            c = exit_counters(log)
            gap = conservation_gap(c)
            if gap is None:
                row.other += 1
                row.note("no accounting line in the exit counters")
            elif gap:
                row.mismatches += 1
                row.note("exit counters: received + copies - (sent + "
                         "consumed + dropped + in flight) = %d (drops %s)"
                         % (gap, {k: v for k, v in c["drops"].items()
                                  if v}))
        return log

    def wait_counter(self, row, sw, get, target, what, min_rate=20_000,
                     slow_s=None):
        """Polls get(show json) until >= target; False if the switch died
        or it took longer than target/min_rate + 30 s. slow_s: a show that
        fails or takes longer is a stall (counted once, in other)."""
        import json
        deadline = time.monotonic() + target / min_rate + 30
        last = 0
        shows, slowest, stalled = 0, 0.0, False
        while time.monotonic() < deadline:
            if not self.alive(row, sw, what):
                return False
            t = time.monotonic()
            r = sw.ctl_result("show", json=True, timeout=10)
            took = time.monotonic() - t
            shows += 1
            slowest = max(slowest, took)
            if slow_s and not stalled and (r.returncode != 0 or
                                           took > slow_s):
                stalled = True
                row.other += 1
                row.note("%s: show %s after %.2f s while it ran" % (
                    what, "failed" if r.returncode else "answered",
                    took))
            if r.returncode == 0:
                last = get(json.loads(r.stdout))
                # with slow_s: a few shows under the load at least
                if last >= target and (not slow_s or shows >= 5):
                    if slow_s:
                        row.note("%s: %d shows while it ran, slowest "
                                 "%.2f s" % (what, shows, slowest))
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
                 pcap_mbufs=0, edit=None, n_guests=None):
        """pcap_mbufs: mbufs to add to the switch's pool for a large
        infinite_rx pcap (net_pcap keeps all of it in mbufs). edit(topo):
        changes the topology before it starts; testpmd serves the first
        n_guests (default all) of its dpdkvhostuserclient ports."""
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
        if edit:
            edit(topo)
        vms = vxlib.Testpmd(wd, sockets=vxlib.vhost_paths(topo)[:n_guests],
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
        fuzz_inputs.arp_consumed() picks (ARP for the VTEP that is not a
        request: consumed or arp_bad_op), True only those."""
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
        """replies: half the senders reply rather than ask (consumed, as
        fuzz_inputs.arp_consumed() says)."""
        n_ips = n_ips or self.sizes["arp_ips"]
        frames = []
        good = [P.vxlan_to_vm(k % 2, sport=k) for k in range(16)]
        for k, f in enumerate(F.arp_flood(n_ips, replies=replies)):
            frames.append(f)
            if k % 8 == 0:
                frames.append(good[(k // 8) % len(good)])
        # every sender IP twice (the PMD drops learn events the control
        # thread is too far behind to take); infinite_rx holds the whole
        # pcap in mbufs: the pool is sized for it. The control thread
        # takes at most 4,096 events a pass: `show` answers during the
        # flood (slow_s) and SIGTERM stops it (finish_switch).
        # arp-rate 0: the per-PMD ARP policer off, so that the flood
        # reaches the neighbour table and its limit is what refuses it
        # (with the policer on, 5,000 ARP/s would never fill it).
        limits = dict(self.sizes.get("arp_limits") or {}, **{"arp-rate": 0})

        def full_table_refuses(sw):
            """The neighbour table stays within its limit; a flood past it
            is refused and counted (limits/show)."""
            import json
            r = sw.ctl_result("limits/show", json=True, timeout=10)
            if r.returncode:
                row.other += 1
                row.note("limits/show: %s" % (r.stderr or r.stdout)[-200:])
                return
            lim = json.loads(r.stdout)
            nb = lim["neighbours"]
            row.note("neighbours %d of %d, learned %d, refused %d, "
                     "events lost %d" % (nb["entries"], nb["limit"],
                                         lim["neigh_learned"],
                                         lim["neigh_learn_refused"],
                                         lim["ctl_events_lost"]))
            if nb["entries"] > nb["limit"] or (
                    n_ips > nb["limit"] and
                    not lim["neigh_learn_refused"]):
                row.other += 1
                row.note("neighbour table past its limit, or a full one "
                         "that refused nothing")
        self._replay(row, "arp-flood", frames, 2 * len(frames),
                     pcap_mbufs=len(frames), slow_s=SHOW_SLOW_S,
                     datapath=limits, after=full_table_refuses)

    def _replay(self, row, tag, frames, target, infinite=True,
                pcap_mbufs=0, slow_s=None, datapath=None, after=None):
        """Replays frames into the NIC until it received target; then
        after(sw), if given, checks the switch."""
        def edit(t):
            t["datapath"].update(datapath or {})
            # dual stack: the ND bases reach the VTEP's ND responder
            t["underlay"]["local-ip"] = [t["underlay"]["local-ip"],
                                         F.VTEP_IP6 + "/64"]
        wd, topo, sw, vms = self._nic_rig(
            row, tag, frames, infinite=infinite, pcap_mbufs=pcap_mbufs,
            edit=edit)
        if not sw:
            return
        if self.wait_counter(row, sw, self.port_field("dpdk-phy",
                                                      "rx_packets"),
                             target, tag, slow_s=slow_s) and after:
            after(sw)
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
    FRONTEND = vxlib.SCRIPTS / "vhost-frontend.py"
    # the hostile ports: (port name, its type, --connect?)
    HOSTILE_PORTS = (("vhost-user1", "dpdkvhostuserclient", False),
                     ("vhost-user2", "dpdkvhostuser", True))

    def frontend_cases(self):
        """Every case of vhost_frontend.py's table, and its connection
        flood."""
        r = subprocess.run([sys.executable, str(self.FRONTEND),
                            "--list-cases"], capture_output=True,
                           text=True, timeout=30)
        if r.returncode != 0 or not r.stdout.split():
            raise vxlib.HarnessError("vhost_frontend.py --list-cases: %s"
                                     % (r.stderr or r.stdout)[-300:])
        return r.stdout.split()

    def cat_vhost(self, row):
        """VM 0 (testpmd, macswap) forwards the NIC's frames back; the
        hostile frontends run one case at a time on vhost-user1 (the
        frontend listens, the switch connects: client mode) or vhost-user2
        (the switch listens: server mode), each case in both modes as the
        count allows. After each: the switch runs, answers, and VM 0's
        frames still go through it both ways."""
        def hostile_ports(topo):
            topo["flows"] = P.vm_flows(0)      # hostile frames: a miss
            for name, ptype, _ in self.HOSTILE_PORTS:
                for p in topo["ports"]:
                    if p["name"] == name:
                        p["type"] = ptype
        frames = [P.vxlan_to_vm(0, sport=k) for k in range(32)]
        wd, topo, sw, vm = self._nic_rig(row, "vhost", frames, n_vms=3,
                                         edit=hostile_ports, n_guests=1)
        if not sw:
            return
        socks = {p["name"]: p["path"] for p in topo["ports"]
                 if p["name"].startswith("vhost-user")}
        get_tx = self.port_field("vhost-user0", "tx_packets")
        get_back = self.port_field("dpdk-phy", "tx_packets")
        cases = self.frontend_cases()
        hold = self.sizes.get("vhost_hold")
        for k in range(self.sizes["vhost_cases"]):
            case = cases[k % len(cases)]
            port, _, connect = self.HOSTILE_PORTS[
                (k + k // len(cases)) % len(self.HOSTILE_PORTS)]
            what = "case %s (%s)" % (case, "server mode" if connect
                                     else "client mode")
            cmd = [sys.executable, str(self.FRONTEND), "--socket",
                   socks[port], "--case", case]
            cmd += ["--connect"] if connect else []
            cmd += ["--hold", str(hold)] if hold is not None else []
            cmd += ["--count", "20"] if case == "flood" else []
            row.inputs += 1
            try:
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=120, env=self.env)
                if r.returncode != 0:
                    row.other += 1
                    row.note("%s: exit %d: %s" % (
                        what, r.returncode,
                        (r.stderr or r.stdout).strip()[-200:]))
            except subprocess.TimeoutExpired:
                row.other += 1
                row.note("%s: frontend did not finish in 120 s" % what)
            if not self.alive(row, sw, what):
                break
            if not self._forwards(row, sw, get_tx, get_back, what):
                if not self.alive(row, sw, what):
                    break
        self.finish_switch(row, sw)
        vm.stop()

    # -- control socket ------------------------------------------------
    def cat_ctl(self, row, exhaust=None, n_exhaust=None):
        wd = self._dir("ctl")
        rundir = vxlib.short_tmpdir("fz")
        topo = P.topology("net_null0,no-rx=1", rundir, n_vms=2,
                          vhost_type="dpdkvhostuser",
                          datapath=self.sizes.get("ctl_limits"))
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
        # the unixctl socket: malformed JSON-RPC, answered with JSON only
        ux = C.Client(U.path(sw), timeout=10)
        seen = {}
        for label, data, must in U.garbage(self.rng, max(20, n // 20)):
            st, back = U.raw(ux, data)
            seen[st] = seen.get(st, 0) + 1
            self._answer(row, sw, "unixctl: " + label, st, must)
            if st == "bad answer":
                row.other += 1
                row.note("unixctl: %s: %r" % (label, back[:200]))
            if not self.alive(row, sw, "unixctl: " + label):
                return
        row.note("unixctl: %s" % ", ".join("%d %s" % (v, k) for k, v in
                                           sorted(seen.items())))
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
        # table exhaustion: "kind" (n_exhaust entries) or "kind:N"; past
        # the topology's limit every request is refused, naming it
        limits = self.sizes.get("ctl_limits") or {}
        for spec in exhaust:
            kind, _, count = spec.partition(":")
            count = parse_count(count) if count else n_exhaust
            ok = errs = 0
            refusal = ""
            for args in C.exhaustion_requests(kind, count):
                st, body = cl.request(args)
                self._answer(row, sw, "%s exhaustion" % kind, st)
                ok += st == "OK"
                errs += st == "ERROR"
                if st == "ERROR" and not refusal:
                    refusal = body.decode(errors="replace") \
                        if isinstance(body, bytes) else str(body)
                if st not in ("OK", "ERROR") and \
                        not self.alive(row, sw, "%s exhaustion at %d"
                                       % (kind, ok + errs)):
                    return
            row.note("%s exhaustion: %d accepted, %d refused (%s)" % (
                kind, ok, errs, refusal.strip()[:100]))
            key = C.LIMIT_KEYS[kind]
            limit = limits.get(key)
            if limit and count > limit and (
                    ok > limit or errs < count - limit or
                    key not in refusal):
                row.other += 1
                row.note("%s: %d requests past %s %d: %d accepted, %d "
                         "refused, first refusal %r" % (
                             kind, count, key, limit, ok, errs,
                             refusal[:100]))
            for show in ("tnl/arp/show", "ovs/route/show", "dump-flows"):
                st, _ = cl.request([show], json=True, timeout=30)
                self._answer(row, sw, show + " after exhaustion", st)
                if not self.alive(row, sw, show + " after exhaustion"):
                    return

    # -- a hostile ovsdb-server (fuzz_ovsdb.py) --------------------------
    def cat_ovsdb(self, row):
        from . import fuzz_ovsdb, fuzz_ovsdb_inputs
        wd = self._dir("ovsdb")
        rundir = vxlib.short_tmpdir("fz")
        path = rundir / "db.sock"
        topo = {"eal": {"memory-mb": 256},
                "ports": [{"name": "vm0", "type": "dpdkvhostuser",
                           "path": str(rundir / "vm0.sock")}]}
        # OVS_RUNDIR: where a dpdkvhostuser port's socket goes
        env = dict(self.env, OVS_RUNDIR=str(rundir))
        db = fuzz_ovsdb_inputs.make_db(self.rng, rundir)
        # the switch connects to a socket that is there (no backoff)
        srv = fuzz_ovsdb.listen(path)
        sw = self.start_switch(row, topo, wd, rundir,
                               ["--ovsdb", "unix:%s" % path], env)
        if not sw:
            srv.close()
            return
        fuzz_ovsdb.run(self, row, sw, srv, db, rundir)
        self.finish_switch(row, sw)

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
        row.note("%s: no forwarding through the guest" % (
            "cycle %s" % cycle if isinstance(cycle, int) else cycle))
        return False


def parse_count(s):
    """10M, 500k, 1000 -> int."""
    s = str(s).strip().lower()
    mult = {"k": 1000, "m": 1000_000, "g": 1000_000_000}.get(s[-1:], 1)
    return int(float(s[:-1] if mult != 1 else s) * mult)
