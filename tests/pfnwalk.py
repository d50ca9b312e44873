#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The PFN list of a swsusp image read straight from the disk bytes, without
# hibimg: the tests' independent count of what a kernel saved.
#   pfnwalk.py DISK WORD [FROM_PFN]
# DISK: a whole swap disk (resume page 0, 4 KiB pages, little-endian); WORD:
# sizeof(long) of the writer (4 on i386, 8 on x86_64/arm64/riscv64). Prints
#   entries=N lowest=L highest=H at_or_above=K
# (K: PFNs >= FROM_PFN, e.g. the first PFN of ZONE_HIGHMEM the kernel printed).
# The kernel's layout (kernel/power/swap.c, snapshot.c): swsusp_header.image
# (u64 at 4064) is the first swap-map page, 511 u64 entries and a u64 link to
# the next; entry 0 is the swsusp_info page, the rest the stream. Compressed
# streams are chunks of a size_t length (WORD bytes) and LZO data padded
# to whole pages, each up to 32 pages uncompressed; the first
# nr_meta_pages = pages - image_pages - 1 stream pages hold the PFNs, one
# unsigned long each, ending at ~0UL; on 6.6+ the top bit flags a zero page.
import struct
import sys

PS = 4096


def main():
    disk, word = sys.argv[1], int(sys.argv[2])
    frm = int(sys.argv[3], 0) if len(sys.argv) > 3 else None
    f = open(disk, 'rb')

    def page(n):
        f.seek(n * PS)
        return f.read(PS)

    hdr = page(0)
    if hdr[PS - 10:PS - 1] != b'S1SUSPEND':
        sys.exit('no S1SUSPEND signature on page 0')
    flags = struct.unpack_from('<I', hdr, PS - 24)[0]
    slots = []
    m = struct.unpack_from('<Q', hdr, PS - 32)[0]
    while m:
        mp = page(m)
        e = struct.unpack_from('<512Q', mp)
        slots += [x for x in e[:511] if x]
        m = e[511]
    L = '<I' if word == 4 else '<Q'
    info = page(slots[0])
    # swsusp_info after its 390-byte utsname/arch area and version_code:
    # num_physpages, cpus, image_pages, pages, size (unsigned long each)
    base = 396 if word == 4 else 400
    image_pages = struct.unpack_from(L, info, base + 2 * word)[0]
    pages = struct.unpack_from(L, info, base + 3 * word)[0]
    meta = pages - image_pages - 1
    stream = slots[1:]
    if flags & 2:           # SF_NOCOMPRESS_MODE: stream pages as they are
        raw = b''.join(page(s) for s in stream[:meta])
    else:
        if flags & 0x10:
            sys.exit('LZ4 stream: not read here (LZO and uncompressed only)')
        import lzo          # python3-lzo
        dec = lambda b, n: lzo.decompress(b, False, n)
        raw, i = b'', 0
        while len(raw) < meta * PS:
            first = page(stream[i])
            n = struct.unpack_from(L, first)[0]
            span = (word + n + PS - 1) // PS
            data = b''.join(page(s) for s in stream[i:i + span])[word:word + n]
            raw += dec(data, 32 * PS)
            i += span
    top = 1 << (8 * word - 1)
    end = (1 << (8 * word)) - 1
    pfns = []
    for (v,) in struct.iter_unpack(L, raw[:meta * PS]):
        if v == end:
            break
        pfns.append(v & ~top)
    out = 'entries=%d lowest=%d highest=%d' % (len(pfns), min(pfns), max(pfns))
    if frm is not None:
        out += ' at_or_above=%d' % sum(1 for p in pfns if p >= frm)
    print(out)


main()
