#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 12, the output rules of hibimg(1) "Outputs", one row per command x
# hazard: every command that writes a file refuses the input (itself, a
# link, its loop device, its backing file, its whole disk, a file system on
# it), a block device without --device, an existing file without -f, a
# directory; it writes mode 0600, replaces only when complete, leaves no
# temporary after an error, ENOSPC or SIGINT/SIGTERM/SIGKILL; "-" is
# standard output only where the format is written in order. The input's
# sha256 is compared after every group. Root-only rows (loop devices,
# tmpfs mounts) report a skip line when not root; CI runs as root.
. "$(dirname "$0")/lib.sh"

FAULTIO=${FAULTIO:-$top_builddir/tests/libfaultio.so}
MKIMAGE=${MKIMAGE:-$top_builddir/tests/mkimage}
name=$(fixtures0 | head -1)
cp --sparse=always "$FIX_IMG/$name.img" "$TMP/in.img"
IN=$TMP/in.img
SUM=$(sha256sum <"$IN")
PFN=$("$HIBIMG" dump -r -n "$IN" pfns | awk 'NR == 1 {print $2; exit}')
PFN=$((PFN))
ROOT=0
[ "$(id -u)" = 0 ] && command -v losetup >/dev/null && ROOT=1
MNT=""
LOOPS=""
cleanup() {
	for m in $MNT; do umount "$m" 2>/dev/null; done
	for l in $LOOPS; do partx -d "$l" 2>/dev/null; losetup -d "$l" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP
rows=0

# The commands with an output. args CMD SPEC OUT: hibimg's arguments.
CMDS="svg page cat raw lime elf kdump recompress"
args() {
	case $1 in
	svg)        echo "stats --no-compress --svg $3 $2" ;;
	page)       echo "dump $2 page $PFN -O $3" ;;
	cat)        echo "cat $2 --pfn $PFN -O $3" ;;
	raw|lime|elf|kdump) echo "export -F $1 $2 $3" ;;
	recompress) echo "recompress --to lz4 $2 $3" ;;
	esac
}
has_device() { case $1 in page|cat|recompress) return 0 ;; esac; return 1; }
streams() { case $1 in page|cat|raw|lime) return 0 ;; esac; return 1; }

# row CMD HAZARD STATUS PHRASE [extra options] -- OUT [SPEC]
row() {
	c=$1 hz=$2 st=$3 phrase=$4; shift 4
	extra=""
	while [ "$1" != -- ]; do extra="$extra $1"; shift; done
	shift
	out=$1 spec=${2:-$IN}
	rows=$((rows + 1))
	# shellcheck disable=SC2046,SC2086
	run_hib "$st" $(args "$c" "$spec" "$out") $extra
	[ -n "$phrase" ] && err_has "$phrase"
	if [ "$st" != 0 ]; then
		# a refusal names the output
		case $out in -) ;; *) err_has "$out" ;; esac
	fi
}
no_temps() {  # no_temps DIR DESC
	left=$(find "$1" -maxdepth 1 -name '*.hibimg-*' | head -3)
	check "$2: no temporary left in $1 ($left)" test -z "$left"
}
input_intact() {
	check "input unchanged after $1" test "$(sha256sum <"$IN")" = "$SUM"
}
mode600() {
	check "$1 has mode 0600 ($(stat -c %a "$1"))" test "$(stat -c %a "$1")" = 600
}

# --- the input itself, through a symlink, through a hard link ------------------
ln -s "$IN" "$TMP/sym.img"
ln "$IN" "$TMP/hard.img"
for c in $CMDS; do
	row "$c" self 2 "input itself" -- "$IN"
	row "$c" symlink 2 "input itself" -- "$TMP/sym.img"
	row "$c" hardlink 2 "input itself" -- "$TMP/hard.img"
done
input_intact "self, symlink, hard link"
rm -f "$TMP/sym.img" "$TMP/hard.img"

# --- files: new, existing without and with -f, directory, dangling link ---------
mkdir "$TMP/o" "$TMP/o/dir"
ln -s "$TMP/o/nowhere" "$TMP/o/dangling"
for c in $CMDS; do
	row "$c" new 0 "" -- "$TMP/o/$c.new"
	check "$c: output written" test -s "$TMP/o/$c.new"
	mode600 "$TMP/o/$c.new"
	echo "old contents" >"$TMP/o/$c.old"
	chmod 644 "$TMP/o/$c.old"
	row "$c" exists 2 "refusing to replace it without --force" -- "$TMP/o/$c.old"
	check "$c: existing file kept" test "$(cat "$TMP/o/$c.old")" = "old contents"
	row "$c" force 0 "" -f -- "$TMP/o/$c.old"
	check "$c -f: replaced by the same bytes as a new output" cmp -s "$TMP/o/$c.old" "$TMP/o/$c.new"
	mode600 "$TMP/o/$c.old"
	row "$c" directory 2 "is a directory" -- "$TMP/o/dir"
	row "$c" dangling 2 "dangling symbolic link" -- "$TMP/o/dangling"
	check "$c: nothing created through the dangling link" test ! -e "$TMP/o/nowhere"
	row "$c" nodir 2 "not a directory" -- "$TMP/o/missing/x"
done
no_temps "$TMP/o" "files"
input_intact "file rows"

# --- "-": standard output where the format is written in order -------------------
mkdir "$TMP/s"
cd "$TMP/s" || exit 1
for c in $CMDS; do
	if streams "$c"; then
		row "$c" stdout 0 "" -- -
		check "$c -: the same bytes as the file" cmp -s "$TMP/out" "$TMP/o/$c.new"
	else
		row "$c" stdout 2 "standard output" -- -
	fi
	check "$c -: no file named '-'" test ! -e "$TMP/s/-"
done
# ./- is a file named "-"
row cat dotdash 0 "" -- ./-
check "./- is a file" cmp -s "$TMP/s/-" "$TMP/o/cat.new"
cd "$TMP" || exit 1
# standard output redirected onto the input
rows=$((rows + 1))
LD_PRELOAD="$GUARDIO" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	"$HIBIMG" cat "$IN" --pfn "$PFN" >>"$IN" 2>"$TMP/err"
check "cat >> input: refused (exit 2)" test $? = 2
err_has "standard output is the input itself"
input_intact "stdout rows"

# --- ENOSPC and a read-only directory (tmpfs mounts, root) ----------------------
if [ "$ROOT" = 1 ] && mkdir "$TMP/full" "$TMP/ro" &&
   mount -t tmpfs -o size=64k tmpfs "$TMP/full" && mount -t tmpfs -o ro tmpfs "$TMP/ro"; then
	MNT="$TMP/full $TMP/ro"
	# fill it: every later data block is ENOSPC
	dd if=/dev/zero of="$TMP/full/filler" bs=4k status=none 2>/dev/null
	for c in $CMDS; do
		row "$c" enospc 3 "No space left on device" -- "$TMP/full/$c.out"
		check "$c: nothing under the name after ENOSPC" test ! -e "$TMP/full/$c.out"
		row "$c" rodir 2 "Read-only file system" -- "$TMP/ro/$c.out"
	done
	# the named-temporary path (no O_TMPFILE) cleans up after ENOSPC too
	export HIBIMG_FAULT_NO_TMPFILE=1 LD_PRELOAD="$FAULTIO"
	for c in $CMDS; do
		row "$c" enospc-named 3 "No space left on device" -- "$TMP/full/$c.out"
	done
	unset HIBIMG_FAULT_NO_TMPFILE LD_PRELOAD
	no_temps "$TMP/full" "ENOSPC"
	input_intact "ENOSPC rows"
else
	echo "# skip: ENOSPC and read-only directory rows need root and tmpfs mounts"
fi

# --- block devices (loop devices, root) ------------------------------------------
if [ "$ROOT" = 1 ] && A=$(losetup -r -f --show "$IN" 2>/dev/null); then
	LOOPS="$A"
	truncate -s 80M "$TMP/blank"
	B=$(losetup -f --show "$TMP/blank") && LOOPS="$LOOPS $B"
	for c in $CMDS; do
		# the input's own loop device, with and without --device
		row "$c" loopdev 2 "holds the input" -- "$A"
		has_device "$c" && row "$c" loopdev-device 2 "holds the input" --device -- "$A"
		# the loop device as the input, its backing file as the output
		row "$c" backing 2 "file behind the input" -f -- "$IN" "$A"
		# another device: only with --device
		if has_device "$c"; then
			row "$c" otherdev 2 "needs --device" -- "$B"
		else
			row "$c" otherdev 2 "is a block device, not a file" -- "$B"
		fi
	done
	# --device where it is offered: written in place, checked against stdout
	row cat device 0 "" --device -- "$B"
	check "cat --device: the device starts with the page" \
		sh -c "head -c 4096 '$B' | cmp -s - '$TMP/o/cat.new'"
	# a device in use: an active swap, a mounted file system
	if mkswap -q "$B" && swapon "$B" 2>/dev/null; then
		row cat swapdev 2 "active swap area" --device -- "$B"
		swapoff "$B"
	else
		echo "# skip: swapon of a loop device not possible here"
	fi
	if mkfs.ext4 -q -F "$B" 2>/dev/null && mkdir -p "$TMP/m" && mount "$B" "$TMP/m"; then
		MNT="$MNT $TMP/m"
		row cat mounted 2 "is mounted" --device -- "$B"
		umount "$TMP/m"
	fi
	# a file system on a device backed by the input (a loop at an offset
	# past the swap area): writing a file there writes the input
	cp --sparse=always "$IN" "$TMP/in2.img"
	sz=$(stat -c %s "$TMP/in2.img")
	truncate -s $((sz + 32 * 1048576)) "$TMP/in2.img"
	if C=$(losetup -o "$sz" -f --show "$TMP/in2.img"); then
		LOOPS="$LOOPS $C"
		if mkfs.ext4 -q -F "$C" 2>/dev/null && mkdir -p "$TMP/m2" && mount "$C" "$TMP/m2"; then
			MNT="$MNT $TMP/m2"
			for c in $CMDS; do
				row "$c" fs-on-input 2 "on a file system on" -- "$TMP/m2/$c.out" "$TMP/in2.img"
			done
			umount "$TMP/m2"
		fi
	fi
	# a partition of a disk: its whole disk is the same evidence
	truncate -s $((sz + 2 * 1048576)) "$TMP/disk.img"
	printf 'label: dos\nstart=2048,type=82\n' | sfdisk -q "$TMP/disk.img" 2>/dev/null &&
	dd if="$IN" of="$TMP/disk.img" bs=1M seek=1 conv=notrunc,sparse status=none &&
	D=$(losetup -P -f --show "$TMP/disk.img") && LOOPS="$LOOPS $D"
	if [ -n "${D:-}" ]; then
		[ -b "${D}p1" ] || partx -a "$D" 2>/dev/null
		if [ -b "${D}p1" ]; then
			dsum=$(sha256sum <"$D")
			for c in $CMDS; do
				row "$c" wholedisk 2 "holds the input" -- "$D" "${D}p1"
				has_device "$c" &&
					row "$c" wholedisk-device 2 "holds the input" --device -- "$D" "${D}p1"
			done
			check "whole disk unchanged" test "$(sha256sum <"$D")" = "$dsum"
		else
			echo "# skip: no partition device for $D"
		fi
	fi
	input_intact "device rows"
else
	echo "# skip: block device rows need root and loop devices"
fi

# --- signals during a long run -----------------------------------------------------
# An image of ~300 MiB of memory (mkimage: real fixture pages, not a format
# reference); each long command is killed at two points of its run, with an
# old file under the name (it must survive) and without.
src=$(for n in $(fixtures0); do printf '%s ' "$FIX_IMG/$n.img"; done)
# shellcheck disable=SC2086
"$MKIMAGE" --pages 120000 --zero-share 0.2 --to lzo "$TMP/big.img" $src >/dev/null 2>&1
check "mkimage built the long-run image" test -s "$TMP/big.img"
BIGSUM=$(sha256sum <"$TMP/big.img")
# every run of saved PFNs, as cat takes them
BIGPFNS=$("$HIBIMG" dump -r -n "$TMP/big.img" pfns |
	awk '{printf "%s%d-%d", sep, $2, $3; sep = ","}')
mkdir "$TMP/k"
long_args() {
	case $1 in
	recompress) echo "recompress --to lz4 -T 1 $TMP/big.img $2" ;;
	raw)        echo "export -F raw -T 1 $TMP/big.img $2" ;;
	elf)        echo "export -F elf -T 1 $TMP/big.img $2" ;;
	svg)        echo "stats -T 1 --svg $2 $TMP/big.img" ;;
	cat)        echo "cat $TMP/big.img --pfn $BIGPFNS -O $2" ;;
	esac
}
# kill_row CMD SIGNAL DELAY [env...]: start, wait DELAY, signal, check.
kill_row() {
	c=$1 sig=$2 delay=$3; shift 3
	rows=$((rows + 1))
	out=$TMP/k/$c.out
	echo "old file" >"$out"
	# shellcheck disable=SC2046
	# a background job of a script starts with SIGINT ignored, nohup
	# ignores SIGHUP, and hibimg keeps what its caller ignores: give it
	# the default back
	env --default-signal=INT,PIPE,HUP \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$@" "$HIBIMG" $(long_args "$c" "$out") -f \
		>/dev/null 2>"$TMP/err" &
	pid=$!
	sleep "$delay"
	alive=0
	kill -0 "$pid" 2>/dev/null && alive=1
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid"
	got=$?
	if [ "$alive" = 1 ]; then
		check "$c SIG$sig at ${delay}s: died of the signal (status $got)" test "$got" -ge 128
		check "$c SIG$sig at ${delay}s: old file intact" test "$(cat "$out")" = "old file"
	else
		# it finished first: then the output must be whole and the row
		# proves nothing about signals, which is a failure of the test
		fail "$c SIG$sig at ${delay}s: finished before the signal (status $got); make the image larger"
	fi
	no_temps "$TMP/k" "$c SIG$sig at ${delay}s${1:+ ($*)}"
}
# -f is appended after the operands: getopt permutes it
for c in recompress raw elf svg cat; do
	for sig in INT TERM KILL; do
		for delay in 0.1 0.4; do
			kill_row "$c" "$sig" "$delay"
		done
	done
	# without O_TMPFILE, the temporary name is removed by the handler
	for sig in INT TERM HUP PIPE; do
		kill_row "$c" "$sig" 0.3 HIBIMG_FAULT_NO_TMPFILE=1 LD_PRELOAD="$FAULTIO"
	done
done
check "long-run input unchanged" test "$(sha256sum <"$TMP/big.img")" = "$BIGSUM"
input_intact "signal rows"

echo "# $rows rows"
finish
