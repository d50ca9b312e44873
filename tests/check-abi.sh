#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The ABI lists agree (issue 13): every function hibimg.h declares HIB_API
# is listed once in lib/libhibimg.sym, nothing else is, and the shared
# library (where the build makes one) exports exactly that list, each
# symbol under its version node.
. "$(dirname "$0")/lib.sh"

hdr=$top_builddir/lib/hibimg.h
sym=$top_srcdir/lib/libhibimg.sym
so=$top_builddir/lib/.libs/libhibimg.so

grep 'HIB_API' "$hdr" | grep -o 'hib_[a-z0-9_]*(' | tr -d '(' | sort >"$TMP/declared"
sed -n 's/^[[:space:]]*\(hib_[a-z0-9_]*\);.*/\1/p' "$sym" | sort >"$TMP/listed"
check "hibimg.h declares functions ($(wc -l <"$TMP/declared"))" test -s "$TMP/declared"
check "no symbol listed twice in libhibimg.sym" \
	test -z "$(uniq -d "$TMP/listed")"
if ! cmp -s "$TMP/declared" "$TMP/listed"; then
	fail "hibimg.h and libhibimg.sym differ (< declared only, > listed only):"
	diff "$TMP/declared" "$TMP/listed" | grep '^[<>]' | sed 's/^/    /' >&2
else
	ok
fi
check "libhibimg.sym lists names, no hib_* wildcard" sh -c "! grep -q 'hib_[a-z0-9_]*\\*' '$sym'"

if [ -f "$so" ] && command -v nm >/dev/null; then
	# "name@@NODE" for the default version of each defined dynamic symbol
	nm -D --defined-only "$so" | awk '$3 ~ /^hib_/ {print $3}' | sort >"$TMP/exported"
	sed 's/@.*//' "$TMP/exported" >"$TMP/exported-names"
	if cmp -s "$TMP/exported-names" "$TMP/listed"; then ok; else
		fail "the library's exports differ from libhibimg.sym:"
		diff "$TMP/exported-names" "$TMP/listed" | grep '^[<>]' | sed 's/^/    /' >&2
	fi
	# each symbol under the node the .sym puts it in
	awk '/^HIBIMG_[0-9.]* *\{/ {node = $1} /^[[:space:]]*hib_[a-z0-9_]*;/ {
		s = $1; sub(/;.*/, "", s); print s "@@" node }' "$sym" | sort >"$TMP/nodes"
	check "every export under its version node" cmp -s "$TMP/exported" "$TMP/nodes"
else
	echo "# no shared library in this build (--disable-shared): exports not compared"
fi
finish
