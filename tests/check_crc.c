/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_crc - lib/crc.c: the kernel's crc32_le and its combination, against
 * a bitwise reference computed here.
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <stdlib.h>

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

static Suite *crc_suite(void)
{
	Suite *s = suite_create("crc");
	TCase *tc;

	tc = tcase_create("crc");
	tcase_add_test(tc, crc_check_value);
	tcase_add_test(tc, crc_matches_reference);
	tcase_add_test(tc, crc_combine_matches_serial);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(crc_suite());
}
