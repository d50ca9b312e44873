#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hibimg check (issue 15) on the fixtures, offline: each image against the
# kernel that wrote it and the machine it was written on (resume), and
# against what a real kernel refuses. The messages asserted are the ones
# the fixtures' kernels printed (fixtures/README.md: the negative controls
# of check-resume.sh) or the format strings of the 6.1 and 6.12 sources;
# the machine comes from the guest (fixtures/memmap/) or from the kernel's
# own BIOS-e820 lines, a derivation proven here on the copies.
. "$(dirname "$0")/lib.sh"

MEMLOG=$top_srcdir/tests/memmap-from-log.py
for k in k61 k612 k612fs k612nz i61; do
	zstd -q -d -f "$FIX_SRC/kernels/$k.bzImage.zst" -o "$TMP/$k.bzImage" ||
		fail "cannot unpack kernels/$k.bzImage.zst"
done

# --- the machine descriptions --------------------------------------------------
# the log's BIOS-e820 lines are the table sysfs exports: byte for byte on
# every machine with a copy, whichever kernel printed them
for m in 96M 128M; do
	rm -rf "$TMP/mm-$m"
	python3 "$MEMLOG" "$FIX_SRC/memmap/$m.log" "$TMP/mm-$m"
	check "memmap $m: the stock kernel's BIOS-e820 lines are its sysfs copy" \
		diff -r "$TMP/mm-$m" "$FIX_SRC/memmap/$m"
done
python3 "$MEMLOG" "$FIX_SRC/k612-lzo-full.log" "$TMP/mm-full"
check "memmap 96M: the fixture kernel's BIOS-e820 lines are the stock kernel's sysfs copy" \
	diff -r "$TMP/mm-full" "$FIX_SRC/memmap/96M"
python3 "$MEMLOG" "$FIX_SRC/k612-lzo.log" "$TMP/mm-64M"

# the checksum, computed by zlib, by hibimg, and by the kernel that wrote
# k612-lzo-full on that machine
zcrc=$(python3 "$MEMLOG" --crc "$FIX_SRC/memmap/96M")    # not $want: run_hib's
run_hib 0 check -J --kernel "$TMP/k612.bzImage" --memmap "$FIX_SRC/memmap/96M" "$FIX_IMG/k612-lzo-full.img"
got=$(python3 -c 'import json,sys; print("0x%08x" % json.load(open(sys.argv[1]))["check"]["target"]["target_e820_crc32"])' "$TMP/out")
check "96M: hibimg's e820 CRC-32 ($got) is zlib's ($zcrc)" test "$got" = "$zcrc"
"$HIBIMG" info -J "$FIX_IMG/k612-lzo-full.img" >"$TMP/info.json"
img=$(python3 -c 'import json,sys
def find(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "e820_check": return v
            r = find(v)
            if r is not None: return r
    if isinstance(o, list):
        for v in o:
            r = find(v)
            if r is not None: return r
print("0x%08x" % find(json.load(open(sys.argv[1]))))' "$TMP/info.json")
check "96M: the image's e820_check ($img) is zlib's ($zcrc)" test "$img" = "$zcrc"

# --- each image, its own kernel, its own machine: will resume ------------------
# arm64 (the minimal kernels, booted with a device tree): the machine from
# the fixture's own log, its "node 0: [mem A-B]" lines as /proc/iomem's
# System RAM and the MPIDRs of its "Booting Linux on physical CPU" and
# "Booted secondary processor" lines as --cpus
arm64_machine() {  # arm64_machine NAME -> $TMP/NAME.iomem, prints the cpus
	tr -d '\r' <"$FIX_SRC/$1.log" |
		sed -n 's/.*node *[0-9]*: \[mem 0x\([0-9a-f]*\)-0x\([0-9a-f]*\)\].*/\1-\2 : System RAM/p' |
		sort -u >"$TMP/$1.iomem"
	tr -d '\r' <"$FIX_SRC/$1.log" |
		sed -n 's/.*\(physical CPU\|secondary processor\) 0x\([0-9a-f]*\) .*/\2/p' |
		sort -u | while read -r m; do printf '0x%x\n' "0x$m"; done | paste -sd, -
}
for f in $(fixtures); do
	k=$(sidecar "$f" kernel)
	mem=$(sidecar "$f" mem)
	arch=$(sidecar "$f" arch)
	# riscv64: its kernel is an Image, and no machine description of the
	# riscv64 guest (its /proc/iomem, its harts) is captured yet, so check
	# cannot tell; the build string of the record is compared, and passes
	if [ "${arch:-x86_64}" = riscv64 ]; then
		zstd -q -d -f "$FIX_SRC/kernels/$k.Image.zst" -o "$TMP/$k.Image"
		run_hib 4 check -v --kernel "$TMP/$k.Image" --config "$FIX_SRC/kernels/$k.config" "$FIX_IMG/$f.img"
		check "$f: the record's build string is its kernel's" \
			grep -q '^arch-record .*equals the boot kernel' "$TMP/out"
		check "$f: no row fails" test -z "$(grep -E '^[a-z-]+ +fail' "$TMP/out")"
		check "$f: the target is the kernel that wrote it" \
			grep -q "release *$(sidecar "$f" kernel_release)\$" "$TMP/out"
		rm -f "$TMP/$k.Image"
		continue
	elif [ "${arch:-x86_64}" = arm64 ]; then
		zstd -q -d -f "$FIX_SRC/kernels/$k.Image.zst" -o "$TMP/$k.Image" ||
			fail "cannot unpack kernels/$k.Image.zst"
		cpus=$(arm64_machine "$f")
		check "$f: System RAM from the log" test -s "$TMP/$f.iomem"
		run_hib 0 check -v --kernel "$TMP/$k.Image" --config "$FIX_SRC/kernels/$k.config" \
			--iomem "$TMP/$f.iomem" --cpus "$cpus" "$FIX_IMG/$f.img"
		check "$f: its own kernel on its machine ($cpus): will resume" grep -qx 'will resume' "$TMP/out"
		check "$f: the target is the kernel that wrote it" \
			grep -q "release *$(sidecar "$f" kernel_release)\$" "$TMP/out"
		check "$f: the target's page size is the image's" \
			grep -q "page size *$(sidecar "$f" page_size)\$" "$TMP/out"
		rm -f "$TMP/$k.Image"
		continue
	fi
	case $mem in
	64M) mm=$TMP/mm-64M ;;
	*)   mm=$FIX_SRC/memmap/$mem ;;
	esac
	# shellcheck disable=SC2046
	if [ "${arch:-x86_64}" = i386 ]; then
		# qemu-system-i386 -cpu qemu32 has no range above 4 GiB: its map
		# (6 entries) is not qemu64's (7, with 0xfd00000000 reserved), and
		# memmap/ holds qemu64's. The machine is the fixture's own
		# BIOS-e820 lines (the derivation proven above).
		mm=$TMP/mm-$f
		rm -rf "$mm"
		python3 "$MEMLOG" "$FIX_SRC/$f.log" "$mm"
	fi
	run_hib 0 check -v $(roff "$f") --kernel "$TMP/$k.bzImage" --config "$FIX_SRC/kernels/$k.config" \
		--memmap "$mm" "$FIX_IMG/$f.img"
	check "$f: its own kernel on its machine: will resume" grep -qx 'will resume' "$TMP/out"
	check "$f: the target is the kernel that wrote it" \
		grep -q "release *$(sidecar "$f" kernel_release)\$" "$TMP/out"
done

# x86 compares no kernel version: a 6.1 image restored by the 6.12 kernel
run_hib 0 check --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" "$FIX_IMG/k61-lzo.img"
out_has 'x86 compares no kernel version'

# --- what the kernel refuses ------------------------------------------------
# an LZ4 image and a 6.1 kernel, named by its kernel file or by its config:
# 6.1 ignores SF_COMPRESSION_ALG_LZ4 and decodes the chunks as LZO
run_hib 1 check --kernel "$TMP/k61.bzImage" --memmap "$TMP/mm-64M" "$FIX_IMG/k612-lz4.img"
out_has '^will not resume: PM: LZO decompression failed$'
out_has '^compression *fail'
run_hib 1 check --config "$FIX_SRC/kernels/k61.config" --memmap "$TMP/mm-64M" "$FIX_IMG/k612-lz4.img"
out_has '^will not resume: PM: LZO decompression failed$'
# ... and the 6.12 kernel without CONFIG_CRYPTO_LZ4 (a config that lacks it)
sed 's/^CONFIG_CRYPTO_LZ4=y/# CONFIG_CRYPTO_LZ4 is not set/' "$FIX_SRC/kernels/k612.config" >"$TMP/nolz4.config"
run_hib 1 check --kernel "$TMP/k612.bzImage" --config "$TMP/nolz4.config" --memmap "$TMP/mm-64M" \
	"$FIX_IMG/k612-lz4.img"
out_has '^will not resume: PM: hibernation: lz4 compression is not available$'

# zero-flagged PFNs (6.6+) and a 6.1 kernel: -EFAULT, no message of its own
run_hib 1 check --kernel "$TMP/k61.bzImage" --memmap "$TMP/mm-64M" "$FIX_IMG/k612-lzo.img"
out_has '^will not resume: PM: hibernation: resume failed (-14)$'
out_has '^zero-pages *fail'
# a 6.1 image has none: the same kernel takes it
run_hib 0 check --kernel "$TMP/k61.bzImage" --memmap "$TMP/mm-64M" "$FIX_IMG/k61-lzo.img"

# a spent image: swsusp_check()'s pr_debug, which the fixtures' kernels
# (no CONFIG_DYNAMIC_DEBUG) do not print: with their config, nothing
run_hib 1 check --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" "$FIX_IMG/k612-lzo-spent.img"
out_has '^will not resume: PM: Image not found (code -22)$'
out_has '^image *fail *spent'
run_hib 1 check --kernel "$TMP/k612.bzImage" --config "$FIX_SRC/kernels/k612.config" \
	--memmap "$TMP/mm-64M" "$FIX_IMG/k612-lzo-spent.img"
out_has '^will not resume (the kernel says nothing): spent'

# damaged chunks, as check-resume.sh damages them (6.12 printed these lines)
cp "$FIX_IMG/k612-lzo.img" "$TMP/flip1.img"
cp "$FIX_IMG/k612-lzo.img" "$TMP/flip2.img"
map=$(peek_u64 "$TMP/flip1.img" 4064)
e1=$(peek_u64 "$TMP/flip1.img" $((map * 4096 + 8)))
e200=$(peek_u64 "$TMP/flip1.img" $((map * 4096 + 200 * 8)))
flip() { # flip FILE OFFSET: XOR 0xff
	b=$(od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' ')
	printf "\\$(printf %03o $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
flip "$TMP/flip1.img" $((e1 * 4096 + 2000))
flip "$TMP/flip2.img" $((e200 * 4096 + 2000))
run_hib 1 check --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" "$TMP/flip1.img"
out_has '^will not resume: PM: lzo decompression failed$'
run_hib 1 check --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" "$TMP/flip2.img"
out_has '^will not resume: PM: Invalid image CRC32!$'
out_has '^stream *fail *CRC32 mismatch'

# another machine: 96M's image on the 64M machine. x86 meets the e820
# checksum first; the memory size fails after it
run_hib 1 check --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" "$FIX_IMG/k612-lzo-full.img"
out_has '^will not resume: Hibernate inconsistent memory map detected!$'
out_has '^memory-size *fail *num_physpages 24443, the boot.s 16251.*PM: hibernation: Image mismatch: memory size'
# where /proc/iomem is all there is, the checksum cannot be told, the size can
cat >"$TMP/iomem" <<EOT
00000000-00000fff : Reserved
00001000-0009fbff : System RAM
0009fc00-0009ffff : Reserved
000f0000-000fffff : Reserved
00100000-03fdcfff : System RAM
03fdd000-03ffffff : Reserved
EOT
run_hib 1 check --kernel "$TMP/k612.bzImage" --iomem "$TMP/iomem" "$FIX_IMG/k612-lzo-full.img"
out_has '^will not resume: PM: hibernation: Image mismatch: memory size$'
out_has '^arch-record *unknown'

# SF_HW_SIG set (acpi_sleep=s4_hwsig at hibernation) and a FACS that differs
cp "$FIX_IMG/k612-lzo.img" "$TMP/hwsig.img"
poke_u32 "$TMP/hwsig.img" 4072 $((0x4 | 0x8))
poke_u32 "$TMP/hwsig.img" 4056 $((0x12345678))
python3 -c 'import struct,sys
open(sys.argv[1], "wb").write(b"FACS" + struct.pack("<II", 64, 0xcafe0001) + bytes(52))' "$TMP/FACS"
run_hib 1 check --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" --facs "$TMP/FACS" "$TMP/hwsig.img"
out_has '^will not resume: PM: Suspend image hardware signature mismatch (12345678 now cafe0001); aborting resume.$'
python3 -c 'import struct,sys
open(sys.argv[1], "wb").write(b"FACS" + struct.pack("<II", 64, 0x12345678) + bytes(52))' "$TMP/FACS"
run_hib 0 check --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" --facs "$TMP/FACS" "$TMP/hwsig.img"
run_hib 4 check --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" "$TMP/hwsig.img"
out_has "^cannot tell: the target's ACPI FACS"

# --- cannot tell --------------------------------------------------------------
run_hib 4 check "$FIX_IMG/k612-lzo.img"
out_has "^cannot tell: the target kernel's version (its kernel file or config); the target's memory map"
run_hib 4 check --kernel "$TMP/k612.bzImage" "$FIX_IMG/k612-lzo.img"
out_has "^cannot tell: the target's firmware memory map (a copy of /sys/firmware/memmap)"
out_has '^arch-record *unknown'
# bad inputs: named on stderr with what is wrong; their checks cannot tell
rm -rf "$TMP/bad-mm" && cp -r "$FIX_SRC/memmap/96M" "$TMP/bad-mm" && rm -r "$TMP/bad-mm/3"
run_hib 4 check --kernel "$TMP/k612.bzImage" --memmap "$TMP/bad-mm" "$FIX_IMG/k612-lzo-full.img"
err_has "hibimg check: --memmap: entry 3 of 7 missing: $TMP/bad-mm/3/start"
out_has "^cannot tell: the target's firmware memory map (a copy of /sys/firmware/memmap) (entry 3 of 7 missing"
echo 0x12zz >"$TMP/bad-mm/2/end"
run_hib 4 check --kernel "$TMP/k612.bzImage" --memmap "$TMP/bad-mm" "$FIX_IMG/k612-lzo-full.img"
err_has "bad-mm/2/end: '0x12zz' is not a 0x-hex address"
head -c 40 "$TMP/FACS" >"$TMP/short-FACS"
run_hib 0 check --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" --facs "$TMP/short-FACS" \
	"$FIX_IMG/k612-lzo.img"
err_has "short-FACS: 40 bytes, but its header says 64"
head -c 100000 "$TMP/k612.bzImage" >"$TMP/cut.bzImage"
run_hib 4 check --kernel "$TMP/cut.bzImage" --memmap "$TMP/mm-64M" "$FIX_IMG/k612-lzo.img"
err_has "cut.bzImage: truncated: its setup header puts the payload at bytes"
printf 'not a kernel' >"$TMP/junk"
run_hib 4 check --kernel "$TMP/junk" --memmap "$TMP/mm-64M" "$FIX_IMG/k612-lzo.img"
err_has "junk: not a kernel this reads"
out_has "^cannot tell: the target kernel's version (its kernel file or config) ($TMP/junk: not a kernel"

# --- output ---------------------------------------------------------------------
run_hib 1 check -J --kernel "$TMP/k61.bzImage" --memmap "$TMP/mm-64M" "$FIX_IMG/k612-lz4.img"
check "-J: verdict, message, checks" python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))["check"]
assert d["verdict"] == "no-resume", d
assert d["message"] == "PM: LZO decompression failed"
assert d["exit"] == 1
rows = {r["check"]: r for r in d["checks"]}
assert rows["compression"]["result"] == "fail"
assert rows["compression"]["kernel_message"] == "PM: LZO decompression failed"
assert rows["image"]["kernel_message"] is None
assert d["target"]["target_release"] == "6.1.192-hibimg"' "$TMP/out"
check "-J: valid as the schema's doc-check" python3 "$top_srcdir/tests/jsonview.py" validate \
	"$top_srcdir/doc/hibimg.schema.json" doc-check "$TMP/out"
run_hib 4 check -J "$FIX_IMG/k612-lzo.img"
check "-J: unknown, message null" python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))["check"]
assert d["verdict"] == "unknown" and d["message"] is None and d["exit"] == 4, d' "$TMP/out"
check "-J: valid as doc-check" python3 "$top_srcdir/tests/jsonview.py" validate \
	"$top_srcdir/doc/hibimg.schema.json" doc-check "$TMP/out"
run_hib 0 check -q --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" "$FIX_IMG/k612-lzo.img"
check "-q prints nothing" test ! -s "$TMP/out"
run_hib 0 check -r -n -o check,result,decides --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" \
	"$FIX_IMG/k612-lzo.img"
out_has '^after-load unknown false$'
run_hib 2 check
err_has 'no image given'
run_hib 2 check --memmap a --iomem b "$FIX_IMG/k612-lzo.img"
err_has 'exclude each other'
run_hib 0 check --help
out_has '^ -k, --kernel <file>'
out_has 'Exit status: 0 will resume, 1 will not'
# --- systemd's HibernateLocation ---------------------------------------------
# the uuid is read from the swap header by python (union swap_header: uuid
# at byte 1036), not by hibimg; the files are what efivarfs gives: u32
# attributes, then the JSON systemd-sleep writes, in UTF-16LE with its NUL
# (efi_set_variable_string()). The lines asserted are the ones systemd 257
# printed on these cases under OVMF (fixtures/check-doctor-systemd.sh).
uuid=$(python3 -c 'import uuid,sys; f=open(sys.argv[1],"rb"); f.seek(1036); print(uuid.UUID(bytes=f.read(16)))' \
	"$FIX_IMG/k612-lzo.img")
efivar() {
	python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<I",7)+sys.argv[2].encode("utf-16-le")+b"\0\0")' "$@"
}
efivar "$TMP/ev-same" '{"uuid":"'"$uuid"'","offset":0,"kernelVersion":"6.12.0","osReleaseId":"debian"}'
efivar "$TMP/ev-other" '{"uuid":"00112233-4455-6677-8899-aabbccddeeff","offset":"0"}'
efivar "$TMP/ev-text" 'not json'
# the same object as bytes, not UTF-16: systemd reads CJK text, not JSON
python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<I",7)+sys.argv[2].encode())' \
	"$TMP/ev-utf8" '{"uuid":"'"$uuid"'","offset":0,"osReleaseId":"debian"}'
# systemd keeps the variable only where the booted system's os-release has
# its osReleaseId: not known, the row cannot tell
run_hib 0 check -r -n -o check,result,missing --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" \
	--efivar "$TMP/ev-same" "$FIX_IMG/k612-lzo.img"
out_has '^hibernate-location unknown the.x20booted.x20system.s.x20os-release'
printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nID=debian\n' >"$TMP/os-debian"
printf '# a comment\nID="fedora" # and another\nIMAGE_ID=\n' >"$TMP/os-fedora"
printf 'ID="debian\n' >"$TMP/os-open"
run_hib 0 check -r -n -o check,result --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" \
	--efivar "$TMP/ev-same" --os-release "$TMP/os-debian" "$FIX_IMG/k612-lzo.img"
out_has '^hibernate-location pass$'
run_hib 0 check -r -n -o check,result,kernel-message --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" \
	--efivar "$TMP/ev-same" --os-release "$TMP/os-fedora" "$FIX_IMG/k612-lzo.img"
out_has "^hibernate-location warn HibernateLocation.x20system.x20identifier.x20doesn't.x20match.x20currently.x20running.x20system,.x20would.x20not.x20resume.x20from.x20it.$"
run_hib 0 check -J --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" \
	--efivar "$TMP/ev-same" --os-release "$TMP/os-fedora" "$FIX_IMG/k612-lzo.img"
out_has '"target_os_id": "fedora"'
out_has '"target_os_image_id": null'
run_hib 0 check -r -n -o check,result --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" \
	--efivar "$TMP/ev-same" --os-release "$TMP/os-open" "$FIX_IMG/k612-lzo.img"
err_has 'os-open: line 1: a quote left open'
out_has '^hibernate-location unknown$'
run_hib 0 check -r -n -o check,result,kernel-message --kernel "$TMP/k612.bzImage" \
	--memmap "$TMP/mm-64M" --efivar "$TMP/ev-other" "$FIX_IMG/k612-lzo.img"
out_has '^hibernate-location warn Reported.x20hibernation.x20image:.x20UUID=00112233-4455-6677-8899-aabbccddeeff.x20offset=0$'
run_hib 0 check -r -n -o check,result --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" \
	"$FIX_IMG/k612-lzo.img"
out_has '^hibernate-location unknown$'
# a variable systemd cannot parse stops it, resume= or not
for f in ev-text ev-utf8; do
	run_hib 1 check -r -n -o check,result,kernel-message --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" \
		--efivar "$TMP/$f" "$FIX_IMG/k612-lzo.img"
	err_has "$f: not a JSON object"
	out_has '^hibernate-location fail Failed.x20to.x20parse.x20HibernateLocation.x20JSON.x20object:.x20Invalid.x20argument$'
done
# ... or that lacks a required field
efivar "$TMP/ev-nooff" '{"uuid":"'"$uuid"'","osReleaseId":"debian"}'
run_hib 1 check -r -n -o check,result,kernel-message --kernel "$TMP/k612.bzImage" --memmap "$TMP/mm-64M" \
	--efivar "$TMP/ev-nooff" "$FIX_IMG/k612-lzo.img"
out_has "^hibernate-location fail (string):1:1:.x20Missing.x20object.x20field.x20'offset'.$"
# --- --sysroot: a machine's files copied out; its command line has no resume=
SR=$TMP/sysroot
EV=sys/firmware/efi/efivars/HibernateLocation-8cf2644b-4b0b-428f-9387-6d876050dc67
mkdir -p "$SR/proc" "$SR/etc" "$SR/sys/firmware/efi/efivars"
echo 'BOOT_IMAGE=/vmlinuz root=/dev/vda1 quiet' >"$SR/proc/cmdline"
cp "$TMP/os-debian" "$SR/etc/os-release"
efivar "$SR/$EV" '{"uuid":"00112233-4455-6677-8899-aabbccddeeff","offset":0,"osReleaseId":"debian"}'
# systemd points the kernel at the variable's device, not the image's
run_hib 1 check -r -n -o check,result,kernel-message --kernel "$TMP/k612.bzImage" \
	--memmap "$TMP/mm-64M" --sysroot "$SR" "$FIX_IMG/k612-lzo.img"
out_has '^hibernate-location fail Reported.x20hibernation.x20image:.x20ID=debian.x20UUID=00112233-4455-6677-8899-aabbccddeeff.x20offset=0$'
# ... which, where udev's links are there and it is not, it cannot stat
mkdir -p "$SR/dev/disk/by-uuid"
ln -s ../../vda "$SR/dev/disk/by-uuid/$uuid"
run_hib 1 check -r -n -o check,result,kernel-message --kernel "$TMP/k612.bzImage" \
	--memmap "$TMP/mm-64M" --sysroot "$SR" "$FIX_IMG/k612-lzo.img"
out_has "^hibernate-location fail Failed.x20to.x20stat.x20resume.x20device.x20'/dev/disk/by-uuid/00112233-4455-6677-8899-aabbccddeeff':.x20No.x20such.x20file.x20or.x20directory$"
# ... and with resume= on the command line only warns, as systemd names
# resume=UUID= (/dev/disk/by-uuid/), the variable's device not there
echo "root=/dev/vda1 resume=UUID=$uuid" >"$SR/proc/cmdline"
run_hib 0 check -r -n -o check,result,kernel-message --kernel "$TMP/k612.bzImage" \
	--memmap "$TMP/mm-64M" --sysroot "$SR" "$FIX_IMG/k612-lzo.img"
out_has "^hibernate-location warn Failed.x20to.x20check.x20if.x20resume=/dev/disk/by-uuid/$uuid.x20is.x20the.x20same.x20device.x20as.x20EFI.x20HibernateLocation.x20device.x20'/dev/disk/by-uuid/00112233-4455-6677-8899-aabbccddeeff',.x20ignoring:.x20No.x20such.x20file.x20or.x20directory$"
# ... another device that is there (systemd-cmdline-other-dev): "doesn't match"
ln -s ../../vdb "$SR/dev/disk/by-uuid/00112233-4455-6677-8899-aabbccddeeff"
run_hib 0 check -r -n -o check,result,kernel-message --kernel "$TMP/k612.bzImage" \
	--memmap "$TMP/mm-64M" --sysroot "$SR" "$FIX_IMG/k612-lzo.img"
out_has "^hibernate-location warn resume=/dev/disk/by-uuid/$uuid.x20doesn't.x20match.x20with.x20EFI.x20HibernateLocation.x20device.x20'/dev/disk/by-uuid/00112233-4455-6677-8899-aabbccddeeff',.x20proceeding.x20anyway.x20with.x20resume=.$"
# ... the image's device, another offset: the offset's warning
efivar "$SR/$EV" '{"uuid":"'"$uuid"'","offset":1234,"osReleaseId":"debian"}'
echo "root=/dev/vda1 resume=/dev/vda" >"$SR/proc/cmdline"
run_hib 0 check -r -n -o check,result,kernel-message --kernel "$TMP/k612.bzImage" \
	--memmap "$TMP/mm-64M" --sysroot "$SR" "$FIX_IMG/k612-lzo.img"
out_has "^hibernate-location warn resume_offset=0.x20doesn't.x20match.x20with.x20EFI.x20HibernateLocation.x20offset.x201234,.x20proceeding.x20anyway.x20with.x20resume_offset=.$"
rm -rf "$SR/dev"
# a variable of another system is dropped: no resume= leaves no device
echo 'root=/dev/vda1 quiet' >"$SR/proc/cmdline"
efivar "$SR/$EV" '{"uuid":"'"$uuid"'","offset":0}'
run_hib 1 check -r -n -o check,result,kernel-message --kernel "$TMP/k612.bzImage" \
	--memmap "$TMP/mm-64M" --sysroot "$SR" "$FIX_IMG/k612-lzo.img"
out_has "^hibernate-location fail HibernateLocation.x20system.x20identifier.x20doesn't.x20match"
# in an initrd too systemd reads /etc/os-release, not /etc/initrd-release ...
printf 'ID=\n' >"$SR/etc/initrd-release"
run_hib 1 check -r -n -o check,result --kernel "$TMP/k612.bzImage" \
	--memmap "$TMP/mm-64M" --sysroot "$SR" "$FIX_IMG/k612-lzo.img"
out_has '^hibernate-location fail$'
# ... and with neither os-release file it compares no ID
rm "$SR/etc/os-release"
run_hib 0 check -r -n -o check,result --kernel "$TMP/k612.bzImage" \
	--memmap "$TMP/mm-64M" --sysroot "$SR" "$FIX_IMG/k612-lzo.img"
out_has '^hibernate-location pass$'
# no variable in the root's efivarfs, no resume=: an initrd finds no device
rm "$SR/$EV"
run_hib 1 check -r -n -o check,result,kernel-message --kernel "$TMP/k612.bzImage" \
	--memmap "$TMP/mm-64M" --sysroot "$SR" "$FIX_IMG/k612-lzo.img"
out_has '^hibernate-location fail No.x20resume.x20device.x20found,.x20exiting.$'
echo "root=/dev/vda1 resume=/dev/vda" >"$SR/proc/cmdline"
run_hib 0 check -r -n -o check,result --kernel "$TMP/k612.bzImage" \
	--memmap "$TMP/mm-64M" --sysroot "$SR" "$FIX_IMG/k612-lzo.img"
out_has '^hibernate-location pass$'
# --- the codec a config makes a module (Debian 6.12: CONFIG_CRYPTO_LZ4=m): the
# running kernel finds lz4 only through request_module(); its line is the one
# Debian 6.12 printed in check-doctor's stock-lz4-nomod (resumed in -mod)
CR=$TMP/codec-root
M=$CR/lib/modules/6.12.117-hibimg
mkdir -p "$CR/proc/sys/kernel" "$CR/boot" "$CR/sbin" "$M"
echo 'console=ttyS0' >"$CR/proc/cmdline"
echo 6.12.117-hibimg >"$CR/proc/sys/kernel/osrelease"
sed 's/^CONFIG_CRYPTO_LZ4=y$/CONFIG_CRYPTO_LZ4=m/' "$FIX_SRC/kernels/k612.config" >"$CR/boot/config-6.12.117-hibimg"
check "the =m config is made" grep -qx 'CONFIG_CRYPTO_LZ4=m' "$CR/boot/config-6.12.117-hibimg"
printf 'name         : lzo\ndriver       : lzo-generic\n\n' >"$CR/proc/crypto"
# offline the boot's initramfs is not known: cannot tell
sed 's/^CONFIG_CRYPTO_LZ4=y$/CONFIG_CRYPTO_LZ4=m/' "$FIX_SRC/kernels/k612.config" >"$TMP/k612-lz4m.config"
run_hib 4 check -r -n -o check,result --kernel "$TMP/k612.bzImage" --config "$TMP/k612-lz4m.config" \
	--memmap "$TMP/mm-64M" "$FIX_IMG/k612-lz4.img"
out_has '^compression unknown$'
# no module: the kernel's line
run_hib 1 check -r -n -o check,result,kernel-message --memmap "$TMP/mm-64M" --sysroot "$CR" "$FIX_IMG/k612-lz4.img"
out_has '^compression fail PM:.x20hibernation:.x20lz4.x20compression.x20is.x20not.x20available$'
# module, alias and (no /proc/sys/kernel/modprobe: Kconfig's default path) modprobe
printf 'kernel/crypto/lz4.ko: kernel/lib/lz4/lz4_compress.ko\nkernel/lib/lz4/lz4_compress.ko:\n' >"$M/modules.dep"
printf 'alias crypto-lz4 lz4\nalias lz4 lz4\n' >"$M/modules.alias"
printf '#!/bin/sh\n' >"$CR/sbin/modprobe"; chmod 0755 "$CR/sbin/modprobe"
run_hib 0 check -r -n -o check,result,detail --memmap "$TMP/mm-64M" --sysroot "$CR" "$FIX_IMG/k612-lz4.img"
out_has '^compression pass lz4:.x20CONFIG_CRYPTO_LZ4=m:.x20lz4.ko.x20is.x20in.x20/lib/modules/6.12.117-hibimg.x20(modules.dep,.x20alias.x20crypto-lz4).x20and.x20/sbin/modprobe.x20loads.x20it$'
# ... and the modprobe gone
rm "$CR/sbin/modprobe"
run_hib 1 check -r -n -o check,result --memmap "$TMP/mm-64M" --sysroot "$CR" "$FIX_IMG/k612-lz4.img"
out_has '^compression fail$'
run_hib 2 check --sysroot "$SR"
err_has 'no image given'
run_hib 3 check --sysroot "$TMP/no-such-root" "$FIX_IMG/k612-lzo.img"
err_has '^hibimg check: --sysroot: .*no-such-root: not a directory'
finish
