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
		run_hib 0 recompress $R -f --to $to "$img" "$TMP/out.img"
		run_hib 0 verify $R "$TMP/out.img"
		run_hib 0 verify $R --json "$TMP/out.img"
		check "$name -> $to: compression" test "$(json_get "$TMP/out" compression)" = $to
		check "$name -> $to: same PFN count" \
			test "$(json_get "$TMP/out" pfn_entries)" = "$(sidecar "$name" need_to_copy)"
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
	check "$name: dry run reports slots" test -n "$(json_get "$TMP/out" new_image_slots)"
	check "$name: dry run says so" test "$(json_get "$TMP/out" dry_run)" = true

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
run_hib 0 recompress $R -f --to none --unsafe-extra-slots "$FIX_IMG/$lzo.img" "$TMP/raw.img"
err_has "outside the source image were used"
run_hib 0 verify $R "$TMP/raw.img"
run_hib 2 recompress $R --to none --overwrite-swapped-out "$FIX_IMG/$lzo.img" "$TMP/x.img"
err_has "goes with --unsafe-extra-slots"
rm -f "$TMP/raw.img"

# --unsafe-extra-slots takes the slots outside the image that read as zero
# first (issue 12), and refuses to overwrite slots holding data (swapped-out
# pages) without --overwrite-swapped-out. Slot numbers from python walking
# the raw disk (tests/swapslots.py, which fixtures/check-rewrites.sh uses too).
slotwalk() { python3 "$top_srcdir/tests/swapslots.py" "$@"; }
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# Slot counts include the resume page, as info's image_slots does; python
# walks the swap maps of the source and of the new image.
for name in $(fixtures0); do
	img=$FIX_IMG/$name.img
	run_hib 0 recompress -f --to lz4 --json "$img" "$TMP/lz4.img"
	cp "$TMP/out" "$TMP/lz4.json"
	check "$name: image_slots = python's walk + the resume page" \
		test "$(json_get "$TMP/lz4.json" image_slots)" = $(( $(kv "$(slotwalk outside "$img")" image) + 1 ))
	check "$name: new_image_slots = python's walk of the new image + the resume page" \
		test "$(json_get "$TMP/lz4.json" new_image_slots)" = \
		$(( $(kv "$(slotwalk outside "$TMP/lz4.img")" image) + 1 ))
	check "$name: flags 0x14 (CRC32_MODE, COMPRESSION_ALG_LZ4: the kernel's bits) as a number" \
		test "$(json_get "$TMP/lz4.json" flags)" = 20
	run_hib 0 info --json "$img"
	check "$name: recompress and info count the same image slots" \
		test "$(json_get "$TMP/lz4.json" image_slots)" = "$(json_get "$TMP/out" image_slots)"
	run_hib 0 recompress --to lz4 --dry-run "$img"
	out_has "^  flags  *0x14\$"
	out_has "^  image slots (incl. resume page)  *$(json_get "$TMP/lz4.json" image_slots)\$"
	run_hib 0 recompress --to lz4 --dry-run -P "$img"
	check "$name: -P lines are shell assignments" sh -c ". '$TMP/out'"
	run_hib 0 recompress -q -f --to lz4 "$img" "$TMP/lz4.img"
	check "$name: -q prints nothing" test ! -s "$TMP/out"
	rm -f "$TMP/lz4.img"
done

swapped=
for name in $(fixtures0); do
	[ "$(sidecar "$name" compression)" != none ] || continue
	img=$FIX_IMG/$name.img
	OS=$(slotwalk outside "$img")
	[ "$(kv "$OS" nonzero_outside)" -gt 0 ] || continue
	run_hib 0 recompress --to none --unsafe-extra-slots --dry-run --json "$img"
	[ "$(json_get "$TMP/out" slots_extra)" -gt 0 ] || continue
	swapped="$swapped $name"
	run_hib 0 recompress --to none --unsafe-extra-slots --json "$img" "$TMP/raw.img"
	cp "$TMP/out" "$TMP/raw.json"
	err_has "all read as zero"
	CMPR=$(slotwalk compare "$img" "$TMP/raw.img")
	check "$name ($OS): --unsafe-extra-slots overwrote no slot holding data ($CMPR)" \
		test "$(kv "$CMPR" out_extra_was_nonzero)" = 0
	check "$name: slots-extra-data = 0" test "$(json_get "$TMP/raw.json" slots_extra_data)" = 0
	check "$name: slots-extra = the disk's extra slots ($CMPR)" \
		test "$(json_get "$TMP/raw.json" slots_extra)" = "$(kv "$CMPR" out_extra)"
	check "$name: slots-extra-zero = slots-extra" \
		test "$(json_get "$TMP/raw.json" slots_extra_zero)" = "$(kv "$CMPR" out_extra)"
	check "$name: nothing outside the old image changed but the extra slots ($CMPR)" \
		test "$(kv "$CMPR" outside_changed)" -le "$(kv "$CMPR" out_extra)"
	run_hib 0 verify "$TMP/raw.img"
	rm -f "$TMP/raw.img"
done
check "a fixture with swapped-out pages outside its image needs extra slots for --to none" \
	test -n "$swapped"

# The same area as a used swap area leaves it (a freed slot keeps its bytes):
# every slot it could take holds data, or all but the KEEP highest.
set -- $swapped
name=$1 img=$FIX_IMG/$1.img
for keep in 0 100; do
	F=$(slotwalk fill "$img" "$TMP/filled.img" $keep)
	run_hib 2 recompress --to none --unsafe-extra-slots --dry-run "$TMP/filled.img"
	err_has "hold data (pages the hibernated system had swapped out, probably); --overwrite-swapped-out"
	run_hib 2 recompress --to none --unsafe-extra-slots "$TMP/filled.img" "$TMP/raw.img"
	err_has ": $keep read as zero"
	check "$name filled ($F): refused, no output" test ! -e "$TMP/raw.img"
	run_hib 0 recompress --to none --unsafe-extra-slots --overwrite-swapped-out --json \
		"$TMP/filled.img" "$TMP/raw.img"
	err_has "held data, probably pages the hibernated system had swapped out: overwritten"
	CMPR=$(slotwalk compare "$TMP/filled.img" "$TMP/raw.img")
	check "$name filled ($F): slots-extra-data = python's overwritten data slots ($CMPR)" \
		test "$(json_get "$TMP/out" slots_extra_data)" = "$(kv "$CMPR" out_extra_was_nonzero)"
	check "$name filled ($F): the $keep zero slots are taken first ($CMPR)" \
		test "$(( $(kv "$CMPR" out_extra) - $(kv "$CMPR" out_extra_was_nonzero) ))" = $keep
	check "$name filled: slots-extra-zero = $keep" \
		test "$(json_get "$TMP/out" slots_extra_zero)" = $keep
	run_hib 0 verify "$TMP/raw.img"
	rm -f "$TMP/raw.img" "$TMP/filled.img"
done

run_hib 2 recompress $R "$FIX_IMG/$lzo.img" "$TMP/x.img";              err_has "--to is required"
run_hib 2 recompress $R --to zstd "$FIX_IMG/$lzo.img" "$TMP/x.img";    err_has "unknown compressor"
run_hib 2 recompress $R --to lzo -l 5 "$FIX_IMG/$lzo.img" "$TMP/x.img"; err_has "level 5"
run_hib 2 recompress $R --to lz4 -z sometimes "$FIX_IMG/$lzo.img" "$TMP/x.img"; err_has "zero-page mode"
run_hib 2 recompress $R --to lz4 "$FIX_IMG/$lzo.img";                  err_has "missing argument"
run_hib 2 recompress $R --to lz4 --device "$FIX_IMG/$lzo.img" "$TMP/x.img"; err_has "no such device"
run_hib 2 recompress --to lz4 -J "$FIX_IMG/$lzo.img";                 err_has "missing argument"
check "a usage error with -J is a JSON document" python3 -m json.tool "$TMP/out" /dev/null
run_hib 0 recompress --list-columns;                                  out_has "^new_image_slots "

finish
