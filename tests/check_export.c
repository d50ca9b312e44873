/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_export - lib/export.c (on an image made by lib/build.c): the
 * kernel-image aliases with a KASLR (negative) phys_base, and hostile
 * VMCOREINFO texts; a caller's VMCOREINFO text (hib_export_opts.
 * vmcoreinfo) taken or refused, and the kdump options refused when out of
 * range, each before any output exists.
 */
#include <unistd.h>
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	struct hib_build_opts bo = HIB_INIT(struct hib_build_opts, .to = HIB_COMP_LZ4,
					    .level = HIB_LEVEL_AUTO, .threads = 1);
	struct hib_export_opts eo = HIB_INIT(struct hib_export_opts,
					     .format = HIB_EXPORT_ELF);
	struct hib_recompress_result br = HIB_INIT(struct hib_recompress_result);
	struct hib_export_result er = HIB_INIT(struct hib_export_result);
	static unsigned char pages[16 * 4096];
	uint64_t pfns[64], i, aliases = 0;
	struct hib_image *src, *img;
	struct hib_reader *rd;
	struct hib_page pg = HIB_INIT(struct hib_page);
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

/* ---- a caller's VMCOREINFO text: refused unless the kernel's shape ------- */

static char big[(1u << 20) + 64];

static const struct {
	const char *text;
	size_t len;             /* 0: strlen */
	int rc;
	const char *msg;        /* in the handle's message */
	size_t used;            /* vmcoreinfo_len written, rc OK */
} text_cases[] = {
	{ "OSRELEASE=6.1.0\nPAGESIZE=4096\n", 0, HIB_OK, NULL, 30 },
	/* a page dumped whole: the NULs after the text are not part of it */
	{ "OSRELEASE=6.1.0\nPAGESIZE=4096\n\0\0\0\0", 34, HIB_OK, NULL, 30 },
	{ "OSRELEASE=6.1.0", 0, HIB_OK, NULL, 15 },  /* no final newline */
	{ "", 0, HIB_ERR_INVAL, "empty", 0 },
	{ "\0\0\0", 3, HIB_ERR_INVAL, "empty", 0 },
	{ "ffff8d888ffd6000 1000\n", 0, HIB_ERR_INVAL, "/sys/kernel/vmcoreinfo", 0 },
	{ "PAGESIZE=4096\nOSRELEASE=6.1.0\n", 0, HIB_ERR_INVAL, "starts with OSRELEASE=", 0 },
	{ "OSRELEASE=6.1.0\nno value here\n", 0, HIB_ERR_INVAL, "line 2 is not KEY=value", 0 },
	{ "OSRELEASE=6.1.0\n=4096\n", 0, HIB_ERR_INVAL, "line 2 is not KEY=value", 0 },
	{ "OSRELEASE=6.1.0\n\nPAGESIZE=4096\n", 0, HIB_ERR_INVAL, "line 2 is not KEY=value", 0 },
	{ "OSRELEASE=6.1.0\nPAGE\tSIZE=4096\n", 0, HIB_ERR_INVAL, "line 2: byte 0x09", 0 },
	{ "OSRELEASE=6.1.0\0PAGESIZE=4096\n", 30, HIB_ERR_INVAL, "line 1: byte 0x00", 0 },
	{ big, sizeof(big), HIB_ERR_INVAL, "more than a VMCOREINFO text has", 0 },
};

START_TEST(export_vmcoreinfo_text)
{
	struct hib_export_opts eo = HIB_INIT(struct hib_export_opts, .threads = 1,
					     .format = _i % 2 ? HIB_EXPORT_ELF : HIB_EXPORT_KDUMP);
	struct hib_export_result er = HIB_INIT(struct hib_export_result);
	unsigned int c = (unsigned int)_i / 2;
	struct hib_image *img;
	char path[512], out[600];
	int rc;

	memcpy(big, "OSRELEASE=6.1.0\n", 16);
	memset(big + 16, 'A', sizeof(big) - 16);
	eo.vmcoreinfo = text_cases[c].text;
	eo.vmcoreinfo_len = text_cases[c].len ? text_cases[c].len : strlen(text_cases[c].text);
	fixture_img(path, sizeof(path), "k61-lzo");
	mk_tmpdir();
	snprintf(out, sizeof(out), "%s/out", tmpdir);
	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	rc = hib_export(img, out, &eo, &er);
	ck_assert_int_eq(rc, text_cases[c].rc);
	if (rc == HIB_OK) {
		ck_assert_int_eq(er.vmcoreinfo_source, HIB_VMCI_CALLER);
		ck_assert_uint_eq(er.vmcoreinfo_len, text_cases[c].used);
		/* the image's own page is still found and named */
		ck_assert_int_eq(er.vmcoreinfo_page, 1);
	} else {
		ck_assert_ptr_nonnull(strstr(hib_image_error(img), text_cases[c].msg));
		ck_assert_int_ne(access(out, F_OK), 0);
	}
	hib_image_free(img);
	rm_tmpdir();
}
END_TEST

/* ---- options out of range: refused, nothing written ----------------------- */

START_TEST(export_kdump_refusals)
{
	struct hib_export_opts eo = HIB_INIT(struct hib_export_opts, .threads = 1);
	struct hib_export_result er = HIB_INIT(struct hib_export_result);
	struct hib_image *img;
	char path[512], out[600];

	switch (_i) {
	case 0:     /* raw and LiME have no note */
		eo.format = HIB_EXPORT_RAW;
		eo.vmcoreinfo = "OSRELEASE=6.1.0\n";
		eo.vmcoreinfo_len = 16;
		break;
	case 1:
		eo.format = HIB_EXPORT_KDUMP;
		eo.kdump_codec = (enum hib_kdump_codec)99;
		break;
	default:
		eo.format = HIB_EXPORT_KDUMP;
		eo.kdump_zero = (enum hib_kdump_zero)7;
		break;
	}
	fixture_img(path, sizeof(path), "k61-lzo");
	mk_tmpdir();
	snprintf(out, sizeof(out), "%s/out", tmpdir);
	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ck_assert_int_eq(hib_export(img, out, &eo, &er), HIB_ERR_INVAL);
	ck_assert_int_ne(access(out, F_OK), 0);
	hib_image_free(img);
	rm_tmpdir();
	ck_assert_str_eq(hib_kdump_codec_name(HIB_KDUMP_DEFAULT), "zstd");
	ck_assert_ptr_null(hib_kdump_codec_name((enum hib_kdump_codec)99));
}
END_TEST

static Suite *export_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc;

	tc = tcase_create("export");
	tcase_add_loop_test(tc, export_kaslr_phys_base, 0,
			    (int)(sizeof(vmci_cases) / sizeof(vmci_cases[0])));
	tcase_add_loop_test(tc, export_vmcoreinfo_text, 0,
			    2 * (int)(sizeof(text_cases) / sizeof(text_cases[0])));
	tcase_add_loop_test(tc, export_kdump_refusals, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(export_suite());
}
