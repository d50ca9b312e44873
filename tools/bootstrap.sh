#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fresh Debian 12 -> built tree: installs the Debian packages that are
# missing (as root), configures once, builds, and unpacks the fixtures.
set -eu
cd "$(dirname "$0")/.."

pkgs="build-essential autoconf automake libtool pkg-config
      libblkid-dev liblz4-dev liblzo2-dev libzstd-dev libdeflate-dev
      libsmartcols-dev libmd-dev check zstd python3 python3-drgn util-linux
      python3-lzo python3-cryptography universal-ctags
      lz4 xz-utils bzip2 python3-jsonschema liblzma-dev lzop gzip
      e2fsprogs xfsprogs btrfs-progs python3-libkdumpfile"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "bootstrap: installing$missing"
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j"$(nproc)"
make fixtures
