#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""prstatus_check.py CORE SYSTEM_MAP [KSYM_OUT] - independent of hibimg's
code: with the VMCOREINFO note of an ELF export (KERNELOFFSET=,
NUMBER(phys_base)=) and the kernel's System.map (or `nm vmlinux`):

- every "NAME 0xADDR" line of KSYM_OUT (tests/ksym) must be System.map's
  address of NAME + KERNELOFFSET;
- "prstatus": the NT_PRSTATUS note must hold, in pr_reg (offset 112 of
  x86_64's struct elf_prstatus), the 21 pt_regs words read here at
  saved_context (System.map + KERNELOFFSET, at its physical address
  VA - 0xffffffff80000000 + phys_base, from the PT_LOAD holding it), with
  rip = swsusp_arch_suspend, cs 0x10 and ss 0x18 in place of the words the
  asm does not store; "noprstatus": the core must have none.
Prints one line per mismatch and exits 1 if any."""
import struct
import sys


def elf(path):
    f = open(path, "rb")
    h = f.read(64)
    assert h[:4] == b"\x7fELF" and h[4] == 2, "not an ELFCLASS64 core"
    phoff, = struct.unpack_from("<Q", h, 32)
    phnum, = struct.unpack_from("<H", h, 56)
    loads, notes = [], []
    f.seek(phoff)
    ph = f.read(56 * phnum)
    for i in range(phnum):
        t, _, off, va, pa, sz = struct.unpack_from("<IIQQQQ", ph, 56 * i)
        if t == 1:
            loads.append((pa, off, sz))
        elif t == 4:
            f.seek(off)
            b = f.read(sz)
            p = 0
            while p + 12 <= len(b):
                nn, dn, nt = struct.unpack_from("<III", b, p)
                name = b[p + 12:p + 12 + nn].rstrip(b"\0").decode()
                d = p + 12 + ((nn + 3) & ~3)
                notes.append((name, nt, b[d:d + dn]))
                p = d + ((dn + 3) & ~3)
    return f, loads, notes


def main():
    core, smap = sys.argv[1], sys.argv[2]
    f, loads, notes = elf(core)
    vmci = {}
    for name, nt, d in notes:
        if name == "VMCOREINFO":
            for line in d.decode(errors="replace").splitlines():
                k, _, v = line.partition("=")
                vmci[k] = v
    koff = int(vmci.get("KERNELOFFSET", "0"), 16)
    syms = {}
    for line in open(smap):
        p = line.split()
        if len(p) >= 3:
            syms.setdefault(p[2], int(p[0], 16))
    bad = 0
    for arg in sys.argv[3:]:
        if arg in ("prstatus", "noprstatus"):
            continue
        for line in open(arg):
            name, addr = line.split()
            want = syms.get(name)
            if want is None or addr == "-" or int(addr, 16) != want + koff:
                print("%s: kallsyms %s, System.map + KERNELOFFSET %s" %
                      (name, addr, "-" if want is None else "0x%x" % (want + koff)))
                bad = 1
    prs = [d for name, nt, d in notes if name == "CORE" and nt == 1]
    if "noprstatus" in sys.argv[3:]:
        if prs:
            print("an NT_PRSTATUS note where none was expected")
            bad = 1
    if "prstatus" in sys.argv[3:]:
        if len(prs) != 1 or len(prs[0]) != 336:
            print("NT_PRSTATUS notes: %d, sizes %s" % (len(prs), [len(d) for d in prs]))
            return 1
        va = syms["saved_context"] + koff
        pa = va - 0xffffffff80000000 + int(vmci["NUMBER(phys_base)"])
        raw = None
        for lpa, off, sz in loads:
            if lpa <= pa and pa + 168 <= lpa + sz:
                f.seek(off + pa - lpa)
                raw = f.read(168)
                break
        if raw is None:
            print("saved_context PA 0x%x is in no PT_LOAD" % pa)
            return 1
        want = list(struct.unpack("<21Q", raw))
        want[16] = syms["swsusp_arch_suspend"] + koff
        want[17] = 0x10
        want[20] = 0x18
        got = list(struct.unpack_from("<21Q", prs[0], 112))
        names = ("r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi "
                 "orig_rax rip cs eflags rsp ss").split()
        for n, g, w in zip(names, got, want):
            if g != w:
                print("pr_reg.%s: note 0x%x, saved_context 0x%x" % (n, g, w))
                bad = 1
        # the stores really happened: a kernel stack pointer, not zero
        if want[19] < 0xffff800000000000:
            print("saved rsp 0x%x is no kernel address" % want[19])
            bad = 1
    return bad


sys.exit(main())
