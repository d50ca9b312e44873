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
  the state restore_registers resumes from in place of what the asm does not
  store: rip = the word at the saved rsp (read here through the image's own
  page tables from SYMBOL(init_top_pgt), the stack being vmalloc'd), which
  System.map must place in hibernation_snapshot, rsp = saved rsp + 8, rax 0,
  cs 0x10, ss 0x18; pr_pid = 1 + the lowest CPU in __cpu_online_mask;
  "noprstatus": the core must have none.
- "prstatus" of an arm64 core (e_machine 183) with "mpidr=0xN" (the
  hibernating CPU's MPIDR, as the kernel's log printed it): the note (392
  bytes, pr_reg at 112 as struct user_pt_regs regs[31], sp, pc, pstate)
  must hold what __cpu_suspend_enter stored: the state pointer is the
  word at sleep_save_stash[mpidr_hash(mpidr)] (mask, shift_aff[4], bits
  read here at mpidr_hash), read through the kernel's own tables
  (SYMBOL(swapper_pg_dir) - kimage_voffset, TCR_EL1_T1SZ's VA size) from
  the core's PT_LOADs; of the two sleep_stack_data layouts (NR_CTX_REGS
  13: sp at 104, callee_saved_regs at 112; 14: 112 and 128) the one whose
  saved lr System.map places in swsusp_arch_suspend and whose sp lies at
  most 4 KiB below the state; then pc = x30 = that lr, sp, x29, x19-x28
  as saved, x0 0, pstate 0x3c5 (EL1h, DAIF masked); pr_pid as on x86_64.
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


def pa_bytes(f, loads, pa, n):
    """n bytes at physical address pa from the PT_LOAD holding them, or None."""
    for lpa, off, sz in loads:
        if lpa <= pa and pa + n <= lpa + sz:
            f.seek(off + pa - lpa)
            return f.read(n)
    return None


def pid_check(desc, mask):
    """pr_pid (offset 32 of both 64-bit layouts) = 1 + the lowest CPU in the
    __cpu_online_mask word mask (CPU 0 without one); 1 on a mismatch."""
    m = struct.unpack("<Q", mask)[0] if mask else 1
    cpu = (m & -m).bit_length() - 1 if m else 0
    pid, = struct.unpack_from("<I", desc, 32)
    if pid != cpu + 1:
        print("pr_pid %d, online CPU %d + 1 expected" % (pid, cpu))
        return 1
    return 0


def arm64(f, loads, vmci, syms, koff, prs, args):
    """The arm64 judge (see the docstring); returns 1 on a mismatch."""
    mpidr = [int(a[6:], 16) for a in args if a.startswith("mpidr=")]
    if not mpidr:
        print("arm64: no mpidr=0xN argument (the hibernating CPU)")
        return 1
    if len(prs) != 1 or len(prs[0]) != 392:
        print("NT_PRSTATUS notes: %d, sizes %s" % (len(prs), [len(d) for d in prs]))
        return 1

    def read_pa(pa, n):
        return pa_bytes(f, loads, pa, n)

    ps = int(vmci["PAGESIZE"])
    g = ps.bit_length() - 1
    b = g - 3
    va_bits = 64 - int(vmci.get("NUMBER(TCR_EL1_T1SZ)", "0x10"), 16)
    levels = -(-(va_bits - g) // b)
    kvoff = int(vmci["NUMBER(kimage_voffset)"], 16)
    root = (int(vmci["SYMBOL(swapper_pg_dir)"], 16) - kvoff) % (1 << 64)

    def walk(va):  # ARM ARM D8: bits 1:0 0b11 table/page, 0b01 block
        tbl = root
        for lvl in range(levels):
            sh = g + b * (levels - 1 - lvl)
            width = va_bits - sh if lvl == 0 else b
            e = read_pa(tbl + ((va >> sh) & ((1 << width) - 1)) * 8, 8)
            if e is None:
                return None
            e, = struct.unpack("<Q", e)
            if e & 1 == 0:
                return None
            out = e & ((1 << 48) - 1) & ~((1 << g) - 1)
            if lvl == levels - 1 or e & 2 == 0:
                mask = (1 << sh) - 1
                return (out & ~mask) | (va & mask)
            tbl = out
        return None

    def rd(va, n):
        pa = walk(va)
        return read_pa(pa, n) if pa is not None else None

    def q(va):
        w = rd(va, 8)
        return None if w is None else struct.unpack("<Q", w)[0]

    h = rd(syms["mpidr_hash"] + koff, 28)
    if h is None:
        print("mpidr_hash: not readable in the core")
        return 1
    mask, s0, s1, s2, s3, bits = struct.unpack("<Q5I", h)
    m = mpidr[0] & mask
    slot = ((m & 0xff) >> s0 | (m & 0xff00) >> s1 | (m & 0xff0000) >> s2 |
            (m & 0xff00000000) >> s3)
    arr = q(syms["sleep_save_stash"] + koff)
    state = q(arr + 8 * slot) if arr is not None else None
    st = rd(state, 256) if state is not None else None
    if st is None:
        print("sleep_save_stash 0x%s -> slot %d -> state: not readable" %
              (arr and "%x" % arr, slot))
        return 1
    text = sorted((a + koff, n) for n, a in syms.items())

    def where(va):
        at = max(((a, n) for a, n in text if a <= va), default=(0, "?"))
        return at[1], va - at[0]

    fits = []
    for nr, sp_off, cs_off in ((13, 104, 112), (14, 112, 128)):
        sp, = struct.unpack_from("<Q", st, sp_off)
        cs = struct.unpack_from("<12Q", st, cs_off)
        if where(cs[1])[0] == "swsusp_arch_suspend" and 0 <= state - sp <= 4096:
            fits.append((nr, sp, cs))
    if len(fits) != 1:
        print("state 0x%x: %d layouts fit, 1 expected" % (state, len(fits)))
        return 1
    nr, sp, cs = fits[0]
    print("state 0x%x (NR_CTX_REGS %d), resume pc = swsusp_arch_suspend+0x%x, sp 0x%x" %
          (state, nr, where(cs[1])[1], sp))
    want = [0] * 34
    want[29], want[30] = cs[0], cs[1]
    want[19:29] = cs[2:12]
    want[31], want[32], want[33] = sp, cs[1], 0x3c5
    got = list(struct.unpack_from("<34Q", prs[0], 112))
    bad = 0
    names = ["x%d" % i for i in range(31)] + ["sp", "pc", "pstate"]
    for n, gv, w in zip(names, got, want):
        if gv != w:
            print("pr_reg.%s: note 0x%x, saved state 0x%x" % (n, gv, w))
            bad = 1
    bad |= pid_check(prs[0], rd(syms["__cpu_online_mask"] + koff, 8)
                     if "__cpu_online_mask" in syms else None)
    return bad


def main():
    core, smap = sys.argv[1], sys.argv[2]
    f, loads, notes = elf(core)
    f.seek(18)
    machine, = struct.unpack("<H", f.read(2))
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
        if arg in ("prstatus", "noprstatus") or arg.startswith("mpidr="):
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
    if "prstatus" in sys.argv[3:] and machine == 183:
        return arm64(f, loads, vmci, syms, koff, prs, sys.argv[3:]) | bad
    if "prstatus" in sys.argv[3:]:
        if len(prs) != 1 or len(prs[0]) != 336:
            print("NT_PRSTATUS notes: %d, sizes %s" % (len(prs), [len(d) for d in prs]))
            return 1
        phys_base = int(vmci["NUMBER(phys_base)"])

        def read_pa(pa, n):
            return pa_bytes(f, loads, pa, n)

        def kimg(name, n):  # a kernel-image symbol's bytes
            return read_pa(syms[name] + koff - 0xffffffff80000000 + phys_base, n)

        def walk(va):  # x86_64 4/5-level, 1G/2M leaves (Intel SDM vol. 3, 4.5)
            levels = 5 if vmci.get("NUMBER(pgtable_l5_enabled)") == "1" else 4
            table = int(vmci["SYMBOL(init_top_pgt)"], 16) - 0xffffffff80000000 + phys_base
            for shift in (48, 39, 30, 21, 12)[5 - levels:]:
                e = read_pa(table + ((va >> shift) & 511) * 8, 8)
                if e is None:
                    return None
                e, = struct.unpack("<Q", e)
                if not e & 1:
                    return None
                base = e & 0x000ffffffffff000
                if shift == 12 or (shift in (30, 21) and e & 0x80):
                    return (base & ~((1 << shift) - 1)) + (va & ((1 << shift) - 1))
                table = base
            return None

        raw = kimg("saved_context", 168)
        if raw is None:
            print("saved_context is in no PT_LOAD")
            return 1
        want = list(struct.unpack("<21Q", raw))
        sp = want[19]
        sp_pa = walk(sp)
        ret = read_pa(sp_pa, 8) if sp_pa is not None else None
        if ret is None:
            print("saved rsp 0x%x: not mapped, or its page not in the core" % sp)
            return 1
        want[16], = struct.unpack("<Q", ret)
        want[10] = 0
        want[17] = 0x10
        want[19] = sp + 8
        want[20] = 0x18
        # the return address is in hibernation_snapshot (create_image inlined)
        text = sorted((a + koff, n) for n, a in syms.items())
        at = max((a, n) for a, n in text if a <= want[16])
        if at[1] != "hibernation_snapshot":
            print("resume rip 0x%x is %s+0x%x, not in hibernation_snapshot" %
                  (want[16], at[1], want[16] - at[0]))
            bad = 1
        else:
            print("resume rip = hibernation_snapshot+0x%x" % (want[16] - at[0]))
        bad |= pid_check(prs[0], kimg("__cpu_online_mask", 8)
                         if "__cpu_online_mask" in syms else None)
        got = list(struct.unpack_from("<21Q", prs[0], 112))
        names = ("r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi "
                 "orig_rax rip cs eflags rsp ss").split()
        for n, g, w in zip(names, got, want):
            if g != w:
                print("pr_reg.%s: note 0x%x, saved_context 0x%x" % (n, g, w))
                bad = 1
        # the stores really happened: a kernel stack pointer, not zero
        if sp < 0xffff800000000000:
            print("saved rsp 0x%x is no kernel address" % sp)
            bad = 1
    return bad


sys.exit(main())
