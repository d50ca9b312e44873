/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * reader.c - the image stream, consumed once in order.
 *
 * Map entry 0 is swsusp_info (read by hib_image_load()). After it come the
 * stream pages 1..pages-1: raw, one per entry (SF_NOCOMPRESS_MODE), or chunks
 * of a size_t cmp_len, cmp_len bytes of LZO/LZ4 and padding to the page,
 * each decoding to at most UNC_PAGES pages (load_compressed_image() in
 * kernel/power/swap.c). The first meta_pages stream pages are the PFN list,
 * the rest are data pages in PFN-list order, zero-flagged PFNs having none.
 *
 * The CRC is the kernel's: crc32_le from 0 over every decoded chunk buffer
 * (not the header page, not the compressed bytes).
 *
 * The container (probe.c) says how its entries line up with the stream.
 * suspend-utils' holds the same stream in the same framing, but its entries
 * are its data pages and start with swsusp_info (first_entry 0): raw, entry
 * 0 is stream page 0; compressed, block 0 decodes to stream pages 0..31. So
 * reading starts at entry 0 and drops stream page 0 from the first chunk.
 * A container's own checksum (uswsusp's MD5) is folded over every decoded
 * buffer in stream order on the caller's thread, and its finish() replaces
 * the kernel's CRC check.
 */
#include "hibimgP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum rd_state { RD_META, RD_DATA, RD_DONE, RD_FAILED };

/*
 * One slot of the read-ahead ring: the caller reads a chunk's disk pages into
 * it (I/O stays on one thread, in order), a worker decodes it and takes its
 * CRC from 0, the caller folds the CRCs in stream order. For raw images a
 * slot holds up to UNC_PAGES pages read straight into unc.
 */
struct rjob {
	struct hib_chunk chunk;
	uint64_t devpages[UNC_PAGES];   /* raw: device page of each page */
	unsigned char *cmp, *unc;
	size_t unc_len;
	uint32_t crc;
	int rc;
	char err[sizeof(((struct hib_image *)0)->err)];
	char what[160];                 /* its place, for the worker's messages too */
	int raw;
};

struct hib_reader {
	struct hib_image *img;
	enum rd_state state;
	int fail_rc;

	/* the chunk being consumed */
	const unsigned char *unc;
	size_t unc_len, unc_pos;
	struct hib_chunk chunk;
	bool holding;                /* a ring slot is being consumed */

	/* read-ahead */
	unsigned int threads;
	struct hib_pool *pool;
	struct rjob *jobs;
	void **slots;
	unsigned int nslots;
	uint64_t next_entry;         /* next map entry to read */
	uint64_t planned;            /* stream pages the read-ahead expects */
	uint64_t produced;           /* chunks read */
	bool prod_done;

	uint64_t stream_pages;       /* pages - 1 */
	uint64_t plan_total;         /* stream pages the chunks hold */
	uint64_t sp;                 /* stream pages handed out */
	uint64_t pfn_entry;          /* next PFN-list entry to emit */
	uint64_t run;                /* index run cursor */
	uint32_t crc;
	bool want_crc;
	const struct hib_container *ct;
	void *sum;                   /* the container's own checksum, or NULL */
	struct hib_progress prog;

	hib_chunk_cb chunk_cb;
	void *chunk_arg;
};

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
	rd->ct = img->ct;
	rd->next_entry = rd->ct->first_entry;
	rd->stream_pages = img->info.pages - 1;
	/* a container whose data begins with swsusp_info reads it again */
	rd->plan_total = rd->ct->first_entry ? rd->stream_pages : img->info.pages;
	rd->prog.stream_pages = rd->stream_pages;
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
	unsigned int i;

	if (!rd)
		return;
	hib_pool_free(rd->pool);
	for (i = 0; rd->jobs && i < rd->nslots; i++) {
		free(rd->jobs[i].cmp);
		free(rd->jobs[i].unc);
	}
	free(rd->jobs);
	free(rd->slots);
	free(rd->sum);
	free(rd);
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

/* Reads n consecutive map entries into buf, one pread per run of
 * consecutive device pages. */
static int read_entries(struct hib_reader *rd, uint64_t first, uint64_t n,
			unsigned char *buf, uint64_t *devs, const char *what)
{
	struct hib_image *img = rd->img;
	unsigned int ps = img->lay.ps;
	uint64_t i = 0;

	while (i < n) {
		uint64_t start, dev, run = 1;
		int rc = hib_image_map_entry(img, first + i, &start);

		if (rc)
			return rc;
		if (devs)
			devs[i] = start;
		while (i + run < n) {
			rc = hib_image_map_entry(img, first + i + run, &dev);
			if (rc)
				return rc;
			if (dev != start + run)
				break;
			if (devs)
				devs[i + run] = dev;
			run++;
		}
		rc = hib_pread(img, buf + i * ps, run * ps, start * ps, what);
		if (rc)
			return rc;
		rd->prog.disk_bytes_read += run * ps;
		i += run;
	}
	return HIB_OK;
}

/* Worker side: decode and check one chunk, CRC from 0. Touches only the job. */
static void decode_job(void *slot, unsigned int worker, void *arg)
{
	struct rjob *j = slot;
	struct hib_reader *rd = arg;
	const struct hib_image *img = rd->img;
	unsigned int ps = img->lay.ps, hdr = img->lay.word;
	enum hib_compression c = img->info.compression;
	size_t unc_len = 0;
	int rc;

	(void)worker;
	rc = hib_decompress(c, j->cmp + hdr, j->chunk.cmp_len, j->unc,
			    (size_t)UNC_PAGES * ps, &unc_len);
	if (rc) {
		j->rc = HIB_ERR_DAMAGED;
		snprintf(j->err, sizeof(j->err),
			 "%s at device offset 0x%llx: %s decompression failed (error %d, %llu compressed bytes)",
			 j->what, (unsigned long long)(j->chunk.devpage * ps),
			 hib_compression_name(c), rc,
			 (unsigned long long)j->chunk.cmp_len);
		return;
	}
	if (unc_len == 0 || unc_len % ps) {
		j->rc = HIB_ERR_DAMAGED;
		snprintf(j->err, sizeof(j->err),
			 "%s at device offset 0x%llx: invalid uncompressed length %zu (not a whole number of pages)",
			 j->what, (unsigned long long)(j->chunk.devpage * ps), unc_len);
		return;
	}
	j->unc_len = unc_len;
	j->chunk.unc_len = unc_len;
	/* The kernel's CRC covers the whole decoded buffer, in chunk order. */
	j->crc = rd->want_crc ? hib_crc32_le(0, j->unc, unc_len) : 0;
}

static int setup_ring(struct hib_reader *rd)
{
	unsigned int ps = rd->img->lay.ps, workers, i;

	workers = rd->threads > 1 ? rd->threads : 0;
	/* enough slots that every worker has one while the caller reads the
	 * next and consumes the oldest */
	rd->nslots = workers ? 2 * workers + 2 : 1;
	rd->jobs = calloc(rd->nslots, sizeof(*rd->jobs));
	rd->slots = calloc(rd->nslots, sizeof(*rd->slots));
	if (!rd->jobs || !rd->slots)
		return hib_seterr(rd->img, HIB_ERR_NOMEM, "out of memory");
	for (i = 0; i < rd->nslots; i++) {
		rd->jobs[i].cmp = malloc((size_t)CMP_PAGES_MAX * ps);
		rd->jobs[i].unc = malloc((size_t)UNC_PAGES * ps);
		if (!rd->jobs[i].cmp || !rd->jobs[i].unc)
			return hib_seterr(rd->img, HIB_ERR_NOMEM, "out of memory");
		rd->slots[i] = &rd->jobs[i];
	}
	rd->pool = hib_pool_new(workers, rd->nslots, rd->slots, decode_job, rd);
	if (!rd->pool)
		return hib_seterr(rd->img, HIB_ERR_NOMEM, "cannot start threads");
	return HIB_OK;
}

/* Caller side: read the next chunk (or group of raw pages) into a slot.
 * An error becomes the slot's result, so it surfaces in stream order. */
static void produce(struct hib_reader *rd)
{
	struct hib_image *img = rd->img;
	const struct hib_info *in = &img->info;
	unsigned int ps = img->lay.ps, hdr = img->lay.word;
	uint64_t e = rd->next_entry, cmp_len, need, dev = 0;
	unsigned int i = hib_pool_acquire(rd->pool);
	struct rjob *j;
	char *what;
	int rc;

	if (i == UINT32_MAX)
		return;
	j = &rd->jobs[i];
	what = j->what;
	memset(&j->chunk, 0, sizeof(j->chunk));
	j->rc = 0;
	j->err[0] = 0;
	j->unc_len = 0;
	j->chunk.index = rd->produced;
	j->chunk.map_entry = e;
	j->raw = in->compression == HIB_COMP_NONE;

	rc = hib_image_map_entry(img, e, &dev);
	if (rc)
		goto failed;
	j->chunk.devpage = dev;
	snprintf(what, sizeof(j->what), "chunk %llu (%s %llu, device page %llu)",
		 (unsigned long long)rd->produced,
		 rd->ct->entry_name, (unsigned long long)e,
		 (unsigned long long)dev);

	if (j->raw) {
		uint64_t left = rd->plan_total - rd->planned, n = UNC_PAGES;

		if (n > left)
			n = left ? left : 1;
		if (n > in->map_entries - e)
			n = in->map_entries - e;
		rc = read_entries(rd, e, n, j->unc, j->devpages, what);
		if (rc)
			goto failed;
		j->unc_len = n * ps;
		j->chunk.disk_pages = n;
		j->chunk.unc_len = n * ps;
		rd->next_entry = e + n;
		rd->planned += n;
		rd->produced += n;
		hib_pool_submit(rd->pool, i, 0);
		return;
	}

	rc = read_entries(rd, e, 1, j->cmp, NULL, what);
	if (rc)
		goto failed;
	cmp_len = hib_get_word(&img->lay, j->cmp, hdr);
	if (cmp_len == 0 || cmp_len > WORST_COMPRESS((uint64_t)UNC_PAGES * ps)) {
		/* the kernel's own words, for in-kernel images */
		const char *says = !rd->ct->kernel_reader ? "" :
				   in->compression == HIB_COMP_LZ4 ?
				   " (kernel: \"Invalid LZ4 compressed length\")" :
				   " (kernel: \"Invalid LZO compressed length\")";

		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"%s at device offset 0x%llx: invalid compressed length %llu%s",
				what, (unsigned long long)(dev * ps),
				(unsigned long long)cmp_len, says);
		goto failed;
	}
	need = div_round_up(hdr + cmp_len, ps);
	if (e + need > in->map_entries) {
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"%s: needs %llu pages but the swap map ends after %llu entries",
				what, (unsigned long long)need,
				(unsigned long long)in->map_entries);
		goto failed;
	}
	if (need > 1) {
		rc = read_entries(rd, e + 1, need - 1, j->cmp + ps, NULL, what);
		if (rc)
			goto failed;
	}
	j->chunk.disk_pages = need;
	j->chunk.cmp_len = cmp_len;
	rd->next_entry = e + need;
	rd->planned += UNC_PAGES;
	rd->produced++;
	hib_pool_submit(rd->pool, i, 1);
	return;
failed:
	j->rc = rc;
	snprintf(j->err, sizeof(j->err), "%s", img->err);
	rd->prod_done = true;
	hib_pool_submit(rd->pool, i, 0);
}

static bool can_produce(const struct hib_reader *rd)
{
	return !rd->prod_done && rd->next_entry < rd->img->info.map_entries;
}

static int next_chunk(struct hib_reader *rd)
{
	struct hib_image *img = rd->img;
	struct rjob *j;
	unsigned int i;
	uint64_t k, skip;
	int rc;

	if (!rd->pool && (rc = setup_ring(rd)))
		return rc;
	if (rd->holding) {
		hib_pool_release(rd->pool);
		rd->holding = false;
		rd->prog.chunks_done += rd->chunk.cmp_len ? 1 : rd->chunk.disk_pages;
	}
	while (hib_pool_pending(rd->pool) < rd->nslots && can_produce(rd) &&
	       rd->planned < rd->plan_total)
		produce(rd);
	/* A chunk that decoded short leaves the plan behind: read one more. */
	if (!hib_pool_pending(rd->pool) && can_produce(rd))
		produce(rd);
	if (!hib_pool_pending(rd->pool))
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "chunk %llu (stream page %llu of %llu): the swap map ends after %llu entries",
				  (unsigned long long)rd->prog.chunks_done,
				  (unsigned long long)(rd->sp + 1),
				  (unsigned long long)rd->stream_pages,
				  (unsigned long long)img->info.map_entries);
	i = hib_pool_wait(rd->pool);
	j = &rd->jobs[i];
	rd->holding = true;
	if (j->rc)
		return hib_seterr(img, j->rc, "%s", j->err);
	/* data that begins with stream page 0 (swsusp_info): skip it */
	skip = rd->ct->first_entry == 0 && j->chunk.index == 0;
	rd->unc = j->unc;
	rd->unc_len = j->unc_len;
	rd->unc_pos = skip ? img->lay.ps : 0;
	rd->chunk = j->chunk;
	rd->chunk.first_stream_page = rd->sp + 1 - skip;
	if (rd->want_crc)
		rd->crc = hib_crc32_le_combine(rd->crc, j->crc, j->unc_len);
	if (rd->sum)
		rd->ct->sum_update(rd->sum, j->unc, j->unc_len);
	if (!rd->chunk_cb)
		return HIB_OK;
	if (!j->raw) {
		rc = rd->chunk_cb(&rd->chunk, rd->chunk_arg);
		if (rc)
			return hib_seterr(img, rc < 0 ? rc : HIB_ERR_INVAL,
					  "stopped by the caller");
		return HIB_OK;
	}
	/* raw: one "chunk" per page, as the kernel writes them */
	for (k = 0; k < j->chunk.disk_pages; k++) {
		struct hib_chunk c = {
			.index = j->chunk.index + k,
			.map_entry = j->chunk.map_entry + k,
			.devpage = j->devpages[k],
			.disk_pages = 1,
			.unc_len = img->lay.ps,
			.first_stream_page = rd->sp + 1 + k - skip,
		};

		rc = rd->chunk_cb(&c, rd->chunk_arg);
		if (rc)
			return hib_seterr(img, rc < 0 ? rc : HIB_ERR_INVAL,
					  "stopped by the caller");
	}
	return HIB_OK;
}

/* Hands out the next stream page (1..pages-1). */
static int next_stream_page(struct hib_reader *rd, const unsigned char **page)
{
	int rc;

	if (rd->unc_pos >= rd->unc_len) {
		rc = next_chunk(rd);
		if (rc)
			return rc;
	}
	*page = rd->unc + rd->unc_pos;
	rd->unc_pos += rd->img->lay.ps;
	rd->sp++;
	rd->prog.stream_pages_done = rd->sp;
	return HIB_OK;
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

		rc = next_stream_page(rd, &pg);
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
						  "PFN list page %llu (stream page %llu): entries after the end-of-map marker",
						  (unsigned long long)m,
						  (unsigned long long)(m + 1));
			if (n > 0 && pfn <= last)
				return hib_seterr(img, HIB_ERR_DAMAGED,
						  "PFN list page %llu entry %llu (list entry %llu): PFN 0x%llx does not ascend (previous 0x%llx)",
						  (unsigned long long)m, (unsigned long long)j,
						  (unsigned long long)n,
						  (unsigned long long)pfn,
						  (unsigned long long)last);
			rc = hib_pfn_index_add(img, n, pfn, zero);
			if (rc)
				return rc;
			last = pfn;
			n++;
		}
	}
	if (n != in->image_pages + img->pfns.zero_flagged)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "PFN list: %llu entries, but image_pages %llu + %llu zero-flagged = %llu",
				  (unsigned long long)n,
				  (unsigned long long)in->image_pages,
				  (unsigned long long)img->pfns.zero_flagged,
				  (unsigned long long)(in->image_pages + img->pfns.zero_flagged));
	if (hib_pfn_list_pages(n, lay->word, lay->ps) != in->meta_pages)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "PFN list: %llu entries need %llu pages, swsusp_info implies %llu",
				  (unsigned long long)n,
				  (unsigned long long)hib_pfn_list_pages(n, lay->word, lay->ps),
				  (unsigned long long)in->meta_pages);
	img->pfns_loaded = true;
	return HIB_OK;
}

static int finish(struct hib_reader *rd)
{
	struct hib_image *img = rd->img;
	const struct hib_header *h = &img->hdr;

	if (rd->sp != rd->stream_pages)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "stream: %llu pages used, swsusp_info says %llu",
				  (unsigned long long)rd->sp,
				  (unsigned long long)rd->stream_pages);
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
					  "CRC32 mismatch over %llu stream pages: header 0x%08x, data 0x%08x (kernel: \"Invalid image CRC32!\")",
					  (unsigned long long)rd->stream_pages,
					  h->crc32, rd->crc);
	}
	return HIB_OK;
}

int hib_reader_next_page(struct hib_reader *rd, struct hib_page *pg)
{
	struct hib_image *img = rd->img;
	uint64_t e;
	int rc;

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
	while (rd->run + 1 < img->n_runs && img->runs[rd->run + 1].first_entry <= e)
		rd->run++;
	pg->entry = e;
	pg->pfn = img->runs[rd->run].start_pfn + (e - img->runs[rd->run].first_entry);
	if (hib_pfn_is_zero(img, e)) {
		pg->kind = HIB_PAGE_ZERO_FLAGGED;
		pg->data = NULL;
	} else {
		rc = next_stream_page(rd, &pg->data);
		if (rc)
			return fail(rd, rc);
		pg->kind = HIB_PAGE_DATA;
		rd->prog.data_pages_done++;
	}
	rd->pfn_entry++;
	return 1;
}

/* Parenthesised: hibimgP.h sends lib/'s own calls to hib_reader_next_page(). */
int (hib_reader_next)(struct hib_reader *rd, struct hib_page *pg)
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
	rc = hib_reader_new(img, &rd);
	if (rc)
		return rc;
	rc = read_meta(rd);
	hib_reader_free(rd);
	return rc;
}
