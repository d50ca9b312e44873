#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hibimg on images written by real kernels: its numbers must be the ones the
# kernel printed when it wrote them (fixtures/NAME.expect, from NAME.log), and
# the input must be byte-identical afterwards.
. "$(dirname "$0")/lib.sh"

n=0
# kernel_counts JSON LABEL: the page counts of a command's -J output against
# what the kernel printed (the sidecar of $name; zp its zero pages)
kernel_counts() {
	check "$name: ${2}stream pages = kernel's saving pages" \
		test "$(json_get "$1" stream_pages)" = "$(sidecar "$name" saving_pages)"
	check "$name: ${2}image pages = kernel's pages copied" \
		test "$(json_get "$1" image_pages)" = "$(sidecar "$name" pages_copied)"
	check "$name: ${2}PFN entries = kernel's need to copy" \
		test "$(json_get "$1" pfn_entries)" = "$(sidecar "$name" need_to_copy)"
	check "$name: ${2}zero-flagged = kernel's zero pages" \
		test "$(json_get "$1" zero_flagged)" = "${zp:-0}"
}

for name in $(fixtures); do
	img=$FIX_IMG/$name.img
	R=$(roff "$name")
	n=$((n + 1))
	before=$(sha256sum <"$img")

	run_hib 0 verify $R --json "$img"
	v=$TMP/verify.json; cp "$TMP/out" "$v"
	check "$name: status intact" test "$(json_get "$v" status)" = intact
	zp=$(sidecar "$name" zero_pages)
	kernel_counts "$v" ""
	check "$name: Wrote kbytes" \
		test "$(json_get "$v" wrote_kbytes)" = "$(sidecar "$name" wrote_kbytes)"
	sac=$(sidecar "$name" size_after_compression_kbytes)
	if [ -n "$sac" ]; then
		check "$name: size after compression" \
			test "$(json_get "$v" compressed_kbytes)" = "$sac"
	fi
	if [ "$(sidecar "$name" compression)" != none ]; then
		check "$name: CRC matches" test "$(json_get "$v" crc32_ok)" = true
	fi

	run_hib 0 info $R --json "$img"
	i=$TMP/info.json; cp "$TMP/out" "$i"
	check "$name: kind" test "$(json_get "$i" kind)" = swsusp
	# the page size the kernel was built with (its tag, fixtures/common.sh
	# ktag_pagesize), which the guest's mkswap used: 4096 where not stated
	ps=$(sidecar "$name" page_size); ps=${ps:-4096}
	check "$name: page size $ps" test "$(json_get "$i" page_size)" = "$ps"
	# the kernel's own figures agree with that page size: Wrote = saving
	# pages x PS / 1024 (two lines of its log, no hibimg)
	check "$name: the kernel's Wrote kbytes = saving pages x $ps / 1024" \
		test "$(sidecar "$name" wrote_kbytes)" = $(( $(sidecar "$name" saving_pages) * ps / 1024 ))
	arch=$(sidecar "$name" arch)
	if [ -n "$arch" ]; then
		check "$name: arch record $arch" test "$(json_get "$i" arch)" = "$arch"
	fi
	mpidr=$(sidecar "$name" hibernating_mpidr)
	if [ -n "$mpidr" ]; then
		# the kernel's "Hibernating on CPU N [mpidr:0x...]" against the record
		check "$name: sleep_cpu_mpidr = the kernel's $mpidr" \
			test "$(printf '0x%x' "$(json_get "$i" sleep_cpu_mpidr)")" = "$mpidr"
	fi
	check "$name: compression" \
		test "$(json_get "$i" compression)" = "$(sidecar "$name" compression)"
	check "$name: release from memory" \
		test "$(json_get "$i" release)" = "$(sidecar "$name" kernel_release)"
	check "$name: orig sig" test "$(json_get "$i" orig_sig)" = SWAPSPACE2
	# the banner the kernel printed when it booted (its log), not the weak
	# "# SMP " copy init/version.c keeps ahead of it in memory
	logbanner=$(tr -d '\r' <"$top_srcdir/fixtures/$name.log" | grep -o 'Linux version .*' | head -n1)
	check "$name: banner from memory = the log's Linux version line" \
		test "$(json_get "$i" banner)" = "$logbanner"

	# stats on every fixture (cli-stats.sh also checks the 4 KiB ones against
	# python's own count of the raw stream)
	run_hib 0 stats $R --json "$img"
	st=$TMP/stats.json; cp "$TMP/out" "$st"
	kernel_counts "$st" "stats "
	total=0
	for k in zero_flagged zero_data same_filled duplicate other; do
		total=$((total + $(json_get "$st" $k)))
	done
	check "$name: stats classes add up to the kernel's need to copy" \
		test "$total" = "$(sidecar "$name" need_to_copy)"

	# the word size the sidecar names (capture.sh: the kernel's
	# sizeof(long)), where it names one; the page size is checked above
	ws=$(sidecar "$name" word_size)
	if [ -n "$ws" ]; then
		check "$name: word size = the writer's sizeof(long) ($ws)" \
			test "$(json_get "$i" word_size)" = "$ws"
	fi
	# issue 18: the nozerocheck pairs (kernels/k612nz). Each names the
	# other, with the other setting; an image written with nozerocheck=1
	# stores its zero pages as data: none flagged, and stats finds them
	# among the data pages (python's count of all-zero data pages)
	nz=$(sidecar "$name" nozerocheck)
	if [ -n "$nz" ]; then
		pr=$(sidecar "$name" pair)
		check "$name: its pair $pr names it back" test "$(sidecar "$pr" pair)" = "$name"
		check "$name: its pair has the other nozerocheck" \
			test "$(sidecar "$pr" nozerocheck)" = $((1 - nz))
	fi
	if [ "$nz" = 1 ]; then
		check "$name: nozerocheck=1: the reader flags no zero page" \
			test "$(json_get "$v" zero_flagged)" = 0
		zd=$(python3 "$top_srcdir/tests/pfndrift.py" "$img" "$img" "${ws:-8}" |
			tr ' ' '\n' | sed -n 's/^b_zero_data=//p')
		check "$name: python finds zero pages stored as data ($zd)" test "${zd:-0}" -gt 0
		check "$name: stats' zero data pages = python's $zd" \
			test "$(json_get "$st" zero_data)" = "$zd"
	fi
	# 32-bit x86 with highmem: PFNs above lowmem are in the image. The zone
	# is the kernel's boot line, the PFNs python's own walk of the disk.
	hz=$(sidecar "$name" highmem_zone)
	if [ -n "$hz" ]; then
		hlo=$(( ${hz%-*} / 4096 )) hhi=$(( ${hz#*-} / 4096 ))
		w=$(/usr/bin/python3 "$top_srcdir/tests/pfnwalk.py" "$img" "$ws" "$hlo")
		wv() { echo "$w" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
		check "$name: python walks the kernel's need_to_copy PFNs ($w)" \
			test "$(wv entries)" = "$(sidecar "$name" need_to_copy)"
		check "$name: highmem PFNs saved (>= $hlo: $(wv at_or_above))" \
			test "$(wv at_or_above)" -gt 0
		check "$name: highest PFN (hibimg) = python's" \
			test "$(json_get "$i" highest_pfn)" = "$(wv highest)"
		check "$name: highest PFN inside the HighMem zone [$hlo, $hhi]" \
			test "$(wv highest)" -ge "$hlo" -a "$(wv highest)" -le "$hhi"
	fi

	run_hib 0 info $R "$img";            out_has "Hibernation header"
	run_hib 0 verify $R "$img";          out_has "intact"
	run_hib 0 dump $R "$img" header;     out_has "S1SUSPEND"
	run_hib 0 dump $R --json "$img" map; out_has '"map"'
	run_hib 0 dump $R -r -n "$img" chunks
	chunks=$(wc -l <"$TMP/out")
	pages=$(sidecar "$name" saving_pages)
	if [ "$(sidecar "$name" compression)" = none ]; then want=$pages
	else want=$(( (pages + 31) / 32 )); fi
	check "$name: one chunk per 32 stream pages ($chunks vs $want)" test "$chunks" = "$want"
	run_hib 0 dump $R -r -n "$img" pfns
	runs_total=$(awk '{s += $4} END {print s}' "$TMP/out")
	check "$name: PFN runs cover every entry" \
		test "$runs_total" = "$(sidecar "$name" need_to_copy)"
	first=$(awk 'NR==1 {print $2}' "$TMP/out")
	run_hib 0 dump $R "$img" page "$first"; out_has "|"
	run_hib 0 dump $R -f -O "$TMP/page" "$img" page "$first"
	check "$name: raw page is one page of $ps bytes" test "$(stat -c %s "$TMP/page")" = "$ps"

	after=$(sha256sum <"$img")
	check "$name: input unchanged" test "$before" = "$after"
done
check "at least the four kernel variants" test "$n" -ge 4

# Areas a real kernel already resumed from: the signature is SWAPSPACE2
# again, the rest of the image stays. verify refuses them unless asked to
# read the remains; what is left is compared with what the kernel printed
# when it wrote the image (sidecar keys of the fixture it was spent from).
for name in $(spent_fixtures); do
	img=$FIX_IMG/$name.img
	src=$(sidecar "$name" spent_from)
	run_hib 2 verify "$img"; err_has "spent image"; err_has "--spent"
	run_hib 0 info --json --no-scan "$img"
	check "$name: info says spent" test "$(json_get "$TMP/out" kind)" = spent
	check "$name: info reads the remains" \
		test "$(json_get "$TMP/out" pfn_entries)" = "$(sidecar "$name" need_to_copy)"
	run_hib 0 verify --spent --json "$img"
	v=$TMP/spent.json; cp "$TMP/out" "$v"
	check "$name: remains intact" test "$(json_get "$v" status)" = intact
	check "$name: spent flagged" test "$(json_get "$v" spent)" = true
	check "$name: same stream as $src" \
		test "$(json_get "$v" stream_pages)" = "$(sidecar "$src" saving_pages)"
	check "$name: same zero pages as $src" \
		test "$(json_get "$v" zero_flagged)" = "$(sidecar "$src" zero_pages)"
	check "$name: CRC still holds" test "$(json_get "$v" crc32_ok)" = true
done

finish
