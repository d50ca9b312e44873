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
# - a damaged copy (tests/damage.py), --partial: with a chunk lost that
#   holds neither the VMCOREINFO page nor init_uts_ns nor the log's text
#   (found by damage.py's own walk), info still shows the same identity
#   and dmesg the same >= 95 %, exit 5; the VMCOREINFO page's chunk lost,
#   info says the kernel's variables are not read and dmesg exits 6; the
#   log text's chunk lost, its records are skipped and counted; without
#   --partial both fail as before;
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

# a pre-5.10 kernel exports SYMBOL(log_buf), not SYMBOL(prb) (log_buf_vmcoreinfo_setup()):
# the same kind of poke turns this note into that shape, and dmesg names the layout
# it does not read instead of guessing (exit 6)
ol=$TMP/oldlog.img
cp --sparse=always "$FIX_IMG/k61-nocompress.img" "$ol"
eval "$(python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
a, b = d.index(b"SYMBOL(prb)="), d.index(b"SYMBOL(printk_rb_static)=")
e = d.index(b"\n", b)
print("prb=%d rbs=%d rbslen=%d" % (a, b, e - b))' "$ol")"
poke_str "$ol" "$prb" "SYMBOL(prX)="
new=$(printf 'SYMBOL(log_buf)=ffffffff81836480\nPAD=%0*d' $((rbslen - 37)) 0)
check "old-layout poke keeps the note's length" test "${#new}" -eq "$rbslen"
poke_str "$ol" "$rbs" "$new"
run_hib 0 verify "$ol"
run_hib 6 dmesg "$ol"
err_has "VMCOREINFO has SYMBOL(log_buf), no SYMBOL(prb): this kernel keeps its log in the pre-5.10 log_buf layout"
check "old layout: nothing on stdout" test ! -s "$TMP/out"

# no image: usage (2); a damaged copy: 1 (the reader checks every chunk)
run_hib 2 dmesg
dam=$TMP/damaged.img
cp --sparse=always "$img" "$dam"
poke_u64 "$dam" $((4096 - 32)) 0
run_hib 1 dmesg "$dam"

# --partial: one chunk's length word made absurd (the walk goes on at the
# next chunk the map lists, kernel: "Invalid lzo compressed length")
DMG="python3 $top_srcdir/tests/damage.py"
valid() {   # valid DEF WHAT: $TMP/out against doc/hibimg.schema.json (jsonschema)
	check "$2: -J follows \$defs/$1" \
		python3 "$top_srcdir/tests/jsonview.py" validate "$top_srcdir/doc/hibimg.schema.json" "$1" "$TMP/out"
}
break_chunk() {   # break_chunk PS ORIG CHUNK COPY
	cp --sparse=always "$2" "$4"
	$DMG put64 "$4" "$($DMG chunks "$1" "$2" | awk -v c="$3" '$1 == c { print $3 * '"$1"' }')" 0xffffffff
}
for spec in k612-lzo:4096 arm612-16k-lzo:16384; do
	name=${spec%%:*} ps=${spec#*:}
	img=$FIX_IMG/$name.img log=$FIX_SRC/$name.log
	[ -f "$img" ] || { fail "$name: $img missing (make fixtures)"; continue; }
	$DMG kernel "$ps" "$img" "$(sidecar "$name" kernel_release)" "$log" >"$TMP/kern"
	vm=$(awk '$2 == "vmcoreinfo" { print $1; exit }' "$TMP/kern")
	logc=$(awk '$2 == "log" && $3 > n { n = $3; c = $1 } END { print c }' "$TMP/kern")
	check "$name: damage.py finds the VMCOREINFO page ($vm), init_uts_ns and the log ($logc)" \
		test -n "$vm" -a -n "$logc" -a "$(grep -c ' uts$' "$TMP/kern")" -ge 1
	# the chunk that compresses least (the guest's fill, a process's
	# pages) among those holding none of them
	far=$($DMG chunks "$ps" "$img" | sort -k4,4nr | awk 'NR == FNR { k[$1] = 1; next }
		!($1 in k) { print $1; exit }' "$TMP/kern" -)
	d=$TMP/$name-far.img
	break_chunk "$ps" "$img" "$far" "$d"
	before=$(sha256sum <"$d")

	# without --partial: as before, the damage is an error
	run_hib 1 dmesg "$d"
	check "$name far: no log without --partial" test ! -s "$TMP/out"
	run_hib 1 info -J "$d"
	check "$name far: no uname without --partial" test -z "$(json_get "$TMP/out" uname_version)"

	run_hib 5 info --partial -J "$d"
	valid doc-info "$name far: info --partial"
	i=$TMP/info.json; cp "$TMP/out" "$i"
	check "$name far (chunk $far): one damage record" test "$(json_get "$i" damage_records)" = 1
	check "$name far: BUILD-ID = the kernel file's" \
		test "$(json_get "$i" build_id)" = "$(sidecar "$name" build_id)"
	check "$name far: uname -r = kernel_release" \
		test "$(json_get "$i" uname_release)" = "$(sidecar "$name" kernel_release)"
	banner=$(tr -d '\r' <"$log" | grep -o 'Linux version .*' | head -n1)
	v=$(json_get "$i" uname_version)
	check "$name far: uname -v ($v) ends the console's Linux version line" \
		sh -c 'test -n "$1" && case "$2" in *" $1") exit 0;; esac; exit 1' _ "$v" "$banner"
	cl=$(tr -d '\r' <"$log" | sed -n 's/.*\] Kernel command line: //p' | head -n1)
	check "$name far: command line = the console's" test "$(json_get "$i" cmdline)" = "$cl"
	check "$name far: nothing said missing" test -z "$(json_get "$i" uname_why)$(json_get "$i" cmdline_why)"
	run_hib 5 dmesg --partial "$d"
	err_has "damage: length-absurd: chunk $far "
	set -- $($CMP "$log" "$TMP/out" 2>/dev/null)
	check "$name far: dmesg --partial holds >= $PCT_MIN % of the console's lines ($1/$2)" \
		test "$2" -gt 50 -a $(( $1 * 100 )) -ge $(( $2 * PCT_MIN ))
	check "$name far: no record skipped" sh -c '! grep -q "records* skipped" "$1"' _ "$TMP/err"
	# cat --virt: init_uts_ns at its System.map address, the bytes at its
	# physical address in the intact image's raw export (as cli-kmem.sh)
	zstd -dcq "$FIX_SRC/kernels/$(sidecar "$name" kernel).System.map.zst" >"$TMP/map"
	run_hib 0 export -F raw -q "$img" "$TMP/raw"
	set -- $(python3 "$top_srcdir/tests/kmem_addrs.py" "$TMP/raw" "$TMP/map" init_uts_ns)
	python3 -c 'import sys
f = open(sys.argv[1], "rb"); f.seek(int(sys.argv[2], 16)); sys.stdout.buffer.write(f.read(390))' \
		"$TMP/raw" "$3" >"$TMP/want"
	rm -f "$TMP/raw"
	run_hib 1 cat "$d" --virt 0x$1+390 -f -O "$TMP/got"
	run_hib 5 cat --partial "$d" --virt 0x$1+390 -f -O "$TMP/got"
	check "$name far: cat --partial --virt init_uts_ns = its physical bytes" cmp -s "$TMP/got" "$TMP/want"
	check "$name far: the copy is unchanged" test "$(sha256sum <"$d")" = "$before"

	# the VMCOREINFO page's chunk: no kernel variables, no log (6)
	d=$TMP/$name-vmci.img
	break_chunk "$ps" "$img" "$vm" "$d"
	run_hib 5 info --partial -J "$d"
	valid doc-info "$name vmci: info --partial"
	i=$TMP/info.json; cp "$TMP/out" "$i"
	check "$name vmci: VMCOREINFO not found" test "$(json_get "$i" vmcoreinfo)" = false
	check "$name vmci: no uname, no BUILD-ID" test -z "$(json_get "$i" uname_version)$(json_get "$i" build_id)"
	check "$name vmci: uname_why says the damage may have taken it" \
		test "$(json_get "$i" uname_why)" = "no VMCOREINFO page among the pages recovered (the damage may have taken it)"
	run_hib 5 info --partial "$d"
	out_has "uname not read *no VMCOREINFO page among the pages recovered"
	run_hib 6 dmesg --partial "$d"
	err_has "no printk ring buffer: no VMCOREINFO page among the pages recovered"
	check "$name vmci: no log on stdout" test ! -s "$TMP/out"
	run_hib 2 cat --partial "$d" --virt 0x$1+16
	err_has "cannot translate kernel virtual addresses: no VMCOREINFO page among the pages recovered"

	# the log text's chunk, where it holds neither of the others: its
	# records skipped and counted, every one the intact image has
	if grep -q "^$logc \(vmcoreinfo\|uts\)" "$TMP/kern"; then
		continue
	fi
	d=$TMP/$name-log.img
	break_chunk "$ps" "$img" "$logc" "$d"
	run_hib 0 dmesg -J "$img"
	all=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["dmesg"]))' "$TMP/out")
	run_hib 5 dmesg --partial -J "$d"
	valid doc-dmesg "$name log: dmesg --partial"
	got=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["dmesg"]))' "$TMP/out")
	skipped=$(sed -n 's/.*: \([0-9]*\) log records* skipped: the damage took a page.*/\1/p' "$TMP/err")
	check "$name log (chunk $logc): records skipped and counted (${skipped:-none})" \
		test "${skipped:-0}" -gt 0
	check "$name log: $got printed + ${skipped:-0} skipped = the intact image's $all" \
		test "$((got + ${skipped:-0}))" = "$all"
	run_hib 5 dmesg --partial "$d"
	set -- $($CMP "$log" "$TMP/out" 2>/dev/null)
	check "$name log: the console lines it lost are missing ($1/$2)" \
		test $(( $1 * 100 )) -lt $(( $2 * PCT_MIN ))
	run_hib 5 info --partial -J "$d"
	check "$name log: uname still read" \
		test "$(json_get "$TMP/out" uname_release)" = "$(sidecar "$name" kernel_release)"
done
finish
