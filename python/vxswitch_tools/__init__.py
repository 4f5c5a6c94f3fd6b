# SPDX-License-Identifier: BSD-3-Clause
"""vxswitch's Python tools: what the integration tests, the scripts and
the benchmarks share, in one package imported by name.

  harness        the test harness (`import vxswitch_tools.harness as vxlib`):
                 gathers procs, switch, testpmd, hostnet, pcap, topology
  packets        scapy frames and af_packet/veth I/O (was pktlib)
  guests         QEMU command lines, libvirt XML, a private libvirtd
                 (scripts/guests.py); qemu_guest: a guest as a harness
                 process with its serial console (was guestlib)
  vhost_frontend the hostile vhost-user frontend (scripts/vhost-frontend.py)
  fuzz           the fuzz suite (scripts/fuzz.py, test_fuzz.py), with
                 fuzz_inputs, fuzz_ctl and fuzz_report
  traffic_gen    the benchmark pcaps (scripts/gen-traffic.py)
  netns_rig      real TCP stacks on both sides of the switch: VMs as
                 namespaces on net_tap ports, the kernel VXLAN device
                 outside; netns_apps runs traffic there (netns_peer)
  addressing     the VMs' MAC/IP address plans (SEED, GUESTS, NETNS_RIG)
  cpuload        CPU time of others on the polling cores (demo, e2e-bench)
  forwarding_rig, offload_rig, kernel_vtep_rig, guest_rig
                 the integration tests' rigs (their fixtures: conftest.py)
  bench, ovs_dpdk  perf/e2e-bench.py's helpers and its OVS-DPDK side

How it is found, with no sys.path edit and no install: CI runs a fresh
clone on Debian 12 as root with /usr/bin/python3, where PEP 668 forbids
pip into the system python, so nothing is installed and nothing needs an
environment variable:
  - pytest: tests/integration/pytest.ini sets `pythonpath = ../../python`
    (configuration, pytest >= 7);
  - scripts and benchmarks: scripts/vxswitch_tools and perf/vxswitch_tools
    are symlinks to this folder. Python puts a script's own folder first on
    its path, so `scripts/fuzz.py`, `python3 perf/e2e-bench.py` and the
    like work from any working directory, as the README shows them.
Elsewhere (a Python shell), PYTHONPATH=python or
`python3 -m vxswitch_tools.MODULE` from the repo's python/ folder.
"""
