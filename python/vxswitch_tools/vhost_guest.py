# SPDX-License-Identifier: BSD-3-Clause
"""A well-behaved vhost-user guest in this process, for tests that need
many VMs and must not spend CPU on them: the frontend of vhost_frontend.py
(memfd guest memory, split rings, VIRTIO_F_VERSION_1 only) with an rx ring
of writable buffers the switch fills and a tx ring the test writes frames
into. No thread and no polling: the switch's PMD reads and writes the
rings; the test looks at them when it wants (recv(), send()).

    g = Guest.listen(path)            # dpdkvhostuserclient: we own PATH
    sw.ctl("add-port", "vm0", "type=dpdkvhostuserclient",
           "options:vhost-server-path=%s" % path)
    g.attach()                        # accepts the switch, sets up rings
    g.send([frame])                   # out of the VM
    frames = g.recv(1, timeout=5)     # what the switch delivered
    g.close()
"""

import contextlib
import socket
import struct
import time

from . import vhost_frontend as vf

DESC_F_WRITE = 2
RX_BUFS = 256                   # rx descriptors: the whole ring
RX_AREA = vf.BUF_AREA           # rx buffers, 2 KiB each
TX_AREA = vf.BUF_AREA + 256 * vf.BUF_SIZE


class Guest:
    """One VM's virtio-net device, one queue pair."""

    def __init__(self, path, server):
        self.path = path
        self.srv = server           # our listening socket, or None
        self.fe = None
        self.rx_seen = 0            # rx used entries consumed
        self.rx_avail = 0
        self.tx_avail = 0
        self.connections = 0

    @classmethod
    def listen(cls, path):
        """The VM's side of a dpdkvhostuserclient port (the switch
        connects: call attach() after add-port)."""
        return cls(path, vf.listen(path))

    @classmethod
    def connect(cls, path, timeout=10.0):
        """The VM's side of a dpdkvhostuser port (the switch listens)."""
        g = cls(path, None)
        g._setup(vf.connect(path, timeout))
        return g

    def attach(self, timeout=10.0):
        """Accepts the switch's connection (a new one after the port was
        re-created or the switch restarted) and sets the device up."""
        self.srv.settimeout(timeout)
        s, _ = self.srv.accept()
        self._setup(s)
        return self

    def _setup(self, sock):
        if self.fe:
            self.fe.close()
        self.fe = vf.Frontend(sock)
        self.fe.setup(ring=256)
        self.connections += 1
        self.rx_seen = self.rx_avail = self.tx_avail = 0
        for i in range(RX_BUFS):
            self.fe.write_desc(vf.RX_VRING, i, RX_AREA + i * vf.BUF_SIZE,
                               vf.BUF_SIZE, DESC_F_WRITE)
            self._post_rx(i)

    def _post_rx(self, head):
        fe = self.fe
        fe.write_avail(vf.RX_VRING, self.rx_avail % 256, head)
        self.rx_avail += 1
        fe.set_avail_idx(vf.RX_VRING, self.rx_avail)

    def _used(self, v, i):
        _, _, used = self.fe.ring_offsets(v)
        return struct.unpack_from("<II", self.fe.mem, used + 4 + 8 * (i % 256))

    def poll(self):
        """The frames delivered since the last call (bytes, without the
        virtio header); their buffers are given back to the switch."""
        out = []
        fe = self.fe
        while (fe.used_idx(vf.RX_VRING) - self.rx_seen) & 0xFFFF:
            head, length = self._used(vf.RX_VRING, self.rx_seen)
            self.rx_seen += 1
            buf = RX_AREA + head * vf.BUF_SIZE
            out.append(bytes(fe.mem[buf + vf.VIRTIO_HDR_LEN:buf + length]))
            self._post_rx(head)
        return out

    def recv(self, n, timeout=5.0, quiet=0.2):
        """Waits for n frames (then `quiet` s for extra ones); returns all
        that came."""
        out = []
        deadline = time.monotonic() + timeout
        while len(out) < n and time.monotonic() < deadline:
            out += self.poll()
            time.sleep(0.002)
        time.sleep(quiet)
        return out + self.poll()

    def send(self, frames, timeout=5.0):
        """Puts the frames on the tx ring and waits until the switch has
        taken them all."""
        fe = self.fe
        for f in frames:
            b = bytes(vf.VIRTIO_HDR_LEN) + bytes(f)
            slot = self.tx_avail % 256
            buf = TX_AREA + slot * vf.BUF_SIZE
            fe.mem[buf:buf + len(b)] = b
            fe.write_desc(vf.TX_VRING, slot, buf, len(b))
            fe.write_avail(vf.TX_VRING, slot, slot)
            self.tx_avail += 1
            # at most 256 in flight: wait for room
            deadline = time.monotonic() + timeout
            fe.set_avail_idx(vf.TX_VRING, self.tx_avail)
            while (self.tx_avail - fe.used_idx(vf.TX_VRING)) & 0xFFFF >= 255:
                if time.monotonic() > deadline:
                    raise TimeoutError("switch took no frame from %s"
                                       % self.path)
                time.sleep(0.001)
        deadline = time.monotonic() + timeout
        while fe.used_idx(vf.TX_VRING) != self.tx_avail & 0xFFFF:
            if time.monotonic() > deadline:
                raise TimeoutError("switch took %d of %d frames from %s"
                                   % (fe.used_idx(vf.TX_VRING),
                                      self.tx_avail, self.path))
            time.sleep(0.001)

    def closed(self):
        """True once the switch closed our connection."""
        s = self.fe.s
        s.settimeout(0)
        try:
            return s.recv(4096, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    def close(self):
        if self.fe:
            self.fe.close()
            self.fe = None
        if self.srv:
            with contextlib.suppress(OSError):
                self.srv.close()
            self.srv = None
