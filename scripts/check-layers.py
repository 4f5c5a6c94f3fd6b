#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""No #include circle between the folders of app/ and drivers/, and every
folder including only from the folders below it (LAYERS).

  folders  app/<part>/ (app/datapath, app/pmd, ...), app/main for the
           files at the top of app/ (main.c, main_state.c, main.h), and
           drivers/<part>/ (drivers/offload);
  edges    folder A -> folder B when a file of A has #include "x.h" and
           x.h, looked up by name in app/ and drivers/ (meson's
           include_directories put every folder's headers under their
           names), is B's. <system> headers, and names found in neither
           (the generated version.h), are left out;
  circles  the strongly connected components of the folder graph
           (Tarjan): one of more than one folder is a circle, printed
           with its edges against LAYERS (a circle has one at least: the
           edges to cut) and the files behind each;
  layers   an edge must go down LAYERS: from a folder to one of a lower
           layer, never to one of its own layer or above; a folder in no
           layer fails too, so that a new one is placed on purpose.

  scripts/check-layers.py [-v] [--root DIR]

--root: the source tree to check (default: the one holding this script;
tests check a copy with a planted include). Prints every edge with -v;
exits 1 on a circle, an edge against LAYERS, or two headers of one name
(an include of it would be ambiguous), 0 otherwise.
"""
import os
import re
import sys

from depgraph import cycles

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TOPS = ("app", "drivers")

# The layers, bottom first (doc/architecture.md, "The folders"). A folder
# may include from the layers below its own only; folders of one layer
# know nothing of each other. Why this order:
#   app/lib          helpers that know nothing of the switch;
#   app/dpif         the datapath's interface: the flow key, the actions
#                    a megaflow runs, drop reasons, the tunnel template,
#                    the switchable optimisations, the batch: the types
#                    and names every part below the datapath speaks to it
#                    in, with no datapath behaviour;
#   drivers/offload  the NIC offload library: requests in flow keys;
#   app/config       the topology: names offload profiles, optimisations
#                    and the batch size, and every part above is made
#                    from its struct vxs_config;
#   app/conntrack, app/ports
#                    the session table (fed flow keys) and the ports,
#                    neither of which needs the other;
#   app/ofproto      the slow path: rules, translation to dpif actions,
#                    neighbours, routes, the snapshot the PMDs read;
#   app/datapath     the stages of a burst; an upcall translates (xlate),
#                    so the datapath sits above the slow path;
#   app/pmd          runs the datapath and drains what it reports;
#   app/control      the commands: report and change all of the above;
#   app/ctl, app/main  the client, and the daemon's start that ties all.
LAYERS = (
    ("app/lib",),
    ("app/dpif",),
    ("drivers/offload",),
    ("app/config",),
    ("app/conntrack", "app/ports"),
    ("app/ofproto",),
    ("app/datapath",),
    ("app/pmd",),
    ("app/control",),
    ("app/ctl", "app/main"),
)
RANK = {f: i for i, layer in enumerate(LAYERS) for f in layer}


def folder_of(path):
    """The folder a file (relative to ROOT) counts in."""
    parts = path.split("/")
    if parts[0] == "app" and len(parts) == 2:
        return "app/main"
    return "/".join(parts[:2])


def sources():
    out = []
    for top in TOPS:
        for d, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs.sort()
            out += [os.path.relpath(os.path.join(d, f), ROOT)
                    for f in sorted(files) if f.endswith((".c", ".h"))]
    return out


def headers(files):
    """Header name -> its path, and the names more than one header has."""
    by_name = {}
    for p in files:
        if p.endswith(".h"):
            by_name.setdefault(os.path.basename(p), []).append(p)
    return ({n: ps[0] for n, ps in by_name.items()},
            {n: ps for n, ps in by_name.items() if len(ps) > 1})


def folder_graph():
    """{(from folder, to folder): ["file (header)", ...]}, and the
    ambiguous header names."""
    files = sources()
    hdr, twice = headers(files)
    edges = {}
    for p in files:
        with open(os.path.join(ROOT, p), errors="replace") as fh:
            names = INCLUDE.findall(fh.read())
        for name in names:
            to = hdr.get(name)
            if to is None or folder_of(to) == folder_of(p):
                continue
            why = f"{os.path.basename(p)} ({name})"
            edges.setdefault((folder_of(p), folder_of(to)), []).append(why)
    return edges, twice




def against_layers(a, b):
    """Why the edge a -> b breaks LAYERS, or None."""
    for f in (a, b):
        if f not in RANK:
            return f"{f} is in no layer (LAYERS)"
    if RANK[a] == RANK[b]:
        return f"{a} and {b} are one layer: neither includes the other"
    if RANK[a] < RANK[b]:
        return f"{b} is above {a}"
    return None


def main():
    global ROOT
    argv = sys.argv[1:]
    verbose = "-v" in argv
    while argv:
        a = argv.pop(0)
        if a == "--root":
            ROOT = os.path.abspath(argv.pop(0))
        elif a != "-v":
            sys.exit(f"usage: {sys.argv[0]} [-v] [--root DIR]")
    edges, twice = folder_graph()
    folders = sorted({f for e in edges for f in e})
    if verbose:
        for (a, b), why in sorted(edges.items()):
            print(f"{a} -> {b}: {', '.join(why)}")
    bad = 0
    for name, paths in sorted(twice.items()):
        print(f"two headers named {name}: {' '.join(paths)}")
        bad += 1
    graph = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
    circles = cycles({v: sorted(ws) for v, ws in graph.items()},
                     self_loops=False)
    for comp in circles:
        # Every circle has an edge that does not go down LAYERS: those are
        # the ones to cut; the others (-v) only close it.
        inner = [e for e in sorted(edges) if e[0] in comp and e[1] in comp]
        cut = [e for e in inner if against_layers(*e)]
        print(f"circle among {' '.join(comp)}: {len(inner)} edges, "
              f"{len(cut)} against LAYERS:")
        for a, b in cut:
            print(f"  {a} -> {b}: {', '.join(edges[(a, b)])}")
    wrong = [(e, against_layers(*e)) for e in sorted(edges)]
    wrong = [(e, why) for e, why in wrong if why]
    for (a, b), why in wrong:
        print(f"layers: {a} -> {b}: {why}: {', '.join(edges[(a, b)])}")
    bad += len(circles) + len(wrong)
    print(f"layers: {len(folders)} folders, {len(edges)} edges, "
          f"{len(circles)} circles, {len(wrong)} edges against LAYERS")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
