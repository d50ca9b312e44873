/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * chunk1.c - one chunk of the stream decoded on its own, for kmem.c's
 * random reads: the reader (readahead.c) decodes them in order, this takes
 * one whose place an earlier pass of the reader found and checked. Raw
 * images: a "chunk" is one page, read as it lies.
 */
#include "kmemP.h"

#include <stdio.h>

/* Reads n map entries from first into buf, one pread per page (a chunk
 * is at most CMP_PAGES_MAX pages, read seldom). */
static int read_entries(struct hib_image *img, uint64_t first, uint64_t n,
			unsigned char *buf)
{
	unsigned int ps = img->lay.ps;
	uint64_t i, dev;
	int rc;

	for (i = 0; i < n; i++) {
		rc = hib_image_map_entry(img, first + i, &dev);
		if (rc)
			return rc;
		rc = hib_pread(img, buf + i * ps, ps, dev * ps, "chunk page");
		if (rc)
			return rc;
	}
	return HIB_OK;
}

int hib_chunk1_decode(struct hib_image *img, uint64_t map_entry,
		      uint64_t disk_pages, uint64_t cmp_len, unsigned char *cmp,
		      unsigned char *unc, size_t *unc_len)
{
	unsigned int ps = img->lay.ps, hdr = img->lay.word;
	size_t n = 0;
	int rc;

	*unc_len = 0;
	if (!cmp_len) {
		if (disk_pages != 1)
			return hib_seterr(img, HIB_ERR_INVAL, "raw chunk of %" PRIu64 " pages", disk_pages);
		rc = read_entries(img, map_entry, 1, unc);
		if (rc == HIB_OK)
			*unc_len = ps;
		return rc;
	}
	if (disk_pages > CMP_PAGES_MAX || hdr + cmp_len > disk_pages * ps)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "chunk at map entry %" PRIu64 ": %" PRIu64 " bytes in %" PRIu64 " pages",
				  map_entry, cmp_len, disk_pages);
	rc = read_entries(img, map_entry, disk_pages, cmp);
	if (rc)
		return rc;
	/* the same bytes the checked pass decoded, unless the file changed */
	if (hib_get_word(&img->lay, cmp, hdr) != cmp_len)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "chunk at map entry %" PRIu64 " changed since it was read", map_entry);
	rc = hib_decompress(img->info.compression, cmp + hdr, cmp_len, unc,
			    (size_t)UNC_PAGES * ps, &n);
	if (rc || n == 0 || n % ps)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "chunk at map entry %" PRIu64 ": %s decompression failed",
				  map_entry, hib_compression_name(img->info.compression));
	*unc_len = n;
	return HIB_OK;
}
