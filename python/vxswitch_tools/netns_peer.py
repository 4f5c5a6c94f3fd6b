# SPDX-License-Identifier: BSD-3-Clause
"""The programs the netns rig runs inside its namespaces (one file, the
standard library only, so `ip netns exec NS python3 netns_peer.py MODE ...`
needs nothing installed there). Every mode writes JSON lines on stdout:
servers first {"ready": true} once they listen, then, like clients, one
result line at the end. netns_apps.py starts them and reads those lines.

  tcp-serve PORT sink|source N     accept one connection; sink: read to
                                   EOF, source: send N random bytes, FIN
  tcp-client IP PORT sink|source N connect once (no retry: a refusal is a
                                   result, not a reason to try again)
  tcp-connect IP PORT TIMEOUT      {"result": connected|refused|timeout|
                                   unreachable, "seconds": t}
  tcp-echo-serve PORT              echo every connection until its EOF
  tcp-session IP PORT              one connection driven from stdin:
                                   "send N" (N bytes out, N echoed back),
                                   "fin", "rst" (SO_LINGER 0 close)
  udp-echo-serve PORT              echo every datagram
  udp-echo-client IP PORT COUNT SIZE TIMEOUT
                                   COUNT datagrams, one at a time; counts
                                   replies that came back identical, and
                                   ICMP port unreachables (refused)
  udp-echo-sweep IP PORT MIN MAX TIMEOUT
                                   one datagram of every size MIN..MAX, one
                                   at a time (a retry each on loss); the
                                   sizes that never came back identical
  udp-send SPORT IP PORT COUNT     COUNT datagrams from port SPORT
  udp-recv PORT COUNT TIMEOUT      counts the datagrams that come within
                                   TIMEOUT (stops at COUNT)
  tcp-segment SRC IP SPORT DPORT FLAGS SEQ ACK LEN
                                   one hand-made TCP segment (raw socket):
                                   a late or stray packet of a connection
                                   no socket holds any more

Servers listen on IPv4; with -6 before MODE, on IPv6 ("::"). Clients
take the family from the address they are given.

A transfer's result carries the sha256 and byte count of what this end
sent or received, so a test compares the two ends' lines.
"""

import errno
import hashlib
import json
import os
import socket
import struct
import sys
import threading
import time

CHUNK = 65536


def emit(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


FAMILY = socket.AF_INET        # servers' (-6: AF_INET6)


def family(ip):
    return socket.AF_INET6 if ":" in ip else socket.AF_INET


def hostport(a):
    """'HOST:PORT' of a socket address (IPv6's has 4 fields)."""
    return "%s:%d" % tuple(a[:2])


def listener(port, kind=socket.SOCK_STREAM):
    s = socket.socket(FAMILY, kind)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::" if FAMILY == socket.AF_INET6 else "0.0.0.0", port))
    if kind == socket.SOCK_STREAM:
        s.listen(64)
    return s


def sink(c):
    h, n = hashlib.sha256(), 0
    while True:
        b = c.recv(CHUNK)
        if not b:
            break
        h.update(b)
        n += len(b)
    return h.hexdigest(), n


def source(c, total):
    h, n = hashlib.sha256(), 0
    while n < total:
        b = os.urandom(min(CHUNK, total - n))
        c.sendall(b)
        h.update(b)
        n += len(b)
    c.shutdown(socket.SHUT_WR)
    # wait for the other end's FIN: the data is then all delivered
    c.settimeout(60)
    while c.recv(CHUNK):
        pass
    return h.hexdigest(), n


def transfer(c, mode, total):
    t0 = time.monotonic()
    if mode == "sink":
        sha, n = sink(c)
    else:
        sha, n = source(c, total)
    return dict(sha256=sha, bytes=n, seconds=round(time.monotonic() - t0, 3))


def tcp_serve(port, mode, total=0):
    s = listener(port)
    emit(ready=True)
    c, peer = s.accept()
    c.settimeout(120)
    r = transfer(c, mode, total)
    c.close()
    emit(role="server", mode=mode, peer=hostport(peer), **r)


def tcp_client(ip, port, mode, total=0):
    c = socket.create_connection((ip, port), timeout=10)
    c.settimeout(120)
    r = transfer(c, mode, total)
    local = c.getsockname()
    c.close()
    emit(role="client", mode=mode, local=hostport(local), **r)


def tcp_connect(ip, port, timeout):
    t0 = time.monotonic()
    c = socket.socket(family(ip))
    c.settimeout(timeout)
    try:
        c.connect((ip, port))
        result = "connected"
    except ConnectionRefusedError:
        result = "refused"
    except socket.timeout:
        result = "timeout"
    except OSError as e:
        result = ("unreachable" if e.errno in (errno.EHOSTUNREACH,
                                                errno.ENETUNREACH)
                  else "error: %s" % e)
    finally:
        c.close()
    emit(result=result, seconds=round(time.monotonic() - t0, 3))


def echo_conn(c):
    with c:
        while True:
            b = c.recv(CHUNK)
            if not b:
                break
            c.sendall(b)


def tcp_echo_serve(port):
    s = listener(port)
    emit(ready=True)
    while True:
        c, _ = s.accept()
        threading.Thread(target=echo_conn, args=(c,), daemon=True).start()


def recv_exactly(c, n):
    buf = bytearray()
    while len(buf) < n:
        b = c.recv(min(CHUNK, n - len(buf)))
        if not b:
            break
        buf += b
    return bytes(buf)


def tcp_session(ip, port):
    try:
        c = socket.create_connection((ip, port), timeout=10)
    except OSError as e:
        emit(connected=False, error=str(e))
        return
    c.settimeout(10)
    emit(connected=True, local=hostport(c.getsockname()))
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            if words[0] == "send":
                n = int(words[1])
                data = os.urandom(n)
                c.sendall(data)
                back = recv_exactly(c, n)
                emit(cmd="send", ok=back == data, sent=n, echoed=len(back))
            elif words[0] == "fin":
                c.shutdown(socket.SHUT_WR)
                rest = c.recv(CHUNK)     # the echo server's FIN
                c.close()
                emit(cmd="fin", ok=rest == b"")
                return
            elif words[0] == "rst":
                c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                             struct.pack("ii", 1, 0))
                c.close()
                emit(cmd="rst", ok=True)
                return
            else:
                emit(cmd=words[0], ok=False, error="unknown command")
        except OSError as e:
            emit(cmd=words[0], ok=False, error=str(e))


def udp_echo_serve(port):
    s = listener(port, socket.SOCK_DGRAM)
    emit(ready=True)
    while True:
        b, peer = s.recvfrom(CHUNK)
        s.sendto(b, peer)


def udp_echo_client(ip, port, count, size, timeout):
    s = socket.socket(family(ip), socket.SOCK_DGRAM)
    s.settimeout(timeout)
    s.connect((ip, port))
    received = bad = refused = 0
    for i in range(count):
        data = struct.pack("!I", i) + os.urandom(max(0, size - 4))
        s.send(data)
        try:
            # a late reply to an earlier datagram is skipped, not matched
            while True:
                b = s.recv(CHUNK)
                if b[:4] == data[:4]:
                    break
        except socket.timeout:
            continue
        except ConnectionRefusedError:     # an ICMP port unreachable
            refused += 1
            continue
        if b == data:
            received += 1
        else:
            bad += 1
    emit(sent=count, received=received, bad=bad, refused=refused,
         local=hostport(s.getsockname()))


def udp_echo_sweep(ip, port, lo, hi, timeout):
    s = socket.socket(family(ip), socket.SOCK_DGRAM)
    s.settimeout(timeout)
    s.connect((ip, port))
    received = retried = 0
    failed = []
    for size in range(lo, hi + 1):
        for attempt in range(2):
            data = os.urandom(size)
            s.send(data)
            try:
                while s.recv(CHUNK) != data:
                    pass        # a late echo of an earlier datagram
            except (socket.timeout, ConnectionRefusedError):
                retried += 1
                continue
            received += 1
            break
        else:
            failed.append(size)
    emit(sent=hi - lo + 1, received=received, retried=retried,
         failed=failed[:50], n_failed=len(failed))


def udp_send(sport, ip, port, count):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", sport))
    for i in range(count):
        s.sendto(struct.pack("!I", i) + b"x" * 60, (ip, port))
    emit(sent=count)


def udp_recv(port, count, timeout):
    s = listener(port, socket.SOCK_DGRAM)
    emit(ready=True)
    end = time.monotonic() + timeout
    n = 0
    while n < count and time.monotonic() < end:
        s.settimeout(max(0.01, end - time.monotonic()))
        try:
            s.recvfrom(CHUNK)
        except socket.timeout:
            break
        n += 1
    emit(received=n)


def checksum(b):
    if len(b) % 2:
        b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16:
        t = (t & 0xFFFF) + (t >> 16)
    return ~t & 0xFFFF


def tcp_segment(src, ip, sport, dport, flags, seq, ack, length):
    bits = sum(1 << "FSRPAU".index(c) for c in flags)
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF,
                      ack & 0xFFFFFFFF, 5 << 4, bits, 65535, 0, 0)
    seg = hdr + b"L" * length
    pseudo = (socket.inet_aton(src) + socket.inet_aton(ip)
              + struct.pack("!BBH", 0, socket.IPPROTO_TCP, len(seg)))
    seg = seg[:16] + struct.pack("!H", checksum(pseudo + seg)) + seg[18:]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
    s.bind((src, 0))
    s.sendto(seg, (ip, 0))
    emit(sent=1, bytes=len(seg))


def main(argv):
    global FAMILY
    if argv[0] == "-6":
        FAMILY, argv = socket.AF_INET6, argv[1:]
    mode, args = argv[0], argv[1:]
    if mode == "tcp-serve":
        tcp_serve(int(args[0]), args[1], int(args[2]) if len(args) > 2 else 0)
    elif mode == "tcp-client":
        tcp_client(args[0], int(args[1]), args[2],
                   int(args[3]) if len(args) > 3 else 0)
    elif mode == "tcp-connect":
        tcp_connect(args[0], int(args[1]), float(args[2]))
    elif mode == "tcp-echo-serve":
        tcp_echo_serve(int(args[0]))
    elif mode == "tcp-session":
        tcp_session(args[0], int(args[1]))
    elif mode == "udp-echo-serve":
        udp_echo_serve(int(args[0]))
    elif mode == "udp-echo-client":
        udp_echo_client(args[0], int(args[1]), int(args[2]), int(args[3]),
                        float(args[4]))
    elif mode == "udp-echo-sweep":
        udp_echo_sweep(args[0], int(args[1]), int(args[2]), int(args[3]),
                       float(args[4]))
    elif mode == "udp-send":
        udp_send(int(args[0]), args[1], int(args[2]), int(args[3]))
    elif mode == "udp-recv":
        udp_recv(int(args[0]), int(args[1]), float(args[2]))
    elif mode == "tcp-segment":
        tcp_segment(args[0], args[1], int(args[2]), int(args[3]), args[4],
                    int(args[5]), int(args[6]), int(args[7]))
    else:
        sys.exit("netns_peer: unknown mode %r" % mode)


if __name__ == "__main__":
    main(sys.argv[1:])
