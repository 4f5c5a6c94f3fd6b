# SPDX-License-Identifier: BSD-3-Clause
"""scripts/host-plan.py on a fake sysfs (VXS_SYSFS): a 2-socket host with
SMT, the NIC on node 1, like a bare-metal NFV host; and the plan it writes
fed to gen-topology.py --plan and guests.py --plan."""
import json
import os
import subprocess
import sys

import yaml

from vxswitch_tools import qemu_guest as guestlib

ROOT = guestlib.ROOT
PY = sys.executable


def fake_sysfs(root, nic_node=1, isolated="", no_turbo="0",
               governor="powersave", hugepages=(0, 0)):
    """2 nodes x 8 cores x 2 threads: cpu c and c+32 are siblings; node 0
    has cores 0-7 (cpus 0-7, 32-39), node 1 cores 8-15 (cpus 8-15, 40-47)
    ... of 64 cpus, only 0-15 and 32-47 online here."""
    cpus = list(range(16)) + list(range(32, 48))

    def w(path, text):
        p = root / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text + "\n")
    w("devices/system/cpu/online", "0-15,32-47")
    w("devices/system/cpu/isolated", isolated)
    w("devices/system/cpu/intel_pstate/no_turbo", no_turbo)
    for c in cpus:
        core = c % 32
        t = "devices/system/cpu/cpu%d/" % c
        w(t + "topology/core_id", str(core % 8))
        w(t + "topology/physical_package_id", str(core // 8))
        w(t + "topology/thread_siblings_list", "%d,%d" % (core, core + 32))
        w(t + "cpufreq/scaling_governor", governor)
    w("devices/system/node/node0/cpulist", "0-7,32-39")
    w("devices/system/node/node1/cpulist", "8-15,40-47")
    for n in (0, 1):
        w("devices/system/node/node%d/hugepages/hugepages-2048kB/"
          "nr_hugepages" % n, str(hugepages[n]))
    w("bus/pci/devices/0000:af:00.0/numa_node", str(nic_node))


def run_plan(tmp_path, *args, env_sysfs):
    out = tmp_path / "plan.json"
    r = subprocess.run([PY, str(ROOT / "scripts" / "host-plan.py"),
                        "--nic", "0000:af:00.0", "--out", str(out)]
                       + list(args), capture_output=True, text=True,
                       env=dict(os.environ, VXS_SYSFS=str(env_sysfs)),
                       timeout=30)
    return r, json.loads(out.read_text())


def test_plan_follows_the_nic_and_reports_problems(tmp_path):
    sysfs = tmp_path / "sys"
    fake_sysfs(sysfs)
    r, plan = run_plan(tmp_path, "--vms", "8", "--pmds", "4",
                       env_sysfs=sysfs)
    assert r.returncode == 1, r.stdout          # problems found
    assert plan["nic_numa_node"] == 1
    # housekeeping first, then whole physical cores on node 1 for PMDs,
    # their SMT siblings (pmd + 32) not given to anyone
    assert plan["housekeeping"] == 8
    assert plan["pmd_cores"] == [9, 10, 11, 12], plan
    vcpus = [int(v["vcpus"]) for v in plan["vms"]]
    assert len(set(vcpus)) == 8 and not set(vcpus) & {
        8, 40, 9, 10, 11, 12, 41, 42, 43, 44}, vcpus
    assert plan["socket_mem"] == "0,1024", plan
    out = r.stdout
    assert "not isolated" in out and "isolcpus=" in out, out
    assert "turbo is on" in out, out
    assert "governor powersave" in out, out
    assert "node 1: 0 hugepages" in out, out

    # everything fixed: no problem left, exit 0
    fake_sysfs(sysfs, isolated="9-15,41-47,0-7", no_turbo="1",
               governor="performance", hugepages=(4096, 4096))
    want_iso = set(plan["pmd_cores"]) | set(vcpus)
    iso = ",".join(map(str, sorted(want_iso)))
    (sysfs / "devices/system/cpu/isolated").write_text(iso + "\n")
    (sysfs / "devices/system/cpu/nohz_full").write_text(iso + "\n")
    mounts = open("/proc/mounts").read()
    r2, _ = run_plan(tmp_path, "--vms", "8", "--pmds", "4",
                     env_sysfs=sysfs)
    if " hugetlbfs " in mounts:
        assert r2.returncode == 0, r2.stdout
        assert "PROBLEM" not in r2.stdout, r2.stdout

    # the plan drives the topology and the guests
    topo = yaml.safe_load(subprocess.run(
        [PY, str(ROOT / "scripts" / "gen-topology.py"), "--vms", "32",
         "--plan", str(tmp_path / "plan.json")], capture_output=True,
        text=True, check=True, timeout=30).stdout)
    assert topo["datapath"]["pmd-cores"] == [9, 10, 11, 12]
    vhost = [p for p in topo["ports"] if p["name"].startswith("vhost-user")]
    per_core = {}
    for p in vhost:
        core = int(p["rxq-affinity"].split(":")[1])
        per_core[core] = per_core.get(core, 0) + 1
    assert per_core == {9: 8, 10: 8, 11: 8, 12: 8}, per_core   # the seed's
    nic = [p for p in topo["ports"] if p["name"] == "dpdk-phy"][0]
    assert nic["devargs"] == "0000:af:00.0"
    assert nic["rxq-affinity"] == "0:9,1:10,2:11,3:12", nic


def test_guest_xml_from_plan(tmp_path):
    sysfs = tmp_path / "sys"
    fake_sysfs(sysfs)
    _, plan = run_plan(tmp_path, "--vms", "2", "--pmds", "2",
                       env_sysfs=sysfs)
    img = tmp_path / "img"
    (img / "k").mkdir(parents=True)
    (img / "current").symlink_to("k")
    (img / "k" / "manifest").write_text("kernel=/x/vmlinuz\n"
                                        "initrd=/x/initrd.gz\n")
    out = tmp_path / "xml"
    subprocess.run([PY, str(ROOT / "scripts" / "guests.py"), "xml",
                    "--vms", "2", "--out", str(out), "--cache", str(img),
                    "--plan", str(tmp_path / "plan.json"), "--sock-dir",
                    "/run/vx", "--mem-backing", "hugepages"],
                   check=True, capture_output=True, timeout=30)
    import xml.etree.ElementTree as ET
    for i in range(2):
        d = ET.parse(out / ("vxguest%d.xml" % i)).getroot()
        assert d.find("devices/interface").get("type") == "vhostuser"
        src = d.find("devices/interface/source")
        assert src.get("mode") == "server"
        assert src.get("path") == "/run/vx/vhost%d.sock" % i
        assert d.find("memoryBacking/access").get("mode") == "shared"
        assert d.find("memoryBacking/hugepages") is not None
        assert d.find("cputune/vcpupin").get("cpuset") == \
            plan["vms"][i]["vcpus"]
        assert d.find("cputune/emulatorpin").get("cpuset") == "8"
        assert d.find("numatune/memory").get("nodeset") == "1"
        assert "vx.ip=192.1.0.%d/16" % i in d.find("os/cmdline").text
        ns = "{http://libvirt.org/schemas/domain/qemu/1.0}"
        prop = d.find("%soverride/%sdevice/%sfrontend/%sproperty"
                      % (ns, ns, ns, ns))
        assert prop.get("name") == "vectors" and prop.get("value") == "0"
