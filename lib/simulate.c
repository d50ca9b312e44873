/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * simulate.c - the same memory hibernated under other settings: zero check
 * on (6.6+, zero pages flagged in the PFN list and left out of the stream)
 * or off (the 2026 nozerocheck proposal: copy_page() for every page, zero
 * pages stored as data), crossed with no compression, LZO, LZ4 and zstd.
 *
 * Sizes are not estimated: both streams are built page by page from the
 * image's memory and really compressed in 32-page chunks, as the kernel
 * would (simsize.c: zero and repeated chunks sized once, all CPUs), or,
 * with a sample, the sampled chunks are and the rest are scaled up with
 * an error bound; page counts are exact either way. Times are a model (see hibimg-simulate(1)):
 *   copy       = bytes scanned / copy rate       (the critical section)
 *   compress   = stream bytes / (codec rate x threads)
 *   write      = bytes on disk / disk write rate
 *   read       = bytes on disk / disk read rate
 *   decompress = stream bytes / (decode rate x threads)
 *   zero fill  = zero-flagged pages x page size / copy_page rate (resume)
 * The kernel prints the zero-check loop's rate over the pages it copied
 * (zero pages scanned but not counted), so that rate comes with the zero
 * share of the memory it was measured on and is turned into a rate over
 * all scanned bytes: rate / (1 - share).
 */
#include "statsP.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Only as far as the caller's struct reaches: it may predate our fields. */
void hib_sim_defaults(struct hib_sim_opts *o)
{
	const struct hib_sim_opts d = {
		.rate_zerocheck = HIB_SIM_RATE_ZEROCHECK,
		.rate_zerocheck_share = HIB_SIM_SHARE_ZEROCHECK,
		.rate_loop = HIB_SIM_RATE_LOOP,
		.rate_copy_page = HIB_SIM_RATE_COPY_PAGE,
		.disk_write = HIB_SIM_DISK_WRITE,
		.disk_read = HIB_SIM_DISK_READ,
		.zstd_level = HIB_ZSTD_LEVEL,
	};
	size_t n = o->size;

	if (n < sizeof(n))
		return;
	memcpy(o, &d, n < sizeof(d) ? n : sizeof(d));
	o->size = n;
}

const char *hib_sim_comp_name(enum hib_sim_comp c)
{
	static const char *const n[] = { "none", "lzo", "lz4", "zstd" };
	return (unsigned)c < HIB_SIM_COMP_COUNT ? n[c] : NULL;
}

/* do_copy_page_zerocheck(): the kernel builds it without SIMD, so no
 * vectoriser here either, or the calibration would flatter it. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noinline, optimize("no-tree-vectorize")))
#else
__attribute__((noinline))
#endif
static int copy_zerocheck(long *dst, const long *src, unsigned int n)
{
	long z = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		z |= src[i];
		dst[i] = src[i];
	}
	return !z;
}

struct calib {
	unsigned char *src, *dst;
	size_t n, cap;
	uint64_t pages;
	double t_check, t_copy;
	volatile int sink;
};

/* the calibration's batch: 16 MiB, past most L2 caches, in pages of the
 * image (4096 of 4 KiB, 256 of 64 KiB) */
#define CALIB_BYTES (16u << 20)

/* bytes of each stream decoded again for the decode rates, whatever the
 * image: 128 chunks at 4 KiB pages, 8 at 64 KiB */
#define SIM_DECODE_BYTES (16u << 20)

/* the sample's default seed: any fixed value, so runs repeat */
#define HIB_SIM_SAMPLE_SEED 0x5eed2026u

static void calib_run(struct calib *k, unsigned int ps)
{
	double t0, t1, t2;
	size_t i;
	int z = 0;

	if (!k->n)
		return;
	t0 = hib_now();
	for (i = 0; i < k->n; i++)
		z += copy_zerocheck((long *)(void *)(k->dst + i * ps),
				    (const long *)(const void *)(k->src + i * ps),
				    ps / sizeof(long));
	t1 = hib_now();
	for (i = 0; i < k->n; i++)
		memcpy(k->dst + i * ps, k->src + i * ps, ps);
	t2 = hib_now();
	k->sink += z + k->dst[0];
	k->t_check += t1 - t0;
	k->t_copy += t2 - t1;
	k->pages += k->n;
	k->n = 0;
}

static double clamp_rate(double r, double def)
{
	return r > 0 ? r : def;
}

int hib_simulate(struct hib_image *img, const struct hib_sim_opts *opts,
		 struct hib_sim **out)
{
	struct hib_sim_opts oc;
	const struct hib_sim_opts *o = &oc;
	struct hib_sim *res = NULL;
	struct hib_sim_info *r;
	const unsigned int all = (1u << HIB_CODEC_LZO) | (1u << HIB_CODEC_LZ4) |
				 (1u << HIB_CODEC_ZSTD);
	struct hib_sink on, off;
	struct hib_sink_meta on_meta = { 0 };
	struct hib_engine *eng = NULL;
	struct calib k = { 0 };
	struct hib_reader *rd = NULL;
	struct hib_page pg;
	uint8_t *dz = NULL;          /* stored data pages found zero, by data ordinal */
	uint64_t dz_cap = 0, ord = 0;
	unsigned char *zero = NULL;
	unsigned int ps;
	uint64_t N, Z, meta;
	double share, bps, sec_c[HIB_SIM_COMP_COUNT] = { 0 }, sec_d[HIB_SIM_COMP_COUNT] = { 0 };
	long cpus;
	int rc, zc, c;

	*out = NULL;
	memset(&on, 0, sizeof(on));
	memset(&off, 0, sizeof(off));
	memset(&oc, 0, sizeof(oc));
	if (opts && (rc = HIB_ABI_IN(img, hib_sim_opts, &oc, opts)))
		return rc;
	if (!img->loaded && (rc = hib_image_load(img)))
		return rc;
	if (!img->pfns_loaded && (rc = hib_image_load_pfns(img)))
		return rc;
	if (!(o->sample >= 0 && o->sample <= 1))
		return hib_seterr(img, HIB_ERR_INVAL, "sample %g outside [0, 1]", o->sample);
	res = calloc(1, sizeof(*res));
	if (!res)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	r = &res->info;
	ps = img->lay.ps;
	N = img->pfns.entries;
	meta = img->info.meta_pages;
	zero = calloc(1, ps);
	if (!zero) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (o->calibrate) {
		k.cap = CALIB_BYTES / ps;
		k.src = malloc(k.cap * ps);
		k.dst = malloc(k.cap * ps);
		if (!k.src || !k.dst) {
			rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	if ((rc = hib_engine_new(img, o->threads, &eng)) ||
	    (rc = hib_sink_init(&on, eng, meta, all)) ||
	    (rc = hib_sink_init(&off, eng, meta, all)))
		goto out;
	r->sample = o->sample > 0 && o->sample < 1 ? o->sample : 0;
	r->sample_seed = o->sample_seed ? o->sample_seed : HIB_SIM_SAMPLE_SEED;
	r->workers = hib_engine_workers(eng);
	hib_sink_set_sample(&on, r->sample, r->sample_seed, 1);
	hib_sink_set_sample(&off, r->sample, r->sample_seed, 2);
	/* the rates: a bounded number of chunks round trips, not the stream */
	on.decode_left = off.decode_left = SIM_DECODE_BYTES / (UNC_PAGES * ps);
	r->zstd_level = o->zstd_level ? o->zstd_level : HIB_ZSTD_LEVEL;
	on.zstd_level[HIB_CODEC_ZSTD] = off.zstd_level[HIB_CODEC_ZSTD] = r->zstd_level;

	rc = hib_reader_new(img, &rd);
	if (rc)
		goto out;
	/* the reader decodes in this thread, as before: the CPUs go to the
	 * sizing, nine tenths of the work, and the reader's ring (up to
	 * HIB_RING_BYTES) stays out of simulate's memory */
	Z = 0;
	while ((rc = hib_reader_next_page(rd, &pg)) == 1) {
		bool z = !pg.data || hib_page_zero(pg.data, ps);

		hib_tick(img, "reading", pg.entry + 1, img->pfns.entries);
		if (pg.data) {
			if (ord / 8 >= dz_cap) {
				uint64_t ncap = dz_cap ? dz_cap * 2 : 4096;
				uint8_t *n = realloc(dz, ncap);

				if (!n) {
					rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
					goto out;
				}
				memset(n + dz_cap, 0, ncap - dz_cap);
				dz = n;
				dz_cap = ncap;
			}
			if (z)
				set_bit(dz, ord);
			ord++;
		}
		if (z)
			Z++;
		else if ((rc = hib_sink_page(&on, pg.data)))
			break;
		if ((rc = hib_sink_page(&off, z ? NULL : pg.data)))
			break;
		if (k.cap) {
			memcpy(k.src + k.n * ps, pg.data ? pg.data : zero, ps);
			if (++k.n == k.cap)
				calib_run(&k, ps);
		}
	}
	if (rc < 0)
		goto out;
	calib_run(&k, ps);
	on_meta.flagged = img->zero_bits;
	on_meta.data_zero = dz;
	if ((rc = hib_sink_finish(&on, &on_meta)) || (rc = hib_sink_finish(&off, NULL)))
		goto out;

	r->entries = N;
	r->zero_pages = Z;
	r->zero_flagged = img->pfns.zero_flagged;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	r->threads = o->threads ? o->threads :
		     (unsigned int)(cpus - 1 < 1 ? 1 : cpus - 1 > 3 ? 3 : cpus - 1);
	share = o->rate_zerocheck > 0 ? o->rate_zerocheck_share : HIB_SIM_SHARE_ZEROCHECK;
	if (share < 0 || share >= 1) {
		rc = hib_seterr(img, HIB_ERR_INVAL, "zero share %g outside [0, 1)", share);
		goto out;
	}
	r->rate_zerocheck_scan = clamp_rate(o->rate_zerocheck, HIB_SIM_RATE_ZEROCHECK) /
				 (1 - share);
	r->rate_loop = clamp_rate(o->rate_loop, HIB_SIM_RATE_LOOP);
	r->rate_copy_page = clamp_rate(o->rate_copy_page, HIB_SIM_RATE_COPY_PAGE);
	if (k.pages && k.t_check > 0 && k.t_copy > 0) {
		r->calibrated = 1;
		r->rate_zerocheck_scan = (double)k.pages * ps / k.t_check / HIB_KMB;
		r->rate_copy_page = (double)k.pages * ps / k.t_copy / HIB_KMB;
	}
	r->rate_zerocheck = N ? r->rate_zerocheck_scan * (double)(N - Z) / (double)N : 0;
	r->disk_write = clamp_rate(o->disk_write, HIB_SIM_DISK_WRITE);
	r->disk_read = clamp_rate(o->disk_read, HIB_SIM_DISK_READ);
	for (c = HIB_SIM_LZO; c < HIB_SIM_COMP_COUNT; c++) {
		enum hib_codec_id id = c == HIB_SIM_LZO ? HIB_CODEC_LZO :
				       c == HIB_SIM_LZ4 ? HIB_CODEC_LZ4 : HIB_CODEC_ZSTD;
		/* over the chunks really compressed (and round tripped) */
		double bc = (double)(on.cmp_unc[id] + off.cmp_unc[id]);
		double bd = (double)(on.dec_unc[id] + off.dec_unc[id]);

		sec_c[c] = on.cmp_sec[id] + off.cmp_sec[id];
		sec_d[c] = on.dec_sec[id] + off.dec_sec[id];
		res->rate_compress[c] = sec_c[c] > 0 ? bc / sec_c[c] / HIB_KMB : 0;
		res->rate_decompress[c] = sec_d[c] > 0 ? bd / sec_d[c] / HIB_KMB : 0;
	}

	bps = HIB_KMB;
	for (c = 0; c < HIB_SIM_COMP_COUNT; c++) {
		for (zc = 1; zc >= 0; zc--) {
			struct hib_sim_scenario *s = &res->sc[res->n++];
			struct hib_sink *sk = zc ? &on : &off;
			enum hib_codec_id id = c == HIB_SIM_LZO ? HIB_CODEC_LZO :
					       c == HIB_SIM_LZ4 ? HIB_CODEC_LZ4 : HIB_CODEC_ZSTD;
			struct hib_w_size raw;
			struct hib_sink_est est;
			double copy_rate;

			s->zerocheck = zc;
			s->comp = (enum hib_sim_comp)c;
			s->kernel_supported = c != HIB_SIM_ZSTD;
			s->matches_image =
				(c == HIB_SIM_NONE ? img->info.compression == HIB_COMP_NONE :
				 c == HIB_SIM_LZO ? img->info.compression == HIB_COMP_LZO :
				 c == HIB_SIM_LZ4 ? img->info.compression == HIB_COMP_LZ4 : 0) &&
				zc == (img->pfns.zero_flagged > 0 || Z == 0);
			s->zero_pages = zc ? Z : 0;
			s->pages_copied = N - s->zero_pages;
			s->meta_pages = meta;
			s->stream_pages = meta + s->pages_copied;
			s->stream_bytes = s->stream_pages * ps;
			if (c == HIB_SIM_NONE) {
				hib_w_size_init(&raw, &img->lay);
				hib_w_size_raw(&raw, s->stream_pages);
				s->chunks = raw.chunks;
				s->disk_pages = hib_w_size_slots(&raw);
			} else {
				hib_sink_estimate(sk, id, &est);
				s->cmp_bytes = est.cmp_bytes;
				s->cmp_bytes_err = est.cmp_bytes_err;
				s->chunks = est.chunks;
				s->disk_pages = est.slots;
				s->disk_pages_err = est.slots_err;
				if (c == HIB_SIM_LZO) {     /* once a stream */
					r->chunks_total += est.chunks;
					r->chunks_zero += est.chunks - est.population;
					r->chunks_sampled += est.sampled;
				}
			}
			s->written_bytes = s->disk_pages * ps;
			s->written_bytes_err = s->disk_pages_err * ps;

			copy_rate = zc ? r->rate_zerocheck_scan :
				    o->nozerocheck_loop ? r->rate_loop : r->rate_copy_page;
			s->t_copy = (double)N * ps / (copy_rate * bps);
			if (c != HIB_SIM_NONE) {
				s->t_compress = res->rate_compress[c] > 0 ?
					(double)s->stream_bytes / (res->rate_compress[c] * bps * r->threads) : 0;
				s->t_decompress = res->rate_decompress[c] > 0 ?
					(double)s->stream_bytes / (res->rate_decompress[c] * bps * r->threads) : 0;
			}
			s->t_write = (double)s->written_bytes / (r->disk_write * bps);
			s->t_read = (double)s->written_bytes / (r->disk_read * bps);
			s->t_zero_fill = (double)s->zero_pages * ps / (r->rate_copy_page * bps);
			s->t_critical = s->t_copy;
			s->t_hibernate = s->t_copy + s->t_compress + s->t_write;
			s->t_resume = s->t_read + s->t_decompress + s->t_zero_fill;
		}
	}
	rc = HIB_OK;
out:
	hib_reader_free(rd);
	hib_sink_free(&on);
	hib_sink_free(&off);
	hib_engine_free(eng);
	free(dz);
	free(zero);
	free(k.src);
	free(k.dst);
	if (rc)
		hib_sim_free(res);
	else
		*out = res;
	return rc;
}

void hib_sim_free(struct hib_sim *res)
{
	free(res);
}

/* ---- getters: 0 or NULL for what the handle does not hold ------------------ */

const struct hib_sim_info *hib_sim_info(const struct hib_sim *res)
{
	return res ? &res->info : NULL;
}

const struct hib_sim_scenario *hib_sim_scenario(const struct hib_sim *res, size_t i)
{
	return res && i < res->n ? &res->sc[i] : NULL;
}

double hib_sim_rate_compress(const struct hib_sim *res, enum hib_sim_comp c)
{
	return res && (unsigned)c < HIB_SIM_COMP_COUNT ? res->rate_compress[c] : 0;
}

double hib_sim_rate_decompress(const struct hib_sim *res, enum hib_sim_comp c)
{
	return res && (unsigned)c < HIB_SIM_COMP_COUNT ? res->rate_decompress[c] : 0;
}
