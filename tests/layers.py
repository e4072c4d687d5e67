#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make check-layers: who may include whom (docs/internals.md).

The source tree is src/LAYER/NAME.c with its header at include/LAYER/NAME.h,
and every project include is written "LAYER/NAME.h". The layers, from the
bottom:

    lib      may include lib
    core     may include lib, core (pure: no kernel, no files of the host)
    kernel   may include lib, kernel, and core/model.h
    host     may include lib, core, kernel, host
    sync     may include lib, core, kernel, host, sync
    daemon   may include everything below, and daemon (the daemon's own)
    cli      may include everything below, and cli (the CLI's own)

Nothing outside daemon/ includes daemon/, nothing outside cli/ includes
cli/, and there is no include cycle between files (a .c and its own .h are
one file). No source file over MAX_FILE lines and no function over
MAX_FUNC lines (from its opening brace in column 0 to its closing one).
Prints every violation as FILE:LINE: what; exit 1 if any.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ORDER = ["lib", "core", "kernel", "host", "sync", "daemon", "cli"]
ALLOWED = {
    "lib": {"lib"},
    "core": {"lib", "core"},
    "kernel": {"lib", "kernel"},
    "host": {"lib", "core", "kernel", "host"},
    "sync": {"lib", "core", "kernel", "host", "sync"},
    "daemon": {"lib", "core", "kernel", "host", "sync", "daemon"},
    "cli": {"lib", "core", "kernel", "host", "sync", "cli"},
}
# single headers a layer may take from one it may not otherwise include
EXTRA = {"kernel": {"core/model.h"}}
MAX_FILE = 800
MAX_FUNC = 150
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def units():
    """{unit: [(path, line, included unit)]} for every src/ and include/ file."""
    out = {}
    bad = []
    for top in ("src", "include"):
        base = os.path.join(ROOT, top)
        for dirpath, _, names in os.walk(base):
            for n in sorted(names):
                if not n.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, ROOT)
                parts = os.path.relpath(path, base).split(os.sep)
                if len(parts) != 2 or parts[0] not in ORDER:
                    bad.append("%s:1: not in a layer folder (%s)" % (rel, "/".join(ORDER)))
                    continue
                unit = parts[0] + "/" + os.path.splitext(parts[1])[0]
                edges = out.setdefault(unit, [])
                with open(path, encoding="utf-8") as f:
                    lines = f.read().split("\n")
                if len(lines) - 1 > MAX_FILE:
                    bad.append("%s:%d: %d lines (at most %d)" % (rel, MAX_FILE + 1, len(lines) - 1, MAX_FILE))
                start = None
                for i, line in enumerate(lines, 1):
                    m = INC.match(line)
                    if m:
                        edges.append((rel, i, m.group(1)))
                    if line.startswith("{"):
                        start = i
                    elif line.startswith("}") and start is not None:
                        if i - start - 1 > MAX_FUNC and n.endswith(".c"):
                            name = "?"
                            for k in range(start - 2, max(start - 8, -1), -1):
                                if lines[k][:1] not in ("", " ", "\t") and "(" in lines[k]:
                                    name = lines[k].split("(")[0].split()[-1].lstrip("*")
                                    break
                            bad.append("%s:%d: function %s is %d lines (at most %d)" % (rel, start, name, i - start - 1, MAX_FUNC))
                        start = None
    return out, bad


def main():
    out, bad = units()
    graph = {}
    for unit, edges in sorted(out.items()):
        layer = unit.split("/")[0]
        for rel, line, inc in edges:
            parts = inc.split("/")
            if len(parts) != 2 or not inc.endswith(".h"):
                bad.append('%s:%d: #include "%s": not LAYER/NAME.h' % (rel, line, inc))
                continue
            if not os.path.exists(os.path.join(ROOT, "include", inc)):
                bad.append('%s:%d: #include "%s": no such header under include/' % (rel, line, inc))
                continue
            other = parts[0]
            target = inc[:-2]
            if target == unit:
                continue
            if other not in ALLOWED[layer] and inc not in EXTRA.get(layer, ()):
                bad.append('%s:%d: #include "%s": %s may not include %s' % (rel, line, inc, layer, other))
            graph.setdefault(unit, set()).add(target)
    # cycles: depth-first search, each cycle reported once by its members
    seen_cycles = set()
    state = {}

    def visit(u, stack):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                cyc = stack[stack.index(v):]
                key = frozenset(cyc)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    bad.append("include cycle: %s" % " -> ".join(cyc + [v]))
            elif not state.get(v):
                visit(v, stack)
        stack.pop()
        state[u] = 2

    for u in sorted(graph):
        if not state.get(u):
            visit(u, [])
    for b in bad:
        print(b)
    print("check-layers: %d file(s), %d violation(s)" % (len(out), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
