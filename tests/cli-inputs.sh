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

finish
