/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_kmem - random reads of the saved memory (lib/kmem.c, chunk1.c)
 * give, for every saved PFN of every fixture (LZO, LZ4 and raw streams,
 * zero-flagged pages, 4K to 64K pages), the page the stream reader gives
 * in order (the reader itself is checked against an independent walk in
 * cli-export.sh); PFNs the image did not save fail by name; a read in
 * reverse order (every chunk evicted and decoded again) gives the same.
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <stdlib.h>
#include <string.h>

static char fixtures[FIXTURES_MAX][64];
static size_t nfixtures;

struct saved {
	uint64_t pfn;
	unsigned char *data;        /* NULL: zero-flagged */
};

START_TEST(kmem_equals_reader)
{
	struct hib_image *img = hib_image_new();
	struct hib_reader *rd;
	struct hib_page pg = HIB_INIT(struct hib_page);
	struct hib_kmem *km;
	struct saved *s = NULL;
	size_t n = 0, cap = 0, i, k, ps;
	const unsigned char *p;
	char path[512];
	int rc;

	fixture_img(path, sizeof(path), fixtures[_i]);
	ck_assert_int_eq(open_at(img, path, fx_offset(fixtures[_i])), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ps = hib_image_header(img)->page_size;
	ck_assert_int_eq(hib_reader_new(img, &rd), HIB_OK);
	while ((rc = hib_reader_next(rd, &pg)) == 1) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			s = realloc(s, cap * sizeof(*s));
			ck_assert_ptr_nonnull(s);
		}
		s[n].pfn = pg.pfn;
		s[n].data = NULL;
		if (pg.data) {
			s[n].data = malloc(ps);
			ck_assert_ptr_nonnull(s[n].data);
			memcpy(s[n].data, pg.data, ps);
		}
		n++;
	}
	ck_assert_int_eq(rc, 0);
	hib_reader_free(rd);
	ck_assert_uint_gt(n, 100);

	ck_assert_int_eq(hib_kmem_open(img, &km), HIB_OK);
	for (k = 0; k < 2 * n; k++) {
		/* forward, then backward */
		i = k < n ? k : 2 * n - 1 - k;
		rc = hib_kmem_page(km, s[i].pfn, &p);
		if (!s[i].data) {
			ck_assert_msg(rc == 0 && !p, "%s: PFN 0x%llx zero-flagged, kmem says %d",
				      fixtures[_i], (unsigned long long)s[i].pfn, rc);
			continue;
		}
		ck_assert_msg(rc == 1 && p && !memcmp(p, s[i].data, ps),
			      "%s: PFN 0x%llx differs (rc %d)", fixtures[_i],
			      (unsigned long long)s[i].pfn, rc);
	}
	/* one past the highest saved PFN was not saved */
	rc = hib_kmem_page(km, s[n - 1].pfn + 1, &p);
	ck_assert_int_eq(rc, HIB_ERR_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "was not saved"));
	hib_kmem_free(km);
	for (i = 0; i < n; i++)
		free(s[i].data);
	free(s);
	hib_image_free(img);
}
END_TEST

static Suite *kmem_suite(void)
{
	Suite *s = suite_create("kmem");
	TCase *tc = tcase_create("kmem");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, kmem_equals_reader, 0, (int)nfixtures);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (fixtures_setup(fixtures, &nfixtures, NULL, NULL) < 0)
		return EXIT_FAILURE;
	return check_run(kmem_suite());
}
