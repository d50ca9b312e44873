# SPDX-License-Identifier: GPL-2.0-or-later
# The recipes of the damaged-image catalogue (tests/files/cases), sourced by
# tests/cli-cases.sh after tests/lib.sh. Three kinds, by prefix:
#   base_KIND ARG...    prints the path of each image a case starts from
#   val_FUNC IMG ARG... prints a number read from IMG (a "let" line)
#   mk_FUNC IMG ARG...  damages IMG, the case's own copy, in place
# A recipe that cannot do what it says prints why on stderr and returns
# non-zero: the case then fails instead of testing something else. The
# driver runs each in a subshell, but within one, lib.sh's poke_* set v, s
# and i: a recipe keeps nothing it needs after a poke in those names.
#
# Places come from `hibimg dump -r -n IMG chunks|map` of the image itself:
# the stream's layout is read by the tool under test, but what a case
# asserts (status, message) does not depend on it being right, and the
# good- cases show a poke there lands on the field it means to.

# The page size and word size of the instance's image: tests/cli-cases.sh
# sets both from the base (layout) before a case's lines run; recipes take
# every place from them (issue 17).
PS=4096 WORD=8
layout() {  # layout IMG: "PS WORD" as tests/pslayout.py reads them, without libhibimg
	python3 -c 'import json, subprocess, sys
j = json.loads(subprocess.run([sys.executable, sys.argv[1], sys.argv[2], "summary"],
                              check=True, capture_output=True).stdout)
print(j["ps"], j["word"])' "$top_srcdir/tests/pslayout.py" "$1"
}
poke_word() {  # poke_word FILE OFFSET VALUE: an unsigned long / size_t of the writer
	if [ "$WORD" = 4 ]; then poke_u32 "$@"; else poke_u64 "$@"; fi
}
peek_word() {  # peek_word FILE OFFSET
	if [ "$WORD" = 4 ]; then od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; else peek_u64 "$@"; fi
}

# --- bases --------------------------------------------------------------------

base_fixture() {  # base_fixture COMP: the first fixtures0 image compressed with COMP
	for f in $(fixtures0); do
		if [ "$(sidecar "$f" compression)" = "$1" ]; then
			echo "$FIX_IMG/$f.img"; return 0
		fi
	done
	echo "no fixtures0 image with compression $1" >&2
	return 1
}

base_fixtures0() {  # every fixtures0 image: one instance of the case each
	for f in $(fixtures0); do echo "$FIX_IMG/$f.img"; done
}

# one instance per page size and word size: the COMP fixture (4K pages,
# 8-byte words, a real kernel's), then for 16K, 64K and 4-byte words the
# real kernel's fixture of that layout written with COMP (arm612-16k-lzo,
# i61-lzo, ...), else tests/mkimage's COMP image of the pages of that
# layout's real fixture (so the arch record stays the kernel's), else of
# the COMP fixture's; mkimage images are built once per run of the driver
MKIMAGE=${MKIMAGE:-$top_builddir/tests/mkimage}
layout_fixture() {  # layout_fixture PS WORD [COMP]: a fixture at page 0 of that layout
	for f in $(fixtures); do
		e=$FIX_SRC/$f.expect
		grep -q '^resume_offset=' "$e" && continue
		[ "$(sidecar "$f" page_size)" = "$1" ] || continue
		w=$(sidecar "$f" word_size)   # the arm64 sidecars predate word_size=
		[ "${w:-8}" = "$2" ] || continue
		[ -z "${3:-}" ] || [ "$(sidecar "$f" compression)" = "$3" ] || continue
		echo "$f"; return 0
	done
	return 1
}
base_layouts() {  # base_layouts COMP
	base_fixture "$1" || return 1
	for lay in 16384:8 65536:8 4096:4; do
		ps=${lay%:*} ws=${lay#*:}
		if f=$(layout_fixture "$ps" "$ws" "$1"); then
			echo "$FIX_IMG/$f.img"; continue
		fi
		src=$(base_fixture "$1")
		! f=$(layout_fixture "$ps" "$ws") || src=$FIX_IMG/$f.img
		o=$TMP/layout-$ps-$ws-$1.img
		[ -f "$o" ] || "$MKIMAGE" --pages 300 --zero-share 0.2 --page-size "$ps" \
			--word-size "$ws" --to "$1" "$o" "$src" >/dev/null || return 1
		echo "$o"
	done
}

# tests/mkuswsusp.py's images, made once per run of the driver: every
# variant, so the numbers in meta.json are those of the images used
USW_PY=${USWSUSP_PY:-/usr/bin/python3}
USW=$TMP/uswsusp
base_uswsusp() {  # base_uswsusp VARIANT
	if [ ! -f "$USW/meta.json" ]; then
		if ! "$USW_PY" -c 'import lzo, cryptography'; then
			echo "$USW_PY lacks python3-lzo or python3-cryptography (tools/bootstrap.sh installs them)" >&2
			return 1
		fi
		"$USW_PY" "$top_srcdir/tests/mkuswsusp.py" "$FIX_IMG/k612-lzo.img" "$USW" || return 1
	fi
	[ -f "$USW/$1.img" ] || { echo "mkuswsusp.py made no variant $1" >&2; return 1; }
	echo "$USW/$1.img"
}

base_swapfile_copy() {  # the k612fs-swapfile fixture's /swapfile, its bytes copied out
	# by debugfs (no mount, no hibimg): a swap file's image away from its device
	[ -f "$TMP/swapfile-copy" ] ||
		debugfs -R "dump /swapfile $TMP/swapfile-copy" "$FIX_IMG/k612fs-swapfile.img" \
			>/dev/null 2>"$TMP/debugfs.err" || { cat "$TMP/debugfs.err" >&2; return 1; }
	echo "$TMP/swapfile-copy"
}

base_noise() {  # base_noise BYTES: the same pseudo-random bytes on every run
	python3 -c 'import random, sys
sys.stdout.buffer.write(random.Random(13).randbytes(int(sys.argv[1])))' "$1" >"$TMP/noise-$1" &&
	echo "$TMP/noise-$1"
}

# --- where things are -----------------------------------------------------------

chunk_row() {  # chunk_row IMG N|mid|last -> that chunk's row of dump chunks
	"$HIBIMG" dump -r -n "$1" chunks >"$TMP/chunks.txt" || return 1
	case $2 in
	last) tail -n 1 "$TMP/chunks.txt" ;;
	# the row at half the count, counted from 1, as cli-ioerror.sh took it
	mid)  sed -n "$(( $(wc -l <"$TMP/chunks.txt") / 2 ))p" "$TMP/chunks.txt" ;;
	*)    awk -v n="$2" '$1 == n' "$TMP/chunks.txt" ;;
	esac
}
chunk_dev() {  # chunk_dev IMG N -> device page of chunk N
	d=$(chunk_row "$1" "$2" | awk '{print $3}')
	[ -n "$d" ] || { echo "no chunk $2 in $1" >&2; return 1; }
	echo "$d"
}
chunk_len() {  # chunk_len IMG N -> compressed length of chunk N (dump's column 6)
	l=$(chunk_row "$1" "$2" | awk '{print $6}')
	[ -n "$l" ] || { echo "no chunk $2 in $1" >&2; return 1; }
	echo "$l"
}
map_count() { "$HIBIMG" dump -r -n "$1" map | wc -l; }
map_dev() {  # map_dev IMG K|last -> device page of swap-map page K
	k=$2
	[ "$k" = last ] && k=$(( $(map_count "$1") - 1 ))
	d=$("$HIBIMG" dump -r -n "$1" map | awk -v n="$k" '$1 == n {print $2}')
	[ -n "$d" ] || { echo "no swap-map page $2 in $1" >&2; return 1; }
	echo "$d"
}
# swsusp_info is stream page 0, map entry 0; its fields by offset
# (struct swsusp_info after the new_utsname and version_code; ILP32: 4-byte
# longs from 396)
info_off() {
	case $WORD:$1 in
	8:num_physpages) echo 400 ;;
	8:image_pages)   echo 416 ;;
	8:pages)         echo 424 ;;
	4:num_physpages) echo 396 ;;
	4:image_pages)   echo 404 ;;
	4:pages)         echo 408 ;;
	*) echo "no swsusp_info field $1" >&2; return 1 ;;
	esac
}
info_dev() { m=$(map_dev "$1" 0) && peek_u64 "$1" $((m * PS)); }

# --- val_: numbers a case's messages name ---------------------------------------

val_map_byte() {  # val_map_byte IMG K OFF: byte OFF of swap-map page K
	m=$(map_dev "$1" "$2") && echo $((m * PS + $3))
}
val_chunk_byte() {  # val_chunk_byte IMG N|mid|last OFF: byte OFF of that chunk's first page
	d=$(chunk_dev "$1" "$2") && echo $((d * PS + $3))
}
val_page_start() {  # val_page_start IMG OFF: the start of the page holding byte OFF
	echo $(($2 / PS * PS))
}
val_cmp_bound() {  # val_cmp_bound IMG ADD: bytes_worst_compress(32 pages) + ADD
	# kernel/power/swap.c: x + x/16 + 64 + 3 + 2, x = UNC_SIZE = 32 * PS
	echo $((32 * PS + 32 * PS / 16 + 69 + $2))
}
val_usw() {  # val_usw IMG VARIANT KEY [ADD]: meta.json's KEY of VARIANT, plus ADD
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]] + int(sys.argv[4]))' \
		"$USW/meta.json" "$2" "$3" "${4:-0}"
}

# --- mk_: damage ------------------------------------------------------------------

xor_byte() {  # xor_byte FILE OFFSET MASK
	b=$(od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' ')
	printf "\\$(printf %03o $((b ^ $3)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# chunk N: { size_t cmp_len; data[cmp_len] } from its first device page
mk_chunk_flip() {  # mk_chunk_flip IMG N: a byte halfway into the data, inside cmp_len
	d=$(chunk_dev "$1" "$2") && l=$(chunk_len "$1" "$2") &&
	xor_byte "$1" $((d * PS + WORD + l / 2)) 0x55
}
mk_cmp_len() {  # mk_cmp_len IMG N VALUE|own|bound+1: chunk N's cmp_len (own: the
	# length it has; bound+1: one past the kernel's bound at this page size)
	d=$(chunk_dev "$1" "$2") || return 1
	v=$3
	[ "$v" = own ] && { v=$(chunk_len "$1" "$2") || return 1; }
	[ "$v" = bound+1 ] && v=$(val_cmp_bound "$1" 1)
	poke_word "$1" $((d * PS)) "$v"
}
mk_chunk_noise() {  # mk_chunk_noise IMG N LEN: LEN fixed pseudo-random bytes over the data
	d=$(chunk_dev "$1" "$2") || return 1
	python3 -c 'import random, sys
sys.stdout.buffer.write(random.Random(int(sys.argv[1])).randbytes(int(sys.argv[2])))' "$2" "$3" |
	dd of="$1" bs=1 seek=$((d * PS + WORD)) conv=notrunc status=none
}
mk_truncate_last_chunk() {  # mk_truncate_last_chunk IMG BYTES: cut BYTES into the last chunk
	d=$(chunk_dev "$1" last) && truncate -s $((d * PS + $2)) "$1"
}

# swap-map page: 511 entries (device pages), then the next map page
mk_map_next() {  # mk_map_next IMG K|last TO: map page K's next pointer -> map page TO
	if [ "$2" = last ] && [ "$(map_count "$1")" -lt 2 ]; then
		echo "$1 has one swap-map page; 'last' needs two" >&2
		return 1
	fi
	f=$(map_dev "$1" "$2") && t=$(map_dev "$1" "$3") &&
	poke_u64 "$1" $((f * PS + PS - 8)) "$t"
}
mk_map_entry() {  # mk_map_entry IMG N VALUE: entry N of map page 0
	m=$(map_dev "$1" 0) && poke_u64 "$1" $((m * PS + $2 * 8)) "$3"
}
mk_map_entry_as() {  # mk_map_entry_as IMG N M: entry N names entry M's slot
	m=$(map_dev "$1" 0) &&
	poke_u64 "$1" $((m * PS + $2 * 8)) "$(peek_u64 "$1" $((m * PS + $3 * 8)))"
}
mk_map_entry_map() {  # mk_map_entry_map IMG N K: entry N names swap-map page K
	m=$(map_dev "$1" 0) && k=$(map_dev "$1" "$3") &&
	poke_u64 "$1" $((m * PS + $2 * 8)) "$k"
}

# the PFN list: stream pages 1.., map entries 1.., 512 u64 a page
mk_pfn_swap() {  # mk_pfn_swap IMG I J: entries I and J of the first PFN-list page trade places
	m=$(map_dev "$1" 0) || return 1
	p=$(peek_u64 "$1" $((m * PS + 8)))
	a=$(peek_u64 "$1" $((p * PS + $2 * 8)))
	b=$(peek_u64 "$1" $((p * PS + $3 * 8)))
	poke_u64 "$1" $((p * PS + $2 * 8)) "$b"
	poke_u64 "$1" $((p * PS + $3 * 8)) "$a"
}

# the page is found once: with one field changed, dump may no longer read
# the map it is found through
mk_info_set() {  # mk_info_set IMG FIELD VALUE [FIELD VALUE]...
	info_img=$1; shift
	info_pg=$(info_dev "$info_img") || return 1
	while [ $# -ge 2 ]; do
		o=$(info_off "$1") && poke_word "$info_img" $((info_pg * PS + o)) "$2" || return 1
		shift 2
	done
	[ $# = 0 ] || { echo "mk_info_set: FIELD $1 without a VALUE" >&2; return 1; }
}
mk_info_add() {  # mk_info_add IMG FIELD DELTA [FROM]: FIELD = FROM (default FIELD) + DELTA
	o=$(info_off "$2") && from=$(info_off "${4:-$2}") && p=$(info_dev "$1") &&
	poke_word "$1" $((p * PS + o)) $(( $(peek_word "$1" $((p * PS + from))) + $3 ))
}

# the resume page (page 0): swap_map u64 @PS-32, flags u32 @PS-24, crc32
# u32 @PS-36, signature @PS-10
mk_resume_map() {  # mk_resume_map IMG VALUE: the first swap-map page
	poke_u64 "$1" $((PS - 32)) "$2"
}
mk_resume_flags_or() {  # mk_resume_flags_or IMG BITS
	f=$(od -An -t u4 -j $((PS - 24)) -N 4 "$1" | tr -d ' ')
	poke_u32 "$1" $((PS - 24)) $((f | $2))
}
mk_resume_crc_flip() {  # mk_resume_crc_flip IMG: bit 0 of the stored CRC32
	c=$(od -An -t u4 -j $((PS - 36)) -N 4 "$1" | tr -d ' ')
	poke_u32 "$1" $((PS - 36)) $((c ^ 1))
}
mk_resume_sig() {  # mk_resume_sig IMG SIG
	poke_str "$1" $((PS - 10)) "$2"
}

# uswsusp: extents pages of struct extent { loff_t start, end } (bytes)
mk_usw_extent0_beyond() {  # mk_usw_extent0_beyond IMG VARIANT: extent 0 wholly past the end
	python3 - "$1" "$(val_usw "$1" "$2" map_start)" <<'EOF'
import os, struct, sys
f = open(sys.argv[1], 'r+b'); o = int(sys.argv[2]); end = os.path.getsize(sys.argv[1])
f.seek(o); f.write(struct.pack('<qq', end + 4096, end + 8192))
EOF
}
