# SPDX-License-Identifier: BSD-3-Clause
"""add-flow / mod-flows / del-flows against ovs-vswitchd's own answers.

tests/integration/ovs_ref/flowmod/steps.txt is replayed through
vxswitch-ctl (add-flow, mod-flows [--strict], del-flows [--strict]), each
step followed by `dump-flows --no-stats`, and compared with
flowmod/reference.txt, which make-ovs-ref-flowmod.sh made with Debian's
ovs-vswitchd 3.1 (userspace datapath) and `ovs-ofctl -O OpenFlow15`: the
same rules after every step (sorted, as the script sorts them), the same
exit status, and a refusal naming the same OpenFlow error
(OFPFMFC_OVERLAP). Ports: p1 and p2 are OpenFlow ports 1 and 2 on both;
vxswitch prints their names, OVS (--no-names) their numbers.

Also: a full table refused (a replacing add still taken); check_overlap
within one add-flows batch; flags and importance in --json and through
save-config.
"""
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
STEPS = HERE / "ovs_ref" / "flowmod" / "steps.txt"
REFERENCE = HERE / "ovs_ref" / "flowmod" / "reference.txt"


def topology(rundir, max_flows=None):
    topo = {"eal": {"memory-mb": 256},
            "datapath": {"pmd-cores": [1]},
            "ports": [{"name": "p1", "type": "dpdkvhostuser",
                       "path": str(Path(rundir) / "p1.sock"),
                       "ofport": 1},
                      {"name": "p2", "type": "dpdkvhostuser",
                       "path": str(Path(rundir) / "p2.sock"),
                       "ofport": 2}]}
    if max_flows:
        topo["datapath"]["max-flows"] = max_flows
    return topo


def reference():
    """[(step line, [output lines], exit, [rules])] from reference.txt"""
    steps = []
    for line in REFERENCE.read_text().splitlines():
        if line.startswith("## "):
            steps.append([line[3:], [], None, []])
        elif line.startswith("exit "):
            steps[-1][2] = int(line.split()[1])
        elif line.startswith(" "):
            steps[-1][3].append(line)
        else:
            steps[-1][1].append(line)
    return steps


def ours(sw):
    out = sw.ctl("dump-flows", "--no-stats")
    out = re.sub(r"output:p([12])\b", r"output:\1", out)
    return sorted(l for l in out.splitlines() if l.startswith(" "))


def test_same_as_ovs_vswitchd(make_switch, rundir):
    sw = make_switch(topology(rundir))
    sw.ctl("del-flows")
    steps = reference()
    lines = [l for l in STEPS.read_text().splitlines()
             if l and not l.startswith("#")]
    assert [s[0] for s in steps] == lines, "reference.txt is stale"
    for line, output, status, want in steps:
        words = line.split()
        r = sw.ctl_result(*words)
        got_status = 0 if r.returncode == 0 else 1
        assert got_status == status, (line, r.stdout, r.stderr)
        for err in re.findall(r"OFPFMFC_\w+", "\n".join(output)):
            assert err in r.stdout + r.stderr, (line, r.stdout, r.stderr)
        assert ours(sw) == want, line


def test_table_full_and_state(make_switch, rundir, tmp_path):
    sw = make_switch(topology(rundir, max_flows=4))
    sw.ctl("del-flows")
    for i in range(4):
        sw.ctl("add-flow", "priority=%d,send_flow_rem,importance=%d,ip,"
               "actions=drop" % (i, i + 1))
    # a replacing add is not a new rule: the full table takes it
    sw.ctl("add-flow", "priority=3,ip,reset_counts,actions=output:1")
    r = sw.ctl_result("add-flow", "priority=9,ip,actions=drop")
    assert r.returncode == 1
    assert "flow table full" in r.stdout + r.stderr
    lim = sw.ctl("limits/show", json=True)["flows"]
    assert (lim["entries"], lim["limit"], lim["refused"]) == (4, 4, 1), lim
    dump = ours(sw)
    assert " reset_counts priority=3,ip actions=output:1" in dump, dump
    assert " send_flow_rem importance=1, priority=0,ip actions=drop" \
        in dump, dump
    js = sw.ctl("dump-flows", json=True)
    flags = {j["priority"]: (j["flags"], j["importance"]) for j in js}
    assert flags[3] == (["reset_counts"], 0) and \
        flags[1] == (["send_flow_rem"], 2), flags
    # check_overlap against an earlier rule of the same batch: the batch
    # refused whole, naming the line
    sw.ctl("del-flows", "--strict", "priority=0,ip")
    r = sw.ctl_result("add-flows", "-", input="priority=50,ip,actions=drop\n"
                      "priority=50,tcp,check_overlap,actions=drop\n")
    assert r.returncode == 1 and "(stdin):2: OFPFMFC_OVERLAP" in r.stdout + \
        r.stderr, r
    assert "priority=50" not in "".join(ours(sw))
    # save-config writes the flags back as add-flow takes them
    saved = tmp_path / "saved.yaml"
    sw.ctl("save-config", str(saved))
    text = saved.read_text()
    assert "send_flow_rem,importance=2,priority=1,ip" in text, text
    assert "reset_counts,priority=3,ip" in text, text
