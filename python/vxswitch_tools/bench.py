# SPDX-License-Identifier: BSD-3-Clause
"""Small helpers of the benchmarks (perf/e2e-bench.py and the OVS-DPDK
side in ovs_dpdk.py): output, counts as 1k/250k/1M, and commands whose
failure is a BenchError."""

import subprocess

PMD_CORE = 1                # the switch's PMD core (main lcore 0)


def say(msg=""):
    print(msg, flush=True)


class BenchError(Exception):
    pass


def parse_count(s):
    s = s.strip().lower()
    mult = 1
    if s.endswith("k"):
        mult, s = 1000, s[:-1]
    elif s.endswith("m"):
        mult, s = 1000000, s[:-1]
    return int(float(s) * mult)


def fmt_count(n):
    if n >= 1000000 and n % 1000000 == 0:
        return "%dM" % (n // 1000000)
    if n >= 1000 and n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


def write_rows(path, fields, rows):
    """One CSV row per dict (fields in this order, others left out; floats
    to 4 decimals)."""
    import csv
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (round(v, 4) if isinstance(v, float) else v)
                        for k, v in r.items()})
    return path


def run(cmd, check=True, env=None, timeout=120):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                       env=env, timeout=timeout, stdin=subprocess.DEVNULL)
    if check and r.returncode:
        raise BenchError("%s: exit %d: %s %s" % (" ".join(map(str, cmd)),
                                                 r.returncode,
                                                 r.stdout.strip(),
                                                 r.stderr.strip()))
    return r.stdout
