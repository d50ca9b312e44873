/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_uswsusp - lib/uswsusp.c: suspend-utils containers built here from
 * the format as suspend-utils defines it.
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <stdlib.h>
#include <string.h>

/* ---- uswsusp (suspend-utils) containers, hand-built ----------------------- */

/*
 * The smallest image suspend-utils' layout allows, built here from the
 * format as its swsusp.h and suspend.c define it (x86_64): the resume page;
 * the header page (page 1); one extents page (page 2) with extents
 * [3, 5) and [6, 7) in pages; the stream swsusp_info, one PFN-list page and
 * one data page on pages 3, 4 and 6; page 5 holds other data.
 */
#define USW_PAGES 8
#define USW_PFN   0x1234u

static void usw_build(unsigned char *dev)
{
	const unsigned int ps = 4096;
	unsigned char *info = dev + 3 * ps, *hdr = dev + 1 * ps, *ext = dev + 2 * ps;
	double wt = 3.5;
	uint64_t bits;

	memset(dev, 0, USW_PAGES * ps);
	mkswap_page(dev, ps);
	put_le(dev + 1028, USW_PAGES - 1, 4);             /* last_page */
	memcpy(dev + ps - 20, "SWAPSPACE2", 10);          /* orig_sig */
	memcpy(dev + ps - 10, "ULSUSPEND\0", 10);
	put_le(dev + ps - 28, 1 * ps, 8);                 /* loff_t image */

	put_le(hdr + 0, 3, 8);                            /* pages */
	put_le(hdr + 8, 0x10, 4);                         /* PLATFORM_SUSPEND */
	put_le(hdr + 16, 2 * ps, 8);                      /* map_start */
	put_le(hdr + 24, 3 * ps, 8);                      /* image_data_size */
	memcpy(&bits, &wt, 8);
	put_le(hdr + 48, bits, 8);                        /* writeout_time */
	put_le(hdr + 56, 7, 4);                           /* resume_pause */

	put_le(ext + 0, 3 * ps, 8);
	put_le(ext + 8, 5 * ps, 8);
	put_le(ext + 16, 6 * ps, 8);
	put_le(ext + 24, 7 * ps, 8);

	/* swsusp_info without an arch record: utsname and version code */
	memcpy(info, "Linux", 5);
	memcpy(info + 130, "6.12.0-usw", 10);
	memcpy(info + 195, "#1 SMP", 6);
	memcpy(info + 260, "x86_64", 6);
	put_le(info + 392, 0x060c00, 4);
	put_le(info + 400, 0x8000, 8);                    /* num_physpages */
	put_le(info + 408, 1, 4);                         /* cpus */
	put_le(info + 416, 1, 8);                         /* image_pages */
	put_le(info + 424, 3, 8);                         /* pages */
	put_le(info + 432, 3 * ps, 8);                    /* size */
	put_le(dev + 4 * ps, USW_PFN, 8);                 /* the PFN list */
	put_le(dev + 4 * ps + 8, ~0ull, 8);
	memset(dev + 5 * ps, 0xee, ps);                   /* not the image's */
	memset(dev + 6 * ps, 0x5a, ps);                   /* the saved page */
}

START_TEST(usw_minimal_image)
{
	static unsigned char dev[USW_PAGES * 4096];
	const struct hib_uswsusp *u;
	const struct hib_info *in;
	struct hib_image *img;
	struct hib_reader *rd;
	struct hib_page pg = HIB_INIT(struct hib_page);
	unsigned char want[4096];
	uint64_t off, first, n, ext;
	struct hib_map_page mp = HIB_INIT(struct hib_map_page);
	struct hib_slot_usage su = HIB_INIT(struct hib_slot_usage);
	struct hib_progress p = HIB_INIT(struct hib_progress);

	mk_tmpdir();
	usw_build(dev);
	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, write_file("usw", dev, sizeof(dev))), HIB_OK);
	ck_assert_int_eq(hib_image_header(img)->kind, HIB_KIND_USWSUSP);
	ck_assert_uint_eq(hib_image_container_flags(img), HIB_CT_OWN_HEADER | HIB_CT_EXTENTS);
	ck_assert_int_eq(hib_image_content(img), HIB_CONTENT_UNREAD);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ck_assert_int_eq(hib_image_content(img), HIB_CONTENT_READABLE);
	u = hib_image_uswsusp(img);
	ck_assert_ptr_nonnull(u);
	ck_assert_uint_eq(u->header_offset, 4096);
	ck_assert_uint_eq(u->pages, 3);
	ck_assert_uint_eq(u->flags, HIB_USW_PLATFORM);
	ck_assert_uint_eq(u->map_start, 2 * 4096);
	ck_assert_uint_eq(u->data_pages, 3);
	ck_assert_uint_eq(u->extents, 2);
	ck_assert_uint_eq(u->extent_pages, 1);
	ck_assert_int_eq(u->layout, HIB_USW_LAYOUT_PLAIN);
	ck_assert(u->have_writeout_time && u->writeout_time == 3.5);
	ck_assert_int_eq(u->resume_pause, 7);
	in = hib_image_info(img);
	ck_assert_int_eq(in->arch, HIB_ARCH_GENERIC);
	ck_assert_str_eq(in->release, "6.12.0-usw");
	ck_assert_uint_eq(in->image_pages, 1);
	ck_assert_int_eq(hib_image_usw_extents_page(img, 0, &off, &first, &n, &ext), HIB_OK);
	ck_assert_uint_eq(off, 2 * 4096);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(ext, 2);
	/* the same page through the walk both containers serve */
	ck_assert_int_eq(hib_image_map_page_info(img, 0, &mp), HIB_OK);
	ck_assert_uint_eq(mp.devpage, 2);
	ck_assert_uint_eq(mp.first_entry, 0);
	ck_assert_uint_eq(mp.entries, 3);
	ck_assert_uint_eq(mp.extents, 2);
	ck_assert_int_eq(hib_image_map_page_info(img, 1, &mp), HIB_ERR_INVAL);

	/* slots 0-2 (resume, header, extents), 3, 4 and 6 (data) are the
	 * image's; 5 holds other data, 7 nothing */
	ck_assert_int_eq(hib_image_slot_usage(img, &su), HIB_OK);
	ck_assert_uint_eq(su.area_pages, USW_PAGES);
	ck_assert_uint_eq(su.image_slots, 6);
	ck_assert_uint_eq(su.foreign_data, 1);
	ck_assert_uint_eq(su.first_foreign, 5);

	/* the one saved page, from the second extent */
	memset(want, 0x5a, sizeof(want));
	ck_assert_int_eq(hib_reader_new(img, &rd), HIB_OK);
	ck_assert_int_eq(hib_reader_next(rd, &pg), 1);
	ck_assert_uint_eq(pg.pfn, USW_PFN);
	ck_assert_int_eq(pg.kind, HIB_PAGE_DATA);
	ck_assert(!memcmp(pg.data, want, 4096));
	ck_assert_int_eq(hib_reader_next(rd, &pg), 0);
	/* its data pages from entry 0, swsusp_info's once */
	hib_reader_progress(rd, &p);
	ck_assert_uint_eq(p.disk_bytes_read, 3 * 4096);
	hib_reader_free(rd);
	hib_image_free(img);
	rm_tmpdir();
}
END_TEST

/* One number changed in the minimal image, and what must come of it. */
static const struct usw_case {
	const char *name;
	unsigned int at;            /* byte offset in the device */
	uint64_t value;
	int width;
	int rc;
	const char *says;
	unsigned int at2;           /* a second number, if not 0 */
	uint64_t value2;
} usw_cases[] = {
	{ "image-zero",      4096 - 28, 0, 8, HIB_ERR_DAMAGED, "header offset 0x0 is zero", 0, 0 },
	{ "image-unaligned", 4096 - 28, 4097, 8, HIB_ERR_DAMAGED, "not page-aligned", 0, 0 },
	{ "image-far",       4096 - 28, 1ull << 40, 8, HIB_ERR_DAMAGED, "beyond the end", 0, 0 },
	{ "pages-absurd",    4096 + 0, 1ull << 62, 8, HIB_ERR_DAMAGED, "pages 4611686018427387904", 0, 0 },
	{ "pages-one",       4096 + 0, 1, 8, HIB_ERR_DAMAGED, "pages 1", 0, 0 },
	{ "flags-unknown",   4096 + 8, 0x90, 4, HIB_ERR_UNSUPPORTED, "unknown flag bits 0x80", 0, 0 },
	{ "size-ragged",     4096 + 24, 3 * 4096 + 1, 8, HIB_ERR_DAMAGED, "image_data_size 12289", 0, 0 },
	{ "size-huge",       4096 + 24, 1ull << 50, 8, HIB_ERR_DAMAGED, "image_data_size", 0, 0 },
	{ "map-on-resume",   4096 + 16, 0, 8, HIB_ERR_DAMAGED, "map_start 0x0 is zero", 0, 0 },
	{ "map-on-header",   4096 + 16, 4096, 8, HIB_ERR_DAMAGED, "already used", 0, 0 },
	{ "extent-empty",    2 * 4096 + 8, 3 * 4096, 8, HIB_ERR_DAMAGED, "extent 0: [0x3000, 0x3000) is empty", 0, 0 },
	{ "extent-header",   2 * 4096 + 0, 1 * 4096, 8, HIB_ERR_DAMAGED, "device offset 0x1000 is used twice", 0, 0 },
	{ "extent-itself",   2 * 4096 + 16, 2 * 4096, 8, HIB_ERR_DAMAGED, "device offset 0x2000 is used twice", 0, 0 },
	{ "extent-far",      2 * 4096 + 16, 1ull << 40, 8, HIB_ERR_DAMAGED, "beyond the end of the device",
	  2 * 4096 + 24, (1ull << 40) + 4096 },
	/* loff_t is signed; as unsigned numbers these lie far past the end */
	{ "extent-negative", 2 * 4096 + 16, -8192ull, 8, HIB_ERR_DAMAGED,
	  "extent 1: [0xffffffffffffe000, 0xfffffffffffff000) is beyond the end",
	  2 * 4096 + 24, -4096ull },
	/* an empty extent after the first ends the page's list */
	{ "extent-reversed", 2 * 4096 + 16, 9 * 4096, 8, HIB_ERR_DAMAGED, "chain ends after 2", 0, 0 },
	/* extent 1 gone: the chain must go on, but it ends, or loops */
	{ "chain-ends",      2 * 4096 + 24, 6 * 4096, 8, HIB_ERR_DAMAGED, "chain ends after 2 data pages", 0, 0 },
	{ "chain-loops",     2 * 4096 + 24, 0, 8, HIB_ERR_DAMAGED, "already used by the image", 0, 0 },
	{ "info-pages",      3 * 4096 + 424, 4, 8, HIB_ERR_DAMAGED, "pages 3, but swsusp_info says 4", 0, 0 },
	{ "info-garbled",    3 * 4096 + 432, 5, 8, HIB_ERR_DAMAGED,
	  "swsusp_info (stream page 0, data page 0 at device offset 0x3000)", 0, 0 },
	{ "encrypted",       4096 + 8, 0x14, 4, HIB_ERR_UNSUPPORTED, "without the key", 0, 0 },
};

START_TEST(usw_crafted_numbers)
{
	static unsigned char dev[USW_PAGES * 4096];
	const struct usw_case *c = &usw_cases[_i];
	struct hib_image *img;
	int rc;

	mk_tmpdir();
	usw_build(dev);
	put_le(dev + c->at, c->value, c->width);
	if (c->at2)
		put_le(dev + c->at2, c->value2, 8);
	if (!strcmp(c->name, "chain-loops")) {
		put_le(dev + 2 * 4096 + 16, 0, 8);           /* extent 1 gone */
		put_le(dev + 2 * 4096 + 4080, 2 * 4096, 8);  /* next: itself */
	}
	if (!strcmp(c->name, "info-pages"))
		put_le(dev + 3 * 4096 + 432, 4 * 4096, 8);   /* size to match */
	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, write_file(c->name, dev, sizeof(dev))), HIB_OK);
	rc = hib_image_load(img);
	ck_assert_msg(rc == c->rc, "%s: rc %d, expected %d (%s)", c->name, rc, c->rc,
		      hib_image_error(img));
	ck_assert_msg(strstr(hib_image_error(img), c->says), "%s: \"%s\" lacks \"%s\"",
		      c->name, hib_image_error(img), c->says);
	/* refused at the encrypted data, the header and map stay readable,
	 * and the verdict says why; damage is no verdict on the content */
	if (!strcmp(c->name, "encrypted"))
		ck_assert_ptr_nonnull(hib_image_uswsusp(img));
	ck_assert_int_eq(hib_image_content(img), !strcmp(c->name, "encrypted") ?
			 HIB_CONTENT_ENCRYPTED : HIB_CONTENT_UNREAD);
	hib_image_free(img);
	rm_tmpdir();
}
END_TEST

/* The stored MD5 as the container tells it, or why there is none; before
 * the header is read, nothing to tell. */
START_TEST(usw_checksum)
{
	static unsigned char dev[USW_PAGES * 4096];
	static const unsigned char md5[16] = "0123456789abcdef";
	struct hib_checksum c = HIB_INIT(struct hib_checksum);
	struct hib_image *img;
	int with;

	mk_tmpdir();
	for (with = 0; with <= 1; with++) {
		usw_build(dev);
		if (with) {
			put_le(dev + 4096 + 8, 0x10 | HIB_USW_CHECKSUM, 4);
			memcpy(dev + 4096 + 32, md5, 16);  /* checksum[16] */
		}
		img = hib_image_new();
		ck_assert_int_eq(hib_image_open(img, write_file("usw", dev, sizeof(dev))), HIB_OK);
		ck_assert_int_eq(hib_image_checksum(img, &c), HIB_ERR_INVAL);
		ck_assert_int_eq(hib_image_load(img), HIB_OK);
		ck_assert_int_eq(hib_image_checksum(img, &c), HIB_OK);
		if (with) {
			ck_assert_int_eq(c.kind, HIB_CHECKSUM_MD5);
			ck_assert_mem_eq(c.md5, md5, 16);
		} else {
			ck_assert_int_eq(c.kind, HIB_CHECKSUM_NONE);
			ck_assert_ptr_nonnull(strstr(c.none_why, "s2disk"));
		}
		hib_image_free(img);
	}
}
END_TEST

START_TEST(usw_header_layouts)
{
	static unsigned char dev[USW_PAGES * 4096];
	const struct hib_uswsusp *u;
	struct hib_image *img;
	static const struct { int encrypt_build, zero; enum hib_usw_layout want; } c[] = {
		{ 0, 0, HIB_USW_LAYOUT_PLAIN },
		{ 1, 0, HIB_USW_LAYOUT_ENCRYPT },
		{ 0, 1, HIB_USW_LAYOUT_UNKNOWN },
	};
	size_t i;
	double wt = 9.25;
	uint64_t bits;

	memcpy(&bits, &wt, 8);
	mk_tmpdir();
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		usw_build(dev);
		memset(dev + 4096 + 48, 0, 16);
		if (c[i].encrypt_build && !c[i].zero) {
			/* after salt[8], RSA_data (3104) and encrypted_key (514) */
			put_le(dev + 4096 + 3680, bits, 8);
			put_le(dev + 4096 + 3688, 2, 4);
		} else if (!c[i].zero) {
			put_le(dev + 4096 + 48, bits, 8);
			put_le(dev + 4096 + 56, 2, 4);
		}
		img = hib_image_new();
		ck_assert_int_eq(hib_image_open(img, write_file("layout", dev, sizeof(dev))), HIB_OK);
		ck_assert_int_eq(hib_image_load(img), HIB_OK);
		u = hib_image_uswsusp(img);
		ck_assert_int_eq(u->layout, c[i].want);
		if (c[i].want != HIB_USW_LAYOUT_UNKNOWN) {
			ck_assert(u->have_writeout_time && u->writeout_time == 9.25);
			ck_assert_int_eq(u->resume_pause, 2);
		} else {
			ck_assert(!u->have_writeout_time);
		}
		hib_image_free(img);
	}
	rm_tmpdir();
}
END_TEST

static Suite *uswsusp_suite(void)
{
	Suite *s = suite_create("uswsusp");
	TCase *tc;

	tc = tcase_create("uswsusp");
	tcase_add_test(tc, usw_minimal_image);
	tcase_add_loop_test(tc, usw_crafted_numbers, 0,
			    (int)(sizeof(usw_cases) / sizeof(usw_cases[0])));
	tcase_add_test(tc, usw_header_layouts);
	tcase_add_test(tc, usw_checksum);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(uswsusp_suite());
}
