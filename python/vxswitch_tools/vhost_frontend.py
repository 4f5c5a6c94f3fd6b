# SPDX-License-Identifier: BSD-3-Clause
"""A hostile vhost-user frontend: the VM side of the protocol, as QEMU or
virtio-user speak it, with named ways to misbehave.

It speaks over the port's socket the way a frontend does (GET_FEATURES,
SET_OWNER, SET_FEATURES, SET_MEM_TABLE with memfd regions, SET_VRING_CALL/
NUM/BASE/ADDR/KICK), then writes descriptors and the avail ring into the
shared memory itself. Each case is a function case_NAME(fe, **opts) that
returns a dict of what it saw; CASES lists them. Used by
test_hostile_guest.py and meant for the fuzz suite.

    scripts/vhost-frontend.py --socket PATH --case NAME [--connect]
                              [--hold SECS] [--count N]
    scripts/vhost-frontend.py --list-cases   # the case names, and flood

By default it listens on PATH, as the VM does for a dpdkvhostuserclient
port (the switch connects); --connect connects to a dpdkvhostuser port's
socket instead. It prints the result as one JSON line.
"""

import argparse
import contextlib
import json
import mmap
import os
import socket
import struct
import sys
import time

# requests (lib/vhost/vhost_user.h, QEMU's docs/interop/vhost-user.rst)
GET_FEATURES, SET_FEATURES, SET_OWNER = 1, 2, 3
SET_MEM_TABLE = 5
SET_VRING_NUM, SET_VRING_ADDR, SET_VRING_BASE = 8, 9, 10
SET_VRING_KICK, SET_VRING_CALL = 12, 13
VERSION = 0x1
F_VERSION_1 = 1 << 32

MEM_SIZE = 2 << 20
UADDR_BASE = 0x7F0000000000      # the "frontend virtual address" of GPA 0
RING_AREA = 0x10000              # vring v's desc/avail/used at (v+1)*this
BUF_AREA = 0x100000              # packet buffers, 2 KiB each
BUF_SIZE = 2048
VIRTIO_HDR_LEN = 12              # virtio_net_hdr_mrg_rxbuf (VERSION_1)
DESC_F_NEXT = 1
RX_VRING, TX_VRING = 0, 1        # guest rx (switch enqueues), guest tx


def _frame(i=0):
    """A small Ethernet/IPv4/UDP frame from 52:54:00:00:0f:ff (no VM of
    the tests) to broadcast: bytes a switch can parse and drop."""
    eth = bytes.fromhex("ffffffffffff5254000f0fff0800")
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + 8 + 18, i & 0xFFFF, 0,
                     64, 17, 0, bytes([192, 1, 0, 250]), bytes([192, 1, 0, 251]))
    udp = struct.pack("!HHHH", 40000, 5001, 8 + 18, 0)
    return eth + ip + udp + b"x" * 18


class Frontend:
    """One connection's frontend: the socket, the guest memory (a memfd
    mapped here too) and the vrings laid out in it."""

    def __init__(self, sock, mem_size=MEM_SIZE):
        self.s = sock
        self.memfd = os.memfd_create("vhost-frontend-mem")
        os.ftruncate(self.memfd, mem_size)
        self.mem = mmap.mmap(self.memfd, mem_size)
        self.mem_size = mem_size
        self.eventfds = []
        self.ring_size = {}

    def close(self):
        with contextlib.suppress(OSError):
            self.s.close()
        for fd in self.eventfds + [self.memfd]:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(Exception):
            self.mem.close()

    # -- messages --------------------------------------------------------
    def send(self, req, payload=b"", fds=(), size=None, flags=VERSION):
        hdr = struct.pack("<III", req, flags,
                          len(payload) if size is None else size)
        if fds:
            socket.send_fds(self.s, [hdr + payload], list(fds))
        else:
            self.s.sendall(hdr + payload)

    def recv_reply(self, timeout=5.0):
        self.s.settimeout(timeout)
        hdr = self._recv_exact(12)
        req, flags, size = struct.unpack("<III", hdr)
        return req, self._recv_exact(size)

    def _recv_exact(self, n):
        b = b""
        while len(b) < n:
            k = self.s.recv(n - len(b))
            if not k:
                raise ConnectionError("switch closed the connection")
            b += k
        return b

    def wait_closed(self, timeout):
        """Seconds until the switch closes the connection (reads and throws
        away anything it sends), or None if it is still open."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            self.s.settimeout(max(0.01, timeout - (time.monotonic() - t0)))
            try:
                if not self.s.recv(4096):
                    return time.monotonic() - t0
            except socket.timeout:
                return None
            except OSError:
                return time.monotonic() - t0
        return None

    # -- setup -------------------------------------------------------------
    def negotiate(self):
        self.send(GET_FEATURES)
        _, p = self.recv_reply()
        offered = struct.unpack("<Q", p[:8])[0]
        self.send(SET_OWNER)
        self.send(SET_FEATURES, struct.pack("<Q", offered & F_VERSION_1))
        return offered

    def mem_table(self, regions=None):
        """regions: [(gpa, size, uaddr, mmap_offset, fd)]; default: all of
        our memfd."""
        if regions is None:
            regions = [(0, self.mem_size, UADDR_BASE, 0, self.memfd)]
        payload = struct.pack("<II", len(regions), 0)
        for gpa, size, uaddr, off, _ in regions:
            payload += struct.pack("<QQQQ", gpa, size, uaddr, off)
        self.send(SET_MEM_TABLE, payload, fds=[r[4] for r in regions])

    def ring_offsets(self, v):
        n = self.ring_size[v]
        desc = (v + 1) * RING_AREA
        avail = desc + 16 * n
        used = (avail + 6 + 2 * n + 3) & ~3
        return desc, avail, used

    def vring(self, v, num):
        """Sets up vring v with num entries, as virtio-user does."""
        self.ring_size[v] = num
        call, kick = os.eventfd(0), os.eventfd(0)
        self.eventfds += [call, kick]
        self.send(SET_VRING_CALL, struct.pack("<Q", v), fds=[call])
        self.send(SET_VRING_NUM, struct.pack("<II", v, num))
        self.send(SET_VRING_BASE, struct.pack("<II", v, 0))
        desc, avail, used = self.ring_offsets(v)
        self.send(SET_VRING_ADDR, struct.pack(
            "<IIQQQQ", v, 0, UADDR_BASE + desc, UADDR_BASE + used,
            UADDR_BASE + avail, 0))
        self.send(SET_VRING_KICK, struct.pack("<Q", v), fds=[kick])

    def setup(self, ring=256, tx_ring=None):
        self.negotiate()
        self.mem_table()
        self.vring(RX_VRING, ring)
        self.vring(TX_VRING, ring if tx_ring is None else tx_ring)

    # -- rings -------------------------------------------------------------
    def write_desc(self, v, i, addr, length, flags=0, nxt=0):
        desc, _, _ = self.ring_offsets(v)
        struct.pack_into("<QIHH", self.mem, desc + 16 * i, addr, length,
                         flags, nxt)

    def write_avail(self, v, slot, head):
        _, avail, _ = self.ring_offsets(v)
        struct.pack_into("<H", self.mem, avail + 4 + 2 * slot, head)

    def _u16(self, off):
        """The 16-bit word at off as one load/store (struct.pack_into
        writes byte by byte: the switch could see idx 0x01ff or 0x0000 on
        the way from 0x00ff to 0x0100, a jump of a whole ring)."""
        return memoryview(self.mem)[off:off + 2].cast("H")

    def set_avail_idx(self, v, idx):
        _, avail, _ = self.ring_offsets(v)
        self._u16(avail + 2)[0] = idx & 0xFFFF

    def post_packets(self, v=TX_VRING, n=None):
        """Fills every entry of vring v with a valid packet (virtio header
        + frame) and publishes n of them (default: the ring size)."""
        size = self.ring_size[v]
        for i in range(size):
            buf = BUF_AREA + (i % 256) * BUF_SIZE
            pkt = bytes(VIRTIO_HDR_LEN) + _frame(i)
            self.mem[buf:buf + len(pkt)] = pkt
            self.write_desc(v, i, buf, len(pkt))
            self.write_avail(v, i, i)
        self.set_avail_idx(v, size if n is None else n)

    def used_idx(self, v):
        _, _, used = self.ring_offsets(v)
        return self._u16(used + 2)[0]


# ------------------------------------------------------------------ cases
# Each returns a dict; "closed_after" is the seconds until the switch closed
# the connection (None: it kept it open for all of `hold`).

def case_good(fe, hold=2.0, **_):
    """A well-behaved guest: sets up 256-entry rings and sends 256 packets;
    the switch should consume them all (used idx 256) and stay connected."""
    fe.setup()
    fe.post_packets()
    closed = fe.wait_closed(hold)
    return {"closed_after": closed, "used": fe.used_idx(TX_VRING)}


def case_tiny_ring(fe, hold=2.0, **_):
    """8-entry rings, then avail->idx jumped to 60,000 (a 32-packet burst
    into an 8-entry ring overruns rte_vhost's shadow ring)."""
    fe.negotiate()
    fe.mem_table()
    # the switch refuses the first 8-entry ring and closes the connection:
    # what follows may meet a closed socket (EPIPE), as it is meant to
    with contextlib.suppress(OSError):
        fe.vring(RX_VRING, 8)
        fe.vring(TX_VRING, 8)
        fe.post_packets(n=60000)
    return {"closed_after": fe.wait_closed(hold)}


def case_idx_jump(fe, hold=2.0, **_):
    """256-entry rings of valid packets and avail->idx 60,000: far more
    "available" than the ring holds."""
    fe.setup()
    fe.post_packets(n=60000)
    return {"closed_after": fe.wait_closed(hold),
            "used": fe.used_idx(TX_VRING)}


def case_desc_oob(fe, hold=2.0, **_):
    """Descriptors pointing outside guest memory (and straddling its end)."""
    fe.setup()
    size = fe.ring_size[TX_VRING]
    for i in range(size):
        addr = (1 << 40) + i if i % 2 else fe.mem_size - 8
        fe.write_desc(TX_VRING, i, addr, 1500)
        fe.write_avail(TX_VRING, i, i)
    fe.set_avail_idx(TX_VRING, size)
    return {"closed_after": fe.wait_closed(hold)}


def case_desc_loop(fe, hold=2.0, **_):
    """Chained descriptors in a loop: 0 -> 1 -> 0 ..., every avail slot
    naming head 0; and a chain whose next is out of the table."""
    fe.setup()
    size = fe.ring_size[TX_VRING]
    fe.write_desc(TX_VRING, 0, BUF_AREA, 64, DESC_F_NEXT, 1)
    fe.write_desc(TX_VRING, 1, BUF_AREA + 64, 64, DESC_F_NEXT, 0)
    fe.write_desc(TX_VRING, 2, BUF_AREA, 64, DESC_F_NEXT, 0xFFFF)
    for i in range(size):
        fe.write_avail(TX_VRING, i, 2 if i % 2 else 0)
    fe.set_avail_idx(TX_VRING, size)
    return {"closed_after": fe.wait_closed(hold)}


def case_mem_past_end(fe, hold=2.0, **_):
    """A memory region of 2 MiB over a memfd of 4 KiB (mapping it and
    touching a page past the end is a SIGBUS)."""
    small = os.memfd_create("vhost-frontend-small")
    os.ftruncate(small, 4096)
    fe.eventfds.append(small)
    fe.negotiate()
    with contextlib.suppress(OSError):
        fe.mem_table([(0, MEM_SIZE, UADDR_BASE, 0, small)])
        fe.vring(RX_VRING, 256)
        fe.vring(TX_VRING, 256)
        fe.post_packets()
    return {"closed_after": fe.wait_closed(hold)}


def case_stall(fe, hold=5.0, **_):
    """A SET_MEM_TABLE header announcing its payload, and then nothing:
    rte_vhost's one event thread would wait in read() for it."""
    fe.negotiate()
    fe.send(SET_MEM_TABLE, b"", fds=[fe.memfd], size=8 + 32)
    return {"closed_after": fe.wait_closed(hold)}


def case_oversized(fe, hold=2.0, **_):
    """A header whose size field is 4 GiB - 1."""
    fe.negotiate()
    fe.send(SET_MEM_TABLE, b"\0" * 64, size=0xFFFFFFFF)
    return {"closed_after": fe.wait_closed(hold)}


def case_unknown_request(fe, hold=2.0, **_):
    """Requests no backend knows (999, and 0x7fffffff with a payload)."""
    fe.negotiate()
    with contextlib.suppress(OSError):
        fe.send(999)
        fe.send(0x7FFFFFFF, b"\xff" * 16)
    return {"closed_after": fe.wait_closed(hold)}


def case_disconnect_mid_message(fe, hold=0.0, **_):
    """Half a SET_MEM_TABLE payload, then the connection closed."""
    fe.negotiate()
    payload = struct.pack("<II", 1, 0) + struct.pack(
        "<QQQQ", 0, MEM_SIZE, UADDR_BASE, 0)
    hdr = struct.pack("<III", SET_MEM_TABLE, VERSION, len(payload))
    socket.send_fds(fe.s, [hdr + payload[:12]], [fe.memfd])
    fe.s.shutdown(socket.SHUT_RDWR)
    return {"closed_after": 0.0}


CASES = {name[5:]: fn for name, fn in sorted(globals().items())
         if name.startswith("case_")}
# flood is not a one-connection case: see flood()


# ------------------------------------------------------------ connections

def listen(path):
    """The VM's side of a dpdkvhostuserclient port: it owns the socket."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(16)
    return srv


def connect(path, timeout=10.0):
    """A dpdkvhostuser port: the switch owns the socket, we connect."""
    deadline = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(str(path))
            return s
        except OSError:
            s.close()
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


def run_case(name, path, connect_mode=False, accept_timeout=10.0, **opts):
    """Runs one case on one connection; returns its result dict (with
    "case"). Listening (default), waits accept_timeout for the switch."""
    srv = None
    if connect_mode:
        s = connect(path, accept_timeout)
    else:
        srv = listen(path)
        srv.settimeout(accept_timeout)
        s, _ = srv.accept()
    fe = Frontend(s)
    try:
        res = CASES[name](fe, **opts)
    finally:
        fe.close()
        if srv:
            srv.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
    res["case"] = name
    return res


def flood(path, connect_mode=False, count=200, hold=10.0):
    """Connections opened and closed as fast as possible: `count` of them
    (or for `hold` seconds). Listening, each one the switch makes is
    closed at once (it reconnects); connecting, we connect and close."""
    n = 0
    deadline = time.monotonic() + hold
    srv = None if connect_mode else listen(path)
    try:
        while n < count and time.monotonic() < deadline:
            if connect_mode:
                with contextlib.suppress(OSError):
                    connect(path, 1.0).close()
            else:
                srv.settimeout(max(0.01, deadline - time.monotonic()))
                try:
                    s, _ = srv.accept()
                except socket.timeout:
                    break
                s.close()
            n += 1
    finally:
        if srv:
            srv.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
    return {"case": "flood", "connections": n}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--socket")
    ap.add_argument("--case", choices=sorted(list(CASES) + ["flood"]))
    ap.add_argument("--list-cases", action="store_true",
                    help="print the case names, one a line, and exit")
    ap.add_argument("--connect", action="store_true",
                    help="connect (dpdkvhostuser port) instead of listen")
    ap.add_argument("--hold", type=float, default=None,
                    help="seconds to keep the connection (case default)")
    ap.add_argument("--count", type=int, default=200,
                    help="flood: connections")
    a = ap.parse_args(argv)
    if a.list_cases:
        print("\n".join(sorted(list(CASES) + ["flood"])))
        return 0
    if not a.socket or not a.case:
        ap.error("--socket and --case are required")
    opts = {} if a.hold is None else {"hold": a.hold}
    if a.case == "flood":
        res = flood(a.socket, a.connect, a.count, **opts)
    else:
        res = run_case(a.case, a.socket, a.connect, **opts)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
