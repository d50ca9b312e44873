#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The command line itself: help, version, usage errors, man pages.
. "$(dirname "$0")/lib.sh"

run_hib 0 --help;          out_has "Usage:"; out_has "verify"
run_hib 0 --version;       out_has "hibimg "
run_hib 2;                 err_has "no command given"
run_hib 2 frobnicate;      err_has "unknown command"
run_hib 0 help verify;     out_has "hibimg verify"
for c in info verify dump; do
	run_hib 0 "$c" --help;  out_has "Usage:"
	run_hib 2 "$c" --bogus; err_has "Try 'hibimg $c --help'"
	check "man page for $c" test -s "$top_srcdir/man/hibimg-$c.1"
done
run_hib 2 verify;                err_has "no image given"
run_hib 2 dump /dev/null;        err_has "need an image and a layer"
run_hib 2 dump x nosuchlayer;    err_has "unknown layer"
run_hib 3 verify /nonexistent/image; err_has "cannot open /nonexistent/image"
run_hib 2 verify -R notanumber x;    err_has "invalid resume offset"
run_hib 2 info LABEL=hibimg-no-such-label-$$; err_has "no such device"
run_hib 2 verify /dev/null;      err_has "not a regular file or block device"

finish
