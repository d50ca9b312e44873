/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * readahead.c - the stream's chunks, read ahead in order and decoded on the
 * pool, handed to reader.c one stream page at a time.
 *
 * Map entry 0 is swsusp_info (read by hib_image_load()). After it come the
 * stream pages 1..pages-1: raw, one per entry (SF_NOCOMPRESS_MODE), or chunks
 * of a size_t cmp_len, cmp_len bytes of LZO/LZ4 and padding to the page,
 * each decoding to at most UNC_PAGES pages (load_compressed_image() in
 * kernel/power/swap.c).
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
 * buffer in stream order on the caller's thread.
 */
#include "readerP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void hib_rd_ring_free(struct hib_reader *rd)
{
	unsigned int i;

	hib_pool_free(rd->pool);
	for (i = 0; rd->jobs && i < rd->nslots; i++) {
		free(rd->jobs[i].cmp);
		free(rd->jobs[i].unc);
	}
	free(rd->jobs);
	free(rd->slots);
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
			 "%s at device offset 0x%" PRIx64 ": %s decompression failed (error %d, %" PRIu64 " compressed bytes)",
			 j->what, j->chunk.devpage * ps,
			 hib_compression_name(c), rc,
			 j->chunk.cmp_len);
		return;
	}
	if (unc_len == 0 || unc_len % ps) {
		j->rc = HIB_ERR_DAMAGED;
		snprintf(j->err, sizeof(j->err),
			 "%s at device offset 0x%" PRIx64 ": invalid uncompressed length %zu (not a whole number of pages)",
			 j->what, j->chunk.devpage * ps, unc_len);
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

	/* enough slots that every worker has one while the caller reads the
	 * next and consumes the oldest, within the ring's budget */
	workers = hib_ring_workers(rd->threads, ps);
	rd->nslots = hib_ring_slots(workers);
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
	snprintf(what, sizeof(j->what), "chunk %" PRIu64 " (%s %" PRIu64 ", device page %" PRIu64 ")",
		 rd->produced,
		 rd->ct->entry_name, e,
		 dev);

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
		/* the kernel's own words, for in-kernel images: 6.9+ says
		 * "lzo" where 6.1 said "LZO" (seen on k612 under QEMU) */
		bool says = rd->ct->kernel_reader;

		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"%s at device offset 0x%" PRIx64 ": invalid compressed length %" PRIu64 "%s%s%s",
				what, dev * ps,
				cmp_len, says ? " (kernel: " : "",
				says ? hib_kernel_len_words(in->compression, true) : "",
				says ? ")" : "");
		goto failed;
	}
	need = div_round_up(hdr + cmp_len, ps);
	if (e + need > in->map_entries) {
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"%s: needs %" PRIu64 " pages but the swap map ends after %" PRIu64 " entries",
				what, need,
				in->map_entries);
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
				  "chunk %" PRIu64 " (stream page %" PRIu64 " of %" PRIu64 "): the swap map ends after %" PRIu64 " entries",
				  rd->prog.chunks_done,
				  rd->sp + 1,
				  rd->stream_pages,
				  img->info.map_entries);
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

int hib_rd_stream_page(struct hib_reader *rd, const unsigned char **page)
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
