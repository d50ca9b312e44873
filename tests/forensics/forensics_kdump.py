#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A kdump-compressed file read back page by page through drgn (issue 19).

Usage: forensics_kdump.py KDUMP CORE.elf RAW

KDUMP is makedumpfile's kdump-compressed format (disk_dump_header: the
signature "KDUMP   " at byte 0, header_version after it), written by
makedumpfile from hibimg's ELF export or by hibimg's own `export --format
kdump`. drgn opens it through libkdumpfile (drgn._with_libkdumpfile must be
true: without it drgn cannot read the format at all). For every page of
every PT_LOAD of CORE.elf (the physical pages the image saved, read by
python with tests/export_read.py), drgn's physical read of KDUMP is
compared with the raw export at that address: equal (zero pages included: makedumpfile
-d 1 leaves them out of the dump bitmap and drgn reads such pages as
zeros), or, should a libkdumpfile report them missing instead, a fault
where the raw page is all zeros. Prints
key=value lines; exits 1 on any other fault or any difference, or if
nothing was compared.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import drgn  # noqa: E402
import export_read  # noqa: E402


def main():
    kdump, core, raw = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(kdump, "rb") as f:
        hdr = f.read(16)
    print("kdump_signature=%s" % hdr[:8].decode(errors="replace").rstrip())
    print("kdump_header_version=%d" % struct.unpack("<i", hdr[8:12])[0])
    print("drgn_version=%s" % drgn.__version__)
    print("drgn_with_libkdumpfile=%d" % bool(getattr(drgn, "_with_libkdumpfile", False)))
    d = export_read.elf_parse(core)
    ps = 4096
    info = dict(l.partition("=")[::2] for l in (d["note"] or b"").decode().splitlines())
    if "PAGESIZE" in info:
        ps = int(info["PAGESIZE"])
    # the physical pages once: an alias PT_LOAD (the kernel image at its
    # virtual address) repeats pages a direct-map one already holds
    pages = set()
    for p_type, _fl, _off, _va, paddr, filesz, _ms, _al in d["phdrs"]:
        if p_type == 1:
            pages.update(range(paddr // ps, (paddr + filesz) // ps))
    prog = drgn.Program()
    prog.set_core_dump(kdump)
    print("arch=%s" % prog.platform.arch.name)
    same = excluded_zero = zeros = bad = 0
    zero = bytes(ps)
    with open(raw, "rb") as fr:
        for pfn in sorted(pages):
            fr.seek(pfn * ps)
            want = fr.read(ps)
            try:
                got = prog.read(pfn * ps, ps, True)
            except drgn.FaultError as e:
                if want == zero:
                    excluded_zero += 1
                    continue
                bad += 1
                if bad <= 5:
                    print("fault=%#x %s" % (pfn * ps, e))
                continue
            if got == want:
                same += 1
                zeros += want == zero
            else:
                bad += 1
                if bad <= 5:
                    print("mismatch=%#x kdump=%s raw=%s" % (pfn * ps, got[:16].hex(), want[:16].hex()))
    print("pages=%d" % len(pages))
    print("pages_equal=%d" % same)
    # drgn asks libkdumpfile to read pages the dump bitmap leaves out as
    # zeros (its zero_excluded attribute), so those are equal, not faults
    print("pages_zero=%d" % zeros)
    print("pages_zero_fault=%d" % excluded_zero)
    print("pages_bad=%d" % bad)
    return 1 if bad or not pages else 0


if __name__ == "__main__":
    sys.exit(main())
