#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One vocabulary of views (issue 14), as a table: every command x {text, -r,
# -P, -J, -o COLS, -n, -q, a nonexistent path, a damaged copy}. JSON is one
# document that parses and follows doc/hibimg.schema.json (checked by
# python3-jsonschema, not by hibimg); -P lines are shell assignments; -r has
# no \x escapes; -o gives those columns in that order; -n drops the header;
# -q prints nothing; an error gives its exit status, one message on stderr
# that starts "hibimg CMD:", and with -J one document that carries it.
. "$(dirname "$0")/lib.sh"

SCHEMA=$top_srcdir/doc/hibimg.schema.json
JV="python3 $top_srcdir/tests/jsonview.py"
img=$FIX_IMG/k612-lzo.img
PS=4096

if ! python3 -c 'import jsonschema' 2>"$TMP/err"; then
	fail "python3 lacks jsonschema (tools/bootstrap.sh installs python3-jsonschema)"
	finish; exit 1
fi
check "the schema is valid JSON Schema 2020-12" python3 -c '
import json, sys, jsonschema
jsonschema.Draft202012Validator.check_schema(json.load(open(sys.argv[1])))' "$SCHEMA"
check "doc/json.md gives every key the schema's definition" \
	$JV doccheck "$SCHEMA" "$top_srcdir/doc/json.md"

# where a command that takes -o for a file (the old spelling) would write it
cd "$TMP" || exit 1

# a damaged copy: the first swap-map page (swsusp_header.image) 0, the
# resume page's own, so every command that reads past the resume page stops
# there (a page off the end of a regular file would make it a copy of a swap
# file's bytes, exit 2: tests/files/README, unsupported-map-off-file)
dam=$TMP/damaged.img
cp --sparse=always "$img" "$dam"
poke_u64 "$dam" $((PS - 32)) 0

# NAME | ARGS (IMG: the image, OUT: a new output) | SHAPE | SCHEMA DEF | -o COLS | DAMAGED EXIT
# SHAPE: record (label/value lines for people), table, tables (several),
# lines (a text of its own for people, dmesg's; records with -r -P -J -o),
# bytes (page data: the views do not apply)
cat >"$TMP/table" <<'EOF'
info          | info IMG                          | record | doc-info          | kind,path               | 1
verify        | verify IMG                        | record | doc-verify        | status,path             | 1
dump-header   | dump IMG header                   | record | doc-dump_header   | sig,kind                | 0
dump-map      | dump IMG map                      | table  | doc-dump_map      | entries,index           | 1
dump-chunks   | dump IMG chunks                   | table  | doc-dump_chunks   | cmp_len,index           | 1
dump-pfns     | dump IMG pfns                     | table  | doc-dump_pfns     | end_pfn,start_pfn       | 1
dump-page     | dump IMG page 0x280               | bytes  | -                 | -                       | 1
recompress    | recompress --dry-run --to lz4 IMG | record | doc-recompress    | image_slots,compression | 1
stats         | stats IMG                         | record | doc-stats         | stream_pages,path       | 1
stats-classes | stats IMG classes                 | table  | doc-stats_classes | share,class             | 1
stats-buckets | stats IMG buckets                 | table  | doc-stats_buckets | end_pfn,start_pfn       | 1
stats-ranges  | stats IMG ranges                  | table  | doc-stats_ranges  | end_pfn,start_pfn       | 1
stats-chunks  | stats IMG chunks                  | table  | doc-stats_chunks  | lzo_bytes,index         | 1
simulate      | simulate IMG                      | tables | doc-simulate      | compression,zerocheck   | 1
export        | export -F raw IMG OUT             | record | doc-export        | format,output           | 1
cat           | cat -p 0x280 IMG                  | bytes  | -                 | -                       | 1
find          | find IMG                          | table  | doc-find          | kind,resume_offset      | 0
dmesg         | dmesg IMG                         | lines  | doc-dmesg         | text,seq                | 1
EOF

# hib OPTS...: runs "hibimg CMD OPTS REST" for the current row, the image
# being $spec; the status in $st, output in $TMP/out and $TMP/err. Guarded
# as run_hib is; asserts nothing.
n=0
hib() {
	n=$((n + 1))
	out=$TMP/out.$n
	# the command, then the view options, then the row's own arguments
	set -- $cmd "$@" $(echo "$rest" | sed "s|IMG|$spec|; s|OUT|$out|")
	if [ -f "$GUARDIO" ]; then
		LD_PRELOAD="$GUARDIO${LD_PRELOAD:+:$LD_PRELOAD}" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		timeout 120 "$HIBIMG" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	else
		timeout 120 "$HIBIMG" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	fi
	st=$?
	rm -f "$out"
	ran="hibimg $*"
}
bad() { fail "$row $mode: $* ($ran, exit $st)"; sed 's/^/    err: /' "$TMP/err" | head -5 >&2; }
want() {  # want STATUS: the last run exited so
	if [ "$st" = "$1" ]; then ok; else bad "exit $st, expected $1"; fi
}
quiet_err() { if [ ! -s "$TMP/err" ]; then ok; else bad "stderr not empty"; fi; }
one_message() {  # exactly one line on stderr, naming the command
	if [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "^hibimg $cmd: ." "$TMP/err"; then ok; else
		bad "stderr is not one 'hibimg $cmd: ...' message"
	fi
}
json_ok() {  # json_ok DEF: one document, valid as DEF
	if python3 -m json.tool <"$TMP/out" >/dev/null 2>"$TMP/jerr"; then ok; else
		bad "stdout is not one JSON document: $(head -1 "$TMP/jerr")"; return
	fi
	if $JV validate "$SCHEMA" "$1" "$TMP/out" >"$TMP/jerr" 2>&1; then ok; else
		bad "not valid as $1:"; sed 's/^/    /' "$TMP/jerr" >&2
	fi
}
HEADER_RE='^ *[A-Za-z][A-Za-z0-9_-]*( +[A-Za-z][A-Za-z0-9_-]*)* *$'
is_header() { echo "$1" | grep -Eq "$HEADER_RE"; }
# column names as a header line, in upper case, '-' for '_' (headers are
# compared in upper case: their case is the command's choice)
header_of() { echo "$1" | tr 'a-z_,' 'A-Z- '; }
upper() { tr 'a-z_' 'A-Z-'; }
squeeze() { sed 's/^[[:space:]]*//; s/[[:space:]][[:space:]]*/ /g; s/[[:space:]]*$//' "$1"; }

# A view that does not apply (page bytes): refused by name (with -J, by
# the error document), or done as the view says.
na() {  # na MODE-OPTS...
	hib "$@"
	case "$st ${1#-}" in
	"2 J")
		# no document where -J is not an option of the command at all
		if ! head -1 "$TMP/err" | grep -q "^hibimg $cmd: ."; then
			bad "refused without a 'hibimg $cmd: ...' message"
		elif [ -s "$TMP/out" ]; then
			json_ok doc-error
		else
			ok
		fi ;;
	2\ *)
		if head -1 "$TMP/err" | grep -q "^hibimg $cmd: ." && [ ! -s "$TMP/out" ]; then ok; else
			bad "refused without one 'hibimg $cmd: ...' message, or with output"
		fi ;;
	"0 J") json_ok any ;;
	"0 q") check "$row $mode: nothing on stdout" test ! -s "$TMP/out" ;;
	0\ *) check "$row $mode: output" test -s "$TMP/out" ;;
	*) bad "neither refused (exit 2) nor done" ;;
	esac
}

sed 's/[[:space:]]*|[[:space:]]*/|/g' "$TMP/table" >"$TMP/rows"
while IFS='|' read -r row args shape def cols dexit; do
	cmd=${args%% *}
	rest=${args#* }
	spec=$img

	mode=text
	hib
	want 0
	quiet_err
	check "$row text: output" test -s "$TMP/out"
	case $shape in
	table)
		h=$(head -1 "$TMP/out")
		check "$row text: a header line first ($h)" is_header "$h"
		;;
	tables)
		# the default columns fit an 80-column terminal untruncated
		check "$row text: the first table is at most 80 wide" \
			test "$(sed '/^$/q' "$TMP/out" | awk 'length > 80' | wc -l)" = 0
		;;
	esac
	cp "$TMP/out" "$TMP/text"

	if [ "$shape" = bytes ]; then
		for mode in -r -P -J "-o index" -n -q; do na $mode; done
	else
		mode=-r
		hib -r
		want 0
		# what is escaped is a control character or '\' in a value
		# (dmesg's tabs and newlines), never a blank
		check "$row -r: no \\x escapes but of control characters" \
			sh -c "! grep -o '\\\\x..' '$TMP/out' | grep -vq '\\\\x\\([01].\\|5c\\|7f\\)'"
		case $shape in
		record|lines)
			check "$row -r: key=value lines" sh -c "! grep -Ev '^([a-z][a-z0-9_]*=.*)?$' '$TMP/out' | grep -q ."
			;;
		table)
			check "$row -r: as many fields on every line as in the header" \
				test "$(awk 'NR == 1 {n = NF} NF != n {bad = 1} END {print bad + 0}' "$TMP/out")" = 0
			;;
		esac

		mode=-P
		hib -P
		want 0
		lines=0 badl=""
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			lines=$((lines + 1))
			keys=$(echo "$line" | grep -o '[A-Za-z_][A-Za-z0-9_]*="' | tr -d '="')
			if [ -z "$keys" ] || echo "$keys" | grep -q '[a-z]' ||
			   ! sh -c 'set -eu; eval "$1"; shift; for k; do eval "test \"\${$k+set}\" = set"; done' \
				_ "$line" $keys 2>/dev/null; then
				badl=$line
				break
			fi
		done <"$TMP/out"
		if [ "$lines" -gt 0 ] && [ -z "$badl" ]; then ok; else
			bad "a line that is not KEY=\"value\" assignments: ${badl:-(no lines)}"
		fi

		mode=-J
		hib -J
		want 0
		json_ok "$def"

		mode="-o $cols"
		member=""
		[ "$shape" = tables ] && member=scenarios
		hib -J -o "$cols"
		want 0
		json_ok "$def"
		$JV keys "$TMP/out" $member >"$TMP/keys" 2>&1
		if [ -s "$TMP/keys" ] && ! grep -vxq "$cols" "$TMP/keys"; then ok; else
			bad "JSON keys are not exactly $cols: $(sort -u "$TMP/keys" | head -3 | paste -sd' ' -)"
		fi
		case $shape in
		table)
			hib -o "$cols"
			want 0
			check "$row -o $cols: the header is $(header_of "$cols")" \
				test "$(head -1 "$TMP/out" | squeeze /dev/stdin | upper)" = "$(header_of "$cols")"
			;;
		record|lines)
			hib -r -o "$cols"
			want 0
			# the first record's (lines: one record per log record)
			check "$row -r -o $cols: those keys, in order" \
				test "$(sed '/^$/q' "$TMP/out" | sed -n 's/=.*//p' | paste -sd, -)" = "$cols"
			;;
		esac

		mode=-n
		hib -n
		want 0
		case $shape in
		table)
			check "$row -n: the text without its header line" \
				test "$(squeeze "$TMP/out")" = "$(sed 1d "$TMP/text" | squeeze /dev/stdin)"
			;;
		tables)
			h=$(grep -Em1 "$HEADER_RE" "$TMP/text")
			check "$row -n: output" test -s "$TMP/out"
			check "$row -n: no header line ($h)" sh -c '! grep -qxF -- "$1" "$2"' _ "$h" "$TMP/out"
			;;
		record)
			check "$row -n: output" test -s "$TMP/out"
			;;
		lines)
			check "$row -n: the text, which has no header" \
				test "$(squeeze "$TMP/out")" = "$(squeeze "$TMP/text")"
			;;
		esac

		mode=-q
		hib -q
		want 0
		check "$row -q: nothing on stdout" test ! -s "$TMP/out"
		quiet_err
	fi

	# errors: a path that is not there (exit 3), a damaged copy
	for e in "/nonexistent/hibimg-views.img 3" "$dam $dexit"; do
		spec=${e% *} status=${e##* }
		mode="error $(basename "$spec")"
		hib
		want "$status"
		[ "$status" = 0 ] && continue
		one_message
		msg=$(sed "s/^hibimg $cmd: //" "$TMP/err")
		if [ "$spec" = "$dam" ]; then
			# what the image told may stay; the error is not repeated
			check "$row $mode: the message only on stderr" sh -c "! grep -qF -- \"\$1\" '$TMP/out'" _ "$msg"
		else
			check "$row $mode: nothing on stdout" test ! -s "$TMP/out"
		fi
		# page data has no JSON form
		[ "$shape" = bytes ] && continue
		hib -J
		want "$status"
		one_message
		if python3 -m json.tool <"$TMP/out" >/dev/null 2>&1 &&
		   $JV error "$TMP/out" "$cmd" "$status" >"$TMP/jerr" 2>&1; then ok; else
			bad "-J: not one document that carries the error: $(head -1 "$TMP/jerr")"
		fi
		if grep -q '"error": {' "$TMP/out"; then json_ok doc-error; else json_ok "$def"; fi
	done
done <"$TMP/rows"
finish
