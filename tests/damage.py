#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Damage made to a fixture, and what of it can still be read, without hibimg.

The chunk boundaries come from the UNDAMAGED original (walked from the
kernel's struct swap_map_page and each chunk's size_t length), so the walk
of the damaged copy knows where every chunk really starts and never
depends on hibimg's resync: a chunk that still decodes (LZO/LZ4 through
liblzo2/liblz4 by ctypes) to the pages the original's did is kept, any
other is lost with its stream pages. The PFN list is then read from the
stream pages kept; data page k belongs to the k-th entry without the zero
flag, counted from the start while every PFN-list page before it is
there, else from the end (swsusp_info's image_pages) while every one
after it is. 64-bit little-endian writers (x86_64, arm64).

  chunks PS ORIG              "index map_entry devpage cmp_len disk_pages
                              pages first_stream_page" per chunk (raw: per
                              stream page, cmp_len 0)
  literal PS ORIG CHUNK       a byte offset in the device inside chunk
                              CHUNK's compressed data whose flip (xor 0x5a)
                              still decodes to as many pages, other bytes
                              (so the CRC differs, every chunk decodes):
                              found by decoding each candidate
  flip FILE OFFSET            xor the byte at OFFSET with 0x5a, in place
  put64 FILE OFFSET VALUE     write a little-endian u64 at OFFSET, in place
  kernel PS ORIG RELEASE LOG  the chunks holding what the kernel's identity
                              and log are read from, one "CHUNK WHAT [N]"
                              line each: vmcoreinfo (a page that starts
                              "OSRELEASE="), uts (struct new_utsname:
                              "Linux" NUL-padded to 65 bytes, RELEASE at
                              +130), log N (N of every 7th console kernel
                              line of LOG, 24+ characters, up to "Creating
                              image", found in its text)
  walk PS ORIG DAMAGED OUT    OUT.saved: "PFN sha256" per page still read
                              (zero-flagged as zeros), OUT.lost: one PFN a
                              line (lost, PFN known), OUT.runs: "A B" runs
                              of the saved PFNs, OUT.info: key=value
                              (saved, lost, unknown_entries, lost_chunks)
"""
import ctypes
import hashlib
import re
import struct
import sys

UNC = 32


def h(b):
    return hashlib.sha256(b).hexdigest()


class Image:
    def __init__(self, ps, path):
        self.ps = ps
        with open(path, "rb") as f:
            self.dev = f.read()
        hdr = self.dev[:ps]
        self.image, self.flags = struct.unpack_from("<QI", hdr, ps - 32)
        self.crc = struct.unpack_from("<I", hdr, ps - 36)[0]
        per = ps // 8 - 1
        self.entries, m, seen = [], self.image, set()
        while m:
            if m in seen:
                sys.exit("damage.py: swap-map cycle")
            seen.add(m)
            ent = struct.unpack_from("<%dQ" % (per + 1), self.page(m))
            self.entries += [e for e in ent[:per] if e]
            m = ent[per]
        self.raw = bool(self.flags & 0x2)
        self.lz4 = bool(self.flags & 0x10)
        info = self.page(self.entries[0])
        self.image_pages, self.pages = struct.unpack_from("<QQ", info, 416)
        self.meta = self.pages - self.image_pages - 1

    def page(self, n):
        """None past the end of the file: a truncated copy."""
        if (n + 1) * self.ps > len(self.dev):
            return None
        return self.dev[n * self.ps:(n + 1) * self.ps]


_lz = {}


def decode(lz4, raw, ps):
    """The decoded bytes, or None where the data does not decode."""
    unc = UNC * ps
    out = ctypes.create_string_buffer(unc)
    if lz4:
        lz = _lz.setdefault("lz4", ctypes.CDLL("liblz4.so.1"))
        got = lz.LZ4_decompress_safe(raw, out, len(raw), unc)
        if got <= 0:
            return None
    else:
        lz = _lz.setdefault("lzo", ctypes.CDLL("liblzo2.so.2"))
        ln = ctypes.c_ulong(unc)
        if lz.lzo1x_decompress_safe(raw, ctypes.c_ulong(len(raw)), out,
                                    ctypes.byref(ln), None) != 0:
            return None
        got = ln.value
    if got == 0 or got % ps:
        return None
    return out.raw[:got]


def chunks(img):
    """The original's chunks: (index, map_entry, cmp_len, disk_pages,
    pages, first_stream_page)."""
    ps, res, sp = img.ps, [], 1
    if img.raw:
        for i in range(1, len(img.entries)):
            res.append((i - 1, i, 0, 1, 1, i))
        return res
    i, k = 1, 0
    while i < len(img.entries):
        first = img.page(img.entries[i])
        cmp_len = struct.unpack_from("<Q", first)[0]
        n = (8 + cmp_len + ps - 1) // ps
        raw = b"".join(img.page(e) for e in img.entries[i:i + n])[8:8 + cmp_len]
        d = decode(img.lz4, raw, ps)
        if d is None:
            sys.exit("damage.py: the original's chunk %d does not decode" % k)
        res.append((k, i, cmp_len, n, len(d) // ps, sp))
        sp += len(d) // ps
        i += n
        k += 1
    return res


def cmd_chunks(ps, orig):
    img = Image(ps, orig)
    for c in chunks(img):
        print("%d %d %d %d %d %d %d" % (c[0], c[1], img.entries[c[1]], c[2], c[3],
                                        c[4], c[5]))


def cmd_literal(ps, orig, want):
    """A literal byte whose flip still decodes to as many pages."""
    img = Image(ps, orig)
    for c in chunks(img):
        if c[0] != want:
            continue
        k, e, cmp_len, n, pages, sp = c
        raw = bytearray(b"".join(img.page(x) for x in img.entries[e:e + n]))
        body = bytes(raw[8:8 + cmp_len])
        good = decode(img.lz4, body, ps)
        # from the middle on: a byte whose flip decodes to as many pages
        # but other bytes is a literal's (or an offset's that stays inside)
        half = cmp_len // 2
        for off in list(range(half, cmp_len)) + list(range(0, half)):
            b = bytearray(body)
            b[off] ^= 0x5A
            d = decode(img.lz4, bytes(b), ps)
            if d is not None and len(d) == len(good) and d != good:
                pos = 8 + off
                print(img.entries[e + pos // ps] * ps + pos % ps)
                return
        sys.exit("damage.py: no literal byte in chunk %d" % want)
    sys.exit("damage.py: no chunk %d" % want)


def decoded(img, c):
    """The stream pages chunk c (of chunks()) decodes to."""
    k, e, cmp_len, n, pages, sp = c
    raw = b"".join(img.page(x) for x in img.entries[e:e + n])
    return raw if img.raw else decode(img.lz4, raw[8:8 + cmp_len], img.ps)


def cmd_kernel(ps, orig, release, log):
    img = Image(ps, orig)
    rel = release.encode()
    sysname = b"Linux".ljust(65, b"\0")
    probes = []
    stamp = re.compile(rb"\[\s*\d+\.\d{6}\] ?(.*)$")
    with open(log, "rb") as f:
        for raw in f:
            m = stamp.search(raw.rstrip(b"\r\n"))
            if not m:
                continue
            probes.append(m.group(1).rstrip())
            if b"Creating image" in m.group(1):
                break
    probes = [t for t in probes if len(t) >= 24][::7]
    for c in chunks(img):
        u = decoded(img, c)
        if any(u[j * ps:j * ps + 10] == b"OSRELEASE=" for j in range(len(u) // ps)):
            print("%d vmcoreinfo" % c[0])
        i = u.find(sysname)
        while i >= 0:
            if u[i + 130:i + 131 + len(rel)] == rel + b"\0":
                print("%d uts" % c[0])
                break
            i = u.find(sysname, i + 1)
        n = sum(1 for t in probes if t in u)
        if n:
            print("%d log %d" % (c[0], n))


def cmd_walk(ps, orig, damaged, out):
    o = Image(ps, orig)
    d = Image(ps, damaged)
    d.entries = o.entries            # the map as the original had it
    stream = {}                      # stream page -> bytes, what still reads
    lost_chunks = 0
    for k, e, cmp_len, n, pages, sp in chunks(o):
        pgs = [d.page(x) for x in o.entries[e:e + n]]
        if any(p is None for p in pgs):
            lost_chunks += 1
            continue
        if o.raw:
            stream[sp] = pgs[0]
            continue
        raw = b"".join(pgs)
        ln = struct.unpack_from("<Q", raw)[0]
        data = decode(o.lz4, raw[8:8 + ln], ps) if ln == cmp_len else None
        if data is None or len(data) != pages * ps:
            lost_chunks += 1
            continue
        for j in range(pages):
            stream[sp + j] = data[j * ps:(j + 1) * ps]
    meta = o.meta
    per = ps // 8
    pfnpages = {}
    for m in range(1, meta + 1):
        if m in stream:
            ent = []
            for v in struct.unpack_from("<%dQ" % per, stream[m]):
                if v == 0xFFFFFFFFFFFFFFFF:
                    break
                ent.append(v)
            pfnpages[m] = ent
    # data pages before each PFN-list page, from either end
    base = {}
    acc, ok = 0, True
    for m in range(1, meta + 1):
        ok = ok and m in pfnpages
        if ok:
            base[m] = acc
        acc += sum(1 for v in pfnpages.get(m, []) if not v >> 63)
    acc, ok = 0, True
    for m in range(meta, 0, -1):
        ok = ok and m in pfnpages
        if not ok:
            break
        acc += sum(1 for v in pfnpages[m] if not v >> 63)
        base.setdefault(m, o.image_pages - acc)
    saved, lost = [], []
    zero = h(bytes(ps))
    unknown = sum(per for m in range(1, meta) if m not in pfnpages)
    for m in range(1, meta + 1):
        if m not in pfnpages:
            continue
        nz = 0
        for v in pfnpages[m]:
            pfn = v & ~(1 << 63)
            if v >> 63:
                saved.append((pfn, zero))
                continue
            dsp = None if m not in base else 1 + meta + base[m] + nz
            nz += 1
            if dsp is not None and dsp in stream:
                saved.append((pfn, h(stream[dsp])))
            else:
                lost.append(pfn)
    with open(out + ".saved", "w") as f:
        for pfn, hh in saved:
            f.write("%d %s\n" % (pfn, hh))
    with open(out + ".lost", "w") as f:
        for pfn in lost:
            f.write("%d\n" % pfn)
    runs = []
    for pfn, _ in saved:
        if runs and runs[-1][1] + 1 == pfn:
            runs[-1][1] = pfn
        else:
            runs.append([pfn, pfn])
    with open(out + ".runs", "w") as f:
        for a, b in runs:
            f.write("%d %d\n" % (a, b))
    with open(out + ".info", "w") as f:
        f.write("saved=%d\nlost=%d\nunknown_entries=%d\nlost_chunks=%d\n"
                % (len(saved), len(lost), unknown, lost_chunks))


def main():
    a = sys.argv[1:]
    if a[:1] == ["chunks"] and len(a) == 3:
        cmd_chunks(int(a[1]), a[2])
    elif a[:1] == ["literal"] and len(a) == 4:
        cmd_literal(int(a[1]), a[2], int(a[3]))
    elif a[:1] == ["flip"] and len(a) == 3:
        with open(a[1], "r+b") as f:
            f.seek(int(a[2]))
            b = f.read(1)
            f.seek(int(a[2]))
            f.write(bytes([b[0] ^ 0x5A]))
    elif a[:1] == ["put64"] and len(a) == 4:
        with open(a[1], "r+b") as f:
            f.seek(int(a[2]))
            f.write(struct.pack("<Q", int(a[3], 0)))
    elif a[:1] == ["kernel"] and len(a) == 5:
        cmd_kernel(int(a[1]), a[2], a[3], a[4])
    elif a[:1] == ["walk"] and len(a) == 5:
        cmd_walk(int(a[1]), a[2], a[3], a[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
