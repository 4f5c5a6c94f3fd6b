# SPDX-License-Identifier: BSD-3-Clause
"""ct_label on the real-TCP rig (issue 12, item 3): ct_label=V/M matches
and ct(commit,exec(set_field:V->ct_label)) run, the label carried into
the recirculated pass as one bit per ct_label predicate of the rules
(app/ofproto/ct_label_pred.h). Asserted:
  - vm1's connections are committed with label 0x1, vm2's without; the
    ingress table passes only replies of labelled sessions: vm1's ping
    and TCP transfer (sha256) work, vm2's replies are dropped
    (rule_drop), dump-conntrack shows labels=0x1 on vm1's sessions only,
    dump-flows shows the ct_label(0x1/0x1) and ct_label(0/0x1) megaflows
    and the ct(commit,...,label=0x1/...) action, limits/show counts one
    predicate;
  - as OVN's ct_label.blocked / Neutron after a rule change: rules added
    under live connections mark vm1's sessions with exec(set_field:0x1->
    ct_label) and drop ct_label=0x1/0x1, so vm1's open TCP session stops
    (its packets dropped) while vm2's goes on; the session shows
    labels=0x1;
  - every packet received ends in one counter (the rig's teardown).
"""

import re
import time

import pytest

from vxswitch_tools import netns_apps as apps
from vxswitch_tools import netns_rig
from vxswitch_tools.netns_rig import OUT_IP, tunnel_actions

TUNNEL = tunnel_actions()


def base_flows(label_vm1):
    """Egress from a VM: ct(table=1); from the tunnel: ct(table=2). New
    connections are committed (vm1's with label 0x1 when label_vm1),
    established ones go out; replies pass in table 2."""
    commit1 = ("ct(commit,zone=1,exec(set_field:0x1->ct_label))"
               if label_vm1 else "ct(commit,zone=1)")
    return [
        "table=0,priority=100,arp,arp_tpa=192.1.0.11,actions=output:vm1",
        "table=0,priority=100,arp,arp_tpa=192.1.0.12,actions=output:vm2",
        "table=0,priority=90,arp,actions=" + TUNNEL,
        "table=0,priority=50,ip,in_port=vm1,actions=ct(table=1,zone=1)",
        "table=0,priority=50,ip,in_port=vm2,actions=ct(table=1,zone=1)",
        "table=0,priority=50,ip,in_port=vxlan,actions=ct(table=2,zone=1)",
        "table=0,priority=0,actions=drop",
        "table=1,priority=100,ct_state=+trk+new,ip,in_port=vm1,actions="
        + commit1 + "," + TUNNEL,
        "table=1,priority=100,ct_state=+trk+new,ip,in_port=vm2,actions="
        "ct(commit,zone=1)," + TUNNEL,
        "table=1,priority=50,ct_state=+trk+est,ip,actions=" + TUNNEL,
        "table=1,priority=0,actions=drop",
    ]


def reply_flows(label=None):
    """Table 2: replies to the VMs; with label, only those of sessions
    whose label matches it."""
    match = ",ct_label=%s" % label if label else ""
    return ["table=2,priority=100,ct_state=+trk+est+rpl%s,ip,"
            "nw_dst=192.1.0.%d,actions=output:vm%d" % (match, 10 + i, i)
            for i in (1, 2)] + ["table=2,priority=0,actions=drop"]


@pytest.fixture
def rig(request, make_switch):
    yield from netns_rig.for_test(request, make_switch)


def conns(rig, src):
    return [l for l in rig.sw.ctl("dpctl/dump-conntrack", "zone=1")
            .splitlines() if "src=%s," % src in l]


def test_labelled_sessions_pass(rig):
    rig.load_flows(base_flows(label_vm1=True) + reply_flows("0x1/0x1"))
    vm1, vm2 = rig.vm(1), rig.vm(2)
    p = apps.ping(vm1.ns, OUT_IP, count=3)
    assert p["received"] == 3, p["output"]
    assert apps.tcp_transfer(vm1.ns, rig.out_ns, OUT_IP, 256 * 1024,
                             direction="download")
    before = rig.drops().get("rule_drop", 0)
    p = apps.ping(vm2.ns, OUT_IP, count=3, wait=1)
    assert p["received"] == 0, p["output"]
    assert apps.tcp_connect(vm2.ns, OUT_IP, 5009)["result"] == "timeout"
    # 3 echo replies, the SYN-ACK and its retransmits
    assert rig.drops().get("rule_drop", 0) >= before + 4, rig.drops()

    mine, theirs = conns(rig, vm1.ip), conns(rig, vm2.ip)
    assert mine and all(",labels=0x1" in l for l in mine), mine
    assert theirs and not any("labels=" in l for l in theirs), theirs
    # OVS's key order: the ct fields, then recirc_id and in_port
    text = rig.sw.ctl("dpctl/dump-flows", "--names")
    assert re.search(r"ct_state\([^)]*\),ct_label\(0x1/0x1\),"
                     r"recirc_id\(0x[0-9a-f]+\),in_port\(vxlan\),.*"
                     r"actions:vm1", text), text
    assert re.search(r"ct_label\(0/0x1\),recirc_id\([^)]*\),"
                     r"in_port\(vxlan\).*actions:drop", text), text
    assert "ct(commit,zone=1,label=0x1/0x%s)" % ("f" * 32) in text, text
    lim = rig.sw.ctl("limits/show", json=True)["ct-labels"]
    assert lim["entries"] == 1 and lim["refused"] == 0, lim


def test_rule_change_blocks_connection(rig):
    """OVN's ct_label.blocked (bit 0), as its ACLs write it: a connection
    the new rules no longer allow gets the label on its next packet and
    is dropped from then on, both ways; the other VM's goes on."""
    rig.load_flows(base_flows(label_vm1=False) + reply_flows())
    vm1, vm2 = rig.vm(1), rig.vm(2)
    with apps.TcpSession(vm1.ns, rig.out_ns, OUT_IP, port=5002) as s1, \
            apps.TcpSession(vm2.ns, rig.out_ns, OUT_IP, port=5004) as s2:
        assert s1.connected and s2.connected, (s1.error, s2.error)
        assert s1.send(2000) and s2.send(2000)
        assert not any("labels=" in l for l in conns(rig, vm1.ip))
        for flow in [
                # vm1's rule is gone: its sessions are marked blocked...
                "table=1,priority=90,ct_state=+trk+est,ip,in_port=vm1,"
                "actions=ct(commit,zone=1,exec(load:0x1->"
                "NXM_NX_CT_LABEL[0]))",
                # ...and what is blocked drops, both ways
                "table=1,priority=95,ct_state=+trk+est,ct_label=0x1/0x1,"
                "ip,actions=drop",
                "table=2,priority=110,ct_state=+trk+est,ct_label=0x1/0x1,"
                "ip,actions=drop"]:
            rig.sw.ctl("add-flow", flow)
        time.sleep(0.3)          # published, megaflows revalidated
        before = rig.drops().get("rule_drop", 0)
        with pytest.raises(AssertionError, match="no output within"):
            s1.send(500, timeout=3)      # nothing comes back
        assert s2.send(2000)
        mine = [l for l in conns(rig, vm1.ip) if "dport=5002" in l]
        assert len(mine) == 1 and ",labels=0x1" in mine[0], mine
        theirs = [l for l in conns(rig, vm2.ip) if "dport=5004" in l]
        assert len(theirs) == 1 and "labels=" not in theirs[0], theirs
        assert rig.drops().get("rule_drop", 0) > before, rig.drops()
        text = rig.sw.ctl("dpctl/dump-flows", "--names")
        # the retransmits of the blocked session: a recirculated pass
        # matching the label predicate, dropped
        assert re.search(r"ct_state\([^)]*\),ct_label\(0x1/0x1\),"
                         r"recirc_id\([^)]*\),in_port\(vm1\),.*drop",
                         text), text
