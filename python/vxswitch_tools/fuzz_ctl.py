# SPDX-License-Identifier: BSD-3-Clause
"""The control-socket side of the fuzz suite: a raw client of the protocol
in app/control/control.h (vxswitch-ctl would cost a process per request), and the
hostile requests fuzz.py's "ctl" category sends.

A well-formed request must be answered "OK\\n" or "ERROR\\n" + body; an
ill-formed one may also just be closed. No answer at all within the
timeout counts as a stall.
"""

import contextlib
import socket
import time

ARG_POOL = ("br-int", "br-phy", "vhost-user0", "vhost-user1", "vxlan",
            "dpdk-phy", "172.1.0.0", "172.1.0.0/24", "0.0.0.0/0",
            "255.255.255.255/33", "10.0.0.1", "02:00:00:00:00:01",
            "ff:ff:ff:ff:ff:ff", "zz:zz", "on", "off", "--strict", "0", "-1",
            "4294967296", "99999999999999999999", "1abc", "%s%n%x", "\t",
            "in_port=1,actions=drop", "in_port=vxlan,ip,nw_dst=192.1.0.9,"
            "actions=output:vhost-user0", "priority=70000,actions=drop",
            "actions=" + "output:1," * 300 + "drop",
            "ip,nw_dst=1.2.3.4/40,actions=drop", "é€\u2028",
            "adaptive-polling", "hash-reuse", "nosuch", "x" * 5000)


class Client:
    """Requests to one control socket: request(args) -> (status, body)
    with status "OK", "ERROR", "closed" (no status line) or "timeout"."""

    def __init__(self, path, timeout=5.0):
        self.path, self.timeout = str(path), timeout

    def connect(self):
        """A connected socket. A full listen backlog (EAGAIN: the server
        is busy with other clients) is waited out, up to the timeout."""
        deadline = time.monotonic() + self.timeout
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(self.timeout)
            try:
                s.connect(self.path)
                return s
            except BlockingIOError:
                s.close()
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    def raw(self, data, timeout=None, shut_wr=True):
        """Sends raw bytes, reads until the server closes."""
        s = self.connect()
        if timeout:
            s.settimeout(timeout)
        out = b""
        try:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                s.sendall(data)
                if shut_wr:
                    s.shutdown(socket.SHUT_WR)
            while True:
                d = s.recv(1 << 16)
                if not d:
                    break
                out += d
        except socket.timeout:
            return "timeout", out
        except ConnectionResetError:
            pass
        finally:
            s.close()
        for st in ("OK", "ERROR"):
            if out.startswith(st.encode() + b"\n"):
                return st, out[len(st) + 1:]
        return "closed", out

    def request(self, args, json=False, timeout=None):
        data = b"".join(a.encode() + b"\0" for a in
                        (["--json"] if json else []) + list(args)) + b"\0"
        return self.raw(data, timeout=timeout)


def command_names(client):
    """The daemon's commands, from list-commands."""
    st, body = client.request(["list-commands"])
    if st != "OK":
        raise AssertionError("list-commands: %s %r" % (st, body[:200]))
    return [l.split()[0] for l in body.decode().splitlines()[1:]
            if l.strip()]


def garbage_requests(rng, n):
    """(label, bytes, must_answer) ill-formed requests."""
    fixed = [("empty", b"", False), ("lone NUL", b"\0", True),
             ("two NULs", b"\0\0", True), ("json only", b"--json\0\0", True),
             ("NUL in name", b"sh\0ow\0\0", True),
             ("many NULs", b"show\0" + b"\0" * 1000, True),
             ("no terminator", b"show", False),
             ("newline", b"show\n", False),
             ("too many args", b"show\0" + b"a\0" * 20000 + b"\0", False),
             ("over 2 MiB", b"A" * (3 << 20), False),
             ("2 MiB arg", b"show\0" + b"x" * (2 << 20) + b"\0\0", False),
             ("high bytes", bytes(range(128, 256)) + b"\0\0", True)]
    out = list(fixed)
    while len(out) < n:
        k = rng.randrange(4)
        body = bytes(rng.randrange(256) for _ in range(rng.randint(1, 2048)))
        if k == 0:
            out.append(("random bytes", body, False))
        elif k == 1:
            out.append(("random bytes + end", body + b"\0\0", False))
        else:
            out.append(("random args", b"".join(
                bytes(rng.randrange(1, 256) for _ in range(rng.randint(1, 40)))
                + b"\0" for _ in range(rng.randint(1, 6))) + b"\0", True))
    return out[:max(n, len(fixed))]


# write files where their argument says: not for random arguments
NOT_FUZZED = {"save-config"}


def random_command(rng, names):
    """A command from list-commands with 0-4 random arguments."""
    name = rng.choice([n for n in names if n not in NOT_FUZZED])
    args = [rng.choice(ARG_POOL) for _ in range(rng.randint(0, 4))]
    return [name] + args


# the topology's datapath limit each exhaustion kind runs into
LIMIT_KEYS = {"arp": "max-neighbours", "route": "max-routes",
              "flow": "max-flows"}


def exhaustion_requests(kind, n):
    """n distinct table entries of `kind` (arp, route, flow)."""
    for i in range(1, n + 1):
        a, b, c = (i >> 16) & 255, (i >> 8) & 255, i & 255
        if kind == "arp":
            yield ["tnl/arp/set", "br-phy", "10.%d.%d.%d" % (a, b, c),
                   "02:00:00:%02x:%02x:%02x" % (a, b, c)]
        elif kind == "route":
            yield ["ovs/route/add", "11.%d.%d.%d/32" % (a, b, c), "br-phy"]
        else:
            yield ["add-flow", "in_port=vxlan,ip,nw_dst=12.%d.%d.%d,"
                   "actions=output:vhost-user%d" % (a, b, c, i % 2)]


class IdleClients:
    """k clients that connect and send nothing (or, half_closed, a piece of
    a request and then shut their write side), held open until close()."""

    def __init__(self, client, k, half_closed=False):
        self.socks = []
        for _ in range(k):
            try:
                s = client.connect()
            except OSError:
                break
            if half_closed:
                with contextlib.suppress(OSError):
                    s.sendall(b"sho")
                    s.shutdown(socket.SHUT_WR)
            self.socks.append(s)

    def close(self):
        for s in self.socks:
            s.close()
        self.socks = []


def timed_show(client, timeout):
    t = time.monotonic()
    st, _ = client.request(["show"], timeout=timeout)
    return st, time.monotonic() - t
