# SPDX-License-Identifier: BSD-3-Clause
"""The docs stand on their own (issue 24, item 1): the README is a
five-minute read that links every page of doc/, every relative link in
the README and in doc/*.md resolves to a file of the repository, no
product file points into a folder outside it, and vxswitch-ctl(8) names
every command the daemon registers. Reads files only: no build, no
switch, no root."""

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOC = REPO / "doc"

# [text](target) and [text](target "title"); images too
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# the pages a reader opens: the markdown pages and the man pages
PAGES = ("*.md", "*.8", "*.5")
# the files of the product the outside-reference check reads
PRODUCT_EXT = (".c", ".h", ".py", ".md", ".sh", ".yaml", ".build", ".8",
               ".5", ".service")
# test data kept as it was written (flows, references): may quote anything
FIXTURES = ("tests/integration/policies/", "tests/integration/ovs_ref/",
            "tests/vectors/", "tests/unit/topologies/")
# the folder beside the repository that its docs once pointed into, and
# the design document that was there
OUTSIDE = ("shared" + "/", "ARCHITECTURE" + ".md")


def links(path):
    """(line number, target) of every markdown link in a file, outside
    fenced code blocks."""
    out, fenced = [], False
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        out += [(n, m.group(1)) for m in LINK.finditer(line)]
    return out


def relative(target):
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) and \
        not target.startswith("#")


def doc_pages():
    return sorted(p for pat in PAGES for p in DOC.glob(pat))


def test_readme_is_short():
    n = len(README.read_text().splitlines())
    assert n < 300, "README.md has %d lines: move some to doc/" % n


def test_readme_keeps_the_two_commands():
    """.ci/run runs them, in this order; the README must say the same."""
    text = README.read_text()
    demo = text.find("\n    scripts/demo.sh\n")
    tests = text.find("\n    scripts/run-tests.sh\n")
    assert 0 <= demo < tests, "README lost its two commands"
    ci = (REPO / ".ci" / "run").read_text()
    assert ci.find("scripts/demo.sh") < ci.find("scripts/run-tests.sh")


def test_every_doc_page_linked_from_readme():
    linked = {os.path.normpath(REPO / t.split("#")[0])
              for _, t in links(README) if relative(t)}
    missing = [p.name for p in doc_pages() if str(p) not in linked]
    assert not missing, "doc pages the README does not link: %s" % missing


def test_relative_links_resolve():
    bad = []
    for page in [README] + sorted(DOC.glob("*.md")):
        for n, target in links(page):
            if not relative(target):
                continue
            path = target.split("#")[0]
            if not path:
                continue
            dest = (page.parent / path).resolve()
            if not dest.exists():
                bad.append("%s:%d: %s" % (page.relative_to(REPO), n, target))
            elif REPO not in dest.parents and dest != REPO:
                bad.append("%s:%d: %s leaves the repository"
                           % (page.relative_to(REPO), n, target))
    assert not bad, "links that do not resolve:\n  " + "\n  ".join(bad)


def product_files():
    for root, dirs, files in os.walk(REPO):
        # hidden folders (.git), and build trees (meson's marker in them)
        dirs[:] = [d for d in dirs if not d.startswith(".") and
                   not (Path(root, d) / "meson-private").is_dir()]
        for f in files:
            p = Path(root, f)
            rel = p.relative_to(REPO).as_posix()
            if p.suffix in PRODUCT_EXT and not p.is_symlink() and \
                    not rel.startswith(FIXTURES):
                yield rel, p


def test_no_reference_outside_the_repository():
    bad = []
    for rel, p in product_files():
        try:
            text = p.read_text(errors="replace")
        except OSError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if any(o in line for o in OUTSIDE):
                bad.append("%s:%d: %s" % (rel, n, line.strip()[:100]))
    assert not bad, ("references to files outside the repository (the "
                     "design is doc/architecture.md):\n  " + "\n  ".join(bad))


def test_every_doc_page_installed():
    """meson install puts the README and doc/*.md side by side, so the
    README's links resolve in share/doc/vxswitch too (doc/meson.build)."""
    build = (DOC / "meson.build").read_text()
    missing = [p.name for p in sorted(DOC.glob("*.md"))
               if "'%s'" % p.name not in build]
    assert not missing, "doc/meson.build does not install %s" % missing


# what registers a control command by name: control_register("NAME", ...)
# and control.c's own cmd_add("NAME", ...)
REGISTER = re.compile(r'\b(?:control_register|cmd_add)\(\s*"([^"]+)"')


def registered_commands():
    """The command names app/ registers with a literal name (cmd_tnl.c
    builds the tnl/arp and tnl/neigh ones in a loop: not seen here)."""
    names = set()
    for p in sorted((REPO / "app").rglob("*.c")):
        names.update(REGISTER.findall(p.read_text()))
    return names


def test_every_command_in_the_man_page():
    """vxswitch-ctl(8) is the CLI reference (issue 24): every command the
    daemon registers is named there."""
    names = registered_commands()
    assert {"show", "dpif-netdev/trace", "trace", "list-commands",
            "help"} <= names, names
    man = (DOC / "vxswitch-ctl.8").read_text()
    man = re.sub(r"\\f[BIRP]", "", man).replace("\\-", "-")
    missing = sorted(n for n in names if not re.search(
        r"(?<![\w/-])%s(?![\w/-])" % re.escape(n), man))
    assert not missing, "commands vxswitch-ctl(8) does not name: %s" \
        % missing
