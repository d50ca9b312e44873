#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run.sh - hibimg against lz4, lzop, cat and memcpy on the same bytes.
#
# Builds bench images with the writer from the pages of the real fixtures
# (cycled in a shuffled order, 15 % zero pages omitted as 6.6+ kernels do),
# 1 GiB and 4 GiB of uncompressed stream, in LZO, LZ4 and raw form, plus the
# raw stream as a flat file that lz4 and lzop compress into their own frames.
# Every timing is the median of RUNS runs on page-cached input; MB/s are
# MB (10^6 bytes) of uncompressed stream per second.
#
#   sh bench/run.sh [--quick] [--sizes "1G 4G"] [--runs N] [--out FILE]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
HIBIMG=${HIBIMG:-$top/hibimg}
MKIMAGE=${MKIMAGE:-$top/tests/mkimage}
work=${HIBIMG_BENCH_DIR:-/var/tmp/hibimg-bench}
sizes="1G 4G"
runs=5
out=$top/bench/RESULTS.md
while [ $# -gt 0 ]; do
	case $1 in
	--quick) sizes="64M"; runs=3; out=/dev/stdout ;;
	--sizes) sizes=$2; shift ;;
	--runs) runs=$2; shift ;;
	--out) out=$2; shift ;;
	*) echo "usage: $0 [--quick] [--sizes LIST] [--runs N] [--out FILE]" >&2; exit 2 ;;
	esac
	shift
done

for t in lz4 lzop /usr/bin/time python3 cc; do
	command -v "$t" >/dev/null || { echo "bench: $t is missing (apt-get install lz4 lzop time python3 gcc)" >&2; exit 2; }
done
[ -x "$HIBIMG" ] && [ -x "$MKIMAGE" ] || { echo "bench: build first: make && make tests/mkimage" >&2; exit 2; }
mkdir -p "$work"
recdir=$work
[ -d /dev/shm ] && [ -w /dev/shm ] && recdir=$(mktemp -d /dev/shm/hibimg-bench.XXXXXX)
cc -O2 -o "$work/memcpy-rate" "$top/bench/memcpy-rate.c"
ncpu=$(nproc)
sources=""
for f in "$top"/fixtures/*.img.zst; do
	# images a kernel wrote at page 0 (not spent areas, not swap files)
	grep -q '^\(spent_from\|resume_offset\)=' "${f%.img.zst}.expect" && continue
	img=$work/$(basename "$f" .zst)
	[ -f "$img" ] || zstd -q -d -o "$img" "$f"
	sources="$sources $img"
done

# warm FILE...: only these in the page cache. Several GiB of bench files do
# not all fit; a run must not read half its input from disk.
warm() {
	sync
	echo 1 >/proc/sys/vm/drop_caches 2>/dev/null || true
	cat "$@" >/dev/null
}

# median of the wall times of RUNS runs of a command (stdout discarded)
med() {
	for i in $(seq "$runs"); do
		/usr/bin/time -f "%e %M" -o "$work/t" sh -c "$1" >/dev/null 2>"$work/err" ||
			{ echo "bench: failed: $1" >&2; cat "$work/err" >&2; exit 1; }
		cat "$work/t"
	done | sort -n | awk '{t[NR]=$1; m[NR]=$2} END {printf "%s %s\n", t[int((NR+1)/2)], m[int((NR+1)/2)]}'
}

threads_list() {
	t=1; l=""
	while [ "$t" -lt "$ncpu" ]; do l="$l $t"; t=$((t * 2)); done
	echo "$l $ncpu"
}

rows=$work/rows
: >"$rows"
row() { echo "$*" >>"$rows"; }

for size in $sizes; do
	bytes=$(numfmt --from=iec "$size")
	# 15 % zero pages are omitted, so the stream holds 85 % of the PFNs
	pfns=$(( bytes / 4096 * 100 / 85 ))
	pre=$work/bench-$size
	if [ ! -f "$pre.done" ]; then
		"$MKIMAGE" --pages $pfns --zero-share 0.15 --to none --stream-out "$pre.stream" "$pre-raw.img" $sources
		"$MKIMAGE" --pages $pfns --zero-share 0.15 --to lzo "$pre-lzo.img" $sources
		"$MKIMAGE" --pages $pfns --zero-share 0.15 --to lz4 "$pre-lz4.img" $sources
		lz4 -q -1 -f "$pre.stream" "$pre.stream.lz4"
		lzop -q -1 -f -o "$pre.stream.lzo" "$pre.stream"
		touch "$pre.done"
	fi
	sb=$(stat -c %s "$pre.stream")
	mbs() { awk -v b="$sb" -v s="$1" 'BEGIN {printf "%.0f", b / 1e6 / s}'; }

	warm "$pre.stream"
	set -- $(med "cat '$pre.stream'")
	row "$size cat - $1 $2 $(mbs $1)"
	s=$("$work/memcpy-rate" "$sb")
	row "$size memcpy - $s 0 $(mbs "$s")"
	warm "$pre.stream.lz4"
	set -- $(med "lz4 -d -c '$pre.stream.lz4'")
	row "$size lz4-d - $1 $2 $(mbs $1)"
	warm "$pre.stream.lzo"
	set -- $(med "lzop -d -c '$pre.stream.lzo'")
	row "$size lzop-d - $1 $2 $(mbs $1)"
	set -- $(med "lzop -d -c '$pre.stream.lzo' | lz4 -1 -c")
	row "$size lzop-d|lz4-1 - $1 $2 $(mbs $1)"
	for t in $(threads_list); do
		for c in lz4 lzo raw; do
			warm "$pre-$c.img"
			set -- $(med "'$HIBIMG' verify -q -T $t '$pre-$c.img'")
			row "$size verify-$c $t $1 $2 $(mbs $1)"
		done
		# The bench area holds nothing but the image, so the new image may
		# take further slots: the default level, no harder fallback.
		# Output on tmpfs when there is one: the peer pipeline writes to
		# /dev/null, so both sides are measured without the disk.
		warm "$pre-lzo.img"
		set -- $(med "'$HIBIMG' recompress -T $t --to lz4 --level 0 --unsafe-extra-slots '$pre-lzo.img' '$recdir/rec.img' && rm -f '$recdir/rec.img'")
		row "$size recompress-lzo-lz4 $t $1 $2 $(mbs $1)"
		# stats hashes every page and compresses the stream four ways:
		# measured up to 1 GiB
		if [ "$bytes" -gt $((1 << 30)) ]; then
			:
		elif "$HIBIMG" stats --help 2>/dev/null | grep -q -- --threads; then
			warm "$pre-lzo.img"
			set -- $(med "'$HIBIMG' stats -T $t '$pre-lzo.img'")
			row "$size stats-lzo $t $1 $2 $(mbs $1)"
		elif [ "$t" = 1 ] && "$HIBIMG" stats --help >/dev/null 2>&1; then
			warm "$pre-lzo.img"
			set -- $(med "'$HIBIMG' stats '$pre-lzo.img'")
			row "$size stats-lzo 1 $1 $2 $(mbs $1)"
		fi
	done
done

python3 "$top/bench/report.py" "$rows" "$ncpu" "$runs" >"$out"
[ "$out" = /dev/stdout ] || echo "bench: results in $out"
