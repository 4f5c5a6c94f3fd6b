# SPDX-License-Identifier: BSD-3-Clause
"""The VTEP's Neighbour Discovery against Linux's (design-ipv6-underlay.md,
step 4): the switch (net_af_packet on a veth, local-ip of both families)
and a kernel at the far end, in a netns, with an IPv6 address on the
switch's link.

  resolve   the kernel resolves our IPv6 address: its multicast NS is
            answered (its neighbour table has our MAC) and its SLL is
            learned (tnl/neigh/show lists it, dynamic);
  DAD       the kernel adding our own address finds it taken: our NA to
            all-nodes answers its duplicate address detection;
  counters  nd_replies counts the answers; the conftest checks the
            packet accounting equation after the test.
"""

import json
import time

from vxswitch_tools import hostnet
from vxswitch_tools import packets as P
from vxswitch_tools.harness import sh, wait_for

VTEP6 = "2001:db8:1::100"
KERNEL6 = "2001:db8:1::1"


def neigh6(ns, dev, addr):
    """The kernel's neighbour entry for addr, or {}."""
    out = sh(["ip", "-j", "-6", "neigh", "show", addr, "dev", dev], ns=ns)
    rows = json.loads(out or "[]")
    return rows[0] if rows else {}


def test_kernel_resolves_us_and_dad(make_switch, tmp_path):
    tag = "%d" % (hash(str(tmp_path)) % 100000)
    phy, peer = "nd%s" % tag, "ndk%s" % tag
    with hostnet.netns() as ns, hostnet.veth_pair(phy, peer, ns=ns):
        hostnet.no_ipv6(phy)        # the root side is the switch's alone
        sh(["ip", "-6", "addr", "add", KERNEL6 + "/64", "dev", peer,
            "nodad"], ns=ns)
        topo = {
            "eal": {"memory-mb": 256},
            "underlay": {"port": "phy",
                         "local-ip": ["172.1.0.100/24", VTEP6 + "/64"]},
            "ports": [{"name": "phy", "type": "dpdk",
                       "devargs": "net_af_packet0,iface=%s" % phy}],
        }
        sw = make_switch(topo)
        our_mac = hostnet.link_mac(phy)
        peer_mac = hostnet.link_mac(peer, ns)
        st0 = P.pmd_stats(sw)
        assert "  vtep: %s/64\n" % VTEP6 in sw.ctl("show")

        # the kernel resolves us: ping6 (its echo is ours to drop)
        sh(["ping", "-6", "-c", "2", "-W", "1", VTEP6], ns=ns, check=False)
        wait_for(lambda: neigh6(ns, peer, VTEP6).get("lladdr") == our_mac,
                 10, 0.2, what="the kernel's entry for our IPv6 address")
        st1 = P.pmd_stats(sw)
        assert st1["nd_replies"] - st0["nd_replies"] >= 1, st1
        assert st1["drops"].get("nd_invalid", 0) == \
            st0["drops"].get("nd_invalid", 0), st1["drops"]

        # we learned the kernel from its NS's SLL
        def learned():
            rows = sw.ctl("tnl/neigh/show", json=True)
            return [r for r in rows if r["ip"] == KERNEL6]
        wait_for(lambda: learned(), 10, 0.2, what="the kernel learned")
        row = learned()[0]
        assert row["mac"] == peer_mac and not row["static"], row
        text = sw.ctl("tnl/neigh/show")
        assert "%-46s%s   phy" % (KERNEL6, peer_mac) in text, text

        # DAD: the kernel trying our address finds it in use
        sh(["ip", "-6", "addr", "add", VTEP6 + "/64", "dev", peer], ns=ns)
        deadline = time.monotonic() + 10
        flags = []
        while time.monotonic() < deadline:
            addrs = json.loads(sh(["ip", "-j", "-6", "addr", "show", "dev",
                                   peer], ns=ns))[0]["addr_info"]
            mine = [a for a in addrs if a.get("local") == VTEP6]
            flags = mine[0] if mine else {}
            if flags.get("dadfailed"):
                break
            time.sleep(0.2)
        assert flags.get("dadfailed"), flags
        sw.stop()
