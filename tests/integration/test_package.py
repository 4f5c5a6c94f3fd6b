# SPDX-License-Identifier: BSD-3-Clause
"""scripts/package.sh builds a Debian package from `meson install`; it is
installed with dpkg into a throw-away root (its Depends checked against
this host's packages) and run from there: the binaries, the man pages, the
systemd unit (systemd-analyze verify) and what else meson installs.

The .deb is built once per session (a release build in build-pkg/,
reused by later runs)."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    out = tmp_path_factory.mktemp("deb")
    r = subprocess.run([str(REPO / "scripts" / "package.sh"), str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    deb = Path(r.stdout.strip().splitlines()[-1])
    assert deb.is_file() and deb.parent == out, r.stdout
    root = tmp_path_factory.mktemp("root")
    admin = root / "var/lib/dpkg"
    (admin / "info").mkdir(parents=True)
    (admin / "updates").mkdir()
    (admin / "available").touch()
    # the host's package set, so that Depends are really checked
    (admin / "status").write_bytes(Path("/var/lib/dpkg/status").read_bytes())
    r = subprocess.run(["dpkg", "--instdir=%s" % root,
                        "--admindir=%s" % admin,
                        "--force-script-chrootless", "-i", str(deb)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    assert "Setting up vxswitch" in r.stdout, r.stdout
    return deb, root


def test_package_contents(installed):
    deb, root = installed
    info = subprocess.run(["dpkg-deb", "-f", str(deb), "Package", "Depends",
                           "Suggests"], capture_output=True, text=True,
                          check=True).stdout
    assert info.startswith("Package: vxswitch\n")
    for dep in ("librte-eal23", "librte-vhost23", "libyaml-0-2",
                "libjansson4", "libsystemd0", "librte-mempool-ring23"):
        assert dep in info, info
    assert "\nSuggests: openvswitch-switch\n" in info, info
    for f in ("usr/sbin/vxswitch", "usr/bin/vxswitch-ctl",
              "usr/sbin/vxswitch-ovs",
              "usr/share/man/man8/vxswitch.8.gz",
              "usr/share/man/man8/vxswitch-ctl.8.gz",
              "usr/share/man/man8/vxswitch-ovs.8.gz",
              "usr/share/man/man5/vxswitch-topology.5.gz",
              "lib/systemd/system/vxswitch.service",
              "lib/systemd/system/vxswitch-ovs.service",
              "usr/share/bash-completion/completions/vxswitch-ctl",
              "usr/share/vxswitch/examples/topology/vxlan-2vm.yaml",
              "usr/share/doc/vxswitch/README.md",
              "usr/share/doc/vxswitch/copyright"):
        assert (root / f).is_file(), f
    assert os.access(root / "usr/sbin/vxswitch", os.X_OK)
    assert os.access(root / "usr/sbin/vxswitch-ovs", os.X_OK)


def test_installed_binaries_and_man(installed):
    _, root = installed
    version = subprocess.run(["meson", "introspect", "--projectinfo",
                              str(REPO / "build-pkg")], capture_output=True,
                             text=True, check=True).stdout
    r = subprocess.run([str(root / "usr/sbin/vxswitch"), "--version"],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and r.stdout.startswith("vxswitch "), r
    assert '"version": "%s"' % r.stdout.split()[1] in version
    r = subprocess.run([str(root / "usr/bin/vxswitch-ctl"), "--help"],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and r.stdout.startswith("usage: vxswitch-ctl")
    # man -l on the installed page, and man by name with MANPATH
    env = {**os.environ, "MANWIDTH": "80"}
    r = subprocess.run(["man", "-P", "cat", "-l",
                        str(root / "usr/share/man/man8/vxswitch.8.gz")],
                       capture_output=True, text=True, timeout=30, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].split() == [
        "VXSWITCH(8)", "System", "Administration", "VXSWITCH(8)"]
    assert "--log-file" in r.stdout and "--detach" in r.stdout
    env["MANPATH"] = str(root / "usr/share/man")
    for page, want in (("vxswitch-topology", "VXSWITCH-TOPOLOGY(5)"),
                       ("vxswitch-ctl", "VXSWITCH-CTL(8)"),
                       ("vxswitch-ovs", "VXSWITCH-OVS(8)")):
        r = subprocess.run(["man", "-P", "cat", page], capture_output=True,
                           text=True, timeout=30, env=env)
        assert r.returncode == 0 and r.stdout.startswith(want), r


def test_installed_script_runs(installed):
    """vxswitch-ovs from the package: its usage, and a bad command refused
    before anything starts."""
    _, root = installed
    r = subprocess.run([str(root / "usr/sbin/vxswitch-ovs"), "--help"],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and r.stdout.startswith(
        "usage: vxswitch-ovs "), r
    r = subprocess.run([str(root / "usr/sbin/vxswitch-ovs"), "bogus"],
                       capture_output=True, text=True, timeout=10)
    assert (r.returncode, r.stderr) == (
        1, "vxswitch-ovs: unknown command 'bogus' (use --help for help)\n")


def test_installed_unit_verifies(installed, tmp_path):
    """systemd-analyze verify exits 0 even for unknown keys, so its stderr
    must be empty too; the man: pages it checks are the installed ones."""
    _, root = installed
    unit = (root / "lib/systemd/system/vxswitch.service").read_text()
    assert "ExecStart=/usr/sbin/vxswitch --config " in unit
    assert "Type=notify" in unit
    assert "UnsetEnvironment=RUNTIME_DIRECTORY" in unit
    # ExecStart must exist: point it at the package's binary
    test_unit = tmp_path / "vxswitch.service"
    test_unit.write_text(unit.replace("/usr/sbin/vxswitch",
                                      str(root / "usr/sbin/vxswitch")))
    r = subprocess.run(["systemd-analyze", "verify", str(test_unit)],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ,
                            "MANPATH": str(root / "usr/share/man")})
    assert (r.returncode, r.stderr) == (0, ""), r
    # vxswitch-ovs.service: OVSDB mode beside Debian's ovsdb-server
    unit = (root / "lib/systemd/system/vxswitch-ovs.service").read_text()
    for line in ("Type=notify", "Requires=ovsdb-server.service",
                 "Conflicts=ovs-vswitchd.service",
                 "ExecStart=/usr/sbin/vxswitch --config /etc/vxswitch/"
                 "topology.yaml --ovsdb unix:/var/run/openvswitch/db.sock "
                 "--pidfile "):
        assert line in unit, line
    assert "After=ovsdb-server.service" in unit
    ovs_unit = tmp_path / "vxswitch-ovs.service"
    ovs_unit.write_text(unit.replace("/usr/sbin/vxswitch",
                                     str(root / "usr/sbin/vxswitch")))
    r = subprocess.run(["systemd-analyze", "verify", str(ovs_unit)],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ,
                            "MANPATH": str(root / "usr/share/man")})
    assert (r.returncode, r.stderr) == (0, ""), r
    # and it does catch a broken unit
    test_unit.write_text(unit.replace("Type=notify", "Type=notifyy"))
    r = subprocess.run(["systemd-analyze", "verify", "--man=no",
                        str(test_unit)], capture_output=True, text=True,
                       timeout=60)
    assert "Failed to parse service type" in r.stderr, r
