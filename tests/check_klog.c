/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_klog - the table of the kernel's hibernation lines (lib/klog.c)
 * and the image's side of their numbers (lib/klog-image.c). Lines are the
 * kernels' own (fixtures/*.log, fixtures/README.md's check-doctor matrix);
 * numbers are the sidecars', which were copied from those logs.
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static char fixtures[FIXTURES_MAX][64];
static size_t nfixtures;
static char spent[SPENT_MAX][64];
static size_t nspent;

static int explain(const char *line, struct hib_log_line *ll)
{
	struct hib_log_line z = HIB_INIT(struct hib_log_line);

	*ll = z;
	return hib_log_explain(line, strlen(line), ll);
}

/* line | topic | severity | message offset | values */
static const struct {
	const char *line, *id;
	enum hib_log_kind kind;
	size_t off;
	unsigned int n;
	int64_t v0, v1;
	enum hib_log_quantity q0, q1;
} known[] = {
	{ "[    8.996579] PM: hibernation: Wrote 16064 kbytes in 0.54 seconds (29.74 MB/s)",
	  "wrote", HIB_LOG_PROGRESS, 15, 1, 16064, 0, HIB_LOGQ_STREAM_KBYTES, HIB_LOGQ_NONE },
	{ "[    8.421608] PM: hibernation: Image created (4006 pages copied, 774 zero pages)",
	  "created", HIB_LOG_PROGRESS, 15, 2, 4006, 774, HIB_LOGQ_IMAGE_PAGES, HIB_LOGQ_ZERO_PAGES },
	/* 6.1: no zero pages */
	{ "[    7.801276] PM: hibernation: Image created (4014 pages copied)\r",
	  "created", HIB_LOG_PROGRESS, 15, 1, 4014, 0, HIB_LOGQ_IMAGE_PAGES, HIB_LOGQ_NONE },
	{ "[    8.997094] PM: Image size after compression: 4168 kbytes",
	  "compressed-size", HIB_LOG_PROGRESS, 15, 1, 4168, 0, HIB_LOGQ_COMPRESSED_KBYTES, HIB_LOGQ_NONE },
	{ "[    5.689678] PM: hibernation: Read 16064 kbytes in 1.18 seconds (13.61 MB/s)",
	  "read", HIB_LOG_PROGRESS, 15, 1, 16064, 0, HIB_LOGQ_STREAM_KBYTES, HIB_LOGQ_NONE },
	/* what firmware and escape codes leave before the first timestamp */
	{ "Booting from ROM..c\x1b[?7l\x1b[2J[    0.074616] PM: hibernation: Registered nosave memory: [mem 0x00000000-0x00000fff]",
	  "nosave", HIB_LOG_PROGRESS, 43, 0, 0, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "Dec 01 12:00:00 host kernel: PM: hibernation: resume failed (-14)",
	  "resume-failed", HIB_LOG_FAILURE, 29, 1, -14, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "Aug 17 15:10:34 xubuntu kernel: [    3.804209] PM: Hibernation image not present or could not be loaded.",
	  "not-present", HIB_LOG_NOTE, 47, 0, 0, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "<3>[   12.000000] PM: Invalid image CRC32!",
	  "crc", HIB_LOG_FAILURE, 18, 0, 0, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "[Tue Dec  1 12:00:00 2026] PM: lzo decompression failed",
	  "decompression-failed", HIB_LOG_FAILURE, 27, 0, 0, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "[    6.0] Hibernate inconsistent memory map detected!",
	  "e820", HIB_LOG_FAILURE, 10, 0, 0, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "[    6.0] PM: hibernation: Image mismatch: architecture specific data",
	  "arch-mismatch", HIB_LOG_FAILURE, 10, 0, 0, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "[    6.0] PM: hibernation: Image mismatch: kernel release",
	  "mismatch", HIB_LOG_FAILURE, 10, 0, 0, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "[    1.0] PM: Image not found (code -22)",
	  "not-found", HIB_LOG_NOTE, 10, 1, -22, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "[    1.0] PM: Suspend image hardware signature mismatch (1234abcd now 0badf00d); aborting resume.",
	  "hw-sig", HIB_LOG_FAILURE, 10, 2, 0x1234abcd, 0x0badf00d, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "[    0.750081] Lockdown: swapper/0: hibernation is restricted; see man kernel_lockdown.7",
	  "lockdown", HIB_LOG_FAILURE, 15, 0, 0, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "[    9.000760] PM: S|",
	  "signature", HIB_LOG_PROGRESS, 15, 0, 0, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "[    8.454961] PM: Image saving progress:   0%",
	  "saving-progress", HIB_LOG_PROGRESS, 15, 0, 0, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
	{ "[    4.506890] PM: Using 3 thread(s) for lzo decompression",
	  "threads", HIB_LOG_PROGRESS, 15, 1, 3, 0, HIB_LOGQ_NONE, HIB_LOGQ_NONE },
};

START_TEST(known_lines)
{
	struct hib_log_line ll;

	ck_assert_int_eq(explain(known[_i].line, &ll), 1);
	ck_assert_ptr_nonnull(ll.id);
	ck_assert_str_eq(ll.id, known[_i].id);
	ck_assert_int_eq(ll.kind, known[_i].kind);
	ck_assert_uint_eq(ll.msg_offset, known[_i].off);
	ck_assert_ptr_nonnull(ll.meaning);
	ck_assert_uint_eq(ll.nvalues, known[_i].n);
	if (ll.nvalues > 0) {
		ck_assert_int_eq(ll.value[0], known[_i].v0);
		ck_assert_int_eq(ll.quantity[0], known[_i].q0);
	}
	if (ll.nvalues > 1) {
		ck_assert_int_eq(ll.value[1], known[_i].v1);
		ck_assert_int_eq(ll.quantity[1], known[_i].q1);
	}
	if (ll.kind == HIB_LOG_FAILURE)
		ck_assert_ptr_nonnull(ll.next);
}
END_TEST

/* Not a PM line: nothing. A PM line the table lacks: unknown, shown. */
START_TEST(other_lines)
{
	struct hib_log_line ll;
	char big[8192];

	ck_assert_int_eq(explain("[    0.808300] ACPI: PM: (supports S0 S4 S5)", &ll), 0);
	ck_assert_int_eq(explain("HIBMARKER 3", &ll), 0);
	ck_assert_int_eq(explain("", &ll), 0);
	ck_assert_int_eq(explain("[", &ll), 0);
	ck_assert_int_eq(explain("[    1.0", &ll), 0);
	ck_assert_int_eq(explain("<6", &ll), 0);
	/* pm_trace's line (drivers/base/power/trace.c): PM, not in the table */
	ck_assert_int_eq(explain("[    1.0] PM: RTC time: 12:00:00, date: 2026-12-01", &ll), 1);
	ck_assert_int_eq(ll.kind, HIB_LOG_UNKNOWN);
	ck_assert_ptr_null(ll.id);
	/* the genpd line was the example of an unknown one until the riscv64
	 * fixture's boot printed it: a boot line of its own now */
	ck_assert_int_eq(explain("[    1.0] PM: genpd: Disabling unused power domains", &ll), 1);
	ck_assert_int_eq(ll.kind, HIB_LOG_PROGRESS);
	ck_assert_str_eq(ll.id, "genpd-unused");
	/* "Wrote" without its number is not the Wrote line */
	ck_assert_int_eq(explain("[    1.0] PM: hibernation: Wrote many kbytes in 1 s", &ll), 1);
	ck_assert_int_eq(ll.kind, HIB_LOG_UNKNOWN);
	/* a long line of percent signs and brackets: an answer, no crash */
	memset(big, '%', sizeof(big));
	memcpy(big, "[    1.0] PM: ", 14);
	ck_assert_int_eq(hib_log_explain(big, sizeof(big), &ll), 1);
	memset(big, '[', sizeof(big));
	ck_assert_int_eq(hib_log_explain(big, sizeof(big), &ll), 0);
	/* len, not a NUL, ends the line */
	ck_assert_int_eq(hib_log_explain("[    1.0] PM: S|junk", 16, &ll), 1);
	ck_assert_str_eq(ll.id, "signature");
}
END_TEST

/* HIB_INIT's size rule: 0 or larger than the library's refused and the
 * struct left alone; the first layout's size filled up to it. */
START_TEST(line_struct_sizes)
{
	union {
		struct hib_log_line ll;
		unsigned char b[sizeof(struct hib_log_line) + 16];
	} u;
	const char *l = "[    1.0] PM: hibernation: Wrote 16064 kbytes in 0.54 seconds";
	size_t v1 = offsetof(struct hib_log_line, quantity) + sizeof(u.ll.quantity), i;

	memset(&u, 0xa5, sizeof(u));
	u.ll.size = 0;
	ck_assert_int_eq(hib_log_explain(l, strlen(l), &u.ll), HIB_ERR_INVAL);
	for (i = sizeof(size_t); i < sizeof(u); i++)
		ck_assert_uint_eq(u.b[i], 0xa5);
	u.ll.size = sizeof(u.ll) + 8;
	ck_assert_int_eq(hib_log_explain(l, strlen(l), &u.ll), HIB_ERR_INVAL);
	ck_assert_int_eq(hib_log_explain(l, strlen(l), NULL), HIB_ERR_INVAL);
	memset(&u, 0xa5, sizeof(u));
	u.ll.size = v1;
	ck_assert_int_eq(hib_log_explain(l, strlen(l), &u.ll), 1);
	ck_assert_uint_eq(u.ll.size, v1);
	ck_assert_str_eq(u.ll.id, "wrote");
	for (i = v1; i < sizeof(u); i++)
		ck_assert_uint_eq(u.b[i], 0xa5);
}
END_TEST

/* The image's numbers are the ones its kernel printed (the sidecar). */
START_TEST(numbers_are_the_kernels)
{
	struct hib_log_numbers n = HIB_INIT(struct hib_log_numbers);
	struct sidecar sc;
	struct hib_image *img = hib_image_new();
	const char *name = _i < (int)nfixtures ? fixtures[_i] : spent[_i - (int)nfixtures];
	char path[512];
	uint64_t v;

	fixture_src(path, sizeof(path), name, "expect");
	ck_assert_int_eq(sidecar_load(path, &sc), 0);
	fixture_img(path, sizeof(path), name);
	ck_assert_int_eq(open_at(img, path, fx_offset(name)), HIB_OK);
	/* a spent area too: its log is the resume that spent it */
	ck_assert_int_eq(hib_image_log_numbers(img, &n), HIB_OK);
	ck_assert_uint_eq(n.pfn_entries, sidecar_u64(&sc, "need_to_copy"));
	ck_assert_uint_eq(n.image_pages, sidecar_u64(&sc, "pages_copied"));
	ck_assert_uint_eq(n.zero_pages, sidecar_has(&sc, "zero_pages") ?
			  sidecar_u64(&sc, "zero_pages") : 0);
	ck_assert_uint_eq(n.stream_pages, sidecar_u64(&sc, "saving_pages"));
	ck_assert_uint_eq(n.stream_kbytes, sidecar_u64(&sc, "wrote_kbytes"));
	ck_assert_int_eq(hib_log_numbers_get(&n, HIB_LOGQ_STREAM_KBYTES, &v), 1);
	ck_assert_uint_eq(v, sidecar_u64(&sc, "wrote_kbytes"));
	if (sidecar_has(&sc, "size_after_compression_kbytes")) {
		ck_assert_int_eq(n.have_compressed_kbytes, 1);
		ck_assert_uint_eq(n.compressed_kbytes,
				  sidecar_u64(&sc, "size_after_compression_kbytes"));
	}
	if (!strcmp(sidecar_get(&sc, "compression"), "none")) {
		ck_assert_int_eq(n.have_compressed_kbytes, 0);
		ck_assert_int_eq(hib_log_numbers_get(&n, HIB_LOGQ_COMPRESSED_KBYTES, &v), 0);
	}
	ck_assert_int_eq(hib_log_numbers_get(&n, HIB_LOGQ_NONE, &v), 0);
	if (sidecar_has(&sc, "resume_read_kbytes"))
		ck_assert_uint_eq(n.stream_kbytes, sidecar_u64(&sc, "resume_read_kbytes"));
	hib_image_free(img);
}
END_TEST

START_TEST(numbers_struct_size)
{
	struct hib_log_numbers n;
	struct hib_image *img = hib_image_new();
	char path[512];

	fixture_img(path, sizeof(path), fixtures[0]);
	ck_assert_int_eq(open_at(img, path, fx_offset(fixtures[0])), HIB_OK);
	memset(&n, 0, sizeof(n));
	ck_assert_int_eq(hib_image_log_numbers(img, &n), HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "hib_log_numbers"));
	hib_image_free(img);
}
END_TEST

static Suite *klog_suite(void)
{
	Suite *s = suite_create("klog");
	TCase *tc = tcase_create("klog");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, known_lines, 0, (int)(sizeof(known) / sizeof(known[0])));
	tcase_add_test(tc, other_lines);
	tcase_add_test(tc, line_struct_sizes);
	tcase_add_loop_test(tc, numbers_are_the_kernels, 0, (int)(nfixtures + nspent));
	tcase_add_test(tc, numbers_struct_size);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (fixtures_setup(fixtures, &nfixtures, spent, &nspent) < 0)
		return EXIT_FAILURE;
	return check_run(klog_suite());
}
