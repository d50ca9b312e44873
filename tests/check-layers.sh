#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The architecture test of issue 13: lib/'s file-level call graph has no
# cycle, and no container is named outside its own file and the probe
# table (tools/callgraph.py, with ctags). It also proves it can fail: a
# copy of lib/ with one call added against the layering must be caught.
. "$(dirname "$0")/lib.sh"

CG=$top_srcdir/tools/callgraph.py
if ! command -v ctags >/dev/null; then
	fail "ctags (universal-ctags) is missing: tools/bootstrap.sh installs it"
	finish; exit
fi
python3 "$CG" --check "$top_srcdir/lib" >"$TMP/graph" 2>&1
st=$?
sed -n '/^cycle\|^outside\|^fixed\|files,/p' "$TMP/graph"
check "lib/ has no cycle and no foreign container name" test "$st" = 0

# negative controls on a copy: area.c (the bottom) calling the top, and
# stats.c testing the uswsusp kind by name
mkdir "$TMP/lib"
cp "$top_srcdir"/lib/*.c "$TMP/lib/"
printf '\nstatic void layering_probe(struct hib_image *img) { (void)hib_image_load(img); }\n' \
	>>"$TMP/lib/area.c"
python3 "$CG" --check "$TMP/lib" >"$TMP/graph2" 2>&1
check "a call from area.c up to probe.c is caught as a cycle" \
	grep -q '^cycle: .*area.c' "$TMP/graph2"
cp "$top_srcdir/lib/area.c" "$TMP/lib/area.c"
printf '\nstatic int layering_kind(struct hib_image *img) { return img->hdr.kind == HIB_KIND_USWSUSP; }\n' \
	>>"$TMP/lib/stats.c"
python3 "$CG" --check "$TMP/lib" >/dev/null 2>&1
check "a container named in stats.c is caught" test $? = 1
finish
