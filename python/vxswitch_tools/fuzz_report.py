# SPDX-License-Identifier: BSD-3-Clause
"""What the fuzz suite (fuzz.py) reports: a Row per category, the table,
and the checks read from a switch's log (its --stats-on-exit counters,
the conservation gap, sanitizer reports)."""

import re

SANITIZER_RE = re.compile(r"ERROR: AddressSanitizer|ERROR: LeakSanitizer|"
                          r"runtime error:")
# pmd-stats-show's accounting line, as --stats-on-exit prints it (logged:
# the lines below may carry the console's "vxswitch: " prefix)
ACCOUNTING_RE = re.compile(
    r"accounting: received (\d+) \+ copies (\d+) = sent (\d+) \+ "
    r"consumed (\d+) \+ dropped (\d+) \+ in flight (\d+)"
    r"(?: \+ held (-?\d+))?")


class Row:
    COLS = ("inputs", "crashes", "sanitizer", "leaked_mbufs",
            "mismatches", "other")

    def __init__(self, category):
        self.category = category
        self.available = True
        self.inputs = self.crashes = self.sanitizer = 0
        self.leaked_mbufs = self.mismatches = self.other = 0
        self.seconds = 0.0
        self.notes = []

    def note(self, text):
        if len(self.notes) < 8:
            self.notes.append(text)

    @property
    def failed(self):
        return self.available and any(getattr(self, c) for c in
                                      self.COLS[1:])

    def as_dict(self):
        d = {c: getattr(self, c) for c in self.COLS}
        d.update(category=self.category, available=self.available,
                 seconds=round(self.seconds, 1), notes=self.notes)
        return d


def table(rows):
    """The report: one line per category."""
    head = ("category", "inputs", "crashes", "sanitizer", "leaked mbufs",
            "mismatches", "other", "s")
    lines = ["| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    for r in rows:
        if not r.available:
            cells = [r.category, "not available"] + [""] * 6
        else:
            cells = [r.category] + [str(getattr(r, c)) for c in Row.COLS] \
                + ["%.0f" % r.seconds]
        lines.append("| " + " | ".join(cells) + " |")
    for r in rows:
        for n in r.notes:
            lines.append("  %s: %s" % (r.category, n))
    return "\n".join(lines)


# ------------------------------------------------------- counters, logs

EXIT_PORT_RE = re.compile(r"^(?:vxswitch: )?  (\S+)\s+\d+\s+(\S+)\s+\S+\s+"
                          r"(\d+)\s+(\d+)\s+(\d+)\s*$", re.M)
EXIT_PKTS_RE = re.compile(r"^(?:vxswitch: )?  packets received: (\d+)$", re.M)
EXIT_DROPS_RE = re.compile(r"^(?:vxswitch: )?  drops: (.*)$", re.M)


def exit_counters(log):
    """The counters --stats-on-exit printed (after the PMDs stopped):
    {"ports": {name: {type, rx, tx, tx_dropped}}, "pmd_packets": N,
    "drops": {reason: N}, "accounting": [(received, copies, sent,
    consumed, dropped, in_flight, held) per PMD]} or None (held: IPv4
    fragments the PMD gave the fragment store less those it took back,
    dp_stats.h)."""
    cut = log.rfind("vxswitch: shutting down")
    if cut < 0:
        return None
    text = log[cut:]
    ports = {m[0]: {"type": m[1], "rx": int(m[2]), "tx": int(m[3]),
                    "tx_dropped": int(m[4])}
             for m in EXIT_PORT_RE.findall(text)}
    drops = {}
    for line in EXIT_DROPS_RE.findall(text):
        for kv in line.split():
            k, _, v = kv.partition("=")
            drops[k] = drops.get(k, 0) + int(v)
    return {"ports": ports, "drops": drops,
            "pmd_packets": sum(map(int, EXIT_PKTS_RE.findall(text))),
            "accounting": [tuple(int(v or 0) for v in m)
                           for m in ACCOUNTING_RE.findall(text)]}


def conservation_gap(c):
    """The switch's own equation (dp_stats.h) on its exit counters, summed over
    the PMDs' absolute gaps: (received + copies) - (sent + consumed +
    dropped + in flight + held), 0 when every packet ended in exactly one
    counter. None: no accounting line was printed."""
    if not c or not c["accounting"]:
        return None
    return sum(abs(rx + cp - (tx + cons + drop + fl + held))
               for rx, cp, tx, cons, drop, fl, held in c["accounting"])


def sanitizer_reports(text):
    return len(SANITIZER_RE.findall(text))
