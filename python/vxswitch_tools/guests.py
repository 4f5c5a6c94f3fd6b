# SPDX-License-Identifier: BSD-3-Clause
"""QEMU/libvirt guests on vxswitch's vhost-user ports.

Each guest is the image of scripts/guest-image.sh (kernel + initramfs,
address from the kernel command line) with one virtio-net device whose
backend is a vhost-user socket. The guest side (QEMU) is the server and
vxswitch the client, as `type: dpdkvhostuserclient` in topology/ (the
seed's vhost-server-path): a guest can then reboot, be destroyed and come
back, and the switch can restart, and the client reconnects each time.

  guests.py qemu-cmd  --vms N [...]          print the QEMU command lines
  guests.py xml       --vms N --out DIR [...] write DIR/vxguestI.xml
  guests.py define|start|destroy|undefine --out DIR [--uri URI]
            [--guest NAME]... [--static] [--ctl-socket SOCK]
                                              virsh on every DIR/*.xml
                                              (or the --guest ones)
  guests.py libvirtd  --rundir DIR            a private libvirtd (see below)

Guest i: name vxguest<i>, MAC 52:54:00:10:<i/256>:<i%256>, address
192.1.<i/256>.<i%256>/16 (the seed's VM i is 192.1.0.i), vhost-user socket
<sock-dir>/vhost<i>.sock (scripts/gen-topology.py's paths), console on a
unix socket (<run-dir>/vxguest<i>.console), MTU 1450. Memory is shared with
the switch (vhost-user needs it): 2 MB hugepages where the host has them
free (--mem-backing hugepages), memfd otherwise. With --plan (from
scripts/host-plan.py) each guest's vCPU and QEMU's emulator threads are
pinned to the cores the plan gives and its memory bound to the NIC's NUMA
node.

Ports follow the guests (doc/running.md, "Life of a VM"): `start` plugs each
guest's switch port before `virsh start` (vxswitch-ctl add-port NAME
type=dpdkvhostuserclient options:vhost-server-path=SOCK
[options:n_rxq=QUEUES], as Nova's os-vif runs ovs-vsctl add-port before
libvirt starts the domain: QEMU waits for the switch to connect), and
`destroy` unplugs it after `virsh destroy` (del-port; the guest's flows
stay, waiting for its next start). The port's name, socket and queues are
in the domain XML's <metadata> (written by `xml`: --port-name, default
vhost-user{i}, the names of scripts/gen-topology.py's flows; with
`gen-topology.py --no-vm-ports` the topology has the flows and no VM
port). --static: the ports are in the topology, start/destroy only run
virsh. --queues N: N queue pairs (libvirt <driver queues='N'/>, QEMU
queues=N,mq=on) and options:n_rxq=N.

Known pitfalls handled here: QEMU 7.2 under TCG can crash with vhost-user
when virtio-net uses MSI-X, so vectors=0 (INTx); QEMU as vhost-user server
blocks until the client connects, so start vxswitch first; -cpu host needs
-arch-capabilities on nested KVM.

The private libvirtd: `guests.py libvirtd --rundir DIR` runs libvirtd in a
mount namespace whose /run/libvirt, /var/lib/libvirt, /var/cache/libvirt,
/var/log/libvirt and /etc/libvirt are directories under DIR, with a
qemu.conf that needs no virtlogd, cgroups or security driver; its socket is
DIR/run/libvirt-sock, used with --uri 'qemu:///system?socket=DIR/run/
libvirt-sock'. Nothing outside DIR changes.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
import xml.sax.saxutils as xs

from .addressing import GUESTS

DEFAULT_CACHE = os.environ.get("VXS_GUEST_CACHE", "/var/cache/vxswitch/guest")
# the domain XML's <metadata> element naming the guest's switch port
META_NS = "https://vxswitch.invalid/xmlns/guest/1"


def image(cache=DEFAULT_CACHE):
    """{"kernel", "initrd", ...} of the cached image (guest-image.sh)."""
    path = os.path.join(cache, "current", "manifest")
    try:
        with open(path) as f:
            return dict(ln.strip().split("=", 1) for ln in f if "=" in ln)
    except OSError:
        sys.exit("guests.py: no guest image in %s: run "
                 "scripts/guest-image.sh" % cache)


class Guest:
    """One guest's settings; what both QEMU and libvirt are made from."""

    def __init__(self, i, sock_dir, run_dir, img, mem_mb=256, accel="tcg",
                 backing="memfd", plen=16, mtu=1450, vcpu_cpus=None,
                 emulator_cpus=None, numa_node=None, name=None,
                 port=None, queues=1):
        self.i = i
        self.name = name or "vxguest%d" % i
        self.port = port or "vhost-user%d" % i     # its switch port
        self.queues = queues
        self.mac = GUESTS.mac(i)
        self.ip = GUESTS.ip(i)
        self.plen = plen
        self.mtu = mtu
        self.sock = os.path.join(sock_dir, "vhost%d.sock" % i)
        self.console = os.path.join(run_dir, "%s.console" % self.name)
        self.monitor = os.path.join(run_dir, "%s.monitor" % self.name)
        self.console_log = os.path.join(run_dir, "%s.console.log" % self.name)
        self.img = img
        self.mem_mb = mem_mb
        self.accel = accel
        self.backing = backing
        self.vcpu_cpus = vcpu_cpus          # e.g. "5"
        self.emulator_cpus = emulator_cpus  # e.g. "0"
        self.numa_node = numa_node

    def cmdline(self):
        return ("console=ttyS0 panic=-1 quiet loglevel=3 vx.ip=%s/%d "
                "vx.mac=%s vx.mtu=%d vx.name=%s"
                % (self.ip, self.plen, self.mac, self.mtu, self.name))

    def qemu_argv(self, qemu="qemu-system-x86_64"):
        mem = "%dM" % self.mem_mb
        if self.backing == "hugepages":
            backend = ("memory-backend-file,id=mem,size=%s,share=on,"
                       "mem-path=/dev/hugepages,prealloc=on" % mem)
        else:
            backend = "memory-backend-memfd,id=mem,size=%s,share=on" % mem
        if self.numa_node is not None:
            backend += ",host-nodes=%d,policy=bind" % self.numa_node
        if self.accel == "kvm":
            accel = ["-accel", "kvm", "-cpu", "host,-arch-capabilities"]
        else:
            accel = ["-accel", "tcg"]
        return [qemu, "-name", self.name] + accel + [
            "-machine", "pc,memory-backend=mem", "-m", mem, "-smp", "1",
            "-object", backend,
            "-nodefaults", "-no-user-config", "-display", "none",
            "-kernel", self.img["kernel"], "-initrd", self.img["initrd"],
            "-append", self.cmdline(),
            "-chardev", "socket,id=vu0,path=%s,server=on,wait=off"
            % self.sock,
            "-netdev", "vhost-user,id=net0,chardev=vu0,queues=%d"
            % self.queues,
            # vectors=0: MSI-X with vhost-user crashes QEMU 7.2's TCG
            "-device", "virtio-net-pci,netdev=net0,mac=%s,vectors=0%s"
            % (self.mac, ",mq=on" if self.queues > 1 else ""),
            "-chardev", "socket,id=con0,path=%s,server=on,wait=off,"
            "logfile=%s,logappend=on" % (self.console, self.console_log),
            "-serial", "chardev:con0",
            "-monitor", "unix:%s,server=on,wait=off" % self.monitor,
        ]

    def domain_xml(self):
        e = xs.escape
        q = xs.quoteattr
        hv = "kvm" if self.accel == "kvm" else "qemu"
        if self.backing == "hugepages":
            backing = ("<hugepages><page size='2048' unit='KiB'/>"
                       "</hugepages><access mode='shared'/>")
        else:
            backing = "<source type='memfd'/><access mode='shared'/>"
        cputune = ""
        if self.vcpu_cpus or self.emulator_cpus:
            cputune = "  <cputune>\n"
            if self.vcpu_cpus:
                cputune += ("    <vcpupin vcpu='0' cpuset=%s/>\n"
                            % q(self.vcpu_cpus))
            if self.emulator_cpus:
                cputune += ("    <emulatorpin cpuset=%s/>\n"
                            % q(self.emulator_cpus))
            cputune += "  </cputune>\n"
        numa = ""
        if self.numa_node is not None:
            numa = ("  <numatune><memory mode='strict' nodeset='%d'/>"
                    "</numatune>\n" % self.numa_node)
        driver = ("\n      <driver queues='%d'/>" % self.queues
                  if self.queues > 1 else "")
        cpu = ("  <cpu mode='host-passthrough'><feature policy='disable' "
               "name='arch-capabilities'/></cpu>\n" if hv == "kvm" else "")
        return f"""<domain type='{hv}' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
  <name>{e(self.name)}</name>
  <metadata>
    <vx:port xmlns:vx='{META_NS}' name={q(self.port)} socket={q(self.sock)} queues='{self.queues}'/>
  </metadata>
  <memory unit='MiB'>{self.mem_mb}</memory>
  <memoryBacking>{backing}</memoryBacking>
  <vcpu placement='static'>1</vcpu>
{cputune}{numa}{cpu}  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>{e(self.img["kernel"])}</kernel>
    <initrd>{e(self.img["initrd"])}</initrd>
    <cmdline>{e(self.cmdline())}</cmdline>
  </os>
  <on_reboot>restart</on_reboot>
  <devices>
    <interface type='vhostuser'>
      <alias name='ua-net0'/>
      <mac address='{self.mac}'/>
      <source type='unix' path={q(self.sock)} mode='server'/>
      <model type='virtio'/>{driver}
    </interface>
    <serial type='unix'>
      <source mode='bind' path={q(self.console)}/>
      <log file={q(self.console_log)} append='on'/>
      <target port='0'/>
    </serial>
    <memballoon model='none'/>
  </devices>
  <qemu:override>
    <qemu:device alias='ua-net0'>
      <qemu:frontend>
        <!-- MSI-X with vhost-user crashes QEMU 7.2's TCG: INTx -->
        <qemu:property name='vectors' type='unsigned' value='0'/>
      </qemu:frontend>
    </qemu:device>
  </qemu:override>
</domain>
"""


def make_guests(a):
    img = image(a.cache)
    plan = None
    if getattr(a, "plan", None):
        with open(a.plan) as f:
            plan = json.load(f)
    out = []
    for i in range(a.first, a.first + a.vms):
        kw = {}
        if plan:
            vm = plan["vms"][i - a.first] if i - a.first < len(
                plan["vms"]) else {}
            kw = dict(vcpu_cpus=vm.get("vcpus"),
                      emulator_cpus=plan.get("emulator"),
                      numa_node=plan.get("nic_numa_node"))
        out.append(Guest(i, a.sock_dir, a.run_dir, img, mem_mb=a.mem_mb,
                         accel=a.accel, backing=a.mem_backing,
                         port=a.port_name.format(i=i), queues=a.queues,
                         **kw))
    return out


def hugepages_free_mb():
    try:
        with open("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages") as f:
            return int(f.read()) * 2
    except OSError:
        return 0


# ------------------------------------------------------------- libvirtd

QEMU_CONF = """# vxswitch's private libvirtd (scripts/guests.py libvirtd)
stdio_handler = "file"
security_driver = "none"
cgroup_controllers = [ ]
user = "root"
group = "root"
dynamic_ownership = 0
remember_owner = 0
"""


def private_libvirtd(rundir):
    """Starts libvirtd with every state directory under rundir (a private
    mount namespace); returns (Popen, uri)."""
    rundir = os.path.abspath(rundir)
    dirs = {"/run/libvirt": "run", "/var/lib/libvirt": "lib",
            "/var/cache/libvirt": "cache", "/var/log/libvirt": "log",
            "/etc/libvirt": "etc"}
    for sub in dirs.values():
        os.makedirs(os.path.join(rundir, sub), exist_ok=True)
    etc = os.path.join(rundir, "etc")
    with open(os.path.join(etc, "qemu.conf"), "w") as f:
        f.write(QEMU_CONF)
    with open(os.path.join(etc, "libvirtd.conf"), "w") as f:
        f.write('unix_sock_rw_perms = "0700"\nauth_unix_rw = "none"\n'
                'log_outputs = "3:file:%s/libvirtd.log"\n' % rundir)
    # libvirtd resolves its compiled-in QEMU user before reading
    # qemu.conf; libvirt-daemon-system would create it host-wide. Here it
    # exists only inside the namespace (uid 0: we run as root anyway).
    for f, line in (("passwd", "libvirt-qemu:x:0:0:vxswitch private "
                     "libvirtd:/var/lib/libvirt:/usr/sbin/nologin\n"),
                    ("group", "libvirt-qemu:x:0:\n")):
        with open("/etc/" + f) as src:
            text = src.read()
        if "\nlibvirt-qemu:" not in "\n" + text:
            text += line
        with open(os.path.join(etc, f), "w") as dst:
            dst.write(text)
    binds = " && ".join(
        "mkdir -p %s && mount --bind %s %s" % (d, shlex.quote(
            os.path.join(rundir, sub)), d) for d, sub in dirs.items())
    binds += "".join(" && mount --bind %s /etc/%s" % (
        shlex.quote(os.path.join(etc, f)), f) for f in ("passwd", "group"))
    script = ("mount --make-rprivate / && %s && exec libvirtd "
              "--config /etc/libvirt/libvirtd.conf" % binds)
    log = open(os.path.join(rundir, "libvirtd.out"), "ab")
    p = subprocess.Popen(["unshare", "--mount", "sh", "-c", script],
                         stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True)
    sock = os.path.join(rundir, "run", "libvirt-sock")
    uri = "qemu:///system?socket=%s" % sock
    for _ in range(200):
        if os.path.exists(sock) and subprocess.run(
                ["virsh", "-c", uri, "version"], capture_output=True,
                timeout=20).returncode == 0:
            return p, uri
        if p.poll() is not None:
            break
        time.sleep(0.1)
    p.kill()
    raise RuntimeError("private libvirtd did not start (see %s)" %
                       os.path.join(rundir, "libvirtd.log"))


def virsh(uri, *args, check=True):
    r = subprocess.run(["virsh", "-c", uri] + [str(x) for x in args],
                       capture_output=True, text=True, timeout=60)
    if check and r.returncode:
        raise RuntimeError("virsh %s: %s" % (" ".join(map(str, args)),
                                             r.stderr.strip()))
    return r.stdout


# ----------------------------------------------------- the switch port

def port_of(domain_xml):
    """(port name, socket, queues) from a domain XML of ours; None for
    one without our <metadata>."""
    root = ET.fromstring(domain_xml)
    el = root.find("metadata/{%s}port" % META_NS)
    if el is None:
        return None
    return el.get("name"), el.get("socket"), int(el.get("queues", "1"))


def ctl_argv(ctl="vxswitch-ctl", socket=None):
    return [ctl] + (["-s", socket] if socket else [])


def plug(ctl, name, sock, queues=1):
    """add-port for a guest about to start (ctl: ctl_argv())."""
    cmd = ctl + ["add-port", name, "type=dpdkvhostuserclient",
                 "options:vhost-server-path=%s" % sock]
    if queues > 1:
        cmd.append("options:n_rxq=%d" % queues)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if r.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd),
                                       (r.stderr or r.stdout).strip()))


def unplug(ctl, name, check=True):
    """del-port for a guest that stopped; its flows stay."""
    r = subprocess.run(ctl + ["del-port", name], capture_output=True,
                       text=True, timeout=30)
    if check and r.returncode:
        raise RuntimeError("del-port %s: %s" % (name, (r.stderr or
                                                        r.stdout).strip()))
    return r.returncode == 0


def start_domain(uri, xml_path, ctl=None):
    """virsh start, its port plugged first unless ctl is None; the port
    is unplugged again if the domain does not start."""
    name = os.path.basename(xml_path)[:-4]
    port = None
    if ctl is not None:
        with open(xml_path) as f:
            port = port_of(f.read())
        if port is None:
            raise RuntimeError("%s has no vxswitch port <metadata> (made by "
                               "an older guests.py xml? use --static)"
                               % xml_path)
        plug(ctl, *port)
    try:
        virsh(uri, "start", name)
    except Exception:
        if port:
            unplug(ctl, port[0], check=False)
        raise
    return port


def destroy_domain(uri, xml_path, ctl=None):
    """virsh destroy, then its port unplugged unless ctl is None."""
    name = os.path.basename(xml_path)[:-4]
    virsh(uri, "destroy", name, check=False)
    if ctl is not None:
        with open(xml_path) as f:
            port = port_of(f.read())
        if port:
            unplug(ctl, port[0], check=False)
            return port
    return None


# ------------------------------------------------------------------ CLI

def main(argv=None):
    ap = argparse.ArgumentParser(
        description="QEMU/libvirt guests on vxswitch vhost-user ports",
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=["qemu-cmd", "xml", "define", "start",
                                       "destroy", "undefine", "libvirtd"])
    ap.add_argument("--vms", type=int, default=2)
    ap.add_argument("--first", type=int, default=0, help="first guest index")
    ap.add_argument("--sock-dir", default=os.environ.get(
        "VXS_RUN_DIR", "/tmp/vxswitch"), help="vhost-user sockets' dir")
    ap.add_argument("--run-dir", default=None,
                    help="consoles and monitors (default: --sock-dir)")
    ap.add_argument("--out", default="guests", help="domain XML dir")
    ap.add_argument("--cache", default=DEFAULT_CACHE)
    ap.add_argument("--mem-mb", type=int, default=256)
    ap.add_argument("--accel", choices=["tcg", "kvm"], default="tcg")
    ap.add_argument("--mem-backing", choices=["auto", "memfd", "hugepages"],
                    default="auto")
    ap.add_argument("--plan", help="core plan JSON (scripts/host-plan.py)")
    ap.add_argument("--uri", default="qemu:///system")
    ap.add_argument("--rundir", help="libvirtd: its private state dir")
    ap.add_argument("--guest", action="append", default=[],
                    help="define/start/destroy/undefine only this guest "
                    "(repeatable; default every DIR/*.xml)")
    ap.add_argument("--queues", type=int, default=1,
                    help="queue pairs of each guest's interface")
    ap.add_argument("--port-name", default="vhost-user{i}",
                    help="xml: the guest's switch port, {i} its index")
    ap.add_argument("--static", action="store_true",
                    help="start/destroy: the ports are in the topology; "
                    "no add-port/del-port")
    ap.add_argument("--ctl", default=os.environ.get("VXS_CTL",
                                                    "vxswitch-ctl"),
                    help="the vxswitch-ctl program")
    ap.add_argument("--ctl-socket", default=None,
                    help="vxswitch's control socket (vxswitch-ctl -s)")
    a = ap.parse_args(argv)
    a.run_dir = a.run_dir or a.sock_dir
    if a.mem_backing == "auto":
        a.mem_backing = ("hugepages" if hugepages_free_mb() >=
                         a.vms * a.mem_mb + 512 else "memfd")

    if a.action == "libvirtd":
        if not a.rundir:
            ap.error("libvirtd needs --rundir")
        p, uri = private_libvirtd(a.rundir)
        print("libvirtd pid %d, --uri '%s'" % (p.pid, uri))
        return 0
    if a.action == "qemu-cmd":
        for g in make_guests(a):
            print(shlex.join(g.qemu_argv()))
        return 0
    if a.action == "xml":
        os.makedirs(a.out, exist_ok=True)
        for g in make_guests(a):
            path = os.path.join(a.out, g.name + ".xml")
            with open(path, "w") as f:
                f.write(g.domain_xml())
            print(path)
        return 0
    xmls = sorted(f for f in os.listdir(a.out) if f.endswith(".xml"))
    if a.guest:
        missing = set(a.guest) - {x[:-4] for x in xmls}
        if missing:
            ap.error("no %s in %s" % (", ".join(sorted(missing)), a.out))
        xmls = [x for x in xmls if x[:-4] in a.guest]
    ctl = None if a.static else ctl_argv(a.ctl, a.ctl_socket)
    for x in xmls:
        name, path, port = x[:-4], os.path.join(a.out, x), None
        if a.action == "define":
            virsh(a.uri, "define", path)
        elif a.action == "start":
            port = start_domain(a.uri, path, ctl)
        elif a.action == "destroy":
            port = destroy_domain(a.uri, path, ctl)
        else:
            virsh(a.uri, "undefine", name, check=False)
        print("%s %s%s" % (a.action, name, " (port %s %s)" % (
            port[0], "added" if a.action == "start" else "deleted")
            if port else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
