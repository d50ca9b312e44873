/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_abi - lib/abi.c: structs the caller allocates carry their size.
 * Through the public API on the fixtures: a result is written up to its
 * size and not a byte further, options are not read past theirs, a size
 * the library does not take (0, below the first layout, above its own)
 * fails with HIB_ERR_INVAL naming the struct and changes nothing. No
 * public struct has grown yet, so an older caller's smaller size is shown
 * on abi.c itself (compiled in) with a struct of two layouts.
 */
#include "config.h"
#include "testutil.h"
#include "hibimgP.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CANARY 0xa5

static char fixtures[FIXTURES_MAX][64];
static size_t nfixtures;

static int all_canary(const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != CANARY)
			return 0;
	return 1;
}

static struct hib_image *load(const char *name)
{
	struct hib_image *img = hib_image_new();
	char path[512];

	ck_assert_ptr_nonnull(img);
	fixture_img(path, sizeof(path), name);
	ck_assert_int_eq(open_at(img, path, fx_offset(name)), HIB_OK);
	ck_assert_msg(hib_image_load(img) == HIB_OK, "%s: %s", name, hib_image_error(img));
	return img;
}

/* The message of a refused size: the numbers it quotes are the library's. */
static void assert_size_refused(const struct hib_image *img, int rc, const char *name,
				size_t size)
{
	const char *e = hib_image_error(img);
	char head[160], tail[160];

	snprintf(head, sizeof(head), "struct %s: .size is %zu, this library takes ", name, size);
	snprintf(tail, sizeof(tail), " (set it with HIB_INIT(struct %s))", name);
	ck_assert_int_eq(rc, HIB_ERR_INVAL);
	ck_assert_msg(!strncmp(e, head, strlen(head)), "message \"%s\"", e);
	ck_assert_msg(strlen(e) > strlen(tail) && !strcmp(e + strlen(e) - strlen(tail), tail),
		      "message \"%s\"", e);
}

/* ---- abi.c on a struct of two layouts --------------------------------------- */

/* Layout 1 was { size, a, b } (sizeof: up to c); layout 2 appended c. */
struct grown {
	size_t size;
	uint64_t a;
	uint32_t b;
	uint32_t pad;
	uint64_t c;
};
#define GROWN_V1 HIB_V1_END(grown, b)
#define OLD_SIZE offsetof(struct grown, c)

START_TEST(older_caller_result_filled_up_to_its_size)
{
	static struct hib_image img;
	unsigned char caller[sizeof(struct grown) + 32];
	struct grown full = { .a = 0x1111111111111111ull, .b = 0x22222222u,
			      .c = 0x3333333333333333ull };
	struct grown seen;
	size_t size = OLD_SIZE;

	memset(caller, CANARY, sizeof(caller));
	memcpy(caller, &size, sizeof(size));
	ck_assert_int_eq(hib_abi_size(&img, "grown", caller, GROWN_V1, sizeof(full)), HIB_OK);
	hib_abi_out(caller, &full);
	memcpy(&seen, caller, OLD_SIZE);
	ck_assert_uint_eq(seen.size, OLD_SIZE);
	ck_assert_uint_eq(seen.a, full.a);
	ck_assert_uint_eq(seen.b, full.b);
	ck_assert(all_canary(caller + OLD_SIZE, sizeof(caller) - OLD_SIZE));
}
END_TEST

START_TEST(older_caller_options_default_past_its_size)
{
	static struct hib_image img;
	unsigned char caller[sizeof(struct grown)];
	struct grown old = { .size = OLD_SIZE, .a = 7, .b = 9 };
	struct grown full;

	memset(caller, CANARY, sizeof(caller));
	memcpy(caller, &old, OLD_SIZE);
	memset(&full, CANARY, sizeof(full));
	ck_assert_int_eq(hib_abi_in(&img, "grown", &full, sizeof(full), GROWN_V1, caller),
			 HIB_OK);
	ck_assert_uint_eq(full.a, 7);
	ck_assert_uint_eq(full.b, 9);
	ck_assert_uint_eq(full.c, 0);
}
END_TEST

START_TEST(helper_refuses_sizes_it_does_not_take)
{
	static const size_t bad[] = { 0, GROWN_V1 - 1, sizeof(struct grown) + 1 };
	static struct hib_image img;
	struct grown caller, full;
	size_t k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		char want[200];

		memset(&caller, CANARY, sizeof(caller));
		caller.size = bad[k];
		snprintf(want, sizeof(want),
			 "struct grown: .size is %zu, this library takes %zu to %zu (set it with HIB_INIT(struct grown))",
			 bad[k], (size_t)GROWN_V1, sizeof(struct grown));
		ck_assert_int_eq(hib_abi_size(&img, "grown", &caller, GROWN_V1,
					      sizeof(caller)), HIB_ERR_INVAL);
		ck_assert_str_eq(img.err, want);
		ck_assert_int_eq(hib_abi_in(&img, "grown", &full, sizeof(full), GROWN_V1,
					    &caller), HIB_ERR_INVAL);
		ck_assert_str_eq(img.err, want);
		ck_assert(all_canary(&caller.a, sizeof(caller) - sizeof(size_t)));
	}
	ck_assert_int_eq(hib_abi_size(&img, "grown", NULL, GROWN_V1, sizeof(caller)),
			 HIB_ERR_INVAL);
	ck_assert_str_eq(img.err, "struct grown: none given");
}
END_TEST

/* ---- the public API on the fixtures ----------------------------------------- */

static int dry_run(struct hib_image *img, const struct hib_recompress_opts *o,
		   struct hib_recompress_result *res)
{
	char out[300];

	/* dry_run writes nothing: the name is never created */
	snprintf(out, sizeof(out), "%s/never-written", tmpdir);
	return hib_recompress(img, out, o, res);
}

static void assert_same_result(const struct hib_recompress_result *a,
			       const struct hib_recompress_result *b)
{
	ck_assert_uint_eq(a->slots_source, b->slots_source);
	ck_assert_uint_eq(a->slots_needed, b->slots_needed);
	ck_assert_uint_eq(a->slots_extra, b->slots_extra);
	ck_assert_uint_eq(a->stream_pages, b->stream_pages);
	ck_assert_uint_eq(a->image_pages, b->image_pages);
	ck_assert_uint_eq(a->zero_flagged, b->zero_flagged);
	ck_assert_uint_eq(a->disk_pages, b->disk_pages);
	ck_assert_uint_eq(a->cmp_bytes, b->cmp_bytes);
	ck_assert_uint_eq(a->chunks, b->chunks);
	ck_assert_uint_eq(a->chunks_harder, b->chunks_harder);
	ck_assert_uint_eq(a->flags, b->flags);
	ck_assert_pstr_eq(a->needs_kernel, b->needs_kernel);
	ck_assert_uint_eq(a->slots_extra_zero, b->slots_extra_zero);
	ck_assert_uint_eq(a->slots_extra_data, b->slots_extra_data);
}

/* (1) A result is written up to its size, no further; one smaller than
 * the first layout is refused and left as it was. */
START_TEST(result_written_only_up_to_its_size)
{
	struct hib_recompress_opts o = HIB_INIT(struct hib_recompress_opts,
						.level = HIB_LEVEL_AUTO,
						.dry_run = 1, .threads = 1);
	struct hib_recompress_result plain = HIB_INIT(struct hib_recompress_result);
	union {
		struct hib_recompress_result r;
		unsigned char b[sizeof(struct hib_recompress_result) + 64];
	} big;
	const size_t older = offsetof(struct hib_recompress_result, slots_extra_data);
	struct hib_image *img = load(fixtures[_i]);

	/* its own codec: the rewrite fits the source's slots */
	o.to = hib_image_info(img)->compression;
	mk_tmpdir();
	ck_assert_msg(dry_run(img, &o, &plain) == HIB_OK, "%s", hib_image_error(img));

	memset(&big, CANARY, sizeof(big));
	big.r.size = sizeof(big.r);
	ck_assert_int_eq(dry_run(img, &o, &big.r), HIB_OK);
	ck_assert_uint_eq(big.r.size, sizeof(big.r));
	assert_same_result(&big.r, &plain);
	ck_assert(all_canary(big.b + sizeof(big.r), sizeof(big.b) - sizeof(big.r)));

	memset(&big, CANARY, sizeof(big));
	big.r.size = older;
	assert_size_refused(img, dry_run(img, &o, &big.r), "hib_recompress_result", older);
	ck_assert_uint_eq(big.r.size, older);
	ck_assert(all_canary(big.b + sizeof(size_t), sizeof(big.b) - sizeof(size_t)));
	hib_image_free(img);
	rm_tmpdir();
}
END_TEST

/* A page, each call: the same rule on the reader's hot path. */
START_TEST(page_written_only_up_to_its_size)
{
	struct hib_page plain = HIB_INIT(struct hib_page);
	union {
		struct hib_page p;
		unsigned char b[sizeof(struct hib_page) + 32];
	} big;
	struct hib_reader *r1, *r2;
	struct hib_image *img = load(fixtures[_i]), *img2 = load(fixtures[_i]);
	unsigned int ps = hib_image_header(img)->page_size;
	int n;

	ck_assert_int_eq(hib_reader_new(img, &r1), HIB_OK);
	ck_assert_int_eq(hib_reader_new(img2, &r2), HIB_OK);
	for (n = 0; n < 64; n++) {
		memset(&big, CANARY, sizeof(big));
		big.p.size = sizeof(big.p);
		ck_assert_int_eq(hib_reader_next(r1, &plain), 1);
		ck_assert_int_eq(hib_reader_next(r2, &big.p), 1);
		ck_assert_uint_eq(big.p.pfn, plain.pfn);
		ck_assert_uint_eq(big.p.entry, plain.entry);
		ck_assert_int_eq(big.p.kind, plain.kind);
		ck_assert_int_eq(big.p.data == NULL, plain.data == NULL);
		if (plain.data)
			ck_assert_mem_eq(big.p.data, plain.data, ps);
		ck_assert(all_canary(big.b + sizeof(big.p), sizeof(big.b) - sizeof(big.p)));
	}
	hib_reader_free(r1);
	hib_reader_free(r2);
	hib_image_free(img);
	hib_image_free(img2);
}
END_TEST

/* (2) Options are read up to their size: what lies past it (a newer
 * layout's fields, say) changes nothing; below the first layout they are
 * refused before anything is written. */
START_TEST(options_read_only_up_to_their_size)
{
	struct hib_recompress_opts o = HIB_INIT(struct hib_recompress_opts,
						.level = HIB_LEVEL_AUTO,
						.dry_run = 1, .threads = 1);
	struct hib_recompress_result plain = HIB_INIT(struct hib_recompress_result);
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	union {
		struct hib_recompress_opts o;
		unsigned char b[sizeof(struct hib_recompress_opts) + 64];
	} big;
	const size_t older = offsetof(struct hib_recompress_opts, overwrite_swapped_out);
	struct hib_image *img = load(fixtures[_i]);

	/* its own codec: the rewrite fits the source's slots */
	o.to = hib_image_info(img)->compression;
	mk_tmpdir();
	ck_assert_msg(dry_run(img, &o, &plain) == HIB_OK, "%s", hib_image_error(img));
	memset(&big, CANARY, sizeof(big));
	big.o = o;
	ck_assert_int_eq(dry_run(img, &big.o, &res), HIB_OK);
	assert_same_result(&res, &plain);

	big.o.size = older;
	memset(&res, CANARY, sizeof(res));
	res.size = sizeof(res);
	assert_size_refused(img, dry_run(img, &big.o, &res), "hib_recompress_opts", older);
	ck_assert(all_canary(&res.slots_source, sizeof(res) - sizeof(size_t)));
	hib_image_free(img);
	rm_tmpdir();
}
END_TEST

/* (3) Size 0 (a struct not made with HIB_INIT) fails at every entry point
 * with HIB_ERR_INVAL and the struct's name; so does one larger than the
 * library's (a newer header). */
enum {
	E_PAGE, E_PROGRESS, E_IDENTITY, E_SLOTS, E_RECOMP_OPTS, E_RECOMP_RES,
	E_EXPORT_OPTS, E_EXPORT_RES, E_BUILD_OPTS, E_BUILD_RES, E_COUNT
};

static int build_page(void *arg, uint64_t i, unsigned char *page)
{
	memset(page, 0x5a, 4096);
	return 0;
}

/* (3b) hib_build_opts grew page_size and word_size in 0.7 behind pad0,
 * the 0.6 struct's tail padding (its sizeof ended at page_size): a 0.6
 * caller's garbage there, and whatever lies past its size, must leave the
 * image an x86_64 one of 4 KiB pages; a 0.7 caller gets its layout. */
static int build_page_ps(void *arg, uint64_t i, unsigned char *page)
{
	(void)i;
	memset(page, 0x5a, *(const unsigned int *)arg);
	return 0;
}

static void build_with(struct hib_build_opts *o, unsigned int fill, unsigned int want_ps,
		       unsigned int want_word)
{
	static const uint64_t pfns[] = { 1, 2, 3 };
	struct hib_recompress_result rr = HIB_INIT(struct hib_recompress_result);
	struct hib_image *img = hib_image_new();
	char out[300];

	snprintf(out, sizeof(out), "%s/built", tmpdir);
	ck_assert_msg(hib_image_build(img, out, o, 3, pfns, NULL, build_page_ps, &fill, &rr) == HIB_OK,
		      "%s", hib_image_error(img));
	hib_image_free(img);
	img = hib_image_new();
	ck_assert_msg(hib_image_open(img, out) == HIB_OK && hib_image_load(img) == HIB_OK,
		      "%s", hib_image_error(img));
	ck_assert_uint_eq(hib_image_header(img)->page_size, want_ps);
	ck_assert_uint_eq(hib_image_info(img)->word_size, want_word);
	ck_assert_uint_eq(hib_image_info(img)->image_pages, 3);
	hib_image_free(img);
	unlink(out);
}

START_TEST(build_opts_layout_grown_behind_the_old_padding)
{
	const size_t old = offsetof(struct hib_build_opts, page_size);
	union {
		struct hib_build_opts o;
		unsigned char b[sizeof(struct hib_build_opts) + 16];
	} c;
	struct hib_build_opts o = HIB_INIT(struct hib_build_opts, .to = HIB_COMP_LZO,
					   .level = HIB_LEVEL_AUTO, .threads = 1,
					   .output_flags = HIB_OUTPUT_FORCE);
	struct hib_recompress_result rr = HIB_INIT(struct hib_recompress_result);
	static const uint64_t pfns[] = { 1, 2, 3 };
	struct hib_image *img;
	unsigned int ps = 4096;
	char out[300];

	mk_tmpdir();
	memset(&c, 0xff, sizeof(c));
	c.o = o;
	c.o.size = old;
	memset(&c.o.pad0, 0xa5, sizeof(c.o.pad0));
	memset((unsigned char *)&c.o + old, 0xff, sizeof(c) - old);
	build_with(&c.o, 4096, 4096, 8);

	o.page_size = 65536;
	o.word_size = 4;
	o.pad0 = 0xa5a5a5a5u;
	ps = 65536;
	build_with(&o, ps, 65536, 4);
	o.page_size = 16384;
	o.word_size = 8;
	build_with(&o, 16384, 16384, 8);

	o.page_size = 12288;
	img = hib_image_new();
	snprintf(out, sizeof(out), "%s/refused", tmpdir);
	ck_assert_int_eq(hib_image_build(img, out, &o, 3, pfns, NULL, build_page_ps, &ps, &rr),
			 HIB_ERR_INVAL);
	ck_assert_str_eq(hib_image_error(img), "page size 12288: not a power of two from 4096 to 65536");
	hib_image_free(img);
	o.page_size = 0;
	o.word_size = 2;
	img = hib_image_new();
	ck_assert_int_eq(hib_image_build(img, out, &o, 3, pfns, NULL, build_page_ps, &ps, &rr),
			 HIB_ERR_INVAL);
	ck_assert_str_eq(hib_image_error(img), "word size 2: neither 4 nor 8");
	hib_image_free(img);
	ck_assert_msg(access(out, F_OK) != 0, "%s was created", out);
	rm_tmpdir();
}
END_TEST

static void try_entry(int which, size_t size, struct hib_image *img)
{
	struct hib_reader *rd = NULL;
	char out[300];
	const char *name;
	int rc;

	/* Each struct is the one under test or a valid one; the one under
	 * test starts as canary so a write to it shows. */
	union {
		struct hib_page pg;
		struct hib_progress pr;
		struct hib_identity id;
		struct hib_slot_usage su;
		struct hib_recompress_opts ro;
		struct hib_recompress_result rr;
		struct hib_export_opts eo;
		struct hib_export_result er;
		struct hib_build_opts bo;
	} t;
	struct hib_recompress_opts ro = HIB_INIT(struct hib_recompress_opts,
						 .to = HIB_COMP_LZ4, .level = HIB_LEVEL_AUTO,
						 .dry_run = 1, .threads = 1);
	struct hib_recompress_result rr = HIB_INIT(struct hib_recompress_result);
	struct hib_export_opts eo = HIB_INIT(struct hib_export_opts, .threads = 1);
	struct hib_export_result er = HIB_INIT(struct hib_export_result);
	struct hib_build_opts bo = HIB_INIT(struct hib_build_opts, .to = HIB_COMP_NONE,
					    .level = HIB_LEVEL_AUTO, .threads = 1);
	static const uint64_t pfns[] = { 1, 2, 3 };

	memset(&t, CANARY, sizeof(t));
	t.pg.size = size;
	snprintf(out, sizeof(out), "%s/out", tmpdir);
	if (which == E_PAGE || which == E_PROGRESS)
		ck_assert_int_eq(hib_reader_new(img, &rd), HIB_OK);
	switch (which) {
	case E_PAGE:
		name = "hib_page";
		rc = hib_reader_next(rd, &t.pg);
		break;
	case E_PROGRESS:
		name = "hib_progress";
		rc = hib_reader_progress(rd, &t.pr);
		break;
	case E_IDENTITY:
		name = "hib_identity";
		rc = hib_image_identify(img, &t.id);
		break;
	case E_SLOTS:
		name = "hib_slot_usage";
		rc = hib_image_slot_usage(img, &t.su);
		break;
	case E_RECOMP_OPTS:
		name = "hib_recompress_opts";
		rc = hib_recompress(img, out, &t.ro, &rr);
		break;
	case E_RECOMP_RES:
		name = "hib_recompress_result";
		rc = hib_recompress(img, out, &ro, &t.rr);
		break;
	case E_EXPORT_OPTS:
		name = "hib_export_opts";
		rc = hib_export(img, out, &t.eo, &er);
		break;
	case E_EXPORT_RES:
		name = "hib_export_result";
		rc = hib_export(img, out, &eo, &t.er);
		break;
	case E_BUILD_OPTS:
	case E_BUILD_RES: {
		struct hib_image *fresh = hib_image_new();

		name = which == E_BUILD_OPTS ? "hib_build_opts" : "hib_recompress_result";
		rc = which == E_BUILD_OPTS ?
		     hib_image_build(fresh, out, &t.bo, 3, pfns, NULL, build_page, NULL, &rr) :
		     hib_image_build(fresh, out, &bo, 3, pfns, NULL, build_page, NULL, &t.rr);
		assert_size_refused(fresh, rc, name, size);
		hib_image_free(fresh);
		goto untouched;
	}
	default:
		ck_abort();
	}
	assert_size_refused(img, rc, name, size);
untouched:
	ck_assert_uint_eq(t.pg.size, size);
	ck_assert(all_canary((char *)&t + sizeof(size_t), sizeof(t) - sizeof(size_t)));
	ck_assert_msg(access(out, F_OK) != 0, "%s was created", out);
	hib_reader_free(rd);
}

static size_t full_size(int which)
{
	static const size_t s[E_COUNT] = {
		sizeof(struct hib_page), sizeof(struct hib_progress),
		sizeof(struct hib_identity), sizeof(struct hib_slot_usage),
		sizeof(struct hib_recompress_opts), sizeof(struct hib_recompress_result),
		sizeof(struct hib_export_opts), sizeof(struct hib_export_result),
		sizeof(struct hib_build_opts), sizeof(struct hib_recompress_result),
	};
	return s[which];
}

START_TEST(size_zero_or_too_large_refused_everywhere)
{
	size_t k;

	mk_tmpdir();
	for (k = 0; k < nfixtures; k++) {
		struct hib_image *img;

		/* slot usage reads partitions only: a swap file says so first */
		if (_i == E_SLOTS && fx_offset(fixtures[k]))
			continue;
		img = load(fixtures[k]);
		try_entry(_i, 0, img);
		try_entry(_i, full_size(_i) + 8, img);
		hib_image_free(img);
		break;
	}
	rm_tmpdir();
}
END_TEST

/* The areas found come one by one through the getter: nothing indexes
 * an array by the caller's sizeof(struct hib_found). */
START_TEST(discover_list_through_its_getter)
{
	struct hib_found_list *l;
	size_t k, n;

	ck_assert_int_eq(hib_discover(&l), HIB_OK);
	n = hib_found_count(l);
	for (k = 0; k < n; k++)
		ck_assert_ptr_nonnull(hib_found_get(l, k)->path);
	ck_assert_ptr_null(hib_found_get(l, n));
	hib_discover_free(l);
	ck_assert_uint_eq(hib_found_count(NULL), 0);
	ck_assert_ptr_null(hib_found_get(NULL, 0));
	hib_discover_free(NULL);
}
END_TEST

/* The find list and the machine's facts the same way; a machine with
 * nothing under its root says so, and finds none. */
START_TEST(find_list_through_its_getter)
{
	struct hib_found_list *l;
	struct hib_find_list *fl;
	struct hib_image *img = hib_image_new();
	char dir[] = "/tmp/hibimg-abi-root.XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(hib_discover_root(dir, &l), HIB_OK);
	ck_assert_uint_eq(hib_found_count(l), 0);
	ck_assert_int_eq(hib_found_info(l)->have_resume, 0);
	ck_assert_int_eq(hib_found_info(l)->blkid, 0);
	hib_discover_free(l);
	ck_assert_int_eq(rmdir(dir), 0);
	ck_assert_ptr_null(hib_found_info(NULL));

	ck_assert_int_eq(hib_image_find(img, 0, &fl), HIB_ERR_INVAL);
	ck_assert_ptr_null(fl);
	hib_image_free(img);
	ck_assert_uint_eq(hib_find_count(NULL), 0);
	ck_assert_ptr_null(hib_find_get(NULL, 0));
	ck_assert_uint_eq(hib_find_more(NULL), 0);
	hib_find_free(NULL);
}
END_TEST

static Suite *abi_suite(void)
{
	Suite *s = suite_create("abi");
	TCase *tc;

	tc = tcase_create("helper");
	tcase_add_test(tc, older_caller_result_filled_up_to_its_size);
	tcase_add_test(tc, older_caller_options_default_past_its_size);
	tcase_add_test(tc, helper_refuses_sizes_it_does_not_take);
	tcase_add_test(tc, build_opts_layout_grown_behind_the_old_padding);
	suite_add_tcase(s, tc);

	tc = tcase_create("public");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, result_written_only_up_to_its_size, 0, (int)nfixtures);
	tcase_add_loop_test(tc, page_written_only_up_to_its_size, 0, (int)nfixtures);
	tcase_add_loop_test(tc, options_read_only_up_to_their_size, 0, (int)nfixtures);
	tcase_add_loop_test(tc, size_zero_or_too_large_refused_everywhere, 0, E_COUNT);
	tcase_add_test(tc, discover_list_through_its_getter);
	tcase_add_test(tc, find_list_through_its_getter);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (fixtures_setup(fixtures, &nfixtures, NULL, NULL) < 0)
		return EXIT_FAILURE;
	return check_run(abi_suite());
}
