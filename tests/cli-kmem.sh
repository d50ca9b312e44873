#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Kernel virtual addresses (lib/kmem.c, lib/pgtable.c): `hibimg cat --virt`
# through the kernel's own page tables, at the addresses the fixture
# kernel's System.map gives, in the kernel image mapping and in the linear
# map (x86_64 4-level; arm64 4K 39-bit, 4K 52-bit folded to 48, 16K and
# 64K 52-bit; i386 2-level from the record's CR3; riscv64 Sv57 from its
# saved_satp), must give the bytes that lie at the symbol's physical
# address, computed by tests/kmem_addrs.py from the map and VMCOREINFO
# alone and read from a raw export (byte offset = physical address).
. "$(dirname "$0")/lib.sh"

for name in $(fixtures); do
	img=$FIX_IMG/$name.img
	R=$(roff "$name")
	k=$(sidecar "$name" kernel)
	zstd -dcq "$FIX_SRC/kernels/$k.System.map.zst" >"$TMP/map" ||
		{ fail "$name: no kernels/$k.System.map.zst"; continue; }
	run_hib 0 export $R -F raw -q "$img" "$TMP/raw"
	for sym in linux_banner init_uts_ns; do
		set -- $(python3 "$top_srcdir/tests/kmem_addrs.py" "$TMP/raw" "$TMP/map" $sym)
		[ $# = 3 ] || { fail "$name: no address for $sym"; continue; }
		# 5000 bytes: a page boundary on the way where pages are 4K
		python3 -c 'import sys
f = open(sys.argv[1], "rb"); f.seek(int(sys.argv[2], 16)); sys.stdout.buffer.write(f.read(5000))' \
			"$TMP/raw" "$3" >"$TMP/want"
		run_hib 0 cat $R "$img" --virt 0x$1+5000 -f -O "$TMP/got"
		check "$name: $sym at 0x$1 (image map) = physical 0x$3" cmp -s "$TMP/got" "$TMP/want"
		run_hib 0 cat $R "$img" --virt 0x$2+5000 -f -O "$TMP/got"
		check "$name: $sym at 0x$2 (linear map) = physical 0x$3" cmp -s "$TMP/got" "$TMP/want"
	done
	rm -f "$TMP/raw"
done

img=$FIX_IMG/k612-lzo.img
# a user address: the kernel's own tables do not map it
run_hib 2 cat "$img" --virt 0x10000+16
err_has "is not mapped"
# i386: a 32-bit address space
run_hib 2 cat "$FIX_IMG/i61-lzo.img" --virt 0x1000
err_has "is not mapped"
run_hib 2 cat "$img" --virt 0x10 --pfn 1
err_has "exclude each other"
finish
