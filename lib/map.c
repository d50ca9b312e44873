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

static int map_walk(struct hib_image *img)
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
				"header: first swap map page %" PRIu64 " is %s",
				cur, why);
		goto out;
	}
	set_bit(used, img->resume_offset);

	while (cur) {
		uint64_t idx = img->n_map_pages, k, next;

		if (bit_test_set(used, cur)) {
			rc = hib_seterr(img, HIB_ERR_DAMAGED,
					"swap map page %" PRIu64 ": device page %" PRIu64 " is already used by the image (map chain loops or overlaps data)",
					idx, cur);
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
			/* best effort on a cut copy: the walk stops at the cut */
			if (img->partial && !img->in_place && v >= img->devpages) {
				entries++;
				continue;
			}
			if ((why = hib_bad_page(img, v))) {
				rc = hib_seterr(img, HIB_ERR_DAMAGED,
						"swap map page %" PRIu64 " (device page %" PRIu64 ") entry %" PRIu64 " (map entry %" PRIu64 "): device page %" PRIu64 " is %s",
						idx, cur,
						k,
						idx * E + k,
						v, why);
				goto out;
			}
			if (bit_test_set(used, v)) {
				rc = hib_seterr(img, HIB_ERR_DAMAGED,
						"swap map page %" PRIu64 " (device page %" PRIu64 ") entry %" PRIu64 " (map entry %" PRIu64 "): device page %" PRIu64 " is used twice",
						idx, cur,
						k,
						idx * E + k,
						v);
				goto out;
			}
			entries++;
		}
		next = hib_get_word(lay, img->mapbuf + E * lay->sector, lay->sector);
		if (next && (why = hib_bad_page(img, next))) {
			rc = hib_seterr(img, HIB_ERR_DAMAGED,
					"swap map page %" PRIu64 " (device page %" PRIu64 "): next_swap %" PRIu64 " is %s",
					idx, cur,
					next, why);
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
		return hib_seterr(img, HIB_ERR_INVAL, "no map page %" PRIu64,
				  i);
	*devpage = img->map_pages[i];
	return HIB_OK;
}

static int swsusp_map_entry(struct hib_image *img, uint64_t i, uint64_t *devpage)
{
	uint64_t E = img->map_page_entries;
	int rc;

	if (i >= img->info.map_entries)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "map entry %" PRIu64 ": the swap map has only %" PRIu64 " entries",
				  i,
				  img->info.map_entries);
	rc = hib_map_read_page(img, i / E);
	if (rc)
		return rc;
	*devpage = hib_get_word(&img->lay, img->mapbuf + (i % E) * img->lay.sector,
				img->lay.sector);
	return HIB_OK;
}

/* A map page holds MAP_PAGE_ENTRIES entries; the chain fills each before
 * the next, so only the last is short. */
static int swsusp_map_page(struct hib_image *img, uint64_t i, struct hib_map_page *mp)
{
	uint64_t E = img->map_page_entries, first = i * E;
	uint64_t left = img->info.map_entries > first ? img->info.map_entries - first : 0;

	mp->devpage = img->map_pages[i];
	mp->first_entry = first;
	mp->entries = left < E ? left : E;
	mp->extents = 0;
	return HIB_OK;
}

/* The kernel's container: header flags, the map chain, swsusp_info. */
static int swsusp_load(struct hib_image *img)
{
	struct hib_info *in = &img->info;
	uint64_t dev0, max_stream;
	char where[96];
	int rc;

	if (img->hdr.flags & ~HIB_SF_KNOWN)
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "header: unknown flag bits 0x%x (flags 0x%x): written by a kernel this version does not know",
				  img->hdr.flags & ~HIB_SF_KNOWN, img->hdr.flags);
	if ((img->hdr.flags & HIB_SF_NOCOMPRESS_MODE) &&
	    (img->hdr.flags & (HIB_SF_CRC32_MODE | HIB_SF_COMPRESSION_ALG_LZ4)))
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "header: flags 0x%x combine NOCOMPRESS_MODE with compression flags",
				  img->hdr.flags);
	/* Not damage: a copy of a swap file keeps device pages in its map. */
	if (img->copy_suspect)
		return hib_swapfile_copy_error(img);
	in->compression = (img->hdr.flags & HIB_SF_NOCOMPRESS_MODE) ? HIB_COMP_NONE :
			  (img->hdr.flags & HIB_SF_COMPRESSION_ALG_LZ4) ? HIB_COMP_LZ4 :
			  HIB_COMP_LZO;

	rc = map_walk(img);
	if (rc)
		return rc;
	if (in->map_entries == 0)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "swap map page 0 (device page %" PRIu64 "): no entries",
				  img->map_pages[0]);

	img->loaded = true;     /* map access works from here on */
	img->info_page = malloc(img->lay.ps);
	if (!img->info_page)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	rc = swsusp_map_entry(img, 0, &dev0);
	if (rc == HIB_OK)
		rc = hib_pread(img, img->info_page, img->lay.ps, dev0 * img->lay.ps,
			       "swsusp_info page (map entry 0)");
	if (rc)
		goto fail;
	snprintf(where, sizeof(where), "map entry 0, device page %" PRIu64,
		 dev0);
	rc = hib_info_decode(img, where);
	if (rc)
		goto fail;

	/* The map must be able to hold the stream, at the best ratio a chunk
	 * can reach (32 pages in one disk page); this bounds everything the
	 * header's counts could make us allocate or read. */
	max_stream = in->compression == HIB_COMP_NONE ? in->map_entries - 1 :
		     (in->map_entries - 1) * UNC_PAGES;
	if (in->pages - 1 > max_stream) {
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"swsusp_info: %" PRIu64 " stream pages cannot fit in the %" PRIu64 " pages the swap map lists",
				in->pages - 1,
				in->map_entries - 1);
		goto fail;
	}
	return HIB_OK;
fail:
	img->loaded = false;
	return rc;
}

/* The kernel keeps a CRC32 of the stream only where it compressed it
 * (swsusp_write() sets SF_CRC32_MODE with compression). */
static bool swsusp_checksum(const struct hib_image *img, struct hib_checksum *c)
{
	if (img->hdr.flags & HIB_SF_CRC32_MODE) {
		c->kind = HIB_CHECKSUM_CRC32;
		c->crc32 = img->hdr.crc32;
	} else {
		c->kind = HIB_CHECKSUM_NONE;
		c->none_why = "uncompressed image: the kernel keeps no checksum";
	}
	return true;
}

const struct hib_container hib_swsusp = {
	.name = "swsusp",
	.map_page_name = "swap map",
	.kernel_chunks = true,
	.kernel_reader = true,
	.first_entry = 1,           /* entry 0 is swsusp_info */
	.entry_name = "map entry",
	.load = swsusp_load,
	.map_entry = swsusp_map_entry,
	.map_page = swsusp_map_page,
	.checksum = swsusp_checksum,
};
