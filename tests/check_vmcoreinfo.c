/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_vmcoreinfo - lib/vmcoreinfo.c, the one parser of the VMCOREINFO
 * text that identity.c and export.c share, on pages laid out here the way
 * vmcoreinfo_append_str() writes them ("KEY=value\n", a zeroed page) and on
 * pages no kernel writes: no NUL, a key mid-line, an empty value. The
 * library keeps the parser private, so it is built into this program.
 */
#include "config.h"
#include "testutil.h"
#include "hibimgP.h"

#include <check.h>
#include <string.h>

#define PS 4096u

static unsigned char page[PS];

static void set_text(const char *t)
{
	memset(page, 0, sizeof(page));
	memcpy(page, t, strlen(t));
}

START_TEST(kernel_page)
{
	char buf[128];
	int64_t v;
	uint64_t x;

	set_text("OSRELEASE=6.12.57\nPAGESIZE=4096\n"
		 "SYMBOL(swapper_pg_dir)=ffffffff8f00c000\n"
		 "NUMBER(phys_base)=-1946157056\n"
		 "NUMBER(KERNEL_IMAGE_SIZE)=1073741824\n"
		 "KERNELOFFSET=e000000\n");
	ck_assert(hib_vmci_page(page, PS));
	ck_assert_str_eq(hib_vmci_value(page, PS, "OSRELEASE=", buf, sizeof(buf)), "6.12.57");
	ck_assert(hib_vmci_ld(page, PS, "PAGESIZE=", &v));
	ck_assert_int_eq(v, 4096);
	/* phys_base is a signed long: negative under KASLR */
	ck_assert(hib_vmci_ld(page, PS, "NUMBER(phys_base)=", &v));
	ck_assert_int_eq(v, -1946157056);
	ck_assert(hib_vmci_ld(page, PS, "NUMBER(KERNEL_IMAGE_SIZE)=", &v));
	ck_assert_int_eq(v, 1073741824);
	ck_assert(hib_vmci_lx(page, PS, "SYMBOL(swapper_pg_dir)=", &x));
	ck_assert_uint_eq(x, 0xffffffff8f00c000ull);
	ck_assert(hib_vmci_lx(page, PS, "KERNELOFFSET=", &x));
	ck_assert_uint_eq(x, 0xe000000u);
	ck_assert(!hib_vmci_lx(page, PS, "SYMBOL(init_top_pgt)=", &x));
}
END_TEST

START_TEST(only_whole_keys_at_line_starts)
{
	int64_t v = 7;

	/* the '=' is part of the key, and a key inside a value is no line */
	set_text("OSRELEASE=x\nNUMBER(phys_base_hi)=1\nX NUMBER(phys_base)=2\n"
		 "NOTE=NUMBER(phys_base)=3\n");
	ck_assert(!hib_vmci_ld(page, PS, "NUMBER(phys_base)=", &v));
	ck_assert_int_eq(v, 7);
	set_text("OSRELEASE=x\nNUMBER(phys_base_hi)=1\nNUMBER(phys_base)=2\n");
	ck_assert(hib_vmci_ld(page, PS, "NUMBER(phys_base)=", &v));
	ck_assert_int_eq(v, 2);
}
END_TEST

START_TEST(empty_value_is_passed_over)
{
	int64_t v;

	set_text("OSRELEASE=x\nPAGESIZE=\nPAGESIZE=16384\n");
	ck_assert(hib_vmci_ld(page, PS, "PAGESIZE=", &v));
	ck_assert_int_eq(v, 16384);
	set_text("OSRELEASE=x\nPAGESIZE=\n");
	ck_assert(!hib_vmci_ld(page, PS, "PAGESIZE=", &v));
}
END_TEST

START_TEST(text_ends_at_nul_or_len)
{
	char buf[16];
	uint64_t x;

	/* after the first NUL nothing counts */
	set_text("OSRELEASE=x\n");
	memcpy(page + 20, "KERNELOFFSET=1000\n", 18);
	ck_assert(!hib_vmci_lx(page, PS, "KERNELOFFSET=", &x));
	/* a page with no NUL and no last newline: the value ends at len */
	memset(page, 'a', sizeof(page));
	memcpy(page, "OSRELEASE=x\nKERNELOFFSET=", 25);
	memcpy(page + PS - 4, "\nK=7", 4);
	ck_assert_str_eq(hib_vmci_value(page, PS, "K=", buf, sizeof(buf)), "7");
	ck_assert(!hib_vmci_value(page, PS - 1, "K=", buf, sizeof(buf)));
	/* and is cut to the caller's buffer */
	ck_assert_uint_eq(strlen(hib_vmci_value(page, PS, "KERNELOFFSET=", buf,
						sizeof(buf))), sizeof(buf) - 1);
}
END_TEST

START_TEST(which_page)
{
	set_text("OSRELEASE=6.1.0\n");
	ck_assert(hib_vmci_page(page, PS));
	ck_assert(!hib_vmci_page(page, 9));
	set_text("OSRELEASE 6.1.0\n");
	ck_assert(!hib_vmci_page(page, PS));
	set_text("xOSRELEASE=6.1.0\n");
	ck_assert(!hib_vmci_page(page, PS));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmcoreinfo");
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, kernel_page);
	tcase_add_test(tc, only_whole_keys_at_line_starts);
	tcase_add_test(tc, empty_value_is_passed_over);
	tcase_add_test(tc, text_ends_at_nul_or_len);
	tcase_add_test(tc, which_page);
	suite_add_tcase(s, tc);
	return check_run(s);
}
