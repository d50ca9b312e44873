/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_probe - lib/probe.c and lib/map.c on hand-built pages: what kind of
 * area a resume page says it is, and the bounds and cycles of the swap map.
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- resume page probing on hand-built pages ------------------------------ */

/* hib_image_content() of the last probe, before its load; its load's
 * message; whether it was read as a swap file in place */
static enum hib_content probed_content;
static char probed_error[1024];
static int probed_in_place;

static enum hib_kind probe(const char *path, struct hib_header *out, int *load_rc)
{
	struct hib_image *img = hib_image_new();
	enum hib_kind k;

	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	*out = *hib_image_header(img);
	k = out->kind;
	probed_content = hib_image_content(img);
	*load_rc = hib_image_load(img);
	snprintf(probed_error, sizeof(probed_error), "%s", hib_image_error(img));
	probed_in_place = hib_image_swapfile(img) != NULL;
	hib_image_free(img);
	return k;
}

START_TEST(probe_kinds)
{
	static unsigned char pg[65536 * 2];
	struct hib_header h;
	int lrc;

	mk_tmpdir();
	memset(pg, 0xa5, 1024);
	ck_assert_int_eq(probe(write_file("tiny", pg, 1024), &h, &lrc), HIB_KIND_UNKNOWN);
	ck_assert_int_eq(lrc, HIB_ERR_UNSUPPORTED);
	ck_assert_int_eq(probed_content, HIB_CONTENT_NONE);

	mkswap_page(pg, 4096);
	ck_assert_int_eq(probe(write_file("swap", pg, 8192), &h, &lrc), HIB_KIND_SWAP);
	ck_assert_int_eq(lrc, HIB_ERR_UNSUPPORTED);
	ck_assert_int_eq(probed_content, HIB_CONTENT_NONE);
	ck_assert_uint_eq(h.page_size, 4096);
	ck_assert_uint_eq(h.swap_version, 1);
	ck_assert_uint_eq(h.last_page, 16383);
	ck_assert_str_eq(h.label, "myswap");
	ck_assert_int_eq(h.uuid[15], 0x10);

	/* The kernel put SWAPSPACE2 back but left image/flags/crc32. */
	memcpy(pg + 4096 - 20, "SWAPSPACE2", 10);
	put_le(pg + 4096 - 32, 1234, 8);
	put_le(pg + 4096 - 24, 4, 4);
	ck_assert_int_eq(probe(write_file("spent", pg, 8192), &h, &lrc), HIB_KIND_SPENT);
	ck_assert_int_eq(lrc, HIB_ERR_UNSUPPORTED);
	ck_assert_int_eq(probed_content, HIB_CONTENT_NONE);  /* not unless allowed */
	ck_assert_uint_eq(h.image, 1234);
	ck_assert_uint_eq(h.flags, 4);

	memcpy(pg + 4096 - 10, "ULSUSPEND\0", 10);
	ck_assert_int_eq(probe(write_file("ul", pg, 8192), &h, &lrc), HIB_KIND_USWSUSP);
	ck_assert_int_eq(probed_content, HIB_CONTENT_UNREAD);
	memcpy(pg + 4096 - 10, "S2SUSPEND\0", 10);
	ck_assert_int_eq(probe(write_file("s2", pg, 8192), &h, &lrc), HIB_KIND_S2SUSPEND);
	ck_assert_int_eq(probed_content, HIB_CONTENT_NONE);
	memcpy(pg + 4096 - 10, "LINHIB0001", 10);
	ck_assert_int_eq(probe(write_file("lh", pg, 8192), &h, &lrc), HIB_KIND_KERNEL_DEV);
	ck_assert_int_eq(probed_content, HIB_CONTENT_UNREAD);

	memcpy(pg, "\xed\xc3\x02\xe9\x98\x56\xe5\x0c", 8);
	ck_assert_int_eq(probe(write_file("toi", pg, 8192), &h, &lrc), HIB_KIND_TUXONICE);

	/* 16 KiB pages: the signature sits at 16384 - 10. */
	mkswap_page(pg, 16384);
	memcpy(pg + 16384 - 10, "S1SUSPEND\0", 10);
	memcpy(pg + 16384 - 20, "SWAPSPACE2", 10);
	put_le(pg + 16384 - 24, 0x40, 4);        /* an unknown flag bit */
	put_le(pg + 16384 - 32, 5, 8);
	ck_assert_int_eq(probe(write_file("ps16k", pg, 65536), &h, &lrc), HIB_KIND_KERNEL);
	ck_assert_uint_eq(h.page_size, 16384);
	ck_assert_int_eq(lrc, HIB_ERR_UNSUPPORTED);
	rm_tmpdir();
}
END_TEST

START_TEST(map_bounds_and_cycles)
{
	static unsigned char dev[8 * 4096];
	struct hib_header h;
	int lrc;

	mk_tmpdir();
	mkswap_page(dev, 4096);
	memcpy(dev + 4096 - 10, "S1SUSPEND\0", 10);
	put_le(dev + 4096 - 24, 4, 4);

	put_le(dev + 4096 - 32, 0, 8);               /* first map page: the resume page */
	ck_assert_int_eq(probe(write_file("zero", dev, sizeof(dev)), &h, &lrc), HIB_KIND_KERNEL);
	ck_assert_int_eq(lrc, HIB_ERR_DAMAGED);
	ck_assert_ptr_nonnull(strstr(probed_error, "first swap map page 0 is zero"));

	/* A first map page off the end of a regular file, or a page there
	 * that is no map page (entry 0 is 0): what a copy of a swap file's
	 * bytes looks like, whose map names device pages. Not damage. */
	put_le(dev + 4096 - 32, 99, 8);
	ck_assert_int_eq(probe(write_file("far", dev, sizeof(dev)), &h, &lrc), HIB_KIND_KERNEL);
	ck_assert_int_eq(lrc, HIB_ERR_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(probed_error, "looks like a copy of a swap file"));
	ck_assert_ptr_nonnull(strstr(probed_error, "99, lies beyond the end of this file"));
	ck_assert(!probed_in_place);
	put_le(dev + 4096 - 32, 5, 8);
	ck_assert_int_eq(probe(write_file("nomap", dev, sizeof(dev)), &h, &lrc), HIB_KIND_KERNEL);
	ck_assert_int_eq(lrc, HIB_ERR_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(probed_error, "5, is no swap-map page in this file"));
	/* entry 0 good, entry 1 off the end: a map page, damaged */
	put_le(dev + 5 * 4096, 6, 8);
	put_le(dev + 5 * 4096 + 8, 99, 8);
	ck_assert_int_eq(probe(write_file("entry1", dev, sizeof(dev)), &h, &lrc), HIB_KIND_KERNEL);
	ck_assert_int_eq(lrc, HIB_ERR_DAMAGED);
	ck_assert_ptr_nonnull(strstr(probed_error, "entry 1"));
	memset(dev + 5 * 4096, 0, 16);

	put_le(dev + 4096 - 32, 1, 8);               /* map page 1 -> 2 -> 1 */
	put_le(dev + 1 * 4096, 3, 8);
	put_le(dev + 1 * 4096 + 4088, 2, 8);
	put_le(dev + 2 * 4096, 4, 8);
	put_le(dev + 2 * 4096 + 4088, 1, 8);
	ck_assert_int_eq(probe(write_file("loop", dev, sizeof(dev)), &h, &lrc), HIB_KIND_KERNEL);
	ck_assert_int_eq(lrc, HIB_ERR_DAMAGED);

	put_le(dev + 2 * 4096 + 4088, 0, 8);         /* entry naming a map page */
	put_le(dev + 2 * 4096, 1, 8);
	ck_assert_int_eq(probe(write_file("dup", dev, sizeof(dev)), &h, &lrc), HIB_KIND_KERNEL);
	ck_assert_int_eq(lrc, HIB_ERR_DAMAGED);
	rm_tmpdir();
}
END_TEST

static Suite *probe_suite(void)
{
	Suite *s = suite_create("probe");
	TCase *tc;

	tc = tcase_create("probe");
	tcase_add_test(tc, probe_kinds);
	tcase_add_test(tc, map_bounds_and_cycles);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(probe_suite());
}
