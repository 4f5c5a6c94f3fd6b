# SPDX-License-Identifier: BSD-3-Clause
"""Megaflow life cycle without any VM: the NIC (net_pcap, replayed once)
carries VXLAN frames for two VMs whose vhost-user ports are down, so the
switch installs the tunnel-pop megaflow and one inner megaflow per VM,
counts the frames as port_down drops, and then:
  - a rule change revalidates exactly the megaflows it affects;
  - idle megaflows expire, and their counters stay with their rules.
"""
import time

from vxswitch_tools import harness as vxlib

N_FRAMES = 40       # 20 per VM


def start(make_switch, tmp_path, rundir, idle_ms):
    rx = tmp_path / "rx.pcap"
    vxlib.gen_traffic(rx, "--nic", "--vms", "2", "--flows", "4",
                      "--count", str(N_FRAMES))
    topo = vxlib.load_topology("vxlan-2vm.yaml", VXS_RUN_DIR=rundir,
                               VXS_RX_PCAP=rx,
                               VXS_TX_PCAP=tmp_path / "tx.pcap",
                               VXS_INFINITE_RX=0)
    topo["datapath"]["flow-max-idle-ms"] = idle_ms
    sw = make_switch(topo)
    vxlib.wait_for(lambda: pmd(sw)["packets"] == N_FRAMES, timeout=10,
                   what="all frames received")
    return sw


def pmd(sw):
    return sw.ctl("dpif-netdev/pmd-stats-show", json=True)[0]


def megaflows(sw):
    return sw.ctl("dpctl/dump-flows", json=True)


def inner_flow(flows, vm):
    for f in flows:
        if "ipv4(dst=192.1.0.%d)" % vm in f["match"]:
            return f
    return None


def test_rule_change_revalidates_only_affected_megaflows(make_switch,
                                                         tmp_path, rundir):
    sw = start(make_switch, tmp_path, rundir, idle_ms=60000)
    flows = megaflows(sw)
    assert len(flows) == 3, flows
    pop = [f for f in flows if "tnl_pop(vxlan)" in f["actions"]]
    assert len(pop) == 1 and pop[0]["packets"] == N_FRAMES
    vm0, vm1 = inner_flow(flows, 0), inner_flow(flows, 1)
    assert vm0["actions"] == "vhost-user0" and vm1["actions"] == "vhost-user1"
    assert "tunnel(tun_id=0x3e9)" in vm0["match"]
    assert vm0["packets"] + vm1["packets"] == N_FRAMES
    drops = pmd(sw)["drops"]
    assert drops["port_down"] == N_FRAMES, drops

    sw.ctl("add-flow", "priority=40000,in_port=vxlan,ip,nw_dst=192.1.0.0,"
           "actions=drop")
    # The PMD revalidates at its next loop: VM 0's megaflow now has other
    # actions and goes; VM 1's is unaffected and keeps its id and counters.
    vxlib.wait_for(lambda: inner_flow(megaflows(sw), 0) is None, timeout=5,
                   what="VM 0's megaflow revalidated away")
    after = megaflows(sw)
    kept = inner_flow(after, 1)
    assert kept is not None and kept["id"] == vm1["id"], after
    assert kept["packets"] == vm1["packets"]
    assert pmd(sw)["megaflows"] == 2

    # Counters of the retired megaflow are not lost: its rule has them.
    rules = sw.ctl("dump-flows", json=True)
    vm0_rule = [r for r in rules if "nw_dst=192.1.0.0 " in r["rule"]
                and r["priority"] == 32768]
    assert vm0_rule and vm0_rule[0]["n_packets"] == vm0["packets"], rules


def test_idle_megaflows_expire(make_switch, tmp_path, rundir):
    sw = start(make_switch, tmp_path, rundir, idle_ms=500)
    assert len(megaflows(sw)) == 3
    t0 = time.monotonic()
    vxlib.wait_for(lambda: megaflows(sw) == [], timeout=5,
                   what="idle megaflows expired")
    # not before the idle time (0.5 s since the last frame, checked every
    # 0.1 s by the PMD)
    assert time.monotonic() - t0 < 3
    rules = sw.ctl("dump-flows", json=True)
    total = sum(r["n_packets"] for r in rules
                if "in_port=vxlan" in r["rule"].split()[0].split(","))
    assert total == N_FRAMES, rules
    assert pmd(sw)["megaflows"] == 0
