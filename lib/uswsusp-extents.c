/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uswsusp-extents.c - suspend-utils' map: the chain of extents pages that
 * uswsusp.c's header page starts (the format is described there). Each
 * page holds struct extent { loff_t start, end; } byte ranges, end
 * exclusive, its last slot linking the next page; the data pages are read
 * in extent order, so map entry i is the i-th data page.
 *
 * The chain is walked once at load, every slot checked against the device
 * and a bitmap of used slots; only the chain pages' own numbers and the
 * first data page of each are kept, and one page's extents are decoded on
 * demand: two words per extents page, whatever the number of extents.
 */
#include "uswsuspP.h"

#include <stdlib.h>

#define EXTENT_SIZE          16     /* struct extent */

/* Extent slots of a page before the link to the next one. */
static uint64_t ext_slots(const struct hib_image *img)
{
	return img->lay.ps / EXTENT_SIZE - 1;
}

/* A byte offset the container names: page-aligned, a usable slot. */
const char *hib_usw_bad_offset(const struct hib_image *img, uint64_t off)
{
	if (off % img->lay.ps)
		return "not page-aligned";
	return hib_bad_page(img, off / img->lay.ps);
}

/*
 * Walks the extents chain as far as the data reaches, checking every extent
 * and slot, and keeps the chain (map_pages, usw_first) so data pages can be
 * found later without keeping the extents themselves.
 */
int hib_usw_walk_extents(struct hib_image *img, uint8_t *used)
{
	struct hib_uswsusp *u = &img->usw;
	const struct hib_layout *lay = &img->lay;
	unsigned int ps = lay->ps;
	uint64_t slots = ext_slots(img), cur = u->map_start, done = 0, cap = 0;
	int rc;

	img->n_map_pages = 0;
	while (done < u->data_pages) {
		uint64_t idx = img->n_map_pages, k, next;
		const char *why;

		if (cur == 0)
			return hib_seterr(img, HIB_ERR_DAMAGED,
					  "extents page %" PRIu64 " (device offset 0x%" PRIx64 "): the chain ends after %" PRIu64 " data pages, image_data_size needs %" PRIu64,
					  idx - 1,
					  img->map_pages[idx - 1] * ps,
					  done,
					  u->data_pages);
		if ((why = hib_usw_bad_offset(img, cur)))
			return hib_seterr(img, HIB_ERR_DAMAGED,
					  "extents page %" PRIu64 ": device offset 0x%" PRIx64 " is %s",
					  idx, cur, why);
		if (bit_test_set(used, cur / ps))
			return hib_seterr(img, HIB_ERR_DAMAGED,
					  "extents page %" PRIu64 ": device offset 0x%" PRIx64 " is already used by the image (extents chain loops or overlaps data)",
					  idx, cur);
		if (idx == cap) {
			uint64_t ncap = cap ? cap * 2 : 16;
			uint64_t *a = realloc(img->map_pages, ncap * sizeof(*a));

			if (a)
				img->map_pages = a;
			a = a ? realloc(img->usw_first, ncap * sizeof(*a)) : NULL;
			if (!a)
				return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
			img->usw_first = a;
			cap = ncap;
		}
		img->map_pages[idx] = cur / ps;
		img->usw_first[idx] = done;
		img->n_map_pages = idx + 1;
		rc = hib_map_read_page(img, idx);
		if (rc)
			return rc;
		u->extent_pages++;

		for (k = 0; k < slots && done < u->data_pages; k++) {
			uint64_t start = hib_get_word(lay, img->mapbuf + k * EXTENT_SIZE, 8);
			uint64_t end = hib_get_word(lay, img->mapbuf + k * EXTENT_SIZE + 8, 8);
			uint64_t p, n;

			/* suspend-utils takes the first extent unchecked and stops at
			 * the first empty one after it. */
			if (start >= end && k > 0)
				break;
			n = start < end ? (end - start) / ps : 0;
			if (n > u->data_pages - done)
				n = u->data_pages - done;   /* preallocated, never written */
			/* Only the part that holds data must lie on the device. */
			if (start >= end || start % ps || end % ps ||
			    start > img->devsize || n > (img->devsize - start) / ps)
				return hib_seterr(img, HIB_ERR_DAMAGED,
						  "extents page %" PRIu64 " (device offset 0x%" PRIx64 ") extent %" PRIu64 ": [0x%" PRIx64 ", 0x%" PRIx64 ") is %s",
						  idx, cur, k, start, end,
						  start >= end ? "empty" :
						  start % ps || end % ps ? "not page-aligned" :
						  "beyond the end of the device");
			for (p = start / ps; p < start / ps + n; p++) {
				if ((why = hib_bad_page(img, p)))
					return hib_seterr(img, HIB_ERR_DAMAGED,
							  "extents page %" PRIu64 " (device offset 0x%" PRIx64 ") extent %" PRIu64 ": device offset 0x%" PRIx64 " is %s",
							  idx, cur,
							  k,
							  p * ps, why);
				if (bit_test_set(used, p))
					return hib_seterr(img, HIB_ERR_DAMAGED,
							  "extents page %" PRIu64 " (device offset 0x%" PRIx64 ") extent %" PRIu64 ": device offset 0x%" PRIx64 " is used twice",
							  idx, cur,
							  k,
							  p * ps);
			}
			done += n;
			u->extents++;
		}
		next = hib_get_word(lay, img->mapbuf + slots * EXTENT_SIZE, 8);
		cur = next;
	}
	img->info.map_pages = img->n_map_pages;
	img->info.map_entries = u->data_pages;
	return HIB_OK;
}

/* Decodes extents page idx into the cache: where each used extent starts
 * and how many data pages precede it. */
static int cache_page(struct hib_image *img, uint64_t idx)
{
	const struct hib_layout *lay = &img->lay;
	unsigned int ps = lay->ps;
	uint64_t slots = ext_slots(img), first, count, k, n = 0, sum = 0;
	int rc;

	if (img->usw_cache_idx == idx)
		return HIB_OK;
	if (idx >= img->n_map_pages)
		return hib_seterr(img, HIB_ERR_INVAL, "no extents page %" PRIu64,
				  idx);
	if (!img->usw_cache_dev) {
		img->usw_cache_dev = malloc(slots * sizeof(uint64_t));
		img->usw_cache_cum = malloc((slots + 1) * sizeof(uint64_t));
		if (!img->usw_cache_dev || !img->usw_cache_cum)
			return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	img->usw_cache_idx = UINT64_MAX;
	rc = hib_map_read_page(img, idx);
	if (rc)
		return rc;
	first = img->usw_first[idx];
	count = (idx + 1 < img->n_map_pages ? img->usw_first[idx + 1] :
		 img->usw.data_pages) - first;
	for (k = 0; k < slots && sum < count; k++) {
		uint64_t start = hib_get_word(lay, img->mapbuf + k * EXTENT_SIZE, 8);
		uint64_t end = hib_get_word(lay, img->mapbuf + k * EXTENT_SIZE + 8, 8);

		/* Checked by hib_usw_walk_extents(); a device that changed since is
		 * damage, not something to follow. */
		if (start >= end || start % ps || end % ps || start >= img->devsize)
			break;
		if (end > img->devsize)
			end = img->devsize - img->devsize % ps;
		img->usw_cache_dev[n] = start / ps;
		img->usw_cache_cum[n] = sum;
		sum += (end - start) / ps;
		n++;
	}
	if (sum < count)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "extents page %" PRIu64 " (device offset 0x%" PRIx64 ") changed while it was read",
				  idx,
				  img->map_pages[idx] * ps);
	img->usw_cache_cum[n] = sum;
	img->usw_cache_n = n;
	img->usw_cache_idx = idx;
	return HIB_OK;
}

int hib_usw_map_entry(struct hib_image *img, uint64_t i, uint64_t *devpage)
{
	uint64_t pg, rel, k;
	int rc;

	if (i >= img->usw.data_pages)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "data page %" PRIu64 ": image_data_size holds only %" PRIu64 " data pages",
				  i,
				  img->usw.data_pages);
	if (img->usw_cache_idx < img->n_map_pages &&
	    img->usw_first[img->usw_cache_idx] <= i &&
	    i - img->usw_first[img->usw_cache_idx] <
	    img->usw_cache_cum[img->usw_cache_n])
		pg = img->usw_cache_idx;
	else {
		pg = hib_last_le(img->usw_first, sizeof(uint64_t), img->n_map_pages, i);
		rc = cache_page(img, pg);
		if (rc)
			return rc;
	}
	rel = i - img->usw_first[pg];
	k = hib_last_le(img->usw_cache_cum, sizeof(uint64_t), img->usw_cache_n, rel);
	*devpage = img->usw_cache_dev[k] + (rel - img->usw_cache_cum[k]);
	return HIB_OK;
}

int hib_usw_map_page(struct hib_image *img, uint64_t i, struct hib_map_page *mp)
{
	int rc = cache_page(img, i);

	if (rc)
		return rc;
	mp->devpage = img->map_pages[i];
	mp->first_entry = img->usw_first[i];
	mp->entries = (i + 1 < img->n_map_pages ? img->usw_first[i + 1] :
		       img->usw.data_pages) - mp->first_entry;
	mp->extents = img->usw_cache_n;
	return HIB_OK;
}

/* Also where hib_image_load() stopped at encrypted data: the map is read. */
int hib_image_usw_extents_page(struct hib_image *img, uint64_t i, uint64_t *offset,
			       uint64_t *first, uint64_t *data_pages,
			       uint64_t *extents)
{
	struct hib_map_page mp;
	int rc;

	if (!img->usw_loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "no uswsusp extent map loaded");
	rc = hib_usw_map_page(img, i, &mp);
	if (rc)
		return rc;
	*offset = mp.devpage * img->lay.ps;
	*first = mp.first_entry;
	*data_pages = mp.entries;
	*extents = mp.extents;
	return HIB_OK;
}
