# SPDX-License-Identifier: BSD-3-Clause
"""e2e-bench's cost breakdown (issue 15): where vxswitch's PMD cycles go,
stage by stage, per (switch, ring, N VMs, M microflows).

Each window's row gets the switch's pmd-perf-show stages (VxRun.stages():
st_<stage> in busy cycles per received packet) and the I/O call counts;
stage_table() prints the median over a group's windows. The stages are
the switch's PMD_STAGES (app/datapath/dp_stats.h): NIC rx, vhost dequeue, empty
polls, the datapath's, vhost enqueue, NIC tx, the tx buffers' flush and
the loop; "other" is what no boundary caught (0 with io-timing on).
chart() draws e2e-bench's Mpps and cycles per looped packet (e2e-TAG.png).
"""

import statistics

from vxswitch_tools.bench import fmt_count

# pmd-perf-show --json's stages, in its order; "other" last
STAGES = ("rx_nic", "rx_vhost", "poll_empty", "extract", "hash", "emc",
          "dpcls", "upcall", "actions", "tx_nic", "tx_vhost", "flush",
          "loop", "other")
# per call: packets per vhost dequeue/enqueue, the share of empty polls,
# vhost rx/tx cycles per vhost packet
IO = ("vhost_rx_per_call", "vhost_tx_per_call", "polls_empty_pct",
      "rx_vhost_cyc_per_vpkt", "tx_vhost_cyc_per_vpkt", "polls_per_pkt",
      "tx_calls_per_pkt")
FIELDS = ["st_%s" % s for s in STAGES] + list(IO)

RINGS = {"split": "", "packed": "packed_vq=1"}


def parse_list(text, choices, opt):
    """A comma-separated list of choices, in order, repeats kept:
    'split,packed' -> ['split', 'packed']; ValueError names a bad one."""
    items = [x.strip() for x in text.split(",") if x.strip()]
    for x in items:
        if x not in choices:
            raise ValueError("%s %r: one of %s" % (opt, x, ", ".join(choices)))
    if not items:
        raise ValueError("%s: none given" % opt)
    return items


def parse_rings(text):
    return parse_list(text, RINGS, "--ring")


def variant(r):
    """A row's ring, ' ipv6' for IPv6 tenant traffic (--inner) and, under
    --ab, its option's state: 'split', 'split ipv6', 'packed
    io-timing=off', ... (the summaries' 4th key)."""
    v = r.get("ring") or "split"
    if r.get("inner") == "ipv6":
        v += " ipv6"
    return v + " " + r["opts"] if r.get("opts") else v


def ab_states(opts, windows):
    """--ab OPT[,OPT]: the per-window states, ABBA-interleaved so that
    drift hits every state alike: [(opt, on)], one entry per window
    (all on, then each option off alone, mirrored)."""
    states = [None] + list(opts)
    seq = []
    while len(seq) < windows:
        seq += states if (len(seq) // len(states)) % 2 == 0 else \
            states[::-1]
    return seq[:windows]


def perf_stages(p):
    """One PMD's pmd-perf-show --json -> the row's stage columns."""
    out = {"st_" + k: round(v["cycles_per_packet"], 1)
           for k, v in p["stages"].items()}
    st = p["stages"]
    rxb, rxp = p.get("rx_bursts_vhost", 0), p.get("rx_packets_vhost", 0)
    txb, txp = p.get("tx_batches_vhost", 0), p.get("tx_packets_vhost", 0)
    polls = p.get("polls", 0)
    out["vhost_rx_per_call"] = round(rxp / rxb, 2) if rxb else 0
    out["vhost_tx_per_call"] = round(txp / txb, 2) if txb else 0
    out["polls_empty_pct"] = (round(100.0 * p.get("polls_empty", 0) / polls,
                                    1) if polls else 0)
    out["rx_vhost_cyc_per_vpkt"] = (round(st["rx_vhost"]["cycles"] / rxp, 1)
                                    if rxp and "rx_vhost" in st else 0)
    out["tx_vhost_cyc_per_vpkt"] = (round(st["tx_vhost"]["cycles"] / txp, 1)
                                    if txp and "tx_vhost" in st else 0)
    pk = p.get("packets", 0)
    out["polls_per_pkt"] = round(polls / pk, 3) if pk else 0
    out["tx_calls_per_pkt"] = (round(p.get("tx_batches", 0) / pk, 3)
                               if pk else 0)
    return out


def _median(rs, k):
    vals = [float(r[k]) for r in rs if r.get(k) not in (None, "")]
    return statistics.median(vals) if vals else None


def _groups(rows):
    """The windows with stages by (switch, variant, N, M), and the keys in
    order: switch, N, M, then the variants in the order they ran."""
    groups, order = {}, {}
    for r in rows:
        order.setdefault(variant(r), len(order))
        if r.get("rep", 0) == 0 or r.get("st_other") in (None, ""):
            continue
        groups.setdefault((r["switch"], variant(r), int(r["vms"]),
                           int(r["flows"])), []).append(r)
    keys = sorted(groups, key=lambda k: (k[0], k[2], k[3], order[k[1]]))
    return keys, groups


def _fmt(m):
    if m is None:
        return "-"
    return "%.3f" % m if abs(m) < 1 else "%.1f" % m


def stage_table(rows):
    """Markdown: one line per (switch, ring, N, M) with stages, the median
    over its windows, in busy cycles per received packet; then the I/O
    calls' figures. Switches without stages (OVS) are left out."""
    keys, groups = _groups(rows)
    if not groups:
        return "(no stage figures: no vxswitch window)"
    hdr = "| switch | ring (opts) | N | M | " + " | ".join(STAGES) + \
        " | sum | busy/rx pkt | windows |"
    lines = ["PMD busy cycles per received packet, by stage (median of "
             "the windows)", "", hdr,
             "|" + "---|" * (len(STAGES) + 7)]
    io = ["", "I/O calls (median): vhost packets per dequeue / enqueue, "
          "empty polls, vhost rx / tx cycles per vhost packet, rx calls "
          "and tx calls per received packet", "",
          "| switch | ring (opts) | N | M | vhost rx pkts/call | vhost tx "
          "pkts/call | empty polls % | rx_vhost cyc/vhost pkt | tx_vhost "
          "cyc/vhost pkt | rx calls/pkt | tx calls/pkt |",
          "|" + "---|" * 11]
    for k in keys:
        rs = groups[k]
        med = [_median(rs, "st_" + s) for s in STAGES]
        busy = _median(rs, "cyc_per_rx_pkt")
        lines.append("| %s | %s | %d | %s | " % (k[0], k[1], k[2],
                                                fmt_count(k[3]))
                     + " | ".join("%.1f" % m if m is not None else "-"
                                  for m in med)
                     + " | %.0f | %s | %d |" % (
                         sum(m for m in med if m is not None),
                         "%.0f" % busy if busy is not None else "-",
                         len(rs)))
        io.append("| %s | %s | %d | %s | " % (k[0], k[1], k[2],
                                             fmt_count(k[3]))
                  + " | ".join(_fmt(m) for m in (_median(rs, f) for f in IO))
                  + " |")
    return "\n".join(lines + io)


def stage_chart(rows, path, title):
    """A stacked bar per (switch, ring (opts), N, M): the stages' median
    cycles per received packet (e2e-TAG-stages.png)."""
    keys, groups = _groups(rows)
    if not groups:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(keys) + 3), 5))
    bottom = [0.0] * len(keys)
    cmap = plt.get_cmap("tab20")
    for i, s in enumerate(STAGES):
        vals = [_median(groups[k], "st_" + s) or 0 for k in keys]
        ax.bar(range(len(keys)), vals, 0.6, bottom=bottom, label=s,
               color=cmap(i))
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(["%s\n%s\n%d VMs, %s" % (k[0], k[1], k[2],
                                                fmt_count(k[3]))
                        for k in keys], fontsize=7)
    ax.set_ylabel("PMD busy cycles per received packet")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def chart(summ, vms_list, flows_list, switches, path, title,
          variants=("split",)):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = [(n, f, r) for n in vms_list for f in flows_list for r in variants
              if any((sw, n, f, r) in summ for sw in switches)]
    if not groups:
        return
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(max(8, 2.2 * len(groups)),
                                                  4.5))
    w = 0.8 / len(switches)
    colors = {"vxswitch": "tab:blue", "ovs": "tab:orange"}
    for j, sw in enumerate(switches):
        xs, ys, lo, hi, cy = [], [], [], [], []
        for i, g in enumerate(groups):
            s = summ.get((sw,) + g)
            if not s:
                continue
            xs.append(i + (j - (len(switches) - 1) / 2) * w)
            ys.append(s["median"])
            lo.append(s["median"] - s["min"])
            hi.append(s["max"] - s["median"])
            cy.append(s["cyc_loop"])
        ax1.bar(xs, ys, w, yerr=[lo, hi], capsize=3, label=sw,
                color=colors.get(sw))
        ax2.bar(xs, cy, w, label=sw, color=colors.get(sw))
    labels = ["%d VMs\n%s flows\n%s" % (n, fmt_count(f), r)
              for n, f, r in groups]
    for ax in (ax1, ax2):
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.legend()
        ax.grid(axis="y", alpha=0.3)
    ax1.set_ylabel("full-loop Mpps (median, min-max)")
    ax2.set_ylabel("switch busy cycles per looped packet")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
