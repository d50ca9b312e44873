#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Swap files in place (issue 16): the k612fs-swapfile fixture's ext4,
# loop-mounted read-only, holds /swapfile, in which a real 6.12 kernel wrote
# its image. Every number asserted comes from the kernel's sidecar, filefrag,
# blkid, dd or a python walk of the device, never from hibimg. A scratch
# ext4 made here holds the odd files (a hole, unwritten extents, no swap
# signature, a copy of the image). Needs root and loop devices (CI has
# both); elsewhere it reports a skip (exit 77), as cli-device.sh does.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null || ! command -v filefrag >/dev/null; then
	echo "cli-swapfile: needs root, losetup and filefrag"; exit 77
fi
DISK=$FIX_IMG/k612fs-swapfile.img
SIDE=$FIX_SRC/k612fs-swapfile.expect
[ -f "$DISK" ] || { echo "cli-swapfile: $DISK missing (make fixtures)"; exit 1; }

M=$TMP/mnt S=$TMP/scratch
mkdir -p "$M" "$S"
cleanup() {
	mountpoint -q "$S" && umount "$S"
	mountpoint -q "$M" && umount "$M"
	# mount -o loop detaches on umount; a loop left behind is ours to drop
	for l in $(losetup -j "$DISK" -O NAME -n) $(losetup -j "$TMP/scratch.img" -O NAME -n) \
		 $(losetup -j "$TMP/foreign.img" -O NAME -n); do
		losetup -d "$l"
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

side() { sed -n "s/^$1=//p" "$SIDE"; }
key() {  # key FILE KEY: a top-level key of the first image of an info -J
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = d["images"][0] if "images" in d else d
v = r.get(sys.argv[2])
print("" if v is None else v)' "$1" "$2"
}
first_block() {  # first_block FILE: physical block of logical block 0 (filefrag -v)
	filefrag -v "$1" | awk -F: '$1 ~ /^ *0$/ { split($3, r, /\.\./); print r[1] + 0; exit }'
}

# The kernel wrote the image with the file system still mounted: its journal
# needs recovery, which a read-only mount refuses ("write access
# unavailable"), so noload.
if ! mount -o ro,loop,noload "$DISK" "$M"; then
	fail "mount -o ro,loop,noload $DISK"; finish
fi
LOOP=$(findmnt -n -o SOURCE "$M")
SWF=$M/$(side swapfile | sed 's|^/||')
BS=$(stat -f -c %S "$M")

# --- info in place: resume_offset, UUID, extents ------------------------------
run_hib 0 info -J "$SWF"
cp "$TMP/out" "$TMP/info.json"
fb=$(first_block "$SWF")
check "filefrag gives the first block ($fb)" test -n "$fb"
ro=$(key "$TMP/info.json" resume_offset)
check "resume_offset $ro is the sidecar's $(side resume_offset)" test "$ro" = "$(side resume_offset)"
check "resume_offset $ro is filefrag's first block $fb x $BS / 4096" test "$ro" = $((fb * BS / 4096))
uuid=$(blkid -p -s UUID -o value "$LOOP")
check "fs_uuid is blkid's ($uuid)" test "$(key "$TMP/info.json" fs_uuid)" = "$uuid"
check "resume_cmdline" test "$(key "$TMP/info.json" resume_cmdline)" = "resume=UUID=$uuid resume_offset=$(side resume_offset)"
check "swapfile_device is the loop device $LOOP" test "$(key "$TMP/info.json" swapfile_device)" = "$LOOP"
check "swapfile_extents is the sidecar's $(side swapfile_extents) (the kernel: extents:15)" \
	test "$(key "$TMP/info.json" swapfile_extents)" = "$(side swapfile_extents)"
check "swapfile_pages is the file's size / 4096" \
	test "$(key "$TMP/info.json" swapfile_pages)" = $(($(stat -c %s "$SWF") / 4096))
check "kind swsusp" test "$(key "$TMP/info.json" kind)" = swsusp
check "first map page is the sidecar's" test "$(key "$TMP/info.json" image)" = "$(side header_image)"
check "info -J follows the schema" python3 "$top_srcdir/tests/jsonview.py" validate \
	"$top_srcdir/doc/hibimg.schema.json" doc-info "$TMP/info.json"
run_hib 0 info "$SWF"
check "the table says the resume= line" grep -qF "resume=UUID=$uuid resume_offset=$(side resume_offset)" "$TMP/out"

# The swap file's slots, from the device: the map chain walked there (device
# pages), mapped back to file pages through filefrag's extents, and every
# other non-zero page of the file up to last_page counted.
filefrag -v "$SWF" >"$TMP/frag"
python3 - "$LOOP" "$SWF" "$TMP/frag" "$BS" "$(side resume_offset)" >"$TMP/slots" <<'EOF'
import re, struct, sys
dev, path, frag, bs, ro = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
PG = 4096
back = {}
for line in open(frag):
    m = re.match(r'\s*\d+:\s+(\d+)\.\.\s*(\d+):\s+(\d+)\.\.\s*(\d+):', line)
    if m:
        l0, l1, p0 = int(m.group(1)), int(m.group(2)), int(m.group(3))
        for k in range((l1 - l0 + 1) * bs // PG):
            back[p0 * bs // PG + k] = l0 * bs // PG + k
d = open(dev, 'rb')
def page(n):
    d.seek(n * PG)
    return d.read(PG)
hdr = page(ro)
m = struct.unpack_from('<Q', hdr, 4064)[0]
last = struct.unpack_from('<I', hdr, 1028)[0]
own = {0}
while m:
    own.add(back[m])
    p = page(m)
    for i in range(511):
        e = struct.unpack_from('<Q', p, i * 8)[0]
        if e:
            own.add(back[e])
    m = struct.unpack_from('<Q', p, 511 * 8)[0]
f = open(path, 'rb')
foreign, first = 0, None
for s in range(last + 1):
    b = f.read(PG)
    if s not in own and b.strip(b'\0'):
        foreign += 1
        first = s if first is None else first
print(len(own), foreign, first, last + 1)
EOF
read -r own foreign ffirst area <"$TMP/slots"
check "image_slots $(key "$TMP/info.json" image_slots) = $own (walk of the device)" \
	test "$(key "$TMP/info.json" image_slots)" = "$own"
check "foreign_slots $(key "$TMP/info.json" foreign_slots) = $foreign (swapped out before hibernating)" \
	test "$(key "$TMP/info.json" foreign_slots)" = "$foreign"
check "first_foreign_slot = $ffirst" test "$(key "$TMP/info.json" first_foreign_slot)" = "$ffirst"
check "area_slots = the swap header's last_page + 1 ($area)" test "$(key "$TMP/info.json" area_slots)" = "$area"

# --- verify in place: intact, the kernel's own counts ----------------------------
run_hib 0 verify -J "$SWF"
check "verify in place: intact" grep -q '"status": "intact"' "$TMP/out"
check "verify in place: Wrote $(side wrote_kbytes) kbytes as the kernel said" \
	grep -q "\"wrote_kbytes\": $(side wrote_kbytes)[,}]" "$TMP/out"
run_hib 0 verify "$SWF"
check "verify in place says intact" grep -q intact "$TMP/out"

# --- cat --slot: swap offsets are file pages --------------------------------------
for n in 1 $(side header_image) 5000 $(($(key "$TMP/info.json" swapfile_pages) - 1)); do
	run_hib 0 cat --slot "$n" -O "$TMP/slot.$n" "$SWF"
	dd if="$SWF" of="$TMP/dd.$n" bs=4096 skip="$n" count=1 status=none
	check "cat --slot $n = dd of the file's page $n" cmp -s "$TMP/slot.$n" "$TMP/dd.$n"
done
run_hib 2 cat --slot "$(key "$TMP/info.json" swapfile_pages)" "$SWF"
check "a slot past the file is refused by name" grep -q "beyond the end of the swap file" "$TMP/err"

# -R on the swap file itself counts file pages: the hint says to drop it
run_hib 2 verify -R "$(side resume_offset)" "$SWF"
check "-R on the swap file: run without -R" grep -q "page 0 of this file is a swap area: run without -R" "$TMP/err"

# --- in place reads what the device read with -R reads ------------------------------
run_hib 0 export --format lime "$SWF" "$TMP/inplace.lime"
run_hib 0 export --format lime -R "$(side resume_offset)" "$LOOP" "$TMP/device.lime"
check "export in place = export of the device with -R $(side resume_offset)" \
	cmp -s "$TMP/inplace.lime" "$TMP/device.lime"
rm -f "$TMP/inplace.lime" "$TMP/device.lime"

# --- the device is the evidence too ------------------------------------------------
run_hib 2 cat --slot 1 --device -O "$LOOP" "$SWF"
check "no output onto the device under the swap file" grep -q "refusing to write over the evidence" "$TMP/err"
run_hib 2 recompress --to lz4 "$SWF" "$TMP/re.img"
check "recompress refuses a swap file in place" grep -q "not rewritten" "$TMP/err"
check "recompress left nothing" test ! -e "$TMP/re.img"

# --- a copy of the swap file's bytes ---------------------------------------------
cp "$SWF" "$TMP/copy"
run_hib 2 verify "$TMP/copy"
check "the copy: looks like a copy of a swap file" grep -q "looks like a copy of a swap file" "$TMP/err"
check "the copy: says what to run instead" grep -q "with -R" "$TMP/err"
check "the copy: never damaged" sh -c '! grep -qi damaged "$1"' - "$TMP/err"
run_hib 2 verify -J "$TMP/copy"
check "the copy: status unsupported" grep -q '"status": "unsupported"' "$TMP/out"
umount "$M"

# --- a map entry outside the file's extents: foreign blocks, caught -----------------
# Entry 5 of the first map page (device page header_image, byte 40 of it)
# set to device page 100: on the disk, not in /swapfile (its first extent
# starts at 2321, filefrag above), as a wrong resume_offset would make it.
cp --sparse=always "$DISK" "$TMP/foreign.img"
poke_u64 "$TMP/foreign.img" $(($(side header_image) * 4096 + 40)) 100
if mount -o ro,loop,noload "$TMP/foreign.img" "$M"; then
	run_hib 1 verify "$M/$(side swapfile | sed 's|^/||')"
	check "map entry 5 on device page 100 is outside the swap file's extents" \
		grep -q "map entry 5.*device page 100 is not a page of the swap file (outside its extents)" "$TMP/err"
	umount "$M"
else
	fail "mount -o ro,loop,noload $TMP/foreign.img"
fi
rm -f "$TMP/foreign.img"

# --- a scratch ext4: a hole, unwritten extents, no signature, the copy ---------------
truncate -s 64M "$TMP/scratch.img"
mkfs.ext4 -q -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$TMP/scratch.img"
if ! mount -o loop "$TMP/scratch.img" "$S"; then
	fail "mount $TMP/scratch.img"; finish
fi
SLOOP=$(findmnt -n -o SOURCE "$S")

# a hole: mkswap writes page 0 only
truncate -s 8M "$S/sparse"
mkswap -q "$S/sparse" >/dev/null
run_hib 0 info -J "$S/sparse"
check "sparse swap file: not read in place, a hole named" \
	sh -c 'grep -q "\"not_in_place\": \".*is a hole" "$1"' - "$TMP/out"
check "sparse swap file: no resume= line" sh -c '! grep -q resume_cmdline "$1"' - "$TMP/out"

# unwritten extents: fallocate, then mkswap (the kernel's swapon takes such
# a file, fs/iomap/swapfile.c: mapped or unwritten extents)
fallocate -l 8M "$S/falloc"
mkswap -q "$S/falloc" >/dev/null
sync
run_hib 0 info -J "$S/falloc"
cp "$TMP/out" "$TMP/falloc.json"
check "fallocated swap file: read in place" test "$(key "$TMP/falloc.json" swapfile_device)" = "$SLOOP"
check "fallocated swap file: resume_offset = filefrag's first block" \
	test "$(key "$TMP/falloc.json" resume_offset)" = "$(first_block "$S/falloc")"
uw=$(filefrag -v "$S/falloc" | awk -F: '/unwritten/ { split($3, r, /\.\./); n += r[2] - r[1] + 1 } END { print n + 0 }')
check "fallocated swap file: unwritten pages $uw as filefrag says" \
	test "$(key "$TMP/falloc.json" swapfile_unwritten_pages)" = "$uw"
check "fallocated swap file: filefrag sees unwritten extents" test "$uw" -gt 0
check "fallocated swap file: resume= names the scratch UUID" \
	test "$(key "$TMP/falloc.json" resume_cmdline)" = "resume=UUID=$(blkid -p -s UUID -o value "$SLOOP") resume_offset=$(first_block "$S/falloc")"

# an output on the file system that holds the swap file is refused
run_hib 2 cat --slot 0 -O "$S/slot0" "$S/falloc"
check "no output on the swap file's own file system" \
	grep -q "is on a file system on $SLOOP, which holds the input" "$TMP/err"
check "nothing written there" test ! -e "$S/slot0"
run_hib 0 cat --slot 0 -O "$TMP/slot0" "$S/falloc"
check "cat --slot 0 of a plain swap file in place: its swap header" \
	cmp -s -n 4096 "$TMP/slot0" "$S/falloc"

# not a swap file
dd if=/dev/urandom of="$S/noise" bs=4096 count=4 status=none
run_hib 2 verify "$S/noise"
check "a file that is no swap file: not a hibernation image" grep -q "not a hibernation image" "$TMP/err"

# the copy of the image, fully allocated on a file system hibimg can map: its
# map names pages of the other device, none of its own
cp --sparse=never "$TMP/copy" "$S/copy"
sync
run_hib 2 verify "$S/copy"
check "the copy on ext4: looks like a copy" grep -q "looks like a copy of a swap file" "$TMP/err"
check "the copy on ext4: its map is not in its extents" grep -q "not one of the file's own pages" "$TMP/err"
umount "$S"

# xfs: a fallocated swap file in place too; btrfs: refused, naming the tool
# that gives its offset (FIEMAP answers in btrfs's logical space there)
fs_case() {  # fs_case TYPE SIZE MKFS...: a fresh TYPE in $TMP/TYPE.img on $S
	t=$1 sz=$2; shift 2
	truncate -s "$sz" "$TMP/$t.img"
	"$@" "$TMP/$t.img" >/dev/null && mount -o loop "$TMP/$t.img" "$S"
}
if command -v mkfs.xfs >/dev/null && grep -qw xfs /proc/filesystems &&
   fs_case xfs 320M mkfs.xfs -q; then
	fallocate -l 16M "$S/swapfile"
	mkswap -q "$S/swapfile" >/dev/null
	sync
	run_hib 0 info -J "$S/swapfile"
	cp "$TMP/out" "$TMP/xfs.json"
	check "xfs: read in place, type xfs" test "$(key "$TMP/xfs.json" fs_type)" = xfs
	check "xfs: resume_offset = filefrag's first block" \
		test "$(key "$TMP/xfs.json" resume_offset)" = "$(first_block "$S/swapfile")"
	check "xfs: resume= names its UUID" test "$(key "$TMP/xfs.json" fs_uuid)" = \
		"$(blkid -p -s UUID -o value "$(findmnt -n -o SOURCE "$S")")"
	umount "$S"
else
	echo "# xfs: no mkfs.xfs or no xfs in this kernel: not tried"
fi
if command -v mkfs.btrfs >/dev/null && grep -qw btrfs /proc/filesystems &&
   fs_case btrfs 256M mkfs.btrfs -q; then
	btrfs filesystem mkswapfile -s 16m "$S/swapfile" >/dev/null
	bro=$(btrfs inspect-internal map-swapfile -r "$S/swapfile")
	run_hib 0 info -J "$S/swapfile"
	check "btrfs: not read in place, the tool named" \
		grep -q '"not_in_place": "on btrfs.*btrfs inspect-internal map-swapfile -r' "$TMP/out"
	run_hib 0 info -J -R "$bro" "$(findmnt -n -o SOURCE "$S")"
	check "btrfs: the device with -R map-swapfile's $bro finds the swap header" \
		test "$(key "$TMP/out" kind)" = swap
	# an image there: how to read it, not "a copy"
	cp "$TMP/copy" "$S/image"
	run_hib 2 verify "$S/image"
	check "btrfs: an image is refused naming map-swapfile -r" \
		grep -q "not read in place.*btrfs inspect-internal map-swapfile -r" "$TMP/err"
	umount "$S"
else
	echo "# btrfs: no mkfs.btrfs or no btrfs in this kernel: not tried"
fi

finish
