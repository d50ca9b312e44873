#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The file-level call graph of lib/ (issue 13), and the two rules it must
keep: no cycle between files, and no container named outside its own file
and the probe table.

  tools/callgraph.py [--check] [LIBDIR]

Prints "A -> B (f, g)" for every file A that calls a function defined in
file B, then every cycle (strongly connected set of files) and every file
naming a container it does not own. With --check, exits 1 when there is a
cycle, such a name outside KNOWN, or a KNOWN entry that was fixed. Function definitions come from universal-ctags
(ctags -x); calls are identifiers followed by "(" outside comments and
strings. Static functions only link inside their file, so they make no
edge.
"""
import os
import re
import subprocess
import sys

# A container's names, and the files allowed to say them: its own and the
# probe table.
CONTAINERS = {
    'uswsusp': (re.compile(r'\bHIB_KIND_USWSUSP\b|\busw_|->usw\b|\.usw\b'),
                {'uswsusp.c', 'uswsusp-extents.c', 'probe.c'}),
}
# Known and not yet fixed, each with why: --check accepts these, and fails
# once one of them is fixed, so the list only shrinks.
KNOWN = {}


def strip(src):
    """C source without comments, strings and character constants."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * src.count('\n', i, j))
            i = j
        elif src.startswith('//', i):
            j = src.find('\n', i)
            i = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def definitions(files):
    """name -> file for every function that is not static."""
    r = subprocess.run(['ctags', '-x', '--kinds-C=f', '--sort=no'] + files,
                       capture_output=True, text=True, check=True)
    defs = {}
    for line in r.stdout.splitlines():
        m = re.match(r'(\S+)\s+function\s+\d+\s+(\S+)\s+(.*)', line)
        if m and not re.match(r'(static|HIB_HIDDEN\s+static)\b', m.group(3)):
            defs[m.group(1)] = os.path.basename(m.group(2))
    return defs


def sccs(nodes, edges):
    """Tarjan's strongly connected components."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
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
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    args = [a for a in sys.argv[1:] if a != '--check']
    check = '--check' in sys.argv[1:]
    libdir = args[0] if args else os.path.join(os.path.dirname(__file__), '..', 'lib')
    files = sorted(os.path.join(libdir, f) for f in os.listdir(libdir) if f.endswith('.c'))
    defs = definitions(files)
    edges, why = {}, {}
    bad_names = []
    for path in files:
        a = os.path.basename(path)
        with open(path) as f:
            code = strip(f.read())
        for name in sorted(set(re.findall(r'\b([A-Za-z_]\w*)\s*\(', code))):
            b = defs.get(name)
            if b and b != a:
                edges.setdefault(a, set()).add(b)
                why.setdefault((a, b), []).append(name)
        for cname, (rx, owners) in CONTAINERS.items():
            if a not in owners and rx.search(code):
                n = len(rx.findall(code))
                bad_names.append((a, '%s names the %s container %d times' % (a, cname, n)))
    for (a, b) in sorted(why):
        print('%s -> %s (%s)' % (a, b, ', '.join(why[(a, b)])))
    nodes = {os.path.basename(p) for p in files}
    cycles = [c for c in sccs(nodes, edges) if len(c) > 1]
    for c in cycles:
        print('cycle: ' + ' <-> '.join(c))
    bad = []
    for f, text in bad_names:
        if f in KNOWN:
            print('outside its container (known: %s): %s' % (KNOWN[f], text))
        else:
            print('outside its container: ' + text)
            bad.append(f)
    fixed = sorted(set(KNOWN) - {f for f, _ in bad_names})
    for f in fixed:
        print('fixed, take it off KNOWN: ' + f)
    print('%d files, %d edges, %d cycles, %d files naming a foreign container (%d known)'
          % (len(nodes), len(why), len(cycles), len(bad_names), len(bad_names) - len(bad)))
    return 1 if check and (cycles or bad or fixed) else 0


if __name__ == '__main__':
    sys.exit(main())
