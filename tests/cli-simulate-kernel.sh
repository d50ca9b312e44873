#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hibimg simulate judged by a real kernel (issue 18). Each nozerocheck pair of
# fixtures is two images of nearly the same memory written by kernels/k612nz
# (the seed's series): NAME with the zero-page check (nozerocheck=0), then,
# by the system restored from it, its pair= with nozerocheck=1 (zero pages
# stored as data). simulate on the first predicts the second: its scenario
# "zerocheck false, the image's compression" against what the nozerocheck=1
# kernel printed (sidecar, from its log) and against python's walk of that
# image (tests/pfndrift.py, no hibimg). The reverse direction too: simulate
# on the second predicts the first's zero-check numbers.
#
# The two snapshots differ by what ran in between (the resume, the guest's
# checks, new kworkers): pfndrift.py measures that drift from the two PFN
# lists and page contents, and every prediction error must be within the
# drift plus the codec's own deviation, and within 0.5 % (pages) or 2 %
# (compressed size). Page counts: the drift is the difference of the two
# PFN lists. Compressed size, LZO: python3-lzo (liblzo2's LZO1X-1, not the
# kernel's lzo1x_1) compresses both snapshots' streams the kernel's way, so
# the drift is measured with one codec, and the codec's deviation is
# python's size against each kernel's; LZ4 (no python compressor here):
# the codec's deviation on A (simulate's own-settings scenario against A's
# kernel: 0 where byte-exact) plus a whole page per page that differs, a
# loose bound, the 2 % being the sharp one.
. "$(dirname "$0")/lib.sh"

# scen JSON ZEROCHECK COMPRESSION KEY: KEY of that scenario of `simulate -J`
scen() {
	python3 -c 'import json, sys
for s in json.load(open(sys.argv[1]))["simulate"]["scenarios"]:
    if str(s["zerocheck"]).lower() == sys.argv[2] and s["compression"] == sys.argv[3]:
        print(s[sys.argv[4]]); break
else:
    sys.exit("no scenario zerocheck=%s compression=%s" % tuple(sys.argv[2:4]))' "$@"
}
abs() { if [ "$1" -lt 0 ]; then echo $((-$1)); else echo "$1"; fi; }
# within ERR REAL PERMILLE: ERR is at most PERMILLE/1000 of REAL
within() { [ $(($1 * 1000)) -le $(($2 * $3)) ]; }
# judge WHAT PRED REAL BOUND PERMILLE: one predicted number against the
# kernel's, its error within BOUND (drift + codec) and PERMILLE of REAL
judge() {
	err=$(abs $(($2 - $3)))
	printf '%-34s predicted %8s  kernel %8s  error %5s (%d.%02d %%)  bound %s\n' \
		"$name -> $pair: $1" "$2" "$3" "$err" \
		$((err * 100 / $3)) $((err * 10000 / $3 % 100)) "$4"
	check "$name -> $pair: $1: error $err within the drift + codec bound $4" \
		test "$err" -le "$4"
	check "$name -> $pair: $1: error $err within $5 permille of $3" within "$err" "$3" "$5"
}

npairs=0 comps=
for name in $(fixtures); do
	[ "$(sidecar "$name" nozerocheck)" = 0 ] || continue
	pair=$(sidecar "$name" pair)
	[ -n "$pair" ] || continue
	npairs=$((npairs + 1))
	comp=$(sidecar "$name" compression)
	comps="$comps $comp"
	A=$FIX_IMG/$name.img B=$FIX_IMG/$pair.img
	ws=$(sidecar "$name" word_size)
	sk() { sidecar "$pair" "$1"; }     # the nozerocheck=1 kernel's numbers
	ak() { sidecar "$name" "$1"; }     # the nozerocheck=0 kernel's numbers

	# the pair as the kernel printed it
	check "$pair: sidecar nozerocheck=1" test "$(sk nozerocheck)" = 1
	check "$pair: pair=$name" test "$(sk pair)" = "$name"
	check "$pair: same compression as $name" test "$(sk compression)" = "$comp"
	check "$pair: the kernel omitted no zero page" test "$(sk zero_pages)" = 0
	check "$pair: pages copied = need to copy" test "$(sk pages_copied)" = "$(sk need_to_copy)"

	# the drift between the two snapshots, python's walk of both disks
	lz=; [ "$comp" != lzo ] || lz=--lzo
	d=$(python3 "$top_srcdir/tests/pfndrift.py" "$A" "$B" "$ws" $lz)
	dv() { echo "$d" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	echo "# drift $name -> $pair: $d"
	check "$name: python's PFN entries = the kernel's need to copy" \
		test "$(dv a_entries)" = "$(ak need_to_copy)"
	check "$name: python's zero-flagged = the kernel's zero pages" \
		test "$(dv a_zero_flagged)" = "$(ak zero_pages)"
	check "$pair: python's PFN entries = the kernel's need to copy" \
		test "$(dv b_entries)" = "$(sk need_to_copy)"
	check "$pair: python finds no zero-flagged entry" test "$(dv b_zero_flagged)" = 0
	check "$pair: python's PFN-list pages = the kernel's saving - copied" \
		test "$(dv b_meta)" = $(($(sk saving_pages) - $(sk pages_copied)))
	# net: how many more pages B saved; churn: pages saved in one only or
	# different in the two (what the compressed size may differ by)
	net=$(abs $(($(dv b_entries) - $(dv a_entries))))
	dmeta=$(abs $(($(dv b_meta) - $(dv a_meta))))
	churn=$(($(dv only_a) + $(dv only_b) + $(dv changed)))
	dzero=$(abs $(($(dv b_zero_data) - $(dv a_zero_flagged))))

	run_hib 0 simulate -J "$A"
	sa=$TMP/sim-a.json; cp "$TMP/out" "$sa"
	run_hib 0 simulate -J "$B"
	sb=$TMP/sim-b.json; cp "$TMP/out" "$sb"

	# the codec's own deviation on this memory: simulate's MATCH scenario
	# (the image's own settings) on A against the size A's kernel printed
	own=$(( $(scen "$sa" true "$comp" compressed_bytes) / 1024 ))
	codec=$(abs $((own - $(ak size_after_compression_kbytes))))
	echo "# $name: codec deviation on its own image: $own vs the kernel's $(ak size_after_compression_kbytes) kbytes"
	if [ "$comp" = lzo ]; then
		# python's LZO sizes: the drift with one codec (A's memory
		# without the check against B's stream, B's with the check
		# against A's), the codec against each kernel's size
		ca=$(abs $(( $(dv lzo_a) / 1024 - $(ak size_after_compression_kbytes) )))
		cb=$(abs $(( $(dv lzo_b) / 1024 - $(sk size_after_compression_kbytes) )))
		dfwd=$(( ($(abs $(($(dv lzo_b) - $(dv lzo_a_nozc)))) + 1023) / 1024 ))
		drev=$(( ($(abs $(($(dv lzo_a) - $(dv lzo_b_zc)))) + 1023) / 1024 ))
		echo "# $name: python-lzo kbytes: A $(( $(dv lzo_a) / 1024 )) (kernel $(ak size_after_compression_kbytes)), A without the check $(( $(dv lzo_a_nozc) / 1024 )), B $(( $(dv lzo_b) / 1024 )) (kernel $(sk size_after_compression_kbytes)), B with the check $(( $(dv lzo_b_zc) / 1024 )): drift $dfwd / $drev, codec $ca / $cb"
		# 2 KiB: the kernel's and python's /1024 each round down
		cfwd=$((dfwd + ca + cb + 2)) crev=$((drev + ca + cb + 2))
	else
		# the same share of B's size, rounded up, and 1 KiB for the
		# kernel's /1024; a whole page for each page that differs
		codecb=$(( (codec * $(sk size_after_compression_kbytes) + $(ak size_after_compression_kbytes) - 1) / $(ak size_after_compression_kbytes) + 1 ))
		cfwd=$((codecb + churn * 4)) crev=$cfwd
	fi

	# ---- A predicts B: no zero-page check, the image's compression ----
	p=$(scen "$sa" false "$comp" image_pages)
	check "$name: without the check every saved PFN is copied ($p = python's $(dv a_entries))" \
		test "$p" = "$(dv a_entries)"
	judge "pages copied" "$p" "$(sk pages_copied)" "$net" 5
	m=$(scen "$sa" false "$comp" meta_pages)
	check "$name: PFN-list pages $m = python's $(dv a_meta)" test "$m" = "$(dv a_meta)"
	judge "PFN-list pages (python's walk)" "$m" "$(dv b_meta)" "$dmeta" 5
	judge "stream pages" "$(scen "$sa" false "$comp" stream_pages)" \
		"$(sk saving_pages)" $((net + dmeta)) 5
	judge "Wrote kbytes" $(( $(scen "$sa" false "$comp" stream_bytes) / 1024 )) \
		"$(sk wrote_kbytes)" $(( (net + dmeta) * 4 )) 5
	check "$name: the prediction stores no zero-flagged page" \
		test "$(scen "$sa" false "$comp" zero_flagged)" = 0
	judge "Image size after compression" \
		$(( $(scen "$sa" false "$comp" compressed_bytes) / 1024 )) \
		"$(sk size_after_compression_kbytes)" "$cfwd" 20

	# ---- B predicts A: the zero-page check back on ----
	p=$(scen "$sb" true "$comp" image_pages)
	check "$pair: with the check, B's non-zero data pages are copied ($p = python's $(dv b_entries) - $(dv b_zero_data))" \
		test "$p" = $(($(dv b_entries) - $(dv b_zero_data)))
	judge "reverse: pages copied" "$p" "$(ak pages_copied)" $((net + dzero)) 5
	z=$(scen "$sb" true "$comp" zero_flagged)
	check "$pair: zero pages found = python's $(dv b_zero_data)" test "$z" = "$(dv b_zero_data)"
	judge "reverse: zero pages" "$z" "$(ak zero_pages)" "$dzero" 5
	judge "reverse: stream pages" "$(scen "$sb" true "$comp" stream_pages)" \
		"$(ak saving_pages)" $((net + dzero + dmeta)) 5
	judge "reverse: Image size after compression" \
		$(( $(scen "$sb" true "$comp" compressed_bytes) / 1024 )) \
		"$(ak size_after_compression_kbytes)" "$crev" 20

	# B's own settings: what the nozerocheck=1 kernel wrote, page for page
	check "$pair: simulate's own scenario = the kernel's pages copied" \
		test "$(scen "$sb" false "$comp" image_pages)" = "$(sk pages_copied)"
	check "$pair: simulate's own scenario = the kernel's stream pages" \
		test "$(scen "$sb" false "$comp" stream_pages)" = "$(sk saving_pages)"
done
check "an LZO pair" test -n "$(echo "$comps" | grep -w lzo)"
check "an LZ4 pair" test -n "$(echo "$comps" | grep -w lz4)"

finish
