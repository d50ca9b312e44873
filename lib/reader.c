/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * reader.c - the image stream, consumed once in order, as pages in
 * PFN-list order: the handle, the PFN list (the first meta_pages stream
 * pages), then one data page for each entry that is not zero-flagged, and
 * the end-of-stream checks, the kernel's CRC or the container's finish().
 * Stream pages come from readahead.c.
 */
#include "readerP.h"

#include <stdlib.h>

int hib_reader_new(struct hib_image *img, struct hib_reader **out)
{
	struct hib_reader *rd;

	*out = NULL;
	if (!img->loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	rd->img = img;
	rd->threads = 1;
	if (img->partial) {
		int rc = hib_image_load_pfns(img);

		if (rc == HIB_OK)
			rc = hib_sv_cache_init(img, &rd->svc);
		if (rc) {
			free(rd);
			return rc;
		}
		rd->partial = true;
		rd->state = RD_DATA;
	}
	rd->ct = img->ct;
	rd->next_entry = rd->ct->first_entry;
	rd->stream_pages = img->info.pages - 1;
	/* a container whose data begins with swsusp_info reads it again */
	rd->plan_total = rd->ct->first_entry ? rd->stream_pages : img->info.pages;
	rd->prog.stream_pages = rd->stream_pages;
	/* the entries before first_entry (swsusp_info) were read by load */
	rd->prog.disk_bytes_read = rd->ct->first_entry * img->lay.ps;
	rd->want_crc = rd->ct->kernel_reader && img->info.compression != HIB_COMP_NONE;
	if (rd->ct->sum_size) {
		rd->sum = calloc(1, rd->ct->sum_size);
		if (!rd->sum) {
			free(rd);
			return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		}
		if (!rd->ct->sum_begin(img, rd->sum)) {
			free(rd->sum);
			rd->sum = NULL;
		}
	}
	*out = rd;
	return HIB_OK;
}

int hib_reader_set_threads(struct hib_reader *rd, unsigned int n)
{
	if (rd->pool)
		return hib_seterr(rd->img, HIB_ERR_INVAL,
				  "threads must be set before the first page");
	rd->threads = n ? n : hib_online_cpus();
	return HIB_OK;
}

void hib_reader_free(struct hib_reader *rd)
{
	if (!rd)
		return;
	hib_rd_ring_free(rd);
	hib_sv_cache_free(&rd->svc);
	free(rd->sum);
	free(rd);
}

int hib_reader_set_partial(struct hib_reader *rd, int on)
{
	struct hib_image *img = rd->img;
	int rc;

	if (rd->pool || rd->pfn_entry || rd->state != (rd->partial ? RD_DATA : RD_META))
		return hib_seterr(img, HIB_ERR_INVAL,
				  "best effort must be set before the first page");
	if (!on == !rd->partial)
		return HIB_OK;
	rc = hib_image_set_partial(img, on);
	if (rc)
		return rc;
	if (!on) {
		hib_sv_cache_free(&rd->svc);
		rd->partial = false;
		rd->state = RD_META;
		return HIB_OK;
	}
	rc = hib_image_load_pfns(img);
	if (rc == HIB_OK)
		rc = hib_sv_cache_init(img, &rd->svc);
	if (rc)
		return rc;
	rd->partial = true;
	rd->state = RD_DATA;
	return HIB_OK;
}

void hib_reader_set_chunk_cb(struct hib_reader *rd, hib_chunk_cb cb, void *arg)
{
	rd->chunk_cb = cb;
	rd->chunk_arg = arg;
}

int hib_reader_progress(const struct hib_reader *rd, struct hib_progress *p)
{
	struct hib_progress full = rd->prog;
	int rc = HIB_ABI_SIZE(rd->img, hib_progress, p);

	if (rc)
		return rc;
	full.crc32 = rd->crc;
	hib_abi_out(p, &full);
	return HIB_OK;
}

static int fail(struct hib_reader *rd, int rc)
{
	rd->state = RD_FAILED;
	rd->fail_rc = rc;
	return rc;
}

static int read_meta(struct hib_reader *rd)
{
	struct hib_image *img = rd->img;
	const struct hib_layout *lay = &img->lay;
	const struct hib_info *in = &img->info;
	uint64_t per_page = lay->ps / lay->word, m, n = 0, last = 0;
	bool terminated = false;
	int rc;

	hib_pfn_index_reset(img, in->meta_pages);
	for (m = 0; m < in->meta_pages; m++) {
		const unsigned char *pg;
		uint64_t j;

		rc = hib_rd_stream_page(rd, &pg);
		if (rc)
			return rc;
		for (j = 0; j < per_page; j++) {
			uint64_t v = hib_get_word(lay, pg + j * lay->word, lay->word), pfn;
			bool zero;

			if (!hib_pfn_decode(lay->word, v, &pfn, &zero)) {
				terminated = true;
				break;
			}
			if (terminated)
				return hib_seterr(img, HIB_ERR_DAMAGED,
						  "PFN list page %" PRIu64 " (stream page %" PRIu64 "): entries after the end-of-map marker",
						  m,
						  m + 1);
			if (n > 0 && pfn <= last)
				return hib_seterr(img, HIB_ERR_DAMAGED,
						  "PFN list page %" PRIu64 " entry %" PRIu64 " (list entry %" PRIu64 "): PFN 0x%" PRIx64 " does not ascend (previous 0x%" PRIx64 ")",
						  m, j,
						  n,
						  pfn,
						  last);
			rc = hib_pfn_index_add(img, n, pfn, zero);
			if (rc)
				return rc;
			last = pfn;
			n++;
		}
	}
	if (n != in->image_pages + img->pfns.zero_flagged)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "PFN list: %" PRIu64 " entries, but image_pages %" PRIu64 " + %" PRIu64 " zero-flagged = %" PRIu64,
				  n,
				  in->image_pages,
				  img->pfns.zero_flagged,
				  in->image_pages + img->pfns.zero_flagged);
	if (hib_pfn_list_pages(n, lay->word, lay->ps) != in->meta_pages)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "PFN list: %" PRIu64 " entries need %" PRIu64 " pages, swsusp_info implies %" PRIu64,
				  n,
				  hib_pfn_list_pages(n, lay->word, lay->ps),
				  in->meta_pages);
	img->pfns_loaded = true;
	return HIB_OK;
}

static int finish(struct hib_reader *rd)
{
	struct hib_image *img = rd->img;
	const struct hib_header *h = &img->hdr;

	if (rd->sp != rd->stream_pages)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "stream: %" PRIu64 " pages used, swsusp_info says %" PRIu64,
				  rd->sp,
				  rd->stream_pages);
	if (rd->holding)
		rd->prog.chunks_done += rd->chunk.cmp_len ? 1 : rd->chunk.disk_pages;
	if (rd->ct->finish) {
		struct hib_stream_end end = {
			.chunk = rd->chunk,
			.held = rd->holding,
			.left_pages = rd->holding && rd->unc_pos < rd->unc_len ?
				      (rd->unc_len - rd->unc_pos) / img->lay.ps : 0,
			.chunk_pages = rd->unc_len / img->lay.ps,
			.entries_used = rd->next_entry,
		};

		return rd->ct->finish(img, &end, rd->sum, &rd->prog);
	}
	if (h->flags & HIB_SF_CRC32_MODE) {
		rd->prog.crc_checked = 1;
		rd->prog.crc_ok = (rd->crc == h->crc32);
		if (!rd->prog.crc_ok)
			return hib_seterr(img, HIB_ERR_DAMAGED,
					  "CRC32 mismatch over %" PRIu64 " stream pages: header 0x%08x, data 0x%08x (kernel: \"Invalid image CRC32!\")",
					  rd->stream_pages,
					  h->crc32, rd->crc);
	}
	return HIB_OK;
}

/* Entry e's PFN and kind into pg; true when it is a data page, whose
 * bytes the caller fetches. */
static bool place_entry(struct hib_reader *rd, struct hib_page *pg, uint64_t e)
{
	struct hib_image *img = rd->img;

	while (rd->run + 1 < img->n_runs && img->runs[rd->run + 1].first_entry <= e)
		rd->run++;
	pg->entry = e;
	pg->pfn = img->runs[rd->run].start_pfn + (e - img->runs[rd->run].first_entry);
	pg->data = NULL;
	if (hib_pfn_is_zero(img, e)) {
		pg->kind = HIB_PAGE_ZERO_FLAGGED;
		return false;
	}
	pg->kind = HIB_PAGE_DATA;
	return true;
}

/* Best effort: the walk's index holds only pages it recovered; a data
 * page's stream page follows the previous one's but where a jump says. */
static int salvage_next(struct hib_reader *rd, struct hib_page *pg)
{
	struct hib_image *img = rd->img;
	const struct hib_salvage *s = img->salv;
	uint64_t e = rd->pfn_entry, sp;
	int rc;

	if (e >= img->pfns.entries) {
		rd->state = RD_DONE;
		return 0;
	}
	if (place_entry(rd, pg, e)) {
		if (rd->sv_jump < s->njp && s->jp[rd->sv_jump].entry == e)
			sp = s->jp[rd->sv_jump++].sp;
		else
			sp = rd->sv_last + 1;
		rd->sv_last = sp;
		rc = hib_sv_page(img, &rd->svc, sp, &pg->data);
		if (rc == HIB_OK && !pg->data)
			rc = hib_seterr(img, HIB_ERR_INVAL,
					"internal: stream page %" PRIu64 " of entry %" PRIu64 " was not recovered",
					sp, e);
		if (rc)
			return fail(rd, rc);
		rd->prog.data_pages_done++;
		rd->prog.stream_pages_done = sp;
	}
	rd->pfn_entry++;
	return 1;
}

int hib_reader_next_page(struct hib_reader *rd, struct hib_page *pg)
{
	struct hib_image *img = rd->img;
	uint64_t e;
	int rc;

	if (rd->partial && rd->state == RD_DATA)
		return salvage_next(rd, pg);
	switch (rd->state) {
	case RD_FAILED:
		return rd->fail_rc;
	case RD_DONE:
		return 0;
	case RD_META:
		rc = read_meta(rd);
		if (rc)
			return fail(rd, rc);
		rd->state = RD_DATA;
		break;
	case RD_DATA:
		break;
	}

	e = rd->pfn_entry;
	if (e >= img->pfns.entries) {
		rc = finish(rd);
		if (rc)
			return fail(rd, rc);
		rd->state = RD_DONE;
		return 0;
	}
	if (place_entry(rd, pg, e)) {
		rc = hib_rd_stream_page(rd, &pg->data);
		if (rc)
			return fail(rd, rc);
		rd->prog.data_pages_done++;
	}
	rd->pfn_entry++;
	return 1;
}

/* The public entry: checks the caller's struct; lib/'s own loops call
 * hib_reader_next_page() with a full one. */
int hib_reader_next(struct hib_reader *rd, struct hib_page *pg)
{
	struct hib_page full;
	int rc = HIB_ABI_SIZE(rd->img, hib_page, pg);

	if (rc == HIB_OK && (rc = hib_reader_next_page(rd, &full)) == 1)
		hib_abi_out(pg, &full);
	return rc;
}

int hib_image_load_pfns(struct hib_image *img)
{
	struct hib_reader *rd;
	int rc;

	if (img->pfns_loaded)
		return HIB_OK;
	if (img->partial)
		return hib_salvage_walk(img);
	rc = hib_reader_new(img, &rd);
	if (rc)
		return rc;
	rc = read_meta(rd);
	hib_reader_free(rd);
	return rc;
}
