#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The drift between two images of nearly the same memory (the nozerocheck
# pairs: fixtures/k612nz-*, the second written by the system restored from
# the first), read from the disks without hibimg (tests/pfnwalk.py's reader).
#   pfndrift.py DISK_A DISK_B WORD
# Prints one line of KEY=VALUE:
#   a_entries a_zero_flagged a_meta a_data   A's PFN list: entries, zero-flagged,
#                                            PFN-list pages, data pages
#   b_entries b_zero_flagged b_meta b_data   the same for B
#   b_zero_data                              B's data pages that are all zeros
#   only_a only_b common                     PFNs saved in A only, in B only, in both
#   changed                                  common PFNs whose page differs (a
#                                            zero-flagged entry is a page of zeros)
#   changed_nonzero                          of those, the ones not all-zero in both
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pfnwalk  # noqa: E402

ZERO = bytes(pfnwalk.PS)


def pages(disk, word):
    """(image, {pfn: digest of its page}, data pages that are all zeros)"""
    img = pfnwalk.Image(disk, word)
    pfns, zero = pfnwalk.walk(img)
    zd = hashlib.sha1(ZERO).digest()
    data = (p for k, p in enumerate(img.stream()) if k >= img.meta)
    out, zdata = {}, 0
    for pfn, z in zip(pfns, zero):
        if z:
            out[pfn] = zd
            continue
        pg = next(data)
        if pg == ZERO:
            zdata += 1
        out[pfn] = hashlib.sha1(pg).digest()
    return img, pfns, zero, out, zdata


def main():
    a, b, word = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ia, pa, za, ha, zda = pages(a, word)
    ib, pb, zb, hb, zdb = pages(b, word)
    sa, sb = set(ha), set(hb)
    common = sa & sb
    zd = hashlib.sha1(ZERO).digest()
    changed = [p for p in common if ha[p] != hb[p]]
    r = {
        'a_entries': len(pa), 'a_zero_flagged': sum(za), 'a_meta': ia.meta,
        'a_data': ia.image_pages,
        'b_entries': len(pb), 'b_zero_flagged': sum(zb), 'b_meta': ib.meta,
        'b_data': ib.image_pages, 'b_zero_data': zdb,
        'only_a': len(sa - sb), 'only_b': len(sb - sa), 'common': len(common),
        'changed': len(changed),
        'changed_nonzero': sum(1 for p in changed if ha[p] != zd and hb[p] != zd),
    }
    print(' '.join('%s=%d' % kv for kv in r.items()))


main()
