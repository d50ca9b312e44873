/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_export - lib/export.c (on an image made by lib/build.c): the
 * kernel-image aliases with a KASLR (negative) phys_base, and hostile
 * VMCOREINFO texts.
 */
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

static Suite *export_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc;

	tc = tcase_create("export");
	tcase_add_loop_test(tc, export_kaslr_phys_base, 0,
			    (int)(sizeof(vmci_cases) / sizeof(vmci_cases[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(export_suite());
}
