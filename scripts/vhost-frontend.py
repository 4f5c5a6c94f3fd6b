#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/vhost-frontend.py: the hostile vhost-user frontend
(--socket PATH --case NAME, --list-cases); the code and --help are in
python/vxswitch_tools/vhost_frontend.py (found through
scripts/vxswitch_tools, see the package's docstring)."""
import sys

from vxswitch_tools.vhost_frontend import main

if __name__ == "__main__":
    sys.exit(main())
