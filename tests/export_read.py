#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Independent readers for the tests of hibimg export and cat.

Nothing here uses hibimg's code: LiME and ELF are parsed from their
published layouts, the swap map is walked from the kernel's struct
swap_map_page, so a bug in the exporter cannot hide in its own reader.

  pages-cat  PS CATFILE RUNS   "PFN sha256" per page of a concatenation of
                               `hibimg cat --pfn A-B` outputs, RUNS = file of
                               "A B" lines (inclusive) in the same order
  pages-lime PS FILE           "PFN sha256" per page of a LiME file
  pages-elf  PS FILE           the same for the PT_LOADs of an ELF64/ELF32 core
  pages-raw  PS FILE RUNS      the same for the pages RUNS names in a raw image
  raw-holes  PS FILE RUNS      pages of a raw image outside RUNS that are not zero
  lime-check FILE              LiME structure: magic, version, ascending ranges
  elf-info   FILE              key=value: class (32/64), ehsize, phentsize,
                               machine, phnum, xnum, vmcoreinfo
                               (the OSRELEASE= line of the VMCOREINFO note),
                               loads (one per run), filesz_eq_memsz, those
                               with a linear-map p_vaddr (dmap_loads, their
                               VA - PA, whether it is the kernel's formula),
                               kernel-map aliases and whether each maps its
                               run's bytes
  drgn-release FILE            init_uts_ns's release, read by drgn (python3-drgn)
  drgn-linear FILE             the same at its linear-map address
  slots      PS IMAGE          key=value: non-zero slots outside the image, the
                               first of them (walks header and swap map)
  mkxnum     OUT               a hand-made nocompress image with 65536 runs
  walk       PS IMAGE RUNS     "PFN sha256" per saved page, read straight from
                               the disk: swsusp_header, the swap-map chain,
                               the chunks (LZO/LZ4 through liblzo2/liblz4 by
                               ctypes, or raw pages), swsusp_info, the PFN
                               list; writes the PFN runs to RUNS. The
                               signature is not looked at, so a spent area
                               reads like a live one.
"""
import hashlib
import struct
import sys

ZERO = None


def h(b):
    return hashlib.sha256(b).hexdigest()


def runs_of(path):
    with open(path) as f:
        return [tuple(int(x, 0) for x in line.split()[:2]) for line in f if line.strip()]


def pages_cat(ps, path, runs):
    with open(path, "rb") as f:
        for a, b in runs:
            for pfn in range(a, b + 1):
                d = f.read(ps)
                if len(d) != ps:
                    sys.exit("cat output too short at PFN %#x" % pfn)
                print("%d %s" % (pfn, h(d)))
        if f.read(1):
            sys.exit("cat output longer than the runs")


def lime_ranges(path):
    """(start, end_inclusive, data_offset) per range header."""
    out = []
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        off = 0
        while off < size:
            f.seek(off)
            magic, ver, start, end, res = struct.unpack("<IIQQQ", f.read(32))
            if magic != 0x4C694D45 or ver != 1 or res != 0 or end < start:
                sys.exit("bad LiME header at %d: %#x %d %#x %#x %#x" % (off, magic, ver, start, end, res))
            out.append((start, end, off + 32))
            off += 32 + end - start + 1
        if off != size:
            sys.exit("LiME: last range overruns the file")
    return out


def pages_lime(ps, path):
    with open(path, "rb") as f:
        for start, end, off in lime_ranges(path):
            f.seek(off)
            for a in range(start, end + 1, ps):
                print("%d %s" % (a // ps, h(f.read(ps))))


def lime_check(path):
    prev = -1
    n = 0
    for start, end, _ in lime_ranges(path):
        if start <= prev:
            sys.exit("LiME ranges not ascending/disjoint at %#x" % start)
        prev = end
        n += 1
    print("ranges=%d" % n)


def elf_parse(path):
    """ELF64 or ELF32 (elf(5): Elf32_Ehdr 52 bytes, Elf32_Phdr 32 with
    p_flags last); program headers as the Elf64 field order either way:
    (type, flags, offset, vaddr, paddr, filesz, memsz, align)."""
    with open(path, "rb") as f:
        eh = f.read(64)
        if eh[:4] != b"\x7fELF" or eh[4] not in (1, 2):
            sys.exit("not ELF32 or ELF64")
        cls = 32 if eh[4] == 1 else 64
        e = "<" if eh[5] == 1 else ">"
        if cls == 64:
            (e_type, e_machine, e_version, e_entry, e_phoff, e_shoff, e_flags, e_ehsize,
             e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx) = struct.unpack(e + "HHIQQQIHHHHHH", eh[16:64])
        else:
            (e_type, e_machine, e_version, e_entry, e_phoff, e_shoff, e_flags, e_ehsize,
             e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx) = struct.unpack(e + "HHIIIIIHHHHHH", eh[16:52])
        xnum = False
        phnum = e_phnum
        if e_phnum == 0xFFFF:
            # elf(5): the real count is sh_info of section header 0
            f.seek(e_shoff)
            if cls == 64:
                phnum = struct.unpack(e + "IIQQQQIIQQ", f.read(64))[7]
            else:
                phnum = struct.unpack(e + "IIIIIIIIII", f.read(40))[7]
            xnum = True
        f.seek(e_phoff)
        if cls == 64:
            phdrs = [struct.unpack(e + "IIQQQQQQ", f.read(56)) for _ in range(phnum)]
        else:
            phdrs = []
            for _ in range(phnum):
                t, off, va, pa, fs, ms, fl, al = struct.unpack(e + "IIIIIIII", f.read(32))
                phdrs.append((t, fl, off, va, pa, fs, ms, al))
        note = None
        for p_type, _fl, off, vaddr, paddr, filesz, memsz, _al in phdrs:
            if p_type == 4:
                f.seek(off)
                data = f.read(filesz)
                pos = 0
                while pos + 12 <= len(data):
                    namesz, descsz, ntype = struct.unpack(e + "III", data[pos:pos + 12])
                    name = data[pos + 12:pos + 12 + namesz].rstrip(b"\0")
                    dpos = pos + 12 + ((namesz + 3) & ~3)
                    desc = data[dpos:dpos + descsz]
                    if name == b"VMCOREINFO":
                        note = desc
                    pos = dpos + ((descsz + 3) & ~3)
    return dict(cls=cls, type=e_type, machine=e_machine, phnum=phnum, xnum=xnum,
                ehsize=e_ehsize, phentsize=e_phentsize, phdrs=phdrs, note=note)


def note_info(d):
    info = {}
    if d["note"] is not None:
        for line in d["note"].decode("ascii", "replace").splitlines():
            k, _, v = line.partition("=")
            info[k] = v
    return info


def kimage_pa(info, vaddr):
    """__pa_symbol(vaddr) by the kernel's formula for its arch, None where
    vaddr is no kernel-image address: v - kimage_voffset (arm64), v -
    va_kernel_pa_offset (riscv64), v - __START_KERNEL_map + phys_base
    (x86_64, whose image window is the top 2 GiB)."""
    if "NUMBER(kimage_voffset)" in info:
        return (vaddr - int(info["NUMBER(kimage_voffset)"], 16)) % (1 << 64)
    if "NUMBER(va_kernel_pa_offset)" in info:
        return (vaddr - int(info["NUMBER(va_kernel_pa_offset)"], 16)) % (1 << 64)
    if vaddr >= 0xFFFFFFFF80000000:
        return vaddr - 0xFFFFFFFF80000000 + int(info.get("NUMBER(phys_base)", "0"))
    return None


def split_loads(d):
    """RAM loads (one per run, p_vaddr 0 or their linear-map address) and
    kernel-image aliases (p_vaddr the kernel-image address of p_paddr)."""
    info = note_info(d)
    ram, kmap = [], []
    for p in d["phdrs"]:
        if p[0] != 1:
            continue
        if p[3] != 0 and kimage_pa(info, p[3]) == p[4] and not linear(info, p):
            kmap.append(p)
        else:
            ram.append(p)
    return ram, kmap


def linear_voff(info):
    """The linear map's VA - PA by the kernel's formula: arm64 (5.4+)
    (pa - PHYS_OFFSET) | PAGE_OFFSET, PAGE_OFFSET = -(1 << VA_BITS); x86_64
    page_offset_base, 0xffff888000000000 with 4 levels (0xff11000000000000
    with 5) where RANDOMIZE_MEMORY is off, as in the fixture kernels."""
    if "NUMBER(VA_BITS)" in info and "NUMBER(PHYS_OFFSET)" in info:
        return (-(1 << int(info["NUMBER(VA_BITS)"])) - int(info["NUMBER(PHYS_OFFSET)"], 16)) % (1 << 64)
    if "SYMBOL(init_top_pgt)" in info and int(info.get("KERNELOFFSET", "0"), 16) == 0:
        return 0xFF11000000000000 if info.get("NUMBER(pgtable_l5_enabled)") == "1" else 0xFFFF888000000000
    return None   # KASLR: page_offset_base is randomized too, and not in the note


def linear(info, p):
    v = linear_voff(info)
    return v is not None and p[3] == (p[4] + v) % (1 << 64)


def elf_info(path):
    d = elf_parse(path)
    loads = [p for p in d["phdrs"] if p[0] == 1]
    ram, kmap = split_loads(d)
    print("class=%d" % d["cls"])
    print("ehsize=%d" % d["ehsize"])
    print("phentsize=%d" % d["phentsize"])
    print("type=%d" % d["type"])
    print("machine=%d" % d["machine"])
    print("phnum=%d" % d["phnum"])
    print("xnum=%d" % d["xnum"])
    print("loads=%d" % len(ram))
    print("filesz_eq_memsz=%d" % all(p[5] == p[6] for p in loads))
    info = note_info(d)
    # RAM loads with a virtual address: all at the kernel's linear map
    dmap = [p for p in ram if p[3] != 0]
    offs = set((p[3] - p[4]) % (1 << 64) for p in dmap)
    print("dmap_loads=%d" % len(dmap))
    print("dmap_voff=%s" % (",".join("0x%x" % o for o in sorted(offs))))
    # where the formula is unknown (x86 KASLR), one offset, 1 GiB-aligned
    # (kernel_randomize_memory() rounds page_offset_base up to PUD_SIZE)
    if linear_voff(info) is None:
        print("dmap_ok=%d" % (len(offs) <= 1 and all(o % (1 << 30) == 0 for o in offs)))
    else:
        print("dmap_ok=%d" % (all(linear(info, p) for p in dmap)))
    print("vmcoreinfo=%d" % (d["note"] is not None))
    print("osrelease=%s" % info.get("OSRELEASE", ""))
    # Kernel-image aliases: __pa_symbol(v) = v - __START_KERNEL_map + phys_base
    # on x86_64, v - kimage_voffset on arm64, v - va_kernel_pa_offset on
    # riscv64 (their VMCOREINFO names those), and the same file bytes as the
    # RAM segment holding that paddr.
    ok = True
    for _t, _f, off, vaddr, paddr, filesz, _m, _a in kmap:
        if kimage_pa(info, vaddr) != paddr:
            ok = False
        home = [r for r in ram if r[4] <= paddr and paddr + filesz <= r[4] + r[5]]
        if len(home) != 1 or home[0][2] + (paddr - home[0][4]) != off:
            ok = False
    print("kmap_loads=%d" % len(kmap))
    print("kmap_ok=%d" % ok)


def drgn_linear(path):
    """drgn reads init_uts_ns.name.release at its linear-map address (the
    symbol's __pa_symbol, then the kernel's __va formula, linear_voff):
    from the segments' p_vaddr, or through the page tables."""
    import drgn
    d = elf_parse(path)
    info = note_info(d)
    addr = int(info["SYMBOL(init_uts_ns)"], 16) + int(info.get("OFFSET(uts_namespace.name)", "0"))
    va = (kimage_pa(info, addr) + linear_voff(info)) % (1 << 64)
    prog = drgn.Program()
    prog.set_core_dump(path)
    print(prog.read(va + 130, 65).split(b"\0")[0].decode())


def drgn_release(path):
    """drgn opens the core, finds VMCOREINFO and translates the virtual
    address of init_uts_ns (SYMBOL() and OFFSET() from that note) through
    the kernel's own page tables: new_utsname.release is at byte 130."""
    import drgn
    d = elf_parse(path)
    info = dict(l.partition("=")[::2] for l in d["note"].decode().splitlines())
    addr = int(info["SYMBOL(init_uts_ns)"], 16) + int(info.get("OFFSET(uts_namespace.name)", "0"))
    prog = drgn.Program()
    prog.set_core_dump(path)
    print(prog.read(addr + 130, 65).split(b"\0")[0].decode())


def pages_elf(ps, path):
    d = elf_parse(path)
    ram, _kmap = split_loads(d)   # kernel-map aliases: elf-info checks them
    with open(path, "rb") as f:
        for p_type, _fl, off, vaddr, paddr, filesz, memsz, _al in ram:
            f.seek(off)
            for a in range(0, filesz, ps):
                print("%d %s" % ((paddr + a) // ps, h(f.read(ps))))


def pages_raw(ps, path, runs):
    with open(path, "rb") as f:
        for a, b in runs:
            f.seek(a * ps)
            for pfn in range(a, b + 1):
                print("%d %s" % (pfn, h(f.read(ps))))


def raw_holes(ps, path, runs):
    saved = set()
    for a, b in runs:
        saved.update(range(a, b + 1))
    bad = 0
    with open(path, "rb") as f:
        pfn = 0
        while True:
            d = f.read(ps)
            if not d:
                break
            if pfn not in saved and d.count(0) != len(d):
                bad += 1
            pfn += 1
    print(bad)


def slots(ps, path):
    """Kernel layout: swsusp_header.image u64 at PS-32 of page 0; swap header
    last_page u32 at 1028; struct swap_map_page = PS/8-1 u64 entries + next."""
    with open(path, "rb") as f:
        p0 = f.read(ps)
        first_map = struct.unpack("<Q", p0[ps - 32:ps - 24])[0]
        last_page = struct.unpack("<I", p0[1028:1032])[0]
        own = {0}
        cur = first_map
        ended = False
        while cur:
            own.add(cur)
            f.seek(cur * ps)
            m = struct.unpack("<%dQ" % (ps // 8), f.read(ps))
            for v in m[:-1]:
                if v == 0:
                    ended = True
                elif not ended:
                    own.add(v)
            cur = m[-1]
        f.seek(0)
        n = 0
        first = None
        for s in range(last_page + 1):
            d = f.read(ps)
            if len(d) < ps:
                break
            if s not in own and d.count(0) != ps:
                n += 1
                if first is None:
                    first = s
    print("foreign=%d" % n)
    print("first=%s" % ("" if first is None else first))
    print("own=%d" % len(own))


def mkxnum(out):
    """A nocompress x86_64 image whose PFN list is every other PFN, 65536 of
    them (65536 runs, more PT_LOADs than e_phnum can hold), all zero-flagged
    but the first three, which carry data. 65536 entries fill 128 list pages
    exactly, so there is no end-of-map marker either."""
    ps = 4096
    n = 65536
    ndata = 3
    meta = n * 8 // ps
    pages = ndata + meta + 1
    dev = [bytearray(ps) for _ in range(2 + pages + 6)]
    flag = 1 << 63
    pfns = [2 * i | (0 if i < ndata else flag) for i in range(n)]
    info = dev[2]
    struct.pack_into("<QQQQQ", info, 0, 0xFFFFFFFF81000000, 0x1000000, 0x2000000,
                     0x23456789ABCDEF02, 0)
    struct.pack_into("<QqQQQ", info, 400, 2 * n, 0, ndata, pages, pages * ps)
    for m in range(meta):
        struct.pack_into("<512Q", dev[3 + m], 0, *pfns[m * 512:(m + 1) * 512])
    for i in range(ndata):
        dev[3 + meta + i][:] = hashlib.sha256(b"page %d" % i).digest() * (ps // 32)
    entries = list(range(2, 2 + pages))
    struct.pack_into("<%dQ" % len(entries), dev[1], 0, *entries)
    # two swapped-out pages outside the image, for the slot count
    dev[len(dev) - 4][100] = 0x55
    dev[len(dev) - 2][4000] = 0xAA
    h0 = dev[0]
    struct.pack_into("<II", h0, 1024, 1, len(dev) - 1)
    struct.pack_into("<QI", h0, ps - 32, 1, 2)          # image, flags = NOCOMPRESS
    h0[ps - 20:ps - 10] = b"SWAPSPACE2"
    h0[ps - 10:ps] = b"S1SUSPEND\0"
    with open(out, "wb") as f:
        for p in dev:
            f.write(p)


def walk(ps, path, runs_out):
    """The kernel's save path read backwards (kernel/power/swap.c and
    snapshot.c, FORMAT.md 3-6), with nothing of hibimg's."""
    import ctypes
    with open(path, "rb") as f:
        dev = f.read()

    def page(n):
        if n <= 0 or (n + 1) * ps > len(dev):
            sys.exit("walk: page %d outside the disk" % n)
        return dev[n * ps:(n + 1) * ps]

    hdr = dev[:ps]
    image, flags = struct.unpack_from("<QI", hdr, ps - 32)
    per = ps // 8 - 1
    entries, seen, m = [], set(), image
    while m:
        if m in seen:
            sys.exit("walk: swap-map cycle at %d" % m)
        seen.add(m)
        mp = page(m)
        ent = struct.unpack_from("<%dQ" % (per + 1), mp)
        entries += [e for e in ent[:per] if e]
        m = ent[per]
    stream = [page(entries[0])]            # swsusp_info, never compressed
    if flags & 0x2:                        # SF_NOCOMPRESS_MODE
        stream += [page(e) for e in entries[1:]]
    else:
        if flags & 0x10:                   # SF_COMPRESSION_ALG_LZ4
            lz = ctypes.CDLL("liblz4.so.1")
        else:
            lz = ctypes.CDLL("liblzo2.so.2")
        unc = 32 * ps
        out = ctypes.create_string_buffer(unc)
        i = 1
        while i < len(entries):
            first = page(entries[i])
            cmp_len = struct.unpack_from("<Q", first)[0]
            n = (8 + cmp_len + ps - 1) // ps
            if cmp_len == 0 or i + n > len(entries):
                sys.exit("walk: bad chunk at map entry %d" % i)
            raw = b"".join(page(e) for e in entries[i:i + n])[8:8 + cmp_len]
            if flags & 0x10:
                got = lz.LZ4_decompress_safe(raw, out, len(raw), unc)
                if got <= 0:
                    sys.exit("walk: LZ4 chunk at map entry %d does not decode" % i)
            else:
                ln = ctypes.c_ulong(unc)
                if lz.lzo1x_decompress_safe(raw, ctypes.c_ulong(len(raw)), out,
                                            ctypes.byref(ln), None) != 0:
                    sys.exit("walk: LZO chunk at map entry %d does not decode" % i)
                got = ln.value
            if got % ps:
                sys.exit("walk: chunk at map entry %d is not whole pages" % i)
            d = out.raw[:got]
            stream += [d[k:k + ps] for k in range(0, got, ps)]
            i += n
    info = stream[0]
    image_pages, pages = struct.unpack_from("<QQ", info, 416)
    meta = pages - image_pages - 1
    if len(stream) < pages:
        sys.exit("walk: %d stream pages, swsusp_info says %d" % (len(stream), pages))
    pfns = []
    for k in range(1, 1 + meta):
        for e in struct.unpack_from("<%dQ" % (ps // 8), stream[k]):
            if e == 0xFFFFFFFFFFFFFFFF:
                break
            pfns.append(e)
    data = iter(stream[1 + meta:pages])
    zero = h(bytes(ps))
    runs = []
    for e in pfns:
        pfn = e & ~(1 << 63)
        print("%d %s" % (pfn, zero if e >> 63 else h(next(data))))
        if runs and runs[-1][1] + 1 == pfn:
            runs[-1][1] = pfn
        else:
            runs.append([pfn, pfn])
    with open(runs_out, "w") as f:
        for a, b in runs:
            f.write("%d %d\n" % (a, b))


def main():
    a = sys.argv[1:]
    cmd = a[0]
    if cmd == "pages-cat":
        pages_cat(int(a[1]), a[2], runs_of(a[3]))
    elif cmd == "pages-lime":
        pages_lime(int(a[1]), a[2])
    elif cmd == "pages-elf":
        pages_elf(int(a[1]), a[2])
    elif cmd == "pages-raw":
        pages_raw(int(a[1]), a[2], runs_of(a[3]))
    elif cmd == "raw-holes":
        raw_holes(int(a[1]), a[2], runs_of(a[3]))
    elif cmd == "lime-check":
        lime_check(a[1])
    elif cmd == "elf-info":
        elf_info(a[1])
    elif cmd == "drgn-linear":
        drgn_linear(sys.argv[2])
    elif cmd == "drgn-release":
        drgn_release(a[1])
    elif cmd == "slots":
        slots(int(a[1]), a[2])
    elif cmd == "mkxnum":
        mkxnum(a[1])
    elif cmd == "walk":
        walk(int(a[1]), a[2], a[3])
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
