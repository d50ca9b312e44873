/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_snapshot - the PFN list (lib/hibimgP.h, for emit.c and reader.c),
 * the PFN index snapshot.c builds from it, and the search it (and uswsusp's
 * extents) share.
 *
 * The expected words follow from the kernel's definitions, not from the
 * code under test: ENCODED_PFN_ZERO_FLAG is (unsigned long)1 <<
 * (BITS_PER_LONG - 1), BM_END_OF_MAP is ~0UL, nr_meta_pages is
 * DIV_ROUND_UP(nr_pages * sizeof(long), PAGE_SIZE). Word size 4 (an ILP32
 * writer) is seen only here: every fixture and every built image is LP64.
 */
#include "config.h"
#include "testutil.h"
#include "hibimgP.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(encode_word8)
{
	uint64_t pfn;
	bool zero;

	ck_assert_uint_eq(hib_pfn_encode(8, 0x12345, false), 0x12345u);
	ck_assert_uint_eq(hib_pfn_encode(8, 0x12345, true), 0x8000000000012345ull);
	ck_assert(hib_pfn_decode(8, 0x8000000000012345ull, &pfn, &zero));
	ck_assert_uint_eq(pfn, 0x12345u);
	ck_assert(zero);
	ck_assert(hib_pfn_decode(8, 0x12345, &pfn, &zero));
	ck_assert_uint_eq(pfn, 0x12345u);
	ck_assert(!zero);
	ck_assert_uint_eq(hib_pfn_end(8), 0xffffffffffffffffull);
	ck_assert(!hib_pfn_decode(8, 0xffffffffffffffffull, &pfn, &zero));
	/* the 4-byte marker is an ordinary PFN at word size 8 */
	ck_assert(hib_pfn_decode(8, 0xffffffffu, &pfn, &zero));
	ck_assert_uint_eq(pfn, 0xffffffffu);
	ck_assert(!zero);
	/* the largest PFN that can carry the flag */
	ck_assert(hib_pfn_decode(8, hib_pfn_encode(8, 0x7ffffffffffffffeull, true),
				 &pfn, &zero));
	ck_assert_uint_eq(pfn, 0x7ffffffffffffffeull);
	ck_assert(zero);
}
END_TEST

START_TEST(encode_word4)
{
	uint64_t pfn;
	bool zero;

	ck_assert_uint_eq(hib_pfn_encode(4, 0x12345, false), 0x12345u);
	ck_assert_uint_eq(hib_pfn_encode(4, 0x12345, true), 0x80012345u);
	ck_assert(hib_pfn_decode(4, 0x80012345u, &pfn, &zero));
	ck_assert_uint_eq(pfn, 0x12345u);
	ck_assert(zero);
	ck_assert(hib_pfn_decode(4, 0x7fffffffu, &pfn, &zero));
	ck_assert_uint_eq(pfn, 0x7fffffffu);
	ck_assert(!zero);
	ck_assert(hib_pfn_decode(4, 0xfffffffeu, &pfn, &zero));
	ck_assert_uint_eq(pfn, 0x7ffffffeu);
	ck_assert(zero);
	ck_assert_uint_eq(hib_pfn_end(4), 0xffffffffu);
	ck_assert(!hib_pfn_decode(4, 0xffffffffu, &pfn, &zero));
}
END_TEST

START_TEST(list_pages)
{
	ck_assert_uint_eq(hib_pfn_list_pages(0, 8, 4096), 0);
	ck_assert_uint_eq(hib_pfn_list_pages(1, 8, 4096), 1);
	ck_assert_uint_eq(hib_pfn_list_pages(512, 8, 4096), 1);
	ck_assert_uint_eq(hib_pfn_list_pages(513, 8, 4096), 2);
	ck_assert_uint_eq(hib_pfn_list_pages(1024, 4, 4096), 1);
	ck_assert_uint_eq(hib_pfn_list_pages(1025, 4, 4096), 2);
	ck_assert_uint_eq(hib_pfn_list_pages(8192, 8, 65536), 1);
	ck_assert_uint_eq(hib_pfn_list_pages(8193, 8, 65536), 2);
}
END_TEST

/* ---- through the writer and the reader ------------------------------------ */

#define ENTRIES 1100u    /* three PFN-list pages, the last one part full */

static uint64_t pfns[ENTRIES];
static uint8_t zero_bits[ENTRIES / 8 + 1];

static int fill(void *arg, uint64_t i, unsigned char *page)
{
	(void)arg;
	memset(page, 0x5a, 4096);
	memcpy(page, &i, sizeof(i));
	return 0;
}

/* Runs of 1, 2, 3, ... PFNs with gaps of 7 between them, every third
 * entry zero-flagged, built into tmpdir/list.img; returns the runs. */
static uint64_t build_list(char *path, size_t cap, uint64_t *nzero)
{
	struct hib_build_opts bo = HIB_INIT(struct hib_build_opts, .to = HIB_COMP_LZ4,
					    .level = HIB_LEVEL_AUTO, .threads = 1);
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	struct hib_image *img;
	uint64_t e, p = 0x100, run = 1, left = 1;

	*nzero = 0;
	memset(zero_bits, 0, sizeof(zero_bits));
	for (e = 0; e < ENTRIES; e++) {
		if (!left--) {
			p += 7;
			left = ++run - 1;
		}
		pfns[e] = p++;
		if (e % 3 == 1) {
			zero_bits[e / 8] |= (uint8_t)(1u << (e % 8));
			(*nzero)++;
		}
	}
	mk_tmpdir();
	snprintf(path, cap, "%s/list.img", tmpdir);
	img = hib_image_new();
	ck_assert_int_eq(hib_image_build(img, path, &bo, ENTRIES, pfns, zero_bits, fill,
					 NULL, &res), HIB_OK);
	hib_image_free(img);
	return run;
}

static struct hib_image *open_list(const char *path)
{
	struct hib_image *img = hib_image_new();

	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ck_assert_int_eq(hib_image_load_pfns(img), HIB_OK);
	return img;
}

/* An image built from that list reads back the same list. */
START_TEST(built_list_reads_back)
{
	struct hib_image *img;
	const struct hib_pfns *pf;
	uint64_t e, pfn, nzero, runs;
	char path[300];
	int zero;

	runs = build_list(path, sizeof(path), &nzero);
	img = open_list(path);
	ck_assert_uint_eq(hib_image_info(img)->meta_pages, 3);
	pf = hib_image_pfns(img);
	ck_assert_uint_eq(pf->entries, ENTRIES);
	ck_assert_uint_eq(pf->zero_flagged, nzero);
	ck_assert_uint_eq(pf->lowest, pfns[0]);
	ck_assert_uint_eq(pf->highest, pfns[ENTRIES - 1]);
	ck_assert_uint_eq(pf->runs, runs);
	for (e = 0; e < ENTRIES; e++) {
		ck_assert_int_eq(hib_image_pfn_entry(img, e, &pfn, &zero), HIB_OK);
		ck_assert_uint_eq(pfn, pfns[e]);
		ck_assert_int_eq(zero, e % 3 == 1);
	}
	ck_assert_int_eq(hib_image_pfn_entry(img, ENTRIES, &pfn, &zero), HIB_ERR_INVAL);
	hib_image_free(img);
	rm_tmpdir();
}
END_TEST

/* ---- the search over ascending keys (hib_last_le) ---------------------------- */

START_TEST(last_le_ends)
{
	static const uint64_t a[] = { 10, 20, 20, 20, 30, 40 };
	struct { uint64_t other, key; } r[] = { { 99, 5 }, { 0, 6 }, { 99, 9 } };

	ck_assert_uint_eq(hib_last_le(a, sizeof(*a), 1, 10), 0);
	ck_assert_uint_eq(hib_last_le(a, sizeof(*a), 1, 1000), 0);
	ck_assert_uint_eq(hib_last_le(a, sizeof(*a), 6, 10), 0);
	ck_assert_uint_eq(hib_last_le(a, sizeof(*a), 6, 19), 0);
	/* equal keys: the last of them */
	ck_assert_uint_eq(hib_last_le(a, sizeof(*a), 6, 20), 3);
	ck_assert_uint_eq(hib_last_le(a, sizeof(*a), 6, 29), 3);
	ck_assert_uint_eq(hib_last_le(a, sizeof(*a), 6, 39), 4);
	ck_assert_uint_eq(hib_last_le(a, sizeof(*a), 6, 40), 5);
	ck_assert_uint_eq(hib_last_le(a, sizeof(*a), 6, UINT64_MAX), 5);
	ck_assert_uint_eq(hib_last_le(a, sizeof(*a), 2, UINT64_MAX), 1);
	/* one field of a struct array: the other field is never read */
	ck_assert_uint_eq(hib_last_le(&r[0].key, sizeof(*r), 3, 5), 0);
	ck_assert_uint_eq(hib_last_le(&r[0].key, sizeof(*r), 3, 8), 1);
	ck_assert_uint_eq(hib_last_le(&r[0].key, sizeof(*r), 3, 9), 2);
}
END_TEST

/* Both searches over the runs, through the API: an entry's PFN at the
 * first and last entry of every run, and PFNs at the edges of every run
 * and of every gap (hib_image_read_pfns() refuses an unsaved one before
 * it reads a page). */
static int count_page(uint64_t pfn, const unsigned char *data, void *arg)
{
	(void)pfn;
	(void)data;
	(*(uint64_t *)arg)++;
	return 0;
}

static void expect_missing(struct hib_image *img, uint64_t pfn)
{
	struct hib_pfn_range r = { pfn, pfn };
	char want[64];
	uint64_t n = 0;

	snprintf(want, sizeof(want), "PFN 0x%llx is not saved in the image",
		 (unsigned long long)pfn);
	ck_assert_int_eq(hib_image_read_pfns(img, &r, 1, count_page, &n), HIB_ERR_INVAL);
	ck_assert_str_eq(hib_image_error(img), want);
	ck_assert_uint_eq(n, 0);
}

START_TEST(search_at_run_ends)
{
	struct hib_image *img;
	struct hib_pfn_range whole[64];
	uint64_t e, pfn, nzero, runs, r = 0, n = 0, first = 0;
	char path[300];
	int zero;

	runs = build_list(path, sizeof(path), &nzero);
	ck_assert_uint_le(runs, 64);
	img = open_list(path);
	for (e = 0; e <= ENTRIES; e++) {
		if (e < ENTRIES && (e == 0 || pfns[e] == pfns[e - 1] + 1))
			continue;
		/* entries first..e-1 are one run */
		ck_assert_int_eq(hib_image_pfn_entry(img, first, &pfn, &zero), HIB_OK);
		ck_assert_uint_eq(pfn, pfns[first]);
		ck_assert_int_eq(hib_image_pfn_entry(img, e - 1, &pfn, &zero), HIB_OK);
		ck_assert_uint_eq(pfn, pfns[e - 1]);
		expect_missing(img, pfns[first] - 1);
		expect_missing(img, pfns[e - 1] + 1);
		whole[r].first = pfns[first];
		whole[r].last = pfns[e - 1];
		r++;
		first = e;
	}
	ck_assert_uint_eq(r, runs);
	expect_missing(img, 0);
	expect_missing(img, UINT64_MAX);
	ck_assert_int_eq(hib_image_read_pfns(img, whole, r, count_page, &n), HIB_OK);
	ck_assert_uint_eq(n, ENTRIES);
	hib_image_free(img);
	rm_tmpdir();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot");
	TCase *tc = tcase_create("pfn list");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, encode_word8);
	tcase_add_test(tc, encode_word4);
	tcase_add_test(tc, list_pages);
	tcase_add_test(tc, built_list_reads_back);
	tcase_add_test(tc, last_le_ends);
	tcase_add_test(tc, search_at_run_ends);
	suite_add_tcase(s, tc);
	return check_run(s);
}
