# SPDX-License-Identifier: BSD-3-Clause
"""e2e-bench's tenant address families (--inner, --ipv6): the NIC's inner
traffic IPv4 (gen-traffic.py as ever) or IPv6 (gen-traffic.py --ipv6,
inner eth/IPv6/UDP of the same frame length, and gen-topology.py --ipv6,
whose decap flows match ipv6_dst). Each family in the list is one start
of the switch and the VMs per (N, M), in the list's order; a family may
come back (ipv4,ipv6,ipv6,ipv4: ABBA), its windows then summed up with
its others. IPv6 rows are the variant 'RING ipv6' (e2e_stages.variant);
ratio_table() sets vxswitch's IPv6 groups against their IPv4 twins;
with --compare the summary's table sets vxswitch's IPv6 rows against
OVS's (ovs_dpdk.py's decap flows then match ipv6_dst too).

Not with --sg: the security-group flow sets (sg_policy.py) are IPv4's.
"""

import statistics

import e2e_stages     # perf/e2e_stages.py: parse_list()
from vxswitch_tools.bench import fmt_count

FAMILIES = ("ipv4", "ipv6")


def parse(text):
    """'ipv4,ipv6,ipv6,ipv4' -> the list, repeats kept; ValueError."""
    return e2e_stages.parse_list(text, FAMILIES, "--inner")


def check(a):
    """-> why the arguments cannot measure IPv6, or None."""
    if "ipv6" not in a.inners:
        return None
    if a.sg:
        return ("--ipv6/--inner ipv6 with --sg: the security-group flow "
                "sets (sg_policy.py) are IPv4 only")
    return None


def pcap_name(n_vms, flows, inner):
    return "rx-%dvm-%s%s.pcap" % (n_vms, fmt_count(flows),
                                  "-v6" if inner == "ipv6" else "")


def args(inner):
    """gen-traffic.py's and gen-topology.py's extra arguments."""
    return ["--ipv6"] if inner == "ipv6" else []


def ratio_table(rows):
    """vxswitch's IPv6 windows against its IPv4 windows per (N, M, ring
    (opts)): Mpps median [min, max] each, the medians' ratio, and the busy
    cycles per received packet."""
    groups = {}
    for r in rows:
        if r.get("rep", 0) == 0 or r["switch"] != "vxswitch":
            continue
        v = (r.get("ring") or "split") + (" " + r["opts"]
                                          if r.get("opts") else "")
        k = (r["vms"], r["flows"], v)
        groups.setdefault(k, {}).setdefault(r.get("inner") or "ipv4",
                                            []).append(r)
    lines = ["| N VMs | microflows | ring (opts) | IPv4 Mpps median "
             "[min, max] | IPv6 Mpps median [min, max] | IPv6/IPv4 | "
             "busy cyc/rx pkt IPv4 | IPv6 | windows v4/v6 |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (n, f, v), fam in sorted(groups.items()):
        if set(fam) != set(FAMILIES):
            continue
        m = {k: [r["mpps"] for r in rs] for k, rs in fam.items()}
        med = {k: statistics.median(x) for k, x in m.items()}
        cyc = {k: statistics.median(r["cyc_per_rx_pkt"] for r in rs)
               for k, rs in fam.items()}
        lines.append(
            "| %d | %s | %s | %s | %s | %s | %.0f | %.0f | %d/%d |"
            % (n, fmt_count(f), v,
               *("%.3f [%.3f, %.3f]" % (med[k], min(m[k]), max(m[k]))
                 for k in FAMILIES),
               "%.0f %%" % (100 * med["ipv6"] / med["ipv4"])
               if med["ipv4"] else "n/a",
               cyc["ipv4"], cyc["ipv6"], len(m["ipv4"]), len(m["ipv6"])))
    return "\n".join(lines) if len(lines) > 2 else ""
