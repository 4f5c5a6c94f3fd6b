# SPDX-License-Identifier: BSD-3-Clause
"""Topology files (topology/*.yaml) as dicts, ${VAR} replaced."""

import re
from pathlib import Path

import yaml

from .procs import REPO

# -------------------------------------------------------------- topology

_VAR_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def load_topology(path, **variables):
    """A topology file as a dict, ${VAR} / ${VAR:-default} replaced from
    `variables` (else the default; a VAR with neither is an error), so the
    file the Switch writes is concrete. `path`: a file, or a name in
    topology/ ("vxlan-2vm.yaml").

        topo = load_topology("vxlan-2vm.yaml", VXS_RUN_DIR=rundir,
                             VXS_RX_PCAP=rx, VXS_TX_PCAP=tx,
                             VXS_INFINITE_RX=0)
    """
    p = Path(path)
    if not p.exists() and not p.is_absolute():
        p = REPO / "topology" / path
    text = p.read_text()

    def sub(m):
        name, default = m.group(1), m.group(2)
        if name in variables:
            return str(variables[name])
        if default is not None:
            return default
        raise KeyError("%s: ${%s} has no value and no default" % (p, name))
    # leave comments alone (they quote ${VAR} as documentation)
    lines = []
    for line in text.splitlines():
        code, hash_, comment = line.partition(" #")
        if code.lstrip().startswith("#"):
            lines.append(line)
            continue
        lines.append(_VAR_RE.sub(sub, code) + hash_ + comment)
    return yaml.safe_load("\n".join(lines))


def vhost_paths(topology, type="dpdkvhostuserclient"):
    """Socket paths of the topology's vhost-user ports of `type`, in port
    order: the sockets for Testpmd(sockets=...)."""
    return [Path(p.get("path") or p.get("vhost-server-path"))
            for p in topology.get("ports", []) if p.get("type") == type]
