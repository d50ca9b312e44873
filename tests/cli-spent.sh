#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --spent in every command that reads the stream (issue 16). A spent area is
# refused with exit 2 and the one hint; with --spent it reads as the image it
# was. The pages export gives are compared with a walk of the disk done in
# Python (tests/export_read.py walk: header, swap map, chunks through liblzo2
# or liblz4, swsusp_info, PFN list; the signature is not looked at), and with
# the export of the fixture it was spent from where the sidecar says the old
# image is intact. Counts come from the sidecars (what the kernel printed).
. "$(dirname "$0")/lib.sh"

PY="python3 $top_srcdir/tests/export_read.py"
PS=4096
HINT='(--spent reads what is left)'

n=0
for name in $(spent_fixtures); do
	n=$((n + 1))
	img=$FIX_IMG/$name.img
	src=$(sidecar "$name" spent_from)
	live=$FIX_IMG/$src.img
	before=$(sha256sum <"$img")

	# the independent walk: every saved page, and the runs of PFNs
	$PY walk $PS "$img" "$TMP/runs" >"$TMP/walk" || fail "$name: the Python walk failed"
	check "$name: the walk lists the kernel's need to copy" \
		test "$(wc -l <"$TMP/walk")" = "$(sidecar "$name" need_to_copy)"
	# a page with data, as the walk found it: its 100th non-zero page
	pfn=$(awk -v z="$(head -c $PS /dev/zero | sha256sum | cut -d' ' -f1)" \
		'$2 != z && ++n == 100 {print $1}' "$TMP/walk")

	# without --spent: refused, with the hint, and nothing written
	run_hib 2 export --format raw "$img" "$TMP/no.raw"
	err_has "spent image"; err_has "$HINT"
	check "$name: a refused export leaves no file" test ! -e "$TMP/no.raw"
	run_hib 2 stats "$img"; err_has "$HINT"
	run_hib 2 stats -J "$img"
	check "$name: stats -J: the record says unsupported" \
		test "$(json_get "$TMP/out" status)" = unsupported
	run_hib 2 simulate "$img"; err_has "$HINT"
	for layer in map chunks pfns; do
		run_hib 2 dump "$img" $layer; err_has "$HINT"
	done
	run_hib 2 dump "$img" page "$pfn"; err_has "$HINT"
	run_hib 2 cat "$img" --pfn "$pfn" -O "$TMP/no.bin"; err_has "$HINT"
	check "$name: a refused cat leaves no file" test ! -e "$TMP/no.bin"
	run_hib 2 verify "$img"; err_has "$HINT"
	# the header needs no stream, and a slot is a slot of any area
	run_hib 0 dump "$img" header
	run_hib 0 cat "$img" --slot "$(sidecar "$name" header_image)" -O "$TMP/slot.bin"
	# recompress does not take --spent: no hint that would not work there
	run_hib 2 recompress --dry-run "$img" "$TMP/re.img"
	check "$name: recompress gives no --spent hint" sh -c "! grep -q -- '--spent' '$TMP/err'"

	# export --spent: the pages a walk of the disk finds
	run_hib 0 export -q --spent --format raw "$img" "$TMP/spent.raw"
	$PY pages-raw $PS "$TMP/spent.raw" "$TMP/runs" >"$TMP/got"
	check "$name: export --spent raw = the Python walk" cmp -s "$TMP/walk" "$TMP/got"
	check "$name: nothing outside the walk's runs" \
		test "$($PY raw-holes $PS "$TMP/spent.raw" "$TMP/runs")" = 0
	run_hib 0 export -q --spent --format lime "$img" "$TMP/spent.lime"
	$PY pages-lime $PS "$TMP/spent.lime" >"$TMP/got"
	check "$name: export --spent lime = the Python walk" cmp -s "$TMP/walk" "$TMP/got"
	if [ "$(sidecar "$name" spent_old_image_intact)" = yes ]; then
		run_hib 0 export -q --format raw "$live" "$TMP/live.raw"
		check "$name: export --spent = export of $src, byte for byte" \
			cmp -s "$TMP/spent.raw" "$TMP/live.raw"
	fi

	# stats and simulate: the kernel's counts, and the live image's numbers
	run_hib 0 stats -J --spent "$img"; cp "$TMP/out" "$TMP/st.json"
	check "$name: stats --spent: PFN entries = need to copy" \
		test "$(json_get "$TMP/st.json" pfn_entries)" = "$(sidecar "$name" need_to_copy)"
	check "$name: stats --spent: zero-flagged = zero pages" \
		test "$(json_get "$TMP/st.json" zero_flagged)" = "$(sidecar "$name" zero_pages)"
	check "$name: stats --spent: stream pages = saving pages" \
		test "$(json_get "$TMP/st.json" stream_pages)" = "$(sidecar "$name" saving_pages)"
	if [ "$(sidecar "$name" spent_old_image_intact)" = yes ]; then
		run_hib 0 stats -r -n --spent "$img" classes; cp "$TMP/out" "$TMP/a"
		run_hib 0 stats -r -n "$live" classes; cp "$TMP/out" "$TMP/b"
		check "$name: stats --spent classes = those of $src" cmp -s "$TMP/a" "$TMP/b"
		run_hib 0 simulate -J --spent "$img"; cp "$TMP/out" "$TMP/sa.json"
		run_hib 0 simulate -J "$live"; cp "$TMP/out" "$TMP/sb.json"
		# sizes follow from the pages; times are a model with measured rates
		sizes='import json,sys
for s in json.load(open(sys.argv[1]))["simulate"]["scenarios"]:
    print(s["zerocheck"], s["compression"], s["image_pages"], s["compressed_bytes"], s["image_slots"])'
		python3 -c "$sizes" "$TMP/sa.json" >"$TMP/a"
		python3 -c "$sizes" "$TMP/sb.json" >"$TMP/b"
		check "$name: simulate --spent sizes = those of $src" cmp -s "$TMP/a" "$TMP/b"
		run_hib 0 dump -r -n --spent "$img" chunks; cp "$TMP/out" "$TMP/a"
		run_hib 0 dump -r -n "$live" chunks
		check "$name: dump --spent chunks = those of $src" cmp -s "$TMP/a" "$TMP/out"
	fi
	run_hib 0 dump -J --spent "$img" pfns
	check "$name: dump --spent pfns: the walk's runs" test "$(python3 -c '
import json,sys
print(len(json.load(open(sys.argv[1]))["pfns"]))' "$TMP/out")" = "$(wc -l <"$TMP/runs")"
	run_hib 0 dump --spent "$img" map

	# cat --spent: that page, as the walk read it
	run_hib 0 cat --spent "$img" --pfn "$pfn" -O "$TMP/cat.bin"
	check "$name: cat --spent --pfn $pfn = the walk's page" \
		test "$pfn $(sha256sum <"$TMP/cat.bin" | cut -d' ' -f1)" = "$(grep "^$pfn " "$TMP/walk")"

	# info names the kernel found in the spent image's memory
	run_hib 0 info "$img"
	out_has '^Kernel (found in memory)'
	run_hib 0 info -J "$img"
	check "$name: info: the release = the kernel's banner" \
		test "$(python3 -c '
import json,sys
print(json.load(open(sys.argv[1]))["images"][0]["release"])' "$TMP/out")" = "$(sidecar "$name" kernel_release)"

	check "$name: input unchanged" test "$before" = "$(sha256sum <"$img")"
done
check "a spent fixture exists" test "$n" -ge 1

# --spent on a live image changes nothing
run_hib 0 export -q --spent --format raw "$FIX_IMG/k612-lzo.img" "$TMP/l2.raw"
run_hib 0 export -q --format raw "$FIX_IMG/k612-lzo.img" "$TMP/l3.raw"
check "--spent on a live image: the same export" cmp -s "$TMP/l2.raw" "$TMP/l3.raw"

finish
