#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Swap-slot bookkeeping straight from the disk bytes, independent of hibimg
(the oracle for recompress's slot choice, in tests/ and fixtures/).

An image's slots = page 0 (resume page) + every swap-map page of the chain
starting at swsusp_header.image (u64 at byte PS-32) + every non-zero entry of
those map pages (struct swap_map_page: PS/8-1 u64 entries, then u64 next_swap).
PS = the page size the area was made with: the one of 4, 16 and 64 KiB whose
last 10 bytes of page 0 hold a swap or hibernation signature (as libblkid
finds it). Little-endian, resume page at page 0. Counts exclude page 0.

  swapslots.py outside IMG        image=N nonzero_outside=M first_nonzero_outside=P
  swapslots.py compare SRC OUT    bytes outside SRC's image that changed, SRC
                                  slots left non-zero but unused by OUT, OUT
                                  slots outside SRC's image, how many held data
  swapslots.py fill SRC DST [KEEP]
                                  DST = SRC with every all-zero page outside
                                  the image (not page 0, not past the swap
                                  header's last_page) filled with 0xA5, as a
                                  used swap area leaves its free slots; the
                                  highest KEEP stay zero
"""
import shutil
import struct
import sys

PG = None
SIGS = (b'SWAPSPACE2', b'SWAP-SPACE', b'S1SUSPEND\0', b'S2SUSPEND\0',
        b'ULSUSPEND\0', b'LINHIB0001')


def page_size(d):
    ps = [p for p in (4096, 16384, 65536) if d[p - 10:p] in SIGS]
    if len(ps) != 1:
        sys.exit('no single page size with a signature at PS-10: %s' % ps)
    return ps[0]


def load(p):
    global PG
    with open(p, 'rb') as f:
        d = f.read()
    ps = page_size(d)
    if PG is not None and ps != PG:
        sys.exit('%s: page size %d, not %d' % (p, ps, PG))
    PG = ps
    return d


def image_slots(d):
    n = len(d) // PG
    s = {0}
    m = struct.unpack_from('<Q', d, PG - 32)[0]
    while m:
        if m in s or m >= n:
            sys.exit('bad swap-map chain at page %d' % m)
        s.add(m)
        e = struct.unpack_from('<%dQ' % (PG // 8), d, m * PG)
        for x in e[:-1]:
            if x:
                if x >= n:
                    sys.exit('map entry %d beyond the disk' % x)
                s.add(x)
        m = e[-1]
    return s


def nz(d, p):
    return d[p * PG:(p + 1) * PG] != bytes(PG)


def outside(img):
    d = load(img)
    s = image_slots(d)
    out = [p for p in range(len(d) // PG) if p not in s and nz(d, p)]
    print('image=%d nonzero_outside=%d first_nonzero_outside=%s'
          % (len(s) - 1, len(out), out[0] if out else '-'))


def compare(src, dst):
    a, b = load(src), load(dst)
    sa, sb = image_slots(a), image_slots(b)
    n = len(a) // PG
    changed = sum(1 for p in range(n)
                  if p not in sa and a[p * PG:(p + 1) * PG] != b[p * PG:(p + 1) * PG])
    left = sa - sb - {0}
    extra = sb - sa
    print('src_slots=%d out_slots=%d outside_changed=%d src_left_over=%d '
          'src_left_nonzero=%d out_extra=%d out_extra_was_nonzero=%d'
          % (len(sa) - 1, len(sb) - 1, changed, len(left),
             sum(1 for p in left if nz(b, p)), len(extra),
             sum(1 for p in extra if nz(a, p))))


def fill(src, dst, keep=0):
    d = load(src)
    s = image_slots(d)
    last = struct.unpack_from('<I', d, 1028)[0]
    zero = [p for p in range(1, min(len(d) // PG, last + 1))
            if p not in s and not nz(d, p)]
    keep = min(keep, len(zero))
    shutil.copyfile(src, dst)
    with open(dst, 'r+b') as f:
        for p in zero[:len(zero) - keep]:
            f.seek(p * PG)
            f.write(b'\xa5' * PG)
    print('filled=%d kept=%d' % (len(zero) - keep, keep))


if __name__ == '__main__':
    op, args = sys.argv[1], sys.argv[2:]
    if op == 'outside' and len(args) == 1:
        outside(*args)
    elif op == 'compare' and len(args) == 2:
        compare(*args)
    elif op == 'fill' and len(args) in (2, 3):
        fill(args[0], args[1], int(args[2]) if len(args) == 3 else 0)
    else:
        sys.exit(__doc__)
