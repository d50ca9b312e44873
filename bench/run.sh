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
# simulate and stats run on the 1 GiB image next to zstd -3 -T0, lz4 -1 and
# lzop -1 of the same stream (what the sizing has to do at least); with
# --base BIN (a hibimg built from an older commit) the same rows for it.
# --machines sizes synthetic images of machines of that much RAM
# (tests/mkimage, lz4; zero share 0.99 up to 64 GiB, 0.999 above, so a
# 1 TiB machine's image is 1 GiB of data and 2 GiB of PFN list) and
# times verify, stats and simulate on each (time and peak RSS).
#
#   sh bench/run.sh [--quick] [--sizes "1G 4G"] [--runs N] [--out FILE]
#                   [--base BIN] [--machines "4G 64G 1T"]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
HIBIMG=${HIBIMG:-$top/hibimg}
MKIMAGE=${MKIMAGE:-$top/tests/mkimage}
work=${HIBIMG_BENCH_DIR:-/var/tmp/hibimg-bench}
sizes="1G 4G"
runs=5
out=$top/bench/RESULTS.md
base=""
machines=""
while [ $# -gt 0 ]; do
	case $1 in
	--quick) sizes="64M"; runs=3; out=/dev/stdout ;;
	--sizes) sizes=$2; shift ;;
	--runs) runs=$2; shift ;;
	--out) out=$2; shift ;;
	--base) base=$2; shift ;;
	--machines) machines=$2; shift ;;
	*) echo "usage: $0 [--quick] [--sizes LIST] [--runs N] [--out FILE] [--base BIN] [--machines LIST]" >&2; exit 2 ;;
	esac
	shift
done

for t in lz4 lzop zstd /usr/bin/time python3 cc; do
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
	# what simulate and stats do at least: compress the stream
	if [ "$bytes" -le $((1 << 30)) ]; then
		warm "$pre.stream"
		set -- $(med "zstd -q -3 -T0 -c '$pre.stream'")
		row "$size zstd-3-T0 - $1 $2 $(mbs $1)"
		set -- $(med "lz4 -q -1 -c '$pre.stream'")
		row "$size lz4-1 - $1 $2 $(mbs $1)"
		set -- $(med "lzop -q -1 -c '$pre.stream'")
		row "$size lzop-1 - $1 $2 $(mbs $1)"
		warm "$pre-lzo.img"
		set -- $(med "'$HIBIMG' simulate -q '$pre-lzo.img'")
		row "$size simulate-lzo $ncpu $1 $2 $(mbs $1)"
		set -- $(med "'$HIBIMG' simulate -q --sample 0.05 '$pre-lzo.img'")
		row "$size simulate-lzo-sample-0.05 $ncpu $1 $2 $(mbs $1)"
		set -- $(med "'$HIBIMG' stats -q '$pre-lzo.img'")
		row "$size stats-lzo-all $ncpu $1 $2 $(mbs $1)"
		if [ -n "$base" ]; then
			set -- $(med "'$base' simulate -q '$pre-lzo.img'")
			row "$size simulate-lzo-base $ncpu $1 $2 $(mbs $1)"
			set -- $(med "'$base' stats -q '$pre-lzo.img'")
			row "$size stats-lzo-all-base $ncpu $1 $2 $(mbs $1)"
		fi
	fi
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

# Synthetic machines: MB/s of the image's stream (its stream pages)
for m in $machines; do
	pfns=$(( $(numfmt --from=iec "$m") / 4096 ))
	zs=0.99
	[ "$pfns" -gt $((16 << 20)) ] && zs=0.999
	img=$work/machine-$m.img
	if [ ! -f "$img.done" ]; then
		"$MKIMAGE" --pages $pfns --zero-share $zs --to lz4 "$img" $sources >"$img.log"
		touch "$img.done"
	fi
	sp=$(sed -n 's/.* \([0-9]*\) stream pages.*/\1/p' "$img.log")
	sb=$((sp * 4096))
	mbs() { awk -v b="$sb" -v s="$1" 'BEGIN {printf "%.0f", b / 1e6 / s}'; }
	mr=$runs
	[ "$pfns" -gt $((16 << 20)) ] && runs=1
	warm "$img"
	for c in verify stats simulate; do
		set -- $(med "'$HIBIMG' $c -q '$img'")
		row "machine-$m $c $ncpu $1 $2 $(mbs $1) $zs $sp"
	done
	# the older build: stats and simulate held per-RAM-page state and
	# compressed every zero chunk; at 1 TiB that is hours and GiBs: skipped
	if [ -n "$base" ] && [ "$pfns" -le $((16 << 20)) ]; then
		runs=1
		for c in verify stats simulate; do
			set -- $(med "'$base' $c -q '$img'")
			row "machine-$m $c-base $ncpu $1 $2 $(mbs $1) $zs $sp"
		done
	fi
	runs=$mr
done

python3 "$top/bench/report.py" "$rows" "$ncpu" "$runs" >"$out"
[ "$out" = /dev/stdout ] || echo "bench: results in $out"
