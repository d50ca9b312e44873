#!/bin/sh
# hibimg simulate's inputs (issue 18): every rate with its source, pinned
# rates giving the same output byte for byte, each --rate-* feeding the
# number it names, a kernel log's lines (--dmesg) read as python reads
# them, the MATCH row against the image's own chunks summed without
# libhibimg (pslayout.py), and --ram/--zero-share against the documented
# scaling computed in python from the unscaled document. No number here
# comes from simulate itself.
. "$(dirname "$0")/lib.sh"

# every codec rate given: nothing is timed
PINC="--rate-lzo-compress 500 --rate-lzo-decompress 800 --rate-lz4-compress 600
--rate-lz4-decompress 2000 --rate-zstd-compress 200 --rate-zstd-decompress 900"
PIN="$PINC -T 2"
LZO=k612-lzo LZ4=k612-lz4
for n in $LZO $LZ4; do
	if [ ! -e "$FIX_IMG/$n.img" ]; then
		echo "# no $FIX_IMG/$n.img (not in FIXTURE_NAMES?): skipped"
		finish
		exit 0
	fi
done
A=$FIX_IMG/$LZO.img

# --- options ------------------------------------------------------------------
run_hib 0 simulate --help
for o in --rate-lzo-compress --rate-lz4-decompress --rate-zstd-compress --dmesg --repeat \
	 --ram --zero-share --rate-copy-page --disk-write; do
	out_has -- "$o"
done
run_hib 2 simulate --repeat 0 "$A";            err_has "invalid repeat count"
run_hib 2 simulate --ram 16X "$A";             err_has "invalid RAM size"
run_hib 2 simulate --zero-share 1.5 "$A";      err_has "invalid zero share"
run_hib 2 simulate --rate-lz4-compress -1 "$A"; err_has "invalid lz4 compress rate"

# --- pinned rates: the same bytes, run after run ------------------------------
# shellcheck disable=SC2086
for v in "" -J; do
	run_hib 0 simulate $v $PIN "$A"; cp "$TMP/out" "$TMP/p1"
	run_hib 0 simulate $v $PIN "$A"; cp "$TMP/out" "$TMP/p2"
	check "pinned rates ${v:-text}: byte-identical output" cmp -s "$TMP/p1" "$TMP/p2"
	run_hib 0 simulate $v $PIN --dmesg "$FIX_SRC/$LZO.log" "$A"; cp "$TMP/out" "$TMP/p1"
	run_hib 0 simulate $v $PIN --dmesg "$FIX_SRC/$LZO.log" "$A"; cp "$TMP/out" "$TMP/p2"
	check "rates given or from a log ${v:-text}: byte-identical output" cmp -s "$TMP/p1" "$TMP/p2"
done

# --- every input has its source ---------------------------------------------------
# shellcheck disable=SC2086
run_hib 0 simulate -J $PIN "$A"; cp "$TMP/out" "$TMP/base.json"
check "sources: seed for the copy loops (the mail named), given for the codecs, assumed disks" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["simulate"]
src = {r["input"]: (r["source"], r["from"] or "", r["value"]) for r in d["inputs"]}
want = {"copy_zerocheck": ("seed", "436.03 MB/s", 436.03), "copy_loop": ("seed", "550.90 MB/s", 550.90),
        "copy_page": ("seed", "1584.65 MB/s", 1584.65), "disk_write": ("assumed", "", 500),
        "disk_read": ("assumed", "", 1000), "lzo_compress": ("given", "", 500),
        "zstd_decompress": ("given", "", 900), "threads": ("given", "", 2),
        "ram": ("image", "", None), "zero_share": ("image", "", None)}
for k, (s, f, v) in want.items():
    if src[k][0] != s or f not in src[k][1] or (v is not None and abs(src[k][2] - v) > 1e-9):
        sys.exit("%s: %r" % (k, src[k]))
if "nozerocheck-copy_data_pages-2026.txt" not in src["copy_zerocheck"][1]:
    sys.exit("the seed mail is not named")
# the seed share: 1 - 4940240/6275216 kbytes
if abs(src["copy_zerocheck_share"][2] - (1 - 4940240 / 6275216)) > 1e-6:
    sys.exit("share %r" % (src["copy_zerocheck_share"],))
sys.exit(0 if "wrote" not in src and "read" not in src else 1)' "$TMP/base.json"
# the codecs measured when not given: the median of --repeat runs, labelled so
run_hib 0 simulate -J --repeat 3 "$A"
check "codec rates not given are measured here, and say how" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["simulate"]
r = [x for x in d["inputs"] if x["input"].endswith("compress")]
sys.exit(0 if len(r) == 6 and all(x["source"] == "measured" and x["value"] > 0 and
	 "median of 3" in x["from"] for x in r) and d["model"]["repeat"] == 3 and
	 d["model"]["batch_pages"] > 0 else 1)' "$TMP/out"

# --- each --rate-* feeds its number ---------------------------------------------
# The times from the scenario sizes and the given rates, in python: MB =
# 1024000 bytes, as the kernel prints rates.
check "times are the documented formulas of the sizes and the rates" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["simulate"]
m = d["model"]; ps = m["page_size"]; n = m["pfn_entries"]; T = 2; MB = 1024000.0
rate = {"lzo": (500, 800), "lz4": (600, 2000), "zstd": (200, 900)}
scan = 436.03 / (1 - (1 - 4940240 / 6275216))
def near(a, b): return abs(a - b) <= 2e-6 + 1e-6 * abs(b)
for r in d["scenarios"]:
    c = r["compression"]
    cp = n * ps / ((scan if r["zerocheck"] else 1584.65) * MB)
    ok = near(r["copy_s"], cp) and near(r["write_s"], r["written_bytes"] / (500 * MB)) and \
         near(r["read_s"], r["written_bytes"] / (1000 * MB)) and \
         near(r["zero_fill_s"], r["zero_flagged"] * ps / (1584.65 * MB))
    if c != "none":
        ok = ok and near(r["compress_s"], r["stream_bytes"] / (rate[c][0] * MB * T)) and \
             near(r["decompress_s"], r["stream_bytes"] / (rate[c][1] * MB * T))
    ok = ok and near(r["hibernate_s"], r["copy_s"] + r["compress_s"] + r["write_s"]) and \
         near(r["resume_s"], r["read_s"] + r["decompress_s"] + r["zero_fill_s"])
    if not ok:
        sys.exit("%s %s: %r" % (c, r["zerocheck"], r))' "$TMP/base.json"

# OPTION VALUE SCENARIOS KEY: doubling the rate halves that time, and
# leaves every size alone
feeds() {
	opt=$1 val=$2 rows=$3 key=$4 extra=${5:-}
	# shellcheck disable=SC2086
	run_hib 0 simulate -J $PIN $extra "$A"; cp "$TMP/out" "$TMP/f1.json"
	# shellcheck disable=SC2086
	run_hib 0 simulate -J $PIN $extra "$opt" "$val" "$A"
	check "$opt $val: $key of $rows halves, sizes unchanged" python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["simulate"]["scenarios"]
b = json.load(open(sys.argv[2]))["simulate"]["scenarios"]
flt, key = dict(kv.split("=") for kv in sys.argv[3].split(",") if kv), sys.argv[4]
hit = 0
for x, y in zip(a, b):
    for k in ("image_pages", "compressed_bytes", "written_bytes", "image_slots"):
        if x[k] != y[k]: sys.exit("%s changed" % k)
    sel = all(str(x[k]).lower() == v for k, v in flt.items())
    if sel:
        hit += 1
        if not (x[key] > 0 and abs(y[key] - x[key] / 2) <= 2e-6 + 1e-5 * x[key]):
            sys.exit("%s: %r -> %r" % (key, x[key], y[key]))
    elif x[key] != y[key]:
        sys.exit("%s changed where it should not: %r" % (key, x))
sys.exit(0 if hit else "no row")' "$TMP/f1.json" "$TMP/out" "$rows" "$key"
}
feeds --rate-lzo-compress 1000 compression=lzo compress_s
feeds --rate-lzo-decompress 1600 compression=lzo decompress_s
feeds --rate-lz4-compress 1200 compression=lz4 compress_s
feeds --rate-lz4-decompress 4000 compression=lz4 decompress_s
feeds --rate-zstd-compress 400 compression=zstd compress_s
feeds --rate-zstd-decompress 1800 compression=zstd decompress_s
feeds --disk-write 1000 "" write_s
feeds --disk-read 2000 "" read_s
feeds --rate-zerocheck 872.06@0.212738 zerocheck=true copy_s
feeds --rate-copy-page 3169.3 zerocheck=false copy_s
feeds --rate-copy-page 3169.3 zerocheck=true zero_fill_s
feeds --rate-loop 1101.8 zerocheck=false copy_s --nozerocheck-loop
# the share: the printed rate over memory with more zero pages is a faster scan
# shellcheck disable=SC2086
run_hib 0 simulate -J $PIN --rate-zerocheck 400@0.5 "$A"
check "--rate-zerocheck R@S: the scan rate is R / (1 - S)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["simulate"]
m = d["model"]; r = [x for x in d["scenarios"] if x["zerocheck"]][0]
want = m["pfn_entries"] * m["page_size"] / (400 / 0.5 * 1024000)
sys.exit(0 if abs(m["rate_zerocheck_scan"] - 800) < 0.01 and abs(r["copy_s"] - want) < 2e-6 else 1)' "$TMP/out"

# --- a kernel log ----------------------------------------------------------------
# python reads the lines the way the man page says they enter the model
logcheck() {  # logcheck JSON LOG
	python3 - "$1" "$2" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))["simulate"]
log = open(sys.argv[2]).read().splitlines()
def last(rx):
    hit = None
    for i, l in enumerate(log, 1):
        m = re.search(rx, l)
        if m: hit = (i, m)
    return hit
src = {r["input"]: r for r in d["inputs"]}
ps = d["model"]["page_size"]; MB = 1024000.0
def near(a, b, rel=1e-4): return abs(a - b) <= rel * abs(b) + 2e-6
th = last(r"Using (\d+) thread\(s\) for (\w+ )?compression")
if th:
    r = src["threads"]
    assert r["source"] == "log" and r["value"] == int(th[1].group(1)), r
    assert (":%d:" % th[0]) in r["from"], r
    assert d["model"]["threads"] == int(th[1].group(1))
    comp = "lz4" if th[1].group(2) == "lz4 " else "lzo"
else:
    comp = "none"
wr = last(r"Wrote (\d+) kbytes in ([0-9.]+) seconds")
cr = last(r"Image created \((\d+) pages copied(?:, (\d+) zero pages)?\)")
if wr:
    rate = int(wr[1].group(1)) / float(wr[1].group(2)) / 1000
    # a kernel that did not check for zero pages saved that stream
    off = cr is not None and (cr[1].group(2) is None or int(cr[1].group(2)) == 0)
    r = src["wrote_nozerocheck" if off else "wrote"]
    assert r["source"] == "log" and near(r["value"], rate, 1e-3) and (":%d:" % wr[0]) in r["from"], r
    for s in d["scenarios"]:
        if s["compression"] == comp:
            assert s["save_from_log"] and near(s["save_s"], s["stream_bytes"] / (rate * MB)), s
            assert near(s["hibernate_s"], s["copy_s"] + s["save_s"]), s
        else:
            assert not s["save_from_log"] and near(s["save_s"], s["compress_s"] + s["write_s"]), s
cp = last(r"Copied (\d+) kbytes in ([0-9.]+) seconds")
if cp:
    rate = int(cp[1].group(1)) / float(cp[1].group(2)) / 1000
    if cr[1].group(2) is None:
        key = "copy_loop"
    elif int(cr[1].group(2)) > 0:
        key = "copy_zerocheck"
        n, z = int(cr[1].group(1)), int(cr[1].group(2))
        sh = src["copy_zerocheck_share"]
        assert sh["source"] == "log" and near(sh["value"], z / (n + z), 1e-5), sh
    else:
        key = "copy_page"
    r = src[key]
    assert r["source"] == "log" and near(r["value"], rate, 1e-3) and (":%d:" % cp[0]) in r["from"], (key, r)
    print(key)
EOF
}
run_hib 0 simulate -J $PINC --dmesg "$FIX_SRC/$LZO.log" "$A"
check "$LZO.log: threads and Wrote as python reads them" logcheck "$TMP/out" "$FIX_SRC/$LZO.log"
COLUMNS=400 run_hib 0 simulate $PIN --dmesg "$FIX_SRC/$LZO.log" "$A"
out_has "^wrote .* log *\$"
out_has "^ *from: .*$LZO.log:[0-9]*: \"PM: hibernation: Wrote "

# patch 1's Copied line: NZK's real logs when they are fixtures, else the
# stock log with the line the patched kernel prints put in (the numbers
# python checks are read from the same text)
n=0
for nz in k612nz-lz4 k612nz-lz4-nozc k612nz-lzo k612nz-lzo-nozc; do
	[ -e "$FIX_SRC/$nz.log" ] || continue
	n=$((n + 1))
	run_hib 0 simulate -J $PINC --dmesg "$FIX_SRC/$nz.log" "$A"
	check "$nz.log: Copied, Image created, threads, Wrote, Read as python reads them" \
		logcheck "$TMP/out" "$FIX_SRC/$nz.log"
done
[ $n = 0 ] && echo "# no k612nz-*.log fixtures: the Copied line from edited stock logs only"
mklog() {  # mklog CREATED-LINE > FILE: k612-lzo.log with a Copied line before it
	sed "s/^\(\[[ 0-9.]*\] \)PM: hibernation: Image created .*/\1PM: hibernation: Copied 16024 kbytes in 0.05 seconds (320.48 MB\/s)\n\1PM: hibernation: $1/" \
		"$FIX_SRC/$LZO.log"
}
mklog "Image created (4006 pages copied, 774 zero pages)" >"$TMP/zc.log"
mklog "Image created (4780 pages copied, 0 zero pages)" >"$TMP/nozc.log"
mklog "Image created (4780 pages copied)" >"$TMP/old.log"
for l in zc nozc old; do
	check "$l.log has the Copied line" grep -q "Copied 16024 kbytes" "$TMP/$l.log"
	run_hib 0 simulate -J $PINC --dmesg "$TMP/$l.log" "$A"
	check "$l.log: the Copied rate goes to the loop Image created names" logcheck "$TMP/out" "$TMP/$l.log"
done
run_hib 0 simulate -J $PINC --dmesg "$TMP/nozc.log" "$A"
check "0 zero pages: the log's rate is copy_page's, the others stay the seed's" \
	test "$(logcheck "$TMP/out" "$TMP/nozc.log")" = copy_page
run_hib 0 simulate -J $PINC --dmesg "$TMP/old.log" "$A"
check "no zero pages counted (before 6.6): the word loop's" \
	test "$(logcheck "$TMP/out" "$TMP/old.log")" = copy_loop
# two logs: the save of each zero-check state from the log that ran it
sed 's/Wrote 16064 kbytes in 0.54 seconds/Wrote 19096 kbytes in 0.40 seconds/' "$TMP/nozc.log" >"$TMP/nozc2.log"
run_hib 0 simulate -J $PINC --dmesg "$TMP/zc.log" --dmesg "$TMP/nozc2.log" "$A"
check "two logs: zero check on saves at the first's Wrote, off at the second's" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["simulate"]
r = {x["input"]: x for x in d["inputs"]}
on, off = 16064 / 0.54 / 1000, 19096 / 0.40 / 1000
def near(a, b): return abs(a - b) <= 1e-4 * b + 2e-6
ok = r["wrote"]["source"] == "log" and "zc.log:" in r["wrote"]["from"] and near(r["wrote"]["value"], on)
ok = ok and "nozc2.log:" in r["wrote_nozerocheck"]["from"] and near(r["wrote_nozerocheck"]["value"], off)
ok = ok and r["copy_zerocheck"]["source"] == "log" and r["copy_page"]["source"] == "log"
for s in d["scenarios"]:
    if s["compression"] == "lzo":
        ok = ok and near(s["save_s"], s["stream_bytes"] / ((on if s["zerocheck"] else off) * 1024000))
sys.exit(0 if ok else 1)' "$TMP/out"
for pair in "k612nz-lz4 k612nz-lz4-nozc lz4" "k612nz-lzo k612nz-lzo-nozc lzo"; do
	set -- $pair
	[ -e "$FIX_SRC/$1.log" ] && [ -e "$FIX_SRC/$2.log" ] && [ -e "$FIX_IMG/$1.img" ] || continue
	run_hib 0 simulate -J $PINC --dmesg "$FIX_SRC/$1.log" --dmesg "$FIX_SRC/$2.log" "$FIX_IMG/$1.img"
	check "$1 + $2 logs: the zero-check loop from the first, copy_page and the nozerocheck save from the second" python3 -c '
import json, sys
r = {x["input"]: x for x in json.load(open(sys.argv[1]))["simulate"]["inputs"]}
sys.exit(0 if sys.argv[2] + ".log:" in r["copy_zerocheck"]["from"] and
	 sys.argv[3] + ".log:" in r["copy_page"]["from"] and
	 sys.argv[3] + ".log:" in r["wrote_nozerocheck"]["from"] and
	 sys.argv[2] + ".log:" in r["wrote"]["from"] else 1)' "$TMP/out" "$1" "$2"
done
run_hib 2 simulate --dmesg "$TMP/zc.log" --dmesg "$TMP/zc.log" --dmesg "$TMP/zc.log" \
	--dmesg "$TMP/zc.log" --dmesg "$TMP/zc.log" "$A"
err_has "at most 4 logs"

# a given rate wins over the log's
run_hib 0 simulate -J $PINC --dmesg "$TMP/zc.log" --rate-zerocheck 100@0.1 "$A"
check "--rate-zerocheck wins over the log's Copied" python3 -c '
import json, sys
r = {x["input"]: x for x in json.load(open(sys.argv[1]))["simulate"]["inputs"]}
sys.exit(0 if r["copy_zerocheck"]["source"] == "given" and r["copy_zerocheck"]["value"] == 100 and
	 r["copy_zerocheck_share"]["value"] == 0.1 else 1)' "$TMP/out"

# logs that are not, or lines that cannot be read
printf 'hello\nworld\n' >"$TMP/text.log"
run_hib 2 simulate --dmesg "$TMP/text.log" "$A";  err_has "text.log: not a kernel log"
run_hib 2 simulate --dmesg "$A" "$A";             err_has "binary data, not a kernel log"
run_hib 3 simulate --dmesg "$TMP/none.log" "$A";  err_has "cannot open .*none.log"
sed 's/Wrote 16064 kbytes in 0.54 seconds/Wrote 16064 kbytes in soon seconds/' \
	"$FIX_SRC/$LZO.log" >"$TMP/bad.log"
line=$(grep -n "Wrote 16064 kbytes in soon" "$TMP/bad.log" | cut -d: -f1)
run_hib 2 simulate --dmesg "$TMP/bad.log" "$A";   err_has "bad.log:$line: cannot read the kbytes and seconds"
grep -v "Image created" "$TMP/zc.log" >"$TMP/nocreated.log"
run_hib 2 simulate --dmesg "$TMP/nocreated.log" "$A"; err_has "\"Copied\" without the \"Image created\""
grep "Registered nosave" "$FIX_SRC/$LZO.log" >"$TMP/boot.log"
run_hib 2 simulate --dmesg "$TMP/boot.log" "$A";  err_has "no line simulate uses"

# --- MATCH: the image's own numbers, and the codec against the kernel's ----------
for name in $(fixtures); do
	img=$FIX_IMG/$name.img
	[ -e "$img" ] || continue
	comp=$(sidecar "$name" compression)
	# shellcheck disable=SC2046,SC2086
	run_hib 0 simulate -J $PIN $(roff "$name") "$img"; cp "$TMP/out" "$TMP/m.json"
	# shellcheck disable=SC2046
	python3 "$top_srcdir/tests/pslayout.py" "$img" $(roff "$name") summary >"$TMP/lay.json"
	check "$name: match's own slots and compressed bytes = python's walk of the image" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["simulate"]["match"]; l = json.load(open(sys.argv[2]))
ok = m["image_own_slots"] == l["map_entries"] + len(l["maps"]) and m["compression"] == sys.argv[3]
if l["compressed"]:
    ok = ok and m["image_compressed_bytes"] == l["cmp_bytes"]
sys.exit(0 if ok and m["scaled"] is False else 1)' "$TMP/m.json" "$TMP/lay.json" "$comp"
	case $comp in
	none)
		check "$name: uncompressed: simulated slots = the image's" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["simulate"]["match"]
sys.exit(0 if m["sim_slots"] == m["image_own_slots"] and m["kernel_codec"] else 1)' "$TMP/m.json" ;;
	lz4)
		d=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["simulate"]["match"]; print(m["compressed_bytes"] - m["image_compressed_bytes"])' "$TMP/m.json")
		echo "# $name: lz4 simulated - image's compressed bytes: $d"
		case $name in
		# liblz4 wrote the kernel's bytes on these; arm612-lz4 has 2
		# chunks liblz4 1.9.4 makes 6 and 4 bytes shorter
		k612-lz4|arm612-64k-lz4)
			check "$name: LZ4 byte for byte the kernel's (simulated = the image's cmp_len sum)" test "$d" = 0 ;;
		*)
			check "$name: LZ4 within 0.01% of the kernel's" python3 -c 'import sys; sys.exit(0 if abs(int(sys.argv[1])) <= int(sys.argv[2]) / 10000 else 1)' "$d" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cmp_bytes"])' "$TMP/lay.json")" ;;
		esac
		check "$name: lz4 labelled the kernel's compressor" python3 -c '
import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["simulate"]["match"]["kernel_codec"] else 1)' "$TMP/m.json" ;;
	lzo)
		echo "# $name: lzo simulated vs image: $(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["simulate"]["match"]; print(m["compressed_bytes"], m["image_compressed_bytes"], "%+.3f%%" % m["compressed_diff"])' "$TMP/m.json")"
		check "$name: LZO labelled not the kernel's, within 1% of it" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["simulate"]["match"]
sys.exit(0 if not m["kernel_codec"] and not m["bytes_equal"] and abs(m["compressed_diff"]) < 1 else 1)' "$TMP/m.json" ;;
	esac
done

# --- scaling ------------------------------------------------------------------------
# python applies the man page's SCALING to the unscaled document
scalecheck() {  # scalecheck UNSCALED SCALED RAM_BYTES|- SHARE|-
	python3 - "$@" <<'EOF'
import json, sys
u = json.load(open(sys.argv[1]))["simulate"]; s = json.load(open(sys.argv[2]))["simulate"]
m = u["model"]; ps, word = m["page_size"], m["word_size"]
N, Z = m["pfn_entries"], m["zero_pages"]
sc = {(r["zerocheck"], r["compression"]): r for r in u["scenarios"]}
M = sc[(True, "none")]["meta_pages"]
ram = int(sys.argv[3]) if sys.argv[3] != "-" else m["num_physpages"] * ps
N2 = N if ram == m["num_physpages"] * ps else int(N * (ram // ps) / m["num_physpages"] + 0.5)
if sys.argv[4] != "-":
    Z2 = int(N2 * float(sys.argv[4]) + 0.5)
else:
    Z2 = Z if N2 == N else int(Z * N2 / N + 0.5)
M2 = M if N2 == N else -(-N2 * word // ps)
epm = ps // 8 - 1
def slots(disk): p = 1 + disk; return p + p // epm + 1
bad = 0
for r in s["scenarios"]:
    zc, c = r["zerocheck"], r["compression"]
    on, off = sc[(True, c)], sc[(False, c)]
    own = on if zc else off
    S2 = M2 + N2 - (Z2 if zc else 0)
    want = {"image_pages": N2 - (Z2 if zc else 0), "zero_flagged": Z2 if zc else 0,
            "meta_pages": M2, "stream_pages": S2, "stream_bytes": S2 * ps}
    if c == "none":
        want["image_slots"] = slots(S2); want["chunks"] = S2
    else:
        con = on["compressed_bytes"] / (M + N - Z)
        cz = (off["compressed_bytes"] - on["compressed_bytes"]) / Z
        cmp = con * (M2 + N2 - Z2) + (0 if zc else cz * Z2)
        ch = -(-S2 // 32)
        def pad_of(x):
            # the image's own chunk pages, from its slots: invert slots()
            dk = [dp for dp in range(x["image_slots"]) if slots(dp) == x["image_slots"]][0]
            return (dk * ps - x["compressed_bytes"] - x["chunks"] * word) / x["chunks"]
        pad = pad_of(on)
        if not zc and Z:
            pad = min(max(pad + (pad_of(off) - pad) * ((Z2 / N2) / (Z / N)), 0), ps - 1)
        want["chunks"] = ch
        if abs(r["compressed_bytes"] - cmp) > 1:
            print("%s %s: compressed %d, python %.1f" % (c, zc, r["compressed_bytes"], cmp)); bad = 1
        disk = (int(cmp + 0.5) + ch * (word + pad)) / ps
        if abs(r["image_slots"] - slots(int(disk + 0.5))) > 1:
            print("%s %s: slots %d, python %d" % (c, zc, r["image_slots"], slots(int(disk + 0.5)))); bad = 1
    for k, v in want.items():
        if r[k] != v:
            print("%s %s: %s %s, python %s" % (c, zc, k, r[k], v)); bad = 1
    inp = {x["input"]: x["value"] for x in u["inputs"]}
    scan = inp["copy_zerocheck"] / (1 - inp["copy_zerocheck_share"])
    cp = N2 * ps / ((scan if zc else inp["copy_page"]) * 1024000)
    if abs(r["copy_s"] - cp) > 2e-6 + 1e-6 * cp:
        print("%s %s: copy_s %r, python %r" % (c, zc, r["copy_s"], cp)); bad = 1
mm = s["model"]
if (mm["sim_pfn_entries"], mm["sim_zero_pages"], mm["scaled"]) != (N2, Z2, True):
    print("model", mm["sim_pfn_entries"], mm["sim_zero_pages"], N2, Z2); bad = 1
sys.exit(bad)
EOF
}
for name in $LZO $LZ4; do
	img=$FIX_IMG/$name.img
	# shellcheck disable=SC2086
	run_hib 0 simulate -J $PIN "$img"; cp "$TMP/out" "$TMP/u.json"
	own_ram=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["simulate"]["model"]; print(m["num_physpages"] * m["page_size"])' "$TMP/u.json")
	own_share=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["simulate"]["model"]; print(repr(m["zero_pages"] / m["pfn_entries"]))' "$TMP/u.json")
	# shellcheck disable=SC2086
	run_hib 0 simulate -J $PIN --ram "$own_ram" --zero-share "$own_share" "$img"
	check "$name: --ram and --zero-share its own give back the image's numbers" python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["simulate"]; b = json.load(open(sys.argv[2]))["simulate"]
sys.exit(0 if a["scenarios"] == b["scenarios"] and a["compare"] == b["compare"] else 1)' "$TMP/u.json" "$TMP/out"
	# shellcheck disable=SC2086
	run_hib 0 simulate -J $PIN --ram 16G --zero-share 0.2 "$img"; cp "$TMP/out" "$TMP/s.json"
	check "$name: 16 GiB, 20% zero pages, as python scales the image's mix" \
		scalecheck "$TMP/u.json" "$TMP/s.json" $((16 << 30)) 0.2
	echo "# $name at 16 GiB, 20% zero: $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["simulate"]
c = {r["metric"]: (r["before"], r["after"]) for r in d["compare"]}
print("; ".join("%s %s -> %s" % (k, c[k][0], c[k][1]) for k in ("image_pages", "compressed_bytes", "critical_s", "hibernate_s", "resume_s")))' "$TMP/s.json")"
	# shellcheck disable=SC2086
	run_hib 0 simulate -J $PIN --ram $((2 * own_ram)) "$img"; cp "$TMP/out" "$TMP/s.json"
	check "$name: twice the RAM, its own zero share" scalecheck "$TMP/u.json" "$TMP/s.json" $((2 * own_ram)) -
	# shellcheck disable=SC2086
	run_hib 0 simulate -J $PIN --zero-share 0 "$img"; cp "$TMP/out" "$TMP/s.json"
	check "$name: its RAM, no zero pages" scalecheck "$TMP/u.json" "$TMP/s.json" - 0
	# no zero pages: the PFN list has no flag to set, the two streams are one
	check "$name: no zero pages, the same size with and without the check" python3 -c '
import json, sys
sc = {(r["zerocheck"], r["compression"]): r for r in json.load(open(sys.argv[1]))["simulate"]["scenarios"]}
sys.exit(0 if all(sc[(True, c)][k] == sc[(False, c)][k] for c in ("none", "lzo", "lz4", "zstd")
		  for k in ("compressed_bytes", "image_slots", "stream_pages")) else 1)' "$TMP/s.json"
	python3 "$top_srcdir/tests/jsonview.py" validate "$top_srcdir/doc/hibimg.schema.json" doc-simulate "$TMP/s.json" >"$TMP/v" 2>&1
	check "$name: the scaled document follows the schema" test $? = 0
done

finish
