/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map.c - the swap-map chain (kernel/power/swap.c, struct swap_map_page):
 * MAP_PAGE_ENTRIES = PS / sizeof(sector_t) - 1 device page numbers, then
 * next_swap. The chain is walked once, up front, as the kernel's reader does;
 * only the map pages' own numbers are kept, entries are re-read on demand so
 * memory does not grow with the image.
 *
 * The kernel trusts this chain. We do not: every number is bounded by the
 * device, and a bitmap of used device pages catches cycles and two entries
 * naming one slot.
 */
#include "hibimgP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hib_map_read_page(struct hib_image *img, uint64_t idx)
{
	int rc;
	char what[96];

	if (img->mapbuf_idx == idx)
		return HIB_OK;
	if (idx >= img->n_map_pages)
		return hib_seterr(img, HIB_ERR_INVAL, "map page %llu does not exist",
				  (unsigned long long)idx);
	snprintf(what, sizeof(what), "%s page %llu (device page %llu)",
		 img->hdr.kind == HIB_KIND_USWSUSP ? "extents" : "swap map",
		 (unsigned long long)idx, (unsigned long long)img->map_pages[idx]);
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

int hib_map_walk(struct hib_image *img)
{
	const struct hib_layout *lay = &img->lay;
	uint64_t E = lay->ps / lay->sector - 1;
	uint64_t cur = img->hdr.image, cap = 0, entries = 0;
	uint8_t *used = NULL;
	bool ended = false;
	const char *why;
	int rc = HIB_OK;

	img->map_page_entries = E;
	img->n_map_pages = 0;
	img->mapbuf_idx = UINT64_MAX;
	free(img->mapbuf);
	img->mapbuf = malloc(lay->ps);
	used = calloc(img->devpages / 8 + 1, 1);
	if (!img->mapbuf || !used) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((why = hib_bad_page(img, cur))) {
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"header: first swap map page %llu is %s",
				(unsigned long long)cur, why);
		goto out;
	}
	used[img->resume_offset >> 3] |= (uint8_t)(1u << (img->resume_offset & 7));

	while (cur) {
		uint64_t idx = img->n_map_pages, k, next;

		if (bit_test_set(used, cur)) {
			rc = hib_seterr(img, HIB_ERR_DAMAGED,
					"swap map page %llu: device page %llu is already used by the image (map chain loops or overlaps data)",
					(unsigned long long)idx, (unsigned long long)cur);
			goto out;
		}
		if (idx == cap) {
			uint64_t *n;

			cap = cap ? cap * 2 : 64;
			n = realloc(img->map_pages, cap * sizeof(*n));
			if (!n) {
				rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
				goto out;
			}
			img->map_pages = n;
		}
		img->map_pages[idx] = cur;
		img->n_map_pages = idx + 1;
		rc = hib_map_read_page(img, idx);
		if (rc)
			goto out;
		for (k = 0; k < E; k++) {
			uint64_t v = hib_get_word(lay, img->mapbuf + k * lay->sector,
						  lay->sector);
			if (v == 0) {
				/* The kernel's reader stops at the first 0. */
				ended = true;
				continue;
			}
			if (ended)
				continue;
			if ((why = hib_bad_page(img, v))) {
				rc = hib_seterr(img, HIB_ERR_DAMAGED,
						"swap map page %llu (device page %llu) entry %llu (map entry %llu): device page %llu is %s",
						(unsigned long long)idx, (unsigned long long)cur,
						(unsigned long long)k,
						(unsigned long long)(idx * E + k),
						(unsigned long long)v, why);
				goto out;
			}
			if (bit_test_set(used, v)) {
				rc = hib_seterr(img, HIB_ERR_DAMAGED,
						"swap map page %llu (device page %llu) entry %llu (map entry %llu): device page %llu is used twice",
						(unsigned long long)idx, (unsigned long long)cur,
						(unsigned long long)k,
						(unsigned long long)(idx * E + k),
						(unsigned long long)v);
				goto out;
			}
			entries++;
		}
		next = hib_get_word(lay, img->mapbuf + E * lay->sector, lay->sector);
		if (next && (why = hib_bad_page(img, next))) {
			rc = hib_seterr(img, HIB_ERR_DAMAGED,
					"swap map page %llu (device page %llu): next_swap %llu is %s",
					(unsigned long long)idx, (unsigned long long)cur,
					(unsigned long long)next, why);
			goto out;
		}
		cur = next;
	}
	img->info.map_pages = img->n_map_pages;
	img->info.map_entries = entries;
out:
	free(used);
	return rc;
}

int hib_image_map_page(struct hib_image *img, uint64_t i, uint64_t *devpage)
{
	if (!img->loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	if (i >= img->n_map_pages)
		return hib_seterr(img, HIB_ERR_INVAL, "no map page %llu",
				  (unsigned long long)i);
	*devpage = img->map_pages[i];
	return HIB_OK;
}

int hib_image_map_entry(struct hib_image *img, uint64_t i, uint64_t *devpage)
{
	uint64_t E = img->map_page_entries;
	int rc;

	if (!img->loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	if (img->hdr.kind == HIB_KIND_USWSUSP)
		return hib_uswsusp_map_entry(img, i, devpage);
	if (i >= img->info.map_entries)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "map entry %llu: the swap map has only %llu entries",
				  (unsigned long long)i,
				  (unsigned long long)img->info.map_entries);
	rc = hib_map_read_page(img, i / E);
	if (rc)
		return rc;
	*devpage = hib_get_word(&img->lay, img->mapbuf + (i % E) * img->lay.sector,
				img->lay.sector);
	return HIB_OK;
}
