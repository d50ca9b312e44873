#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Opt-in check (issue 7): real forensics clients open hibimg's ELF exports of hibernation
# images written by STOCK Debian 12 kernels, with those kernels' debug symbols.
# Usage: tests/forensics/check-forensics.sh [k61] [k612]   (default: both)
# Needs tests/forensics/capture-stock.sh to have run (it fills $HIBIMG_CACHE/forensics/TAG/:
# disk.img, capture.log, capture.info, vmlinux). For each kernel:
#   hibimg verify; hibimg export --format elf; drgn (python3-drgn, /usr/bin/python3) with the
#   vmlinux: init_uts_ns.name.release == the console's "Linux version" release, and a task with
#   comm "hibmarker" in for_each_task(); crash (Debian trixie's `crash` package in a debootstrap
#   chroot, see below): `crash -s vmlinux CORE` with `sys` and `ps`: RELEASE == the same
#   release, and a "hibmarker" line in ps. Prints a transcript; exits 1 if a check fails.
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

. "$HERE/report.sh"

# crash from Debian trixie, unmodified, in a minimal chroot kept in the cache.
TRIXIE=$FDIR/trixie/root
trixie_crash() {
  [ -x "$TRIXIE/usr/bin/crash" ] && return 0
  need debootstrap debootstrap
  rm -rf "$TRIXIE"; mkdir -p "$TRIXIE"
  echo "setting up $TRIXIE (debootstrap trixie + crash, about 150 MB)" >&2
  debootstrap --variant=minbase --include=crash trixie "$TRIXIE" http://deb.debian.org/debian \
    > "$FDIR/trixie/debootstrap.log" 2>&1 || { tail -n 20 "$FDIR/trixie/debootstrap.log" >&2; return 1; }
}

crash_run() { # crash_run OUT VMLINUX CORE -> crash exit status; files are linked into the chroot
  _out=$1; _vml=$2; _core=$3
  mkdir -p "$TRIXIE/work"
  ln -f "$_vml" "$TRIXIE/work/vmlinux" 2>/dev/null || cp "$_vml" "$TRIXIE/work/vmlinux"
  ln -f "$_core" "$TRIXIE/work/core" 2>/dev/null || cp "$_core" "$TRIXIE/work/core"
  echo "\$ crash -s vmlinux CORE   <<< 'sys; ps; exit'   (Debian trixie's crash, chroot $TRIXIE)" > "$_out"
  printf 'sys\nps\nexit\n' | timeout 600 chroot "$TRIXIE" crash -s /work/vmlinux /work/core >> "$_out" 2>&1
  _rc=$?
  rm -f "$TRIXIE/work/vmlinux" "$TRIXIE/work/core"
  return $_rc
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
  # drgn unwinds the task running on CPU 0 only from the export's NT_PRSTATUS note
  if grep -q '^cpu0_stack=.*hibernation_snapshot' "$WORK/$TAG.drgn"; then
    ok "$TAG: drgn stack_trace($(sed -n 's/^cpu0_task=//p' "$WORK/$TAG.drgn")) from NT_PRSTATUS: $(sed -n 's/^cpu0_stack=//p' "$WORK/$TAG.drgn" | cut -d' ' -f1-6) ..."
  elif grep -q '^cpu0_stack_error=.*unknown ORC entry type' "$WORK/$TAG.drgn"; then
    # drgn 0.0.22 predates the ORC format of Linux 6.3 and 6.4 (drgn 0.0.23, commit
    # 91ede0c6 "handle ORC changes in Linux 6.3 and 6.4"): it unwinds no 6.12 stack at
    # all, whatever the note; check-sid.sh's drgn 0.3.0 judges this kernel's
    echo "NOTE $TAG: bookworm's drgn $(sed -n 's/^drgn_version=//p' "$WORK/$TAG.drgn") cannot read this kernel's ORC unwind data: $(sed -n 's/^cpu0_stack_error=//p' "$WORK/$TAG.drgn")"
  else bad "$TAG: drgn cannot unwind CPU 0's task: $(grep '^cpu0_stack' "$WORK/$TAG.drgn")"; fi

  # --- crash ---
  # The judge is Debian trixie's crash (8.0.6) in a chroot: bookworm's 8.0.2 predates
  # 6.4's module layout (cannot open 6.12 at all) and on 6.1 drops every task it finds
  # through the PID xarray, so its `ps` shows only the 3 active tasks. Both were
  # checked against the same ELF file; bookworm's run is printed as a diagnostic only.
  O=$WORK/$TAG.crash
  crash_run "$O" "$VML" "$CORE"
  CRC=$?
  echo "  trixie crash (exit $CRC):"
  grep -v -E '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9a-f]{16} +(ID|IN) ' "$O" | indent
  echo "    ($(grep -c -E '^[> ] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9a-f]{16} ' "$O") ps lines in all; idle (ID) and sleeping (IN) kernel threads not shown)"
  CREL=$(sed -n 's/^ *RELEASE: //p' "$O" | head -n1)
  if [ "$CREL" = "$REL" ]; then ok "$TAG: crash sys RELEASE = $CREL"
  else bad "$TAG: crash sys RELEASE '$CREL' != console '$REL'"; fi
  if grep -q ' hibmarker *$' "$O"; then
    ok "$TAG: crash ps shows: $(grep ' hibmarker *$' "$O" | head -n1 | tr -s ' ')"
  else bad "$TAG: crash ps shows no hibmarker task"; fi

  if command -v crash >/dev/null 2>&1; then
    printf 'sys\nps\nexit\n' | timeout 600 crash -s "$VML" "$CORE" > "$O.bookworm" 2>&1
    echo "  diagnostic, not a check: bookworm's crash $(crash --version 2>/dev/null | sed -n 's/^crash //p' | head -n1):" \
      "RELEASE '$(sed -n 's/^ *RELEASE: //p' "$O.bookworm" | head -n1)'," \
      "$(grep -c -E '^[> ] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9a-f]{16} ' "$O.bookworm") ps lines"
    grep -E -i 'crash:|warning|error' "$O.bookworm" | head -n 3 | indent
  fi
}

# issue 19: the kdump-compressed exports of the same image. drgn (through libkdumpfile) on a
# --zero-pages omit one (zero pages left out of the 2nd bitmap) and trixie's crash on it with
# --zero_excluded (without, it stops at "page excluded"); crash on the default --zero-pages
# store one (makedumpfile -d 1's shared zero page) as it is. Its own chroot directory, so it
# never meets crash_run's files.
kdump_rows() {
  TAG=$1; KD=$FDIR/$TAG; IMG=$KD/disk.img; VML=$KD/vmlinux
  [ -n "${REL:-}" ] && [ -f "$IMG" ] && [ -f "$VML" ] || return 0
  for Z in omit store; do
    K=$WORK/$TAG.$Z.kdump
    if ! "$HIBIMG" export --format kdump -z $Z "$IMG" "$K" > "$WORK/$TAG.$Z.kexport" 2>&1; then
      bad "$TAG: hibimg export --format kdump -z $Z (exit $?)"; indent < "$WORK/$TAG.$Z.kexport"; continue
    fi
    ok "$TAG: hibimg export --format kdump -z $Z ($(stat -c %s "$K") bytes)"
    if [ $Z = omit ]; then
      $PY "$HERE/forensics_drgn.py" "$K" "$VML" hibmarker > "$WORK/$TAG.kdrgn" 2>&1
      if [ "$(sed -n 's/^release=//p' "$WORK/$TAG.kdrgn")" = "$REL" ] &&
         grep -q '^task=[0-9]* hibmarker' "$WORK/$TAG.kdrgn"; then
        ok "$TAG kdump: drgn release $REL, $(grep '^task=' "$WORK/$TAG.kdrgn" | head -n1)"
      else bad "$TAG kdump: drgn"; indent < "$WORK/$TAG.kdrgn"; fi
      ZX=--zero_excluded
    else
      ZX=
    fi
    mkdir -p "$TRIXIE/work-kdump"
    cp "$VML" "$TRIXIE/work-kdump/vmlinux"; cp "$K" "$TRIXIE/work-kdump/core"
    echo "  \$ crash -s ${ZX:+$ZX }vmlinux $TAG.$Z.kdump   <<< 'sys; ps; exit'   (trixie)"
    printf 'sys\nps\nexit\n' | timeout 600 chroot "$TRIXIE" crash -s $ZX /work-kdump/vmlinux /work-kdump/core \
      > "$WORK/$TAG.$Z.kcrash" 2>&1
    rm -rf "$TRIXIE/work-kdump"
    grep -E 'DUMPFILE|RELEASE|TASKS|crash:| hibmarker *$' "$WORK/$TAG.$Z.kcrash" | indent
    if [ "$(sed -n 's/^ *RELEASE: //p' "$WORK/$TAG.$Z.kcrash" | head -n1)" = "$REL" ] &&
       grep -q ' hibmarker *$' "$WORK/$TAG.$Z.kcrash"; then
      ok "$TAG kdump -z $Z: crash ${ZX:+$ZX }sys RELEASE $REL, ps shows hibmarker"
    else bad "$TAG kdump -z $Z: crash${ZX:+ $ZX}"; fi
  done
}

TAGS=${*:-k61 k612}
trixie_crash || { echo "FAIL cannot set up Debian trixie's crash"; exit 1; }
echo "hibimg: $(command -v "$HIBIMG" || echo "$HIBIMG") ($("$HIBIMG" --version 2>&1 | head -n1))"
echo "drgn: $($PY -c 'import drgn; print(drgn.__version__)' 2>&1); crash: $(chroot "$TRIXIE" dpkg-query -W crash 2>/dev/null) (Debian trixie, chroot)"
echo "work dir: $WORK"
for t in $TAGS; do one "$t"; kdump_rows "$t"; done
section "summary"
echo "$PASSES passed, $FAILS failed"
[ -n "${HIBIMG_FORENSICS_WORK:-}" ] || rm -rf "$WORK"
[ "$FAILS" -eq 0 ]
