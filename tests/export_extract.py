#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Find the sandwall configs the tree holds as text, for export_compare.sh.

    export_extract.py docs OUTDIR FILE.md...   code blocks that are configs
    export_extract.py heredocs OUTDIR FILE.sh...  cat >F <<EOF bodies that are configs
    export_extract.py mkconf FILE.sh...        the mkconf calls, one a line

docs and heredocs write OUTDIR/NNN.conf and print "LABEL<TAB>PATH" per
block; mkconf prints "LABEL<TAB>ARGS" (the call's words as written, for
the caller to eval). A block is a config when a line of it is a section
header of sandwall.conf(5).
"""
import os
import re
import sys

SECTION = re.compile(r'^\s*\[(guard|block|allow|log|daemon|nft|verify|metrics|sandbox [^\]]+)\]\s*(;.*)?$')
HEREDOC = re.compile(r'\bcat\s+>\s*"?([^"\s<]+)"?\s+<<(-?)\s*(["\']?)(\w+)\3')


def is_config(lines):
    return any(SECTION.match(line) for line in lines)


class Out:
    def __init__(self, outdir):
        self.outdir = outdir
        self.n = 0

    def put(self, label, lines):
        self.n += 1
        path = os.path.join(self.outdir, '%s-%03d.conf' % (os.path.basename(label.split(':')[0]), self.n))
        with open(path, 'w') as f:
            f.write(''.join(line + '\n' for line in lines))
        print('%s\t%s' % (label, path))


def docs(out, files):
    """Fenced (```) and indented (4 spaces after a blank line) code blocks."""
    for name in files:
        lines = open(name).read().split('\n')
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith('```'):
                j = i + 1
                while j < len(lines) and not lines[j].startswith('```'):
                    j += 1
                block = lines[i + 1:j]
                if is_config(block):
                    out.put('%s:%d' % (name, i + 1), block)
                i = j + 1
                continue
            if line.startswith('    ') and (i == 0 or not lines[i - 1].strip()):
                j = i
                while j < len(lines) and (lines[j].startswith('    ') or
                                          (not lines[j].strip() and j + 1 < len(lines) and
                                           lines[j + 1].startswith('    '))):
                    j += 1
                block = [x[4:] for x in lines[i:j]]
                if is_config(block):
                    out.put('%s:%d' % (name, i + 1), block)
                i = j
                continue
            i += 1


def heredocs(out, files):
    for name in files:
        lines = open(name).read().split('\n')
        for i, line in enumerate(lines):
            m = HEREDOC.search(line)
            if not m:
                continue
            dash, delim = m.group(2), m.group(4)
            block = []
            for body in lines[i + 1:]:
                if dash:
                    body = body.lstrip('\t')
                if body == delim:
                    break
                block.append(body)
            if is_config(block):
                out.put('%s:%d' % (name, i + 1), block)


def mkconf_calls(files):
    """Each $(mkconf ...) with its words as written (continuations joined)."""
    for name in files:
        text = open(name).read()
        for m in re.finditer(r'\$\(mkconf\s', text):
            depth, quote, k = 1, None, m.end()
            while k < len(text) and depth:
                c = text[k]
                if quote:
                    if c == '\\' and quote == '"':
                        k += 1
                    elif c == quote:
                        quote = None
                elif c in '"\'':
                    quote = c
                elif c == '\\':
                    k += 1
                elif c == '(':
                    depth += 1
                elif c == ')':
                    depth -= 1
                k += 1
            args = re.sub(r'\\\n\s*', ' ', text[m.end():k - 1]).strip()
            if '\n' in args:
                continue
            print('%s:%d\t%s' % (name, text.count('\n', 0, m.start()) + 1, args))


def main():
    mode = sys.argv[1]
    if mode == 'mkconf':
        mkconf_calls(sys.argv[2:])
    elif mode == 'docs':
        docs(Out(sys.argv[2]), sys.argv[3:])
    elif mode == 'heredocs':
        heredocs(Out(sys.argv[2]), sys.argv[3:])
    else:
        sys.exit('usage: export_extract.py docs|heredocs OUTDIR FILE... | mkconf FILE...')


if __name__ == '__main__':
    main()
