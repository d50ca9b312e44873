#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The arm64 record (issue 15): sleep_cpu_mpidr decoded and shown by info,
# and hibimg check's arch-record and memory-size rows for arm64, offline.
# No arm64 image is committed yet (issue 17): the image here is k612-lzo
# with its swsusp_info page rewritten as an arm64 record (the CRC32 covers
# the data pages, not this page), and the kernel a small arm64 Image
# holding a banner; the values asserted are what python wrote or reads at
# the offsets of struct arch_hibernate_hdr (FORMAT.md 4.2), the messages
# the format strings of arch/arm64/kernel/hibernate.c (6.1, 6.12), which
# the stock arm64 kernels printed in make check-doctor. The machine is
# fixtures/iomem/ (the guests' /proc/iomem and /proc/zoneinfo).
. "$(dirname "$0")/lib.sh"

UTS='#1 SMP Debian 6.12.117-1~deb12u1 (2026-11-20)'
OTHER='#1 SMP Debian 6.1.192-3 (2026-11-26)'
IOM=$FIX_SRC/iomem
JV="python3 $top_srcdir/tests/jsonview.py"
SCHEMA=$top_srcdir/doc/hibimg.schema.json
# valid NAME: the last -J output against the schema's $defs/NAME
valid() {
	if $JV validate "$SCHEMA" "$1" "$TMP/out" >"$TMP/jerr" 2>&1; then ok; else
		fail "$2: -J output does not match \$defs/$1"; sed 's/^/    /' "$TMP/jerr" >&2
	fi
}

# arm64_image OUT UTS MPIDR: k612-lzo, its swsusp_info page (map entry 0)
# made an arm64 record: uts_version[65] padded to 72, ttbr1_el1, reenter_kernel,
# __hyp_stub_vectors, sleep_cpu_mpidr at 96
arm64_image() {
	cp "$FIX_IMG/k612-lzo.img" "$1"
	python3 -c 'import struct,sys
f = open(sys.argv[1], "r+b")
f.seek(4064); m = struct.unpack("<Q", f.read(8))[0]
f.seek(m * 4096); info = struct.unpack("<Q", f.read(8))[0] * 4096
rec = sys.argv[2].encode().ljust(72, b"\0") + struct.pack("<QQQQ", 0x41f10000, 0xffff800009a41000, 0, int(sys.argv[3], 0))
f.seek(info); f.write(rec.ljust(390, b"\0"))' "$1" "$2" "$3"
}
# read_mpidr IMG: sleep_cpu_mpidr as python reads it, u64 at byte 96 of the record
read_mpidr() {
	python3 -c 'import struct,sys
f = open(sys.argv[1], "rb")
f.seek(4064); m = struct.unpack("<Q", f.read(8))[0]
f.seek(m * 4096); info = struct.unpack("<Q", f.read(8))[0] * 4096
f.seek(info + 96); print(struct.unpack("<Q", f.read(8))[0])' "$1"
}
# read_physpages IMG: num_physpages, the unsigned long at 400 of swsusp_info
read_physpages() {
	python3 -c 'import struct,sys
f = open(sys.argv[1], "rb")
f.seek(4064); m = struct.unpack("<Q", f.read(8))[0]
f.seek(m * 4096); info = struct.unpack("<Q", f.read(8))[0] * 4096
f.seek(info + 400); print(struct.unpack("<Q", f.read(8))[0])' "$1"
}
# kernel_image OUT UTS: an arm64 Image (arch/arm64/include/asm/image.h: 4K
# pages, little endian) whose banner ends in UTS; release 6.12, as the
# kernel that wrote the PFN list (zero-flagged PFNs need 6.6+)
kernel_image() {
	python3 -c 'import struct,sys
b = bytearray(96 * 1024)
struct.pack_into("<QQQ", b, 8, 0, len(b), 1 << 1)
b[0x38:0x3c] = b"ARM\x64"
ban = b"Linux version 6.12.117+deb12-arm64 (debian-kernel@lists.debian.org) (aarch64-linux-gnu-gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) " + sys.argv[2].encode() + b"\n"
b[40000:40000 + len(ban)] = ban
open(sys.argv[1], "wb").write(b)' "$1" "$2"
}

arm64_image "$TMP/a.img" "$UTS" 0x101
kernel_image "$TMP/Image" "$UTS"
kernel_image "$TMP/Image-other" "$OTHER"
mp=$(read_mpidr "$TMP/a.img")
check "python reads back the MPIDR it wrote (257)" test "$mp" = 257

# --- info: the record's saving CPU -------------------------------------------
run_hib 0 info -J "$TMP/a.img"
valid doc-info "info of an arm64 record"
check "info -J: arch arm64" test "$(json_get "$TMP/out" arch)" = arm64
check "info -J: uts_version" test "$(json_get "$TMP/out" uts_version)" = "$UTS"
check "info -J: sleep_cpu_mpidr is python's ($mp)" test "$(json_get "$TMP/out" sleep_cpu_mpidr)" = "$mp"
run_hib 0 info "$TMP/a.img"
out_has 'saved on CPU (MPIDR) *0x101$'
# an x86 record has none
run_hib 0 info -J "$FIX_IMG/k612-lzo.img"
check "info -J: no sleep_cpu_mpidr on x86" test -z "$(json_get "$TMP/out" sleep_cpu_mpidr)"

# --- check: the CPU the image was saved on -------------------------------------
P=$(read_physpages "$TMP/a.img")
# the RAM of the machine k612-lzo was written on (its log's BIOS-e820 usable
# ranges, page 0 and 640K-1M trimmed as x86 does) as /proc/iomem lines: the
# memory size and PFN rows then pass and do not hide the record's
printf '%s\n' '00001000-0009fbff : System RAM' '00100000-03fdcfff : System RAM' >"$TMP/iomem-exact"
check "k612-lzo.log's BIOS-e820 lines hold those ranges" \
	grep -q 'BIOS-e820: \[mem 0x0000000000100000-0x0000000003fdcfff\] usable' "$FIX_SRC/k612-lzo.log"
sum=$(python3 -c 'import sys
n = 0
for l in open(sys.argv[1]):
    a, b = l.split(" : ")[0].split("-")
    n += (int(b, 16) + 1) // 4096 - int(a, 16) // 4096
print(n)' "$TMP/iomem-exact")
check "those ranges hold num_physpages pages ($sum, python: $P)" test "$sum" = "$P"

run_hib 4 check -J --kernel "$TMP/Image" --iomem "$TMP/iomem-exact" "$TMP/a.img"
check "no CPU list: arch-record unknown" test "$(check_row "$TMP/out" arch-record result)" = unknown
check "no CPU list: the missing input is named" sh -c "grep -q -- '--cpus MPIDR' '$TMP/out'"
check "no CPU list: verdict unknown" test "$(check_top "$TMP/out" verdict)" = unknown

run_hib 0 check -J --kernel "$TMP/Image" --cpus 0x0,0x101 --iomem "$TMP/iomem-exact" "$TMP/a.img"
check "MPIDR 0x101 listed: arch-record pass" test "$(check_row "$TMP/out" arch-record result)" = pass
check "MPIDR 0x101 listed: detail names it" grep -q "saved on MPIDR 0x101, one of the boot's 2 CPUs" "$TMP/out"
valid doc-check "check with --cpus"
check "--cpus: target_cpus" test "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["check"]["target"]["target_cpus"])' "$TMP/out")" = "0x0,0x101"

run_hib 1 check -J --kernel "$TMP/Image" --cpus 0x0,0x1 --iomem "$TMP/iomem-exact" "$TMP/a.img"
check "MPIDR 0x101 not listed: arch-record fail" test "$(check_row "$TMP/out" arch-record result)" = fail
check "not listed: the kernel's line" \
	test "$(check_top "$TMP/out" message)" = 'hibernate: Hibernated on a CPU not known to this kernel!'

# the build string is compared first
run_hib 1 check -J --kernel "$TMP/Image-other" --cpus 0x0 --iomem "$TMP/iomem-exact" "$TMP/a.img"
check "another build: its line, before the CPU's" \
	test "$(check_top "$TMP/out" message)" = 'hibernate: Hibernate image not generated by this kernel!'

# a CPU list that cannot be read: said, and the row cannot tell
for bad in '0x1,zz' '0x1,' ',0x1' '' '-1'; do
	run_hib 4 check -J --kernel "$TMP/Image" --cpus "$bad" --iomem "$TMP/iomem-exact" "$TMP/a.img"
	err_has '^hibimg check: --cpus: '
	check "--cpus '$bad': arch-record unknown" test "$(check_row "$TMP/out" arch-record result)" = unknown
done
run_hib 4 check --kernel "$TMP/Image" --cpus '0x1,zz' --iomem "$TMP/iomem-exact" "$TMP/a.img"
err_has "'zz' is not an MPIDR"

# --- check: the memory size -----------------------------------------------------
# arm64 lists every memblock.memory region at the top of /proc/iomem, NOMAP
# ones as "reserved", and the kernel counts both: with an arm64 kernel the
# count is exact; the same lines with a "reserved" range in the middle hold
# the same pages
{ echo '00001000-0009fbff : System RAM'; echo '00100000-00ffffff : System RAM'
  echo '01000000-01ffffff : reserved'; echo '02000000-03fdcfff : System RAM'; } >"$TMP/iomem-nomap"
{ cat "$TMP/iomem-exact"; echo '40000000-403fffff : System RAM'; } >"$TMP/iomem-more"
sed 1d "$TMP/iomem-exact" >"$TMP/iomem-less"
run_hib 0 check -J --kernel "$TMP/Image" --cpus 0x101 --iomem "$TMP/iomem-exact" "$TMP/a.img"
check "iomem of num_physpages pages: memory-size pass" test "$(check_row "$TMP/out" memory-size result)" = pass
run_hib 0 check -J --kernel "$TMP/Image" --cpus 0x101 --iomem "$TMP/iomem-nomap" "$TMP/a.img"
check "arm64: a top-level reserved range counts (memory-size pass)" \
	test "$(check_row "$TMP/out" memory-size result)" = pass
run_hib 1 check -J --kernel "$TMP/Image" --cpus 0x101 --iomem "$TMP/iomem-more" "$TMP/a.img"
check "arm64: more RAM: memory-size fail" test "$(check_row "$TMP/out" memory-size result)" = fail
check "arm64: more RAM: the kernel's line" \
	test "$(check_top "$TMP/out" message)" = 'PM: hibernation: Image mismatch: memory size'
"$HIBIMG" check -J --kernel "$TMP/Image" --cpus 0x101 --iomem "$TMP/iomem-less" "$TMP/a.img" >"$TMP/out" 2>&1
check "arm64: less RAM: memory-size fail" test "$(check_row "$TMP/out" memory-size result)" = fail
# no kernel, no architecture: System RAM is only a floor, "reserved" may or
# may not count; above the image's count it fails, below it cannot tell
"$HIBIMG" check -J --iomem "$TMP/iomem-more" "$TMP/a.img" >"$TMP/out" 2>&1
check "a floor above num_physpages: memory-size fail" test "$(check_row "$TMP/out" memory-size result)" = fail
check "a floor above: the kernel's line" \
	test "$(check_row "$TMP/out" memory-size kernel_message)" = 'PM: hibernation: Image mismatch: memory size'
"$HIBIMG" check -J --iomem "$TMP/iomem-nomap" "$TMP/a.img" >"$TMP/out" 2>&1
check "a floor below num_physpages: memory-size unknown" test "$(check_row "$TMP/out" memory-size result)" = unknown

# --- the guests' machine descriptions ------------------------------------------
# the zones' present pages (the guest's /proc/zoneinfo) are the pages of the
# top-level System RAM and reserved ranges, summed by python: booted with
# -kernel (a device tree, no NOMAP) only System RAM; under edk2 (-uefi) the
# NOMAP regions too, the 64 MiB flash window at 0x04000000 among them
for m in arm64-256M-s2 arm64-384M-s2 arm64-256M-s1 arm64-256M-s2-uefi arm64-384M-s2-uefi; do
	sum=$(python3 -c 'import sys
n = 0
for l in open(sys.argv[1]):
    if l[0] == " " or " : " not in l: continue
    rng, name = l.rstrip("\n").split(" : ", 1)
    if name in ("System RAM", "reserved"):
        a, b = rng.split("-")
        n += (int(b, 16) + 1) // 4096 - int(a, 16) // 4096
print(n)' "$IOM/$m/iomem")
	check "$m: System RAM + reserved ($sum) are the guest's zoneinfo ($(cat "$IOM/$m/present"))" \
		test "$sum" = "$(cat "$IOM/$m/present")"
	"$HIBIMG" check -J --kernel "$TMP/Image" --iomem "$IOM/$m/iomem" "$TMP/a.img" >"$TMP/out" 2>&1
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["check"]["target"]["target_physpages"])' "$TMP/out")
	check "$m: hibimg's count ($got) is the guest's zoneinfo" test "$got" = "$(cat "$IOM/$m/present")"
done
# the CPUs: the device tree's cpu nodes' reg, or (edk2, ACPI) the MADT's GICC MPIDRs
for m in arm64-256M-s2 arm64-384M-s2 arm64-256M-s1; do
	exp=$(sed -n 's/^HIBIMG-DTCPU [^ ]* \([0-9a-f]*\)$/\1/p' "$IOM/$m.log" |
		python3 -c 'import sys; print(",".join("0x%x" % int(l, 16) for l in sys.stdin.read().split()))')
	check "$m: cpus is the device tree's reg values ($exp)" test "$(cat "$IOM/$m/cpus")" = "$exp"
done

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
