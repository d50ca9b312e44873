/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pages.c - single pages out of an image for callers that want a few of
 * them: saved pages by PFN (one pass of the stream, stopping after the
 * last), a raw swap slot, which slots the image owns, and which hold
 * something it does not own.
 */
#include "hibimgP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hib_image_read_pfns(struct hib_image *img, const struct hib_pfn_range *r,
			size_t n, hib_page_cb cb, void *arg)
{
	struct hib_reader *rd;
	struct hib_page pg;
	unsigned char *zero;
	uint64_t pfn, e0, e1, last = 0;
	size_t k;
	int rc;

	if (!img->loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	if (!n)
		return hib_seterr(img, HIB_ERR_INVAL, "no PFN range given");
	rc = hib_image_load_pfns(img);
	if (rc)
		return rc;
	/* Refuse before any byte goes out: a missing PFN would otherwise
	 * leave the caller with a silently short copy. */
	for (k = 0; k < n; k++) {
		if (r[k].first > r[k].last || (k && r[k].first <= r[k - 1].last))
			return hib_seterr(img, HIB_ERR_INVAL,
					  "PFN range 0x%" PRIx64 "-0x%" PRIx64 ": ranges must be ascending, disjoint and not empty",
					  r[k].first,
					  r[k].last);
		if (hib_pfn_find(img, r[k].first, &e0) && hib_pfn_find(img, r[k].last, &e1) &&
		    e1 - e0 == r[k].last - r[k].first)
			continue;
		for (pfn = r[k].first; hib_pfn_find(img, pfn, NULL); pfn++)
			;
		return hib_seterr(img, HIB_ERR_INVAL, "PFN 0x%" PRIx64 " is not saved in the image",
				  pfn);
	}
	zero = calloc(1, img->lay.ps);
	if (!zero)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	rc = hib_reader_new(img, &rd);
	if (rc) {
		free(zero);
		return rc;
	}
	k = 0;
	/* the stream is read up to the last PFN asked for */
	(void)hib_pfn_find(img, r[n - 1].last, &last);
	while ((rc = hib_reader_next_page(rd, &pg)) == 1) {
		hib_tick(img, "reading", pg.entry + 1, last + 1);
		while (pg.pfn > r[k].last)
			k++;        /* the last range ends the loop below first */
		if (pg.pfn < r[k].first)
			continue;
		rc = cb(pg.pfn, pg.data ? pg.data : zero, arg);
		if (rc) {
			rc = hib_seterr(img, rc < 0 ? rc : HIB_ERR_INVAL,
					"PFN 0x%" PRIx64 ": stopped by the caller",
					pg.pfn);
			break;
		}
		if (pg.pfn == r[n - 1].last)
			break;
	}
	hib_reader_free(rd);
	free(zero);
	return rc < 0 ? rc : HIB_OK;
}

int hib_read_devpage(struct hib_image *img, uint64_t dev, void *buf)
{
	char what[64];

	if (dev >= img->devpages)
		return hib_seterr(img, HIB_ERR_INVAL,
				  "device page %" PRIu64 " is beyond the end of %s (%" PRIu64 " pages)",
				  dev, img->in_place ? img->sw.device : img->path,
				  img->devpages);
	snprintf(what, sizeof(what), "device page %" PRIu64, dev);
	return hib_pread(img, buf, img->lay.ps, dev * img->lay.ps, what);
}

int hib_image_read_slot(struct hib_image *img, uint64_t slot, void *buf)
{
	char what[96];
	uint64_t dev = slot;

	if (!img->opened)
		return hib_seterr(img, HIB_ERR_INVAL, "image not open");
	if (img->in_place && slot >= img->sw.file_pages)
		return hib_seterr(img, HIB_ERR_INVAL,
				  "slot %" PRIu64 " is beyond the end of the swap file %s (%" PRIu64 " pages)",
				  slot, img->path, img->sw.file_pages);
	/* a swap offset is a page of the file, wherever its extent lies */
	if (img->in_place && !hib_sw_slot_dev(img, slot, &dev))
		return hib_seterr(img, HIB_ERR_INVAL,
				  "slot %" PRIu64 " of the swap file %s has no page on %s",
				  slot, img->path, img->sw.device);
	if (dev >= img->devpages)
		return hib_seterr(img, HIB_ERR_INVAL,
				  "slot %" PRIu64 " is beyond the end of %s (%" PRIu64 " pages)",
				  slot, img->path,
				  img->devpages);
	if (img->in_place)
		snprintf(what, sizeof(what), "slot %" PRIu64 " (device page %" PRIu64 ")",
			 slot, dev);
	else
		snprintf(what, sizeof(what), "slot %" PRIu64, slot);
	return hib_pread(img, buf, img->lay.ps, dev * img->lay.ps, what);
}

int hib_owned_slots(struct hib_image *img, uint8_t *bits, uint64_t nbits, uint64_t *n)
{
	uint64_t i, dev, k = 0;
	int rc;

	*n = 0;
	if (!img->loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	if (img->ct->own_slots)
		k += img->ct->own_slots(img, bits, nbits);
	for (i = 0; i < img->n_map_pages; i++)
		if (img->map_pages[i] < nbits && !bit_test_set(bits, img->map_pages[i]))
			k++;
	for (i = 0; i < img->info.map_entries; i++) {
		rc = hib_image_map_entry(img, i, &dev);
		if (rc)
			return rc;
		if (dev < nbits && !bit_test_set(bits, dev))
			k++;
	}
	*n = k;
	return HIB_OK;
}

/* Slot s of the area on the device: itself on a partition, through the
 * file's extents in a swap file, with how many slots follow it there. */
static uint64_t slot_run(const struct hib_image *img, uint64_t s, uint64_t *dev)
{
	uint64_t i;
	const struct hib_sw_extent *e;

	*dev = s;
	if (!img->in_place)
		return UINT64_MAX;
	i = hib_last_le(&img->sw_ext[0].file_page, sizeof(*e), img->sw_n, s);
	e = &img->sw_ext[i];
	*dev = e->dev_page + (s - e->file_page);
	return e->pages - (s - e->file_page);
}

static int slot_usage(struct hib_image *img, struct hib_slot_usage *u)
{
	const size_t block = 1u << 20;
	unsigned int ps = img->lay.ps;
	uint64_t area, owned, s, nbits;
	uint8_t *own;
	unsigned char *buf;
	int rc = HIB_OK;

	memset(u, 0, sizeof(*u));
	if (!img->loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	/* In a swap file the slots are scattered over the partition by the
	 * file's extents, which the partition image alone does not give. */
	if (img->resume_offset && !img->in_place)
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "slot usage needs a swap partition or the swap file in place, not a device with a resume offset (%" PRIu64 "): its file extents are unknown",
				  img->resume_offset);
	area = img->in_place ? img->sw.file_pages : img->devpages;
	if (img->hdr.swap_version == 1 && img->hdr.last_page &&
	    (uint64_t)img->hdr.last_page + 1 < area)
		area = (uint64_t)img->hdr.last_page + 1;
	/* the image's slots are device pages: marked there, read per slot */
	nbits = img->in_place ? img->devpages : area;
	own = calloc(nbits / 8 + 1, 1);
	buf = malloc(block);
	if (!own || !buf) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	set_bit(own, img->resume_offset);
	rc = hib_owned_slots(img, own, nbits, &owned);
	if (rc)
		goto out;
	u->area_pages = area;
	u->image_slots = 1 + owned;
	for (s = 0; s < area;) {
		uint64_t n = block / ps, k, dev, run = slot_run(img, s, &dev);

		if (n > area - s)
			n = area - s;
		if (n > run)
			n = run;
		rc = hib_pread(img, buf, n * ps, dev * ps, "scanning the swap area");
		if (rc)
			goto out;
		for (k = 0; k < n; k++, s++) {
			if (bit(own, dev + k))
				continue;
			if (hib_page_zero(buf + k * ps, ps))
				continue;
			if (!u->foreign_data)
				u->first_foreign = s;
			u->foreign_data++;
		}
		hib_tick(img, "scanning", s, area);
	}
out:
	free(own);
	free(buf);
	return rc;
}

int hib_image_slot_usage(struct hib_image *img, struct hib_slot_usage *u)
{
	struct hib_slot_usage full;
	int rc = HIB_ABI_SIZE(img, hib_slot_usage, u);

	if (rc)
		return rc;
	rc = slot_usage(img, &full);
	hib_abi_out(u, &full);
	return rc;
}
