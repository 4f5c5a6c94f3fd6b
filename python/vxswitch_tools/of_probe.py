# SPDX-License-Identifier: BSD-3-Clause
"""Raw OpenFlow probes of a switch's management socket (<bridge>.mgmt):
hand-made byte sequences, hostile ones included, sent on a fresh
connection each, and what came back written as text (one line a message:
version, type, xid, and the body in hex; "closed" when the switch closed
the connection). The same cases run against Debian's ovs-vswitchd
(tests/integration/ovs_ref/make-ovs-ref-ofchan.sh) and vxswitch
(tests/integration/test_openflow.py), which compares the two texts.

Usage: python3 -m vxswitch_tools.of_probe SOCKET   (prints every case)
"""
import select
import socket
import struct
import sys
import time

OFPT_HELLO, OFPT_ERROR, OFPT_ECHO_REQUEST = 0, 1, 2
OFPT_FEATURES_REQUEST = 5


def header(version, mtype, length, xid):
    return struct.pack("!BBHI", version, mtype, length, xid)


def msg(version, mtype, xid, body=b""):
    return header(version, mtype, 8 + len(body), xid) + body


def hello(version, bitmap=None, xid=1):
    """A hello; with 'bitmap', one version-bitmap element (OF 1.3.1+)."""
    if bitmap is None:
        return msg(version, OFPT_HELLO, xid)
    return msg(version, OFPT_HELLO, xid, struct.pack("!HHI", 1, 8, bitmap))


def multipart(version, mptype, xid, body=b""):
    """A 1.3+ multipart request (a 1.0 stats request with version 1)."""
    if version == 1:
        return msg(1, 16, xid, struct.pack("!HH", mptype, 0) + body)
    return msg(version, 18, xid, struct.pack("!HH4x", mptype, 0) + body)


# name -> the bytes sent, in order (a list: each element one write)
CASES = {
    # version negotiation
    "hello-10-no-bitmap": [hello(1)],
    "hello-13-bitmap-10-13": [hello(4, 0x12)],
    "hello-15-bitmap-all": [hello(6, 0x7e)],
    "hello-only-11": [hello(2, 0x04)],
    "hello-only-12-no-bitmap-then-more": [hello(3, 0x08) +
                                          msg(3, OFPT_ECHO_REQUEST, 9)],
    "hello-bitmap-none": [hello(6, 0x00)],
    "hello-only-16": [hello(7, 0x80)],
    "not-hello-first": [msg(4, OFPT_FEATURES_REQUEST, 7)],
    # framing
    "length-0": [hello(4, 0x10) + header(4, OFPT_ECHO_REQUEST, 0, 5)],
    "length-7": [hello(4, 0x10) + header(4, OFPT_ECHO_REQUEST, 7, 5)],
    "length-65535-truncated": [hello(4, 0x10) +
                               header(4, OFPT_ECHO_REQUEST, 65535, 5) +
                               b"x" * 100],
    "truncated-header": [hello(4, 0x10) + b"\x04\x02\x00"],
    "garbage": [b"GET / HTTP/1.0\r\n\r\n"],
    # after a 1.3 hello
    "echo-13": [hello(4, 0x10) + msg(4, OFPT_ECHO_REQUEST, 0x11,
                                     b"ping-data")],
    "bad-version-after-hello": [hello(4, 0x10) +
                                msg(1, OFPT_FEATURES_REQUEST, 0x12) +
                                msg(4, OFPT_ECHO_REQUEST, 0x13)],
    "echo-10-after-13": [hello(4, 0x10) + msg(1, OFPT_ECHO_REQUEST, 0x21)],
    "echo-unknown-version": [hello(4, 0x10) +
                             msg(0x0c, OFPT_ECHO_REQUEST, 0x22)],
    "echo-version-0": [hello(4, 0x10) + msg(0, OFPT_ECHO_REQUEST, 0x23)],
    "unknown-type-unknown-version": [hello(4, 0x10) +
                                     msg(0x0c, 99, 0x24)],
    "unknown-type-13": [hello(4, 0x10) + msg(4, 200, 0x14, b"abcd")],
    "unknown-type-10": [hello(1) + msg(1, 99, 0x15)],
    "unknown-multipart-13": [hello(4, 0x10) + multipart(4, 0x7777, 0x16)],
    "unknown-stats-10": [hello(1) + multipart(1, 0x7777, 0x17)],
    "experimenter-unknown-13": [hello(4, 0x10) +
                                msg(4, 4, 0x18,
                                    struct.pack("!II", 0x00abcdef, 1))],
    "barrier-13": [hello(4, 0x10) + msg(4, 20, 0x19)],
    "barrier-10": [hello(1) + msg(1, 18, 0x1a)],
    "get-config-15": [hello(6, 0x40) + msg(6, 7, 0x1b)],
    "set-config-then-get-13": [hello(4, 0x10) +
                               msg(4, 9, 0x1c, struct.pack("!HH", 1, 128)) +
                               msg(4, 7, 0x1d)],
    "set-config-short-13": [hello(4, 0x10) + msg(4, 9, 0x1e, b"\x00")],
    "role-equal-13": [hello(4, 0x10) +
                      msg(4, 24, 0x1f, struct.pack("!I4xQ", 1, 0))],
    "role-nochange-13": [hello(4, 0x10) +
                         msg(4, 24, 0x20, struct.pack("!I4xQ", 0, 0))],
    "echo-many-13": [hello(4, 0x10) +
                     b"".join(msg(4, OFPT_ECHO_REQUEST, 0x100 + i)
                              for i in range(20))],
}


def run_case(path, chunks, wait=0.6):
    """Sends 'chunks' on a new connection to the unix socket 'path';
    returns the list of messages received as (version, type, xid, body)
    and whether the peer closed, reading until it closes or sends nothing
    for 'wait' seconds."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    for c in chunks:
        try:
            s.sendall(c)
        except OSError:
            break
    buf = b""
    closed = False
    deadline = time.monotonic() + wait
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        r, _, _ = select.select([s], [], [], left)
        if not r:
            break
        try:
            d = s.recv(65536)
        except OSError:
            closed = True
            break
        if not d:
            closed = True
            break
        buf += d
        deadline = time.monotonic() + wait
    s.close()
    msgs = []
    while len(buf) >= 8:
        v, t, ln, x = struct.unpack("!BBHI", buf[:8])
        if ln < 8 or ln > len(buf):
            break
        msgs.append((v, t, x, buf[8:ln]))
        buf = buf[ln:]
    return msgs, closed


def format_case(name, msgs, closed):
    """The text of one case: its name, one line a message, then
    "closed" or "open"."""
    lines = ["## " + name]
    for v, t, x, body in msgs:
        lines.append("v=0x%02x type=%d xid=0x%x body=%s"
                     % (v, t, x, body.hex()))
    lines.append("closed" if closed else "open")
    return "\n".join(lines) + "\n"


def run_all(path):
    return "".join(format_case(n, *run_case(path, c))
                   for n, c in CASES.items())


if __name__ == "__main__":
    sys.stdout.write(run_all(sys.argv[1]))
