#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The write guard (tests/guardio.c, issue 12) can fail: preloaded, it ends a
# process with status 88 the moment it would write to a file or block device
# it opened read-only (or one named in HIBIMG_GUARD_PATHS), before the call
# is made, and lets every other write through. run_hib preloads it into every
# hibimg the suite runs; this script shows it bites on programs that do write
# their input (dd, sh, tests/guardprobe).
. "$(dirname "$0")/lib.sh"

PROBE=${GUARDPROBE:-$top_builddir/tests/guardprobe}
if ! [ -f "$GUARDIO" ] || ! [ -x "$PROBE" ]; then
	fail "guard $GUARDIO or $PROBE not built"
	finish; exit
fi

# guarded WANT DESC cmd... : runs cmd with the guard preloaded (before any
# preload already set), stdout/stderr in $TMP/out and $TMP/err
guarded() {
	want=$1 desc=$2; shift 2
	LD_PRELOAD="$GUARDIO${LD_PRELOAD:+:$LD_PRELOAD}" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	timeout 60 "$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" = "$want" ]; then ok; else
		fail "$desc: $* -> exit $got, expected $want"
		sed 's/^/    /' "$TMP/err" >&2
	fi
}

# the one line a violation prints, naming the input
caught() {  # caught CALL INPUT (CALL: a basic regular expression)
	err_has "^hibimg-guard: $1 would write the input $2 (opened read-only earlier)"
	check "one guard line" test "$(grep -c '^hibimg-guard:' "$TMP/err")" = 1
}

OPEN='open\(64\)\?'   # dd and sh call open or open64
sum() { sha256sum <"$1"; }

name=$(fixtures0 | head -1)
A=$TMP/a.img B=$TMP/b.img C=$TMP/c
head -c 1048576 "$FIX_IMG/$name.img" >"$A"
echo other >"$C"
a_sum=$(sum "$A")

# --- dd and cp: read X, then open Y for writing, in one process -------------
guarded 88 "dd over its own input" dd if="$A" of="$A" conv=notrunc count=0 status=none
caught "$OPEN" "$A"
# O_TRUNC would empty it: the guard stops the call, not just reports it
guarded 88 "dd truncating its input" dd if="$A" of="$A" count=0 status=none
caught "$OPEN" "$A"
check "input not truncated" test "$(sum "$A")" = "$a_sum"
# the same without the guard succeeds: 88 is the guard's
if dd if="$A" of="$A" conv=notrunc count=0 status=none 2>"$TMP/err"; then ok; else
	fail "unguarded dd of=A conv=notrunc count=0"
fi
guarded 0 "cp to a new file" cp "$A" "$B"
check "cp copied" cmp -s "$A" "$B"
guarded 0 "dd to another existing file" dd if="$A" of="$B" conv=notrunc count=1 status=none

# --- one process: read A, then each kind of write to A ------------------------
for op in wr rdwr trunc append openat creat truncate "fopen w" "fopen a" "fopen r+" \
	"freopen w" "freopen a+"; do
	# shellcheck disable=SC2086
	guarded 88 "read, then $op" "$PROBE" rd "$A" $op "$A"
	err_has "would write the input $A "
	# shellcheck disable=SC2086
	guarded 88 "fopen r, then $op" "$PROBE" frd "$A" $op "$A"
	# shellcheck disable=SC2086
	guarded 0 "read, then $op another file" "$PROBE" rd "$A" $op "$B"
done
check "input unchanged by the probes" test "$(sum "$A")" = "$a_sum"
# write first, read after: the read makes it evidence only from then on
guarded 0 "write, then read" "$PROBE" wr "$A" rd "$A"
guarded 0 "create a new file" "$PROBE" rd "$A" create "$TMP/new"

# --- names: rename, link or unlink onto the input --------------------------------
guarded 88 "rename over the input" "$PROBE" rd "$A" rename "$C" "$A"
caught rename "$A"
check "input still there" test "$(sum "$A")" = "$a_sum"
check "renamed file still there" test -f "$C"
for op in renameat renameat2 link linkat symlink; do
	guarded 88 "$op onto the input" "$PROBE" rd "$A" $op "$C" "$A"
	err_has "^hibimg-guard: $op would write the input $A "
done
guarded 88 "exchange with the input" "$PROBE" rd "$A" exchange "$A" "$C"
guarded 88 "unlink the input" "$PROBE" rd "$A" unlink "$A"
caught unlink "$A"
guarded 88 "unlinkat the input" "$PROBE" rd "$A" unlinkat "$A"
check "input still there" test "$(sum "$A")" = "$a_sum"
guarded 0 "rename onto another file" "$PROBE" rd "$A" rename "$C" "$TMP/d" rename "$TMP/d" "$C"
# the same inode under another name: a hard link, a symlink
guarded 0 "hard link to the input" "$PROBE" rd "$A" link "$A" "$TMP/hard"
guarded 88 "unlink a hard link of the input" "$PROBE" rd "$A" unlink "$TMP/hard"
guarded 88 "write through a hard link" "$PROBE" rd "$TMP/hard" wr "$A"
caught "$OPEN" "$TMP/hard"
ln -s "$A" "$TMP/sym"
guarded 88 "read via symlink, write the file" "$PROBE" rd "$TMP/sym" wr "$A"
guarded 88 "read the file, write via symlink" "$PROBE" rd "$A" wr "$TMP/sym"

# --- HIBIMG_GUARD_PATHS: evidence from the start ----------------------------------
guarded 88 "sh truncating a guarded path" env HIBIMG_GUARD_PATHS="$C:$A" sh -c ': > "$1"' sh "$A"
caught "$OPEN" "$A"
guarded 0 "sh writing another file" env HIBIMG_GUARD_PATHS="$A" sh -c ': > "$1"' sh "$B"
check "input unchanged" test "$(sum "$A")" = "$a_sum"

# --- threads: evidence taken in one thread holds in another ------------------
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
guarded 88 "python thread" "$PY" -B -c 'import sys, threading
t = threading.Thread(target=lambda: open(sys.argv[1], "rb").read(1)); t.start(); t.join()
open(sys.argv[1], "r+b")' "$A"

# --- block devices: loop device and backing file, partition and whole disk ----------
if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null; then
	echo "cli-guard: block device cases skipped: need root and losetup"
	finish; exit
fi
loops=""
cleanup() {
	[ -n "${mnt:-}" ] && umount "$mnt" 2>/dev/null
	for l in $loops; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
L=$(losetup -f --show "$A") || L=""
if [ -z "$L" ]; then
	echo "cli-guard: block device cases skipped: no loop device"
	finish; exit
fi
loops=$L
guarded 0 "read the loop device" dd if="$L" of=/dev/null count=1 status=none
guarded 88 "read the loop device, write its backing file" \
	dd if="$L" of="$A" conv=notrunc count=0 status=none
caught "$OPEN" "$L"
guarded 88 "read the backing file, write the loop device" \
	dd if="$A" of="$L" conv=notrunc count=0 status=none
err_has "would write the input $A (opened read-only earlier) as $L"
guarded 88 "read the loop device, truncate its backing file" "$PROBE" rd "$L" truncate "$A"
guarded 88 "read the loop device, rename over its backing file" "$PROBE" rd "$L" rename "$C" "$A"
guarded 0 "read the loop device, write another file" \
	dd if="$L" of="$B" conv=notrunc count=1 status=none
guarded 88 "guarded loop device, sh writing its backing file" \
	env HIBIMG_GUARD_PATHS="$L" sh -c ': > "$1"' sh "$A"
check "backing file unchanged" test "$(sum "$A")" = "$a_sum"

# partitions: a loop device with a partition table (partition nodes appear
# with -P, or after partx -a)
P=$TMP/parts.img
truncate -s 8M "$P"
if printf 'label: dos\n,2M\n,2M\n' | sfdisk -q "$P" 2>/dev/null &&
   W=$(losetup -f --show -P "$P"); then
	loops="$loops $W"
	[ -b "${W}p2" ] || partx -a "$W" 2>/dev/null
	i=0; while ! [ -b "${W}p2" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
fi
if [ -n "${W:-}" ] && [ -b "${W}p1" ] && [ -b "${W}p2" ]; then
	guarded 88 "read a partition, write its whole disk" \
		dd if="${W}p1" of="$W" conv=notrunc count=0 status=none
	caught "$OPEN" "${W}p1"
	guarded 88 "read the whole disk, write a partition" \
		dd if="$W" of="${W}p1" conv=notrunc count=0 status=none
	guarded 88 "read a partition, write the disk's backing file" \
		dd if="${W}p2" of="$P" conv=notrunc count=0 status=none
	guarded 88 "read the backing file, write a partition" \
		dd if="$P" of="${W}p2" conv=notrunc count=0 status=none
	guarded 0 "read one partition, write another" \
		dd if="${W}p1" of="${W}p2" conv=notrunc count=1 status=none
else
	echo "cli-guard: partition cases skipped: no partition devices for ${W:-a loop device}"
fi

# a file on a mounted device: the device contains it
F=$TMP/fs.img
truncate -s 8M "$F"
mkdir "$TMP/mnt"
if command -v mkfs.ext4 >/dev/null && mkfs.ext4 -q "$F" 2>/dev/null &&
   M=$(losetup -f --show "$F") && loops="$loops $M" &&
   mount "$M" "$TMP/mnt" 2>/dev/null; then
	mnt=$TMP/mnt
	echo data >"$mnt/f"
	guarded 88 "read a file, write the device it is on" \
		dd if="$mnt/f" of="$M" conv=notrunc count=0 status=none
	caught "$OPEN" "$mnt/f"
	guarded 88 "read a device, write a file on it" \
		dd if="$M" of="$mnt/f" conv=notrunc count=0 status=none
	guarded 88 "read a device, create a file on it" \
		dd if="$M" of="$mnt/g" count=0 status=none
	check "no file created" test ! -e "$mnt/g"
	guarded 0 "read a device, write a file elsewhere" \
		dd if="$M" of="$B" conv=notrunc count=1 status=none
	umount "$mnt" && mnt=""
else
	echo "cli-guard: mounted-device cases skipped: cannot mount an ext4 loop device"
fi
finish
