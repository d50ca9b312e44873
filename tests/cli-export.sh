#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hibimg export and cat: every saved page, read back from each export format
# by an independent reader (tests/export_read.py), must equal what `hibimg
# cat` gives for its PFN; the VMCOREINFO note must name the release the
# kernel printed; the slot count of `info` must equal a walk of the swap map
# done in Python; the input is never written.
. "$(dirname "$0")/lib.sh"

PY="python3 $top_srcdir/tests/export_read.py"
# Debian's interpreter, where python3-drgn installs (python3 may be another)
DRGN_PY=${DRGN_PY:-/usr/bin/python3}
PS=4096

for name in $(fixtures0); do
	img=$FIX_IMG/$name.img
	if [ ! -f "$img" ]; then
		fail "$name: $img missing (is it in FIXTURE_NAMES? make fixtures)"
		continue
	fi
	before=$(sha256sum <"$img")

	# runs of PFNs, "START END" inclusive, from the PFN list
	run_hib 0 dump -r -n "$img" pfns
	awk '{print $2, $3}' "$TMP/out" | while read -r a b; do
		echo $((a)) $((b))
	done >"$TMP/runs"
	nruns=$(wc -l <"$TMP/runs")
	# every run in one cat: one pass of the stream, not one per run
	run_hib 0 cat "$img" --pfn "$(awk '{print $1 "-" $2}' "$TMP/runs" | paste -sd, -)" \
		-O "$TMP/cat.bin"
	$PY pages-cat $PS "$TMP/cat.bin" "$TMP/runs" >"$TMP/want" ||
		fail "$name: cat output does not cover the runs"
	check "$name: cat gave every saved page" \
		test "$(wc -l <"$TMP/want")" = "$(awk '{s += $2 - $1 + 1} END {print s}' "$TMP/runs")"

	for fmt in raw lime elf; do
		out=$TMP/$name.$fmt
		run_hib 0 export --format $fmt --json "$img" "$out"
		check "$name $fmt: one range per run" \
			test "$(json_get "$TMP/out" pfn_runs)" = "$nruns"
		case $fmt in
		raw)  $PY pages-raw $PS "$out" "$TMP/runs" >"$TMP/got" ;;
		lime) $PY pages-lime $PS "$out" >"$TMP/got" ;;
		elf)  $PY pages-elf $PS "$out" >"$TMP/got" ;;
		esac
		check "$name $fmt: every page equals cat --pfn" cmp -s "$TMP/want" "$TMP/got"
		check "$name $fmt: no temporary left" \
			test -z "$(ls "$TMP" | grep hibimg- || true)"
	done

	# the summary's counts are the kernel's
	run_hib 0 export -P -f --format raw "$img" "$TMP/$name.raw"
	check "$name: -P lines are shell assignments" sh -c ". '$TMP/out'"
	check "$name: PFN-list entries placed = kernel's need to copy" \
		test "$(sed -n 's/^PFN_ENTRIES="\(.*\)"$/\1/p' "$TMP/out")" = "$(sidecar "$name" need_to_copy)"
	zp=$(sidecar "$name" zero_pages)
	check "$name: zero-flagged = kernel's zero pages (${zp:-0})" \
		test "$(sed -n 's/^ZERO_FLAGGED="\(.*\)"$/\1/p' "$TMP/out")" = "${zp:-0}"
	run_hib 0 export -q -f --format raw "$img" "$TMP/$name.raw"
	check "$name: -q prints nothing" test ! -s "$TMP/out"

	raw=$TMP/$name.raw
	hi=$(awk 'END {print $2}' "$TMP/runs")
	check "$name raw: size = (highest PFN + 1) x page size" \
		test "$(stat -c %s "$raw")" = $(( (hi + 1) * PS ))
	check "$name raw: unsaved pages read as zeros" \
		test "$($PY raw-holes $PS "$raw" "$TMP/runs")" = 0
	alloc=$(( $(stat -c %b "$raw") * $(stat -c %B "$raw") ))
	check "$name raw: sparse ($alloc of $(stat -c %s "$raw") bytes allocated)" \
		test "$alloc" -le $(( $(stat -c %s "$raw") / 2 ))

	lr=$($PY lime-check "$TMP/$name.lime")
	check "$name lime: ascending disjoint ranges, one per run" test "$lr" = "ranges=$nruns"

	$PY elf-info "$TMP/$name.elf" >"$TMP/elf"
	kv() { sed -n "s/^$1=//p" "$TMP/elf"; }
	check "$name elf: ET_CORE" test "$(kv type)" = 4
	check "$name elf: one PT_LOAD per run" test "$(kv loads)" = "$nruns"
	check "$name elf: p_filesz == p_memsz" test "$(kv filesz_eq_memsz)" = 1
	check "$name elf: VMCOREINFO OSRELEASE = kernel's release" \
		test "$(kv osrelease)" = "$(sidecar "$name" kernel_release)"
	check "$name elf: kernel-image aliases map their runs' bytes" \
		test "$(kv kmap_ok)" = 1
	check "$name elf: p_vaddr of the RAM loads is the kernel's linear map ($(kv dmap_voff))" \
		test "$(kv dmap_ok)" = 1
	# drgn (python3-drgn, installed by tools/bootstrap.sh) reads
	# init_uts_ns by its kernel address, through the export's kernel-image
	# aliases or the page tables, and gets the release the kernel printed
	drgn_release() {
		check "$name elf: drgn reads init_uts_ns.name.release by its kernel address" \
			test "$($DRGN_PY "$top_srcdir/tests/export_read.py" drgn-release "$TMP/$name.elf")" = \
			"$(sidecar "$name" kernel_release)"
	}
	drgn_linear() {
		check "$name elf: drgn reads init_uts_ns.name.release at its linear-map address" \
			test "$($DRGN_PY "$top_srcdir/tests/export_read.py" drgn-linear "$TMP/$name.elf")" = \
			"$(sidecar "$name" kernel_release)"
	}
	case "$(sidecar "$name" arch)" in
	i386)
		# the writer's class and machine (elf.h: EM_386 3)
		check "$name elf: ELFCLASS32, EM_386 (3)" test "$(kv class) $(kv machine)" = "32 3"
		# no kernel-image alias (where lowmem ends is not in the image) and
		# no i386 page-table walker in drgn 0.0.22: init_uts_ns
		# (0xc13274c2) is not found, so drgn is not asked
		echo "# $name elf: i386: $(kv kmap_loads) kernel-image aliases; drgn not tried" ;;
	riscv64)
		check "$name elf: ELFCLASS64, EM_RISCV (243)" test "$(kv class) $(kv machine)" = "64 243"
		check "$name elf: the kernel image is aliased" test "$(kv kmap_loads)" -gt 0
		drgn_release ;;
	arm64)
		check "$name elf: ELFCLASS64, EM_AARCH64 (183)" test "$(kv class) $(kv machine)" = "64 183"
		check "$name elf: the kernel image is aliased" test "$(kv kmap_loads)" -gt 0
		check "$name elf: every RAM load at its linear-map address" \
			test "$(kv dmap_loads)" = "$nruns"
		# drgn 0.0.22 cannot walk the tables of a VA_BITS=52 kernel
		# running with 48-bit addresses (the 6.12 4K one): it reads
		# init_uts_ns (in .data, past the unmapped __init hole) from
		# the aliases, and at the linear map from the segments' p_vaddr
		drgn_release
		drgn_linear ;;
	*)
		check "$name elf: EM_X86_64" test "$(kv machine)" = 62
		check "$name elf: the kernel image is aliased" test "$(kv kmap_loads)" -gt 0
		check "$name elf: every RAM load at its linear-map address" \
			test "$(kv dmap_loads)" = "$nruns"
		drgn_release
		drgn_linear ;;
	esac

	# --phys across a page boundary equals the same bytes of --pfn
	read -r a b <"$TMP/runs"
	if [ "$b" -gt "$a" ]; then
		run_hib 0 cat -f "$img" --pfn "$a-$((a + 1))" -O "$TMP/two"
		run_hib 0 cat -f "$img" --phys "$((a * PS + 4000))+200" -O "$TMP/phys"
		dd if="$TMP/two" of="$TMP/slice" bs=1 skip=4000 count=200 status=none
		check "$name: --phys crossing pages" cmp -s "$TMP/phys" "$TMP/slice"
	fi
	run_hib 0 cat -f "$img" --phys "$((a * PS + 100))" -O "$TMP/phys"
	check "$name: --phys without length ends at the page end" \
		test "$(stat -c %s "$TMP/phys")" = $((PS - 100))

	# PFNs the kernel did not save: refused, the first named, nothing written
	run_hib 2 cat "$img" --pfn "$((hi + 1))" -O "$TMP/none"
	err_has "$(printf 'PFN 0x%x is not saved' $((hi + 1)))"
	check "$name: refused cat creates no file" test ! -e "$TMP/none"
	run_hib 2 cat "$img" --pfn "$a-$hi"
	err_has "$(printf 'PFN 0x%x is not saved' $((b + 1)))"
	check "$name: refused cat writes nothing" test ! -s "$TMP/out"
	run_hib 2 cat "$img" --pfn "$a,$((hi + 1))"
	err_has "$(printf 'PFN 0x%x is not saved' $((hi + 1)))"
	check "$name: refused cat list writes nothing" test ! -s "$TMP/out"

	# slots outside the image: info against a walk of the map in Python
	$PY slots $PS "$img" >"$TMP/slots"
	run_hib 0 info --json "$img"
	check "$name: info counts the slots outside the image holding data" \
		test "$(json_get "$TMP/out" foreign_slots)" = "$(sed -n 's/^foreign=//p' "$TMP/slots")"
	first=$(sed -n 's/^first=//p' "$TMP/slots")
	if [ -n "$first" ]; then
		run_hib 0 cat -f "$img" --slot "$first" -O "$TMP/slot"
		dd if="$img" of="$TMP/slot.want" bs=$PS skip="$first" count=1 status=none
		check "$name: --slot gives the device page" cmp -s "$TMP/slot" "$TMP/slot.want"
	fi

	# never over the input, however it is named
	run_hib 2 export -F raw "$img" "$img";          err_has "input itself"
	ln -sf "$img" "$TMP/link.img"
	run_hib 2 export -F lime "$img" "$TMP/link.img"; err_has "input itself"
	check "$name: symlink kept" test -L "$TMP/link.img"
	ln -f "$img" "$img.hardlink.$$"
	run_hib 2 export -F elf "$img" "$img.hardlink.$$"; err_has "input itself"
	rm -f "$img.hardlink.$$"
	run_hib 2 cat "$img" --pfn "$a" -O "$TMP/link.img"; err_has "input itself"

	rm -f "$TMP/$name".* "$TMP/cat.bin"
	check "$name: input unchanged" test "$before" = "$(sha256sum <"$img")"
done

# Binary never goes to a terminal: script(1) gives cat a pty as stdout.
$PY mkxnum "$TMP/xnum.img"
script -qec "$HIBIMG cat $TMP/xnum.img --pfn 0" /dev/null >"$TMP/tty" 2>&1
st=$?
check "cat to a terminal exits 2 (got $st)" test "$st" = 2
check "cat to a terminal says why" grep -q "refusing to write binary data to a terminal" "$TMP/tty"

# More PT_LOADs than e_phnum holds: PN_XNUM, on a hand-made image with
# 65536 runs, all zero-flagged but three.
run_hib 0 export -F elf "$TMP/xnum.img" "$TMP/xnum.elf"
err_has "no VMCOREINFO"
$PY elf-info "$TMP/xnum.elf" >"$TMP/elf"
check "xnum: e_phnum = PN_XNUM, real count in sh_info" \
	test "$(sed -n 's/^xnum=//p' "$TMP/elf")/$(sed -n 's/^phnum=//p' "$TMP/elf")" = 1/65536
check "xnum: no VMCOREINFO note" test "$(sed -n 's/^vmcoreinfo=//p' "$TMP/elf")" = 0
$PY pages-elf $PS "$TMP/xnum.elf" >"$TMP/got"
zero=$(head -c $PS /dev/zero | sha256sum | cut -d' ' -f1)
check "xnum: zero-flagged pages read as zeros" \
	test "$(grep -c " $zero\$" "$TMP/got")" = 65533
printf '0 0\n2 2\n4 4\n' >"$TMP/runs"
"$HIBIMG" cat "$TMP/xnum.img" --pfn 0,2,4 >"$TMP/cat.bin"
$PY pages-cat $PS "$TMP/cat.bin" "$TMP/runs" >"$TMP/want"
grep -v " $zero\$" "$TMP/got" >"$TMP/got.data"
check "xnum: data pages at their PFNs" cmp -s "$TMP/want" "$TMP/got.data"
run_hib 0 export -F lime "$TMP/xnum.img" "$TMP/xnum.lime"
check "xnum: LiME ranges" test "$($PY lime-check "$TMP/xnum.lime")" = ranges=65536
run_hib 0 export -F raw "$TMP/xnum.img" "$TMP/xnum.raw"
check "xnum: raw of 512 MiB takes almost no disk" \
	test "$(( $(stat -c %b "$TMP/xnum.raw") * $(stat -c %B "$TMP/xnum.raw") ))" -le 1048576
run_hib 0 info --json "$TMP/xnum.img"
check "xnum: two slots outside the image hold data" \
	test "$(json_get "$TMP/out" foreign_slots)" = "$($PY slots $PS "$TMP/xnum.img" | sed -n 's/^foreign=//p')"

# usage
run_hib 2 export "$TMP/xnum.img" "$TMP/x";               err_has "--format is required"
run_hib 2 export -F vmem "$TMP/xnum.img" "$TMP/x";       err_has "unknown format"
run_hib 2 export -F raw "$TMP/xnum.img";                 err_has "missing argument"
run_hib 2 export -J -F raw "$TMP/xnum.img" -;            err_has "which '-' gives to the export"
check "export -J to '-': the error is a JSON document" python3 -m json.tool "$TMP/out" /dev/null
run_hib 0 export --list-columns;                         out_has "^vmcoreinfo_pfn "
run_hib 2 cat "$TMP/xnum.img";                           err_has "one of --pfn"
run_hib 2 cat "$TMP/xnum.img" --pfn 1 --slot 1;          err_has "exclude each other"
run_hib 2 cat "$TMP/xnum.img" --pfn 4-2;                 err_has "below the start"
run_hib 2 cat "$TMP/xnum.img" --pfn 4,2;                 err_has "ascend"
run_hib 2 cat "$TMP/xnum.img" --slot 99999 -O "$TMP/x";  err_has "beyond the end"

# the thread count changes nothing in an export, byte for byte
first=$(fixtures0 | head -1)
run_hib 0 export -T 1 --format elf "$FIX_IMG/$first.img" "$TMP/t1.elf"
run_hib 0 export -T 3 --format elf "$FIX_IMG/$first.img" "$TMP/t3.elf"
check "export -T 1 and -T 3 write the same bytes" cmp -s "$TMP/t1.elf" "$TMP/t3.elf"

finish
