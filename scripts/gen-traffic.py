#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/gen-traffic.py: the benchmark pcaps; the code and --help are in
python/vxswitch_tools/traffic_gen.py (found through scripts/vxswitch_tools,
see the package's docstring)."""
import sys

from vxswitch_tools.traffic_gen import main

if __name__ == "__main__":
    sys.exit(main())
