#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Best effort (issue 19): fixtures damaged by tests/damage.py (a chunk that
# no longer decodes, a byte flip every chunk survives but the CRC does not,
# a broken length word, a cut copy, two damaged chunks). Without --partial
# export still fails with no output; with it, the LiME, raw and ELF exports
# hold exactly the pages an independent walk of the damaged copy (damage.py,
# from the original's chunk boundaries, liblzo2/liblz4 by ctypes) still
# reads, page by page, and the PFNs hibimg lists as lost are the walk's;
# verify --all-errors names every damaged chunk. The input is never written.
. "$(dirname "$0")/lib.sh"

DMG="python3 $top_srcdir/tests/damage.py"
PY="python3 $top_srcdir/tests/export_read.py"

# the PFNs of the "damage" table's pfns cells of a -J document, one a line
lost_of() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))[sys.argv[2]]
for r in d["damage"]:
    for part in filter(None, (r["pfns_lost"] or "").split(",")):
        a, _, b = part.partition("-")
        for p in range(int(a, 16), int(b or a, 16) + 1):
            print(p)' "$1" "$2" | sort -n
}

# case NAME PS IMG DAMAGED KINDS: the damaged copy against the walk
case_check() {
	cn=$1 cps=$2 orig=$3 dam=$4 kinds=$5
	before=$(sha256sum <"$dam")
	$DMG walk "$cps" "$orig" "$dam" "$TMP/w"
	sort -n "$TMP/w.saved" >"$TMP/w.saved.s"
	sort -n "$TMP/w.lost" >"$TMP/w.lost.s"

	# the old behaviour stays: an error and no file
	rm -f "$TMP/strict.raw"
	run_hib 1 export -F raw "$dam" "$TMP/strict.raw"
	check "$cn: no output without --partial" test ! -e "$TMP/strict.raw"

	rm -f "$TMP/p.lime" "$TMP/p.raw" "$TMP/p.elf"
	run_hib 5 export --partial -J -F lime "$dam" "$TMP/p.lime"
	cp "$TMP/out" "$TMP/p.json"
	$PY pages-lime "$cps" "$TMP/p.lime" | sort -n >"$TMP/h.lime"
	check "$cn: LiME holds exactly the pages the walk reads ($(wc -l <"$TMP/w.saved") of them)" \
		cmp -s "$TMP/h.lime" "$TMP/w.saved.s"
	lost_of "$TMP/p.json" export >"$TMP/h.lost"
	check "$cn: the PFNs listed lost are the walk's ($(wc -l <"$TMP/w.lost"))" \
		cmp -s "$TMP/h.lost" "$TMP/w.lost.s"
	got=$(python3 -c 'import json,sys; print(",".join(r["damage_kind"] for r in json.load(open(sys.argv[1]))["export"]["damage"]))' "$TMP/p.json")
	check "$cn: damage kinds '$got', expected '$kinds'" test "$got" = "$kinds"
	saved=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["export"]["pages_saved"])' "$TMP/p.json")
	check "$cn: pages_saved $saved = the walk's" test "$saved" = "$(wc -l <"$TMP/w.saved")"

	run_hib 5 export --partial -q -F raw "$dam" "$TMP/p.raw"
	$PY pages-raw "$cps" "$TMP/p.raw" "$TMP/w.runs" | sort -n >"$TMP/h.raw"
	check "$cn: raw holds the walk's pages at their addresses" cmp -s "$TMP/h.raw" "$TMP/w.saved.s"
	$PY raw-holes "$cps" "$TMP/p.raw" "$TMP/w.runs" >"$TMP/h.holes"
	check "$cn: raw has nothing outside them (lost pages are holes)" test "$(cat "$TMP/h.holes")" = 0

	run_hib 5 export --partial -q -F elf "$dam" "$TMP/p.elf"
	$PY pages-elf "$cps" "$TMP/p.elf" | sort -n >"$TMP/h.elf"
	check "$cn: ELF holds exactly the walk's pages" cmp -s "$TMP/h.elf" "$TMP/w.saved.s"

	run_hib 5 stats --partial -J "$dam"
	got=$(json_get "$TMP/out" pages_saved)
	check "$cn: stats --partial pages_saved $got" test "$got" = "$(wc -l <"$TMP/w.saved")"

	check "$cn: the damaged copy was not written" test "$(sha256sum <"$dam")" = "$before"
}

chunk_dev() {   # chunk_dev PS IMG CHUNK: byte offset of the chunk's first page
	$DMG chunks "$1" "$2" | awk -v c="$3" '$1 == c { print $3 * '"$1"' }'
}
nchunks() { $DMG chunks "$1" "$2" | wc -l; }

for spec in k612-lzo:4096 k612-lz4:4096 arm612-16k-lzo:16384; do
	name=${spec%%:*} ps=${spec#*:}
	img=$FIX_IMG/$name.img
	if [ ! -f "$img" ]; then
		fail "$name: $img missing (make fixtures)"
		continue
	fi
	n=$(nchunks "$ps" "$img")
	mid=$((n / 2))

	# a chunk that no longer decodes: 16 bytes of its data garbled
	d=$TMP/$name-decode.img
	cp --sparse=always "$img" "$d"
	off=$(chunk_dev "$ps" "$img" $mid)
	for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
		$DMG flip "$d" $((off + 64 + i * 5))
	done
	case_check "$name decode" "$ps" "$img" "$d" decode-failed

	# one byte that every chunk survives: only the CRC differs
	d=$TMP/$name-crc.img
	cp --sparse=always "$img" "$d"
	$DMG flip "$d" "$($DMG literal "$ps" "$img" 2)"
	case_check "$name crc" "$ps" "$img" "$d" crc-mismatch

	# a length word past the worst case: the next chunk from the map
	d=$TMP/$name-length.img
	cp --sparse=always "$img" "$d"
	$DMG put64 "$d" "$(chunk_dev "$ps" "$img" $((mid - 1)))" 0xffffffff
	case_check "$name length" "$ps" "$img" "$d" length-absurd

	# two absurd lengths: two gaps of unknown length, one chunk each
	# since the pages missing are two chunks' worth
	d=$TMP/$name-lengths.img
	cp --sparse=always "$img" "$d"
	$DMG put64 "$d" "$(chunk_dev "$ps" "$img" 2)" 0xffffffff
	$DMG put64 "$d" "$(chunk_dev "$ps" "$img" $((mid + 1)))" 0xffffffff
	case_check "$name lengths" "$ps" "$img" "$d" length-absurd,length-absurd

	# a cut copy: everything before the cut
	d=$TMP/$name-cut.img
	cp --sparse=always "$img" "$d"
	truncate -s $(($(chunk_dev "$ps" "$img" $((n - 3))) + 2 * ps)) "$d"
	case_check "$name cut" "$ps" "$img" "$d" truncated

	# two damaged chunks: verify --all-errors names both, verify the first
	d=$TMP/$name-two.img
	cp --sparse=always "$img" "$d"
	$DMG put64 "$d" "$(chunk_dev "$ps" "$img" 3)" 0
	off=$(chunk_dev "$ps" "$img" $mid)
	for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
		$DMG flip "$d" $((off + 64 + i * 5))
	done
	case_check "$name two" "$ps" "$img" "$d" length-absurd,decode-failed
	run_hib 1 verify --all-errors -J "$d"
	got=$(json_get "$TMP/out" damaged_chunks)
	check "$name two: verify --all-errors lists both chunks ('$got')" \
		test "$got" = "3:length-absurd@$($DMG chunks "$ps" "$img" | awk '$1 == 3 { print $2 }'),$mid:decode-failed@$($DMG chunks "$ps" "$img" | awk -v c=$mid '$1 == c { print $2 }')"
	run_hib 1 verify "$d"
	check "$name two: plain verify stops at the first" test "$(grep -c '^hibimg verify: damage:' "$TMP/err")" = 0

	# intact: --partial changes nothing, exit 0, no record
	run_hib 0 export --partial -q -F lime "$img" "$TMP/i.lime"
	run_hib 0 verify --all-errors "$img"
	rm -f "$TMP/i.lime"
done

# an uncompressed image: page by page, cut
name=k61-nocompress ps=4096
img=$FIX_IMG/$name.img
if [ -f "$img" ]; then
	d=$TMP/$name-cut.img
	cp --sparse=always "$img" "$d"
	n=$(nchunks "$ps" "$img")
	# past the last swap-map page (511 entries a page): the cut map is
	# not read, only pages of the stream are lost
	truncate -s $(($(chunk_dev "$ps" "$img" $((n - 20))) + ps)) "$d"
	case_check "$name cut" "$ps" "$img" "$d" truncated
else
	fail "$name: $img missing (make fixtures)"
fi

# cat --partial: a recovered page comes out, exit 5; a lost one is refused
d=$TMP/k612-lzo-decode.img
if [ -f "$d" ]; then
	$DMG walk 4096 "$FIX_IMG/k612-lzo.img" "$d" "$TMP/w"
	keep=$(awk 'NR == 100 { print $1 }' "$TMP/w.saved")
	gone=$(head -1 "$TMP/w.lost")
	run_hib 5 cat --partial "$d" --pfn "$keep"
	want=$(awk -v p="$keep" '$1 == p { print $2 }' "$TMP/w.saved")
	check "cat --partial: PFN $keep's bytes are the walk's" \
		test "$(sha256sum <"$TMP/out" | cut -d' ' -f1)" = "$want"
	# without it the stream fails at the damaged chunk, with it the page
	# is not one the image still has
	run_hib 1 cat "$d" --pfn "$gone"
	run_hib 2 cat --partial "$d" --pfn "$gone"
fi

finish
