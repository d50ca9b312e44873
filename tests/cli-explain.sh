#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hibimg explain (issue 16) on the serial logs real kernels wrote under
# QEMU: every "PM:" line grep finds in a log is named, with the table entry
# its words call for; the numbers the kernel printed, checked against the
# fixture's image, are the sidecar's (copied from the log when it was
# captured); logs made of the real failure lines of check-doctor's matrix
# (fixtures/README.md) get those lines' meanings and exit 1; journalctl -k
# and dmesg -r prefixes read the same.
. "$(dirname "$0")/lib.sh"

SCHEMA=$top_srcdir/doc/hibimg.schema.json
# every column of the lines table: TOPIC is shown only when asked for
ALL=line,severity,topic,log-message,meaning,next
JV="python3 $top_srcdir/tests/jsonview.py"

# "N<TAB>message" per line of a JSON document's lines (or numbers) table
rows() {  # rows FILE lines|numbers KEY...
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["explain"]
for r in d.get(sys.argv[2], []):
    print("\t".join("" if r.get(k) is None else str(r.get(k)).lower() if isinstance(r.get(k), bool) else str(r.get(k)) for k in sys.argv[3:]))' "$@"
}
# the summary's member
member() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["explain"].get(sys.argv[2]); print("" if v is None else v)' "$1" "$2"; }

n=0
for log in "$FIX_SRC"/*.log; do
	name=$(basename "$log" .log)
	n=$((n + 1))
	# the PM lines, by grep: after the kernel's "[ seconds]", "PM: ..."
	grep -a -n -E '\[ *[0-9]+\.[0-9]+\] PM: ' "$log" | tr -d '\r' |
		sed -E 's/^([0-9]+):.*\[ *[0-9]+\.[0-9]+\] (PM: .*)$/\1\t\2/' >"$TMP/want"
	check "$name: grep finds PM lines" test -s "$TMP/want"
	run_hib 0 explain -J -o $ALL "$log"
	cp "$TMP/out" "$TMP/$name.json"
	if $JV validate "$SCHEMA" doc-explain "$TMP/$name.json" >"$TMP/jerr" 2>&1; then ok; else
		fail "$name: explain -J is not valid as doc-explain"; cat "$TMP/jerr" >&2
	fi
	rows "$TMP/$name.json" lines line log_message >"$TMP/got"
	missing=$(grep -vxF -f "$TMP/got" "$TMP/want" | head -3)
	check "$name: every PM line is named ($(wc -l <"$TMP/want")) ${missing:+, not: $missing}" \
		test -z "$missing"
	rows "$TMP/$name.json" lines severity | sort -u >"$TMP/sev"
	check "$name: no PM line unknown to the table" sh -c "! grep -qx unknown '$TMP/sev'"
	check "$name: no failure line in a log of a good run" sh -c "! grep -qx failure '$TMP/sev'"
	check "$name: the count is the rows'" \
		test "$(member "$TMP/$name.json" hibernation_lines)" = "$(rows "$TMP/$name.json" lines line | wc -l)"

	# the entry each line's words call for (patterns from FORMAT.md 9)
	rows "$TMP/$name.json" lines topic log_message >"$TMP/topics"
	while IFS='@' read -r topic re; do
		if grep -a -q -E "$re" "$log"; then
			k=$(grep -a -c -E "$re" "$log")
			check "$name: $k line(s) /$re/ named $topic" \
				test "$(awk -F'\t' -v t="$topic" '$1 == t' "$TMP/topics" | grep -c -E "$re")" = "$k"
		fi
	done <<'EOF'
wrote@PM: (hibernation: )?Wrote [0-9]+ kbytes in
read@PM: (hibernation: )?Read [0-9]+ kbytes in
need-to-copy@PM: (hibernation: )?Need to copy [0-9]+ pages
created@PM: (hibernation: )?Image created \(
compressed-size@PM: Image size after compression: [0-9]+ kbytes
saving@PM: (Compressing and saving image data|Saving image data pages) \(
loading-pages@PM: Loading and decompressing image data \(
signature@PM: S\|
not-present@Hibernation image not present or could not be loaded
restored@Hibernation image restored successfully
device-phase@PM: [a-z ]+ of devices complete after
genpd-unused@PM: genpd: Disabling unused power domains
EOF

	# the numbers, against the image this log wrote (or, spent, read)
	img=$FIX_IMG/$name.img
	pr=$(sidecar "$name" pair)
	if [ "$(sidecar "$name" nozerocheck)" = 1 ] && [ -n "$pr" ]; then
		# issue 18: the log of a nozerocheck=1 image is one QEMU run,
		# the resume of its pair and then this image's hibernation: the
		# numbers before "restored successfully" are the pair's image,
		# so against this image explain finds those disagree (exit 1)
		rl=$(grep -a -n 'Hibernation image restored successfully' "$log" | head -n1 | cut -d: -f1)
		check "$name: its log holds the resume of $pr" test -n "$rl"
		run_hib 1 explain -J "$log" "$img"
		cp "$TMP/out" "$TMP/$name.n.json"
		rows "$TMP/$name.n.json" numbers line quantity log_value image_value agrees >"$TMP/nl"
		check "$name: only the resume's numbers (before line ${rl:-?}) disagree" \
			sh -c "! awk -F'\t' -v r=${rl:-0} '\$5 != \"true\" && \$1 >= r' '$TMP/nl' | grep -q ."
		run_hib 1 explain -J "$log" "$FIX_IMG/$pr.img"
		rows "$TMP/out" numbers line agrees >"$TMP/np"
		check "$name: the resume's numbers agree with $pr's image" \
			sh -c "! awk -F'\t' -v r=${rl:-0} '\$2 != \"true\" && \$1 < r' '$TMP/np' | grep -q ."
		check "$name: the resume has numbers" \
			test "$(awk -F'\t' -v r="${rl:-0}" '$1 < r' "$TMP/np" | wc -l)" -ge 1
		# the hibernation's rows, for the sidecar's numbers below
		awk -F'\t' -v r="${rl:-0}" 'BEGIN { OFS = "\t" } $1 >= r { print $2, $3, $4, $5 }' "$TMP/nl" >"$TMP/nums"
		check "$name: every number of the hibernation agrees with the image" \
			sh -c "! awk -F'\t' '\$4 != \"true\"' '$TMP/nums' | grep -q ."
	else
		run_hib 0 explain -J $(roff "$name") "$log" "$img"
		cp "$TMP/out" "$TMP/$name.n.json"
		rows "$TMP/$name.n.json" numbers quantity log_value image_value agrees >"$TMP/nums"
		check "$name: every number agrees with the image" sh -c "! awk -F'\t' '\$4 != \"true\"' '$TMP/nums' | grep -q ."
		check "$name: numbers_agreeing = numbers_checked" \
			test "$(member "$TMP/$name.n.json" numbers_agreeing)" = "$(member "$TMP/$name.n.json" numbers_checked)"
	fi
	if grep -q '^spent_from=' "$FIX_SRC/$name.expect"; then
		pairs="stream_pages:resume_loading_pages stream_kbytes:resume_read_kbytes"
	else
		pairs="pfn_entries:need_to_copy image_pages:pages_copied zero_pages:zero_pages
		       stream_pages:saving_pages stream_kbytes:wrote_kbytes
		       compressed_kbytes:size_after_compression_kbytes"
	fi
	for p in $pairs; do
		q=${p%%:*} key=${p#*:}
		v=$(sidecar "$name" "$key")
		[ -n "$v" ] || continue
		check "$name: $q: the image's is the kernel's $key ($v)" \
			test "$(awk -F'\t' -v q="$q" '$1 == q {print $3; exit}' "$TMP/nums")" = "$v"
		check "$name: $q: the log's is the kernel's $key ($v)" \
			test "$(awk -F'\t' -v q="$q" '$1 == q {print $2; exit}' "$TMP/nums")" = "$v"
	done
	check "$name: numbers checked" test -s "$TMP/nums"
done
check "every fixture log read (at least 7)" test "$n" -ge 7

# another image's numbers do not agree: exit 1, the rows say which
run_hib 1 explain -J "$FIX_SRC/k612-lzo.log" "$FIX_IMG/k612-lz4.img"
check "k612-lzo.log against k612-lz4: a number disagrees" \
	test "$(rows "$TMP/out" numbers quantity agrees | grep -c 'false$')" -ge 1

# Failures: the real lines of check-doctor's matrix (fixtures/README.md),
# after the real start of a resume (k612-lzo-spent.log up to its loading
# line), each in a log of its own.
head="$TMP/resume-head"
sed -n '1,/Loading and decompressing image data/p' "$FIX_SRC/k612-lzo-spent.log" | tr -d '\r' >"$head"
check "the resume's first lines" test -s "$head"
mk() {  # mk NAME LINE...: the head, then the lines with timestamps
	f=$TMP/$1.log; shift
	cp "$head" "$f"
	t=5
	for l in "$@"; do
		t=$((t + 1))
		printf '[    %d.000000] %s\n' "$t" "$l" >>"$f"
	done
}
# topic|first failure|the other lines, ';'-separated
while IFS='|' read -r case topic first rest; do
	[ -n "$case" ] || continue
	old=$IFS; IFS=';'; set -- "$first" $rest; IFS=$old
	mk "$case" "$@"
	run_hib 1 explain -J -o $ALL "$TMP/$case.log"
	cp "$TMP/out" "$TMP/$case.json"
	check "$case: the first failure is '$first'" \
		test "$(member "$TMP/$case.json" first_failure)" = "$first"
	check "$case: its line number" \
		test "$(member "$TMP/$case.json" first_failure_line)" = $(( $(wc -l <"$head") + 1 ))
	check "$case: named $topic, a failure" \
		test "$(rows "$TMP/$case.json" lines topic severity log_message | grep -F "$first" | cut -f1,2)" = "$topic	failure"
	check "$case: its meaning and what to check next" \
		test -n "$(rows "$TMP/$case.json" lines meaning next log_message | grep -F "$first" | awk -F'\t' '$1 != "" && $2 != ""')"
	# people: the line, then its meaning and what to check next under it
	run_hib 1 explain "$TMP/$case.log"
	out_has "$first"
	check "$case: text: meaning and next under the failure line" \
		test "$(awk -v f="$first" '
			on && /^      / { if ($1 == "meaning:" || $1 == "next:") n++; next }
			{ on = 0 }
			/^ *[0-9]+ / && index($0, f) { on = 1 }
			END { print n + 0 }' "$TMP/out")" = 2
done <<'EOF'
damaged-data|crc|PM: Invalid image CRC32!|PM: hibernation: Read 16064 kbytes in 1.18 seconds (13.61 MB/s);PM: hibernation: Failed to load image, recovering.;PM: hibernation: resume failed (-61)
damaged-chunk|decompression-failed|PM: lzo decompression failed|PM: hibernation: Failed to load image, recovering.;PM: hibernation: resume failed (-22)
lz4-on-61|decompression-failed|PM: LZO decompression failed|PM: hibernation: Failed to load image, recovering.;PM: hibernation: resume failed (-22)
zero-on-61|failed-to-load|PM: hibernation: Failed to load image, recovering.|PM: hibernation: resume failed (-14)
other-ram|e820|Hibernate inconsistent memory map detected!|PM: hibernation: Image mismatch: architecture specific data;PM: hibernation: Failed to load image, recovering.;PM: hibernation: resume failed (-1)
EOF
# the numbers after "resume failed": the code read as negative
rows "$TMP/zero-on-61.json" lines topic log_message | grep -q '^resume-failed	PM: hibernation: resume failed (-14)$'
check "resume failed (-14) is named resume-failed" test $? = 0
rows "$TMP/other-ram.json" lines topic log_message | grep -q '^arch-mismatch	'
check "Image mismatch: architecture specific data is arch-mismatch" test $? = 0

# journalctl -k, with and without the kernel's timestamp, and dmesg -r:
# the same lines, the same entries
src=$FIX_SRC/k612-lzo.log
run_hib 0 explain -J -o $ALL "$src"; rows "$TMP/out" lines line topic log_message >"$TMP/plain"
tr -d '\r' <"$src" | sed -E 's/^.*\[ *[0-9]+\.[0-9]+\] /Dec 01 12:00:00 host kernel: /' >"$TMP/journal.log"
run_hib 0 explain -J -o $ALL "$TMP/journal.log"; rows "$TMP/out" lines line topic log_message >"$TMP/j"
check "journalctl -k prefixes: the same lines and entries" cmp -s "$TMP/plain" "$TMP/j"
tr -d '\r' <"$src" | sed -E 's/^.*(\[ *[0-9]+\.[0-9]+\] )/Dec 01 12:00:00 host kernel: \1/' >"$TMP/journal2.log"
run_hib 0 explain -J -o $ALL "$TMP/journal2.log"; rows "$TMP/out" lines line topic log_message >"$TMP/j"
check "journalctl -k -o short-monotonic style: the same" cmp -s "$TMP/plain" "$TMP/j"
tr -d '\r' <"$src" | sed -E 's/^.*(\[ *[0-9]+\.[0-9]+\] )/<6>\1/' >"$TMP/dmesg-r.log"
run_hib 0 explain -J -o $ALL "$TMP/dmesg-r.log"; rows "$TMP/out" lines line topic log_message >"$TMP/j"
check "dmesg -r levels: the same" cmp -s "$TMP/plain" "$TMP/j"
tr -d '\r' <"$src" | sed -E 's/^.*\[ *[0-9]+\.[0-9]+\] /[Tue Dec  1 12:00:00 2026] /' >"$TMP/dmesg-T.log"
run_hib 0 explain -J -o $ALL "$TMP/dmesg-T.log"; rows "$TMP/out" lines line topic log_message >"$TMP/j"
check "dmesg -T dates: the same" cmp -s "$TMP/plain" "$TMP/j"
# standard input
"$HIBIMG" explain -J -o $ALL - <"$TMP/journal.log" >"$TMP/out" 2>"$TMP/err"
check "'-' reads standard input" test $? = 0
rows "$TMP/out" lines line topic log_message >"$TMP/j"
check "'-': the same" cmp -s "$TMP/plain" "$TMP/j"
# a Lockdown line, as journalctl shows it
printf 'Oct 31 09:03:39 yoga9i kernel: Lockdown: systemd-logind: hibernation is restricted; see man kernel_lockdown.7\n' >"$TMP/lock.log"
run_hib 1 explain -J -o $ALL "$TMP/lock.log"
check "Lockdown: named lockdown, a failure" \
	test "$(rows "$TMP/out" lines topic severity)" = "lockdown	failure"

# what is not a log
run_hib 3 explain "$TMP/nonexistent.log"; err_has "nonexistent.log"
run_hib 2 explain; err_has "no log given"
run_hib 2 explain a b c
head -c 200000 /dev/urandom >"$TMP/binary"
run_hib 0 explain "$TMP/binary"; err_has "no hibernation, resume or PM line"
run_hib 2 explain "$src" "$TMP/binary"
err_has "not checked against it"
run_hib 0 explain -q "$src"
check "-q prints nothing" test ! -s "$TMP/out"

finish
