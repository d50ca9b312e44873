/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_spent - areas a real kernel already tried to resume from
 * (lib/probe.c, lib/header.c): reported as spent, not read as images.
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <stdlib.h>
#include <string.h>

static char fixtures[FIXTURES_MAX][64];
static size_t nfixtures;
static char spent[SPENT_MAX][64];      /* areas a resume attempt already spent */
static size_t nspent;

/* An area a real kernel already tried to resume from: the signature is the
 * swap's again, the header fields and the data remain. */
START_TEST(spent_is_reported)
{
	struct sidecar sc;
	struct hib_image *img;
	char path[512];

	fixture_src(path, sizeof(path), spent[_i], "expect");
	ck_assert_int_eq(sidecar_load(path, &sc), 0);
	fixture_img(path, sizeof(path), spent[_i]);
	img = hib_image_new();
	ck_assert_int_eq(open_at(img, path, fx_offset(spent[_i])), HIB_OK);
	ck_assert_int_eq(hib_image_header(img)->kind, HIB_KIND_SPENT);
	ck_assert_str_eq(hib_image_header(img)->sig, "SWAPSPACE2");
	if (sidecar_has(&sc, "header_image"))
		ck_assert_uint_eq(hib_image_header(img)->image,
				  sidecar_u64(&sc, "header_image"));
	ck_assert_int_eq(hib_image_load(img), HIB_ERR_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "spent image"));
	hib_image_free(img);
}
END_TEST

static Suite *spent_suite(void)
{
	Suite *s = suite_create("spent");
	TCase *tc;

	tc = tcase_create("spent");
	tcase_add_loop_test(tc, spent_is_reported, 0, (int)nspent);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (fixtures_setup(fixtures, &nfixtures, spent, &nspent) < 0)
		return EXIT_FAILURE;
	return check_run(spent_suite());
}
