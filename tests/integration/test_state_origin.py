# SPDX-License-Identifier: BSD-3-Clause
"""The configuration a user last wrote wins, or the start stops and says
why (issue 24, item 4; app/config/state_origin.h).

  recorded        the state file names its topology and the SHA-256 of
                  the topology's bytes at start
  same content    the topology rewritten with the same bytes, and touched:
                  the state file is restored, as before
  edited          the topology edited after a run-time change: the start,
                  and --check, refuse with exit 5, naming both files and
                  --reset-state, --keep-state, --no-state; nothing moved;
                  also when edited while the switch ran, the state file
                  written after the edit (by content, not time)
  --reset-state   the edited topology's flows run, the old state file is
                  kept under <state>.<UTC time>; the next change writes a
                  state file of the new topology, restored on a plain start
  --keep-state    the state file's flows run, not the edit; the state file
                  then records this topology, so a plain start restores it
  older file      a state file with no digest is restored with a warning
                  naming both files, then records this topology
"""

import hashlib
import os
import re
import subprocess
from pathlib import Path

from vxswitch_tools import harness as vxlib
from vxswitch_tools import packets as P

OLD_RULE = "priority=300,cookie=0x77,in_port=vxlan,actions=drop"
NEW_RULE = "priority=400,cookie=0x99,in_port=vxlan,actions=drop"
STATE_STALE = 5


def run(config, *args):
    return subprocess.run([str(vxlib.find_binary("vxswitch")), "--config",
                           str(config), *args], capture_output=True,
                          text=True, timeout=30, stdin=subprocess.DEVNULL)


def wait_state(path, *needles):
    def ok():
        return (path.exists() and
                all(s in path.read_text() for s in needles))
    vxlib.wait_for(ok, 5.0, 0.05, what="%s to hold %s" % (path, needles))


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def cookies(sw):
    return set(re.findall(r"cookie=(0x[0-9a-f]+)", sw.ctl("dump-flows")))


def switch_with_change(make_switch, rundir):
    """A switch on a topology, a run-time add-flow written to the state
    file, stopped: (switch, state path)."""
    topo = P.topology("net_null0,no-rx=1", rundir, n_vms=0, static_arp=False)
    topo["flows"] = ["priority=10,cookie=0x10,in_port=vxlan,actions=drop"]
    sw = make_switch(topo)
    state = Path(str(sw.config_path) + ".state")
    sw.ctl("add-flow", OLD_RULE)
    wait_state(state, "cookie=0x77")
    assert sw.stop() == 0
    return sw, state


def edit_topology(sw):
    """The user's edit: one more flow in the topology file."""
    sw.topology["flows"].append(NEW_RULE)
    return sw.write_config()


def assert_refused(r, config, state):
    assert r.returncode == STATE_STALE, (r.returncode, r.stdout, r.stderr)
    err = r.stderr
    assert "the topology %s changed after the state file %s was written" \
        % (config, state) in err, err
    for opt in ("--reset-state", "--keep-state", "--no-state"):
        assert opt in err, (opt, err)


def test_state_records_topology_and_same_content_restores(make_switch,
                                                          rundir):
    sw, state = switch_with_change(make_switch, rundir)
    text = state.read_text()
    assert "# topology-sha256: %s\n" % sha256(sw.config_path) in text, text
    assert "# topology: %s\n" % os.path.realpath(sw.config_path) in text

    # the harness rewrites the topology with the same bytes; then touched
    os.utime(sw.config_path, (1e9, 1e9))
    r = run(sw.config_path, "--check")
    assert r.returncode == 0, r.stderr
    assert "%s: a start restores it" % state in r.stdout, r.stdout
    sw.start()
    assert "restoring running state from %s" % state in sw.log_tail(40)
    assert {"0x10", "0x77"} <= cookies(sw)


def test_edited_topology_refused_then_reset(make_switch, rundir):
    sw, state = switch_with_change(make_switch, rundir)
    config = edit_topology(sw)
    before = (state.read_bytes(), state.stat().st_mtime_ns)
    for extra in ([], ["--check"]):
        assert_refused(run(config, *extra), config, state)
    # --check with a choice: what a start would do, nothing moved
    r = run(config, "--check", "--keep-state")
    assert r.returncode == 0, r.stderr
    r = run(config, "--check", "--reset-state")
    assert r.returncode == 0, r.stderr
    assert "moves it aside" in r.stdout, r.stdout
    assert (state.read_bytes(), state.stat().st_mtime_ns) == before

    # --reset-state: the edited topology runs, the old state is kept aside
    sw.args = ["--reset-state"]
    sw.start()
    got = cookies(sw)
    assert "0x99" in got and "0x77" not in got, got
    assert not state.exists()
    aside = [p for p in state.parent.iterdir()
             if re.fullmatch(re.escape(state.name) + r"\.\d{8}T\d{6}Z",
                             p.name)]
    assert len(aside) == 1, list(state.parent.iterdir())
    assert aside[0].read_bytes() == before[0]
    assert "moved aside to %s" % aside[0] in sw.log_tail(40)

    # the next change records the new topology; a plain start restores it
    sw.ctl("add-flow", "priority=500,cookie=0x55,in_port=vxlan,actions=drop")
    wait_state(state, "cookie=0x55", sha256(config))
    assert sw.stop() == 0
    sw.args = []
    sw.start()
    assert {"0x10", "0x99", "0x55"} <= cookies(sw)
    assert "0x77" not in cookies(sw)


def test_topology_edited_while_running(make_switch, rundir):
    """Content, not time: the topology edited while the switch runs, a
    run-time change after the edit (the state file is newer than the
    topology); the state still came from the topology as it started."""
    topo = P.topology("net_null0,no-rx=1", rundir, n_vms=0, static_arp=False)
    sw = make_switch(topo)
    state = Path(str(sw.config_path) + ".state")
    config = edit_topology(sw)
    sw.ctl("add-flow", OLD_RULE)
    wait_state(state, "cookie=0x77")
    assert sw.stop() == 0
    assert state.stat().st_mtime_ns >= config.stat().st_mtime_ns
    assert_refused(run(config), config, state)
    assert_refused(run(config, "--check"), config, state)


def test_edited_topology_keep_state(make_switch, rundir):
    sw, state = switch_with_change(make_switch, rundir)
    config = edit_topology(sw)
    sw.args = ["--keep-state"]
    sw.start()
    got = cookies(sw)
    assert "0x77" in got and "0x99" not in got, got
    assert "--keep-state: restoring the state file %s" % state \
        in sw.log_tail(40)
    # the state file now records this topology, with no change made
    wait_state(state, "# topology-sha256: %s" % sha256(config))
    assert sw.stop() == 0
    sw.args = []
    r = run(config, "--check")
    assert r.returncode == 0, r.stderr
    sw.start()
    assert "0x77" in cookies(sw)


def test_older_state_file_restored_with_warning(make_switch, rundir):
    sw, state = switch_with_change(make_switch, rundir)
    # as an older vxswitch wrote it: no topology digest
    old = "".join(l for l in state.read_text().splitlines(True)
                  if not l.startswith("# topology"))
    state.write_text(old)
    config = edit_topology(sw)     # not seen: nothing to compare with
    r = run(config, "--check")
    assert r.returncode == 0, r.stderr
    assert "records no topology" in r.stderr, r.stderr
    sw.start()
    log = sw.log_tail(40)
    assert "the state file %s records no topology" % state in log, log
    assert str(config) in log
    got = cookies(sw)
    assert "0x77" in got and "0x99" not in got, got
    wait_state(state, "# topology-sha256: %s" % sha256(config))
