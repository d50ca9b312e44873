#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hibimg stats / simulate. Page counts are checked against what the kernel
# printed (fixtures/NAME.expect) or against a count python makes from the
# raw uncompressed stream, never against lib/stats.c itself; simulated sizes
# against the image's own chunks; the seed-mail shape against the seed's
# own rates.
. "$(dirname "$0")/lib.sh"

MKIMAGE=${MKIMAGE:-$top_builddir/tests/mkimage}

# rawcount IMG [WORD]: reads an uncompressed image with its swap map,
# independently of libhibimg, and prints "entries flagged zero_data same dup
# highest". WORD: the writer's sizeof(long) (sidecar word_size, default 8):
# swsusp_info's fields and the PFN entries are unsigned long; map entries
# are u64 (sector_t) on both.
rawcount() {
	python3 - "$1" "${2:-8}" <<'EOF'
import struct, sys
f = open(sys.argv[1], 'rb')
ws = int(sys.argv[2])
L = 'I' if ws == 4 else 'Q'
def page(n):
    f.seek(n * 4096); return f.read(4096)
hdr = page(0)
assert hdr[4086:4096] == b'S1SUSPEND\0' or hdr[4086:4095] == b'S1SUSPEND', hdr[4086:]
mp = struct.unpack_from('<Q', hdr, 4064)[0]
entries = []
while mp:
    m = page(mp)
    entries += [e for e in struct.unpack_from('<511Q', m) if e]
    mp = struct.unpack_from('<Q', m, 4088)[0]
info = page(entries[0])
# image_pages, pages: after num_physpages and cpus, at 416 (LP64) / 404 (ILP32)
image_pages, pages = struct.unpack_from('<2' + L, info, 416 if ws == 8 else 404)
meta = pages - image_pages - 1
assert len(entries) == pages, (len(entries), pages)
pfns = []
for i in range(meta):
    for v in struct.unpack('<%d%s' % (4096 // ws, L), page(entries[1 + i])):
        if v == (1 << (8 * ws)) - 1: break
        pfns.append(v)
flag = 1 << (8 * ws - 1)
flagged = sum(1 for v in pfns if v & flag)
zero = same = dup = 0
seen = set()
for i in range(image_pages):
    d = page(entries[1 + meta + i])
    w = struct.unpack('<512Q', d)
    if not any(w): zero += 1
    elif all(x == w[0] for x in w): same += 1
    elif d in seen: dup += 1
    else: seen.add(d)
print(len(pfns), flagged, zero, same, dup, max(v & ~flag for v in pfns))
EOF
}

# jrow FILE FILTER KEY: KEY of the first row of the only table where every
# "k=v" of FILTER (comma-separated) matches.
jrow() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); rows=list(d.values())[0]
if isinstance(rows, dict): rows=rows["scenarios"]
flt=[kv.split("=",1) for kv in sys.argv[2].split(",") if kv]
def s(v): return str(v).lower() if isinstance(v,bool) else str(v)
m=[r for r in rows if all(s(r.get(k))==v for k,v in flt)]
print(s(m[0].get(sys.argv[3])) if m else "")' "$1" "$2" "$3"
}

jsum() {  # jsum FILE KEY: sum of KEY over the rows
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); print(sum(int(r[sys.argv[2]]) for r in list(d.values())[0]))' "$1" "$2"
}

within() {  # within A B PERCENT: |A-B| <= PERCENT% of B
	python3 -c 'import sys; a,b,p=map(float,sys.argv[1:]); sys.exit(0 if abs(a-b) <= p/100*b else 1)' "$1" "$2" "$3"
}

diffpct() {
	python3 -c 'import sys; a,b=map(float,sys.argv[1:]); print("%+.3f%%" % (100*(a-b)/b))' "$1" "$2"
}

# --- help, usage --------------------------------------------------------------
run_hib 0 stats --help;    out_has "Usage:"; out_has "--bucket"; out_has "--svg"
run_hib 0 simulate --help; out_has "Usage:"; out_has "--disk-write"; out_has "--calibrate"
run_hib 0 --help;          out_has "stats"; out_has "simulate"
run_hib 2 stats;           err_has "no image given"
run_hib 2 simulate;        err_has "no image given"
run_hib 2 stats --bucket 0 x.img
run_hib 2 simulate --disk-write fast x.img
for m in stats simulate; do
	check "man page hibimg-$m.1" grep -q "^\.TH HIBIMG-$(echo $m | tr a-z A-Z) 1" "$top_srcdir/man/hibimg-$m.1"
	check "hibimg.1 lists $m" grep -q "^\.B $m\$" "$top_srcdir/man/hibimg.1"
done

# --- fixtures -----------------------------------------------------------------
n6=0
for name in $(fixtures0); do
	img=$FIX_IMG/$name.img
	comp=$(sidecar "$name" compression)
	if [ ! -e "$img" ]; then
		echo "# $name: no $img (not in FIXTURE_NAMES?), skipped"
		continue
	fi

	run_hib 0 verify --json "$img"
	v=$TMP/verify.json; cp "$TMP/out" "$v"
	run_hib 0 stats --json --svg "$TMP/$name.svg" "$img"
	s=$TMP/stats.json; cp "$TMP/out" "$s"

	# the raw stream, uncompressed, read by python without the library's help
	raw=$img
	if [ "$comp" != none ]; then
		raw=$TMP/raw.img
		run_hib 0 recompress -f --to none --unsafe-extra-slots "$img" "$raw"
	fi
	set -- $(rawcount "$raw" "$(sidecar "$name" word_size)")
	r_entries=$1 r_flagged=$2 r_zero=$3 r_same=$4 r_dup=$5 r_high=$6
	check "$name: python read the raw stream" test -n "$r_high"

	zp=$(sidecar "$name" zero_pages)
	if [ -n "$zp" ]; then
		n6=$((n6 + 1))
		check "$name: zero-flagged = kernel's zero pages ($zp)" \
			test "$(json_get "$s" zero_flagged)" = "$zp"
		if [ "$(sidecar "$name" nozerocheck)" = 1 ]; then
			# the seed's nozerocheck=1 (kernels/k612nz): a 6.6+
			# kernel that stores its zero pages as data
			check "$name: nozerocheck=1: zero data pages = python's count ($r_zero)" \
				test "$(json_get "$s" zero_data)" = "$r_zero"
			check "$name: nozerocheck=1: python finds zero data pages" \
				test "$r_zero" -gt 0
		else
			check "$name: no zero data pages in a 6.6+ image" \
				test "$(json_get "$s" zero_data)" = 0
		fi
	else
		check "$name: zero data pages = python's count ($r_zero)" \
			test "$(json_get "$s" zero_data)" = "$r_zero"
		check "$name: nothing zero-flagged before 6.6" \
			test "$(json_get "$s" zero_flagged)" = 0
	fi
	check "$name: zero-flagged = python's count of flag bits ($r_flagged)" \
		test "$(json_get "$s" zero_flagged)" = "$r_flagged"
	check "$name: same-filled = python's ($r_same)" \
		test "$(json_get "$s" same_filled)" = "$r_same"
	check "$name: duplicates = python's byte-exact count ($r_dup)" \
		test "$(json_get "$s" duplicate)" = "$r_dup"
	total=0
	for k in zero_flagged zero_data same_filled duplicate other; do
		total=$((total + $(json_get "$s" ${k})))
	done
	check "$name: classes add up to the kernel's need to copy" \
		test "$total" = "$(sidecar "$name" need_to_copy)"
	check "$name: highest PFN = python's ($r_high)" \
		test "$(json_get "$s" highest_pfn)" = "$r_high"

	run_hib 0 stats --json "$img" buckets
	check "$name: buckets hold every saved PFN" \
		test "$(jsum "$TMP/out" pfn_entries)" = "$r_entries"
	run_hib 0 stats --json --bucket 100 "$img" buckets
	check "$name: --bucket 100 gives highest/100+1 buckets" \
		test "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["buckets"]))' "$TMP/out")" = $((r_high / 100 + 1))
	run_hib 0 stats --json "$img" ranges
	check "$name: ranges hold every saved PFN" \
		test "$(jsum "$TMP/out" pfn_entries)" = "$r_entries"
	run_hib 0 stats --json "$img" chunks
	ch=$TMP/chunks.json; cp "$TMP/out" "$ch"
	check "$name: one chunk per 32 stream pages" \
		test "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["chunks"]))' "$ch")" \
		= $(( ($(sidecar "$name" saving_pages) + 31) / 32 ))
	if [ "$comp" != none ]; then
		cb=$(json_get "$v" compressed_bytes)
		check "$name: per-chunk image sizes add up to verify's compressed bytes" \
			test "$(jsum "$ch" compressed_bytes)" = "$cb"
		mine=$(json_get "$s" "${comp}_bytes")
		echo "# $name: stats $comp over the rebuilt stream $mine, image $cb ($(diffpct "$mine" "$cb"))"
		check "$name: rebuilt stream compresses like the image (2%)" within "$mine" "$cb" 2
	fi
	check "$name: SVG is XML with a cell per bucket" python3 -c '
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]); ns = "{http://www.w3.org/2000/svg}"
cells = [g for g in t.getroot().iter(ns + "g") if g.find(ns + "title") is not None]
sys.exit(0 if len(cells) == int(sys.argv[2]) else 1)' "$TMP/$name.svg" "$(json_get "$s" buckets)"

	# simulate: the scenario written like the image must be the image
	run_hib 0 simulate --json "$img"
	j=$TMP/sim.json; cp "$TMP/out" "$j"
	check "$name: exactly one scenario matches the image" \
		test "$(python3 -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1]))["simulate"]["scenarios"] if r["match"]))' "$j")" = 1
	check "$name: simulate matches with the image's compression" \
		test "$(jrow "$j" match=true compression)" = "$comp"
	check "$name: simulated pages copied = kernel's" \
		test "$(jrow "$j" match=true image_pages)" = "$(sidecar "$name" pages_copied)"
	check "$name: simulated zero pages = kernel's" \
		test "$(jrow "$j" match=true zero_flagged)" = "${zp:-0}"
	check "$name: simulated stream pages = kernel's saving pages" \
		test "$(jrow "$j" match=true stream_pages)" = "$(sidecar "$name" saving_pages)"
	check "$name: simulated Wrote kbytes = kernel's" \
		test $(( $(jrow "$j" match=true stream_bytes) / 1024 )) = "$(sidecar "$name" wrote_kbytes)"
	check "$name: zero check off copies every PFN" \
		test "$(jrow "$j" zerocheck=false,compression=$comp image_pages)" = "$(sidecar "$name" need_to_copy)"
	if [ "$comp" != none ]; then
		sim=$(jrow "$j" match=true compressed_bytes)
		echo "# $name: simulate $comp $sim bytes, image chunks $cb ($(diffpct "$sim" "$cb"))"
		check "$name: simulated compressed size within 2% of the image's" within "$sim" "$cb" 2
		sac=$(sidecar "$name" size_after_compression_kbytes)
		if [ -n "$sac" ]; then
			echo "# $name: simulate $((sim / 1024)) kbytes, kernel printed $sac ($(diffpct $((sim / 1024)) "$sac"))"
			check "$name: within 2% of the kernel's size after compression" \
				within $((sim / 1024)) "$sac" 2
		fi
	fi
done
check "at least two fixtures" test "$(fixtures | wc -l)" -ge 2

# --- the seed mail's shape -----------------------------------------------------
# Its memory: 4940240 of 6275216 kbytes non-zero, i.e. a zero share of 0.2127.
src=$(for name in $(fixtures0); do printf '%s ' "$FIX_IMG/$name.img"; done)
# shellcheck disable=SC2086
"$MKIMAGE" --pages 3000 --zero-share 0.2127 --zero-mode omit --to lzo "$TMP/seed.img" $src >"$TMP/mk" 2>&1
check "mkimage built the seed-mix image" test $? = 0
zf=$(sed -n 's/.* \([0-9]*\) zero-flagged.*/\1/p' "$TMP/mk")
run_hib 0 simulate --json --threads 3 "$TMP/seed.img"
j=$TMP/seed.json; cp "$TMP/out" "$j"
check "seed mix: zero pages as mkimage made them ($zf)" test "$(jrow "$j" match=true zero_flagged)" = "$zf"
# critical section from the seed's own figures: 11.33 s vs 3.96 s for
# 6275216 kbytes -> with the zero check N(1-z)/436.03, without N/1584.65
want=$(python3 -c 'print(1584.65 * (4940240 / 6275216) / 436.03)')
got=$(python3 -c 'import sys; print(float(sys.argv[1]) / float(sys.argv[2]))' \
	"$(jrow "$j" zerocheck=true,compression=lzo critical_s)" "$(jrow "$j" zerocheck=false,compression=lzo critical_s)")
echo "# seed mix: critical section shorter by x$got without the zero check (seed: x$want)"
check "seed mix: critical section ~3x shorter (x$got vs x$want)" within "$got" "$want" 1
on=$(jrow "$j" zerocheck=true,compression=lzo compressed_bytes)
off=$(jrow "$j" zerocheck=false,compression=lzo compressed_bytes)
echo "# seed mix: lzo compressed $on -> $off bytes ($(diffpct "$off" "$on")); seed: 2606402 -> 2616624 kB (+0.39%)"
check "seed mix: compressed size almost unchanged (1%)" within "$off" "$on" 1
check "seed mix: uncompressed stream grows by exactly the zero pages" \
	test $(( $(jrow "$j" zerocheck=false,compression=lzo stream_bytes) - $(jrow "$j" zerocheck=true,compression=lzo stream_bytes) )) = $((zf * 4096))
check "seed mix: zero check off copies all 3000 pages" \
	test "$(jrow "$j" zerocheck=false,compression=none image_pages)" = 3000
check "seed mix: zstd labelled as not the kernel's" \
	test "$(jrow "$j" compression=zstd kernel_supported)" = false
run_hib 0 simulate "$TMP/seed.img"; out_has "Before (zero check"; out_has "Time in the critical section"
# the rest of the document: the before/after table from the same scenarios,
# and the model's inputs as given
check "seed mix: the before/after table is the scenarios' (JSON)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["simulate"]
sc = {(r["zerocheck"], r["compression"]): r for r in d["scenarios"]}
m = d["model"]
for row in d["compare"]:
    b, a = sc[(True, m["compare"])][row["metric"]], sc[(False, m["compare"])][row["metric"]]
    if abs(row["before"] - b) > 1e-6 * max(1, b) or abs(row["after"] - a) > 1e-6 * max(1, a):
        sys.exit(1)
sys.exit(0 if m["threads"] == 3 and len(d["compare"]) == 7 else 1)' "$j"
run_hib 0 simulate --json -w 123 -W 456 --zstd-level 5 --rate-zerocheck 400@0.3 --nozerocheck-loop "$TMP/seed.img"
check "every model input given is in the JSON" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["simulate"]["model"]
sys.exit(0 if (m["disk_write"], m["disk_read"], m["zstd_level"], m["rate_zerocheck"],
	       m["rate_zerocheck_share"], m["nozerocheck_loop"], m["calibrated"]) ==
	 (123, 456, 5, 400, 0.3, True, False) else 1)' "$TMP/out"
COLUMNS=80 run_hib 0 simulate "$TMP/seed.img"
check "simulate fits an 80-column terminal" sh -c "! awk 'length > 80' '$TMP/out' | grep -q ."
run_hib 0 simulate -o compression,zerocheck,hibernate_s -r -n "$TMP/seed.img"
check "-o: the scenario columns asked, in order" \
	test "$(head -1 "$TMP/out" | awk '{print $1, $2, NF}')" = "none true 3"
run_hib 0 simulate -r "$TMP/seed.img"
check "simulate -r has no \\x escapes" sh -c "! grep -q '\\\\x' '$TMP/out'"
run_hib 0 simulate -P "$TMP/seed.img"
check "simulate -P lines are shell assignments" sh -c ". '$TMP/out'"
run_hib 0 simulate -q "$TMP/seed.img"
check "simulate -q prints nothing" test ! -s "$TMP/out"
run_hib 0 simulate --list-columns; out_has "^kernel_supported "
run_hib 3 simulate -J /nonexistent/img
check "simulate -J on an error: one JSON document" python3 -c '
import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["exit"] == 3 else 1)' "$TMP/out"

# the same memory written the nozerocheck way: the "off" scenario is the image
# shellcheck disable=SC2086
"$MKIMAGE" --pages 3000 --zero-share 0.2127 --zero-mode store --to lzo "$TMP/seed-store.img" $src >/dev/null 2>&1
run_hib 0 simulate --json "$TMP/seed-store.img"
check "stored zero pages: the matching scenario has the check off" \
	test "$(jrow "$TMP/out" match=true zerocheck)" = false
check "stored zero pages: every page copied" test "$(jrow "$TMP/out" match=true image_pages)" = 3000
run_hib 0 stats --json "$TMP/seed-store.img"
check "stored zero pages: counted as zero data ($zf)" test "$(json_get "$TMP/out" zero_data)" = "$zf"

run_hib 0 simulate --json --calibrate "$TMP/seed.img"
check "--calibrate measures a copy_page rate" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["simulate"]["scenarios"]; sys.exit(0 if r[1]["copy_rate"] > 0 and r[1]["copy_rate"] != 1584.65 else 1)' "$TMP/out"

# the thread count changes no count (only the measured rates may differ)
first=$(fixtures0 | head -1)
run_hib 0 stats -T 1 --json "$FIX_IMG/$first.img"; grep -v 'mbps' "$TMP/out" >"$TMP/s1"
run_hib 0 stats -T 3 --json "$FIX_IMG/$first.img"; grep -v 'mbps' "$TMP/out" >"$TMP/s3"
check "stats -T 1 and -T 3 count the same" cmp -s "$TMP/s1" "$TMP/s3"

# --- several inputs, the views, errors once ----------------------------------
set -- $(fixtures0)
A=$FIX_IMG/$1.img B=$FIX_IMG/$2.img
run_hib 0 stats -C --json "$A" "$B"
check "two specs: two records, in order, each its kernel's need to copy" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["stats"]
sys.exit(0 if [(x["path"], x["pfn_entries"], x["status"]) for x in r] ==
	 [(sys.argv[2], int(sys.argv[3]), "intact"), (sys.argv[4], int(sys.argv[5]), "intact")] else 1)' \
	"$TMP/out" "$A" "$(sidecar "$1" need_to_copy)" "$B" "$(sidecar "$2" need_to_copy)"
run_hib 0 stats -C --json "$A" "$B" ranges
check "ranges of two specs: one table, every saved PFN of both" \
	test "$(jsum "$TMP/out" pfn_entries)" = $(( $(sidecar "$1" need_to_copy) + $(sidecar "$2" need_to_copy) ))
run_hib 0 stats -C "$A" "$B" classes
out_has "^PATH  *CLASS"
run_hib 0 stats -C "$A" classes
check "one spec: no PATH column" sh -c "! grep -q '^PATH' '$TMP/out'"
run_hib 0 stats "$A" chunks
out_has "^INDEX"
run_hib 3 stats -C "$A" /nonexistent/img
check "an error once, on stderr" test "$(grep -c 'cannot open /nonexistent/img' "$TMP/err")" = 1
check "no error row on stdout" sh -c "! grep -q nonexistent '$TMP/out'"
out_has "PFNs saved"
run_hib 3 stats -C -J "$A" /nonexistent/img
check "JSON carries the error in the input's record" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["stats"]
sys.exit(0 if r[1]["status"] == "io-error" and "cannot open" in r[1]["error"] and
	 r[0]["status"] == "intact" else 1)' "$TMP/out"
run_hib 3 stats -J /nonexistent/img ranges
check "a table view's error is a JSON row too" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["ranges"]
sys.exit(0 if len(r) == 1 and r[0]["status"] == "io-error" else 1)' "$TMP/out"
run_hib 0 stats -C -q "$A"
check "-q prints nothing" test ! -s "$TMP/out"
run_hib 0 stats -C -P "$A"
check "-P lines are shell assignments" sh -c ". '$TMP/out'"
check "-P: PFN_ENTRIES is the kernel's need to copy" \
	test "$(sed -n 's/^PFN_ENTRIES="\(.*\)"$/\1/p' "$TMP/out")" = "$(sidecar "$1" need_to_copy)"
run_hib 0 stats -C -r "$A"
check "-r has no \\x escapes" sh -c "! grep -q '\\\\x' '$TMP/out'"
out_has "^zero_flagged="
run_hib 0 stats -C -J "$A"
hi=$(json_get "$TMP/out" highest_pfn)
run_hib 0 stats -C -o highest_pfn,pfn_entries "$A"
check "-o gives the fields asked, in order, the PFN in hex" \
	test "$(awk '{print $NF}' "$TMP/out" | paste -sd' ')" = "$(printf '0x%x' "$hi") $(sidecar "$1" need_to_copy)"
run_hib 0 stats -C -o pfn_entries,start_pfn -r "$A" ranges
check "-o on a table: those columns, in order" \
	test "$(head -1 "$TMP/out" | awk '{print NF}')" = 2
run_hib 0 stats --list-columns chunks;  out_has "^lzo_bytes "
run_hib 0 stats --list-columns;         out_has "^zero_flagged "
run_hib 2 stats --svg "$TMP/x.svg" "$A" "$B"; err_has "one <spec>"
run_hib 2 stats -s "$TMP/x.svg" "$A";   err_has "invalid option"
run_hib 2 stats -B 0 "$A";              err_has "invalid bucket size"

finish
