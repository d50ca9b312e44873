# SPDX-License-Identifier: GPL-2.0-or-later
# The transcript helpers of the opt-in forensics checks (check-forensics.sh,
# check-platforms.sh), sourced: a PASS/FAIL line per check, counted.
# shellcheck shell=sh
FAILS=0
PASSES=0
ok()   { PASSES=$((PASSES + 1)); echo "PASS $*"; }
bad()  { FAILS=$((FAILS + 1)); echo "FAIL $*"; }
section() { echo; echo "=== $* ==="; }
indent() { sed 's/^/    /'; }
