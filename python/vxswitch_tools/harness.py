# SPDX-License-Identifier: BSD-3-Clause
"""Harness for vxswitch's integration tests: real processes, real sockets.

  Switch     the daemon (build/app/vxswitch) with a topology given as a dict,
             its own EAL file prefix, run dir, control socket and log file;
             ctl() runs vxswitch-ctl against it.
  Testpmd    dpdk-testpmd as the VMs: one process, N virtio-user ports that
             own their vhost-user sockets (server=1) for the switch's
             dpdkvhostuserclient ports to connect to; macswap, non-interactive.
             Or any other testpmd (vdevs=..., interactive=True) as a peer.
  netns(), veth_pair(), read_pcap(), write_pcap(), gen_traffic(), wait_for()

This module only gathers the harness's names (`import
vxswitch_tools.harness as vxlib`); each lives in the module of its job:
  procs      binaries, EAL prefixes, spawning, reap_all(), wait_for()
  switch     Switch, assert_no_mbuf_leak(), assert_packets_accounted(),
             telemetry(), ctl_complete() (what bash completion offers)
  testpmd    Testpmd
  hostnet    sh(), netns(), veth_pair(), offloads_off(), hugepages
  pcap       read_pcap*(), write_pcap(), pcap_count(), gen_traffic()
  topology   load_topology(), vhost_paths()

Every process started here is registered and killed by the conftest
fixtures at teardown, whatever the test's outcome (reap_all()).

Cores: the machine has two (0, 1). The switch's main lcore is 0 and its
PMD 1; testpmd's main and forwarding lcores both run on CPU 0 by default.

Quirks of DPDK 22.11 (Debian) that shape the Testpmd class:
  - virtio-user with server=1 blocks in accept() while probing each port, in
    order: vm1.sock does not exist until something connected to vm0.sock. A
    switch reconnecting every second so needs ~1 s per VM port.
  - virtio-user shares its memory with the backend as one region per hugepage
    file and allows 8: without --single-file-segments the vhost side gets
    "Too many memory regions" and no packet ever flows. --single-file-segments
    cannot be combined with --huge-unlink; --in-memory works with it and
    leaves no hugepage files behind.
  - testpmd's stdout is block-buffered when it is not a tty: run under
    stdbuf -oL so the log can be waited on.
  - testpmd drains its rx queues before forwarding (flush_fwd_rx_queues):
    a finite net_pcap rx_pcap is swallowed whole unless --no-flush-rx.
  - with N ports in one testpmd, the default paired port topology forwards
    port 0 -> 1; a VM must answer on its own port: --port-topology=loop.
  - SIGINT while a server=1 port waits in accept() aborts only that port's
    probe; the next port then waits. stop() repeats SIGINT until it exits.
  - without --no-flush-rx / -i, a non-interactive testpmd waits for a key on
    stdin ("Press enter to exit"): stdin must be a pipe kept open, since EOF
    on stdin makes it exit at once.
"""

# Private names included: guests, fuzz and the benchmarks register their own
# processes (_live, _spawn, _kill) and quote logs (_tail).
from .hostnet import (ensure_hugepages, hugepages_free, netns, offloads_off,
                      sh, veth_pair)
from .pcap import (gen_traffic, load_gen_traffic, pcap_count, read_pcap,
                   read_pcap_raw, write_pcap)
from .procs import (DPDK_RUN, HUGE_MNT, REPO, SCRIPTS, CtlError, HarnessError,
                    _kill, _live, _spawn, _tail, build_dir,
                    cleanup_dpdk_prefix, find_binary, reap_all, short_tmpdir,
                    unique_prefix, wait_for)
from .switch import (Switch, assert_no_mbuf_leak, assert_packets_accounted,
                     ctl_complete, rules_json_without_ages,
                     rules_without_stats, stop_if_passed, telemetry)
from .testpmd import Testpmd
from .topology import load_topology, vhost_paths

__all__ = [
    "CtlError", "DPDK_RUN", "HUGE_MNT", "HarnessError", "REPO", "SCRIPTS",
    "Switch", "Testpmd", "_kill", "_live", "_spawn", "_tail",
    "assert_no_mbuf_leak", "assert_packets_accounted", "build_dir",
    "cleanup_dpdk_prefix", "ctl_complete", "ensure_hugepages",
    "find_binary", "gen_traffic",
    "hugepages_free", "load_gen_traffic", "load_topology", "netns",
    "offloads_off", "pcap_count", "read_pcap", "read_pcap_raw", "reap_all",
    "rules_json_without_ages", "rules_without_stats", "stop_if_passed",
    "sh", "short_tmpdir", "telemetry", "unique_prefix", "veth_pair",
    "vhost_paths", "wait_for", "write_pcap",
]
