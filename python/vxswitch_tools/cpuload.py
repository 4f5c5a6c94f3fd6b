# SPDX-License-Identifier: BSD-3-Clause
"""CPU time that processes other than ours used on CPUs 0-1 over a
window (CpuOthers): the demo and the end-to-end benchmark report it, since
a busy neighbour on the polling cores lowers the rates they measure."""

import os
import time
from pathlib import Path


def _cpu_jiffies_cores(cores=(0, 1)):
    """Non-idle jiffies of CPUs 0 and 1, where the switch (lcores 0-1) and
    the VMs (CPU 0) run."""
    n = 0
    for line in Path("/proc/stat").read_text().splitlines():
        f = line.split()
        if not f or f[0] not in ["cpu%d" % c for c in cores]:
            continue
        v = [int(x) for x in f[1:]]
        # user nice system idle iowait irq softirq steal (guest* in user)
        n += v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)
    return n


def _cpu_jiffies_pid(pid):
    try:
        f = Path("/proc/%d/stat" % pid).read_text()
    except OSError:
        return 0
    v = f[f.rindex(")") + 2:].split()
    return int(v[11]) + int(v[12])        # utime stime


class CpuOthers:
    """CPU time used by processes other than ours on `cores`, over a
    window."""

    def __init__(self, pids, cores=(0, 1)):
        self.pids = [p for p in pids if p]
        self.cores = tuple(cores)
        self.t0 = time.monotonic()
        self.a0 = _cpu_jiffies_cores(self.cores)
        self.p0 = sum(_cpu_jiffies_pid(p) for p in self.pids)

    def cpus(self):
        """-> CPUs' worth (1.0 = one CPU fully) used by others."""
        dt = time.monotonic() - self.t0
        hz = os.sysconf("SC_CLK_TCK")
        a = _cpu_jiffies_cores(self.cores) - self.a0
        p = sum(_cpu_jiffies_pid(p) for p in self.pids) - self.p0
        # our own script's and vxswitch-ctl calls are a few % at most
        return max(0.0, (a - p) / hz / dt) if dt > 0 else None
