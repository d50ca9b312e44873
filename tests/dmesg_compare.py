#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""How much of a serial console's kernel log a dmesg-style text holds.

dmesg_compare.py CONSOLE.log DMESG.txt [STOP]

CONSOLE.log is a capture's serial console (fixtures/*.log): its kernel
lines are those with a "[ seconds.micros] " stamp (user-space output has
none), up to and including the first whose text holds STOP (default
"Creating image"). DMESG.txt is what is judged, in the same stamp form.
Both are compared by text, stamps dropped, trailing blanks dropped, in
order (a console line must be found after the one matched before it).
Prints "matched total percent" and the console lines not found, one
"missing: TEXT" each, on stderr. Independent of hibimg: plain text only.
"""
import re
import sys

STAMP = re.compile(r'\[\s*\d+\.\d{6}\] ?(.*)$')


def texts(path, stop=None):
    out = []
    with open(path, 'rb') as f:
        for raw in f:
            line = raw.decode('utf-8', 'replace').rstrip('\r\n')
            m = STAMP.search(line)
            if not m:
                continue
            t = m.group(1).rstrip()
            out.append(t)
            if stop is not None and stop in t:
                return out, True
    return out, stop is None


def main():
    console, dmesg = sys.argv[1], sys.argv[2]
    stop = sys.argv[3] if len(sys.argv) > 3 else 'Creating image'
    want, seen = texts(console, stop)
    if not seen:
        print('no console line holds %r' % stop, file=sys.stderr)
        return 2
    have, _ = texts(dmesg)
    pos = {}
    for i, t in enumerate(have):
        pos.setdefault(t, []).append(i)
    at, matched = 0, 0
    for t in want:
        # the first occurrence at or after the last match
        nxt = next((i for i in pos.get(t, []) if i >= at), None)
        if nxt is None:
            print('missing: %s' % t, file=sys.stderr)
            continue
        matched += 1
        at = nxt + 1
    pct = 100.0 * matched / len(want) if want else 0.0
    print('%d %d %.1f' % (matched, len(want), pct))
    return 0


if __name__ == '__main__':
    sys.exit(main())
