#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/check-layers.py fails on a circle between folders and on an
include against its layers: on a copy of app/ and drivers/ (the script
checked with --root), the unchanged copy passes; app/lib/ds.c given
#include "control.h" fails with a circle through app/lib and app/control,
naming that edge; app/conntrack/ including app/ports/' port.h (one layer:
no circle, but neither may include the other) fails; so does a new folder
in no layer, and a second header of a name another folder's header has;
an include down the layers passes.

  tests/unit/test_layers_planted.py [SOURCE_ROOT]
"""
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(SRC, "scripts", "check-layers.py")


def run(root):
    r = subprocess.run([sys.executable, SCRIPT, "--root", root],
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

    with tempfile.TemporaryDirectory(prefix="layers-") as tmp:
        keep = shutil.ignore_patterns("build*", "*.o", ".git")
        for top in ("app", "drivers"):
            shutil.copytree(os.path.join(SRC, top), os.path.join(tmp, top),
                            ignore=keep)
        ds_c = os.path.join(tmp, "app", "lib", "ds.c")
        ct_table = os.path.join(tmp, "app", "conntrack", "ct_table.c")
        rx = os.path.join(tmp, "app", "datapath", "dp_rx.c")
        saved = {p: open(p).read() for p in (ds_c, ct_table, rx)}

        def restore():
            for p, text in saved.items():
                with open(p, "w") as fh:
                    fh.write(text)

        rc, out = run(tmp)
        expect("the unchanged copy passes", rc == 0 and
               " 0 circles, 0 edges against LAYERS" in out, out)

        plant(ds_c, '#include "control.h"')
        rc, out = run(tmp)
        circle = next((l for l in out.splitlines()
                       if l.startswith("circle among ")), "")
        expect("app/lib/ds.c including control.h fails: a circle through "
               "app/lib and app/control, naming the edge", rc == 1 and
               "app/lib" in circle.split() and
               "app/control" in circle.split() and
               "  app/lib -> app/control: ds.c (control.h)" in out and
               " 1 circles" in out, out)
        restore()

        plant(ct_table, '#include "port.h"')
        rc, out = run(tmp)
        expect("app/conntrack including app/ports/port.h (one layer) fails, "
               "with no circle", rc == 1 and
               "layers: app/conntrack -> app/ports: app/conntrack and "
               "app/ports are one layer" in out and " 0 circles" in out, out)
        restore()

        new = os.path.join(tmp, "app", "newpart")
        os.mkdir(new)
        with open(os.path.join(new, "newpart.c"), "w") as fh:
            fh.write('#include "ds.h"\n')
        rc, out = run(tmp)
        expect("a folder in no layer fails", rc == 1 and
               "app/newpart is in no layer" in out, out)
        shutil.rmtree(new)

        twin = os.path.join(tmp, "app", "config", "ds.h")
        shutil.copy(os.path.join(tmp, "app", "lib", "ds.h"), twin)
        rc, out = run(tmp)
        expect("a second header named ds.h fails", rc == 1 and
               "two headers named ds.h:" in out, out)
        os.remove(twin)

        plant(rx, '#include "json_out.h"')
        rc, out = run(tmp)
        expect("app/datapath including an app/lib header passes", rc == 0,
               out)
        restore()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
