/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guardprobe - runs a list of file operations in one process, for
 * tests/cli-guard.sh to show what tests/libguardio.so stops:
 *
 *   guardprobe OP ARGS... [OP ARGS...]...
 *
 *   rd P            open(P, O_RDONLY), kept open
 *   frd P           fopen(P, "r"), kept open
 *   wr P            open(P, O_WRONLY)
 *   rdwr P          open(P, O_RDWR)
 *   trunc P         open(P, O_RDONLY | O_TRUNC)
 *   append P        open(P, O_RDONLY | O_APPEND)
 *   create P        open(P, O_WRONLY | O_CREAT, 0644)
 *   openat P        openat(AT_FDCWD, P, O_WRONLY)
 *   creat P         creat(P, 0644)
 *   fopen MODE P    fopen(P, MODE)
 *   freopen MODE P  freopen(P, MODE, a fresh stream on /dev/null)
 *   truncate P      truncate(P, 0)
 *   rename O N      rename(O, N)       renameat O N   renameat(.., O, .., N)
 *   renameat2 O N   renameat2(.., 0)   exchange O N   renameat2(.., RENAME_EXCHANGE)
 *   link O N        link(O, N)         linkat O N     linkat(.., O, .., N, 0)
 *   symlink T L     symlink(T, L)
 *   unlink P        unlink(P)          unlinkat P     unlinkat(AT_FDCWD, P, 0)
 *
 * Exit 0 when every operation succeeded, 1 (with a message) at the first
 * that failed, 2 on a usage error; the guard's own status is 88.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static int nargs(const char *op)
{
	static const char *const two[] = {
		"fopen", "freopen", "rename", "renameat", "renameat2", "exchange",
		"link", "linkat", "symlink", NULL
	};
	int i;

	for (i = 0; two[i]; i++)
		if (!strcmp(op, two[i]))
			return 2;
	return 1;
}

static int run(const char *op, const char *a, const char *b)
{
	FILE *f;

	if (!strcmp(op, "rd"))
		return open(a, O_RDONLY) < 0 ? -1 : 0;
	if (!strcmp(op, "frd"))
		return fopen(a, "r") ? 0 : -1;
	if (!strcmp(op, "wr"))
		return open(a, O_WRONLY) < 0 ? -1 : 0;
	if (!strcmp(op, "rdwr"))
		return open(a, O_RDWR) < 0 ? -1 : 0;
	if (!strcmp(op, "trunc"))
		return open(a, O_RDONLY | O_TRUNC) < 0 ? -1 : 0;
	if (!strcmp(op, "append"))
		return open(a, O_RDONLY | O_APPEND) < 0 ? -1 : 0;
	if (!strcmp(op, "create"))
		return open(a, O_WRONLY | O_CREAT, 0644) < 0 ? -1 : 0;
	if (!strcmp(op, "openat"))
		return openat(AT_FDCWD, a, O_WRONLY) < 0 ? -1 : 0;
	if (!strcmp(op, "creat"))
		return creat(a, 0644) < 0 ? -1 : 0;
	if (!strcmp(op, "fopen"))
		return fopen(b, a) ? 0 : -1;
	if (!strcmp(op, "freopen")) {
		f = fopen("/dev/null", "r");
		return f && freopen(b, a, f) ? 0 : -1;
	}
	if (!strcmp(op, "truncate"))
		return truncate(a, 0);
	if (!strcmp(op, "rename"))
		return rename(a, b);
	if (!strcmp(op, "renameat"))
		return renameat(AT_FDCWD, a, AT_FDCWD, b);
	if (!strcmp(op, "renameat2"))
		return renameat2(AT_FDCWD, a, AT_FDCWD, b, 0);
	if (!strcmp(op, "exchange"))
		return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
	if (!strcmp(op, "link"))
		return link(a, b);
	if (!strcmp(op, "linkat"))
		return linkat(AT_FDCWD, a, AT_FDCWD, b, 0);
	if (!strcmp(op, "symlink"))
		return symlink(a, b);
	if (!strcmp(op, "unlink"))
		return unlink(a);
	if (!strcmp(op, "unlinkat"))
		return unlinkat(AT_FDCWD, a, 0);
	fprintf(stderr, "guardprobe: unknown operation %s\n", op);
	exit(2);
}

int main(int argc, char **argv)
{
	int i = 1;

	while (i < argc) {
		const char *op = argv[i];
		int n = nargs(op);

		if (i + n >= argc) {
			fprintf(stderr, "guardprobe: %s needs %d argument(s)\n", op, n);
			return 2;
		}
		if (run(op, argv[i + 1], n == 2 ? argv[i + 2] : NULL)) {
			fprintf(stderr, "guardprobe: %s %s%s%s: %s\n", op, argv[i + 1],
				n == 2 ? " " : "", n == 2 ? argv[i + 2] : "",
				strerror(errno));
			return 1;
		}
		i += n + 1;
	}
	return 0;
}
