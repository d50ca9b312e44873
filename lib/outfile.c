/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * outfile.c - the one way anything hibimg writes gets written (the rules are
 * in hibimg.h and hibimg(1), "Outputs").
 *
 * A new file is made unnamed (O_TMPFILE) in the target's directory and
 * linked under its name only once it is complete and synced: a process
 * killed at any point, SIGKILL included, leaves nothing. Where the file
 * system has no O_TMPFILE it gets a temporary name that the caller's signal
 * handler removes (hib_output_signal_cleanup()); only SIGKILL can leave that
 * one behind. An existing file is replaced by rename() over it, so it stays
 * whole until the new one is.
 */
#include "hibimgP.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

enum out_kind { OUT_FILE, OUT_DEVICE, OUT_STDOUT };

struct hib_output {
	struct hib_image *img;
	char *path;
	char *dir;
	enum out_kind kind;
	int fd;
	bool unnamed;               /* O_TMPFILE: no name until commit */
	bool replace;               /* an existing file is replaced at commit */
	int slot;                   /* temporary name registered here, -1 none */
	bool in_order;              /* HIB_OUTPUT_STREAM */
	bool have_ev;               /* ev computed (sysfs walked) */
	struct hib_evidence ev;     /* the input's, once per open */
	uint64_t pos;               /* end of the last write (in order) */
};

/* ---- temporary names a signal handler may have to remove ----------------- */

#define LIVE_MAX 16
static char *volatile live[LIVE_MAX];

static int live_add(char *name)
{
	int i;

	for (i = 0; i < LIVE_MAX; i++)
		if (__sync_bool_compare_and_swap(&live[i], NULL, name))
			return i;
	return -1;
}

static void live_del(int i)
{
	if (i >= 0)
		live[i] = NULL;
}

void hib_output_signal_cleanup(void)
{
	int i;

	for (i = 0; i < LIVE_MAX; i++) {
		char *n = live[i];

		if (n)
			unlink(n);
	}
}

/* ---- checks ---------------------------------------------------------------- */

static const char *devname_of(dev_t d, char *buf, size_t cap)
{
	char p[80], line[128];
	FILE *f;

	snprintf(buf, cap, "device %u:%u", major(d), minor(d));
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/uevent", major(d), minor(d));
	f = fopen(p, "re");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, cap, "/dev/%.80s", line + 8);
			break;
		}
	fclose(f);
	return buf;
}

/* The input's evidence against what out would write: st is the existing
 * target (or NULL), dirst the file system it would land on (or NULL). */
static int not_evidence(struct hib_output *o, const char *what,
			const struct stat *st, const struct stat *dirst)
{
	struct hib_image *img = o->img;
	struct hib_evidence *ev = &o->ev;
	struct stat in, sf;
	char name[96];

	if (!img || img->fd < 0 || fstat(img->fd, &in) < 0)
		return HIB_OK;
	if (st && ((S_ISBLK(in.st_mode) && S_ISBLK(st->st_mode) && in.st_rdev == st->st_rdev) ||
		   (!S_ISBLK(in.st_mode) && in.st_dev == st->st_dev && in.st_ino == st->st_ino)))
		return hib_seterr(img, HIB_ERR_INVAL,
				  "%s is the input itself: refusing to write over the evidence",
				  what);
	if (st && !S_ISBLK(st->st_mode) && img->in_place && fstat(img->sw_file_fd, &sf) == 0 &&
	    sf.st_dev == st->st_dev && sf.st_ino == st->st_ino)
		return hib_seterr(img, HIB_ERR_INVAL,
				  "%s is the input itself (the swap file read in place): refusing to write over the evidence",
				  what);
	if (!o->have_ev) {
		hib_image_evidence(img, ev, &in);
		o->have_ev = true;
	}
	if (st && S_ISBLK(st->st_mode) && hib_evidence_has_dev(ev, st->st_rdev))
		return hib_seterr(img, HIB_ERR_INVAL,
				  "%s holds the input %s or is part of it: refusing to write over the evidence",
				  what, img->path);
	if (st && !S_ISBLK(st->st_mode) && hib_evidence_has_inode(ev, st->st_dev, st->st_ino))
		return hib_seterr(img, HIB_ERR_INVAL,
				  "%s is the file behind the input %s (a loop device): refusing to write over the evidence",
				  what, img->path);
	if (dirst && hib_evidence_has_dev(ev, dirst->st_dev))
		return hib_seterr(img, HIB_ERR_INVAL,
				  "%s is on a file system on %s, which holds the input %s or is part of it: refusing to write over the evidence",
				  what, devname_of(dirst->st_dev, name, sizeof(name)), img->path);
	return HIB_OK;
}

static bool listed_dev(const char *file, dev_t d, bool swaps)
{
	char line[4096];
	FILE *f = fopen(file, "re");
	bool hit = false;

	if (!f)
		return false;
	while (!hit && fgets(line, sizeof(line), f)) {
		unsigned int ma, mi;
		char path[4096];
		struct stat st;

		if (swaps) {
			/* "Filename Type Size Used Priority" */
			if (sscanf(line, "%4095s", path) == 1 && path[0] == '/' &&
			    stat(path, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == d)
				hit = true;
		} else if (sscanf(line, "%*s %*s %u:%u", &ma, &mi) == 2 &&
			   makedev(ma, mi) == d) {
			hit = true;     /* mountinfo: field 3 is MAJ:MIN */
		}
	}
	fclose(f);
	return hit;
}

/* A device a file system or a swap lives on, directly or through a
 * partition, loop or dm device on it, is in use. */
static int device_free(struct hib_output *o, dev_t d)
{
	struct hib_evidence down;
	char name[96];
	unsigned int i;

	hib_evidence_down(&down, d);
	for (i = 0; i < down.ndevs; i++) {
		bool sw = listed_dev("/proc/swaps", down.devs[i], true);

		if (sw || listed_dev("/proc/self/mountinfo", down.devs[i], false))
			return hib_seterr(o->img, HIB_ERR_INVAL,
					  "%s is in use: %s is %s", o->path,
					  devname_of(down.devs[i], name, sizeof(name)),
					  sw ? "an active swap area" : "mounted");
	}
	return HIB_OK;
}

/* ---- opening ---------------------------------------------------------------- */

static int open_stdout(struct hib_output *o, unsigned int flags)
{
	struct stat st;
	int rc;

	if (!(flags & HIB_OUTPUT_STREAM))
		return hib_seterr(o->img, HIB_ERR_INVAL,
				  "'-' would be standard output, which this output cannot go to (it is not written in order); name a file (./- for a file named '-')");
	if (isatty(STDOUT_FILENO))
		return hib_seterr(o->img, HIB_ERR_INVAL,
				  "refusing to write binary data to a terminal: redirect standard output or name a file");
	if (fstat(STDOUT_FILENO, &st) < 0)
		return hib_seterr(o->img, HIB_ERR_IO, "standard output: %s", strerror(errno));
	rc = not_evidence(o, "standard output", &st, NULL);
	if (rc)
		return rc;
	if (S_ISBLK(st.st_mode) && !(flags & HIB_OUTPUT_DEVICE))
		return hib_seterr(o->img, HIB_ERR_INVAL, (flags & HIB_OUTPUT_DEVICE_OK) ?
				  "standard output is a block device: writing to a device needs --device" :
				  "standard output is a block device, not a file or a pipe");
	o->kind = OUT_STDOUT;
	o->fd = STDOUT_FILENO;
	return HIB_OK;
}

static int open_device(struct hib_output *o, const struct stat *st, uint64_t min_size)
{
	uint64_t sz = 0;
	int rc;

	if (!S_ISBLK(st->st_mode))
		return hib_seterr(o->img, HIB_ERR_INVAL, "%s is not a block device", o->path);
	rc = device_free(o, st->st_rdev);
	if (rc)
		return rc;
	/* O_EXCL: the kernel refuses a device something else holds */
	o->fd = open(o->path, O_WRONLY | O_EXCL | O_CLOEXEC);
	if (o->fd < 0)
		return hib_seterr(o->img, errno == EBUSY ? HIB_ERR_INVAL : HIB_ERR_IO,
				  "cannot open %s: %s", o->path, strerror(errno));
	if (ioctl(o->fd, BLKGETSIZE64, &sz) < 0 || sz < min_size)
		return hib_seterr(o->img, HIB_ERR_INVAL,
				  "%s is smaller than needed (%" PRIu64 " bytes)",
				  o->path, min_size);
	o->kind = OUT_DEVICE;
	return HIB_OK;
}

/* Refused by permissions or a read-only file system: a usage matter (2);
 * anything else, ENOSPC included, an I/O error (3). */
static int create_err(struct hib_output *o, int e)
{
	return hib_seterr(o->img, (e == EACCES || e == EROFS || e == EPERM) ?
			  HIB_ERR_INVAL : HIB_ERR_IO,
			  "cannot create %s: %s", o->path, strerror(e));
}

static int open_file(struct hib_output *o)
{
	struct hib_image *img = o->img;
	char *tmp;
	int e;

	o->fd = open(o->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (o->fd >= 0) {
		o->unnamed = true;
		return HIB_OK;
	}
	e = errno;
	if (e != EOPNOTSUPP && e != EISDIR && e != EINVAL && e != ENOENT)
		return create_err(o, e);
	if (asprintf(&tmp, "%s.hibimg-XXXXXX", o->path) < 0)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	/* Images and memory dumps hold keys and passwords: owner only. */
	o->fd = mkostemp(tmp, O_CLOEXEC);
	if (o->fd < 0) {
		e = errno;
		free(tmp);
		return create_err(o, e);
	}
	o->slot = live_add(tmp);
	if (o->slot < 0) {
		unlink(tmp);
		free(tmp);
		return hib_seterr(img, HIB_ERR_NOMEM, "too many outputs open at once");
	}
	return HIB_OK;
}

int hib_output_open(struct hib_image *img, const char *path, unsigned int flags,
		    uint64_t min_size, struct hib_output **out)
{
	struct hib_output *o;
	struct stat st, lst, dirst;
	bool exists;
	char *slash;
	int rc;

	*out = NULL;
	if (!path || !*path)
		return hib_seterr(img, HIB_ERR_INVAL, "no output named");
	o = calloc(1, sizeof(*o));
	if (!o || !(o->path = strdup(path))) {
		free(o);
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	o->img = img;
	o->fd = -1;
	o->slot = -1;
	o->in_order = flags & HIB_OUTPUT_STREAM;

	if (!strcmp(path, "-")) {
		rc = open_stdout(o, flags);
		goto done;
	}
	exists = stat(path, &st) == 0;
	if (!exists && errno != ENOENT) {
		rc = hib_seterr(img, HIB_ERR_IO, "cannot stat %s: %s", path, strerror(errno));
		goto done;
	}
	if (!exists && lstat(path, &lst) == 0) {
		rc = hib_seterr(img, HIB_ERR_INVAL,
				"%s is a dangling symbolic link: refusing to write through it", path);
		goto done;
	}
	if (exists && (rc = not_evidence(o, path, &st, NULL)))
		goto done;
	if (flags & HIB_OUTPUT_DEVICE) {
		rc = exists ? open_device(o, &st, min_size) :
		     hib_seterr(img, HIB_ERR_INVAL, "%s: no such device", path);
		goto done;
	}
	if (exists) {
		if (S_ISBLK(st.st_mode))
			rc = hib_seterr(img, HIB_ERR_INVAL, (flags & HIB_OUTPUT_DEVICE_OK) ?
					"%s is a block device: writing to a device needs --device" :
					"%s is a block device, not a file", path);
		else if (S_ISDIR(st.st_mode))
			rc = hib_seterr(img, HIB_ERR_INVAL, "%s is a directory", path);
		else if (!S_ISREG(st.st_mode))
			rc = hib_seterr(img, HIB_ERR_INVAL, "%s exists and is not a regular file", path);
		else if (!(flags & HIB_OUTPUT_FORCE))
			rc = hib_seterr(img, HIB_ERR_INVAL,
					"%s exists: refusing to replace it without --force", path);
		else
			rc = HIB_OK;
		if (rc)
			goto done;
		o->replace = true;
	}

	o->dir = strdup(path);
	if (!o->dir) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto done;
	}
	slash = strrchr(o->dir, '/');
	if (!slash)
		strcpy(o->dir, ".");
	else if (slash == o->dir)
		slash[1] = 0;
	else
		*slash = 0;
	if (stat(o->dir, &dirst) < 0 || !S_ISDIR(dirst.st_mode)) {
		rc = hib_seterr(img, HIB_ERR_INVAL, "cannot create %s: %s is not a directory",
				path, o->dir);
		goto done;
	}
	rc = not_evidence(o, path, NULL, &dirst);
	if (rc == HIB_OK)
		rc = open_file(o);
	o->kind = OUT_FILE;
done:
	if (rc) {
		(void)hib_output_close(o, rc);
		return rc;
	}
	*out = o;
	return HIB_OK;
}

/* ---- writing ---------------------------------------------------------------- */

static int write_all(struct hib_output *o, const unsigned char *p, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = o->kind == OUT_STDOUT ?
			    write(o->fd, p + done, len - done) :
			    pwrite(o->fd, p + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return hib_seterr(o->img, HIB_ERR_IO,
					  "write error on %s at offset 0x%" PRIx64 ": %s",
					  o->kind == OUT_STDOUT ? "standard output" : o->path,
					  off + done,
					  n < 0 ? strerror(errno) : "no progress");
		done += (size_t)n;
	}
	if (o->in_order)
		o->pos = off + len;
	return HIB_OK;
}

static int zero_fill(struct hib_output *o, uint64_t to)
{
	static const unsigned char zeros[65536];
	int rc = HIB_OK;

	while (rc == HIB_OK && o->pos < to) {
		uint64_t n = to - o->pos < sizeof(zeros) ? to - o->pos : sizeof(zeros);

		rc = write_all(o, zeros, (size_t)n, o->pos);
	}
	return rc;
}

int hib_output_pwrite(struct hib_output *o, const void *buf, size_t len, uint64_t off)
{
	int rc;

	if (!o->in_order)
		return write_all(o, buf, len, off);
	if (off < o->pos)
		return hib_seterr(o->img, HIB_ERR_INVAL,
				  "internal: %s written out of order (offset 0x%" PRIx64 " after 0x%" PRIx64 ")",
				  hib_output_path(o), off,
				  o->pos);
	/* a file keeps the gap as a hole; elsewhere it has to be written */
	rc = o->kind == OUT_FILE ? HIB_OK : zero_fill(o, off);
	return rc ? rc : write_all(o, buf, len, off);
}

int hib_output_set_size(struct hib_output *o, uint64_t size)
{
	switch (o->kind) {
	case OUT_STDOUT:
	case OUT_DEVICE:
		if (!o->in_order)
			return HIB_OK;
		if (o->pos > size)
			return hib_seterr(o->img, HIB_ERR_INVAL,
					  "internal: %" PRIu64 " bytes written to %s, more than its size %" PRIu64,
					  o->pos, hib_output_path(o),
					  size);
		return zero_fill(o, size);
	default:
		if (ftruncate(o->fd, (off_t)size) < 0)
			return hib_seterr(o->img, HIB_ERR_IO, "cannot size %s: %s", o->path,
					  strerror(errno));
		return HIB_OK;
	}
}

const char *hib_output_path(const struct hib_output *o)
{
	return o->kind == OUT_STDOUT ? "standard output" : o->path;
}

/* ---- completing -------------------------------------------------------------- */

/* Gives the unnamed file a name; EEXIST when the name is taken. */
static int link_unnamed(int fd, const char *name)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, p, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != ENOENT)
		return -1;
	/* no /proc: needs CAP_DAC_READ_SEARCH */
	return linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
}

static int rename_noreplace(const char *from, const char *to)
{
#ifdef SYS_renameat2
	if (syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
#endif
	if (link(from, to) < 0)
		return -1;
	unlink(from);
	return 0;
}

static int name_file(struct hib_output *o)
{
	struct hib_image *img = o->img;
	char *tmp = NULL;
	int r, i;

	if (o->unnamed && !o->replace) {
		if (link_unnamed(o->fd, o->path) == 0)
			return HIB_OK;
		if (errno == EEXIST)
			return hib_seterr(img, HIB_ERR_INVAL,
					  "%s appeared while it was being written: left as it is, the output is discarded",
					  o->path);
		return hib_seterr(img, HIB_ERR_IO, "cannot create %s: %s", o->path,
				  strerror(errno));
	}
	if (o->unnamed) {
		/* rename() is the only atomic replacement: a name first */
		for (i = 0; i < 100 && !tmp; i++) {
			if (asprintf(&tmp, "%s.hibimg-%06x", o->path,
				     (unsigned int)(random() ^ getpid() ^ i) & 0xffffff) < 0)
				return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
			o->slot = live_add(tmp);
			if (link_unnamed(o->fd, tmp) == 0)
				break;
			r = errno;
			live_del(o->slot);
			o->slot = -1;
			free(tmp);
			tmp = NULL;
			if (r != EEXIST)
				return hib_seterr(img, HIB_ERR_IO, "cannot create a file next to %s: %s",
						  o->path, strerror(r));
		}
		if (!tmp)
			return hib_seterr(img, HIB_ERR_IO, "cannot name a file next to %s", o->path);
	} else {
		tmp = live[o->slot];
	}
	r = o->replace ? rename(tmp, o->path) : rename_noreplace(tmp, o->path);
	if (r < 0) {
		r = errno;
		return hib_seterr(img, r == EEXIST ? HIB_ERR_INVAL : HIB_ERR_IO,
				  r == EEXIST ? "%s appeared while it was being written: left as it is, the output is discarded" :
				  "cannot rename to %s: %s", o->path, strerror(r));
	}
	live_del(o->slot);
	o->slot = -1;
	free(tmp);
	return HIB_OK;
}

int hib_output_close(struct hib_output *o, int rc)
{
	if (!o)
		return rc;
	if (o->fd >= 0 && o->kind != OUT_STDOUT) {
		if (rc == HIB_OK && fsync(o->fd) < 0)
			rc = hib_seterr(o->img, HIB_ERR_IO, "cannot sync %s: %s", o->path,
					strerror(errno));
		if (rc == HIB_OK && o->kind == OUT_FILE)
			rc = name_file(o);
		if (close(o->fd) < 0 && rc == HIB_OK)
			rc = hib_seterr(o->img, HIB_ERR_IO, "cannot close %s: %s", o->path,
					strerror(errno));
		o->fd = -1;
		if (rc == HIB_OK && o->kind == OUT_FILE) {
			/* the new name itself must survive a crash */
			int d = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (d >= 0) {
				(void)fsync(d);
				close(d);
			}
		}
	}
	if (o->slot >= 0) {
		char *n = live[o->slot];

		live_del(o->slot);
		if (n) {
			unlink(n);
			free(n);
		}
	}
	free(o->path);
	free(o->dir);
	free(o);
	return rc;
}
