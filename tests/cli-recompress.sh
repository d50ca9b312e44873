#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hibimg recompress from the command line: results verify, the input is never
# touched or overwritten, usage errors are usage errors.
. "$(dirname "$0")/lib.sh"

for name in $(fixtures); do
	img=$FIX_IMG/$name.img
	R=$(roff "$name")
	before=$(sha256sum <"$img")
	for to in lz4 lzo; do
		run_hib 0 recompress $R --to $to "$img" "$TMP/out.img"
		run_hib 0 verify $R "$TMP/out.img"
		run_hib 0 verify $R --json "$TMP/out.img"
		check "$name -> $to: compression" test "$(json_get "$TMP/out" compression)" = $to
		check "$name -> $to: same PFN count" \
			test "$(json_get "$TMP/out" pfn-entries)" = "$(sidecar "$name" need_to_copy)"
		check "$name -> $to: no temporary left" \
			test -z "$(ls "$TMP" | grep hibimg- || true)"
	done
	# the output does not depend on the thread count, byte for byte
	run_hib 0 recompress $R -T 1 --to lz4 "$img" "$TMP/t1.img"
	run_hib 0 recompress $R -T 3 --to lz4 "$img" "$TMP/t3.img"
	check "$name: -T 1 and -T 3 write the same bytes" cmp -s "$TMP/t1.img" "$TMP/t3.img"
	rm -f "$TMP/t1.img" "$TMP/t3.img"
	run_hib 0 recompress $R --to lz4 --dry-run --json "$img"
	check "$name: dry run writes nothing" test ! -e "$TMP/dry.img"
	check "$name: dry run reports slots" test -n "$(json_get "$TMP/out" slots-after)"

	run_hib 2 recompress $R --to lz4 "$img" "$img";          err_has "input itself"
	ln -sf "$img" "$TMP/link.img"
	run_hib 2 recompress $R --to lz4 "$img" "$TMP/link.img"; err_has "input itself"
	ln -f "$img" "$img.hardlink.$$"
	run_hib 2 recompress $R --to lz4 "$img" "$img.hardlink.$$"; err_has "input itself"
	rm -f "$img.hardlink.$$"
	check "$name: input unchanged" test "$before" = "$(sha256sum <"$img")"
done

R=
lzo=$(for f in $(fixtures0); do [ "$(sidecar "$f" compression)" = lzo ] && echo "$f"; done | head -1)
run_hib 2 recompress $R --to none "$FIX_IMG/$lzo.img" "$TMP/raw.img"; err_has "missing"
check "refused rewrite leaves no output" test ! -e "$TMP/raw.img"
run_hib 0 recompress $R --to none --unsafe-extra-slots "$FIX_IMG/$lzo.img" "$TMP/raw.img"
err_has "outside the source image were used"
run_hib 0 verify $R "$TMP/raw.img"

run_hib 2 recompress $R "$FIX_IMG/$lzo.img" "$TMP/x.img";              err_has "--to is required"
run_hib 2 recompress $R --to zstd "$FIX_IMG/$lzo.img" "$TMP/x.img";    err_has "unknown compressor"
run_hib 2 recompress $R --to lzo -l 5 "$FIX_IMG/$lzo.img" "$TMP/x.img"; err_has "level 5"
run_hib 2 recompress $R --to lz4 -z sometimes "$FIX_IMG/$lzo.img" "$TMP/x.img"; err_has "zero-page mode"
run_hib 2 recompress $R --to lz4 "$FIX_IMG/$lzo.img";                  err_has "missing argument"
run_hib 2 recompress $R --to lz4 --device "$FIX_IMG/$lzo.img" "$TMP/x.img"; err_has "no such device"

finish
