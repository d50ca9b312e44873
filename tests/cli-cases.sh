#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The damaged-image catalogue (tests/files/README, tests/files/cases): each
# case is made in $TMP from its base by its recipes (tests/files/make-case.sh)
# and must get its exit status and messages, never a crash or a hang
# (run_hib's timeout; in the sanitizer build every run is under ASan/UBSan).
# Before anything runs, the catalogue is checked against itself, the README
# and hibimg(1)'s EXIT STATUS; a case naming a recipe that does not exist
# fails. HIBIMG_CASES=FILE runs another catalogue (the self-test below).
. "$(dirname "$0")/lib.sh"
. "$top_srcdir/tests/files/make-case.sh"

CASES=${HIBIMG_CASES:-$top_srcdir/tests/files/cases}
README=$top_srcdir/tests/files/README
FAULTIO=${FAULTIO:-$top_builddir/tests/libfaultio.so}
OUTF=$TMP/case.out

# --- the catalogue, one file per case ----------------------------------------------
mkdir "$TMP/cases"
awk -v d="$TMP/cases" '
	/^[ \t]*(#|$)/ { next }
	$1 == "case" { n++; f = sprintf("%s/%03d", d, n); print $2 > (f ".name"); next }
	!n { print "line " NR " is outside a case: " $0 > "/dev/stderr"; bad = 1; next }
	{ print > (f ".lines") }
	END { exit bad }' "$CASES" || fail "$CASES: lines outside a case"
names=$(cat "$TMP"/cases/*.name 2>/dev/null)
check "$CASES lists cases" test -n "$names"
dups=$(echo "$names" | sort | uniq -d)
check "case names are unique ($dups)" test -z "$dups"

# The statuses hibimg(1) documents, and what each kind of case may answer
# first: good- decodes, bad- is damaged (1) or unreadable (3), unsupported-
# is an area hibimg cannot interpret (2) or an encrypted image (4).
MAN_ST=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH [^E]/{/^\.TP/{n;s/^\.B \([0-9]*\)$/\1/p;};}' \
	"$top_srcdir/man/hibimg.1" | tr '\n' ' ')
check "hibimg(1) documents exit statuses ($MAN_ST)" test -n "$MAN_ST"
first_ok() {  # first_ok NAME STATUS
	case $1:$2 in
	good-*:0 | bad-*:[13] | unsupported-*:[24]) return 0 ;;
	esac
	return 1
}

# lint NAME LINES: prints what is wrong with one case, nothing if it is whole
lint() {
	awk -v name="$1" -v man=" $MAN_ST" '
	function no(what) { print name ": " what; }
	NR == 1 && $1 != "base" { no("the first line is not base") }
	$1 == "base" { if (++bases > 1) no("two base lines") }
	$1 == "run" {
		runs++
		if (index(man " ", " " $2 " ") == 0) no("exit status " $2 " is not in hibimg(1) EXIT STATUS")
		if (runs == 1) first = $2
		next
	}
	$1 ~ /^(err|err-any|out|json|same-err|absent|rss)$/ { if (!runs) no($1 " before any run"); next }
	$1 !~ /^(base|let|make|fault)$/ { no("unknown keyword " $1) }
	END {
		if (!runs) no("runs nothing")
		print "first " first
	}' "$2" | while read -r w rest; do
		if [ "$w" = first ]; then
			first_ok "$1" "$rest" ||
				echo "$1: first status $rest does not fit its prefix (good- 0, bad- 1 or 3, unsupported- 2 or 4)"
		else
			echo "$w $rest"
		fi
	done
	case $1 in
	good-*|bad-*|unsupported-*) ;;
	*) echo "$1: the name is not good-*, bad-* or unsupported-*" ;;
	esac
	# every recipe named must exist: a case must not pass for want of one
	while read -r kw a1 a2 _more; do
		case $kw in
		base) p=base_ fn=$a1 ;; make) p=mk_ fn=$a1 ;; let) p=val_ fn=$a2 ;; *) continue ;;
		esac
		command -v "$p$fn" >/dev/null 2>&1 || echo "$1: no recipe $p$fn for '$kw'"
	done <"$2"
}

# --- the README names every case, and says what its runs must answer ----------------
if [ -z "${HIBIMG_CASES:-}" ]; then
	python3 - "$README" "$CASES" >"$TMP/readme.chk" <<'EOF'
import re, sys
readme, cases = open(sys.argv[1]).read(), open(sys.argv[2]).read()
# an entry: a line "    NAME ..." at four spaces, up to the next blank line
entries, cur = {}, None
for line in readme.split('\n'):
    m = re.match(r'    ((?:good|bad|unsupported)-[a-z0-9.-]+)\b', line)
    if m and not line.startswith('     '):
        cur = m.group(1)
        if cur in entries:
            print('fail README describes %s twice' % cur)
        entries[cur] = ''
    if not line.strip():
        cur = None
    if cur:
        entries[cur] += ' ' + line.strip()
want, name = {}, None
for line in cases.split('\n'):
    w = line.split(None, 1)
    if not w or w[0].startswith('#'):
        continue
    if w[0] == 'case':
        name = w[1].strip(); want[name] = []
    elif w[0] == 'run':
        st, *args = w[1].split()
        cmd = ' '.join(args[:args.index('IMG')] if 'IMG' in args else args)
        want[name].append('%s -> %s' % (cmd, st))
    elif w[0] in ('err', 'out', 'err-any'):
        t = w[1].strip() if len(w) > 1 else ''
        if len(t) >= 2 and t[0] == t[-1] == '"':
            t = t[1:-1].strip()
        if '@' not in t:
            want[name] += [x.strip() for x in t.split(' | ')] if w[0] == 'err-any' else [t]
for n in want:
    if n not in entries:
        print('fail README has no entry for %s' % n)
        continue
    text = re.sub(r'\s+', ' ', entries[n])
    for frag in want[n]:
        print('%s README %s says "%s"' % ('ok' if frag in text else 'fail', n, frag))
for n in entries:
    if n not in want:
        print('fail README describes %s, which the catalogue does not have' % n)
EOF
	while read -r verdict what; do
		if [ "$verdict" = ok ]; then ok; else fail "$what"; fi
	done <"$TMP/readme.chk"
	check "README check ran" test -s "$TMP/readme.chk"
fi

# --- one case ---------------------------------------------------------------------------
# subst TEXT: @VAR@ -> the value a let line gave VAR, @VAR:x@ -> in hex
subst() {
	s=$1 r=
	while :; do
		case $s in *@*@*) ;; *) break ;; esac
		r=$r${s%%@*}; s=${s#*@}; tok=${s%%@*}; s=${s#*@}
		var=${tok%:x}
		case $var in ''|*[!a-z0-9_]*) echo "bad token @$tok@" >&2; return 1 ;; esac
		eval "val=\${v_$var-}"
		[ -n "$val" ] || { echo "@$tok@: no let gave $var a value" >&2; return 1; }
		[ "$var" != "$tok" ] && val=$(printf '0x%x' "$val")
		r=$r$val
	done
	printf '%s' "$r$s"
}
unquote() {  # "..." keeps blanks at either end of a fragment
	case $1 in \"*\") t=${1#\"}; printf '%s' "${t%\"}" ;; *) printf '%s' "$1" ;; esac
}
has() {  # has FILE WHAT FRAGMENT
	if grep -qF -- "$3" "$1"; then ok; else
		fail "$label: $2 lacks '$3'"; sed 's/^/    /' "$1" | head -40 >&2
	fi
}
# the runs of a fault case read the image through tests/faultio.c
hib() {
	if [ -z "$fault_mode" ]; then run_hib "$@"; return; fi
	lp_set=${LD_PRELOAD+1} lp=${LD_PRELOAD-} ao=$ASAN_OPTIONS
	export HIBIMG_FAULT_PATH="$img" HIBIMG_FAULT_OFFSET="$fault_at" HIBIMG_FAULT_MODE="$fault_mode"
	export LD_PRELOAD="$FAULTIO${lp:+:$lp}" ASAN_OPTIONS="$ao:verify_asan_link_order=0"
	run_hib "$@"
	unset HIBIMG_FAULT_PATH HIBIMG_FAULT_OFFSET HIBIMG_FAULT_MODE
	if [ -n "$lp_set" ]; then LD_PRELOAD=$lp; else unset LD_PRELOAD; fi
	ASAN_OPTIONS=$ao
}
maxrss_kb() {  # maxrss_kb ARGS... -> peak RSS of "hibimg ARGS" in KiB
	python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$HIBIMG" "$@"
}
# A crafted size must be refused by a bound, not by running out of memory,
# and must not make hibimg grow: verify's peak stays within 4 MiB of what
# verifying the pristine base takes.
rss_bounded() {
	b=$(sed -n "s|^$base_img ||p" "$TMP/rss.base" 2>/dev/null)
	if [ -z "$b" ]; then
		b=$(maxrss_kb verify "$base_img")
		check "pristine peak RSS of $base_img measured ($b KiB)" test "${b:-0}" -gt 0
		echo "$base_img $b" >>"$TMP/rss.base"
	fi
	r=$(maxrss_kb verify "$img")
	check "$label: peak RSS ${r} KiB <= pristine ${b} KiB + 4096" test "$r" -le $((b + 4096))
}

# run_case NAME LINES BASE_IMG: one instance, the lines in order
run_case() {
	name=$1 base_img=$3 img=$3 fault_mode='' fault_at='' copied=0
	label="$name ($(basename "$img"))"
	# the recipes' page size and word size: the base's, 4096 and 8 for
	# what is no swsusp image (uswsusp, noise)
	PS=4096 WORD=8
	lay=$(layout "$img" 2>/dev/null) && PS=${lay% *} WORD=${lay#* }
	rm -f "$OUTF" "$TMP/err.prev" "$TMP/err"
	for v in $lets; do unset "v_$v"; done
	lets=
	while read -r kw rest <&3; do
		case $kw in
		base) ;;
		let)
			set -- $rest; var=$1 fn=$2; shift 2
			a=$(subst "$*") || { fail "$label: let $var"; return; }
			# shellcheck disable=SC2086
			val=$("val_$fn" "$img" $a) && [ -n "$val" ] ||
				{ fail "$label: let $var = $fn $a gave nothing"; return; }
			eval "v_$var=\$val"; lets="$lets $var" ;;
		make)
			if [ $copied = 0 ]; then
				cp --sparse=always "$img" "$TMP/case.img" && img=$TMP/case.img && copied=1
			fi
			set -- $rest; fn=$1; shift
			( "mk_$fn" "$img" "$@" ) || { fail "$label: recipe $fn $* did not apply"; return; } ;;
		fault)
			[ -f "$FAULTIO" ] || { fail "$label: fault interposer $FAULTIO not built"; return; }
			set -- $rest
			fault_mode=$1
			fault_at=$(subst "$2") || { fail "$label: fault offset"; return; } ;;
		run)
			[ -f "$TMP/err" ] && cp "$TMP/err" "$TMP/err.prev"
			a=$(subst "$rest") || { fail "$label: run $rest"; return; }
			set --
			for w in $a; do
				case $w in IMG) w=$img ;; OUT) w=$OUTF ;; esac
				set -- "$@" "$w"
			done
			hib "$@" ;;
		err|out)
			t=$(subst "$rest") || { fail "$label: $kw $rest"; continue; }
			has "$TMP/$kw" "std$kw" "$(unquote "$t")" ;;
		err-any)
			t=$(subst "$rest") || { fail "$label: $kw $rest"; continue; }
			hit=
			while [ -n "$t" ]; do
				one=${t%% | *}
				grep -qF -- "$one" "$TMP/err" && hit=1
				case $t in *" | "*) t=${t#* | } ;; *) t= ;; esac
			done
			if [ -n "$hit" ]; then ok; else
				fail "$label: stderr has none of '$rest'"; sed 's/^/    /' "$TMP/err" >&2
			fi ;;
		json)
			key=${rest%% *} want=
			[ "$key" != "$rest" ] && want=$(subst "${rest#* }")
			got=$(json_get "$TMP/out" "$key")
			check "$label: $key is '$want' (got '$got')" test "$got" = "$want" ;;
		same-err)
			check "$label: stderr the same as the run before" cmp -s "$TMP/err" "$TMP/err.prev" ;;
		absent)
			check "$label: $rest not created" test ! -e "$OUTF" ;;
		rss) rss_bounded ;;
		esac
	done 3<"$2"
	echo "$name" >>"$TMP/ran"
	echo "# ran $label"
}

lets=
: >"$TMP/ran"
for f in "$TMP"/cases/*.name; do
	name=$(cat "$f") lines=${f%.name}.lines
	[ -f "$lines" ] || : >"$lines"
	lint "$name" "$lines" >"$TMP/lint"
	if [ -s "$TMP/lint" ]; then
		while read -r l; do fail "$l"; done <"$TMP/lint"
		continue
	fi
	ok
	set -- $(sed -n 's/^base[ \t]*//p' "$lines")
	kind=$1; shift
	if ! ( "base_$kind" "$@" ) >"$TMP/bases" || [ ! -s "$TMP/bases" ]; then
		fail "$name: base $kind $* gave no image"
		continue
	fi
	while read -r b <&4; do
		run_case "$name" "$lines" "$b"
	done 4<"$TMP/bases"
done

# every catalogued case ran, at least once
for n in $names; do
	check "case $n ran" grep -qx -- "$n" "$TMP/ran"
done

# --- self-test: the driver fails a case whose recipe it does not have ----------------
if [ -z "${HIBIMG_CASES:-}" ]; then
	mkdir "$TMP/self"
	cat >"$TMP/self/cases" <<'EOF'
case good-self-plain
base fixture lzo
run 0 verify IMG
case bad-self-no-make
base fixture lzo
make no_such_recipe 1
run 1 verify IMG
case bad-self-no-base
base no_such_base
run 1 verify IMG
EOF
	HIBIMG_CASES=$TMP/self/cases sh "$0" >"$TMP/self/out" 2>"$TMP/self/err"
	st=$?
	check "self-test: a catalogue with unknown recipes fails (exit $st)" test "$st" != 0
	check "self-test: names the missing mk_ recipe" \
		grep -qF "bad-self-no-make: no recipe mk_no_such_recipe for 'make'" "$TMP/self/err"
	check "self-test: names the missing base_ recipe" \
		grep -qF "bad-self-no-base: no recipe base_no_such_base for 'base'" "$TMP/self/err"
	check "self-test: the other cases still ran" grep -q '^# ran good-self-plain ' "$TMP/self/out"
	check "self-test: a case without its recipe is not run" \
		test "$(grep -c '^# ran bad-self' "$TMP/self/out")" = 0
fi

finish
