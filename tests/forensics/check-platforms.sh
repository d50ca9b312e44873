#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Opt-in check (issue 17, part of make check-forensics): hibimg's exports of
# images written by real kernels of other platforms, opened by drgn.
# Usage: tests/forensics/check-platforms.sh [IMAGE.img.zst ...]
# Default: the committed fixtures of other platforms (fixtures/a*, arm*, i*,
# rv*: the name says the platform, see fixtures/README.md) and the stock
# Debian arm64 6.1 image $HIBIMG_CACHE/doctor-arm64/images/a61-lzo.img.zst
# (make check-doctor-arm64 writes it). For each image:
#   hibimg export --format elf and --format raw; drgn (python3-drgn,
#   /usr/bin/python3) opens the core: its platform's arch (and 32/64-bit
#   flag) is the image's platform, and 64 bytes in the middle of each
#   PT_LOAD python reads from the ELF are the same through drgn's physical
#   read, in the raw export at that address and in the ELF file
#   (forensics_platform.py); the header's class and machine, read by
#   python, are the platform's; drgn reads init_uts_ns's release at its
#   kernel address (VMCOREINFO), equal to OSRELEASE (noted, not failed,
#   where drgn 0.0.22 cannot translate: i386; arm64 VA_BITS=52 on 48), and
#   on arm64 python's own walk of the kernel's page tables in the raw export
#   must find it (that one fails). The record against the kernel's numbers:
#   arm64: ttbr1_el1 is SYMBOL(swapper_pg_dir) - NUMBER(kimage_voffset) of
#   its VMCOREINFO, reenter_kernel the System.map's _cpu_resume (of
#   fixtures/kernels/KERNEL, the sidecar's kernel=) + KERNELOFFSET,
#   sleep_cpu_mpidr the MPIDR the kernel printed (sidecar hibernating_mpidr);
#   i386: jump_address is System.map's restore_registers + KERNELOFFSET,
#   e820_check the CRC-32 zlib computes over the BIOS-e820 lines of the log
#   beside the image (tests/memmap-from-log.py).
#   a61-lzo with Debian's linux-image-6.1.0-57-arm64-dbg vmlinux (about
#   800 MB, fetched once with fixtures/common.sh's arm64_apt into
#   $HIBIMG_CACHE/records/; set HIBIMG_NO_DBG=1 to skip): drgn's
#   init_uts_ns.name.release is the sidecar's kernel_release and a task
#   with comm "hibmarker" is in for_each_task() (forensics_drgn.py).
# Prints a transcript; exits 1 if a check fails.
# Env: HIBIMG (default: hibimg in PATH), HIBIMG_CACHE, HIBIMG_FORENSICS_WORK.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CACHE=${HIBIMG_CACHE:-/var/cache/hibimg}
HIBIMG=${HIBIMG:-hibimg}
PY=/usr/bin/python3
WORK=${HIBIMG_FORENSICS_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/hibimg-platforms.XXXXXX")}
mkdir -p "$WORK"
DBG_PKG=linux-image-6.1.0-57-arm64-dbg
DBG_DIR=$CACHE/records/a61

$PY -c 'import drgn' 2>/dev/null || apt-get install -y --no-install-recommends python3-drgn >&2

. "$HERE/report.sh"
kv() { sed -n "s/^$2=//p" "$1" | head -n1; }

# platform NAME -> drgn arch, ELF class, e_machine (include/uapi/linux/elf-em.h)
platform() {
  case $1 in
    a[0-9]*|arm*) echo "AARCH64 64 183" ;;
    i[0-9]*)      echo "I386 32 3" ;;
    rv*)          echo "RISCV64 64 243" ;;
    *)            echo "" ;;
  esac
}

# the stock arm64 6.1 kernel's vmlinux with DWARF, extracted once
dbg_vmlinux() {
  [ -f "$DBG_DIR/vmlinux" ] && { echo "$DBG_DIR/vmlinux"; return 0; }
  [ -n "${HIBIMG_NO_DBG:-}" ] && return 1
  # shellcheck source=../../fixtures/common.sh
  ( . "$TOP/fixtures/common.sh"
    size=$(arm64_apt apt-cache show "$DBG_PKG" 2>/dev/null | sed -n 's/^Size: //p' | head -n1)
    [ -n "$size" ] && [ "$size" -lt 1073741824 ] ||
      { echo "    $DBG_PKG: size '${size:-?}' not under 1 GB: not fetched" >&2; exit 1; }
    mkdir -p "$CACHE/records/debs" "$DBG_DIR"
    cd "$CACHE/records/debs" || exit 1
    ls "$DBG_PKG"_*.deb >/dev/null 2>&1 || arm64_apt apt-get -q download "$DBG_PKG" >&2 || exit 1
    deb=$(ls "$DBG_PKG"_*.deb | head -n1)
    kver=${DBG_PKG#linux-image-}
    dpkg-deb --fsys-tarfile "$deb" |
      tar -xO "./usr/lib/debug/boot/vmlinux-${kver%-dbg}" > "$DBG_DIR/vmlinux.tmp" || exit 1
    mv "$DBG_DIR/vmlinux.tmp" "$DBG_DIR/vmlinux" ) || return 1
  echo "$DBG_DIR/vmlinux"
}

one() {
  ZST=$1
  NAME=$(basename "$ZST" .img.zst)
  SIDE=$(dirname "$ZST")/$NAME.expect
  section "$NAME"
  set -- $(platform "$NAME")
  [ $# -eq 3 ] || { echo "    (not another platform's image: skipped)"; return; }
  ARCH=$1 CLS=$2 MACH=$3
  IMG=$WORK/$NAME.img
  zstd -q -d -f "$ZST" -o "$IMG" || { bad "$NAME: cannot unpack $ZST"; return; }
  [ -f "$SIDE" ] && grep -E '^(kernel|kernel_release|mem|compression|hibernating_mpidr)=' "$SIDE" | indent
  "$HIBIMG" info -J "$IMG" > "$WORK/$NAME.info" 2>&1 || { bad "$NAME: hibimg info"; indent < "$WORK/$NAME.info"; return; }
  CORE=$WORK/$NAME.elf RAW=$WORK/$NAME.raw
  if "$HIBIMG" export --format elf -f "$IMG" "$CORE" > "$WORK/$NAME.export" 2>&1 &&
     "$HIBIMG" export --format raw -f "$IMG" "$RAW" >> "$WORK/$NAME.export" 2>&1; then
    ok "$NAME: hibimg export --format elf, raw"
  else
    bad "$NAME: hibimg export"; indent < "$WORK/$NAME.export"; return
  fi
  grep -E 'ELF|aliasing|VMCOREINFO' "$WORK/$NAME.export" | indent

  echo "  \$ $PY forensics_platform.py $CORE $RAW"
  $PY "$HERE/forensics_platform.py" "$CORE" "$RAW" > "$WORK/$NAME.plat" 2>&1
  PRC=$?
  indent < "$WORK/$NAME.plat"
  O=$WORK/$NAME.plat
  [ "$(kv "$O" elf_class)" = "$CLS" ] && [ "$(kv "$O" elf_machine)" = "$MACH" ] &&
    ok "$NAME: ELF class $CLS, e_machine $MACH (python)" ||
    bad "$NAME: ELF class '$(kv "$O" elf_class)' machine '$(kv "$O" elf_machine)', want $CLS $MACH"
  [ "$(kv "$O" arch)" = "$ARCH" ] && ok "$NAME: drgn platform $ARCH" ||
    bad "$NAME: drgn platform '$(kv "$O" arch)', want $ARCH"
  want64=1; [ "$CLS" = 32 ] && want64=0
  [ "$(kv "$O" is_64_bit)" = "$want64" ] && ok "$NAME: drgn IS_64_BIT=$want64" ||
    bad "$NAME: drgn IS_64_BIT '$(kv "$O" is_64_bit)', want $want64"
  [ "$PRC" -eq 0 ] && ok "$NAME: drgn, raw and ELF agree at $(kv "$O" compared) addresses" ||
    bad "$NAME: drgn/raw/ELF disagree or nothing compared (exit $PRC)"
  # a kernel virtual address through the page tables: drgn 0.0.22 has no
  # i386 walker, and its arm64 one does not know a VA_BITS=52 kernel running
  # with 48-bit VAs (4K pages, a CPU without LPA2: TCR_EL1_T1SZ 16); those
  # are noted, not failed
  if [ "$ARCH" = AARCH64 ] && [ -n "$(kv "$O" vmcoreinfo_OSRELEASE)" ]; then
    [ "$(kv "$O" uts_release_walk)" = "$(kv "$O" vmcoreinfo_OSRELEASE)" ] &&
      ok "$NAME: python's walk of the kernel's page tables in the raw export finds init_uts_ns's release ($(kv "$O" uts_release_walk))" ||
      bad "$NAME: python's page-table walk gives '$(kv "$O" uts_release_walk)', OSRELEASE '$(kv "$O" vmcoreinfo_OSRELEASE)'"
  fi
  if [ -n "$(kv "$O" vmcoreinfo_OSRELEASE)" ]; then
    if [ "$(kv "$O" uts_release_virt)" = "$(kv "$O" vmcoreinfo_OSRELEASE)" ]; then
      ok "$NAME: drgn reads init_uts_ns's release by its kernel address ($(kv "$O" uts_release_virt))"
    elif [ "$ARCH" = I386 ] ||
         { [ "$(kv "$O" vmcoreinfo_VA_BITS)" = 52 ] && [ "$(kv "$O" vmcoreinfo_TCR_EL1_T1SZ)" = 0x10 ]; }; then
      echo "NOTE $NAME: drgn $(kv "$O" drgn_version) cannot translate kernel addresses here: $(kv "$O" uts_release_virt_error)"
    else
      bad "$NAME: drgn's init_uts_ns release '$(kv "$O" uts_release_virt)' ($(kv "$O" uts_release_virt_error)), OSRELEASE '$(kv "$O" vmcoreinfo_OSRELEASE)'"
    fi
  fi

  # the record against the kernel's own numbers: VMCOREINFO, the sidecar,
  # the log, and the System.map of the fixture's kernel (fixtures/kernels/)
  KTAG=$([ -f "$SIDE" ] && kv "$SIDE" kernel)
  MAP=$TOP/fixtures/kernels/$KTAG.System.map.zst
  [ -n "$KTAG" ] && [ -f "$MAP" ] && zstd -q -d -c "$MAP" > "$WORK/$NAME.map" || : > "$WORK/$NAME.map"
  $PY -c '
import json, sys
sys.path.insert(0, sys.argv[3])
import export_read
d = export_read.elf_parse(sys.argv[1])
info = dict(l.partition("=")[::2] for l in (d["note"] or b"").decode().splitlines())
rec = json.load(open(sys.argv[2]))["images"][0]
# global text symbols: a static function elsewhere may share the name
syms = {}
for l in open(sys.argv[4]):
    f = l.split()
    if len(f) == 3 and f[1] == "T":
        syms.setdefault(f[2], int(f[0], 16))
koff = int(info.get("KERNELOFFSET", "0"), 16)
for k in ("ttbr1_el1", "reenter_kernel", "sleep_cpu_mpidr", "jump_address", "e820_check"):
    if rec.get(k) is not None:
        print("%s=%#x" % (k, rec[k]))
if "SYMBOL(swapper_pg_dir)" in info and "NUMBER(kimage_voffset)" in info:
    print("pa_swapper_pg_dir=%#x" % ((int(info["SYMBOL(swapper_pg_dir)"], 16) - int(info["NUMBER(kimage_voffset)"], 16)) % (1 << 64)))
# the saved addresses are link-time ones moved by the KASLR offset
if "_cpu_resume" in syms:
    print("map_cpu_resume=%#x" % ((syms["_cpu_resume"] + koff) % (1 << 64)))
if "restore_registers" in syms:
    print("map_restore_registers=%#x" % ((syms["restore_registers"] + koff) % (1 << 64)))
' "$CORE" "$WORK/$NAME.info" "$TOP/tests" "$WORK/$NAME.map" > "$WORK/$NAME.rec" 2>&1
  indent < "$WORK/$NAME.rec"
  R=$WORK/$NAME.rec
  same() { # same WHAT GOT WANT
    [ -n "$3" ] || return 0
    [ "$2" = "$3" ] && ok "$NAME: $1 ($2)" || bad "$NAME: $1: the record $2, the kernel $3"; }
  if [ "$ARCH" = AARCH64 ]; then
    same "ttbr1_el1 = SYMBOL(swapper_pg_dir) - kimage_voffset (VMCOREINFO)" \
      "$(kv "$R" ttbr1_el1)" "$(kv "$R" pa_swapper_pg_dir)"
    same "reenter_kernel = System.map's _cpu_resume + KERNELOFFSET" \
      "$(kv "$R" reenter_kernel)" "$(kv "$R" map_cpu_resume)"
    same "sleep_cpu_mpidr = the kernel's 'Hibernating on CPU' mpidr" \
      "$(kv "$R" sleep_cpu_mpidr)" "$([ -f "$SIDE" ] && kv "$SIDE" hibernating_mpidr)"
  fi
  if [ "$ARCH" = I386 ]; then
    same "jump_address = System.map's restore_registers + KERNELOFFSET" \
      "$(kv "$R" jump_address)" "$(kv "$R" map_restore_registers)"
    LOG=$(dirname "$ZST")/$NAME.log
    if [ -f "$LOG" ]; then
      rm -rf "$WORK/$NAME.mm"
      $PY "$TOP/tests/memmap-from-log.py" "$LOG" "$WORK/$NAME.mm" 2>/dev/null &&
        same "e820_check = CRC-32 of the log's BIOS-e820 table (zlib)" \
          "$(kv "$R" e820_check)" "$($PY "$TOP/tests/memmap-from-log.py" --crc "$WORK/$NAME.mm")"
    fi
  fi

  # the stock kernel's own debug info, where there is one
  case $NAME in a61-*) ;; *) rm -f "$IMG" "$CORE" "$RAW"; return ;; esac
  REL=$([ -f "$SIDE" ] && kv "$SIDE" kernel_release)
  if VML=$(dbg_vmlinux); then
    echo "  \$ $PY forensics_drgn.py $CORE $VML hibmarker"
    $PY "$HERE/forensics_drgn.py" "$CORE" "$VML" hibmarker > "$WORK/$NAME.drgn" 2>&1
    DRC=$?
    sed 's/^\(comms=.\{300\}\).*/\1 .../' "$WORK/$NAME.drgn" | indent
    DREL=$(kv "$WORK/$NAME.drgn" release)
    [ -n "$REL" ] && [ "$DREL" = "$REL" ] && ok "$NAME: drgn init_uts_ns.name.release = $DREL" ||
      bad "$NAME: drgn release '$DREL', the sidecar's '$REL'"
    [ "$DRC" -eq 0 ] && grep -q '^task=[0-9]* hibmarker' "$WORK/$NAME.drgn" &&
      ok "$NAME: drgn for_each_task finds $(grep '^task=' "$WORK/$NAME.drgn" | head -n1)" ||
      bad "$NAME: drgn found no hibmarker task (exit $DRC)"
  else
    echo "    (no $DBG_PKG vmlinux: release and task not checked)"
  fi
  rm -f "$IMG" "$CORE" "$RAW"
}

if [ $# -eq 0 ]; then
  # the stock Debian arm64 images are never committed: captured into the cache
  # first (fixtures/capture.sh, as make check-doctor does), so that a clean
  # machine's run has its arm64 rows instead of leaving them out unsaid
  for a in a61-lzo a612-lzo; do
    [ -f "$CACHE/doctor-arm64/images/$a.img.zst" ] && continue
    echo "capturing $a into $CACHE/doctor-arm64/images (fixtures/capture.sh $a)"
    sh "$TOP/fixtures/capture.sh" "$a" > "$WORK/capture-$a.log" 2>&1 ||
      { tail -n 20 "$WORK/capture-$a.log"; bad "$a: fixtures/capture.sh $a failed"; }
  done
  set --
  for f in "$TOP"/fixtures/a*.img.zst "$TOP"/fixtures/arm*.img.zst "$TOP"/fixtures/i*.img.zst \
           "$TOP"/fixtures/rv*.img.zst "$CACHE"/doctor-arm64/images/a6*.img.zst; do
    [ -f "$f" ] && set -- "$@" "$f"
  done
fi
echo "hibimg: $(command -v "$HIBIMG" || echo "$HIBIMG") ($("$HIBIMG" --version 2>&1 | head -n1))"
echo "drgn: $($PY -c 'import drgn; print(drgn.__version__)' 2>&1)"
echo "work dir: $WORK"
[ $# -gt 0 ] || bad "no image of another platform (fixtures/a*, i*, rv*, or $CACHE/doctor-arm64/images/a61-lzo.img.zst)"
for z in "$@"; do one "$z"; done
section "summary"
echo "$PASSES passed, $FAILS failed"
[ -n "${HIBIMG_FORENSICS_WORK:-}" ] || rm -rf "$WORK"
[ "$FAILS" -eq 0 ]
