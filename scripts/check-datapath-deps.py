#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""No import circle among app/datapath/ files, and nothing of the folders
above the datapath used from it, checked three ways:

  includes  the #include "x.h" graph of app/datapath/*.[ch] (headers that
            resolve inside the folder): must have no cycle;
  layers    every header an app/datapath/ file includes, directly or
            through other headers (resolved by name in app/ and drivers/,
            as meson's include_directories do): none may be in a folder
            above the datapath (ABOVE: app/pmd/, app/control/, app/ctl/,
            app/main.c), which call the datapath and report what it
            counts;
  calls     file A -> file B when A's object uses a symbol B's object
            defines (nm, from a build directory): must have no cycle, and
            no datapath object may use a symbol defined by app/pmd/ (the
            PMD calls the datapath, never the other way round).

  scripts/check-datapath-deps.py [-v] [--root DIR] [--no-calls] [BUILD_DIR]

BUILD_DIR: default ROOT/build. --root: the source tree to check (default:
the one holding this script; tests check a copy with a planted include).
--no-calls: the source checks only (no build needed). Prints the graphs'
edges with -v; exits 1 on a cycle, an include from above or a call into the
PMD.
"""
import os
import re
import subprocess
import sys

from depgraph import cycles

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DP = os.path.join(ROOT, "app", "datapath")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# The folders above the datapath (LAYERS in check-layers.py, which holds
# every folder to the ones below it; doc/architecture.md, "The folders"):
# the PMD runs it and owns its context, the control thread and the CLI
# report it, main.c starts everything. The datapath may use the folders
# below it: lib, dpif (its interface: flow key, actions), ports,
# conntrack, ofproto (an upcall translates: xlate), config (dp_ctx_init
# reads struct vxs_config) and drivers/offload.
ABOVE = ("app/pmd", "app/control", "app/ctl", "app/main.c")




def include_graph():
    files = sorted(f for f in os.listdir(DP) if f.endswith((".c", ".h")))
    graph = {}
    for f in files:
        with open(os.path.join(DP, f)) as fh:
            inc = INCLUDE.findall(fh.read())
        graph[f] = sorted({i for i in inc if i in files and i != f} |
                          ({f} if f in inc else set()))
    return graph


def headers():
    """Header name -> its path under ROOT (app/ and drivers/: meson's
    include_directories put every folder's headers under their names)."""
    out = {}
    for top in ("app", "drivers"):
        for d, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(".h"):
                    out.setdefault(f, os.path.relpath(os.path.join(d, f),
                                                      ROOT))
    return out


def includes_of(path):
    with open(os.path.join(ROOT, path)) as fh:
        return INCLUDE.findall(fh.read())


def above(path):
    return next((a for a in ABOVE
                 if path == a or path.startswith(a + "/")), None)


def layer_graph():
    """For each app/datapath/ file, its includes (name -> path, unresolved
    ones left out), and the chains by which it reaches a header in a
    folder above the datapath: [file, header, ..., header above]."""
    hdr = headers()
    graph, bad = {}, []
    for f in sorted(os.listdir(DP)):
        if not f.endswith((".c", ".h")):
            continue
        src = os.path.relpath(os.path.join(DP, f), ROOT)
        graph[f] = sorted(hdr[i] for i in set(includes_of(src)) if i in hdr
                          and hdr[i] != src)
        seen, todo = {src}, [[src]]
        while todo:
            chain = todo.pop(0)
            for i in includes_of(chain[-1]):
                p = hdr.get(i)
                if p is None or p in seen:
                    continue
                seen.add(p)
                if above(p):
                    bad.append(chain + [p])
                else:
                    todo.append(chain + [p])
    return graph, bad


def symbols(obj):
    out = subprocess.run(["nm", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRC":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def call_graph(build):
    objdir = os.path.join(build, "app", "libvxcore.a.p")
    if not os.path.isdir(objdir):
        sys.exit(f"check-datapath-deps: no {objdir} (build first)")
    objs = {}
    for o in sorted(os.listdir(objdir)):
        m = re.match(r"(datapath|pmd)_(.+\.c)\.o$", o)
        if m:
            objs[(m.group(1), m.group(2))] = symbols(os.path.join(objdir, o))
    owner = {}
    for (part, src), (defined, _) in objs.items():
        for s in defined:
            owner[s] = (part, src)
    graph, into_pmd = {}, []
    for (part, src), (_, used) in objs.items():
        if part != "datapath":
            continue
        deps = set()
        for s in used:
            o = owner.get(s)
            if o and o[0] == "pmd":
                into_pmd.append(f"{src} uses {s} ({o[1]})")
            elif o and o[1] != src:
                deps.add(o[1])
        graph[src] = sorted(deps)
    return graph, into_pmd


def main():
    global ROOT, DP
    argv = sys.argv[1:]
    verbose = "-v" in argv
    no_calls = "--no-calls" in argv
    args = []
    while argv:
        a = argv.pop(0)
        if a == "--root":
            ROOT = os.path.abspath(argv.pop(0))
            DP = os.path.join(ROOT, "app", "datapath")
        elif a not in ("-v", "--no-calls"):
            args.append(a)
    build = args[0] if args else os.path.join(ROOT, "build")
    bad = False
    layers, from_above = layer_graph()
    out_of = {v: [w for w in ws if not w.startswith("app/datapath/")]
              for v, ws in layers.items()}
    if verbose:
        for v, ws in out_of.items():
            print(f"layers: {v} -> {' '.join(ws) or '-'}")
    for chain in from_above:
        print(f"layers: {chain[0]} includes {above(chain[-1])}/: "
              f"{' -> '.join(chain)}")
    print(f"layers: {len(layers)} files, "
          f"{sum(len(ws) for ws in out_of.values())} includes out of "
          f"app/datapath/, {len(from_above)} from above ({', '.join(ABOVE)})")
    bad |= bool(from_above)
    graphs = [("includes", include_graph())]
    if not no_calls:
        graphs.append(("calls", call_graph(build)[0]))
    for name, graph in graphs:
        if verbose:
            for v, ws in graph.items():
                print(f"{name}: {v} -> {' '.join(ws) or '-'}")
        cyc = cycles(graph)
        for c in cyc:
            print(f"{name}: circle among {' '.join(c)}")
        print(f"{name}: {len(graph)} files, "
              f"{sum(len(w) for w in graph.values())} edges, "
              f"{len(cyc)} circles")
        bad |= bool(cyc)
    for line in [] if no_calls else call_graph(build)[1]:
        print(f"calls into the PMD: {line}")
        bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
