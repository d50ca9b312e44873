#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Page size and word size followed everywhere (issue 17). Images of 4K, 16K
# and 64K pages and 8- and 4-byte words, made by libhibimg's builder
# (tests/mkimage --page-size/--word-size) from a fixture's pages until real
# arm64/i386 fixtures are read by cli-fixtures.sh. What is asserted comes
# from tests/pslayout.py, which reads the images without libhibimg, or from
# the layout itself (2 MiB / PS, PFN * PS), never from hibimg. The memory
# bounds are bytes asked of malloc (tests/liballocpeak.so), not time.
. "$(dirname "$0")/lib.sh"

MKIMAGE=${MKIMAGE:-$top_builddir/tests/mkimage}
ALLOCPEAK=${ALLOCPEAK:-$top_builddir/tests/liballocpeak.so}
LAYOUT="python3 $top_srcdir/tests/pslayout.py"
SRC=$FIX_IMG/k612-lzo.img
MiB=1048576

js() {  # js JSONFILE KEY: a key of pslayout.py's summary
	python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]
print(str(v).lower() if isinstance(v,bool) else v)' "$1" "$2"
}

check "mkimage refuses a page size that is no power of two" \
	sh -c "! '$MKIMAGE' --pages 10 --page-size 12288 '$TMP/bad.img' '$SRC' 2>'$TMP/err'"
err_has "page size 12288: not a power of two"
check "mkimage refuses a word size of 2" \
	sh -c "! '$MKIMAGE' --pages 10 --word-size 2 '$TMP/bad.img' '$SRC' 2>'$TMP/err'"
err_has "word size 2: neither 4 nor 8"

for lay in 4096:8 16384:8 65536:8 4096:4 65536:4; do
	ps=${lay%:*} w=${lay#*:} t="$ps-byte pages, $w-byte words"
	raw=$TMP/raw-$ps-$w.img lzo=$TMP/lzo-$ps-$w.img
	"$MKIMAGE" --pages 400 --zero-share 0.2 --page-size "$ps" --word-size "$w" --to none \
		"$raw" "$SRC" >/dev/null || fail "$t: mkimage --to none"
	"$MKIMAGE" --pages 400 --zero-share 0.2 --page-size "$ps" --word-size "$w" --to lzo \
		"$lzo" "$SRC" >/dev/null || fail "$t: mkimage --to lzo"
	$LAYOUT "$raw" summary >"$TMP/raw.json" && $LAYOUT "$lzo" summary >"$TMP/lzo.json" ||
		fail "$t: pslayout.py cannot read the builder's images"
	check "$t: the builder wrote that page size" test "$(js "$TMP/raw.json" ps)" = "$ps"
	check "$t: the builder wrote that word size" test "$(js "$TMP/raw.json" word)" = "$w"

	# info: the image's own numbers
	run_hib 0 info -J --no-scan "$raw"
	cp "$TMP/out" "$TMP/info.json"
	for k in page_size:ps word_size:word pfn_entries:pfn_entries zero_flagged:zero_flagged \
		 image_pages:image_pages pages:pages; do
		check "$t: info ${k%:*}" test "$(json_get "$TMP/info.json" "${k%:*}")" = "$(js "$TMP/raw.json" "${k#*:}")"
	done
	run_hib 0 verify "$raw"
	run_hib 0 verify "$lzo"
	out_has "intact"

	# cat: a page is PS bytes at PFN * PS; a slot is PS bytes at slot * PS
	pfn=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["data_pfns"][1])' "$TMP/raw.json")
	$LAYOUT "$raw" page "$pfn" >"$TMP/page.want"
	run_hib 0 cat -f "$raw" --pfn "$pfn" -O "$TMP/page.got"
	check "$t: cat --pfn $pfn is the saved page" cmp -s "$TMP/page.want" "$TMP/page.got"
	run_hib 0 cat -f "$raw" --phys "$((pfn * ps + 100))+64" -O "$TMP/phys.got"
	dd if="$TMP/page.want" bs=1 skip=100 count=64 status=none >"$TMP/phys.want"
	check "$t: cat --phys PFN*PS+100 is that page's byte 100" cmp -s "$TMP/phys.want" "$TMP/phys.got"
	slot=$(js "$TMP/raw.json" first_map)
	run_hib 0 cat -f "$raw" --slot "$slot" -O "$TMP/slot.got"
	dd if="$raw" bs="$ps" skip="$slot" count=1 status=none >"$TMP/slot.want"
	check "$t: cat --slot $slot is PS bytes at slot * PS" cmp -s "$TMP/slot.want" "$TMP/slot.got"

	# stats: buckets of 2 MiB of memory, 32-page chunks
	run_hib 0 stats -J "$raw"
	cp "$TMP/out" "$TMP/stats.json"
	b=$((2 * MiB / ps)) hi=$(js "$TMP/raw.json" highest)
	check "$t: stats bucket is 2 MiB of pages ($b)" test "$(json_get "$TMP/stats.json" bucket_pages)" = "$b"
	check "$t: stats buckets up to the highest PFN" \
		test "$(json_get "$TMP/stats.json" buckets)" = "$((hi / b + 1))"
	sp=$(( $(js "$TMP/raw.json" pages) - 1 ))
	check "$t: stats chunks: 32 pages each" \
		test "$(json_get "$TMP/stats.json" chunks)" = "$(( (sp + 31) / 32 ))"
	run_hib 0 dump -r -n "$lzo" chunks
	check "$t: dump chunks as the chunk walk" test "$(wc -l <"$TMP/out")" = "$(js "$TMP/lzo.json" chunks)"

	# simulate: its LZO chunks of the zero-checked memory are the image's own
	run_hib 0 simulate -J "$lzo"
	check "$t: simulate's lzo chunks match the image's" test "$(python3 -c 'import json,sys
rows=json.load(open(sys.argv[1]))["simulate"]["scenarios"]
print([r["match"] for r in rows if r["zerocheck"] and r["compression"]=="lzo"][0])' "$TMP/out")" = True

	# recompress keeps the layout and the pages
	run_hib 0 recompress --to lz4 "$raw" "$TMP/re.img"
	$LAYOUT "$TMP/re.img" summary >"$TMP/re.json" || fail "$t: pslayout.py cannot read the rewrite"
	check "$t: recompress keeps the page size" test "$(js "$TMP/re.json" ps)" = "$ps"
	check "$t: recompress keeps the word size" test "$(js "$TMP/re.json" word)" = "$w"
	run_hib 0 verify "$TMP/re.img"
	run_hib 0 cat -f "$TMP/re.img" --pfn "$pfn" -O "$TMP/re.page"
	check "$t: the rewrite holds the same page" cmp -s "$TMP/page.want" "$TMP/re.page"
	rm -f "$TMP/re.img"

	# export: the page at PFN * PS; ELF segments of whole pages
	run_hib 0 export -F raw "$raw" "$TMP/mem.raw"
	dd if="$TMP/mem.raw" bs="$ps" skip="$pfn" count=1 status=none >"$TMP/mem.page"
	check "$t: export raw: the page at PFN * PS" cmp -s "$TMP/page.want" "$TMP/mem.page"
	rm -f "$TMP/mem.raw"
	run_hib 0 export -F elf "$raw" "$TMP/mem.core"
	check "$t: export elf: PT_LOADs of whole pages at PFN * PS, every saved PFN" python3 -c '
import struct, sys
f = open(sys.argv[1], "rb").read(); ps = int(sys.argv[2]); n = int(sys.argv[3])
cls = f[4]
if cls == 2:
    phoff, = struct.unpack_from("<Q", f, 32); phsz, phn = struct.unpack_from("<HH", f, 54)
else:
    phoff, = struct.unpack_from("<I", f, 28); phsz, phn = struct.unpack_from("<HH", f, 42)
total = 0
for i in range(phn):
    o = phoff + i * phsz
    if cls == 2:
        t, fl, off, va, pa, fs, ms, al = struct.unpack_from("<IIQQQQQQ", f, o)
    else:
        t, off, va, pa, fs, ms, fl, al = struct.unpack_from("<IIIIIIII", f, o)
    if t != 1:
        continue
    assert pa % ps == 0 and fs % ps == 0, (hex(pa), fs)
    total += fs
assert total == n * ps, (total, n * ps)
' "$TMP/mem.core" "$ps" "$(js "$TMP/raw.json" pfn_entries)"
	rm -f "$TMP/mem.core"

	# resume_offset is in pages of the image's page size: the resume page
	# moved to page K, past the image, page 0 cleared (find leaves out a
	# page size column that would say 4096 on every row)
	k=$(( $(stat -c %s "$raw") / ps + 2 ))
	cp "$raw" "$TMP/moved.img"
	dd if="$raw" of="$TMP/moved.img" bs="$ps" count=1 seek="$k" conv=notrunc status=none
	dd if=/dev/zero of="$TMP/moved.img" bs="$ps" count=1 conv=notrunc status=none
	run_hib 0 info -J --no-scan -R "$k" "$TMP/moved.img"
	check "$t: -R $k finds the resume page at $k * PS" \
		test "$(json_get "$TMP/out" resume_offset):$(json_get "$TMP/out" page_size)" = "$k:$ps"
	run_hib 0 verify -R "$k" "$TMP/moved.img"
	run_hib 0 find -J "$TMP/moved.img"
	check "$t: find names resume_offset $k, in pages of $ps" test "$(python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))["find"]
print(*[(x["resume_offset"], x.get("page_size", 4096), x["offset"]) for x in r])' "$TMP/out")" = "($k, $ps, $((k * ps)))"
	rm -f "$TMP/moved.img"

	# damage: clear messages with the documented status, places in bytes
	set -- $($LAYOUT "$lzo" chunk0)
	dev=$1 cl=$2 hdr=$w
	cp "$lzo" "$TMP/bad.img"
	printf '\377\377\377\177' | dd of="$TMP/bad.img" bs=1 seek=$((dev * ps)) conv=notrunc status=none
	run_hib 1 verify "$TMP/bad.img"
	err_has "chunk 0 (map entry 1, device page $dev)"
	err_has "device offset $(printf '0x%x' $((dev * ps))): invalid compressed length"
	cp "$lzo" "$TMP/bad.img"
	python3 -c 'import sys
f = open(sys.argv[1], "r+b"); o = int(sys.argv[2]); f.seek(o); b = f.read(1)
f.seek(o); f.write(bytes([b[0] ^ 0x55]))' "$TMP/bad.img" $((dev * ps + hdr + cl / 2))
	run_hib 1 verify "$TMP/bad.img"
	# LZO may still decode the flipped byte: then the kernel's CRC catches it
	if grep -q 'CRC32 mismatch' "$TMP/err"; then ok; else
		err_has "device offset $(printf '0x%x' $((dev * ps)))"
	fi
	cp "$lzo" "$TMP/bad.img"
	m=$(js "$TMP/lzo.json" first_map)
	printf '\377\377\377\000\000\000\000\000' | dd of="$TMP/bad.img" bs=1 seek=$((m * ps + 8 * 5)) conv=notrunc status=none
	run_hib 1 verify "$TMP/bad.img"
	err_has "16777215"
	truncate -s $(( (dev + 1) * ps )) "$TMP/bad.img"
	run_hib 1 verify "$TMP/bad.img"
	rm -f "$TMP/bad.img" "$raw"
	[ "$lay" = 65536:8 ] && mv "$lzo" "$TMP/lzo64k.img" || rm -f "$lzo"
done

# Memory stays bounded at 64K pages: with 16 threads, each ring of chunk
# buffers (HIB_RING_BYTES, 32 MiB; 2 slots a worker + 2 of 67 pages would
# be 143 MiB) plus what the command keeps beside it.
if grep -aq __asan_init "$HIBIMG" "$top_builddir/.libs/hibimg" 2>/dev/null; then
	echo "# sanitizer build: ASan keeps its own allocator, the heap bounds are not measured"
elif [ -f "$ALLOCPEAK" ]; then
	peak() {  # peak CMD...: bytes the heap held at its peak
		HIBIMG_ALLOC_LOG=$TMP/alloc LD_PRELOAD=$ALLOCPEAK "$HIBIMG" "$@" >/dev/null 2>"$TMP/err" ||
			{ fail "hibimg $* failed under allocpeak"; cat "$TMP/err" >&2; }
		sed -n 's/^peak //p' "$TMP/alloc"
	}
	img=$TMP/lzo64k.img
	p=$(peak verify -T 16 "$img")
	check "64K verify -T 16: heap $p <= one ring + 8 MiB" test "$p" -le $((40 * MiB))
	p=$(peak stats -T 16 "$img")
	check "64K stats -T 16: heap $p <= one ring + 12 MiB (the sink's chunk buffers, zstd)" \
		test "$p" -le $((44 * MiB))
	p=$(peak recompress -T 16 --to lz4 "$img" "$TMP/re.img")
	check "64K recompress -T 16: heap $p <= two rings + 4 MiB (1 MiB write buffer)" \
		test "$p" -le $((68 * MiB))
	rm -f "$TMP/re.img"
	p=$(peak export -T 16 -F elf "$img" "$TMP/e.core")
	check "64K export -T 16: heap $p <= one ring + 8 MiB" test "$p" -le $((40 * MiB))
	rm -f "$TMP/e.core"
	p=$(peak simulate -T 16 --calibrate "$img")
	check "64K simulate --calibrate: heap $p <= one ring + 2 x 16 MiB batch + 8 MiB" \
		test "$p" -le $((72 * MiB))
else
	fail "$ALLOCPEAK not built (make check builds it)"
fi
finish
