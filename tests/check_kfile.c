/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_kfile - the target kernel's file (issue 15): the fixtures' own
 * kernels (their banner as the kernel printed it in the capture log), and
 * tiny kernels laid out here as the kernel's build lays them out
 * (arch/x86/boot/header.S, arch/arm64/include/asm/image.h), their payload
 * compressed by the tools scripts/Makefile.lib runs (gzip, xz, lzma, zstd,
 * lz4 -l, lzop), with banners the test chose; and files that are no
 * kernel, truncated or corrupt, which must fail with a message naming the
 * file and what is wrong.
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define BANNER_REL "9.8.7-test+"
#define BANNER_VER "#3 SMP PREEMPT_DYNAMIC Debian 9.8.7-1 (2026-01-02)"
#define BANNER "Linux version " BANNER_REL " (builder@host) (gcc (Debian 12.2.0-14) 12.2.0, " \
	       "GNU ld (GNU Binutils for Debian) 2.40) " BANNER_VER "\n"

static int have(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

/* An ELF header for machine m, the 6.1+ weak banner, then the real one */
static size_t vmlinux(unsigned char *b, size_t cap, unsigned int machine)
{
	static const char weak[] = "Linux version " BANNER_REL " (builder@host) (gcc (Debian 12.2.0-14) "
				   "12.2.0, GNU ld (GNU Binutils for Debian) 2.40) # SMP \n";
	size_t n = 0;

	memset(b, 0, cap);
	memcpy(b, "\177ELF\2\1\1", 7);
	put_le(b + 16, 2, 2);                       /* ET_EXEC */
	put_le(b + 18, machine, 2);
	n = 4096;
	memcpy(b + n, weak, sizeof(weak) - 1);
	n += 8192;
	memcpy(b + n, BANNER, sizeof(BANNER) - 1);
	n += 64 * 1024;                             /* text to compress */
	return n;
}

static unsigned char *compress(const char *cmd, const unsigned char *in, size_t len,
			       size_t *out_len)
{
	char sh[1024], src[512];
	unsigned char *out;

	snprintf(src, sizeof(src), "%s", write_file("payload", in, len));
	snprintf(sh, sizeof(sh), "%s < '%s' > '%s/payload.z'", cmd, src, tmpdir);
	ck_assert_msg(system(sh) == 0, "%s failed", sh);
	snprintf(sh, sizeof(sh), "%s/payload.z", tmpdir);
	out = (unsigned char *)slurp(sh, out_len);
	ck_assert_ptr_nonnull(out);
	return out;
}

/* bzImage: setup_sects 1, boot protocol 2.15, the payload right after */
static const char *bzimage(const unsigned char *payload, size_t plen, uint32_t size,
			   int append_size, const char *version_string)
{
	size_t total = 1024 + plen + 4;
	unsigned char *b = calloc(1, total);
	const char *path;

	ck_assert_ptr_nonnull(b);
	b[0x1f1] = 1;
	put_le(b + 0x1fe, 0xaa55, 2);
	memcpy(b + 0x202, "HdrS", 4);
	put_le(b + 0x206, 0x020f, 2);
	put_le(b + 0x236, 1 | 2, 2);                /* XLF_KERNEL_64 */
	strcpy((char *)b + 0x300, version_string);
	put_le(b + 0x20e, 0x300 - 0x200, 2);
	put_le(b + 0x248, 0, 4);                    /* payload at (1 + 1) * 512 */
	memcpy(b + 1024, payload, plen);
	if (append_size)
		put_le(b + 1024 + plen, size, 4);
	put_le(b + 0x24c, (uint32_t)(plen + (append_size ? 4 : 0)), 4);
	path = write_file("bzImage", b, 1024 + plen + (append_size ? 4 : 0));
	free(b);
	return path;
}

static void expect_test_banner(struct hib_target *t, const char *fmt, const char *comp)
{
	const struct hib_target_info *in = hib_target_info(t);

	ck_assert_str_eq(in->release, BANNER_REL);
	ck_assert_str_eq(in->version, BANNER_VER);
	ck_assert_uint_eq(in->kver, (9u << 16) | (8u << 8) | 7u);
	ck_assert_str_eq(in->kernel_format, fmt);
	if (comp)
		ck_assert_str_eq(in->kernel_compression, comp);
	else
		ck_assert_ptr_null(in->kernel_compression);
	ck_assert_str_eq(in->kernel_from, "kernel file");
}

static const struct { const char *name, *tool, *cmd; int appended; } codecs[] = {
	{ "gzip", "gzip",  "gzip -n -9 -c", 0 },            /* gzip ends in its size already */
	{ "xz",   "xz",    "xz --check=crc32 --x86 --lzma2=dict=32MiB -c", 1 },
	{ "lzma", "xz",    "xz --format=lzma -9 -c", 1 },
	{ "zstd", "zstd",  "zstd -q -19 -c", 1 },
	{ "lz4",  "lz4",   "lz4 -q -l -9 -c", 1 },
	{ "lzo",  "lzop",  "lzop -q -9 -c", 1 },
};

START_TEST(bzimage_each_codec)
{
	static unsigned char elf[128 * 1024];
	struct hib_target *t;
	unsigned char *z;
	size_t n, zl;
	int i = _i;

	if (!have(codecs[i].tool)) {
		fprintf(stderr, "# %s missing: %s payloads not made (tools/bootstrap.sh installs it)\n",
			codecs[i].tool, codecs[i].name);
		ck_abort_msg("%s is needed to make a %s payload", codecs[i].tool, codecs[i].name);
	}
	mk_tmpdir();
	n = vmlinux(elf, sizeof(elf), 62);
	z = compress(codecs[i].cmd, elf, n, &zl);
	t = hib_target_new();
#ifndef HAVE_LZMA
	if (!strcmp(codecs[i].name, "xz") || !strcmp(codecs[i].name, "lzma")) {
		ck_assert_int_eq(hib_target_set_kernel(t, bzimage(z, zl, (uint32_t)n, 1, "x")),
				 HIB_ERR_UNSUPPORTED);
		ck_assert(strstr(hib_target_error(t), "built without") != NULL);
		goto out;
	}
#endif
	ck_assert_msg(hib_target_set_kernel(t, bzimage(z, zl, (uint32_t)n, codecs[i].appended,
						       BANNER_REL " (builder@host) " BANNER_VER)) == HIB_OK,
		      "%s: %s", codecs[i].name, hib_target_error(t));
	expect_test_banner(t, "bzImage", codecs[i].name);
	ck_assert_int_eq(hib_target_info(t)->arch, HIB_TARCH_X86_64);
	ck_assert_uint_eq(hib_target_info(t)->kernel_bytes, n);
	/* the weak "# SMP " banner came first and was not taken */
	ck_assert_ptr_null(hib_target_problem(t, 0));
#ifndef HAVE_LZMA
out:
#endif
	hib_target_free(t);
	free(z);
	rm_tmpdir();
}
END_TEST

START_TEST(bzimage_damaged)
{
	static unsigned char elf[128 * 1024];
	struct hib_target *t = hib_target_new();
	unsigned char *z;
	size_t n, zl;
	const char *p;
	size_t len;
	unsigned char *b;

	mk_tmpdir();
	n = vmlinux(elf, sizeof(elf), 62);
	z = compress("gzip -n -9 -c", elf, n, &zl);
	/* a size past the cap is refused before anything is allocated */
	ck_assert_int_eq(hib_target_set_kernel(t, bzimage(z, zl, 0xfffffff0u, 1, "x")),
			 HIB_ERR_UNSUPPORTED);
	ck_assert(strstr(hib_target_error(t), "more than 256 MiB") != NULL);
	/* the payload's middle overwritten: gzip's own check catches it */
	memset(z + zl / 2, 0x55, 64);
	ck_assert_int_eq(hib_target_set_kernel(t, bzimage(z, zl, (uint32_t)n, 0, "x")), HIB_ERR_DAMAGED);
	ck_assert(strstr(hib_target_error(t), "bzImage payload): gzip data cannot be decoded") != NULL);
	/* truncated: the header puts the payload past the end */
	p = bzimage(z, zl, (uint32_t)n, 0, "x");
	b = (unsigned char *)slurp(p, &len);
	ck_assert_int_eq(hib_target_set_kernel(t, write_file("short", b, len / 2)), HIB_ERR_DAMAGED);
	ck_assert(strstr(hib_target_error(t), "truncated: its setup header puts the payload") != NULL);
	ck_assert(strstr(hib_target_error(t), "/short") != NULL);
	/* a payload in no format it knows */
	memset(b + 1024, 0x42, 16);
	ck_assert_int_eq(hib_target_set_kernel(t, write_file("odd", b, len)), HIB_ERR_UNSUPPORTED);
	ck_assert(strstr(hib_target_error(t), "no compressed format") != NULL);
	/* a boot protocol too old to name its payload */
	free(b);
	b = (unsigned char *)slurp(bzimage(z, zl, (uint32_t)n, 0, "x"), &len);
	put_le(b + 0x206, 0x0204, 2);
	ck_assert_int_eq(hib_target_set_kernel(t, write_file("old", b, len)), HIB_ERR_UNSUPPORTED);
	ck_assert(strstr(hib_target_error(t), "boot protocol 2.04") != NULL);
	ck_assert_int_eq(hib_target_info(t)->kver, 0);
	ck_assert_ptr_nonnull(hib_target_problem(t, 0));
	free(b);
	free(z);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

/* a payload hibimg cannot open: the setup header still names the kernel */
START_TEST(bzimage_setup_header_only)
{
	struct hib_target *t = hib_target_new();
	unsigned char junk[64];

	mk_tmpdir();
	memcpy(junk, "BZh91AY&SY", 10);             /* bzip2: not built in */
	memset(junk + 10, 0x11, sizeof(junk) - 10);
	ck_assert_int_eq(hib_target_set_kernel(t, bzimage(junk, sizeof(junk), 1000, 1,
							  BANNER_REL " (builder@host) " BANNER_VER)),
			 HIB_OK);
	ck_assert_str_eq(hib_target_info(t)->release, BANNER_REL);
	ck_assert_str_eq(hib_target_info(t)->version, BANNER_VER);
	ck_assert_str_eq(hib_target_info(t)->banner, "");
	ck_assert(strstr(hib_target_problem(t, 0), "bzip2 data, which this hibimg was built without") != NULL);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

START_TEST(arm64_image)
{
	static unsigned char img[96 * 1024];
	struct hib_target *t = hib_target_new();
	const char *p;
	unsigned char *z;
	size_t zl;

	mk_tmpdir();
	memset(img, 0, sizeof(img));
	put_le(img + 8, 0, 8);                       /* text_offset */
	put_le(img + 16, sizeof(img), 8);            /* image_size */
	put_le(img + 24, (2u << 1), 8);              /* flags: 16K pages, LE */
	memcpy(img + 0x38, "ARM\x64", 4);
	memcpy(img + 40000, BANNER, sizeof(BANNER) - 1);
	p = write_file("Image", img, sizeof(img));
	ck_assert_int_eq(hib_target_set_kernel(t, p), HIB_OK);
	expect_test_banner(t, "arm64 Image", NULL);
	ck_assert_int_eq(hib_target_info(t)->arch, HIB_TARCH_ARM64);
	ck_assert_uint_eq(hib_target_info(t)->page_size, 16384);
	hib_target_free(t);
	/* Image.gz: gzip around it */
	t = hib_target_new();
	z = compress("gzip -n -9 -c", img, sizeof(img), &zl);
	ck_assert_int_eq(hib_target_set_kernel(t, write_file("Image.gz", z, zl)), HIB_OK);
	expect_test_banner(t, "arm64 Image", "gzip");
	ck_assert_uint_eq(hib_target_info(t)->page_size, 16384);
	hib_target_free(t);
	free(z);
	/* riscv's magic at the same place */
	t = hib_target_new();
	memset(img + 0x30, 0, 12);
	memcpy(img + 0x30, "RISCV\0\0\0RSC\x05", 12);
	ck_assert_int_eq(hib_target_set_kernel(t, write_file("Image", img, sizeof(img))), HIB_OK);
	expect_test_banner(t, "riscv Image", NULL);
	ck_assert_int_eq(hib_target_info(t)->arch, HIB_TARCH_RISCV64);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

START_TEST(vmlinux_elf)
{
	static unsigned char elf[128 * 1024];
	struct hib_target *t = hib_target_new();
	size_t n;

	mk_tmpdir();
	n = vmlinux(elf, sizeof(elf), 183);
	ck_assert_int_eq(hib_target_set_kernel(t, write_file("vmlinux", elf, n)), HIB_OK);
	expect_test_banner(t, "vmlinux", NULL);
	ck_assert_int_eq(hib_target_info(t)->arch, HIB_TARCH_ARM64);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

START_TEST(not_kernels)
{
	static unsigned char elf[128 * 1024];
	struct hib_target *t = hib_target_new();
	unsigned char *z;
	size_t n, zl;

	mk_tmpdir();
	ck_assert_int_eq(hib_target_set_kernel(t, write_file("empty", "", 0)), HIB_ERR_UNSUPPORTED);
	ck_assert(strstr(hib_target_error(t), "/empty: not a kernel this reads") != NULL);
	ck_assert_int_eq(hib_target_set_kernel(t, write_file("text", "hello world\n", 12)),
			 HIB_ERR_UNSUPPORTED);
	ck_assert_int_eq(hib_target_set_kernel(t, "/nonexistent/vmlinuz"), HIB_ERR_IO);
	ck_assert(strstr(hib_target_error(t), "/nonexistent/vmlinuz: No such file") != NULL);
	/* an ELF with no banner */
	n = vmlinux(elf, sizeof(elf), 62);
	memset(elf + 4096, 0, n - 4096);
	ck_assert_int_eq(hib_target_set_kernel(t, write_file("vmlinux", elf, n)), HIB_ERR_UNSUPPORTED);
	ck_assert(strstr(hib_target_error(t), "a vmlinux with no \"Linux version\" banner") != NULL);
	/* gzip of something that is no kernel */
	z = compress("gzip -n -9 -c", (const unsigned char *)"just text\n", 10, &zl);
	ck_assert_int_eq(hib_target_set_kernel(t, write_file("x.gz", z, zl)), HIB_ERR_UNSUPPORTED);
	ck_assert(strstr(hib_target_error(t), "gzip data that hold no kernel") != NULL);
	/* and truncated gzip */
	ck_assert_int_eq(hib_target_set_kernel(t, write_file("y.gz", z, zl / 2)), HIB_ERR_DAMAGED);
	free(z);
	ck_assert_str_eq(hib_target_info(t)->release, "");
	ck_assert_int_eq(hib_target_info(t)->kver, 0);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

/* The fixtures' kernels against the banner they printed when they booted
 * for the capture. */
START_TEST(fixture_kernels)
{
	static const struct { const char *kernel, *fixture; } k[] = {
		{ "k61", "k61-lzo" }, { "k612", "k612-lzo" }, { "k612fs", "k612fs-swapfile" },
	};
	size_t i;

	mk_tmpdir();
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct hib_target *t = hib_target_new();
		const struct hib_target_info *in;
		char cmd[1024], path[512], log[512], *text, *b, *e;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s.bzImage", tmpdir, k[i].kernel);
		snprintf(cmd, sizeof(cmd), "zstd -q -d -f '%s/fixtures/kernels/%s.bzImage.zst' -o '%s'",
			 getenv("top_srcdir"), k[i].kernel, path);
		ck_assert_int_eq(system(cmd), 0);
		fixture_src(log, sizeof(log), k[i].fixture, "log");
		text = slurp(log, &len);
		ck_assert_ptr_nonnull(text);
		b = strstr(text, "Linux version ");
		ck_assert_ptr_nonnull(b);
		e = strpbrk(b, "\r\n");
		*e = 0;
#ifdef HAVE_LZMA
		ck_assert_msg(hib_target_set_kernel(t, path) == HIB_OK, "%s", hib_target_error(t));
		in = hib_target_info(t);
		ck_assert_str_eq(in->banner, b);
		ck_assert_str_eq(in->kernel_compression, "xz");
		ck_assert_int_eq(in->arch, HIB_TARCH_X86_64);
#else
		/* the setup header's kernel_version string still names it */
		ck_assert_int_eq(hib_target_set_kernel(t, path), HIB_OK);
		in = hib_target_info(t);
#endif
		ck_assert_msg(strstr(b, in->release) == b + 14, "release %s", in->release);
		ck_assert_str_eq(strstr(b, ") #") + 2, in->version);
		free(text);
		hib_target_free(t);
	}
	rm_tmpdir();
}
END_TEST

/* A 64 MiB guest (check-doctor's live cases) could not read its own
 * kernel: its xz header asks for a 128 MiB dictionary and liblzma
 * allocates all of it when a block starts. Under an address-space limit
 * of 128 MiB the payload must decode, its dictionary cut to the size the
 * bzImage states. */
START_TEST(fixture_kernel_small_machine)
{
#if defined(HAVE_LZMA) && !defined(__SANITIZE_ADDRESS__)
	struct rlimit rl = { 128u << 20, 128u << 20 };
	struct hib_target *t;
	char cmd[1024], path[512];

	mk_tmpdir();
	snprintf(path, sizeof(path), "%s/k612.bzImage", tmpdir);
	snprintf(cmd, sizeof(cmd), "zstd -q -d -f '%s/fixtures/kernels/k612.bzImage.zst' -o '%s'",
		 getenv("top_srcdir"), path);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(setrlimit(RLIMIT_AS, &rl), 0);
	t = hib_target_new();
	ck_assert_msg(hib_target_set_kernel(t, path) == HIB_OK, "%s", hib_target_error(t));
	ck_assert_str_eq(hib_target_info(t)->kernel_compression, "xz");
	ck_assert_str_eq(hib_target_info(t)->release, "6.12.117-hibimg");
	hib_target_free(t);
	rm_tmpdir();
#endif
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kfile");
	TCase *tc = tcase_create("bzImage");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, bzimage_each_codec, 0, (int)(sizeof(codecs) / sizeof(codecs[0])));
	tcase_add_test(tc, bzimage_damaged);
	tcase_add_test(tc, bzimage_setup_header_only);
	tcase_add_test(tc, fixture_kernels);
	tcase_add_test(tc, fixture_kernel_small_machine);
	suite_add_tcase(s, tc);
	tc = tcase_create("Image");
	tcase_add_test(tc, arm64_image);
	tcase_add_test(tc, vmlinux_elf);
	tcase_add_test(tc, not_kernels);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(suite());
}
