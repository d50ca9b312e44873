/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to the writer: emit.c (the stream, the map and the resume page),
 * recompress.c (hib_recompress()) and build.c (hib_image_build()). They
 * share one context, struct wctx: what the image is, how it is sized and
 * where its slots are.
 */
#ifndef _HIBIMG_WRITERP_H
#define _HIBIMG_WRITERP_H

#include "hibimgP.h"

#define MAX_LADDER 4

struct wctx {
	struct hib_image *img;
	const struct hib_recompress_opts *o;
	struct hib_recompress_result *res;
	unsigned int ps, word;
	uint64_t epm;               /* MAP_PAGE_ENTRIES */
	uint64_t entries;           /* PFN-list entries (unchanged by a rewrite) */
	uint64_t meta_pages;
	uint64_t image_pages;       /* of the new image */
	uint64_t stream_pages;      /* pages - 1 of the new image */
	uint64_t nchunks;
	uint8_t *outzero;           /* entry is zero-flagged in the output */
	unsigned char *hdrpage;     /* new swsusp_info */
	unsigned char *zeropage, *mappage;
	struct hib_pool *pool;
	struct wjob *wjobs;
	void **wslots;
	unsigned int nring, cur_slot;
	struct hib_codec *codecs;   /* one per worker, [0] for the caller */
	unsigned int ncodecs;
	uint64_t chunk;             /* chunk being filled */

	/* per pass */
	int writing;
	int per_chunk;              /* levels from chunk_level[], not size_level */
	const int *ladder;
	int nladder;
	int fixed_level;
	uint8_t *chunk_level;       /* index into ladder, per chunk */
	uint8_t *chunk_disk;        /* disk pages per chunk at the size pass's level */
	int size_level;             /* ladder index the size pass uses */
	uint64_t disk_pages, cmp_bytes;
	uint32_t crc;
	uint64_t pass_done;
	const char *phase;

	/* hib_image_build(): pages from the caller instead of a source image */
	hib_build_page_fn build_fn;
	void *build_arg;
	const uint64_t *build_pfns;
	int fresh;                  /* a new area: nothing to keep, nothing to zero */
	int sized;                  /* disk pages known before writing */

	/* slots */
	uint8_t *slots;             /* bitmap of the source image's slots */
	uint64_t nslots;
	uint64_t cursor;            /* next slot to look at */
	/* unsafe: slots outside the set, zero ones first, then data ones */
	uint8_t *extra_zero;        /* bitmap: outside the set, read as zero */
	uint64_t zero_cursor, data_cursor;
	uint64_t extra_nzero, extra_ndata;  /* found by classify_extra() */
	uint64_t plan_data;         /* data slots the plan allows */
	uint64_t slots_used, slots_extra, slots_extra_zero, slots_extra_data;
	struct hib_output *out;
	uint64_t cur_map, map_k, first_map;
	unsigned char *wb;          /* write-combining buffer */
	uint64_t wb_slot, wb_pages;
};

/*
 * The emitter's sizing pass: what it would write for a stream, without
 * writing it. Chunks and raw pages go in, in stream order; out come the
 * pages they take on disk and, with swsusp_info and the swap-map pages,
 * the slots. drain_one() lays every chunk out by the same rule, so the
 * analyses that size what-if streams (stats.c, simulate.c) and the writer
 * cannot drift apart.
 */
struct hib_w_size {
	struct hib_layout lay;
	uint64_t epm;               /* MAP_PAGE_ENTRIES */
	uint64_t chunks;            /* chunks, or raw pages */
	uint64_t cmp_bytes;         /* sum of the chunks' cmp_len */
	uint64_t disk_pages;        /* stream pages on disk: chunk or raw pages */
};

/* emit.c */
HIB_HIDDEN uint64_t hib_w_chunk_pages(const struct hib_layout *lay, size_t cmp_len);
HIB_HIDDEN void hib_w_size_init(struct hib_w_size *z, const struct hib_layout *lay);
HIB_HIDDEN uint64_t hib_w_size_chunk(struct hib_w_size *z, size_t cmp_len);
HIB_HIDDEN void hib_w_size_raw(struct hib_w_size *z, uint64_t pages);
HIB_HIDDEN uint64_t hib_w_size_map_pages(const struct hib_w_size *z);
HIB_HIDDEN uint64_t hib_w_size_slots(const struct hib_w_size *z);
HIB_HIDDEN void hib_w_put_word(const struct hib_layout *lay, unsigned char *p,
			       uint64_t v, unsigned int size);
HIB_HIDDEN bool hib_w_extra_ok(const struct wctx *w, uint64_t p);
HIB_HIDDEN int hib_w_out_write(struct wctx *w, const void *buf, size_t len, uint64_t off);
HIB_HIDDEN int hib_w_setup_pool(struct wctx *w);
HIB_HIDDEN int hib_w_run_pass(struct wctx *w, const char *phase);
HIB_HIDDEN uint64_t hib_w_slots_for(const struct wctx *w, uint64_t disk_pages);
HIB_HIDDEN int hib_w_write_image(struct wctx *w);
HIB_HIDDEN void hib_w_new_header_page(struct wctx *w);
HIB_HIDDEN const char *hib_w_needs_kernel(const struct wctx *w);
HIB_HIDDEN void hib_w_release(struct wctx *w, int rc);

#endif
