# SPDX-License-Identifier: BSD-3-Clause
"""The real daemon's control socket with 1,000 idle clients and a few
stalled ones: `show` still answers at once (under 100 ms), through raw
sockets and through vxswitch-ctl, and control/show counts them. The
benchmark with the same set-up is perf/ctl-latency.py."""

import resource
import socket
import time

from vxswitch_tools import harness as vxlib

N_IDLE = 1000
N_STALLED = 20


def raw_show(path):
    t0 = time.monotonic()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(path)
        s.sendall(b"show\0\0")
        s.shutdown(socket.SHUT_WR)      # half-closed: still answered
        reply = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            reply += b
    return reply, (time.monotonic() - t0) * 1000


def control_stats(sw):
    return sw.ctl("control/show", json=True)


def test_show_with_1000_idle_clients(make_switch, one_port_topology):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = N_IDLE + N_STALLED + 256
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    sw = make_switch(one_port_topology)
    path = str(sw.ctl_socket)
    idle, stalled = [], []
    try:
        for _ in range(N_IDLE):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            idle.append(s)
        for _ in range(N_STALLED):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            s.sendall(b"show\0")        # and never the end
            stalled.append(s)
        vxlib.wait_for(lambda: control_stats(sw)["clients"] >=
                       N_IDLE + N_STALLED, 5, 0.05,
                       what="the server to accept every client")

        worst = 0.0
        for _ in range(50):
            reply, ms = raw_show(path)
            assert reply.startswith(b"OK\n") and b"vm0" in reply, reply
            worst = max(worst, ms)
        assert worst < 100, "show took %.1f ms with %d idle" % (worst,
                                                                 N_IDLE)
        t0 = time.monotonic()
        assert "vm0" in sw.ctl("show")
        assert time.monotonic() - t0 < 2     # process start included

        # The stalled ones are told after the request deadline, the idle
        # ones are left alone.
        for s in stalled:
            s.settimeout(3)
            assert s.recv(4096) == b"ERROR\nrequest incomplete after " \
                b"1000 ms"
        st = control_stats(sw)
        assert st["request_timeouts"] == N_STALLED
        assert st["clients"] >= N_IDLE and st["max_clients"] > N_IDLE
        assert st["refused_full"] == 0 and st["evicted_idle"] == 0
    finally:
        for s in idle + stalled:
            s.close()
    vxlib.wait_for(lambda: control_stats(sw)["clients"] == 1, 5, 0.05,
                   what="the server to see the clients go")
    assert sw.stop() == 0
