/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_reader - lib/reader.c (with header.c, snapshot.c, codec.c) on the
 * fixtures written by real kernels: what the kernel logged and recorded in
 * the sidecars, what a walk of the raw map counts, and the same results
 * whatever the thread count.
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <fcntl.h>
#include <hibimg.h>
#include <libdeflate.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fixtures[FIXTURES_MAX][64];
static size_t nfixtures;

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
	struct hib_page pg = HIB_INIT(struct hib_page);
	struct hib_progress p = HIB_INIT(struct hib_progress);
	struct hib_identity id = HIB_INIT(struct hib_identity);
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
	/* the record of the kernel's architecture (sidecar arch=, capture.sh
	 * writes it from the kernel tag; older x86_64 sidecars lack it) */
	{
		const char *a = sidecar_has(&sc, "arch") ? sidecar_get(&sc, "arch") : "x86_64";
		enum hib_arch want = !strcmp(a, "i386")    ? HIB_ARCH_X86_32 :
				     !strcmp(a, "arm64")   ? HIB_ARCH_ARM64 :
				     !strcmp(a, "riscv64") ? HIB_ARCH_RISCV64 : HIB_ARCH_X86_64;

		ck_assert_msg(in->arch == want, "%s: arch %d, the sidecar says %s",
			      name, (int)in->arch, a);
	}

	/* "Image created (N pages copied" == image_pages;
	 * "Saving ... (P pages)" == pages - 1; "Wrote K kbytes" == P * 4 */
	ck_assert_uint_eq(in->image_pages, sidecar_u64(&sc, "pages_copied"));
	ck_assert_uint_eq(in->pages - 1, sidecar_u64(&sc, "saving_pages"));
	ck_assert_uint_eq((in->pages - 1) * h->page_size / 1024,
			  sidecar_u64(&sc, "wrote_kbytes"));
	ck_assert_uint_eq(h->page_size, fx_page_size(name));

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
	struct hib_progress p = HIB_INIT(struct hib_progress);
	struct hib_page pg = HIB_INIT(struct hib_page);
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

/* ---- what the library counts, against the raw bytes ---------------------- */

/* The swap-map chain straight from the disk (struct swap_map_page: 511
 * little-endian u64 entries, then next_swap; 4 KiB pages), entries up to
 * the first zero, where the kernel's reader stops. */
#define RAW_MAP_MAX 64
struct raw_map {
	uint64_t pages, entries;
	uint64_t dev[RAW_MAP_MAX];      /* device page of each map page */
	uint64_t used[RAW_MAP_MAX];     /* entries it supplies */
};


static void raw_map_walk(const char *path, uint64_t off, unsigned int ps,
			 struct raw_map *m)
{
	static unsigned char pg[65536];
	unsigned int epm = ps / 8 - 1;   /* the last word links the next map page */
	uint64_t cur, k;
	int fd = open(path, O_RDONLY), ended = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert(ps >= 4096 && ps <= sizeof(pg));
	memset(m, 0, sizeof(*m));
	ck_assert_int_eq(pread(fd, pg, ps, (off_t)(off * ps)), (ssize_t)ps);
	for (cur = test_le64(pg + ps - 32); cur; cur = test_le64(pg + epm * 8)) {
		ck_assert_uint_lt(m->pages, RAW_MAP_MAX);
		ck_assert_int_eq(pread(fd, pg, ps, (off_t)(cur * ps)), (ssize_t)ps);
		m->dev[m->pages] = cur;
		for (k = 0; k < epm && !ended; k++) {
			if (!test_le64(pg + 8 * k)) {
				ended = 1;
				break;
			}
			m->used[m->pages]++;
			m->entries++;
		}
		m->pages++;
	}
	close(fd);
}

/* The map walk, the disk bytes read and the image's slots, each as the
 * raw walk counts them. */
/* The kernel's CRC32 as the container tells it: the u32 at 36 bytes from
 * the end of the resume page (struct swsusp_header), read here from the
 * file; none where the header has no SF_CRC32_MODE (bit 2). */
START_TEST(checksum_is_the_headers)
{
	const char *name = fixtures[_i];
	uint64_t off = fx_offset(name);
	struct hib_checksum c = HIB_INIT(struct hib_checksum);
	static unsigned char pg[65536];
	struct hib_image *img;
	unsigned int ps;
	char path[512];
	uint32_t crc, flags;
	FILE *f;

	fixture_img(path, sizeof(path), name);
	img = hib_image_new();
	ck_assert_int_eq(open_at(img, path, off), HIB_OK);
	ps = hib_image_header(img)->page_size;
	ck_assert(ps >= 4096 && ps <= sizeof(pg));
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseeko(f, (off_t)(off * ps), SEEK_SET), 0);
	ck_assert_uint_eq(fread(pg, 1, ps, f), ps);
	fclose(f);
	crc = pg[ps - 36] | pg[ps - 35] << 8 | pg[ps - 34] << 16 | (uint32_t)pg[ps - 33] << 24;
	flags = pg[ps - 24] | pg[ps - 23] << 8 | pg[ps - 22] << 16 | (uint32_t)pg[ps - 21] << 24;
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ck_assert_int_eq(hib_image_checksum(img, &c), HIB_OK);
	if (flags & 4) {
		ck_assert_int_eq(c.kind, HIB_CHECKSUM_CRC32);
		ck_assert_uint_eq(c.crc32, crc);
	} else {
		ck_assert_int_eq(c.kind, HIB_CHECKSUM_NONE);
		ck_assert_ptr_nonnull(strstr(c.none_why, "uncompressed"));
	}
	hib_image_free(img);
}
END_TEST

START_TEST(counts_match_the_raw_map)
{
	const char *name = fixtures[_i];
	uint64_t off = fx_offset(name), i;
	unsigned int ps = fx_page_size(name);
	struct hib_image *img;
	struct hib_reader *rd;
	struct hib_map_page mp;
	struct hib_progress p = HIB_INIT(struct hib_progress);
	struct hib_slot_usage su = HIB_INIT(struct hib_slot_usage);
	struct hib_page pg = HIB_INIT(struct hib_page);
	struct raw_map m;
	char path[512];
	unsigned int t;
	int rc;

	fixture_img(path, sizeof(path), name);
	raw_map_walk(path, off, ps, &m);
	img = hib_image_new();
	ck_assert_int_eq(open_at(img, path, off), HIB_OK);
	ck_assert_int_eq(hib_image_content(img), HIB_CONTENT_UNREAD);
	ck_assert_uint_eq(hib_image_container_flags(img), 0);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ck_assert_int_eq(hib_image_content(img), HIB_CONTENT_READABLE);

	ck_assert_uint_eq(hib_image_info(img)->map_pages, m.pages);
	for (i = 0; i < m.pages; i++) {
		memset(&mp, 0xff, sizeof(mp));
		mp.size = sizeof(mp);
		ck_assert_int_eq(hib_image_map_page_info(img, i, &mp), HIB_OK);
		ck_assert_uint_eq(mp.devpage, m.dev[i]);
		ck_assert_uint_eq(mp.first_entry, i * (ps / 8 - 1));
		ck_assert_uint_eq(mp.entries, m.used[i]);
		ck_assert_uint_eq(mp.extents, 0);
	}
	mp.size = sizeof(mp);
	ck_assert_int_eq(hib_image_map_page_info(img, m.pages, &mp), HIB_ERR_INVAL);
	/* below its first layout: refused, nothing written (abi.c's rule;
	 * tests/check_abi.c pins what an older caller gets) */
	memset(&mp, 0xff, sizeof(mp));
	mp.size = offsetof(struct hib_map_page, extents);
	ck_assert_int_eq(hib_image_map_page_info(img, 0, &mp), HIB_ERR_INVAL);
	ck_assert_uint_eq(mp.entries, UINT64_MAX);

	/* every map entry once, swsusp_info included, whatever the threads */
	for (t = 1; t <= 3; t += 2) {
		ck_assert_int_eq(hib_reader_new(img, &rd), HIB_OK);
		ck_assert_int_eq(hib_reader_set_threads(rd, t), HIB_OK);
		while ((rc = hib_reader_next(rd, &pg)) == 1)
			;
		ck_assert_msg(rc == 0, "%s: %s", name, hib_image_error(img));
		hib_reader_progress(rd, &p);
		ck_assert_uint_eq(p.disk_bytes_read, m.entries * ps);
		hib_reader_free(rd);
	}

	/* the slot count needs a partition */
	if (off == 0) {
		ck_assert_int_eq(hib_image_slot_usage(img, &su), HIB_OK);
		ck_assert_uint_eq(su.image_slots, 1 + m.pages + m.entries);
	}
	hib_image_free(img);
}
END_TEST

static Suite *reader_suite(void)
{
	Suite *s = suite_create("reader");
	TCase *tc;

	tc = tcase_create("fixtures");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, sidecar_matches_kernel_log, 0, (int)nfixtures);
	tcase_add_loop_test(tc, reader_matches_kernel, 0, (int)nfixtures);
	tcase_add_loop_test(tc, counts_match_the_raw_map, 0, (int)nfixtures);
	tcase_add_loop_test(tc, checksum_is_the_headers, 0, (int)nfixtures);
	suite_add_tcase(s, tc);

	tc = tcase_create("threads");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, threads_give_same_result, 0, (int)nfixtures);
	tcase_add_test(tc, threads_report_the_same_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (fixtures_setup(fixtures, &nfixtures, NULL, NULL) < 0)
		return EXIT_FAILURE;
	return check_run(reader_suite());
}
