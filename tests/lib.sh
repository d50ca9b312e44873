# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the CLI tests. Each script counts its own assertions and
# ends with the "N passed, N failed" line.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${HIBIMG:=$top_builddir/hibimg}"
FIX_SRC=$top_srcdir/fixtures
FIX_IMG=$top_builddir/fixtures
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hibimg-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
npass=0
nfail=0

# Sanitizers exit 1 by default, which is "damaged" to hibimg: a test that
# expects 1 would take an ASan or UBSan report for a verdict. Give them
# statuses no hibimg exit means.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=87:print_stacktrace=1"

# Debian's interpreter when there is one: a version manager's python3 shim
# (pyenv) costs ~0.3 s a start, and the scripts start hundreds.
if [ -x /usr/bin/python3 ]; then
	python3() { /usr/bin/python3 "$@"; }
fi

ok()   { npass=$((npass + 1)); }
fail() { nfail=$((nfail + 1)); echo "FAIL: $*" >&2; }

check() {   # check "description" cmd...
	desc=$1; shift
	if "$@"; then ok; else fail "$desc"; fi
}

# The write guard (tests/guardio.c, issue 12): run_hib preloads it into every
# hibimg it runs, so a write-open, truncate, rename or unlink that would touch
# anything hibimg read (the input, its loop device or backing file, its whole
# disk) ends hibimg with status 88. Not built: every script fails (finish).
GUARDIO=${GUARDIO:-$top_builddir/tests/libguardio.so}

# run_hib EXPECTED_STATUS args... : runs hibimg with a time limit, keeps
# stdout/stderr in $TMP/out and $TMP/err, and checks the status. A signal
# (>= 124), a sanitizer report (86, 87) or a guard violation (88) never
# matches an expected status.
run_hib() {
	want=$1; shift
	if [ -f "$GUARDIO" ]; then
		LD_PRELOAD="$GUARDIO${LD_PRELOAD:+:$LD_PRELOAD}" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		timeout 120 "$HIBIMG" "$@" >"$TMP/out" 2>"$TMP/err"
	else
		timeout 120 "$HIBIMG" "$@" >"$TMP/out" 2>"$TMP/err"
	fi
	got=$?
	if [ "$got" = "$want" ] && [ "$got" != 88 ]; then ok; else
		fail "hibimg $* -> exit $got, expected $want"
		sed 's/^/    /' "$TMP/err" >&2
	fi
}

# Assert the last command's stderr mentions a phrase.
err_has() {
	if grep -q -- "$1" "$TMP/err"; then ok; else
		fail "stderr lacks '$1'"; sed 's/^/    /' "$TMP/err" >&2
	fi
}

out_has() {
	if grep -q -- "$1" "$TMP/out"; then ok; else
		fail "stdout lacks '$1'"; sed 's/^/    /' "$TMP/out" | head -40 >&2
	fi
}

# check_row FILE CHECK KEY: KEY of the row named CHECK in a `check -J` document
check_row() {
	python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["check"]["checks"]:
    if r["check"] == sys.argv[2]:
        v = r.get(sys.argv[3]); print("" if v is None else v)' "$1" "$2" "$3"
}
# check_top FILE KEY: a top-level key of a `check -J` document
check_top() {
	python3 -c 'import json,sys; v = json.load(open(sys.argv[1]))["check"].get(sys.argv[2]); print("" if v is None else v)' "$1" "$2"
}

# json_get FILE KEY: the value of KEY in the first object of the top array.
json_get() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); v=list(d.values())[0][0].get(sys.argv[2])
print("" if v is None else (str(v).lower() if isinstance(v,bool) else v))' "$1" "$2"
}

sidecar() {  # sidecar NAME KEY
	sed -n "s/^$2=\([^#]*\).*/\1/p" "$FIX_SRC/$1.expect" | sed 's/[[:space:]]*$//'
}

# Images a kernel wrote, not the spent ones (a resume attempt already put
# the swap signature back): those have tests of their own.
fixtures() {
	for f in "$FIX_SRC"/*.expect; do
		grep -q '^spent_from=' "$f" || basename "$f" .expect
	done
}

# fixtures0: only those whose resume page is page 0 and whose pages are
# 4 KiB (scripts that walk the raw disk themselves assume both); the x86
# ones first, so that "the first fixture" stays the one it was before the
# arm64 fixtures came
fixtures0() {
	for f in $(fixtures); do
		grep -q '^resume_offset=' "$FIX_SRC/$f.expect" && continue
		grep -q '^page_size=' "$FIX_SRC/$f.expect" &&
			! grep -qx 'page_size=4096' "$FIX_SRC/$f.expect" && continue
		grep -q '^arch=' "$FIX_SRC/$f.expect" || echo "$f"
	done
	for f in $(fixtures); do
		grep -q '^resume_offset=' "$FIX_SRC/$f.expect" && continue
		grep -qx 'page_size=4096' "$FIX_SRC/$f.expect" &&
			grep -q '^arch=' "$FIX_SRC/$f.expect" && echo "$f"
	done
	return 0
}

spent_fixtures() {
	for f in "$FIX_SRC"/*.expect; do
		grep -q '^spent_from=' "$f" && basename "$f" .expect
	done
}

# roff NAME: "-R N" when the fixture is a swap file (resume page not page 0)
roff() {
	o=$(sidecar "$1" resume_offset)
	[ -n "$o" ] && echo "-R $o"
}

poke_u64() {  # poke_u64 FILE OFFSET VALUE (little-endian)
	v=$3; s=""
	for i in 0 1 2 3 4 5 6 7; do
		s="$s\\$(printf %03o $(( (v >> (8 * i)) & 255 )))"
	done
	printf "$s" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

poke_u32() {
	v=$3; s=""
	for i in 0 1 2 3; do
		s="$s\\$(printf %03o $(( (v >> (8 * i)) & 255 )))"
	done
	printf "$s" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

poke_str() {  # poke_str FILE OFFSET STRING
	printf '%s' "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

peek_u64() {
	od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '
}

finish() {
	[ -f "$GUARDIO" ] || fail "write guard $GUARDIO not built (make check builds it): hibimg ran unguarded"
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
}
