#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Reads a swsusp image of any page size and word size without libhibimg
(issue 17), from FORMAT.md and the kernel's structs: the resume page's
signature at PS-10 decides PS (as libblkid probes 4K..64K), the swap map
holds 8-byte sector_t (MAP_PAGE_ENTRIES = PS/8 - 1, next_swap last),
swsusp_info's word size is the one whose size == pages * PS.

  pslayout.py IMG [-R PAGES] summary        JSON: ps, word, counts, chunks,
                                            the sum of their cmp_len
  pslayout.py IMG [-R PAGES] page PFN       the saved page (raw images only)
  pslayout.py IMG [-R PAGES] chunk0         "DEV CMP_LEN" of the first chunk
  pslayout.py IMG [-R PAGES] entry N        device page of map entry N
"""
import json, struct, sys

args = sys.argv[1:]
roff = 0
if '-R' in args:
    i = args.index('-R'); roff = int(args[i + 1], 0); del args[i:i + 2]
path, what = args[0], args[1]
f = open(path, 'rb')

def read(off, n):
    f.seek(off); b = f.read(n)
    assert len(b) == n, 'short read at %d' % off
    return b

ps = None
for cand in (4096, 8192, 16384, 32768, 65536):
    try:
        pg = read(roff * cand, cand)
    except AssertionError:
        continue
    if pg[cand - 10:cand - 1] == b'S1SUSPEND':
        ps = cand; break
assert ps, 'no S1SUSPEND at PS-10 for any page size'
hdr = read(roff * ps, ps)
first_map = struct.unpack_from('<Q', hdr, ps - 32)[0]
flags = struct.unpack_from('<I', hdr, ps - 24)[0]
epm = ps // 8 - 1
entries, maps, mp = [], [], first_map
while mp:
    maps.append(mp)
    m = read(mp * ps, ps)
    entries += [e for e in struct.unpack_from('<%dQ' % epm, m) if e]
    mp = struct.unpack_from('<Q', m, ps - 8)[0]
info = read(entries[0] * ps, ps)
for word, o_np in ((8, 400), (4, 396)):
    fmt = '<Q' if word == 8 else '<I'
    image_pages, pages, size = (struct.unpack_from(fmt, info, o_np + k * word)[0] for k in (2, 3, 4))
    if pages > image_pages and size == pages * ps:
        break
else:
    raise SystemExit('swsusp_info: no word size fits')
meta = pages - image_pages - 1
compressed = not flags & 2

def stream_page(n):  # raw images: stream page n is map entry n
    return read(entries[n] * ps, ps)

pfns, zero = [], []
if not compressed:
    fmt = '<Q' if word == 8 else '<I'
    flag, end = 1 << (word * 8 - 1), (1 << (word * 8)) - 1
    for m in range(1, meta + 1):
        pg = stream_page(m)
        for j in range(ps // word):
            v = struct.unpack_from(fmt, pg, j * word)[0]
            if v == end:
                break
            pfns.append(v & ~flag); zero.append(bool(v & flag))

chunks = disk = cmp_bytes = 0
if compressed:
    e = 1
    while e < len(entries):
        cl = struct.unpack_from('<Q' if word == 8 else '<I', read(entries[e] * ps, word))[0]
        need = (word + cl + ps - 1) // ps
        chunks += 1; disk += need; e += need; cmp_bytes += cl

if what == 'summary':
    print(json.dumps({'ps': ps, 'word': word, 'first_map': first_map, 'maps': maps,
                      'map_entries': len(entries), 'image_pages': image_pages,
                      'pages': pages, 'meta': meta, 'compressed': compressed,
                      'chunks': chunks, 'disk': disk, 'cmp_bytes': cmp_bytes,
                      'pfn_entries': len(pfns), 'zero_flagged': sum(zero),
                      'highest': max(pfns) if pfns else None,
                      'data_pfns': [p for p, z in zip(pfns, zero) if not z][:3]}))
elif what == 'page':
    want = int(args[2], 0)
    k = 1 + meta
    for p, z in zip(pfns, zero):
        if p == want:
            sys.stdout.buffer.write(bytes(ps) if z else stream_page(k)); break
        if not z:
            k += 1
    else:
        raise SystemExit('PFN not saved')
elif what == 'chunk0':
    print(entries[1], struct.unpack_from('<Q' if word == 8 else '<I', read(entries[1] * ps, word))[0])
elif what == 'entry':
    print(entries[int(args[2])])
