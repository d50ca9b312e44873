/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * evidence.c - what counts as "the input" when an output is about to be
 * written: the input's own inode, and for storage the whole stack it sits
 * in. Writing a partition changes its disk; writing a disk changes its
 * partitions; a loop device is its backing file; a device-mapper or md
 * device is its slaves. So the input's evidence is every block device that
 * holds it (up: parent disk, slaves, a loop device's backing device) and
 * every one it holds (down: partitions, holders, loop devices backed by
 * it), plus the regular files behind any loop device among them. Siblings
 * (another partition of the same disk) are not in it: they share no byte.
 *
 * A swap file read in place is read from its file system's device: the
 * device's stack is the evidence, and the file itself too.
 *
 * Everything here comes from sysfs (/sys/dev/block/MAJ:MIN); where sysfs
 * is missing, only the input's own inode and device number are known.
 */
#include "hibimgP.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static bool has_dev(const struct hib_evidence *ev, dev_t d)
{
	unsigned int i;

	for (i = 0; i < ev->ndevs; i++)
		if (ev->devs[i] == d)
			return true;
	return false;
}

static bool add_dev(struct hib_evidence *ev, dev_t d)
{
	if (has_dev(ev, d) || ev->ndevs == HIB_EVIDENCE_MAX)
		return false;
	ev->devs[ev->ndevs++] = d;
	return true;
}

static void add_inode(struct hib_evidence *ev, dev_t dev, ino_t ino)
{
	unsigned int i;

	for (i = 0; i < ev->ninodes; i++)
		if (ev->inodes[i].dev == dev && ev->inodes[i].ino == ino)
			return;
	if (ev->ninodes < HIB_EVIDENCE_MAX) {
		ev->inodes[ev->ninodes].dev = dev;
		ev->inodes[ev->ninodes].ino = ino;
		ev->ninodes++;
	}
}

/* The "MAJ:MIN" in a sysfs dev file. */
static bool read_devno(int dirfd, const char *name, dev_t *d)
{
	char buf[32];
	unsigned int ma, mi;
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	if (sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return false;
	*d = makedev(ma, mi);
	return true;
}

static int open_sysdir(dev_t d)
{
	char p[64];

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", major(d), minor(d));
	return open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Calls fn for the device number of every entry of dir/sub that has a dev
 * file (holders/, slaves/, or partitions as subdirectories when sub is "."
 * and want_partition). */
static void each_entry(int base, const char *sub, bool want_partition,
		       void (*fn)(struct hib_evidence *, dev_t, int), struct hib_evidence *ev,
		       int depth)
{
	int fd = openat(base, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir;
	struct dirent *de;

	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((de = readdir(dir))) {
		int efd;
		dev_t d;

		if (de->d_name[0] == '.')
			continue;
		efd = openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (efd < 0)
			continue;
		if ((!want_partition || faccessat(efd, "partition", F_OK, 0) == 0) &&
		    read_devno(efd, "dev", &d))
			fn(ev, d, depth);
		close(efd);
	}
	closedir(dir);
}

/* A loop device's backing file: a regular file's inode joins the evidence,
 * a block device (loop over a partition) its numbers. */
static void loop_backing(struct hib_evidence *ev, int sysfd, bool *blk, dev_t *bdev)
{
	char path[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd = openat(sysfd, "loop/backing_file", O_RDONLY | O_CLOEXEC);

	*blk = false;
	if (fd < 0)
		return;
	n = read(fd, path, sizeof(path) - 1);
	close(fd);
	if (n <= 0)
		return;
	path[n] = 0;
	if (path[n - 1] == '\n')
		path[n - 1] = 0;
	if (stat(path, &st) < 0)
		return;
	if (S_ISBLK(st.st_mode)) {
		*blk = true;
		*bdev = st.st_rdev;
	} else {
		add_inode(ev, st.st_dev, st.st_ino);
	}
}

#define DEPTH_MAX 8

static void walk_up(struct hib_evidence *ev, dev_t d, int depth);
static void walk_down(struct hib_evidence *ev, dev_t d, int depth);

static void walk_up(struct hib_evidence *ev, dev_t d, int depth)
{
	dev_t p;
	bool blk;
	int fd;

	if (!add_dev(ev, d) && depth)
		return;
	if (depth >= DEPTH_MAX || (fd = open_sysdir(d)) < 0)
		return;
	/* a partition's directory sits inside its disk's */
	if (faccessat(fd, "partition", F_OK, 0) == 0 && read_devno(fd, "../dev", &p))
		walk_up(ev, p, depth + 1);
	each_entry(fd, "slaves", false, walk_up, ev, depth + 1);
	loop_backing(ev, fd, &blk, &p);
	if (blk)
		walk_up(ev, p, depth + 1);
	close(fd);
}

/* Loop devices whose backing file is (dev, ino) for a regular file, or the
 * block device rdev. */
static void loops_backed_by(struct hib_evidence *ev, const struct stat *st, int depth)
{
	DIR *dir = opendir("/sys/block");
	struct dirent *de;

	if (!dir)
		return;
	while ((de = readdir(dir))) {
		struct hib_evidence probe = { 0 };
		bool blk;
		dev_t b, self;
		int fd;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		fd = openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		loop_backing(&probe, fd, &blk, &b);
		if (read_devno(fd, "dev", &self) &&
		    ((S_ISBLK(st->st_mode) && blk && b == st->st_rdev) ||
		     (S_ISREG(st->st_mode) && !blk && probe.ninodes &&
		      probe.inodes[0].dev == st->st_dev && probe.inodes[0].ino == st->st_ino)))
			walk_down(ev, self, depth + 1);
		close(fd);
	}
	closedir(dir);
}

static void walk_down(struct hib_evidence *ev, dev_t d, int depth)
{
	struct stat st = { .st_mode = S_IFBLK, .st_rdev = d };
	int fd;

	if (!add_dev(ev, d) && depth)
		return;
	if (depth >= DEPTH_MAX || (fd = open_sysdir(d)) < 0)
		return;
	each_entry(fd, ".", true, walk_down, ev, depth + 1);
	each_entry(fd, "holders", false, walk_down, ev, depth + 1);
	close(fd);
	loops_backed_by(ev, &st, depth);
}

void hib_evidence_of(struct hib_evidence *ev, const struct stat *st)
{
	memset(ev, 0, sizeof(*ev));
	if (S_ISBLK(st->st_mode)) {
		walk_up(ev, st->st_rdev, 0);
		walk_down(ev, st->st_rdev, 0);
	} else {
		add_inode(ev, st->st_dev, st->st_ino);
		loops_backed_by(ev, st, 0);
	}
}

void hib_evidence_down(struct hib_evidence *ev, dev_t d)
{
	memset(ev, 0, sizeof(*ev));
	walk_down(ev, d, 0);
}

bool hib_evidence_has_dev(const struct hib_evidence *ev, dev_t d)
{
	return has_dev(ev, d);
}

bool hib_evidence_has_inode(const struct hib_evidence *ev, dev_t dev, ino_t ino)
{
	unsigned int i;

	for (i = 0; i < ev->ninodes; i++)
		if (ev->inodes[i].dev == dev && ev->inodes[i].ino == ino)
			return true;
	return false;
}

void hib_image_evidence(const struct hib_image *img, struct hib_evidence *ev,
			const struct stat *in)
{
	struct stat fst;

	hib_evidence_of(ev, in);
	if (img->in_place && img->sw_file_fd >= 0 && fstat(img->sw_file_fd, &fst) == 0)
		add_inode(ev, fst.st_dev, fst.st_ino);
}
