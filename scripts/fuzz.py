#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""vxswitch's fuzz suite, long mode (the CI runs the same code small:
tests/integration/test_fuzz.py). Needs root and hugepages, like the
integration tests.

    python3 scripts/fuzz.py --build build-asan --packets 10M
    python3 scripts/fuzz.py --build build --small --categories nic,ctl

Prints a table: category x inputs x crashes x sanitizer reports x leaked
mbufs x counter mismatches x other failures; exits 1 if any cell but
inputs is non-zero (a category whose tool is missing is "not available"
and does not fail the run). See python/vxswitch_tools/fuzz.py for what each
category does.
"""

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path



def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.
                                 RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build-asan",
                    help="build directory (default build-asan)")
    ap.add_argument("--small", action="store_true",
                    help="the CI sizes instead of the long ones")
    ap.add_argument("--categories", default="all",
                    help="comma-separated, or 'all' (%(default)s)")
    ap.add_argument("--packets", help="frames from the NIC side and from "
                    "the VM side each, e.g. 10M")
    ap.add_argument("--nic-packets")
    ap.add_argument("--vm-packets")
    ap.add_argument("--mutants", help="distinct frames per pcap")
    ap.add_argument("--arp-ips", help="distinct sender IPs of the flood")
    ap.add_argument("--vhost-cases", help="hostile frontend runs: every "
                    "case of vhost-frontend.py --list-cases in turn, client "
                    "and server mode alternating")
    ap.add_argument("--ctl-requests", help="control requests before the "
                    "table exhaustion")
    ap.add_argument("--ctl-exhaust", help="entries per table exhausted")
    ap.add_argument("--ctl-tables", help="tables to exhaust, in order: "
                    "flow, route, arp, each optionally :N entries "
                    "(e.g. flow:5000,arp)")
    ap.add_argument("--ctl-limits", help="the ctl topology's datapath "
                    "limits, KEY=N,... (max-flows, max-routes, "
                    "max-neighbours; a table filled past one must refuse), "
                    "or 'default'")
    ap.add_argument("--ovsdb-accepted", help="update mutants the replica "
                    "takes (wrong values, odd names...; capped by the "
                    "distinct ones there are)")
    ap.add_argument("--ovsdb-dropped", help="mutants that drop the "
                    "connection (each costs the 1 s reconnect)")
    ap.add_argument("--ovsdb-many", help="interfaces added, then deleted, "
                    "in one update")
    ap.add_argument("--topo-mutations")
    ap.add_argument("--restarts", help="guest kill/restart cycles")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir", help="pcaps, logs, mutated files (default "
                    "a new directory in /tmp, kept)")
    ap.add_argument("--json", help="also write the rows to this file")
    a = ap.parse_args()

    os.environ["VXS_BUILD_DIR"] = str(Path(a.build).resolve())
    # here, not at the top: --help without scapy's import time
    from vxswitch_tools import fuzz as fuzzlib
    from vxswitch_tools import harness as vxlib

    sizes = dict(fuzzlib.SMALL if a.small else fuzzlib.LONG)
    if a.packets:
        sizes["nic_packets"] = sizes["vm_packets"] = \
            fuzzlib.parse_count(a.packets)
    for key in ("nic_packets", "vm_packets", "mutants", "arp_ips",
                "vhost_cases", "ctl_requests", "ctl_exhaust",
                "ovsdb_accepted", "ovsdb_dropped", "ovsdb_many",
                "topo_mutations", "restarts"):
        v = getattr(a, key)
        if v:
            sizes[key] = fuzzlib.parse_count(v)
    if a.ctl_limits:
        sizes["ctl_limits"] = {} if a.ctl_limits == "default" else {
            k.strip(): fuzzlib.parse_count(v) for k, _, v in
            (kv.partition("=") for kv in a.ctl_limits.split(","))}
    if a.ctl_tables:
        sizes["ctl_tables"] = tuple(t.strip() for t in
                                    a.ctl_tables.split(","))
    cats = (fuzzlib.CATEGORIES if a.categories == "all"
            else [c.strip() for c in a.categories.split(",") if c.strip()])
    bad = [c for c in cats if c not in fuzzlib.CATEGORIES]
    if bad:
        ap.error("unknown categories %s (have: %s)"
                 % (", ".join(bad), ", ".join(fuzzlib.CATEGORIES)))
    if os.geteuid() != 0:
        sys.exit("fuzz.py: needs root (hugepages, vhost sockets)")
    vxlib.ensure_hugepages()
    workdir = Path(a.workdir or tempfile.mkdtemp(prefix="vxs-fuzz-"))
    print("fuzz: build %s, seed %d, workdir %s\nfuzz: sizes %s"
          % (os.environ["VXS_BUILD_DIR"], a.seed, workdir, sizes),
          flush=True)
    fz = fuzzlib.Fuzz(workdir, sizes, a.seed,
                      log=lambda s: print(s, flush=True))
    try:
        rows = fz.run(cats)
    finally:
        vxlib.reap_all()
    print()
    print(fuzzlib.table(rows))
    if a.json:
        Path(a.json).write_text(json.dumps([r.as_dict() for r in rows],
                                           indent=1) + "\n")
    failed = [r.category for r in rows if r.failed]
    print("\nfuzz: %s" % ("FAILED: " + ", ".join(failed) if failed
                          else "all zeros"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
