/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_recompress - the writer (lib/recompress.c, with emit.c and
 * outfile.c): rewrites of every fixture keep the content and touch only the
 * slots they may.
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <libdeflate.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fixtures[FIXTURES_MAX][64];
static size_t nfixtures;

/* ---- the writer ------------------------------------------------------------ */

/* FNV-1a over (pfn, content) of every saved page in PFN order; a zero-flagged
 * page counts as a page of zeros, so storing or omitting zero pages keeps it. */
static uint64_t content_digest(const char *path, uint64_t off, uint64_t *npages)
{
	static const unsigned char zero[65536];
	struct hib_image *img = hib_image_new();
	struct hib_reader *rd;
	struct hib_page pg = HIB_INIT(struct hib_page);
	uint64_t h = 1469598103934665603ull;
	unsigned int ps;
	int rc;

	ck_assert_int_eq(open_at(img, path, off), HIB_OK);
	rc = hib_image_load(img);
	ck_assert_msg(rc == HIB_OK, "%s: %s", path, hib_image_error(img));
	ps = hib_image_header(img)->page_size;
	ck_assert_int_eq(hib_reader_new(img, &rd), HIB_OK);
	*npages = 0;
	while ((rc = hib_reader_next(rd, &pg)) == 1) {
		const unsigned char *d = pg.data ? pg.data : zero;

		/* libdeflate directly, not through the library under test */
		h = (h ^ pg.pfn) * 1099511628211ull;
		h = (h ^ libdeflate_crc32(0, d, ps)) * 1099511628211ull;
		h = (h ^ libdeflate_adler32(1, d, ps)) * 1099511628211ull;
		(*npages)++;
	}
	ck_assert_msg(rc == 0, "%s: %s", path, hib_image_error(img));
	hib_reader_free(rd);
	hib_image_free(img);
	return h;
}

static uint8_t *image_slots(const char *path, uint64_t off, uint64_t *devpages)
{
	struct hib_image *img = hib_image_new();
	const struct hib_info *in;
	uint64_t i, dev;
	uint8_t *bits;

	ck_assert_int_eq(open_at(img, path, off), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	in = hib_image_info(img);
	*devpages = hib_image_header(img)->device_size / hib_image_header(img)->page_size;
	bits = calloc(*devpages / 8 + 1, 1);
	for (i = 0; i < in->map_pages; i++) {
		ck_assert_int_eq(hib_image_map_page(img, i, &dev), HIB_OK);
		bits[dev / 8] |= (uint8_t)(1u << (dev % 8));
	}
	for (i = 0; i < in->map_entries; i++) {
		ck_assert_int_eq(hib_image_map_entry(img, i, &dev), HIB_OK);
		bits[dev / 8] |= (uint8_t)(1u << (dev % 8));
	}
	bits[off / 8] |= (uint8_t)(1u << (off % 8));   /* the resume page changes by design */
	hib_image_free(img);
	return bits;
}

/* Every fixture in the fast modes; the slow ones (LZO1X-999, and storing
 * zero pages, which needs harder levels to fit) on the one fixture each
 * that the resume tests rewrite the same way. */
static const struct {
	enum hib_compression to;
	int level;
	enum hib_zero_mode zero;
	int unsafe;
	const char *only;
} modes[] = {
	{ HIB_COMP_LZ4, HIB_LEVEL_AUTO, HIB_ZERO_KEEP, 0, NULL },
	{ HIB_COMP_LZO, HIB_LEVEL_AUTO, HIB_ZERO_KEEP, 0, NULL },
	{ HIB_COMP_LZ4, HIB_LEVEL_AUTO, HIB_ZERO_OMIT, 0, NULL },
	{ HIB_COMP_NONE, HIB_LEVEL_AUTO, HIB_ZERO_KEEP, 1, NULL },
	{ HIB_COMP_LZO, 999, HIB_ZERO_KEEP, 0, "k61-lzo" },
	{ HIB_COMP_LZO, HIB_LEVEL_AUTO, HIB_ZERO_STORE, 0, "k612-lzo" },
};
#define NMODES (sizeof(modes) / sizeof(modes[0]))

static struct { size_t fixture, mode; } cases[32 * NMODES];
static size_t ncases;

static void plan_cases(void)
{
	size_t f, m;

	for (m = 0; m < NMODES; m++)
		for (f = 0; f < nfixtures; f++)
			if (!modes[m].only || !strcmp(modes[m].only, fixtures[f])) {
				cases[ncases].fixture = f;
				cases[ncases].mode = m;
				ncases++;
			}
}

START_TEST(rewrite_round_trips)
{
	const char *name = fixtures[cases[_i].fixture];
	size_t m = cases[_i].mode;
	uint64_t off = fx_offset(name);
	struct hib_recompress_opts o = HIB_INIT(struct hib_recompress_opts,
						.to = modes[m].to,
						.level = modes[m].level,
						.zero = modes[m].zero,
						.unsafe_extra_slots = modes[m].unsafe);
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	struct hib_image *img;
	char src[512], out[600], cmd[1300];
	uint64_t d_src, d_out, n_src, n_out, devpages, p, changed = 0, changed_data = 0;
	unsigned char *a, *b;
	static const unsigned char zero[65536];
	unsigned int ps = fx_page_size(name);
	uint8_t *slots;
	size_t la, lb;
	int rc;

	fixture_img(src, sizeof(src), name);
	mk_tmpdir();
	snprintf(out, sizeof(out), "%s/out.img", tmpdir);
	snprintf(cmd, sizeof(cmd), "sha256sum < '%s' > '%s/before'", src, tmpdir);
	ck_assert_int_eq(system(cmd), 0);

	img = hib_image_new();
	ck_assert_int_eq(open_at(img, src, off), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	rc = hib_recompress(img, out, &o, &res);
	if (rc == HIB_ERR_INVAL && !o.unsafe_extra_slots && res.slots_extra) {
		/* does not fit even at the hardest level: refused, nothing written */
		ck_assert_int_eq(access(out, F_OK), -1);
		hib_image_free(img);
		rm_tmpdir();
		return;
	}
	if (rc == HIB_ERR_INVAL && o.unsafe_extra_slots && res.slots_extra_data) {
		/* would overwrite slots holding data: refused without
		 * overwrite_swapped_out, nothing written */
		ck_assert_ptr_nonnull(strstr(hib_image_error(img), "--overwrite-swapped-out"));
		ck_assert_int_eq(access(out, F_OK), -1);
		hib_image_free(img);
		rm_tmpdir();
		return;
	}
	ck_assert_msg(rc == HIB_OK, "%s mode %zu: %s", name, m, hib_image_error(img));
	ck_assert_uint_eq(res.slots_extra_zero + res.slots_extra_data, res.slots_extra);
	hib_image_free(img);

	/* same PFN -> content map */
	d_src = content_digest(src, off, &n_src);
	d_out = content_digest(out, off, &n_out);
	ck_assert_uint_eq(n_src, n_out);
	ck_assert_msg(d_src == d_out, "%s mode %zu: content differs", name, m);

	/* every slot outside the source image, byte for byte */
	slots = image_slots(src, off, &devpages);
	a = (unsigned char *)slurp(src, &la);
	b = (unsigned char *)slurp(out, &lb);
	ck_assert_uint_eq(la, lb);
	for (p = 0; p < devpages; p++)
		if (!(slots[p / 8] & (1u << (p % 8))) &&
		    memcmp(a + p * ps, b + p * ps, ps)) {
			ck_assert_msg(o.unsafe_extra_slots,
				      "%s mode %zu: page %llu outside the image changed",
				      name, m, (unsigned long long)p);
			changed++;
			changed_data += memcmp(a + p * ps, zero, ps) != 0;
		}
	/* only extra slots change, and only as many that held data as it says */
	ck_assert_uint_le(changed, res.slots_extra);
	ck_assert_msg(changed_data <= res.slots_extra_data,
		      "%s mode %zu: %llu pages outside the image that held data changed, %llu reported",
		      name, m, (unsigned long long)changed_data,
		      (unsigned long long)res.slots_extra_data);
	/* the swap header in the resume page is kept */
	ck_assert(!memcmp(a + off * ps, b + off * ps, ps - 40));
	free(a);
	free(b);
	free(slots);

	snprintf(cmd, sizeof(cmd), "sha256sum < '%s' | cmp -s - '%s/before'", src, tmpdir);
	ck_assert_msg(system(cmd) == 0, "%s: input changed", name);
	rm_tmpdir();
}
END_TEST

/*
 * unsafe_extra_slots takes the slots outside the image that read as zero
 * first. A copy of a fixture whose --to none rewrite needs extra slots, with
 * every all-zero page outside the image (but the top `keep` of them) filled
 * the way a used swap area would be: the rewrite is refused unless
 * overwrite_swapped_out says so, and then it takes the kept zero pages (the
 * highest of the area) before any page holding data.
 */
static const uint64_t keep_zero[] = { 0, 100 };

START_TEST(unsafe_takes_zero_slots_first)
{
	struct hib_recompress_opts o = HIB_INIT(struct hib_recompress_opts,
						.to = HIB_COMP_NONE,
						.level = HIB_LEVEL_AUTO,
						.unsafe_extra_slots = 1, .dry_run = 1);
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	struct hib_image *img;
	static const unsigned char zero[4096];
	unsigned char fill[4096];
	char src[512], path[600], out[600];
	uint64_t devpages, last = 0, p, nfill = 0, kept = 0;
	uint64_t got_zero = 0, got_data = 0, keep = keep_zero[_i];
	uint8_t *slots = NULL, *oslots;
	unsigned char *a = NULL, *b;
	size_t f, la, lb;
	FILE *fp;

	/* a fixture (resume page 0) whose rewrite needs slots outside it */
	for (f = 0; f < nfixtures; f++) {
		/* the fill below is in 4 KiB pages */
		if (fx_offset(fixtures[f]) || fx_page_size(fixtures[f]) != 4096)
			continue;
		fixture_img(src, sizeof(src), fixtures[f]);
		img = hib_image_new();
		ck_assert_int_eq(hib_image_open(img, src), HIB_OK);
		ck_assert_int_eq(hib_image_load(img), HIB_OK);
		ck_assert_int_eq(hib_recompress(img, NULL, &o, &res), HIB_OK);
		last = hib_image_header(img)->last_page;
		hib_image_free(img);
		if (res.slots_extra > keep)
			break;
	}
	ck_assert_msg(f < nfixtures, "no fixture needs extra slots for --to none");

	mk_tmpdir();
	snprintf(path, sizeof(path), "%s/filled.img", tmpdir);
	snprintf(out, sizeof(out), "%s/out.img", tmpdir);
	slots = image_slots(src, 0, &devpages);
	a = (unsigned char *)slurp(src, &la);
	ck_assert_uint_eq(la, devpages * 4096);
	memset(fill, 0xa5, sizeof(fill));
	for (p = 1; p < devpages && (!last || p <= last); p++)
		if (!(slots[p / 8] & (1u << (p % 8))) && !memcmp(a + p * 4096, zero, 4096))
			nfill++;
	ck_assert_uint_gt(nfill, keep);
	for (p = 1; p < devpages && (!last || p <= last); p++)
		if (!(slots[p / 8] & (1u << (p % 8))) && !memcmp(a + p * 4096, zero, 4096)) {
			if (nfill-- > keep)
				memcpy(a + p * 4096, fill, 4096);
			else
				kept++;
		}
	ck_assert_uint_eq(kept, keep);
	fp = fopen(path, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(a, 1, la, fp), la);
	ck_assert_int_eq(fclose(fp), 0);

	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	/* dry run and real run refuse alike */
	ck_assert_int_eq(hib_recompress(img, NULL, &o, &res), HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "--overwrite-swapped-out"));
	ck_assert_uint_eq(res.slots_extra_zero, keep);
	ck_assert_uint_eq(res.slots_extra_data, res.slots_extra - keep);
	o.dry_run = 0;
	ck_assert_int_eq(hib_recompress(img, out, &o, &res), HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "--overwrite-swapped-out"));
	ck_assert_int_eq(access(out, F_OK), -1);
	o.overwrite_swapped_out = 1;
	ck_assert_msg(hib_recompress(img, out, &o, &res) == HIB_OK, "%s", hib_image_error(img));
	hib_image_free(img);
	ck_assert_uint_eq(res.slots_extra_zero, keep);
	ck_assert_uint_eq(res.slots_extra_data, res.slots_extra - keep);

	/* what the new image's map takes outside the old one, from the bytes */
	oslots = image_slots(out, 0, &devpages);
	b = (unsigned char *)slurp(out, &lb);
	ck_assert_uint_eq(la, lb);
	for (p = 1; p < devpages; p++) {
		if ((slots[p / 8] & (1u << (p % 8))) || !(oslots[p / 8] & (1u << (p % 8))))
			continue;
		if (!memcmp(a + p * 4096, zero, 4096))
			got_zero++;
		else
			got_data++;
	}
	ck_assert_uint_eq(got_zero, keep);
	ck_assert_uint_eq(got_zero + got_data, res.slots_extra);
	ck_assert_uint_eq(got_data, res.slots_extra_data);
	free(a);
	free(b);
	free(slots);
	free(oslots);
	rm_tmpdir();
}
END_TEST

START_TEST(refuses_to_overwrite_input)
{
	struct hib_recompress_opts o = HIB_INIT(struct hib_recompress_opts,
						.to = HIB_COMP_LZ4,
						.level = HIB_LEVEL_AUTO);
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	struct hib_image *img;
	char src[512], path[600], abs_src[PATH_MAX];

	fixture_img(src, sizeof(src), fixtures[0]);
	mk_tmpdir();
	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, src), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ck_assert_int_eq(hib_recompress(img, src, &o, &res), HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "input itself"));
	snprintf(path, sizeof(path), "%s/link", tmpdir);
	ck_assert_ptr_nonnull(realpath(src, abs_src));
	ck_assert_int_eq(symlink(abs_src, path), 0);
	ck_assert_int_eq(hib_recompress(img, path, &o, &res), HIB_ERR_INVAL);
	/* a hard link next to the input: same file system by construction */
	snprintf(path, sizeof(path), "%s.hardlink-%d", src, (int)getpid());
	ck_assert_int_eq(link(src, path), 0);
	ck_assert_int_eq(hib_recompress(img, path, &o, &res), HIB_ERR_INVAL);
	unlink(path);
	hib_image_free(img);
	rm_tmpdir();
}
END_TEST

static Suite *recompress_suite(void)
{
	Suite *s = suite_create("recompress");
	TCase *tc;

	tc = tcase_create("writer");
	tcase_set_timeout(tc, 300);
	plan_cases();
	tcase_add_loop_test(tc, rewrite_round_trips, 0, (int)ncases);
	tcase_add_loop_test(tc, unsafe_takes_zero_slots_first, 0,
			    (int)(sizeof(keep_zero) / sizeof(keep_zero[0])));
	tcase_add_test(tc, refuses_to_overwrite_input);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (fixtures_setup(fixtures, &nfixtures, NULL, NULL) < 0)
		return EXIT_FAILURE;
	return check_run(recompress_suite());
}
