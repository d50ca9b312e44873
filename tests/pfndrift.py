#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The drift between two images of nearly the same memory (the nozerocheck
# pairs: fixtures/k612nz-*, the second written by the system restored from
# the first), read from the disks without hibimg (tests/pfnwalk.py's reader).
#   pfndrift.py DISK_A DISK_B WORD [--lzo]
# Prints one line of KEY=VALUE:
#   a_entries a_zero_flagged a_meta a_data   A's PFN list: entries, zero-flagged,
#                                            PFN-list pages, data pages
#   b_entries b_zero_flagged b_meta b_data   the same for B
#   b_zero_data                              B's data pages that are all zeros
#   only_a only_b common                     PFNs saved in A only, in B only, in both
#   changed                                  common PFNs whose page differs (a
#                                            zero-flagged entry is a page of zeros)
#   changed_nonzero                          of those, the ones not all-zero in both
# --lzo adds, in bytes, the sum of LZO1X-1 lengths (python3-lzo, liblzo2) of
# 32-page chunks as the kernel cuts them, Image size after compression's sum:
#   lzo_a         A's stream as written (PFN list, non-zero data pages)
#   lzo_a_nozc    A's memory written without the zero-page check (flags
#                 cleared, every page in PFN-list order, zeros in place)
#   lzo_b         B's stream as written
#   lzo_b_zc      B's memory written with the check (all-zero pages flagged
#                 in the PFN list and left out of the data)
# lzo_b - lzo_a_nozc and lzo_a - lzo_b_zc are what the drift does to the
# size, one codec on both snapshots.
import hashlib
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pfnwalk  # noqa: E402

ZERO = bytes(pfnwalk.PS)


def pages(disk, word):
    """(image, PFNs, zero flags, {pfn: digest of its page}, data pages that
    are all zeros, the meta pages, every saved page in PFN-list order)"""
    img = pfnwalk.Image(disk, word)
    pfns, zero = pfnwalk.walk(img)
    zd = hashlib.sha1(ZERO).digest()
    stream = img.stream()
    meta = [next(stream) for _ in range(img.meta)]
    out, zdata, mem = {}, 0, []
    for pfn, z in zip(pfns, zero):
        pg = ZERO if z else next(stream)
        if not z and pg == ZERO:
            zdata += 1
        out[pfn] = zd if z else hashlib.sha1(pg).digest()
        mem.append(pg)
    return img, pfns, zero, out, zdata, meta, mem


def lzo_size(stream_pages):
    import lzo          # python3-lzo
    return sum(len(lzo.compress(b''.join(stream_pages[i:i + 32]), 1, False))
               for i in range(0, len(stream_pages), 32))


def flagged(meta, word, mem):
    """the PFN-list pages with the zero-page flag set where the page in
    MEM is all zeros (cleared where not), as a 6.6+ kernel writes them"""
    L = '<I' if word == 4 else '<Q'
    top, end = 1 << (8 * word - 1), (1 << (8 * word)) - 1
    raw = b''.join(meta)
    v = [x for (x,) in struct.iter_unpack(L, raw)]
    for k in range(len(v)):
        if v[k] != end:
            v[k] = (v[k] & ~top) | (top if k < len(mem) and mem[k] == ZERO else 0)
    raw = b''.join(struct.pack(L, x) for x in v)
    return [raw[i:i + pfnwalk.PS] for i in range(0, len(raw), pfnwalk.PS)]


def main():
    a, b, word = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ia, pa, za, ha, zda, ma, ga = pages(a, word)
    ib, pb, zb, hb, zdb, mb, gb = pages(b, word)
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
    if '--lzo' in sys.argv[4:]:
        r['lzo_a'] = lzo_size(ma + [g for g, z in zip(ga, za) if not z])
        r['lzo_a_nozc'] = lzo_size(flagged(ma, word, []) + ga)
        r['lzo_b'] = lzo_size(mb + [g for g, z in zip(gb, zb) if not z])
        r['lzo_b_zc'] = lzo_size(flagged(mb, word, gb) + [g for g in gb if g != ZERO])
    print(' '.join('%s=%d' % kv for kv in r.items()))


main()
