#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/guests.py: QEMU/libvirt guests on vxswitch's vhost-user ports;
the code and --help are in python/vxswitch_tools/guests.py (found through
scripts/vxswitch_tools, see the package's docstring)."""
import sys

from vxswitch_tools.guests import main

if __name__ == "__main__":
    sys.exit(main())
