#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The command line itself: help, version, usage errors, man pages.
. "$(dirname "$0")/lib.sh"

run_hib 0 --help;          out_has "Usage:"; out_has "verify"
run_hib 0 --version;       out_has "hibimg "
run_hib 2;                 err_has "no command given"
run_hib 2 frobnicate;      err_has "unknown command"
run_hib 0 help verify;     out_has "hibimg verify"
for c in info verify dump; do
	run_hib 0 "$c" --help;  out_has "Usage:"
	run_hib 2 "$c" --bogus; err_has "Try 'hibimg $c --help'"
	check "man page for $c" test -s "$top_srcdir/man/hibimg-$c.1"
done
run_hib 2 verify;                err_has "no image given"
run_hib 2 dump /dev/null;        err_has "need an image and a layer"
run_hib 2 dump x nosuchlayer;    err_has "unknown layer"
run_hib 3 verify /nonexistent/image; err_has "cannot open /nonexistent/image"
run_hib 2 verify -R notanumber x;    err_has "invalid resume offset"
run_hib 2 info LABEL=hibimg-no-such-label-$$; err_has "no such device"
run_hib 2 verify /dev/null;      err_has "not a regular file or block device"

# issue 14: one JSON document, always; several inputs, the worst status;
# an error said once
json_ok() { python3 -m json.tool "$TMP/out" >/dev/null 2>&1; }
once() {  # once FILE TEXT: TEXT on exactly one line of FILE
	test "$(grep -c -- "$2" "$1")" = 1
}
run_hib 3 verify -J /nonexistent
check "verify -J /nonexistent prints one JSON document" json_ok
check "... whose record says io-error" test "$(json_get "$TMP/out" status)" = io-error
check "... and names the error" test "$(json_get "$TMP/out" error)" = \
	"cannot open /nonexistent: No such file or directory"
run_hib 2 verify -J
check "a usage error with --json is a JSON document" python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); sys.exit(d["exit"] != 2 or d["error"]["command"] != "verify")' "$TMP/out"

lzo=$(for n in $(fixtures0); do [ "$(sidecar "$n" compression)" = lzo ] && echo "$n" && break; done)
GOOD=$FIX_IMG/$lzo.img
BAD=$TMP/bad-crc.img
# tests/files bad-crc: bit 0 of the stored CRC32 flipped
cp --sparse=always "$GOOD" "$BAD"
crc=$(od -An -t u4 -j $((4096 - 36)) -N 4 "$BAD" | tr -d ' ')
poke_u32 "$BAD" $((4096 - 36)) $((crc ^ 1))

run_hib 1 verify "$BAD" "$GOOD"
check "damaged, then intact" test "$(grep -c '^  status  *\(damaged\|intact\)$' "$TMP/out")" = 2
check "the error once, on stderr" once "$TMP/err" "CRC32 mismatch"
check "... naming the input of several" once "$TMP/err" "^hibimg verify: $BAD: damaged: "
check "... not on stdout" sh -c "! grep -q 'CRC32 mismatch' '$TMP/out'"
run_hib 1 verify --json "$BAD"
json_error_has() { json_get "$TMP/out" error | grep -q -- "$1"; }
check "JSON: the record carries the error" json_error_has "CRC32 mismatch"
run_hib 3 verify "$GOOD" /nonexistent "$BAD"
run_hib 3 verify /dev/null /nonexistent
run_hib 2 verify "$BAD" /dev/null
run_hib 3 info --no-scan /nonexistent "$GOOD"
check "info: a record for the input it read; the other is said once, on stderr" \
	test "$(grep -c '^  path ' "$TMP/out")" = 1 -a "$(grep -c /nonexistent "$TMP/err")" = 1
run_hib 0 info -q "$GOOD"
check "info -q prints nothing" test ! -s "$TMP/out"
run_hib 1 verify -q "$BAD"
check "verify -q prints nothing on stdout" test ! -s "$TMP/out"

# numbers: hex for people, decimal numbers for scripts
run_hib 0 info --no-scan -r -o flags,crc32,lowest_pfn "$GOOD"
raw=$(cat "$TMP/out")
check "-r: key=value in the order asked" test "$(cut -d= -f1 "$TMP/out" | paste -sd' ')" = \
	"flags crc32 lowest_pfn"
run_hib 0 info --no-scan -n -o flags,crc32,lowest_pfn "$GOOD"
check "text shows the same numbers in hex" test "$(awk '{print $NF}' "$TMP/out" | paste -sd' ')" = \
	"$(echo "$raw" | while IFS== read -r k v; do
		case $k in crc32) printf '0x%08x\n' "$v" ;; *) printf '0x%x\n' "$v" ;; esac
	done | paste -sd' ')"
check "the crc32 is the header's" test "$(echo "$raw" | sed -n 's/^crc32=//p')" = "$crc"
run_hib 0 info --no-scan -P -o pages,lowest_pfn "$GOOD"
check "-P lines are shell assignments" sh -c ". '$TMP/out' && test \"\$PAGES\" -gt 1 && test -n \"\$LOWEST_PFN\""

# dump: the page's output file is -O; -o lists columns
pfn=$("$HIBIMG" dump -r -n -o start_pfn "$GOOD" pfns | head -1)
run_hib 0 dump -O "$TMP/page" "$GOOD" page "$pfn"
check "dump -O writes one page" test "$(stat -c %s "$TMP/page")" = 4096
run_hib 2 dump -o "$TMP/page2" "$GOOD" page "$pfn"; err_has "does not apply\|do not apply"
run_hib 2 dump -O "$TMP/x" "$GOOD" map;           err_has "go with the 'page' layer only"
run_hib 0 dump -J "$GOOD" pfns
check "dump pfns: PFNs are JSON numbers" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["pfns"][0]
sys.exit(not (isinstance(r["start_pfn"], int) and r["start_pfn"] == int(sys.argv[2]) and "zero_flagged" in r))' "$TMP/out" "$pfn"

finish
