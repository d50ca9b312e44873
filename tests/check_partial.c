/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Best effort through the library's API (issue 19): a copy of k612-lzo
 * with chunk 10's data garbled. Where that chunk lies is found here from
 * the disk bytes (swsusp_header.image, the swap-map page, each chunk's
 * size_t length), not by hibimg. Old-size export options still mean a
 * strict read; .partial gives one decode-failed record at that chunk, 32
 * stream pages lost (UNC_PAGES, kernel/power/swap.c); the getters refuse
 * what does not exist; a reader switches before its first page only.
 * Random reads of the saved memory (hib_kmem_page()) on the salvaged copy
 * give every page the best-effort reader gives (which cli-partial.sh
 * checks against damage.py's independent walk), read backwards, also
 * with chunk 3's length broken too (a gap of unknown length: the pages
 * after it placed from the stream's end); a PFN the damage took fails as
 * one not saved, its message naming the damage; a PFN never saved says
 * no damage; strict, kmem refuses the damaged stream.
 */
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PS 4096u
#define DAMAGED_CHUNK 10u

static char damaged[600];
static char damaged2[600];          /* and chunk 3's length word absurd */
static uint64_t chunk_entry;        /* map entry of chunk DAMAGED_CHUNK */
static uint64_t chunk_dev;
static uint64_t chunk3_dev;

/* The copy, damaged; the chunk's place walked from the bytes. */
static void setup(void)
{
	char path[512];
	unsigned char *buf, *mp;
	size_t len;
	uint64_t e = 1, k;
	unsigned int i;

	fixture_img(path, sizeof(path), "k612-lzo");
	buf = (unsigned char *)slurp(path, &len);
	ck_assert_ptr_nonnull(buf);
	/* the first swap-map page: 511 entries, enough for chunk 10 */
	mp = buf + test_le64(buf + PS - 32) * PS;
	for (k = 0; k < DAMAGED_CHUNK; k++) {
		uint64_t cmp_len = test_le64(buf + test_le64(mp + e * 8) * PS);

		if (k == 3)
			chunk3_dev = test_le64(mp + e * 8);
		e += (8 + cmp_len + PS - 1) / PS;
	}
	chunk_entry = e;
	chunk_dev = test_le64(mp + e * 8);
	for (i = 0; i < 16; i++)
		buf[chunk_dev * PS + 64 + i * 5] ^= 0x5a;
	mk_tmpdir();
	snprintf(damaged, sizeof(damaged), "%s", write_file("damaged.img", buf, len));
	/* two gaps, one of unknown length: the data after it placed from the
	 * stream's end */
	memset(buf + chunk3_dev * PS, 0xff, 4);
	snprintf(damaged2, sizeof(damaged2), "%s", write_file("damaged2.img", buf, len));
	free(buf);
}

static void teardown(void)
{
	rm_tmpdir();
}

static struct hib_image *open_damaged(void)
{
	struct hib_image *img = hib_image_new();

	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(hib_image_open(img, damaged), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	return img;
}

START_TEST(old_size_options_stay_strict)
{
	union {
		struct hib_export_opts o;
		unsigned char b[sizeof(struct hib_export_opts) + 16];
	} c;
	struct hib_export_result res = HIB_INIT(struct hib_export_result);
	struct hib_image *img = open_damaged();
	char out[600];

	/* a caller built before .partial: what lies past its size is not its */
	memset(&c, 0xff, sizeof(c));
	c.o = (struct hib_export_opts)HIB_INIT(struct hib_export_opts,
					       .format = HIB_EXPORT_LIME, .threads = 1);
	c.o.size = offsetof(struct hib_export_opts, pad0);
	memset((unsigned char *)&c.o + c.o.size, 0xff, sizeof(c) - c.o.size);
	snprintf(out, sizeof(out), "%s/strict.lime", tmpdir);
	ck_assert_int_eq(hib_export(img, out, &c.o, &res), HIB_ERR_DAMAGED);
	ck_assert_msg(access(out, F_OK) != 0, "%s was written", out);
	hib_image_free(img);
}
END_TEST

START_TEST(partial_export_one_record_at_the_chunk)
{
	struct hib_export_opts o = HIB_INIT(struct hib_export_opts,
					    .format = HIB_EXPORT_LIME, .threads = 1, .partial = 1);
	struct hib_export_result res = HIB_INIT(struct hib_export_result);
	struct hib_damage_summary s = HIB_INIT(struct hib_damage_summary);
	struct hib_damage d = HIB_INIT(struct hib_damage);
	struct hib_pfn_range r;
	struct hib_image *img = open_damaged();
	char out[600];
	uint64_t j, pages = 0;

	snprintf(out, sizeof(out), "%s/partial.lime", tmpdir);
	ck_assert_int_eq(hib_export(img, out, &o, &res), HIB_OK);
	ck_assert_int_eq(access(out, F_OK), 0);
	ck_assert_int_eq(hib_image_damage_summary(img, &s), HIB_OK);
	ck_assert_uint_eq(s.records, 1);
	ck_assert_uint_eq(s.chunks_lost, 1);
	ck_assert_uint_eq(s.stream_pages_lost, 32);
	ck_assert_int_eq(s.crc_mismatch, 0);
	ck_assert_int_eq(hib_image_damage(img, 0, &d), HIB_OK);
	ck_assert_int_eq(d.kind, HIB_DAMAGE_DECODE);
	ck_assert_str_eq(hib_damage_kind_name(d.kind), "decode-failed");
	ck_assert_uint_eq(d.chunk, DAMAGED_CHUNK);
	ck_assert_uint_eq(d.map_entry, chunk_entry);
	ck_assert_uint_eq(d.devpage, chunk_dev);
	ck_assert_uint_eq(d.first_stream_page, 1 + DAMAGED_CHUNK * 32);
	ck_assert_uint_eq(d.stream_pages, 32);
	/* the export placed what was saved, the ranges hold what was not */
	ck_assert_uint_eq(res.pages, s.pages_saved);
	for (j = 0; j < d.ranges; j++) {
		ck_assert_int_eq(hib_image_damage_range(img, 0, j, &r), HIB_OK);
		ck_assert_uint_le(r.first, r.last);
		pages += r.last - r.first + 1;
	}
	ck_assert_uint_eq(pages, d.data_pages);
	ck_assert_uint_eq(s.pages_lost, d.data_pages);
	/* what is not there is refused */
	ck_assert_int_eq(hib_image_damage(img, 1, &d), HIB_ERR_INVAL);
	ck_assert_int_eq(hib_image_damage_range(img, 0, d.ranges, &r), HIB_ERR_INVAL);
	d.size = 0;
	ck_assert_int_eq(hib_image_damage(img, 0, &d), HIB_ERR_INVAL);
	hib_image_free(img);
}
END_TEST

START_TEST(reader_switches_before_its_first_page)
{
	struct hib_damage_summary s = HIB_INIT(struct hib_damage_summary);
	struct hib_page pg = HIB_INIT(struct hib_page);
	struct hib_image *img = open_damaged();
	struct hib_reader *rd;
	uint64_t n = 0;
	int rc;

	/* no walk yet: no report */
	ck_assert_int_eq(hib_image_damage_summary(img, &s), HIB_ERR_INVAL);
	ck_assert_int_eq(hib_reader_new(img, &rd), HIB_OK);
	ck_assert_int_eq(hib_reader_set_partial(rd, 1), HIB_OK);
	while ((rc = hib_reader_next(rd, &pg)) == 1) {
		n++;
		if (n == 1)
			ck_assert_int_eq(hib_reader_set_partial(rd, 0), HIB_ERR_INVAL);
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(hib_image_damage_summary(img, &s), HIB_OK);
	ck_assert_uint_eq(n, s.pages_saved);
	ck_assert_uint_gt(n, 0);
	hib_reader_free(rd);
	/* strict again: the stream fails where the chunk is */
	ck_assert_int_eq(hib_image_set_partial(img, 0), HIB_OK);
	ck_assert_int_eq(hib_reader_new(img, &rd), HIB_OK);
	while ((rc = hib_reader_next(rd, &pg)) == 1)
		;
	ck_assert_int_eq(rc, HIB_ERR_DAMAGED);
	hib_reader_free(rd);
	hib_image_free(img);
}
END_TEST

struct saved {
	uint64_t pfn;
	unsigned char *data;        /* NULL: zero-flagged */
};

START_TEST(kmem_reads_what_the_walk_recovered)
{
	struct hib_damage_summary sum = HIB_INIT(struct hib_damage_summary);
	struct hib_damage d = HIB_INIT(struct hib_damage);
	struct hib_page pg = HIB_INIT(struct hib_page);
	struct hib_image *img = hib_image_new();
	struct hib_pfn_range r;
	struct hib_reader *rd;
	struct hib_kmem *km;
	struct saved *s;
	const unsigned char *p;
	uint64_t n = 0, i, j, ranges = 0, gap = 0;
	int rc;

	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(hib_image_open(img, _i ? damaged2 : damaged), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	/* strict: the checked pass meets the damage */
	ck_assert_int_eq(hib_kmem_open(img, &km), HIB_ERR_DAMAGED);
	ck_assert_int_eq(hib_image_set_partial(img, 1), HIB_OK);
	ck_assert_int_eq(hib_image_damage_summary(img, &sum), HIB_OK);
	ck_assert_uint_eq(sum.records, _i ? 2 : 1);
	ck_assert_uint_gt(sum.pages_lost, 0);
	s = calloc(sum.pages_saved, sizeof(*s));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(hib_reader_new(img, &rd), HIB_OK);
	while ((rc = hib_reader_next(rd, &pg)) == 1) {
		ck_assert_uint_lt(n, sum.pages_saved);
		s[n].pfn = pg.pfn;
		if (pg.data) {
			s[n].data = malloc(PS);
			ck_assert_ptr_nonnull(s[n].data);
			memcpy(s[n].data, pg.data, PS);
		}
		n++;
	}
	ck_assert_int_eq(rc, 0);
	hib_reader_free(rd);
	ck_assert_uint_eq(n, sum.pages_saved);
	ck_assert_int_eq(hib_kmem_open(img, &km), HIB_OK);
	/* backwards: every chunk evicted and decoded again on the way */
	for (i = n; i-- > 0;) {
		rc = hib_kmem_page(km, s[i].pfn, &p);
		ck_assert_msg(rc == (s[i].data ? 1 : 0), "PFN 0x%llx: %d (%s)",
			      (unsigned long long)s[i].pfn, rc, hib_image_error(img));
		if (s[i].data)
			ck_assert_msg(!memcmp(p, s[i].data, PS), "PFN 0x%llx differs",
				      (unsigned long long)s[i].pfn);
	}
	/* the damage's PFNs: not saved, the damage named */
	for (i = 0; i < sum.records; i++) {
		ck_assert_int_eq(hib_image_damage(img, i, &d), HIB_OK);
		for (j = 0; j < d.ranges; j++) {
			ck_assert_int_eq(hib_image_damage_range(img, i, j, &r), HIB_OK);
			ck_assert_int_eq(hib_kmem_page(km, r.first, &p), HIB_ERR_UNSUPPORTED);
			ck_assert_msg(strstr(hib_image_error(img), "was not saved in the image: the damage took it"),
				      "%s", hib_image_error(img));
			ck_assert_int_eq(hib_kmem_page(km, r.last, &p), HIB_ERR_UNSUPPORTED);
			ranges++;
			ck_assert_uint_gt(r.first, gap);
		}
	}
	ck_assert_uint_gt(ranges, 0);
	/* PFN 0: below the lowest the image listed (the PFN list's first
	 * page is intact), no damage to name */
	ck_assert_uint_gt(s[0].pfn, gap);
	ck_assert_int_eq(hib_kmem_page(km, gap, &p), HIB_ERR_UNSUPPORTED);
	ck_assert_ptr_null(strstr(hib_image_error(img), "damage"));
	hib_kmem_free(km);
	for (i = 0; i < n; i++)
		free(s[i].data);
	free(s);
	hib_image_free(img);
}
END_TEST

static Suite *partial_suite(void)
{
	Suite *s = suite_create("partial");
	TCase *tc = tcase_create("damaged k612-lzo");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, old_size_options_stay_strict);
	tcase_add_test(tc, partial_export_one_record_at_the_chunk);
	tcase_add_test(tc, reader_switches_before_its_first_page);
	tcase_add_loop_test(tc, kmem_reads_what_the_walk_recovered, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(partial_suite());
}
