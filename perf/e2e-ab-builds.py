#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two vxswitch builds side by side in perf/e2e-bench.py: what a change to
the datapath costs end to end, A/B in one run on the same machine.

    perf/e2e-ab-builds.py --builds main=../wt-base/build,trace=build \\
        --rounds 4 --tag trace-hook -- --vms 2 --flows 32 --seconds 10

Each round runs e2e-bench once per build (--reps 1, its own start of the
switch and VMs), in ABBA order over the rounds so that a drift of the
machine's load falls on both alike. The builds' windows are then merged,
each row's 'opts' column naming its build, into e2e-TAG.md: the Mpps
table and the stage table (cycles per packet per stage) with one column
per build. The arguments after -- go to every e2e-bench run (not --reps,
--tag, --ab or --sg).
"""

import argparse
import csv
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "perf" / "results"
BENCH = REPO / "perf" / "e2e-bench.py"


def parse_builds(text):
    """'a=DIR,b=DIR' -> [(label, Path)]; ValueError names what is wrong."""
    builds = []
    for item in text.split(","):
        label, sep, d = item.partition("=")
        if not sep or not label or not d:
            raise ValueError("%r: expected LABEL=BUILD_DIR" % item)
        p = Path(d).resolve()
        if not (p / "app" / "vxswitch").is_file():
            raise ValueError("%s: no app/vxswitch in %s" % (label, p))
        builds.append((label, p))
    if len(builds) < 2 or len({b[0] for b in builds}) != len(builds):
        raise ValueError("two or more builds with distinct labels")
    return builds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builds", required=True, metavar="L=DIR,L=DIR")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--tag", required=True)
    ap.add_argument("bench_args", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    try:
        builds = parse_builds(a.builds)
    except ValueError as e:
        ap.error(str(e))
    extra = [x for x in a.bench_args if x != "--"]
    for bad in ("--reps", "--tag", "--ab", "--sg", "--merge"):
        if bad in extra:
            ap.error("%s is this script's to set" % bad)
    rows, fields, failed = [], None, 0
    for rnd in range(a.rounds):
        order = builds if rnd % 2 == 0 else list(reversed(builds))
        for label, d in order:
            tag = "%s-%s-r%d" % (a.tag, label, rnd)
            print("== round %d, build %s (%s)" % (rnd, label, d), flush=True)
            rc = subprocess.call(
                [sys.executable, str(BENCH), "--reps", "1", "--tag", tag]
                + extra, env=dict(os.environ, VXS_BUILD_DIR=str(d)))
            path = RESULTS / ("e2e-%s.csv" % tag)
            if rc:      # a window that failed (its row says why) is
                failed += 1     # left out by the merge; the rest count
                print("e2e-bench: a window failed for %s (rc %d)"
                      % (label, rc))
            if not path.exists():
                continue
            with open(path, newline="") as fh:
                r = csv.DictReader(fh)
                fields = r.fieldnames
                for row in r:
                    row["opts"] = "build=" + label
                    row["rep"] = str(rnd + 1)
                    rows.append(row)
            for p in RESULTS.glob("e2e-%s*" % tag):
                p.unlink()
    if not rows:
        print("no window measured")
        return 1
    raw = "%s-raw" % a.tag
    with open(RESULTS / ("e2e-%s.csv" % raw), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    rc = subprocess.call([sys.executable, str(BENCH), "--merge", raw,
                          "--tag", a.tag])
    if failed:
        print("%d e2e-bench runs had a failed window (left out)" % failed)
    return rc or (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
