#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Independent readers of a kdump-compressed export for tests/cli-kdump.sh.

Nothing here uses hibimg's code. `parse` reads the file from makedumpfile's
published layout (diskdump_mod.h: disk_dump_header, kdump_sub_header,
page_desc; the 32-bit writers' packed one as libkdumpfile's diskdump.c
names it) and decodes every page itself (zlib from Python, LZO and zstd
through liblzo2 and libzstd by ctypes); `libkdumpfile` reads every PFN
through Debian's python3-libkdumpfile, a second reader written by others.

  parse PS WORD KDUMP RAW      key=value facts, and checks every page
                               against the raw export (same PFN) and the
                               bitmaps against each other
  libkdumpfile KDUMP RAW       key=value: what libkdumpfile reads, every
                               PFN below max_pfn compared with RAW
  note KDUMP                   the VMCOREINFO text (offset_vmcoreinfo), raw
  drgn-release KDUMP           init_uts_ns's release, read by drgn through
                               libkdumpfile
"""
import ctypes
import struct
import sys
import zlib

ZLIB, LZO, SNAPPY, ZSTD = 0x1, 0x2, 0x4, 0x20


def header(f, word):
    d = f.read(4096)
    if d[:8] != b"KDUMP   ":
        sys.exit("signature %r, not 'KDUMP   '" % d[:8])
    # struct new_utsname: six 65-byte strings from offset 12
    uts = [d[12 + 65 * i:12 + 65 * (i + 1)].split(b"\0")[0].decode() for i in range(6)]
    # 8-byte longs align struct timeval (16 bytes) to 8: status at 424;
    # i386 has an 8-byte timeval at 404: status at 412
    st = 424 if word == 8 else 412
    (status, block_size, sub_hdr_size, bitmap_blocks, max_mapnr, total_ram,
     device_blocks, written_blocks, current_cpu, nr_cpus) = struct.unpack_from("<IiiIIIIIIi", d, st)
    h = dict(version=struct.unpack_from("<i", d, 8)[0], status=status, block_size=block_size,
             sub_hdr_size=sub_hdr_size, bitmap_blocks=bitmap_blocks, max_mapnr32=max_mapnr,
             nr_cpus=nr_cpus, sysname=uts[0], release=uts[2], version_str=uts[3],
             machine=uts[4], timestamp_usec=struct.unpack_from("<q", d, 416)[0] if word == 8 else 0)
    f.seek(block_size)
    s = f.read(128)
    if word == 8:
        (phys_base, dump_level, split, _sp, _ep, off_vmci, size_vmci, off_note, size_note,
         _oe, _se, _sp64, _ep64, max_mapnr_64) = struct.unpack_from("<QiiQQQQQQQQQQQ", s)
    else:
        (phys_base, dump_level, split, _sp, _ep, off_vmci, size_vmci, off_note, size_note,
         _oe, _se, _sp64, _ep64, max_mapnr_64) = struct.unpack_from("<IiiIIQIQIQIQQQ", s)
    h.update(phys_base=phys_base, dump_level=dump_level, split=split, off_vmci=off_vmci,
             size_vmci=size_vmci, off_note=off_note, size_note=size_note,
             max_mapnr=max_mapnr_64)
    return h


def bits(b, n):
    return [p for p in range(n) if b[p >> 3] >> (p & 7) & 1]


def parse(ps, word, path, raw):
    lzo = ctypes.CDLL("liblzo2.so.2")
    zstd = ctypes.CDLL("libzstd.so.1")
    zstd.ZSTD_decompress.restype = ctypes.c_size_t
    zstd.ZSTD_isError.argtype = [ctypes.c_size_t]
    out = ctypes.create_string_buffer(ps)
    with open(path, "rb") as f, open(raw, "rb") as r:
        h = header(f, word)
        bs = h["block_size"]
        n = h["max_mapnr"]
        half = h["bitmap_blocks"] * bs // 2
        f.seek((1 + h["sub_hdr_size"]) * bs)
        bm1 = f.read(half)
        bm2 = f.read(half)
        desc_off = (1 + h["sub_hdr_size"] + h["bitmap_blocks"]) * bs
        ram, dumped = bits(bm1, n), bits(bm2, n)
        # every bit past max_mapnr is clear
        beyond = sum(1 for p in range(n, half * 8) if bm1[p >> 3] >> (p & 7) & 1 or
                     bm2[p >> 3] >> (p & 7) & 1)
        ramset = set(ram)
        bad = compressed = 0
        kinds = {}
        offsets = {}
        for i, pfn in enumerate(dumped):
            f.seek(desc_off + 24 * i)
            off, size, flags, _pf = struct.unpack("<QIIQ", f.read(24))
            offsets[off] = offsets.get(off, 0) + 1
            f.seek(off)
            data = f.read(size)
            if flags & ZLIB:
                page = zlib.decompress(data)
            elif flags & LZO:
                ln = ctypes.c_ulong(ps)
                if lzo.lzo1x_decompress_safe(data, ctypes.c_ulong(size), out,
                                             ctypes.byref(ln), None) != 0:
                    sys.exit("PFN %d: LZO does not decode" % pfn)
                page = out.raw[:ln.value]
            elif flags & ZSTD:
                got = zstd.ZSTD_decompress(out, ctypes.c_size_t(ps), data, ctypes.c_size_t(size))
                if zstd.ZSTD_isError(ctypes.c_size_t(got)):
                    sys.exit("PFN %d: zstd does not decode" % pfn)
                page = out.raw[:got]
            else:
                page = data
            if flags:
                compressed += 1
                if size >= ps:
                    bad += 1       # stored compressed but not smaller
            kinds[flags] = kinds.get(flags, 0) + 1
            r.seek(pfn * ps)
            if page != r.read(ps) or len(page) != ps:
                bad += 1
        # pages the 1st bitmap has and the 2nd not: zeros in the raw export
        zero = bytes(ps)
        dset = set(dumped)
        excl_nonzero = 0
        for pfn in ram:
            if pfn not in dset:
                r.seek(pfn * ps)
                if r.read(ps) != zero:
                    excl_nonzero += 1
        # PFNs in neither bitmap: holes of the raw export
        r.seek(0, 2)
        rawsize = r.tell()
        f.seek(h["off_vmci"])
        note = f.read(h["size_vmci"])
        # every ELF note of the note area: NT_PRSTATUS ("CORE", 1) ones may
        # come first, as in /proc/vmcore; VMCOREINFO is the one
        # offset_vmcoreinfo must point into
        f.seek(h["off_note"])
        area = f.read(h["size_note"])
        p, vm, prs = 0, None, []
        while p + 12 <= len(area):
            nn, dn, nt = struct.unpack_from("<III", area, p)
            name = area[p + 12:p + 12 + nn].rstrip(b"\0")
            d = p + 12 + ((nn + 3) & ~3)
            if name == b"VMCOREINFO" and vm is None:
                vm = (p, nn, dn, nt, name, d)
            elif name == b"CORE" and nt == 1:
                prs.append(area[d:d + dn])
            p = d + ((dn + 3) & ~3)
        if vm is None:
            vm = (0, 0, 0, 0, b"", 0)
        vp, namesz, descsz, ntype, vname, vdesc = vm
        nhdr = b"\0" * 12 + vname.ljust(10, b"\0")
    print("version=%d" % h["version"])
    print("block_size=%d" % bs)
    print("max_mapnr=%d" % n)
    print("max_mapnr32=%d" % h["max_mapnr32"])
    print("raw_pages=%d" % (rawsize // ps))
    print("bitmap_blocks=%d" % h["bitmap_blocks"])
    print("bitmap_ok=%d" % (half == -(-(-(-n // 8)) // bs) * bs))
    print("bits_beyond=%d" % beyond)
    print("ram=%d" % len(ram))
    print("dumped=%d" % len(dumped))
    print("dumped_subset=%d" % int(dset <= ramset))
    print("compressed=%d" % compressed)
    print("flags=%s" % ",".join("%#x:%d" % kv for kv in sorted(kinds.items())))
    print("bad_pages=%d" % bad)
    # page_descs sharing one page's data: makedumpfile's pd_zero
    print("max_shared=%d" % max(offsets.values(), default=0))
    print("excluded_nonzero=%d" % excl_nonzero)
    print("status=%#x" % h["status"])
    print("dump_level=%d" % h["dump_level"])
    print("nr_cpus=%d" % h["nr_cpus"])
    print("sysname=%s" % h["sysname"])
    print("release=%s" % h["release"])
    print("machine=%s" % h["machine"])
    print("phys_base=%#x" % h["phys_base"])
    print("note=%s" % ("%d %d %d %s" % (namesz, descsz, ntype, nhdr[12:22].decode(errors="replace"))))
    print("note_desc_is_vmcoreinfo=%d" % int(descsz == h["size_vmci"] and
                                             h["off_vmci"] == h["off_note"] + vdesc))
    print("prstatus_notes=%d" % len(prs))
    for d in prs:
        print("prstatus=%s" % d.hex())
    rel = [l[10:] for l in note.decode(errors="replace").splitlines() if l.startswith("OSRELEASE=")]
    print("osrelease=%s" % (rel[0] if rel else ""))
    # what crash takes phys_base from: x86_64's NUMBER(phys_base) (decimal),
    # arm64's linear-map NUMBER(PHYS_OFFSET) (hex), as makedumpfile writes them
    lines = dict(l.partition("=")[::2] for l in note.decode(errors="replace").splitlines())
    want = 0
    if "NUMBER(PHYS_OFFSET)" in lines:
        want = int(lines["NUMBER(PHYS_OFFSET)"], 16)
    elif "NUMBER(phys_base)" in lines:
        want = int(lines["NUMBER(phys_base)"]) & (2**64 - 1)
    print("phys_base_ok=%d" % int(h["phys_base"] == want))


def libkdumpfile(path, raw):
    import kdumpfile
    k = kdumpfile.kdumpfile(path)
    a = k.attr
    ps = a["arch.page_size"]
    n = a["max_pfn"]
    print("format=%s" % a["file.format"])
    print("arch=%s" % a["arch.name"])
    print("page_size=%d" % ps)
    print("max_pfn=%d" % n)
    print("release=%s" % a["linux.uts.release"])
    vi = bytes(a["linux.vmcoreinfo.raw"]) if "linux.vmcoreinfo.raw" in a else b""
    rel = [l[10:] for l in vi.decode(errors="replace").splitlines() if l.startswith("OSRELEASE=")]
    print("vmcoreinfo_osrelease=%s" % (rel[0] if rel else ""))
    zero = bytes(ps)
    read = excluded = bad = 0
    with open(raw, "rb") as r:
        for pfn in range(n):
            r.seek(pfn * ps)
            want = r.read(ps).ljust(ps, b"\0")
            try:
                got = k.read(kdumpfile.KDUMP_MACHPHYSADDR, pfn * ps, ps)
            except Exception:
                # excluded: a page of zeros left out, or a PFN the image
                # did not save (the raw export's holes)
                excluded += 1
                if want != zero:
                    bad += 1
                continue
            read += 1
            if got != want:
                bad += 1
    print("read=%d" % read)
    print("excluded=%d" % excluded)
    print("bad=%d" % bad)
    # with file.zero_excluded, every excluded page reads as zeros: the
    # whole file then equals the raw export
    a["file.zero_excluded"] = 1
    bad = 0
    with open(raw, "rb") as r:
        for pfn in range(n):
            r.seek(pfn * ps)
            want = r.read(ps).ljust(ps, b"\0")
            if k.read(kdumpfile.KDUMP_MACHPHYSADDR, pfn * ps, ps) != want:
                bad += 1
    print("zero_excluded_bad=%d" % bad)


def note_text(path):
    with open(path, "rb") as f:
        d = f.read(4096)
        word = 8
        bs = struct.unpack_from("<i", d, 428)[0]
        if bs not in (4096, 16384, 65536):
            word, bs = 4, struct.unpack_from("<i", d, 416)[0]
        f.seek(0)
        h = header(f, word)
        f.seek(h["off_vmci"])
        return f.read(h["size_vmci"])


def drgn_release(path):
    """drgn opens the dump through libkdumpfile and translates init_uts_ns
    (SYMBOL() and OFFSET() from VMCOREINFO) through the kernel's page
    tables; new_utsname.release is at byte 130."""
    import drgn
    info = dict(l.partition("=")[::2] for l in note_text(path).decode().splitlines())
    addr = int(info["SYMBOL(init_uts_ns)"], 16) + int(info.get("OFFSET(uts_namespace.name)", "0"))
    prog = drgn.Program()
    prog.set_core_dump(path)
    print(prog.read(addr + 130, 65).split(b"\0")[0].decode())


def main():
    a = sys.argv[1:]
    if a[0] == "parse":
        parse(int(a[1]), int(a[2]), a[3], a[4])
    elif a[0] == "libkdumpfile":
        libkdumpfile(a[1], a[2])
    elif a[0] == "note":
        sys.stdout.buffer.write(note_text(a[1]))
    elif a[0] == "drgn-release":
        drgn_release(a[1])
    else:
        sys.exit("unknown command " + a[0])


if __name__ == "__main__":
    main()
