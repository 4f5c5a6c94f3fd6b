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
import sys

from planted_tree import PlantedTree, source_root


def main():
    with PlantedTree(source_root(), "layers-") as t:
        def run():
            return t.run("check-layers.py")

        rc, out = run()
        t.expect("the unchanged copy passes", rc == 0 and
                 " 0 circles, 0 edges against LAYERS" in out, out)

        t.plant("app/lib/ds.c", '#include "control.h"')
        rc, out = run()
        circle = next((l for l in out.splitlines()
                       if l.startswith("circle among ")), "")
        t.expect("app/lib/ds.c including control.h fails: a circle "
                 "through app/lib and app/control, naming the edge",
                 rc == 1 and "app/lib" in circle.split() and
                 "app/control" in circle.split() and
                 "  app/lib -> app/control: ds.c (control.h)" in out and
                 " 1 circles" in out, out)
        t.restore()

        t.plant("app/conntrack/ct_table.c", '#include "port.h"')
        rc, out = run()
        t.expect("app/conntrack including app/ports/port.h (one layer) "
                 "fails, with no circle", rc == 1 and
                 "layers: app/conntrack -> app/ports: app/conntrack and "
                 "app/ports are one layer" in out and " 0 circles" in out,
                 out)
        t.restore()

        new = t.path("app/newpart")
        os.mkdir(new)
        with open(os.path.join(new, "newpart.c"), "w") as fh:
            fh.write('#include "ds.h"\n')
        rc, out = run()
        t.expect("a folder in no layer fails", rc == 1 and
                 "app/newpart is in no layer" in out, out)
        shutil.rmtree(new)

        twin = t.path("app/config/ds.h")
        shutil.copy(t.path("app/lib/ds.h"), twin)
        rc, out = run()
        t.expect("a second header named ds.h fails", rc == 1 and
                 "two headers named ds.h:" in out, out)
        os.remove(twin)

        t.plant("app/datapath/dp_rx.c", '#include "json_out.h"')
        rc, out = run()
        t.expect("app/datapath including an app/lib header passes",
                 rc == 0, out)
        t.restore()
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
