/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_snapshot - the PFN list (lib/hibimgP.h, for emit.c and reader.c)
 * and the PFN index snapshot.c builds from it.
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

/* Runs of 1, 2, 3, ... PFNs with gaps between them, every third entry
 * zero-flagged: an image built from them reads back the same list. */
START_TEST(built_list_reads_back)
{
	struct hib_build_opts bo = { .to = HIB_COMP_LZ4, .level = HIB_LEVEL_AUTO,
				     .threads = 1 };
	struct hib_recompress_result res;
	struct hib_image *img;
	const struct hib_pfns *pf;
	uint64_t e, p = 0x100, run = 1, left = 1, pfn, nzero = 0;
	char path[300];
	int zero;

	for (e = 0; e < ENTRIES; e++) {
		if (!left--) {
			p += 7;
			left = ++run - 1;
		}
		pfns[e] = p++;
		if (e % 3 == 1) {
			zero_bits[e / 8] |= (uint8_t)(1u << (e % 8));
			nzero++;
		}
	}
	mk_tmpdir();
	snprintf(path, sizeof(path), "%s/list.img", tmpdir);
	img = hib_image_new();
	ck_assert_int_eq(hib_image_build(img, path, &bo, ENTRIES, pfns, zero_bits, fill,
					 NULL, &res), HIB_OK);
	hib_image_free(img);

	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ck_assert_uint_eq(hib_image_info(img)->meta_pages, 3);
	ck_assert_int_eq(hib_image_load_pfns(img), HIB_OK);
	pf = hib_image_pfns(img);
	ck_assert_uint_eq(pf->entries, ENTRIES);
	ck_assert_uint_eq(pf->zero_flagged, nzero);
	ck_assert_uint_eq(pf->lowest, pfns[0]);
	ck_assert_uint_eq(pf->highest, pfns[ENTRIES - 1]);
	ck_assert_uint_eq(pf->runs, run);
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

int main(void)
{
	Suite *s = suite_create("snapshot");
	TCase *tc = tcase_create("pfn list");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, encode_word8);
	tcase_add_test(tc, encode_word4);
	tcase_add_test(tc, list_pages);
	tcase_add_test(tc, built_list_reads_back);
	suite_add_tcase(s, tc);
	return check_run(s);
}
