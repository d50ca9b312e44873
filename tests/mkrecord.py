#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A small uncompressed hibernation image with the arch record of another
platform, written from the kernel's structs with nothing of hibimg's, for
the tests of issue 17 (no image of these platforms is committed yet).

  mkrecord.py KIND OUT [E820]

KIND: i386 (the 5.13+ record, CRC-32), i386-md5 (the record before 5.13),
i386-pae (the 5.13+ record, a run of PFNs above 4 GiB, as PAE allows),
arm64, arm64-va39, riscv64 (Sv48), riscv64-sv39, riscv64-sv57, neither (a
uts_version record whose word at 80 is neither a kernel VA nor a satp).
E820: the i386 record's e820 CRC-32 (default 0x8d4c3a21).

Prints key=value lines: the record's fields as written (decimal), the
word size, and "run=A B" per run of PFNs with data (inclusive), "page=PFN
SHA256" for one page of each run.

Layouts (kernel sources, 6.1 and 6.12):
  swsusp_header (kernel/power/swap.c) in the last 40 bytes of page 0:
    crc32 u32 @PS-36, image sector_t @PS-32, flags u32 @PS-24,
    orig_sig[10] @PS-20, sig[10] @PS-10; SF_NOCOMPRESS_MODE = 2.
  struct swap_map_page: sector_t entries[PS/8 - 1], next_swap; sector_t
    is 8 bytes on i386 too (5.2+).
  struct swsusp_info (kernel/power/power.h): version_code u32 @392, then
    unsigned longs num_physpages, cpus (int), image_pages, pages, size:
    LP64 400/408/416/424/432, ILP32 396/400/404/408/412.
  The PFN list: unsigned longs, PS/sizeof(long) a page, ended by ~0UL.
  x86 struct restore_data_record (arch/x86/power/hibernate.c): unsigned
    long jump_address, jump_address_phys, cr3, magic, then e820_checksum
    (5.13+, magic 0x12345679 on i386) or u8 e820_digest[16] (0x12345678).
  arm64 struct arch_hibernate_hdr: uts_version[65] (padded to 72),
    ttbr1_el1 @72, reenter_kernel @80, __hyp_stub_vectors @88,
    sleep_cpu_mpidr @96.
  riscv struct arch_hibernate_hdr: uts_version[65], hartid @72, saved_satp
    @80 (MODE 63:60, ASID 59:44, PPN 43:0), restore_cpu_addr @88.
"""
import hashlib
import struct
import sys

PS = 4096
UTS = b"#1 SMP Debian 6.12.117-1~deb12u1 (2026-11-20)"
# two runs of PFNs with data, one page more in a run of its own
RUNS = [(0x100, 0x10f), (0x200, 0x207), (0x3ff, 0x3ff)]
RUNS_PAE = [(0x100, 0x10f), (0x100000, 0x100003)]      # 0x100000 * 4096 = 4 GiB


def record(kind, e820):
    """(word size, record bytes, fields written)"""
    f = {}
    if kind in ("i386", "i386-md5", "i386-pae"):
        f = dict(jump_address=0xC1A2B3C0, jump_address_phys=0x01A2B3C0, cr3=0x01F0A000)
        if kind != "i386-md5":
            f["restore_magic"] = 0x12345679
            f["e820_check"] = e820
            tail = struct.pack("<I", f["e820_check"])
        else:
            f["restore_magic"] = 0x12345678
            digest = hashlib.md5(b"e820").digest()
            f["e820_check"] = struct.unpack_from("<Q", digest)[0]  # its first 8 bytes
            tail = digest
        rec = struct.pack("<IIII", f["jump_address"], f["jump_address_phys"], f["cr3"],
                          f["restore_magic"]) + tail
        return 4, rec, f
    uts = UTS.ljust(72, b"\0")
    if kind in ("arm64", "arm64-va39"):
        f = dict(ttbr1_el1=0x41858000,
                 reenter_kernel=0xFFFFBF9E806320DC if kind == "arm64" else 0xFFFFFFC0080320DC,
                 hyp_stub_vectors=0x40081000, sleep_cpu_mpidr=0x101)
        rec = uts + struct.pack("<QQQQ", f["ttbr1_el1"], f["reenter_kernel"],
                                f["hyp_stub_vectors"], f["sleep_cpu_mpidr"])
        return 8, rec, f
    if kind.startswith("riscv64"):
        mode = {"riscv64": 9, "riscv64-sv39": 8, "riscv64-sv57": 10}[kind]
        ppn = 0x81A2B
        f = dict(hartid=3, satp=mode << 60 | 0x1234 << 44 | ppn,
                 restore_cpu_addr=0xFFFFFFFF80A0C3D4)
        f["satp_mode"] = "Sv%d" % {8: 39, 9: 48, 10: 57}[mode]
        f["satp_ppn"] = ppn
        rec = uts + struct.pack("<QQQ", f["hartid"], f["satp"], f["restore_cpu_addr"])
        return 8, rec, f
    if kind == "neither":
        # a physical address where arm64 has a kernel VA and riscv a satp
        rec = uts + struct.pack("<QQQQ", 0x41858000, 0x0000000081234000, 0, 0)
        return 8, rec, f
    sys.exit("mkrecord: unknown kind %s" % kind)


def main(kind, out, e820=0x8D4C3A21):
    word, rec, fields = record(kind, e820)
    wfmt = "<Q" if word == 8 else "<I"
    runs = RUNS_PAE if kind == "i386-pae" else RUNS
    pfns = [p for a, b in runs for p in range(a, b + 1)]
    per = PS // word
    meta = (len(pfns) + per - 1) // per
    pages = 1 + meta + len(pfns)
    # device pages: 0 header, 1 the swap map, then the stream, a spare
    dev = [bytearray(PS) for _ in range(2 + pages + 1)]
    info = dev[2]
    info[:len(rec)] = rec
    if word == 8:
        struct.pack_into("<QqQQQ", info, 400, 0x8000, 0, len(pfns), pages, pages * PS)
    else:
        struct.pack_into("<IiIII", info, 396, max(0x8000, pfns[-1] + 1), 0, len(pfns), pages, pages * PS)
    lst = pfns + [(1 << (8 * word)) - 1]
    for m in range(meta):
        chunk = lst[m * per:(m + 1) * per]
        for k, v in enumerate(chunk):
            struct.pack_into(wfmt, dev[3 + m], k * word, v)
    pagesum = {}
    for i, pfn in enumerate(pfns):
        d = hashlib.sha256(b"pfn %d" % pfn).digest() * (PS // 32)
        dev[3 + meta + i][:] = d
        pagesum[pfn] = hashlib.sha256(d).hexdigest()
    struct.pack_into("<%dQ" % pages, dev[1], 0, *range(2, 2 + pages))
    h0 = dev[0]
    struct.pack_into("<II", h0, 1024, 1, len(dev) - 1)     # swap_header version, last_page
    struct.pack_into("<QI", h0, PS - 32, 1, 2)             # image, SF_NOCOMPRESS_MODE
    h0[PS - 20:PS - 10] = b"SWAPSPACE2"
    h0[PS - 10:PS] = b"S1SUSPEND\0"
    with open(out, "wb") as f:
        for p in dev:
            f.write(p)
    print("word_size=%d" % word)
    for k, v in fields.items():
        print("%s=%s" % (k, v))
    if not kind.startswith("i386"):
        print("uts_version=%s" % UTS.decode())
    for a, b in runs:
        print("run=%d %d" % (a, b))
        print("page=%d %s" % (a, pagesum[a]))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:3], *[int(v, 0) for v in sys.argv[3:]])
