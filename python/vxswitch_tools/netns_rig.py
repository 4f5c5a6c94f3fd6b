# SPDX-License-Identifier: BSD-3-Clause
"""Real TCP/IP stacks on both sides of the switch: "VMs" that are Linux
network namespaces on vxswitch ports, and an "outside" that is the Linux
VXLAN device as the peer VTEP, with a routed network behind it.

    netns vm1: vmtap1 192.1.0.11 ── net_tap1 ─┐
    netns vm2: vmtap2 192.1.0.12 ── net_tap2 ─┤ vxswitch (1 PMD,
    ...  (up to 4, ports vm1..vm4)            │  idle back-off)
                                              │ vxlan (VNI 1001)
                                              │ phy: net_af_packet0 on a veth
                                              │  VTEP 172.1.0.100
                      netns out ══════════════╛ (veth) 172.1.0.1
                        vx0 (kernel VXLAN, VNI 1001) 192.1.0.1   "OUT_IP"
                        ip_forward on; veth 10.9.0.1
                      netns far: 10.9.0.2 (gw 10.9.0.1)           "FAR_IP"
    the VMs route 10.9.0.0/24 via 192.1.0.1 (an outside network)

Each VM is a run-time port (`vxswitch-ctl add-port vmN type=dpdk
options:dpdk-devargs=net_tapN,iface=...`): the tap the PMD creates is
moved into the VM's namespace (the PMD keeps its fd; only its ioctls by
name stop reaching it) and given the VM's MAC, IP and the 1450-byte inner
MTU. The names (vm1.., vxlan) and addresses are fixed, so policy files
(tests/integration/policies/*.flows) can name them.

With flows="forwarding" (the default) the rig loads forwarding_flows():
plain L3-by-destination forwarding, no security group. Another flow file
is loaded with rig.load_flows(path) (del-flows, then add-flows).

By hand, for debugging: `sudo python3 -m vxswitch_tools.netns_rig --vms 2`
(from python/, with VXS_BUILD_DIR set or ./build present) builds the rig,
prints the namespaces and waits for Ctrl-C; then, in another shell:

    ip netns exec <vm1 ns> bash          # a shell "in the VM"
    ip netns exec <vm1 ns> ping 192.1.0.1
    ip netns exec <out ns> tcpdump -ni vx0
    vxswitch-ctl -s <ctl socket> dump-flows

In a test, a breakpoint() (pytest -s) stops with the rig up; the names
are rig.vm(1).ns, rig.out_ns, rig.far_ns and rig.sw.ctl_socket.
"""

import contextlib
import os
import subprocess
from dataclasses import dataclass

from . import hostnet
from .addressing import NETNS_RIG
from .hostnet import link_mac, netns, no_ipv6, sh, veth_pair
from .procs import _counter, wait_for
from .switch import assert_no_mbuf_leak, assert_packets_accounted

VNI = 1001
VTEP_IP = "172.1.0.100"          # the switch's VTEP
KVTEP_IP = "172.1.0.1"           # the kernel's VTEP (netns out)
OUT_IP = "192.1.0.1"             # vx0 in netns out: the overlay's gateway
OUT_MAC = "52:54:00:12:00:01"
FAR_NET = "10.9.0.0/24"          # routed behind netns out
FAR_GW = "10.9.0.1"
FAR_IP = "10.9.0.2"
INNER_MTU = 1450                 # 1500 underlay - 50 VXLAN overhead
MAX_VMS = 4


@dataclass
class Vm:
    index: int
    port: str          # the switch's port name: vm1..
    ns: str            # its network namespace
    iface: str         # the tap inside it
    ip: str
    mac: str


def rig_topology(phy):
    """The switch with only its underlay: VM ports come with add-port."""
    return {
        "eal": {"memory-mb": 256},
        "underlay": {"port": "phy", "local-ip": VTEP_IP + "/24"},
        "ports": [
            {"name": "vxlan", "type": "vxlan",
             "options": {"remote_ip": "flow", "key": "flow",
                         "dst_port": 4789, "vnis": [VNI]}},
            {"name": "phy", "type": "dpdk",
             "devargs": "net_af_packet0,iface=%s" % phy},
        ],
        # the kernel stacks of the namespaces need the PMD's CPU too
        "datapath": {"optimisations": {"idle-backoff": True}},
    }


def tunnel_actions():
    return "set_tunnel:%d,set_field:%s->tun_dst,output:vxlan" % (VNI,
                                                                  KVTEP_IP)


def forwarding_flows(n_vms):
    """No security group: a frame for a VM's IP (ARP by its target) goes
    to that VM's port, whichever port it came from; anything else a VM
    sends goes into the tunnel to the kernel VTEP. (Nothing from the
    tunnel goes back into it: no hairpin.)"""
    flows = []
    for i in range(1, n_vms + 1):
        flows += ["priority=100,ip,nw_dst=%s,actions=output:vm%d"
                  % (NETNS_RIG.ip(i), i),
                  "priority=100,arp,arp_tpa=%s,actions=output:vm%d"
                  % (NETNS_RIG.ip(i), i),
                  "priority=10,in_port=vm%d,actions=%s"
                  % (i, tunnel_actions())]
    return flows


class Rig:
    """The namespaces, the switch and its ports. vm(i) -> Vm; out_ns and
    far_ns are the outside's namespaces; hosts() maps a name to (ns, ip)."""

    def __init__(self, sw, tag, out_ns, far_ns, phy, peer):
        self.sw, self.tag = sw, tag
        self.out_ns, self.far_ns = out_ns, far_ns
        self.phy, self.peer = phy, peer
        self.vms = {}
        self.drops_baseline = {}
        self.flows_path = sw.workdir / "rig.flows"

    def vm(self, i):
        return self.vms[i]

    def hosts(self):
        h = {"out": (self.out_ns, OUT_IP), "far": (self.far_ns, FAR_IP)}
        h.update({v.port: (v.ns, v.ip) for v in self.vms.values()})
        return h

    # -- VMs -------------------------------------------------------------
    def add_vm(self, i, stack):
        """Port vm<i> (net_tap<i>) and its namespace; the namespace is
        deleted when `stack` (an ExitStack) closes."""
        assert 1 <= i <= MAX_VMS and i not in self.vms, i
        iface = ("vmtap%d_%s" % (i, self.tag))[:15]
        ns = stack.enter_context(netns("vm%d_%s" % (i, self.tag)))
        self.sw.ctl("add-port", "vm%d" % i, "type=dpdk",
                    "options:dpdk-devargs=net_tap%d,iface=%s" % (i, iface))
        wait_for(lambda: os.path.exists("/sys/class/net/%s" % iface), 10,
                 0.05, "tap %s" % iface)
        sh(["ip", "link", "set", iface, "netns", ns])
        no_ipv6(iface, ns)
        sh(["ip", "link", "set", iface, "address", NETNS_RIG.mac(i)], ns=ns)
        sh(["ip", "link", "set", iface, "mtu", INNER_MTU], ns=ns)
        sh(["ip", "addr", "add", NETNS_RIG.ip(i) + "/24", "dev", iface], ns=ns)
        sh(["ip", "link", "set", iface, "up"], ns=ns)
        sh(["ip", "route", "add", FAR_NET, "via", OUT_IP], ns=ns)
        v = Vm(i, "vm%d" % i, ns, iface, NETNS_RIG.ip(i), NETNS_RIG.mac(i))
        self.vms[i] = v
        return v

    # -- flows -----------------------------------------------------------
    def load_flows(self, flows):
        """Replaces every rule: flows is a path (a flow file) or a list of
        rules; returns the rules as loaded (dump-flows)."""
        if isinstance(flows, (list, tuple)):
            self.flows_path.write_text("\n".join(flows) + "\n")
            path = self.flows_path
        else:
            path = flows
        self.sw.ctl("del-flows")
        self.sw.ctl("add-flows", path)
        self.sw.ctl("dpctl/del-flows")
        return self.sw.ctl("dump-flows")

    # -- counters --------------------------------------------------------
    def pmd_totals(self):
        """Counters summed over the PMDs: the numeric ones, and drops by
        reason under "drops"."""
        tot = {"drops": {}}
        for st in self.sw.ctl("dpif-netdev/pmd-stats-show", json=True):
            for k, v in st.items():
                if isinstance(v, int) and not isinstance(v, bool):
                    tot[k] = tot.get(k, 0) + v
            for r, n in st["drops"].items():
                tot["drops"][r] = tot["drops"].get(r, 0) + n
        return tot

    def drops(self):
        """Drops by reason, summed over the PMDs, those that moved since
        the rig was up (warm_up() set the baseline)."""
        now = self.pmd_totals()["drops"]
        return {k: v - self.drops_baseline.get(k, 0) for k, v in now.items()
                if v - self.drops_baseline.get(k, 0)}

    def warm_up(self):
        """Each VM pings the outside once, so that the first frames of a
        test find every neighbour known: the switch's first ARP for the
        kernel VTEP costs the frame that needed it (a no_neigh drop)
        and the VMs' ARP retries take a second. Asserts the rig forwards;
        the drop counters' baseline is taken after it."""
        for v in self.vms.values():
            wait_for(lambda: subprocess.run(
                ["ip", "netns", "exec", v.ns, "ping", "-n", "-c", "1", "-W",
                 "1", OUT_IP], capture_output=True).returncode == 0, 10, 0,
                lambda: "%s to reach %s\n%s" % (
                    v.port, OUT_IP, self.sw.ctl("dpif-netdev/pmd-stats-show")))
        self.drops_baseline = self.pmd_totals()["drops"]

    def port_stats(self):
        """{port name: its `show --json` entry}."""
        return {p["name"]: p for p in self.sw.show()["ports"]}

    def describe(self):
        """Where everything is, for a human (printed by main())."""
        lines = ["switch: %s (log %s)" % (self.sw.ctl_socket,
                                          self.sw.log_path),
                 "out: netns %s, vx0 %s, underlay %s" % (
                     self.out_ns, OUT_IP, KVTEP_IP),
                 "far: netns %s, %s" % (self.far_ns, FAR_IP)]
        for v in self.vms.values():
            lines.append("%s: netns %s, %s %s %s" % (v.port, v.ns, v.iface,
                                                      v.ip, v.mac))
        return "\n".join(lines)


@contextlib.contextmanager
def netns_rig(make_switch, n_vms=2, flows="forwarding", passed=None):
    """Builds the rig; yields a Rig. make_switch(topology, **kw) starts the
    switch (the conftest fixture, or a Switch factory). At exit, when
    passed() is true (default: always), the switch must have every mbuf
    back, every packet accounted for and exit 0 on SIGTERM; this is checked
    while its ports still exist, before the namespaces go."""
    tag = "%d%d" % (os.getpid() % 10000, next(_counter) % 10)
    phy, peer = "rgu%s" % tag, "rgp%s" % tag          # <= 15 characters
    with contextlib.ExitStack() as stack:
        out_ns = stack.enter_context(netns("out%s" % tag))
        far_ns = stack.enter_context(netns("far%s" % tag))
        stack.enter_context(veth_pair(phy, peer, ns=out_ns, mtu=1500,
                                      up=False))
        hostnet.kernel_vtep(phy, peer, out_ns, OUT_IP + "/24", KVTEP_IP,
                            VTEP_IP, VNI, INNER_MTU, mac=OUT_MAC)
        # the outside network behind it, routed by netns out
        fa, fb = "rgfa%s" % tag, "rgfb%s" % tag
        stack.enter_context(veth_pair(fa, fb, ns=far_ns, ns_a=out_ns))
        for d, dns in ((fa, out_ns), (fb, far_ns)):
            no_ipv6(d, dns)
        sh(["ip", "addr", "add", FAR_GW + "/24", "dev", fa], ns=out_ns)
        sh(["ip", "addr", "add", FAR_IP + "/24", "dev", fb], ns=far_ns)
        sh(["ip", "route", "add", "default", "via", FAR_GW], ns=far_ns)
        sh(["sysctl", "-qw", "net.ipv4.ip_forward=1"], ns=out_ns)

        sw = make_switch(rig_topology(phy), ready_timeout=60.0)
        rig = Rig(sw, tag, out_ns, far_ns, phy, peer)
        rig.peer_mac, rig.phy_mac = link_mac(peer, out_ns), link_mac(phy)
        for i in range(1, n_vms + 1):
            rig.add_vm(i, stack)
        # a tap port fills its rx ring from the pool when it is added:
        # those mbufs are the port's, not a leak
        sw.mbuf_baseline = sw.mempool()["in_use"]
        if flows == "forwarding":
            rig.load_flows(forwarding_flows(n_vms))
        elif flows:
            rig.load_flows(flows)
        sw.wait_ports_up()
        rig.warm_up()

        yield rig

        if sw.running and (passed is None or passed()):
            assert_no_mbuf_leak(sw)
            assert_packets_accounted(sw)
            rc = sw.stop()
            assert rc == 0, "%s exited with %d\n%s" % (sw.name, rc,
                                                       sw.log_tail(30))


def for_test(request, make_switch, n_vms=2, policy=None):
    """The body of a pytest fixture (yield from it): a rig of n_vms VMs
    that keeps its namespaces for a look when the test failed, with the
    rules of the flow file `policy` loaded over the forwarding ones."""
    def passed():
        rep = getattr(request.node, "rep_call", None)
        return rep is not None and rep.passed
    with netns_rig(make_switch, n_vms=n_vms, passed=passed) as r:
        if policy is not None:
            r.load_flows(policy)
        yield r


def main():
    """Builds the rig by hand and waits (see the module's docstring)."""
    import argparse
    import shutil
    import signal
    import tempfile
    from pathlib import Path

    from .hostnet import ensure_hugepages
    from .procs import short_tmpdir
    from .switch import Switch

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vms", type=int, default=2)
    ap.add_argument("--flows", default="forwarding",
                    help="a flow file instead of plain forwarding")
    a = ap.parse_args()

    def interrupted(*_):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupted)     # tear down as on Ctrl-C
    ensure_hugepages()
    work = Path(tempfile.mkdtemp(prefix="netns-rig."))
    rundir = short_tmpdir("rig")
    switches = []

    def make(topo, **kw):
        switches.append(Switch(topo, work, rundir, **kw))
        return switches[-1]
    try:
        with netns_rig(make, a.vms, a.flows) as rig:
            print(rig.describe())
            print("Ctrl-C to tear it down")
            with contextlib.suppress(KeyboardInterrupt):
                signal.pause()
    finally:
        for s in switches:
            s.kill()
        shutil.rmtree(rundir, ignore_errors=True)
    print("logs in %s" % work)


if __name__ == "__main__":
    main()
