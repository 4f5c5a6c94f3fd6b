# SPDX-License-Identifier: BSD-3-Clause
"""What scripts/check-datapath-deps.py (file graphs) and
scripts/check-layers.py (the folder graph) share: the circles of a
directed graph. Imported by name: each script's own folder is first on
sys.path."""


def cycles(graph, self_loops=True):
    """The strongly connected components of graph ({node: [node]}) with
    more than one node, or (self_loops) a node naming itself: Tarjan."""
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
            if len(comp) > 1 or (self_loops and v in graph.get(v, ())):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out
