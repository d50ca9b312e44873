/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * area.c - reading the swap area under every container: the error kept on
 * the handle, exact positional reads that name what failed and where,
 * words in the writer's byte order, which device pages an image may use,
 * and the one cached map (or extents) page.
 */
#include "hibimgP.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int hib_seterr(struct hib_image *img, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(img->err, sizeof(img->err), fmt, ap);
	va_end(ap);
	return code;
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
				  "%s: bytes 0x%" PRIx64 "..0x%" PRIx64 " lie beyond the end of %s (%" PRIu64 " bytes)",
				  what, off,
				  off + len,
				  img->path, img->devsize);
	while (done < len) {
		ssize_t n = pread(img->fd, (char *)buf + done, len - done,
				  (off_t)(img->base + off + done));
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

					if (pread(img->fd, page, l, (off_t)(img->base + p)) < 0) {
						e = errno;
						at = p;
						break;
					}
				}
			}
			return hib_seterr(img, HIB_ERR_IO,
					  "%s: read error at device offset 0x%" PRIx64 ": %s",
					  what, at, strerror(e));
		}
		if (n == 0)
			return hib_seterr(img, HIB_ERR_IO,
					  "%s: short read at device offset 0x%" PRIx64 " (%zu of %zu bytes)",
					  what, off + done,
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

int hib_map_read_page(struct hib_image *img, uint64_t idx)
{
	int rc;
	char what[96];

	if (img->mapbuf_idx == idx)
		return HIB_OK;
	if (idx >= img->n_map_pages)
		return hib_seterr(img, HIB_ERR_INVAL, "map page %" PRIu64 " does not exist",
				  idx);
	snprintf(what, sizeof(what), "%s page %" PRIu64 " (device page %" PRIu64 ")",
		 img->ct ? img->ct->map_page_name : "map",
		 idx, img->map_pages[idx]);
	img->mapbuf_idx = UINT64_MAX;
	rc = hib_pread(img, img->mapbuf, img->lay.ps,
		       img->map_pages[idx] * img->lay.ps, what);
	if (rc == HIB_OK)
		img->mapbuf_idx = idx;
	return rc;
}

/* Is v a page the image may use? Page 0 of the area holds the header. */
const char *hib_bad_page(const struct hib_image *img, uint64_t v)
{
	if (v == 0)
		return "zero";
	if (img->in_place) {
		uint64_t s;

		/* In a swap file the map names device pages, and the kernel
		 * gives out only the file's own: any other is a foreign block. */
		if (!hib_sw_dev_slot(img, v, &s))
			return "not a page of the swap file (outside its extents)";
		if (s == 0)
			return "the resume page itself";
		if (img->hdr.swap_version == 1 && img->hdr.last_page &&
		    s > img->hdr.last_page)
			return "beyond the swap header's last_page";
		return NULL;
	}
	if (v >= img->devpages)
		return "beyond the end of the device";
	if (v == img->resume_offset)
		return "the resume page itself";
	/* On a partition, page numbers are swap slots and must lie inside
	 * the area mkswap declared. */
	if (img->resume_offset == 0 && img->hdr.swap_version == 1 &&
	    img->hdr.last_page && v > img->hdr.last_page)
		return "beyond the swap header's last_page";
	return NULL;
}

bool hib_page_zero(const unsigned char *p, unsigned int ps)
{
	const uint64_t *w = (const uint64_t *)(const void *)p;
	uint64_t acc = 0;
	unsigned int i;

	for (i = 0; i < ps / 8; i++)
		acc |= w[i];
	return acc == 0;
}

void hib_image_set_progress(struct hib_image *img, hib_progress_fn fn, void *arg)
{
	img->progress = fn;
	img->progress_arg = arg;
}
