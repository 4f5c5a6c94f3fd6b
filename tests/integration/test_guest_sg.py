# SPDX-License-Identifier: BSD-3-Clause
"""The security group "allow egress, deny ingress" (sg()) in front of a
real QEMU guest (conftest's guest_rig: virtio-net over vhost-user, the
kernel's VXLAN device as the other VTEP). One guest, one short exchange
(the guest may run under TCG):

  - the guest opens a TCP connection out and sends 256 KB: the sha256 of
    what the outside received is the guest's; the guest's ping out works;
  - from the outside, a TCP connect to the guest's echo service (port 7,
    listening: test_guests.py's echo_checks reach it without the group)
    times out and a ping is lost: exactly 1 SYN + 2 echo requests counted
    as sg_deny, nothing else dropped.
Skipped as the other guest tests are (no qemu-system-x86_64).
"""

import time

import pytest

from vxswitch_tools import netns_apps as apps
from vxswitch_tools.guest_rig import (GUEST_IP, NO_QEMU, QEMU, start_guest,
                                      tcp_out)
from vxswitch_tools.kernel_vtep_rig import KHOST_IP, KVTEP_IP, VNI

pytestmark = pytest.mark.skipif(not QEMU, reason=NO_QEMU)

TUNNEL = "set_tunnel:%d,set_field:%s->tun_dst,output:vxlan" % (VNI, KVTEP_IP)
SG_FLOWS = [
    "priority=100,arp,in_port=vm,actions=" + TUNNEL,
    "priority=100,arp,in_port=vxlan,actions=output:vm",
    "priority=90,ip,in_port=vm,actions=sg(allow,zone=1)," + TUNNEL,
    "priority=90,ip,in_port=vxlan,actions=sg(deny,zone=1),output:vm",
    "priority=0,actions=drop",
]


def drops(sw):
    d = {}
    for p in sw.ctl("dpif-netdev/pmd-stats-show", json=True):
        for k, v in p["drops"].items():
            d[k] = d.get(k, 0) + v
    return d


def test_guest_sg(guest_rig, tmp_path):
    r = guest_rig
    flows = tmp_path / "sg.flows"
    flows.write_text("\n".join(SG_FLOWS) + "\n")
    r.sw.ctl("del-flows")
    r.sw.ctl("add-flows", flows)
    t0 = time.monotonic()
    start_guest(r)
    boot = time.monotonic() - t0

    # egress: the guest's ping and TCP connection out work both ways
    st, _ = r.guest.console.run("ping -c 2 -W 3 %s" % KHOST_IP, check=False,
                                timeout=60)
    assert st == 0, r.sw.ctl("dpif-netdev/pmd-stats-show")
    mbps = tcp_out(r, 256 * 1024, 5002)
    dump = r.sw.ctl("dpctl/dump-conntrack", "zone=1")
    assert "tcp,orig=(src=%s,dst=%s," % (GUEST_IP, KHOST_IP) in dump, dump
    assert "icmp,orig=(src=%s,dst=%s," % (GUEST_IP, KHOST_IP) in dump, dump
    d0 = drops(r.sw)
    assert d0.get("sg_deny", 0) == d0.get("sg_invalid", 0) == 0, d0

    # ingress: refused by the switch (the guest's port 7 listens)
    c = apps.tcp_connect(r.vtep, GUEST_IP, 7, timeout=0.5)   # one SYN
    assert c["result"] == "timeout", c
    p = apps.ping(r.vtep, GUEST_IP, count=2, wait=1)
    assert p["transmitted"] == 2 and p["received"] == 0, p["output"]
    d1 = drops(r.sw)
    moved = {k: d1[k] - d0.get(k, 0) for k in d1 if d1[k] != d0.get(k, 0)}
    assert moved == {"sg_deny": 3}, (d0, d1)
    print("guest with sg: %s, boot %.1f s, TCP out %.1f Mbit/s"
          % (r.accel, boot, mbps))
