/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of libhibimg. Numbers come from the kernel (fixture sidecars and
 * logs, written by real kernels) or from computations made here independently
 * of the library (a bitwise CRC, hand-built resume pages).
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <hibimg.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fixtures[32][64];
static size_t nfixtures;
static char spent[8][64];       /* areas a resume attempt already spent */
static size_t nspent;

/* Sidecar resume_offset= (swap files): where the resume page is. */
static uint64_t fx_offset(const char *name)
{
	struct sidecar sc;
	char path[512];

	fixture_src(path, sizeof(path), name, "expect");
	if (sidecar_load(path, &sc) || !sidecar_has(&sc, "resume_offset"))
		return 0;
	return strtoull(sidecar_get(&sc, "resume_offset"), NULL, 10);
}

static int open_at(struct hib_image *img, const char *path, uint64_t off)
{
	if (off)
		ck_assert_int_eq(hib_image_set_resume_offset(img, off), HIB_OK);
	return hib_image_open(img, path);
}

/* ---- CRC ------------------------------------------------------------------ */

/* The kernel's crc32_le, one bit at a time, as in lib/crc32.c's reference
 * variant: reflected, polynomial 0xEDB88320, no inversion. */
static uint32_t ref_crc32_le(uint32_t crc, const unsigned char *p, size_t len)
{
	while (len--) {
		int k;

		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return crc;
}

START_TEST(crc_check_value)
{
	/* The published CRC-32 check value for "123456789" is 0xCBF43926;
	 * standard CRC-32 is ~crc32_le(~0, ...). */
	ck_assert_uint_eq(~hib_crc32_le(~0u, "123456789", 9), 0xCBF43926u);
	ck_assert_uint_eq(~ref_crc32_le(~0u, (const unsigned char *)"123456789", 9),
			  0xCBF43926u);
}
END_TEST

START_TEST(crc_matches_reference)
{
	unsigned char buf[70000];
	size_t i, lens[] = { 0, 1, 3, 4095, 4096, 4097, 65536, 69999 };
	uint32_t a, b;

	srand(42);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rand();
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		/* odd start: unaligned input */
		ck_assert_uint_eq(hib_crc32_le(0, buf + 1, lens[i]),
				  ref_crc32_le(0, buf + 1, lens[i]));
		ck_assert_uint_eq(hib_crc32_le(0x12345678u, buf, lens[i]),
				  ref_crc32_le(0x12345678u, buf, lens[i]));
	}
	/* chaining equals one pass, as the kernel chains chunk by chunk */
	a = hib_crc32_le(hib_crc32_le(0, buf, 1000), buf + 1000, 5000);
	b = ref_crc32_le(0, buf, 6000);
	ck_assert_uint_eq(a, b);
}
END_TEST

START_TEST(crc_combine_matches_serial)
{
	unsigned char buf[300000];
	size_t cuts[] = { 0, 1, 4096, 131072, 131073, 200000, 300000 };
	size_t i;

	srand(7);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rand();
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		size_t c = cuts[i];
		uint32_t a = ref_crc32_le(0x1234u, buf, c);
		uint32_t b = ref_crc32_le(0, buf + c, sizeof(buf) - c);

		ck_assert_uint_eq(hib_crc32_le_combine(a, b, sizeof(buf) - c),
				  ref_crc32_le(0x1234u, buf, sizeof(buf)));
	}
}
END_TEST

/* ---- resume page probing on hand-built pages ------------------------------ */

static char tmpdir[256];

static void mk_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/hibimg-check-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static const char *write_file(const char *name, const void *buf, size_t len)
{
	static char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	return path;
}

/* A swap header page as mkswap writes it (union swap_header). */
static void mkswap_page(unsigned char *pg, unsigned int ps)
{
	memset(pg, 0, ps);
	put_le(pg + 1024, 1, 4);            /* version */
	put_le(pg + 1028, 16383, 4);        /* last_page */
	memcpy(pg + 1036, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10", 16);
	memcpy(pg + 1052, "myswap", 6);
	memcpy(pg + ps - 10, "SWAPSPACE2", 10);
}

static enum hib_kind probe(const char *path, struct hib_header *out, int *load_rc)
{
	struct hib_image *img = hib_image_new();
	enum hib_kind k;

	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	*out = *hib_image_header(img);
	k = out->kind;
	*load_rc = hib_image_load(img);
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

	mkswap_page(pg, 4096);
	ck_assert_int_eq(probe(write_file("swap", pg, 8192), &h, &lrc), HIB_KIND_SWAP);
	ck_assert_int_eq(lrc, HIB_ERR_UNSUPPORTED);
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
	ck_assert_uint_eq(h.image, 1234);
	ck_assert_uint_eq(h.flags, 4);

	memcpy(pg + 4096 - 10, "ULSUSPEND\0", 10);
	ck_assert_int_eq(probe(write_file("ul", pg, 8192), &h, &lrc), HIB_KIND_USWSUSP);
	memcpy(pg + 4096 - 10, "S2SUSPEND\0", 10);
	ck_assert_int_eq(probe(write_file("s2", pg, 8192), &h, &lrc), HIB_KIND_S2SUSPEND);
	memcpy(pg + 4096 - 10, "LINHIB0001", 10);
	ck_assert_int_eq(probe(write_file("lh", pg, 8192), &h, &lrc), HIB_KIND_KERNEL_DEV);

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

	put_le(dev + 4096 - 32, 99, 8);              /* first map page off the device */
	ck_assert_int_eq(probe(write_file("far", dev, sizeof(dev)), &h, &lrc), HIB_KIND_KERNEL);
	ck_assert_int_eq(lrc, HIB_ERR_DAMAGED);

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
	struct hib_page pg;
	unsigned char want[4096];
	uint64_t off, first, n, ext;

	mk_tmpdir();
	usw_build(dev);
	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, write_file("usw", dev, sizeof(dev))), HIB_OK);
	ck_assert_int_eq(hib_image_header(img)->kind, HIB_KIND_USWSUSP);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
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

	/* the one saved page, from the second extent */
	memset(want, 0x5a, sizeof(want));
	ck_assert_int_eq(hib_reader_new(img, &rd), HIB_OK);
	ck_assert_int_eq(hib_reader_next(rd, &pg), 1);
	ck_assert_uint_eq(pg.pfn, USW_PFN);
	ck_assert_int_eq(pg.kind, HIB_PAGE_DATA);
	ck_assert(!memcmp(pg.data, want, 4096));
	ck_assert_int_eq(hib_reader_next(rd, &pg), 0);
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
	/* refused at the encrypted data, the header and map stay readable */
	if (!strcmp(c->name, "encrypted"))
		ck_assert_ptr_nonnull(hib_image_uswsusp(img));
	hib_image_free(img);
	rm_tmpdir();
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

/* ---- fixtures written by real kernels ------------------------------------- */

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
START_TEST(sidecar_matches_kernel_log)
{
	static const struct { const char *key, *fmt, *alt; } lines[] = {
		{ "need_to_copy", "Need to copy %s pages", NULL },
		{ "pages_copied", "Image created (%s pages copied", NULL },
		{ "zero_pages", "%s zero pages)", NULL },
		{ "saving_pages", "Compressing and saving image data (%s pages)",
		  "Saving image data pages (%s pages)" },
		{ "wrote_kbytes", "Wrote %s kbytes", NULL },
		{ "size_after_compression_kbytes", "Image size after compression: %s kbytes", NULL },
		{ "kernel_release", "Linux version %s ", NULL },
	};
	const char *name = fixtures[_i];
	struct sidecar sc;
	char path[512], needle[256];
	char *log;
	size_t k;

	fixture_src(path, sizeof(path), name, "expect");
	ck_assert_int_eq(sidecar_load(path, &sc), 0);
	ck_assert_str_eq(sc.name, name);
	fixture_src(path, sizeof(path), name, "log");
	log = slurp(path, NULL);
	ck_assert_msg(log != NULL, "%s missing", path);
	for (k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
		const char *v = sidecar_get(&sc, lines[k].key);
		int found;

		if (!v)
			continue;
		snprintf(needle, sizeof(needle), lines[k].fmt, v);
		found = strstr(log, needle) != NULL;
		if (!found && lines[k].alt) {
			snprintf(needle, sizeof(needle), lines[k].alt, v);
			found = strstr(log, needle) != NULL;
		}
		ck_assert_msg(found, "%s: %s=%s not printed by the kernel in %s.log",
			      name, lines[k].key, v, name);
	}
	/* every fixture must carry the kernel's core numbers */
	ck_assert(sidecar_has(&sc, "need_to_copy"));
	ck_assert(sidecar_has(&sc, "pages_copied"));
	ck_assert(sidecar_has(&sc, "saving_pages"));
	ck_assert(sidecar_has(&sc, "wrote_kbytes"));
	ck_assert(sidecar_has(&sc, "kernel_release"));
	ck_assert(sidecar_has(&sc, "compression"));
	free(log);
}
END_TEST

struct sums {
	uint64_t chunks, cmp;
};

static int sum_chunk(const struct hib_chunk *c, void *arg)
{
	struct sums *s = arg;

	s->chunks++;
	s->cmp += c->cmp_len;
	return 0;
}

START_TEST(reader_matches_kernel)
{
	const char *name = fixtures[_i];
	struct sidecar sc;
	struct hib_image *img;
	struct hib_reader *rd;
	struct hib_page pg;
	struct hib_progress p;
	struct hib_identity id;
	struct sums s = { 0 };
	const struct hib_info *in;
	const struct hib_pfns *pf;
	const struct hib_header *h;
	char path[512];
	uint64_t zero = 0, data = 0, last_pfn = 0, n = 0;
	int rc;

	fixture_src(path, sizeof(path), name, "expect");
	ck_assert_int_eq(sidecar_load(path, &sc), 0);
	fixture_img(path, sizeof(path), name);
	img = hib_image_new();
	ck_assert_int_eq(open_at(img, path, fx_offset(name)), HIB_OK);
	h = hib_image_header(img);
	ck_assert_int_eq(h->kind, HIB_KIND_KERNEL);
	ck_assert_str_eq(h->orig_sig, "SWAPSPACE2");
	/* read from the captured disk by the capture script with od */
	if (sidecar_has(&sc, "header_image"))
		ck_assert_uint_eq(h->image, sidecar_u64(&sc, "header_image"));
	if (sidecar_has(&sc, "header_flags"))
		ck_assert_uint_eq(h->flags, strtoul(sidecar_get(&sc, "header_flags"), NULL, 16));
	rc = hib_image_load(img);
	ck_assert_msg(rc == HIB_OK, "%s: %s", name, hib_image_error(img));
	in = hib_image_info(img);
	ck_assert_str_eq(hib_compression_name(in->compression),
			 sidecar_get(&sc, "compression"));
	ck_assert_int_eq(in->arch, HIB_ARCH_X86_64);

	/* "Image created (N pages copied" == image_pages;
	 * "Saving ... (P pages)" == pages - 1; "Wrote K kbytes" == P * 4 */
	ck_assert_uint_eq(in->image_pages, sidecar_u64(&sc, "pages_copied"));
	ck_assert_uint_eq(in->pages - 1, sidecar_u64(&sc, "saving_pages"));
	ck_assert_uint_eq((in->pages - 1) * h->page_size / 1024,
			  sidecar_u64(&sc, "wrote_kbytes"));

	ck_assert_int_eq(hib_reader_new(img, &rd), HIB_OK);
	hib_reader_set_chunk_cb(rd, sum_chunk, &s);
	while ((rc = hib_reader_next(rd, &pg)) == 1) {
		if (n++)
			ck_assert_uint_gt(pg.pfn, last_pfn);
		last_pfn = pg.pfn;
		if (pg.kind == HIB_PAGE_ZERO_FLAGGED)
			zero++;
		else
			data++;
	}
	ck_assert_msg(rc == 0, "%s: %s", name, hib_image_error(img));
	hib_reader_progress(rd, &p);
	hib_reader_free(rd);
	pf = hib_image_pfns(img);

	/* "Need to copy N pages" counts every saveable page, zero or not */
	ck_assert_uint_eq(pf->entries, sidecar_u64(&sc, "need_to_copy"));
	ck_assert_uint_eq(n, sidecar_u64(&sc, "need_to_copy"));
	ck_assert_uint_eq(data, sidecar_u64(&sc, "pages_copied"));
	if (sidecar_has(&sc, "zero_pages")) {
		ck_assert_uint_eq(pf->zero_flagged, sidecar_u64(&sc, "zero_pages"));
		ck_assert_uint_eq(zero, sidecar_u64(&sc, "zero_pages"));
	} else {
		ck_assert_uint_eq(zero, 0);     /* before 6.6 nothing is flagged */
	}
	if (sidecar_has(&sc, "size_after_compression_kbytes"))
		ck_assert_uint_eq(s.cmp / 1024,
				  sidecar_u64(&sc, "size_after_compression_kbytes"));
	if (in->compression != HIB_COMP_NONE) {
		ck_assert_int_eq(p.crc_checked, 1);
		ck_assert_int_eq(p.crc_ok, 1);
		/* every chunk but the last holds 32 pages */
		ck_assert_uint_eq(s.chunks, (in->pages - 1 + 31) / 32);
	} else {
		ck_assert_uint_eq(s.chunks, in->pages - 1);
	}

	ck_assert_int_eq(hib_image_identify(img, &id), HIB_OK);
	ck_assert_str_eq(id.release, sidecar_get(&sc, "kernel_release"));
	hib_image_free(img);
}
END_TEST


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

/* ---- the writer ------------------------------------------------------------ */

/* FNV-1a over (pfn, content) of every saved page in PFN order; a zero-flagged
 * page counts as a page of zeros, so storing or omitting zero pages keeps it. */
static uint64_t content_digest(const char *path, uint64_t off, uint64_t *npages)
{
	static const unsigned char zero[65536];
	struct hib_image *img = hib_image_new();
	struct hib_reader *rd;
	struct hib_page pg;
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
	struct hib_recompress_opts o = { .to = modes[m].to, .level = modes[m].level,
					 .zero = modes[m].zero,
					 .unsafe_extra_slots = modes[m].unsafe };
	struct hib_recompress_result res;
	struct hib_image *img;
	char src[512], out[600], cmd[1300];
	uint64_t d_src, d_out, n_src, n_out, devpages, p, changed = 0, changed_data = 0;
	unsigned char *a, *b;
	static const unsigned char zero[4096];
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
		    memcmp(a + p * 4096, b + p * 4096, 4096)) {
			ck_assert_msg(o.unsafe_extra_slots,
				      "%s mode %zu: page %llu outside the image changed",
				      name, m, (unsigned long long)p);
			changed++;
			changed_data += memcmp(a + p * 4096, zero, 4096) != 0;
		}
	/* only extra slots change, and only as many that held data as it says */
	ck_assert_uint_le(changed, res.slots_extra);
	ck_assert_msg(changed_data <= res.slots_extra_data,
		      "%s mode %zu: %llu pages outside the image that held data changed, %llu reported",
		      name, m, (unsigned long long)changed_data,
		      (unsigned long long)res.slots_extra_data);
	/* the swap header in the resume page is kept */
	ck_assert(!memcmp(a + off * 4096, b + off * 4096, 4096 - 40));
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
	struct hib_recompress_opts o = { .to = HIB_COMP_NONE, .level = HIB_LEVEL_AUTO,
					 .unsafe_extra_slots = 1, .dry_run = 1 };
	struct hib_recompress_result res;
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
		if (fx_offset(fixtures[f]))
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
	struct hib_recompress_opts o = { .to = HIB_COMP_LZ4, .level = HIB_LEVEL_AUTO };
	struct hib_recompress_result res;
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

/* ---- the parallel engine: results independent of the thread count --------- */

struct run_result {
	uint64_t digest, pages, chunks, done;
	uint32_t crc;
	int rc;
	char err[800];
};

static int count_chunk(const struct hib_chunk *c, void *arg)
{
	(void)c;
	((struct run_result *)arg)->chunks++;
	return 0;
}

static void read_all(const char *path, uint64_t off, unsigned int threads,
		     struct run_result *r)
{
	static const unsigned char zero[4096];
	struct hib_image *img = hib_image_new();
	struct hib_reader *rd;
	struct hib_progress p;
	struct hib_page pg;
	int rc;

	memset(r, 0, sizeof(*r));
	r->digest = 1469598103934665603ull;
	ck_assert_int_eq(open_at(img, path, off), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ck_assert_int_eq(hib_reader_new(img, &rd), HIB_OK);
	ck_assert_int_eq(hib_reader_set_threads(rd, threads), HIB_OK);
	hib_reader_set_chunk_cb(rd, count_chunk, r);
	while ((rc = hib_reader_next(rd, &pg)) == 1) {
		r->digest = (r->digest ^ pg.pfn) * 1099511628211ull;
		r->digest = (r->digest ^ libdeflate_crc32(0, pg.data ? pg.data : zero, 4096)) *
			    1099511628211ull;
		r->pages++;
	}
	r->rc = rc;
	snprintf(r->err, sizeof(r->err), "%s", rc ? hib_image_error(img) : "");
	hib_reader_progress(rd, &p);
	r->crc = p.crc32;
	r->done = p.stream_pages_done;
	hib_reader_free(rd);
	hib_image_free(img);
}

START_TEST(threads_give_same_result)
{
	static const unsigned int counts[] = { 2, 3, 8 };
	struct run_result one, many;
	char path[512];
	size_t k;

	fixture_img(path, sizeof(path), fixtures[_i]);
	read_all(path, fx_offset(fixtures[_i]), 1, &one);
	ck_assert_int_eq(one.rc, 0);
	for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		read_all(path, fx_offset(fixtures[_i]), counts[k], &many);
		ck_assert_int_eq(many.rc, 0);
		ck_assert_uint_eq(many.digest, one.digest);
		ck_assert_uint_eq(many.pages, one.pages);
		ck_assert_uint_eq(many.chunks, one.chunks);
		ck_assert_uint_eq(many.crc, one.crc);
	}
}
END_TEST

/* A chunk that fails in a worker is reported as that chunk, after exactly
 * the pages before it, whatever the thread count. */
START_TEST(threads_report_the_same_error)
{
	struct run_result one, many;
	struct hib_image *img;
	char src[512], path[600], cmd[1300];
	uint64_t dev = 0, e;
	unsigned char junk[2048];
	size_t i;
	FILE *f;

	/* first LZO or LZ4 fixture */
	for (i = 0; i < nfixtures; i++) {
		struct sidecar sc;

		fixture_src(src, sizeof(src), fixtures[i], "expect");
		ck_assert_int_eq(sidecar_load(src, &sc), 0);
		if (strcmp(sidecar_get(&sc, "compression"), "none") &&
		    !sidecar_has(&sc, "resume_offset"))
			break;
	}
	ck_assert_uint_lt(i, nfixtures);
	fixture_img(src, sizeof(src), fixtures[i]);
	mk_tmpdir();
	snprintf(path, sizeof(path), "%s/bad.img", tmpdir);
	snprintf(cmd, sizeof(cmd), "cp --sparse=always '%s' '%s'", src, path);
	ck_assert_int_eq(system(cmd), 0);

	/* garbage over chunk 9's data, its length word kept */
	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	e = 1;
	for (i = 0; i < 9; i++) {     /* walk 9 chunks by their lengths */
		uint64_t len = 0;

		ck_assert_int_eq(hib_image_map_entry(img, e, &dev), HIB_OK);
		f = fopen(path, "rb");
		ck_assert_int_eq(fseek(f, (long)(dev * 4096), SEEK_SET), 0);
		ck_assert_int_eq(fread(&len, 8, 1, f), 1);
		fclose(f);
		e += (8 + len + 4095) / 4096;
	}
	ck_assert_int_eq(hib_image_map_entry(img, e, &dev), HIB_OK);
	hib_image_free(img);
	srand(3);
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)rand();
	f = fopen(path, "r+b");
	ck_assert_int_eq(fseek(f, (long)(dev * 4096 + 8), SEEK_SET), 0);
	ck_assert_int_eq(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	fclose(f);

	read_all(path, 0, 1, &one);
	ck_assert_int_eq(one.rc, HIB_ERR_DAMAGED);
	ck_assert_msg(strstr(one.err, "chunk 9 ") != NULL, "%s", one.err);
	read_all(path, 0, 4, &many);
	ck_assert_int_eq(many.rc, HIB_ERR_DAMAGED);
	ck_assert_str_eq(many.err, one.err);
	ck_assert_uint_eq(many.done, one.done);
	ck_assert_uint_eq(one.done, 9 * 32);
	rm_tmpdir();
}
END_TEST


/* ---- export: the kernel-image aliases with a KASLR (negative) phys_base --- */

static const unsigned char *kaslr_pages;

/* VMCOREINFO texts the export must take: what a Debian 6.12 kernel with
 * KASLR printed, then hostile ones (the page is the image's to choose). */
static const struct {
	const char *text;
	bool fill;           /* no NUL anywhere in the page */
	uint64_t aliases;    /* kernel-image PT_LOADs expected: 0 or "some" */
} vmci_cases[] = {
	{ "OSRELEASE=6.12.117+deb12-amd64\nPAGESIZE=4096\n"
	  "NUMBER(phys_base)=-169869312\nNUMBER(KERNEL_IMAGE_SIZE)=1073741824\n", false, 1 },
	{ "OSRELEASE=6.12.117+deb12-amd64\nNUMBER(phys_base)=-169869312\nNUMBER(phys_", true, 1 },
	{ "OSRELEASE=x\nNUMBER(phys_base)=9223372036854775807\n"
	  "NUMBER(KERNEL_IMAGE_SIZE)=9223372036854775807\n", false, 0 },
	{ "OSRELEASE=x\nNUMBER(phys_base)=-9223372036854775808\n"
	  "NUMBER(KERNEL_IMAGE_SIZE)=-1\n", false, 0 },
};
static int vmci_case;

static int kaslr_page(void *arg, uint64_t i, unsigned char *page)
{
	(void)arg;
	if (i == 7) {
		const char *v = vmci_cases[vmci_case].text;

		memset(page, vmci_cases[vmci_case].fill ? '7' : 0, 4096);
		memcpy(page, v, strlen(v));
	} else {
		memcpy(page, kaslr_pages + (i % 16) * 4096, 4096);
	}
	return 0;
}

START_TEST(export_kaslr_phys_base)
{
	/* _i: the vmci_cases entry; ASan/UBSan (check-sanitize) watch the
	 * hostile ones for reads past the page and signed overflow */
	struct hib_build_opts bo = { .to = HIB_COMP_LZ4, .level = HIB_LEVEL_AUTO, .threads = 1 };
	struct hib_export_opts eo = { .format = HIB_EXPORT_ELF };
	struct hib_recompress_result br;
	struct hib_export_result er;
	static unsigned char pages[16 * 4096];
	uint64_t pfns[64], i, aliases = 0;
	struct hib_image *src, *img;
	struct hib_reader *rd;
	struct hib_page pg;
	char path[512], built[600], elf[600];
	unsigned char *f;
	size_t len, n = 0;
	uint16_t phnum;
	uint64_t phoff;

	/* real pages and the x86_64 restore record of a 6.12 fixture */
	fixture_img(path, sizeof(path), "k612-lzo");
	src = hib_image_new();
	ck_assert_int_eq(hib_image_open(src, path), HIB_OK);
	ck_assert_int_eq(hib_image_load(src), HIB_OK);
	ck_assert_int_eq(hib_reader_new(src, &rd), HIB_OK);
	while (n < 16 && hib_reader_next(rd, &pg) == 1)
		if (pg.data)
			memcpy(pages + 4096 * n++, pg.data, 4096);
	hib_reader_free(rd);
	ck_assert_uint_eq(n, 16);
	bo.info_template = hib_image_info_page(src);
	kaslr_pages = pages;
	vmci_case = _i;
	for (i = 0; i < 64; i++)
		pfns[i] = 0x1000 + i;           /* 16 MiB: inside the window */

	mk_tmpdir();
	snprintf(built, sizeof(built), "%s/kaslr.img", tmpdir);
	snprintf(elf, sizeof(elf), "%s/kaslr.elf", tmpdir);
	img = hib_image_new();
	ck_assert_int_eq(hib_image_build(img, built, &bo, 64, pfns, NULL, kaslr_page, NULL, &br),
			 HIB_OK);
	hib_image_free(img);
	hib_image_free(src);
	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, built), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ck_assert_int_eq(hib_export(img, elf, &eo, &er), HIB_OK);
	ck_assert_int_eq(er.vmcoreinfo, 1);
	hib_image_free(img);

	/* the program headers, parsed here: an alias maps 0x1000000.. at
	 * __START_KERNEL_map + paddr - phys_base */
	f = (unsigned char *)slurp(elf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert(len > 64 && !memcmp(f, "\177ELF", 4));
	memcpy(&phoff, f + 32, 8);
	memcpy(&phnum, f + 56, 2);
	for (i = 0; i < phnum; i++) {
		const unsigned char *ph = f + phoff + i * 56;
		uint32_t type;
		uint64_t vaddr, paddr;

		memcpy(&type, ph, 4);
		memcpy(&vaddr, ph + 16, 8);
		memcpy(&paddr, ph + 24, 8);
		if (type == 1 && vaddr >= 0xffffffff80000000ull) {
			ck_assert_uint_eq(vaddr, 0xffffffff80000000ull + paddr + 169869312ull);
			aliases++;
		}
	}
	if (vmci_cases[_i].aliases)
		ck_assert_uint_ge(aliases, 1);
	else
		ck_assert_uint_eq(aliases, 0);
	free(f);
	rm_tmpdir();
}
END_TEST

static Suite *lib_suite(void)
{
	Suite *s = suite_create("libhibimg");
	TCase *tc;

	tc = tcase_create("crc");
	tcase_add_test(tc, crc_check_value);
	tcase_add_test(tc, crc_matches_reference);
	tcase_add_test(tc, crc_combine_matches_serial);
	suite_add_tcase(s, tc);

	tc = tcase_create("probe");
	tcase_add_test(tc, probe_kinds);
	tcase_add_test(tc, map_bounds_and_cycles);
	suite_add_tcase(s, tc);

	tc = tcase_create("uswsusp");
	tcase_add_test(tc, usw_minimal_image);
	tcase_add_loop_test(tc, usw_crafted_numbers, 0,
			    (int)(sizeof(usw_cases) / sizeof(usw_cases[0])));
	tcase_add_test(tc, usw_header_layouts);
	suite_add_tcase(s, tc);

	tc = tcase_create("fixtures");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, sidecar_matches_kernel_log, 0, (int)nfixtures);
	tcase_add_loop_test(tc, reader_matches_kernel, 0, (int)nfixtures);
	suite_add_tcase(s, tc);

	tc = tcase_create("export");
	tcase_add_loop_test(tc, export_kaslr_phys_base, 0,
			    (int)(sizeof(vmci_cases) / sizeof(vmci_cases[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("spent");
	tcase_add_loop_test(tc, spent_is_reported, 0, (int)nspent);
	suite_add_tcase(s, tc);

	tc = tcase_create("threads");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, threads_give_same_result, 0, (int)nfixtures);
	tcase_add_test(tc, threads_report_the_same_error);
	suite_add_tcase(s, tc);

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
	SRunner *sr;
	int failed;

	nfixtures = fixtures_list(fixtures, 32);
	/* spent areas are not images any more: a test of their own */
	for (size_t i = 0; i < nfixtures;) {
		struct sidecar sc;
		char path[512];

		fixture_src(path, sizeof(path), fixtures[i], "expect");
		if (sidecar_load(path, &sc) == 0 && sidecar_has(&sc, "spent_from")) {
			memcpy(spent[nspent++], fixtures[i], 64);
			memmove(fixtures[i], fixtures[i + 1], (nfixtures - i - 1) * 64);
			nfixtures--;
		} else {
			i++;
		}
	}
	if (nfixtures < 4) {
		fprintf(stderr, "expected at least 4 fixtures, found %zu\n", nfixtures);
		return EXIT_FAILURE;
	}
	sr = srunner_create(lib_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
