#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hibimg export --format kdump: read back by an independent parser of
# makedumpfile's layout (tests/kdump_read.py parse: header, sub header,
# bitmaps, page_descs, every page decoded with zlib/liblzo2/libzstd) and by
# libkdumpfile (Debian's python3-libkdumpfile), every PFN must equal the
# raw export's; the 1st bitmap holds as many PFNs as the kernel said it
# would copy; drgn (through libkdumpfile) reads init_uts_ns's release;
# --zero-pages store dumps every saved page; --vmcoreinfo puts a given text
# in the note and refuses what is not one.
. "$(dirname "$0")/lib.sh"

PY="python3 $top_srcdir/tests/kdump_read.py"
EPY="python3 $top_srcdir/tests/export_read.py"
DRGN_PY=${DRGN_PY:-/usr/bin/python3}

# x86_64 6.1 and 6.12, LZ4, zero-flagged (nozerocheck pair), arm64 4K,
# 16K and 64K, i386 (the 32-bit header), riscv64
NAMES=${KDUMP_FIXTURES:-"k61-lzo k612-lzo k612-lz4 k612nz-lzo arm61-lzo arm612-lz4 arm612-16k-lzo arm612-64k-lz4 i61-lzo i61-highmem rv612-lzo"}

kv() { sed -n "s/^$1=//p" "$2"; }

# diskdump_mod.h: DUMP_DH_COMPRESSED_ZLIB 0x1, _LZO 0x2, _ZSTD 0x20
status_of() {
	case $1 in zlib) echo 0x1 ;; lzo) echo 0x2 ;; zstd) echo 0x20 ;; none) echo 0x0 ;; esac
}

for name in $NAMES; do
	img=$FIX_IMG/$name.img
	if [ ! -f "$img" ]; then
		fail "$name: $img missing (make fixtures)"
		continue
	fi
	before=$(sha256sum <"$img")
	ps=$(sidecar "$name" page_size); ps=${ps:-4096}
	arch=$(sidecar "$name" arch); arch=${arch:-x86_64}
	word=8; [ "$arch" = i386 ] && word=4
	rel=$(sidecar "$name" kernel_release)
	need=$(sidecar "$name" need_to_copy)
	case $arch in
	x86_64) mach=x86_64 ;; i386) mach=i686 ;; arm64) mach=aarch64 ;; riscv64) mach=riscv64 ;;
	esac
	raw=$TMP/$name.raw
	run_hib 0 export -q --format raw "$img" "$raw"

	codecs=zstd
	[ "$name" = k61-lzo ] && codecs="zstd zlib lzo none"
	for codec in $codecs; do
		out=$TMP/$name.$codec.kdump
		run_hib 0 export --json --format kdump --kdump-compress $codec -z omit "$img" "$out"
		cp "$TMP/out" "$TMP/json"
		check "$name $codec: the summary is valid doc-export" \
			python3 "$top_srcdir/tests/jsonview.py" validate \
			"$top_srcdir/doc/hibimg.schema.json" doc-export "$TMP/json"
		$PY parse "$ps" $word "$out" "$raw" >"$TMP/p" || fail "$name $codec: parse failed"
		t="$name kdump $codec"
		check "$t: header_version 6" test "$(kv version "$TMP/p")" = 6
		check "$t: block_size = the kernel's page size ($ps)" test "$(kv block_size "$TMP/p")" = "$ps"
		check "$t: max_mapnr (sub header and header) = the raw export's pages" \
			test "$(kv max_mapnr "$TMP/p") $(kv max_mapnr32 "$TMP/p")" = \
			"$(kv raw_pages "$TMP/p") $(kv raw_pages "$TMP/p")"
		check "$t: each bitmap is max_mapnr bits in whole blocks" test "$(kv bitmap_ok "$TMP/p")" = 1
		check "$t: no bit past max_mapnr" test "$(kv bits_beyond "$TMP/p")" = 0
		check "$t: 1st bitmap = the kernel's need_to_copy ($need)" test "$(kv ram "$TMP/p")" = "$need"
		check "$t: 2nd bitmap inside the 1st" test "$(kv dumped_subset "$TMP/p")" = 1
		[ $codec = zstd ] && kv dumped "$TMP/p" >"$TMP/omit.dumped"
		check "$t: page_descs share no data" test "$(kv max_shared "$TMP/p")" = 1
		check "$t: every dumped page decodes to the raw export's" test "$(kv bad_pages "$TMP/p")" = 0
		check "$t: every page left out is zeros in the raw export" \
			test "$(kv excluded_nonzero "$TMP/p")" = 0
		check "$t: status = the codec's flag" test "$(kv status "$TMP/p")" = "$(status_of $codec)"
		check "$t: dump_level 1 (zero pages excluded)" test "$(kv dump_level "$TMP/p")" = 1
		check "$t: utsname Linux, $mach" test "$(kv sysname "$TMP/p") $(kv machine "$TMP/p")" = "Linux $mach"
		check "$t: utsname release = the kernel's" test "$(kv release "$TMP/p")" = "$rel"
		check "$t: VMCOREINFO note, offset_vmcoreinfo at its text" \
			test "$(kv note_desc_is_vmcoreinfo "$TMP/p")" = 1
		check "$t: VMCOREINFO OSRELEASE = the kernel's" test "$(kv osrelease "$TMP/p")" = "$rel"
		check "$t: phys_base = VMCOREINFO's (arm64: PHYS_OFFSET), as makedumpfile's" \
			test "$(kv phys_base_ok "$TMP/p")" = 1
		check "$t: summary's dumped pages = the 2nd bitmap's" \
			test "$(json_get "$TMP/json" dumped_pages)" = "$(kv dumped "$TMP/p")"
		check "$t: summary's excluded zeros + dumped = need_to_copy" \
			test $(( $(json_get "$TMP/json" excluded_zero) + $(json_get "$TMP/json" dumped_pages) )) = "$need"
		if [ $codec = none ]; then
			check "$t: nothing compressed" test "$(kv compressed "$TMP/p")" = 0
		else
			check "$t: most pages compressed" \
				test $(( $(kv compressed "$TMP/p") * 2 )) -gt "$(kv dumped "$TMP/p")"
		fi
		check "$t: no temporary left" test -z "$(ls "$TMP" | grep hibimg- || true)"

		# libkdumpfile 0.5.1 knows no riscv64 (no arch.name for it)
		[ "$arch" = riscv64 ] && { echo "# $t: libkdumpfile 0.5.1 has no riscv64"; continue; }
		$DRGN_PY "$top_srcdir/tests/kdump_read.py" libkdumpfile "$out" "$raw" >"$TMP/l" 2>"$TMP/lerr" ||
			{ fail "$t: libkdumpfile cannot read it"; sed 's/^/    /' "$TMP/lerr" >&2; continue; }
		check "$t: libkdumpfile: page size $ps" test "$(kv page_size "$TMP/l")" = "$ps"
		check "$t: libkdumpfile: max_pfn = max_mapnr" \
			test "$(kv max_pfn "$TMP/l")" = "$(kv max_mapnr "$TMP/p")"
		check "$t: libkdumpfile: release = the kernel's" test "$(kv release "$TMP/l")" = "$rel"
		check "$t: libkdumpfile: VMCOREINFO OSRELEASE = the kernel's" \
			test "$(kv vmcoreinfo_osrelease "$TMP/l")" = "$rel"
		check "$t: libkdumpfile reads exactly the dumped pages, each the raw export's" \
			test "$(kv read "$TMP/l") $(kv bad "$TMP/l")" = "$(kv dumped "$TMP/p") 0"
		check "$t: libkdumpfile with file.zero_excluded: every PFN = the raw export's" \
			test "$(kv zero_excluded_bad "$TMP/l")" = 0
	done
	# --zero-pages store, the default: every saved page dumped, the zero
	# ones as one shared page (makedumpfile -d 1's pd_zero); libkdumpfile
	# then reads every PFN the kernel saved without file.zero_excluded
	case $name in k61-lzo|k612nz-lzo|arm612-64k-lz4|i61-lzo)
		out=$TMP/$name.store.kdump
		t="$name kdump --zero-pages store"
		run_hib 0 export --json --format kdump -z store "$img" "$out"
		cp "$TMP/out" "$TMP/json"
		run_hib 0 export -q --format kdump "$img" "$TMP/$name.default.kdump"
		check "$t: is the default (byte for byte)" cmp -s "$out" "$TMP/$name.default.kdump"
		$PY parse "$ps" $word "$out" "$raw" >"$TMP/p" || fail "$t: parse failed"
		check "$t: 2nd bitmap = 1st = need_to_copy ($need)" \
			test "$(kv dumped "$TMP/p") $(kv ram "$TMP/p")" = "$need $need"
		check "$t: every page decodes to the raw export's" test "$(kv bad_pages "$TMP/p")" = 0
		check "$t: summary: none excluded, zeros stored + data dumped = need_to_copy" \
			test "$(json_get "$TMP/json" excluded_zero) $(json_get "$TMP/json" dumped_pages)" = "0 $need"
		check "$t: the pages omit left out share one page_desc offset" \
			test "$(kv max_shared "$TMP/p")" = $(( need - $(cat "$TMP/omit.dumped") ))
		$DRGN_PY "$top_srcdir/tests/kdump_read.py" libkdumpfile "$out" "$raw" >"$TMP/l" 2>"$TMP/lerr" ||
			{ fail "$t: libkdumpfile cannot read it"; sed 's/^/    /' "$TMP/lerr" >&2; }
		check "$t: libkdumpfile reads every saved page, each the raw export's" \
			test "$(kv read "$TMP/l") $(kv bad "$TMP/l")" = "$need 0"
	esac
	# the compress jobs are taken back in order: one worker or four, one file
	run_hib 0 export -q -T 1 --format kdump "$img" "$TMP/t1.kdump"
	run_hib 0 export -q -T 4 --format kdump "$img" "$TMP/t4.kdump"
	check "$name kdump: the same file with 1 and 4 threads" cmp -s "$TMP/t1.kdump" "$TMP/t4.kdump"
	rm -f "$TMP/t1.kdump" "$TMP/t4.kdump"
	if [ "$arch" = x86_64 ]; then
		check "$name kdump: drgn (libkdumpfile) reads init_uts_ns.name.release" \
			test "$($DRGN_PY "$top_srcdir/tests/kdump_read.py" drgn-release "$TMP/$name.zstd.kdump")" = "$rel"
	fi
	check "$name: input not written" test "$(sha256sum <"$img")" = "$before"
done

# --- --vmcoreinfo: the note is the given text, byte for byte ---------------
name=k61-lzo
img=$FIX_IMG/$name.img
rel=$(sidecar $name kernel_release)
# the image's own text (as makedumpfile -g would write it), and one naming
# another release, so that the note's source shows
$PY note "$TMP/$name.zstd.kdump" >"$TMP/vmci"
check "vmcoreinfo: the image's text starts with OSRELEASE=$rel" \
	test "$(head -n1 "$TMP/vmci")" = "OSRELEASE=$rel"
{ echo "OSRELEASE=9.9.9-given"; tail -n +2 "$TMP/vmci"; } >"$TMP/vmci2"
for fmt in kdump elf; do
	out=$TMP/given.$fmt
	run_hib 0 export --json --format $fmt --vmcoreinfo "$TMP/vmci2" "$img" "$out"
	check "vmcoreinfo $fmt: source file" test "$(json_get "$TMP/out" vmcoreinfo_source)" = file
	check "vmcoreinfo $fmt: the image's page still reported" \
		test -n "$(json_get "$TMP/out" vmcoreinfo_pfn)"
	if [ $fmt = kdump ]; then
		$PY note "$out" >"$TMP/got"
		$PY parse 4096 8 "$out" "$TMP/$name.raw" >"$TMP/p"
		check "vmcoreinfo kdump: utsname release from the given text" \
			test "$(kv release "$TMP/p")" = 9.9.9-given
	else
		python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import export_read as e
sys.stdout.buffer.write(e.elf_parse(sys.argv[2])["note"])' "$top_srcdir/tests" "$out" >"$TMP/got"
	fi
	check "vmcoreinfo $fmt: the note is the file, byte for byte" cmp -s "$TMP/vmci2" "$TMP/got"
done
# the page's own text given back: drgn finds its way as with the page
run_hib 0 export -q --format kdump --vmcoreinfo "$TMP/vmci" "$img" "$TMP/same.kdump"
check "vmcoreinfo kdump: drgn reads the release with the given note" \
	test "$($DRGN_PY "$top_srcdir/tests/kdump_read.py" drgn-release "$TMP/same.kdump")" = "$rel"

# what is not a VMCOREINFO text is refused, naming the file, writing nothing
printf 'ffff888003a0a000 1000\n' >"$TMP/sysfs"
run_hib 2 export --format kdump --vmcoreinfo "$TMP/sysfs" "$img" "$TMP/no.kdump"
err_has "--vmcoreinfo $TMP/sysfs: .*/sys/kernel/vmcoreinfo"
head -c 4096 "$HIBIMG" >"$TMP/binary"
run_hib 2 export --format elf --vmcoreinfo "$TMP/binary" "$img" "$TMP/no.elf"
err_has "not a VMCOREINFO text"
printf 'OSRELEASE=6.1\nno equals sign\n' >"$TMP/noeq"
run_hib 2 export --format kdump --vmcoreinfo "$TMP/noeq" "$img" "$TMP/no.kdump"
err_has "line 2 is not KEY=value"
: >"$TMP/empty"
run_hib 2 export --format kdump --vmcoreinfo "$TMP/empty" "$img" "$TMP/no.kdump"
err_has "empty"
check "refused: no output written" test ! -e "$TMP/no.kdump" -a ! -e "$TMP/no.elf"
run_hib 2 export --format raw --vmcoreinfo "$TMP/vmci" "$img" "$TMP/no.raw"
err_has "raw and LiME have no note"
run_hib 2 export --format elf --kdump-compress zlib "$img" "$TMP/no.elf"
err_has "is for --format kdump"
run_hib 2 export --format kdump --kdump-compress snappy "$img" "$TMP/no.kdump"
err_has "unknown kdump codec 'snappy'"
run_hib 2 export --format kdump -z keep "$img" "$TMP/no.kdump"
err_has "unknown --zero-pages mode 'keep'"
run_hib 2 export --format raw -z store "$img" "$TMP/no.raw"
err_has "is for --format kdump"
run_hib 2 export --format kdump "$img" -
err_has "standard output"

# a damaged stream: exit 1, nothing left behind. The cut is 400 pages past
# the first swap-map page, swsusp_header.image (the u64 at byte 4064, as
# the kernel's swap.c puts it), read with od
first=$(od -An -t u8 -j 4064 -N 8 "$img" | tr -d ' ')
head -c $(( (first + 400) * 4096 )) "$img" >"$TMP/cut.img"
run_hib 1 export --format kdump "$TMP/cut.img" "$TMP/cut.kdump"
check "a cut image: no kdump file, no temporary" \
	test ! -e "$TMP/cut.kdump" -a -z "$(ls "$TMP" | grep hibimg- || true)"

echo "# cli-kdump: $npass passed, $nfail failed"
[ "$nfail" = 0 ]
