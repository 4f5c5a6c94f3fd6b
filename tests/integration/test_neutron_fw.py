# SPDX-License-Identifier: BSD-3-Clause
"""A Neutron "openvswitch firewall driver" rule set, unchanged in its
shape (issue 12, "What to build" 3): policies/neutron_fw.flows, with
Neutron's tables, reg5 (port) and reg6 (network = conntrack zone 644)
loaded before ct(table=72|82,zone=NXM_NX_REG6[0..15]), ct_mark=0x1
drops and ct(commit,exec(set_field:0x1->ct_mark)) marking, on the
real-TCP rig. Asserted:
  - what the VM opens works both ways (TCP with sha256 at both ends,
    ping), in zone 644 taken from reg6; the recirculated passes resume
    with reg5/reg6 (their rules match reg5) under allocated recirc ids,
    one per frozen state, that limits/show counts and that go when the
    megaflows go;
  - what the outside opens is refused, except vm1's group's one ingress
    rule (TCP 8022 to vm1): sha256 transfer through it;
  - vm2's remote-group rule, as Neutron writes it with conjunction()
    and conj_id (TCP 8023 from vm1's group): vm1 -> vm2:8023 transfers
    (sha256), the outside -> vm2:8023 and vm1 -> vm2:8024 are dropped;
  - the same verdicts as the sg() policy (sg_allow_egress.flows) and
    the ct() policy with constant zones (ct_allow_egress.flows) on the
    same probes;
  - a connection whose rule is deleted is marked ct_mark=1 by the
    driver's exec(set_field:0x1->ct_mark) flow (dump-conntrack shows
    mark=1) and then dropped by its ct_mark=0x1 flows;
  - ovs-ofctl -O OpenFlow13 parse-flows prints the file as we do;
  - every packet received ends in one counter (the rig's teardown).
"""

import pathlib
import re
import shutil
import subprocess
import time

import pytest

from vxswitch_tools import netns_apps as apps
from vxswitch_tools import netns_rig
from vxswitch_tools.netns_rig import OUT_IP

POLICIES = pathlib.Path(__file__).with_name("policies")
POLICY = POLICIES / "neutron_fw.flows"
MB = 1024 * 1024
ZONE = 644                       # reg6 = 0x284
ALLOWED_PORT = 8022              # table 82's one ingress rule, to vm1
GROUP_PORT = 8023                # vm2's, from vm1's group (conjunction)


@pytest.fixture
def rig(request, make_switch):
    yield from netns_rig.for_test(request, make_switch, policy=POLICY)


def conns(rig, *args):
    return [l for l in rig.sw.ctl("dpctl/dump-conntrack", *args)
            .splitlines() if l]


def recirc_ids(rig):
    return set(re.findall(r"recirc\((0x[0-9a-f]+)\)",
                          rig.sw.ctl("dpctl/dump-flows")))


def limits_recirc(rig):
    return rig.sw.ctl("limits/show", json=True)["recirc-ids"]


def verdicts(rig):
    """Pass (True) or not for one probe of each kind; a TCP connect to a
    port nobody listens on passes when its RST comes back."""
    vm1, vm2, out = rig.vm(1), rig.vm(2), rig.out_ns
    rig.sw.ctl("dpctl/flush-conntrack")

    def tcp(ns, ip, port):
        return apps.tcp_connect(ns, ip, port, timeout=1.5)["result"] \
            == "refused"
    return {
        "ping vm1->out": apps.ping(vm1.ns, OUT_IP, count=2,
                                   interval=0.1)["received"] == 2,
        "tcp vm1->out": tcp(vm1.ns, OUT_IP, 5601),
        "udp vm1->out": apps.udp_echo(vm1.ns, out, OUT_IP, count=3,
                                      timeout=0.5)["received"] == 3,
        "ping out->vm1": apps.ping(out, vm1.ip, count=2, interval=0.1,
                                   wait=1)["received"] > 0,
        "tcp out->vm1": tcp(out, vm1.ip, 5602),
        "tcp out->vm2": tcp(out, vm2.ip, 5603),
        "ping vm1->vm2": apps.ping(vm1.ns, vm2.ip, count=2, interval=0.1,
                                   wait=1)["received"] > 0,
        "tcp vm1->vm2": tcp(vm1.ns, vm2.ip, 5604),
    }


def test_egress_ingress_and_same_verdicts(rig):
    vm = rig.vm(1)
    out = rig.out_ns
    assert apps.ping(vm.ns, OUT_IP, count=3)["received"] == 3
    assert apps.tcp_transfer(vm.ns, out, OUT_IP, 2 * MB,
                             direction="download")
    assert apps.tcp_transfer(vm.ns, out, OUT_IP, 2 * MB, direction="upload")
    # the zone is reg6's value, 644
    dump = conns(rig, "zone=%d" % ZONE)
    assert any(l.startswith("tcp,orig=(src=%s,dst=%s" % (vm.ip, OUT_IP))
               for l in dump), dump
    text = rig.sw.ctl("dpctl/dump-flows")
    assert "ct(zone=%d),recirc(" % ZONE in text, text
    assert "ct(commit,zone=%d)" % ZONE in text, text
    # one frozen state per (table, reg5, reg6, in_port) so far: vm1's
    # egress (72) and vm1's ingress from the tunnel (82)
    ids = recirc_ids(rig)
    assert len(ids) == 2, (ids, text)
    lim = limits_recirc(rig)
    assert lim["entries"] == 2 and lim["limit"] == 255 and \
        lim["refused"] == 0, lim
    assert rig.drops().get("recirc_limit", 0) == 0, rig.drops()

    # the outside opens: refused, but for the group's ingress rule
    c = apps.tcp_connect(out, vm.ip, 5555, timeout=1.5)
    assert c["result"] == "timeout", c
    assert apps.tcp_transfer(out, vm.ns, vm.ip, 1 * MB, port=ALLOWED_PORT,
                             direction="upload")
    assert apps.tcp_transfer(out, vm.ns, vm.ip, 1 * MB, port=ALLOWED_PORT,
                             direction="download")
    c = apps.tcp_connect(out, rig.vm(2).ip, ALLOWED_PORT, timeout=1.5)
    assert c["result"] == "timeout", c     # the rule is vm1's only

    # the remote-group rule: a conjunction of source address and port
    vm2 = rig.vm(2)
    assert apps.tcp_transfer(vm.ns, vm2.ns, vm2.ip, 512 * 1024,
                             port=GROUP_PORT, direction="upload")
    for ns, port in ((out, GROUP_PORT), (vm.ns, GROUP_PORT + 1)):
        c = apps.tcp_connect(ns, vm2.ip, port, timeout=1.5)
        assert c["result"] == "timeout", (ns, port, c)

    ours = verdicts(rig)
    want = {"ping vm1->out": True, "tcp vm1->out": True,
            "udp vm1->out": True, "ping out->vm1": False,
            "tcp out->vm1": False, "tcp out->vm2": False,
            "ping vm1->vm2": False, "tcp vm1->vm2": False}
    assert ours == want
    for other in ("ct_allow_egress.flows", "sg_allow_egress.flows"):
        rig.load_flows(POLICIES / other)
        assert verdicts(rig) == ours, other

    # sg() does not recirculate, and the ct() policy's megaflows went
    # with its rules (load_flows flushes them): so did their ids
    assert limits_recirc(rig)["entries"] == 0, limits_recirc(rig)


def test_removed_rule_marks_connection(rig):
    """Neutron's way of ending connections a rule no longer allows: the
    next packet of one meets ct(commit,exec(set_field:0x1->ct_mark)),
    its session gets mark=1, and the ct_mark=0x1 flows drop it."""
    vm = rig.vm(1)
    with apps.TcpSession(rig.out_ns, vm.ns, vm.ip,
                         port=ALLOWED_PORT) as s:
        assert s.connected, s.error
        assert s.send(2000)
        mine = [l for l in conns(rig, "zone=%d" % ZONE)
                if "dport=%d" % ALLOWED_PORT in l]
        assert len(mine) == 1 and ",mark=" not in mine[0], mine
        for prio_state in ("+est-rel-rpl", "+new-est"):
            rig.sw.ctl("del-flows", "--strict",
                       "table=82,priority=77,ct_state=%s,tcp,reg5=0x1,"
                       "tp_dst=%d" % (prio_state, ALLOWED_PORT))
        time.sleep(0.3)        # the snapshot is published, megaflows redone
        before = rig.drops().get("rule_drop", 0)
        with pytest.raises(AssertionError, match="no output within"):
            s.send(500, timeout=3)       # nothing comes back
        mine = [l for l in conns(rig, "zone=%d" % ZONE)
                if "dport=%d" % ALLOWED_PORT in l]
        assert len(mine) == 1 and ",mark=1" in mine[0], mine
        assert rig.drops().get("rule_drop", 0) > before, rig.drops()
        text = rig.sw.ctl("dpctl/dump-flows", "--names")
        # the marking megaflow, and the retransmits' (table 82's
        # ct_mark=0x1 -> 93): a recirculated pass matching the mark
        assert "ct(commit,zone=%d,mark=0x1/0xffffffff)" % ZONE in text, text
        assert re.search(r"ct_mark\(0x1\),recirc_id\(0x[0-9a-f]+\),"
                         r"in_port\(vxlan\).*drop", text), text


@pytest.mark.skipif(shutil.which("ovs-ofctl") is None,
                    reason="ovs-ofctl (openvswitch-common) not installed")
def test_policy_parses_as_ovs_ofctl(build_dir, tmp_path):
    """The whole file, port names as numbers (ovs-ofctl has no switch to
    ask), printed byte for byte as `ovs-ofctl -O OpenFlow13 parse-flows`
    does. One known spelling difference is normalised: vxswitch prints
    set_tunnel:0x3e9 (OpenFlow 1.0's name), OVS under OpenFlow 1.3 the
    same action as set_field:0x3e9->tun_id."""
    text = POLICY.read_text()
    for name, num in (("vm1", "1"), ("vm2", "2"), ("vxlan", "3")):
        text = re.sub(r"\b%s\b" % name, num, text)
    flows = tmp_path / "neutron_fw.flows"
    flows.write_text(text)
    tool = pathlib.Path(build_dir) / "tests" / "unit" / "ofctl_format_tool"
    ours = subprocess.run([str(tool), str(flows)], capture_output=True,
                          text=True, check=True).stdout.splitlines()
    ours = [re.sub(r"set_tunnel:(0x[0-9a-f]+)", r"set_field:\1->tun_id", l)
            for l in ours]
    out = subprocess.run(["ovs-ofctl", "-O", "OpenFlow13", "parse-flows",
                          str(flows)], capture_output=True, text=True,
                         check=True).stdout
    theirs = [l.split(": ADD ", 1)[1] for l in out.splitlines()
              if ": ADD " in l]
    n_rules = sum(1 for l in text.splitlines() if l and l[0] != "#")
    assert len(theirs) == len(ours) == n_rules
    assert ours == theirs
