/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * emit.c - the writer's emitter: lays a new image out the way the kernel's
 * swsusp_write() / save_compressed_image() / mark_swapfiles() would have,
 * for hib_recompress() and hib_image_build() alike. Slots are taken in the
 * kernel's allocation order, the stream is compressed chunk by chunk on the
 * pool with its CRC, every full swap-map page goes out as it fills, and the
 * resume page is written last. What the image is made of, and which slots it
 * may take, the caller has put in struct wctx (writerP.h).
 */
#include "writerP.h"

#include <stdlib.h>
#include <string.h>

/* the write-combining buffer: 1 MiB whatever the page size (16 pages of
 * 64 KiB, not 256 of them) */
#define WB_BYTES (1u << 20)

void hib_w_put_word(const struct hib_layout *lay, unsigned char *p,
		    uint64_t v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++) {
		unsigned int sh = lay->be ? (size - 1 - i) * 8 : i * 8;

		p[i] = (unsigned char)(v >> sh);
	}
}

/* ---- slots ---------------------------------------------------------------- */

bool hib_w_extra_ok(const struct wctx *w, uint64_t p)
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
		       (!hib_w_extra_ok(w, w->data_cursor) || bit(w->extra_zero, w->data_cursor)))
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

int hib_w_out_write(struct wctx *w, const void *buf, size_t len, uint64_t off)
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
		rc = hib_w_out_write(w, w->wb, w->wb_pages * w->ps, w->wb_slot * w->ps);
	w->wb_pages = 0;
	return rc;
}

static int wbuf_put(struct wctx *w, const unsigned char *page, uint64_t slot)
{
	int rc;

	if (w->wb_pages && (slot != w->wb_slot + w->wb_pages || w->wb_pages == WB_BYTES / w->ps))
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
	hib_w_put_word(lay, w->mappage + w->map_k * lay->sector, slot, lay->sector);
	if (++w->map_k == w->epm) {
		rc = alloc_slot(w, &next);
		if (rc)
			return rc;
		hib_w_put_word(lay, w->mappage + w->epm * lay->sector, next, lay->sector);
		rc = hib_w_out_write(w, w->mappage, w->ps, w->cur_map * w->ps);
		if (rc)
			return rc;
		memset(w->mappage, 0, w->ps);
		w->cur_map = next;
		w->map_k = 0;
	}
	return HIB_OK;
}

/* ---- sizing: what the emitter writes, without writing ------------------------ */

/* save_compressed_image(): a size_t cmp_len header, the data, and the
 * rest of the last page left as padding. */
uint64_t hib_w_chunk_pages(const struct hib_layout *lay, size_t cmp_len)
{
	return div_round_up(lay->word + (uint64_t)cmp_len, lay->ps);
}

void hib_w_size_init(struct hib_w_size *z, const struct hib_layout *lay)
{
	memset(z, 0, sizeof(*z));
	z->lay = *lay;
	z->epm = lay->ps / lay->sector - 1;
}

uint64_t hib_w_size_chunk(struct hib_w_size *z, size_t cmp_len)
{
	uint64_t pages = hib_w_chunk_pages(&z->lay, cmp_len);

	z->chunks++;
	z->cmp_bytes += cmp_len;
	z->disk_pages += pages;
	return pages;
}

/* save_image(): one page per map entry */
void hib_w_size_raw(struct hib_w_size *z, uint64_t pages)
{
	z->chunks += pages;
	z->disk_pages += pages;
}

uint64_t hib_w_size_slots(const struct hib_w_size *z)
{
	return hib_swap_slots(1 + z->disk_pages, z->epm);    /* swsusp_info + stream */
}

uint64_t hib_w_size_map_pages(const struct hib_w_size *z)
{
	return hib_w_size_slots(z) - 1 - z->disk_pages;
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
		rc = hib_seterr(w->img, j->rc, "chunk %" PRIu64 ": %s compression failed or overflowed the kernel's bound",
				j->chunk, hib_compression_name(w->o->to));
		goto out;
	}
	hib_w_put_word(&w->img->lay, j->cmp, j->cmp_len, hdr);
	pages = hib_w_chunk_pages(&w->img->lay, j->cmp_len);
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

int hib_w_setup_pool(struct wctx *w)
{
	unsigned int threads = w->o->threads ? w->o->threads : hib_online_cpus();
	unsigned int workers = hib_ring_workers(threads, w->ps), i;
	int rc;

	w->cur_slot = UINT32_MAX;
	w->nring = hib_ring_slots(workers);
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
	uint64_t per = w->ps / w->word;
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
			hib_w_put_word(lay, pg + j * w->word,
				       hib_pfn_encode(w->word, pfn, bit(w->outzero, e)),
				       w->word);
		}
		if (j < per)
			hib_w_put_word(lay, pg + j * w->word, hib_pfn_end(w->word), w->word);
		rc = sink_page(w, pg);
		if (rc)
			return rc;
	}
	return HIB_OK;
}

/* One pass over the source producing the new stream. */
int hib_w_run_pass(struct wctx *w, const char *phase)
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
						"page source failed at entry %" PRIu64,
						e);
			else
				rc = sink_page(w, pgbuf);
		}
		goto flushed;
	}
	rc = hib_reader_new(w->img, &rd);
	if (rc)
		return rc;
	rc = hib_reader_set_threads(rd, w->o->threads);
	while (rc == 0 && (rc = hib_reader_next_page(rd, &pg)) == 1) {
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
				"internal: %" PRIu64 " stream pages produced, %" PRIu64 " expected",
				w->pass_done,
				w->stream_pages);
	if (rc == 0 && w->o->progress)
		w->o->progress(phase, w->stream_pages, w->stream_pages, w->o->progress_arg);
	return rc;
}

/* ---- output ------------------------------------------------------------------ */

uint64_t hib_w_slots_for(const struct wctx *w, uint64_t disk_pages)
{
	return hib_swap_slots(1 + disk_pages, w->epm);    /* swsusp_info + stream */
}

int hib_w_write_image(struct wctx *w)
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
	w->wb = malloc(WB_BYTES);
	if (!w->wb)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	rc = put_page(w, w->hdrpage);               /* swsusp_info, raw */
	if (rc == HIB_OK)
		rc = hib_w_run_pass(w, "writing");
	if (rc == HIB_OK)
		rc = wbuf_flush(w);
	free(w->wb);
	w->wb = NULL;
	if (rc)
		return rc;
	rc = hib_w_out_write(w, w->mappage, w->ps, w->cur_map * w->ps);  /* flush */
	if (rc)
		return rc;
	/* Old slots the new image did not need hold nothing of value now. */
	memset(w->zeropage, 0, w->ps);
	while (!w->fresh && w->o->device && w->cursor < img->devpages) {
		if (bit(w->slots, w->cursor)) {
			rc = hib_w_out_write(w, w->zeropage, w->ps, w->cursor * w->ps);
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
		hib_w_put_word(lay, rp + 1024, 1, 4);
		hib_w_put_word(lay, rp + 1028, img->devpages - 1, 4);
		memcpy(rp + 1052, "hibimg-built", 12);
		memcpy(rp + w->ps - 20, "SWAPSPACE2", 10);
	} else {
		rc = hib_pread(img, rp, w->ps, img->resume_offset * w->ps, "resume page");
		if (rc)
			return rc;
	}
	memcpy(rp + w->ps - 10, HIBERNATE_SIG, 10);
	hib_w_put_word(lay, rp + w->ps - 32, w->first_map, lay->sector);
	hib_w_put_word(lay, rp + w->ps - 24, w->res->flags, 4);
	hib_w_put_word(lay, rp + w->ps - 36,
		       (w->res->flags & HIB_SF_CRC32_MODE) ? w->crc : 0, 4);
	return hib_w_out_write(w, rp, w->ps, img->resume_offset * w->ps);
}

void hib_w_new_header_page(struct wctx *w)
{
	const struct hib_layout *lay = &w->img->lay;
	unsigned int o_np = w->word == 8 ? 400 : 396;
	uint64_t pages = w->stream_pages + 1;

	if (w->hdrpage != w->img->info_page)
		memcpy(w->hdrpage, w->img->info_page, w->ps);
	hib_w_put_word(lay, w->hdrpage + o_np + 2 * w->word, w->image_pages, w->word);
	hib_w_put_word(lay, w->hdrpage + o_np + 3 * w->word, pages, w->word);
	hib_w_put_word(lay, w->hdrpage + o_np + 4 * w->word, pages * w->ps, w->word);
}

const char *hib_w_needs_kernel(const struct wctx *w)
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
void hib_w_release(struct wctx *w, int rc)
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
