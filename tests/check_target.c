/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_target - the target machine's parsers (issue 15): a copy of
 * /sys/firmware/memmap, /proc/iomem, the ACPI FACS, a kernel config, and
 * --here's tree. The numbers asserted come from a kernel: a copy the guest
 * made under QEMU (fixtures/memmap/), the e820_check and num_physpages a
 * kernel wrote into an image on that machine, the zones' present pages
 * the guest printed. Malformed inputs must fail with a message naming the
 * file and what is wrong.
 */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <hibimg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void mkdirs(const char *rel)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", tmpdir, rel);
	ck_assert_int_eq(system(cmd), 0);
}

static void put(const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* entry i of a memmap copy under tmpdir/mm */
static void entry(int i, const char *start, const char *end, const char *type)
{
	char d[64], p[96], t[256];

	snprintf(d, sizeof(d), "mm/%d", i);
	mkdirs(d);
	if (start) {
		snprintf(p, sizeof(p), "%s/start", d);
		snprintf(t, sizeof(t), "%s\n", start);
		put(p, t);
	}
	if (end) {
		snprintf(p, sizeof(p), "%s/end", d);
		snprintf(t, sizeof(t), "%s\n", end);
		put(p, t);
	}
	if (type) {
		snprintf(p, sizeof(p), "%s/type", d);
		snprintf(t, sizeof(t), "%s\n", type);
		put(p, t);
	}
}

static const char *mm(void)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/mm", tmpdir);
	return p;
}

/* a number the guest printed in a memmap log ("HIBIMG-PRESENT 24443") */
static uint64_t log_number(const char *log, const char *key)
{
	size_t len;
	char *text = slurp(log, &len), *p;
	uint64_t v;

	ck_assert_ptr_nonnull(text);
	p = strstr(text, key);
	ck_assert_msg(p != NULL, "%s: no %s", log, key);
	v = strtoull(p + strlen(key), NULL, 10);
	free(text);
	return v;
}

START_TEST(memmap_copy_matches_the_image_written_there)
{
	char dir[512], log[512], img_path[512];
	struct hib_target *t = hib_target_new();
	struct hib_image *img = hib_image_new();
	const struct hib_target_info *in;
	const struct hib_info *ii;

	snprintf(dir, sizeof(dir), "%s/fixtures/memmap/96M", getenv("top_srcdir"));
	snprintf(log, sizeof(log), "%s/fixtures/memmap/96M.log", getenv("top_srcdir"));
	fixture_img(img_path, sizeof(img_path), "k612-lzo-full");
	ck_assert_int_eq(hib_target_set_memmap(t, dir), HIB_OK);
	in = hib_target_info(t);
	ck_assert_str_eq(in->mem_from, "firmware memmap");
	ck_assert_uint_eq(in->mem_ranges, 7);
	ck_assert_int_eq(in->have_e820, 1);
	ck_assert_uint_eq(hib_target_mem_range(t, 3)->e820_type, 1);
	ck_assert(hib_target_mem_range(t, 3)->ram);
	ck_assert_str_eq(hib_target_mem_range(t, 4)->type, "Reserved");
	ck_assert_ptr_null(hib_target_mem_range(t, 7));
	/* what the kernel that wrote the image on this machine keeps */
	ck_assert_int_eq(hib_image_open(img, img_path), HIB_OK);
	ck_assert_int_eq(hib_image_load(img), HIB_OK);
	ii = hib_image_info(img);
	ck_assert_uint_eq(in->e820_crc32, ii->e820_check);
	ck_assert_uint_eq(in->physpages, ii->num_physpages);
	/* and what the guest's own zones held */
	ck_assert_uint_eq(in->physpages, log_number(log, "HIBIMG-PRESENT "));
	ck_assert(in->physpages_exact);
	hib_image_free(img);
	hib_target_free(t);
}
END_TEST

START_TEST(memmap_other_size_other_sums)
{
	char dir[512], log[512];
	struct hib_target *t = hib_target_new();

	snprintf(dir, sizeof(dir), "%s/fixtures/memmap/128M", getenv("top_srcdir"));
	snprintf(log, sizeof(log), "%s/fixtures/memmap/128M.log", getenv("top_srcdir"));
	ck_assert_int_eq(hib_target_set_memmap(t, dir), HIB_OK);
	ck_assert_uint_eq(hib_target_info(t)->physpages, log_number(log, "HIBIMG-PRESENT "));
	ck_assert_uint_ne(hib_target_info(t)->e820_crc32, 0x21b12a26u);
	hib_target_free(t);
}
END_TEST

static void memmap_fails(const char *why)
{
	struct hib_target *t = hib_target_new();
	int rc = hib_target_set_memmap(t, mm());

	ck_assert_int_ne(rc, HIB_OK);
	ck_assert_msg(strstr(hib_target_error(t), why) != NULL, "'%s' lacks '%s'",
		      hib_target_error(t), why);
	ck_assert_ptr_nonnull(hib_target_problem(t, 0));
	ck_assert_uint_eq(hib_target_info(t)->mem_ranges, 0);
	hib_target_free(t);
}

START_TEST(memmap_malformed)
{
	mk_tmpdir();
	mkdirs("mm");
	memmap_fails("no entries");
	entry(0, "0x0", "0x9fbff", "System RAM");
	entry(2, "0x100000", "0x3fdcfff", "System RAM");
	memmap_fails("entry 1 of 3 missing");
	entry(1, "0x9fc00", "0x9ffff", NULL);
	memmap_fails("1/type");
	entry(1, "0x9fc00", "0x9ffff", "Reserved");
	entry(2, "1048576", "0x3fdcfff", "System RAM");
	memmap_fails("2/start: '1048576' is not a 0x-hex address");
	entry(2, "0x100000", "0xzz", "System RAM");
	memmap_fails("2/end: '0xzz'");
	entry(2, "0x100000", "0xfffff", "System RAM");
	memmap_fails("end 0xfffff below start 0x100000");
	entry(2, "0x100000", "0x11112222333344445", "System RAM");
	memmap_fails("is not a 0x-hex address");
	put("mm/2/end", "0x3fdcfff\n0x1\n");
	memmap_fails("not one line");
	rm_tmpdir();
}
END_TEST

START_TEST(memmap_unknown_type_keeps_ranges)
{
	struct hib_target *t = hib_target_new();

	mk_tmpdir();
	entry(0, "0x0", "0x9fbff", "System RAM");
	entry(1, "0x100000", "0x3fdcfff", "System RAM");
	entry(2, "0x3fdd000", "0x3ffffff", "Unknown E820 type");
	ck_assert_int_eq(hib_target_set_memmap(t, mm()), HIB_OK);
	/* no number to put in the table: no checksum, but the RAM counts */
	ck_assert_int_eq(hib_target_info(t)->have_e820, 0);
	ck_assert_uint_eq(hib_target_info(t)->physpages, (0x9f - 1) + (0x3fdd - 0x100));
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

static const char iomem_64m[] =
	"00000000-00000fff : Reserved\n"
	"00001000-0009fbff : System RAM\n"
	"0009fc00-0009ffff : Reserved\n"
	"000f0000-000fffff : Reserved\n"
	"  000f0000-000fffff : System ROM\n"
	"00100000-03fdcfff : System RAM\n"
	"  01000000-01ffffff : Kernel code\n"
	"03fdd000-03ffffff : Reserved\n"
	"fd00000000-ffffffffff : Reserved\n";

START_TEST(iomem_ranges)
{
	struct hib_target *t = hib_target_new();
	const struct hib_target_info *in;

	mk_tmpdir();
	ck_assert_int_eq(hib_target_set_iomem(t, write_file("iomem", iomem_64m, strlen(iomem_64m))),
			 HIB_OK);
	in = hib_target_info(t);
	ck_assert_str_eq(in->mem_from, "/proc/iomem");
	ck_assert_uint_eq(in->mem_ranges, 7);           /* children are not ranges */
	ck_assert_int_eq(in->have_e820, 0);             /* the kernel's table, not the firmware's */
	/* the kernel-edited table of the 64M fixtures' machine: 16251 pages,
	 * the num_physpages their kernels wrote */
	ck_assert_uint_eq(in->physpages, 16251);
	ck_assert_uint_eq(in->ram_first_pfn, 1);
	ck_assert_uint_eq(in->ram_last_pfn, 0x3fdc);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

static void iomem_fails_n(const char *text, size_t len, const char *why)
{
	struct hib_target *t = hib_target_new();

	ck_assert_int_ne(hib_target_set_iomem(t, write_file("iomem", text, len)), HIB_OK);
	ck_assert_msg(strstr(hib_target_error(t), why) != NULL, "'%s' lacks '%s'",
		      hib_target_error(t), why);
	ck_assert_msg(strstr(hib_target_error(t), "/iomem") != NULL, "no file in '%s'",
		      hib_target_error(t));
	hib_target_free(t);
}

static void iomem_fails(const char *text, const char *why)
{
	iomem_fails_n(text, strlen(text), why);
}

START_TEST(iomem_malformed)
{
	mk_tmpdir();
	iomem_fails("", "no ranges");
	iomem_fails("00000000-00000000 : Reserved\n00000000-00000000 : System RAM\n",
		    "not root");
	iomem_fails("00001000 System RAM\n", "line 1: not 'start-end : name'");
	iomem_fails("00001000-0009fbff : System RAM\nxyz-0009fbff : Reserved\n",
		    "line 2: 'xyz' is not a hex address");
	iomem_fails("0009fbff-00001000 : System RAM\n", "end below start");
	iomem_fails_n("\x01\x02\0\x03", 4, "binary data");
	rm_tmpdir();
}
END_TEST

static const char *facs(uint32_t len_field, size_t len, const char *sig, uint32_t hw)
{
	unsigned char b[128] = { 0 };

	memcpy(b, sig, 4);
	put_le(b + 4, len_field, 4);
	put_le(b + 8, hw, 4);
	b[32] = 2;                                  /* version */
	return write_file("FACS", b, len);
}

START_TEST(facs_table)
{
	struct hib_target *t = hib_target_new();

	mk_tmpdir();
	ck_assert_int_eq(hib_target_set_facs(t, facs(64, 64, "FACS", 0x1234abcd)), HIB_OK);
	ck_assert_int_eq(hib_target_info(t)->have_facs, 1);
	ck_assert_uint_eq(hib_target_info(t)->hw_signature, 0x1234abcd);
	hib_target_free(t);
	t = hib_target_new();
	ck_assert_int_ne(hib_target_set_facs(t, facs(64, 64, "DSDT", 1)), HIB_OK);
	ck_assert(strstr(hib_target_error(t), "not an ACPI FACS table") != NULL);
	ck_assert_int_eq(hib_target_info(t)->have_facs, 0);
	ck_assert_int_ne(hib_target_set_facs(t, facs(64, 40, "FACS", 1)), HIB_OK);
	ck_assert(strstr(hib_target_error(t), "40 bytes, but its header says 64") != NULL);
	ck_assert_int_ne(hib_target_set_facs(t, facs(32, 32, "FACS", 1)), HIB_OK);
	ck_assert(strstr(hib_target_error(t), "32 bytes, a FACS has at least 64") != NULL);
	ck_assert_int_ne(hib_target_set_facs(t, facs(64, 3, "FACS", 1)), HIB_OK);
	ck_assert(strstr(hib_target_error(t), "shorter than its signature") != NULL);
	ck_assert(strstr(hib_target_error(t), "/FACS") != NULL);
	ck_assert_int_eq(hib_target_info(t)->have_facs, 0);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

START_TEST(config_fixture_kernels)
{
	struct { const char *name; const char *release; } k[] = {
		{ "k61", "6.1.192-hibimg" }, { "k612", "6.12.117-hibimg" },
	};
	size_t i;

	for (i = 0; i < 2; i++) {
		struct hib_target *t = hib_target_new();
		const struct hib_target_info *in;
		char path[512], ver[512];
		struct sidecar sc;
		unsigned int want;

		snprintf(path, sizeof(path), "%s/fixtures/kernels/%s.config", getenv("top_srcdir"), k[i].name);
		snprintf(ver, sizeof(ver), "%s/fixtures/kernels/%s.version", getenv("top_srcdir"), k[i].name);
		ck_assert_int_eq(sidecar_load(ver, &sc), 0);
		ck_assert_str_eq(sidecar_get(&sc, "kernel_release"), k[i].release);
		ck_assert_int_eq(hib_target_set_config(t, path), HIB_OK);
		in = hib_target_info(t);
		/* the header's version: kernel_release without its suffix */
		want = (unsigned int)(strtoul(k[i].release, NULL, 10) << 16) |
		       (unsigned int)(strtoul(strchr(k[i].release, '.') + 1, NULL, 10) << 8) |
		       (unsigned int)strtoul(strrchr(k[i].release, '.') + 1, NULL, 10);
		ck_assert_uint_eq(in->kver, want);
		ck_assert_str_eq(in->kernel_from, "config file");
		ck_assert_int_eq(in->arch, HIB_TARCH_X86_64);
		ck_assert_uint_eq(in->page_size, 4096);
		ck_assert_str_eq(hib_target_config(t, "CONFIG_HIBERNATION"), "y");
		ck_assert_str_eq(hib_target_config(t, "CONFIG_DYNAMIC_DEBUG"), "n");
		ck_assert_str_eq(hib_target_config(t, "CONFIG_NO_SUCH_SYMBOL"), "n");
		ck_assert_str_eq(hib_target_config(t, "CONFIG_LOCALVERSION"), "-hibimg");
		ck_assert_str_eq(in->release, "");     /* a config names no build */
		hib_target_free(t);
	}
}
END_TEST

START_TEST(config_malformed)
{
	struct hib_target *t = hib_target_new();
	static const char bin[] = "CONFIG_X=y\n\0\1";

	mk_tmpdir();
	ck_assert_ptr_null(hib_target_config(t, "CONFIG_HIBERNATION"));
	ck_assert_int_ne(hib_target_set_config(t, write_file("config", "hello\n", 6)), HIB_OK);
	ck_assert(strstr(hib_target_error(t), "not a kernel configuration") != NULL);
	ck_assert_int_ne(hib_target_set_config(t, write_file("config", bin, sizeof(bin))), HIB_OK);
	ck_assert_int_ne(hib_target_set_config(t, tmpdir), HIB_OK);
	ck_assert(strstr(hib_target_error(t), "a directory") != NULL);
	ck_assert_ptr_null(hib_target_config(t, "CONFIG_X"));
	ck_assert_int_eq(hib_target_info(t)->have_config, 0);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

/* an efivarfs file: u32 attributes (NV|BS|RT), then the variable's data,
 * the JSON in UTF-16LE with its NUL as efi_set_variable_string() stores it
 * (what systemd 257 wrote and read under OVMF, fixtures/check-doctor-systemd.sh);
 * the text here is ASCII, so each unit is the byte and a zero */
static const char *efivar_file(const char *json)
{
	static char buf[2048];
	size_t i, n = strlen(json);

	memcpy(buf, "\x07\0\0\0", 4);
	for (i = 0; i <= n; i++) {
		buf[4 + 2 * i] = json[i];
		buf[5 + 2 * i] = 0;
	}
	return write_file("HibernateLocation", buf, 4 + 2 * (n + 1));
}

/* the object systemd-sleep writes (src/sleep/sleep.c) */
START_TEST(efivar_systemd_object)
{
	struct hib_target *t = hib_target_new();
	const struct hib_target_info *in = hib_target_info(t);
	static const unsigned char u[16] = { 0x9d, 0x83, 0xe3, 0x5a, 0x1d, 0xa0, 0x47, 0xc3,
					     0xbb, 0xaf, 0x45, 0x86, 0x51, 0xc0, 0x96, 0x4a };

	mk_tmpdir();
	ck_assert_int_eq(in->have_efivar, 0);
	ck_assert_int_eq(hib_target_set_efivar(t, efivar_file(
		"{ \"uuid\" : \"9d83e35a-1da0-47c3-bbaf-458651c0964a\", \"offset\" : 34816,\n"
		"  \"kernelVersion\" : \"6.12.117-hibimg\", \"osReleaseId\" : \"debian\",\n"
		"  \"osReleaseVersionId\" : \"12\" }\n")), HIB_OK);
	ck_assert_int_eq(in->have_efivar, 1);
	ck_assert_mem_eq(in->efi_uuid, u, 16);
	ck_assert_uint_eq(in->efi_offset, 34816);
	ck_assert_str_eq(in->efi_kernel, "6.12.117-hibimg");
	ck_assert_str_eq(in->efi_os_id, "debian");
	ck_assert_str_eq(in->efi_os_version_id, "12");
	ck_assert_int_eq(in->efi_status, HIB_EFI_READ);
	hib_target_free(t);

	/* sd_id128 also takes 32 digits, json_dispatch_uint64 a decimal string */
	t = hib_target_new();
	in = hib_target_info(t);
	ck_assert_int_eq(hib_target_set_efivar(t, efivar_file(
		"{\"uuid\":\"9D83E35A1DA047C3BBAF458651C0964A\",\"offset\":\"7\",\"x\":null}")), HIB_OK);
	ck_assert_mem_eq(in->efi_uuid, u, 16);
	ck_assert_uint_eq(in->efi_offset, 7);
	ck_assert_str_eq(in->efi_kernel, "");
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

START_TEST(efivar_malformed)
{
	/* st: what systemd makes of it (hibimg's reading of sd_json_parse and
	 * sd_json_dispatch); the UTF-8 object is what systemd-sleep writes,
	 * stored as bytes: systemd 257 logged "Failed to parse HibernateLocation
	 * JSON object: Invalid argument" for it (fixtures/check-doctor-systemd.sh) */
	enum { J = HIB_EFI_NOT_JSON, F = HIB_EFI_BAD_FIELD, U = HIB_EFI_UNKNOWN };
	static const struct { const char *json; const char *err; int st; } bad[] = {
		{ "", "an efivarfs file holds 4 of attributes", U },
		{ "hello", "not a JSON object", J },
		{ "{\"offset\":0}", "no \"uuid\"", F },
		{ "{\"uuid\":\"9d83e35a-1da0-47c3-bbaf-458651c0964a\"}", "no \"offset\"", F },
		{ "{\"uuid\":12,\"offset\":0}", "\"uuid\" is not a string", F },
		{ "{\"uuid\":\"9d83e35a\",\"offset\":0}", "is not a UUID", F },
		{ "{\"uuid\":\"9d83e35a-1da0-47c3-bbaf-458651c0964a\",\"offset\":-1}", "not an unsigned integer", F },
		{ "{\"uuid\":\"9d83e35a-1da0-47c3-bbaf-458651c0964a\",\"offset\":1.5}", "not an unsigned integer", F },
		{ "{\"uuid\":\"9d83e35a-1da0-47c3-bbaf-458651c0964a\",\"offset\":99999999999999999999}",
		  "not an unsigned integer", F },
		{ "{\"uuid\":\"9d83e35a-1da0-47c3-bbaf-458651c0964a\",\"offset\":0", "not JSON", J },
		{ "{\"uuid\":\"9d83e35a-1da0-47c3-bbaf-458651c0964a\",\"offset\":0} x", "data after the object", J },
		{ "{\"uuid\":\"9d83e35a-1da0-47c3-bbaf-458651c0964a\",\"offset\":0,\"a\":{}}", "a value this does not read", U },
		{ "{\"uuid\":\"9d83e35a-1da0-47c3-bbaf-458651c0964a", "not a JSON string", J },
		{ "{\"uuid\":\"9d83e35a-1da0-47c3-bbaf-458651c0964a\",\"offset\":0}", "not a JSON object", J },
	};
	size_t i, last = sizeof(bad) / sizeof(bad[0]) - 1;

	mk_tmpdir();
	for (i = 0; i <= last; i++) {
		struct hib_target *t = hib_target_new();
		const char *path = !i ? write_file("HibernateLocation", "\7\0\0\0", 4) :
				   i == last ? write_file("HibernateLocation", "\7\0\0\0{\"uuid\":\"9d83e35a-1da0-47c3-bbaf-"
							  "458651c0964a\",\"offset\":0}", 4 + 58) :
				   efivar_file(bad[i].json);

		ck_assert_int_ne(hib_target_set_efivar(t, path), HIB_OK);
		ck_assert_msg(strstr(hib_target_error(t), bad[i].err) && strstr(hib_target_error(t), path),
			      "case %zu: %s", i, hib_target_error(t));
		ck_assert_int_eq(hib_target_info(t)->have_efivar, 0);
		ck_assert_int_eq(hib_target_info(t)->efi_status, bad[i].st);
		/* systemd names the first of its table missing: uuid, then offset */
		ck_assert_str_eq(hib_target_info(t)->efi_missing, i == 2 ? "uuid" : i == 3 ? "offset" : "");
		ck_assert_str_eq(hib_target_problem(t, 0), hib_target_error(t));
		hib_target_free(t);
	}
	rm_tmpdir();
}
END_TEST

/* os-release(5)'s forms: bare, "..." with its escapes, '...', comments;
 * the expected strings are the ones sh would give the assignments */
START_TEST(os_release_forms)
{
	static const struct { const char *text; const char *id, *image_id; } ok[] = {
		{ "NAME=\"Debian GNU/Linux\"\nID=debian\nVERSION_ID=\"12\"\n", "debian", "" },
		{ "# comment\n\n  ID='fedora'\nIMAGE_ID=\"kiosk \\\"a\\\"\"\n", "fedora", "kiosk \"a\"" },
		{ "ID=arch # trailing comment\nIMAGE_ID=x\\ y", "arch", "x y" },
		{ "ID=\"\"\n", "", "" },
	};
	static const struct { const char *text; const char *err; } bad[] = {
		{ "ID=\"debian\n", "line 1: a quote left open" },
		{ "NAME=x\nwhat\n", "line 2: not KEY=value" },
	};
	size_t i;

	mk_tmpdir();
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct hib_target *t = hib_target_new();
		const struct hib_target_info *in = hib_target_info(t);

		ck_assert_int_eq(hib_target_set_os_release(t, write_file("os-release", ok[i].text,
									  strlen(ok[i].text))), HIB_OK);
		ck_assert_int_eq(in->have_os_release, 1);
		ck_assert_str_eq(in->os_id, ok[i].id);
		ck_assert_str_eq(in->os_image_id, ok[i].image_id);
		hib_target_free(t);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hib_target *t = hib_target_new();
		const char *path = write_file("os-release", bad[i].text, strlen(bad[i].text));

		ck_assert_int_ne(hib_target_set_os_release(t, path), HIB_OK);
		ck_assert_msg(strstr(hib_target_error(t), bad[i].err) && strstr(hib_target_error(t), path),
			      "case %zu: %s", i, hib_target_error(t));
		ck_assert_int_eq(hib_target_info(t)->have_os_release, 0);
		hib_target_free(t);
	}
	rm_tmpdir();
}
END_TEST

/* --here on a tree laid out as a running system shows it */
START_TEST(here_tree)
{
	struct hib_target *t = hib_target_new();
	const struct hib_target_info *in;

	mk_tmpdir();
	mkdirs("proc/sys/kernel");
	mkdirs("sys/power");
	mkdirs("sys/kernel/security");
	put("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/vda1 resume=UUID=1234 resume_offset=2321 "
	    "acpi_sleep=s3_bios,s4_hwsig quiet\n");
	put("sys/power/resume", "254:0\n");
	put("sys/power/resume_offset", "0\n");
	put("sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
	put("proc/sys/kernel/osrelease", "6.12.117-hibimg\n");
	put("proc/sys/kernel/version", "#1 SMP Tue Dec  1 00:41:07 UTC 2026\n");
	put("proc/sys/kernel/arch", "x86_64\n");
	put("proc/zoneinfo", "Node 0, zone      DMA\n  pages free     3\n        present  3998\n"
	    "Node 0, zone    DMA32\n  pages free     9\n        present  12253\n");
	put("proc/iomem", iomem_64m);
	/* under systemd's vendor GUID (EFI_VENDOR_SYSTEMD), as efivarfs names it */
	mkdirs("sys/firmware/efi/efivars");
	{
		char to[1024];

		snprintf(to, sizeof(to), "%s/sys/firmware/efi/efivars/"
			 "HibernateLocation-8cf2644b-4b0b-428f-9387-6d876050dc67", tmpdir);
		ck_assert_int_eq(rename(efivar_file("{\"uuid\":\"9d83e35a-1da0-47c3-bbaf-458651c0964a\","
						    "\"offset\":5}"), to), 0);
	}
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	in = hib_target_info(t);
	ck_assert_int_eq(in->have_cmdline, 1);
	ck_assert_str_eq(in->resume, "UUID=1234");
	ck_assert_int_eq(in->have_resume_offset, 1);
	ck_assert_uint_eq(in->resume_offset, 2321);    /* the command line's wins */
	ck_assert_int_eq(in->s4_hwsig, 1);
	ck_assert_int_eq(in->noresume, 0);
	ck_assert_str_eq(in->resume_dev, "254:0");
	ck_assert_int_eq(in->lockdown, 1);
	ck_assert_str_eq(in->release, "6.12.117-hibimg");
	ck_assert_str_eq(in->version, "#1 SMP Tue Dec  1 00:41:07 UTC 2026");
	ck_assert_str_eq(in->kernel_from, "running kernel");
	ck_assert_int_eq(in->arch, HIB_TARCH_X86_64);
	ck_assert_uint_eq(in->kver, (6u << 16) | (12u << 8) | 117u);
	ck_assert_uint_eq(in->physpages, 3998 + 12253);
	ck_assert_str_eq(in->physpages_from, "/proc/zoneinfo");
	ck_assert_str_eq(in->mem_from, "/proc/iomem");
	ck_assert_int_eq(in->have_facs, 0);
	ck_assert_int_eq(in->have_efivar, 1);
	ck_assert_uint_eq(in->efi_offset, 5);
	hib_target_free(t);

	/* noresume and its spellings */
	put("proc/cmdline", "root=/dev/vda1 hibernate=noresume\n");
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_int_eq(hib_target_info(t)->noresume, 1);
	ck_assert_int_eq(hib_target_info(t)->nohibernate, 0);
	hib_target_free(t);
	put("proc/cmdline", "root=/dev/vda1 hibernate=no\n");
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_int_eq(hib_target_info(t)->nohibernate, 1);
	hib_target_free(t);
	put("proc/cmdline", "root=/dev/vda1 hibernate=nocompress\n");
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_int_eq(hib_target_info(t)->noresume, 0);
	hib_target_free(t);
	t = hib_target_new();
	ck_assert_int_ne(hib_target_set_here(t, "/nonexistent/root"), HIB_OK);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

/* The state check-doctor's live guests found (fixtures/guest/init,
 * hibimg.here=1): an initramfs with devtmpfs and no udev, so no
 * /dev/block links; resume= on the command line while /sys/power/resume
 * still reads 0:0 (the disk's driver loaded after the late initcall); no
 * /sys/firmware/memmap (kernels without CONFIG_FIRMWARE_MEMMAP), the
 * firmware table only in the kernel's log; the shell that runs hibimg and
 * then writes /sys/power/resume. */
START_TEST(here_live_guest)
{
	static const struct { const char *resume, *sysfs, *want; } areas[] = {
		{ "/dev/vda", "0:0", "/dev/vda" },
		{ "254:0", "0:0", "/dev/vda" },         /* DEVNAME= of its uevent */
		{ "fe00", "0:0", "/dev/vda" },          /* new_decode_dev(0xfe00) */
		{ "/dev/vdb", "0:0", "" },              /* not there */
		{ "UUID=1234", "0:0", "" },             /* a tag: libblkid, "/" only */
		{ "/dev/vdb", "254:0", "/dev/vda" },    /* sysfs wins: it is what the kernel took */
	};
	struct hib_target *t, *ref;
	const struct hib_target_info *in;
	char rel[64], log[1024], cmd[2048], mm[1024], want[1200];
	size_t i, k;

	mk_tmpdir();
	mkdirs("proc/sys/kernel");
	mkdirs("sys/power");
	mkdirs("sys/dev/block/254:0");
	mkdirs("dev");
	put("proc/sys/kernel/osrelease", "6.12.117-hibimg\n");
	put("proc/sys/kernel/arch", "x86_64\n");
	put("sys/dev/block/254:0/uevent", "MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n");
	put("dev/vda", "");
	snprintf(rel, sizeof(rel), "proc/%ld", (long)getppid());
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "proc/%ld/comm", (long)getppid());
	put(rel, "init.hibimg\n");
	for (i = 0; i < sizeof(areas) / sizeof(areas[0]); i++) {
		char line[256];

		snprintf(line, sizeof(line), "console=ttyS0 resume=%s resume_offset=0 hibimg.here=1\n",
			 areas[i].resume);
		put("proc/cmdline", line);
		snprintf(line, sizeof(line), "%s\n", areas[i].sysfs);
		put("sys/power/resume", line);
		t = hib_target_new();
		ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
		in = hib_target_info(t);
		if (areas[i].want[0])
			snprintf(want, sizeof(want), "%s%s", tmpdir, areas[i].want);
		else
			want[0] = 0;
		ck_assert_msg(!strcmp(in->resume_path, want), "case %zu: '%s', not '%s'", i,
			      in->resume_path, want);
		ck_assert_str_eq(in->resume_task, "init.hibimg");
		hib_target_free(t);
	}
	/* udev's link, where there is one, names the same device */
	mkdirs("dev/block");
	put("dev/block/254:0", "");
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	snprintf(want, sizeof(want), "%s/dev/block/254:0", tmpdir);
	ck_assert_str_eq(hib_target_info(t)->resume_path, want);
	hib_target_free(t);

	/* the firmware table from the kernel log: the BIOS-e820 lines of the
	 * 96M boot give the entries the guest's sysfs copy holds, and the
	 * CRC-32 fixtures/README.md records for it (= k612-lzo-full's e820_check) */
	fixture_src(log, sizeof(log), "memmap/96M", "log");
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/dev/kmsg'", log, tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	in = hib_target_info(t);
	ck_assert_str_eq(in->mem_from, "kernel log (BIOS-e820)");
	ck_assert_int_eq(in->have_e820, 1);
	ck_assert_uint_eq(in->e820_crc32, 0x21b12a26u);
	ref = hib_target_new();
	snprintf(mm, sizeof(mm), "%s/fixtures/memmap/96M", getenv("top_srcdir"));
	ck_assert_int_eq(hib_target_set_memmap(ref, mm), HIB_OK);
	ck_assert_uint_eq(in->mem_ranges, hib_target_info(ref)->mem_ranges);
	for (k = 0; k < in->mem_ranges; k++) {
		const struct hib_mem_range *a = hib_target_mem_range(t, k), *b = hib_target_mem_range(ref, k);

		ck_assert_uint_eq(a->start, b->start);
		ck_assert_uint_eq(a->end, b->end);
		ck_assert_str_eq(a->type, b->type);
	}
	ck_assert_uint_eq(in->e820_crc32, hib_target_info(ref)->e820_crc32);
	hib_target_free(ref);
	hib_target_free(t);

	/* /dev/kmsg's own records: "prio,seq,usec,flags;text", a dictionary
	 * line after; the run of BIOS-e820 lines ends at the first other one */
	put("dev/kmsg", "6,0,0,-;Linux version 6.12.117-hibimg\n"
	    "6,1,0,-;BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable\n"
	    " SUBSYSTEM=none\n"
	    "6,2,0,-;BIOS-e820: [mem 0x000000000009fc00-0x000000000009ffff] reserved\n"
	    "6,3,0,-;BIOS-e820: [mem 0x0000000000100000-0x0000000003fdcfff] usable\n"
	    "6,4,0,-;NX (Execute Disable) protection: active\n"
	    "6,5,0,-;BIOS-e820: [mem 0x00000000fffc0000-0x00000000ffffffff] reserved\n");
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	in = hib_target_info(t);
	ck_assert_str_eq(in->mem_from, "kernel log (BIOS-e820)");
	ck_assert_uint_eq(in->mem_ranges, 3);
	ck_assert_str_eq(hib_target_mem_range(t, 1)->type, "Reserved");
	ck_assert_uint_eq(hib_target_mem_range(t, 2)->end, 0x3fdcfff);
	hib_target_free(t);
	/* a log that wrapped since boot: /proc/iomem, as before */
	put("dev/kmsg", "6,900,0,-;random: crng init done\n");
	put("proc/iomem", iomem_64m);
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_str_eq(hib_target_info(t)->mem_from, "/proc/iomem");
	ck_assert_int_eq(hib_target_info(t)->have_e820, 0);
	hib_target_free(t);
	/* a line cut short: a problem-free fallback too, never a half table */
	put("dev/kmsg", "6,1,0,-;BIOS-e820: [mem 0x0000000000000000-\n");
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_str_eq(hib_target_info(t)->mem_from, "/proc/iomem");
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

/* Lockdown names the task that asked (lockdown_is_locked_down(): "Lockdown:
 * %s: %s is restricted", current->comm): swapper/0 for the boot's late
 * initcall, the writer of /sys/power/resume on the running machine. The
 * 6.1 and 6.12 stock kernels printed both lines in check-doctor's
 * stock-lockdown cases. */
START_TEST(here_lockdown_task)
{
	struct hib_check_result *res;
	struct hib_target *t;
	struct hib_image *img;
	char path[1024], rel[64];
	int live;

	fixture_img(path, sizeof(path), "k612-lzo");
	for (live = 0; live < 2; live++) {
		mk_tmpdir();
		mkdirs("proc/sys/kernel");
		mkdirs("sys/kernel/security");
		put("proc/cmdline", "console=ttyS0 lockdown=integrity\n");
		put("sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
		if (live) {
			/* with the running kernel's file where --here looks */
			char cmd[2048];

			mkdirs("boot");
			snprintf(cmd, sizeof(cmd), "zstd -q -d -f '%s/fixtures/kernels/k612.bzImage.zst' "
				 "-o '%s/boot/vmlinuz-6.12.117-hibimg'", getenv("top_srcdir"), tmpdir);
			ck_assert_int_eq(system(cmd), 0);
			put("proc/sys/kernel/osrelease", "6.12.117-hibimg\n");
			snprintf(rel, sizeof(rel), "proc/%ld", (long)getppid());
			mkdirs(rel);
			snprintf(rel, sizeof(rel), "proc/%ld/comm", (long)getppid());
			put(rel, "init.hibimg\n");
		}
		t = hib_target_new();
		ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
		if (live)
			ck_assert_str_eq(hib_target_info(t)->kernel_from, "kernel file");
		img = hib_image_new();
		ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
		ck_assert_int_eq(hib_check(img, t, NULL, &res), HIB_OK);
		ck_assert_int_eq(hib_check_verdict(res), HIB_VERDICT_NO_RESUME);
		ck_assert_str_eq(hib_check_message(res), live ?
				 "Lockdown: init.hibimg: hibernation is restricted; see man kernel_lockdown.7" :
				 "Lockdown: swapper/0: hibernation is restricted; see man kernel_lockdown.7");
		hib_check_free(res);
		hib_image_free(img);
		hib_target_free(t);
		rm_tmpdir();
	}
	/* no securityfs, and a kernel without the lockdown LSM: none to be in */
	mk_tmpdir();
	mkdirs("proc/sys/kernel");
	mkdirs("boot");
	put("proc/cmdline", "console=ttyS0\n");
	put("proc/sys/kernel/osrelease", "6.12.117-hibimg\n");
	put("boot/config-6.12.117-hibimg", "CONFIG_HIBERNATION=y\n# CONFIG_SECURITY is not set\n");
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_int_eq(hib_target_info(t)->lockdown, -1);
	img = hib_image_new();
	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	ck_assert_int_eq(hib_check(img, t, NULL, &res), HIB_OK);
	for (live = 0; strcmp(hib_check_get(res, (size_t)live)->name, "hibernation"); live++)
		;
	ck_assert_int_eq(hib_check_get(res, (size_t)live)->status, HIB_CHECK_PASS);
	ck_assert(strstr(hib_check_get(res, (size_t)live)->detail, "no CONFIG_SECURITY_LOCKDOWN_LSM") != NULL);
	hib_check_free(res);
	hib_image_free(img);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

/* The compression row of an lz4 image (fixtures/k612-lz4) under a running
 * 6.12 whose config has CONFIG_CRYPTO_LZ4=m, as Debian's: crypto_has_comp()
 * finds lz4 registered, or request_module("crypto-lz4") loads it through
 * modules.alias, modules.dep and the modprobe /proc/sys/kernel/modprobe
 * names. What Debian 6.12 did with each (check-doctor stock-lz4-mod,
 * -nomod, -nomodprobe): resumed, or printed the line asserted here. */
static enum hib_check_status codec_row(const char *detail_has, const char *msg)
{
	struct hib_check_result *res;
	struct hib_target *t = hib_target_new();
	struct hib_image *img = hib_image_new();
	const struct hib_check_item *it = NULL;
	enum hib_check_status st;
	char path[1024];
	size_t i;

	fixture_img(path, sizeof(path), "k612-lz4");
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_int_eq(hib_image_open(img, path), HIB_OK);
	ck_assert_int_eq(hib_check(img, t, NULL, &res), HIB_OK);
	for (i = 0; i < hib_check_count(res); i++)
		if (!strcmp(hib_check_get(res, i)->name, "compression"))
			it = hib_check_get(res, i);
	ck_assert_ptr_nonnull(it);
	st = it->status;
	ck_assert_msg(strstr(it->detail, detail_has) != NULL, "detail '%s' lacks '%s'", it->detail, detail_has);
	if (msg) {
		ck_assert_str_eq(it->message, msg);
		ck_assert_int_eq(hib_check_verdict(res), HIB_VERDICT_NO_RESUME);
		ck_assert_str_eq(hib_check_message(res), msg);
	} else {
		ck_assert_ptr_null(it->message);
	}
	hib_check_free(res);
	hib_image_free(img);
	hib_target_free(t);
	return st;
}

START_TEST(here_codec_module)
{
	static const char na[] = "PM: hibernation: lz4 compression is not available";
	const char *m = "lib/modules/6.12.117-hibimg";
	char rel[256];

	mk_tmpdir();
	mkdirs("proc/sys/kernel");
	mkdirs("boot");
	mkdirs("sbin");
	mkdirs(m);
	put("proc/cmdline", "console=ttyS0\n");
	put("proc/sys/kernel/osrelease", "6.12.117-hibimg\n");
	put("boot/config-6.12.117-hibimg", "CONFIG_HIBERNATION=y\nCONFIG_CRYPTO_LZO=y\nCONFIG_CRYPTO_LZ4=m\n");
	/* no /proc/crypto: not a running kernel's tree, nothing to go by */
	ck_assert_int_eq(codec_row("CONFIG_CRYPTO_LZ4=m: the kernel finds it only where", NULL), HIB_CHECK_UNKNOWN);
	/* the lzo the 6.12 guest's /proc/crypto lists, lz4 nowhere */
	put("proc/crypto", "name         : lzo\ndriver       : lzo-generic\nmodule       : kernel\n\n"
	    "name         : lzo-rle\ndriver       : lzo-rle-generic\n\n");
	put("proc/sys/kernel/modprobe", "/sbin/modprobe\n");
	put("sbin/modprobe", "#!/bin/sh\n");
	ck_assert_int_eq(chmod(strcat(strcpy(rel, tmpdir), "/sbin/modprobe"), 0755), 0);
	ck_assert_int_eq(codec_row("no /lib/modules/6.12.117-hibimg/modules.dep names lz4.ko", na), HIB_CHECK_FAIL);
	/* lz4hc.ko is not lz4.ko */
	snprintf(rel, sizeof(rel), "%s/modules.dep", m);
	put(rel, "kernel/crypto/lz4hc.ko: kernel/lib/lz4/lz4hc_compress.ko\n");
	ck_assert_int_eq(codec_row("modules.dep names lz4.ko", na), HIB_CHECK_FAIL);
	/* Debian's lines (its modules.dep, .ko.xz): the module, its alias absent */
	put(rel, "kernel/crypto/lz4.ko.xz: kernel/lib/lz4/lz4_compress.ko.xz\nkernel/lib/lz4/lz4_compress.ko.xz:\n");
	ck_assert_int_eq(codec_row("no /lib/modules/6.12.117-hibimg/modules.alias maps crypto-lz4", na), HIB_CHECK_FAIL);
	snprintf(rel, sizeof(rel), "%s/modules.alias", m);
	put(rel, "# Aliases extracted from modules themselves.\nalias crypto-lz4hc lz4hc\nalias crypto-lz4 lz4\nalias lz4 lz4\n");
	ck_assert_int_eq(codec_row("and /sbin/modprobe loads it", NULL), HIB_CHECK_PASS);
	/* request_module() with no helper: an empty path turns it off */
	put("proc/sys/kernel/modprobe", "\n");
	ck_assert_int_eq(codec_row("/proc/sys/kernel/modprobe is empty", na), HIB_CHECK_FAIL);
	put("proc/sys/kernel/modprobe", "/usr/sbin/modprobe\n");
	ck_assert_int_eq(codec_row("no modprobe at /usr/sbin/modprobe", na), HIB_CHECK_FAIL);
	/* already registered (loaded before): no module needed */
	put("proc/crypto", "name         : lz4\ndriver       : lz4-generic\nmodule       : lz4\n\n");
	ck_assert_int_eq(codec_row("lz4 is registered (/proc/crypto)", NULL), HIB_CHECK_PASS);
	/* built in although the config says =m: the tree is this kernel's */
	put("proc/crypto", "name         : lzo\n\n");
	snprintf(rel, sizeof(rel), "%s/modules.builtin", m);
	put(rel, "kernel/crypto/lzo.ko\nkernel/crypto/lz4.ko\n");
	ck_assert_int_eq(codec_row("lz4.ko is built in", NULL), HIB_CHECK_PASS);
	rm_tmpdir();
}
END_TEST

/* --cpus: MPIDRs as strtoull base 0 reads them; anything else is named */
START_TEST(cpus_list)
{
	static const char *const bad[] = { "", "0x1,", ",0x1", "0x1,,0x2", "-1", "0x1 0x2", "zz",
					   "0x10000000000000000" };
	struct hib_target *t = hib_target_new();
	const uint64_t *c;
	size_t n, i;

	ck_assert_ptr_null(hib_target_cpus(t, &n));
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(hib_target_set_cpus(t, "0x0,0x1,0x100,257"), HIB_OK);
	c = hib_target_cpus(t, &n);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(c[0], 0);
	ck_assert_uint_eq(c[1], 1);
	ck_assert_uint_eq(c[2], 0x100);
	ck_assert_uint_eq(c[3], 0x101);
	ck_assert_str_eq(hib_target_info(t)->cpus_from, "CPU list");
	hib_target_free(t);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = hib_target_new();
		ck_assert_int_ne(hib_target_set_cpus(t, bad[i]), HIB_OK);
		ck_assert_ptr_null(hib_target_cpus(t, &n));
		ck_assert_ptr_null(hib_target_info(t)->cpus_from);
		ck_assert_msg(strstr(hib_target_error(t), "CPU list") != NULL, "%s: %s", bad[i],
			      hib_target_error(t));
		ck_assert_str_eq(hib_target_problem(t, 0), hib_target_error(t));
		hib_target_free(t);
	}
}
END_TEST

static void put_bytes(const char *rel, const unsigned char *b, size_t len)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* --here on arm64: the CPUs are the device tree's cpu@ nodes, reg in one
 * or two big-endian cells (QEMU virt writes one: 00000000, 00000001) */
START_TEST(here_device_tree_cpus)
{
	static const unsigned char one[4] = { 0, 0, 0, 1 }, two[8] = { 0, 0, 0, 0, 0, 0, 1, 1 },
				   three[3] = { 0, 0, 1 };
	struct hib_target *t = hib_target_new();
	const uint64_t *c;
	size_t n;

	mk_tmpdir();
	mkdirs("proc/sys/kernel");
	put("proc/sys/kernel/osrelease", "6.1.0-57-arm64\n");
	put("proc/sys/kernel/version", "#1 SMP Debian 6.1.192-3 (2026-11-26)\n");
	put("proc/sys/kernel/arch", "aarch64\n");
	/* an ACPI machine: no device tree, said */
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_ptr_null(hib_target_cpus(t, &n));
	ck_assert(strstr(hib_target_problem(t, 0), "MADT") != NULL);
	hib_target_free(t);

	mkdirs("sys/firmware/devicetree/base/cpus/cpu@1");
	mkdirs("sys/firmware/devicetree/base/cpus/cpu@101");
	mkdirs("sys/firmware/devicetree/base/cpus/cpu-map/cluster0");
	put_bytes("sys/firmware/devicetree/base/cpus/cpu@1/reg", one, sizeof(one));
	put_bytes("sys/firmware/devicetree/base/cpus/cpu@101/reg", two, sizeof(two));
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	c = hib_target_cpus(t, &n);
	ck_assert_uint_eq(n, 2);
	/* readdir's order: either */
	ck_assert((c[0] == 1 && c[1] == 0x101) || (c[0] == 0x101 && c[1] == 1));
	ck_assert_str_eq(hib_target_info(t)->cpus_from, "device tree");
	hib_target_free(t);
	/* --cpus given first wins over the tree */
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_cpus(t, "0x7"), HIB_OK);
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	c = hib_target_cpus(t, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(c[0], 7);
	hib_target_free(t);
	/* a reg of neither one nor two cells: named, the CPUs unknown */
	put_bytes("sys/firmware/devicetree/base/cpus/cpu@101/reg", three, sizeof(three));
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_ptr_null(hib_target_cpus(t, &n));
	ck_assert(strstr(hib_target_problem(t, 0), "cpu@101/reg: 3 bytes, not one or two cells") != NULL);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

/* an ACPI MADT: header, GIC base, flags, then the entries (ACPICA actbl2.h) */
static size_t madt(unsigned char *b, const uint64_t *mpidr, const uint32_t *flags, size_t n)
{
	size_t len = 44, i;

	memset(b, 0, 1024);
	memcpy(b, "APIC", 4);
	b[44] = 0x0c;           /* a GIC distributor entry first, 24 bytes */
	b[45] = 24;
	len += 24;
	for (i = 0; i < n; i++) {
		unsigned char *e = b + len;
		int k;

		e[0] = 0x0b;    /* GICC, the ACPI 6.0 length */
		e[1] = 80;
		for (k = 0; k < 4; k++)
			e[12 + k] = (unsigned char)(flags[i] >> (8 * k));
		for (k = 0; k < 8; k++)
			e[68 + k] = (unsigned char)(mpidr[i] >> (8 * k));
		len += 80;
	}
	for (i = 0; i < 4; i++)
		b[4 + i] = (unsigned char)(len >> (8 * i));
	return len;
}

/* --here on an ACPI arm64 machine: the enabled (or online-capable) GICCs */
START_TEST(here_madt_cpus)
{
	static const uint64_t mpidr[3] = { 0x0, 0x10000, 0x5 };
	static const uint32_t flags[3] = { 1, 8, 0 };
	unsigned char b[1024];
	struct hib_target *t;
	const uint64_t *c;
	size_t n, len;
	char log[512], *text, *p, *q;

	mk_tmpdir();
	mkdirs("proc/sys/kernel");
	mkdirs("sys/firmware/acpi/tables");
	put("proc/sys/kernel/osrelease", "6.1.0-57-arm64\n");
	put("proc/sys/kernel/version", "#1 SMP Debian 6.1.192-3 (2026-11-26)\n");
	put("proc/sys/kernel/arch", "aarch64\n");
	len = madt(b, mpidr, flags, 3);
	put_bytes("sys/firmware/acpi/tables/APIC", b, len);
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	c = hib_target_cpus(t, &n);
	ck_assert_uint_eq(n, 2);        /* the disabled one is no CPU the kernel knows */
	ck_assert_uint_eq(c[0], 0);
	ck_assert_uint_eq(c[1], 0x10000);
	ck_assert_str_eq(hib_target_info(t)->cpus_from, "ACPI MADT");
	hib_target_free(t);
	/* not a MADT; a length beyond the file; an entry running past the end */
	put_bytes("sys/firmware/acpi/tables/APIC", (const unsigned char *)"FACP\0\0\0\0", 8);
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_ptr_null(hib_target_cpus(t, &n));
	ck_assert(strstr(hib_target_problem(t, 0), "not an ACPI MADT") != NULL);
	hib_target_free(t);
	b[4] = (unsigned char)(len + 1);
	put_bytes("sys/firmware/acpi/tables/APIC", b, len);
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_ptr_null(hib_target_cpus(t, &n));
	ck_assert(strstr(hib_target_problem(t, 0), "is not what was read") != NULL);
	hib_target_free(t);
	len = madt(b, mpidr, flags, 3);
	b[44 + 24 + 80 + 1] = 200;
	put_bytes("sys/firmware/acpi/tables/APIC", b, len);
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	ck_assert_ptr_null(hib_target_cpus(t, &n));
	ck_assert(strstr(hib_target_problem(t, 0), "has length 200") != NULL);
	hib_target_free(t);

	/* the MADT edk2 gave the guest (its hexdump in the memmap log): the
	 * MPIDRs capture-memmap.sh's python found in it (iomem/.../cpus) */
	snprintf(log, sizeof(log), "%s/fixtures/iomem/arm64-256M-s2-uefi.log", getenv("top_srcdir"));
	text = slurp(log, &len);
	ck_assert_ptr_nonnull(text);
	p = strstr(text, "HIBIMG-MADT ");
	ck_assert_ptr_nonnull(p);
	p += 12;
	for (len = 0, q = p; q[0] && q[1] && q[0] != '\n' && len < sizeof(b); q += 2) {
		char hex[3] = { q[0], q[1], 0 };

		b[len++] = (unsigned char)strtoul(hex, NULL, 16);
	}
	free(text);
	put_bytes("sys/firmware/acpi/tables/APIC", b, len);
	t = hib_target_new();
	ck_assert_int_eq(hib_target_set_here(t, tmpdir), HIB_OK);
	c = hib_target_cpus(t, &n);
	ck_assert_uint_eq(n, 2);
	snprintf(log, sizeof(log), "%s/fixtures/iomem/arm64-256M-s2-uefi/cpus", getenv("top_srcdir"));
	text = slurp(log, &len);
	ck_assert_ptr_nonnull(text);
	{
		char got[64];

		snprintf(got, sizeof(got), "0x%" PRIx64 ",0x%" PRIx64 "\n", c[0], c[1]);
		ck_assert_str_eq(got, text);
	}
	free(text);
	hib_target_free(t);
	rm_tmpdir();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("target");
	TCase *tc = tcase_create("memmap");

	tcase_add_test(tc, memmap_copy_matches_the_image_written_there);
	tcase_add_test(tc, memmap_other_size_other_sums);
	tcase_add_test(tc, memmap_malformed);
	tcase_add_test(tc, memmap_unknown_type_keeps_ranges);
	suite_add_tcase(s, tc);
	tc = tcase_create("iomem");
	tcase_add_test(tc, iomem_ranges);
	tcase_add_test(tc, iomem_malformed);
	suite_add_tcase(s, tc);
	tc = tcase_create("facs");
	tcase_add_test(tc, facs_table);
	suite_add_tcase(s, tc);
	tc = tcase_create("config");
	tcase_add_test(tc, config_fixture_kernels);
	tcase_add_test(tc, config_malformed);
	suite_add_tcase(s, tc);
	tc = tcase_create("here");
	tcase_add_test(tc, here_tree);
	tcase_add_test(tc, here_live_guest);
	tcase_add_test(tc, here_lockdown_task);
	tcase_add_test(tc, here_codec_module);
	tcase_add_test(tc, cpus_list);
	tcase_add_test(tc, here_device_tree_cpus);
	tcase_add_test(tc, here_madt_cpus);
	suite_add_tcase(s, tc);
	tc = tcase_create("efivar");
	tcase_add_test(tc, efivar_systemd_object);
	tcase_add_test(tc, efivar_malformed);
	tcase_add_test(tc, os_release_forms);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(suite());
}
