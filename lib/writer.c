/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * writer.c - rewrite the image part of a swap area, the way the kernel's
 * swsusp_write() / save_compressed_image() / mark_swapfiles() would have
 * written it, into the slots the source image occupied and nowhere else.
 *
 * Why only those slots: the swap area usually also holds pages the
 * hibernated system had swapped out before it hibernated; after resume its
 * processes read them back. The slots of the image itself are the only ones
 * known to be free in the hibernated system (they were allocated after the
 * snapshot). So: size the new image first (compressing harder where it does
 * not fit), then copy the area, write the image into those slots in the
 * kernel's allocation order, zero the ones left over, and write the resume
 * page last.
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

#define WB_PAGES 256

static const int ladder_lz4[] = { 0, 1, 9, 12 };
static const int ladder_lzo[] = { 1, 999 };
static const int ladder_none[] = { 0 };

static inline bool bit(const uint8_t *b, uint64_t n)
{
	return b[n >> 3] & (1u << (n & 7));
}

static inline void set_bit(uint8_t *b, uint64_t n)
{
	b[n >> 3] |= (uint8_t)(1u << (n & 7));
}

static void put_word(const struct hib_layout *lay, unsigned char *p,
		     uint64_t v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++) {
		unsigned int sh = lay->be ? (size - 1 - i) * 8 : i * 8;

		p[i] = (unsigned char)(v >> sh);
	}
}


/* ---- slots ---------------------------------------------------------------- */

static int collect_slots(struct wctx *w)
{
	struct hib_image *img = w->img;
	uint64_t i, dev;
	int rc;

	w->slots = calloc(img->devpages / 8 + 1, 1);
	if (!w->slots)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	for (i = 0; i < img->n_map_pages; i++)
		set_bit(w->slots, img->map_pages[i]);
	for (i = 0; i < img->info.map_entries; i++) {
		rc = hib_image_map_entry(img, i, &dev);
		if (rc)
			return rc;
		set_bit(w->slots, dev);
	}
	w->nslots = img->n_map_pages + img->info.map_entries;
	return HIB_OK;
}

static bool extra_ok(const struct wctx *w, uint64_t p)
{
	const struct hib_image *img = w->img;

	if (p == 0 || p == img->resume_offset || bit(w->slots, p))
		return false;
	if (img->resume_offset == 0 && img->hdr.swap_version == 1 &&
	    img->hdr.last_page && p > img->hdr.last_page)
		return false;
	return true;
}

static int alloc_slot(struct wctx *w, uint64_t *slot)
{
	struct hib_image *img = w->img;

	while (w->cursor < img->devpages && !bit(w->slots, w->cursor))
		w->cursor++;
	if (w->cursor < img->devpages) {
		*slot = w->cursor++;
		w->slots_used++;
		return HIB_OK;
	}
	/* Only what classify_extra() planned: zero slots, then data slots. */
	if (w->extra_zero) {
		while (w->zero_cursor < img->devpages && !bit(w->extra_zero, w->zero_cursor))
			w->zero_cursor++;
		if (w->zero_cursor < img->devpages) {
			*slot = w->zero_cursor++;
			w->slots_extra++;
			w->slots_extra_zero++;
			return HIB_OK;
		}
		while (w->slots_extra_data < w->plan_data && w->data_cursor < img->devpages &&
		       (!extra_ok(w, w->data_cursor) || bit(w->extra_zero, w->data_cursor)))
			w->data_cursor++;
		if (w->slots_extra_data < w->plan_data && w->data_cursor < img->devpages) {
			*slot = w->data_cursor++;
			w->slots_extra++;
			w->slots_extra_data++;
			return HIB_OK;
		}
	}
	return hib_seterr(img, HIB_ERR_INVAL, "no free slot left for the new image");
}

/*
 * --unsafe-extra-slots: which slots outside the source image read as zero.
 * Extra slots are taken from those first, lowest first; only when there are
 * not enough, from those holding data (pages the hibernated system had
 * swapped out, probably: the kernel does not zero a slot it frees, but an
 * area that was never used that far reads as zero). The scan stops once
 * need zero slots are found; when it does not, it has seen the whole area
 * and extra_ndata is every data slot it could take. Holes of a sparse file
 * count as zero without being read. Memory: one bit per page.
 */
static int classify_extra(struct wctx *w, uint64_t need)
{
	struct hib_image *img = w->img;
	const size_t bs = 1 << 20;
	const uint64_t ps = w->ps, per = bs / ps ? bs / ps : 1;
	uint64_t p = 1, z = 0, d = 0;
	unsigned char *buf;
	int sparse = 1, rc = HIB_OK;

	w->extra_zero = calloc(img->devpages / 8 + 1, 1);
	buf = malloc(per * ps);
	if (!w->extra_zero || !buf) {
		free(buf);
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	while (p < img->devpages && z < need && rc == HIB_OK) {
		uint64_t dstart = p, dend = img->devpages;  /* pages to read */

		if (sparse) {
			off_t dd = lseek(img->fd, (off_t)(p * ps), SEEK_DATA);

			if (dd < 0 && errno == ENXIO) {
				dstart = dend = img->devpages;      /* a hole to the end */
			} else if (dd < 0) {
				sparse = 0;                         /* no SEEK_DATA: read it all */
			} else {
				off_t h = lseek(img->fd, dd, SEEK_HOLE);

				dstart = (uint64_t)dd / ps;
				if (h > dd)
					dend = ((uint64_t)h + ps - 1) / ps;
				if (dstart < p)
					dstart = p;
				if (dstart > img->devpages)
					dstart = img->devpages;
				if (dend > img->devpages)
					dend = img->devpages;
				if (dend <= dstart)                 /* no progress: read a page */
					dend = dstart + 1 <= img->devpages ? dstart + 1 : dstart;
			}
		}
		for (; p < dstart && z < need; p++)         /* a hole: zeros, unread */
			if (extra_ok(w, p)) {
				set_bit(w->extra_zero, p);
				z++;
			}
		p = dstart;
		while (p < dend && z < need && rc == HIB_OK) {
			uint64_t n = dend - p < per ? dend - p : per, k;

			rc = hib_pread(img, buf, n * ps, p * ps,
				       "looking for free slots outside the image");
			for (k = 0; rc == HIB_OK && k < n && z < need; k++, p++) {
				if (!extra_ok(w, p))
					continue;
				if (hib_page_zero(buf + k * ps, w->ps)) {
					set_bit(w->extra_zero, p);
					z++;
				} else {
					d++;
				}
			}
		}
	}
	free(buf);
	w->extra_nzero = z;
	w->extra_ndata = d;
	return rc;
}

static int out_write(struct wctx *w, const void *buf, size_t len, uint64_t off)
{
	return hib_output_pwrite(w->out, buf, len, off);
}

/* swap_write_page(): a slot for the page, and one for the next map page
 * whenever the current one fills up. */
/* Pages bound for consecutive slots go out in one write: slots are handed
 * out in ascending order, so most of an image is a few long runs. */
static int wbuf_flush(struct wctx *w)
{
	int rc = HIB_OK;

	if (w->wb_pages)
		rc = out_write(w, w->wb, w->wb_pages * w->ps, w->wb_slot * w->ps);
	w->wb_pages = 0;
	return rc;
}

static int wbuf_put(struct wctx *w, const unsigned char *page, uint64_t slot)
{
	int rc;

	if (w->wb_pages && (slot != w->wb_slot + w->wb_pages || w->wb_pages == WB_PAGES))
		if ((rc = wbuf_flush(w)))
			return rc;
	if (!w->wb_pages)
		w->wb_slot = slot;
	memcpy(w->wb + w->wb_pages * w->ps, page, w->ps);
	w->wb_pages++;
	return HIB_OK;
}

static int put_page(struct wctx *w, const unsigned char *page)
{
	const struct hib_layout *lay = &w->img->lay;
	uint64_t slot, next;
	int rc;

	rc = alloc_slot(w, &slot);
	if (rc)
		return rc;
	rc = wbuf_put(w, page, slot);
	if (rc)
		return rc;
	put_word(lay, w->mappage + w->map_k * lay->sector, slot, lay->sector);
	if (++w->map_k == w->epm) {
		rc = alloc_slot(w, &next);
		if (rc)
			return rc;
		put_word(lay, w->mappage + w->epm * lay->sector, next, lay->sector);
		rc = out_write(w, w->mappage, w->ps, w->cur_map * w->ps);
		if (rc)
			return rc;
		memset(w->mappage, 0, w->ps);
		w->cur_map = next;
		w->map_k = 0;
	}
	return HIB_OK;
}

/* ---- the new stream --------------------------------------------------------- */

/*
 * Compression runs on the pool: the caller fills a slot with up to 32 stream
 * pages, a worker compresses it and takes its CRC from 0, the caller takes
 * slots back in order, folds the CRC and lays out the pages.
 */
struct wjob {
	unsigned char *unc, *cmp;
	size_t pages;               /* stream pages in unc */
	size_t cmp_len;
	uint64_t chunk;
	int level;
	uint32_t crc;
	int rc;
};

static void compress_job(void *slot, unsigned int worker, void *arg)
{
	struct wjob *j = slot;
	struct wctx *w = arg;
	unsigned int hdr = w->word;
	size_t len = j->pages * w->ps;

	j->rc = hib_compress(&w->codecs[worker], w->o->to, j->level, j->unc, len,
			     j->cmp + hdr, (size_t)CMP_PAGES_MAX * w->ps - hdr,
			     &j->cmp_len);
	if (j->rc == HIB_OK && (j->cmp_len == 0 || j->cmp_len > WORST_COMPRESS(len)))
		j->rc = HIB_ERR_INVAL;
	j->crc = hib_crc32_le(0, j->unc, len);
}

/* Takes the oldest compressed chunk back and lays it out. */
static int drain_one(struct wctx *w)
{
	unsigned int hdr = w->word, i = hib_pool_wait(w->pool);
	struct wjob *j;
	uint64_t pages, k;
	int rc = HIB_OK;

	if (i == UINT32_MAX)
		return HIB_OK;
	j = &w->wjobs[i];
	if (j->rc) {
		rc = hib_seterr(w->img, j->rc, "chunk %llu: %s compression failed or overflowed the kernel's bound",
				(unsigned long long)j->chunk, hib_compression_name(w->o->to));
		goto out;
	}
	put_word(&w->img->lay, j->cmp, j->cmp_len, hdr);
	pages = div_round_up(hdr + j->cmp_len, w->ps);
	w->crc = hib_crc32_le_combine(w->crc, j->crc, j->pages * w->ps);
	w->cmp_bytes += j->cmp_len;
	w->disk_pages += pages;
	if (w->writing) {
		/* padding is zeros, not leftovers as the kernel's are */
		memset(j->cmp + hdr + j->cmp_len, 0, pages * w->ps - hdr - j->cmp_len);
		for (k = 0; k < pages && rc == HIB_OK; k++)
			rc = put_page(w, j->cmp + k * w->ps);
	} else {
		w->chunk_disk[j->chunk] = (uint8_t)pages;
	}
out:
	hib_pool_release(w->pool);
	return rc;
}

static int drain_all(struct wctx *w)
{
	int rc = HIB_OK;

	while (w->pool && hib_pool_pending(w->pool))
		if ((rc = drain_one(w)))
			break;
	return rc;
}

static int flush_chunk(struct wctx *w)
{
	struct wjob *j;
	int rc;

	if (w->cur_slot == UINT32_MAX)
		return HIB_OK;
	j = &w->wjobs[w->cur_slot];
	j->chunk = w->chunk;
	j->level = w->ladder[w->per_chunk ? w->chunk_level[w->chunk] : w->size_level];
	hib_pool_submit(w->pool, w->cur_slot, 1);
	w->cur_slot = UINT32_MAX;
	w->chunk++;
	(void)rc;
	return HIB_OK;
}

static int sink_page(struct wctx *w, const unsigned char *page)
{
	struct wjob *j;
	int rc;

	w->pass_done++;
	if (w->o->progress && (w->pass_done & 0x3fff) == 0)
		w->o->progress(w->phase, w->pass_done, w->stream_pages, w->o->progress_arg);
	if (w->o->to == HIB_COMP_NONE) {
		/* raw: one page per map entry, no CRC */
		w->disk_pages++;
		w->chunk++;
		return w->writing ? put_page(w, page) : HIB_OK;
	}
	if (w->cur_slot == UINT32_MAX) {
		while ((w->cur_slot = hib_pool_acquire(w->pool)) == UINT32_MAX)
			if ((rc = drain_one(w)))
				return rc;
		w->wjobs[w->cur_slot].pages = 0;
	}
	j = &w->wjobs[w->cur_slot];
	memcpy(j->unc + j->pages * w->ps, page, w->ps);
	if (++j->pages == UNC_PAGES)
		return flush_chunk(w);
	return HIB_OK;
}

static int setup_pool(struct wctx *w)
{
	unsigned int threads = w->o->threads ? w->o->threads : hib_online_cpus();
	unsigned int workers = threads > 1 ? threads : 0, i;
	int rc;

	w->cur_slot = UINT32_MAX;
	w->nring = workers ? 2 * workers + 2 : 1;
	w->ncodecs = workers + 1;
	w->codecs = calloc(w->ncodecs, sizeof(*w->codecs));
	w->wjobs = calloc(w->nring, sizeof(*w->wjobs));
	w->wslots = calloc(w->nring, sizeof(*w->wslots));
	if (!w->codecs || !w->wjobs || !w->wslots)
		return hib_seterr(w->img, HIB_ERR_NOMEM, "out of memory");
	for (i = 0; i < w->ncodecs; i++)
		if ((rc = hib_codec_init(&w->codecs[i])))
			return hib_seterr(w->img, rc, "cannot set up the compressors");
	for (i = 0; i < w->nring; i++) {
		w->wjobs[i].unc = malloc((size_t)UNC_PAGES * w->ps);
		w->wjobs[i].cmp = malloc((size_t)CMP_PAGES_MAX * w->ps);
		if (!w->wjobs[i].unc || !w->wjobs[i].cmp)
			return hib_seterr(w->img, HIB_ERR_NOMEM, "out of memory");
		w->wslots[i] = &w->wjobs[i];
	}
	w->pool = hib_pool_new(workers, w->nring, w->wslots, compress_job, w);
	if (!w->pool)
		return hib_seterr(w->img, HIB_ERR_NOMEM, "cannot start threads");
	return HIB_OK;
}

static void free_pool(struct wctx *w)
{
	unsigned int i;

	hib_pool_free(w->pool);
	w->pool = NULL;
	for (i = 0; w->wjobs && i < w->nring; i++) {
		free(w->wjobs[i].unc);
		free(w->wjobs[i].cmp);
	}
	for (i = 0; w->codecs && i < w->ncodecs; i++)
		hib_codec_free(&w->codecs[i]);
	free(w->wjobs);
	free(w->wslots);
	free(w->codecs);
}

static int emit_meta(struct wctx *w)
{
	const struct hib_layout *lay = &w->img->lay;
	uint64_t per = w->ps / w->word, flag = (uint64_t)1 << (w->word * 8 - 1);
	uint64_t e = 0, m;
	int rc;

	for (m = 0; m < w->meta_pages; m++) {
		unsigned char *pg = w->zeropage + w->ps;   /* scratch page */
		uint64_t j;

		memset(pg, 0, w->ps);
		for (j = 0; j < per && e < w->entries; j++, e++) {
			uint64_t pfn;

			if (w->build_pfns)
				pfn = w->build_pfns[e];
			else
				(void)hib_image_pfn_entry(w->img, e, &pfn, NULL);
			if (bit(w->outzero, e))
				pfn |= flag;
			put_word(lay, pg + j * w->word, pfn, w->word);
		}
		if (j < per)
			put_word(lay, pg + j * w->word, ~(uint64_t)0, w->word);
		rc = sink_page(w, pg);
		if (rc)
			return rc;
	}
	return HIB_OK;
}

/* One pass over the source producing the new stream. */
static int run_pass(struct wctx *w, const char *phase)
{
	struct hib_reader *rd;
	struct hib_page pg;
	int rc;

	w->chunk = 0;
	w->cur_slot = UINT32_MAX;
	w->disk_pages = w->cmp_bytes = 0;
	w->crc = 0;
	w->pass_done = 0;
	w->phase = phase;
	rc = emit_meta(w);
	if (rc)
		return rc;
	if (w->build_fn) {
		uint64_t e;

		for (e = 0, rc = 0; e < w->entries && rc == 0; e++) {
			unsigned char *pgbuf = w->zeropage + w->ps;

			if (bit(w->outzero, e))
				continue;
			rc = w->build_fn(w->build_arg, e, pgbuf);
			if (rc)
				rc = hib_seterr(w->img, rc < 0 ? rc : HIB_ERR_INVAL,
						"page source failed at entry %llu",
						(unsigned long long)e);
			else
				rc = sink_page(w, pgbuf);
		}
		goto flushed;
	}
	rc = hib_reader_new(w->img, &rd);
	if (rc)
		return rc;
	rc = hib_reader_set_threads(rd, w->o->threads);
	while (rc == 0 && (rc = hib_reader_next(rd, &pg)) == 1) {
		rc = 0;
		if (bit(w->outzero, pg.entry))
			continue;
		rc = sink_page(w, pg.data ? pg.data : w->zeropage);
		if (rc)
			break;
	}
	hib_reader_free(rd);
flushed:
	if (rc == 0)
		rc = flush_chunk(w);
	if (rc == 0)
		rc = drain_all(w);
	if (rc == 0 && w->pass_done != w->stream_pages)
		rc = hib_seterr(w->img, HIB_ERR_INVAL,
				"internal: %llu stream pages produced, %llu expected",
				(unsigned long long)w->pass_done,
				(unsigned long long)w->stream_pages);
	if (rc == 0 && w->o->progress)
		w->o->progress(phase, w->stream_pages, w->stream_pages, w->o->progress_arg);
	return rc;
}

/* Which entries are zero-flagged in the output. */
static int plan_zero(struct wctx *w)
{
	struct hib_image *img = w->img;
	uint64_t e, n = 0;

	w->outzero = calloc(w->entries / 8 + 1, 1);
	if (!w->outzero)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	if (w->o->zero == HIB_ZERO_KEEP || w->o->zero == HIB_ZERO_OMIT)
		for (e = 0; e < w->entries; e++)
			if (hib_pfn_is_zero(img, e))
				set_bit(w->outzero, e);
	if (w->o->zero == HIB_ZERO_OMIT) {
		struct hib_reader *rd;
		struct hib_page pg;
		int rc = hib_reader_new(img, &rd);

		if (rc)
			return rc;
		rc = hib_reader_set_threads(rd, w->o->threads);
		while (rc == 0 && (rc = hib_reader_next(rd, &pg)) == 1) {
			rc = 0;
			if (pg.data && hib_page_zero(pg.data, w->ps))
				set_bit(w->outzero, pg.entry);
		}
		hib_reader_free(rd);
		if (rc < 0)
			return rc;
	}
	for (e = 0; e < w->entries; e++)
		n += bit(w->outzero, e);
	w->res->zero_flagged = n;
	w->image_pages = w->entries - n;
	w->stream_pages = w->meta_pages + w->image_pages;
	w->nchunks = w->o->to == HIB_COMP_NONE ? w->stream_pages :
		     div_round_up(w->stream_pages, UNC_PAGES);
	return HIB_OK;
}

static uint64_t slots_for(const struct wctx *w, uint64_t disk_pages)
{
	return hib_swap_slots(1 + disk_pages, w->epm);    /* swsusp_info + stream */
}

static int cmp_gain_desc(const void *a, const void *b, void *arg)
{
	const int64_t *gain = arg;
	int64_t ga = gain[*(const uint32_t *)a], gb = gain[*(const uint32_t *)b];

	return ga < gb ? 1 : ga > gb ? -1 :
	       (*(const uint32_t *)a > *(const uint32_t *)b) -
	       (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* Size at the default level; where it does not fit, upgrade the chunks that
 * win the most pages at the next level, then the next. */
static int choose_levels(struct wctx *w)
{
	const struct hib_recompress_opts *o = w->o;
	uint64_t avail = w->nslots, total, k;
	uint8_t *cur_disk = NULL;
	int64_t *gain = NULL;
	uint32_t *order = NULL;
	int li, rc;

	w->chunk_level = calloc(w->nchunks + 1, 1);
	w->chunk_disk = calloc(w->nchunks + 1, 1);
	if (!w->chunk_level || !w->chunk_disk)
		return hib_seterr(w->img, HIB_ERR_NOMEM, "out of memory");
	w->res->level_default = w->ladder[0];
	w->res->level_max = w->ladder[0];
	w->sized = 1;
	if (o->to == HIB_COMP_NONE) {
		w->res->disk_pages = w->stream_pages;   /* known without a pass */
		return HIB_OK;
	}
	/* Even if every chunk came out at the kernel's worst case, would it
	 * fit? Then there is nothing to decide and one pass does it all. */
	if (!o->dry_run) {
		uint64_t worst = slots_for(w, w->nchunks * (uint64_t)CMP_PAGES_MAX);

		if (worst <= avail) {
			w->sized = 0;
			return HIB_OK;
		}
		/* One level and leave to take more slots: nothing to decide,
		 * as long as the slots that read as zero take even the worst
		 * case. Otherwise how many slots holding data it overwrites
		 * must be known before writing, and that takes the size. */
		if (o->unsafe_extra_slots && w->nladder == 1) {
			rc = classify_extra(w, worst - avail);
			if (rc)
				return rc;
			if (w->extra_nzero >= worst - avail) {
				w->sized = 0;
				return HIB_OK;
			}
		}
	}
	w->size_level = 0;
	rc = run_pass(w, "sizing");
	if (rc)
		return rc;
	total = w->disk_pages;
	w->res->level_default = w->ladder[0];
	w->res->level_max = w->ladder[0];
	if (slots_for(w, total) <= avail || w->nladder == 1 ||
	    o->to == HIB_COMP_NONE)
		goto done;

	cur_disk = malloc(w->nchunks + 1);
	gain = malloc((w->nchunks + 1) * sizeof(*gain));
	order = malloc((w->nchunks + 1) * sizeof(*order));
	if (!cur_disk || !gain || !order) {
		rc = hib_seterr(w->img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	memcpy(cur_disk, w->chunk_disk, w->nchunks);
	for (li = 1; li < w->nladder && slots_for(w, total) > avail; li++) {
		w->size_level = li;
		rc = run_pass(w, "sizing harder");
		if (rc)
			goto out;
		for (k = 0; k < w->nchunks; k++) {
			gain[k] = (int64_t)cur_disk[k] - (int64_t)w->chunk_disk[k];
			order[k] = (uint32_t)k;
		}
		qsort_r(order, w->nchunks, sizeof(*order), cmp_gain_desc, gain);
		for (k = 0; k < w->nchunks && slots_for(w, total) > avail; k++) {
			uint32_t c = order[k];

			if (gain[c] <= 0)
				break;
			total -= (uint64_t)gain[c];
			cur_disk[c] = w->chunk_disk[c];
			w->chunk_level[c] = (uint8_t)li;
			w->res->level_max = w->ladder[li];
		}
	}
	/* Sizes of the chosen mix, exactly, for the report. */
	w->per_chunk = 1;
	rc = run_pass(w, "sizing mix");
	if (rc)
		goto out;
	if (w->disk_pages != total) {
		rc = hib_seterr(w->img, HIB_ERR_INVAL, "internal: level mix sized twice differently");
		goto out;
	}
done:
	w->res->disk_pages = total;
	rc = HIB_OK;
out:
	free(cur_disk);
	free(gain);
	free(order);
	return rc;
}

/* ---- output ------------------------------------------------------------------ */


/*
 * Copies the source area except the old image's slots: those are rewritten
 * or, in a new file, left as holes (zeros). Holes of the source and pages of
 * zeros stay holes. A device gets every byte, zeros included.
 */
static int copy_area(struct wctx *w, int sparse)
{
	struct hib_image *img = w->img;
	size_t bs = 1 << 20, ps = w->ps;
	unsigned char *buf = malloc(bs);
	uint64_t off = 0, end;
	int rc = HIB_OK;

	if (!buf)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	while (off < img->devsize && rc == HIB_OK) {
		if (sparse) {
			off_t d = lseek(img->fd, (off_t)off, SEEK_DATA);

			if (d < 0 && errno == ENXIO)
				break;                  /* only a hole is left */
			if (d >= 0) {
				off_t h = lseek(img->fd, d, SEEK_HOLE);

				off = (uint64_t)d & ~(uint64_t)(ps - 1);
				end = h > d ? ((uint64_t)h + ps - 1) & ~(uint64_t)(ps - 1) :
				      img->devsize;
			} else {
				end = img->devsize;     /* no SEEK_DATA here */
			}
		} else {
			end = img->devsize;
		}
		if (end > img->devsize)
			end = img->devsize;
		while (off < end && rc == HIB_OK) {
			size_t n = end - off < bs ? (size_t)(end - off) : bs, i, run = 0;

			rc = hib_pread(img, buf, n, off, "copying the swap area");
			for (i = 0; rc == HIB_OK && i <= n; i += ps) {
				uint64_t pg = (off + i) / ps;
				bool skip = i == n || (pg < img->devpages && bit(w->slots, pg)) ||
					    (sparse && i + ps <= n && hib_page_zero(buf + i, w->ps));

				if (!skip && i + ps <= n) {
					run += ps;
					continue;
				}
				if (run)
					rc = out_write(w, buf + i - run, run, off + i - run);
				run = 0;
				if (i < n && !skip)     /* a partial last page */
					rc = out_write(w, buf + i, n - i, off + i);
			}
			off += n;
		}
	}
	free(buf);
	if (rc == HIB_OK && sparse)
		rc = hib_output_set_size(w->out, img->devsize);
	return rc;
}

static int write_image(struct wctx *w)
{
	struct hib_image *img = w->img;
	const struct hib_layout *lay = &img->lay;
	unsigned char *rp;
	int rc;

	w->writing = 1;
	w->per_chunk = 1;
	w->cursor = 1;
	w->zero_cursor = w->data_cursor = 1;
	w->slots_extra = w->slots_extra_zero = w->slots_extra_data = 0;
	w->map_k = 0;
	memset(w->mappage, 0, w->ps);
	rc = alloc_slot(w, &w->first_map);          /* get_swap_writer() */
	if (rc)
		return rc;
	w->cur_map = w->first_map;
	w->wb = malloc((size_t)WB_PAGES * w->ps);
	if (!w->wb)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	rc = put_page(w, w->hdrpage);               /* swsusp_info, raw */
	if (rc == HIB_OK)
		rc = run_pass(w, "writing");
	if (rc == HIB_OK)
		rc = wbuf_flush(w);
	free(w->wb);
	w->wb = NULL;
	if (rc)
		return rc;
	rc = out_write(w, w->mappage, w->ps, w->cur_map * w->ps);  /* flush */
	if (rc)
		return rc;
	/* Old slots the new image did not need hold nothing of value now. */
	memset(w->zeropage, 0, w->ps);
	while (!w->fresh && w->o->device && w->cursor < img->devpages) {
		if (bit(w->slots, w->cursor)) {
			rc = out_write(w, w->zeropage, w->ps, w->cursor * w->ps);
			if (rc)
				return rc;
		}
		w->cursor++;
	}
	/* mark_swapfiles(): the resume page keeps the swap header; only the
	 * hibernation fields change. */
	rp = w->zeropage + w->ps;
	if (w->fresh) {
		/* what mkswap writes: union swap_header */
		memset(rp, 0, w->ps);
		put_word(lay, rp + 1024, 1, 4);
		put_word(lay, rp + 1028, img->devpages - 1, 4);
		memcpy(rp + 1052, "hibimg-built", 12);
		memcpy(rp + w->ps - 20, "SWAPSPACE2", 10);
	} else {
		rc = hib_pread(img, rp, w->ps, img->resume_offset * w->ps, "resume page");
		if (rc)
			return rc;
	}
	memcpy(rp + w->ps - 10, HIBERNATE_SIG, 10);
	put_word(lay, rp + w->ps - 32, w->first_map, lay->sector);
	put_word(lay, rp + w->ps - 24, w->res->flags, 4);
	put_word(lay, rp + w->ps - 36,
		 (w->res->flags & HIB_SF_CRC32_MODE) ? w->crc : 0, 4);
	return out_write(w, rp, w->ps, img->resume_offset * w->ps);
}

static void new_header_page(struct wctx *w)
{
	const struct hib_layout *lay = &w->img->lay;
	unsigned int o_np = w->word == 8 ? 400 : 396;
	uint64_t pages = w->stream_pages + 1;

	if (w->hdrpage != w->img->info_page)
		memcpy(w->hdrpage, w->img->info_page, w->ps);
	put_word(lay, w->hdrpage + o_np + 2 * w->word, w->image_pages, w->word);
	put_word(lay, w->hdrpage + o_np + 3 * w->word, pages, w->word);
	put_word(lay, w->hdrpage + o_np + 4 * w->word, pages * w->ps, w->word);
}

static const char *needs_kernel(const struct wctx *w)
{
	if (w->o->to == HIB_COMP_LZ4)
		return "6.9";
	if (w->res->zero_flagged)
		return "6.6";
	if (w->o->to != HIB_COMP_NONE)
		return "3.2";
	return "2.6.37";
}

/* Everything a rewrite or a build holds; an output not yet committed is
 * removed. */
static void wctx_release(struct wctx *w, int rc)
{
	(void)hib_output_close(w->out, rc ? rc : HIB_ERR_INVAL);
	free_pool(w);
	free(w->hdrpage);
	free(w->zeropage);
	free(w->mappage);
	free(w->outzero);
	free(w->slots);
	free(w->extra_zero);
	free(w->chunk_level);
	free(w->chunk_disk);
}

int hib_recompress(struct hib_image *img, const char *out,
		   const struct hib_recompress_opts *o,
		   struct hib_recompress_result *res)
{
	struct wctx w;
	int rc;

	memset(res, 0, sizeof(*res));
	memset(&w, 0, sizeof(w));
	w.cur_slot = UINT32_MAX;
	if (!img->loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	/* It writes the kernel's format into the source's slots; a uswsusp
	 * source has its own container that would be left inconsistent. */
	if (img->hdr.kind == HIB_KIND_USWSUSP)
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "%s: recompress rewrites in-kernel images only, not a uswsusp (suspend-utils) image",
				  img->path);
	rc = hib_image_load_pfns(img);
	if (rc)
		return rc;
	w.img = img;
	w.o = o;
	w.res = res;
	w.ps = img->lay.ps;
	w.word = img->lay.word;
	w.epm = img->map_page_entries;
	w.entries = img->pfns.entries;
	w.meta_pages = img->info.meta_pages;
	switch (o->to) {
	case HIB_COMP_LZ4: w.ladder = ladder_lz4; w.nladder = 4; break;
	case HIB_COMP_LZO: w.ladder = ladder_lzo; w.nladder = 2; break;
	default:           w.ladder = ladder_none; w.nladder = 1; break;
	}
	if (o->level != HIB_LEVEL_AUTO) {
		w.fixed_level = o->level;
		w.ladder = &w.fixed_level;
		w.nladder = 1;
	}
	w.hdrpage = malloc(w.ps);
	w.zeropage = calloc(2, w.ps);
	w.mappage = calloc(1, w.ps);
	if (!w.hdrpage || !w.zeropage || !w.mappage) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = setup_pool(&w);
	if (rc)
		goto out;
	res->flags = (img->hdr.flags & (HIB_SF_PLATFORM_MODE | HIB_SF_HW_SIG)) |
		     (o->to == HIB_COMP_NONE ? HIB_SF_NOCOMPRESS_MODE : HIB_SF_CRC32_MODE) |
		     (o->to == HIB_COMP_LZ4 ? HIB_SF_COMPRESSION_ALG_LZ4 : 0);

	rc = collect_slots(&w);
	if (rc == HIB_OK)
		rc = plan_zero(&w);
	if (rc == HIB_OK)
		rc = choose_levels(&w);
	if (rc)
		goto out;
	res->slots_source = w.nslots;
	res->slots_needed = slots_for(&w, res->disk_pages);
	res->stream_pages = w.stream_pages;
	res->image_pages = w.image_pages;
	res->cmp_bytes = w.cmp_bytes;
	res->chunks = w.nchunks;
	for (uint64_t k = 0; k < w.nchunks && o->to != HIB_COMP_NONE; k++)
		res->chunks_harder += w.chunk_level[k] != 0;
	res->needs_kernel = needs_kernel(&w);
	res->slots_extra = res->slots_needed > w.nslots ? res->slots_needed - w.nslots : 0;
	if (res->slots_extra && !o->unsafe_extra_slots) {
		rc = hib_seterr(img, HIB_ERR_INVAL,
				"the new image needs %llu slots, the source image occupied %llu: %llu missing even at the hardest level (--unsafe-extra-slots takes others, which may hold pages the hibernated system had swapped out)",
				(unsigned long long)res->slots_needed,
				(unsigned long long)w.nslots,
				(unsigned long long)res->slots_extra);
		goto out;
	}
	if (res->slots_extra) {
		uint64_t nzero, ndata;

		/* (choose_levels() may have looked already: then either it
		 * found enough zero slots, or it has seen the whole area.) */
		if (!w.extra_zero)
			rc = classify_extra(&w, res->slots_extra);
		if (rc)
			goto out;
		nzero = w.extra_nzero;
		ndata = w.extra_ndata;
		res->slots_extra_zero = nzero < res->slots_extra ? nzero : res->slots_extra;
		res->slots_extra_data = res->slots_extra - res->slots_extra_zero;
		w.plan_data = res->slots_extra_data;
		if (res->slots_extra_data > ndata) {
			rc = hib_seterr(img, HIB_ERR_INVAL,
					"the new image needs %llu slots outside the source image, the area has only %llu (%llu read as zero, %llu hold data)",
					(unsigned long long)res->slots_extra,
					(unsigned long long)(nzero + ndata),
					(unsigned long long)nzero, (unsigned long long)ndata);
			goto out;
		}
		if (res->slots_extra_data && !o->overwrite_swapped_out) {
			rc = hib_seterr(img, HIB_ERR_INVAL,
					"the new image needs %llu slots outside the source image: %llu read as zero, %llu hold data (pages the hibernated system had swapped out, probably); --overwrite-swapped-out writes over them",
					(unsigned long long)res->slots_extra,
					(unsigned long long)res->slots_extra_zero,
					(unsigned long long)res->slots_extra_data);
			goto out;
		}
	}
	if (o->dry_run)
		goto out;

	new_header_page(&w);
	rc = hib_output_open(img, out, (o->output_flags & HIB_OUTPUT_FORCE) |
			     HIB_OUTPUT_DEVICE_OK | (o->device ? HIB_OUTPUT_DEVICE : 0),
			     img->devsize, &w.out);
	if (rc == HIB_OK)
		rc = copy_area(&w, !o->device);
	if (rc == HIB_OK)
		rc = write_image(&w);
	if (rc == HIB_OK) {
		res->crc32 = w.crc;
		res->cmp_bytes = w.cmp_bytes;
		if (!w.sized) {
			res->disk_pages = w.disk_pages;
			res->slots_needed = slots_for(&w, w.disk_pages);
			/* only zero slots could be taken */
			res->slots_extra = w.slots_extra;
			res->slots_extra_zero = w.slots_extra_zero;
			res->slots_extra_data = w.slots_extra_data;
		}
		if (w.slots_extra != res->slots_extra ||
		    w.slots_extra_zero != res->slots_extra_zero ||
		    w.slots_extra_data != res->slots_extra_data)
			rc = hib_seterr(img, HIB_ERR_INVAL,
					"internal: planned %llu extra slots (%llu zero), took %llu (%llu zero)",
					(unsigned long long)res->slots_extra,
					(unsigned long long)res->slots_extra_zero,
					(unsigned long long)w.slots_extra,
					(unsigned long long)w.slots_extra_zero);
		if (res->disk_pages != w.disk_pages)
			rc = hib_seterr(img, HIB_ERR_INVAL,
					"internal: sized %llu disk pages, wrote %llu",
					(unsigned long long)res->disk_pages,
					(unsigned long long)w.disk_pages);
	}
	/* The stream is the source's when only the codec changed: its CRC
	 * must come out the same. */
	if (rc == HIB_OK && o->to != HIB_COMP_NONE &&
	    (img->hdr.flags & HIB_SF_CRC32_MODE) &&
	    res->zero_flagged == img->pfns.zero_flagged &&
	    res->image_pages == img->info.image_pages) {
		res->crc_compared = 1;
		if (w.crc != img->hdr.crc32)
			rc = hib_seterr(img, HIB_ERR_DAMAGED,
					"CRC32 of the rewritten stream 0x%08x differs from the source's 0x%08x",
					w.crc, img->hdr.crc32);
	}
	rc = hib_output_close(w.out, rc);
	w.out = NULL;
out:
	wctx_release(&w, rc);
	return rc;
}

/*
 * hib_image_build - write a new swap area holding an image made of pages the
 * caller supplies: for benchmarks and what-if images, never for evidence.
 * The image is laid out from slot 1 as on an empty swap area; the area is
 * as large as the worst case needs and sparse.
 */
int hib_image_build(struct hib_image *img, const char *out,
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
	for (e = 1; e < entries; e++)
		if (pfns[e] <= pfns[e - 1])
			return hib_seterr(img, HIB_ERR_INVAL, "PFNs must ascend (entry %llu)",
					  (unsigned long long)e);
	img->lay.ps = 4096;
	img->lay.word = 8;
	img->lay.sector = 8;
	img->lay.be = false;
	img->map_page_entries = img->lay.ps / img->lay.sector - 1;

	w.img = img;
	w.o = &ro;
	w.res = res;
	w.fresh = 1;
	w.ps = img->lay.ps;
	w.word = img->lay.word;
	w.epm = img->map_page_entries;
	w.entries = entries;
	w.meta_pages = div_round_up(entries * w.word, w.ps);
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
	area = 1 + slots_for(&w, worst);
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
	put_word(&img->lay, w.hdrpage + 400, o->num_physpages ? o->num_physpages :
		 pfns[entries - 1] + 1, 8);
	img->info_page = w.hdrpage;
	new_header_page(&w);
	img->info_page = NULL;

	rc = setup_pool(&w);
	if (rc)
		goto out;
	res->flags = (o->to == HIB_COMP_NONE ? HIB_SF_NOCOMPRESS_MODE : HIB_SF_CRC32_MODE) |
		     (o->to == HIB_COMP_LZ4 ? HIB_SF_COMPRESSION_ALG_LZ4 : 0);
	w.per_chunk = 1;
	rc = hib_output_open(img, out, o->output_flags & HIB_OUTPUT_FORCE, 0, &w.out);
	if (rc == HIB_OK)
		rc = hib_output_set_size(w.out, img->devsize);
	if (rc == HIB_OK)
		rc = write_image(&w);
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
		res->needs_kernel = needs_kernel(&w);
	}
out:
	wctx_release(&w, rc);
	img->devpages = 0;
	img->devsize = 0;
	return rc;
}
