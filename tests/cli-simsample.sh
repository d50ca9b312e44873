#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hibimg simulate --sample: on every fixture (the spent one with --spent),
# the full run's compressed bytes, slots and written bytes lie within the
# sampled run's estimate +- its bound, every page count of the sampled run
# is the full run's, and the bound is not 0 where chunks were left out (a
# bound of 0 would fail: the estimates are checked to differ from the full
# values somewhere). The full run is the reference: its sizes are checked
# against the kernel's own numbers in tests/cli-stats.sh.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

# a quarter of the chunks: 30-100 chunks sized a stream on these images,
# few enough to leave most out, enough for the variance to mean something
F=0.25

check_pair() {  # check_pair NAME FULL.json SAMPLED.json
	python3 - "$@" <<'EOF'
import json, sys
name, full, samp = sys.argv[1], json.load(open(sys.argv[2]))["simulate"], json.load(open(sys.argv[3]))["simulate"]
bad = []
exact = ("zerocheck", "compression", "image_pages", "zero_flagged", "meta_pages",
         "stream_pages", "chunks", "stream_bytes")
pairs = (("compressed_bytes", "compressed_bytes_err"), ("image_slots", "image_slots_err"),
         ("written_bytes", "written_bytes_err"))
differ = zero_err = 0
for f, s in zip(full["scenarios"], samp["scenarios"]):
    tag = "%s zerocheck=%s" % (f["compression"], f["zerocheck"])
    for k in exact:
        if f[k] != s[k]:
            bad.append("%s: %s %s sampled, %s full" % (tag, k, s[k], f[k]))
    if f["compression"] == "none":
        continue
    for k, e in pairs:
        if f[e] != 0:
            bad.append("%s: the full run has a bound %s=%s" % (tag, e, f[e]))
        if abs(f[k] - s[k]) > s[e]:
            bad.append("%s: full %s %d outside %d +- %d" % (tag, k, f[k], s[k], s[e]))
        differ += f[k] != s[k]
        zero_err += s[e] == 0
z = samp["sizing"]
if z["sample"] != float(sys.argv[4]):
    bad.append("sizing.sample %s" % z["sample"])
if z["chunks_sized"] >= z["chunks_total"] - z["chunks_zero"]:
    bad.append("the sample sized every chunk (%d of %d)" % (z["chunks_sized"], z["chunks_total"]))
elif zero_err:
    bad.append("%d bounds are 0 with chunks left out" % zero_err)
for b in bad:
    print("#   " + name + ": " + b)
print("DIFFER %d" % differ)
sys.exit(1 if bad else 0)
EOF
}

ndiff=0
n=0
for name in $(fixtures) $(spent_fixtures); do
	img=$FIX_IMG/$name.img
	[ -e "$img" ] || { echo "# $name: no $img, skipped"; continue; }
	opt=$(roff "$name")
	grep -q '^spent_from=' "$FIX_SRC/$name.expect" && opt="$opt --spent"
	# shellcheck disable=SC2086
	run_hib 0 simulate -J $opt "$img"
	cp "$TMP/out" "$TMP/full.json"
	# shellcheck disable=SC2086
	run_hib 0 simulate -J --sample $F $opt "$img"
	cp "$TMP/out" "$TMP/samp.json"
	if check_pair "$name" "$TMP/full.json" "$TMP/samp.json" $F >"$TMP/pair"; then ok; else
		fail "$name: --sample $F does not hold the full run within its bounds"
	fi
	grep '^#' "$TMP/pair"
	d=$(sed -n 's/^DIFFER //p' "$TMP/pair")
	ndiff=$((ndiff + ${d:-0}))
	n=$((n + 1))
done
check "at least ten fixtures sampled ($n)" test "$n" -ge 10
# with a bound of 0 every estimate would have to be the full value
check "sampled estimates differ from the full run's ($ndiff values)" test "$ndiff" -gt 0

# the same seed draws the same chunks; another seed others
first=$(fixtures | head -1)
run_hib 0 simulate -J --sample $F "$FIX_IMG/$first.img"; cp "$TMP/out" "$TMP/a.json"
run_hib 0 simulate -J --sample $F "$FIX_IMG/$first.img"; cp "$TMP/out" "$TMP/b.json"
check "--sample: same seed, same estimates" python3 -c '
import json, sys
a, b = (json.load(open(f))["simulate"]["scenarios"] for f in sys.argv[1:])
sys.exit(0 if [r["compressed_bytes"] for r in a] == [r["compressed_bytes"] for r in b] else 1)' \
	"$TMP/a.json" "$TMP/b.json"
run_hib 0 simulate -J --sample $F --sample-seed 7 "$FIX_IMG/$first.img"; cp "$TMP/out" "$TMP/c.json"
check "--sample-seed: another seed, other chunks" python3 -c '
import json, sys
a, b = (json.load(open(f))["simulate"]["scenarios"] for f in sys.argv[1:])
sys.exit(0 if [r["compressed_bytes"] for r in a] != [r["compressed_bytes"] for r in b] else 1)' \
	"$TMP/a.json" "$TMP/c.json"
# --sample 1 is the full run
run_hib 0 simulate -J --sample 1 "$FIX_IMG/$first.img"; cp "$TMP/out" "$TMP/d.json"
run_hib 0 simulate -J "$FIX_IMG/$first.img"; cp "$TMP/out" "$TMP/e.json"
check "--sample 1 sizes every chunk" python3 -c '
import json, sys
a, b = (json.load(open(f))["simulate"]["scenarios"] for f in sys.argv[1:])
sys.exit(0 if [(r["compressed_bytes"], r["compressed_bytes_err"]) for r in a] == [(r["compressed_bytes"], 0) for r in b] else 1)' \
	"$TMP/d.json" "$TMP/e.json"
for bad in 0 1.5 -0.1 x ""; do
	run_hib 2 simulate --sample "$bad" "$FIX_IMG/$first.img"; err_has "invalid sample fraction"
done
run_hib 0 simulate --sample $F "$FIX_IMG/$first.img"
out_has "COMPRESSED-BYTES-ERR"
finish
