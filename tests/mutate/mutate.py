#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make mutate: deliberate breaks of the rule-building and repair code,
each one alone, must each be killed by a behaviour test (docs/testing.md).

    tests/mutate/mutate.py [-a] [-k] [-l] [NAME...]
      -a     run every listed test of a mutant, not only up to the first kill
      -k     keep the scratch directory
      -l     list the mutants and exit
      NAME   only the mutants whose name contains one of these

The tree (tracked and untracked, not ignored files, as they are in the
working tree) is copied twice into a scratch directory: "base", built as
is, and "mut", where each mutant in turn is applied to a fresh copy of the
files it edits and built incrementally. The real tree is never edited.
Every edit must match its file exactly once, or the run stops (exit 2).
The unit tests of a mutant (mutants.py) run first, then its integration
tests one at a time (root), until one fails. An integration kill counts
only if the same test passes on "base" (checked once per test).

Prints one line per mutant and "N killed, M survived"; exit 0 when every
mutant was killed, 1 when one survived, 2 on an error (an edit that does not
apply, a build that fails, a failing baseline unit test).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from mutants import GOLDEN, MUTANTS  # noqa: E402

JOBS = os.environ.get("MUTATE_JOBS", "2")


def say(msg):
    print(msg, flush=True)


def sh(cmd, cwd, log=None, env=None):
    """run cmd (list); returns (rc, output)"""
    p = subprocess.run(["nice"] + cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=env, text=True, errors="replace")
    if log:
        with open(log, "a") as f:
            f.write("$ %s\n%s\n" % (" ".join(cmd), p.stdout))
    return p.returncode, p.stdout


def copy_tree(dst):
    files = subprocess.run(["git", "ls-files", "-z", "-c", "-o", "--exclude-standard"], cwd=ROOT,
                           stdout=subprocess.PIPE, check=True).stdout.split(b"\0")
    for f in files:
        if not f:
            continue
        f = f.decode()
        src = os.path.join(ROOT, f)
        if not os.path.isfile(src):
            continue        # deleted in the working tree
        os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, f))


def unit_bins():
    bins = set()
    for m in MUTANTS:
        bins.update(m.get("unit", []))
    return sorted(bins)


def build(tree, bins, log):
    # warnings are not errors here: a mutant may leave a helper unused
    targets = ["all"] + ["build/tests/%s" % b for b in bins]
    rc, out = sh(["make", "-j", JOBS, "WARN=-w"] + targets, tree, log)
    return rc == 0, out


def failed_cmocka(out):
    return re.findall(r"^\[  FAILED  \] (\S+)$", out, re.M)


def run_units(tree, bins, log):
    """[(bin, [failing cmocka tests that count])]"""
    kills = []
    for b in bins:
        rc, out = sh([os.path.join(tree, "build/tests", b)], tree, log)
        if rc == 0:
            continue
        golden = GOLDEN.get(b, set())
        if golden == "*":
            continue
        names = [n for n in dict.fromkeys(failed_cmocka(out)) if n not in golden]
        if names or not failed_cmocka(out):       # no cmocka line: a crash
            kills.append((b, names or ["exit %d" % rc]))
    return kills


def run_it(tree, name, log):
    rc, out = sh([os.path.join(tree, "tests/integration/run.sh"), "^%s$" % re.escape(name)], tree, log)
    fails = [ln.strip() for ln in out.splitlines() if ln.startswith("    FAIL ")]
    return rc == 0, fails


def apply_edits(base, mut, m):
    for path in {e[0] for e in m["edits"]}:
        shutil.copyfile(os.path.join(base, path), os.path.join(mut, path))   # new mtime: rebuilt
    for path, search, replace in m["edits"]:
        p = os.path.join(mut, path)
        with open(p) as f:
            text = f.read()
        n = text.count(search)
        if n != 1:
            raise SystemExit("mutate: mutant %s: the search text occurs %d times in %s (must be once):\n%s"
                             % (m["name"], n, path, search))
        with open(p, "w") as f:
            f.write(text.replace(search, replace))


def restore(base, mut, m):
    for path in {e[0] for e in m["edits"]}:
        shutil.copyfile(os.path.join(base, path), os.path.join(mut, path))


def main(argv):
    every = keep = False
    names = []
    for a in argv:
        if a == "-a":
            every = True
        elif a == "-k":
            keep = True
        elif a == "-l":
            for m in MUTANTS:
                print("%-28s %s" % (m["name"], m["what"]))
            return 0
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            names.append(a)
    sel = [m for m in MUTANTS if not names or any(n in m["name"] for n in names)]
    if not sel:
        say("mutate: no mutant matches %s" % " ".join(names))
        return 2
    need_it = any(m.get("integration") for m in sel)
    if need_it and os.geteuid() != 0:
        say("mutate: the integration tests need root")
        return 2
    t_start = time.monotonic()
    scratch = tempfile.mkdtemp(prefix="sandwall-mutate.")
    os.chmod(scratch, 0o755)    # tests run programs of the tree as other uids (flows_05)
    base, mut = os.path.join(scratch, "base"), os.path.join(scratch, "mut")
    log = os.path.join(scratch, "log")
    bins = unit_bins()
    say("mutate: %d mutant(s); scratch %s (log: %s)" % (len(sel), scratch, log))
    try:
        copy_tree(base)
        ok, out = build(base, bins, log)
        if not ok:
            say("mutate: the unmutated tree does not build:\n" + out[-3000:])
            return 2
        bad = [b for b in bins if sh([os.path.join(base, "build/tests", b)], base, log)[0]]
        if bad:
            say("mutate: unit tests fail on the unmutated tree: %s (log: %s)" % (" ".join(bad), log))
            keep = True
            return 2
        shutil.copytree(base, mut, symlinks=True)       # with build/: mutants build incrementally
        base_it = {}                                    # integration test -> passes on base
        rows = []
        for m in sel:
            t0 = time.monotonic()
            apply_edits(base, mut, m)
            ok, out = build(mut, bins, log)
            if not ok:
                say("mutate: mutant %s does not build:\n%s" % (m["name"], out[-3000:]))
                restore(base, mut, m)
                return 2
            killers = ["%s (%s)" % (b, ", ".join(n)) for b, n in run_units(mut, m.get("unit", []), log)]
            notes = []
            for t in m.get("integration", []):
                if killers and not every:
                    break
                passed, fails = run_it(mut, t, log)
                if passed:
                    continue
                if t not in base_it:
                    base_it[t] = run_it(base, t, log)[0]
                if not base_it[t]:
                    notes.append("%s fails unmutated too: not counted" % t)
                    continue
                killers.append("%s (%s)" % (t, fails[0][5:] if fails else "failed"))
            dt = time.monotonic() - t0
            restore(base, mut, m)
            rows.append((m["name"], bool(killers), killers, dt, notes))
            say("%-28s %-8s %5.0fs  %s%s" % (m["name"], "KILLED" if killers else "SURVIVED", dt,
                                           "; ".join(killers) if killers else "no test failed",
                                           "".join(" [%s]" % n for n in notes)))
        killed = sum(1 for r in rows if r[1])
        say("%d killed, %d survived (%.0fs)" % (killed, len(rows) - killed, time.monotonic() - t_start))
        return 0 if killed == len(rows) else 1
    finally:
        if keep:
            say("mutate: kept %s" % scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
