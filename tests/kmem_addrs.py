#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Where a kernel symbol lies, from the System.map and VMCOREINFO alone.

kmem_addrs.py RAW SYSTEM.MAP SYMBOL

RAW is a raw export of the image (byte offset = physical address); its
VMCOREINFO page (a page starting "OSRELEASE=") gives KERNELOFFSET and the
arch's numbers. Prints "IMAGE_VA LINEAR_VA PA" in hex: the symbol's
address in the kernel image mapping (System.map + KERNELOFFSET), the same
bytes through the direct (linear) map, and its physical address, by the
kernel's own formulas:
  x86_64: __pa_symbol(x) = x - __START_KERNEL_map + phys_base;
          __va(pa) = pa + PAGE_OFFSET (0xffff888000000000, 4 levels,
          without RANDOMIZE_MEMORY, as the fixture kernels are built)
  arm64:  __pa_symbol(x) = x - kimage_voffset;
          __va(pa) = (pa - PHYS_OFFSET) | PAGE_OFFSET, PAGE_OFFSET =
          -(1 << VA_BITS) (arch/arm64/include/asm/memory.h, 5.11+)
  riscv64: x - va_kernel_pa_offset; __va(pa) = pa - phys_ram_base +
          PAGE_OFFSET
  i386:   x - 0xc0000000 (VMSPLIT_3G), the image being in lowmem
Independent of hibimg: only the raw bytes and the map are read.
"""
import re
import sys

M64 = (1 << 64) - 1


def vmcoreinfo(raw, ps):
    with open(raw, 'rb') as f:
        data = f.read()
    for m in re.finditer(b'OSRELEASE=', data):
        if m.start() % ps == 0:
            text = data[m.start():data.index(b'\0', m.start())].decode()
            return dict(l.split('=', 1) for l in text.split('\n') if '=' in l)
    sys.exit('no VMCOREINFO page')


def main():
    raw, smap, sym = sys.argv[1:4]
    addr = None
    for line in open(smap):
        a, _, n = line.split()[:3]
        if n == sym:
            addr = int(a, 16)
    if addr is None:
        sys.exit('%s not in %s' % (sym, smap))
    v = None
    for ps in (4096, 16384, 65536):
        try:
            v = vmcoreinfo(raw, ps)
            break
        except SystemExit:
            continue
    if v is None:
        sys.exit('no VMCOREINFO page')
    va = (addr + int(v.get('KERNELOFFSET', '0'), 16)) & M64
    if 'SYMBOL(init_top_pgt)' in v:
        # VMCOREINFO_NUMBER() prints %ld: decimal, may be negative
        pa = va - 0xffffffff80000000 + int(v.get('NUMBER(phys_base)', '0'))
        lin = (pa + 0xffff888000000000) & M64
    elif 'NUMBER(va_kernel_pa_offset)' in v:
        # riscv64: kernel_mapping_va_to_pa(); __va(pa) = pa + PAGE_OFFSET
        # - phys_ram_base (arch/riscv/include/asm/page.h)
        pa = (va - int(v['NUMBER(va_kernel_pa_offset)'], 16)) & M64
        lin = (pa - int(v['NUMBER(phys_ram_base)']) + int(v['NUMBER(PAGE_OFFSET)'], 16)) & M64
    elif va >> 32 == 0:
        # i386: the image lies in lowmem, the linear map itself, at
        # PAGE_OFFSET 0xc0000000 (VMSPLIT_3G, as i61.config has it)
        pa = va - 0xc0000000
        lin = va
    else:
        pa = (va - int(v['NUMBER(kimage_voffset)'], 16)) & M64
        page_offset = (-(1 << int(v['NUMBER(VA_BITS)']))) & M64
        lin = ((pa - int(v['NUMBER(PHYS_OFFSET)'], 16)) & M64) | page_offset
    print('%x %x %x' % (va, lin, pa))


if __name__ == '__main__':
    main()
