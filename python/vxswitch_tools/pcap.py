# SPDX-License-Identifier: BSD-3-Clause
"""Plain pcap files without scapy's reader (fast, tolerant of a file
still being written), and scripts/gen-traffic.py as a subprocess."""

import os
import struct
import subprocess
import sys
from pathlib import Path

from .procs import SCRIPTS

# ------------------------------------------------------------------ pcaps

def read_pcap_raw(path, limit=None):
    """Frames of a pcap as bytes, the first `limit` only if given (a record
    cut short at the end of a file still being written is dropped)."""
    out = []
    with open(path, "rb") as f:
        gh = f.read(24)
        if len(gh) < 24:
            return out
        magic = struct.unpack("<I", gh[:4])[0]
        e = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        if magic not in (0xA1B2C3D4, 0xA1B23C4D, 0xD4C3B2A1, 0x4D3CB2A1):
            raise ValueError("%s: not a pcap file (magic %#x)" % (path, magic))
        while limit is None or len(out) < limit:
            h = f.read(16)
            if len(h) < 16:
                break
            incl = struct.unpack(e + "IIII", h)[2]
            b = f.read(incl)
            if len(b) < incl:
                break
            out.append(b)
    return out


def read_pcap(path, limit=None):
    """Frames of a pcap as scapy Ether packets (the first `limit` if given;
    scapy takes ~50 us a packet, so limit big captures)."""
    from scapy.layers.l2 import Ether
    return [Ether(b) for b in read_pcap_raw(path, limit)]


def pcap_count(path):
    """Number of complete records in a pcap, without reading the frames."""
    n = 0
    with open(path, "rb") as f:
        gh = f.read(24)
        if len(gh) < 24:
            return 0
        e = "<" if struct.unpack("<I", gh[:4])[0] in (0xA1B2C3D4,
                                                       0xA1B23C4D) else ">"
        size = os.fstat(f.fileno()).st_size
        pos = 24
        while pos + 16 <= size:
            f.seek(pos)
            incl = struct.unpack(e + "IIII", f.read(16))[2]
            if pos + 16 + incl > size:
                break
            pos += 16 + incl
            n += 1
    return n


def write_pcap(path, pkts):
    """Writes scapy packets or bytes to a plain pcap (Ethernet)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for n, p in enumerate(pkts):
            b = bytes(p)
            f.write(struct.pack("<IIII", n // 1000000, n % 1000000, len(b),
                                len(b)))
            f.write(b)
    return Path(path)


def gen_traffic(out, *args, check=True):
    """Runs scripts/gen-traffic.py ARGS --out OUT; returns OUT as a Path."""
    cmd = [sys.executable, str(SCRIPTS / "gen-traffic.py"), "-q",
           *[str(a) for a in args], "--out", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if check and r.returncode != 0:
        raise AssertionError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                  r.stderr.strip()))
    return Path(out)


def load_gen_traffic():
    """scripts/gen-traffic.py's functions (vxlan_sport(), ip2int(), KINDS):
    the package's traffic_gen module, which that script runs."""
    from . import traffic_gen
    return traffic_gen
