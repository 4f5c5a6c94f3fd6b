#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/check-datapath-deps.py fails on an include from above the
datapath: on a copy of app/ and drivers/ (the script checked with --root
and --no-calls), the unchanged copy passes; an app/datapath/ file given
#include "pmd.h" fails, naming it; so does one that reaches app/control/
through a header of a folder it may use (app/ports/port.h), naming the
chain; and a datapath header including another datapath header passes.

  tests/unit/test_datapath_deps_planted.py [SOURCE_ROOT]
"""
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(SRC, "scripts", "check-datapath-deps.py")


def run(root):
    r = subprocess.run([sys.executable, SCRIPT, "--root", root, "--no-calls"],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def plant(path, line):
    """Adds line after the file's first #include."""
    with open(path) as fh:
        lines = fh.read().split("\n")
    at = next(i for i, l in enumerate(lines) if l.startswith("#include"))
    lines.insert(at + 1, line)
    with open(path, "w") as fh:
        fh.write("\n".join(lines))


def main():
    failed = 0

    def expect(what, ok, out):
        nonlocal failed
        print(f"{'ok' if ok else 'FAIL'}: {what}")
        if not ok:
            print(out)
            failed += 1

    with tempfile.TemporaryDirectory(prefix="dp-deps-") as tmp:
        keep = shutil.ignore_patterns("build*", "*.o", ".git")
        for top in ("app", "drivers"):
            shutil.copytree(os.path.join(SRC, top), os.path.join(tmp, top),
                            ignore=keep)
        rx = os.path.join(tmp, "app", "datapath", "dp_rx.c")
        port_h = os.path.join(tmp, "app", "ports", "port.h")
        saved = {p: open(p).read() for p in (rx, port_h)}

        def restore():
            for p, text in saved.items():
                with open(p, "w") as fh:
                    fh.write(text)

        rc, out = run(tmp)
        expect("the unchanged copy passes", rc == 0 and
               " 0 from above" in out, out)

        plant(rx, '#include "pmd.h"')
        rc, out = run(tmp)
        expect("dp_rx.c including pmd.h fails, naming it", rc == 1 and
               "app/datapath/dp_rx.c includes app/pmd/: "
               "app/datapath/dp_rx.c -> app/pmd/pmd.h" in out, out)
        restore()

        plant(port_h, '#include "commands.h"')
        rc, out = run(tmp)
        expect("app/control/ reached through app/ports/port.h fails, "
               "with the chain", rc == 1 and
               "app/datapath/dp_rx.c -> app/ports/port.h -> "
               "app/control/commands.h" in out, out)
        restore()

        plant(rx, '#include "dp_stats.h"')
        rc, out = run(tmp)
        expect("a datapath header included again passes", rc == 0, out)
        restore()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
