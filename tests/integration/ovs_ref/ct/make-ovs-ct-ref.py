#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Makes the OVS references of the differential conntrack harness
(python/vxswitch_tools/ct_diff.py, cases in ct_cases.py): one JSON per
case in this folder, with each packet's verdict (ct_state as table 1 of
ct_diff.case_rules wrote it into the source MAC), its output frame and
the final `ovs-appctl dpctl/dump-conntrack`, its -m, -s and -m -s forms
(compared; -s's timeouts by class, ct_diff.normalise_timeouts), the
fragment store's counters the case moved (ipf-get-status; compared),
each flush-conntrack step of a case that has them (exit status and the
dump after; compared), plus the OVS version.
tests/integration/test_ct_diff.py compares vxswitch with them.

OVS runs as make-ovs-ref.sh runs it: Debian's ovs-vswitchd with
--enable-dummy, userspace datapath (br0, datapath_type=netdev), its own
OVS_RUNDIR and database, in a network namespace of its own; ports a and b
are type=dummy (polled by the main thread, one frame per
netdev-dummy/receive, each waited for: its rx counter moved, which the
main thread does before it processes it and answers the next request),
out is type=dummy with options:tx_pcap. Between cases: new rules
(del-flows, add-flows, revalidator/purge) and dpctl/flush-conntrack.

Usage (root; needs openvswitch-switch, which install-deps.sh leaves out):
  tests/integration/ovs_ref/ct/make-ovs-ct-ref.py [--out DIR] [CASE...]
Without CASE: every case, and the JSON of a case that no longer exists is
removed.
"""

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "python"))

from vxswitch_tools import ct_cases, ct_diff  # noqa: E402
from vxswitch_tools.pcap import read_pcap_raw  # noqa: E402

BR = "br0"


class OvsSide:
    name = "ovs"

    def __init__(self, ns, rundir):
        self.ns, self.dir = ns, Path(rundir)
        self.env = dict(os.environ, OVS_RUNDIR=str(rundir),
                        OVS_LOGDIR=str(rundir), OVS_DBDIR=str(rundir),
                        OVS_SYSCONFDIR=str(rundir))
        self.out_pcap = self.dir / "out.pcap"
        self.n_out = 0

    def run(self, *cmd, input=None, check=True):
        r = subprocess.run(["ip", "netns", "exec", self.ns] +
                           [str(c) for c in cmd], env=self.env, input=input,
                           capture_output=True, text=True, timeout=30)
        if check and r.returncode:
            raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(cmd),
                               r.returncode, r.stdout, r.stderr))
        return r.stdout

    def start(self):
        db = self.dir / "conf.db"
        subprocess.run(["ovsdb-tool", "create", db,
                        "/usr/share/openvswitch/vswitch.ovsschema"],
                       check=True)
        self.run("ovsdb-server", "--detach", "--no-chdir", "--pidfile",
                 "--log-file", "--remote=punix:%s/db.sock" % self.dir, db)
        self.run("ovs-vsctl", "--no-wait", "init")
        self.run("ovs-vswitchd", "--enable-dummy", "--disable-system",
                 "--disable-system-route", "--detach", "--no-chdir",
                 "--pidfile", "--log-file")
        self.run("ovs-vsctl", "add-br", BR, "--", "set", "bridge", BR,
                 "datapath_type=netdev", "fail-mode=secure",
                 "--", "add-port", BR, "a", "--", "set", "Interface", "a",
                 "type=dummy", "ofport_request=1",
                 "--", "add-port", BR, "b", "--", "set", "Interface", "b",
                 "type=dummy", "ofport_request=2",
                 "--", "add-port", BR, "out", "--", "set", "Interface",
                 "out", "type=dummy", "ofport_request=3",
                 "options:tx_pcap=%s" % self.out_pcap)
        self.version = self.run("ovs-vswitchd", "--version").splitlines()[0]

    def stop(self):
        for t in ("ovs-vswitchd", "ovsdb-server"):
            self.run("ovs-appctl", "-t", t, "exit", check=False)

    def load_rules(self, rules):
        self.run("ovs-ofctl", "del-flows", BR)
        self.run("ovs-ofctl", "add-flows", BR, "-",
                 input="\n".join(rules) + "\n")
        self.run("ovs-appctl", "revalidator/purge")

    def flush(self):
        self.run("ovs-appctl", "dpctl/flush-conntrack")

    def _rx(self, port):
        txt = self.run("ovs-ofctl", "dump-ports", BR, port)
        return int(re.search(r"rx pkts=(\d+)", txt).group(1))

    def _nfrag(self):
        """Fragments OVS's ipf holds (dpctl/ipf-get-status "num frag")."""
        txt = self.run("ovs-appctl", "dpctl/ipf-get-status")
        return int(re.search(r"num frag: (\d+)", txt).group(1))

    def send(self, port, frame):
        """(frames out, held): as ct_diff.VxsSide.send."""
        rx0 = self._rx(port)
        nfrag0 = self._nfrag() if ct_diff.is_fragment(frame) else 0
        self.run("ovs-appctl", "netdev-dummy/receive", port, frame.hex())
        deadline = time.monotonic() + ct_diff.WAIT_S
        while self._rx(port) == rx0:
            if time.monotonic() > deadline:
                raise RuntimeError("OVS never received the frame on %s"
                                   % port)
            time.sleep(0.005)
        # received, so processed: the main thread answered dump-ports
        # only after it ran the batch
        frames = read_pcap_raw(self.out_pcap) if self.out_pcap.exists() \
            else []
        new = frames[self.n_out:]
        if len(new) > 1 and not ct_diff.is_fragment(frame):
            raise RuntimeError("more than one frame out for one in")
        self.n_out = len(frames)
        if new:
            return new, False
        return [], ct_diff.is_fragment(frame) and self._nfrag() > nfrag0

    def dump(self, *opts):
        return self.run("ovs-appctl", "dpctl/dump-conntrack",
                        *opts).splitlines()

    def flush_args(self, args):
        """ovs-appctl dpctl/flush-conntrack ARGS...; whether it
        succeeded."""
        r = subprocess.run(["ip", "netns", "exec", self.ns, "ovs-appctl",
                            "dpctl/flush-conntrack"] + list(args),
                           env=self.env, capture_output=True, text=True,
                           timeout=30)
        return r.returncode == 0

    def ipf_status(self):
        return self.run("ovs-appctl", "dpctl/ipf-get-status")

    def ct_stats(self, *opts):
        return self.run("ovs-appctl", "dpctl/ct-stats-show", *opts)



@contextlib.contextmanager
def ovs_side():
    ns = "vxs-ovsct-%d" % os.getpid()
    d = tempfile.mkdtemp(prefix="ovsct.")
    subprocess.run(["ip", "netns", "add", ns], check=True)
    side = OvsSide(ns, d)
    try:
        side.start()
        yield side
    finally:
        side.stop()
        subprocess.run(["ip", "netns", "del", ns])
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ct_diff.REF_DIR)
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    if os.geteuid():
        sys.exit("needs root (network namespace)")
    if not shutil.which("ovs-vswitchd"):
        sys.exit("needs ovs-vswitchd: apt-get install openvswitch-switch")
    unknown = [c for c in args.cases if c not in ct_cases.BY_NAME]
    if unknown:
        sys.exit("unknown case(s): %s" % ", ".join(unknown))
    cases = [ct_cases.BY_NAME[c] for c in args.cases] or ct_cases.CASES
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    with ovs_side() as side:
        print(side.version)
        for case in cases:
            res = ct_diff.run_case(side, case)
            p = ct_diff.write_ref(res, side.version, args.out)
            print("%-24s %s" % (case.name, " ".join(
                pk["verdict"] for pk in res["packets"])))
            print("%-24s -> %s" % ("", p))
    if not args.cases:
        for p in args.out.glob("*.json"):
            if p.stem not in ct_cases.BY_NAME:
                print("removing %s (no such case)" % p)
                p.unlink()
    print("%d cases in %.1f s" % (len(cases), time.monotonic() - t0))


if __name__ == "__main__":
    main()
