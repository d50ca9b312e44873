/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_stats - lib/stats.c and lib/simulate.c through their getters, and
 * the writer's sizing pass (emit.c) they lay their streams out with.
 *
 * Getters: a class, codec, bucket, chunk or scenario the library does not
 * know answers 0 or NULL; options carry their size. Counts: the classes
 * add up to the kernel's "Need to copy". Sizes: what the sizing pass says
 * the image's own chunks take is the chain the kernel wrote, walked here
 * without the library (struct swap_map_page: 511 entries, then
 * next_swap), and what it says a codec's stream takes is what
 * hib_recompress() sizes for the same stream and, written out, the chain
 * of the file it writes. The E = 511k case (one map page more than
 * rounding up) comes from raw images built with E = 1022 written pages.
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PS 4096u

static char fixtures[FIXTURES_MAX][64];
static size_t nfixtures;

/* swap_write_page()'s count for E written pages: a map page to start,
 * another each time one fills, also right after the last entry. */
static uint64_t kernel_map_pages(uint64_t E, unsigned int ps)
{
	return E / (ps / 8 - 1) + 1;
}

static struct hib_stats *stats_of(struct hib_image *img, int no_compress)
{
	struct hib_stats_opts so = { .size = sizeof(so), .threads = 1,
				     .no_compress = no_compress };
	struct hib_stats *st = NULL;

	ck_assert_msg(hib_image_stats(img, &so, &st) == HIB_OK, "%s",
		      hib_image_error(img));
	ck_assert_ptr_nonnull(st);
	return st;
}

static struct hib_image *open_fixture(const char *name, char *path, size_t cap)
{
	struct hib_image *img = hib_image_new();

	fixture_img(path, cap, name);
	ck_assert_int_eq(open_at(img, path, fx_offset(name)), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	return img;
}

/* The fixtures the walk above reads: the resume page at page 0. */
static int at_page0(const char *name)
{
	return fx_offset(name) == 0;
}

/* ---- getters -------------------------------------------------------------- */

START_TEST(names_end_with_null)
{
	static const char *const cls[] = {
		"zero-flagged", "zero-data", "same-filled", "duplicate", "other"
	};
	static const char *const cod[] = { "lzo", "lz4", "zstd-1", "zstd-3" };
	static const char *const sim[] = { "none", "lzo", "lz4", "zstd" };
	int k;

	for (k = 0; k < 5; k++)
		ck_assert_str_eq(hib_class_name((enum hib_class)k), cls[k]);
	for (k = 0; k < 4; k++) {
		ck_assert_str_eq(hib_codec_name((enum hib_codec_id)k), cod[k]);
		ck_assert_str_eq(hib_sim_comp_name((enum hib_sim_comp)k), sim[k]);
	}
	ck_assert_ptr_null(hib_class_name((enum hib_class)5));
	ck_assert_ptr_null(hib_class_name((enum hib_class)-1));
	ck_assert_ptr_null(hib_codec_name((enum hib_codec_id)4));
	ck_assert_ptr_null(hib_codec_name((enum hib_codec_id)1000));
	ck_assert_ptr_null(hib_sim_comp_name((enum hib_sim_comp)4));
	ck_assert_ptr_null(hib_sim_comp_name((enum hib_sim_comp)-1));
	/* no handle: nothing to read, nothing to crash on */
	ck_assert_ptr_null(hib_stats_info(NULL));
	ck_assert_uint_eq(hib_stats_class_pages(NULL, HIB_CLASS_OTHER), 0);
	ck_assert_ptr_null(hib_stats_codec(NULL, HIB_CODEC_LZO));
	ck_assert_ptr_null(hib_stats_chunk(NULL, 0));
	ck_assert_ptr_null(hib_sim_info(NULL));
	ck_assert_ptr_null(hib_sim_scenario(NULL, 0));
	hib_stats_free(NULL);
	hib_sim_free(NULL);
}
END_TEST

START_TEST(unknown_values_answer_nothing)
{
	char path[512];
	struct hib_image *img = open_fixture("k612-lzo", path, sizeof(path));
	struct hib_stats *st = stats_of(img, 0);
	const struct hib_stats_info *in = hib_stats_info(st);
	struct hib_sim_opts so = { .size = sizeof(so), .threads = 1 };
	struct hib_sim *sim;
	size_t n;

	ck_assert_uint_gt(in->nbuckets, 0);
	ck_assert_uint_gt(in->nchunks, 0);
	ck_assert_uint_eq(hib_stats_class_pages(st, (enum hib_class)5), 0);
	ck_assert_uint_eq(hib_stats_class_pages(st, (enum hib_class)-1), 0);
	ck_assert_ptr_null(hib_stats_codec(st, (enum hib_codec_id)4));
	ck_assert_ptr_null(hib_stats_codec(st, (enum hib_codec_id)-1));
	ck_assert_uint_eq(hib_stats_bucket_pages(st, in->nbuckets, HIB_CLASS_OTHER), 0);
	ck_assert_uint_eq(hib_stats_bucket_pages(st, UINT64_MAX, HIB_CLASS_OTHER), 0);
	ck_assert_uint_eq(hib_stats_bucket_pages(st, 0, (enum hib_class)5), 0);
	ck_assert_ptr_nonnull(hib_stats_chunk(st, in->nchunks - 1));
	ck_assert_ptr_null(hib_stats_chunk(st, in->nchunks));
	ck_assert_ptr_null(hib_stats_chunk(st, UINT64_MAX));
	ck_assert_uint_gt(hib_stats_chunk_cmp_len(st, 0, HIB_CODEC_LZO), 0);
	ck_assert_uint_eq(hib_stats_chunk_cmp_len(st, in->nchunks, HIB_CODEC_LZO), 0);
	ck_assert_uint_eq(hib_stats_chunk_cmp_len(st, 0, (enum hib_codec_id)4), 0);
	hib_stats_free(st);

	ck_assert_int_eq(hib_simulate(img, &so, &sim), HIB_OK);
	for (n = 0; hib_sim_scenario(sim, n); n++)
		;
	/* each compression with the zero check on and off */
	ck_assert_uint_eq(n, 2 * 4);
	ck_assert_ptr_null(hib_sim_scenario(sim, (size_t)-1));
	ck_assert(hib_sim_rate_compress(sim, HIB_SIM_LZO) > 0);
	ck_assert(hib_sim_rate_compress(sim, (enum hib_sim_comp)4) == 0);
	ck_assert(hib_sim_rate_decompress(sim, (enum hib_sim_comp)-1) == 0);
	ck_assert(hib_sim_rate_compress(sim, HIB_SIM_NONE) == 0);
	hib_sim_free(sim);
	hib_image_free(img);
}
END_TEST

START_TEST(options_carry_their_size)
{
	char path[512];
	struct hib_image *img = open_fixture("k612-lzo", path, sizeof(path));
	struct hib_stats_opts zero = { .no_compress = 1 };
	struct hib_stats_opts shorter = { .bucket_pages = 100, .no_compress = 1 };
	struct hib_sim_opts szero = { .threads = 1 }, d = { .size = 0 };
	/* not NULL: a refusal must still clear them */
	struct hib_stats *st = (struct hib_stats *)&zero;
	struct hib_sim *sim = (struct hib_sim *)&szero;

	ck_assert_int_eq(hib_image_stats(img, &zero, &st), HIB_ERR_INVAL);
	ck_assert_ptr_null(st);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), ".size"));
	ck_assert_int_eq(hib_simulate(img, &szero, &sim), HIB_ERR_INVAL);
	ck_assert_ptr_null(sim);

	/* below the first layout: refused (abi.c's rule, tests/check_abi.c
	 * pins what an older caller gets); the caller's size: its fields */
	shorter.size = offsetof(struct hib_stats_opts, no_compress);
	ck_assert_int_eq(hib_image_stats(img, &shorter, &st), HIB_ERR_INVAL);
	ck_assert_ptr_null(st);
	shorter.size = sizeof(shorter);
	ck_assert_int_eq(hib_image_stats(img, &shorter, &st), HIB_OK);
	ck_assert_uint_eq(hib_stats_info(st)->bucket_pages, 100);
	ck_assert_int_eq(hib_stats_info(st)->compressed, 0);
	hib_stats_free(st);
	/* NULL: every default */
	ck_assert_int_eq(hib_image_stats(img, NULL, &st), HIB_OK);
	ck_assert_uint_ne(hib_stats_info(st)->bucket_pages, 100);
	hib_stats_free(st);

	/* the defaults go no further than the caller's size */
	hib_sim_defaults(&d);
	ck_assert(d.rate_zerocheck == 0 && d.size == 0);
	d.size = offsetof(struct hib_sim_opts, rate_zerocheck_share);
	hib_sim_defaults(&d);
	ck_assert(d.rate_zerocheck > 0 && d.rate_zerocheck_share == 0);
	ck_assert_uint_eq(d.size, offsetof(struct hib_sim_opts, rate_zerocheck_share));
	d.size = sizeof(d);
	hib_sim_defaults(&d);
	ck_assert(d.rate_zerocheck_share > 0 && d.disk_read > 0 && d.zstd_level > 0);
	hib_image_free(img);
}
END_TEST

/* ---- counts against the kernel --------------------------------------------- */

START_TEST(classes_add_up_to_kernel)
{
	const char *name = fixtures[_i];
	struct sidecar sc;
	char path[512];
	struct hib_image *img;
	struct hib_stats *st;
	const struct hib_stats_info *in;
	uint64_t sum = 0, bsum = 0, b;
	int k;

	fixture_src(path, sizeof(path), name, "expect");
	ck_assert_int_eq(sidecar_load(path, &sc), 0);
	img = open_fixture(name, path, sizeof(path));
	st = stats_of(img, 1);
	in = hib_stats_info(st);
	for (k = 0; hib_class_name((enum hib_class)k); k++)
		sum += hib_stats_class_pages(st, (enum hib_class)k);
	for (b = 0; b < in->nbuckets; b++)
		for (k = 0; hib_class_name((enum hib_class)k); k++)
			bsum += hib_stats_bucket_pages(st, b, (enum hib_class)k);
	ck_assert_uint_eq(sum, in->entries);
	ck_assert_uint_eq(bsum, in->entries);
	ck_assert_uint_eq(sum, sidecar_u64(&sc, "need_to_copy"));
	if (sidecar_has(&sc, "zero_pages"))
		ck_assert_uint_eq(hib_stats_class_pages(st, HIB_CLASS_ZERO_FLAGGED),
				  sidecar_u64(&sc, "zero_pages"));
	/* without the compression pass the codecs are there, and empty */
	ck_assert_int_eq(in->compressed, 0);
	ck_assert_uint_eq(hib_stats_codec(st, HIB_CODEC_LZO)->disk_pages, 0);
	ck_assert_uint_eq(hib_stats_chunk_cmp_len(st, 0, HIB_CODEC_LZO), 0);
	hib_stats_free(st);
	hib_image_free(img);
}
END_TEST

/* ---- the sizing pass ------------------------------------------------------- */

/* The image's own chunks, sized: the chain the kernel wrote. */
START_TEST(sizing_matches_kernel_chain)
{
	const char *name = fixtures[_i];
	char path[512];
	struct hib_image *img;
	struct hib_stats *st;
	const struct hib_stats_info *in;
	uint64_t E;

	if (!at_page0(name))
		return;
	img = open_fixture(name, path, sizeof(path));
	st = stats_of(img, 1);
	in = hib_stats_info(st);
	E = 1 + in->image_disk_pages;
	ck_assert_msg(in->image_slots == raw_image_slots(path),
		      "%s: sized %llu slots, the kernel's chain has %llu", name,
		      (unsigned long long)in->image_slots,
		      (unsigned long long)raw_image_slots(path));
	ck_assert_uint_eq(in->image_map_pages, kernel_map_pages(E, fx_page_size(name)));
	ck_assert_uint_eq(in->image_slots, E + kernel_map_pages(E, fx_page_size(name)));
	hib_stats_free(st);
	hib_image_free(img);
}
END_TEST

/* A codec's stream, sized by stats, against hib_recompress() sizing the
 * same stream (zero pages kept, the analyses' level), dry and written. */
static void check_codec(struct hib_image *img, const struct hib_stats *st,
			enum hib_codec_id id, int write_out)
{
	const struct hib_stats_codec *cd = hib_stats_codec(st, id);
	struct hib_recompress_opts ro = HIB_INIT(struct hib_recompress_opts,
		.to = id == HIB_CODEC_LZ4 ? HIB_COMP_LZ4 : HIB_COMP_LZO,
		.level = id == HIB_CODEC_LZ4 ? 0 : 1,
		.zero = HIB_ZERO_KEEP, .dry_run = 1, .threads = 1);
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	char out[300];
	uint64_t E = 1 + cd->disk_pages;

	ck_assert_uint_gt(cd->disk_pages, 0);
	ck_assert_uint_eq(cd->map_pages, kernel_map_pages(E, hib_image_header(img)->page_size));
	ck_assert_uint_eq(cd->slots, E + kernel_map_pages(E, hib_image_header(img)->page_size));
	snprintf(out, sizeof(out), "%s/out.img", tmpdir);
	ck_assert_msg(hib_recompress(img, out, &ro, &res) == HIB_OK, "%s",
		      hib_image_error(img));
	ck_assert_uint_eq(res.cmp_bytes, cd->cmp_bytes);
	ck_assert_uint_eq(res.disk_pages, cd->disk_pages);
	ck_assert_uint_eq(res.slots_needed, cd->slots);
	ck_assert_uint_eq(res.chunks, hib_stats_info(st)->nchunks);
	if (!write_out)
		return;
	ro.dry_run = 0;
	ck_assert_msg(hib_recompress(img, out, &ro, &res) == HIB_OK, "%s",
		      hib_image_error(img));
	ck_assert_uint_eq(raw_image_slots(out), cd->slots);
	unlink(out);
}

START_TEST(sizing_matches_recompress)
{
	static const struct { const char *name; enum hib_codec_id id; int write; } c[] = {
		{ "k612-lzo", HIB_CODEC_LZO, 1 },
		{ "k612-lz4", HIB_CODEC_LZ4, 0 },
		{ "k61-nocompress", HIB_CODEC_LZO, 0 },
	};
	size_t k;

	mk_tmpdir();
	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		char path[512];
		struct hib_image *img = open_fixture(c[k].name, path, sizeof(path));
		struct hib_stats *st = stats_of(img, 0);

		check_codec(img, st, c[k].id, c[k].write);
		hib_stats_free(st);
		hib_image_free(img);
	}
	rm_tmpdir();
}
END_TEST

static int fill(void *arg, uint64_t i, unsigned char *page)
{
	(void)arg;
	memset(page, (int)(0x31 + i % 200), PS);
	memcpy(page, &i, sizeof(i));
	return 0;
}

/* n entries, raw, no zero pages: E = 1 + ceil(n / 512) + n written pages */
static void check_built(uint64_t n)
{
	struct hib_build_opts bo = HIB_INIT(struct hib_build_opts, .to = HIB_COMP_NONE,
					    .level = HIB_LEVEL_AUTO, .threads = 1);
	struct hib_recompress_opts ro = HIB_INIT(struct hib_recompress_opts,
						 .to = HIB_COMP_NONE, .level = HIB_LEVEL_AUTO,
						 .dry_run = 1, .threads = 1);
	struct hib_sim_opts so = HIB_INIT(struct hib_sim_opts, .threads = 1);
	const struct hib_sim_scenario *sc;
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	const struct hib_stats_info *in;
	uint64_t *pfns = malloc(n * sizeof(*pfns)), i, E, walked;
	struct hib_image *img;
	struct hib_stats *st;
	struct hib_sim *sim;
	char path[300], out[300];
	size_t k;

	ck_assert_ptr_nonnull(pfns);
	for (i = 0; i < n; i++)
		pfns[i] = 0x100 + i;
	snprintf(path, sizeof(path), "%s/built-%llu.img", tmpdir, (unsigned long long)n);
	img = hib_image_new();
	ck_assert_int_eq(hib_image_build(img, path, &bo, n, pfns, NULL, fill, NULL, &res),
			 HIB_OK);
	hib_image_free(img);
	free(pfns);
	E = 1 + (n * 8 + PS - 1) / PS + n;
	walked = raw_image_slots(path);
	ck_assert_uint_eq(walked, E + kernel_map_pages(E, PS));

	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	st = stats_of(img, 0);
	in = hib_stats_info(st);
	ck_assert_uint_eq(1 + in->image_disk_pages, E);
	ck_assert_msg(in->image_slots == walked, "E=%llu: sized %llu slots, chain %llu",
		      (unsigned long long)E, (unsigned long long)in->image_slots,
		      (unsigned long long)walked);
	ck_assert_uint_eq(in->image_map_pages, kernel_map_pages(E, PS));
	snprintf(out, sizeof(out), "%s/out.img", tmpdir);
	ck_assert_int_eq(hib_recompress(img, out, &ro, &res), HIB_OK);
	ck_assert_uint_eq(res.slots_needed, in->image_slots);
	check_codec(img, st, HIB_CODEC_LZO, 0);

	/* the simulator sizes the same streams the same way */
	ck_assert_int_eq(hib_simulate(img, &so, &sim), HIB_OK);
	for (k = 0; (sc = hib_sim_scenario(sim, k)) != NULL; k++) {
		if (!sc->zerocheck)
			continue;
		if (sc->comp == HIB_SIM_NONE)
			ck_assert_uint_eq(sc->disk_pages, walked);
		if (sc->comp == HIB_SIM_LZO)
			ck_assert_uint_eq(sc->disk_pages,
					  hib_stats_codec(st, HIB_CODEC_LZO)->slots);
		if (sc->comp == HIB_SIM_LZ4)
			ck_assert_uint_eq(sc->disk_pages,
					  hib_stats_codec(st, HIB_CODEC_LZ4)->slots);
	}
	hib_sim_free(sim);
	hib_stats_free(st);
	hib_image_free(img);
	unlink(path);
}

/* E = 1 + 2 + 1019 = 1022 = 2 * 511, and E = 511 (1 + 1 + 509) */
START_TEST(sizing_at_511k)
{
	mk_tmpdir();
	check_built(1019);
	check_built(509);
	rm_tmpdir();
}
END_TEST

START_TEST(sizing_around_511k)
{
	mk_tmpdir();
	check_built(1018);
	check_built(1020);
	rm_tmpdir();
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("getters");

	tcase_add_test(tc, names_end_with_null);
	tcase_add_test(tc, unknown_values_answer_nothing);
	tcase_add_test(tc, options_carry_their_size);
	suite_add_tcase(s, tc);
	tc = tcase_create("counts");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, classes_add_up_to_kernel, 0, (int)nfixtures);
	suite_add_tcase(s, tc);
	tc = tcase_create("sizing");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, sizing_matches_kernel_chain, 0, (int)nfixtures);
	tcase_add_test(tc, sizing_matches_recompress);
	tcase_add_test(tc, sizing_at_511k);
	tcase_add_test(tc, sizing_around_511k);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (fixtures_setup(fixtures, &nfixtures, NULL, NULL) < 0)
		return EXIT_FAILURE;
	return check_run(stats_suite());
}
