#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every arch record (issue 17): i386's restore_data_record, arm64's and
# riscv64's arch_hibernate_hdr decoded by info and -J, riscv64 told from
# arm64 by the word at 80 both ways, the check row of each, and exports
# whose ELF class and machine are the platform's. No image of these
# platforms is committed yet: tests/mkrecord.py writes a small one from
# the kernel's structs, and the values asserted are the ones it wrote; the
# ELF headers are read by tests/export_read.py, the cores opened by drgn
# where python3-drgn is installed. The messages are the format strings of
# arch/x86/power/hibernate.c and arch/riscv/kernel/hibernate.c (6.12).
. "$(dirname "$0")/lib.sh"

MK="python3 $top_srcdir/tests/mkrecord.py"
ER="python3 $top_srcdir/tests/export_read.py"
JV="python3 $top_srcdir/tests/jsonview.py"
SCHEMA=$top_srcdir/doc/hibimg.schema.json
MEMLOG=$top_srcdir/tests/memmap-from-log.py
UTS='#1 SMP Debian 6.12.117-1~deb12u1 (2026-11-20)'
valid() {
	if $JV validate "$SCHEMA" "$1" "$TMP/out" >"$TMP/jerr" 2>&1; then ok; else
		fail "$2: -J output does not match \$defs/$1"; sed 's/^/    /' "$TMP/jerr" >&2
	fi
}
# kv FILE KEY: what mkrecord.py wrote
kv() { sed -n "s/^$2=//p" "$1" | head -1; }

# --- info: each field as written ---------------------------------------------
# KIND ARCH FIELDS...
while read -r kind arch fields; do
	$MK "$kind" "$TMP/$kind.img" >"$TMP/$kind.kv" || fail "mkrecord.py $kind"
	run_hib 0 info -J "$TMP/$kind.img"
	valid doc-info "info of a $kind record"
	cp "$TMP/out" "$TMP/$kind.json"
	check "$kind: arch $arch" test "$(json_get "$TMP/out" arch)" = "$arch"
	check "$kind: word size is the one written ($(kv "$TMP/$kind.kv" word_size))" \
		test "$(json_get "$TMP/out" word_size)" = "$(kv "$TMP/$kind.kv" word_size)"
	for k in $fields; do
		want=$(kv "$TMP/$kind.kv" "$k")
		check "$kind: $k is the one written ($want)" test "$(json_get "$TMP/out" "$k")" = "$want"
	done
done <<EOF
i386 i386 jump_address jump_address_phys cr3 restore_magic e820_check
i386-md5 i386 jump_address jump_address_phys cr3 restore_magic e820_check
arm64 arm64 uts_version ttbr1_el1 reenter_kernel hyp_stub_vectors sleep_cpu_mpidr
arm64-va39 arm64 uts_version ttbr1_el1 reenter_kernel hyp_stub_vectors sleep_cpu_mpidr
riscv64 riscv64 uts_version hartid satp satp_mode satp_ppn restore_cpu_addr
riscv64-sv39 riscv64 uts_version hartid satp satp_mode satp_ppn restore_cpu_addr
riscv64-sv57 riscv64 uts_version hartid satp satp_mode satp_ppn restore_cpu_addr
EOF

# the text view names them
run_hib 0 info "$TMP/i386.img"
out_has '^ *arch header  *i386$'
out_has '^ *CR3 (page-table root)  *0x1f0a000$'
out_has '^ *e820 checksum  *0x8d4c3a21$'
out_has '^ *restore record format  *5.13+ (e820 CRC-32)$'
run_hib 0 info "$TMP/riscv64.img"
out_has '^ *satp mode  *Sv48$'
out_has '^ *saved on hart  *0x3$'
run_hib 0 info "$TMP/arm64.img"
out_has '^ *reenter_kernel (_cpu_resume)  *0xffffbf9e806320dc$'

# --- arm64 or riscv64: the word at 80, both ways -----------------------------
for k in arm64 arm64-va39; do
	check "$k: no riscv field" test -z "$(json_get "$TMP/$k.json" hartid)$(json_get "$TMP/$k.json" satp)"
done
for k in riscv64 riscv64-sv39 riscv64-sv57; do
	check "$k: no arm64 field" \
		test -z "$(json_get "$TMP/$k.json" sleep_cpu_mpidr)$(json_get "$TMP/$k.json" reenter_kernel)"
done
# a uts_version record whose word at 80 is a physical address: neither
$MK neither "$TMP/neither.img" >"$TMP/neither.kv"
run_hib 0 info -J "$TMP/neither.img"
valid doc-info "info of a record of neither"
check "neither: an unknown arch record" test "$(json_get "$TMP/out" arch)" = "unknown arch record"
check "neither: no field of either" \
	test -z "$(json_get "$TMP/out" uts_version)$(json_get "$TMP/out" hartid)$(json_get "$TMP/out" sleep_cpu_mpidr)"
run_hib 0 info "$TMP/neither.img"
out_has '^ *arch header  *unknown arch record$'

# --- exports: the platform's ELF class and machine -------------------------------
# EM_386 3, EM_AARCH64 183, EM_RISCV 243 (include/uapi/linux/elf-em.h);
# one PT_LOAD per run mkrecord.py wrote, no note (no VMCOREINFO page)
HAVE_DRGN=no
/usr/bin/python3 -c 'import drgn' 2>/dev/null && HAVE_DRGN=yes
[ $HAVE_DRGN = yes ] || echo "# python3-drgn not installed: drgn's view of the cores not checked"
while read -r kind cls mach ehsize phentsize drgnarch; do
	runs=$(grep -c '^run=' "$TMP/$kind.kv")
	"$HIBIMG" export -J --format elf "$TMP/$kind.img" "$TMP/$kind.elf" >"$TMP/out" 2>"$TMP/err" ||
		fail "$kind: export failed: $(cat "$TMP/err")"
	valid doc-export "export of a $kind image"
	check "$kind: export says ELF class $cls" test "$(json_get "$TMP/out" elf_class)" = "$cls"
	$ER elf-info "$TMP/$kind.elf" >"$TMP/ei"
	check "$kind: ELF class $cls (python)" grep -qx "class=$cls" "$TMP/ei"
	check "$kind: e_ehsize $ehsize, e_phentsize $phentsize" \
		sh -c "grep -qx 'ehsize=$ehsize' '$TMP/ei' && grep -qx 'phentsize=$phentsize' '$TMP/ei'"
	check "$kind: e_machine $mach" grep -qx "machine=$mach" "$TMP/ei"
	check "$kind: a PT_LOAD per run ($runs)" grep -qx "phnum=$runs" "$TMP/ei"
	# each page where python put it: the first page of each run by hash
	$ER pages-elf 4096 "$TMP/$kind.elf" >"$TMP/pages"
	sed -n 's/^page=//p' "$TMP/$kind.kv" >"$TMP/want"
	check "$kind: the runs' first pages are the ones written" \
		sh -c "grep -qxFf '$TMP/want' '$TMP/pages' && test \$(grep -cxFf '$TMP/want' '$TMP/pages') = $runs"
	[ $HAVE_DRGN = yes ] || continue
	/usr/bin/python3 - "$TMP/$kind.elf" "$TMP/want" >"$TMP/drgn" 2>&1 <<'PY' || fail "$kind: drgn: $(cat "$TMP/drgn")"
import drgn, hashlib, sys
p = drgn.Program()
p.set_core_dump(sys.argv[1])
print("arch=%s" % p.platform.arch.name)
print("is64=%d" % bool(p.platform.flags & drgn.PlatformFlags.IS_64_BIT))
for line in open(sys.argv[2]):
    pfn, sha = line.split()
    d = p.read(int(pfn) * 4096, 4096, True)
    print("read=%d" % (hashlib.sha256(d).hexdigest() == sha))
PY
	check "$kind: drgn opens it as $drgnarch" grep -qx "arch=$drgnarch" "$TMP/drgn"
	check "$kind: drgn's word size" grep -qx "is64=$([ "$cls" = 64 ] && echo 1 || echo 0)" "$TMP/drgn"
	check "$kind: drgn reads the pages python wrote at their physical addresses" \
		sh -c "! grep -qx 'read=0' '$TMP/drgn' && test \$(grep -cx 'read=1' '$TMP/drgn') = $runs"
done <<EOF
i386 32 3 52 32 I386
arm64 64 183 64 56 AARCH64
riscv64 64 243 64 56 RISCV64
EOF

# PAE memory above 4 GiB does not fit ELFCLASS32: then an ELF64 core, still
# EM_386, as kexec-tools writes i386 dumps with such memory. (drgn 0.0.22
# takes its word size from the class: it opens this one as 64-bit I386.)
$MK i386-pae "$TMP/i386-pae.img" >"$TMP/i386-pae.kv"
"$HIBIMG" export -J --format elf "$TMP/i386-pae.img" "$TMP/i386-pae.elf" >"$TMP/out" 2>"$TMP/err" ||
	fail "i386-pae: export failed: $(cat "$TMP/err")"
check "i386 above 4 GiB: export says ELF class 64" test "$(json_get "$TMP/out" elf_class)" = 64
$ER elf-info "$TMP/i386-pae.elf" >"$TMP/ei"
check "i386 above 4 GiB: ELF class 64, e_machine 3 (python)" \
	sh -c "grep -qx class=64 '$TMP/ei' && grep -qx machine=3 '$TMP/ei'"
$ER pages-elf 4096 "$TMP/i386-pae.elf" >"$TMP/pages"
sed -n 's/^page=//p' "$TMP/i386-pae.kv" >"$TMP/want"
check "i386 above 4 GiB: the page at 4 GiB is the one written" \
	sh -c "grep -qx \"\$(grep '^1048576 ' '$TMP/want')\" '$TMP/pages'"

# --- check: i386 ---------------------------------------------------------------
# vmlinux32 OUT RELEASE: an ELF32 EM_386 vmlinux holding only a banner
vmlinux32() {
	python3 -c 'import struct,sys
b = bytearray(64 * 1024)
b[0:16] = b"\x7fELF\x01\x01\x01" + bytes(9)
struct.pack_into("<HHI", b, 16, 2, 3, 1)     # ET_EXEC, EM_386, EV_CURRENT
ban = b"Linux version " + sys.argv[2].encode() + b" (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)\n"
b[20000:20000 + len(ban)] = ban
open(sys.argv[1], "wb").write(b)' "$1" "$2"
}
vmlinux32 "$TMP/vmlinux-61" 6.1.0-57-686-pae
vmlinux32 "$TMP/vmlinux-418" 4.18.0-1-686-pae
vmlinux32 "$TMP/vmlinux-414" 4.14.0-3-686-pae
zcrc=$(python3 "$MEMLOG" --crc "$FIX_SRC/memmap/96M")
$MK i386 "$TMP/i386-96M.img" "$zcrc" >/dev/null
"$HIBIMG" check -J --kernel "$TMP/vmlinux-61" --memmap "$FIX_SRC/memmap/96M" "$TMP/i386-96M.img" >"$TMP/out" 2>&1
valid doc-check "check of an i386 image"
check "i386, 6.1, the e820 CRC-32 of its machine: arch-record pass" \
	test "$(check_row "$TMP/out" arch-record result)" = pass
check "i386: the target kernel is i386" \
	test "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["check"]["target"]["target_arch"])' "$TMP/out")" = i386
check "i386: the detail names zlib's CRC-32 ($zcrc)" \
	grep -q "e820 CRC-32 $zcrc equals the boot's firmware map" "$TMP/out"
"$HIBIMG" check -J --kernel "$TMP/vmlinux-61" --memmap "$FIX_SRC/memmap/128M" "$TMP/i386-96M.img" >"$TMP/out" 2>&1
check "i386, another machine's map: arch-record fail" test "$(check_row "$TMP/out" arch-record result)" = fail
check "i386, another map: the kernel's line" \
	test "$(check_row "$TMP/out" arch-record kernel_message)" = 'Hibernate inconsistent memory map detected!'
"$HIBIMG" check -J --kernel "$TMP/vmlinux-61" --memmap "$FIX_SRC/memmap/96M" "$TMP/i386-md5.img" >"$TMP/out" 2>&1
check "i386 MD5-era record, 6.1 kernel: arch-record fail" test "$(check_row "$TMP/out" arch-record result)" = fail
check "i386 MD5-era record: the kernel's line" \
	test "$(check_row "$TMP/out" arch-record kernel_message)" = 'Unrecognized hibernate image header format!'
"$HIBIMG" check -J --kernel "$TMP/vmlinux-418" "$TMP/i386-md5.img" >"$TMP/out" 2>&1
check "i386 record, a 4.18 kernel (the i386 record's release not pinned): unknown" \
	test "$(check_row "$TMP/out" arch-record result)" = unknown
"$HIBIMG" check -J --kernel "$TMP/vmlinux-414" "$TMP/i386-md5.img" >"$TMP/out" 2>&1
check "i386 record, a 4.14 kernel (no i386 record): fail" test "$(check_row "$TMP/out" arch-record result)" = fail
check "i386 record, 4.14: check_image_kernel()'s line" \
	test "$(check_row "$TMP/out" arch-record kernel_message)" = 'PM: hibernation: Image mismatch: kernel version'
"$HIBIMG" check -J --kernel "$TMP/vmlinux-61" "$TMP/arm64.img" >"$TMP/out" 2>&1
check "an arm64 image, an i386 kernel: arch-record fail" test "$(check_row "$TMP/out" arch-record result)" = fail

# --- check: riscv64 --------------------------------------------------------------
# riscv_image OUT UTS: a riscv Image (Documentation/arch/riscv/boot-image-header.rst:
# "RISCV\0\0\0" at 0x30, "RSC\x05" at 0x38) whose banner ends in UTS
riscv_image() {
	python3 -c 'import struct,sys
b = bytearray(96 * 1024)
b[0x30:0x38] = b"RISCV\0\0\0"
b[0x38:0x3c] = b"RSC\x05"
ban = b"Linux version 6.12.117+deb12-riscv64 (debian-kernel@lists.debian.org) (riscv64-linux-gnu-gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) " + sys.argv[2].encode() + b"\n"
b[40000:40000 + len(ban)] = ban
open(sys.argv[1], "wb").write(b)' "$1" "$2"
}
riscv_image "$TMP/rvImage" "$UTS"
riscv_image "$TMP/rvImage-other" '#1 SMP Debian 6.12.117-1~deb12u1 (2026-11-21)'
"$HIBIMG" check -J --kernel "$TMP/rvImage" "$TMP/riscv64.img" >"$TMP/out" 2>&1
valid doc-check "check of a riscv64 image"
check "riscv64, no CPU list: arch-record unknown" test "$(check_row "$TMP/out" arch-record result)" = unknown
check "riscv64, no CPU list: the hart is named" grep -q "saved on the CPU with hart ID 0x3" "$TMP/out"
"$HIBIMG" check -J --kernel "$TMP/rvImage" --cpus 0x0,0x3 "$TMP/riscv64.img" >"$TMP/out" 2>&1
check "riscv64, hart 3 listed: arch-record pass" test "$(check_row "$TMP/out" arch-record result)" = pass
"$HIBIMG" check -J --kernel "$TMP/rvImage" --cpus 0x0,0x1 "$TMP/riscv64.img" >"$TMP/out" 2>&1
check "riscv64, hart 3 not listed: arch-record fail" test "$(check_row "$TMP/out" arch-record result)" = fail
check "riscv64, hart not listed: riscv's line (no pr_fmt)" \
	test "$(check_row "$TMP/out" arch-record kernel_message)" = 'Hibernated on a CPU not known to this kernel!'
"$HIBIMG" check -J --kernel "$TMP/rvImage-other" --cpus 0x3 "$TMP/riscv64.img" >"$TMP/out" 2>&1
check "riscv64, another build: arch-record fail" test "$(check_row "$TMP/out" arch-record result)" = fail
check "riscv64, another build: riscv's line" \
	test "$(check_row "$TMP/out" arch-record kernel_message)" = 'Hibernate image not generated by this kernel!'
"$HIBIMG" check -J --kernel "$TMP/rvImage" --cpus 0x101 "$TMP/arm64.img" >"$TMP/out" 2>&1
check "an arm64 image, a riscv64 kernel: arch-record fail" test "$(check_row "$TMP/out" arch-record result)" = fail
"$HIBIMG" check -J --kernel "$TMP/rvImage" "$TMP/neither.img" >"$TMP/out" 2>&1
check "a record of neither: arch-record unknown" test "$(check_row "$TMP/out" arch-record result)" = unknown

finish
