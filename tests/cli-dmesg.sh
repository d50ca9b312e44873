#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hibimg dmesg and the kernel's identity in info, against what the same
# boot printed on its serial console (fixtures/*.log) and what the kernel
# file says (build_id= of the sidecars, fixtures/build-id.sh: readelf):
# - dmesg holds >= 95 % of the console's kernel lines up to "Creating
#   image", in order, by text (tests/dmesg_compare.py, plain python);
# - uname -v is the tail of the console's "Linux version" line, uname -r
#   the sidecar's kernel_release, the command line the console's "Kernel
#   command line:" line, BUILD-ID the kernel file's;
# - every fixture kernel is translated: x86_64, arm64, i386, riscv64;
# - the input is never written.
. "$(dirname "$0")/lib.sh"

CMP="python3 $top_srcdir/tests/dmesg_compare.py"
PCT_MIN=95

for name in $(fixtures) $(spent_fixtures); do
	img=$FIX_IMG/$name.img
	[ -f "$img" ] || { fail "$name: $img missing (make fixtures)"; continue; }
	R=$(roff "$name")
	# the boot whose memory the image holds: a spent image's is its
	# source's; a -nozc image was written by the system restored from
	# its pair's first image, whose boot that is
	src=$(sidecar "$name" spent_from)
	src=${src:-${name%-nozc}}
	log=$FIX_SRC/$src.log
	before=$(sha256sum <"$img")
	run_hib 0 dmesg $R --spent "$img"
	cp "$TMP/out" "$TMP/dmesg"
	set -- $($CMP "$log" "$TMP/dmesg" 2>"$TMP/missing")
	echo "$name: dmesg holds $1 of $2 console lines ($3 %)"
	check "$name: dmesg holds >= $PCT_MIN % of $src.log's kernel lines ($1/$2)" \
		test "$2" -gt 50 -a $(( $1 * 100 )) -ge $(( $2 * PCT_MIN ))

	run_hib 0 info $R --json "$img"
	i=$TMP/info.json; cp "$TMP/out" "$i"
	check "$name: BUILD-ID = the kernel file's (readelf)" \
		test "$(json_get "$i" build_id)" = "$(sidecar "$name" build_id)"
	banner=$(tr -d '\r' <"$log" | grep -o 'Linux version .*' | head -n1)
	v=$(json_get "$i" uname_version)
	check "$name: uname -v ($v) ends the console's Linux version line" \
		sh -c 'test -n "$1" && case "$2" in *" $1") exit 0;; esac; exit 1' _ "$v" "$banner"
	check "$name: uname -r = kernel_release" \
		test "$(json_get "$i" uname_release)" = "$(sidecar "$name" kernel_release)"
	cl=$(tr -d '\r' <"$log" | sed -n 's/.*\] Kernel command line: //p' | head -n1)
	check "$name: command line = the console's Kernel command line" \
		test "$(json_get "$i" cmdline)" = "$cl"
	check "$name: the input is unchanged" test "$(sha256sum <"$img")" = "$before"
done

# the comparison itself can fail: a log cut before its end misses lines
img=$FIX_IMG/k612-lzo.img
run_hib 0 dmesg "$img"
head -n 100 "$TMP/out" >"$TMP/short"
set -- $($CMP "$FIX_SRC/k612-lzo.log" "$TMP/short" 2>/dev/null)
check "dmesg_compare: a cut log falls below $PCT_MIN % ($3)" \
	test $(( $1 * 100 )) -lt $(( $2 * PCT_MIN ))
# and lines out of order do not count
tac "$TMP/out" >"$TMP/rev"
set -- $($CMP "$FIX_SRC/k612-lzo.log" "$TMP/rev" 2>/dev/null)
check "dmesg_compare: the log reversed falls below $PCT_MIN % ($3)" \
	test $(( $1 * 100 )) -lt $(( $2 * PCT_MIN ))

# levels: -l keeps only those; -x names them; -J holds every record
run_hib 0 dmesg -l notice "$img"
check "-l notice: the banner is a notice (pr_notice)" grep -q '] Linux version ' "$TMP/out"
check "-l notice: fewer lines than all" test "$(wc -l <"$TMP/out")" -lt 100
run_hib 0 dmesg -x "$img"
check "-x: kern:notice before the banner" grep -q '^kern  :notice: \[ *0\.000000\] Linux version ' "$TMP/out"
run_hib 2 dmesg -l loud "$img"
err_has "unknown level 'loud'"

# no VMCOREINFO: exit 6. An uncompressed image stores its pages as they
# are, so the note page is found on the disk by python and its first
# byte changed (no CRC covers raw pages): the image still reads.
nv=$TMP/novmci.img
cp --sparse=always "$FIX_IMG/k61-nocompress.img" "$nv"
off=$(python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
print(next(i for i in range(0, len(d), 4096) if d[i:i + 10] == b"OSRELEASE="))' "$nv")
poke_str "$nv" "$off" X
run_hib 0 verify "$nv"
run_hib 6 dmesg "$nv"
err_has "no VMCOREINFO page"
check "no VMCOREINFO: nothing on stdout" test ! -s "$TMP/out"

# no image: usage (2); a damaged copy: 1 (the reader checks every chunk)
run_hib 2 dmesg
dam=$TMP/damaged.img
cp --sparse=always "$img" "$dam"
poke_u64 "$dam" $((4096 - 32)) 0
run_hib 1 dmesg "$dam"
finish
