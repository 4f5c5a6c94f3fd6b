#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Control-socket latency under idle and stalled clients.

For each N in --idle and M in --stalled: opens N idle connections (connect,
send nothing) and keeps M stalled ones (half a request, then silence; each
is re-opened as soon as the server gives up on it, so M are always in
flight), then times K `show` requests on fresh connections (connect, send,
read to EOF: what vxswitch-ctl does, without its process start) and prints
p50/p99/max in milliseconds.

    perf/ctl-latency.py                          # starts its own vxswitch
    perf/ctl-latency.py --idle 0,1000,4000 --stalled 0,100 --requests 500
    perf/ctl-latency.py --socket /var/run/vxswitch/vxswitch.ctl   # a running one

Without --socket it starts vxswitch from VXS_BUILD_DIR (default build/) on
a one-port topology (a vhost-user server port nobody attaches to, so the
PMD has no traffic), lcores 0-1, and stops it at the end.
"""

import argparse
import os
import socket
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def ask(path, req=b"show\0\0"):
    t0 = time.perf_counter()
    s = connect(path)
    s.sendall(req)
    chunks = []
    while True:
        b = s.recv(65536)
        if not b:
            break
        chunks.append(b)
    s.close()
    reply = b"".join(chunks)
    if not reply.startswith(b"OK\n"):
        raise RuntimeError("show failed: %r" % reply[:200])
    return (time.perf_counter() - t0) * 1000.0


class Stalled(threading.Thread):
    """Keeps m half-sent requests open until stopped."""

    def __init__(self, path, m):
        super().__init__(daemon=True)
        self.path, self.m = path, m
        self.stop = threading.Event()
        self.reopened = 0

    def run(self):
        import selectors
        sel = selectors.DefaultSelector()
        for _ in range(self.m):
            self._open(sel)
        while not self.stop.is_set():
            for key, _ in sel.select(0.05):
                s = key.fileobj
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if not data:            # the server gave up on it
                    sel.unregister(s)
                    s.close()
                    self.reopened += 1
                    self._open(sel)
        for key in list(sel.get_map().values()):
            key.fileobj.close()

    def _open(self, sel):
        s = connect(self.path)
        s.sendall(b"show")              # no NULs: never complete
        sel.register(s, 1)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100.0 * (len(xs) - 1))))]


def measure(path, n_idle, m_stalled, k):
    idle = [connect(path) for _ in range(n_idle)]
    stalled = Stalled(path, m_stalled)
    stalled.start()
    time.sleep(0.3)                     # let the server accept them all
    try:
        lat = [ask(path) for _ in range(k)]
    finally:
        stalled.stop.set()
        stalled.join()
        for s in idle:
            s.close()
    time.sleep(0.1)
    return lat


def start_switch(tmp):
    from vxswitch_tools import harness as vxlib
    rundir = Path(tempfile.mkdtemp(prefix="vxl", dir="/tmp"))
    topo = {"eal": {"lcores": "0-1", "memory-mb": 256, "no-pci": True},
            "datapath": {"pmd-cores": [1]},
            "ports": [{"name": "vm0", "type": "dpdkvhostuser",
                       "path": str(rundir / "vm0.sock")}]}
    return vxlib.Switch(topo, tmp, rundir, name="ctl-latency")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--socket", help="a running vxswitch's control socket")
    ap.add_argument("--idle", default="0,1000",
                    help="idle client counts (default 0,1000)")
    ap.add_argument("--stalled", default="0,50",
                    help="stalled client counts (default 0,50)")
    ap.add_argument("--requests", type=int, default=200,
                    help="show requests timed per row (default 200)")
    a = ap.parse_args()

    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = max(int(x) for x in a.idle.split(",")) + \
        max(int(x) for x in a.stalled.split(",")) + 64
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))

    sw = None
    path = a.socket
    tmp = tempfile.TemporaryDirectory(prefix="ctl-latency")
    if not path:
        os.environ.setdefault("VXS_BUILD_DIR", str(HERE.parent / "build"))
        sw = start_switch(tmp.name)
        path = str(sw.ctl_socket)
    try:
        print("%8s %8s %8s %8s %8s %8s" % ("idle", "stalled", "requests",
                                         "p50_ms", "p99_ms", "max_ms"))
        for n in (int(x) for x in a.idle.split(",")):
            for m in (int(x) for x in a.stalled.split(",")):
                lat = measure(path, n, m, a.requests)
                print("%8d %8d %8d %8.2f %8.2f %8.2f" % (
                    n, m, len(lat), pct(lat, 50), pct(lat, 99), max(lat)),
                    flush=True)
    finally:
        if sw:
            rc = sw.stop()
            if rc:
                print("vxswitch exited %d; log: %s" % (rc, sw.log_path))
            tmp.cleanup()


if __name__ == "__main__":
    main()
