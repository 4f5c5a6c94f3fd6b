#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Host preparation for a bare-metal NFV host: a core plan, and checks.

    scripts/host-plan.py --vms 32 --pmds 4 [--nic 0000:18:00.0|IFACE]
                         [--out plan.json] [--apply]

Reads the CPU topology from sysfs (as lscpu does: packages, cores, SMT
siblings, NUMA nodes) and the NIC's NUMA node, and plans like the seed:
the housekeeping core (EAL main lcore, control thread, QEMU emulator
threads) first, then the PMD cores on the NIC's node (whole physical cores:
a PMD's SMT sibling is left idle, not given to a guest), then one core per
guest vCPU, NIC node first. Hugepages: the switch's socket-mem on the NIC's
node plus every guest's memory, per node.

Then it checks, and prints what is wrong, changing nothing:
  - the NIC is on another node than the PMD cores;
  - PMD and vCPU cores are not isolated (isolcpus=/nohz_full=), or are
    shared with the housekeeping core;
  - turbo is on or the governor is not "performance" (cycles per packet
    drift with the clock);
  - too few 2 MB hugepages reserved on a node, or hugetlbfs not mounted;
  - not enough cores for the plan (it then shares cores and says so).
Exit status 0 if nothing is wrong, 1 if something is (the plan is written
either way). --apply reserves the hugepages per node and sets the
governor to performance; isolation needs a kernel command line and a
reboot, so it is only printed.

The plan (JSON) feeds scripts/gen-topology.py --plan (PMD cores, main
lcore, socket-mem, rxq affinity) and scripts/guests.py --plan (vCPU and
emulator pinning, NUMA placement).
"""
import argparse
import glob
import json
import os
import sys

SYS = os.environ.get("VXS_SYSFS", "/sys")


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def cpu_list(text):
    out = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def fmt(cpus):
    return ",".join(map(str, cpus))


def topology():
    """[{cpu, core, package, node, siblings}] of the online CPUs."""
    online = cpu_list(read(SYS + "/devices/system/cpu/online", "0"))
    node_of = {}
    for nd in glob.glob(SYS + "/devices/system/node/node[0-9]*"):
        n = int(nd.rsplit("node", 1)[1])
        for c in cpu_list(read(nd + "/cpulist", "")):
            node_of[c] = n
    cpus = []
    for c in online:
        t = "%s/devices/system/cpu/cpu%d/topology/" % (SYS, c)
        cpus.append({
            "cpu": c,
            "core": int(read(t + "core_id", c)),
            "package": int(read(t + "physical_package_id", 0)),
            "node": node_of.get(c, 0),
            "siblings": cpu_list(read(t + "thread_siblings_list", str(c))),
        })
    return cpus


def nic_node(nic):
    if not nic:
        return None, "no --nic given: NUMA node 0 assumed"
    for p in (SYS + "/bus/pci/devices/%s/numa_node" % nic,
              SYS + "/class/net/%s/device/numa_node" % nic):
        v = read(p)
        if v is not None:
            return max(int(v), 0), None
    return None, "NIC %s not found in sysfs: NUMA node 0 assumed" % nic


def plan(a):
    cpus = topology()
    problems, notes = [], []
    node, why = nic_node(a.nic)
    if why:
        notes.append(why)
    node = node or 0
    by_cpu = {c["cpu"]: c for c in cpus}
    # physical cores as sibling groups, the NIC's node first
    groups, seen = [], set()
    for c in sorted(cpus, key=lambda c: (c["node"] != node, c["cpu"])):
        if c["cpu"] in seen:
            continue
        sib = [s for s in c["siblings"] if s in by_cpu]
        seen.update(sib)
        groups.append(sib)
    if not groups:
        sys.exit("host-plan.py: no CPUs found under %s" % SYS)
    hk_group = groups.pop(0) if len(groups) > 1 else groups[0]
    housekeeping = hk_group[0]
    pmds = []
    while len(pmds) < a.pmds and groups:
        g = groups.pop(0)
        pmds.append(g[0])           # its siblings stay idle
    if len(pmds) < a.pmds:
        problems.append("only %d cores for %d PMDs" % (len(pmds), a.pmds))
    free = [c for g in groups for c in g]
    rest = [c["cpu"] for c in cpus if c["cpu"] not in pmds] or [housekeeping]
    vms = []
    for i in range(a.vms):
        own = free.pop(0) if free else None
        vms.append({"name": "vxguest%d" % i,
                    "vcpus": str(own) if own is not None else fmt(rest),
                    "shared": own is None})
    shared = sum(v["shared"] for v in vms)
    if shared:
        problems.append("%d guests share cores %s (not enough cores for one "
                        "vCPU core each)" % (shared, fmt(rest)))

    for p in pmds:
        if by_cpu[p]["node"] != node:
            problems.append("PMD core %d is on node %d, the NIC on node %d"
                            % (p, by_cpu[p]["node"], node))
    isolated = set(cpu_list(read(SYS + "/devices/system/cpu/isolated", "")))
    nohz = set(cpu_list(read(SYS + "/devices/system/cpu/nohz_full", "")))
    want_iso = set(pmds) | {int(v["vcpus"]) for v in vms
                            if not v["shared"]}
    if not want_iso <= isolated:
        problems.append("cores %s are not isolated: add isolcpus=%s "
                        "nohz_full=%s rcu_nocbs=%s to the kernel command "
                        "line" % (fmt(sorted(want_iso - isolated)),
                                  fmt(sorted(want_iso)), fmt(sorted(want_iso)),
                                  fmt(sorted(want_iso))))
    elif not want_iso <= nohz:
        notes.append("cores isolated but not nohz_full")
    no_turbo = read(SYS + "/devices/system/cpu/intel_pstate/no_turbo")
    boost = read(SYS + "/devices/system/cpu/cpufreq/boost")
    if no_turbo == "0" or boost == "1":
        problems.append("turbo is on: the clock, and so cycles per packet, "
                        "varies with load (intel_pstate/no_turbo=1)")
    govs = {read(SYS + "/devices/system/cpu/cpu%d/cpufreq/scaling_governor"
                 % c) for c in want_iso | {housekeeping}} - {None}
    if govs and govs != {"performance"}:
        problems.append("cpufreq governor %s, not performance"
                        % "/".join(sorted(govs)))
    if not govs:
        notes.append("no cpufreq control here (a VM?): frequency not checked")

    nodes = sorted({c["node"] for c in cpus})
    need = {n: 0 for n in nodes}
    need[node] += a.switch_mem_mb // 2
    for v in vms:
        cpu = int(v["vcpus"].split(",")[0])
        need[by_cpu[cpu]["node"]] += a.guest_mem_mb // 2
    have = {}
    for n in nodes:
        p = "%s/devices/system/node/node%d/hugepages/hugepages-2048kB/" \
            "nr_hugepages" % (SYS, n)
        have[n] = int(read(p, read(SYS + "/kernel/mm/hugepages/"
                                   "hugepages-2048kB/nr_hugepages", "0")))
        if have[n] < need[n]:
            problems.append("node %d: %d hugepages of 2 MB reserved, %d "
                            "needed" % (n, have[n], need[n]))
    mounts = read("/proc/mounts", "")
    if " hugetlbfs " not in mounts:
        problems.append("hugetlbfs is not mounted (mount -t hugetlbfs "
                        "nodev /dev/hugepages)")

    socket_mem = ",".join(str(a.switch_mem_mb if n == node else 0)
                          for n in nodes)
    return {
        "nic": a.nic, "nic_numa_node": node,
        "housekeeping": housekeeping, "main_lcore": housekeeping,
        "emulator": str(housekeeping),
        "pmd_cores": pmds,
        "socket_mem": socket_mem,
        "vms": vms,
        "hugepages_2m_per_node": {str(n): need[n] for n in nodes},
        "hugepages_2m_reserved": {str(n): have[n] for n in nodes},
        "problems": problems, "notes": notes,
    }, need


def apply(p, need):
    for n, count in need.items():
        path = "%s/devices/system/node/node%d/hugepages/hugepages-2048kB/" \
               "nr_hugepages" % (SYS, n)
        if not os.path.exists(path):
            path = SYS + "/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
        cur = int(read(path, "0"))
        if cur < count:
            with open(path, "w") as f:
                f.write(str(count))
            print("node %d: hugepages %d -> %s" % (n, cur, read(path)))
    cores = set(p["pmd_cores"]) | {p["housekeeping"]}
    for c in cores:
        g = "%s/devices/system/cpu/cpu%d/cpufreq/scaling_governor" % (SYS, c)
        if os.path.exists(g):
            with open(g, "w") as f:
                f.write("performance")


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vms", type=int, default=32)
    ap.add_argument("--pmds", type=int, default=4)
    ap.add_argument("--nic", help="NIC PCI address or interface name")
    ap.add_argument("--switch-mem-mb", type=int, default=1024)
    ap.add_argument("--guest-mem-mb", type=int, default=1024)
    ap.add_argument("--out", help="write the plan (JSON) here")
    ap.add_argument("--apply", action="store_true",
                    help="reserve hugepages per node, governor performance")
    a = ap.parse_args(argv)
    p, need = plan(a)
    print("NIC %s on NUMA node %d" % (a.nic or "(none)", p["nic_numa_node"]))
    print("housekeeping (main lcore, emulator threads): %d" %
          p["housekeeping"])
    print("PMD cores: %s" % fmt(p["pmd_cores"]))
    vc = [v["vcpus"] for v in p["vms"]]
    print("guest vCPUs: %s" % (" ".join(vc[:8]) + (" ..." if len(vc) > 8
                                                    else "")))
    print("hugepages (2 MB) per node needed/reserved: %s" % ", ".join(
        "node %s %d/%d" % (n, p["hugepages_2m_per_node"][n],
                           p["hugepages_2m_reserved"][n])
        for n in p["hugepages_2m_per_node"]))
    for n in p["notes"]:
        print("note: " + n)
    for pr in p["problems"]:
        print("PROBLEM: " + pr)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(p, f, indent=1)
        print("plan written to %s" % a.out)
    if a.apply:
        apply(p, need)
    return 1 if p["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
