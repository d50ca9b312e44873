#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One letter, one meaning (issue 14): across every command's --help, a short
# option names one long option, and a long option has one letter or none.
# The common options (src/options.c) are also listed once in hibimg(1).
. "$(dirname "$0")/lib.sh"

cmds=$("$HIBIMG" --help | awk '/^Commands:/ {on = 1; next} on && /^ [a-z]/ {print $1} on && /^$/ {exit}')
check "the command list is not empty" test -n "$cmds"
: >"$TMP/all"
for c in $cmds; do
	run_hib 0 "$c" --help
	# " -X, --long" and "     --long" lines
	sed -n 's/^ -\(.\), --\([a-z0-9-]*\).*/\1 \2/p; s/^     --\([a-z0-9-]*\).*/- \1/p' "$TMP/out" |
		sed "s/^/$c /" >>"$TMP/all"
	check "$c --help lists -h and -V" grep -q "^$c h help$" "$TMP/all"
done
# a letter with two long names, and a long name with two spellings
bad=$(awk '$2 != "-" { if (($2 in l) && l[$2] != $3) print "-" $2 ": --" l[$2] " (" w[$2] ") and --" $3 " (" $1 ")"; l[$2] = $3; w[$2] = $1 }
	 { if (($3 in s) && s[$3] != $2) print "--" $3 ": -" s[$3] " (" v[$3] ") and -" $2 " (" $1 ")"; s[$3] = $2; v[$3] = $1 }' "$TMP/all")
if [ -z "$bad" ]; then ok; else fail "one letter, two meanings:"; echo "$bad" >&2; fi
# -o is the column list wherever it exists; output files are -O
check "-o means --output (columns) everywhere" sh -c "! awk '\$2 == \"o\" && \$3 != \"output\"' '$TMP/all' | grep -q ."
# every common option hibimg(1) documents
# (roff writes every '-' of an option as "\-")
for o in json raw pairs noheadings output list-columns bytes threads resume-offset output-file force device spent quiet; do
	re=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
	check "hibimg(1) documents --$o" grep -q -- "\\\\-\\\\-$re\\>" "$top_srcdir/man/hibimg.1"
done
echo "$npass passed, $nfail failed"
[ "$nfail" = 0 ]
