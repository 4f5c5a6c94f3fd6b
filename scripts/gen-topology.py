#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed's VXLAN overlay topology (Intel's 32-VM VXLAN study) for N VMs.

The seed builds it with ovs-vsctl/ovs-ofctl/ovs-appctl: N vhost-user client
ports on br-int, a flow-based vxlan port, br-phy with the NIC, the VTEP
address, one route, one static ARP entry and two flows per VM. This script
writes the same thing as a vxswitch topology file (see app/config/config.h).

    scripts/gen-topology.py --vms 32 --out topology/vxlan-32vm.yaml

The defaults reproduce the seed exactly; each option changes one thing.
"""

import argparse
import ipaddress
import math
import sys

import yaml


def core_list(text):
    """'2,3,4,5' or '2-5' (the EAL -l syntax) -> [2, 3, 4, 5]."""
    cores = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cores.extend(range(int(lo), int(hi or lo) + 1))
    if not cores or len(set(cores)) != len(cores):
        raise argparse.ArgumentTypeError(f"bad core list {text!r}")
    return cores


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vms", type=int, default=32,
                   help="number of VMs / vhost-user ports (default 32)")
    p.add_argument("--pmd-cores", type=core_list, default=[2, 3, 4, 5],
                   help="PMD lcores (default 2-5: the seed's pmd-cpu-mask "
                        "0x3c)")
    p.add_argument("--main-lcore", type=int, default=1,
                   help="main lcore (default 1: the seed's dpdk-lcore-mask "
                        "0x2)")
    p.add_argument("--socket-mem", default="1024,0",
                   help="EAL --socket-mem (default the seed's 1024,0)")
    p.add_argument("--nic-devargs", default="0000:18:00.0",
                   help="NIC PCI address or vdev devargs")
    p.add_argument("--nic-rxqs", type=int, default=None,
                   help="NIC rx queues (default: one per PMD core)")
    p.add_argument("--sock-dir", default="/tmp",
                   help="directory of the VMs' vhost-user sockets")
    p.add_argument("--vni", type=int, default=1001)
    p.add_argument("--local-ip", default="172.1.0.100/24",
                   help="our VTEP address with prefix")
    p.add_argument("--local-mac", default="10:00:00:00:00:01",
                   help="our VTEP MAC (the seed's br-phy hwaddr)")
    p.add_argument("--remote-ip", default="172.1.0.0",
                   help="the remote VTEP every VM tunnels to")
    p.add_argument("--remote-mac", default="10:00:00:00:00:02",
                   help="the remote VTEP's MAC (static ARP)")
    p.add_argument("--inner-net", default=None,
                   help="VM i is reached at inner address inner-net + i "
                   "(default 192.1.0.0; --ipv6: fd00:1::)")
    p.add_argument("--ipv6", action="store_true",
                   help="IPv6 tenant traffic (gen-traffic.py --ipv6): the "
                   "decap flows match in_port=vxlan,ipv6,ipv6_dst=<VM i> "
                   "instead of ip,nw_dst (the encap flows match in_port "
                   "only and stay)")
    p.add_argument("--inner-arp", action="store_true",
                   help="also in_port=vxlan,arp,arp_tpa=<VM i>,"
                   "actions=output:vhost-user<i> per VM, so a guest can "
                   "resolve its peer (the seed's flow set has no inner ARP)")
    p.add_argument("--sg", choices=["none", "sg", "ct"],
                   help="the flows of perf/e2e-bench.py --sg instead of the "
                   "seed's: a security group on every VM port, none (port "
                   "security only), with sg(), or Neutron-style with "
                   "ct()/ct_state (vxswitch_tools/sg_policy.py)")
    p.add_argument("--sg-port", type=int, default=5001,
                   help="UDP port the --sg group allows in (default 5001, "
                   "gen-traffic.py's)")
    p.add_argument("--sg-proto", default="udp", metavar="PROTOS",
                   help="protocols the --sg group allows in to --sg-port: "
                   "udp (default), tcp or udp,tcp (gen-traffic.py --proto)")
    p.add_argument("--no-vm-ports", action="store_true",
                   help="leave the VMs' ports out (the flows stay): each is "
                   "added when its VM starts (vxswitch-ctl add-port, as "
                   "scripts/guests.py start does; doc/running.md, Life of a "
                   "VM)")
    p.add_argument("--plan", help="core plan from scripts/host-plan.py: "
                   "its PMD cores, main lcore, socket-mem and NIC replace "
                   "those options")
    p.add_argument("--out", default="-", help="output file (default stdout)")
    args = p.parse_args(argv)
    if args.plan:
        import json
        with open(args.plan) as f:
            plan = json.load(f)
        args.pmd_cores = plan["pmd_cores"]
        args.main_lcore = plan["main_lcore"]
        args.socket_mem = plan["socket_mem"]
        if plan.get("nic"):
            args.nic_devargs = plan["nic"]
        if not args.pmd_cores:
            p.error("--plan %s has no PMD cores" % args.plan)
    if args.vms < 1:
        p.error("--vms must be at least 1")
    if args.inner_net is None:
        args.inner_net = "fd00:1::" if args.ipv6 else "192.1.0.0"
    try:
        fam = ipaddress.ip_address(args.inner_net).version
    except ValueError as e:
        p.error(str(e))
    if fam != (6 if args.ipv6 else 4):
        p.error("--inner-net %s: IPv%d, and --ipv6 is %s"
                % (args.inner_net, fam, "on" if args.ipv6 else "off"))
    if args.ipv6 and args.sg:
        p.error("--ipv6 with --sg: the security-group flow sets "
                "(sg_policy.py) are IPv4 only")
    if args.ipv6 and args.inner_arp:
        p.error("--ipv6 with --inner-arp: IPv6 resolves with ND, not ARP")
    if not set(args.sg_proto.split(",")) <= {"udp", "tcp"}:
        p.error("--sg-proto: udp, tcp or udp,tcp")
    if args.nic_rxqs is None:
        args.nic_rxqs = len(args.pmd_cores)
    if args.main_lcore in args.pmd_cores:
        p.error("--main-lcore must not be one of --pmd-cores")
    return args


def vhost_core(i, n_vms, pmd_cores):
    """The seed gives each PMD 8 consecutive vhost rxqs (core = i/8 + 2 for
    32 VMs on cores 2-5). In general: blocks of ceil(N / PMDs) consecutive
    VMs per core, which is the seed's rule for 32 VMs on 4 cores and keeps
    every PMD busy for other counts."""
    per_core = math.ceil(n_vms / len(pmd_cores))
    return pmd_cores[(i // per_core) % len(pmd_cores)]


def format_cores(cores):
    """[1, 2, 3, 4, 5] -> '1-5', the EAL -l syntax."""
    runs = []
    for c in sorted(cores):
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in runs)


def nic_affinity(n_rxqs, pmd_cores):
    """One NIC rxq per PMD, round robin: 0:2,1:3,2:4,3:5 in the seed."""
    return ",".join(f"{q}:{pmd_cores[q % len(pmd_cores)]}"
                    for q in range(n_rxqs))


def topology(a):
    vtep = ipaddress.ip_interface(a.local_ip)
    inner = ipaddress.ip_address(a.inner_net)
    vms = range(a.vms)
    ports = [{"name": f"vhost-user{i}", "type": "dpdkvhostuserclient",
              "path": f"{a.sock_dir}/vhostsock{i}", "n-rxq": 1,
              "rxq-affinity": f"0:{vhost_core(i, a.vms, a.pmd_cores)}"}
             for i in vms if not a.no_vm_ports]
    ports.append({"name": "vxlan", "type": "vxlan",
                  "options": {"remote_ip": "flow", "local_ip": "flow",
                              "key": "flow", "dst_port": 4789,
                              "vnis": [a.vni]}})
    ports.append({"name": "dpdk-phy", "type": "dpdk",
                  "devargs": a.nic_devargs, "n-rxq": a.nic_rxqs,
                  "rxq-affinity": nic_affinity(a.nic_rxqs, a.pmd_cores)})
    if a.sg:
        from vxswitch_tools import sg_policy
        flows = sg_policy.flows(a.sg, a.vms, vni=a.vni,
                                remote_ip=a.remote_ip, local_ip=str(vtep.ip),
                                inner_net=a.inner_net, port=a.sg_port,
                                protos=a.sg_proto.split(","))
    else:
        flows = []
    for i in (() if a.sg else vms):
        flows.append(f"in_port=vhost-user{i},actions=set_tunnel:{a.vni},"
                     f"set_field:{a.remote_ip}->tun_dst,"
                     f"set_field:{vtep.ip}->tun_src,output:vxlan")
        match = (f"ipv6,ipv6_dst={inner + i}" if a.ipv6 else
                 f"ip,nw_dst={inner + i}")
        flows.append(f"in_port=vxlan,{match},actions=output:vhost-user{i}")
        if a.inner_arp:     # not in the seed: lets a guest resolve its peer
            flows.append(f"in_port=vxlan,arp,arp_tpa={inner + i},"
                         f"actions=output:vhost-user{i}")
    return {
        "eal": {"lcores": format_cores([a.main_lcore] + a.pmd_cores),
                "main-lcore": a.main_lcore, "socket-mem": a.socket_mem},
        "datapath": {"pmd-cores": a.pmd_cores, "emc-insert-inv-prob": 100},
        "underlay": {"port": "dpdk-phy", "local-ip": a.local_ip,
                     "mac": a.local_mac,
                     "routes": [{"prefix": str(vtep.network)}],
                     "arp": [{"ip": a.remote_ip, "mac": a.remote_mac}]},
        "ports": ports,
        "flows": flows,
    }


HEADER = """\
# The seed's VXLAN overlay ({vms} VMs), as a vxswitch topology file.
# Generated by: scripts/gen-topology.py {cmdline}
# Do not edit by hand: change the script or its options and regenerate.
#
# Seed script (Intel's 32-VM VXLAN study) line by line:
#   other_config:dpdk-socket-mem="1024,0"        -> eal.socket-mem
#   other_config:dpdk-lcore-mask="0x2"           -> eal.main-lcore: 1
#   other_config:pmd-cpu-mask="0x3c"             -> datapath.pmd-cores: 2..5
#   emc-insert-inv-prob left at its default 1%   -> datapath.emc-insert-inv-prob
#   add-br br-int (datapath_type=netdev)         -> this file: one switch
#   for i: add-port br-int vhost-user$i type=dpdkvhostuserclient
#          vhost-server-path=/tmp/vhostsock$i n_rxq=1
#          pmd-rxq-affinity=0:$((i/8 + 2))       -> ports: vhost-user$i
#   add-port br-int vxlan type=vxlan remote_ip=flow local_ip=flow key=flow
#                                                -> ports: vxlan
#   add-br br-phy ... other_config:hwaddr=10:00:00:00:00:01
#                                                -> underlay.mac
#   add-port br-phy dpdk-phy type=dpdk dpdk-devargs=0000:18:00.0 n_rxq=4
#          pmd-rxq-affinity=0:2,1:3,2:4,3:5      -> ports: dpdk-phy
#   ip addr add 172.1.0.100/24 dev br-phy        -> underlay.local-ip
#   ovs-appctl ovs/route/add 172.1.0.0/24 br-phy -> underlay.routes
#   ovs-appctl tnl/arp/set br-phy 172.1.0.0 10:00:00:00:00:02
#                                                -> underlay.arp
#   for i: ovs-ofctl add-flow br-int (two flows) -> flows
# br-int and br-phy are not separate bridges here: the underlay section is
# br-phy (the NIC plus our VTEP), everything else is br-int.
"""

# (section, flow style for PyYAML, comment): lists of numbers and the
# one-line port and route entries read best in flow style, flows do not.
SECTIONS = [
    ("eal", False, """\
# DPDK EAL arguments. OVS takes these from other_config:dpdk-*; here they
# become the rte_eal_init() argv (-l, --main-lcore, --socket-mem, ...).
# The main lcore runs the control thread (OVS's dpdk-lcore-mask)."""),
    ("datapath", None, """\
# The forwarding threads. pmd-cores is OVS's pmd-cpu-mask as a list; each
# PMD polls the rx queues pinned to it below (pmd-rxq-affinity).
# emc-insert-inv-prob 100 inserts 1 in 100 new microflows into the exact
# match cache, as OVS's default."""),
    ("underlay", None, """\
# br-phy: the NIC side. local-ip is the VTEP address (OVS: the IP on
# br-phy), mac its MAC (br-phy's hwaddr); routes and arp are what
# ovs/route/add and tnl/arp/set give OVS to build the outer headers."""),
    ("ports", None, """\
# br-int's ports, in OVS's add-port order, so they get the same OpenFlow
# port numbers: vhost-user$i = i + 1, vxlan = N + 1; dpdk-phy follows.
# dpdkvhostuserclient: the VM (QEMU, or testpmd --vdev
# net_virtio_user,server=1) owns the socket and we connect to it.
# rxq-affinity is OVS's other_config:pmd-rxq-affinity (queue:core)."""),
    ("flows", False, """\
# ovs-ofctl add-flow syntax, two per VM: traffic from VM i is tunnelled to
# the remote VTEP with VNI {vni}; decapsulated traffic for VM i's inner
# address goes to its port."""),
]


def render(topo, args, cmdline):
    text = HEADER.format(vms=args.vms, cmdline=cmdline)
    for key, style, comment in SECTIONS:
        text += "\n" + comment.format(vni=args.vni) + "\n"
        text += yaml.safe_dump({key: topo[key]}, sort_keys=False,
                               default_flow_style=style, width=1000)
    # What the file says must be exactly what we meant to write.
    assert yaml.safe_load(text) == topo
    return text


def main(argv):
    args = parse_args(argv)
    text = render(topology(args), args, " ".join(argv))
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
