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


def selftest():
    """A tree that breaks each rule once: every break must be reported."""
    import tempfile
    global ROOT
    saved = ROOT
    with tempfile.TemporaryDirectory() as t:
        files = {
            "src/core/a.c": '#include "core/a.h"\n#include "host/h.h"\n',   # core -> host
            "include/core/a.h": "",
            "include/host/h.h": "",
            "src/lib/b.c": '#include "lib/c.h"\n',                            # b <-> c cycle
            "include/lib/b.h": "",
            "src/lib/c.c": '#include "lib/b.h"\n',
            "include/lib/c.h": "",
            "src/cli/d.c": "",
            "include/cli/d.h": "",
            "src/sync/e.c": '#include "cli/d.h"\n',                          # cli included
            "src/lib/long.c": "x\n" * (MAX_FILE + 1),                        # too long
            "src/lib/f.c": "int f(void)\n{\n" + "\t;\n" * (MAX_FUNC + 1) + "}\n",
            "src/flat.c": "",                                                  # no layer
        }
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(t, name)), exist_ok=True)
            with open(os.path.join(t, name), "w", encoding="utf-8") as f:
                f.write(text)
        ROOT = t
        import io
        import contextlib
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = main()
        ROOT = saved
    text = out.getvalue()
    want = ["core may not include host", "include cycle: lib/b -> lib/c -> lib/b",
            "sync may not include cli", "src/lib/long.c:801: 801 lines",
            "function f is 151 lines", "src/flat.c:1: not in a layer folder"]
    missing = [w for w in want if w not in text]
    if rc != 1 or missing:
        print(text)
        print("check-layers self-test: not reported: %s (exit %d)" % (missing, rc))
        return 1
    print("check-layers self-test: each of %d breaks reported" % len(want))
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--selftest"]:
        sys.exit(selftest())
    sys.exit(main())
