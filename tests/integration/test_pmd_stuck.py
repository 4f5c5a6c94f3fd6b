# SPDX-License-Identifier: BSD-3-Clause
"""A PMD stuck in a driver call: the control plane and the shutdown go on.

Port "fifo" is net_pcap reading a FIFO that stays empty (its pcap header
only, the writer holding it open): the PMD blocks in net_pcap's read, as it
did in the demo's sample run, where the frames go in only once the VMs are
up. Then, within their bounds (PMD_ANSWER_MS, PMD_STOP_MS, pmd_watch.h):

 - show, show --json, dpif-netdev/pmd-stats-show (text and --json) answer
   at once, with the PMD marked as not answering and where it is ("rx on
   fifo"), counters as last seen;
 - a command that changes what PMDs do is refused and changes nothing;
 - the log says it once;
 - once the FIFO is fed, the frames are forwarded byte for byte (fifo ->
   port "out", a net_pcap writing a file) and the PMD answers again;
 - SIGTERM, the PMD blocked again on the empty FIFO, stops the switch
   (the PMD is interrupted out of its read), exit 0, no mbuf leaked.
"""

import os
import signal
import time

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from vxswitch_tools import harness as vxlib

# Whole bursts: net_pcap's rx returns only once it has read a full burst
# (32) or hit EOF, so a part burst would wait in the driver for more.
N_FRAMES = 64
CMD_BOUND_S = 2.5       # PMD_ANSWER_MS (1 s) at most, plus the client
STOP_BOUND_S = 5.0      # PMD_STOP_MS (3 s) at most, plus the teardown


def frames():
    return [bytes(Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") /
                  IP(src="10.0.0.1", dst="10.0.0.%d" % (2 + i)) /
                  UDP(sport=1000 + i, dport=2000) / (b"%04d" % i * 10))
            for i in range(N_FRAMES)]


def topology(fifo, empty, out):
    return {"eal": {"lcores": "0-1", "memory-mb": 256, "no-pci": True},
            "datapath": {"pmd-cores": [1]},
            "ports": [{"name": "fifo", "type": "dpdk",
                       "devargs": "net_pcap0,rx_pcap=%s,tx_pcap=/dev/null"
                                  % fifo},
                      {"name": "out", "type": "dpdk",
                       "devargs": "net_pcap1,rx_pcap=%s,tx_pcap=%s"
                                  % (empty, out)}],
            "flows": ["in_port=fifo,actions=output:out",
                      "priority=0,actions=drop"]}


def timed(fn, *args, **kw):
    t0 = time.monotonic()
    r = fn(*args, **kw)
    return r, time.monotonic() - t0


def wait_silent(sw):
    vxlib.wait_for(lambda: sw.ctl("show", json=True)["pmds_not_answering"],
                   10, 0.1, what="the PMD to be reported not answering")


def test_pmd_blocked_in_driver(make_switch, tmp_path):
    sent = frames()
    pcap = vxlib.write_pcap(tmp_path / "in.pcap", sent)
    data = pcap.read_bytes()
    empty = vxlib.write_pcap(tmp_path / "empty.pcap", [])
    out = tmp_path / "out.pcap"
    fifo = tmp_path / "rx.fifo"
    os.mkfifo(fifo, 0o600)
    # O_RDWR: no open waits for the other end; the switch reads the pcap
    # header at probe time and then blocks in its first rx burst
    fd = os.open(fifo, os.O_RDWR)
    try:
        os.write(fd, data[:24])
        sw = make_switch(topology(fifo, empty, out))
        wait_silent(sw)

        # -- the reports answer, and say who is stuck and where
        r, secs = timed(sw.ctl_result, "show")
        assert r.returncode == 0 and secs < CMD_BOUND_S, (secs, r)
        line = [ln for ln in r.stdout.splitlines() if "not answering" in ln]
        assert len(line) == 1, r.stdout
        assert "pmd 0 (core 1): not answering for " in line[0], line
        assert "(inside rx on fifo)" in line[0], line

        j, secs = timed(sw.ctl, "show", json=True)
        assert secs < CMD_BOUND_S, secs
        [na] = j["pmds_not_answering"]
        assert na["core"] == 1 and na["inside"] == "rx on fifo", na
        assert na["silent_s"] >= 1.0, na
        assert j["accounting"]["exact"] is False, j["accounting"]
        assert {p["name"]: p["rx_packets"] for p in j["ports"]} == \
            {"fifo": 0, "out": 0}, j["ports"]

        r, secs = timed(sw.ctl_result, "dpif-netdev/pmd-stats-show")
        assert r.returncode == 0 and secs < CMD_BOUND_S, (secs, r)
        assert "not answering for" in r.stdout, r.stdout
        assert "counters as last seen" in r.stdout, r.stdout

        st, secs = timed(sw.ctl, "dpif-netdev/pmd-stats-show", json=True)
        assert secs < CMD_BOUND_S, secs
        assert st[0]["answering"] is False, st
        assert st[0]["not_answering"]["inside"] == "rx on fifo", st

        # -- what would change the PMDs is refused, by name, and nothing
        # changes
        before = sw.ctl("dpif-netdev/opts-show", json=True)
        for cmd in (["dpif-netdev/pmd-stats-clear"],
                    ["dpif-netdev/set-opt", "emc-bypass", "off"],
                    ["dpctl/del-flows"]):
            r, secs = timed(sw.ctl_result, *cmd)
            assert r.returncode != 0 and secs < CMD_BOUND_S, (cmd, secs, r)
            err = r.stdout + r.stderr
            assert "not answering" in err and "nothing changed" in err, err
        assert sw.ctl("dpif-netdev/opts-show", json=True) == before

        assert "pmd 0 (core 1): not answering for" in sw.log, \
            sw.log_tail(20)

        # -- fed, it forwards every frame and answers again
        view = memoryview(data)[24:]
        while view:
            view = view[os.write(fd, view):]
        vxlib.wait_for(
            lambda: {p["name"]: p for p in
                     sw.ctl("show", json=True)["ports"]}["out"]
            ["tx_packets"] >= N_FRAMES, 10, 0.05,
            what=lambda: "%d frames forwarded: %s\n%s" % (
                N_FRAMES, sw.ctl("show"),
                sw.ctl("dpif-netdev/pmd-stats-show", "-m")))
        vxlib.wait_for(lambda: "pmd 0 (core 1): answering again" in sw.log,
                       5, 0.05, what=lambda: sw.log_tail(20))
        # blocked again: the FIFO is empty and still open
        wait_silent(sw)

        # -- SIGTERM while it is blocked: it is interrupted, the switch
        # exits cleanly and in bounded time
        t0 = time.monotonic()
        rc = sw.stop(timeout=STOP_BOUND_S + 5, sig=signal.SIGTERM)
        secs = time.monotonic() - t0
    finally:
        os.close(fd)
    log = sw.log
    assert secs < STOP_BOUND_S, (secs, log[-2000:])
    assert rc == 0, log[-2000:]
    assert "mbufs in use at exit: 0\n" in log, log[-2000:]
    assert vxlib.read_pcap_raw(out) == sent
