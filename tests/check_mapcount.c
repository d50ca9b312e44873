/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_mapcount - how many slots an image's swap-map chain takes, the one
 * format fact the writer and simulate.c both need (issue 13: they differed
 * by one page whenever the written pages were a multiple of 511).
 *
 * Images are built with hib_image_build() for a chosen number of written
 * pages E = 1 (swsusp_info) + meta + data, raw. The independent count is a
 * walk of the built file's own map chain (struct swap_map_page: 511
 * entries, then next_swap), the way the kernel's load_image() follows it.
 * Against it: the builder's own count, and the simulator's disk pages for
 * the scenario that matches the image.
 */
#include "config.h"

#include <check.h>
#include <hibimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define PS 4096u
#define EPM 511u

static int fill(void *arg, uint64_t i, unsigned char *page)
{
	(void)arg;
	memset(page, (int)(0x31 + i % 200), PS);
	memcpy(page, &i, sizeof(i));
	return 0;
}

/* N PFN-list entries, no zero pages, raw: E = 1 + ceil(N / 512) + N. */
static void check_entries(uint64_t n)
{
	char dir[] = "/tmp/hibimg-check-mapcount-XXXXXX", path[128];
	uint64_t *pfns = malloc(n * sizeof(*pfns)), i, E, walked;
	struct hib_build_opts bo = HIB_INIT(struct hib_build_opts, .to = HIB_COMP_NONE,
					    .level = HIB_LEVEL_AUTO, .threads = 1);
	struct hib_sim_opts so = { .size = sizeof(so), .threads = 1 };
	const struct hib_sim_scenario *sc;
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	struct hib_sim *sr;
	struct hib_image *img;
	size_t k;
	int found = 0;

	ck_assert_ptr_nonnull(pfns);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/img", dir);
	for (i = 0; i < n; i++)
		pfns[i] = 0x100 + i;
	img = hib_image_new();
	ck_assert_int_eq(hib_image_build(img, path, &bo, n, pfns, NULL, fill, NULL, &res),
			 HIB_OK);
	hib_image_free(img);
	E = 1 + (n * 8 + PS - 1) / PS + n;
	ck_assert_uint_eq(1 + res.disk_pages, E);

	walked = raw_image_slots(path);
	ck_assert_msg(res.slots_needed == walked, "E=%llu: builder %llu slots, chain %llu",
		      (unsigned long long)E, (unsigned long long)res.slots_needed,
		      (unsigned long long)walked);

	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ck_assert_int_eq(hib_simulate(img, &so, &sr), HIB_OK);
	for (k = 0; (sc = hib_sim_scenario(sr, k)) != NULL; k++)
		if (sc->matches_image) {
			found = 1;
			ck_assert_msg(sc->disk_pages == walked,
				      "E=%llu: simulate %llu disk pages, chain %llu",
				      (unsigned long long)E,
				      (unsigned long long)sc->disk_pages,
				      (unsigned long long)walked);
		}
	ck_assert(found);
	hib_sim_free(sr);
	hib_image_free(img);
	unlink(path);
	rmdir(dir);
	free(pfns);
}

/* E = 1 + 2 + 1019 = 1022 = 2 * 511: the case that drifted. */
START_TEST(multiple_of_511) { check_entries(1019); }
END_TEST
/* E = 1021 and 1023 around it, and E = 511 itself (1 + 1 + 509). */
START_TEST(around_511k) { check_entries(1018); check_entries(1020); check_entries(509); }
END_TEST

int main(void)
{
	Suite *s = suite_create("mapcount");
	TCase *tc = tcase_create("chain");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, multiple_of_511);
	tcase_add_test(tc, around_511k);
	suite_add_tcase(s, tc);
	return check_run(s);
}
