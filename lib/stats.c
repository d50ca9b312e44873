/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stats.c - what the saved memory is made of, where it sits in physical
 * memory, and how well the stream compresses with the kernel's codecs
 * (and zstd, as a what-if) when chunked as save_compressed_image() does:
 * 32 stream pages per chunk, a size_t cmp_len header, padding to the page.
 *
 * Duplicates: a page is a duplicate when its 64-bit content hash was seen
 * before. Bytes are never compared (the stream is read once and not kept),
 * so two different pages with the same hash count as one: with n distinct
 * pages the expected number of such false duplicates is n(n-1)/2^65, below
 * 10^-6 for a 64 GiB image. The hash set is open-addressed with 64-bit
 * slots at load <= 1/2, sized for every data page up front: 16 bytes per
 * data page, at most (e.g. 64 MiB for a 16 GiB image).
 */
#include "statsP.h"

#include <stdlib.h>
#include <string.h>

/* ---- hib_image_stats -------------------------------------------------------- */

const char *hib_class_name(enum hib_class c)
{
	static const char *const n[] = {
		"zero-flagged", "zero-data", "same-filled", "duplicate", "other"
	};
	return (unsigned)c < HIB_CLASS_COUNT ? n[c] : NULL;
}

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* XXH64-style: four independent lanes so the multiplies overlap. */
static uint64_t page_hash(const unsigned char *p, unsigned int ps)
{
	const uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full,
		       P3 = 0x165667B19E3779F9ull;
	const uint64_t *w = (const uint64_t *)(const void *)p;
	uint64_t a = P1 + P2, b = P2, c = 0, d = (uint64_t)0 - P1, h;
	unsigned int i;

	for (i = 0; i + 4 <= ps / 8; i += 4) {
		a = rotl(a + w[i] * P2, 31) * P1;
		b = rotl(b + w[i + 1] * P2, 31) * P1;
		c = rotl(c + w[i + 2] * P2, 31) * P1;
		d = rotl(d + w[i + 3] * P2, 31) * P1;
	}
	h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + ps;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h ? h : 1;   /* 0 marks an empty slot */
}

struct dupset {
	uint64_t *slot;
	uint64_t mask;
};

/* true if seen before; inserts otherwise */
static bool dup_seen(struct dupset *d, uint64_t h)
{
	uint64_t i = h & d->mask;

	while (d->slot[i]) {
		if (d->slot[i] == h)
			return true;
		i = (i + 1) & d->mask;
	}
	d->slot[i] = h;
	return false;
}

static enum hib_class classify(const unsigned char *p, unsigned int ps, struct dupset *d)
{
	const uint64_t *w = (const uint64_t *)(const void *)p;
	uint64_t acc = 0, diff = 0;
	unsigned int i;

	for (i = 0; i < ps / 8; i++) {
		acc |= w[i];
		diff |= w[i] ^ w[0];
	}
	if (!acc)
		return HIB_CLASS_ZERO_DATA;
	if (!diff)
		return HIB_CLASS_SAME_FILLED;
	return dup_seen(d, page_hash(p, ps)) ? HIB_CLASS_DUPLICATE : HIB_CLASS_OTHER;
}

struct disk_chunks {
	uint32_t *len;
	uint64_t n, cap;
	bool aligned;               /* every chunk but the last holds 32 pages */
	bool last_short;
	unsigned int ps;
};

static int on_chunk(const struct hib_chunk *c, void *arg)
{
	struct disk_chunks *dc = arg;

	if (dc->last_short)
		dc->aligned = false;
	dc->last_short = c->unc_len != (uint64_t)UNC_PAGES * dc->ps;
	if (dc->n == dc->cap) {
		uint64_t ncap = dc->cap ? dc->cap * 2 : 256;
		uint32_t *n = realloc(dc->len, ncap * sizeof(*n));

		if (!n)
			return HIB_ERR_NOMEM;
		dc->len = n;
		dc->cap = ncap;
	}
	dc->len[dc->n++] = (uint32_t)c->cmp_len;
	return 0;
}

/* The default bucket covers at least 2 MiB of memory whatever the page
 * size (512 pages of 4 KiB, 32 of 64 KiB), so that the same machine's
 * image draws the same picture under any kernel: buckets are memory, not
 * a count of pages. */
#define BUCKET_MIN_BYTES (2u << 20)

static uint64_t auto_bucket(uint64_t highest, unsigned int ps)
{
	uint64_t b = BUCKET_MIN_BYTES / ps;

	while ((highest / b + 1) > 256)
		b *= 2;
	return b;
}

int hib_image_stats(struct hib_image *img, const struct hib_stats_opts *opts,
		    struct hib_stats **out)
{
	struct hib_stats_opts o;
	struct disk_chunks dc = { .aligned = true };
	struct dupset dup = { 0 };
	struct hib_sink sink;
	struct hib_sink_meta meta = { 0 };
	struct hib_engine *eng = NULL;
	struct hib_reader *rd = NULL;
	struct hib_stats *st;
	struct hib_stats_info *in;
	struct hib_w_size own;
	struct hib_page pg;
	uint64_t cap, i;
	unsigned int ps;
	int rc, c;

	*out = NULL;
	memset(&sink, 0, sizeof(sink));
	memset(&o, 0, sizeof(o));
	if (opts && (rc = HIB_ABI_IN(img, hib_stats_opts, &o, opts)))
		return rc;
	if (!img->loaded && (rc = hib_image_load(img)))
		return rc;
	if (o.partial && (rc = hib_image_set_partial(img, 1)))
		return rc;
	if (!img->pfns_loaded && (rc = hib_image_load_pfns(img)))
		return rc;
	st = calloc(1, sizeof(*st));
	if (!st)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	in = &st->info;
	ps = img->lay.ps;
	in->entries = img->pfns.entries;
	in->image_pages = img->info.image_pages;
	in->meta_pages = img->info.meta_pages;
	in->stream_pages = img->info.pages - 1;
	in->lowest_pfn = img->pfns.lowest;
	in->highest_pfn = img->pfns.highest;
	in->runs = img->pfns.runs;
	in->num_physpages = img->info.num_physpages;
	if (img->partial) {
		/* the figures of what was recovered: a stream of those pages */
		in->image_pages = img->pfns.entries - img->pfns.zero_flagged;
		in->meta_pages = hib_pfn_list_pages(img->pfns.entries, img->lay.word, ps);
		in->stream_pages = in->meta_pages + in->image_pages;
	}
	in->bucket_pages = o.bucket_pages ? o.bucket_pages : auto_bucket(in->highest_pfn, ps);
	in->nbuckets = in->entries ? in->highest_pfn / in->bucket_pages + 1 : 0;
	if (in->nbuckets > (1u << 22)) {
		rc = hib_seterr(img, HIB_ERR_INVAL,
				"%" PRIu64 " buckets of %" PRIu64 " pages: too many, choose a larger bucket",
				in->nbuckets,
				in->bucket_pages);
		goto out;
	}
	st->buckets = calloc(in->nbuckets + 1, sizeof(*st->buckets));
	for (cap = 1024; cap < 2 * in->image_pages; cap *= 2)
		;
	dup.slot = calloc(cap, sizeof(*dup.slot));
	dup.mask = cap - 1;
	in->dup_table_bytes = cap * sizeof(*dup.slot);
	if (!st->buckets || !dup.slot) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}

	rc = hib_engine_new(img, o.threads, &eng);
	if (rc)
		goto out;
	rc = hib_sink_init(&sink, eng, in->meta_pages,
			   o.no_compress ? 0 : (1u << HIB_CODEC_COUNT) - 1);
	if (rc)
		goto out;
	sink.keep_chunks = 1;
	rc = hib_reader_new(img, &rd);
	if (rc)
		goto out;
	(void)hib_reader_set_threads(rd, o.threads);   /* before the first page: cannot fail */
	dc.ps = ps;
	hib_reader_set_chunk_cb(rd, on_chunk, &dc);
	while ((rc = hib_reader_next_page(rd, &pg)) == 1) {
		enum hib_class k;

		hib_tick(img, "reading", pg.entry + 1, img->pfns.entries);
		if (pg.kind == HIB_PAGE_ZERO_FLAGGED) {
			k = HIB_CLASS_ZERO_FLAGGED;
		} else {
			k = classify(pg.data, ps, &dup);
			rc = hib_sink_page(&sink, k == HIB_CLASS_ZERO_DATA ? NULL : pg.data);
			if (rc)
				break;
		}
		st->pages[k]++;
		if (pg.pfn / in->bucket_pages < in->nbuckets)
			st->buckets[pg.pfn / in->bucket_pages][k]++;
	}
	if (rc < 0)
		goto out;
	meta.flagged = img->zero_bits;
	rc = hib_sink_finish(&sink, &meta);
	if (rc)
		goto out;
	if (sink.n != in->stream_pages) {
		rc = hib_seterr(img, HIB_ERR_INVAL,
				"internal: %" PRIu64 " stream pages rebuilt, %" PRIu64 " in the image",
				sink.n,
				in->stream_pages);
		goto out;
	}

	in->nchunks = div_round_up(in->stream_pages, UNC_PAGES);
	st->chunks = calloc(in->nchunks + 1, sizeof(*st->chunks));
	if (!st->chunks) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* other containers' blocks (uswsusp's begin at stream page 0) never
	 * line up with the kernel's chunks */
	if (img->info.compression != HIB_COMP_NONE &&
	    (dc.n != in->nchunks || !img->ct->kernel_chunks))
		dc.aligned = false;
	for (i = 0; i < in->nchunks; i++) {
		struct hib_stats_chunk *ch = &st->chunks[i];

		ch->first_stream_page = 1 + i * UNC_PAGES;
		ch->pages = (uint32_t)(in->stream_pages - i * UNC_PAGES < UNC_PAGES ?
				       in->stream_pages - i * UNC_PAGES : UNC_PAGES);
		if (img->info.compression != HIB_COMP_NONE && dc.aligned)
			ch->image_cmp_len = dc.len[i];
	}
	hib_w_size_init(&own, &img->lay);
	for (i = 0; i < dc.n; i++) {
		in->image_cmp_bytes += dc.len[i];
		if (img->info.compression == HIB_COMP_NONE)
			hib_w_size_raw(&own, 1);
		else
			(void)hib_w_size_chunk(&own, dc.len[i]);
	}
	in->image_disk_pages = own.disk_pages;
	in->image_map_pages = hib_w_size_map_pages(&own);
	in->image_slots = hib_w_size_slots(&own);
	in->compressed = !o.no_compress;
	in->unc_bytes = in->stream_pages * ps;
	if (in->compressed) {
		st->chunk_len = sink.chunk_len;     /* the handle keeps them */
		sink.chunk_len = NULL;
	}
	for (c = 0; c < HIB_CODEC_COUNT; c++) {
		struct hib_stats_codec *cd = &st->codec[c];

		cd->what_if = c == HIB_CODEC_ZSTD_FAST || c == HIB_CODEC_ZSTD;
		if (!in->compressed)
			continue;
		cd->cmp_bytes = sink.size[c].cmp_bytes;
		cd->disk_pages = sink.size[c].disk_pages;
		cd->map_pages = hib_w_size_map_pages(&sink.size[c]);
		cd->slots = hib_w_size_slots(&sink.size[c]);
		/* the whole stream at the rate of the chunks really compressed
		 * (zero and repeated chunks are sized once, not timed) */
		cd->cmp_seconds = sink.cmp_unc[c] ?
			sink.cmp_sec[c] * (double)in->unc_bytes / (double)sink.cmp_unc[c] : 0;
		cd->dec_seconds = sink.dec_unc[c] ?
			sink.dec_sec[c] * (double)in->unc_bytes / (double)sink.dec_unc[c] : 0;
	}
	rc = HIB_OK;
out:
	hib_reader_free(rd);
	hib_sink_free(&sink);
	hib_engine_free(eng);
	free(dup.slot);
	free(dc.len);
	if (rc)
		hib_stats_free(st);
	else
		*out = st;
	return rc;
}

void hib_stats_free(struct hib_stats *st)
{
	if (!st)
		return;
	free(st->buckets);
	free(st->chunks);
	free(st->chunk_len);
	free(st);
}

/* ---- getters: 0 or NULL for what the handle does not hold ------------------ */

const struct hib_stats_info *hib_stats_info(const struct hib_stats *st)
{
	return st ? &st->info : NULL;
}

uint64_t hib_stats_class_pages(const struct hib_stats *st, enum hib_class c)
{
	return st && (unsigned)c < HIB_CLASS_COUNT ? st->pages[c] : 0;
}

uint64_t hib_stats_bucket_pages(const struct hib_stats *st, uint64_t bucket,
				enum hib_class c)
{
	if (!st || bucket >= st->info.nbuckets || (unsigned)c >= HIB_CLASS_COUNT)
		return 0;
	return st->buckets[bucket][c];
}

const struct hib_stats_codec *hib_stats_codec(const struct hib_stats *st,
					      enum hib_codec_id c)
{
	return st && (unsigned)c < HIB_CODEC_COUNT ? &st->codec[c] : NULL;
}

const struct hib_stats_chunk *hib_stats_chunk(const struct hib_stats *st, uint64_t chunk)
{
	return st && chunk < st->info.nchunks ? &st->chunks[chunk] : NULL;
}

uint32_t hib_stats_chunk_cmp_len(const struct hib_stats *st, uint64_t chunk,
				 enum hib_codec_id c)
{
	if (!st || !st->chunk_len || chunk >= st->info.nchunks ||
	    (unsigned)c >= HIB_CODEC_COUNT)
		return 0;
	return st->chunk_len[chunk][c];
}
