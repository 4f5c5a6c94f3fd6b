# SPDX-License-Identifier: BSD-3-Clause
"""The QEMU guest rig (test_guests, test_guest_sg; the fixture is
conftest.py's guest_rig): guest GUEST of the GUESTS address plan behind the
switch's vhost-user port, the kernel VTEP (kernel_vtep_rig) at the far end.

  GuestRig       what guest_rig yields: tag, vtep (netns), phy/peer (veth),
                 sw, g (guests.Guest), guest (qemu_guest.QemuGuest, started
                 by start_guest), tmp, sockdir, accel, mtu (the overlay's:
                 the guest's and vx0's)
  start_guest()  boots the guest, checks its address
  tcp_out()      bytes made in the guest to the vtep netns, sha256 compared
  ping(), wait_ping(), guest_sha256()
  QEMU, NO_QEMU  qemu-system-x86_64 (None when absent) and the skip reason
"""

import re
import shutil
import subprocess
import time

from . import qemu_guest as guestlib
from .addressing import GUESTS
from .kernel_vtep_rig import KHOST_IP, PEER
from .procs import wait_for

GUEST = 2                       # guest index: 192.1.0.2, 52:54:00:10:00:02
GUEST_IP = GUESTS.ip(GUEST)
QEMU = shutil.which("qemu-system-x86_64")
NO_QEMU = "qemu-system-x86 not installed (scripts/install-deps.sh)"


def ping(ns, dst, count=3, timeout=60):
    return subprocess.run(["ip", "netns", "exec", ns, "ping", "-c",
                           str(count), "-i", "0.3", "-W", "2", dst],
                          capture_output=True, text=True, timeout=timeout)


def wait_ping(ns, dst, timeout=90):
    """Until one ping gets through (ARP and vhost-user settle first)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ping(ns, dst, count=1).returncode == 0:
            return time.monotonic()
        time.sleep(0.5)
    raise AssertionError("no ping reply from %s within %d s" % (dst, timeout))


class GuestRig:
    tag = vtep = phy = peer = sw = guest = mtu = None


def start_guest(r):
    r.guest = guestlib.QemuGuest(r.g, r.tmp).start()
    info = r.guest.wait_ready()
    assert info["ip"] == "%s/16" % GUEST_IP, info
    assert info["mac"] == r.g.mac, info
    return info



def guest_sha256(out, path):
    """The sum from sha256sum's line for path. The console's interactive
    shell may print a background job's "[1]+ Done ..." notice ahead of a
    command's output, so the first word is not always the sum."""
    m = re.search(r"\b([0-9a-f]{64})\s+%s" % re.escape(path), out)
    assert m, ("no sha256 line for %s from the guest" % path, out)
    return m.group(1)


def tcp_out(r, nbytes, port):
    """nbytes made in the guest sent to the vtep netns: sha256 compared."""
    c = r.guest.console
    c.run("dd if=/dev/urandom of=/tmp/out.bin bs=64k count=%d 2>/dev/null"
          % (nbytes // 65536))
    want = guest_sha256(c.run("sha256sum /tmp/out.bin")[1], "/tmp/out.bin")
    out = r.tmp / "out.sum"
    peer = r.tmp / "peer.py"
    peer.write_text(PEER)
    recv = subprocess.Popen(["ip", "netns", "exec", r.vtep, "python3",
                             str(peer), "recv", str(port), str(out)])
    try:
        wait_for(lambda: (r.tmp / "out.sum.ready").exists(), 10, 0.1,
                 "the receiver")
        t0 = time.monotonic()
        c.run("vxecho send %s %d < /tmp/out.bin" % (KHOST_IP, port),
              timeout=300)
        recv.wait(120)
        dt = time.monotonic() - t0
    finally:
        if recv.poll() is None:
            recv.kill()
    got, n = out.read_text().split()
    assert int(n) == nbytes and got == want, "TCP out of the guest"
    return nbytes * 8 / dt / 1e6
