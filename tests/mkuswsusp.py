#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
mkuswsusp.py - userspace-suspend images (suspend-utils s2disk, "ULSUSPEND")
for the tests, built without libhibimg.

No Debian kernel writes this format and no fixture holds one, so the
container is laid out here the way suspend-utils' writer lays it out
(suspend.c: write_image, save_image, save_buffer, next_swap_page,
save_extents, mark_swap), around a real kernel's snapshot stream: the
/dev/snapshot stream is the in-kernel image's stream, so it is taken from
a fixture written by Linux 6.12 (read here with its swap map and LZO
chunks, python3-lzo), cut down to a few hundred pages.

The cut keeps the swsusp_info page (arch record and all), the first
--entries PFN-list entries plus the entries of the VMCOREINFO and
"Linux version" pages, and their data pages; it rewrites image_pages,
pages and size in swsusp_info and the PFN list (END-terminated). Nothing
else in the stream changes.

Container facts used (x86_64, little-endian, 4 KiB pages):
  resume page: packed { loff_t image; orig_sig[10]; sig[10] } at PS-28
  image header page at byte offset `image`: unsigned long pages; u32 flags;
    loff_t map_start; loff_t image_data_size; u8 checksum[16]; then
    without CONFIG_ENCRYPT: double writeout_time @48, int resume_pause @56;
    with it: salt[8] @48, struct RSA_data (3104) @56, struct encrypted_key
    (514) @3160, writeout_time @3680, resume_pause @3688
  extents pages: struct extent { loff_t start, end } x 256, byte offsets,
    end exclusive; slot 255's start = next extents page (0: none)
  data: the stream in buffers of 32 pages, MD5 over the uncompressed
    buffers, each buffer LZO1X-1 compressed as { size_t size; data[] }
    over whole pages; then every data page Blowfish-CFB encrypted in one
    stream (key MD5(passphrase), IV passphrase[:8] ^ salt)

Writes OUTDIR/VARIANT.img for each variant and OUTDIR/meta.json with the
numbers the tests compare hibimg's output with.
"""
import argparse
import hashlib
import json
import os
import struct
import sys
import warnings

import lzo

PS = 4096
BUFFER_PAGES = 32
EXT_SLOTS = PS // 16                 # struct extent slots per extents page
EXT_MAX = EXT_SLOTS - 1              # the last one links the next page
END_OF_MAP = 0xFFFFFFFFFFFFFFFF
ZERO_FLAG = 1 << 63

IMAGE_CHECKSUM = 0x01
IMAGE_COMPRESSED = 0x02
IMAGE_ENCRYPTED = 0x04
IMAGE_USE_RSA = 0x08
PLATFORM_SUSPEND = 0x10

PASSPHRASE = b"hibimg test passphrase"


# ---- the kernel's stream, read from an in-kernel image ----------------------

def read_kernel_stream(path):
    """swsusp_info, PFN-list values and data pages of an S1SUSPEND image
    (page 0 is the resume page)."""
    f = open(path, 'rb')

    def page(n):
        f.seek(n * PS)
        b = f.read(PS)
        if len(b) != PS:
            sys.exit("mkuswsusp: %s: short read at page %d" % (path, n))
        return b

    hdr = page(0)
    if hdr[PS - 10:PS - 1] != b'S1SUSPEND':
        sys.exit("mkuswsusp: %s: not an in-kernel image" % path)
    flags = struct.unpack_from('<I', hdr, PS - 24)[0]
    mp = struct.unpack_from('<Q', hdr, PS - 32)[0]
    entries = []
    while mp:
        m = page(mp)
        for e in struct.unpack_from('<511Q', m):
            if not e:
                break
            entries.append(e)
        mp = struct.unpack_from('<Q', m, PS - 8)[0]
    info = page(entries[0])
    image_pages, pages, size = struct.unpack_from('<QQQ', info, 416)
    assert size == pages * PS
    out = []
    i = 1
    raw = flags & 0x02       # SF_NOCOMPRESS_MODE
    while len(out) < pages - 1:
        if raw:
            out.append(page(entries[i]))
            i += 1
            continue
        p = page(entries[i])
        cl = struct.unpack_from('<Q', p)[0]
        n = (8 + cl + PS - 1) // PS
        buf = b''.join(page(entries[i + k]) for k in range(n))
        d = lzo.decompress(buf[8:8 + cl], False, BUFFER_PAGES * PS)
        assert len(d) % PS == 0
        out += [d[k:k + PS] for k in range(0, len(d), PS)]
        i += n
    meta = pages - image_pages - 1
    pfns = []
    for m in range(meta):
        for v in struct.unpack('<512Q', out[m]):
            if v == END_OF_MAP:
                break
            pfns.append(v)
    return info, pfns, out[meta:]


def cut_stream(info, pfns, data, keep):
    """The stream of the entries whose indexes are in keep (ascending)."""
    di = 0
    page_of = {}
    for idx, v in enumerate(pfns):
        if not v & ZERO_FLAG:
            page_of[idx] = di
            di += 1
    kept = [pfns[i] for i in keep]
    kdata = [data[page_of[i]] for i in keep if not pfns[i] & ZERO_FLAG]
    # the saved memory by PFN, zero-flagged pages as zeros, and its runs
    mem = hashlib.sha256()
    runs = []
    di = 0
    for v in kept:
        pfn = v & ~ZERO_FLAG
        if v & ZERO_FLAG:
            mem.update(bytes(PS))
        else:
            mem.update(kdata[di])
            di += 1
        if runs and runs[-1][1] + 1 == pfn:
            runs[-1][1] = pfn
        else:
            runs.append([pfn, pfn])
    words = kept + [END_OF_MAP]
    nmeta = (len(kept) * 8 + PS - 1) // PS
    listb = struct.pack('<%dQ' % len(words), *words)
    listb = listb[:nmeta * PS].ljust(nmeta * PS, b'\0')
    meta_pages = [listb[k:k + PS] for k in range(0, len(listb), PS)]
    pages = 1 + nmeta + len(kdata)
    ninfo = bytearray(info)
    struct.pack_into('<QQQ', ninfo, 416, len(kdata), pages, pages * PS)
    stream = [bytes(ninfo)] + meta_pages + kdata
    facts = {
        'pfn_entries': len(kept),
        'zero_flagged': sum(1 for v in kept if v & ZERO_FLAG),
        'image_pages': len(kdata),
        'meta_pages': nmeta,
        'stream_pages': pages,
        'lowest_pfn': kept[0] & ~ZERO_FLAG,
        'highest_pfn': kept[-1] & ~ZERO_FLAG,
        'pfn_runs': ','.join('0x%x-0x%x' % (a, b) for a, b in runs),
        'pfn_run_count': len(runs),
        'memory_sha256': mem.hexdigest(),
    }
    return stream, facts


def kernel_release(data_pages):
    """The release in the first "Linux version <digit>..." banner, as a
    person would read it."""
    for d in data_pages:
        at = d.find(b'Linux version ')
        while at >= 0:
            rest = d[at + 14:]
            if rest[:1].isdigit():
                return rest.split(b' ', 1)[0].decode()
            at = d.find(b'Linux version ', at + 1)
    return ''


# ---- the container -----------------------------------------------------------

class SwapArea:
    """Swap slots handed out in ascending order, skipping the slots some
    earlier swapping left in use (their pages hold other data), the way an
    allocator scanning a partly used area returns them."""

    def __init__(self, first, used):
        self.next_slot = first
        self.used = used

    def peek(self):
        s = self.next_slot
        while s in self.used:
            s += 1
        return s

    def take(self):
        s = self.peek()
        self.next_slot = s + 1
        return s


def blocks_of(stream, compress):
    """The pages save_buffer() writes, buffer by buffer, and the number of
    blocks (buffers)."""
    out = []
    wbuf = bytearray(36 * PS)      # the writer's compress buffer, reused
    nblocks = 0
    for b in range(0, len(stream), BUFFER_PAGES):
        buf = b''.join(stream[b:b + BUFFER_PAGES])
        nblocks += 1
        if not compress:
            out += stream[b:b + BUFFER_PAGES]
            continue
        c = lzo.compress(buf, 1, False)          # lzo1x_1_compress
        blk = struct.pack('<Q', len(c)) + c      # struct buf_block, size_t
        wbuf[:len(blk)] = blk
        n = (len(blk) + PS - 1) // PS
        # The tail of the last page is whatever an earlier block left there.
        out += [bytes(wbuf[k * PS:(k + 1) * PS]) for k in range(n)]
    return out, nblocks


def encrypt_pages(pages, salt):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    key = hashlib.md5(PASSPHRASE).digest()
    iv = bytes(a ^ b for a, b in zip(PASSPHRASE[:8].ljust(8, b'\0'), salt))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        enc = Cipher(algorithms.Blowfish(key), modes.CFB(iv)).encryptor()
    return [enc.update(p) for p in pages]


def layout_pages(area, data_pages, pages_needed_bytes, compress):
    """Places the data pages as the writer does: a batch of swap is
    preallocated into at most EXT_MAX extents (the whole remaining image,
    or half of it when compressing), consumed in extent order; when it runs
    out, the next extents page is taken and linked from the last slot.
    Returns the extents pages as [(offset, extents, next_offset)], where a
    page's extents may list preallocated pages that were never written,
    and the device page of every data page."""
    ext_pages = []
    cur_off = area.take() * PS           # init_swap_writer: extents_spc
    where = []
    swap_needed = pages_needed_bytes
    i = 0
    while i < len(data_pages):
        size = swap_needed
        if compress and size > PS:
            size //= 2
        want = max(1, (size + PS - 1) // PS)
        extents = []
        got = 0
        while got < want:
            s = area.peek()
            if extents and extents[-1][1] == s * PS:
                extents[-1][1] += PS
            elif len(extents) == EXT_MAX:
                break
            else:
                extents.append([s * PS, (s + 1) * PS])
            area.take()
            got += 1
        for a, b in extents:
            for off in range(a, b, PS):
                if i < len(data_pages):
                    where.append(off // PS)
                    i += 1
                    swap_needed -= PS
        nxt = area.take() * PS if i < len(data_pages) else 0
        ext_pages.append((cur_off, [tuple(e) for e in extents], nxt))
        cur_off = nxt
    return ext_pages, where


def build(stream, facts, v):
    """One image; returns (bytes, meta)."""
    compress = bool(v['flags'] & IMAGE_COMPRESSED)
    roff = v.get('resume_offset', 0)
    used = set(v.get('used', ()))
    area = SwapArea(roff + 1, used)

    header_off = area.take() * PS        # write_image: alloc_swap_page
    wpages, nblocks = blocks_of(stream, compress)
    salt = bytes(range(0xa1, 0xa9))
    if v['flags'] & IMAGE_ENCRYPTED:
        wpages = encrypt_pages(wpages, salt)
    ext_pages, where = layout_pages(area, wpages, len(stream) * PS, compress)

    last = max([header_off // PS] + where + [o // PS for o, _, _ in ext_pages] +
               [b // PS - 1 for _, ex, _ in ext_pages for _, b in ex])
    devpages = last + 1 + v.get('spare', 8)
    dev = bytearray(devpages * PS)
    for s in used:
        if s < devpages:
            dev[s * PS:(s + 1) * PS] = (b'other swapped-out page %6d ' % s).ljust(PS, b'.')

    # the swap header mkswap wrote, then mark_swap()
    rp = roff * PS
    struct.pack_into('<III', dev, rp + 1024, 1, devpages - roff - 1, 0)
    dev[rp + 1036:rp + 1052] = bytes(range(0x10, 0x20))
    dev[rp + 1052:rp + 1068] = b'uswsusp-test'.ljust(16, b'\0')
    struct.pack_into('<q10s10s', dev, rp + PS - 28, header_off, b'SWAPSPACE2',
                     b'ULSUSPEND\0')

    for k, d in enumerate(wpages):
        dev[where[k] * PS:(where[k] + 1) * PS] = d
    for off, extents, nxt in ext_pages:
        pg = bytearray(PS)
        for k, (a, b) in enumerate(extents):
            struct.pack_into('<qq', pg, k * 16, a, b)
        struct.pack_into('<q', pg, EXT_MAX * 16, nxt)
        dev[off:off + PS] = pg

    md5 = hashlib.md5(b''.join(stream)).digest()
    hdr = bytearray(PS)
    struct.pack_into('<QI4xqq', hdr, 0, len(stream), v['flags'],
                     ext_pages[0][0], len(wpages) * PS)
    if v['flags'] & IMAGE_CHECKSUM:
        hdr[32:48] = md5
    wt, rpause = v.get('writeout_time', 1.25), v.get('resume_pause', 0)
    if v.get('layout', 'plain') == 'encrypt':
        if v['flags'] & IMAGE_ENCRYPTED:
            hdr[48:56] = salt
        struct.pack_into('<di', hdr, 3680, wt, rpause)
    else:
        struct.pack_into('<di', hdr, 48, wt, rpause)
    dev[header_off:header_off + PS] = hdr

    # extents the data occupies (the last batch may list unused pages)
    used_ext = 0
    used_pages = set(where)
    for _, extents, _ in ext_pages:
        for a, b in extents:
            if any(p in used_pages for p in range(a // PS, b // PS)):
                used_ext += 1
    meta = dict(facts)
    meta.update({
        'resume_offset': roff,
        'device_size': len(dev),
        'header_offset': header_off,
        'pages': len(stream),
        'flags': v['flags'],
        'map_start': ext_pages[0][0],
        'image_data_size': len(wpages) * PS,
        'data_pages': len(wpages),
        'extents': used_ext,
        'extent_pages': len(ext_pages),
        'extent_page_offsets': [o for o, _, _ in ext_pages],
        'blocks': nblocks,
        'md5': md5.hex(),
        'layout': v.get('layout', 'plain'),
        'writeout_time': wt,
        'resume_pause': rpause,
        'data_page_devpages': where,
        'first_extents': [list(e) for e in ext_pages[0][1][:8]],
    })
    return dev, meta


# ---- damage ------------------------------------------------------------------

def flip(dev, off, mask=0x55):
    dev[off] ^= mask


def corrupt(dev, meta, how):
    """Damages a copy; returns a note the tests can grep for."""
    m = dict(meta)
    if how == 'data-byte':
        # a byte in the middle of a data page well inside the stream
        k = meta['data_pages'] // 2
        off = meta['data_page_devpages'][k] * PS + 1234
        flip(dev, off)
        m['damaged_at'] = off
    elif how == 'block-byte':
        # inside the LZO data of the second block (not its size, not padding)
        off = meta['data_page_devpages'][meta['block1_first']] * PS + 8 + 300
        flip(dev, off, 0xff)
        m['damaged_at'] = off
    elif how == 'md5':
        flip(dev, meta['header_offset'] + 32 + 5, 0x01)
    elif how == 'loop':
        # the first extents page links to itself
        o = meta['extent_page_offsets'][0]
        struct.pack_into('<q', dev, o + EXT_MAX * 16, o)
        m['damaged_at'] = o
    elif how == 'beyond':
        # extent 2 of the first extents page: its last page on the device,
        # the next 64 past its end
        o = meta['extent_page_offsets'][0]
        struct.pack_into('<qq', dev, o + 2 * 16, len(dev) - PS, len(dev) + 64 * PS)
        m['damaged_at'] = o
    elif how == 'pages':
        struct.pack_into('<Q', dev, meta['header_offset'], 1 << 50)
        m['damaged_at'] = meta['header_offset']
    elif how == 'flags':
        struct.pack_into('<I', dev, meta['header_offset'] + 8, meta['flags'] | 0x40)
    elif how == 'header-beyond':
        rp = meta['resume_offset'] * PS
        struct.pack_into('<q', dev, rp + PS - 28, len(dev) + 7 * PS)
    elif how == 'truncated':
        last = max(meta['data_page_devpages'])
        del dev[last * PS:]
    else:
        raise SystemExit("mkuswsusp: unknown damage " + how)
    m['damage'] = how
    return dev, m


VARIANTS = {
    'plain':               dict(flags=PLATFORM_SUSPEND),
    'compressed':          dict(flags=IMAGE_COMPRESSED | PLATFORM_SUSPEND),
    'checksum':            dict(flags=IMAGE_CHECKSUM, writeout_time=0.5, resume_pause=3),
    # a CONFIG_ENCRYPT build that did not encrypt: the longer header layout
    'compressed-checksum': dict(flags=IMAGE_COMPRESSED | IMAGE_CHECKSUM | PLATFORM_SUSPEND,
                                layout='encrypt', writeout_time=2.75, resume_pause=1),
    'encrypted':           dict(flags=IMAGE_COMPRESSED | IMAGE_CHECKSUM | IMAGE_ENCRYPTED |
                                PLATFORM_SUSPEND, layout='encrypt'),
    'swapfile':            dict(flags=IMAGE_COMPRESSED | IMAGE_CHECKSUM, resume_offset=16),
}
DAMAGED = {
    'bad-data': ('checksum', 'data-byte'),
    'bad-block': ('compressed-checksum', 'block-byte'),
    'bad-md5': ('checksum', 'md5'),
    'bad-loop': ('plain', 'loop'),
    'bad-extent': ('plain', 'beyond'),
    'bad-pages': ('compressed', 'pages'),
    'bad-flags': ('plain', 'flags'),
    'bad-header': ('plain', 'header-beyond'),
    'bad-truncated': ('compressed', 'truncated'),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('fixture', help='an in-kernel image (S1SUSPEND at page 0)')
    ap.add_argument('outdir')
    ap.add_argument('--entries', type=int, default=600,
                    help='PFN-list entries kept from the start (default 600)')
    ap.add_argument('--no-identity', action='store_true',
                    help='do not add the VMCOREINFO and banner pages')
    ap.add_argument('--fragment', type=int, default=600,
                    help='slots 2, 4, ... below this are in use (default 600)')
    ap.add_argument('--spare', type=int, default=8,
                    help='free slots after the image (default 8)')
    ap.add_argument('--variants', default=','.join(list(VARIANTS) + list(DAMAGED)))
    a = ap.parse_args()

    info, pfns, data = read_kernel_stream(a.fixture)
    keep = set(range(min(a.entries, len(pfns))))
    if not a.no_identity:
        di = 0
        for idx, v in enumerate(pfns):
            if v & ZERO_FLAG:
                continue
            d = data[di]
            di += 1
            if d.startswith(b'OSRELEASE=') or b'Linux version 6' in d:
                keep.add(idx)
                if len(keep) > a.entries + 3:
                    break
    stream, facts = cut_stream(info, pfns, data, sorted(keep))
    facts['kernel_release'] = kernel_release(stream[1 + facts['meta_pages']:])

    os.makedirs(a.outdir, exist_ok=True)
    built = {}
    allmeta = {}
    names = a.variants.split(',')
    for name in names:
        base, how = DAMAGED[name] if name in DAMAGED else (name, None)
        if base not in built:
            v = dict(VARIANTS[base])
            v['used'] = range(2, a.fragment, 2)
            v['spare'] = a.spare
            if v.get('resume_offset'):
                v['used'] = range(v['resume_offset'] + 2, v['resume_offset'] + a.fragment, 2)
            dev, meta = build(stream, facts, v)
            if v['flags'] & IMAGE_COMPRESSED:
                # first data page of block 1: after block 0's pages
                c0 = lzo.compress(b''.join(stream[:BUFFER_PAGES]), 1, False)
                b1 = (8 + len(c0) + PS - 1) // PS
                if b1 < len(meta['data_page_devpages']):
                    meta['block1_first'] = b1
                    meta['block1_offset'] = meta['data_page_devpages'][b1] * PS
            built[base] = (dev, meta)
        dev, meta = built[base]
        dev = bytearray(dev)
        if how:
            dev, meta = corrupt(dev, meta, how)
        with open(os.path.join(a.outdir, name + '.img'), 'wb') as f:
            f.write(dev)
        meta = {k: v for k, v in meta.items() if k != 'data_page_devpages'}
        allmeta[name] = meta
    with open(os.path.join(a.outdir, 'meta.json'), 'w') as f:
        json.dump(allmeta, f, indent=1, sort_keys=True)


if __name__ == '__main__':
    main()
