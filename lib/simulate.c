/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * simulate.c - the same memory hibernated under other settings: zero check
 * on (6.6+, zero pages flagged in the PFN list and left out of the stream)
 * or off (the 2026 nozerocheck proposal: copy_page() for every page, zero
 * pages stored as data), crossed with no compression, LZO, LZ4 and zstd.
 *
 * Sizes are not estimated: both streams are built page by page from the
 * image's memory and really compressed in 32-page chunks, as the kernel
 * would (simsize.c: zero and repeated chunks sized once, on all CPUs; with
 * a sample, the sampled chunks are and the rest are scaled up with an
 * error bound, page counts exact either way), scaled to another machine
 * by simscale.c when asked. Times are a
 * model (see hibimg-simulate(1)), its inputs each with a source (simrate.c):
 *   copy       = bytes scanned / copy rate       (the critical section)
 *   compress   = stream bytes / (codec rate x threads)
 *   write      = bytes on disk / disk write rate
 *   read       = bytes on disk / disk read rate
 *   decompress = stream bytes / (decode rate x threads)
 *   zero fill  = zero-flagged pages x page size / copy_page rate (resume)
 *   save       = compress + write, or stream bytes / the log's "Wrote" rate
 *   load       = read + decompress + zero fill, or the log's "Read" rate
 * The kernel prints the zero-check loop's rate over the pages it copied
 * (zero pages scanned but not counted), so that rate comes with the zero
 * share of the memory it was measured on and is turned into a rate over
 * all scanned bytes: rate / (1 - share).
 */
#include "simrateP.h"

#include <inttypes.h>
#include <stdio.h>
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
		.repeat = HIB_SIM_REPEAT,
	};
	size_t n = o->size;

	if (n < sizeof(n))
		return;
	memcpy(o, &d, n < sizeof(d) ? n : sizeof(d));
	o->size = n;
}


static enum hib_codec_id codec_id(int c)
{
	return c == HIB_SIM_LZO ? HIB_CODEC_LZO : c == HIB_SIM_LZ4 ? HIB_CODEC_LZ4 : HIB_CODEC_ZSTD;
}

/* the log input that times codec c's pipeline: first, else second */
static int pipeline(const struct hib_sim_inputs *si, int c, enum sim_in first, enum sim_in second)
{
	if (si->have[first] && (int)si->comp[first] == c)
		return (int)first;
	if (si->have[second] && (int)si->comp[second] == c)
		return (int)second;
	return -1;
}

/* The kernel logs, read before the long pass so a bad one is told at once. */
static int read_logs(struct hib_image *img, const struct hib_sim_opts *o, struct hib_sim *res)
{
	struct hib_sim_inputs *si = res->inputs;
	unsigned int k;
	int rc;

	if (o->ndmesg > HIB_SIM_LOGS)
		return hib_seterr(img, HIB_ERR_INVAL, "%u kernel logs: at most %u",
				  o->ndmesg, HIB_SIM_LOGS);
	for (k = 0; k < o->ndmesg; k++) {
		if (!o->dmesg || !o->dmesg[k])
			return hib_seterr(img, HIB_ERR_INVAL, "kernel log %u not named", k);
		snprintf(si->log_path[k], sizeof(si->log_path[k]), "%s", o->dmesg[k]);
		rc = hib_sim_log_read(img, o->dmesg[k], &si->log[k]);
		if (rc)
			return rc;
		si->nlog = k + 1;
	}
	return HIB_OK;
}

/* The rates: from the caller, a log, a measurement on the batch the sizing
 * pass gathered, the seed mail, or assumed (simrate.c). */
static int inputs(struct hib_image *img, const struct hib_sim_opts *o, struct hib_sim *res,
		  struct sim_batch *b, int zstd_level)
{
	struct hib_sim_inputs *si = res->inputs;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int tdef = (unsigned int)(cpus - 1 < 1 ? 1 : cpus - 1 > 3 ? 3 : cpus - 1);
	int rc = hib_sim_measure(img, b, o, zstd_level, &si->meas);

	if (rc)
		return rc;
	return hib_sim_inputs_resolve(img, o, si, tdef);
}

/* the sample's default seed: any fixed value, so runs repeat */
#define HIB_SIM_SAMPLE_SEED 0x5eed2026u

int hib_simulate(struct hib_image *img, const struct hib_sim_opts *opts,
		 struct hib_sim **out)
{
	struct hib_sim_opts oc;
	const struct hib_sim_opts *o = &oc;
	struct hib_sim *res = NULL;
	struct hib_sim_info *r;
	struct hib_sim_inputs *si;
	const struct hib_sim_input *in;
	const unsigned int all = (1u << HIB_CODEC_LZO) | (1u << HIB_CODEC_LZ4) |
				 (1u << HIB_CODEC_ZSTD);
	struct hib_sink on, off;
	struct hib_reader *rd = NULL;
	struct hib_page pg;
	struct hib_w_size own[2][HIB_SIM_COMP_COUNT];
	struct hib_sink_est est[2][HIB_SIM_COMP_COUNT];
	struct sim_mix mix, to;
	struct hib_sink_meta on_meta = { 0 };
	struct hib_engine *eng = NULL;
	struct sim_batch *batch = NULL;
	uint8_t *dz = NULL;          /* stored data pages found zero, by data ordinal */
	uint64_t dz_cap = 0, ord = 0;
	unsigned int ps;
	uint64_t N, Z, meta, ram_img, ram_pages;
	double bps, share;
	int rc, zc, c, scale, w;

	*out = NULL;
	memset(&on, 0, sizeof(on));
	memset(&off, 0, sizeof(off));
	memset(&oc, 0, sizeof(oc));
	if (opts && (rc = HIB_ABI_IN(img, hib_sim_opts, &oc, opts)))
		return rc;
	if (o->zero_share_set && !(o->zero_share >= 0 && o->zero_share <= 1))
		return hib_seterr(img, HIB_ERR_INVAL, "zero share %g outside [0, 1]", o->zero_share);
	if (!(o->sample >= 0 && o->sample <= 1))
		return hib_seterr(img, HIB_ERR_INVAL, "sample %g outside [0, 1]", o->sample);
	if (!img->loaded && (rc = hib_image_load(img)))
		return rc;
	if (!img->pfns_loaded && (rc = hib_image_load_pfns(img)))
		return rc;
	res = calloc(1, sizeof(*res));
	if (!res || !(res->inputs = calloc(1, sizeof(*res->inputs)))) {
		free(res);
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	r = &res->info;
	si = res->inputs;
	ps = img->lay.ps;
	N = img->pfns.entries;
	meta = img->info.meta_pages;
	r->zstd_level = o->zstd_level ? o->zstd_level : HIB_ZSTD_LEVEL;
	if ((rc = read_logs(img, o, res)) || (rc = hib_sim_batch_new(img, o, &batch)))
		goto out;
	memset(est, 0, sizeof(est));
	if ((rc = hib_engine_new(img, o->threads, &eng)) ||
	    (rc = hib_sink_init(&on, eng, meta, all)) ||
	    (rc = hib_sink_init(&off, eng, meta, all)))
		goto out;
	r->sample = o->sample > 0 && o->sample < 1 ? o->sample : 0;
	r->sample_seed = o->sample_seed ? o->sample_seed : HIB_SIM_SAMPLE_SEED;
	r->workers = hib_engine_workers(eng);
	hib_sink_set_sample(&on, r->sample, r->sample_seed, 1);
	hib_sink_set_sample(&off, r->sample, r->sample_seed, 2);
	/* no chunk is decoded again: the rates come from simrate.c's batch */
	on.zstd_level[HIB_CODEC_ZSTD] = off.zstd_level[HIB_CODEC_ZSTD] = r->zstd_level;

	rc = hib_reader_new(img, &rd);
	if (rc)
		goto out;
	(void)hib_reader_set_threads(rd, o->threads);   /* before the first page */
	hib_reader_set_chunk_cb(rd, hib_sim_batch_chunk, batch);
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
		if (!z)
			hib_sim_batch_page(batch, pg.data);
		if ((rc = hib_sink_page(&off, z ? NULL : pg.data)))
			break;
	}
	if (rc < 0)
		goto out;
	on_meta.flagged = img->zero_bits;
	on_meta.data_zero = dz;
	if ((rc = hib_sink_finish(&on, &on_meta)) || (rc = hib_sink_finish(&off, NULL)))
		goto out;

	/* the two streams as the image's memory gives them */
	for (c = 0; c < HIB_SIM_COMP_COUNT; c++) {
		for (zc = 0; zc < 2; zc++) {
			struct hib_sink *sk = zc ? &on : &off;

			if (c == HIB_SIM_NONE) {
				hib_w_size_init(&own[zc][c], &img->lay);
				hib_w_size_raw(&own[zc][c], meta + N - (zc ? Z : 0));
			} else {
				/* exact in a full run; else the sample scaled up */
				hib_sink_estimate(sk, codec_id(c), &est[zc][c]);
				own[zc][c] = sk->size[codec_id(c)];
				own[zc][c].chunks = est[zc][c].chunks;
				own[zc][c].cmp_bytes = est[zc][c].cmp_bytes;
				own[zc][c].disk_pages = est[zc][c].disk_pages;
				if (c == HIB_SIM_LZO) {     /* once a stream */
					r->chunks_total += est[zc][c].chunks;
					r->chunks_zero += est[zc][c].chunks - est[zc][c].population;
					r->chunks_sampled += est[zc][c].sampled;
				}
			}
		}
	}

	/* timed now, the sizing done: its workers, rings and reader freed, so
	 * the batch does not add to their peak */
	hib_reader_free(rd);
	rd = NULL;
	hib_engine_free(eng);
	eng = NULL;
	rc = inputs(img, o, res, batch, r->zstd_level);
	hib_sim_batch_free(batch);
	batch = NULL;
	if (rc)
		goto out;

	/* the machine modelled */
	r->entries = N;
	r->zero_pages = Z;
	r->zero_flagged = img->pfns.zero_flagged;
	r->page_size = ps;
	r->word_size = img->lay.word;
	r->num_physpages = img->info.num_physpages;
	r->zero_share_image = N ? (double)Z / (double)N : 0;
	ram_img = r->num_physpages;
	if (o->ram_bytes && !ram_img) {
		rc = hib_seterr(img, HIB_ERR_INVAL,
				"the image does not say its RAM (num_physpages 0): cannot scale");
		goto out;
	}
	ram_pages = o->ram_bytes ? o->ram_bytes / ps : ram_img;
	if (o->ram_bytes && !ram_pages) {
		rc = hib_seterr(img, HIB_ERR_INVAL, "RAM of %" PRIu64 " bytes is less than a page",
				o->ram_bytes);
		goto out;
	}
	r->ram_pages = ram_pages;
	scale = o->ram_bytes || o->zero_share_set;
	mix.n = N;
	mix.z = Z;
	mix.m = meta;
	to = mix;
	if (scale)
		hib_sim_scale_mix(&mix, ram_img, ram_pages, o->zero_share_set, o->zero_share,
				  img->lay.word, ps, &to);
	r->scaled = scale;
	r->sim_entries = to.n;
	r->sim_zero_pages = to.z;
	r->zero_share = to.n ? (double)to.z / (double)to.n : 0;
	hib_sim_inputs_scale(si, o, ram_img * ps, r->zero_share_image);
	r->image_cmp_bytes = si->meas.image_cmp;
	r->image_slots = img->info.map_entries + img->info.map_pages;
	r->repeat = o->repeat ? o->repeat : HIB_SIM_REPEAT;
	r->batch_pages = si->meas.batch_pages;

	/* the rates, resolved */
	in = si->in;
	r->threads = (unsigned int)in[SIM_IN_THREADS].value;
	if (!r->threads)
		r->threads = 1;
	share = in[SIM_IN_COPY_SHARE].value;
	r->rate_zerocheck_scan = in[SIM_IN_COPY_ZEROCHECK].value / (1 - share);
	r->rate_loop = in[SIM_IN_COPY_LOOP].value;
	r->rate_copy_page = in[SIM_IN_COPY_PAGE].value;
	r->calibrated = in[SIM_IN_COPY_ZEROCHECK].source == HIB_SIM_SRC_MEASURED ||
			in[SIM_IN_COPY_LOOP].source == HIB_SIM_SRC_MEASURED ||
			in[SIM_IN_COPY_PAGE].source == HIB_SIM_SRC_MEASURED;
	r->rate_zerocheck = to.n ? r->rate_zerocheck_scan * (double)(to.n - to.z) / (double)to.n : 0;
	r->disk_write = in[SIM_IN_DISK_W].value;
	r->disk_read = in[SIM_IN_DISK_R].value;
	for (c = HIB_SIM_LZO; c < HIB_SIM_COMP_COUNT; c++) {
		res->rate_compress[c] = in[SIM_IN_LZO_C + 2 * (c - HIB_SIM_LZO)].value;
		res->rate_decompress[c] = in[SIM_IN_LZO_D + 2 * (c - HIB_SIM_LZO)].value;
	}

	bps = HIB_KMB;
	for (c = 0; c < HIB_SIM_COMP_COUNT; c++) {
		for (zc = 1; zc >= 0; zc--) {
			struct hib_sim_scenario *s = &res->sc[res->n++];
			struct hib_w_size z = own[zc][c];
			double copy_rate;

			if (scale)
				hib_sim_scale_size(&own[1][c], &own[0][c], &mix, &to, zc,
						   si->meas.zero_chunk[c], c != HIB_SIM_NONE, &z);
			s->zerocheck = zc;
			s->comp = (enum hib_sim_comp)c;
			s->kernel_supported = c != HIB_SIM_ZSTD;
			/* liblz4's LZ4_compress_default() is the kernel's
			 * compressor (the same algorithm and parameters, not
			 * always the same bytes: arm612-lz4 differs in 2
			 * chunks); liblzo2's LZO1X-1 is not the kernel's
			 * lzo1x_1 rewrite, about 0.5 % apart */
			s->kernel_codec = c == HIB_SIM_NONE || c == HIB_SIM_LZ4;
			s->matches_image =
				(c == HIB_SIM_NONE ? img->info.compression == HIB_COMP_NONE :
				 c == HIB_SIM_LZO ? img->info.compression == HIB_COMP_LZO :
				 c == HIB_SIM_LZ4 ? img->info.compression == HIB_COMP_LZ4 : 0) &&
				zc == (img->pfns.zero_flagged > 0 || Z == 0);
			s->zero_pages = zc ? to.z : 0;
			s->pages_copied = to.n - s->zero_pages;
			s->meta_pages = to.m;
			s->stream_pages = to.m + s->pages_copied;
			s->stream_bytes = s->stream_pages * ps;
			if (c != HIB_SIM_NONE)
				s->cmp_bytes = z.cmp_bytes;
			s->chunks = z.chunks;
			s->disk_pages = hib_w_size_slots(&z);
			s->written_bytes = s->disk_pages * ps;
			/* a sample's bounds, scaled with the sizes they bound */
			if (c != HIB_SIM_NONE && est[zc][c].sampled < est[zc][c].population) {
				const struct hib_sink_est *e = &est[zc][c];
				double f = own[zc][c].cmp_bytes ?
					   (double)z.cmp_bytes / (double)own[zc][c].cmp_bytes : 1;
				double g = e->slots ? (double)s->disk_pages / (double)e->slots : 1;

				s->cmp_bytes_err = (uint64_t)((double)e->cmp_bytes_err * f + 0.999);
				s->disk_pages_err = (uint64_t)((double)e->slots_err * g + 0.999);
				s->written_bytes_err = s->disk_pages_err * ps;
			}

			copy_rate = zc ? r->rate_zerocheck_scan :
				    o->nozerocheck_loop ? r->rate_loop : r->rate_copy_page;
			s->t_copy = (double)to.n * ps / (copy_rate * bps);
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
			/* the log's pipelines: the kernel's own end-to-end time
			 * for its codec, overlap and that machine's disk in it */
			/* the log of the same zero-check state first, else the other */
			w = pipeline(si, c, zc ? SIM_IN_WROTE : SIM_IN_WROTE_OFF,
				     zc ? SIM_IN_WROTE_OFF : SIM_IN_WROTE);
			if (w >= 0) {
				s->save_from_log = 1;
				s->t_save = (double)s->stream_bytes / (in[w].value * bps);
			} else {
				s->t_save = s->t_compress + s->t_write;
			}
			if (pipeline(si, c, SIM_IN_READ, SIM_IN_READ) >= 0) {
				s->load_from_log = 1;
				s->t_load = (double)s->stream_bytes / (in[SIM_IN_READ].value * bps);
			} else {
				s->t_load = s->t_read + s->t_decompress + s->t_zero_fill;
			}
			s->t_hibernate = s->t_copy + s->t_save;
			s->t_resume = s->t_load;
		}
	}
	rc = HIB_OK;
out:
	hib_reader_free(rd);
	hib_sim_batch_free(batch);
	hib_sink_free(&on);
	hib_sink_free(&off);
	hib_engine_free(eng);
	free(dz);
	if (rc)
		hib_sim_free(res);
	else
		*out = res;
	return rc;
}

void hib_sim_free(struct hib_sim *res)
{
	if (res)
		free(res->inputs);
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

const struct hib_sim_input *hib_sim_input(const struct hib_sim *res, size_t i)
{
	size_t k, n = 0;

	if (!res || !res->inputs)
		return NULL;
	for (k = 0; k < SIM_IN_COUNT; k++)
		if (res->inputs->have[k] && n++ == i)
			return &res->inputs->in[k];
	return NULL;
}
