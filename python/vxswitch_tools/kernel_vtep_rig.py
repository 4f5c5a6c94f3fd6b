# SPDX-License-Identifier: BSD-3-Clause
"""The kernel VTEP rig (test_kernel_vtep, test_guests, test_guest_sg): a
Linux VXLAN device in a netns at the far end of a veth is the remote VTEP,
KHOST_IP behind it; the switch (VTEP_IP) between it and one VM port.

  kernel_vtep()    the kernel VTEP on a veth pair
  vtep_topology()  the switch between a VM port and the kernel VTEP
  PEER             a tiny TCP peer (recv/send with sha256), run with python3
  tag()            a per-process suffix for netns and link names
  kernel_vtep6(), vtep6_topology()
                   the same over an IPv6 underlay (test_kernel_vtep6)
  snmp6()          a netns's /proc/net/snmp6
  ping_df(), flush_pmtu(), pmtud_counts(), counts_delta()
                   path MTU discovery seen from a netns sender
                   (test_pmtud, test_pmtud6)
"""

import os
import subprocess

from . import hostnet

VNI = 1001
VTEP_IP = "172.1.0.100"          # ours (the switch's)
KVTEP_IP = "172.1.0.1"           # the kernel's
VM_IP = "192.1.0.2"              # behind the switch (tap in netns vm)
KHOST_IP = "192.1.0.1"           # behind the kernel VTEP (vx0)
INNER_MTU = 1450                 # 1500 underlay - 50 VXLAN overhead
PAYLOAD = 4 * 1024 * 1024

# the IPv6 underlay (design-ipv6-underlay.md, step 7)
VTEP6_IP = "2001:db8:1::100"     # ours
KVTEP6_IP = "2001:db8:1::1"      # the kernel's
INNER_MTU6 = 1430                # 1500 underlay - 70 VXLAN/IPv6 overhead

# A tiny TCP peer: "recv PORT OUT [6]" listens (on IPv6 with 6), reads to
# EOF and writes "<sha256> <bytes>" to OUT; "send IP PORT FILE" connects
# (IPv4 or IPv6) and sends FILE.
PEER = r'''
import hashlib, socket, sys, time
mode = sys.argv[1]
if mode == "recv":
    port, out = int(sys.argv[2]), sys.argv[3]
    v6 = sys.argv[4:] == ["6"]
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::" if v6 else "0.0.0.0", port))
    s.listen(1)
    open(out + ".ready", "w").close()
    c, _ = s.accept()
    h, n = hashlib.sha256(), 0
    while True:
        b = c.recv(65536)
        if not b:
            break
        h.update(b)
        n += len(b)
    c.close()
    with open(out, "w") as f:
        f.write("%s %d\n" % (h.hexdigest(), n))
else:
    ip, port, path = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    data = open(path, "rb").read()
    for attempt in range(20):
        try:
            c = socket.create_connection((ip, port), timeout=5)
            break
        except OSError:
            time.sleep(0.5)
    else:
        sys.exit("cannot connect to %s:%d" % (ip, port))
    c.settimeout(60)
    c.sendall(data)
    c.shutdown(socket.SHUT_WR)
    c.recv(1)
    c.close()
'''


def tag():
    return "%d" % (os.getpid() % 100000)


def kernel_vtep(phy, peer, ns, inner_cidr, inner_mtu=INNER_MTU):
    """The kernel VTEP at the far end of the veth phy (ours, root ns) ==
    peer (in ns): peer is KVTEP_IP, vx0 (VNI, remote VTEP_IP, MTU
    inner_mtu) carries inner_cidr (hostnet.kernel_vtep)."""
    hostnet.kernel_vtep(phy, peer, ns, inner_cidr, KVTEP_IP, VTEP_IP, VNI,
                        inner_mtu)


def vtep_topology(phy, vm_port):
    """The switch between vm_port (a topology port named anything) and
    the kernel VTEP: af_packet on phy, every VM frame tunnelled to
    KVTEP_IP, every decapsulated frame to the VM. No static ARP."""
    vm = vm_port["name"]
    return {
        "eal": {"memory-mb": 256},
        "underlay": {"port": "phy", "local-ip": VTEP_IP + "/24"},
        "ports": [
            vm_port,
            {"name": "vxlan", "type": "vxlan",
             "options": {"remote_ip": "flow", "key": "flow",
                         "dst_port": 4789, "vnis": [VNI]}},
            {"name": "phy", "type": "dpdk",
             "devargs": "net_af_packet0,iface=%s" % phy},
        ],
        "flows": [
            "in_port=%s,actions=set_tunnel:%d,set_field:%s->tun_dst,"
            "output:vxlan" % (vm, VNI, KVTEP_IP),
            "in_port=vxlan,actions=output:%s" % vm,
        ],
    }


def kernel_vtep6(phy, peer, ns, inner_cidrs, inner_mtu=INNER_MTU6,
                 dev="vx0", zero_csum_tx=False, local=KVTEP6_IP):
    """kernel_vtep() over IPv6: peer is KVTEP6_IP/64 (nodad; no router
    solicitations), `dev` (VNI, remote VTEP6_IP, bound to peer unless
    inner_mtu is above INNER_MTU6 (vxlan6_device), UDP 4789,
    udp6zerocsumtx when zero_csum_tx) carries every CIDR of inner_cidrs
    (IPv6 ones nodad). The switch's end, phy, has IPv6 off."""
    hostnet.no_ipv6(phy)
    hostnet.sh(["ip", "link", "set", phy, "up"])
    kernel_vtep6_end(peer, ns, inner_cidrs, inner_mtu, dev, zero_csum_tx,
                     local)


def kernel_vtep6_end(peer, ns, inner_cidrs, inner_mtu=INNER_MTU6,
                     dev="vx0", zero_csum_tx=False, local=KVTEP6_IP):
    """kernel_vtep6()'s kernel end alone, on peer already in ns (a veth's
    other end, or the switch's net_tap underlay moved there)."""
    sh = hostnet.sh
    # (keep_addr_on_down: a test that takes the link down and up finds
    # its address still there, as an IPv4 one would be)
    for k, v in (("disable_ipv6", 0), ("accept_ra", 0),
                 ("router_solicitations", 0), ("accept_dad", 0),
                 ("keep_addr_on_down", 1)):
        sh(["sysctl", "-qw", "net.ipv6.conf.%s.%s=%d" % (peer, k, v)],
           ns=ns, check=False)
    sh(["ip", "link", "set", peer, "up"], ns=ns)
    sh(["ip", "-6", "addr", "add", KVTEP6_IP + "/64", "dev", peer, "nodad"],
       ns=ns)
    if local != KVTEP6_IP:
        # an address behind KVTEP6_IP (on lo: the kernel answers no NS
        # for it on peer), which the switch reaches by a route
        sh(["ip", "link", "set", "lo", "up"], ns=ns)
        sh(["ip", "-6", "addr", "add", local + "/128", "dev", "lo",
            "nodad"], ns=ns)
    vxlan6_device(peer, ns, inner_cidrs, inner_mtu, dev, zero_csum_tx,
                  local)


def vm_tap(tap, ns, mtu, cidrs):
    """The VM side of a rig: the switch's net_tap port `tap` moved into
    netns ns as a guest's interface: IPv6 on without DAD or router
    solicitations (the overlay is ours), mtu, every CIDR of cidrs (IPv6
    ones nodad), up."""
    sh = hostnet.sh
    sh(["ip", "link", "set", tap, "netns", ns])
    for k, v in (("disable_ipv6", 0), ("accept_dad", 0),
                 ("router_solicitations", 0)):
        sh(["sysctl", "-qw", "net.ipv6.conf.%s.%s=%d" % (tap, k, v)],
           ns=ns, check=False)
    sh(["ip", "link", "set", tap, "mtu", mtu], ns=ns)
    for c in cidrs:
        sh(["ip", "addr", "add", c, "dev", tap]
           + (["nodad"] if ":" in c else []), ns=ns)
    sh(["ip", "link", "set", tap, "up"], ns=ns)


def vxlan6_device(peer, ns, inner_cidrs, inner_mtu=INNER_MTU6, dev="vx0",
                  zero_csum_tx=False, local=KVTEP6_IP):
    """(Re)creates kernel_vtep6()'s VXLAN device (sending from local).
    As hostnet.kernel_vtep(): Linux caps a device bound to its lower
    device at that device's MTU less 70, so one with a bigger inner_mtu
    (a new user's 1500 over a 1500 underlay) is left unbound and reaches
    VTEP6_IP by its route (peer's /64)."""
    sh = hostnet.sh
    bind = ["dev", peer] if inner_mtu <= INNER_MTU6 else []
    sh(["ip", "link", "del", dev], ns=ns, check=False)
    sh(["ip", "link", "add", dev, "type", "vxlan", "id", VNI, "remote",
        VTEP6_IP, "local", local, "dstport", 4789] + bind
       + (["udp6zerocsumtx"] if zero_csum_tx else []), ns=ns)
    for k, v in (("disable_ipv6", 0), ("accept_dad", 0),
                 ("router_solicitations", 0)):
        sh(["sysctl", "-qw", "net.ipv6.conf.%s.%s=%d" % (dev, k, v)],
           ns=ns, check=False)
    sh(["ip", "link", "set", dev, "mtu", inner_mtu, "up"], ns=ns)
    for c in inner_cidrs:
        sh(["ip", "addr", "add", c, "dev", dev]
           + (["nodad"] if ":" in c else []), ns=ns)


def vtep6_topology(phy, vm_port, zero_csum_rx=True, fixed_remote=False,
                   remote=KVTEP6_IP, routes=None, dual=False):
    """vtep_topology() over IPv6: local-ip VTEP6_IP/64, every VM frame
    tunnelled to KVTEP6_IP (set_field tun_ipv6_dst with remote_ip=flow,
    or the port's fixed remote_ip and key when fixed_remote),
    udp6zerocsumrx as given; remote instead of KVTEP6_IP, and the
    underlay's routes, if given; dual: local-ip VTEP_IP/24 as well."""
    vm = vm_port["name"]
    opts = {"remote_ip": "flow", "key": "flow", "dst_port": 4789,
            "vnis": [VNI]}
    if fixed_remote:
        opts = {"remote_ip": remote, "key": VNI, "dst_port": 4789}
    if not zero_csum_rx:
        opts["udp6zerocsumrx"] = False
    topo = {
        "eal": {"memory-mb": 256},
        "underlay": {"port": "phy", "local-ip": VTEP6_IP + "/64"},
        "ports": [
            vm_port,
            {"name": "vxlan", "type": "vxlan", "options": opts},
            {"name": "phy", "type": "dpdk",
             "devargs": "net_af_packet0,iface=%s" % phy},
        ],
        "flows": [
            "in_port=%s,actions=output:vxlan" % vm if fixed_remote else
            "in_port=%s,actions=set_tunnel:%d,set_field:%s->tun_ipv6_dst,"
            "output:vxlan" % (vm, VNI, remote),
            "in_port=vxlan,actions=output:%s" % vm,
        ],
    }
    if routes:
        topo["underlay"]["routes"] = routes
    if dual:
        topo["underlay"]["local-ip"] = [VTEP_IP + "/24", VTEP6_IP + "/64"]
    return topo


def snmp6(ns):
    """/proc/net/snmp6 of ns as {name: int}."""
    out = {}
    for ln in hostnet.sh(["cat", "/proc/net/snmp6"], ns=ns).splitlines():
        f = ln.split()
        if len(f) == 2 and f[1].isdigit():
            out[f[0]] = int(f[1])
    return out


# -------------------------------------------------------------- path MTU

def ping_df(ns, dst, size, count=1, interval="0.2", pmtudisc="do"):
    """iputils ping from netns ns (-M: do, DF and the path MTU kept;
    probe, DF whatever the path MTU; dont, no DF; None: the default);
    its output (it may fail)."""
    cmd = ["ping", "-n", "-c", str(count), "-i", interval, "-W", "2",
           "-s", str(size)]
    if pmtudisc:
        cmd += ["-M", pmtudisc]
    p = subprocess.run(["ip", "netns", "exec", ns] + cmd + [dst],
                       capture_output=True, text=True, timeout=60)
    return p.stdout + p.stderr


def flush_pmtu(ns):
    """netns ns forgets the path MTUs it learned."""
    hostnet.sh(["ip", "route", "flush", "cache"], ns=ns)
    hostnet.sh(["ip", "-6", "route", "flush", "cache"], ns=ns)


def pmtud_counts(sw):
    """The path MTU counters of every PMD, summed (dp_pmtud.h): the
    errors sent, those refused by the policer, the packets copied for
    them, and the packets dropped as too long for the tunnel."""
    tot = {"pmtud_frag_needed": 0, "pmtud_too_big": 0,
           "pmtud_policed": 0, "mtu_exceeded": 0, "copies": 0}
    for p in sw.ctl("dpif-netdev/pmd-stats-show", json=True):
        for k in ("pmtud_frag_needed", "pmtud_too_big", "pmtud_policed",
                  "copies"):
            tot[k] += p[k]
        tot["mtu_exceeded"] += p["drops"]["mtu_exceeded"]
    return tot


def counts_delta(a, b):
    return {k: b[k] - a[k] for k in a}
