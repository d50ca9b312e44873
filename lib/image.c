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
	img->mapbuf_idx = UINT64_MAX;
	img->usw_cache_idx = UINT64_MAX;
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
	hib_uswsusp_free(img);
	free(img);
}

int hib_seterr(struct hib_image *img, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(img->err, sizeof(img->err), fmt, ap);
	va_end(ap);
	return code;
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

/*
 * Reads exactly len bytes at off. A short read is an I/O error, not EOF:
 * every offset we read was computed from the image and checked against the
 * device size first, so running out of bytes means the device lied.
 */
int hib_pread(struct hib_image *img, void *buf, size_t len, uint64_t off,
	      const char *what)
{
	size_t done = 0;

	if (off > img->devsize || len > img->devsize - off)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "%s: bytes 0x%llx..0x%llx lie beyond the end of %s (%llu bytes)",
				  what, (unsigned long long)off,
				  (unsigned long long)(off + len),
				  img->path, (unsigned long long)img->devsize);
	while (done < len) {
		ssize_t n = pread(img->fd, (char *)buf + done, len - done,
				  (off_t)(off + done));
		if (n < 0) {
			int e = errno;
			uint64_t at = off + done;

			if (e == EINTR)
				continue;
			/* One bad sector fails a whole large read: find the page,
			 * so the message says where the medium is bad. */
			if (len - done > HIB_MIN_PS) {
				unsigned char page[HIB_MIN_PS];
				uint64_t p;

				for (p = off + done; p < off + len; p += HIB_MIN_PS) {
					size_t l = off + len - p < HIB_MIN_PS ?
						   (size_t)(off + len - p) : HIB_MIN_PS;

					if (pread(img->fd, page, l, (off_t)p) < 0) {
						e = errno;
						at = p;
						break;
					}
				}
			}
			return hib_seterr(img, HIB_ERR_IO,
					  "%s: read error at device offset 0x%llx: %s",
					  what, (unsigned long long)at, strerror(e));
		}
		if (n == 0)
			return hib_seterr(img, HIB_ERR_IO,
					  "%s: short read at device offset 0x%llx (%zu of %zu bytes)",
					  what, (unsigned long long)(off + done),
					  done, len);
		done += (size_t)n;
	}
	return HIB_OK;
}

uint64_t hib_get_word(const struct hib_layout *lay, const unsigned char *p,
		      unsigned int size)
{
	uint64_t v = 0;
	unsigned int i;

	if (lay->be)
		for (i = 0; i < size; i++)
			v = (v << 8) | p[i];
	else
		for (i = size; i > 0; i--)
			v = (v << 8) | p[i - 1];
	return v;
}

/* LABEL=, UUID=, PARTUUID=... resolved the way mount(8) and swapon(8) do,
 * but with no cache file: libblkid's default one (/run/blkid/blkid.tab)
 * is read and then rewritten, and hibimg writes nothing it was not asked
 * to (the guard in tests/ caught it). */
static char *resolve_spec(const char *spec)
{
	blkid_cache c = NULL;
	char *r;

	if (!strchr(spec, '=') || strchr(spec, '/'))
		return strdup(spec);
	if (blkid_get_cache(&c, "/dev/null") < 0)
		return NULL;
	r = blkid_evaluate_spec(spec, &c);
	blkid_put_cache(c);
	return r;
}

int hib_image_open(struct hib_image *img, const char *spec)
{
	struct stat st;
	int rc;

	if (img->opened)
		return hib_seterr(img, HIB_ERR_INVAL, "handle already open");
	img->path = resolve_spec(spec);
	if (!img->path)
		return hib_seterr(img, HIB_ERR_INVAL, "%s: no such device", spec);

	/* Evidence is never opened for writing. */
	img->fd = open(img->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (img->fd < 0)
		return hib_seterr(img, HIB_ERR_IO, "cannot open %s: %s",
				  img->path, strerror(errno));
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
	if (rc == HIB_OK)
		img->opened = true;
	return rc;
}

const char *hib_kind_name(enum hib_kind kind)
{
	switch (kind) {
	case HIB_KIND_SWAP:       return "swap";
	case HIB_KIND_KERNEL:     return "swsusp";
	case HIB_KIND_KERNEL_DEV: return "swsusp-linhib";
	case HIB_KIND_SPENT:      return "spent";
	case HIB_KIND_USWSUSP:    return "uswsusp";
	case HIB_KIND_S2SUSPEND:  return "s2suspend";
	case HIB_KIND_TUXONICE:   return "tuxonice";
	case HIB_KIND_UNKNOWN:    break;
	}
	return "unknown";
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
