/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultio - an LD_PRELOAD interposer that makes reads of one file fail at a
 * chosen byte offset, to test how hibimg reports I/O errors.
 *
 *   HIBIMG_FAULT_PATH=FILE    the file (compared by inode) to fault
 *   HIBIMG_FAULT_OFFSET=N     a read covering byte N fails...
 *   HIBIMG_FAULT_MODE=eio     ...with EIO (default), or
 *                 short       ...returns only the bytes before N
 *   HIBIMG_FAULT_NO_TMPFILE=1 open(O_TMPFILE) fails with EOPNOTSUPP, as on a
 *                             file system without it (the named-temporary
 *                             path of lib/outfile.c)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
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

/* O_TMPFILE includes O_DIRECTORY: test the whole mask. */
static int no_tmpfile(int flags)
{
	return (flags & O_TMPFILE) == O_TMPFILE && getenv("HIBIMG_FAULT_NO_TMPFILE");
}

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static int do_open(const char *sym, const char *p, int flags, mode_t mode)
{
	open_fn real = (open_fn)dlsym(RTLD_NEXT, sym);

	if (no_tmpfile(flags)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return real(p, flags, mode);
}

static int do_openat(const char *sym, int dfd, const char *p, int flags, mode_t mode)
{
	openat_fn real = (openat_fn)dlsym(RTLD_NEXT, sym);

	if (no_tmpfile(flags)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return real(dfd, p, flags, mode);
}

#define MODE_ARG(flags, mode)						\
	do {								\
		va_list ap;						\
		va_start(ap, flags);					\
		mode = ((flags) & O_CREAT) || ((flags) & O_TMPFILE) == O_TMPFILE ? \
		       (mode_t)va_arg(ap, int) : 0;			\
		va_end(ap);						\
	} while (0)

int open(const char *p, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return do_open("open", p, flags, mode);
}

int open64(const char *p, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return do_open("open64", p, flags, mode);
}

int openat(int dfd, const char *p, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return do_openat("openat", dfd, p, flags, mode);
}

int openat64(int dfd, const char *p, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return do_openat("openat64", dfd, p, flags, mode);
}
