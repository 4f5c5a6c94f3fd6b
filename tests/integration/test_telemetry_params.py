# SPDX-License-Identifier: BSD-3-Clause
"""/vxswitch/* telemetry parameters are parsed strictly, through the real
DPDK telemetry socket: the whole string a number in range (or a port
name), else an error reply (null data); good ones still answer."""

import json
import socket


def telemetry(prefix, *cmds):
    """One JSON reply per command, over the EAL's telemetry v2 socket."""
    path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
    out = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.settimeout(5)
        s.connect(path)
        json.loads(s.recv(16384))           # the greeting
        for c in cmds:
            s.send(c.encode())
            out.append(json.loads(s.recv(65536)))
    return out


def test_telemetry_params_strict(make_switch, one_port_topology):
    sw = make_switch(one_port_topology)
    good = ["/vxswitch/pmd_stats,1", "/vxswitch/pmd_stats",
            "/vxswitch/port_stats,0", "/vxswitch/port_stats,vm0",
            "/vxswitch/ports"]
    bad = ["/vxswitch/pmd_stats,1abc", "/vxswitch/pmd_stats,-1",
           "/vxswitch/pmd_stats,+1", "/vxswitch/pmd_stats, 1",
           "/vxswitch/pmd_stats,0", "/vxswitch/pmd_stats,99999999999999999999",
           "/vxswitch/pmd_stats,4294967297",
           "/vxswitch/port_stats,1", "/vxswitch/port_stats,-1",
           "/vxswitch/port_stats,0x0", "/vxswitch/port_stats,0abc",
           "/vxswitch/port_stats,18446744073709551616",
           "/vxswitch/port_stats", "/vxswitch/port_stats,nosuch",
           "/vxswitch/ports,1"]
    replies = telemetry(sw.prefix, *(good + bad))
    for cmd, rep in zip(good, replies):
        key = cmd.split(",")[0]
        assert rep[key] is not None, (cmd, rep)
    assert replies[0]["/vxswitch/pmd_stats"]["core"] == 1
    assert replies[1]["/vxswitch/pmd_stats"]["1"]["core"] == 1   # every PMD
    assert replies[2]["/vxswitch/port_stats"]["name"] == "vm0"
    assert replies[4] == {"/vxswitch/ports": ["vm0"]}
    for cmd, rep in zip(bad, replies[len(good):]):
        assert rep == {cmd.split(",")[0]: None}, (cmd, rep)
