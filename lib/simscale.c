/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * simscale.c - the what-if scaled to another machine (--ram, --zero-share):
 * the image's page mix taken to scale with RAM (hibimg-simulate(1),
 * SCALING). Saved pages go with RAM by the image's ratio of saved pages to
 * num_physpages; the zero share is the image's unless given. Sizes come
 * from the image's own two streams: compressed bytes per stream page of
 * the stream without zero pages, and per zero page the difference the
 * zero pages made between the two; PFN-list pages are recomputed as the
 * kernel counts them, chunks and slots by the writer's rules, each chunk's
 * padding as the image's chunks had it on average (for the stream with
 * zero pages, moved from the other stream's towards its own with the zero
 * share, so that no zero pages pad as the stream without them). With the image's own
 * RAM and share every number is the image's.
 */
#include "simrateP.h"

static uint64_t round_u64(long double v)
{
	/* no libm: half up, the values are counts */
	return v <= 0 ? 0 : (uint64_t)(v + 0.5L);
}

void hib_sim_scale_mix(const struct sim_mix *img, uint64_t img_ram_pages, uint64_t ram_pages,
		       int share_set, double share, unsigned int word, unsigned int ps,
		       struct sim_mix *out)
{
	*out = *img;
	if (img_ram_pages && ram_pages != img_ram_pages)
		out->n = round_u64((long double)img->n * ram_pages / img_ram_pages);
	if (share_set)
		out->z = round_u64((long double)out->n * share);
	else if (out->n != img->n)
		out->z = img->n ? round_u64((long double)img->z * out->n / img->n) : 0;
	if (out->z > out->n)
		out->z = out->n;
	if (out->n != img->n)
		out->m = (out->n * word + ps - 1) / ps;
}

/* the padding after a chunk's length word and data, on average */
static long double pad_of(const struct hib_w_size *z, long double ps, long double word)
{
	return z->chunks ? ((long double)z->disk_pages * ps - z->cmp_bytes -
			    (long double)z->chunks * word) / z->chunks : 0;
}

void hib_sim_scale_size(const struct hib_w_size *on, const struct hib_w_size *off,
			const struct sim_mix *img, const struct sim_mix *to, int zerocheck,
			uint64_t zero_chunk, int compressed, struct hib_w_size *out)
{
	const struct hib_w_size *own = zerocheck ? on : off;
	uint64_t s_on = img->m + img->n - img->z;
	uint64_t s2 = to->m + to->n - (zerocheck ? to->z : 0);
	long double c_on, c_z, cmp, pad, ps = own->lay.ps, word = own->lay.word;

	*out = *own;
	out->chunks = out->cmp_bytes = out->disk_pages = 0;
	if (!compressed) {
		hib_w_size_raw(out, s2);
		return;
	}
	c_on = s_on ? (long double)on->cmp_bytes / s_on : 0;
	c_z = img->z ? ((long double)off->cmp_bytes - on->cmp_bytes) / img->z :
		       (long double)zero_chunk / UNC_PAGES;
	cmp = c_on * (to->m + to->n - to->z) + (zerocheck ? 0 : c_z * to->z);
	pad = pad_of(on, ps, word);
	if (!zerocheck && img->z && img->n && to->n) {
		/* the stream with zero pages pads its chunks as the image's did
		 * in proportion to the zero share: its own at the image's share,
		 * the other stream's with none */
		long double t = ((long double)to->z / to->n) / ((long double)img->z / img->n);

		pad += (pad_of(off, ps, word) - pad) * t;
		if (pad < 0)
			pad = 0;
		if (pad > ps - 1)
			pad = ps - 1;
	}
	out->chunks = (s2 + UNC_PAGES - 1) / UNC_PAGES;
	out->cmp_bytes = round_u64(cmp);
	out->disk_pages = round_u64((out->cmp_bytes + out->chunks * (word + pad)) / ps);
}
