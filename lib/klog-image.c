/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * klog-image.c - the image's side of the numbers the kernel prints while it
 * writes or reads an image (klog.c names which is which), counted the way
 * the kernel counts them: "Wrote/Read N kbytes" is the stream after
 * swsusp_info in kbytes (swsusp_show_speed), "Image size after
 * compression" the sum of the chunks' cmp_len over 1024 (swap.c).
 */
#include "hibimgP.h"

#include <string.h>

static int add_chunk(const struct hib_chunk *c, void *arg)
{
	*(uint64_t *)arg += c->cmp_len;
	return 0;
}

int hib_image_log_numbers(struct hib_image *img, struct hib_log_numbers *out)
{
	struct hib_log_numbers n;
	const struct hib_info *in;
	const struct hib_pfns *pf;
	struct hib_reader *rd = NULL;
	struct hib_page pg = HIB_INIT(struct hib_page);
	uint64_t cmp = 0;
	int rc;

	rc = HIB_ABI_SIZE(img, hib_log_numbers, out);
	if (rc)
		return rc;
	memset(&n, 0, sizeof(n));
	n.size = sizeof(n);
	(void)hib_image_allow_spent(img, 1);
	rc = hib_image_load(img);
	if (rc == HIB_OK)
		rc = hib_image_load_pfns(img);
	if (rc)
		goto out;
	in = hib_image_info(img);
	pf = hib_image_pfns(img);
	n.stream_pages = in->pages - 1;
	n.stream_kbytes = n.stream_pages * (img->hdr.page_size / 1024);
	n.image_pages = in->image_pages;
	n.pfn_entries = pf->entries;
	n.zero_pages = pf->zero_flagged;
	if (in->compression == HIB_COMP_NONE)
		goto out;
	rc = hib_reader_new(img, &rd);
	if (rc == HIB_OK)
		rc = hib_reader_set_threads(rd, 0);
	if (rc == HIB_OK) {
		hib_reader_set_chunk_cb(rd, add_chunk, &cmp);
		while ((rc = hib_reader_next(rd, &pg)) == 1)
			;
	}
	hib_reader_free(rd);
	if (rc == HIB_OK) {
		n.compressed_kbytes = cmp / 1024;
		n.have_compressed_kbytes = 1;
	}
out:
	hib_abi_out(out, &n);
	return rc;
}

int hib_log_numbers_get(const struct hib_log_numbers *n, enum hib_log_quantity q,
			uint64_t *v)
{
	switch (q) {
	case HIB_LOGQ_STREAM_KBYTES:     *v = n->stream_kbytes; return 1;
	case HIB_LOGQ_STREAM_PAGES:      *v = n->stream_pages; return 1;
	case HIB_LOGQ_PFN_ENTRIES:       *v = n->pfn_entries; return 1;
	case HIB_LOGQ_IMAGE_PAGES:       *v = n->image_pages; return 1;
	case HIB_LOGQ_ZERO_PAGES:        *v = n->zero_pages; return 1;
	case HIB_LOGQ_COMPRESSED_KBYTES:
		*v = n->compressed_kbytes;
		return n->have_compressed_kbytes;
	case HIB_LOGQ_NONE:
		break;
	}
	return 0;
}
