/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultio - an LD_PRELOAD interposer that makes reads of one file fail at a
 * chosen byte offset, to test how hibimg reports I/O errors.
 *
 *   HIBIMG_FAULT_PATH=FILE    the file (compared by inode) to fault
 *   HIBIMG_FAULT_OFFSET=N     a read covering byte N fails...
 *   HIBIMG_FAULT_MODE=eio     ...with EIO (default), or
 *                 short       ...returns only the bytes before N
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

static int hit(int fd, off_t off, size_t len, size_t *before)
{
	const char *p = getenv("HIBIMG_FAULT_PATH"), *o = getenv("HIBIMG_FAULT_OFFSET");
	struct stat a, b;
	unsigned long long n;

	if (!p || !o || fstat(fd, &a) || stat(p, &b) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return 0;
	n = strtoull(o, NULL, 0);
	if ((unsigned long long)off > n || (unsigned long long)off + len <= n)
		return 0;
	*before = (size_t)(n - (unsigned long long)off);
	return 1;
}

static ssize_t faulty(pread_fn real, int fd, void *buf, size_t len, off_t off)
{
	size_t before;
	const char *m = getenv("HIBIMG_FAULT_MODE");

	if (!hit(fd, off, len, &before))
		return real(fd, buf, len, off);
	if (m && !strcmp(m, "short")) {
		if (!before)
			return 0;
		return real(fd, buf, before, off);
	}
	errno = EIO;
	return -1;
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	static pread_fn real;

	if (!real)
		real = (pread_fn)dlsym(RTLD_NEXT, "pread");
	return faulty(real, fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
	static pread_fn real;

	if (!real)
		real = (pread_fn)dlsym(RTLD_NEXT, "pread64");
	return faulty(real, fd, buf, len, off);
}
