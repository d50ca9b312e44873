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
#include <time.h>
#include <zstd.h>

double hib_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void put_word(const struct hib_layout *lay, unsigned char *p,
		     uint64_t v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		p[i] = (unsigned char)(v >> (lay->be ? (size - 1 - i) * 8 : i * 8));
}

void hib_meta_page(const struct hib_image *img, uint64_t m,
		   const uint8_t *zero_bits, unsigned char *page)
{
	const struct hib_layout *lay = &img->lay;
	uint64_t per = lay->ps / lay->word, flag = (uint64_t)1 << (lay->word * 8 - 1);
	uint64_t e = m * per, j, pfn;

	memset(page, 0, lay->ps);
	for (j = 0; j < per && e < img->pfns.entries; j++, e++) {
		(void)hib_image_pfn_entry(img, e, &pfn, NULL);
		if (zero_bits && bit(zero_bits, e))
			pfn |= flag;
		put_word(lay, page + j * lay->word, pfn, lay->word);
	}
	if (j < per)
		put_word(lay, page + j * lay->word, ~(uint64_t)0, lay->word);
}

/* ---- the stream sink ------------------------------------------------------ */

int hib_sink_init(struct hib_sink *s, struct hib_image *img,
		  uint64_t meta_pages, unsigned int codecs)
{
	size_t unc = (size_t)UNC_PAGES * img->lay.ps, zb = ZSTD_compressBound(unc);
	int rc, c;

	memset(s, 0, sizeof(*s));
	s->img = img;
	s->ps = img->lay.ps;
	s->codecs = codecs;
	s->zstd_level[HIB_CODEC_ZSTD_FAST] = HIB_ZSTD_FAST_LEVEL;
	s->zstd_level[HIB_CODEC_ZSTD] = HIB_ZSTD_LEVEL;
	for (c = 0; c < HIB_CODEC_COUNT; c++)
		hib_w_size_init(&s->size[c], &img->lay);
	s->meta_pages = meta_pages;
	s->head_pages = div_round_up(meta_pages ? meta_pages : 1, UNC_PAGES) * UNC_PAGES;
	s->cmp_cap = zb > (size_t)CMP_PAGES_MAX * s->ps ? zb : (size_t)CMP_PAGES_MAX * s->ps;
	s->head = calloc(s->head_pages, s->ps);
	s->buf = malloc(unc);
	s->cmp = malloc(s->cmp_cap);
	s->dec = malloc(unc);
	if (!s->head || !s->buf || !s->cmp || !s->dec)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	rc = hib_codec_init(&s->cx);
	if (rc)
		return hib_seterr(img, rc, "cannot set up the compressors");
	s->zc = ZSTD_createCCtx();
	s->zd = ZSTD_createDCtx();
	if (!s->zc || !s->zd)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	return HIB_OK;
}

void hib_sink_free(struct hib_sink *s)
{
	free(s->head);
	free(s->buf);
	free(s->cmp);
	free(s->dec);
	free(s->chunk_len);
	hib_codec_free(&s->cx);
	ZSTD_freeCCtx(s->zc);
	ZSTD_freeDCtx(s->zd);
	memset(s, 0, sizeof(*s));
}

static int codec_run(struct hib_sink *s, enum hib_codec_id c, const unsigned char *src,
		     size_t len, size_t *out)
{
	double t0 = hib_now(), t1;
	size_t got = 0;
	int rc = HIB_OK;

	if (c == HIB_CODEC_LZO || c == HIB_CODEC_LZ4) {
		rc = hib_compress(&s->cx, c == HIB_CODEC_LZO ? HIB_COMP_LZO : HIB_COMP_LZ4,
				  c == HIB_CODEC_LZO ? 1 : 0, src, len, s->cmp,
				  s->cmp_cap, out);
	} else {
		*out = ZSTD_compressCCtx(s->zc, s->cmp, s->cmp_cap, src, len,
					 s->zstd_level[c]);
		if (ZSTD_isError(*out))
			rc = HIB_ERR_INVAL;
	}
	t1 = hib_now();
	s->cmp_sec[c] += t1 - t0;
	if (rc)
		return hib_seterr(s->img, rc, "%s compression failed", hib_codec_name(c));
	if (!s->decode)
		return HIB_OK;
	if (c == HIB_CODEC_LZO || c == HIB_CODEC_LZ4) {
		rc = hib_decompress(c == HIB_CODEC_LZO ? HIB_COMP_LZO : HIB_COMP_LZ4,
				    s->cmp, *out, s->dec, len, &got);
	} else {
		got = ZSTD_decompressDCtx(s->zd, s->dec, len, s->cmp, *out);
		if (ZSTD_isError(got))
			rc = HIB_ERR_INVAL;
	}
	s->dec_sec[c] += hib_now() - t1;
	/* a round trip that fails means the sizes above mean nothing */
	if (rc || got != len || memcmp(s->dec, src, len))
		return hib_seterr(s->img, HIB_ERR_INVAL, "%s round trip failed",
				  hib_codec_name(c));
	return HIB_OK;
}

static int compress_chunk(struct hib_sink *s, uint64_t idx, const unsigned char *src,
			  size_t npages)
{
	size_t len = npages * s->ps, out;
	int c, rc;

	s->unc_bytes += len;
	if (s->keep_chunks && idx >= s->chunk_cap) {
		uint64_t ncap = s->chunk_cap ? s->chunk_cap * 2 : 256;
		void *n;

		while (ncap <= idx)
			ncap *= 2;
		n = realloc(s->chunk_len, ncap * sizeof(*s->chunk_len));
		if (!n)
			return hib_seterr(s->img, HIB_ERR_NOMEM, "out of memory");
		s->chunk_len = n;
		memset(s->chunk_len + s->chunk_cap, 0,
		       (ncap - s->chunk_cap) * sizeof(*s->chunk_len));
		s->chunk_cap = ncap;
	}
	for (c = 0; c < HIB_CODEC_COUNT; c++) {
		if (!(s->codecs & (1u << c)))
			continue;
		rc = codec_run(s, (enum hib_codec_id)c, src, len, &out);
		if (rc)
			return rc;
		(void)hib_w_size_chunk(&s->size[c], out);
		if (s->keep_chunks)
			s->chunk_len[idx][c] = (uint32_t)out;
	}
	return HIB_OK;
}

/* Data pages arrive before the meta pages can be written (for a what-if
 * stream, which pages are zero is only known at the end), so the chunks
 * holding meta pages wait in head; every later chunk goes out at once. */
int hib_sink_page(struct hib_sink *s, const unsigned char *page)
{
	uint64_t p = s->n < s->meta_pages ? s->meta_pages : s->n;
	size_t k;

	s->n = p + 1;
	if (p < s->head_pages) {
		memcpy(s->head + p * s->ps, page, s->ps);
		return HIB_OK;
	}
	k = (p - s->head_pages) % UNC_PAGES;
	memcpy(s->buf + k * s->ps, page, s->ps);
	if (k == UNC_PAGES - 1 && s->codecs)
		return compress_chunk(s, p / UNC_PAGES, s->buf, UNC_PAGES);
	return HIB_OK;
}

int hib_sink_finish(struct hib_sink *s, const uint8_t *zero_bits)
{
	uint64_t total = s->n < s->meta_pages ? s->meta_pages : s->n;
	uint64_t head = total < s->head_pages ? total : s->head_pages, m, i;
	int rc;

	s->n = total;
	for (m = 0; m < s->meta_pages; m++)
		hib_meta_page(s->img, m, zero_bits, s->head + m * s->ps);
	if (!s->codecs)
		return HIB_OK;
	for (i = 0; i < head; i += UNC_PAGES) {
		rc = compress_chunk(s, i / UNC_PAGES, s->head + i * s->ps,
				    head - i < UNC_PAGES ? head - i : UNC_PAGES);
		if (rc)
			return rc;
	}
	if (total > s->head_pages && (total - s->head_pages) % UNC_PAGES)
		return compress_chunk(s, (total - 1) / UNC_PAGES, s->buf,
				      (total - s->head_pages) % UNC_PAGES);
	return HIB_OK;
}

/* ---- hib_image_stats -------------------------------------------------------- */

const char *hib_class_name(enum hib_class c)
{
	static const char *const n[] = {
		"zero-flagged", "zero-data", "same-filled", "duplicate", "other"
	};
	return (unsigned)c < HIB_CLASS_COUNT ? n[c] : NULL;
}

const char *hib_codec_name(enum hib_codec_id c)
{
	static const char *const n[] = { "lzo", "lz4", "zstd-1", "zstd-3" };
	return (unsigned)c < HIB_CODEC_COUNT ? n[c] : NULL;
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

	rc = hib_sink_init(&sink, img, in->meta_pages,
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
			rc = hib_sink_page(&sink, pg.data);
			if (rc)
				break;
		}
		st->pages[k]++;
		if (pg.pfn / in->bucket_pages < in->nbuckets)
			st->buckets[pg.pfn / in->bucket_pages][k]++;
	}
	if (rc < 0)
		goto out;
	rc = hib_sink_finish(&sink, img->zero_bits);
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
		cd->cmp_seconds = sink.cmp_sec[c];
		cd->dec_seconds = sink.dec_sec[c];
	}
	rc = HIB_OK;
out:
	hib_reader_free(rd);
	hib_sink_free(&sink);
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
