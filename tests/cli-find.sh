#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hibimg find and hibimg info without a spec (issue 16). Every expected
# number comes from a sidecar (what the kernel was given and printed), an
# independent python scan of the bytes, or blkid; never from hibimg.
. "$(dirname "$0")/lib.sh"

SCHEMA=$top_srcdir/doc/hibimg.schema.json
JV="python3 $top_srcdir/tests/jsonview.py"
fs=$FIX_IMG/k612fs-swapfile.img
lzo=$FIX_IMG/k612-lzo.img
spent=$FIX_IMG/k612-lzo-spent.img
side() { sed -n "s/^$2=//p" "$FIX_SRC/$1.expect"; }

# the page of every S1SUSPEND that ends a 4 KiB page, by a plain scan
scan_pages() {
	python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
i = d.find(b"S1SUSPEND")
while i >= 0:
    if i % 4096 == 4086:
        print((i - 4086) // 4096)
    i = d.find(b"S1SUSPEND", i + 1)' "$1"
}
# field of the first find in -r output: "key=value" lines of a table row
field() { awk -v k="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[i] = $i }
	NR == 2 { for (i = 1; i <= NF; i++) if (col[i] == k) print $i }' "$TMP/out"; }

# --- a swap file's image on ext4 ----------------------------------------------
page=$(side k612fs-swapfile resume_offset)
scanned=$(scan_pages "$fs")
check "the sidecar and the byte scan agree on the resume page ($page, $scanned)" \
	test -n "$page" -a "$page" = "$scanned"
run_hib 0 find -r -o resume_offset,page_size,kind,release,state,fs_type,fs_uuid,offset "$fs"
check "find: resume_offset $page" test "$(field RESUME-OFFSET)" = "$page"
check "find: page size 4096" test "$(field PAGE-SIZE)" = 4096
check "find: byte offset = page x 4096" test "$(field OFFSET)" = $((page * 4096))
check "find: swsusp" test "$(field KIND)" = swsusp
check "find: the sidecar's kernel release" \
	test "$(field RELEASE)" = "$(side k612fs-swapfile kernel_release)"
check "find: readable" test "$(field STATE)" = readable
check "find: ext4, as blkid -p says" \
	test "$(field FS-TYPE)" = "$(blkid -p -s TYPE -o value "$fs")"
uuid=$(blkid -p -s UUID -o value "$fs")
check "find: the file system UUID blkid -p prints ($uuid)" \
	test -n "$uuid" -a "$(field FS-UUID)" = "$uuid"
check "find: one find" test "$(wc -l <"$TMP/out")" = 2
run_hib 0 find "$fs"
out_has "resume=UUID=$uuid resume_offset=$page"
run_hib 0 find -J "$fs"
check "find -J: valid as doc-find" $JV validate "$SCHEMA" doc-find "$TMP/out"

# --- a swap partition, its spent remains, nothing -------------------------------
run_hib 0 find -r -o resume_offset,kind,release,compression,fs_type,fs_uuid "$lzo"
check "find k612-lzo: page 0" test "$(field RESUME-OFFSET)" = 0
check "find k612-lzo: swsusp" test "$(field KIND)" = swsusp
check "find k612-lzo: the sidecar's release" \
	test "$(field RELEASE)" = "$(side k612-lzo kernel_release)"
check "find k612-lzo: the sidecar's compression" \
	test "$(field COMPRESSION)" = "$(side k612-lzo compression)"
check "find k612-lzo: blkid's type" test "$(field FS-TYPE)" = "$(blkid -p -s TYPE -o value "$lzo")"
check "find k612-lzo: blkid's UUID" test "$(field FS-UUID)" = "$(blkid -p -s UUID -o value "$lzo")"

run_hib 0 find -r -o resume_offset,kind,sig "$spent"
check "find spent: page 0" test "$(field RESUME-OFFSET)" = 0
check "find spent: spent" test "$(field KIND)" = spent
check "find spent: the sidecar's signature" test "$(field SIG)" = "$(side k612-lzo-spent header_sig)"
run_hib 0 find "$spent"
check "find spent: no resume= line (the kernel takes it for swap)" \
	sh -c "! grep -q 'resume=' '$TMP/out'"

truncate -s 16M "$TMP/blank.img"
run_hib 1 find "$TMP/blank.img"
out_has "No resume page found"
run_hib 1 find -J "$TMP/blank.img"
check "find -J on nothing: an empty list" \
	python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == {"find": []}' "$TMP/out"
# a plain swap area is an area, not an image: --swap lists it, still 1
mkswap -q "$TMP/blank.img" >/dev/null 2>&1
run_hib 1 find "$TMP/blank.img"
run_hib 1 find -r -o kind,state --swap "$TMP/blank.img"
check "find --swap: the plain swap area" test "$(field KIND) $(field STATE)" = "swap no-image"

# a compressed fixture: refused with the way to decompress it
run_hib 2 find "$FIX_SRC/k612-lzo.img.zst"
err_has "zstd -d"

# a signature whose image is damaged is still a find
cp --sparse=always "$lzo" "$TMP/dam.img"
poke_u64 "$TMP/dam.img" $((4096 - 32)) 987654321
run_hib 0 find -r -o kind,state "$TMP/dam.img"
check "find damaged: swsusp, damaged" test "$(field KIND) $(field STATE)" = "swsusp damaged"

# a disk made of resume pages: the list is bounded, the rest counted
python3 -c '
import sys
pg = bytearray(4096); pg[4086:4096] = b"S1SUSPEND\0"
open(sys.argv[1], "wb").write(bytes(pg) * 300)' "$TMP/many.img"
run_hib 0 find -r -n -o resume_offset "$TMP/many.img"
check "find: 256 finds described" test "$(wc -l <"$TMP/out")" = 256
err_has "44 more signatures"

# --- suspend-utils' images (tests/mkuswsusp.py, around k612-lzo's stream) -------
if /usr/bin/python3 -c 'import lzo, cryptography' 2>/dev/null &&
   /usr/bin/python3 "$top_srcdir/tests/mkuswsusp.py" "$lzo" "$TMP/u" >/dev/null 2>&1; then
	meta() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]])' \
		"$TMP/u/meta.json" "$1" "$2"; }
	for v in plain swapfile encrypted; do
		run_hib 0 find -r -o resume_offset,kind,state "$TMP/u/$v.img"
		st=readable
		[ "$v" = encrypted ] && st=encrypted
		check "find uswsusp $v: page $(meta $v resume_offset), $st" \
			test "$(field RESUME-OFFSET) $(field KIND) $(field STATE)" = "$(meta $v resume_offset) uswsusp $st"
	done
	run_hib 0 find -r -o release "$TMP/u/plain.img"
	check "find uswsusp: the kernel release in its stream" \
		test "$(field RELEASE)" = "$(side k612-lzo kernel_release)"
else
	echo "# no python3-lzo/cryptography: suspend-utils images not tried"
fi

# --- a partitioned disk: pages count from the partition ------------------------
if command -v sfdisk >/dev/null; then
	disk=$TMP/disk.img
	truncate -s 140M "$disk"
	printf 'label: gpt\nstart=2048, size=131072\nstart=135168, size=131072\n' |
		sfdisk -q "$disk" >/dev/null 2>&1
	dd if="$lzo" of="$disk" bs=1M seek=1 conv=notrunc,sparse status=none
	dd if="$fs" of="$disk" bs=1M seek=66 conv=notrunc,sparse status=none
	run_hib 0 find -r -o partition,resume_offset,offset,fs_uuid "$disk"
	got=$(awk 'NR > 1 {print $1, $2, $3, $4}' "$TMP/out" | paste -sd';' -)
	check "find on a GPT disk: partition 1 page 0, partition 2 page $page ($got)" \
		test "$got" = "1 0 $((2048 * 512)) $(blkid -p -s UUID -o value "$lzo");2 $page $((135168 * 512 + page * 4096)) $uuid"
else
	echo "# no sfdisk: the partitioned disk is not tried"
fi

# --- the hint for a file system image ------------------------------------------
run_hib 0 info -r -o kind,fs_type,fs_uuid,hint "$fs"
out_has "^fs_type=ext4$"
out_has "^fs_uuid=$uuid$"
out_has "^hint=.*hibimg find"
run_hib 2 verify "$fs"
err_has "ext4 file system"
err_has "hibimg find"
err_has "-R <resume_offset>"

# --- info without a spec, on made-up machines -----------------------------------
areas() { run_hib "$@"; }
mkdir -p "$TMP/none"
areas 0 info --sysroot "$TMP/none"
out_has "no /sys/power/resume: this kernel cannot hibernate"

r=$TMP/unset
mkdir -p "$r/sys/power" "$r/proc"
echo 0:0 >"$r/sys/power/resume"
echo "root=/dev/vda1 ro quiet" >"$r/proc/cmdline"
areas 0 info --sysroot "$r"
out_has "no resume device configured"
areas 0 info -J --sysroot "$r"
check "info -J without a spec: valid as doc-info_areas" \
	$JV validate "$SCHEMA" doc-info_areas "$TMP/out"

r=$TMP/swaponly
mkdir -p "$r/sys/power" "$r/proc" "$r/dev/block"
echo 254:3 >"$r/sys/power/resume"
echo "root=/dev/vda1 resume=/dev/vdb" >"$r/proc/cmdline"
truncate -s 8M "$r/swapfile"
mkswap -q "$r/swapfile" >/dev/null 2>&1
printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/swapfile                               file\t\t8188\t\t0\t\t-2\n' \
	>"$r/proc/swaps"
# the resume device has no node yet: said, and the swap file listed
areas 0 info --sysroot "$r"
out_has "the resume device 254:3 (/sys/power/resume) has no device node here; the swap areas hold no image"
truncate -s 8M "$TMP/plain.swap"
mkswap -q "$TMP/plain.swap" >/dev/null 2>&1
ln -s "$TMP/plain.swap" "$r/dev/block/254:3"
areas 0 info -r -o device,kind,state,source --sysroot "$r"
out_has "^$r/swapfile swap no-image swaps$"
out_has "^$r/dev/block/254:3 swap no-image resume$"
areas 0 info --sysroot "$r"
out_has "2 areas found, none holds a hibernation image"
# the resume device, named by maj:min, holding a real kernel's image
ln -sf "$lzo" "$r/dev/block/254:3"
areas 0 info -r -o device,kind,release,compression,state,source --sysroot "$r"
out_has "^$r/dev/block/254:3 swsusp $(side k612-lzo kernel_release) $(side k612-lzo compression) readable resume$"
check "info: no reason when an image is there" sh -c "! grep -q 'No hibernation image' '$TMP/out'"
areas 0 info -J --sysroot "$r"
check "info -J with areas: valid as doc-info_areas" \
	$JV validate "$SCHEMA" doc-info_areas "$TMP/out"
areas 3 info --sysroot "$TMP/nonexistent"
areas 2 info --sysroot "$r" "$lzo"

# --- root: a loop device holding a fixture --------------------------------------
# /proc/swaps does not list it (no swapon) and /sys/power/resume is not
# ours to set: libblkid's TYPE=swsuspend is what finds it.
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null &&
   loop=$(losetup -r -f --show "$lzo" 2>/dev/null); then
	areas 0 info -r -o device,kind,release,compression,state,source
	out_has "^$loop swsusp $(side k612-lzo kernel_release) $(side k612-lzo compression) readable .*blkid"
	losetup -d "$loop"
else
	echo "# not root or no loop device: info on a loop device not tried"
fi
finish
