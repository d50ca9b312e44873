#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Block devices: a fixture on a loop device is found without a spec (libblkid
# reports TYPE=swsuspend), by UUID=, verifies, and is never written over;
# recompress --device writes another device in place. Needs root and loop
# devices (CI has both); elsewhere it reports a skip (exit 77).
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null; then
	echo "cli-device: needs root and losetup"; exit 77
fi
name=$(fixtures0 | head -1)
cp --sparse=always "$FIX_IMG/$name.img" "$TMP/a.img"
truncate -s 80M "$TMP/b.img"
A=$(losetup -f --show "$TMP/a.img") || { echo "cli-device: no loop device"; exit 77; }
B=$(losetup -f --show "$TMP/b.img") || { losetup -d "$A"; exit 77; }
trap 'losetup -d "$A" "$B" 2>/dev/null; rm -rf "$TMP"' EXIT

# -v: the full record per area, as before issue 16
run_hib 0 info -v --json --no-scan
check "found $A without a spec" python3 -c '
import json, sys
imgs = json.load(open(sys.argv[1]))["images"]
sys.exit(0 if any(i["path"] == sys.argv[2] and i["kind"] == "swsusp" for i in imgs) else 1)' "$TMP/out" "$A"
# by default one row per area
run_hib 0 info --json --no-scan
check "one row for $A without a spec" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["machine"]["areas"]
sys.exit(0 if [r["kind"] for r in rows if r["device"] == sys.argv[2]] == ["swsusp"] else 1)' "$TMP/out" "$A"

uuid=$(blkid -p -o value -s UUID "$A")
run_hib 0 info --json --no-scan "UUID=$uuid"
check "UUID= resolves to $A" test "$(json_get "$TMP/out" path)" = "$A"
run_hib 0 verify "$A"; out_has intact

before=$(sha256sum <"$A")
run_hib 2 recompress --to lz4 "$A" "$A";          err_has "input itself"
run_hib 2 recompress --to lz4 --device "$A" "$A"; err_has "input itself"
run_hib 2 recompress --to lz4 "$A" "$B";          err_has "needs --device"
run_hib 0 recompress --to lz4 --device "$A" "$B"
run_hib 0 verify --json "$B"
check "device output verifies" test "$(json_get "$TMP/out" status)" = intact
check "device output is LZ4" test "$(json_get "$TMP/out" compression)" = lz4
check "input device unchanged" test "$before" = "$(sha256sum <"$A")"
finish
