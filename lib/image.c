/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * image.c - the handle: opening a source read-only, errors, byte access.
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
#include <blkid.h>

const char *hib_version(void)
{
	return PACKAGE_VERSION;
}

struct hib_image *hib_image_new(void)
{
	struct hib_image *img = calloc(1, sizeof(*img));

	if (!img)
		return NULL;
	img->fd = -1;
	img->sw_file_fd = -1;
	img->mapbuf_idx = UINT64_MAX;
	return img;
}

void hib_image_free(struct hib_image *img)
{
	if (!img)
		return;
	if (img->fd >= 0)
		close(img->fd);
	free(img->path);
	free(img->info_page);
	free(img->map_pages);
	free(img->mapbuf);
	free(img->runs);
	free(img->zero_bits);
	hib_salvage_free(img);
	if (img->ct && img->ct->release)
		img->ct->release(img);
	hib_swapfile_release(img);
	free(img);
}

const char *hib_image_error(const struct hib_image *img)
{
	return img->err[0] ? img->err : "no error";
}

const char *hib_image_path(const struct hib_image *img)
{
	return img->path;
}

const struct hib_header *hib_image_header(const struct hib_image *img)
{
	return img->opened ? &img->hdr : NULL;
}

int hib_image_allow_spent(struct hib_image *img, int allow)
{
	img->allow_spent = allow != 0;
	return HIB_OK;
}

int hib_image_set_resume_offset(struct hib_image *img, uint64_t pages)
{
	if (img->opened)
		return hib_seterr(img, HIB_ERR_INVAL,
				  "resume offset must be set before opening");
	img->resume_offset = pages;
	return HIB_OK;
}

/* The tags that name a device, as mount(8) and swapon(8) take them. */
static const char *const tags[] = { "LABEL", "UUID", "PARTLABEL", "PARTUUID" };

static bool known_tag(const char *spec, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (strlen(tags[i]) == len && !strncmp(spec, tags[i], len))
			return true;
	return false;
}

/* A known tag resolved the way mount(8) and swapon(8) do, but with no
 * cache file: libblkid's default one (/run/blkid/blkid.tab) is read and
 * then rewritten, and hibimg writes nothing it was not asked to (the guard
 * in tests/ caught it). Anything else before a '=' is a path: libblkid
 * would take "FOO=bar" for a tag it cannot find, and say "no such device"
 * about a file that is simply not there. */
static int resolve_spec(struct hib_image *img, const char *spec)
{
	const char *eq = strchr(spec, '=');
	blkid_cache c = NULL;
	struct stat st;
	size_t len;

	img->path = NULL;
	len = eq ? (size_t)(eq - spec) : 0;
	if (!eq || memchr(spec, '/', len) || !known_tag(spec, len)) {
		if (eq && len && !memchr(spec, '/', len) && stat(spec, &st) < 0 &&
		    errno == ENOENT)
			return hib_seterr(img, HIB_ERR_INVAL,
					  "%s: unknown tag %.*s= and no such file (a device is named by LABEL=, UUID=, PARTLABEL= or PARTUUID=)",
					  spec, (int)len, spec);
		img->path = strdup(spec);
		return img->path ? HIB_OK : hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	if (blkid_get_cache(&c, "/dev/null") < 0)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	img->path = blkid_evaluate_spec(spec, &c);
	blkid_put_cache(c);
	if (!img->path)
		return hib_seterr(img, HIB_ERR_INVAL, "%s: no such device", spec);
	return HIB_OK;
}

/* What both ways of opening share, once img->fd and img->path are set. */
static int attach(struct hib_image *img)
{
	struct stat st;
	int rc;

	if (fstat(img->fd, &st) < 0)
		return hib_seterr(img, HIB_ERR_IO, "cannot stat %s: %s",
				  img->path, strerror(errno));
	if (S_ISBLK(st.st_mode)) {
		uint64_t sz = 0;

		if (ioctl(img->fd, BLKGETSIZE64, &sz) < 0)
			return hib_seterr(img, HIB_ERR_IO,
					  "cannot get the size of %s: %s",
					  img->path, strerror(errno));
		img->devsize = sz;
	} else if (S_ISREG(st.st_mode)) {
		img->devsize = (uint64_t)st.st_size;
	} else {
		return hib_seterr(img, HIB_ERR_INVAL,
				  "%s: not a regular file or block device", img->path);
	}
	posix_fadvise(img->fd, 0, 0, POSIX_FADV_SEQUENTIAL);

	rc = hib_header_probe(img);
	if (rc == HIB_OK && img->hdr.kind == HIB_KIND_UNKNOWN)
		rc = hib_probe_compressed(img);
	if (rc == HIB_OK && S_ISREG(st.st_mode) && img->resume_offset &&
	    img->hdr.kind == HIB_KIND_UNKNOWN)
		img->page0_swap = hib_swapfile_page0(img);
	/* a swap area at page 0 is what libblkid would name there: the
	 * mistake is -R, not a file system around the input */
	if (rc == HIB_OK && img->hdr.kind == HIB_KIND_UNKNOWN && !img->page0_swap)
		hib_probe_filesystem(img);
	if (rc == HIB_OK && S_ISREG(st.st_mode))
		rc = hib_swapfile_attach(img, &st);
	if (rc == HIB_OK)
		img->opened = true;
	return rc;
}

int hib_image_open_area(struct hib_image *img, const struct hib_image *from,
			uint64_t base, uint64_t size)
{
	int rc;

	img->path = strdup(from->path);
	if (!img->path)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	img->fd = fcntl(from->fd, F_DUPFD_CLOEXEC, 3);
	if (img->fd < 0)
		return hib_seterr(img, HIB_ERR_IO, "cannot use %s: %s",
				  img->path, strerror(errno));
	img->base = base;
	img->devsize = size;
	img->allow_spent = true;
	rc = hib_header_probe(img);
	if (rc == HIB_OK)
		img->opened = true;
	return rc;
}

int hib_image_open(struct hib_image *img, const char *spec)
{
	int rc;

	if (img->opened || img->fd >= 0)
		return hib_seterr(img, HIB_ERR_INVAL, "handle already open");
	rc = resolve_spec(img, spec);
	if (rc)
		return rc;

	/* Evidence is never opened for writing. */
	img->fd = open(img->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (img->fd < 0)
		return hib_seterr(img, HIB_ERR_IO, "cannot open %s: %s",
				  img->path, strerror(errno));
	return attach(img);
}

int hib_image_open_fd(struct hib_image *img, int fd, const char *name)
{
	if (img->opened || img->fd >= 0)
		return hib_seterr(img, HIB_ERR_INVAL, "handle already open");
	img->path = strdup(name ? name : "(descriptor)");
	if (!img->path)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	/* Our own descriptor: the caller's may be closed, or be stdin. */
	img->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (img->fd < 0)
		return hib_seterr(img, HIB_ERR_IO, "cannot use %s: %s",
				  img->path, strerror(errno));
	return attach(img);
}

const char *hib_compression_name(enum hib_compression c)
{
	switch (c) {
	case HIB_COMP_NONE: return "none";
	case HIB_COMP_LZO:  return "lzo";
	case HIB_COMP_LZ4:  return "lz4";
	}
	return "?";
}

const char *hib_flag_name(uint32_t bit)
{
	switch (bit) {
	case HIB_SF_PLATFORM_MODE:       return "PLATFORM_MODE";
	case HIB_SF_NOCOMPRESS_MODE:     return "NOCOMPRESS_MODE";
	case HIB_SF_CRC32_MODE:          return "CRC32_MODE";
	case HIB_SF_HW_SIG:              return "HW_SIG";
	case HIB_SF_COMPRESSION_ALG_LZ4: return "COMPRESSION_ALG_LZ4";
	}
	return NULL;
}
