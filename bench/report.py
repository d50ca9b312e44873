#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/report.py ROWS NCPU RUNS: bench/RESULTS.md from bench/run.sh's measurements.
import sys, subprocess, platform
allrows = [l.split() for l in open(sys.argv[1])]
rows = [r for r in allrows if not r[0].startswith("machine-")]
mrows = [r for r in allrows if r[0].startswith("machine-")]
ncpu, runs = int(sys.argv[2]), sys.argv[3]
def get(size, what, t="-"):
    for r in rows:
        if r[0] == size and r[1] == what and r[2] == str(t):
            return float(r[3]), int(r[4]), float(r[5])
    return None
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
mem = next(l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal"))
def ver(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0].strip()
    except Exception:
        return "?"
print("# hibimg benchmark results\n")
print("Made by `bench/run.sh`; medians of %s runs, page-cached input (caches dropped and only the measured input read back before each group), MB/s of uncompressed stream (10^6 bytes). recompress writes its output to tmpfs (/dev/shm) when there is one, as its peer pipeline writes to /dev/null.\n" % runs)
print("Machine: %s, %d online CPUs, %d MiB RAM, Linux %s." % (cpu, ncpu, int(mem) // 1024, platform.release()))
print("Peers: %s; %s.\n" % (ver(["lz4", "--version"]), ver(["lzop", "--version"]) ))
sizes = sorted({r[0] for r in rows}, key=lambda s: float(s[:-1]) * {"M": 1, "G": 1024}[s[-1]])
print("| size | what | threads | seconds | MB/s | peak RSS (MiB) |")
print("|---|---|---|---|---|---|")
for r in rows:
    print("| %s | %s | %s | %s | %s | %s |" % (r[0], r[1].replace("|", "\\|"), r[2], r[3], r[5], "%.1f" % (int(r[4]) / 1024) if r[4] != "0" else "-"))
def mget(m, what):
    for r in mrows:
        if r[0] == "machine-" + m and r[1] == what:
            return float(r[3]), int(r[4]) / 1024
    return None
machines = []
for r in mrows:
    if r[0][8:] not in machines:
        machines.append(r[0][8:])
if mrows:
    print("\n## Synthetic machines\n")
    print("`tests/mkimage --pages N --zero-share F --to lz4` from the fixtures' pages; "
          "MB/s of the image's stream (its stream pages x 4 KiB); `-base` rows are the "
          "older build given with --base (not run at 1 TiB).\n")
    print("| machine | zero share | stream pages | what | seconds | MB/s | peak RSS (MiB) |")
    print("|---|---|---|---|---|---|---|")
    for r in mrows:
        print("| %s | %s | %s | %s | %s | %s | %.1f |" % (r[0][8:], r[6], r[7], r[1], r[3], r[5], int(r[4]) / 1024))
print("\n## Targets\n")
print("| size | target | measured | met |")
print("|---|---|---|---|")
def line(size, name, val, goal, ok):
    print("| %s | %s | %s | %s |" % (size, name, val, "yes" if ok else "**no**"))
for s in sizes:
    lz4d, lzopd, pipe = get(s, "lz4-d"), get(s, "lzop-d"), get(s, "lzop-d|lz4-1")
    for (c, peer, hi, lo) in (("lz4", lz4d, 1.5, 0.9), ("lzo", lzopd, 1.6, 0.9)):
        a, one = get(s, "verify-" + c, ncpu), get(s, "verify-" + c, 1)
        if a and peer:
            r = a[2] / peer[2]
            line(s, "verify %s, %d threads >= %.1fx %s" % (c, ncpu, hi, "lz4 -d" if c == "lz4" else "lzop -d"), "%.2fx" % r, hi, r >= hi)
        if one and peer:
            r = one[2] / peer[2]
            line(s, "verify %s, 1 thread >= %.1fx" % (c, lo), "%.2fx" % r, lo, r >= lo)
    rec = get(s, "recompress-lzo-lz4", ncpu)
    if rec and pipe:
        r = rec[2] / pipe[2]
        line(s, "recompress lzo->lz4 >= 1.0x lzop -dc \\| lz4 -1", "%.2fx" % r, 1.0, r >= 1.0)
for s in sizes:
    sim, simb = get(s, "simulate-lzo", ncpu), get(s, "simulate-lzo-base", ncpu)
    if sim and simb:
        r = simb[0] / sim[0]
        line(s, "simulate >= 3x faster than the base build", "%.2fx" % r, 3.0, r >= 3.0)
    st, stb = get(s, "stats-lzo-all", ncpu), get(s, "stats-lzo-all-base", ncpu)
    if st and stb:
        print("| %s | stats vs the base build (no target) | %.2fx | - |" % (s, stb[0] / st[0]))
    for peer in ("zstd-3-T0", "lz4-1", "lzop-1"):
        p = get(s, peer)
        if p and sim:
            print("| %s | simulate MB/s / %s MB/s (no target) | %.3f | - |" % (s, peer, sim[2] / p[2]))
        if p and st:
            print("| %s | stats MB/s / %s MB/s (no target) | %.3f | - |" % (s, peer, st[2] / p[2]))
# stats keeps its duplicate table beside (16 bytes a data page at most:
# bounded here by the stream pages); simulate nothing that grows with RAM
for m in machines:
    v = mget(m, "verify")
    sp = next((int(r[7]) for r in mrows if r[0] == "machine-" + m), 0)
    for what, extra in (("stats", sp * 16 / 1048576.0), ("simulate", 0)):
        x = mget(m, what)
        if v and x:
            line(m + " machine", "%s peak RSS within 8 MiB%s of verify's" %
                 (what, " + its duplicate table (%.1f MiB)" % extra if extra else ""),
                 "%.1f vs %.1f MiB" % (x[1], v[1]), 0, x[1] - v[1] <= 8 + extra)
big, small = sizes[-1], sizes[0]
for what in ("verify-lz4", "verify-lzo", "recompress-lzo-lz4"):
    b, sm = get(big, what, ncpu), get(small, what, ncpu)
    if b and sm:
        bm, smm = b[1] / 1024, sm[1] / 1024
        line(big, "%s peak RSS <= 64 MiB, within 8 MiB of %s" % (what, small), "%.1f vs %.1f MiB" % (bm, smm), 0, bm <= 64 and abs(bm - smm) <= 8)
