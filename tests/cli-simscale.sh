#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stats and simulate follow the image, not the machine's RAM (issue 18):
# from a 4 GiB to a 64 GiB synthetic machine (tests/mkimage, 99.9 % zero
# pages, so the stream is small while the PFN list and the nozerocheck
# stream grow 16 times) their heap may grow only by what verify's grows
# (the PFN index: a bit per entry) plus a little. The bounds are bytes
# asked of malloc (tests/liballocpeak.so), not time. Before the sizing
# engine, simulate kept every meta page of both streams (8 bytes per RAM
# page, twice: +240 MiB here) and stats one stream's (+120 MiB).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

MKIMAGE=${MKIMAGE:-$top_builddir/tests/mkimage}
ALLOCPEAK=${ALLOCPEAK:-$top_builddir/tests/liballocpeak.so}
MiB=1048576

if grep -aq __asan_init "$HIBIMG" "$top_builddir/.libs/hibimg" 2>/dev/null; then
	echo "# sanitizer build: ASan keeps its own allocator, the heap bounds are not measured"
	finish
	exit $?
fi
[ -f "$ALLOCPEAK" ] || { fail "no $ALLOCPEAK (make check builds it)"; finish; exit 1; }
src=$FIX_IMG/$(fixtures0 | head -1).img
PINNED="--rate-lzo-compress 500 --rate-lzo-decompress 900 --rate-lz4-compress 700 --rate-lz4-decompress 3000 --rate-zstd-compress 300 --rate-zstd-decompress 1000"

peak() {  # peak CMD...: bytes the heap held at its peak
	HIBIMG_ALLOC_LOG=$TMP/alloc LD_PRELOAD=$ALLOCPEAK "$HIBIMG" "$@" >/dev/null 2>"$TMP/err" ||
		{ fail "hibimg $* failed under allocpeak"; cat "$TMP/err" >&2; }
	sed -n 's/^peak //p' "$TMP/alloc"
}

for m in 4 64; do
	pages=$((m * 262144))
	"$MKIMAGE" --pages $pages --zero-share 0.999 --to lz4 "$TMP/m$m.img" "$src" >"$TMP/mk" ||
		{ fail "mkimage $m GiB"; cat "$TMP/mk" >&2; }
	for c in verify stats simulate; do
		a=
		# every codec rate given: simrate.c's measurement batch (a
		# constant, not the sizing's) stays out of the bound
		[ $c = simulate ] && a=$PINNED
		eval "p_${c}_$m=\$(peak $c -q -T 2 $a \"\$TMP/m$m.img\")"
		# peak runs in a subshell: a failed run shows as no heap at all
		eval "p=\$p_${c}_$m"
		check "$c on the $m GiB machine ran (heap ${p:-none} >= 1 MiB)" \
			test "${p:-0}" -ge $MiB
	done
	rm -f "$TMP/m$m.img"
done
gv=$((p_verify_64 - p_verify_4))
echo "# verify heap: ${p_verify_4} -> ${p_verify_64} bytes (+$gv)"
for c in stats simulate; do
	eval "a=\$p_${c}_4 b=\$p_${c}_64"
	echo "# $c heap: $a -> $b bytes (+$((b - a)))"
	check "$c: heap from 4 to 64 GiB of RAM grows $((b - a)) <= verify's $gv + 4 MiB" \
		test $((b - a)) -le $((gv + 4 * MiB))
	check "$c: heap at 64 GiB $b <= verify's $p_verify_64 + 24 MiB" \
		test "$b" -le $((p_verify_64 + 24 * MiB))
done
finish
