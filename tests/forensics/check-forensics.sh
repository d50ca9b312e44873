#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Opt-in check (issue 7): real forensics clients open hibimg's ELF exports of hibernation
# images written by STOCK Debian 12 kernels, with those kernels' debug symbols.
# Usage: tests/forensics/check-forensics.sh [k61] [k612]   (default: both)
# Needs tests/forensics/capture-stock.sh to have run (it fills $HIBIMG_CACHE/forensics/TAG/:
# disk.img, capture.log, capture.info, vmlinux). For each kernel:
#   hibimg verify; hibimg export --format elf; drgn (python3-drgn, /usr/bin/python3) with the
#   vmlinux: init_uts_ns.name.release == the console's "Linux version" release, and a task with
#   comm "hibmarker" in for_each_task(); crash (Debian `crash`): `crash -s vmlinux CORE` with
#   `sys` and `ps`: RELEASE == the same release, and a "hibmarker" line in ps.
# If crash errors out, it is re-run with documented options (--kaslr, --machdep phys_base=,
# -d1) and every attempt's output is printed. Prints a transcript; exits 1 if a check fails.
# Env: HIBIMG (default: hibimg in PATH), HIBIMG_CACHE, HIBIMG_FORENSICS_WORK (kept exports).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${HIBIMG_CACHE:-/var/cache/hibimg}
FDIR=$CACHE/forensics
HIBIMG=${HIBIMG:-hibimg}
PY=/usr/bin/python3
WORK=${HIBIMG_FORENSICS_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/hibimg-forensics.XXXXXX")}
mkdir -p "$WORK"

need() { command -v "$1" >/dev/null 2>&1 || apt-get install -y --no-install-recommends "$2" >&2; }
need crash crash
$PY -c 'import drgn' 2>/dev/null || apt-get install -y --no-install-recommends python3-drgn >&2

FAILS=0
PASSES=0
ok()   { PASSES=$((PASSES + 1)); echo "PASS $*"; }
bad()  { FAILS=$((FAILS + 1)); echo "FAIL $*"; }
section() { echo; echo "=== $* ==="; }
indent() { sed 's/^/    /'; }

crash_run() { # crash_run OUT VMLINUX CORE [OPTS...] -> crash exit status
  _out=$1; _vml=$2; _core=$3; shift 3
  echo "\$ crash $* -s $_vml $_core   <<< 'sys; ps; exit'" > "$_out"
  printf 'sys\nps\nexit\n' | timeout 600 crash "$@" -s "$_vml" "$_core" >> "$_out" 2>&1
}

one() {
  TAG=$1
  KD=$FDIR/$TAG
  IMG=$KD/disk.img
  VML=$KD/vmlinux
  section "$TAG"
  for f in "$IMG" "$KD/capture.log" "$KD/capture.info" "$VML"; do
    [ -f "$f" ] || { bad "$TAG: missing $f (run tests/forensics/capture-stock.sh $TAG)"; return; }
  done
  grep -E '^(package|package_version|mem|capture_seconds|wrote|image_created)=' \
    "$KD/capture.info" | indent
  tr -d '\r' < "$KD/capture.log" | grep -m1 'Linux version' | sed 's/.*\(Linux version\)/    console: \1/'
  REL=$(tr -d '\r' < "$KD/capture.log" | sed -n 's/.*Linux version \([^ ]*\) .*/\1/p' | head -n1)
  echo "    console release: $REL"
  [ -n "$REL" ] || { bad "$TAG: no 'Linux version' line in $KD/capture.log"; return; }

  # --- hibimg ---
  if "$HIBIMG" verify "$IMG" > "$WORK/$TAG.verify" 2>&1; then
    ok "$TAG: hibimg verify"
  else
    bad "$TAG: hibimg verify (exit $?)"; indent < "$WORK/$TAG.verify"
  fi
  CORE=$WORK/$TAG.elf
  T0=$(date +%s)
  if ! "$HIBIMG" export --format elf "$IMG" "$CORE" > "$WORK/$TAG.export" 2>&1; then
    bad "$TAG: hibimg export --format elf (exit $?)"; indent < "$WORK/$TAG.export"; return
  fi
  ok "$TAG: hibimg export --format elf ($(( $(date +%s) - T0 )) s, $(stat -c %s "$CORE") bytes)"
  indent < "$WORK/$TAG.export"

  # --- drgn ---
  echo "  \$ $PY forensics_drgn.py $CORE $VML hibmarker"
  $PY "$HERE/forensics_drgn.py" "$CORE" "$VML" hibmarker > "$WORK/$TAG.drgn" 2>&1
  DRC=$?
  sed 's/^\(comms=.\{600\}\).*/\1 .../' "$WORK/$TAG.drgn" | indent
  DREL=$(sed -n 's/^release=//p' "$WORK/$TAG.drgn")
  if [ "$DREL" = "$REL" ]; then ok "$TAG: drgn init_uts_ns.name.release = $DREL"
  else bad "$TAG: drgn release '$DREL' != console '$REL'"; fi
  if [ "$DRC" -eq 0 ] && grep -q '^task=[0-9]* hibmarker' "$WORK/$TAG.drgn"; then
    ok "$TAG: drgn for_each_task finds $(grep '^task=' "$WORK/$TAG.drgn" | head -n1)"
  else bad "$TAG: drgn found no hibmarker task (exit $DRC)"; fi

  # --- crash ---
  PB=$(strings -n 10 "$CORE" | sed -n 's/^NUMBER(phys_base)=\(-\{0,1\}[0-9]*\).*/\1/p' | head -n1)
  PBHEX=$($PY -c "print(hex(${PB:-0} % (1 << 64)))")
  KOFF=$(strings -n 10 "$CORE" | sed -n 's/^KERNELOFFSET=\([0-9a-f]*\).*/\1/p' | head -n1)
  K="--kaslr=0x${KOFF:-0}"
  # crash 8.0.2 (bookworm) predates 6.4's struct module layout: --no_modules skips modules
  set -- "" "$K" "$K --no_modules" "$K --no_modules --machdep phys_base=$PBHEX" "-d1 $K --no_modules"
  BEST=
  n=0
  for opts in "$@"; do
    n=$((n + 1))
    O=$WORK/$TAG.crash.$n
    # shellcheck disable=SC2086
    crash_run "$O" "$VML" "$CORE" $opts
    CRC=$?
    echo "  crash attempt $n (exit $CRC):"
    if [ "$opts" = -d1 ]; then   # debug output is long: errors/warnings and the sys/ps part
      grep -E -i 'crash:|warning|error|fail|RELEASE|hibmarker' "$O" | head -n 60 | indent
    else
      indent < "$O"
    fi
    CREL=$(sed -n 's/^ *RELEASE: //p' "$O" | head -n1)
    if [ "$CREL" = "$REL" ] && grep -q ' hibmarker *$' "$O"; then
      ok "$TAG: crash${opts:+ $opts} sys RELEASE = $CREL, ps shows: $(grep ' hibmarker *$' "$O" | head -n1 | tr -s ' ')"
      return
    fi
    echo "  crash attempt $n: RELEASE='$CREL', hibmarker line: $(grep -c ' hibmarker *$' "$O")"
    [ -n "$BEST" ] || [ "$CREL" != "$REL" ] || BEST="$opts "
  done
  bad "$TAG: crash: no attempt showed RELEASE $REL and a hibmarker ps line"
  if [ -n "$BEST" ]; then
    # diagnostic only (does not count as a pass): walk init_task.tasks with crash's own `list`
    O=$WORK/$TAG.crash.list
    # shellcheck disable=SC2086
    printf 'list -o task_struct.tasks -s task_struct.comm,pid -h init_task\nexit\n' |
      timeout 600 crash $BEST -s "$VML" "$CORE" > "$O" 2>&1
    echo "  diagnostic: crash ${BEST}'list -o task_struct.tasks -s task_struct.comm,pid -h init_task':"
    echo "    $(grep -c 'comm = ' "$O") tasks listed; errors: $(grep -c -E 'error|invalid' "$O")"
    grep -E 'error|invalid|WARNING' "$O" | sort | uniq -c | head -n 5 | indent
    grep -A1 'comm = "hibmarker' "$O" | indent
    # the same, after zero-filling the pages the kernel did not save (test-side copy)
    if $PY "$HERE/elf_gapfill.py" "$CORE" "$WORK/$TAG.gapfill.elf" > "$O.gapfill" 2>&1; then
      # shellcheck disable=SC2086
      printf 'list -o task_struct.tasks -s task_struct.comm,pid -h init_task\nps\nexit\n' |
        timeout 600 crash $BEST -s "$VML" "$WORK/$TAG.gapfill.elf" >> "$O.gapfill" 2>&1
      echo "  diagnostic: the same list and ps on a copy with unsaved pages zero-filled (elf_gapfill.py):"
      head -n1 "$O.gapfill" | indent
      echo "    $(grep -c 'comm = ' "$O.gapfill") tasks listed; errors: $(grep -c -E 'error|invalid' "$O.gapfill"); ps lines: $(grep -c -E '^[> ] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9a-f]{16} ' "$O.gapfill")"
      grep -A1 'comm = "hibmarker' "$O.gapfill" | indent
    fi
    rm -f "$WORK/$TAG.gapfill.elf"
  fi
}

TAGS=${*:-k61 k612}
echo "hibimg: $(command -v "$HIBIMG" || echo "$HIBIMG") ($("$HIBIMG" --version 2>&1 | head -n1))"
echo "drgn: $($PY -c 'import drgn; print(drgn.__version__)' 2>&1); crash: $(crash --version 2>/dev/null | sed -n 's/^crash //p' | head -n1)"
echo "work dir: $WORK"
for t in $TAGS; do one "$t"; done
section "summary"
echo "$PASSES passed, $FAILS failed"
[ -n "${HIBIMG_FORENSICS_WORK:-}" ] || rm -rf "$WORK"
[ "$FAILS" -eq 0 ]
