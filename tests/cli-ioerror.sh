#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A read that fails or comes back short anywhere in the image gives exit
# status 3 and names the device offset, never a verdict on the image.
# tests/faultio.c is interposed on pread and faults one chosen byte.
. "$(dirname "$0")/lib.sh"

FAULTIO=${FAULTIO:-$top_builddir/tests/libfaultio.so}
check "fault interposer built" test -f "$FAULTIO"
PS=4096
for name in $(fixtures0); do
	img=$FIX_IMG/$name.img
	map=$("$HIBIMG" dump -r -n "$img" map | awk 'NR==1 {print $2}')
	last=$("$HIBIMG" dump -r -n "$img" chunks | tail -1 | awk '{print $3}')
	mid=$("$HIBIMG" dump -r -n "$img" chunks | awk -v n="$(($("$HIBIMG" dump -r -n "$img" chunks | wc -l) / 2))" 'NR == n {print $3}')
	for where in 4090 $((map * PS + 16)) $((mid * PS + 100)) $((last * PS + 8)); do
		for mode in eio short; do
			HIBIMG_FAULT_PATH=$img HIBIMG_FAULT_OFFSET=$where HIBIMG_FAULT_MODE=$mode \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
			LD_PRELOAD=$FAULTIO run_hib 3 verify "$img"
			# EIO names the failing page, a short read the byte it
			# stopped at
			if [ $mode = eio ]; then
				err_has "read error at device offset $(printf '0x%x' $((where / PS * PS))):"
			else
				err_has "short read at device offset $(printf '0x%x' "$where") "
			fi
		done
	done
	# the threaded reader reports the same
	HIBIMG_FAULT_PATH=$img HIBIMG_FAULT_OFFSET=$((mid * PS + 100)) \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	LD_PRELOAD=$FAULTIO run_hib 3 verify -T 3 "$img"
	err_has "read error"
done
finish
