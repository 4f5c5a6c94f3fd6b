# SPDX-License-Identifier: BSD-3-Clause
"""Partial offload as the E810 really behaves (issue 14), on test_offload's
rig (net_af_packet NIC on a veth, testpmd VMs in macswap):

  - the start-up probe picks the group each model profile (ice release)
    takes a MARK rule in (0, 2, 0, 0), logs it, offload/show says it, and
    the flows are then offloaded and marked;
  - an unknown offload-model-profile is a file:line:col error;
  - two tenants' flows to one inner address on two VNIs: ice's duplicate
    key has no VNI, so one is offloaded and the other stays in software as
    a `collision`; both are delivered byte for byte.
"""
import re
import subprocess

import pytest
from scapy.layers.l2 import Ether
from scapy.layers.vxlan import VXLAN

from vxswitch_tools import packets as pktlib
from vxswitch_tools import harness as vxlib
from vxswitch_tools.offload_rig import MODEL, check_offload_show, to_vms


# The group each ice release ends up with (ice-pmd-sources.md s. 1.3),
# and what refuses group 0 there.
PROFILE_GROUP = {"ice-22.11": (0, None),
                 "ice-23.11.0": (2, "Invalid action type"),
                 "ice-23.11.4": (0, None),
                 "ice-26.07": (0, None)}


@pytest.mark.parametrize("profile", list(PROFILE_GROUP))
def test_model_profile_probe(offload_rig_factory, profile):
    """`offload-model-profile: P` on the NIC: the start-up probe finds the
    group ice P takes a MARK rule in (0, 2, 0, 0), logs it and offload/show
    says it with the tunnel port registered; a VM's flow is then offloaded
    with that group and its next frames arrive marked."""
    group, refusal = PROFILE_GROUP[profile]
    rig = offload_rig_factory(1, phy=dict(MODEL, **{"offload-model-profile":
                                                    profile}))
    st = rig.offload()
    why = "FDIR group %d" % group
    if refusal:
        why += " (group 0 refused: %s)" % refusal
    assert (st["engine"], st["model_profile"], st["active"], st["group"],
            st["probe"], st["off_reason"]) == \
        ("model", profile, True, group, why, ""), st
    assert st["tunnel_port"] == {"port": 4789, "registered": True,
                                 "error": ""}, st
    text = rig.sw.ctl("offload/show").splitlines()
    for line in ("  model profile: " + profile, "  " + why,
                 "  tunnel port 4789: registered"):
        assert line in text, (line, text)
    assert "offload: dpdk-phy: " + why in rig.sw.log_tail(400)
    frames, per_vm = to_vms(1, 2, 2)
    rig.wave(frames, len(frames))
    st, _ = rig.wait_installed(1)
    check_offload_show(st, 1)
    _, d = rig.wave(frames, len(frames))
    assert d["pmd"]["mark_hits"] == len(frames), d["pmd"]
    rig.close()


def test_bad_model_profile_is_refused(make_switch, rundir):
    """An unknown profile: --check fails with file:line:col naming it."""
    topo = pktlib.topology("net_null0", rundir, 1)
    topo["ports"][-1].update({"offload": "model",
                              "offload-model-profile": "ice-24.11"})
    sw = make_switch(topo, start=False)
    path = sw.write_config()
    line = 1 + [i for i, ln in enumerate(path.read_text().splitlines())
                if "offload-model-profile" in ln][0]
    r = subprocess.run([str(sw.bin), "--config", str(path), "--check"],
                       capture_output=True, text=True, timeout=30,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert re.fullmatch(
        r"vxswitch: %s:%d:\d+: offload-model-profile is ice-22\.11, "
        r"ice-23\.11\.0, ice-23\.11\.4 or ice-26\.07, not 'ice-24\.11'\n"
        % (re.escape(str(path)), line), r.stderr), r.stderr


VNI_A, VNI_B = 1001, 1002
TENANT_DST = "192.1.0.5"    # one inner address, in two tenants' VNIs


def test_same_inner_dst_on_two_vnis(offload_rig_factory):
    """Tenant A (VNI 1001, VM 0) and tenant B (VNI 1002, VM 1) both use
    192.1.0.5. ice's duplicate key has the inner dst but not the VNI, so
    the NIC can hold a rule for one of them only: A's flow (first) is
    offloaded, B's stays in software counted as `collision` (not
    `exists`: the NIC is never asked); every frame reaches the right VM
    byte for byte, A's marked, B's through the full path."""
    vnis = {0: VNI_A, 1: VNI_B}
    flows = []
    for vm, vni in vnis.items():
        flows += [pktlib.vm_flows(vm, vni)[0],
                  "in_port=vxlan,tun_id=%d,ip,nw_dst=%s,"
                  "actions=output:vhost-user%d" % (vni, TENANT_DST, vm)]

    def edit(topo):
        topo["ports"][-2]["options"]["vnis"] = list(vnis.values())
    rig = offload_rig_factory(2, phy=MODEL, flows=flows, edit=edit)
    inner = {vm: [pktlib.inner_frame(vm, dst_ip=TENANT_DST, sport=41000 + k,
                                     size=78) for k in range(3)]
             for vm in vnis}
    sent = {vm: [pktlib.vxlan_frame(f, sport=50000 + k, vni=vnis[vm])
                 for k, f in enumerate(inner[vm])] for vm in vnis}

    def wave(vms):
        frames = [f for vm in vms for f in sent[vm]]
        back, d = rig.wave(frames, len(frames))
        got = {}
        for b in back:
            p = Ether(b)
            got.setdefault(p[VXLAN].vni, []).append(bytes(p[VXLAN].payload))
        # macswap: each VM returns its inner frames with the MACs swapped
        for vm in vms:
            want = []
            for f in inner[vm]:
                b = bytes(f)
                want.append(b[6:12] + b[0:6] + b[12:])
            assert sorted(got.pop(vnis[vm])) == sorted(want), vm
            vp = d["ports"]["vhost-user%d" % vm]
            assert vp["tx_packets"] == vp["rx_packets"] == len(inner[vm])
        assert not got, got
        assert not any(d["drops"].values()), d["drops"]
        return d

    wave([0])                       # tenant A first: its rule
    rig.wait_installed(1)
    wave([1])
    vxlib.wait_for(lambda: rig.offload()["failed"]["collision"] == 1, 10,
                   0.05, lambda: "a collision: %r" % rig.offload())
    st = rig.offload()
    check_offload_show(st, 1, {"collision": 1})
    assert st["last_failure"]["collision"]["errno"] == 17, st
    assert re.fullmatch(r"ice key held by mark \d+",
                        st["last_failure"]["collision"]["message"]), st
    (a,) = rig.inner(0)
    (b,) = rig.inner(1)
    assert a["offloaded"] and not b["offloaded"], (a, b)
    assert "tun_id=0x3e9" in a["match"] and "tun_id=0x3ea" in b["match"]
    d = wave([0, 1])
    assert d["pmd"]["mark_hits"] == len(sent[0]), d["pmd"]
    check_offload_show(rig.offload(), 1, {"collision": 1})  # not asked again
    text = rig.sw.ctl("offload/show")
    assert re.search(r"^  last collision: errno 17 \(File exists\): ice key "
                     r"held by mark \d+$", text, re.M), text
    rig.close()
