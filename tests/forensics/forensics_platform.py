#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""drgn's view of a hibimg ELF export of another platform (issue 17).

Usage: forensics_platform.py CORE.elf RAW

Prints key=value lines: the ELF class and machine python reads from the
header (tests/export_read.py, the published layout), drgn's platform
(arch, flags) after set_core_dump(), and for each PT_LOAD python lists
(at most 64, spread over the file) the 64 bytes at the middle of the
segment three ways: drgn's physical read, the raw export at that offset,
and the ELF file at p_offset + delta. Exits 1 where they differ.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import drgn  # noqa: E402
import export_read  # noqa: E402


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
    loads = [p for p in d["phdrs"] if p[0] == 1 and p[3] == 0]
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
    print("segments=%d" % len(loads))
    print("compared=%d" % n)
    print("mismatches=%d" % bad)
    return 1 if bad or not n else 0


if __name__ == "__main__":
    sys.exit(main())
