#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peak RSS of verify, stats, simulate, recompress and export on images of the same
# memory laid out with 4 KiB, 16 KiB and 64 KiB pages (and 4-byte words),
# built by tests/mkimage from a fixture's pages (issue 17: memory stays
# bounded at 64K pages). Run by hand from a build tree, never by make:
#
#   sh bench/rss.sh [MiB of memory, default 256] [threads, default 8]
#
# HIBIMG=path measures another hibimg (an older build: before and after);
# the images are always made by this tree's tests/mkimage.
#
# Prints one line per command and layout: "Maximum resident set size"
# of /usr/bin/time -v, in KiB. The 4 KiB line is the reference: a 64 KiB
# line should be within a constant (a few chunk buffers) of it, not 16
# times it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
b=${HIBIMG_BUILD:-$top}
mib=${1:-256}
threads=${2:-8}
src=${HIBIMG_RSS_SOURCE:-$b/fixtures/k612-lzo.img}
hib=${HIBIMG:-$b/hibimg}
tmp=$(mktemp -d /tmp/hibimg-rss.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
command -v /usr/bin/time >/dev/null 2>&1 || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

rss() {  # rss CMD...: peak RSS in KiB
	/usr/bin/time -v "$@" >/dev/null 2>"$tmp/time" || { cat "$tmp/time" >&2; exit 1; }
	sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time"
}

printf '%-8s %-5s %-4s %-8s %8s %10s %10s %10s %10s %10s\n' layout word to pages MiB verify stats simulate recompress export
for lay in 4096:8 16384:8 65536:8 4096:4; do
	ps=${lay%:*} w=${lay#*:}
	pages=$((mib * 1048576 / ps))
	for to in lzo none; do
		img=$tmp/i.img
		"$b/tests/mkimage" --pages "$pages" --zero-share 0.2 --page-size "$ps" \
			--word-size "$w" --to "$to" "$img" "$src" >/dev/null
		v=$(rss "$hib" verify -T "$threads" "$img")
		s=$(rss "$hib" stats -T "$threads" "$img")
		m=$(rss "$hib" simulate -q -T "$threads" "$img")
		r=$(rss "$hib" recompress -T "$threads" --to lz4 -f "$img" "$tmp/r.img")
		e=$(rss "$hib" export -T "$threads" -F elf -f "$img" "$tmp/e.core")
		printf '%-8s %-5s %-4s %-8s %8s %10s %10s %10s %10s %10s\n' "$ps" "$w" "$to" "$pages" "$mib" "$v" "$s" "$m" "$r" "$e"
		rm -f "$img" "$tmp/r.img" "$tmp/e.core"
	done
done
