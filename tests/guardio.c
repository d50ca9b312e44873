/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guardio - an LD_PRELOAD interposer that fails the process the moment it
 * would write to something it read (issue 12: the input is never written).
 *
 * Every regular file or block device the process opens read-only becomes
 * "evidence", and so does every path in HIBIMG_GUARD_PATHS (colon-separated,
 * resolved when the first guarded call is made). From then on a call that
 * would write to evidence prints
 *
 *   hibimg-guard: CALL would write the input PATH (opened read-only earlier)
 *
 * on stderr and ends the process with _exit(88) before the call is made:
 *   - an open (open, open64, openat, openat64, __open_2, __open64_2,
 *     __openat_2, __openat64_2, creat, creat64, fopen, fopen64, freopen,
 *     freopen64, truncate, truncate64) asking for write access (O_WRONLY,
 *     O_RDWR, O_TRUNC, O_APPEND; fopen modes w, a, +) to evidence;
 *   - a rename, renameat, renameat2, link, linkat, symlink, unlink or
 *     unlinkat whose target (the new path; for unlink the path) names
 *     evidence (RENAME_EXCHANGE: either path).
 *
 * "The same evidence", for a target T and an evidence entry E (stat of the
 * target, following symlinks, against fstat of the descriptor E was opened on):
 *   - the same inode (st_dev and st_ino);
 *   - two block devices: the same st_rdev, or one the whole disk of the other
 *     (realpath of /sys/dev/block/MAJ:MIN of one is a directory prefix of the
 *     other's), or loop devices with the same backing file;
 *   - a block device and a regular file: the file backs the loop device (or
 *     the loop device whose partition it is), read from
 *     /sys/block/loopN/loop/backing_file; or the file lives on the device
 *     (its st_dev is that device or one of its partitions, or its whole
 *     disk). A name that does not exist yet counts as a new file on the
 *     device of its directory.
 *
 * It is a test oracle, kept simple and independent of lib/: no knowledge of
 * hibimg. Built without sanitizers, and it tolerates being preloaded into an
 * ASan binary (ASAN_OPTIONS=verify_asan_link_order=0). Files on procfs and
 * sysfs are never evidence. It calls only the next definitions (dlsym
 * RTLD_NEXT) and reads sysfs with raw system calls, so it never re-enters
 * itself.
 */
#undef _FORTIFY_SOURCE     /* no inline open() wrappers in the way */
#undef _FILE_OFFSET_BITS   /* open is open, open64 is open64 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#define PROC_MAGIC  0x9fa0
#define SYSFS_MAGIC 0x62656572

#define MAX_EVIDENCE 1024
#define GUARD_EXIT 88

struct evidence {
	dev_t dev;
	ino_t ino;
	dev_t rdev;
	mode_t type;      /* S_IFREG or S_IFBLK */
	char path[256];   /* as the process named it, for the message */
};

static struct evidence ev[MAX_EVIDENCE];
static int nev;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define NEXT(name) ({ \
	static void *fn_; \
	void *f_ = __atomic_load_n(&fn_, __ATOMIC_ACQUIRE); \
	if (!f_) { \
		f_ = dlsym(RTLD_NEXT, name); \
		__atomic_store_n(&fn_, f_, __ATOMIC_RELEASE); \
	} \
	if (!f_) \
		die_missing(name); \
	f_; })

static void say(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(2, s, n);

		if (w <= 0)
			break;
		s += w;
		n -= (size_t)w;
	}
}

static void die_missing(const char *name)
{
	say("hibimg-guard: no next definition of ");
	say(name);
	say("\n");
	_exit(GUARD_EXIT);
}

static void violation(const char *call, const char *evpath, const char *target)
{
	say("hibimg-guard: ");
	say(call);
	say(" would write the input ");
	say(evpath);
	say(" (opened read-only earlier)");
	if (target && strcmp(target, evpath)) {
		say(" as ");
		say(target);
	}
	say("\n");
	_exit(GUARD_EXIT);
}

/* --- evidence table ------------------------------------------------------ */

static void add_stat(const struct stat *st, const char *path)
{
	int i;

	if (!S_ISREG(st->st_mode) && !S_ISBLK(st->st_mode))
		return;
	pthread_mutex_lock(&lock);
	for (i = 0; i < nev; i++)
		if (ev[i].dev == st->st_dev && ev[i].ino == st->st_ino)
			break;
	if (i == nev) {
		if (nev == MAX_EVIDENCE) {
			pthread_mutex_unlock(&lock);
			say("hibimg-guard: more than 1024 read-only inputs, cannot guard them all\n");
			_exit(GUARD_EXIT);
		}
		ev[i].dev = st->st_dev;
		ev[i].ino = st->st_ino;
		ev[i].rdev = st->st_rdev;
		ev[i].type = st->st_mode & S_IFMT;
		snprintf(ev[i].path, sizeof(ev[i].path), "%s", path ? path : "?");
		nev++;
	}
	pthread_mutex_unlock(&lock);
}

static void add_fd(int fd, const char *path)
{
	struct stat st;
	struct statfs sf;

	if (fd < 0 || fstat(fd, &st))
		return;
	if (S_ISREG(st.st_mode) && !fstatfs(fd, &sf) &&
	    (sf.f_type == PROC_MAGIC || sf.f_type == SYSFS_MAGIC))
		return;
	add_stat(&st, path);
}

static void init_paths(void)
{
	const char *env = getenv("HIBIMG_GUARD_PATHS");
	char one[PATH_MAX];

	while (env && *env) {
		const char *end = strchr(env, ':');
		size_t n = end ? (size_t)(end - env) : strlen(env);
		struct stat st;

		if (n && n < sizeof(one)) {
			memcpy(one, env, n);
			one[n] = 0;
			if (!stat(one, &st))
				add_stat(&st, one);
		}
		env += n + (end ? 1 : 0);
	}
}

static void init(void)
{
	pthread_once(&once, init_paths);
}

/* --- block devices ----------------------------------------------------- */

/* realpath of /sys/dev/block/MAJ:MIN; 0 when there is one */
static int sysdir(dev_t d, char *out)
{
	char p[64];

	if (!major(d) && !minor(d))
		return -1;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", major(d), minor(d));
	return realpath(p, out) ? 0 : -1;
}

/* a is b, or a directory above it */
static int prefix_dir(const char *a, const char *b)
{
	size_t n = strlen(a);

	return !strncmp(a, b, n) && (b[n] == 0 || b[n] == '/');
}

static int raw_read(const char *path, char *buf, size_t size)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return -1;
	n = syscall(SYS_read, (int)fd, buf, size - 1);
	syscall(SYS_close, (int)fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static int raw_exists(const char *path)
{
	return syscall(SYS_faccessat, AT_FDCWD, path, F_OK) == 0;
}

/*
 * The file backing loop device d; with parts, also the file backing the loop
 * device d is a partition of.
 */
static int backing(dev_t d, int parts, struct stat *out)
{
	char dir[PATH_MAX], p[PATH_MAX + 32], file[PATH_MAX];
	char *nl;

	if (sysdir(d, dir))
		return -1;
	snprintf(p, sizeof(p), "%s/partition", dir);
	if (parts && raw_exists(p)) {
		char *slash = strrchr(dir, '/');

		if (slash)
			*slash = 0;
	}
	snprintf(p, sizeof(p), "%s/loop/backing_file", dir);
	if (raw_read(p, file, sizeof(file)))
		return -1;
	nl = strchr(file, '\n');
	if (nl)
		*nl = 0;
	return file[0] && !stat(file, out) ? 0 : -1;
}

/* the same device, or a partition and its whole disk either way */
static int blk_related(dev_t a, dev_t b)
{
	char da[PATH_MAX], db[PATH_MAX];

	if (a == b)
		return 1;
	if (sysdir(a, da) || sysdir(b, db))
		return 0;
	return prefix_dir(da, db) || prefix_dir(db, da);
}

static int same_inode(const struct stat *a, dev_t dev, ino_t ino)
{
	return a->st_dev == dev && a->st_ino == ino;
}

/* does writing t write evidence e? */
static int same_evidence(const struct stat *t, const struct evidence *e)
{
	struct stat b, c;

	if (same_inode(t, e->dev, e->ino))
		return 1;
	/* two loop devices on one file; two partitions of one are not the same */
	if (S_ISBLK(t->st_mode) && e->type == S_IFBLK)
		return blk_related(t->st_rdev, e->rdev) ||
		       (!backing(t->st_rdev, 0, &b) && !backing(e->rdev, 0, &c) &&
			same_inode(&b, c.st_dev, c.st_ino));
	if (S_ISBLK(t->st_mode) && e->type == S_IFREG)
		return (!backing(t->st_rdev, 1, &b) && same_inode(&b, e->dev, e->ino)) ||
		       (major(e->dev) && blk_related(t->st_rdev, e->dev));
	if (S_ISREG(t->st_mode) && e->type == S_IFBLK)
		return (!backing(e->rdev, 1, &b) && same_inode(&b, t->st_dev, t->st_ino)) ||
		       (major(t->st_dev) && blk_related(t->st_dev, e->rdev));
	return 0;
}

static void check_stat(const char *call, const struct stat *t, const char *target)
{
	struct evidence snap;
	int i;

	if (!S_ISREG(t->st_mode) && !S_ISBLK(t->st_mode))
		return;
	for (i = 0;; i++) {
		pthread_mutex_lock(&lock);
		if (i >= nev) {
			pthread_mutex_unlock(&lock);
			return;
		}
		snap = ev[i];
		pthread_mutex_unlock(&lock);
		if (same_evidence(t, &snap))
			violation(call, snap.path, target);
	}
}

/*
 * A write to dirfd/path (following symlinks). A name that does not exist yet
 * is created in its directory: that writes the device the directory is on,
 * which must not be (or be on) a block device read.
 */
static void check_path(const char *call, int dirfd, const char *path)
{
	struct stat st;
	char dir[PATH_MAX], *slash;

	init();
	if (!path)
		return;
	if (!fstatat(dirfd, path, &st, 0)) {
		check_stat(call, &st, path);
		return;
	}
	if (errno != ENOENT || strlen(path) >= sizeof(dir))
		return;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else
		slash[slash == dir] = 0;
	if (!fstatat(dirfd, dir, &st, 0) && major(st.st_dev)) {
		st.st_mode = S_IFREG;   /* a new file on that device */
		st.st_ino = 0;
		check_stat(call, &st, path);
	}
}

static int writes(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_TRUNC | O_APPEND));
}

static int needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

static int mode_writes(const char *mode)
{
	return mode && strpbrk(mode, "wa+") != NULL;
}

/* --- open and friends ------------------------------------------------------ */

typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open_fn)(const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);

static int guarded_open(const char *call, int dirfd, const char *path, int flags)
{
	if (writes(flags))
		check_path(call, dirfd, path);
	else
		init();
	return 0;
}

static int after_open(int fd, const char *path, int flags)
{
	if (fd >= 0 && !writes(flags)) {
		int saved = errno;

		add_fd(fd, path);
		errno = saved;
	}
	return fd;
}

#define OPEN_VA(name)                                                        \
int name(const char *path, int flags, ...)                                   \
{                                                                            \
	mode_t mode = 0;                                                     \
	if (needs_mode(flags)) {                                             \
		va_list ap;                                                  \
		va_start(ap, flags);                                         \
		mode = va_arg(ap, mode_t);                                   \
		va_end(ap);                                                  \
	}                                                                    \
	guarded_open(#name, AT_FDCWD, path, flags);                          \
	return after_open(((open_fn)NEXT(#name))(path, flags, mode), path,  \
			  flags);                                            \
}

#define OPENAT_VA(name)                                                      \
int name(int dirfd, const char *path, int flags, ...)                        \
{                                                                            \
	mode_t mode = 0;                                                     \
	if (needs_mode(flags)) {                                             \
		va_list ap;                                                  \
		va_start(ap, flags);                                         \
		mode = va_arg(ap, mode_t);                                   \
		va_end(ap);                                                  \
	}                                                                    \
	guarded_open(#name, dirfd, path, flags);                             \
	return after_open(((openat_fn)NEXT(#name))(dirfd, path, flags, mode),\
			  path, flags);                                      \
}

#define OPEN_2(name)                                                         \
int name(const char *path, int flags)                                        \
{                                                                            \
	guarded_open(#name, AT_FDCWD, path, flags);                          \
	return after_open(((open2_fn)NEXT(#name))(path, flags), path, flags); \
}

#define OPENAT_2(name)                                                       \
int name(int dirfd, const char *path, int flags)                             \
{                                                                            \
	guarded_open(#name, dirfd, path, flags);                             \
	return after_open(((openat2_fn)NEXT(#name))(dirfd, path, flags),     \
			  path, flags);                                      \
}

/* the headers may declare some of these with other attributes; these are
 * plain definitions of the exported symbols */
#undef open
#undef open64
#undef openat
#undef openat64
#undef creat
#undef creat64
#undef fopen
#undef fopen64
#undef freopen
#undef freopen64
#undef truncate
#undef truncate64

OPEN_VA(open)
OPEN_VA(open64)
OPENAT_VA(openat)
OPENAT_VA(openat64)
OPEN_2(__open_2)
OPEN_2(__open64_2)
OPENAT_2(__openat_2)
OPENAT_2(__openat64_2)

#define CREAT(name)                                                          \
int name(const char *path, mode_t mode)                                      \
{                                                                            \
	typedef int (*fn)(const char *, mode_t);                             \
	check_path(#name, AT_FDCWD, path);                                   \
	return ((fn)NEXT(#name))(path, mode);                                \
}
CREAT(creat)
CREAT(creat64)

#define FOPEN(name)                                                          \
FILE *name(const char *path, const char *mode)                               \
{                                                                            \
	typedef FILE *(*fn)(const char *, const char *);                     \
	FILE *f;                                                             \
	if (mode_writes(mode))                                               \
		check_path(#name, AT_FDCWD, path);                           \
	else                                                                 \
		init();                                                      \
	f = ((fn)NEXT(#name))(path, mode);                                   \
	if (f && !mode_writes(mode)) {                                       \
		int saved = errno;                                           \
		add_fd(fileno(f), path);                                     \
		errno = saved;                                               \
	}                                                                    \
	return f;                                                            \
}
FOPEN(fopen)
FOPEN(fopen64)

#define FREOPEN(name)                                                        \
FILE *name(const char *path, const char *mode, FILE *stream)                 \
{                                                                            \
	typedef FILE *(*fn)(const char *, const char *, FILE *);             \
	FILE *f;                                                             \
	struct stat st;                                                      \
	init();                                                              \
	if (mode_writes(mode)) {                                             \
		if (path)                                                    \
			check_path(#name, AT_FDCWD, path);                   \
		else if (stream && !fstat(fileno(stream), &st))              \
			check_stat(#name, &st, NULL);                        \
	}                                                                    \
	f = ((fn)NEXT(#name))(path, mode, stream);                           \
	if (f && !mode_writes(mode)) {                                       \
		int saved = errno;                                           \
		add_fd(fileno(f), path);                                     \
		errno = saved;                                               \
	}                                                                    \
	return f;                                                            \
}
FREOPEN(freopen)
FREOPEN(freopen64)

#define TRUNCATE(name, off)                                                  \
int name(const char *path, off len)                                          \
{                                                                            \
	typedef int (*fn)(const char *, off);                                \
	check_path(#name, AT_FDCWD, path);                                   \
	return ((fn)NEXT(#name))(path, len);                                 \
}
TRUNCATE(truncate, off_t)
TRUNCATE(truncate64, off64_t)

/* --- names: the target must not be evidence -------------------------------- */

int rename(const char *old, const char *new)
{
	typedef int (*fn)(const char *, const char *);

	check_path("rename", AT_FDCWD, new);
	return ((fn)NEXT("rename"))(old, new);
}

int renameat(int olddir, const char *old, int newdir, const char *new)
{
	typedef int (*fn)(int, const char *, int, const char *);

	check_path("renameat", newdir, new);
	return ((fn)NEXT("renameat"))(olddir, old, newdir, new);
}

int renameat2(int olddir, const char *old, int newdir, const char *new,
	      unsigned int flags)
{
	typedef int (*fn)(int, const char *, int, const char *, unsigned int);

	check_path("renameat2", newdir, new);
	if (flags & RENAME_EXCHANGE)
		check_path("renameat2", olddir, old);
	return ((fn)NEXT("renameat2"))(olddir, old, newdir, new, flags);
}

int link(const char *old, const char *new)
{
	typedef int (*fn)(const char *, const char *);

	check_path("link", AT_FDCWD, new);
	return ((fn)NEXT("link"))(old, new);
}

int linkat(int olddir, const char *old, int newdir, const char *new, int flags)
{
	typedef int (*fn)(int, const char *, int, const char *, int);

	check_path("linkat", newdir, new);
	return ((fn)NEXT("linkat"))(olddir, old, newdir, new, flags);
}

int symlink(const char *target, const char *linkpath)
{
	typedef int (*fn)(const char *, const char *);

	check_path("symlink", AT_FDCWD, linkpath);
	return ((fn)NEXT("symlink"))(target, linkpath);
}

int unlink(const char *path)
{
	typedef int (*fn)(const char *);

	check_path("unlink", AT_FDCWD, path);
	return ((fn)NEXT("unlink"))(path);
}

int unlinkat(int dirfd, const char *path, int flags)
{
	typedef int (*fn)(int, const char *, int);

	check_path("unlinkat", dirfd, path);
	return ((fn)NEXT("unlinkat"))(dirfd, path, flags);
}
