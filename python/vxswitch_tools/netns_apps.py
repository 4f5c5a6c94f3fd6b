# SPDX-License-Identifier: BSD-3-Clause
"""Real traffic between network namespaces, with results a test can
assert on: TCP transfers compared by sha256 at both ends, UDP echo, ping,
a TCP connect whose outcome (connected, refused, timeout) is the result,
long-lived TCP sessions driven step by step (send, FIN, RST), tcpdump
captures decoded to TCP flags, and socket counts from `ss`.

The programs themselves are netns_peer.py (run with Debian's python3 in
the namespace); every process started here is registered with the
harness (procs._live) and killed at teardown whatever happens.
"""

import contextlib
import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

from .hostnet import sh
from .pcap import read_pcap_raw
from .procs import _live, wait_for

PEER = Path(__file__).with_name("netns_peer.py")
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() \
    else sys.executable


class Peer:
    """One netns_peer.py process in namespace ns; its stdout is read line
    by line as JSON (from the pipe's fd, with a buffer of our own, so a
    timeout never loses a line)."""

    def __init__(self, ns, *args, stdin=False):
        self.ns, self.args = ns, [str(a) for a in args]
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, PYTHON, "-u", str(PEER)] + self.args,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)
        self.buf = b""
        _live.append(self.proc)

    def __repr__(self):
        return "peer[%s %s]" % (self.ns, " ".join(self.args))

    def _read(self, deadline):
        """More of stdout into self.buf; False at EOF or the deadline."""
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        r, _, _ = select.select([self.proc.stdout], [], [], left)
        if not r:
            return False
        b = os.read(self.proc.stdout.fileno(), 65536)
        self.buf += b
        return bool(b)

    def line(self, timeout=10.0):
        """The next JSON line; AssertionError (with stderr) if none comes
        within timeout or the process ends first."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            if not self._read(deadline):
                raise AssertionError(
                    "%r: no output within %.1f s (exit %s): %s"
                    % (self, timeout, self.proc.poll(), self.stderr()))
        text, self.buf = self.buf.split(b"\n", 1)
        return json.loads(text)

    def command(self, text, timeout=10.0):
        """A line to stdin (tcp-session), and the JSON line it answers."""
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()
        return self.line(timeout)

    def result(self, timeout=60.0):
        """Waits for the exit; the last JSON line (AssertionError with
        stderr on a non-zero exit or a timeout)."""
        deadline = time.monotonic() + timeout
        while self._read(deadline):
            pass
        try:
            self.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.stop()
            raise AssertionError("%r: still running after %.0f s"
                                 % (self, timeout)) from None
        lines = [ln for ln in self.buf.decode().splitlines() if ln.strip()]
        err = self.stderr()
        self._forget()
        if self.proc.returncode != 0 or not lines:
            raise AssertionError("%r: exit %d: %s" % (
                self, self.proc.returncode, err.strip()))
        return json.loads(lines[-1])

    def stderr(self):
        if self.proc.poll() is None:
            return "(running)"
        try:
            return self.proc.stderr.read().decode(errors="replace")
        except (OSError, ValueError):     # closed already
            return ""

    def stop(self):
        """SIGKILL (servers run until stopped)."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)
        self._forget()

    def _forget(self):
        if self.proc in _live and self.proc.poll() is not None:
            _live.remove(self.proc)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if f is not None and self.proc.poll() is not None:
                with contextlib.suppress(OSError):
                    f.close()


def server(ns, *args, timeout=10.0):
    """A netns_peer.py server, once it listens."""
    p = Peer(ns, *args)
    ready = p.line(timeout)
    assert ready.get("ready"), (p, ready)
    return p


# ------------------------------------------------------------------ TCP

def v6(ip):
    """The server's family flag for netns_peer.py: IPv6 server_ip, -6."""
    return ("-6",) if ":" in ip else ()


def tcp_transfer(client_ns, server_ns, server_ip, nbytes, port=5001,
                 direction="upload", timeout=60.0):
    """nbytes over one TCP connection; upload: client -> server, download:
    server -> client. Returns {"client": {...}, "server": {...}}, each end's
    sha256/bytes/seconds, after asserting they match and count nbytes."""
    up = direction == "upload"
    srv = server(server_ns, *v6(server_ip), "tcp-serve", port,
                 "sink" if up else "source", nbytes)
    try:
        cli = Peer(client_ns, "tcp-client", server_ip, port,
                   "source" if up else "sink", nbytes)
        c = cli.result(timeout)
        s = srv.result(timeout)
    finally:
        srv.stop()
    assert c["bytes"] == s["bytes"] == nbytes, (c, s)
    assert c["sha256"] == s["sha256"], ("sha256 differs", c, s)
    return {"client": c, "server": s}


def tcp_connect(ns, ip, port, timeout=2.0):
    """Tries one TCP connect; {"result": "connected"|"refused"|"timeout"|
    "unreachable", "seconds": t}. A refusal came back as a RST; a timeout
    means nothing came back (dropped)."""
    return Peer(ns, "tcp-connect", ip, port, timeout).result(timeout + 10)


class TcpSession:
    """A connection kept open to a tcp-echo-serve server (started here in
    server_ns), driven step by step: send(n) (n bytes echoed back), fin(),
    rst(). For session state tests: a session idle past its timeout, a
    FIN or RST that closes it."""

    def __init__(self, client_ns, server_ns, server_ip, port=5002):
        self.srv = server(server_ns, "tcp-echo-serve", port)
        self.cli = Peer(client_ns, "tcp-session", server_ip, port,
                        stdin=True)
        hello = self.cli.line(15)
        self.connected = hello.get("connected", False)
        self.local = hello.get("local")
        self.error = hello.get("error")

    def send(self, n=1000, timeout=15.0):
        """True when n bytes went out and the same n came back."""
        r = self.cli.command("send %d" % n, timeout)
        return r["ok"]

    def fin(self, timeout=15.0):
        return self.cli.command("fin", timeout)["ok"]

    def rst(self, timeout=15.0):
        return self.cli.command("rst", timeout)["ok"]

    def close(self):
        self.cli.stop()
        self.srv.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def conn_count(ns, state="established", port=None):
    """TCP sockets in `state` in ns (ss), optionally those with `port` as
    either end's port."""
    cmd = ["ss", "-Htn", "state", state]
    if port is not None:
        cmd += ["( sport = :%d or dport = :%d )" % (port, port)]
    return len([ln for ln in sh(cmd, ns=ns).splitlines() if ln.strip()])


# ------------------------------------------------------------ UDP, ICMP

def udp_echo(client_ns, server_ns, server_ip, count=20, size=200, port=5003,
             timeout=1.0):
    """count datagrams to an echo server in server_ns, one at a time;
    {"sent", "received", "bad"}."""
    srv = server(server_ns, *v6(server_ip), "udp-echo-serve", port)
    try:
        return Peer(client_ns, "udp-echo-client", server_ip, port, count,
                    size, timeout).result(count * timeout + 15)
    finally:
        srv.stop()


def udp_echo_sweep(client_ns, server_ns, server_ip, lo, hi, port=5004,
                   timeout=1.0):
    """One datagram of every size lo..hi to an echo server in server_ns;
    {"sent", "received", "retried", "failed" (sizes, first 50),
    "n_failed"}."""
    srv = server(server_ns, *v6(server_ip), "udp-echo-serve", port)
    try:
        return Peer(client_ns, "udp-echo-sweep", server_ip, port, lo, hi,
                    timeout).result((hi - lo + 1) * 0.05 + 60)
    finally:
        srv.stop()


def udp_to_closed_port(ns, ip, port, count=2):
    """count datagrams to a port nobody listens on, one at a time; how
    many came back refused (an ICMP port unreachable reached the socket)."""
    return Peer(ns, "udp-echo-client", ip, port, count, 64,
                0.5).result(count + 15)["refused"]


def udp_send(ns, sport, ip, port, count=1):
    """count datagrams from port sport of ns to ip:port (no reply read)."""
    return Peer(ns, "udp-send", sport, ip, port, count).result(15)


def udp_receiver(ns, port, count, timeout):
    """A receiver listening in ns (started once it listens): its result()
    says how many datagrams came within timeout."""
    return server(ns, "udp-recv", port, count, timeout)


def tcp_segment(ns, src, ip, sport, dport, flags="A", seq=1, ack=1,
                length=0):
    """One hand-made TCP segment from src in ns (a raw socket, no
    connection behind it): a late packet of a closed connection."""
    return Peer(ns, "tcp-segment", src, ip, sport, dport, flags, seq, ack,
                length).result(15)


def ping(ns, dst, count=5, interval=0.2, size=56, wait=2):
    """iputils ping; {"transmitted", "received", "loss_pct", "output"}."""
    r = subprocess.run(["ip", "netns", "exec", ns, "ping", "-n", "-c",
                        str(count), "-i", str(interval), "-s", str(size),
                        "-W", str(wait), dst],
                       capture_output=True, text=True,
                       timeout=count * (interval + wait) + 10)
    m = re.search(r"(\d+) packets transmitted, (\d+) received", r.stdout)
    tx, rx = (int(m.group(1)), int(m.group(2))) if m else (count, 0)
    return {"transmitted": tx, "received": rx,
            "loss_pct": round(100.0 * (tx - rx) / tx, 1) if tx else 100.0,
            "output": r.stdout + r.stderr}


# -------------------------------------------------------------- capture

@contextlib.contextmanager
def capture(ns, iface, path, bpf="", snaplen=256):
    """tcpdump -i iface in ns (snaplen bytes a frame, 0: whole frames),
    writing path (pcap), running while the block does; the file is
    complete once the block has exited. Its output: PATH.tcpdump.log."""
    path = Path(path)
    log_path = path.with_suffix(".tcpdump.log")
    log = open(log_path, "wb")
    td = subprocess.Popen(
        ["ip", "netns", "exec", ns, "tcpdump", "-i", iface, "-n", "-U",
         "--immediate-mode",
         "-s", str(snaplen), "-w", str(path)] + ([bpf] if bpf else []),
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    _live.append(td)
    try:
        wait_for(lambda: b"listening on" in log_path.read_bytes()
                 or td.poll() is not None, 15, 0.05, "tcpdump to start")
        assert td.poll() is None, log_path.read_text()
        yield path
        time.sleep(0.2)      # let the last frames reach the file
    finally:
        td.send_signal(signal.SIGINT)
        try:
            td.wait(10)
        except subprocess.TimeoutExpired:
            td.kill()
            td.wait(5)
        log.close()
        if td in _live:
            _live.remove(td)


TCP_FLAGS = "FSRPAUEC"


def tcp_segments(pcap):
    """Every IPv4/TCP segment of an Ethernet capture: dicts with src, dst,
    sport, dport, flags (letters of FSRPAUEC, e.g. "SA", "FA", "R"),
    seq, ack and payload length."""
    out = []
    for f in read_pcap_raw(pcap):
        if len(f) < 14 + 20 + 20 or f[12:14] != b"\x08\x00":
            continue
        ihl = (f[14] & 0x0F) * 4
        if f[23] != 6:
            continue
        tot_len = struct.unpack("!H", f[16:18])[0]
        t = 14 + ihl
        if len(f) < t + 14:
            continue
        sport, dport, seq, ack = struct.unpack("!HHII", f[t:t + 12])
        doff = (f[t + 12] >> 4) * 4
        bits = f[t + 13]
        out.append({
            "src": ".".join(map(str, f[26:30])),
            "dst": ".".join(map(str, f[30:34])),
            "sport": sport, "dport": dport, "seq": seq, "ack": ack,
            "flags": "".join(c for i, c in enumerate(TCP_FLAGS)
                             if bits & (1 << i)),
            "len": tot_len - ihl - doff})
    return out
