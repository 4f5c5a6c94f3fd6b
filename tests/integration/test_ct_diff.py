# SPDX-License-Identifier: BSD-3-Clause
"""Differential conntrack: vxswitch against OVS 3.1's userspace conntrack
(python/vxswitch_tools/ct_diff.py; the cases are ct_cases.py).

Every case's packets go through vxswitch one at a time (net_tap ports a
and b fed from the kernel side, one frame per burst, out a net_pcap),
with the rules both sides load (ct_diff.case_rules: the case's ct() in
table 0, table 1 writing the ct_state bits into the source MAC). Per
packet, the verdict (ct_state, as OVS prints it) and the output bytes
must be OVS's, and so must the final dpctl/dump-conntrack (lines sorted;
nothing else normalised), its -m form exactly (id=0, status=0, TCP
states, window scales, flags), its -s and -m -s forms with each
timeout=N replaced by the default timeout it counts down from (N at most
10 s below 30, 45, 60, 900 or 86400: the dumps are taken seconds apart in
wall-clock time on the two sides, ct_diff.normalise_timeouts), and, for
a case with flush-conntrack steps (flush_tuples), each step's success
and the dump after it.
OVS's results are the references in ovs_ref/ct/CASE.json, made by
ovs_ref/ct/make-ovs-ct-ref.py (root, openvswitch-switch; CI has no OVS).

One vxswitch runs every case, flushing conntrack and reloading the rules
between cases, in whichever case test comes first (a few seconds in all);
the other case tests read its results. At the end of the module a table
`case | packets | verdict differences | other differences` and the total
`cases x packets x differences` are printed.

A case that differs today is listed in KNOWN_DIFFERENCES with why: its
test is xfail(strict=True), so a fix turns it red (XPASS) until its entry
is removed. Only a difference from OVS counts as that expected failure; a
harness error or a stale reference fails the test whatever the list says.
"""

import pytest

from vxswitch_tools import ct_cases, ct_diff

# case -> why it differs from OVS 3.1 (remove the entry once it matches)
KNOWN_DIFFERENCES = {
}


class CtDiffError(AssertionError):
    """vxswitch differs from the OVS reference (what xfail expects)."""


_run = {}           # "results" -> {case: result} | "error" -> exception
_summary = {}       # case -> (packets, verdict diffs, other diffs)


def _results(make_switch, tmp_path):
    """Every case's vxswitch result, run once for the module."""
    if "error" in _run:
        raise AssertionError("the vxswitch run failed in an earlier test: "
                             "%s" % _run["error"])
    if "results" not in _run:
        try:
            with ct_diff.VxsSide.started(make_switch, tmp_path) as side:
                _run["results"] = ct_diff.run_all(side)
        except Exception as e:
            _run["error"] = "%s: %s" % (type(e).__name__, e)
            raise
    return _run["results"]


def _case_param(name):
    if name in KNOWN_DIFFERENCES:
        return pytest.param(name, marks=pytest.mark.xfail(
            strict=True, raises=CtDiffError,
            reason=KNOWN_DIFFERENCES[name]))
    return name


def _table():
    lines = ["differential conntrack, vxswitch vs OVS (%s)"
             % _ovs_version(),
             "%-24s | %7s | %19s | %s" % ("case", "packets",
                                          "verdict differences",
                                          "other differences")]
    tot_p = tot_v = tot_o = 0
    for c in ct_cases.CASES:
        if c.name not in _summary:
            continue
        n, v, o = _summary[c.name]
        tot_p, tot_v, tot_o = tot_p + n, tot_v + len(v), tot_o + o
        lines.append("%-24s | %7d | %19d | %d%s" % (
            c.name, n, len(v), o,
            "   (known)" if c.name in KNOWN_DIFFERENCES else ""))
        for i, (ovs, vxs) in sorted(v.items()):
            lines.append("    packet %d: OVS %s, vxswitch %s" % (i, ovs, vxs))
    lines.append("total: %d cases x %d packets x %d verdict differences "
                 "(%d other differences)"
                 % (len(_summary), tot_p, tot_v, tot_o))
    return "\n".join(lines)


def _ovs_version():
    for c in ct_cases.CASES:
        try:
            return ct_diff.load_ref(c.name)["ovs_version"]
        except (OSError, ValueError, KeyError):
            continue
    return "no reference"


@pytest.fixture(scope="module", autouse=True)
def _print_table(request):
    yield
    if not _summary:
        return
    text = _table()
    tr = request.config.pluginmanager.getplugin("terminalreporter")
    cap = request.config.pluginmanager.getplugin("capturemanager")
    if tr is None or cap is None:
        print(text)
        return
    with cap.global_and_fixture_disabled():
        tr.write_line("")
        for ln in text.splitlines():
            tr.write_line(ln)


def test_references_cover_cases():
    """One reference per case, each from OVS, none left over."""
    names = {c.name for c in ct_cases.CASES}
    refs = {p.stem for p in ct_diff.REF_DIR.glob("*.json")}
    assert names - refs == set(), \
        "cases without a reference (run ovs_ref/ct/make-ovs-ct-ref.py): " \
        "%s" % sorted(names - refs)
    assert refs - names == set(), "references of no case: %s" \
        % sorted(refs - names)
    for n in sorted(names):
        v = ct_diff.load_ref(n).get("ovs_version", "")
        assert "Open vSwitch" in v, (n, v)
    stale = set(KNOWN_DIFFERENCES) - names
    assert not stale, "KNOWN_DIFFERENCES names no case: %s" % sorted(stale)


@pytest.mark.parametrize("name", [_case_param(c.name)
                                  for c in ct_cases.CASES])
def test_ct_diff(name, make_switch, tmp_path):
    try:
        ref = ct_diff.load_ref(name)
    except OSError:
        pytest.fail("no reference %s: run tests/integration/ovs_ref/ct/"
                    "make-ovs-ct-ref.py" % ct_diff.ref_path(name))
    got = _results(make_switch, tmp_path)[name]
    verdicts, texts = ct_diff.compare(ref, got)
    if verdicts is None:        # stale reference: not a difference
        pytest.fail("%s: %s" % (name, texts[0]))
    _summary[name] = (len(got["packets"]), verdicts,
                      len(texts) - len(verdicts))
    if texts:
        raise CtDiffError("%s (%s): %d difference(s) from %s:\n  %s" % (
            name, ct_cases.BY_NAME[name].doc, len(texts),
            ref["ovs_version"], "\n  ".join(texts)))
