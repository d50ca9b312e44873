#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Userspace-suspend images (suspend-utils s2disk, "ULSUSPEND"). No Debian
# kernel writes them and no fixture holds one, so tests/mkuswsusp.py builds
# them, without libhibimg, around a real 6.12 kernel's snapshot stream (the
# k612-lzo fixture's, cut down) and records its own numbers in meta.json.
# Every number asserted here is the generator's (or the kernel's, for the
# release), down to a hash of the saved memory.
. "$(dirname "$0")/lib.sh"

# Debian's interpreter, where python3-lzo and python3-cryptography install
# (tools/bootstrap.sh); python3 may be another.
PY=${USWSUSP_PY:-/usr/bin/python3}
GEN=$top_srcdir/tests/mkuswsusp.py
U=$TMP/u
M=$U/meta.json

if ! "$PY" -c 'import lzo, cryptography' 2>"$TMP/err"; then
	fail "$PY lacks python3-lzo or python3-cryptography (tools/bootstrap.sh installs them)"
	cat "$TMP/err" >&2
	finish; exit 1
fi
if ! "$PY" "$GEN" "$FIX_IMG/k612-lzo.img" "$U" 2>"$TMP/err"; then
	fail "mkuswsusp.py"; cat "$TMP/err" >&2
	finish; exit 1
fi

meta() {  # meta VARIANT KEY
	python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]]
print(str(v).lower() if isinstance(v,bool) else v)' "$M" "$1" "$2"
}
hexof() { printf '0x%x' "$1"; }
eq() {    # eq WHAT GOT WANT
	if [ "$2" = "$3" ]; then ok; else fail "$1: got '$2', expected '$3'"; fi
}
roffs() { o=$(meta "$1" resume_offset); [ "$o" != 0 ] && echo "-R $o"; }

release=$(sidecar k612-lzo kernel_release)
check "generator found the kernel's banner" test "$(meta plain kernel_release)" = "$release"

for v in plain compressed checksum compressed-checksum swapfile; do
	img=$U/$v.img
	R=$(roffs $v)
	flags=$(meta $v flags)
	comp=none; [ $((flags & 2)) -ne 0 ] && comp=lzo

	# info: the container as the generator laid it out
	run_hib 0 info --json $R "$img"
	J=$TMP/out
	eq "$v kind" "$(json_get $J kind)" uswsusp
	eq "$v image-offset" "$(json_get $J image_offset)" "$(meta $v header_offset)"
	eq "$v usw-pages" "$(json_get $J usw_pages)" "$(meta $v pages)"
	eq "$v usw-flags" "$(json_get $J usw_flags)" "$flags"
	for f in checksum:1 compressed:2 encrypted:4 rsa:8 platform:16; do
		want=false; [ $((flags & ${f#*:})) -ne 0 ] && want=true
		eq "$v usw-${f%:*}" "$(json_get $J usw_${f%:*})" $want
	done
	eq "$v image-data-size" "$(json_get $J image_data_size)" "$(meta $v image_data_size)"
	eq "$v data-pages" "$(json_get $J data_pages)" "$(meta $v data_pages)"
	eq "$v map-start" "$(json_get $J map_start)" "$(meta $v map_start)"
	eq "$v extents" "$(json_get $J extents)" "$(meta $v extents)"
	eq "$v extent-pages" "$(json_get $J extent_pages)" "$(meta $v extent_pages)"
	layout="without CONFIG_ENCRYPT"
	[ "$(meta $v layout)" = encrypt ] && layout=CONFIG_ENCRYPT
	eq "$v header-layout" "$(json_get $J header_layout)" "$layout"
	check "$v writeout-time" python3 -c 'import sys
sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 5e-4)' \
		"$(json_get $J writeout_time)" "$(meta $v writeout_time)"
	eq "$v resume-pause" "$(json_get $J resume_pause)" "$(meta $v resume_pause)"
	if [ $((flags & 1)) -ne 0 ]; then
		eq "$v usw-md5" "$(json_get $J usw_md5)" "$(meta $v md5)"
	fi
	# the stream inside: swsusp_info, PFN list, memory
	eq "$v pages" "$(json_get $J pages)" "$(meta $v stream_pages)"
	eq "$v image-pages" "$(json_get $J image_pages)" "$(meta $v image_pages)"
	eq "$v meta-pages" "$(json_get $J meta_pages)" "$(meta $v meta_pages)"
	eq "$v compression" "$(json_get $J compression)" $comp
	eq "$v pfn-entries" "$(json_get $J pfn_entries)" "$(meta $v pfn_entries)"
	eq "$v zero-flagged" "$(json_get $J zero_flagged)" "$(meta $v zero_flagged)"
	eq "$v pfn-runs" "$(json_get $J pfn_runs)" "$(meta $v pfn_run_count)"
	eq "$v lowest-pfn" "$(json_get $J lowest_pfn)" "$(meta $v lowest_pfn)"
	eq "$v highest-pfn" "$(json_get $J highest_pfn)" "$(meta $v highest_pfn)"
	eq "$v release" "$(json_get $J release)" "$release"
	# the swap slots: the image's are the resume page, its header page,
	# extents pages and data pages; the others holding data are those the
	# generator filled as swapped out (a swap file is not counted)
	if [ -z "$R" ]; then
		eq "$v area-slots" "$(json_get $J area_slots)" $(( $(meta $v device_size) / 4096 ))
		eq "$v image-slots" "$(json_get $J image_slots)" \
			$(( 2 + $(meta $v extent_pages) + $(meta $v data_pages) ))
		eq "$v foreign-slots" "$(json_get $J foreign_slots)" "$(python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
print(sum(d.startswith(b"other swapped-out page", p) for p in range(0, len(d), 4096)))' "$img")"
	else
		eq "$v no slot count in a swap file" "$(json_get $J image_slots)" ""
	fi

	# verify: everything decoded, counts and MD5
	for t in 1 3; do
		run_hib 0 verify --json -T $t $R "$img"
		eq "$v -T$t status" "$(json_get $J status)" intact
		eq "$v -T$t stream-pages-good" "$(json_get $J stream_pages_good)" \
			$(( $(meta $v pages) - 1 ))
		eq "$v -T$t data-pages-good" "$(json_get $J data_pages_good)" \
			"$(meta $v image_pages)"
		if [ $comp = lzo ]; then
			eq "$v -T$t chunks" "$(json_get $J chunks)" "$(meta $v blocks)"
		else
			eq "$v -T$t chunks" "$(json_get $J chunks)" "$(meta $v pages)"
		fi
		eq "$v -T$t disk-pages-used" "$(json_get $J disk_pages_used)" \
			"$(meta $v data_pages)"
		if [ $((flags & 1)) -ne 0 ]; then
			eq "$v -T$t md5-computed" "$(json_get $J md5_computed)" "$(meta $v md5)"
			eq "$v -T$t md5-ok" "$(json_get $J md5_ok)" true
		else
			eq "$v -T$t no md5" "$(json_get $J md5_ok)" ""
		fi
	done

	# the saved memory, byte for byte
	timeout 120 "$HIBIMG" cat $R "$img" --pfn "$(meta $v pfn_runs)" >"$TMP/mem"
	eq "$v memory" "$(sha256sum <"$TMP/mem" | cut -d' ' -f1)" "$(meta $v memory_sha256)"

	# the extent chain, page by page
	run_hib 0 dump -J $R "$img" map
	eq "$v map rows" "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["map"]))' $J)" \
		"$(meta $v extent_pages)"
	eq "$v map first offset" "$(json_get $J offset)" "$(meta $v map_start)"
	eq "$v map entries and extents" "$(python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))["map"]
print(sum(r["entries"] for r in m), sum(r["extents"] for r in m))' $J)" \
		"$(meta $v data_pages) $(meta $v extents)"
done

# human output names the flags, and shows them and PFNs in hex (JSON has
# the numbers, checked above)
run_hib 0 info --no-scan "$U/compressed-checksum.img"
out_has "CHECKSUM,COMPRESSED,PLATFORM_SUSPEND"
out_has "^  flags  *$(hexof "$(meta compressed-checksum flags)")\$"
out_has "^  lowest PFN  *$(hexof "$(meta compressed-checksum lowest_pfn)")\$"

# several inputs: the worst status, an encrypted image below any damage
# (hibimg(1), EXIT STATUS), each input a record. The damaged one is the
# kernel's image with bit 0 of its stored CRC32 flipped (tests/files: bad-crc).
cp --sparse=always "$FIX_IMG/k612-lzo.img" "$TMP/damaged.img"
crc=$(od -An -t u4 -j $((4096 - 36)) -N 4 "$TMP/damaged.img" | tr -d ' ')
poke_u32 "$TMP/damaged.img" $((4096 - 36)) $((crc ^ 1))
run_hib 1 verify "$U/encrypted.img" "$TMP/damaged.img"
run_hib 4 verify --json "$U/encrypted.img" "$U/plain.img"
check "two records, encrypted then intact" test "$(python3 -c 'import json,sys
print(" ".join(r["status"] for r in json.load(open(sys.argv[1]))["verify"]))' "$TMP/out")" = \
	"encrypted intact"
run_hib 4 verify -q "$U/plain.img" "$U/encrypted.img"
check "verify -q prints nothing" test ! -s "$TMP/out"

# the encrypted variant, the damaged ones and what recompress refuses:
# tests/files/README (unsupported-usw-*, bad-usw-*), run by cli-cases.sh

finish
