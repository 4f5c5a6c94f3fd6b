# SPDX-License-Identifier: BSD-3-Clause
"""What the planted-include tests share (test_datapath_deps_planted.py,
test_layers_planted.py): a copy of the tree's app/ and drivers/ for a
checking script to run on with --root, lines planted in its files and
taken out again, and the tally of what passed. Imported by name: the
tests' own folder is first on sys.path."""
import os
import shutil
import subprocess
import sys
import tempfile


def source_root():
    """argv[1], or the tree holding tests/unit/."""
    return os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..",
                                        ".."))


class PlantedTree:
    """with PlantedTree(src, prefix) as t: t.root is a copy of src's app/
    and drivers/; t.plant(rel, line) adds line after a file's first
    #include (t.restore() puts every planted file back); t.run(script,
    *args) runs src's scripts/SCRIPT on the copy; t.expect(what, ok, out)
    counts and prints; t.failed at the end."""

    def __init__(self, src, prefix):
        self.src, self.prefix = src, prefix
        self.failed = 0
        self.saved = {}

    def __enter__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix=self.prefix)
        self.root = self._tmp.name
        keep = shutil.ignore_patterns("build*", "*.o", ".git")
        for top in ("app", "drivers"):
            shutil.copytree(os.path.join(self.src, top),
                            os.path.join(self.root, top), ignore=keep)
        return self

    def __exit__(self, *exc):
        self._tmp.cleanup()

    def path(self, rel):
        return os.path.join(self.root, rel)

    def plant(self, rel, line):
        p = self.path(rel)
        with open(p) as fh:
            text = fh.read()
        self.saved.setdefault(p, text)
        lines = text.split("\n")
        at = next(i for i, l in enumerate(lines) if l.startswith("#include"))
        lines.insert(at + 1, line)
        with open(p, "w") as fh:
            fh.write("\n".join(lines))

    def restore(self):
        for p, text in self.saved.items():
            with open(p, "w") as fh:
                fh.write(text)
        self.saved = {}

    def run(self, script, *args):
        r = subprocess.run([sys.executable,
                            os.path.join(self.src, "scripts", script),
                            "--root", self.root, *args],
                           capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr

    def expect(self, what, ok, out):
        print(f"{'ok' if ok else 'FAIL'}: {what}")
        if not ok:
            print(out)
            self.failed += 1
