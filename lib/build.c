/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * build.c - hib_image_build(): a new swap area around an image of pages
 * the caller supplies, written by the same emitter as a rewrite (emit.c).
 * Nothing is read from a source: there are no slots to keep and none to
 * find, only the layout of an empty area.
 */
#include "writerP.h"

#include <stdlib.h>
#include <string.h>

/*
 * hib_image_build - write a new swap area holding an image made of pages the
 * caller supplies: for benchmarks and what-if images, never for evidence.
 * The image is laid out from slot 1 as on an empty swap area; the area is
 * as large as the worst case needs and sparse.
 */
static int build(struct hib_image *img, const char *out,
		 const struct hib_build_opts *o, uint64_t entries,
		 const uint64_t *pfns, const uint8_t *zero_bits,
		 hib_build_page_fn fn, void *arg,
		 struct hib_recompress_result *res)
{
	struct hib_recompress_opts ro = { .to = o->to, .level = o->level,
					  .threads = o->threads,
					  .progress = o->progress,
					  .progress_arg = o->progress_arg };
	struct wctx w;
	uint64_t e, worst, area;
	int rc;

	memset(res, 0, sizeof(*res));
	memset(&w, 0, sizeof(w));
	w.cur_slot = UINT32_MAX;
	if (img->opened || img->loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "hib_image_build needs a new handle");
	if (!entries || !pfns || !fn)
		return hib_seterr(img, HIB_ERR_INVAL, "no pages to build an image from");
	/* Another kernel's layout: its PAGE_SIZE (what libblkid and the
	 * header probe try: 4K..64K) and sizeof(long). sector_t is 64-bit on
	 * every kernel since 5.2, 32-bit ones too: the map keeps 8-byte words. */
	if (o->page_size & (o->page_size - 1) ||
	    (o->page_size && (o->page_size < HIB_MIN_PS || o->page_size > HIB_MAX_PS)))
		return hib_seterr(img, HIB_ERR_INVAL,
				  "page size %u: not a power of two from %u to %u",
				  o->page_size, HIB_MIN_PS, HIB_MAX_PS);
	if (o->word_size && o->word_size != 4 && o->word_size != 8)
		return hib_seterr(img, HIB_ERR_INVAL, "word size %u: neither 4 nor 8",
				  o->word_size);
	img->lay.ps = o->page_size ? o->page_size : 4096;
	img->lay.word = o->word_size ? o->word_size : 8;
	img->lay.sector = 8;
	img->lay.be = false;
	/* the top bit of a PFN-list word is ENCODED_PFN_ZERO_FLAG, and a
	 * 32-bit writer's PFNs are 32-bit */
	if (pfns[entries - 1] >= hib_pfn_zero_flag(img->lay.word))
		return hib_seterr(img, HIB_ERR_INVAL, "PFN 0x%" PRIx64 " does not fit a %u-byte word",
				  pfns[entries - 1], img->lay.word);
	for (e = 1; e < entries; e++)
		if (pfns[e] <= pfns[e - 1])
			return hib_seterr(img, HIB_ERR_INVAL, "PFNs must ascend (entry %" PRIu64 ")",
					  e);
	img->map_page_entries = img->lay.ps / img->lay.sector - 1;

	w.img = img;
	w.o = &ro;
	w.res = res;
	w.fresh = 1;
	w.ps = img->lay.ps;
	w.word = img->lay.word;
	w.epm = img->map_page_entries;
	w.entries = entries;
	w.meta_pages = hib_pfn_list_pages(entries, w.word, w.ps);
	w.build_fn = fn;
	w.build_arg = arg;
	w.build_pfns = pfns;
	w.fixed_level = o->level == HIB_LEVEL_AUTO ? (o->to == HIB_COMP_LZO ? 1 : 0) : o->level;
	w.ladder = &w.fixed_level;
	w.nladder = 1;
	w.outzero = calloc(entries / 8 + 1, 1);
	w.chunk_level = NULL;
	w.hdrpage = calloc(1, w.ps);
	w.zeropage = calloc(2, w.ps);
	w.mappage = calloc(1, w.ps);
	if (!w.outzero || !w.hdrpage || !w.zeropage || !w.mappage) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (e = 0; e < entries; e++)
		if (zero_bits && bit(zero_bits, e)) {
			set_bit(w.outzero, e);
			res->zero_flagged++;
		}
	w.image_pages = entries - res->zero_flagged;
	w.stream_pages = w.meta_pages + w.image_pages;
	w.nchunks = o->to == HIB_COMP_NONE ? w.stream_pages :
		    div_round_up(w.stream_pages, UNC_PAGES);
	w.chunk_level = calloc(w.nchunks + 1, 1);
	if (!w.chunk_level) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	worst = o->to == HIB_COMP_NONE ? w.stream_pages : w.nchunks * CMP_PAGES_MAX;
	area = 1 + hib_w_slots_for(&w, worst);
	img->devpages = area;
	img->devsize = area * w.ps;
	w.slots = malloc(area / 8 + 1);
	if (!w.slots) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	memset(w.slots, 0xff, area / 8 + 1);
	w.slots[0] &= (uint8_t)~1u;                 /* page 0: the header */
	w.nslots = area - 1;

	/* swsusp_info: the caller's template keeps its arch record */
	if (o->info_template)
		memcpy(w.hdrpage, o->info_template, w.ps);
	/* num_physpages, an unsigned long after version_code (snapshot.c) */
	hib_w_put_word(&img->lay, w.hdrpage + (w.word == 8 ? 400 : 396),
		       o->num_physpages ? o->num_physpages : pfns[entries - 1] + 1, w.word);
	img->info_page = w.hdrpage;
	hib_w_new_header_page(&w);
	img->info_page = NULL;

	rc = hib_w_setup_pool(&w);
	if (rc)
		goto out;
	res->flags = (o->to == HIB_COMP_NONE ? HIB_SF_NOCOMPRESS_MODE : HIB_SF_CRC32_MODE) |
		     (o->to == HIB_COMP_LZ4 ? HIB_SF_COMPRESSION_ALG_LZ4 : 0);
	w.per_chunk = 1;
	rc = hib_output_open(img, out, o->output_flags & HIB_OUTPUT_FORCE, 0, &w.out);
	if (rc == HIB_OK)
		rc = hib_output_set_size(w.out, img->devsize);
	if (rc == HIB_OK)
		rc = hib_w_write_image(&w);
	rc = hib_output_close(w.out, rc);
	w.out = NULL;
	if (rc == HIB_OK) {
		res->slots_source = w.nslots;
		res->slots_needed = w.slots_used;
		res->stream_pages = w.stream_pages;
		res->image_pages = w.image_pages;
		res->disk_pages = w.disk_pages;
		res->cmp_bytes = w.cmp_bytes;
		res->chunks = w.nchunks;
		res->crc32 = w.crc;
		res->level_default = res->level_max = w.fixed_level;
		res->needs_kernel = hib_w_needs_kernel(&w);
	}
out:
	hib_w_release(&w, rc);
	img->devpages = 0;
	img->devsize = 0;
	return rc;
}

int hib_image_build(struct hib_image *img, const char *out,
		    const struct hib_build_opts *opts, uint64_t entries,
		    const uint64_t *pfns, const uint8_t *zero_bits,
		    hib_build_page_fn fn, void *arg,
		    struct hib_recompress_result *res)
{
	struct hib_build_opts o;
	struct hib_recompress_result full;
	int rc = HIB_ABI_IN(img, hib_build_opts, &o, opts);

	if (rc == HIB_OK)
		rc = HIB_ABI_SIZE(img, hib_recompress_result, res);
	if (rc)
		return rc;
	rc = build(img, out, &o, entries, pfns, zero_bits, fn, arg, &full);
	hib_abi_out(res, &full);
	return rc;
}
