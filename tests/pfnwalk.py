#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The PFN list of a swsusp image read straight from the disk bytes, without
# hibimg: the tests' independent count of what a kernel saved.
#   pfnwalk.py DISK WORD [FROM_PFN]
# DISK: a whole swap disk (resume page 0, 4 KiB pages, little-endian); WORD:
# sizeof(long) of the writer (4 on i386, 8 on x86_64/arm64/riscv64). Prints
#   entries=N lowest=L highest=H [at_or_above=K] meta=M zero_flagged=Z
# (K: PFNs >= FROM_PFN, e.g. the first PFN of ZONE_HIGHMEM the kernel printed;
# M: the PFN-list pages, Z: entries with the zero-page flag).
# The kernel's layout (kernel/power/swap.c, snapshot.c): swsusp_header.image
# (u64 at 4064) is the first swap-map page, 511 u64 entries and a u64 link to
# the next; entry 0 is the swsusp_info page, the rest the stream. Compressed
# streams are chunks of a size_t length (WORD bytes) and LZO or LZ4 data
# padded to whole pages, each up to 32 pages uncompressed; the first
# nr_meta_pages = pages - image_pages - 1 stream pages hold the PFNs, one
# unsigned long each, ending at ~0UL; on 6.6+ the top bit flags a zero page.
# The data pages follow in PFN-list order, one per entry without the flag.
# walk() and stream() are imported by tests/pfndrift.py.
import struct
import sys

PS = 4096


def lz4_block(src, cap):
    """An LZ4 block (the kernel's crypto "lz4": LZ4_compress_default, no
    frame) decoded from the format description: sequences of a token
    (literal length << 4 | match length - 4, 15 = more bytes follow),
    literals, a 2-byte little-endian offset back into the output."""
    out, i, n = bytearray(), 0, len(src)
    while i < n:
        tok = src[i]
        i += 1
        lit = tok >> 4
        if lit == 15:
            while True:
                b = src[i]
                i += 1
                lit += b
                if b != 255:
                    break
        out += src[i:i + lit]
        i += lit
        if i >= n:          # the last sequence has literals only
            break
        off = src[i] | src[i + 1] << 8
        i += 2
        ml = tok & 15
        if ml == 15:
            while True:
                b = src[i]
                i += 1
                ml += b
                if b != 255:
                    break
        ml += 4
        if off == 0 or off > len(out):
            raise ValueError('LZ4: offset %d outside the output' % off)
        s = len(out) - off
        if off >= ml:
            out += out[s:s + ml]
        else:               # overlapping copy: the last off bytes repeat
            pat = bytes(out[s:])
            out += (pat * (ml // off + 1))[:ml]
        if len(out) > cap:
            raise ValueError('LZ4: more than %d bytes' % cap)
    return bytes(out)


class Image:
    def __init__(self, disk, word):
        self.f = open(disk, 'rb')
        self.word = word
        hdr = self.page(0)
        if hdr[PS - 10:PS - 1] != b'S1SUSPEND':
            sys.exit('%s: no S1SUSPEND signature on page 0' % disk)
        self.flags = struct.unpack_from('<I', hdr, PS - 24)[0]
        slots = []
        m = struct.unpack_from('<Q', hdr, PS - 32)[0]
        while m:
            mp = self.page(m)
            e = struct.unpack_from('<512Q', mp)
            slots += [x for x in e[:511] if x]
            m = e[511]
        self.L = '<I' if word == 4 else '<Q'
        info = self.page(slots[0])
        # swsusp_info after its 390-byte utsname/arch area and version_code:
        # num_physpages, cpus, image_pages, pages, size (unsigned long each)
        base = 396 if word == 4 else 400
        self.image_pages = struct.unpack_from(self.L, info, base + 2 * word)[0]
        self.pages = struct.unpack_from(self.L, info, base + 3 * word)[0]
        self.meta = self.pages - self.image_pages - 1
        self.slots = slots[1:]

    def page(self, n):
        self.f.seek(n * PS)
        return self.f.read(PS)

    def stream(self, upto=None):
        """The stream pages (meta, then data) in order, decompressed; only
        the first UPTO of them where given."""
        upto = self.pages - 1 if upto is None else upto
        st = self.slots
        if self.flags & 2:      # SF_NOCOMPRESS_MODE: stream pages as they are
            for s in st[:upto]:
                yield self.page(s)
            return
        if self.flags & 0x10:   # SF_COMPRESSION_ALG_LZ4
            dec = lz4_block
        else:
            import lzo          # python3-lzo
            dec = lambda b, n: lzo.decompress(b, False, n)
        i = done = 0
        while done < upto and i < len(st):
            first = self.page(st[i])
            n = struct.unpack_from(self.L, first)[0]
            span = (self.word + n + PS - 1) // PS
            data = b''.join(self.page(s) for s in st[i:i + span])
            raw = dec(data[self.word:self.word + n], 32 * PS)
            for k in range(0, len(raw), PS):
                if done < upto:
                    yield raw[k:k + PS]
                    done += 1
            i += span


def walk(img):
    """(pfns, zero flags) of the image's PFN list."""
    word = img.word
    raw = b''.join(img.stream(img.meta))
    top = 1 << (8 * word - 1)
    end = (1 << (8 * word)) - 1
    pfns, zero = [], []
    for (v,) in struct.iter_unpack(img.L, raw[:img.meta * PS]):
        if v == end:
            break
        pfns.append(v & ~top)
        zero.append(bool(v & top))
    return pfns, zero


def main():
    disk, word = sys.argv[1], int(sys.argv[2])
    frm = int(sys.argv[3], 0) if len(sys.argv) > 3 else None
    img = Image(disk, word)
    pfns, zero = walk(img)
    out = 'entries=%d lowest=%d highest=%d' % (len(pfns), min(pfns), max(pfns))
    if frm is not None:
        out += ' at_or_above=%d' % sum(1 for p in pfns if p >= frm)
    out += ' meta=%d zero_flagged=%d' % (img.meta, sum(zero))
    print(out)


if __name__ == '__main__':
    main()
