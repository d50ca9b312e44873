#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# How an input is named (issue 14): a compressed file is named by its
# compressor with a hint that works; only LABEL=, UUID=, PARTLABEL= and
# PARTUUID= go to libblkid, any other X= is a path or an unknown tag; "-"
# reads standard input in the commands that read the stream once (verify,
# stats, export raw/LiME, cat), from a pipe through a temporary file that
# leaves nothing behind, and is refused by name elsewhere.
. "$(dirname "$0")/lib.sh"

img=$FIX_IMG/k612-lzo.img
zst=$FIX_SRC/k612-lzo.img.zst
VMCI=0x280     # the page holding VMCOREINFO on k612-lzo (its first line is known)

# the whole of stderr is one line, exactly $1
err_is() {
	if [ "$(cat "$TMP/err")" = "$1" ]; then ok; else
		fail "stderr is not exactly: $1"; sed 's/^/    got: /' "$TMP/err" >&2
	fi
}
out_empty() { check "$1: nothing on stdout" test ! -s "$TMP/out"; }

# feed CMD...: CMD's output on $TMP/fifo, in the background, so that
# run_hib reads a pipe and still counts in this shell
feed() {
	rm -f "$TMP/fifo"
	mkfifo "$TMP/fifo"
	"$@" >"$TMP/fifo" &
}

run_hib 0 cat -p $VMCI "$img"
cp "$TMP/out" "$TMP/want"
check "the VMCOREINFO page starts as the kernel wrote it" grep -q '^OSRELEASE=' "$TMP/want"

# --- compressed inputs: the project's own fixtures first -----------------
for z in "$FIX_SRC"/*.img.zst; do
	run_hib 2 cat -p 1 "$z"
	err_is "hibimg cat: $z: zstd-compressed file: decompress it first (zstd -d $z), or pipe it: zstd -dc $z | hibimg cat -"
	out_empty "cat $(basename "$z")"
done
# the hint works as it is written
feed zstd -dc "$zst"
run_hib 0 cat -p $VMCI - <"$TMP/fifo"
wait
check "zstd -dc F | hibimg cat -: the page of the file" cmp -s "$TMP/want" "$TMP/out"
# a command that cannot read '-' says only how to decompress
run_hib 2 dump "$zst" header
err_is "hibimg dump: $zst: zstd-compressed file: decompress it first (zstd -d $zst)"
# where '-' is read, the hint says so
for c in verify stats; do
	run_hib 2 $c "$zst"
	err_is "hibimg $c: $zst: zstd-compressed file: decompress it first (zstd -d $zst), or pipe it: zstd -dc $zst | hibimg $c -"
done
# compressed standard input
feed cat "$zst"
run_hib 2 cat -p 1 - <"$TMP/fifo"
wait
err_is "hibimg cat: standard input is zstd-compressed: decompress it on the way (... | zstd -dc | hibimg cat -)"

# the other compressors, made here from the head of a fixture
head -c 1048576 "$img" >"$TMP/head.img"
for z in "gzip .gz gzip" "xz .xz xz" "lz4 .lz4 lz4" "lz4 -legacy.lz4 lz4 -l" "bzip2 .bz2 bzip2"; do
	set -- $z
	name=$1 ext=$2 tool=$3; shift 3
	f=$TMP/head.img$ext
	if ! command -v "$tool" >/dev/null; then
		fail "$tool not installed (tools/bootstrap.sh installs it)"
		continue
	fi
	"$tool" "$@" -c "$TMP/head.img" >"$f"
	run_hib 2 cat -p 1 "$f"
	err_is "hibimg cat: $f: $name-compressed file: decompress it first ($name -d $f), or pipe it: $name -dc $f | hibimg cat -"
	"$name" -dc "$f" | cmp -s - "$TMP/head.img" ||
		fail "$name -dc does not give back what $tool $* compressed"
done
# a name that needs quoting is quoted in the hint
cp "$TMP/head.img.gz" "$TMP/a b.gz"
run_hib 2 cat -p 1 "$TMP/a b.gz"
err_is "hibimg cat: $TMP/a b.gz: gzip-compressed file: decompress it first (gzip -d '$TMP/a b.gz'), or pipe it: gzip -dc '$TMP/a b.gz' | hibimg cat -"
# "BZh" without the block size digit is not bzip2
{ printf 'BZhx'; head -c 8192 /dev/zero; } >"$TMP/bzh"
run_hib 2 cat -p 1 "$TMP/bzh"
check "BZh without a digit is not called bzip2" sh -c "! grep -q compressed '$TMP/err'"
err_has "no swap or hibernation signature"

# --- spec tags ----------------------------------------------------------
run_hib 2 cat -p 1 FOO=bar
err_is "hibimg cat: FOO=bar: unknown tag FOO= and no such file (a device is named by LABEL=, UUID=, PARTLABEL= or PARTUUID=)"
out_empty "cat FOO=bar"
# a file of that name is a path, not a tag
ln -s "$img" "$TMP/FOO=bar"
(cd "$TMP" && run_hib 0 cat -p $VMCI FOO=bar && cmp -s want out) ||
	fail "a file named FOO=bar is read as a path"
# the four tags reach libblkid, which finds no such device
for t in LABEL UUID PARTLABEL PARTUUID; do
	run_hib 2 cat -p 1 "$t=hibimg-no-such-$$"
	err_is "hibimg cat: $t=hibimg-no-such-$$: no such device"
done
# a '/' before the '=' makes a path
run_hib 3 cat -p 1 "./LABEL=hibimg-no-such-$$"
err_is "hibimg cat: cannot open ./LABEL=hibimg-no-such-$$: No such file or directory"

# --- standard input -----------------------------------------------------
# a file redirected with '<' is read in place
run_hib 0 cat -p $VMCI - <"$img"
check "cat - < file: the page of the file" cmp -s "$TMP/want" "$TMP/out"
# a pipe is spooled into TMPDIR, and nothing stays there
mkdir "$TMP/spool"
feed cat "$img"
TMPDIR=$TMP/spool run_hib 0 cat -p $VMCI - <"$TMP/fifo"
wait
check "cat - from a pipe: the page of the file" cmp -s "$TMP/want" "$TMP/out"
check "the spool left nothing in TMPDIR" test -z "$(ls -A "$TMP/spool")"
# no room to spool: an I/O error that says where and why
feed cat "$img"
TMPDIR=$TMP/nonexistent run_hib 3 cat -p 1 - <"$TMP/fifo"
wait
err_is "hibimg cat: standard input: cannot create a temporary file in $TMP/nonexistent: No such file or directory (a stream read from '-' is first copied there whole, so it needs as much free space as the image; TMPDIR chooses the directory)"
# a terminal is not an image
script -qec "'$HIBIMG' cat -p 1 -" /dev/null >"$TMP/tty" 2>&1 </dev/null
check "a terminal on stdin: exit 2" test $? = 2
check "a terminal on stdin is refused" grep -q "hibimg cat: standard input is a terminal" "$TMP/tty"
# commands that need a file or a device refuse '-' by name
for c in "dump - header" "info -" "simulate -" "recompress --to lz4 - $TMP/re.img" \
	 "export -F elf - $TMP/x.elf" "dmesg -"; do
	set -- $c
	run_hib 2 "$@"
	err_is "hibimg $1: reading standard input is not supported here: $1 needs a file or a device (verify, stats, export -F raw|lime and cat read a stream from '-'); a file named '-' is ./-"
done
# the commands that read the stream once take it, from a pipe
run_hib 0 verify -J "$img"
cp "$TMP/out" "$TMP/verify.json"
feed cat "$img"
run_hib 0 verify -J - <"$TMP/fifo"
wait
check "verify -: the file's counts, named '-'" test "$(sed 's/"path": "[^"]*"/"path": "-"/' "$TMP/verify.json")" = "$(cat "$TMP/out")"
run_hib 0 stats -J --no-compress "$img"
cp "$TMP/out" "$TMP/stats.json"
feed cat "$img"
run_hib 0 stats -J --no-compress - <"$TMP/fifo"
wait
check "stats -: the file's counts" test "$(sed 's/"path": "[^"]*"/"path": "-"/' "$TMP/stats.json")" = "$(cat "$TMP/out")"
for f in raw lime; do
	run_hib 0 export -F $f "$img" "$TMP/file.$f"
	feed cat "$img"
	run_hib 0 export -F $f - "$TMP/pipe.$f" <"$TMP/fifo"
	wait
	check "export -F $f -: the file's export" cmp -s "$TMP/file.$f" "$TMP/pipe.$f"
done
finish
