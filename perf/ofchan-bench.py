#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The OpenFlow channel's rates (app/control/of_conn.c): starts vxswitch
from BUILD on two null ports (no traffic) and measures, on br-int.mgmt:

  - echo requests pipelined on one connection (OpenFlow 1.3, 128 in
    flight): replies per second;
  - barrier round trips one at a time (what ovs-ofctl add-flow does after
    each flow_mod): microseconds each;
  - the same round trips while another client floods 60 KiB echo
    requests and reads nothing (until the switch drops it);
  - `ovs-ofctl -O OpenFlow13 show br-int`, a whole process: ms each.

    perf/ofchan-bench.py [--build build] [--echoes 100000] [--rtts 10000]
"""

import argparse
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))


def connect(path):
    from vxswitch_tools import of_probe
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(of_probe.hello(4, 0x10))
    recv_msgs(s, 1)
    return s


def recv_msgs(s, n):
    """Reads n whole messages."""
    buf = b""
    got = 0
    while got < n:
        d = s.recv(1 << 20)
        if not d:
            raise EOFError
        buf += d
        while len(buf) >= 8:
            ln = struct.unpack("!H", buf[2:4])[0]
            if len(buf) < ln:
                break
            buf = buf[ln:]
            got += 1
    return got


def echo_rate(path, n, window=128):
    from vxswitch_tools import of_probe
    s = connect(path)
    msg = of_probe.msg(4, 2, 1)
    t0 = time.perf_counter()
    sent = done = 0
    while done < n:
        k = min(window - (sent - done), n - sent)
        if k:
            s.sendall(msg * k)
            sent += k
        done += recv_msgs(s, 1)
    dt = time.perf_counter() - t0
    s.close()
    return n / dt


def barrier_rtts(path, n):
    from vxswitch_tools import of_probe
    s = connect(path)
    msg = of_probe.msg(4, 20, 9)
    t = []
    for _ in range(n):
        t0 = time.perf_counter()
        s.sendall(msg)
        recv_msgs(s, 1)
        t.append(time.perf_counter() - t0)
    s.close()
    return statistics.median(t) * 1e6, max(t) * 1e6


def hog(path, stop):
    from vxswitch_tools import of_probe
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(path)
    s.sendall(of_probe.hello(4, 0x10))
    msg = of_probe.msg(4, 2, 7, b"x" * 60000)
    s.settimeout(0.2)
    while not stop.is_set():
        try:
            s.sendall(msg)
        except socket.timeout:
            pass
        except OSError:
            break
    s.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--echoes", type=int, default=100000)
    ap.add_argument("--rtts", type=int, default=10000)
    a = ap.parse_args()
    os.environ["VXS_BUILD_DIR"] = str(Path(a.build).resolve())
    from vxswitch_tools import switch
    tmp = tempfile.TemporaryDirectory(prefix="ofchan-bench")
    rundir = Path(tempfile.mkdtemp(prefix="vxof", dir="/tmp"))
    topo = {"eal": {"memory-mb": 256},
            "ports": [{"name": "p1", "type": "null"},
                      {"name": "p2", "type": "null"}]}
    sw = switch.Switch(topo, tmp.name, rundir, name="ofchan")
    path = str(rundir / "br-int.mgmt")
    try:
        for _ in range(100):
            if os.path.exists(path):
                break
            time.sleep(0.05)
        print("echo pipelined: %.0f replies/s (%d)" %
              (echo_rate(path, a.echoes), a.echoes))
        med, mx = barrier_rtts(path, a.rtts)
        print("barrier round trip: median %.1f us, max %.1f us (%d)" %
              (med, mx, a.rtts))
        stop = threading.Event()
        th = threading.Thread(target=hog, args=(path, stop))
        th.start()
        time.sleep(0.2)
        med, mx = barrier_rtts(path, a.rtts)
        stop.set()
        th.join()
        print("barrier round trip beside a client that never reads: "
              "median %.1f us, max %.1f us (%d)" % (med, mx, a.rtts))
        env = dict(os.environ, OVS_RUNDIR=str(rundir))
        t = []
        for _ in range(20):
            t0 = time.perf_counter()
            subprocess.run(["ovs-ofctl", "-O", "OpenFlow13", "show",
                            "br-int"], env=env, check=True,
                           capture_output=True)
            t.append(time.perf_counter() - t0)
        print("ovs-ofctl -O OpenFlow13 show br-int: median %.1f ms (20)"
              % (statistics.median(t) * 1e3))
        print(sw.ctl("openflow/show").split("messages")[0], end="")
    finally:
        sw.stop()
        tmp.cleanup()


if __name__ == "__main__":
    main()
