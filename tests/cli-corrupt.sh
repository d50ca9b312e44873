#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Damaged copies of real images: each must get the documented exit status and
# a message naming the element, never a crash or a hang (run_hib's timeout;
# in the sanitizer build every run is under ASan/UBSan).
. "$(dirname "$0")/lib.sh"

PS=4096
pick() {  # first fixture whose compression is $1
	for f in $(fixtures0); do
		[ "$(sidecar "$f" compression)" = "$1" ] && { echo "$f"; return; }
	done
}
fresh() {  # fresh NAME -> path of a new sparse copy
	cp --sparse=always "$FIX_IMG/$1.img" "$TMP/c.img"
	echo "$TMP/c.img"
}
chunk_dev() {  # chunk_dev IMG N -> device page of chunk N
	"$HIBIMG" dump -r -n "$1" chunks | awk -v n="$2" '$1 == n {print $3}'
}
map_dev() {  # map_dev IMG N -> device page of map page N
	"$HIBIMG" dump -r -n "$1" map | awk -v n="$2" '$1 == n {print $2}'
}

lzo=$(pick lzo)
raw=$(pick none)
check "have an LZO fixture" test -n "$lzo"
check "have an uncompressed fixture" test -n "$raw"

# 1. one byte of compressed data flipped (inside cmp_len, not the padding)
c=$(fresh "$lzo"); d=$(chunk_dev "$c" 3)
len=$("$HIBIMG" dump -r -n "$c" chunks | awk '$1 == 3 {print $6}')
at=$((d * PS + 8 + len / 2))
b=$(od -An -t u1 -j $at -N 1 "$c" | tr -d ' ')
printf "\\$(printf %03o $((b ^ 0x55)))" | dd of="$c" bs=1 seek=$at conv=notrunc status=none
run_hib 1 verify "$c"; err_has "damaged"
if grep -q "chunk 3" "$TMP/err"; then ok; else err_has "CRC32 mismatch"; fi

# 2. cmp_len 0, and 3. cmp_len beyond the kernel's bound
c=$(fresh "$lzo"); d=$(chunk_dev "$c" 5)
poke_u64 "$c" $((d * PS)) 0
run_hib 1 verify "$c"; err_has "chunk 5"; err_has "invalid compressed length 0"
poke_u64 "$c" $((d * PS)) 139334
run_hib 1 verify "$c"; err_has "invalid compressed length 139334"
poke_u64 "$c" $((d * PS)) -1
run_hib 1 verify "$c"; err_has "invalid compressed length"

# 4. garbage instead of the LZO stream (length kept)
c=$(fresh "$lzo"); d=$(chunk_dev "$c" 2)
head -c 4000 /dev/urandom | dd of="$c" bs=1 seek=$((d * PS + 8)) conv=notrunc status=none
run_hib 1 verify "$c"; err_has "chunk 2"

# 5. map chain loops back on itself
c=$(fresh "$lzo"); m=$(map_dev "$c" 0)
poke_u64 "$c" $((m * PS + PS - 8)) "$m"
run_hib 1 verify "$c"; err_has "swap map page"; err_has "already used"

# 6. map entry beyond the device
c=$(fresh "$lzo"); m=$(map_dev "$c" 0)
poke_u64 "$c" $((m * PS + 5 * 8)) 999999999
run_hib 1 verify "$c"; err_has "map entry 5"; err_has "beyond"

# 7. truncated copy: the last chunk's pages are gone
c=$(fresh "$lzo")
last=$("$HIBIMG" dump -r -n "$c" chunks | tail -1 | awk '{print $3}')
truncate -s $((last * PS + 100)) "$c"
run_hib 1 verify "$c"; err_has "beyond"

# 8. stored CRC wrong
c=$(fresh "$lzo")
crc=$(od -An -t u4 -j $((PS - 36)) -N 4 "$c" | tr -d ' ')
poke_u32 "$c" $((PS - 36)) $((crc ^ 1))
run_hib 1 verify "$c"; err_has "CRC32 mismatch"
run_hib 1 verify --json "$c"
check "JSON says the CRC does not match" test "$(json_get "$TMP/out" crc32-ok)" = false
check "JSON status damaged" test "$(json_get "$TMP/out" status)" = damaged

# 9. PFNs not ascending (uncompressed image: the PFN list is raw)
c=$(fresh "$raw"); m=$(map_dev "$c" 0)
p1=$(peek_u64 "$c" $((m * PS + 8)))        # map entry 1 = stream page 1
a=$(peek_u64 "$c" $((p1 * PS + 80)))
b=$(peek_u64 "$c" $((p1 * PS + 88)))
poke_u64 "$c" $((p1 * PS + 80)) "$b"
poke_u64 "$c" $((p1 * PS + 88)) "$a"
run_hib 1 verify "$c"; err_has "does not ascend"

# 10. header page counts inconsistent
c=$(fresh "$raw"); m=$(map_dev "$c" 0)
p0=$(peek_u64 "$c" $((m * PS)))             # map entry 0 = swsusp_info
ip=$(peek_u64 "$c" $((p0 * PS + 416)))
poke_u64 "$c" $((p0 * PS + 416)) $((ip - 600))
run_hib 1 verify "$c"; err_has "PFN list"
poke_u64 "$c" $((p0 * PS + 424)) 7
run_hib 1 verify "$c"; err_has "swsusp_info"

# 11. unknown flag bits: a variant we cannot interpret
c=$(fresh "$lzo"); f=$(od -An -t u4 -j $((PS - 24)) -N 4 "$c" | tr -d ' ')
poke_u32 "$c" $((PS - 24)) $((f | 0x40))
run_hib 2 verify "$c"; err_has "unknown flag bits 0x40"

# 12. spent: the signature a resume attempt puts back
c=$(fresh "$lzo"); poke_str "$c" $((PS - 10)) SWAPSPACE2
run_hib 2 verify "$c"; err_has "spent image"
run_hib 0 info --no-scan "$c"; out_has "spent"

# 13. plain swap, no image
c=$(fresh "$lzo"); poke_str "$c" $((PS - 10)) SWAPSPACE2; poke_u64 "$c" $((PS - 32)) 0
run_hib 2 verify "$c"; err_has "plain swap area"

# 14. not a swap area at all
head -c 65536 /dev/urandom >"$TMP/rnd"
run_hib 2 verify "$TMP/rnd"; err_has "not a hibernation image"

# 15. first map page off the device
c=$(fresh "$lzo"); poke_u64 "$c" $((PS - 32)) 987654321
run_hib 1 verify "$c"; err_has "first swap map page"

# Crafted sizes: numbers a hostile image chooses. Each must be refused by a
# bound (device, last_page, the map, the meta pages), not by running out of
# memory, and must not make hibimg grow: its peak RSS stays within 4 MiB of
# what verifying the pristine image takes.
maxrss_kb() {  # maxrss_kb ARGS... -> peak RSS of "hibimg ARGS" in KiB
	python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$HIBIMG" "$@"
}
rss_bounded() {  # rss_bounded WHAT IMG: verify IMG peaks near the pristine run
	r=$(maxrss_kb verify "$2")
	check "$1: peak RSS ${r} KiB <= pristine ${base} KiB + 4096" test "$r" -le $((base + 4096))
}
c=$(fresh "$lzo"); base=$(maxrss_kb verify "$c")
check "pristine peak RSS measured" test "$base" -gt 0

# 16. swsusp_info: image_pages and pages near 2^62
c=$(fresh "$lzo"); m=$(map_dev "$c" 0); p0=$(peek_u64 "$c" $((m * PS)))
poke_u64 "$c" $((p0 * PS + 416)) $((1 << 62))
poke_u64 "$c" $((p0 * PS + 424)) $(((1 << 62) + 3))
run_hib 1 verify "$c"; err_has "swsusp_info"
rss_bounded "pages 2^62" "$c"

# 17. swsusp_info: a billion PFN-list (meta) pages the map cannot hold
c=$(fresh "$lzo"); m=$(map_dev "$c" 0); p0=$(peek_u64 "$c" $((m * PS)))
ip=$(peek_u64 "$c" $((p0 * PS + 416)))
poke_u64 "$c" $((p0 * PS + 424)) $((ip + 1 + 1000000000))
run_hib 1 verify "$c"; err_has "swsusp_info"
rss_bounded "10^9 meta pages" "$c"

# 18. swsusp_info: num_physpages 2^50 (sizes nothing; must not be trusted)
c=$(fresh "$lzo"); m=$(map_dev "$c" 0); p0=$(peek_u64 "$c" $((m * PS)))
poke_u64 "$c" $((p0 * PS + 400)) $((1 << 50))
timeout 120 "$HIBIMG" verify "$c" >"$TMP/out" 2>"$TMP/err"; st=$?
check "num_physpages 2^50: exit 0 or 1, not $st" test "$st" -le 1
rss_bounded "num_physpages 2^50" "$c"

# 19. overlapping chunks: two map entries name the same slot
c=$(fresh "$lzo"); m=$(map_dev "$c" 0)
poke_u64 "$c" $((m * PS + 7 * 8)) "$(peek_u64 "$c" $((m * PS + 6 * 8)))"
run_hib 1 verify "$c"; err_has "map entry 7"; err_has "used twice"

# 20. a map entry naming a swap-map page, and one naming slot 0 (the resume page)
c=$(fresh "$lzo"); m=$(map_dev "$c" 0)
poke_u64 "$c" $((m * PS + 9 * 8)) "$m"
run_hib 1 verify "$c"; err_has "map entry 9"; err_has "used twice"
c=$(fresh "$lzo"); m=$(map_dev "$c" 0)
poke_u64 "$c" $((m * PS + 9 * 8)) 0     # 0 ends the list early
run_hib 1 verify "$c"; err_has "cannot fit in the 8 pages the swap map lists"

# 21. a longer cycle: the last map page points back to the first
c=$(fresh "$lzo"); n=$("$HIBIMG" dump -r -n "$c" map | wc -l)
if [ "$n" -ge 2 ]; then
	l=$(map_dev "$c" $((n - 1)))
	poke_u64 "$c" $((l * PS + PS - 8)) "$(map_dev "$c" 0)"
	run_hib 1 verify "$c"; err_has "already used"
else
	fail "the LZO fixture has $n swap-map page(s); the cycle case needs two"
fi
rss_bounded "map cycle" "$c"

finish
