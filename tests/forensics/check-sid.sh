#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Opt-in check (issue 19, part of make check-forensics): Debian sid's drgn and crash
# judge hibimg's exports of images written by stock Debian kernels that bookworm's tools
# are too old for: x86_64 6.1, 6.12 and 7.x (capture-stock.sh k61 k612 k7x) and arm64
# 6.1 and 6.12 (a61-lzo, a612-lzo: make check-doctor-arm64 writes them into
# $HIBIMG_CACHE/doctor-arm64/images; their -dbg vmlinux is fetched once into
# $HIBIMG_CACHE/records/KTAG/, about 1 GB each, HIBIMG_NO_DBG=1 skips them).
# Usage: tests/forensics/check-sid.sh [TAG|IMAGE.img.zst ...]
#        (default: k61 k612 k7x and the a61-lzo, a612-lzo images that exist)
#
# The judges run unmodified in a debootstrap'd Debian sid chroot kept in the cache
# ($HIBIMG_CACHE/forensics/sid/root: python3-drgn, crash, makedumpfile; about 400 MB):
# sid's drgn needs python 3.14 and a glibc newer than bookworm's. Files reach it by hard
# link (a copy across file systems) into $SID/work/PID, removed at the end.
# Per image:
#   hibimg export --format elf and raw;
#   drgn: init_uts_ns.name.release == the console's "Linux version" release, and a task
#     with comm hibmarker in for_each_task() (forensics_drgn.py);
#   crash -s VMLINUX CORE, `sys` and `ps`: RELEASE == that release, a hibmarker line. On
#     arm64 only where sid's crash reads arm64 cores (Debian builds crash for the host
#     architecture only: an x86_64 crash says "machine type mismatch"): noted, not failed;
#   makedumpfile -c -d 1 ELF KDUMP (sid's makedumpfile turns the ELF export into the
#     kdump-compressed format, zero pages left out): drgn (through libkdumpfile) and crash
#     open it as above, and every page drgn reads from it equals the raw export
#     (forensics_kdump.py) - an independent kdump file to hold hibimg's own against;
#   kdump_rows: where `hibimg export --help` lists kdump, the same for hibimg's own
#     export --format kdump, and its size beside makedumpfile's.
# Prints a transcript (report.sh); exits 1 if a check fails.
# Env: HIBIMG (default: hibimg in PATH), HIBIMG_CACHE, HIBIMG_FORENSICS_WORK (kept exports).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CACHE=${HIBIMG_CACHE:-/var/cache/hibimg}
FDIR=$CACHE/forensics
HIBIMG=${HIBIMG:-hibimg}
WORK=${HIBIMG_FORENSICS_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/hibimg-sid.XXXXXX")}
mkdir -p "$WORK"
SID=$FDIR/sid/root
SIDA=$FDIR/sid-arm64/root     # arm64 sid: crash and makedumpfile under qemu-user
SW=/work/$$                   # a chroot's view of ROOT/work/$$
SWORK=$SID$SW

. "$HERE/report.sh"
kv() { sed -n "s/^$2=//p" "$1" | head -n1; }
need() { command -v "$1" >/dev/null 2>&1 || apt-get install -y --no-install-recommends "$2" >&2; }
size() { stat -c %s "$1"; }

# sid_setup: Debian sid with the three judges, unmodified, in a minimal chroot
sid_setup() {
  [ -x "$SID/usr/bin/crash" ] && [ -x "$SID/usr/bin/makedumpfile" ] &&
    chroot "$SID" python3 -c 'import drgn' 2>/dev/null && return 0
  need debootstrap debootstrap
  rm -rf "$SID"; mkdir -p "$SID"
  echo "setting up $SID (debootstrap sid + python3-drgn crash makedumpfile, about 400 MB)" >&2
  _t0=$(date +%s)
  debootstrap --variant=minbase --include=python3-drgn,crash,makedumpfile sid "$SID" \
    http://deb.debian.org/debian > "$FDIR/sid/debootstrap.log" 2>&1 ||
    { tail -n 20 "$FDIR/sid/debootstrap.log" >&2; return 1; }
  echo "debootstrap sid: $(( $(date +%s) - _t0 )) s, $(du -sh "$SID" | cut -f1)" >&2
}

# sid_arm64_setup: Debian builds crash and makedumpfile for the host architecture only
# (x86_64's crash says "machine type mismatch" to an arm64 core, its makedumpfile walks
# x86 page tables), so arm64 sid's own binaries run under qemu-aarch64-static in a tree of
# sid arm64 packages: debootstrap --foreign fetches them, dpkg-deb -x unpacks them all
# (nothing is configured; only the two programs and their libraries are used).
# HIBIMG_SID_ARM64=0 skips it (crash under qemu-user takes minutes per core).
sid_arm64_setup() {
  [ "${HIBIMG_SID_ARM64:-1}" != 0 ] || return 1
  [ -x "$SIDA/usr/bin/crash" ] && [ -x "$SIDA/usr/bin/makedumpfile" ] &&
    [ -x "$SIDA/usr/bin/qemu-aarch64-static" ] && return 0
  need qemu-aarch64-static qemu-user-static
  need debootstrap debootstrap
  rm -rf "$SIDA"; mkdir -p "$SIDA"
  echo "setting up $SIDA (sid arm64 crash + makedumpfile, unpacked, about 250 MB)" >&2
  _t0=$(date +%s)
  debootstrap --arch=arm64 --foreign --variant=minbase --include=crash,makedumpfile sid "$SIDA" \
    http://deb.debian.org/debian > "$FDIR/sid-arm64/debootstrap.log" 2>&1 ||
    { tail -n 20 "$FDIR/sid-arm64/debootstrap.log" >&2; return 1; }
  for _d in "$SIDA"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$_d" "$SIDA" || return 1; done
  cp /usr/bin/qemu-aarch64-static "$SIDA/usr/bin/"
  echo "sid arm64 tree: $(( $(date +%s) - _t0 )) s, $(du -sh "$SIDA" | cut -f1)" >&2
}

# judges ARCH: where crash and makedumpfile run for that architecture's cores: JROOT
# (a chroot) and JRUN (empty, or the qemu-user that runs its binaries); drgn reads every
# architecture's cores and always runs in $SID
judges() {
  JROOT=$SID JRUN=
  if [ "$1" = AARCH64 ] && [ "$(uname -m)" != aarch64 ] && [ -n "$ARM64_OK" ]; then
    JROOT=$SIDA JRUN=/usr/bin/qemu-aarch64-static
  fi
}

# sid_put FILE NAME [ROOT]: FILE at $SW/NAME inside the chroot ROOT (default $SID)
sid_put() {
  mkdir -p "${3:-$SID}$SW"
  ln -f "$1" "${3:-$SID}$SW/$2" 2>/dev/null || cp "$1" "${3:-$SID}$SW/$2"
}

# sid_drgn OUT CORE VMLINUX: forensics_drgn.py by sid's python3 and drgn
sid_drgn() {
  sid_put "$2" core; sid_put "$3" vmlinux
  timeout 600 chroot "$SID" python3 "$SW/forensics_drgn.py" "$SW/core" "$SW/vmlinux" hibmarker > "$1" 2>&1
  _rc=$?; rm -f "$SWORK/core"; return $_rc
}

# sid_crash OUT VMLINUX CORE [OPTION]: sid's crash (in $JROOT), `sys` and `ps`
sid_crash() {
  sid_put "$2" vmlinux "$JROOT"; sid_put "$3" core "$JROOT"
  echo "\$ crash -s ${4:+$4 }vmlinux CORE   <<< 'sys; bt -a; ps; exit'   (Debian sid's crash, chroot $JROOT${JRUN:+, under $(basename "$JRUN")})" > "$1"
  printf 'sys\nbt -a\nps\nexit\n' |
    timeout 900 chroot "$JROOT" $JRUN /usr/bin/crash -s ${4:+"$4"} "$SW/vmlinux" "$SW/core" >> "$1" 2>&1
  _rc=$?; rm -f "$JROOT$SW/core"; return $_rc
}

# sid_makedumpfile OUT.log ELF KDUMP: makedumpfile -c -d 1 (zlib per page, zero pages out).
# makedumpfile sizes its cyclic buffer from /proc/meminfo; without it (a bare chroot) 1.7.8
# loops for ever printing progress lines, so /proc is mounted for the run, and the log cut.
sid_makedumpfile() {
  sid_put "$2" core.elf "$JROOT"
  rm -f "$JROOT$SW/out.kdump"
  mountpoint -q "$JROOT/proc" ||
    mount -t proc proc "$JROOT/proc" || { echo "cannot mount proc in $JROOT" > "$1"; return 1; }
  trap 'umount "$JROOT/proc"; exit 1' INT TERM HUP
  # message level 22: common, error and report messages (its page counts), no progress
  timeout 600 chroot "$JROOT" $JRUN /usr/bin/makedumpfile --message-level 22 -c -d 1 "$SW/core.elf" "$SW/out.kdump" 2>&1 |
    head -c 65536 | tr '\r' '\n' | grep -v -e '^ *$' -e ' : \[' > "$1"
  umount "$JROOT/proc"
  trap - INT TERM HUP
  rm -f "$JROOT$SW/core.elf"
  [ -s "$JROOT$SW/out.kdump" ] && mv "$JROOT$SW/out.kdump" "$3" && grep -q 'The dumpfile is saved' "$1"
}

# judge LABEL CORE VMLINUX REL ARCH: drgn and crash on one core (ELF or kdump)
judge() {
  _l=$1 _c=$2 _v=$3 _r=$4 _a=$5
  echo "  \$ python3 forensics_drgn.py $(basename "$_c") vmlinux hibmarker   (sid's drgn)"
  sid_drgn "$WORK/$_l.drgn" "$_c" "$_v"
  _drc=$?
  sed 's/^\(comms=.\{300\}\).*/\1 .../' "$WORK/$_l.drgn" | indent
  _dr=$(kv "$WORK/$_l.drgn" release)
  [ -n "$_r" ] && [ "$_dr" = "$_r" ] && ok "$_l: sid drgn init_uts_ns.name.release = $_dr" ||
    bad "$_l: sid drgn release '$_dr' != console '$_r'"
  [ "$_drc" -eq 0 ] && grep -q '^task=[0-9]* hibmarker' "$WORK/$_l.drgn" &&
    ok "$_l: sid drgn for_each_task finds $(grep '^task=' "$WORK/$_l.drgn" | head -n1)" ||
    bad "$_l: sid drgn found no hibmarker task (exit $_drc)"
  # CPU 0's running task unwinds only from an NT_PRSTATUS note: x86_64's ELF and
  # kdump exports have one, and makedumpfile copies the ELF's into its file; arm64's
  # only where kallsyms has sleep_save_stash (CONFIG_KALLSYMS_ALL: 6.12, not 6.1),
  # as the ELF export of the image ($NAME.export) says
  case $_a in
  AARCH64) if grep -q 'NT_PRSTATUS note.*false' "$WORK/$NAME.export"; then
      echo "    (no NT_PRSTATUS: $(sed -n 's/^ *no NT_PRSTATUS note because *//p' "$WORK/$NAME.export" | head -n1); drgn on CPU 0's task: $(grep -m1 '^cpu0_stack' "$WORK/$_l.drgn"))"
    else
      grep -q '^cpu0_stack=.*hibernation_snapshot' "$WORK/$_l.drgn" &&
        ok "$_l: sid drgn stack_trace($(sed -n 's/^cpu0_task=//p' "$WORK/$_l.drgn")) from NT_PRSTATUS: $(sed -n 's/^cpu0_stack=//p' "$WORK/$_l.drgn" | cut -d' ' -f1-6) ..." ||
        bad "$_l: sid drgn cannot unwind CPU 0's task: $(grep '^cpu0_stack' "$WORK/$_l.drgn")"
    fi ;;
  *) grep -q '^cpu0_stack=.*hibernation_snapshot' "$WORK/$_l.drgn" &&
       ok "$_l: sid drgn stack_trace($(sed -n 's/^cpu0_task=//p' "$WORK/$_l.drgn")) from NT_PRSTATUS: $(sed -n 's/^cpu0_stack=//p' "$WORK/$_l.drgn" | cut -d' ' -f1-6) ..." ||
       bad "$_l: sid drgn cannot unwind CPU 0's task: $(grep '^cpu0_stack' "$WORK/$_l.drgn")" ;;
  esac

  _o=$WORK/$_l.crash
  sid_crash "$_o" "$_v" "$_c"
  _crc=$?
  echo "  sid crash (exit $_crc):"
  grep -v -E '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9a-f]{16} +(ID|IN) ' "$_o" | head -n 60 | indent
  echo "    ($(grep -c -E '^[> ] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9a-f]{16} ' "$_o") ps lines in all; idle (ID) and sleeping (IN) kernel threads not shown)"
  if [ "$_a" = AARCH64 ] && grep -q 'machine type mismatch' "$_o"; then
    echo "NOTE $_l: sid's crash is built for $(uname -m) only and does not read arm64 cores: $(grep -m1 '^crash:' "$_o") (HIBIMG_SID_ARM64=0, or no arm64 tree: arm64's crash not run)"
    return
  fi
  # Debian's arm64 6.12 is built with VA_BITS=52 and runs with 48-bit VAs on a CPU
  # without LPA2 (VMCOREINFO: NUMBER(VA_BITS)=52, NUMBER(TCR_EL1_T1SZ)=0x10, the case
  # check-platforms.sh notes for drgn 0.0.22); arm64's crash 9.0.2 then cannot translate
  # its kernel addresses, from the ELF export (linear-map p_vaddr and all) as from the
  # kdump one, while 6.1's same exports read fine, and makedumpfile refuses the kernel
  # outright: crash's limit, noted. VMCOREINFO comes from the ELF note or from the
  # kdump sub-header, whichever kind of core this is
  # (crash says "read error" on the ELF, "seek error" on a kdump file)
  if [ "$_a" = AARCH64 ] && grep -q -E '(read|seek) error: kernel virtual address' "$_o" &&
     [ "$(python3 -c 'import sys; sys.path.insert(0, sys.argv[2]); import export_read, kdump_read
with open(sys.argv[1], "rb") as f:
    kd = f.read(8) == b"KDUMP   "
t = kdump_read.note_text(sys.argv[1]) if kd else export_read.elf_parse(sys.argv[1])["note"]
i = dict(l.partition("=")[::2] for l in (t or b"").decode(errors="replace").splitlines())
print(i.get("NUMBER(VA_BITS)"), i.get("NUMBER(TCR_EL1_T1SZ)"))' "$_c" "$TOP/tests" 2>/dev/null)" = "52 0x10" ]; then
    echo "NOTE $_l: arm64's crash cannot translate a VA_BITS=52 kernel's addresses running with 48-bit VAs (TCR_EL1_T1SZ 0x10) from this core: $(grep -m1 -E '(read|seek) error' "$_o")"
    return
  fi
  # crash 9.0.2 stops in module_init() on 7.x ("invalid structure member offset:
  # module_num_gpl_syms"): the kernel's module layout moved again. That is crash's
  # limit, not the core's: noted, and the judgement made on its --no_modules run
  if grep -q 'invalid structure member offset: module_' "$_o"; then
    echo "NOTE $_l: sid's crash cannot read this kernel's modules: $(grep -m1 '^crash:' "$_o"); again with --no_modules:"
    sid_crash "$_o" "$_v" "$_c" --no_modules
    _crc=$?
    echo "  sid crash --no_modules (exit $_crc):"
    grep -v -E '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9a-f]{16} +(ID|IN) ' "$_o" | head -n 60 | indent
    echo "    ($(grep -c -E '^[> ] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9a-f]{16} ' "$_o") ps lines in all; idle (ID) and sleeping (IN) kernel threads not shown)"
  fi
  _cr=$(sed -n 's/^ *RELEASE: //p' "$_o" | head -n1)
  [ "$_cr" = "$_r" ] && ok "$_l: sid crash sys RELEASE = $_cr" ||
    bad "$_l: sid crash sys RELEASE '$_cr' != console '$_r'"
  grep -q ' hibmarker *$' "$_o" &&
    ok "$_l: sid crash ps shows: $(grep ' hibmarker *$' "$_o" | head -n1 | tr -s ' ')" ||
    bad "$_l: sid crash ps shows no hibmarker task"
  # bt -a: the one online CPU runs the task that wrote "disk" to /sys/power/state, and
  # its stack holds the kernel's own way into the snapshot (x86_64: where the exported
  # NT_PRSTATUS's rip and rsp point; arm64's bt is shown, not judged: 6.1 has no note
  # and crash cannot translate 6.12's VA_BITS=52 addresses, see above)
  if [ "$_a" != AARCH64 ]; then
    grep -q 'hibernation_snapshot' "$_o" &&
      ok "$_l: sid crash bt -a: $(grep -m1 'hibernation_snapshot' "$_o" | sed 's/^ *//')" ||
      bad "$_l: sid crash bt -a shows no hibernation_snapshot frame"
  fi
  # crash trusts a CPU's NT_PRSTATUS only if the kernel's own per-CPU crash_notes buffer
  # holds one (diskdump.c have_crash_notes(), asked when the online map has fewer CPUs
  # than the kernel has, as after hibernation's disable_nonboot_cpus()); only a kernel
  # crash fills that buffer, so in a hibernated kernel it is zeros and crash warns and
  # drops the note. hibimg will not write into the kernel's memory to hide that: noted
  if grep -q 'invalid NT_PRSTATUS note' "$_o"; then
    echo "NOTE $_l: crash: '$(grep -m1 'invalid NT_PRSTATUS note' "$_o" | sed 's/^ *//')' with '$(grep -m1 'CPUS:' "$_o" | sed 's/^ *//')': the kernel's crash_notes buffer is zeros in a kernel that never crashed, so crash drops the exported note"
  fi
}

# kdump_check LABEL KDUMP ELF RAW VMLINUX REL ARCH: the page-by-page read-back, then judge
kdump_check() {
  sid_put "$3" core.elf; sid_put "$4" core.raw; sid_put "$2" core.kdump
  echo "  \$ python3 forensics_kdump.py $(basename "$2") ELF RAW   (sid's drgn, libkdumpfile)"
  timeout 600 chroot "$SID" python3 "$SW/forensics_kdump.py" "$SW/core.kdump" "$SW/core.elf" "$SW/core.raw" \
    > "$WORK/$1.pages" 2>&1
  _krc=$?
  rm -f "$SWORK/core.elf" "$SWORK/core.raw" "$SWORK/core.kdump"
  indent < "$WORK/$1.pages"
  [ "$(kv "$WORK/$1.pages" kdump_signature)" = KDUMP ] &&
    ok "$1: disk_dump_header signature KDUMP, header_version $(kv "$WORK/$1.pages" kdump_header_version)" ||
    bad "$1: no KDUMP signature at byte 0"
  [ "$_krc" -eq 0 ] &&
    ok "$1: every page drgn reads equals the raw export ($(kv "$WORK/$1.pages" pages_equal) equal, $(kv "$WORK/$1.pages" pages_zero) of them zero)" ||
    bad "$1: pages differ from the raw export or cannot be read (exit $_krc)"
  judge "$1" "$2" "$5" "$6" "$7"
}

# kdump_rows NAME IMG ELF RAW VMLINUX REL ARCH: hibimg's own kdump export (issue 19's
# `export --format kdump`, makedumpfile's kdump-compressed format), once hibimg has it
kdump_rows() {
  "$HIBIMG" export --help 2>&1 | grep -q -w kdump ||
    { echo "    (hibimg export has no --format kdump yet: its kdump rows skipped)"; return 0; }
  _k=$WORK/$1.kdump
  if ! "$HIBIMG" export --format kdump -f "$2" "$_k" > "$WORK/$1.kexport" 2>&1; then
    bad "$1: hibimg export --format kdump (exit $?)"; indent < "$WORK/$1.kexport"; return
  fi
  ok "$1: hibimg export --format kdump ($(size "$_k") bytes; makedumpfile -c -d 1: $(size "$WORK/$1.mkdump" 2>/dev/null || echo -) bytes)"
  indent < "$WORK/$1.kexport"
  kdump_check "$1-kdump" "$_k" "$3" "$4" "$5" "$6" "$7"
}

# arm64_dbg KTAG -> the stock arm64 kernel's vmlinux with DWARF, extracted once into
# $CACHE/records/KTAG/ (check-platforms.sh's place for a61's; the ~1 GB .deb is deleted)
arm64_dbg() {
  _dir=$CACHE/records/$1
  [ -f "$_dir/vmlinux" ] && { echo "$_dir/vmlinux"; return 0; }
  [ -n "${HIBIMG_NO_DBG:-}" ] && return 1
  # shellcheck source=../../fixtures/common.sh
  ( . "$TOP/fixtures/common.sh"
    pkg=$(stock_pkg "$1")-dbg || exit 1
    size=$(arm64_apt apt-cache show "$pkg" 2>/dev/null | sed -n 's/^Size: //p' | head -n1)
    [ -n "$size" ] && [ "$size" -lt 1610612736 ] ||
      { echo "    $pkg: size '${size:-?}' not under 1.5 GiB: not fetched" >&2; exit 1; }
    mkdir -p "$CACHE/records/debs" "$_dir"
    cd "$CACHE/records/debs" || exit 1
    if ! ls "$pkg"_*.deb >/dev/null 2>&1; then
      t0=$(date +%s)
      arm64_apt apt-get -q download "$pkg" >&2 || exit 1
      echo "    downloaded $pkg ($size bytes) in $(( $(date +%s) - t0 )) s" >&2
    fi
    deb=$(ls "$pkg"_*.deb | head -n1)
    kver=${pkg#linux-image-}
    dpkg-deb --fsys-tarfile "$deb" |
      tar -xO "./usr/lib/debug/boot/vmlinux-${kver%-dbg}" > "$_dir/vmlinux.tmp" || exit 1
    mv "$_dir/vmlinux.tmp" "$_dir/vmlinux" && rm -f "$deb" ) || return 1
  echo "$_dir/vmlinux"
}

# one NAME IMG VMLINUX REL ARCH: the rows of one image
one() {
  NAME=$1 IMG=$2 VML=$3 REL=$4 ARCH=$5
  echo "    console release: $REL"
  [ -n "$REL" ] || { bad "$NAME: no 'Linux version' line in its console log"; return; }
  CORE=$WORK/$NAME.elf RAW=$WORK/$NAME.raw
  T0=$(date +%s)
  if "$HIBIMG" export --format elf -f "$IMG" "$CORE" > "$WORK/$NAME.export" 2>&1 &&
     "$HIBIMG" export --format raw -f "$IMG" "$RAW" >> "$WORK/$NAME.export" 2>&1; then
    ok "$NAME: hibimg export --format elf, raw ($(( $(date +%s) - T0 )) s; ELF $(size "$CORE") bytes, raw $(size "$RAW") bytes, $(du -k "$RAW" | cut -f1) KiB allocated)"
  else
    bad "$NAME: hibimg export (exit $?)"; indent < "$WORK/$NAME.export"; return
  fi
  grep -E 'ELF|aliasing|VMCOREINFO' "$WORK/$NAME.export" | indent
  judges "$ARCH"
  judge "$NAME" "$CORE" "$VML" "$REL" "$ARCH"

  # an independent kdump-compressed file: makedumpfile's, from the ELF export
  echo "  \$ makedumpfile -c -d 1 ELF KDUMP   (sid's makedumpfile)"
  if sid_makedumpfile "$WORK/$NAME.mlog" "$CORE" "$WORK/$NAME.mkdump"; then
    grep -E '^(The kernel version is not supported|Original pages|  Excluded pages|    Pages filled with zero|  Remaining pages|Memory Hole|Total pages|Write bytes)' \
      "$WORK/$NAME.mlog" | indent
    ok "$NAME: makedumpfile -c -d 1 writes a kdump-compressed file ($(size "$WORK/$NAME.mkdump") bytes)"
    # every page the kernel's zero check flagged is a zero page in the export and
    # nothing else is (the saved copies passed the same check): makedumpfile's count of
    # zero pages is the kernel's "Image created (N pages copied, M zero pages)"
    _mz=$(sed -n 's/^ *Pages filled with zero *: *//p' "$WORK/$NAME.mlog" | head -n1)
    if [ -n "$ZEROS" ] && [ -n "$_mz" ]; then
      [ "$(printf '%d' "$_mz")" = "$ZEROS" ] &&
        ok "$NAME: makedumpfile's zero pages $(printf '%d' "$_mz") = the kernel's $ZEROS zero pages" ||
        bad "$NAME: makedumpfile counts $(printf '%d' "$_mz") zero pages, the kernel printed $ZEROS"
    fi
    kdump_check "$NAME-makedumpfile" "$WORK/$NAME.mkdump" "$CORE" "$RAW" "$VML" "$REL" "$ARCH"
  elif [ "$ARCH" = AARCH64 ] && [ -z "$JRUN" ] && [ "$(uname -m)" != aarch64 ]; then
    echo "NOTE $NAME: sid's makedumpfile (built for $(uname -m)) cannot convert an arm64 core: $(grep -i -m2 -E 'error|not|unsupported|fail' "$WORK/$NAME.mlog" | tr '\n' ' ')"
  elif [ "$ARCH" = AARCH64 ] && grep -q 'VA Bits 52 not supported' "$WORK/$NAME.mlog"; then
    # makedumpfile 1.7.8's arm64 code knows 4K pages with 39/48-bit VAs only; Debian's
    # 6.12 arm64 kernel is built with VA_BITS=52 (LPA2): makedumpfile's limit
    echo "NOTE $NAME: arm64's makedumpfile does not support this kernel: $(grep -m1 'not supported' "$WORK/$NAME.mlog")"
  else
    bad "$NAME: makedumpfile -c -d 1 failed"; tail -n 15 "$WORK/$NAME.mlog" | indent
  fi

  kdump_rows "$NAME" "$IMG" "$CORE" "$RAW" "$VML" "$REL" "$ARCH"
  [ -n "${HIBIMG_FORENSICS_WORK:-}" ] || rm -f "$CORE" "$RAW" "$WORK/$NAME.mkdump" "$WORK/$NAME.kdump"
}

# a stock x86_64 kernel of capture-stock.sh (FDIR/TAG)
one_stock() {
  KD=$FDIR/$1
  section "$1 (sid)"
  for f in "$KD/disk.img" "$KD/capture.log" "$KD/capture.info" "$KD/vmlinux"; do
    [ -f "$f" ] || { bad "$1: missing $f (run tests/forensics/capture-stock.sh $1)"; return; }
  done
  grep -E '^(package|package_version|mem|capture_seconds|wrote|image_created)=' "$KD/capture.info" | indent
  tr -d '\r' < "$KD/capture.log" | grep -m1 'Linux version' | sed 's/.*\(Linux version\)/    console: \1/'
  ZEROS=$(sed -n 's/^image_created=.*pages copied, \([0-9]*\) zero pages.*/\1/p' "$KD/capture.info")
  one "$1" "$KD/disk.img" "$KD/vmlinux" \
    "$(tr -d '\r' < "$KD/capture.log" | sed -n 's/.*Linux version \([^ ]*\) .*/\1/p' | head -n1)" X86_64
}

# a stock arm64 image (check-doctor-arm64's a61-lzo, a612-lzo: NAME.img.zst, .log, .expect)
one_arm64() {
  ZST=$1
  NAME=$(basename "$ZST" .img.zst)
  SIDE=$(dirname "$ZST")/$NAME.expect LOG=$(dirname "$ZST")/$NAME.log
  section "$NAME (sid)"
  for f in "$ZST" "$SIDE" "$LOG"; do
    [ -f "$f" ] || { bad "$NAME: missing $f (make check-doctor-arm64 writes it)"; return; }
  done
  grep -E '^(kernel|kernel_release|linux_source|mem|compression|pages_copied|wrote_kbytes)=' "$SIDE" | indent
  tr -d '\r' < "$LOG" | grep -m1 'Linux version' | sed 's/.*\(Linux version\)/    console: \1/'
  KTAG=$(kv "$SIDE" kernel)
  if ! VML=$(arm64_dbg "$KTAG"); then
    echo "    (no $KTAG -dbg vmlinux: $NAME not judged)"; return
  fi
  IMG=$WORK/$NAME.img
  zstd -q -d -f "$ZST" -o "$IMG" || { bad "$NAME: cannot unpack $ZST"; return; }
  ZEROS=$(kv "$SIDE" zero_pages)
  one "$NAME" "$IMG" "$VML" \
    "$(tr -d '\r' < "$LOG" | sed -n 's/.*Linux version \([^ ]*\) .*/\1/p' | head -n1)" AARCH64
  rm -f "$IMG"
}

if [ $# -eq 0 ]; then
  set -- k61 k612 k7x
  for f in "$CACHE"/doctor-arm64/images/a61-lzo.img.zst "$CACHE"/doctor-arm64/images/a612-lzo.img.zst; do
    [ -f "$f" ] && set -- "$@" "$f"
  done
fi
need zstd zstd
sid_setup || { echo "FAIL cannot set up Debian sid's drgn and crash"; exit 1; }
ARM64_OK=
case " $* " in *.img.zst*) sid_arm64_setup && ARM64_OK=1 ;; esac
mkdir -p "$SWORK"
cp "$HERE/forensics_drgn.py" "$HERE/forensics_kdump.py" "$TOP/tests/export_read.py" "$SWORK/"
echo "hibimg: $(command -v "$HIBIMG" || echo "$HIBIMG") ($("$HIBIMG" --version 2>&1 | head -n1))"
echo "Debian sid chroot $SID:"
chroot "$SID" dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' \
  python3-drgn crash makedumpfile python3 'libkdumpfile*' libc6 2>/dev/null | sed -n 's/^ii  */    /p'
echo "    drgn $(chroot "$SID" python3 -c 'import drgn; print(drgn.__version__, "with libkdumpfile:", drgn._with_libkdumpfile)' 2>&1)"
[ -z "$ARM64_OK" ] || {
  echo "Debian sid arm64 tree $SIDA (run by $(qemu-aarch64-static --version | head -n1)):"
  for _p in crash makedumpfile; do
    echo "    $(dpkg-deb -f "$(ls "$SIDA"/var/cache/apt/archives/"$_p"_*.deb | head -n1)" Package Version Architecture | tr '\n' ' ')"
  done; }
echo "work dir: $WORK"
for t in "$@"; do
  case $t in
    *.img.zst) one_arm64 "$t" ;;
    *) one_stock "$t" ;;
  esac
done
rm -rf "$SWORK" "$SIDA$SW"
section "summary (sid)"
echo "$PASSES passed, $FAILS failed"
[ -n "${HIBIMG_FORENSICS_WORK:-}" ] || rm -rf "$WORK"
[ "$FAILS" -eq 0 ]
