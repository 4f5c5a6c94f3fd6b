# SPDX-License-Identifier: BSD-3-Clause
"""Debian's dpdk-telemetry.py reads every counter the CLI shows: with no
argument /vxswitch/pmd_stats lists every PMD (keyed by core id), and the
PMD, port, pool and conntrack replies have every key the CLI's --json
has (pmd-stats-show, show, dpctl/ct-stats-show), with the same values
where they cannot move between the two reads."""

import json
import subprocess

TELEMETRY = "/usr/bin/dpdk-telemetry.py"
LCORES = "0,(1-3)@1"        # three PMD lcores, all on CPU 1
PMD_CORES = [1, 2, 3]
# counters that move while the switch idles (cycles, loop counts)
MOVING = {"busy_cycles", "idle_cycles", "iterations", "sleeps", "polls",
          "polls_empty",
          "sleep_cycles", "upcall_cycles", "tsc_hz"}


def telemetry(prefix, *cmds):
    """The reply of each command, through Debian's client."""
    r = subprocess.run([TELEMETRY, "-f", prefix], input="\n".join(cmds),
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r
    lines = [json.loads(line) for line in r.stdout.splitlines()
             if line.startswith("{")]
    replies = [line for line in lines if "version" not in line]
    assert len(replies) == len(cmds), r.stdout
    return [rep[c.split(",")[0]] for rep, c in zip(replies, cmds)]


def topology(rundir):
    return {"eal": {"memory-mb": 256, "lcores": LCORES},
            "datapath": {"pmd-cores": PMD_CORES},
            "ports": [{"name": "vm0", "type": "dpdkvhostuser",
                       "path": str(rundir / "vm0.sock")}]}


def cli_pmd_counters(pmd):
    """pmd-stats-show --json's counters of one PMD, as telemetry names
    them (drops flattened to drop_<reason>); not its ratios (telemetry.c
    says why)."""
    out = {k: v for k, v in pmd.items()
           if k not in ("drops", "accounting", "cycles_per_packet")}
    out.update({"drop_" + k: v for k, v in pmd["drops"].items()})
    out["dropped"] = pmd["accounting"]["dropped"]
    out["in_flight"] = pmd["accounting"]["in_flight"]
    return out


def test_telemetry_every_pmd_and_cli_counter(make_switch, rundir):
    sw = make_switch(topology(rundir))
    pmds, every, one, port, pool, ct = telemetry(
        sw.prefix, "/vxswitch/pmds", "/vxswitch/pmd_stats",
        "/vxswitch/pmd_stats,2", "/vxswitch/port_stats,vm0",
        "/vxswitch/mempool", "/vxswitch/ct_stats")
    cli = sw.ctl("dpif-netdev/pmd-stats-show", json=True)
    show = sw.show()

    assert pmds == PMD_CORES
    assert sorted(every) == [str(c) for c in PMD_CORES]
    for pmd in cli:
        want = cli_pmd_counters(pmd)
        got = every[str(pmd["core"])]
        assert set(got) == set(want) | {"mbufs_in_use"}, \
            set(got) ^ set(want)
        assert {k: v for k, v in got.items() if k in want
                and k not in MOVING} == \
            {k: v for k, v in want.items() if k not in MOVING}
    assert one["core"] == 2 and set(one) == set(every["2"])

    cli_port = show["ports"][0]
    assert set(port) == set(cli_port), set(port) ^ set(cli_port)
    assert port == {k: int(v) if isinstance(v, bool) else v
                    for k, v in cli_port.items()}
    assert port["capture"] == "net_null_vm0"
    assert pool == show["mempool"]
    assert ct == sw.ctl("dpctl/ct-stats-show", json=True)
