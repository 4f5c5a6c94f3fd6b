# SPDX-License-Identifier: BSD-3-Clause
"""Open vSwitch with DPDK as the comparison switch of perf/e2e-bench.py:
Debian's openvswitch-switch-dpdk binary run straight from
/usr/lib/openvswitch-switch-dpdk, ovsdb-server and ovs-vswitchd in a
private run dir and network namespace (see e2e-bench's docstring)."""

import ipaddress
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

from . import harness as vxlib
from . import sg_policy
from .addressing import SEED
from .bench import PMD_CORE, BenchError, run
from .traffic_gen import VM_IP6_BASE

OVS_BIN = Path("/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk")
OVS_SCHEMA = Path("/usr/share/openvswitch/vswitch.ovsschema")
VNI = 1001
# VM i's inner address, as gen-traffic.py writes it
INNER4 = ipaddress.ip_address(SEED.ip_base)
INNER6 = ipaddress.ip_address(VM_IP6_BASE)


PMD_RE = {
    "pmd_rx": r"packets received:\s*(\d+)",
    "recirc": r"packet recirculations:\s*(\d+)",
    "emc_hits": r"emc hits:\s*(\d+)",
    "megaflow_hits": r"megaflow hits:\s*(\d+)",
    "upcalls": r"miss with success upcall:\s*(\d+)",
    "pkts_per_batch": r"avg\. packets per output batch:\s*([\d.]+)",
    "idle": r"idle cycles:\s*(\d+)",
    "busy": r"processing cycles:\s*(\d+)",
}


class OvsRun:
    """ovsdb-server + ovs-vswitchd (DPDK) in a private run dir and netns."""
    name = "ovs"
    # OVS reconfigures its PMD for every vhost port that comes up: ~3 s a
    # VM here
    attach_s_per_vm = 6.0

    def __init__(self, a, rundir, n_vms, flows, pcap, sockets,
                 inner="ipv4"):
        self.a = a
        self.inner = inner          # e2e-bench --inner: the decap match
        self.dir = rundir / "ovs"
        self.n_vms, self.flows, self.pcap = n_vms, flows, pcap
        self.sockets = sockets
        self.ns = "vxbench-ovs%d" % os.getpid()
        self.prefix = "vxbovs%d" % os.getpid()
        self.env = dict(os.environ, OVS_RUNDIR=str(self.dir),
                        OVS_DBDIR=str(self.dir), OVS_LOGDIR=str(self.dir),
                        OVS_SYSCONFDIR=str(self.dir))
        self.db = self.dir / "db.sock"
        self.procs = []
        self.ns_made = False

    # helpers
    def vsctl(self, *args, timeout=120):
        return run(["ovs-vsctl", "--db=unix:%s" % self.db,
                    "--timeout=%d" % timeout] + list(args), env=self.env,
                   timeout=timeout + 10)

    def appctl(self, *args, check=True):
        return run(["ovs-appctl", "-t", self.dir / "ovs-vswitchd.ctl"]
                   + list(args), env=self.env, check=check, timeout=30)

    def _spawn(self, argv, log):
        p = vxlib._spawn(argv, self.dir / log, env=self.env)
        self.procs.append(p)
        return p

    def start(self):
        for b in (OVS_BIN, OVS_SCHEMA):
            if not b.exists():
                raise BenchError("%s missing: apt-get install -y "
                                 "openvswitch-switch-dpdk" % b)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        run(["ovsdb-tool", "create", self.dir / "conf.db", OVS_SCHEMA],
            env=self.env)
        self._spawn(["taskset", "-c", "0", "ovsdb-server",
                     self.dir / "conf.db", "--remote=punix:%s" % self.db,
                     "--pidfile=%s" % (self.dir / "ovsdb-server.pid"),
                     "--unixctl=%s" % (self.dir / "ovsdb-server.ctl"),
                     "--log-file=%s" % (self.dir / "ovsdb-server.log"),
                     "--no-chdir"], "ovsdb-server.out")
        vxlib.wait_for(self.db.exists, 10, 0.05, "ovsdb-server's socket")
        a = self.a
        self.vsctl("--no-wait", "init")
        self.vsctl("--no-wait", "set", "Open_vSwitch", ".",
                   "other_config:dpdk-init=true",
                   "other_config:dpdk-socket-mem=1024",
                   "other_config:dpdk-lcore-mask=0x1",
                   "other_config:pmd-cpu-mask=0x%x" % (1 << PMD_CORE),
                   'other_config:dpdk-extra="--file-prefix=%s --no-pci"'
                   % self.prefix)
        run(["ip", "netns", "add", self.ns])
        self.ns_made = True
        run(["ip", "-n", self.ns, "link", "set", "lo", "up"])
        self.vswitchd = self._spawn(
            ["ip", "netns", "exec", self.ns, "taskset", "-c", "0",
             OVS_BIN, "unix:%s" % self.db,
             "--pidfile=%s" % (self.dir / "ovs-vswitchd.pid"),
             "--unixctl=%s" % (self.dir / "ovs-vswitchd.ctl"),
             "--log-file=%s" % (self.dir / "ovs-vswitchd.log"),
             "--no-chdir"], "ovs-vswitchd.out")
        ctl = self.dir / "ovs-vswitchd.ctl"
        vxlib.wait_for(lambda: ctl.exists() or self.vswitchd.poll()
                       is not None, 60, 0.1, "ovs-vswitchd's unixctl")
        if self.vswitchd.poll() is not None:
            raise BenchError("ovs-vswitchd exited %d:\n%s"
                             % (self.vswitchd.returncode, self.log_tail()))
        # the seed's script, one ovs-vsctl transaction per bridge
        cmd = ["--may-exist", "add-br", "br-int", "--", "set", "Bridge",
               "br-int", "datapath_type=netdev", "--", "br-set-external-id",
               "br-int", "bridge-id", "br-int", "--", "set", "bridge",
               "br-int", "fail-mode=standalone"]
        for i, s in enumerate(self.sockets):
            cmd += ["--", "add-port", "br-int", "vhost-user%d" % i, "--",
                    "set", "Interface", "vhost-user%d" % i,
                    "type=dpdkvhostuserclient",
                    "options:vhost-server-path=%s" % s, "options:n_rxq=1",
                    "other_config:pmd-rxq-affinity=0:%d" % PMD_CORE]
        cmd += ["--", "add-port", "br-int", "vxlan", "--", "set",
                "interface", "vxlan", "type=vxlan", "options:remote_ip=flow",
                "options:local_ip=flow", "options:key=flow"]
        self.vsctl(*cmd)
        devargs = "net_pcap0,rx_pcap=%s,infinite_rx=1" % self.pcap
        nic = ["type=dpdk", 'options:dpdk-devargs="%s"' % devargs,
               "options:n_rxq=1",
               "other_config:pmd-rxq-affinity=0:%d" % PMD_CORE]
        if a.rxd:
            nic.append("options:n_rxq_desc=%d" % a.rxd)
        if a.txd:
            nic.append("options:n_txq_desc=%d" % a.txd)
        self.vsctl("--may-exist", "add-br", "br-phy", "--", "set", "Bridge",
                   "br-phy", "datapath_type=netdev", "--",
                   "br-set-external-id", "br-phy", "bridge-id", "br-phy",
                   "--", "set", "bridge", "br-phy", "fail-mode=standalone",
                   "other_config:hwaddr=10:00:00:00:00:01", "--",
                   "add-port", "br-phy", "dpdk-phy", "--", "set",
                   "Interface", "dpdk-phy", *nic)
        err = self.vsctl("get", "Interface", "dpdk-phy", "error").strip()
        if err not in ("[]", ""):
            raise BenchError("OVS dpdk-phy: %s\n%s" % (err, self.log_tail()))
        # ip addr add 172.1.0.100/24 dev br-phy, inside our netns
        vxlib.wait_for(lambda: subprocess.run(
            ["ip", "-n", self.ns, "link", "show", "br-phy"],
            capture_output=True).returncode == 0, 20, 0.1, "br-phy tap")
        run(["ip", "-n", self.ns, "addr", "add", "172.1.0.100/24", "dev",
             "br-phy"])
        run(["ip", "-n", self.ns, "link", "set", "br-phy", "up"])
        self.appctl("ovs/route/add", "172.1.0.0/24", "br-phy", check=False)
        # OVS may have learnt the connected route from the netns's kernel
        # table already (netlink, asynchronous): then the add fails
        routes = self.appctl("ovs/route/show")
        if not re.search(r"172\.1\.0\.0/24 dev br-phy", routes):
            raise BenchError("OVS has no route 172.1.0.0/24 dev br-phy:\n"
                             + routes)
        self.appctl("tnl/arp/set", "br-phy", "172.1.0.0",
                    "10:00:00:00:00:02")
        if getattr(self.a, "sg_modes", None):
            # e2e-bench --sg: the group's baseline rules, then sg_load()
            self.sg_load(sg_policy.flows("none", self.n_vms, vni=VNI))
            return
        flows = self.dir / "flows.txt"
        with open(flows, "w") as f:
            for i in range(self.n_vms):
                f.write("in_port=vhost-user%d,actions=set_tunnel:%d,"
                        "set_field:172.1.0.0->tun_dst,"
                        "set_field:172.1.0.100->tun_src,output:vxlan\n"
                        % (i, VNI))
                match = ("ipv6,ipv6_dst=%s" % (INNER6 + i)
                         if self.inner == "ipv6" else
                         "ip,nw_dst=%s" % (INNER4 + i))
                f.write("in_port=vxlan,%s,actions=output:vhost-user%d\n"
                        % (match, i))
        run(["ovs-ofctl", "add-flows", "unix:%s" % (self.dir / "br-int.mgmt"),
             flows], env=self.env)

    # e2e-bench --sg (perf/e2e_sg.py): replace br-int's rules, flush the
    # sessions and the megaflows; read what the group did
    def sg_load(self, rules):
        path = self.dir / "sg-flows.txt"
        path.write_text("\n".join(rules) + "\n")
        br = "unix:%s" % (self.dir / "br-int.mgmt")
        # one bundle: no packet sees a half-loaded pipeline (a resubmit to
        # a table not loaded yet is an implicit miss: a megaflow to the
        # slow path, which a starved revalidator (CPU 0 is the VMs') left
        # in place for minutes at 32 VMs)
        run(["ovs-ofctl", "--bundle", "replace-flows", br, path],
            env=self.env)
        self.sg_flush()

    def sg_flush(self):
        self.appctl("dpctl/flush-conntrack")
        # the megaflows go through the revalidators: dpctl/del-flows
        # behind their back leaves the flows' ukeys, and every upcall of
        # those flows then fails ("ukey installation fails") until the
        # revalidators sweep them, which took minutes at 32 VMs here
        self.appctl("revalidator/purge")
        self.appctl("revalidator/wait")

    def sg_nconns(self):
        return int(self.appctl("dpctl/ct-get-nconns").strip())

    def dp_flows(self):
        return self.appctl("dpctl/dump-flows")

    def sg_conntrack(self):
        return self.appctl("dpctl/dump-conntrack")

    def sg_policy_drops(self):
        """Packets of the megaflows whose action is drop (what the rules
        dropped; a full vhost ring is not counted here)."""
        return sum(int(m.group(1)) for m in re.finditer(
            r"packets:(\d+).*actions:drop\s*$", self.dp_flows(), re.M))

    def pids(self):
        return [p.pid for p in self.procs]

    def wait_up(self, timeout):
        def up():
            out = self.vsctl("--format=csv", "--no-headings",
                             "--columns=name,link_state", "list",
                             "Interface")
            states = {}
            for line in out.splitlines():
                name, _, st = line.partition(",")
                states[name.strip('"')] = st.strip('"')
            self._down = [n for n in ("vhost-user%d" % i
                                      for i in range(self.n_vms))
                          if states.get(n) != "up"]
            return not self._down
        self._down = []
        vxlib.wait_for(up, timeout, 0.5,
                       lambda: "OVS vhost ports up (down: %s)\n%s"
                       % (self._down, self.log_tail()))

    def clear(self):
        self.appctl("dpif-netdev/pmd-stats-clear")

    def nic(self):
        out = self.appctl("dpctl/show", "-s")
        m = re.search(r"port \d+: dpdk-phy.*?\n\s*RX packets:(\d+).*?\n"
                      r"\s*TX packets:(\d+)", out, re.S)
        if not m:
            raise BenchError("no dpdk-phy in dpctl/show -s:\n%s" % out)
        return int(m.group(1)), int(m.group(2))

    def pmd_text(self):
        return self.appctl("dpif-netdev/pmd-stats-show")

    def pmd(self):
        out = self.pmd_text()
        blk = out.split("core_id %d:" % PMD_CORE, 1)[-1]
        r = {}
        for k, rx in PMD_RE.items():
            m = re.search(rx, blk)
            r[k] = float(m.group(1)) if m else 0
        return r

    def drops(self):
        out = self.appctl("coverage/show", check=False)
        return {m.group(1): int(m.group(2)) for m in re.finditer(
            r"^(\S*drop\S*)\s+\S+/sec\s+\S+/sec\s+\S+/sec\s+total: (\d+)",
            out, re.M) if int(m.group(2))}

    def stop(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                # ovs-appctl exit, then SIGTERM, then SIGKILL
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    vxlib._kill(p)
                    p.wait(5)
        self.procs.clear()
        if self.ns_made:
            run(["ip", "netns", "del", self.ns], check=False)
            self.ns_made = False
        vxlib.cleanup_dpdk_prefix(self.prefix)

    def log_tail(self):
        return vxlib._tail(self.dir / "ovs-vswitchd.log", 20)
