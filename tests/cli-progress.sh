#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One progress line on every long pass (issue 14): on a terminal it is
# shown, named after the command; with -q, or when standard error is not a
# terminal, nothing is.
. "$(dirname "$0")/lib.sh"

IMG=$FIX_IMG/k612-lzo.img
PFN=$("$HIBIMG" dump -r -n "$IMG" pfns | tail -1 | awk '{print $3}')
check "have a last PFN" test -n "$PFN"
command -v script >/dev/null || { fail "script(1) is missing (bsdutils)"; echo "$npass passed, $nfail failed"; exit 1; }

while read -r cmd args; do
	[ -n "$cmd" ] || continue
	args=$(eval echo "$args")
	# a terminal: script(1) gives hibimg one; its typescript is what the
	# terminal showed
	script -qec "$HIBIMG $cmd $args >/dev/null" /dev/null </dev/null >"$TMP/tty" 2>&1
	tr '\r' '\n' <"$TMP/tty" >"$TMP/lines"
	check "$cmd: a progress line on a terminal" grep -aq "hibimg $cmd: .*%" "$TMP/lines"
	script -qec "$HIBIMG $cmd -q $args >/dev/null" /dev/null </dev/null >"$TMP/tty" 2>&1
	check "$cmd -q: no progress" sh -c "! grep -aq '%' '$TMP/tty'"
	run_hib 0 $cmd $args </dev/null
	check "$cmd: nothing on stderr when it is not a terminal" test ! -s "$TMP/err"
done <<EOT
verify $IMG
stats $IMG
simulate $IMG
info $IMG
export -f -F raw $IMG \$TMP/out.raw
recompress --dry-run --to lz4 $IMG
find $IMG
EOT
# cat writes its data to stdout: only the file form, and no -q
script -qec "$HIBIMG cat -f $IMG -p $PFN -O $TMP/page.bin" /dev/null >"$TMP/tty" 2>&1
check "cat: a progress line on a terminal" sh -c "tr '\r' '\n' <'$TMP/tty' | grep -aq 'hibimg cat: .*%'"
run_hib 0 cat -f "$IMG" -p "$PFN" -O "$TMP/page.bin"
check "cat: nothing on stderr when it is not a terminal" test ! -s "$TMP/err"
echo "$npass passed, $nfail failed"
[ "$nfail" = 0 ]
