#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Replays every fuzzing corpus and every input that ever crashed hibimg
# (tests/fuzz/regress/HARNESS/) through the harnesses, built without
# libFuzzer; in the sanitizer build under ASan/UBSan. A crash, a sanitizer
# report or a hang fails the test.
. "$(dirname "$0")/lib.sh"

REPLAY=${REPLAY:-$top_builddir/tests/fuzz-replay}
# -16k, -64k, -w4: the same region of a template built with that page size
# or 4-byte words (issue 17)
layouts=$(for h in resume map info pfns chunk; do printf ' %s-16k %s-64k %s-w4' $h $h $h; done)
for h in resume map info pfns chunk chunk_lz4 whole uswsusp export kernel memmap klog $layouts; do
	dirs=$top_srcdir/tests/fuzz/corpus/$h
	[ -d "$top_srcdir/tests/fuzz/regress/$h" ] && dirs="$dirs $top_srcdir/tests/fuzz/regress/$h"
	if timeout 600 "$REPLAY" $h $dirs >"$TMP/out" 2>"$TMP/err"; then ok; else
		fail "replay $h"; tail -20 "$TMP/err" >&2
	fi
	n=$(sed -n 's/^replayed \([0-9]*\) inputs$/\1/p' "$TMP/out")
	check "$h: corpus not empty" test "${n:-0}" -gt 0
done
finish
