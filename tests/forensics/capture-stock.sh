#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Capture hibernation images written by STOCK Debian 12 kernels (issue 7).
# Usage: tests/forensics/capture-stock.sh [k61] [k612] [k612-lz4] [k7x]   (default: k61 k612)
#
# k7x (issue 19): the newest linux-image-X.Y.Z+debN-amd64 of Debian sid that has a -dbg
# package (7.x when this was written), found and downloaded through a private apt
# configuration ($HIBIMG_CACHE/forensics/sid-apt: its own sources.list, lists and cache; the
# host's sources and dpkg are never touched). From 7.x on the image package is a stub that
# depends on linux-binary-REL (vmlinuz) and linux-modules-REL: those are unpacked too.
#
# k612-lz4: the k612 kernel tree (shared, not fetched again) and its image written with
# hibernate.compressor=lz4; the capture initramfs loads crypto/lz4.ko and its deps first
# (CONFIG_CRYPTO_LZ4=m in Debian's 6.12), in $HIBIMG_CACHE/forensics/k612-lz4.
#
# Per kernel TAG (k61 = linux-image-6.1.0-N-amd64, k612 = linux-image-6.12.N+deb12-amd64):
#   1. `apt-get download` the signed image package (never installed on the host), unpack it
#      with dpkg-deb -x, run depmod on the unpacked tree;
#   2. build an initramfs: busybox-static, fixtures/guest/init (copied, as /init.hibimg),
#      hibmarker (from fixtures/guest/hibmarker.c), the virtio_pci/virtio_blk modules and
#      their deps (.ko.xz decompressed) and a small /init that insmods them, then execs
#      /init.hibimg (capture mode: mkswap, fill, start hibmarker, hibernate);
#   3. boot it under QEMU TCG with a blank swap disk and keep the disk + console log;
#   4. `apt-get download` the matching -dbg package, extract ONLY vmlinux, delete the .deb
#      (skipped with HIBIMG_STOCK_VMLINUX=0: check-doctor needs the kernel, not its symbols).
# Everything lives in $HIBIMG_CACHE/forensics/TAG/ (default /var/cache/hibimg); steps whose
# result exists already are skipped, so a second run is free. Nothing is written to the repo.
# Env: HIBIMG_CACHE, HIBIMG_STOCK_K61 / HIBIMG_STOCK_K612 / HIBIMG_STOCK_K7X (pin the
#      package, e.g. linux-image-6.1.0-57-amd64), HIBIMG_FORENSICS_MEM (default 256M), HIBIMG_TIMEOUT (s).
set -eu

HERE=${STOCK_HERE:-$(cd "$(dirname "$0")" && pwd)}  # STOCK_HERE: where a script sourcing this finds it
TOP=$(cd "$HERE/../.." && pwd)
FIX=$TOP/fixtures
CACHE=${HIBIMG_CACHE:-/var/cache/hibimg}
FDIR=$CACHE/forensics
MEM=${HIBIMG_FORENSICS_MEM:-256M}
SMP=2
TIMEOUT=${HIBIMG_TIMEOUT:-900}
DISK_MB=256
CMDLINE="console=ttyS0,115200 loglevel=8 ignore_loglevel no_console_suspend pm_debug_messages"
CMDLINE="$CMDLINE hibimg.fill_random_kb=128 hibimg.fill_text_kb=512 hibimg.fill_zero_kb=512"
CMDLINE="$CMDLINE hibimg.mode=capture"

log() { echo "[capture-stock] $*" >&2; }  # stderr: download() returns its path on stdout
die() { echo "[capture-stock] ERROR: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || apt-get install -y --no-install-recommends "$2"; }

need qemu-system-x86_64 qemu-system-x86
need cpio cpio
need xz xz-utils
need depmod kmod
need gcc gcc
dpkg -s busybox-static >/dev/null 2>&1 || apt-get install -y --no-install-recommends busybox-static
[ -e /usr/lib/x86_64-linux-gnu/libc.a ] || apt-get install -y --no-install-recommends libc6-dev

# stock_apt TAG CMD ARGS...: apt-get/apt-cache for TAG's archive. k7x: Debian sid through a
# private configuration (like fixtures/common.sh's foreign_apt), so the host, a bookworm,
# never sees sid in its sources and nothing on it can be upgraded from there.
SIDAPT=$FDIR/sid-apt
stock_apt() {
  case "$1" in
  k7x)
    shift
    if [ ! -f "$SIDAPT/sources.list" ]; then
      mkdir -p "$SIDAPT/lists/partial" "$SIDAPT/cache/archives/partial"
      : > "$SIDAPT/status"
      echo "deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main" \
        > "$SIDAPT/sources.list"
    fi
    _o="-o APT::Architecture=amd64 -o APT::Architectures::=amd64
      -o Dir::Etc::SourceList=$SIDAPT/sources.list -o Dir::Etc::SourceParts=/nonexistent
      -o Dir::State::Lists=$SIDAPT/lists -o Dir::State::Status=$SIDAPT/status
      -o Dir::Cache=$SIDAPT/cache -o Debug::NoLocking=1"
    # the lists once a day: sid moves, and a superseded kernel leaves the archive
    if [ -z "$(find "$SIDAPT/updated" -mmin -1440 2>/dev/null)" ]; then
      # shellcheck disable=SC2086 # $_o: options without spaces, split on purpose
      apt-get $_o -q update >&2 && touch "$SIDAPT/updated"
    fi
    _c=$1; shift
    # shellcheck disable=SC2086
    "$_c" $_o "$@" ;;
  *) shift; "$@" ;;
  esac
}

# newest package of a family that also has a -dbg package in the archive
pick_pkg() { # pick_pkg TAG
  case "$1" in
    k61)  pin=${HIBIMG_STOCK_K61:-};  s=linux-image-6.1.0;  re='^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
    k612) pin=${HIBIMG_STOCK_K612:-}; s=linux-image-6.12.; re='^linux-image-6\.12\.[0-9]+\+deb12-amd64$' ;;
    # the newest sid has (7.x was the goal; an older one is taken, and logged, if 7.x is gone)
    k7x)  pin=${HIBIMG_STOCK_K7X:-};  s=linux-image-;  re='^linux-image-[0-9]+\.[0-9]+\.[0-9]+\+deb[0-9]+-amd64$' ;;
    *) die "unknown kernel tag $1 (k61 k612 k7x)" ;;
  esac
  if [ -n "$pin" ]; then echo "$pin"; return 0; fi
  for p in $(stock_apt "$1" apt-cache search --names-only "$s" | cut -d' ' -f1 |
             grep -E "$re" | sort -V -r); do
    case "$1:$p" in k7x:linux-image-7.*) ;; k7x:*) log "note: no 7.x kernel in sid, taking $p" ;; esac
    if stock_apt "$1" apt-cache show "$p-dbg" >/dev/null 2>&1; then echo "$p"; return 0; fi
    echo "[capture-stock] note: $p has no $p-dbg in the archive, skipped" >&2
  done
  die "no $1 kernel package with a matching -dbg package found (apt-get update?)"
}

# download PKG DIR -> path of the .deb (reuses a .deb already in DIR)
download() {
  _d=$(ls "$2/$1"_*.deb 2>/dev/null | head -n1 || true)
  if [ -z "$_d" ]; then
    _v=$(stock_apt "$TAG" apt-cache show "$1" | sed -n 's/^Version: //p' | head -n1)
    _s=$(stock_apt "$TAG" apt-cache show "$1" | sed -n 's/^Size: //p' | head -n1)
    log "downloading $1 $_v ($_s bytes)"
    _t0=$(date +%s)
    (cd "$2" && stock_apt "$TAG" apt-get download "$1" >&2)
    _d=$(ls "$2/$1"_*.deb | head -n1)
    log "downloaded $(basename "$_d") in $(( $(date +%s) - _t0 )) s"
  fi
  echo "$_d"
}

# build_initramfs TAG KDIR REL OUT. Another script may source this file with
# HIBIMG_STOCK_SOURCED=1 (nothing is then captured) and set, before calling it:
#   STOCK_EXTRA_MODULES  more modules to load (with their deps), e.g. efivarfs
#   STOCK_OVERLAY        a directory copied over the initramfs root last
#   STOCK_EXEC           what the module-loading /init execs (default /init.hibimg)
build_initramfs() {
  _kroot=$2/root
  _mods=$_kroot/lib/modules/$3
  _r=$(mktemp -d)
  mkdir -p "$_r/bin" "$_r/sbin" "$_r/usr/bin" "$_r/usr/sbin" "$_r/proc" "$_r/sys" "$_r/dev" \
           "$_r/tmp" "$_r/fill" "$_r/etc" "$_r/mnt" "$_r/lib/modules/$3"
  cp /bin/busybox "$_r/bin/busybox"
  for app in $(/bin/busybox --list); do
    [ "$app" = busybox ] || ln -s busybox "$_r/bin/$app"
  done
  gcc -static -O2 -Wall -o "$_r/bin/hibmarker" "$FIX/guest/hibmarker.c"
  strip "$_r/bin/hibmarker"
  install -m 0755 "$FIX/guest/init" "$_r/init.hibimg"
  mknod -m 600 "$_r/dev/console" c 5 1
  mknod -m 666 "$_r/dev/null" c 1 3
  # module load order from the unpacked tree's modules.dep (host kmod, -d/-S: not the host's)
  : > "$_r/etc/modules.order"
  for m in virtio_pci virtio_blk lzo lzo_rle lzo_compress lzo_decompress ${STOCK_EXTRA_MODULES:-}; do
    modprobe -d "$_kroot" -S "$3" --show-depends "$m" 2>/dev/null |
      sed -n 's/^insmod \([^ ]*\).*/\1/p' >> "$_r/etc/modules.order.full" || true
  done
  [ -s "$_r/etc/modules.order.full" ] || log "note: virtio_pci/virtio_blk are built in ($1)"
  for ko in $(awk '!seen[$0]++' "$_r/etc/modules.order.full" 2>/dev/null); do
    b=$(basename "$ko")
    case "$b" in
      *.ko.xz) xz -dc "$ko" > "$_r/lib/modules/$3/${b%.xz}"; b=${b%.xz} ;;
      *.ko.zst) zstd -q -dc "$ko" > "$_r/lib/modules/$3/${b%.zst}"; b=${b%.zst} ;;
      *) cp "$ko" "$_r/lib/modules/$3/$b" ;;
    esac
    echo "/lib/modules/$3/$b" >> "$_r/etc/modules.order"
  done
  rm -f "$_r/etc/modules.order.full"
  log "$1 initramfs modules: $(sed 's|.*/||' "$_r/etc/modules.order" | tr '\n' ' ')"
  cat > "$_r/init" <<'EOF'
#!/bin/sh
# hibimg forensics: load the stock kernel's disk modules, then run the fixture init.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
while read -r ko; do
  insmod "$ko" || echo "HIBIMG-INSMOD-FAILED $ko" > /dev/console
done < /etc/modules.order
echo "HIBIMG-MODULES $(wc -l < /etc/modules.order) loaded" > /dev/console
exec /init.hibimg
EOF
  [ -z "${STOCK_EXEC:-}" ] || sed -i "s|^exec /init.hibimg\$|exec $STOCK_EXEC|" "$_r/init"
  chmod 0755 "$_r/init"
  [ -z "${STOCK_OVERLAY:-}" ] || cp -a "$STOCK_OVERLAY/." "$_r/"
  (cd "$_r" && find . | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --quiet) | gzip -9n > "$4.tmp"
  mv "$4.tmp" "$4"
  rm -rf "$_r"
}

# kernel_tree TAG: step 1 alone; sets KD PKG VER REL KERNEL
kernel_tree() {
  TAG=$1
  KD=$FDIR/$TAG
  mkdir -p "$KD" "$FDIR/debs"
  if [ -f "$KD/package" ]; then PKG=$(cat "$KD/package"); else PKG=$(pick_pkg "$TAG"); fi
  VER=$(stock_apt "$TAG" apt-cache show "$PKG" 2>/dev/null | sed -n 's/^Version: //p' | head -n1 || true)
  REL=${PKG#linux-image-}
  log "$TAG: $PKG ${VER:-(version not in apt cache)} release $REL"

  # 1. kernel tree
  if [ -z "$(stock_vmlinuz "$KD/root" "$REL")" ] || [ ! -f "$KD/root/lib/modules/$REL/modules.dep" ]; then
    DEB=$(download "$PKG" "$FDIR/debs")
    rm -rf "$KD/root"; mkdir -p "$KD/root"
    dpkg-deb -x "$DEB" "$KD/root"
    dpkg-deb -f "$DEB" Package Version > "$KD/deb-fields"
    # 7.x split the image package: vmlinuz in linux-binary-REL, modules in linux-modules-REL
    for part in $(dpkg-deb -f "$DEB" Depends | tr ',' '\n' | sed -n \
                  "s/^ *\(linux-\(binary\|modules\)-$(echo "$REL" | sed 's/[.]/\\./g')\) .*/\1/p"); do
      PDEB=$(download "$part" "$FDIR/debs")
      dpkg-deb -x "$PDEB" "$KD/root"
      dpkg-deb -f "$PDEB" Package Version >> "$KD/deb-fields"
      rm -f "$PDEB"
    done
    rm -f "$DEB"
    # 7.x ships a merged-/usr tree (usr/lib/modules/REL/{vmlinuz,kernel}): depmod -b and
    # modprobe -d look in lib/modules, as on the installed system where /lib is a link
    [ -e "$KD/root/lib" ] || [ ! -d "$KD/root/usr/lib" ] || ln -s usr/lib "$KD/root/lib"
    depmod -b "$KD/root" "$REL"
  fi
  echo "$PKG" > "$KD/package"
  KERNEL=$(stock_vmlinuz "$KD/root" "$REL")
  [ -n "$KERNEL" ] || die "$TAG: no vmlinuz in $KD/root (boot/vmlinuz-$REL, usr/lib/modules/$REL/vmlinuz)"
}

# stock_vmlinuz ROOT REL -> the unpacked kernel: /boot/vmlinuz-REL up to 6.x, the
# kernel-install layout (usr/lib/modules/REL/vmlinuz) from 7.x on; empty if neither
stock_vmlinuz() {
  for _k in "$1/boot/vmlinuz-$2" "$1/usr/lib/modules/$2/vmlinuz"; do
    [ -f "$_k" ] && { echo "$_k"; return 0; }
  done
  return 0
}

one() { # one TAG
  case $1 in
  *-lz4)  # a variant: the base tag's tree, its own initramfs, capture and sidecar
    kernel_tree "${1%-lz4}"
    TAG=$1 KD=$FDIR/$1
    mkdir -p "$KD"
    [ -e "$KD/root" ] || ln -s "../${1%-lz4}/root" "$KD/root"
    echo "$PKG" > "$KD/package"
    STOCK_EXTRA_MODULES="${STOCK_EXTRA_MODULES:-} lz4"
    CMDLINE="$CMDLINE hibernate.compressor=lz4" ;;
  *) kernel_tree "$1" ;;
  esac

  # 2. initramfs
  INITRD=$KD/initramfs.cpio.gz
  if [ ! -f "$INITRD" ] || [ "$FIX/guest/init" -nt "$INITRD" ] || \
     [ "$FIX/guest/hibmarker.c" -nt "$INITRD" ] || [ "$0" -nt "$INITRD" ]; then
    build_initramfs "$TAG" "$KD" "$REL" "$INITRD"
  fi

  # 3. capture
  if [ ! -f "$KD/capture.done" ]; then
    DISK=$KD/disk.img
    LOG=$KD/capture.log
    rm -f "$DISK" "$LOG" "$KD/capture.info"
    truncate -s "${DISK_MB}M" "$DISK"
    log "$TAG: capturing (QEMU TCG, -m $MEM -smp $SMP, ${DISK_MB} MiB swap disk, timeout $TIMEOUT s)"
    T0=$(date +%s); RC=0
    timeout -k 10 "$TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -cpu qemu64 \
      -smp "$SMP" -m "$MEM" -kernel "$KERNEL" -initrd "$INITRD" -append "$CMDLINE" \
      -drive "file=$DISK,format=raw,if=virtio,cache=unsafe" \
      -nographic -monitor none -serial "file:$LOG" -no-reboot -nic none </dev/null >/dev/null 2>&1 || RC=$?
    T1=$(date +%s)
    log "$TAG: qemu exited with $RC after $((T1 - T0)) s; log $LOG"
    C=$(tr -d '\r' < "$LOG")
    [ "$RC" -eq 0 ] || die "$TAG: qemu status $RC (timeout?); see $LOG"
    echo "$C" | grep -q 'HIBIMG-HIBERNATE-FAILED' && die "$TAG: hibernation failed: $(echo "$C" | grep 'PM: ' | tail -n3)"
    echo "$C" | grep -q 'HIBMARKER' || die "$TAG: hibmarker never printed; see $LOG"
    echo "$C" | grep -q 'Wrote [0-9]* kbytes' || die "$TAG: no 'Wrote N kbytes' line; see $LOG"
    SIG=$(dd if="$DISK" bs=1 skip=4086 count=9 2>/dev/null)
    [ "$SIG" = S1SUSPEND ] || die "$TAG: disk signature is '$SIG', not S1SUSPEND"
    {
      echo "package=$PKG"
      echo "package_version=$VER"
      echo "kernel_release=$(echo "$C" | sed -n 's/.*Linux version \([^ ]*\) .*/\1/p' | head -n1)"
      echo "linux_version_line=$(echo "$C" | grep -m1 'Linux version' | sed 's/.*\(Linux version\)/\1/')"
      echo "mem=$MEM"
      echo "smp=$SMP"
      echo "accel=tcg"
      echo "cmdline=$CMDLINE"
      echo "capture_seconds=$((T1 - T0))"
      echo "wrote=$(echo "$C" | grep 'Wrote [0-9]* kbytes' | tail -n1 | sed 's/^\[[^]]*\] *//')"
      echo "image_created=$(echo "$C" | grep 'Image created' | tail -n1 | sed 's/^\[[^]]*\] *//')"
      echo "marker=hibmarker"
      echo "disk_bytes=$(stat -c %s "$DISK")"
      echo "disk_allocated_bytes=$(( $(stat -c %b "$DISK") * $(stat -c %B "$DISK") ))"
    } > "$KD/capture.info"
    touch "$KD/capture.done"
  fi
  log "$TAG: capture: $(cat "$KD/capture.info" | grep -E '^(kernel_release|capture_seconds|wrote)=' | tr '\n' ' ')"

  # 4. debug symbols: only vmlinux (a ~1 GB .deb, which check-doctor does not need)
  if [ ! -f "$KD/vmlinux" ] && [ "${HIBIMG_STOCK_VMLINUX:-1}" != 0 ]; then
    DBG=$PKG-dbg
    stock_apt "$TAG" apt-cache show "$DBG" >/dev/null 2>&1 || die "$TAG: the archive has no $DBG (version $VER)"
    DVER=$(stock_apt "$TAG" apt-cache show "$DBG" | sed -n 's/^Version: //p' | head -n1)
    [ -z "$VER" ] || [ "$DVER" = "$VER" ] || die "$TAG: $DBG is version $DVER, kernel is $VER"
    DEB=$(download "$DBG" "$FDIR/debs")
    T0=$(date +%s)
    rm -rf "$KD/dbg"; mkdir -p "$KD/dbg"
    # up to 6.x usr/lib/debug/boot/vmlinux-REL; 7.x: usr/lib/debug/lib/modules/REL/vmlinux
    # (boot/vmlinux-REL is then a link to it). tar fails on the pattern a package lacks:
    # the find below is the judge of what came out
    dpkg-deb --fsys-tarfile "$DEB" |
      tar -x -C "$KD/dbg" --wildcards '*/vmlinux-*' "*/lib/modules/$REL/vmlinux" 2>/dev/null || :
    VML=$( (find "$KD/dbg" -type f -name "vmlinux-$REL"; find "$KD/dbg" -type f -path "*/modules/$REL/vmlinux") | head -n1)
    [ -n "$VML" ] || die "$TAG: no vmlinux-$REL in $DEB"
    mv "$VML" "$KD/vmlinux.tmp" && mv "$KD/vmlinux.tmp" "$KD/vmlinux"
    rm -rf "$KD/dbg" "$DEB"
    log "$TAG: vmlinux extracted in $(( $(date +%s) - T0 )) s ($(stat -c %s "$KD/vmlinux") bytes), .deb deleted"
  fi
}

# sourced for its functions (fixtures/check-doctor-systemd.sh): capture nothing
[ -z "${HIBIMG_STOCK_SOURCED:-}" ] || return 0
TAGS=${*:-k61 k612}
for t in $TAGS; do one "$t"; done
log "done: $TAGS in $FDIR"
