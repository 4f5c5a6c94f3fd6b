#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""No import circle among app/datapath/ files, checked two ways:

  includes  the #include "x.h" graph of app/datapath/*.[ch] (headers that
            resolve inside the folder): must have no cycle;
  calls     file A -> file B when A's object uses a symbol B's object
            defines (nm, from a build directory): must have no cycle, and
            no datapath object may use a symbol defined by app/pmd/ (the
            PMD calls the datapath, never the other way round).

  scripts/check-datapath-deps.py [BUILD_DIR]    (default: build)

Prints both graphs' edges with -v; exits 1 on a cycle or a call into the PMD.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DP = os.path.join(ROOT, "app", "datapath")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def cycles(graph):
    """Strongly connected components with more than one node, or a
    self-loop (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def include_graph():
    files = sorted(f for f in os.listdir(DP) if f.endswith((".c", ".h")))
    graph = {}
    for f in files:
        with open(os.path.join(DP, f)) as fh:
            inc = INCLUDE.findall(fh.read())
        graph[f] = sorted({i for i in inc if i in files and i != f} |
                          ({f} if f in inc else set()))
    return graph


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
    args = [a for a in sys.argv[1:] if a != "-v"]
    verbose = "-v" in sys.argv[1:]
    build = args[0] if args else os.path.join(ROOT, "build")
    bad = False
    for name, graph in (("includes", include_graph()),
                        ("calls", call_graph(build)[0])):
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
    for line in call_graph(build)[1]:
        print(f"calls into the PMD: {line}")
        bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
