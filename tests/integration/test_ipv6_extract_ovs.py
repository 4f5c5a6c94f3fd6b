# SPDX-License-Identifier: BSD-3-Clause
"""vxswitch's IPv6 flow extract against OVS's, frame by frame.

tests/vectors/ipv6_extract.txt holds IPv6 frames (gen_ipv6_packets.py:
TCP, UDP, ICMPv6 echo and errors, every Neighbour Discovery message with
its options, odd ones included, MLD behind hop-by-hop, extension-header
chains, AH, first, later and atomic fragments, VLAN); ipv6_extract.expected
is what Debian's ovs-vswitchd 3.1 extracted from each
(tests/integration/ovs_ref/make-ipv6-extract-ref.sh, ofproto/trace's
"Flow:"). build/tests/unit/extract_tool runs vxswitch's miniflow_extract
on the same frames; every field both have must be equal: dl_type, VLAN,
MACs, addresses, label, next header, traffic class (DSCP), hop limit,
fragment state, ports / ICMPv6 type and code, ND target and link-layer
addresses. What OVS has and vxswitch's key does not (nw_ecn, tcp_flags,
SCTP ports) is left out.
"""
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
FRAMES = ROOT / "tests" / "vectors" / "ipv6_extract.txt"
OVS = ROOT / "tests" / "vectors" / "ipv6_extract.expected"

# OVS's protocol shorthands: (dl_type, nw_proto or None)
SHORTHANDS = {"ipv6": ("0x86dd", None), "tcp6": ("0x86dd", "6"),
              "udp6": ("0x86dd", "17"), "icmp6": ("0x86dd", "58"),
              "sctp6": ("0x86dd", "132")}
RENAMED = {"icmp_type": "tp_src", "icmp_code": "tp_dst"}
# absent from a flow text: zero
DEFAULTS = {"tp_src": "0", "tp_dst": "0", "nd_target": "::",
            "nd_sll": "00:00:00:00:00:00", "nd_tll": "00:00:00:00:00:00"}
NOT_IN_OUR_KEY = {"in_port", "nw_ecn", "tcp_flags", "vlan_tci1"}


def ovs_fields(flow):
    tokens = flow.split(",")
    dl_type, proto = SHORTHANDS[tokens[0]]
    f = dict(DEFAULTS, dl_type=dl_type)
    if proto:
        f["nw_proto"] = proto
    for t in tokens[1:]:
        k, v = t.split("=", 1)
        if k not in NOT_IN_OUR_KEY:
            f[RENAMED.get(k, k)] = v
    if f.get("nw_proto") == "132":     # SCTP: not parsed by vxswitch
        f["tp_src"] = f["tp_dst"] = "0"
    return f


def ours_fields(text):
    return dict(t.split("=", 1) for t in text.split(","))


def test_ipv6_extract_equals_ovs(build_dir):
    tool = pathlib.Path(build_dir) / "tests" / "unit" / "extract_tool"
    out = subprocess.run([str(tool), str(FRAMES)], capture_output=True,
                         text=True, check=True).stdout
    ours = dict(line.split(" ", 1) for line in out.splitlines())
    theirs = dict(line.split(" ", 1) for line in OVS.read_text().splitlines()
                  if not line.startswith("#"))
    names = [line.split()[0] for line in FRAMES.read_text().splitlines()]
    assert len(names) >= 30 and sorted(names) == sorted(theirs)
    bad = []
    for name in names:
        assert ours[name] != "malformed", name
        mine, ovs = ours_fields(ours[name]), ovs_fields(theirs[name])
        diff = {k: (mine.get(k), ovs.get(k)) for k in set(mine) | set(ovs)
                if mine.get(k) != ovs.get(k)}
        if diff:
            bad.append((name, diff))
    assert not bad, bad
