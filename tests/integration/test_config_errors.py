# SPDX-License-Identifier: BSD-3-Clause
"""Errors in what users give vxswitch: topology files, command-line
overrides, and vxswitch-ctl commands.

  topology   every bad file (a one-line variant of a good one written
             here) exits 2 with `file:line[:col]: message 'token'` on
             stderr, and nothing is half-applied: no vhost-user socket, no
             control socket (nor its directory), no DPDK runtime directory,
             no hugepage file. The good file passes --check and, started
             for real, creates exactly those things (so their absence
             means something). A failure after the EAL is up (a device
             that cannot be probed) exits 1 and removes its sockets.
  ctl        bad commands against a running switch exit 1 with a reason
             and change nothing (dump-flows, tnl/arp/show, ovs/route/show,
             megaflows identical before and after); no daemon: exit 2.
"""

import os
import re
import socket
import subprocess

import pytest
import yaml

from vxswitch_tools import harness as vxlib

GOOD = """\
# written by test_config_errors.py
eal:
  lcores: "0-1"
  memory-mb: 64
  file-prefix: {prefix}
  no-pci: true
datapath:
  pmd-cores: [1]
  ctl-socket: {run}/ctl/vxswitch.ctl
underlay:
  port: dpdk-phy
  local-ip: 172.1.0.100/24
  mac: "10:00:00:00:00:01"
  routes:
    - {{prefix: 172.1.0.0/24}}
  arp:
    - {{ip: 172.1.0.0, mac: "10:00:00:00:00:02"}}
ports:
  - name: vhost-user0
    type: dpdkvhostuser
    path: {run}/vhost0.sock
    rxq-affinity: "0:1"
  - name: vhost-user1
    type: dpdkvhostuserclient
    path: {run}/vhost1.sock
  - name: vxlan
    type: vxlan
    options: {{remote_ip: flow, local_ip: flow, key: flow, dst_port: 4789, vnis: [1001]}}
  - name: dpdk-phy
    type: dpdk
    devargs: "net_null0,no-rx=1"
    n-rxq: 1
flows:
  - in_port=vhost-user0,actions=set_tunnel:1001,set_field:172.1.0.0->tun_dst,set_field:172.1.0.100->tun_src,output:vxlan
  - in_port=vxlan,ip,nw_dst=192.1.0.0,actions=output:vhost-user0
  - in_port=vhost-user1,actions=set_tunnel:1001,set_field:172.1.0.0->tun_dst,set_field:172.1.0.100->tun_src,output:vxlan
  - in_port=vxlan,ip,nw_dst=192.1.0.1,actions=output:vhost-user1
"""

FLOW3 = ("  - in_port=vhost-user1,actions=set_tunnel:1001,set_field:172.1.0.0"
         "->tun_dst,set_field:172.1.0.100->tun_src,output:vxlan")
FLOW4 = "  - in_port=vxlan,ip,nw_dst=192.1.0.1,actions=output:vhost-user1"

# id: (line to find (a prefix of it), its replacement (may add a line
#      after it), which line the error is on: 0 = the found one, 1 = the
#      next, message, the token quoted in it)
CASES = {
    # the brief's cases
    "unknown-key": ("  pmd-cores: [1]", "  pmd-cores: [1]\n  colour: blue", 1,
                    "unknown key 'colour' in datapath", "colour"),
    "unknown-key-in-port": (
        "    path: {run}/vhost1.sock",
        "    path: {run}/vhost1.sock\n    queues: 4", 1,
        "unknown key 'queues' in port 'vhost-user1'", "queues"),
    "bad-ip-arp": ("    - {ip: 172.1.0.0,",
                   '    - {ip: 172.1.0.300, mac: "10:00:00:00:00:02"}', 0,
                   "bad IPv4 address '172.1.0.300'", "172.1.0.300"),
    "bad-ip-local": ("  local-ip:", "  local-ip: 172.1.0.256/24", 0,
                     "bad IPv4 prefix '172.1.0.256/24'", "172.1.0.256/24"),
    "bad-ip-gateway": (
        "    - {prefix: 172.1.0.0/24}",
        "    - {prefix: 172.1.0.0/24, gateway: 172.1.0.999}", 0,
        "bad IPv4 address '172.1.0.999'", "172.1.0.999"),
    "duplicate-port": ("  - name: vhost-user1", "  - name: vhost-user0", 0,
                       "duplicate port name 'vhost-user0'", "vhost-user0"),
    "flow-unknown-output-port": (
        FLOW4, FLOW4.replace("output:vhost-user1", "output:vhost-user9"), 0,
        "output: unknown port 'vhost-user9'", "vhost-user9"),
    "flow-unknown-in-port": (
        FLOW3, FLOW3.replace("in_port=vhost-user1", "in_port=vm7"), 0,
        "in_port: unknown port 'vm7'", "vm7"),
    "flow-underlay-port": (
        FLOW4, FLOW4.replace("in_port=vxlan", "in_port=dpdk-phy"), 0,
        "in_port: unknown port 'dpdk-phy'", "dpdk-phy"),
    "flow-unknown-field": (FLOW4, "  - nosuchfield=1,actions=drop", 0,
                           "unknown field 'nosuchfield'", "nosuchfield"),
    "flow-unknown-action": (
        FLOW4, FLOW4.replace("output:vhost-user1", "frobnicate:3"), 0,
        "unknown action 'frobnicate'", "frobnicate"),
    "flow-bad-ip": (FLOW4, FLOW4.replace("192.1.0.1", "192.1.0.1.5"), 0,
                    "nw_dst: bad IPv4 address '192.1.0.1.5'", "192.1.0.1.5"),
    "flow-no-actions": (FLOW4, "  - in_port=vxlan,ip,nw_dst=192.1.0.1", 0,
                        "missing 'actions='", "actions="),
    "flow-bad-mask": (FLOW4, FLOW4.replace("192.1.0.1", "192.1.0.0/33"), 0,
                      "nw_dst: bad IPv4 mask '33'", "33"),
    "rxq-affinity-not-pmd": ('    rxq-affinity: "0:1"',
                             '    rxq-affinity: "0:5"', 0,
                             "rxq-affinity core is not a pmd core '5'", "5"),
    # more of the kind
    "rxq-affinity-queue": ('    rxq-affinity: "0:1"',
                           '    rxq-affinity: "0:1,3:1"', 0,
                           "rxq-affinity queue is not below n-rxq 1 '3'",
                           "3"),
    "pmd-is-main-lcore": ("  pmd-cores: [1]", "  pmd-cores: [0]", 0,
                          "pmd core is the main lcore '0'", "0"),
    "bad-mac": ('  mac: "10:00:00:00:00:01"', '  mac: "10:00:00:00:00:zz"', 0,
                "bad MAC address '10:00:00:00:00:zz'", "10:00:00:00:00:zz"),
    "unknown-port-type": ("    type: dpdkvhostuserclient",
                          "    type: dpdkvhostuserx", 0,
                          "unknown port type 'dpdkvhostuserx'",
                          "dpdkvhostuserx"),
    "duplicate-socket": ("    path: {run}/vhost1.sock",
                         "    path: {run}/vhost0.sock", 0,
                         "duplicate socket path '{run}/vhost0.sock'",
                         "{run}/vhost0.sock"),
    "vni-too-big": ("    options: {remote_ip",
                    "    options: {remote_ip: flow, local_ip: flow, key: flow,"
                    " dst_port: 4789, vnis: [1001, 16777216]}", 0,
                    "bad vni", "16777216"),
    # a table past its datapath max-* limit: at the first entry past it
    "flows-past-max-flows": ("  pmd-cores: [1]",
                             "  pmd-cores: [1]\n  max-flows: 2", 29,
                             "more than datapath max-flows 2 flows", "4"),
    "routes-past-max-routes": ("  pmd-cores: [1]",
                               "  pmd-cores: [1]\n  max-routes: 1", 8,
                               "more than datapath max-routes 1 routes",
                               "2"),
    "yaml-syntax": ("  pmd-cores: [1]", "  pmd-cores: [1", 1,
                    "did not find expected ',' or ']'", None),
}


def sub_run(s, run):
    return s.replace("{run}", str(run))


def write_variant(path, prefix, run, case=None):
    """The good file, or the variant `case`; returns (path, error line)."""
    lines = GOOD.format(prefix=prefix, run=run).splitlines()
    line_no = None
    if case is not None:
        find, repl, off = (sub_run(CASES[case][0], run),
                           sub_run(CASES[case][1], run), CASES[case][2])
        hits = [i for i, l in enumerate(lines) if l.startswith(find)]
        assert len(hits) == 1, (case, find)
        lines[hits[0]:hits[0] + 1] = repl.split("\n")
        line_no = hits[0] + 1 + off
    path.write_text("\n".join(lines) + "\n")
    return path, line_no


def leftovers(prefix, run):
    """What a started switch would have created: [paths that exist]."""
    found = [str(p) for p in (run / "vhost0.sock", run / "vhost1.sock",
                              run / "ctl", run / "ctl" / "vxswitch.ctl",
                              vxlib.DPDK_RUN / prefix) if p.exists()]
    found += [str(p) for p in vxlib.HUGE_MNT.glob(prefix + "map_*")]
    return found


def run_switch(bin_, cfg, *args, timeout=30):
    return subprocess.run([str(bin_), "--config", str(cfg), *args],
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


@pytest.fixture
def names(build_dir, tmp_path):
    """(vxswitch binary, a unique EAL prefix, an empty run dir)."""
    prefix = vxlib.unique_prefix("cfg")
    run = vxlib.short_tmpdir("vxc")
    yield vxlib.find_binary("vxswitch", build_dir), prefix, run
    vxlib.cleanup_dpdk_prefix(prefix)
    subprocess.run(["rm", "-rf", str(run)])


# ------------------------------------------------------------- topology

@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("check", [False, True], ids=["run", "check"])
def test_bad_topology(names, tmp_path, case, check):
    bin_, prefix, run = names
    cfg, line = write_variant(tmp_path / ("%s.yaml" % case), prefix, run,
                              case)
    r = run_switch(bin_, cfg, *(["--check"] if check else []))
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    err = r.stderr.strip()
    msg, token = sub_run(CASES[case][3], run), CASES[case][4]
    # one line: "vxswitch: FILE:LINE:COL: message 'token'" (flows, routes
    # and arp entries included: issue 9 item 7)
    assert len(err.splitlines()) == 1, err
    assert re.match(r"vxswitch: %s:%d:\d+: " % (re.escape(str(cfg)), line),
                    err), (line, err)
    assert msg in err, err
    if token is not None:
        assert "'%s'" % sub_run(token, run) in err, err
    assert "ok" not in r.stdout and "EAL" not in r.stdout + r.stderr
    assert leftovers(prefix, run) == []


def test_good_topology_check(names, tmp_path):
    bin_, prefix, run = names
    cfg, _ = write_variant(tmp_path / "good.yaml", prefix, run)
    r = run_switch(bin_, cfg, "--check")
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == "%s: ok (4 ports, 4 flows)\n" % cfg
    assert leftovers(prefix, run) == []


def host_has_lcores(lcores):
    top = max(int(x) for x in str(lcores).replace("-", ",").split(","))
    return top < os.cpu_count()


@pytest.mark.parametrize("name", ["vxlan-2vm.yaml", "vxlan-32vm.yaml"])
def test_shipped_topologies_check(build_dir, name):
    path = vxlib.REPO / "topology" / name
    r = run_switch(vxlib.find_binary("vxswitch", build_dir), path, "--check")
    lcores = yaml.safe_load(path.read_text())["eal"]["lcores"]
    if not host_has_lcores(lcores):
        # --check judges this host: the EAL would refuse the lcores here
        assert r.returncode == 2 and "does not exist on this host" in \
            r.stderr, r.stderr
        return
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("%s: ok (" % path), r.stdout
    n_ports = len(yaml.safe_load(path.read_text())["ports"])
    assert "(%d ports," % n_ports in r.stdout


def test_good_topology_creates_what_bad_ones_do_not(names, tmp_path,
                                                    hugepages):
    """The control for test_bad_topology: started for real, the good file
    creates the server socket, the control socket and the runtime dir."""
    bin_, prefix, run = names
    cfg, _ = write_variant(tmp_path / "good.yaml", prefix, run)
    log = open(tmp_path / "good.log", "wb")
    p = subprocess.Popen([str(bin_), "--config", str(cfg)], stdout=log,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        want = {str(run / "vhost0.sock"), str(run / "ctl"),
                str(run / "ctl" / "vxswitch.ctl"),
                str(vxlib.DPDK_RUN / prefix)}
        vxlib.wait_for(lambda: want <= set(leftovers(prefix, run)), 20,
                       what=lambda: "%s (have %s)\n%s" % (
                           want, leftovers(prefix, run),
                           (tmp_path / "good.log").read_text()))
    finally:
        p.terminate()
        rc = p.wait(15)
        log.close()
    assert rc == 0
    assert "mbufs in use at exit: 0" in (tmp_path / "good.log").read_text()
    # and it took its sockets with it
    assert not (run / "vhost0.sock").exists()
    assert not (run / "ctl" / "vxswitch.ctl").exists()


def test_failure_after_eal_cleans_up(names, tmp_path, hugepages):
    """A device that cannot be probed is only found once the EAL runs:
    exit 1, the reason on stderr, and no socket left behind."""
    bin_, prefix, run = names
    cfg, _ = write_variant(tmp_path / "nodev.yaml", prefix, run)
    cfg.write_text(cfg.read_text().replace('"net_null0,no-rx=1"',
                                           '"net_nosuch0"'))
    r = run_switch(bin_, cfg)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "cannot probe device 'net_nosuch0'" in r.stdout + r.stderr
    assert "mbufs in use at exit: 0" in r.stdout
    assert not (run / "vhost0.sock").exists()
    assert not (run / "ctl" / "vxswitch.ctl").exists()


# ------------------------------------------------ command-line overrides

@pytest.mark.parametrize("arg,msg", [
    ("0", "'0'"),                   # the main lcore
    ("2", "'1'"),                   # vhost-user0's rxq-affinity "0:1"
    ("1,1", "'1,1'"),               # listed twice
    ("1-", "'1-'"),
    ("x", "'x'"),
])
def test_bad_pmd_cores_override(names, tmp_path, arg, msg):
    """--pmd-cores replaces datapath.pmd-cores and must pass the same
    checks: not the main lcore, every rxq-affinity core one of them."""
    bin_, prefix, run = names
    cfg, _ = write_variant(tmp_path / "good.yaml", prefix, run)
    for extra in ([], ["--check"]):
        r = run_switch(bin_, cfg, "--pmd-cores", arg, *extra)
        assert r.returncode == 2, (arg, r.stdout, r.stderr)
        assert "--pmd-cores" in r.stderr and msg in r.stderr, r.stderr
        assert leftovers(prefix, run) == []


def test_bad_options(names, tmp_path):
    bin_, prefix, run = names
    cfg, _ = write_variant(tmp_path / "good.yaml", prefix, run)
    r = run_switch(bin_, cfg, "--frobnicate")
    assert r.returncode == 2 and "frobnicate" in r.stderr
    r = run_switch(bin_, cfg, "extra-arg")
    assert r.returncode == 2 and "'extra-arg'" in r.stderr
    r = subprocess.run([str(bin_)], capture_output=True, text=True)
    assert r.returncode == 2 and "--config" in r.stderr
    missing = tmp_path / "missing.yaml"
    r = run_switch(bin_, missing)
    assert r.returncode == 2
    assert r.stderr.startswith("vxswitch: %s:" % missing)
    assert "No such file or directory" in r.stderr
    assert leftovers(prefix, run) == []


# --------------------------------------------------------- vxswitch-ctl

def state(sw):
    """Everything a bad command must leave alone."""
    return {
        "dump-flows": vxlib.rules_without_stats(sw.ctl("dump-flows")),
        "dump-flows-json": vxlib.rules_json_without_ages(
            sw.ctl("dump-flows", json=True)),
        "arp": sw.ctl("tnl/arp/show"),
        "arp-json": sw.ctl("tnl/arp/show", json=True),
        "routes": sw.ctl("ovs/route/show"),
        "routes-json": sw.ctl("ovs/route/show", json=True),
        "megaflows": sw.ctl("dpctl/dump-flows", json=True),
        "rules": sw.show()["n_rules"],
    }


BAD_CTL = [
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["help", "nosuch"], "unknown command 'nosuch'"),
    (["show", "extra"], "'show' takes no arguments"),
    (["tnl/arp/set", "172.1.0.9"], "'tnl/arp/set' takes 2 to 3 arguments"),
    (["tnl/arp/set", "br", "172.1.0.9", "02:00:00:00:00:09", "x"],
     "'tnl/arp/set' takes 2 to 3 arguments"),
    (["ovs/route/del"], "'ovs/route/del' takes 1 argument"),
    (["ovs/route/add"], "'ovs/route/add' takes 1 to 3 arguments"),
    (["add-flow"], "'add-flow' takes 1 to 2 arguments"),
    (["del-flows", "--strict", "br", "in_port=vxlan", "x"],
     "'del-flows' takes 0 to 3 arguments"),
    # a port name not (yet) in use is kept for the rule (test_live_ports)
    (["add-flow", "in_port=no/such,actions=drop"],
     "in_port: unknown port 'no/such'"),
    (["add-flow", "in_port=vxlan,actions=output:vm/9"],
     "output: unknown port 'vm/9'"),
    (["add-flow", "garbage"], "unknown field 'garbage'"),
    (["add-flow", "in_port=vxlan"], "missing 'actions='"),
    (["add-flow", "in_port=vxlan,nw_dst=1.2.3.4,actions=drop"],
     "nw_dst requires ip or arp"),
    (["add-flow", "br-int", "in_port=vxlan,ip,nw_dst=1.2.3.4.5,actions=drop"],
     "nw_dst: bad IPv4 address '1.2.3.4.5'"),
    (["ovs/route/add", "10.0.0.300/24"], "bad prefix '10.0.0.300/24'"),
    (["ovs/route/add", "10.0.0.0/33"], "bad prefix '10.0.0.0/33'"),
    (["ovs/route/add", "10.0.0.0/8", "br-phy", "10.0.0.999"],
     "bad gateway or port '10.0.0.999'"),
    (["ovs/route/add", "10.2.0.0/16", "nosuch"],
     "Error while inserting route.\nno port or bridge 'nosuch'"),
    (["ovs/route/del", "10.9.9.0/24"], "no route 10.9.9.0/24"),
    (["tnl/arp/set", "172.1.0.300", "02:00:00:00:00:09"],
     "bad IPv4 address '172.1.0.300'"),
    (["tnl/arp/set", "br-phy", "172.1.0.9.1", "02:00:00:00:00:09"],
     "bad IPv4 address '172.1.0.9.1'"),
    (["tnl/arp/set", "172.1.0.9", "02:00:00:00:00:zz"],
     "bad MAC address '02:00:00:00:00:zz'"),
    (["del-flows", "in_port=nosuch"], "in_port: unknown port 'nosuch'"),
    (["del-flows", "--strict", "garbage"], "unknown field 'garbage'"),
    (["del-flows", "br-int", "in_port=vxlan,nw_dst=1.2.3.4"],
     "nw_dst requires ip or arp"),
    (["dump-flows", "in_port=nosuch"], "in_port: unknown port 'nosuch'"),
]


@pytest.fixture
def idle_switch(make_switch, names):
    _, prefix, run = names
    topo = yaml.safe_load(GOOD.format(prefix=prefix, run=run))
    # a second arp entry and a route with a gateway, so "unchanged" is
    # about more than the defaults
    topo["underlay"]["arp"].append({"ip": "172.1.0.5",
                                    "mac": "10:00:00:00:00:05"})
    topo["underlay"]["routes"].append({"prefix": "10.1.0.0/16",
                                       "gateway": "172.1.0.5"})
    return make_switch(topo)


def test_bad_ctl_commands_change_nothing(idle_switch):
    sw = idle_switch
    before = state(sw)
    assert before["rules"] == 4 and len(before["arp-json"]) == 2
    assert len(before["routes-json"]) == 2
    for args, reason in BAD_CTL:
        for json in (False, True):
            r = sw.ctl_result(*args, json=json)
            assert r.returncode == 1, (args, r)
            assert r.stdout == "", (args, r.stdout)
            assert r.stderr == "vxswitch-ctl: %s" % r.stderr.split(
                ": ", 1)[1] and reason in r.stderr, (args, r.stderr)
        assert state(sw) == before, args
    assert sw.running


def test_bad_add_flows_file_adds_none(idle_switch, tmp_path):
    sw = idle_switch
    before = state(sw)
    f = tmp_path / "flows.txt"
    f.write_text("# three good, one bad\n"
                 "priority=5,in_port=vxlan,ip,nw_dst=192.1.0.7,actions=drop\n"
                 "priority=6,in_port=vxlan,ip,nw_dst=192.1.0.8,actions=drop\n"
                 "in_port=vxlan,ip,nw_dst=192.1.0.9,actions=output:vm/9\n"
                 "priority=7,in_port=vxlan,ip,nw_dst=192.1.0.10,"
                 "actions=drop\n")
    r = sw.ctl_result("add-flows", f)
    assert r.returncode == 1
    assert r.stderr.startswith("vxswitch-ctl: %s:4: " % f), r.stderr
    assert "output: unknown port 'vm/9'" in r.stderr
    assert state(sw) == before
    # the same file without the bad line goes in whole
    f.write_text("\n".join(l for l in f.read_text().splitlines()
                           if "vm/9" not in l) + "\n")
    sw.ctl("add-flows", f)
    assert sw.show()["n_rules"] == 7


def test_good_ctl_commands_do_change_state(idle_switch):
    """The control for the test above: the same commands, well formed,
    change what state() reads."""
    sw = idle_switch
    before = state(sw)
    sw.ctl("tnl/arp/set", "br-phy", "172.1.0.9", "02:00:00:00:00:09")
    s1 = state(sw)
    assert s1["arp"] != before["arp"] and s1["routes"] == before["routes"]
    sw.ctl("ovs/route/add", "10.2.0.0/16", "br-phy", "172.1.0.9")
    s2 = state(sw)
    assert s2["routes"] != s1["routes"]
    assert {"prefix": "10.2.0.0", "plen": 16, "gateway": "172.1.0.9",
            "port": "dpdk-phy", "connected": False,
            "src": "172.1.0.100"} in s2["routes-json"]
    sw.ctl("add-flow", "priority=9,in_port=vxlan,ip,nw_dst=1.2.3.4,"
           "actions=drop")
    assert state(sw)["rules"] == 5
    sw.ctl("del-flows", "--strict", "priority=9,in_port=vxlan,ip,"
           "nw_dst=1.2.3.4")
    sw.ctl("ovs/route/del", "10.2.0.0/16")
    s3 = state(sw)
    assert s3["rules"] == 4 and s3["routes"] == before["routes"]
    assert s3["dump-flows"] == before["dump-flows"]


def test_ctl_without_daemon(build_dir, tmp_path):
    ctl = vxlib.find_binary("vxswitch-ctl", build_dir)
    for sock in (tmp_path / "missing.ctl", "/nonexistent/dir/x.ctl"):
        r = subprocess.run([str(ctl), "-s", str(sock), "show"],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode == 2, r
        assert str(sock) in r.stderr and r.stdout == ""
    # a socket file nobody listens on (a daemon that died)
    dead = tmp_path / "dead.ctl"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(dead))
    s.close()
    r = subprocess.run([str(ctl), "-s", str(dead), "show"],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 2, r
    # VXSWITCH_CTL_SOCKET is the default socket
    r = subprocess.run([str(ctl), "show"], capture_output=True, text=True,
                       timeout=10, env=dict(os.environ,
                                            VXSWITCH_CTL_SOCKET=str(dead)))
    assert r.returncode == 2 and str(dead) in r.stderr


# ---------------------------------------- caught before the EAL starts
#
# Each of these used to pass --check and fail only after EAL start (or, for
# the reader errors, carried a byte offset and no line:col).

def bytes_variant(tmp_path, prefix, run, insert_at_line, data):
    """The good file with `data` (bytes) put at the start of line
    insert_at_line (1-based); returns the path."""
    lines = GOOD.format(prefix=prefix, run=run).encode().split(b"\n")
    lines[insert_at_line - 1] = data + lines[insert_at_line - 1]
    path = tmp_path / "bytes.yaml"
    path.write_bytes(b"\n".join(lines))
    return path


@pytest.mark.parametrize("data,col,msg", [
    (b"\x00", 3, "control characters are not allowed"),
    (b"\xff\xfe", 3, "invalid leading UTF-8 octet"),
    (b"\xc3\x28", 4, "invalid trailing UTF-8 octet"),     # the 0x28
    (b"\x01\x02\x03\x7f", 3, "control characters are not allowed"),
], ids=["nul", "not-utf8", "bad-utf8-sequence", "binary"])
@pytest.mark.parametrize("check", [False, True], ids=["run", "check"])
def test_unreadable_bytes_have_line_col(names, tmp_path, data, col, msg,
                                        check):
    bin_, prefix, run = names
    cfg = bytes_variant(tmp_path, prefix, run, 9, b"  " + data)
    r = run_switch(bin_, cfg, *(["--check"] if check else []))
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    err = r.stderr.strip()
    assert err.startswith("vxswitch: %s:9:%d: %s" % (cfg, col, msg)), err
    assert "(byte " in err and len(err.splitlines()) == 1, err
    assert leftovers(prefix, run) == []


def ports_topology(prefix, run, n_vhost=0, n_eth=0, eal=None, dp=None):
    ports = [{"name": "v%d" % i, "type": "dpdkvhostuser",
              "path": "%s/v%d.sock" % (run, i)} for i in range(n_vhost)]
    ports += [{"name": "e%d" % i, "type": "dpdk",
               "devargs": "net_null%d,no-rx=1" % i} for i in range(n_eth)]
    topo = {"eal": {"lcores": "0-1", "file-prefix": prefix, "no-pci": True,
                    **(eal or {})},
            "datapath": {"pmd-cores": [1],
                         "ctl-socket": "%s/ctl/vxswitch.ctl" % run,
                         **(dp or {})},
            "ports": ports}
    return yaml.safe_dump(topo, sort_keys=False)


def port_line(text, name):
    """1-based line of the port entry named `name` (its '- name:' line)."""
    for i, l in enumerate(text.splitlines()):
        if l.strip() == "- name: %s" % name:
            return i + 1
    raise AssertionError(name)


@pytest.mark.parametrize("check", [False, True], ids=["run", "check"])
@pytest.mark.parametrize("case", ["vhost-10000", "ethdev-over-max",
                                  "no-huge-memory", "n-mbufs", "lcores"])
def test_limits_caught_before_eal(names, tmp_path, case, check):
    bin_, prefix, run = names
    if case == "vhost-10000":
        text = ports_topology(prefix, run, n_vhost=10000,
                              eal={"memory-mb": 64, "no-huge": True})
        where = "%d:3" % port_line(text, "v1024")
        msg = "more than 1024 vhost-user ports (rte_vhost's limit) 'v1024'"
    elif case == "ethdev-over-max":
        # Debian's DPDK: RTE_MAX_ETHPORTS 32
        text = ports_topology(prefix, run, n_eth=33)
        where = "%d:3" % port_line(text, "e32")
        msg = "more than 32 dpdk ports (RTE_MAX_ETHPORTS) 'e32'"
    elif case == "no-huge-memory":
        text = ports_topology(prefix, run, n_vhost=1, n_eth=1,
                              eal={"memory-mb": 64, "no-huge": True})
        where = "%d:14" % (text.splitlines().index("  memory-mb: 64") + 1)
        msg = "16383 mbufs need 37 MiB (+ 24 MiB for 65536 sessions, " \
            "ct-max-conns, + 32 MiB for the rest), more than the 64 MiB " \
            "of eal.memory-mb 'memory'"
    elif case == "n-mbufs":
        text = ports_topology(prefix, run, n_vhost=1,
                              eal={"memory-mb": 512, "no-huge": True},
                              dp={"n-mbufs": 1000000})
        where = "%d:12" % (text.splitlines().index(
            "  n-mbufs: 1000000") + 1)
        msg = "1000000 mbufs need"
    else:
        n = os.cpu_count()
        text = ports_topology(prefix, run, n_vhost=1,
                              eal={"lcores": "0-%d" % n})
        where = "%d:11" % (text.splitlines().index(
            "  lcores: 0-%d" % n) + 1)
        msg = "lcore CPU %d does not exist on this host (%d CPUs) '0-%d'" % (
            n, n, n)
    cfg = tmp_path / "limits.yaml"
    cfg.write_text(text)
    r = run_switch(bin_, cfg, *(["--check"] if check else []), timeout=60)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr[-2000:])
    err = r.stderr.strip()
    assert err.startswith("vxswitch: %s:%s: %s" % (cfg, where, msg)), err
    assert len(err.splitlines()) == 1 and "EAL" not in r.stdout + r.stderr
    assert leftovers(prefix, run) == []
