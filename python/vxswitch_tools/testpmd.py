# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-testpmd as the VMs (virtio-user, macswap) or as any peer;
see harness's docstring for the DPDK 22.11 quirks that shape it."""

import contextlib
import re
import signal
import subprocess
import time
from pathlib import Path

from .addressing import SEED
from .procs import (HarnessError, _objects, _Process, _spawn, unique_prefix,
                    wait_for)

# ---------------------------------------------------------------- testpmd

FWD_STATS_RE = re.compile(
    r"-+ Forward statistics for port (\d+)\s+-+\s*\n"
    r"\s*RX-packets:\s*(\d+)\s+RX-dropped:\s*(\d+)\s+RX-total:\s*(\d+)\s*\n"
    r"\s*TX-packets:\s*(\d+)\s+TX-dropped:\s*(\d+)\s+TX-total:\s*(\d+)")
PORT_MAC_RE = re.compile(r"^Port (\d+): ([0-9A-Fa-f:]{17})\s*$", re.M)


class Testpmd(_Process):
    """dpdk-testpmd, by default as the VMs of the seed's benchmark.

    VM mode (sockets given): one virtio-user port per socket path,
    `--vdev net_virtio_user{i},path=SOCK,queues=1,server=1,queue_size=256,
    mac=52:54:00:00:00:i`, macswap, one forwarding core, ports looped back
    to themselves. The switch (dpdkvhostuserclient ports) connects to the
    sockets; the process is only forwarding once all of them are connected
    (wait_ready()). server=False makes testpmd the vhost-user client of a
    switch-owned socket (dpdkvhostuser) instead.

    vdev_extra: more devargs for every virtio-user port, e.g.
    "packed_vq=1" (virtio 1.1 packed rings; the default is split).

    Peer mode: vdevs=[...] any devargs, e.g. net_vhost / net_pcap.
    interactive=True runs `-i` and takes commands on stdin (cmd()).

    queues: queue pairs of each virtio-user port (`queues=N`, and testpmd's
    --rxq/--txq: every port gets N, so a peer vdev must have N as well).
    cpus: CPUs for [main, forwarding] lcores; one CPU hosts both.
    stop() -> exit code; then .stats = {port: {"rx", "rx_dropped", "tx",
    "tx_dropped"}} from testpmd's final forward statistics.
    """

    __test__ = False    # not a pytest test class

    def __init__(self, workdir, sockets=(), name="testpmd", vdevs=(),
                 cpus=(0,), fwd="macswap", nb_cores=1, server=True,
                 queue_size=256, macs=None, interactive=False,
                 port_topology=None, mbufs=None, eal_args=(), args=(),
                 start=True, socket_timeout=10.0, queues=1,
                 vdev_extra=""):
        self.name = name
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.workdir / ("%s.log" % name)
        self.prefix = unique_prefix(name)
        self.sockets = [Path(s) for s in sockets]
        self.server = server
        self.interactive = interactive
        self.socket_timeout = socket_timeout
        self.proc = None
        self.returncode = None
        self.stats = {}
        self._log_start = 0

        cpus = [int(c) for c in cpus] or [0]
        fwd_cpus = cpus[1:] or cpus[:1]
        lcores = ["0@%d" % cpus[0]] + ["%d@%d" % (i + 1,
                                                 fwd_cpus[i % len(fwd_cpus)])
                                      for i in range(nb_cores)]
        vd = []
        for i, s in enumerate(self.sockets):
            mac = macs[i] if macs else SEED.mac(i)
            vd.append("net_virtio_user%d,path=%s,queues=%d,server=%d,"
                      "queue_size=%d,mac=%s" % (i, s, queues,
                                                1 if server else 0,
                                                queue_size, mac)
                      + ("," + vdev_extra if vdev_extra else ""))
        vd += list(vdevs)
        nports = len(vd)
        if mbufs is None:
            mbufs = max(8192, 2048 + 768 * nports)
        if port_topology is None:
            port_topology = "loop" if self.sockets and not vdevs else "paired"
        eal = ["--lcores", ",".join(lcores), "--no-pci", "--in-memory",
               "--single-file-segments", "--file-prefix", self.prefix,
               "--log-level", "lib.eal:notice"]
        for v in vd:
            eal += ["--vdev", v]
        eal += list(eal_args)
        app = ["--forward-mode=%s" % fwd, "--nb-cores=%d" % nb_cores,
               "--port-topology=%s" % port_topology,
               "--rxq=%d" % queues, "--txq=%d" % queues,
               "--rxd=%d" % queue_size,
               "--txd=%d" % queue_size, "--total-num-mbufs=%d" % mbufs,
               "--no-flush-rx"]
        app += ["-i"] if interactive else ["--auto-start"]
        app += list(args)
        self.argv = (["stdbuf", "-oL", "-eL", "dpdk-testpmd"] + eal + ["--"]
                     + app)
        _objects.append(self)
        if start:
            self.start()

    def start(self):
        if self.server:
            for s in self.sockets:
                with contextlib.suppress(FileNotFoundError):
                    s.unlink()
        # wait_ready() looks only at this run's part of the (appended) log
        self._log_start = len(self.log)
        with open(self.log_path, "ab") as f:
            f.write(("=== %s\n" % " ".join(self.argv)).encode())
        self.proc = _spawn(self.argv, self.log_path, stdin=subprocess.PIPE)
        if self.server and self.sockets:
            # the first socket appears once EAL is up and probing
            s0 = self.sockets[0]
            try:
                wait_for(lambda: s0.exists() or self.proc.poll() is not None,
                         self.socket_timeout, 0.05)
            except TimeoutError:
                self.kill()
                raise HarnessError("%s: %s not created within %.0f s\n%s"
                                   % (self.name, s0, self.socket_timeout,
                                      self.log_tail()))
            if self.proc.poll() is not None:
                self._after_exit()
                raise HarnessError("%s exited with %d while starting\n%s"
                                   % (self.name, self.proc.returncode,
                                      self.log_tail()))
        return self

    def wait_ready(self, timeout=None):
        """Waits until testpmd forwards (all ports probed, i.e. connected,
        and started): 'Press enter to exit' or the interactive prompt.
        Default timeout: 15 s + 1.5 s per vhost-user socket."""
        if timeout is None:
            timeout = 15.0 + 1.5 * len(self.sockets)
        marker = "testpmd>" if self.interactive else "Press enter to exit"

        def ready():
            if self.proc.poll() is not None:
                raise HarnessError("%s exited with %d\n%s" % (
                    self.name, self.proc.returncode, self.log_tail()))
            return marker in self.log[self._log_start:]
        wait_for(ready, timeout, 0.1,
                 lambda: "%s to forward (%s)\n%s" % (self.name, marker,
                                                      self.log_tail(15)))

    def cmd(self, line):
        """Sends a line to an interactive testpmd."""
        self.proc.stdin.write((line.rstrip("\n") + "\n").encode())
        self.proc.stdin.flush()

    def port_macs(self):
        """{port: "aa:bb:.."} as testpmd printed them while configuring."""
        return {int(p): m.lower() for p, m in PORT_MAC_RE.findall(self.log)}

    def parse_stats(self, text=None):
        """The last forward statistics block per port."""
        st = {}
        for m in FWD_STATS_RE.finditer(self.log if text is None else text):
            v = [int(x) for x in m.groups()]
            st[v[0]] = {"rx": v[1], "rx_dropped": v[2], "tx": v[4],
                        "tx_dropped": v[5]}
        return st

    def stop(self, timeout=10.0):
        """Stops testpmd (quit / SIGINT, repeated: each SIGINT aborts one
        port still waiting for its connection); returns the exit code and
        fills .stats. Kills it and raises if it is still there after
        timeout."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            deadline = time.monotonic() + timeout
            if self.interactive:
                with contextlib.suppress(OSError, ValueError):
                    self.cmd("stop")
                    self.cmd("quit")
            else:
                self.proc.send_signal(signal.SIGINT)
            while self.proc.poll() is None:
                try:
                    self.proc.wait(1.0)
                except subprocess.TimeoutExpired:
                    if time.monotonic() >= deadline:
                        self._kill_and_raise(
                            "%s did not exit within %.0f s; killed\n%s"
                            % (self.name, timeout, self.log_tail()))
                    self.proc.send_signal(signal.SIGINT)
        self._after_exit()
        return self.returncode

    def _exited(self):
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin:
                self.proc.stdin.close()
        self.stats = self.parse_stats()
