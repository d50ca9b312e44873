/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * simsize.c - the sizing engine behind stats and simulate: streams the
 * kernel would write, cut into the 32-page chunks of
 * save_compressed_image(), each chunk compressed with every codec asked
 * and laid out by the writer's own sizing pass (emit.c).
 *
 * Its cost follows the image, not the machine's RAM:
 *  - no page of the stream is kept past its chunk. The PFN list (meta
 *    pages) comes first in the stream but, for a what-if stream, which
 *    entries are zero is known only once every data page has been read;
 *    so the meta chunks are generated at the end, chunk by chunk, from the
 *    image's PFN index (runs and zero-flag bits, which verify holds too)
 *    and a bitmap of the stored data pages found zero (one bit per data
 *    page, never one per RAM page). Only the data pages that share a chunk
 *    with the last meta page (under 32) wait in a buffer.
 *  - a chunk of zero pages is recognised from its pages' zero-ness, never
 *    built, and sized once per codec and length (sink->zero_len).
 *  - any other chunk is hashed (two independent 64-bit hashes of its bytes)
 *    and looked up in a bounded, direct-mapped cache of sizes before it is
 *    compressed, so a repeated chunk is compressed once. Two different
 *    chunks would have to agree on all 128 bits (and length and codec
 *    levels) to be confused: for n distinct chunks that happens with
 *    probability below n^2 / 2^129, under 2^-64 for the 2^32 chunks of a
 *    512 TiB stream.
 *  - chunks are compressed on a pool (pool.c) of workers, each with its own
 *    codec state; results are folded in the order they were submitted, so
 *    every per-chunk record lands where the stream has it.
 *  - with a sample fraction F, a chunk that is not all zeros is sized only
 *    if a hash of (seed, stream, chunk index) falls below F; the others are
 *    counted and never built (hib_sink_estimate() scales the sample up).
 */
#include "statsP.h"

#include <pthread.h>
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

const char *hib_codec_name(enum hib_codec_id c)
{
	static const char *const n[] = { "lzo", "lz4", "zstd-1", "zstd-3" };
	return (unsigned)c < HIB_CODEC_COUNT ? n[c] : NULL;
}

/* ---- the engine: pool, per-worker codec state, the size cache ----------- */

#define CACHE_SLOTS 4096u          /* 4096 x 64 bytes: 256 KiB */
#define ENGINE_BYTES (16u << 20)   /* ring + worker buffers, whatever the CPUs */

struct cache_ent {
	uint64_t h1, h2, key;      /* key: pages, codecs, levels; 0 = empty */
	uint32_t len[HIB_CODEC_COUNT];
};

struct sjob {
	struct hib_sink *s;
	uint64_t idx;              /* chunk index in s's stream */
	size_t pages;
	int decode;                /* round trip this one (the rates) */
	int cached;                /* sizes from the cache: nothing timed */
	unsigned char *unc;
	uint32_t len[HIB_CODEC_COUNT];
	double csec[HIB_CODEC_COUNT], dsec[HIB_CODEC_COUNT];
	int rc, rc_codec;
};

struct wstate {
	struct hib_codec cx;
	unsigned char *cmp, *dec;
};

struct hib_engine {
	struct hib_image *img;
	unsigned int ps, nworkers, nslots;
	size_t cmp_cap;
	struct hib_pool *pool;
	struct sjob *jobs;
	void **slots;
	struct wstate *w;          /* nworkers + 1; [0] is the caller's */
	pthread_mutex_t lock;
	struct cache_ent *cache;
	uint64_t cache_hits;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 27;
	x *= 0x94D049BB133111EBull;
	x ^= x >> 31;
	return x;
}

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* Two XXH64-style hashes of len bytes (a multiple of 32) with unrelated
 * seeds, four lanes each so the multiplies overlap. */
static void chunk_hash(const unsigned char *p, size_t len, uint64_t *h1, uint64_t *h2)
{
	const uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full;
	const uint64_t *w = (const uint64_t *)(const void *)p;
	uint64_t a = P1 + P2, b = P2, c = 0, d = (uint64_t)0 - P1;
	uint64_t e = 0x243F6A8885A308D3ull, f = 0x13198A2E03707344ull,
		 g = 0xA4093822299F31D0ull, h = 0x082EFA98EC4E6C89ull;
	size_t i, n = len / 8;

	for (i = 0; i + 4 <= n; i += 4) {
		a = rotl(a + w[i] * P2, 31) * P1;
		b = rotl(b + w[i + 1] * P2, 31) * P1;
		c = rotl(c + w[i + 2] * P2, 31) * P1;
		d = rotl(d + w[i + 3] * P2, 31) * P1;
		e = rotl(e ^ (w[i] * P1), 29) * P2;
		f = rotl(f ^ (w[i + 1] * P1), 29) * P2;
		g = rotl(g ^ (w[i + 2] * P1), 29) * P2;
		h = rotl(h ^ (w[i + 3] * P1), 29) * P2;
	}
	*h1 = mix64(rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + len);
	*h2 = mix64(rotl(e, 3) ^ rotl(f, 11) ^ rotl(g, 17) ^ rotl(h, 23) ^ (len * P1));
}

static uint64_t cache_key(const struct hib_sink *s, size_t pages)
{
	return 1 + (uint64_t)pages + ((uint64_t)s->codecs << 8) +
	       ((uint64_t)(s->zstd_level[HIB_CODEC_ZSTD_FAST] & 0xff) << 16) +
	       ((uint64_t)(s->zstd_level[HIB_CODEC_ZSTD] & 0xff) << 24);
}

/* HIB_CODEC_* as the codec layer names them: both zstd rows are zstd */
static enum hib_wcodec wc_of(enum hib_codec_id c)
{
	return c == HIB_CODEC_LZO ? HIB_WC_LZO : c == HIB_CODEC_LZ4 ? HIB_WC_LZ4 : HIB_WC_ZSTD;
}

static int codec_run(struct hib_sink *s, struct wstate *ws, enum hib_codec_id c,
		     const unsigned char *src, size_t len, size_t cap, size_t *out)
{
	return hib_wcodec_compress(&ws->cx, wc_of(c), s->zstd_level[c], src, len, ws->cmp, cap,
				   out);
}

/* a round trip that fails means the sizes mean nothing */
static int codec_back(struct wstate *ws, enum hib_codec_id c, const unsigned char *src,
		      size_t len, size_t clen)
{
	size_t got = 0;
	int rc = hib_wcodec_decompress(&ws->cx, wc_of(c), ws->cmp, clen, ws->dec, len, &got);

	return rc || got != len || memcmp(ws->dec, src, len) ? HIB_ERR_INVAL : HIB_OK;
}

static void size_job(void *slot, unsigned int worker, void *arg)
{
	struct sjob *j = slot;
	struct hib_engine *e = arg;
	struct wstate *ws = &e->w[worker];
	struct hib_sink *s = j->s;
	size_t len = j->pages * e->ps, out;
	uint64_t h1, h2, key = cache_key(s, j->pages);
	struct cache_ent *ce;
	int c;

	j->rc = HIB_OK;
	j->cached = 0;
	memset(j->csec, 0, sizeof(j->csec));
	memset(j->dsec, 0, sizeof(j->dsec));
	chunk_hash(j->unc, len, &h1, &h2);
	ce = &e->cache[h1 % CACHE_SLOTS];
	if (!j->decode) {
		pthread_mutex_lock(&e->lock);
		if (ce->key == key && ce->h1 == h1 && ce->h2 == h2) {
			memcpy(j->len, ce->len, sizeof(j->len));
			j->cached = 1;
			e->cache_hits++;
		}
		pthread_mutex_unlock(&e->lock);
		if (j->cached)
			return;
	}
	for (c = 0; c < HIB_CODEC_COUNT; c++) {
		double t0, t1;

		j->len[c] = 0;
		if (!(s->codecs & (1u << c)))
			continue;
		t0 = hib_now();
		j->rc = codec_run(s, ws, (enum hib_codec_id)c, j->unc, len, e->cmp_cap, &out);
		t1 = hib_now();
		j->csec[c] = t1 - t0;
		if (!j->rc && j->decode) {
			j->rc = codec_back(ws, (enum hib_codec_id)c, j->unc, len, out);
			j->dsec[c] = hib_now() - t1;
		}
		if (j->rc) {
			j->rc_codec = c;
			return;
		}
		j->len[c] = (uint32_t)out;
	}
	pthread_mutex_lock(&e->lock);
	ce->h1 = h1;
	ce->h2 = h2;
	ce->key = key;
	memcpy(ce->len, j->len, sizeof(j->len));
	pthread_mutex_unlock(&e->lock);
}

/* Workers that fit ENGINE_BYTES: two ring slots of one chunk each and a
 * compressed and a decoded chunk per worker, one more of each for the
 * caller. 4 KiB pages: 30 workers; 64 KiB pages (2 MiB chunks): none, the
 * caller sizes inline as before. */
static unsigned int engine_workers(unsigned int threads, unsigned int ps)
{
	uint64_t per = (uint64_t)(2 * UNC_PAGES + CMP_PAGES_MAX + UNC_PAGES) * ps;
	uint64_t fit = ENGINE_BYTES / per;
	unsigned int w = threads > 1 ? threads : 0;

	if (fit < 2)
		return 0;
	if (w + 1 > fit)
		w = (unsigned int)(fit - 1);
	return w;
}

int hib_engine_new(struct hib_image *img, unsigned int threads, struct hib_engine **out)
{
	struct hib_engine *e = calloc(1, sizeof(*e));
	size_t unc, zb;
	unsigned int i;

	*out = NULL;
	if (!e)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	pthread_mutex_init(&e->lock, NULL);
	e->img = img;
	e->ps = img->lay.ps;
	unc = (size_t)UNC_PAGES * e->ps;
	zb = ZSTD_compressBound(unc);
	e->cmp_cap = zb > (size_t)CMP_PAGES_MAX * e->ps ? zb : (size_t)CMP_PAGES_MAX * e->ps;
	e->nworkers = engine_workers(threads ? threads : hib_online_cpus(), e->ps);
	e->nslots = e->nworkers ? 2 * e->nworkers + 2 : 1;
	e->jobs = calloc(e->nslots, sizeof(*e->jobs));
	e->slots = calloc(e->nslots, sizeof(*e->slots));
	e->w = calloc(e->nworkers + 1, sizeof(*e->w));
	e->cache = calloc(CACHE_SLOTS, sizeof(*e->cache));
	*out = e;
	if (!e->jobs || !e->slots || !e->w || !e->cache)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	/* inline, a job sizes the sink's own buffer before submit returns:
	 * no slot buffer (2 MiB saved at 64 KiB pages) */
	for (i = 0; i < e->nslots; i++) {
		e->slots[i] = &e->jobs[i];
		if (!e->nworkers)
			continue;
		e->jobs[i].unc = malloc(unc);
		if (!e->jobs[i].unc)
			return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i <= e->nworkers; i++) {
		struct wstate *ws = &e->w[i];

		if (hib_codec_init(&ws->cx))
			return hib_seterr(img, HIB_ERR_NOMEM, "cannot set up the compressors");
		ws->cmp = malloc(e->cmp_cap);
		ws->dec = malloc(unc);
		if (!ws->cmp || !ws->dec)
			return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	e->pool = hib_pool_new(e->nworkers, e->nslots, e->slots, size_job, e);
	if (!e->pool)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	return HIB_OK;
}

void hib_engine_free(struct hib_engine *e)
{
	unsigned int i;

	if (!e)
		return;
	hib_pool_free(e->pool);     /* joins the workers first */
	for (i = 0; e->jobs && e->nworkers && i < e->nslots; i++)
		free(e->jobs[i].unc);
	for (i = 0; e->w && i <= e->nworkers; i++) {
		hib_codec_free(&e->w[i].cx);
		free(e->w[i].cmp);
		free(e->w[i].dec);
	}
	pthread_mutex_destroy(&e->lock);
	free(e->jobs);
	free(e->slots);
	free(e->w);
	free(e->cache);
	free(e);
}

unsigned int hib_engine_workers(const struct hib_engine *e)
{
	return e->nworkers;
}

/* ---- per-chunk results, in stream order ---------------------------------- */

static int grow_chunks(struct hib_sink *s, uint64_t idx)
{
	uint64_t ncap = s->chunk_cap ? s->chunk_cap * 2 : 256;
	void *n;

	if (idx < s->chunk_cap)
		return HIB_OK;
	while (ncap <= idx)
		ncap *= 2;
	n = realloc(s->chunk_len, ncap * sizeof(*s->chunk_len));
	if (!n)
		return hib_seterr(s->img, HIB_ERR_NOMEM, "out of memory");
	s->chunk_len = n;
	memset(s->chunk_len + s->chunk_cap, 0, (ncap - s->chunk_cap) * sizeof(*s->chunk_len));
	s->chunk_cap = ncap;
	return HIB_OK;
}

/* A chunk's sizes: into the writer's sizing and the per-chunk record;
 * sampled says it stands for the chunks not sized (the estimate). */
static int fold(struct hib_sink *s, uint64_t idx, const uint32_t *len, bool sampled)
{
	int c, rc;

	if (s->keep_chunks && (rc = grow_chunks(s, idx)))
		return rc;
	for (c = 0; c < HIB_CODEC_COUNT; c++) {
		uint64_t pages;

		if (!(s->codecs & (1u << c)))
			continue;
		pages = hib_w_size_chunk(&s->size[c], len[c]);
		if (s->keep_chunks)
			s->chunk_len[idx][c] = len[c];
		if (sampled) {
			struct hib_sink_acc *a = &s->acc[c];

			a->n++;
			a->sum_len += len[c];
			a->sum_len2 += (double)len[c] * len[c];
			a->sum_pages += pages;
			a->sum_pages2 += (double)pages * pages;
		}
	}
	return HIB_OK;
}

static int drain_one(struct hib_engine *e)
{
	unsigned int i = hib_pool_wait(e->pool);
	struct sjob *j;
	struct hib_sink *s;
	int c, rc;

	if (i == UINT32_MAX)
		return HIB_OK;
	j = &e->jobs[i];
	s = j->s;
	if (j->rc) {
		rc = hib_seterr(s->img, HIB_ERR_INVAL, "%s %s",
				hib_codec_name((enum hib_codec_id)j->rc_codec),
				j->decode ? "compression or round trip failed" :
				"compression failed");
		hib_pool_release(e->pool);
		return rc;
	}
	for (c = 0; c < HIB_CODEC_COUNT; c++) {
		s->cmp_sec[c] += j->csec[c];
		s->dec_sec[c] += j->dsec[c];
		if (!j->cached && (s->codecs & (1u << c))) {
			s->cmp_unc[c] += j->pages * e->ps;
			if (j->decode)
				s->dec_unc[c] += j->pages * e->ps;
		}
	}
	rc = fold(s, j->idx, j->len, true);
	hib_pool_release(e->pool);
	return rc;
}

int hib_engine_drain(struct hib_engine *e)
{
	int rc = HIB_OK;

	while (hib_pool_pending(e->pool))
		if ((rc = drain_one(e)))
			break;
	return rc;
}

/* A free slot, draining the oldest result when the ring is full. */
static int acquire(struct hib_engine *e, struct sjob **out)
{
	unsigned int i;
	int rc;

	while ((i = hib_pool_acquire(e->pool)) == UINT32_MAX)
		if ((rc = drain_one(e)))
			return rc;
	*out = &e->jobs[i];
	(*out)->rc = HIB_OK;
	return HIB_OK;
}

static void submit(struct hib_sink *s, struct sjob *j, uint64_t idx, size_t pages)
{
	j->s = s;
	j->idx = idx;
	j->pages = pages;
	j->decode = s->decode_left > 0;
	if (j->decode)
		s->decode_left--;
	hib_pool_submit(s->eng->pool, (unsigned int)(j - s->eng->jobs), 1);
}

/* ---- the stream sink ---------------------------------------------------- */

int hib_sink_init(struct hib_sink *s, struct hib_engine *eng, uint64_t meta_pages,
		  unsigned int codecs)
{
	struct hib_image *img = eng->img;
	int c;

	memset(s, 0, sizeof(*s));
	s->eng = eng;
	s->img = img;
	s->ps = img->lay.ps;
	s->codecs = codecs;
	s->zstd_level[HIB_CODEC_ZSTD_FAST] = HIB_ZSTD_FAST_LEVEL;
	s->zstd_level[HIB_CODEC_ZSTD] = HIB_ZSTD_LEVEL;
	for (c = 0; c < HIB_CODEC_COUNT; c++)
		hib_w_size_init(&s->size[c], &img->lay);
	s->meta_pages = meta_pages;
	s->head_pages = div_round_up(meta_pages, UNC_PAGES) * UNC_PAGES;
	s->head = malloc((size_t)UNC_PAGES * s->ps);
	s->buf = malloc((size_t)UNC_PAGES * s->ps);
	if (!s->head || !s->buf)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	return HIB_OK;
}

void hib_sink_free(struct hib_sink *s)
{
	free(s->head);
	free(s->buf);
	free(s->chunk_len);
	memset(s, 0, sizeof(*s));
}

void hib_sink_set_sample(struct hib_sink *s, double fraction, uint64_t seed,
			 unsigned int stream)
{
	s->sample = fraction > 0 && fraction < 1 ? fraction : 0;
	s->thresh = (uint64_t)(s->sample * 18446744073709551616.0);
	s->seed = mix64(seed ^ ((uint64_t)stream << 56));
}

static bool is_sampled(const struct hib_sink *s, uint64_t idx)
{
	return !s->sample || mix64(s->seed ^ mix64(idx)) < s->thresh;
}

/* The sizes of a chunk of zeros, once per length (the caller's codec
 * state: workers never touch w[0]). */
static int zero_sizes(struct hib_sink *s, size_t pages, uint32_t *len)
{
	struct hib_engine *e = s->eng;
	int c, rc;

	if (!s->zero_known[pages]) {
		/* w[0]'s decode buffer: no job of the caller's runs meanwhile */
		unsigned char *z = e->w[0].dec;
		size_t out;

		memset(z, 0, pages * e->ps);
		for (c = 0; c < HIB_CODEC_COUNT; c++) {
			if (!(s->codecs & (1u << c)))
				continue;
			rc = codec_run(s, &e->w[0], (enum hib_codec_id)c, z, pages * e->ps,
				       e->cmp_cap, &out);
			if (rc)
				return hib_seterr(s->img, rc, "%s compression failed",
						  hib_codec_name((enum hib_codec_id)c));
			s->zero_len[pages][c] = (uint32_t)out;
		}
		s->zero_known[pages] = 1;
	}
	memcpy(len, s->zero_len[pages], sizeof(s->zero_len[pages]));
	return HIB_OK;
}

/* The chunk in buf is complete: cur pages, cur_nz of them not zero. */
static int chunk_done(struct hib_sink *s, uint64_t idx)
{
	size_t pages = s->cur;
	uint32_t len[HIB_CODEC_COUNT];
	struct sjob *j;
	unsigned char *t;
	int rc;

	s->cur = 0;
	s->unc_bytes += pages * s->ps;
	if (!s->codecs)
		return HIB_OK;
	if (!s->cur_nz) {
		s->zero_chunks++;
		rc = zero_sizes(s, pages, len);
		return rc ? rc : fold(s, idx, len, false);
	}
	s->cur_nz = 0;
	s->pop++;
	if (!s->cur_sampled) {
		if (s->keep_chunks)
			return grow_chunks(s, idx);
		return HIB_OK;
	}
	if ((rc = acquire(s->eng, &j)))
		return rc;
	if (!s->eng->nworkers) {
		j->unc = s->buf;
	} else {
		/* the slot takes the filled buffer, the sink the slot's empty one */
		t = j->unc;
		j->unc = s->buf;
		s->buf = t;
	}
	submit(s, j, idx, pages);
	return HIB_OK;
}

/* page NULL: a page of zeros (flagged, or found zero by the caller) */
int hib_sink_page(struct hib_sink *s, const unsigned char *page)
{
	uint64_t p = s->n < s->meta_pages ? s->meta_pages : s->n;
	size_t k;

	s->n = p + 1;
	if (p < s->head_pages) {
		if (page)
			memcpy(s->head + (p - s->meta_pages) * s->ps, page, s->ps);
		else
			memset(s->head + (p - s->meta_pages) * s->ps, 0, s->ps);
		return HIB_OK;
	}
	k = (p - s->head_pages) % UNC_PAGES;
	if (k == 0)
		s->cur_sampled = is_sampled(s, p / UNC_PAGES);
	if (s->cur_sampled && s->codecs) {
		if (page) {
			/* the zeros before the chunk's first data page were not built */
			if (!s->cur_nz && k)
				memset(s->buf, 0, k * s->ps);
			memcpy(s->buf + k * s->ps, page, s->ps);
		} else if (s->cur_nz) {
			memset(s->buf + k * s->ps, 0, s->ps);
		}
	}
	s->cur_nz += page != NULL;
	s->cur = k + 1;
	if (k == UNC_PAGES - 1)
		return chunk_done(s, p / UNC_PAGES);
	return HIB_OK;
}

/* The meta pages, in order: entries' PFNs from the runs, the zero flag
 * where src says so. */
struct meta_cursor {
	const struct hib_image *img;
	const struct hib_sink_meta *src;
	uint64_t entry;            /* next entry to write */
	uint64_t ord;              /* data pages (not flagged) before it */
	uint64_t run;
};

static void meta_skip(struct meta_cursor *mc, uint64_t to)
{
	const uint8_t *fl = mc->src ? mc->src->flagged : NULL;
	uint64_t e = mc->entry, flagged = 0;

	if (to > mc->img->pfns.entries)
		to = mc->img->pfns.entries;
	if (fl) {
		for (; e < to && (e & 7); e++)
			flagged += bit(fl, e);
		for (; e + 8 <= to; e += 8)
			flagged += (uint64_t)__builtin_popcount(fl[e >> 3]);
		for (; e < to; e++)
			flagged += bit(fl, e);
	}
	if (to > mc->entry) {
		mc->ord += to - mc->entry - flagged;
		mc->entry = to;
	}
}

static void meta_fill(struct meta_cursor *mc, uint64_t m, unsigned char *page)
{
	const struct hib_image *img = mc->img;
	const struct hib_layout *lay = &img->lay;
	uint64_t per = lay->ps / lay->word, flag = (uint64_t)1 << (lay->word * 8 - 1);
	uint64_t e, j, N = img->pfns.entries;
	const uint8_t *fl = mc->src ? mc->src->flagged : NULL;
	const uint8_t *dz = mc->src ? mc->src->data_zero : NULL;

	meta_skip(mc, m * per);
	e = mc->entry;
	memset(page, 0, lay->ps);
	if (e < N)
		mc->run = hib_last_le(&img->runs[0].first_entry, sizeof(*img->runs),
				      img->n_runs, e);
	for (j = 0; j < per && e < N; j++, e++) {
		uint64_t pfn;
		bool z;

		while (mc->run + 1 < img->n_runs && img->runs[mc->run + 1].first_entry <= e)
			mc->run++;
		pfn = img->runs[mc->run].start_pfn + (e - img->runs[mc->run].first_entry);
		if (fl && bit(fl, e)) {
			z = true;
		} else {
			z = dz && bit(dz, mc->ord);
			mc->ord++;
		}
		hib_w_put_word(lay, page + j * lay->word, z ? pfn | flag : pfn, lay->word);
	}
	if (j < per)
		hib_w_put_word(lay, page + j * lay->word, ~(uint64_t)0, lay->word);
	mc->entry = e;
}

int hib_sink_finish(struct hib_sink *s, const struct hib_sink_meta *src)
{
	uint64_t total = s->n < s->meta_pages ? s->meta_pages : s->n;
	uint64_t head = total < s->head_pages ? total : s->head_pages, i;
	struct meta_cursor mc = { .img = s->img, .src = src };
	int rc;

	s->n = total;
	if (!s->codecs) {
		s->unc_bytes = total * s->ps;
		return HIB_OK;
	}
	/* the last data chunk, short */
	if (s->cur && (rc = chunk_done(s, (total - 1) / UNC_PAGES)))
		return rc;
	/* the chunks of the PFN list, and the data pages that share its last */
	for (i = 0; i < head; i += UNC_PAGES) {
		size_t pages = head - i < UNC_PAGES ? head - i : UNC_PAGES, k;
		uint64_t idx = i / UNC_PAGES;
		struct sjob *j;

		s->unc_bytes += pages * s->ps;
		s->pop++;
		if (!is_sampled(s, idx)) {
			if (s->keep_chunks && (rc = grow_chunks(s, idx)))
				return rc;
			continue;
		}
		if ((rc = acquire(s->eng, &j)))
			return rc;
		if (!s->eng->nworkers)
			j->unc = s->buf;    /* the last data chunk has gone */
		for (k = 0; k < pages; k++) {
			uint64_t p = i + k;

			if (p < s->meta_pages)
				meta_fill(&mc, p, j->unc + k * s->ps);
			else
				memcpy(j->unc + k * s->ps, s->head + (p - s->meta_pages) * s->ps,
				       s->ps);
		}
		submit(s, j, idx, pages);
	}
	return hib_engine_drain(s->eng);
}

/* ---- the estimate ----------------------------------------------------------- */

/* Newton's square root, so that lib/ needs no libm */
static double root(double v)
{
	double x = v > 1 ? v : 1;
	int i;

	if (v <= 0)
		return 0;
	for (i = 0; i < 200; i++) {
		double nx = 0.5 * (x + v / x);

		if (nx >= x)
			break;
		x = nx;
	}
	return x;
}

static uint64_t up(double v)
{
	uint64_t u = v > 0 ? (uint64_t)v : 0;

	return (double)u < v ? u + 1 : u;
}

static uint64_t nearest(double v)
{
	return v > 0 ? (uint64_t)(v + 0.5) : 0;
}

/* z of a two-sided 99.9 % normal interval */
#define SAMPLE_Z 3.2905

/* Below this many sampled chunks the normal approximation is not trusted
 * (the 64 KiB-page fixtures sample 2 or 3 chunks of 2 MiB a stream) */
#define SAMPLE_MIN_N 30

/* Total over the population of N chunks from n sampled: N * mean, and
 * z * N * sqrt((1 - n/N) * s^2 / n), s^2 the sample variance (the finite
 * population correction makes it 0 when every chunk was sized). With fewer
 * than SAMPLE_MIN_N sampled the bound is the worst case instead: each of
 * the N - n chunks not sized lies anywhere in [0, worst]. */
static void scale_up(uint64_t N, uint64_t n, double sum, double sum2, double worst,
		     double *est, double *err)
{
	double mean, var;

	if (!N || n >= N) {
		*est = sum;
		*err = 0;
		return;
	}
	mean = n ? sum / (double)n : worst / 2;
	*est = sum + mean * (double)(N - n);
	if (n < SAMPLE_MIN_N) {
		*err = (double)(N - n) * (mean > worst - mean ? mean : worst - mean);
		return;
	}
	var = (sum2 - (double)n * mean * mean) / (double)(n - 1);
	if (var < 0)
		var = 0;
	*err = SAMPLE_Z * (double)N * root((1 - (double)n / (double)N) * var / (double)n);
}

void hib_sink_estimate(const struct hib_sink *s, enum hib_codec_id c,
		       struct hib_sink_est *out)
{
	const struct hib_sink_acc *a = &s->acc[c];
	const struct hib_w_size *z = &s->size[c];
	double worst = (double)s->eng->cmp_cap, est, err;
	struct hib_w_size w;
	uint64_t lo, hi;

	memset(out, 0, sizeof(*out));
	out->sampled = a->n;
	out->population = s->pop;
	out->chunks = s->zero_chunks + s->pop;
	/* the zero chunks (z minus the sampled ones) are exact */
	scale_up(s->pop, a->n, (double)a->sum_len, a->sum_len2, worst, &est, &err);
	out->cmp_bytes = z->cmp_bytes - a->sum_len + nearest(est);
	out->cmp_bytes_err = up(err);
	scale_up(s->pop, a->n, (double)a->sum_pages, a->sum_pages2,
		 (double)hib_w_chunk_pages(&z->lay, s->eng->cmp_cap), &est, &err);
	w = *z;
	w.disk_pages = z->disk_pages - a->sum_pages + nearest(est);
	w.chunks = out->chunks;
	out->disk_pages = w.disk_pages;
	out->disk_pages_err = up(err);
	out->slots = hib_w_size_slots(&w);
	/* slots grow with disk pages by a map page every epm: bound both ends */
	lo = w.disk_pages > out->disk_pages_err ? w.disk_pages - out->disk_pages_err : 0;
	hi = w.disk_pages + out->disk_pages_err;
	w.disk_pages = lo;
	lo = hib_w_size_slots(&w);
	w.disk_pages = hi;
	hi = hib_w_size_slots(&w);
	out->slots_err = hi - out->slots > out->slots - lo ? hi - out->slots : out->slots - lo;
}
