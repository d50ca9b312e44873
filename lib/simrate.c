/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * simrate.c - the simulator's inputs and their sources (hibimg-simulate(1),
 * INPUTS). Each rate is given by the caller, taken from a kernel log,
 * measured here on a bounded batch of the image's own pages (the median of
 * repeat runs, so one slow run on a loaded machine does not move the
 * verdict), or the seed mail's figures; the disk rates nobody measured are
 * assumed and say so. Precedence: given > log > measured > seed/assumed.
 *
 * How a log's lines enter the model (the kernel's wording, kernel/power/
 * swap.c and snapshot.c, read through klog.c):
 *   "Using N thread(s) for X compression"   T, and the codec of "Wrote"
 *   "Wrote K kbytes in S seconds"            the save pipeline, K/S of stream
 *                                            per second: compress and write
 *                                            overlapped as the kernel ran
 *                                            them, on that machine's disk,
 *                                            which our compress + write sum
 *                                            only bounds from above
 *   "Read K kbytes in S seconds"             the load pipeline likewise (read,
 *                                            decompress, zero fill)
 *   "Copied K kbytes in S seconds"           (the seed's patch 1) the copy
 *                                            rate, over the pages copied
 *   "Image created (N pages copied, M zero pages)"
 *                                            which loop that was: M > 0 the
 *                                            zero check, over memory with a
 *                                            zero share M / (N + M); M = 0
 *                                            copy_page() (nozerocheck); no M
 *                                            (before 6.6) the word loop,
 *                                            which had no check then
 * The last of each line is taken: a log holds the latest hibernation last.
 */
#include "simrateP.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

const char *hib_sim_source_name(enum hib_sim_source s)
{
	static const char *const n[] = { "seed", "log", "measured", "given", "assumed", "image" };
	return (unsigned)s <= HIB_SIM_SRC_IMAGE ? n[s] : NULL;
}

/* here, not in simulate.c: the inputs name their codecs, and simulate.c
 * calls this file, not the other way round */
const char *hib_sim_comp_name(enum hib_sim_comp c)
{
	static const char *const n[] = { "none", "lzo", "lz4", "zstd" };

	return (unsigned)c < HIB_SIM_COMP_COUNT ? n[c] : NULL;
}

/* ---- the kernel log ------------------------------------------------------- */

static int read_text(struct hib_image *img, const char *path, char **text, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	size_t cap = 0, n = 0;
	char *b = NULL;

	if (fd < 0)
		return hib_seterr(img, HIB_ERR_IO, "cannot open %s: %s", path, strerror(errno));
	for (;;) {
		ssize_t r;

		if (cap - n < 8192 + 1) {
			char *nb;

			if (cap >= HIB_SIM_LOG_MAX) {
				free(b);
				close(fd);
				return hib_seterr(img, HIB_ERR_INVAL,
						  "%s: more than %u MiB, not a kernel log",
						  path, HIB_SIM_LOG_MAX >> 20);
			}
			nb = realloc(b, cap + (1u << 20));
			if (!nb) {
				free(b);
				close(fd);
				return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
			}
			b = nb;
			cap += 1u << 20;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r > 0 && memchr(b + n, 0, (size_t)r)) {
			/* an image or a binary given by mistake: say so at once */
			free(b);
			close(fd);
			return hib_seterr(img, HIB_ERR_INVAL, "%s: binary data, not a kernel log",
					  path);
		}
		if (r > 0) {
			n += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 || errno == EAGAIN)
			break;
		free(b);
		close(fd);
		return hib_seterr(img, HIB_ERR_IO, "cannot read %s: %s", path, strerror(errno));
	}
	close(fd);
	if (!b && !(b = malloc(1)))
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	b[n] = 0;
	*text = b;
	*len = n;
	return HIB_OK;
}

/* "... in S.CC seconds": the centiseconds swsusp_show_speed() prints */
static int seconds_of(const char *msg, double *s)
{
	const char *p = strstr(msg, " in ");
	char *end;

	if (!p)
		return -1;
	*s = strtod(p + 4, &end);
	if (end == p + 4 || strncmp(end, " seconds", 8) || !(*s > 0))
		return -1;
	return 0;
}

static enum hib_sim_comp codec_of(const char *msg)
{
	/* 3.2-6.8 name none: LZO was the only one */
	return strstr(msg, "lz4") ? HIB_SIM_LZ4 : HIB_SIM_LZO;
}

static void keep(struct sim_log_line *l, unsigned int lineno, const char *msg, size_t len,
		 const struct hib_log_line *ex)
{
	size_t k = len < sizeof(l->text) - 1 ? len : sizeof(l->text) - 1;

	l->have = 1;
	l->lineno = lineno;
	memcpy(l->text, msg, k);
	l->text[k] = 0;
	while (k && (l->text[k - 1] == '\r' || l->text[k - 1] == ' '))
		l->text[--k] = 0;
	l->v[0] = ex->nvalues > 0 ? (uint64_t)ex->value[0] : 0;
	l->v[1] = ex->nvalues > 1 ? (uint64_t)ex->value[1] : 0;
}

int hib_sim_log_read(struct hib_image *img, const char *path, struct sim_log *lg)
{
	char *text = NULL, *p, *end;
	size_t len = 0;
	unsigned int lineno = 0, pm = 0;
	int rc;

	memset(lg, 0, sizeof(*lg));
	rc = read_text(img, path, &text, &len);
	if (rc)
		return rc;
	for (p = text; p < text + len; p = end + 1) {
		struct hib_log_line ex = HIB_INIT(struct hib_log_line);
		struct sim_log_line *l = NULL;
		const char *msg;
		size_t n;

		end = memchr(p, '\n', (size_t)(text + len - p));
		if (!end)
			end = text + len;
		lineno++;
		if (hib_log_explain(p, (size_t)(end - p), &ex) != 1)
			continue;
		pm++;
		if (!ex.id)
			continue;
		msg = p + ex.msg_offset;
		n = (size_t)(end - msg);
		/* klog.c reads the kbytes; the seconds are ours to read */
		if (!strcmp(ex.id, "wrote"))
			l = &lg->wrote;
		else if (!strcmp(ex.id, "read"))
			l = &lg->read;
		else if (!strcmp(ex.id, "copied"))
			l = &lg->copied;
		else if (!strcmp(ex.id, "created"))
			l = &lg->created;
		else if (!strcmp(ex.id, "threads"))
			l = memmem(msg, n, "decompression", 13) ? &lg->dthreads : &lg->threads;
		if (!l)
			continue;
		keep(l, lineno, msg, n, &ex);
		if (l == &lg->wrote || l == &lg->read || l == &lg->copied) {
			if (seconds_of(l->text, &l->seconds) || !l->v[0]) {
				rc = hib_seterr(img, HIB_ERR_INVAL,
						"%s:%u: cannot read the kbytes and seconds of \"%s\"",
						path, lineno, l->text);
				goto out;
			}
		} else if (l == &lg->created) {
			lg->created_zero = ex.nvalues == 2;
		} else if (!l->v[0]) {
			rc = hib_seterr(img, HIB_ERR_INVAL, "%s:%u: no thread count in \"%s\"",
					path, lineno, l->text);
			goto out;
		}
	}
	if (!pm) {
		rc = hib_seterr(img, HIB_ERR_INVAL,
				"%s: not a kernel log: no power-management line in %u lines",
				path, lineno);
		goto out;
	}
	if (!lg->wrote.have && !lg->read.have && !lg->copied.have && !lg->threads.have &&
	    !lg->dthreads.have) {
		rc = hib_seterr(img, HIB_ERR_INVAL,
				"%s: no line simulate uses (\"Copied\", \"Wrote\", \"Read\" ... kbytes in S seconds, \"Using N thread(s)\")",
				path);
		goto out;
	}
	if (lg->copied.have && (!lg->created.have || lg->created.lineno < lg->copied.lineno)) {
		rc = hib_seterr(img, HIB_ERR_INVAL,
				"%s:%u: \"Copied\" without the \"Image created\" line after it that says which loop copied",
				path, lg->copied.lineno);
		goto out;
	}
	/* the codec of a pipeline: its threads line, or none at all */
	lg->comp = lg->threads.have ? codec_of(lg->threads.text) : HIB_SIM_NONE;
	lg->zerocheck = !lg->created.have ? -1 : lg->created_zero && lg->created.v[1] > 0;
	lg->dcomp = lg->dthreads.have ? codec_of(lg->dthreads.text) : HIB_SIM_NONE;
	rc = HIB_OK;
out:
	free(text);
	return rc;
}

/* ---- the measurement batch ------------------------------------------------- */

/* do_copy_page_zerocheck(): the kernel builds it without SIMD, so no
 * vectoriser here either, or the measurement would flatter it. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOVEC __attribute__((noinline, optimize("no-tree-vectorize")))
#else
#define NOVEC __attribute__((noinline))
#endif

NOVEC static int copy_zerocheck(long *dst, const long *src, unsigned int n)
{
	long z = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		z |= src[i];
		dst[i] = src[i];
	}
	return !z;
}

/* the loop without the check: before 6.6, and the seed's middle figure */
NOVEC static void copy_words(long *dst, const long *src, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		dst[i] = src[i];
}

/* The batch: every stride-th non-zero data page of the sizing pass, so
 * the rates are measured over the whole image, not its first 16 MiB, with
 * no pass of its own. */
struct sim_batch {
	struct hib_image *img;
	unsigned int ps;
	int want_copy, want_codec;
	unsigned char *src, *dst, *cmp;
	unsigned char *chunk;       /* a codec chunk gathered from src */
	size_t n, cap;              /* pages */
	size_t bound;               /* one chunk's compressed bound */
	uint64_t seen, stride;
	uint64_t cmp_sum;
	volatile long sink;
};

int hib_sim_batch_chunk(const struct hib_chunk *c, void *arg)
{
	((struct sim_batch *)arg)->cmp_sum += c->cmp_len;
	return 0;
}

void hib_sim_batch_page(struct sim_batch *b, const unsigned char *page)
{
	if (b->n < b->cap && b->seen++ % b->stride == 0)
		memcpy(b->src + b->n++ * b->ps, page, b->ps);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* HIB_SIM_LZO.. as the codec layer names them */
static enum hib_wcodec wc_of(enum hib_sim_comp c)
{
	return c == HIB_SIM_LZO ? HIB_WC_LZO : c == HIB_SIM_LZ4 ? HIB_WC_LZ4 : HIB_WC_ZSTD;
}

/* One codec over the batch's first pages, or every k-th of a copy-loop
 * batch, gathered in the kernel's 32-page chunks: each chunk compressed
 * then decompressed, each call timed, into one chunk's buffers (not the
 * batch's); every round trip compared. */
static size_t codec_pages(const struct sim_batch *b)
{
	size_t want = HIB_SIM_CODEC_BATCH_BYTES / b->ps;

	return b->n < want ? b->n : want;
}

static int time_codec(struct hib_image *img, struct sim_batch *b, struct hib_codec *cx,
		      enum hib_sim_comp c, int level, unsigned int ps, double *tc, double *td)
{
	size_t np = codec_pages(b), step = b->n / np, nch = (np + UNC_PAGES - 1) / UNC_PAGES, i, k;
	double t0, t1, t2;
	int rc;

	*tc = *td = 0;
	for (i = 0; i < nch; i++) {
		size_t pages = np - i * UNC_PAGES < UNC_PAGES ? np - i * UNC_PAGES : UNC_PAGES;
		size_t len = 0, got = 0;

		for (k = 0; k < pages; k++)
			memcpy(b->chunk + k * ps, b->src + (i * UNC_PAGES + k) * step * ps, ps);
		t0 = hib_now();
		rc = hib_wcodec_compress(cx, wc_of(c), level, b->chunk, pages * ps, b->cmp, b->bound,
					 &len);
		t1 = hib_now();
		if (rc)
			return hib_seterr(img, rc, "%s compression failed", hib_sim_comp_name(c));
		rc = hib_wcodec_decompress(cx, wc_of(c), b->cmp, len, b->dst, pages * ps, &got);
		t2 = hib_now();
		if (rc || got != pages * ps || memcmp(b->chunk, b->dst, pages * ps))
			return hib_seterr(img, HIB_ERR_INVAL, "%s round trip failed",
					  hib_sim_comp_name(c));
		*tc += t1 - t0;
		*td += t2 - t1;
	}
	return HIB_OK;
}

static void time_copies(struct sim_batch *b, unsigned int ps, double t[3])
{
	double t0, t1, t2, t3;
	long z = 0;
	size_t i;

	t0 = hib_now();
	for (i = 0; i < b->n; i++)
		z += copy_zerocheck((long *)(void *)(b->dst + i * ps),
				    (const long *)(const void *)(b->src + i * ps),
				    ps / sizeof(long));
	t1 = hib_now();
	for (i = 0; i < b->n; i++)
		copy_words((long *)(void *)(b->dst + i * ps),
			   (const long *)(const void *)(b->src + i * ps), ps / sizeof(long));
	t2 = hib_now();
	for (i = 0; i < b->n; i++)
		memcpy(b->dst + i * ps, b->src + i * ps, ps);
	t3 = hib_now();
	b->sink += z + b->dst[0];
	t[0] = t1 - t0;
	t[1] = t2 - t1;
	t[2] = t3 - t2;
}

int hib_sim_batch_new(struct hib_image *img, const struct hib_sim_opts *o,
		      struct sim_batch **out)
{
	struct sim_batch *b = calloc(1, sizeof(*b));
	unsigned int ps = img->lay.ps;
	size_t zb = ZSTD_compressBound((size_t)UNC_PAGES * ps);

	*out = NULL;
	if (!b)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	b->img = img;
	b->ps = ps;
	hib_sim_needs(o, &b->want_copy, &b->want_codec);
	b->bound = zb > (size_t)CMP_PAGES_MAX * ps ? zb : (size_t)CMP_PAGES_MAX * ps;
	b->cmp = malloc(b->bound);
	if (b->want_copy || b->want_codec) {
		b->cap = (b->want_copy ? HIB_SIM_COPY_BATCH_BYTES : HIB_SIM_CODEC_BATCH_BYTES) / ps;
		/* spread over the image's data pages, not its first 16 MiB */
		b->stride = img->info.image_pages > b->cap ? img->info.image_pages / b->cap : 1;
		b->src = malloc(b->cap * ps);   /* dst when timing, after the sizing */
	}
	if (!b->cmp || (b->cap && !b->src)) {
		hib_sim_batch_free(b);
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	*out = b;
	return HIB_OK;
}

void hib_sim_batch_free(struct sim_batch *b)
{
	if (!b)
		return;
	free(b->src);
	free(b->dst);
	free(b->chunk);
	free(b->cmp);
	free(b);
}

int hib_sim_measure(struct hib_image *img, struct sim_batch *b, const struct hib_sim_opts *o,
		    int zstd_level, struct sim_meas *m)
{
	struct hib_codec cx = { 0 };
	unsigned int ps = b->ps, rep = o->repeat ? o->repeat : HIB_SIM_REPEAT, k;
	double *tv = NULL;
	int rc, c;
	unsigned char *zero = NULL;

	memset(m, 0, sizeof(*m));
	m->image_cmp = b->cmp_sum;
	m->batch_pages = b->n;
	m->codec_pages = b->want_codec ? codec_pages(b) : 0;
	rc = hib_codec_init(&cx);
	if (rc)
		return hib_seterr(img, rc, "cannot set up the compressors");
	zero = calloc(UNC_PAGES, ps);
	tv = calloc(rep * 3, sizeof(*tv));
	if (!zero || !tv) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* an all-zero chunk, once per codec: what a zero page costs where the
	 * image has none to tell */
	for (c = HIB_SIM_LZO; c < HIB_SIM_COMP_COUNT; c++) {
		size_t len = 0;

		rc = hib_wcodec_compress(&cx, wc_of((enum hib_sim_comp)c), zstd_level, zero,
					 (size_t)UNC_PAGES * ps, b->cmp, b->bound, &len);
		if (rc) {
			rc = hib_seterr(img, rc, "%s compression failed",
					hib_sim_comp_name((enum hib_sim_comp)c));
			goto out;
		}
		m->zero_chunk[c] = len;
	}
	if (!b->n) {
		rc = HIB_OK;
		goto out;
	}
	/* the copy loops write a batch-sized dst; the codecs one chunk */
	b->dst = malloc((b->want_copy ? b->n : UNC_PAGES) * ps);
	b->chunk = malloc((size_t)UNC_PAGES * ps);
	if (!b->dst || !b->chunk) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (k = 0; b->want_copy && k < rep; k++) {
		double t[3];

		time_copies(b, ps, t);
		tv[k] = t[0] > 0 ? (double)b->n * ps / t[0] / HIB_KMB : 0;
		tv[rep + k] = t[1] > 0 ? (double)b->n * ps / t[1] / HIB_KMB : 0;
		tv[2 * rep + k] = t[2] > 0 ? (double)b->n * ps / t[2] / HIB_KMB : 0;
	}
	if (b->want_copy) {
		m->copy_zc = median(tv, rep);
		m->copy_loop = median(tv + rep, rep);
		m->copy_page = median(tv + 2 * rep, rep);
	}
	for (c = HIB_SIM_LZO; b->want_codec && c < HIB_SIM_COMP_COUNT; c++) {
		for (k = 0; k < rep; k++) {
			double tc = 0, td = 0;

			rc = time_codec(img, b, &cx, (enum hib_sim_comp)c, zstd_level, ps,
					&tc, &td);
			if (rc)
				goto out;
			tv[k] = tc > 0 ? (double)b->n * ps / tc / HIB_KMB : 0;
			tv[rep + k] = td > 0 ? (double)b->n * ps / td / HIB_KMB : 0;
		}
		m->cmp[c] = median(tv, rep);
		m->dec[c] = median(tv + rep, rep);
	}
	rc = HIB_OK;
out:
	hib_codec_free(&cx);
	free(zero);
	free(tv);
	return rc;
}

/* ---- the inputs, each from its source -------------------------------------- */

static const char seed_mail[] = "nozerocheck-copy_data_pages-2026.txt, Steam Deck OLED";

static double given_codec(const struct hib_sim_opts *o, int c, int dec)
{
	switch (c) {
	case HIB_SIM_LZO:  return dec ? o->rate_lzo_decompress : o->rate_lzo_compress;
	case HIB_SIM_LZ4:  return dec ? o->rate_lz4_decompress : o->rate_lz4_compress;
	case HIB_SIM_ZSTD: return dec ? o->rate_zstd_decompress : o->rate_zstd_compress;
	}
	return 0;
}

void hib_sim_needs(const struct hib_sim_opts *o, int *copy, int *codec)
{
	int c;

	*copy = 0;
	*codec = 0;
	/* what the caller pinned is not measured (a log's Copied line is
	 * preferred to a measurement when both are there) */
	if (o->calibrate)
		*copy = !(o->rate_zerocheck > 0) || !(o->rate_loop > 0) || !(o->rate_copy_page > 0);
	for (c = HIB_SIM_LZO; c < HIB_SIM_COMP_COUNT; c++)
		if (!(given_codec(o, c, 0) > 0) || !(given_codec(o, c, 1) > 0))
			*codec = 1;
}

static void set(struct hib_sim_inputs *si, enum sim_in i, const char *key, const char *what,
		const char *unit, double v, enum hib_sim_source src, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

static void set(struct hib_sim_inputs *si, enum sim_in i, const char *key, const char *what,
		const char *unit, double v, enum hib_sim_source src, const char *fmt, ...)
{
	struct hib_sim_input *x = &si->in[i];

	x->key = key;
	x->what = what;
	x->unit = unit;
	x->value = v;
	x->source = src;
	x->from = NULL;
	si->have[i] = 1;
	if (fmt) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(si->from[i], sizeof(si->from[i]), fmt, ap);
		va_end(ap);
		x->from = si->from[i];
	}
}

/* a log line's rate: K kbytes in S seconds, in kernel MB (1000 KiB) */
static double line_rate(const struct sim_log_line *l)
{
	return (double)l->v[0] / l->seconds / 1000.0;
}

#define SHARE_KEY  "copy_zerocheck_share"
#define SHARE_WHAT "zero share of the memory it was printed for"

/* One copy rate and where each source has it: the first that does wins,
 * given > a log's "Copied" line > --calibrate's batch > the seed mail. */
struct copy_in {
	enum sim_in in;
	const char *key, *what;
	double given;
	const struct sim_log *log;  /* the log whose Copied line is this loop's */
	const char *log_path, *log_why;
	double measured;
	const char *measured_how;
	double seed;
	const char *seed_line;
};

static void copy_input(struct hib_sim_inputs *si, const struct hib_sim_opts *o,
		       const struct sim_meas *m, const struct copy_in *c)
{
	if (c->given > 0)
		set(si, c->in, c->key, c->what, "MB/s", c->given, HIB_SIM_SRC_GIVEN, NULL);
	else if (c->log)
		set(si, c->in, c->key, c->what, "MB/s", line_rate(&c->log->copied), HIB_SIM_SRC_LOG,
		    "%s:%u: \"%s\"%s", c->log_path, c->log->copied.lineno, c->log->copied.text,
		    c->log_why);
	else if (o->calibrate && c->measured > 0)
		set(si, c->in, c->key, c->what, "MB/s", c->measured, HIB_SIM_SRC_MEASURED,
		    "median of %u on %" PRIu64 " non-zero pages of the image, %s",
		    o->repeat ? o->repeat : HIB_SIM_REPEAT, m->batch_pages, c->measured_how);
	else
		set(si, c->in, c->key, c->what, "MB/s", c->seed, HIB_SIM_SRC_SEED, "%s: \"%s\"",
		    seed_mail, c->seed_line);
}

int hib_sim_inputs_resolve(struct hib_image *img, const struct hib_sim_opts *o,
			   struct hib_sim_inputs *si, unsigned int threads_default)
{
	const struct sim_meas *m = &si->meas;
	static const char *const ckey[HIB_SIM_COMP_COUNT][2] = {
		{ NULL, NULL }, { "lzo_compress", "lzo_decompress" },
		{ "lz4_compress", "lz4_decompress" }, { "zstd_compress", "zstd_decompress" } };
	static const char *const cwhat[HIB_SIM_COMP_COUNT][2] = {
		{ NULL, NULL },
		{ "LZO compression, one thread", "LZO decompression, one thread" },
		{ "LZ4 compression, one thread", "LZ4 decompression, one thread" },
		{ "zstd compression, one thread", "zstd decompression, one thread" } };
	/* the log each line is taken from: the first with threads, the last
	 * with the rest; a Copied line goes to the loop its log ran */
	const struct sim_log *lt = NULL, *lzc = NULL, *lpage = NULL, *lloop = NULL,
			     *lw = NULL, *lwoff = NULL, *lr = NULL;
	const char *pt = NULL, *pzc = NULL, *ppage = NULL, *ploop = NULL, *pw = NULL,
		   *pwoff = NULL, *pr = NULL;
	const struct sim_log *lg;
	unsigned int k;
	int c, d;
	double v;

	for (k = 0; k < si->nlog; k++) {
		const char *p = si->log_path[k];

		lg = &si->log[k];
		if (!lt && (lg->threads.have || lg->dthreads.have)) {
			lt = lg;
			pt = p;
		}
		if (lg->copied.have) {
			if (!lg->created_zero) {
				lloop = lg;
				ploop = p;
			} else if (lg->created.v[1] > 0) {
				lzc = lg;
				pzc = p;
			} else {
				lpage = lg;
				ppage = p;
			}
		}
		if (lg->wrote.have && lg->zerocheck == 0) {
			lwoff = lg;
			pwoff = p;
		} else if (lg->wrote.have) {
			lw = lg;
			pw = p;
		}
		if (lg->read.have) {
			lr = lg;
			pr = p;
		}
	}
	/* threads */
	if (o->threads)
		set(si, SIM_IN_THREADS, "threads", "compression threads", "threads", o->threads,
		    HIB_SIM_SRC_GIVEN, NULL);
	else if (lt) {
		const struct sim_log_line *l = lt->threads.have ? &lt->threads : &lt->dthreads;

		set(si, SIM_IN_THREADS, "threads", "compression threads", "threads",
		    (double)l->v[0], HIB_SIM_SRC_LOG, "%s:%u: \"%s\"", pt, l->lineno, l->text);
	} else
		set(si, SIM_IN_THREADS, "threads", "compression threads", "threads",
		    threads_default, HIB_SIM_SRC_MEASURED,
		    "clamp(online CPUs - 1, 1, 3) here, as the kernel computes it");

	/* the copy with the zero check, as printed, and its memory's zero
	 * share, which comes from where the rate came from */
	{
		const struct copy_in cin[] = {
			{ SIM_IN_COPY_ZEROCHECK, "copy_zerocheck",
			  "copy with the zero check, as the kernel prints it", o->rate_zerocheck,
			  lzc, pzc, "", m->copy_zc, "word loop with OR test, not vectorised",
			  HIB_SIM_RATE_ZEROCHECK, "Copied 4940240 kbytes in 11.33 seconds (436.03 MB/s)" },
			{ SIM_IN_COPY_LOOP, "copy_loop", "word loop without the check", o->rate_loop,
			  lloop, ploop, " (before 6.6: no check)", m->copy_loop, "not vectorised",
			  HIB_SIM_RATE_LOOP, "Copied 4974664 kbytes in 9.03 seconds (550.90 MB/s)" },
			{ SIM_IN_COPY_PAGE, "copy_page", "copy_page(), no check", o->rate_copy_page,
			  lpage, ppage, " (0 zero pages: nozerocheck)", m->copy_page, "memcpy()",
			  HIB_SIM_RATE_COPY_PAGE, "Copied 6275216 kbytes in 3.96 seconds (1584.65 MB/s)" },
		};

		for (k = 0; k < sizeof(cin) / sizeof(cin[0]); k++)
			copy_input(si, o, m, &cin[k]);
	}
	switch (si->in[SIM_IN_COPY_ZEROCHECK].source) {
	case HIB_SIM_SRC_GIVEN:
		set(si, SIM_IN_COPY_SHARE, SHARE_KEY, SHARE_WHAT, "share", o->rate_zerocheck_share,
		    HIB_SIM_SRC_GIVEN, NULL);
		break;
	case HIB_SIM_SRC_LOG: {
		double n = (double)lzc->created.v[0], z = (double)lzc->created.v[1];

		set(si, SIM_IN_COPY_SHARE, SHARE_KEY, SHARE_WHAT, "share", z / (n + z),
		    HIB_SIM_SRC_LOG, "%s:%u: \"%s\"", pzc, lzc->created.lineno, lzc->created.text);
		break;
	}
	case HIB_SIM_SRC_MEASURED:
		set(si, SIM_IN_COPY_SHARE, SHARE_KEY, SHARE_WHAT, "share", 0, HIB_SIM_SRC_MEASURED,
		    "the batch has no zero pages");
		break;
	default:
		set(si, SIM_IN_COPY_SHARE, SHARE_KEY, SHARE_WHAT, "share", HIB_SIM_SHARE_ZEROCHECK,
		    HIB_SIM_SRC_SEED, "%s: 1 - 4940240/6275216 kbytes (the copy_page() run copied all)",
		    seed_mail);
		break;
	}
	if (!(si->in[SIM_IN_COPY_SHARE].value >= 0 && si->in[SIM_IN_COPY_SHARE].value < 1))
		return hib_seterr(img, HIB_ERR_INVAL, "zero share %g outside [0, 1)",
				  si->in[SIM_IN_COPY_SHARE].value);

	/* the codecs: given, or measured (a log's "Wrote" is the whole
	 * pipeline, not the codec: it enters as WROTE below) */
	for (c = HIB_SIM_LZO; c < HIB_SIM_COMP_COUNT; c++) {
		for (d = 0; d < 2; d++) {
			enum sim_in i = (enum sim_in)(SIM_IN_LZO_C + 2 * (c - HIB_SIM_LZO) + d);

			v = given_codec(o, c, d);
			if (v > 0)
				set(si, i, ckey[c][d], cwhat[c][d], "MB/s", v, HIB_SIM_SRC_GIVEN, NULL);
			else
				set(si, i, ckey[c][d], cwhat[c][d], "MB/s",
				    d ? m->dec[c] : m->cmp[c], HIB_SIM_SRC_MEASURED,
				    "median of %u on %" PRIu64 " non-zero pages of the image, 32-page chunks",
				    o->repeat ? o->repeat : HIB_SIM_REPEAT, m->codec_pages);
		}
	}

	/* the disks */
	if (o->disk_write > 0)
		set(si, SIM_IN_DISK_W, "disk_write", "disk write", "MB/s", o->disk_write,
		    HIB_SIM_SRC_GIVEN, NULL);
	else
		set(si, SIM_IN_DISK_W, "disk_write", "disk write", "MB/s", HIB_SIM_DISK_WRITE,
		    HIB_SIM_SRC_ASSUMED, "nobody measured it: an SSD's order of magnitude");
	if (o->disk_read > 0)
		set(si, SIM_IN_DISK_R, "disk_read", "disk read", "MB/s", o->disk_read,
		    HIB_SIM_SRC_GIVEN, NULL);
	else
		set(si, SIM_IN_DISK_R, "disk_read", "disk read", "MB/s", HIB_SIM_DISK_READ,
		    HIB_SIM_SRC_ASSUMED, "nobody measured it: an SSD's order of magnitude");

	/* the pipelines, only from a log: the save per zero-check state of
	 * the hibernation that printed it, the load (of whatever image the
	 * boot found) once */
	if (lw) {
		si->comp[SIM_IN_WROTE] = lw->comp;
		set(si, SIM_IN_WROTE, "wrote", "save pipeline (compress and write) of the log's codec",
		    "MB/s", line_rate(&lw->wrote), HIB_SIM_SRC_LOG, "%s:%u: \"%s\" (%s%s)", pw,
		    lw->wrote.lineno, lw->wrote.text, hib_sim_comp_name(lw->comp),
		    lw->zerocheck == 1 ? ", zero check on" : "");
	}
	if (lwoff) {
		si->comp[SIM_IN_WROTE_OFF] = lwoff->comp;
		set(si, SIM_IN_WROTE_OFF, "wrote_nozerocheck",
		    "save pipeline of the log's codec, zero check off", "MB/s",
		    line_rate(&lwoff->wrote), HIB_SIM_SRC_LOG, "%s:%u: \"%s\" (%s, zero check off)",
		    pwoff, lwoff->wrote.lineno, lwoff->wrote.text, hib_sim_comp_name(lwoff->comp));
	}
	if (lr) {
		si->comp[SIM_IN_READ] = lr->dcomp;
		set(si, SIM_IN_READ, "read", "load pipeline (read, decompress, zero fill) of the log's codec",
		    "MB/s", line_rate(&lr->read), HIB_SIM_SRC_LOG, "%s:%u: \"%s\" (%s)", pr,
		    lr->read.lineno, lr->read.text, hib_sim_comp_name(lr->dcomp));
	}
	return HIB_OK;
}

/* the machine modelled: the image's, or the caller's --ram / --zero-share */
void hib_sim_inputs_scale(struct hib_sim_inputs *si, const struct hib_sim_opts *o,
			  uint64_t image_ram, double image_share)
{
	if (o->ram_bytes)
		set(si, SIM_IN_RAM, "ram", "RAM of the machine modelled", "bytes",
		    (double)o->ram_bytes, HIB_SIM_SRC_GIVEN, NULL);
	else
		set(si, SIM_IN_RAM, "ram", "RAM of the machine modelled", "bytes",
		    (double)image_ram, HIB_SIM_SRC_IMAGE, "num_physpages x page size");
	if (o->zero_share_set)
		set(si, SIM_IN_ZERO_SHARE, "zero_share", "zero share of the saved pages", "share",
		    o->zero_share, HIB_SIM_SRC_GIVEN, NULL);
	else
		set(si, SIM_IN_ZERO_SHARE, "zero_share", "zero share of the saved pages", "share",
		    image_share, HIB_SIM_SRC_IMAGE, "its zero pages / its PFN entries");
}
