#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""drgn's view of a hibimg ELF export of another platform (issue 17).

Usage: forensics_platform.py CORE.elf RAW

Prints key=value lines: the ELF class and machine python reads from the
header (tests/export_read.py, the published layout), drgn's platform
(arch, flags) after set_core_dump(), and for each PT_LOAD python lists
(at most 64, spread over the file; RAM runs and kernel-image aliases) the 64 bytes at the middle of the
segment three ways: drgn's physical read, the raw export at that offset,
and the ELF file at p_offset + delta. Exits 1 where they differ. Where
VMCOREINFO names init_uts_ns, drgn's virtual read of its release (through
the page tables, reached by the export's kernel-image alias) or the fault;
on arm64 also python's own walk of those tables in the raw export.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import drgn  # noqa: E402
import export_read  # noqa: E402


def arm64_walk(raw, info, va):
    """va to a physical address by the kernel's own translation tables,
    read from the raw export: the root is swapper_pg_dir's physical
    address, SYMBOL(swapper_pg_dir) - NUMBER(kimage_voffset); granule
    PAGESIZE (a table holds PAGESIZE / 8 descriptors), TCR_EL1_T1SZ the
    VA size the kernel runs with (ARM ARM D8: descriptor bits 1:0 = 0b11
    a table or page, 0b01 a block; the output address in bits 47:granule).
    None where an entry is not valid."""
    ps = int(info["PAGESIZE"])
    g = ps.bit_length() - 1
    b = g - 3
    va_bits = 64 - int(info.get("NUMBER(TCR_EL1_T1SZ)", "0x10"), 16)
    levels = -(-(va_bits - g) // b)
    tbl = (int(info["SYMBOL(swapper_pg_dir)"], 16) - int(info["NUMBER(kimage_voffset)"], 16)) % (1 << 64)
    for lvl in range(levels):
        sh = g + b * (levels - 1 - lvl)
        width = va_bits - sh if lvl == 0 else b
        idx = (va >> sh) & ((1 << width) - 1)
        raw.seek(tbl + idx * 8)
        e = struct.unpack("<Q", raw.read(8))[0]
        out = e & ((1 << 48) - 1) & ~((1 << g) - 1)
        if e & 1 == 0:
            return None
        if lvl == levels - 1 or e & 2 == 0:
            mask = (1 << sh) - 1
            return (out & ~mask) | (va & mask)
        tbl = out
    return None


def main():
    core, raw = sys.argv[1], sys.argv[2]
    d = export_read.elf_parse(core)
    print("elf_class=%d" % d["cls"])
    print("elf_machine=%d" % d["machine"])
    prog = drgn.Program()
    prog.set_core_dump(core)
    print("drgn_version=%s" % drgn.__version__)
    print("arch=%s" % prog.platform.arch.name)
    print("is_64_bit=%d" % bool(prog.platform.flags & drgn.PlatformFlags.IS_64_BIT))
    print("is_little_endian=%d" % bool(prog.platform.flags & drgn.PlatformFlags.IS_LITTLE_ENDIAN))
    # every PT_LOAD: RAM runs (p_vaddr their linear-map address, or 0) and
    # the kernel-image aliases alike hold their physical bytes at p_paddr
    loads = [p for p in d["phdrs"] if p[0] == 1]
    step = max(1, len(loads) // 64)
    bad = n = 0
    with open(core, "rb") as fc, open(raw, "rb") as fr:
        for _t, _f, off, _va, paddr, filesz, _m, _a in loads[::step]:
            delta = (filesz // 2) & ~7
            addr = paddr + delta
            via_drgn = prog.read(addr, 64, True)
            fr.seek(addr)
            via_raw = fr.read(64)
            fc.seek(off + delta)
            via_elf = fc.read(64)
            n += 1
            if not (via_drgn == via_raw == via_elf):
                bad += 1
                print("mismatch=%#x drgn=%s raw=%s elf=%s" % (addr, via_drgn.hex(), via_raw.hex(), via_elf.hex()))
            elif n == 1:
                print("first=%#x %s" % (addr, via_drgn[:16].hex()))
    # a kernel-image virtual address, translated by drgn through the
    # kernel's page tables: init_uts_ns's release (new_utsname.release at
    # byte 130), which VMCOREINFO names and whose value it gives as OSRELEASE
    info = dict(l.partition("=")[::2] for l in (d["note"] or b"").decode().splitlines())
    if "SYMBOL(init_uts_ns)" in info:
        for k in ("OSRELEASE", "NUMBER(VA_BITS)", "NUMBER(TCR_EL1_T1SZ)"):
            if k in info:
                print("vmcoreinfo_%s=%s" % (k.replace("NUMBER(", "").rstrip(")"), info[k]))
        va = int(info["SYMBOL(init_uts_ns)"], 16) + int(info.get("OFFSET(uts_namespace.name)", "0")) + 130
        try:
            print("uts_release_virt=%s" % prog.read(va, 65).split(b"\0")[0].decode(errors="replace"))
        except drgn.FaultError as e:
            print("uts_release_virt_error=%s" % e)
        if d["machine"] == 183 and "NUMBER(kimage_voffset)" in info:
            with open(raw, "rb") as fr:
                pa = arm64_walk(fr, info, va)
                if pa is not None:
                    fr.seek(pa)
                    print("uts_release_walk=%s" % fr.read(65).split(b"\0")[0].decode(errors="replace"))
    print("segments=%d" % len(loads))
    print("compared=%d" % n)
    print("mismatches=%d" % bad)
    return 1 if bad or not n else 0


if __name__ == "__main__":
    sys.exit(main())
