#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Diagnostic for check-forensics.sh: copy an ELF64 core, extending p_memsz of each
physical-memory PT_LOAD (p_vaddr 0) up to the next one's p_paddr, so readers see the
pages the hibernating kernel did not save (free pages) as zeros instead of a read
error (ELF: bytes past p_filesz up to p_memsz read as zeros). Gaps below 1 MiB and
kernel-image aliases (p_vaddr != 0) are left alone. Usage: elf_gapfill.py IN OUT
"""
import shutil
import struct
import sys


def main():
    src, out = sys.argv[1], sys.argv[2]
    shutil.copyfile(src, out)
    with open(out, "r+b") as f:
        eh = f.read(64)
        if eh[:4] != b"\x7fELF" or eh[4] != 2 or eh[5] != 1:
            sys.exit("not a little-endian ELF64 file")
        phoff = struct.unpack("<Q", eh[32:40])[0]
        phnum = struct.unpack("<H", eh[56:58])[0]
        if phnum == 0xFFFF:
            sys.exit("PN_XNUM cores are not handled")
        ph = []
        for i in range(phnum):
            f.seek(phoff + 56 * i)
            ph.append(list(struct.unpack("<IIQQQQQQ", f.read(56))))
        ram = sorted((i for i, p in enumerate(ph) if p[0] == 1 and p[3] == 0), key=lambda i: ph[i][4])
        n = added = 0
        for a, b in zip(ram, ram[1:]):
            end = ph[a][4] + ph[a][6]
            if ph[a][4] >= 0x100000 and ph[b][4] > end:
                added += ph[b][4] - end
                ph[a][6] = ph[b][4] - ph[a][4]
                n += 1
        for i, p in enumerate(ph):
            f.seek(phoff + 56 * i)
            f.write(struct.pack("<IIQQQQQQ", *p))
    print("gapfill: %d PT_LOADs extended, %d KiB of unsaved pages now read as zeros" % (n, added // 1024))


if __name__ == "__main__":
    main()
