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

import sys

from planted_tree import PlantedTree, source_root

RX = "app/datapath/dp_rx.c"


def main():
    with PlantedTree(source_root(), "dp-deps-") as t:
        def run():
            return t.run("check-datapath-deps.py", "--no-calls")

        rc, out = run()
        t.expect("the unchanged copy passes", rc == 0 and
                 " 0 from above" in out, out)

        t.plant(RX, '#include "pmd.h"')
        rc, out = run()
        t.expect("dp_rx.c including pmd.h fails, naming it", rc == 1 and
                 "app/datapath/dp_rx.c includes app/pmd/: "
                 "app/datapath/dp_rx.c -> app/pmd/pmd.h" in out, out)
        t.restore()

        t.plant("app/ports/port.h", '#include "commands.h"')
        rc, out = run()
        t.expect("app/control/ reached through app/ports/port.h fails, "
                 "with the chain", rc == 1 and
                 "app/datapath/dp_rx.c -> app/ports/port.h -> "
                 "app/control/commands.h" in out, out)
        t.restore()

        t.plant(RX, '#include "dp_stats.h"')
        rc, out = run()
        t.expect("a datapath header included again passes", rc == 0, out)
        t.restore()
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
