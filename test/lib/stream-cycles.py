#!/usr/bin/env python3
"""stream-cycles.py SRCDIR OBJDIR: no two files of a folder call each other in a circle.

For each SRCDIR/NAME.c, OBJDIR/NAME.o is read with nm: the symbols it defines and
those it leaves undefined. File A calls file B when A leaves undefined a symbol B
defines. The graph's strongly connected components of more than one file are the
circles: each is printed, one line of files, and the exit code is 1; 0 when there
are none, 2 on a usage error or a missing object (build first: make).
Objects with no source beside them (left over from a renamed file) are skipped.
"""
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCGSVW":   # global definitions only
            defined.add(parts[2])
    return defined, undefined


def circles(graph):
    """Tarjan's strongly connected components with more than one node."""
    index, low, on, stack, found = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
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
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main():
    if len(sys.argv) != 3:
        print("usage: stream-cycles.py SRCDIR OBJDIR", file=sys.stderr)
        return 2
    src, objdir = sys.argv[1:]
    names = sorted(f[:-2] for f in os.listdir(src) if f.endswith(".c"))
    defs, undefs = {}, {}
    for n in names:
        obj = os.path.join(objdir, n + ".o")
        if not os.path.exists(obj):
            print(f"stream-cycles: {obj} missing (build first: make)", file=sys.stderr)
            return 2
        defs[n], undefs[n] = symbols(obj)
    owner = {sym: n for n in names for sym in defs[n]}
    graph = {n: {owner[u] for u in undefs[n] if u in owner and owner[u] != n} for n in names}
    found = circles(graph)
    for comp in found:
        calls = "; ".join(f"{a} -> {b}" for a in comp for b in sorted(graph[a]) if b in comp)
        print(f"circle: {' '.join(c + '.c' for c in comp)} ({calls})")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
