# SPDX-License-Identifier: BSD-3-Clause
"""vxswitch's flow syntax against ovs-ofctl itself (no switch needed).

Every rule of tests/vectors/ofctl_rules.txt - Neutron openvswitch-firewall
style: tables, resubmit, goto_table, load/set_field to registers, ct_state,
ct_zone, ct_mark, ct_label, ct(commit,zone=NXM_NX_REG6[0..15],table=,nat,
exec(...)) - is parsed and printed by vxswitch (build/tests/unit/
ofctl_format_tool) and by `ovs-ofctl -O OpenFlow13 parse-flows`; the texts
must be equal byte for byte. The expected file the C unit test pins is
checked to be what this OVS prints too, so a stale pin cannot pass.

Every rule of tests/vectors/ofctl_fmod.txt (cookie, timeouts, importance,
the flags send_flow_rem, check_overlap, reset_counts, no_packet_counts,
no_byte_counts) the same way, against `-O OpenFlow15` (importance is 1.4's).

Every rule of tests/vectors/ofctl_refused.txt is refused by vxswitch and
by ovs-ofctl: an error, a rule it cannot decode back, or a field it drops
for a missing prerequisite ("normalization changed ofp_match").
"""
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RULES = ROOT / "tests" / "vectors" / "ofctl_rules.txt"
PINNED = ROOT / "tests" / "vectors" / "ofctl_rules.expected"
REFUSED = ROOT / "tests" / "vectors" / "ofctl_refused.txt"
FMOD = ROOT / "tests" / "vectors" / "ofctl_fmod.txt"
FMOD_PINNED = ROOT / "tests" / "vectors" / "ofctl_fmod.expected"


def ovs_lines():
    out = subprocess.run(["ovs-ofctl", "-O", "OpenFlow13", "parse-flows",
                          str(RULES)], capture_output=True, text=True,
                         check=True).stdout
    return [line.split(": ADD ", 1)[1] for line in out.splitlines()
            if ": ADD " in line]


@pytest.mark.skipif(shutil.which("ovs-ofctl") is None,
                    reason="ovs-ofctl (openvswitch-common) not installed")
def test_same_text_as_ovs_ofctl(build_dir):
    tool = pathlib.Path(build_dir) / "tests" / "unit" / "ofctl_format_tool"
    ours = subprocess.run([str(tool), str(RULES)], capture_output=True,
                          text=True, check=True).stdout.splitlines()
    theirs = ovs_lines()
    n_rules = sum(1 for line in RULES.read_text().splitlines()
                  if line and not line.startswith("#"))
    assert len(theirs) == n_rules, "ovs-ofctl refused a vector rule"
    for mine, ovs in zip(ours, theirs):
        assert mine == ovs
    pinned = [line for line in PINNED.read_text().splitlines()
              if not line.startswith("#")]
    assert pinned == theirs


def ovs_verdict(rule, tmp_path):
    """How ovs-ofctl takes one rule: error, undecoded, dropped or ok."""
    one = tmp_path / "one.flows"
    one.write_text(rule + "\n")
    r = subprocess.run(["ovs-ofctl", "-O", "OpenFlow13", "parse-flows",
                        str(one)], capture_output=True, text=True)
    out = r.stdout + r.stderr
    if r.returncode:
        return "error"
    if "decode error" in out:
        return "undecoded"
    if "normalization changed ofp_match" in out:
        return "dropped"
    return "ok"


@pytest.mark.skipif(shutil.which("ovs-ofctl") is None,
                    reason="ovs-ofctl (openvswitch-common) not installed")
def test_refused_as_ovs_ofctl_refuses(build_dir, tmp_path):
    tool = pathlib.Path(build_dir) / "tests" / "unit" / "ofctl_format_tool"
    rules = [line for line in REFUSED.read_text().splitlines()
             if line and not line.startswith("#")]
    ours = subprocess.run([str(tool), str(REFUSED)], capture_output=True,
                          text=True, check=True).stdout.splitlines()
    assert len(ours) == len(rules)
    for rule, mine in zip(rules, ours):
        assert mine.startswith("error: "), (rule, mine)
        assert ovs_verdict(rule, tmp_path) != "ok", rule


@pytest.mark.skipif(shutil.which("ovs-ofctl") is None,
                    reason="ovs-ofctl (openvswitch-common) not installed")
def test_flow_mod_words_as_ovs_ofctl(build_dir):
    tool = pathlib.Path(build_dir) / "tests" / "unit" / "ofctl_format_tool"
    ours = subprocess.run([str(tool), str(FMOD)], capture_output=True,
                          text=True, check=True).stdout.splitlines()
    out = subprocess.run(["ovs-ofctl", "-O", "OpenFlow15", "parse-flows",
                          str(FMOD)], capture_output=True, text=True,
                         check=True).stdout
    theirs = [line.split(": ADD ", 1)[1] for line in out.splitlines()
              if ": ADD " in line]
    n_rules = sum(1 for line in FMOD.read_text().splitlines()
                  if line and not line.startswith("#"))
    assert len(theirs) == n_rules, "ovs-ofctl refused a vector rule"
    assert ours == theirs
    pinned = [line for line in FMOD_PINNED.read_text().splitlines()
              if not line.startswith("#")]
    assert pinned == theirs
