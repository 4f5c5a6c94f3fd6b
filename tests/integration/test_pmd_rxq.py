# SPDX-License-Identifier: BSD-3-Clause
"""dpif-netdev/pmd-rxq-show on 2 PMDs (lcores 1 and 2 on one CPU), in
OVS 3.1's shape, with each queue's measured share of its PMD.

No openvswitch-switch on this host to compare with ovs-appctl, so every
line is pinned by a regex and then rebuilt with OVS's own printf formats
(lib/dpif-netdev.c pmd_info_show_rxq) and compared byte for byte:

    Displaying last 60 seconds pmd usage %
    pmd thread numa_id 0 core_id 1:
      isolated : false
      port: busy              queue-id:  0 (enabled)   pmd usage: 97 %
      overhead:  1 %

The load: a net_null port whose rx never runs dry (its packets miss the
empty flow table and are dropped), next to idle queues; the load window
is shortened (pmd-load-interval-ms: 100, so 12 intervals are 1.2 s).
"""

import re
import time

HEADER = re.compile(r"^Displaying last (\d+) seconds pmd usage %$")
PMD = re.compile(r"^pmd thread numa_id (\d+) core_id (\d+):$")
ISOLATED = re.compile(r"^  isolated : (true|false)$")
RXQ = re.compile(r"^  port: (\S+) +queue-id: +(\d+) \((enabled|disabled)\)"
                 r" +pmd usage: +(\d+ %|NOT AVAIL)$")
OVERHEAD = re.compile(r"^  overhead: +(\d+ %|NOT AVAIL)$")


def ovs_usage(u):
    return u if u == "NOT AVAIL" else "%2d %%" % int(u.split()[0])


def parse(text):
    """{core: {"isolated": bool, "rxqs": {(port, q): usage}, "overhead"}}
    and the seconds shown; asserts each line is exactly what OVS's
    formats print for its values."""
    lines = text.rstrip("\n").split("\n")
    m = HEADER.match(lines[0])
    assert m, lines[0]
    pmds, cur = {}, None
    for line in lines[1:]:
        if m := PMD.match(line):
            assert line == "pmd thread numa_id %d core_id %u:" % (
                int(m[1]), int(m[2]))
            cur = pmds.setdefault(int(m[2]), {"rxqs": {}, "order": []})
        elif m := ISOLATED.match(line):
            cur["isolated"] = m[1] == "true"
        elif m := RXQ.match(line):
            want = "  port: %-16s  queue-id: %2d %s  pmd usage: %s" % (
                m[1], int(m[2]), "(enabled) " if m[3] == "enabled"
                else "(disabled)", ovs_usage(m[4]))
            assert line == want, (line, want)
            cur["rxqs"][(m[1], int(m[2]))] = (
                None if m[4] == "NOT AVAIL" else int(m[4].split()[0]))
            cur["order"].append((m[1], int(m[2])))
            cur["enabled_" + m[1]] = m[3] == "enabled"
        elif m := OVERHEAD.match(line):
            assert line == "  overhead: %s" % ovs_usage(m[1]), line
            cur["overhead"] = (None if m[1] == "NOT AVAIL"
                               else int(m[1].split()[0]))
        else:
            raise AssertionError("not OVS's shape: %r\n%s" % (line, text))
    return int(lines[0].split()[2]), pmds


def topology(rundir):
    return {
        "eal": {"lcores": "0,(1-2)@1", "memory-mb": 256, "no-huge": True},
        # 256 MiB without hugepages: a small session pool (no sg here)
        "datapath": {"pmd-cores": [1, 2], "pmd-load-interval-ms": 100,
                     "ct-max-conns": 4096,
                     "optimisations": {"idle-backoff": True}},
        "ports": [
            {"name": "busy", "type": "dpdk", "devargs": "net_null0"},
            {"name": "idle", "type": "dpdk", "devargs": "net_null1,no-rx=1",
             "n-rxq": 2},
            {"name": "vm0", "type": "dpdkvhostuser",
             "path": str(rundir / "vm0.sock")},
        ]}


def test_pmd_rxq_show_two_pmds(make_switch, rundir):
    sw = make_switch(topology(rundir))
    # before two intervals have passed nothing is measured
    deadline = time.monotonic() + 10
    while True:
        secs, pmds = parse(sw.ctl("dpif-netdev/pmd-rxq-show"))
        usages = [u for p in pmds.values() for u in p["rxqs"].values()]
        if None not in usages:
            break
        assert time.monotonic() < deadline, pmds
        time.sleep(0.1)
    time.sleep(1.3)                     # the whole window measured
    text = sw.ctl("dpif-netdev/pmd-rxq-show")
    print("\n" + text)
    secs, pmds = parse(text)
    assert secs == 1                    # 12 x 100 ms
    assert sorted(pmds) == [1, 2], text
    # every queue shown once, by port name then queue id on each PMD
    shown = [k for p in pmds.values() for k in p["rxqs"]]
    assert sorted(shown) == [("busy", 0), ("idle", 0), ("idle", 1),
                             ("vm0", 0)], text
    for p in pmds.values():
        assert p["order"] == sorted(p["order"]), text
        assert p["isolated"] is False
        assert p["overhead"] is not None
    busy_pmd = next(c for c, p in pmds.items() if ("busy", 0) in p["rxqs"])
    busy = pmds[busy_pmd]
    # net_null's rx never runs dry: its queue takes most of its PMD
    assert busy["rxqs"][("busy", 0)] >= 40, text
    assert sum(busy["rxqs"].values()) + busy["overhead"] <= 100, text
    for p in pmds.values():
        for k, u in p["rxqs"].items():
            if k != ("busy", 0):
                assert u == 0, text     # idle queues: nothing
    # a vhost port with no guest: its queue is disabled
    vm_pmd = next(p for p in pmds.values() if ("vm0", 0) in p["rxqs"])
    assert busy["enabled_busy"] and vm_pmd["enabled_vm0"] is False, text

    # --json: the same queues, the share as a number, and its cycles
    rows = {(r["port"], r["queue"]): r
            for r in sw.ctl("dpif-netdev/pmd-rxq-show", json=True)}
    b = rows[("busy", 0)]
    assert b["core"] == busy_pmd and b["cycles"] > 0
    assert b["pmd_cycles"] > b["cycles"]
    assert 40 <= b["usage_pct"] <= 100
    assert abs(b["usage_pct"] - 100.0 * b["cycles"] / b["pmd_cycles"]) < 1e-6
    assert rows[("vm0", 0)]["enabled"] is False
    assert rows[("idle", 1)]["cycles"] == 0 and rows[("idle", 1)]["packets"] == 0

    # -pmd CORE shows that PMD only; -secs N rounds up to whole intervals
    secs, only = parse(sw.ctl("dpif-netdev/pmd-rxq-show", "-pmd",
                              str(busy_pmd), "-secs", "1"))
    assert list(only) == [busy_pmd] and secs == 1
    assert only[busy_pmd]["rxqs"][("busy", 0)] >= 40
    r = sw.ctl_result("dpif-netdev/pmd-rxq-show", "-secs", "x")
    assert r.returncode != 0 and "bad -secs 'x'" in r.stderr + r.stdout
    sw.remove_endless_rx("busy")
