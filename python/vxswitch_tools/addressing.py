"""The VM address plans: one place for every tool's and test's vm MAC/IP.

A plan maps a VM index i to (MAC, IP) by adding i to a base MAC (its low
three bytes) and a base IPv4 (or IPv6) address. The tests compare bytes
on the wire, so a plan's addresses are fixed: change one and a test fails.

  SEED       the seed's overlay, as gen-traffic.py, gen-topology.py --sg,
             testpmd's VMs and the packet rig use it:
             52:54:00:00:hh:ll, 192.1.0.0 + i
  GUESTS     the QEMU guests (guests.py): 52:54:00:10:hh:ll, 192.1.hh.ll
  NETNS_RIG  the netns/kernel-VTEP rig (netns_rig.py), behind its gateway
             192.1.0.1: 52:54:00:12:00:(0x10 + i), 192.1.0.(10 + i)

A tool with its own bases (gen-traffic.py --vm-mac-base/--vm-ip-base,
sg_policy's inner_net) uses plan.rebased(...).
"""

import ipaddress
from dataclasses import dataclass, replace


def _mac_bytes(s):
    b = bytes(int(x, 16) for x in s.split(":"))
    if len(b) != 6:
        raise ValueError("bad MAC address %r" % s)
    return b


@dataclass(frozen=True)
class AddressPlan:
    name: str
    mac_base: str
    ip_base: str

    def mac(self, i):
        """VM i's MAC: mac_base's low three bytes + i (mod 2^24)."""
        b = bytearray(_mac_bytes(self.mac_base))
        v = (int.from_bytes(b[3:], "big") + i) & 0xFFFFFF
        b[3:] = v.to_bytes(3, "big")
        return ":".join("%02x" % x for x in b)

    def ip(self, i):
        """VM i's address: ip_base + i (IPv4, or IPv6 if ip_base is)."""
        return str(ipaddress.ip_address(self.ip_base) + i)

    def rebased(self, mac_base=None, ip_base=None):
        return replace(self, mac_base=mac_base or self.mac_base,
                       ip_base=ip_base or self.ip_base)


SEED = AddressPlan("seed overlay", "52:54:00:00:00:00", "192.1.0.0")
GUESTS = AddressPlan("qemu guests", "52:54:00:10:00:00", "192.1.0.0")
NETNS_RIG = AddressPlan("netns rig", "52:54:00:12:00:10", "192.1.0.10")

PLANS = (SEED, GUESTS, NETNS_RIG)
