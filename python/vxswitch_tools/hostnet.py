# SPDX-License-Identifier: BSD-3-Clause
"""The host around the switch: commands in network namespaces, veth
pairs, hugepages (scripts/hugepages.sh)."""

import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path

from .procs import SCRIPTS, HarnessError, _counter

# ------------------------------------------------------------ networking

def sh(cmd, ns=None, check=True, timeout=30):
    """Runs a command (list or string), in netns `ns` if given; returns
    stdout. Raises AssertionError with stderr if check and it fails."""
    if isinstance(cmd, str):
        cmd = cmd.split()
    cmd = [str(c) for c in cmd]
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    if check and r.returncode != 0:
        raise AssertionError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                  r.stderr.strip()))
    return r.stdout


@contextlib.contextmanager
def netns(name=None):
    """Creates a network namespace (lo up); always deletes it, killing
    whatever still runs in it."""
    name = name or "vxt%d_%d" % (os.getpid(), next(_counter))
    sh(["ip", "netns", "add", name])
    try:
        sh(["ip", "link", "set", "lo", "up"], ns=name)
        yield name
    finally:
        pids = sh(["ip", "netns", "pids", name], check=False).split()
        for p in pids:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(p), signal.SIGKILL)
        sh(["ip", "netns", "del", name], check=False)


def offloads_off(dev, ns=None):
    """ethtool -K DEV tx off rx off gso off tso off gro off (each feature
    separately: a veth may not know all of them)."""
    for feat in ("tx", "rx", "gso", "tso", "gro"):
        sh(["ethtool", "-K", dev, feat, "off"], ns=ns, check=False)


@contextlib.contextmanager
def veth_pair(a, b, ns=None, ns_a=None, mtu=None, offloads=False, up=True):
    """Creates veth a <-> b; b is moved into netns `ns`, a into `ns_a` (or
    stays in the root ns). Offloads are switched off unless offloads=True
    (checksums then are real in captures). Deleted on exit."""
    sh(["ip", "link", "add", a, "type", "veth", "peer", "name", b])
    try:
        if ns:
            sh(["ip", "link", "set", b, "netns", ns])
        if ns_a:
            sh(["ip", "link", "set", a, "netns", ns_a])
        for dev, where in ((a, ns_a), (b, ns)):
            if mtu:
                sh(["ip", "link", "set", dev, "mtu", mtu], ns=where)
            if not offloads:
                offloads_off(dev, ns=where)
            if up:
                sh(["ip", "link", "set", dev, "up"], ns=where)
        yield a, b
    finally:
        sh(["ip", "link", "del", a], ns=ns_a, check=False)


def link_mac(dev, ns=None):
    """The MAC of dev (in netns ns), lower case."""
    return json.loads(sh(["ip", "-j", "link", "show", dev],
                         ns=ns))[0]["address"].lower()


def no_ipv6(dev, ns=None):
    """IPv6 off on dev: router solicitations, MLD and DAD would only add
    noise to tunnels, captures and packet counts."""
    sh(["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % dev], ns=ns,
       check=False)


def kernel_vtep(phy, peer, ns, inner_cidr, local_ip, remote_ip, vni,
                inner_mtu=1450, dev="vx0", mac=None):
    """A Linux VXLAN device as the VTEP at the far end of the veth phy (the
    switch's side, root ns) == peer (in ns): peer gets local_ip/24 and
    `dev` (VNI vni, remote remote_ip, UDP 4789) carries inner_cidr, with
    MAC mac if given. IPv6 off everywhere. Linux caps a VXLAN device bound
    to its lower device at that device's MTU less 50: one with a bigger
    inner_mtu (a new user's 1500 over a 1500 underlay) is left unbound and
    reaches remote_ip by its route (peer's /24)."""
    for d, dns in ((phy, None), (peer, ns)):
        no_ipv6(d, dns)
        sh(["ip", "link", "set", d, "up"], ns=dns)
    sh(["ip", "addr", "add", local_ip + "/24", "dev", peer], ns=ns)
    bind = ["dev", peer] if inner_mtu <= 1450 else []
    sh(["ip", "link", "add", dev, "type", "vxlan", "id", vni,
        "remote", remote_ip, "local", local_ip, "dstport", 4789] + bind,
       ns=ns)
    no_ipv6(dev, ns)
    if mac:
        sh(["ip", "link", "set", dev, "address", mac], ns=ns)
    sh(["ip", "link", "set", dev, "mtu", inner_mtu, "up"], ns=ns)
    sh(["ip", "addr", "add", inner_cidr, "dev", dev], ns=ns)


# --------------------------------------------------------------- machine

def hugepages_free():
    """Free 2 MB hugepages."""
    try:
        return int(Path("/sys/kernel/mm/hugepages/hugepages-2048kB/"
                        "free_hugepages").read_text())
    except OSError:
        return 0


def ensure_hugepages(n=None):
    """Runs scripts/hugepages.sh (reserve, mount, clean stale files);
    returns the number of free 2 MB pages."""
    env = dict(os.environ)
    if n is not None:
        env["VXS_HUGEPAGES"] = str(n)
    r = subprocess.run(["bash", str(SCRIPTS / "hugepages.sh"), "-q"],
                       capture_output=True, text=True, env=env, timeout=120)
    if r.returncode != 0:
        raise HarnessError("hugepages.sh failed (%d): %s%s"
                           % (r.returncode, r.stdout, r.stderr))
    return hugepages_free()
