/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * outfile.c - where writers put their output: never over the input, a new
 * file only under a temporary name next to OUT until it is complete and
 * synced, a block device only when asked for and large enough.
 */
#include "hibimgP.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* stat() follows symlinks, so a link to the input, or a second hard link of
 * it, shows the input's own inode; a device is the same by its number. */
static bool is_input(const struct hib_image *img, const struct stat *st)
{
	struct stat in;

	if (img->fd < 0 || fstat(img->fd, &in) < 0)
		return false;
	if (S_ISBLK(in.st_mode) && S_ISBLK(st->st_mode))
		return in.st_rdev == st->st_rdev;
	return in.st_dev == st->st_dev && in.st_ino == st->st_ino;
}

int hib_outfile_open(struct hib_image *img, struct hib_outfile *of,
		     const char *out, int flags, uint64_t min_size)
{
	bool device = flags & HIB_OUT_DEVICE;
	struct stat st;

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	of->path = out;
	if (stat(out, &st) == 0) {
		if (is_input(img, &st))
			return hib_seterr(img, HIB_ERR_INVAL,
					  "%s is the input itself: refusing to write over the evidence",
					  out);
		if (S_ISBLK(st.st_mode) && !device)
			return hib_seterr(img, HIB_ERR_INVAL,
					  (flags & HIB_OUT_DEVICE_OK) ?
					  "%s is a block device: writing to a device needs --device" :
					  "%s is a block device, not a file", out);
		if (!device && !S_ISREG(st.st_mode))
			return hib_seterr(img, HIB_ERR_INVAL,
					  "%s exists and is not a regular file", out);
	} else if (errno != ENOENT) {
		return hib_seterr(img, HIB_ERR_IO, "cannot stat %s: %s", out, strerror(errno));
	} else if (device) {
		return hib_seterr(img, HIB_ERR_INVAL, "%s: no such device", out);
	}

	if (device) {
		uint64_t sz = 0;

		if (!S_ISBLK(st.st_mode))
			return hib_seterr(img, HIB_ERR_INVAL, "%s is not a block device", out);
		/* O_EXCL on a block device: not while it is mounted or in use */
		of->fd = open(out, O_WRONLY | O_EXCL | O_CLOEXEC);
		if (of->fd < 0)
			return hib_seterr(img, HIB_ERR_IO, "cannot open %s: %s", out, strerror(errno));
		if (ioctl(of->fd, BLKGETSIZE64, &sz) < 0 || sz < min_size)
			return hib_seterr(img, HIB_ERR_INVAL,
					  "%s is smaller than the source area (%llu bytes)",
					  out, (unsigned long long)min_size);
		return HIB_OK;
	}
	if (asprintf(&of->tmp, "%s.hibimg-XXXXXX", out) < 0) {
		of->tmp = NULL;
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	/* Images and memory dumps hold keys and passwords: owner only. */
	of->fd = mkostemp(of->tmp, O_CLOEXEC);
	if (of->fd < 0) {
		int e = errno;

		free(of->tmp);
		of->tmp = NULL;
		return hib_seterr(img, HIB_ERR_IO, "cannot create a file next to %s: %s",
				  out, strerror(e));
	}
	return HIB_OK;
}

int hib_outfile_close(struct hib_image *img, struct hib_outfile *of, int rc)
{
	if (of->fd >= 0) {
		if (rc == HIB_OK && fsync(of->fd) < 0)
			rc = hib_seterr(img, HIB_ERR_IO, "cannot sync %s: %s", of->path,
					strerror(errno));
		if (close(of->fd) < 0 && rc == HIB_OK)
			rc = hib_seterr(img, HIB_ERR_IO, "cannot close %s: %s", of->path,
					strerror(errno));
		of->fd = -1;
	}
	if (of->tmp) {
		if (rc == HIB_OK && rename(of->tmp, of->path) < 0)
			rc = hib_seterr(img, HIB_ERR_IO, "cannot rename to %s: %s", of->path,
					strerror(errno));
		if (rc)
			unlink(of->tmp);
		free(of->tmp);
		of->tmp = NULL;
	}
	return rc;
}
