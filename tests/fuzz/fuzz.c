/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harnesses for every parser that takes bytes from an image.
 *
 * Each harness lays the fuzzer's bytes over one region of a small, valid
 * in-memory swap area (a template built once from real fixture pages by the
 * library's own builder) and then runs everything a user command would:
 * open, load, PFN list, the whole stream with its CRC, identity. The area
 * lives in a memfd and is opened by path, so the real read path is fuzzed.
 *
 *   resume      the resume page (signature, header, swap header)
 *   map         the first swap-map page
 *   info        the swsusp_info page
 *   pfns        the PFN-list page of a raw image
 *   chunk       the first LZO chunk (cmp_len + data, 4 pages)
 *   chunk_lz4   the first LZ4 chunk
 *   whole       the whole area (up to 512 KiB)
 *   uswsusp     the whole area, a suspend-utils (ULSUSPEND) image: no
 *               template, the seeds are images tests/mkuswsusp.py built
 *   export      the first 8 data pages of a raw x86_64 image, one of them
 *               the VMCOREINFO page, then identify and export as raw, LiME
 *               and ELF (the ELF writer parses VMCOREINFO: phys_base,
 *               KERNEL_IMAGE_SIZE)
 *   kernel      a target kernel file (hibimg check --kernel): bzImage,
 *               Image, vmlinux, their compressed payloads; the same bytes
 *               as a kernel config
 *   memmap      a firmware memmap copy: the bytes split at NULs into
 *               start, end, type of entries 0, 1, ...; the same bytes as
 *               /proc/iomem, as a FACS, as a HibernateLocation efivar,
 *               as an os-release and (up to its first NUL) as a --cpus
 *               MPIDR list; and as the /dev/kmsg and
 *               /proc/cmdline of a --here tree (the BIOS-e820 lines,
 *               resume= resolved under the root), and as the ACPI MADT
 *               of an arm64 one
 *   klog        a kernel log (hibimg explain): the bytes split at newlines,
 *               each line through the table of hibernation lines
 *
 * A fuzzer binary is built per harness with -DHARNESS=\"name\". The same
 * file builds a replay driver (-DREPLAY_MAIN) for the default test suite:
 * "fuzz-replay HARNESS FILE|DIR..." runs the harness over those inputs, and
 * "fuzz-replay HARNESS --seed FILE" writes the template's region, the seed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <hibimg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The template's layout (issue 17): a harness name may end in -16k or
 * -64k (arm64's page sizes) or -w4 (a 32-bit kernel's 4-byte words); the
 * rest of the name is the harness. The source pages are 4 KiB pieces of
 * the fixture, as many as a page holds. Larger pages get half the PFNs,
 * one chunk, and an area of 64 pages: 4 MiB at 64K, under the fuzzer's
 * -malloc_limit_mb=8 (the builder sizes the area for the worst case, 35
 * pages a chunk). */
#define SRC_PS 4096
static unsigned int tps = SRC_PS, tword = 8;
#define PS ((size_t)tps)
#define AREA_MAX ((tps == SRC_PS ? 128 : 64) * PS)
#define NPFNS (tps == SRC_PS ? 48 : 24)
static char hbase[32];

/* lib/unpack.c's cap, lowered so that no input makes an allocation the
 * fuzzer's -malloc_limit_mb refuses; absent where the library is linked
 * as a shared object (the replay driver), which needs no such limit */
extern size_t hib_tgt_unpack_cap __attribute__((weak));

static unsigned char *tmpl;       /* template area */
static size_t tmpl_len;
static size_t region_off, region_len;
static int memfd = -1;
static char mempath[64];
#ifdef HARNESS
static const char *harness = HARNESS;
#else
static const char *harness = "whole";
#endif

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void parse_harness(void)
{
	static const struct { const char *suffix; unsigned int ps, word; } lay[] = {
		{ "-16k", 16384, 8 }, { "-64k", 65536, 8 }, { "-w4", 4096, 4 },
	};
	size_t n = strlen(harness), i, k;

	snprintf(hbase, sizeof(hbase), "%s", harness);
	for (i = 0; i < sizeof(lay) / sizeof(lay[0]); i++) {
		k = strlen(lay[i].suffix);
		if (n > k && n - k < sizeof(hbase) && !strcmp(harness + n - k, lay[i].suffix)) {
			hbase[n - k] = 0;
			tps = lay[i].ps;
			tword = lay[i].word;
		}
	}
}

static void open_memfd(void)
{
	memfd = memfd_create("hibimg-fuzz", MFD_CLOEXEC);
	snprintf(mempath, sizeof(mempath), "/proc/self/fd/%d", memfd);
}

/* The harnesses that read no swap area: hibimg check's target files. */
static int target_files(void)
{
	return !strcmp(hbase, "kernel") || !strcmp(hbase, "memmap") ||
	       !strcmp(hbase, "klog");
}

/* Each line of a log, as hibimg explain reads it; every field the table
 * gives is read, so a dangling pointer shows under ASan. */
static void run_klog(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct hib_log_line ll = HIB_INIT(struct hib_log_line);
		volatile size_t sink = 0;

		if (hib_log_explain(p, len, &ll) == 1) {
			if (ll.msg_offset > len)
				abort();
			sink += ll.meaning ? strlen(ll.meaning) : 0;
			sink += ll.next ? strlen(ll.next) : 0;
			sink += ll.id ? strlen(ll.id) : 0;
			sink += strlen(hib_log_kind_name(ll.kind));
			if (ll.nvalues > 2)
				abort();
			sink += strlen(hib_log_quantity_name(ll.quantity[0]));
		}
		(void)sink;
		p += len + 1;
	}
}

static void write_mem(const uint8_t *data, size_t size)
{
	if (ftruncate(memfd, 0) || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
}

static void run_kernel(const uint8_t *data, size_t size)
{
	struct hib_target *t = hib_target_new();

	write_mem(data, size);
	if (hib_target_set_kernel(t, mempath) == 0)
		(void)hib_target_info(t)->release[0];
	if (hib_target_set_config(t, mempath) == 0)
		(void)hib_target_config(t, "CONFIG_CRYPTO_LZ4");
	hib_target_free(t);
}

/* At most 64 entries of three files each, in a directory of this process. */
#define MM_MAX 64
static const char *const mm_files[3] = { "start", "end", "type" };

static void memmap_dir(char *dir, size_t cap)
{
	snprintf(dir, cap, "/dev/shm/hibimg-fuzz-memmap.%d", (int)getpid());
}

static void clear_memmap(const char *dir)
{
	char p[256];
	int i, f;

	for (i = 0; i < MM_MAX; i++) {
		for (f = 0; f < 3; f++) {
			snprintf(p, sizeof(p), "%s/%d/%s", dir, i, mm_files[f]);
			unlink(p);
		}
		snprintf(p, sizeof(p), "%s/%d", dir, i);
		rmdir(p);
	}
	rmdir(dir);
}

static void put_file(const char *dir, const char *rel, const void *b, size_t len)
{
	char p[256];
	FILE *fh;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fh = fopen(p, "wb");
	if (!fh || fwrite(b, 1, len, fh) != len || fclose(fh))
		abort();
}

/* a --here tree under dir: its directories made, and taken down again
 * with the files put in it */
static void tree_make(const char *dir, const char *const *dirs, size_t nd)
{
	char p[256];
	size_t i;

	for (i = 0; i < nd; i++) {
		snprintf(p, sizeof(p), "%s%s", dir, dirs[i]);
		if (mkdir(p, 0700))
			abort();
	}
}

static void tree_remove(const char *dir, const char *const *dirs, size_t nd,
			const char *const *files, size_t nf)
{
	char p[256];

	while (nf-- > 0) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[nf]);
		unlink(p);
	}
	while (nd-- > 0) {
		snprintf(p, sizeof(p), "%s%s", dir, dirs[nd]);
		rmdir(p);
	}
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* an x86 machine's tree for hib_target_set_here(): the bytes as its
 * kernel log and its command line, and as the lists the codec's module is
 * looked for in (here-codec.c) */
static void run_here_tree(const char *dir, const uint8_t *data, size_t size)
{
	static const char *const dirs[] = { "", "/proc", "/proc/sys", "/proc/sys/kernel", "/dev",
					    "/lib", "/lib/modules", "/lib/modules/6.12.117-hibimg" };
	static const char *const files[] = { "proc/sys/kernel/osrelease", "proc/sys/kernel/arch",
					     "dev/kmsg", "proc/cmdline", "proc/crypto",
					     "proc/sys/kernel/modprobe",
					     "lib/modules/6.12.117-hibimg/modules.builtin",
					     "lib/modules/6.12.117-hibimg/modules.dep",
					     "lib/modules/6.12.117-hibimg/modules.alias" };
	struct hib_target *t = hib_target_new();
	size_t i;

	tree_make(dir, dirs, N(dirs));
	put_file(dir, files[0], "6.12.117-hibimg\n", 16);
	put_file(dir, files[1], "x86_64\n", 7);
	for (i = 2; i < N(files); i++)
		put_file(dir, files[i], data, size);
	if (hib_target_set_here(t, dir) == 0)
		(void)hib_target_info(t)->e820_crc32;
	hib_target_free(t);
	tree_remove(dir, dirs, N(dirs), files, N(files));
}

/* an ACPI arm64 machine's tree for hib_target_set_here() (no device tree):
 * the bytes as its MADT, where it reads the CPUs */
static void run_here_madt(const char *dir, const uint8_t *data, size_t size)
{
	static const char *const dirs[] = { "", "/proc", "/proc/sys", "/proc/sys/kernel", "/sys",
					    "/sys/firmware", "/sys/firmware/acpi",
					    "/sys/firmware/acpi/tables" };
	static const char *const files[] = { "proc/sys/kernel/osrelease", "proc/sys/kernel/arch",
					     "sys/firmware/acpi/tables/APIC" };
	struct hib_target *t = hib_target_new();
	size_t n;

	tree_make(dir, dirs, N(dirs));
	put_file(dir, files[0], "6.12.117+deb12-arm64\n", 21);
	put_file(dir, files[1], "aarch64\n", 8);
	put_file(dir, files[2], data, size);
	if (hib_target_set_here(t, dir) == 0)
		(void)hib_target_cpus(t, &n);
	hib_target_free(t);
	tree_remove(dir, dirs, N(dirs), files, N(files));
}

static void run_memmap(const uint8_t *data, size_t size)
{
	struct hib_target *t = hib_target_new();
	char dir[128], p[256];
	size_t pos = 0;
	int i, f;

	memmap_dir(dir, sizeof(dir));
	clear_memmap(dir);
	if (mkdir(dir, 0700))
		abort();
	for (i = 0; i < MM_MAX && pos < size; i++) {
		snprintf(p, sizeof(p), "%s/%d", dir, i);
		if (mkdir(p, 0700))
			abort();
		for (f = 0; f < 3 && pos < size; f++) {
			const uint8_t *e = memchr(data + pos, 0, size - pos);
			size_t len = e ? (size_t)(e - data) - pos : size - pos;
			FILE *fh;

			snprintf(p, sizeof(p), "%s/%d/%s", dir, i, mm_files[f]);
			fh = fopen(p, "wb");
			if (!fh || fwrite(data + pos, 1, len, fh) != len || fclose(fh))
				abort();
			pos += len + 1;
		}
	}
	if (hib_target_set_memmap(t, dir) == 0)
		(void)hib_target_mem_range(t, 0);
	clear_memmap(dir);
	write_mem(data, size);
	if (hib_target_set_iomem(t, mempath) == 0)
		(void)hib_target_info(t)->physpages;
	if (hib_target_set_facs(t, mempath) == 0)
		(void)hib_target_info(t)->hw_signature;
	if (hib_target_set_efivar(t, mempath) == 0)
		(void)hib_target_info(t)->efi_offset;
	if (hib_target_set_os_release(t, mempath) == 0)
		(void)hib_target_info(t)->os_id[0];
	{
		char *list = strndup((const char *)data, size);
		size_t n;

		if (!list)
			abort();
		if (hib_target_set_cpus(t, list) == 0)
			(void)hib_target_cpus(t, &n);
		free(list);
	}
	hib_target_free(t);
	run_here_tree(dir, data, size);
	run_here_madt(dir, data, size);
}

/* The harnesses that take the fuzzer's bytes as the whole area. */
static int whole_area(void)
{
	return !strcmp(hbase, "whole") || !strcmp(hbase, "uswsusp");
}

/* The template: a few dozen pages of the first fixture, rebuilt small. */
static int src_page(void *arg, uint64_t i, unsigned char *page)
{
	const unsigned char *pages = arg;

	size_t k;

	for (k = 0; k < PS / SRC_PS; k++)
		memcpy(page + k * SRC_PS, pages + ((i * (PS / SRC_PS) + k) % 24) * SRC_PS, SRC_PS);
	/* something besides data: a banner and a vmcoreinfo page */
	if (i == 3)
		memcpy(page + 100, "Linux version 6.12.117-hibimg (fuzz) #1", 39);
	if (i == 5)
		memcpy(page, "OSRELEASE=6.12.117-hibimg\nPAGESIZE=4096\nKERNELOFFSET=0\n", 55);
	/* entry 5 is zero-flagged: the export harness needs one that is saved */
	if (i == 6 && !strcmp(hbase, "export"))
		snprintf((char *)page, PS, "%s",
			 "OSRELEASE=6.12.117-hibimg\nPAGESIZE=4096\n"
			 "SYMBOL(swapper_pg_dir)=ffffffff82a0a000\n"
			 "NUMBER(phys_base)=0\nNUMBER(KERNEL_IMAGE_SIZE)=1073741824\n"
			 "KERNELOFFSET=0\n");
	return 0;
}

static void build_template(void)
{
	const char *srcdir = getenv("top_builddir");
	int raw = !strcmp(hbase, "pfns") || !strcmp(hbase, "export");
	enum hib_compression comp = raw ? HIB_COMP_NONE :
				    !strcmp(hbase, "chunk_lz4") ? HIB_COMP_LZ4 : HIB_COMP_LZO;
	/* FORCE: the builder replaces the name mkstemp() reserved */
	struct hib_build_opts o = HIB_INIT(struct hib_build_opts, .to = comp,
					   .level = HIB_LEVEL_AUTO, .threads = 1,
					   .output_flags = HIB_OUTPUT_FORCE,
					   .page_size = tps, .word_size = tword);
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	static unsigned char pages[24 * SRC_PS], info[SRC_PS];
	uint64_t pfns[48];
	uint8_t zero[6] = { 0x22, 0, 0x40, 0, 0, 0 };   /* a few zero-flagged */
	char src[512], out[] = "/tmp/hibimg-fuzz-XXXXXX";
	struct hib_image *img;
	struct hib_reader *rd;
	struct hib_page pg = HIB_INIT(struct hib_page);
	size_t n = 0;
	int fd, i;
	struct stat st;

	/* real memory: the first data pages of a fixture, if there is one */
	snprintf(src, sizeof(src), "%s/fixtures/k612-lzo.img", srcdir ? srcdir : ".");
	img = hib_image_new();
	if (hib_image_open(img, src) == 0 && hib_image_load(img) == 0 &&
	    hib_reader_new(img, &rd) == 0) {
		while (n < 24 && hib_reader_next(rd, &pg) == 1)
			if (pg.data)
				memcpy(pages + SRC_PS * n++, pg.data, SRC_PS);
		hib_reader_free(rd);
		/* the export harness keeps the kernel's arch record: x86_64 */
		if (!strcmp(hbase, "export") && tps == SRC_PS && tword == 8) {
			memcpy(info, hib_image_info_page(img), SRC_PS);
			o.info_template = info;
		}
	}
	hib_image_free(img);
	for (i = (int)n; i < 24; i++)
		memset(pages + (size_t)i * SRC_PS, 0x11 * i, SRC_PS);
	for (i = 0; i < NPFNS; i++)
		pfns[i] = 0x100 + (uint64_t)i + (i > 20 ? 7 : 0);

	fd = mkstemp(out);
	close(fd);
	img = hib_image_new();
	if (hib_image_build(img, out, &o, NPFNS, pfns, zero, src_page, pages, &res)) {
		fprintf(stderr, "fuzz: cannot build the template: %s\n", hib_image_error(img));
		abort();
	}
	hib_image_free(img);
	fd = open(out, O_RDONLY);
	fstat(fd, &st);
	tmpl_len = (size_t)st.st_size;
	if (tmpl_len > AREA_MAX)
		abort();
	tmpl = malloc(AREA_MAX);
	memset(tmpl, 0, AREA_MAX);
	if (read(fd, tmpl, tmpl_len) != (ssize_t)tmpl_len)
		abort();
	close(fd);
	unlink(out);

	/* the region each harness owns */
	{
		uint64_t map = get64(tmpl + PS - 32);
		uint64_t e0 = get64(tmpl + map * PS), e1 = get64(tmpl + map * PS + 8);

		if (!strcmp(hbase, "resume"))
			region_off = 0, region_len = PS;
		else if (!strcmp(hbase, "map"))
			region_off = map * PS, region_len = PS;
		else if (!strcmp(hbase, "info"))
			region_off = e0 * PS, region_len = PS;
		else if (!strcmp(hbase, "pfns"))
			region_off = e1 * PS, region_len = PS;
		else if (!strcmp(hbase, "chunk") || !strcmp(hbase, "chunk_lz4"))
			/* at most 128 KiB: the seed stays small at 64K pages */
			region_off = e1 * PS, region_len = 4 * PS > (128u << 10) ? 128u << 10 : 4 * PS;
		else if (!strcmp(hbase, "whole"))
			region_off = 0, region_len = AREA_MAX;
		else if (!strcmp(hbase, "export")) {
			uint64_t e2 = get64(tmpl + map * PS + 16);

			/* the builder writes data pages in order, one slot each */
			if (get64(tmpl + map * PS + 9 * 8) != e2 + 7)
				abort();
			region_off = e2 * PS, region_len = 8 * PS;
		}
		else {
			fprintf(stderr, "fuzz: unknown harness %s\n", harness);
			exit(2);
		}
	}
	open_memfd();
}

/* Every format into a file in memory; the name is this process's. */
/* Best effort (issue 19) over the same bytes, on a handle of its own:
 * the walk, every page it recovered, every record and range it kept. */
static uint64_t run_partial(void)
{
	struct hib_image *img = hib_image_new();
	struct hib_damage_summary s = HIB_INIT(struct hib_damage_summary);
	struct hib_page pg = HIB_INIT(struct hib_page);
	struct hib_reader *rd;
	uint64_t sum = 0, i, j;

	if (!img)
		abort();
	if (hib_image_open(img, mempath) || hib_image_set_partial(img, 1) ||
	    hib_image_load(img) || hib_image_load_pfns(img))
		goto out;
	if (hib_reader_new(img, &rd) == 0) {
		while (hib_reader_next(rd, &pg) == 1)
			sum += pg.pfn + (pg.data ? pg.data[0] : 0);
		hib_reader_free(rd);
	}
	if (hib_image_damage_summary(img, &s))
		goto out;
	for (i = 0; i < s.records; i++) {
		struct hib_damage d = HIB_INIT(struct hib_damage);
		struct hib_pfn_range r;

		if (hib_image_damage(img, i, &d))
			abort();        /* every record it counted is there */
		for (j = 0; j < d.ranges; j++) {
			if (hib_image_damage_range(img, i, j, &r) || r.last < r.first)
				abort();
			sum += r.first;
		}
	}
out:
	hib_image_free(img);
	return sum;
}

static uint64_t run_export(struct hib_image *img)
{
	static const enum hib_export_format fmt[] = {
		HIB_EXPORT_RAW, HIB_EXPORT_LIME, HIB_EXPORT_ELF, HIB_EXPORT_KDUMP
	};
	struct hib_export_opts o = HIB_INIT(struct hib_export_opts, .threads = 1,
					    .output_flags = HIB_OUTPUT_FORCE);
	struct hib_export_result res = HIB_INIT(struct hib_export_result);
	char out[64];
	uint64_t sum = 0;
	size_t i;

	snprintf(out, sizeof(out), "/dev/shm/hibimg-fuzz-export.%d", (int)getpid());
	for (i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		o.format = fmt[i];
		if (hib_export(img, out, &o, &res) == 0)
			sum += res.file_size + res.ranges + res.kernel_map_loads;
		unlink(out);
	}
	return sum;
}

static void run_image(void)
{
	struct hib_image *img = hib_image_new();
	struct hib_reader *rd;
	struct hib_identity id = HIB_INIT(struct hib_identity);
	struct hib_page pg = HIB_INIT(struct hib_page);
	const struct hib_uswsusp *u;
	uint64_t sum = 0, i, off, first, n, ext;
	int rc;

	if (hib_image_open(img, mempath))
		goto out;
	rc = hib_image_load(img);
	/* a uswsusp header and extent map stay readable after a refusal */
	u = hib_image_uswsusp(img);
	for (i = 0; u && i < u->extent_pages; i++)
		if (hib_image_usw_extents_page(img, i, &off, &first, &n, &ext) == 0)
			sum += off + first + n + ext;
	if (rc || hib_image_load_pfns(img))
		goto out;
	/* export streams the image three times itself; the reader harnesses
	 * cover the threaded reader, and the exec rate is what finds bugs */
	if (!strcmp(hbase, "export")) {
		sum += run_export(img);
		goto out;
	}
	if (hib_reader_new(img, &rd) == 0) {
		while (hib_reader_next(rd, &pg) == 1)
			sum += pg.pfn + (pg.data ? pg.data[0] : 0);
		hib_reader_free(rd);
	}
	/* the threaded path must come to the same end */
	if (hib_reader_new(img, &rd) == 0) {
		if (hib_reader_set_threads(rd, 3) == 0)
			while (hib_reader_next(rd, &pg) == 1)
				sum -= pg.pfn + (pg.data ? pg.data[0] : 0);
		hib_reader_free(rd);
	}
	if (hib_image_identify(img, &id) == 0)
		sum += id.release[0];
out:
	hib_image_free(img);
	sum += run_partial();
	(void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char *area;
	size_t len;

	if (!hbase[0])
		parse_harness();

	if (target_files()) {
		if (memfd < 0) {
			open_memfd();
			if (&hib_tgt_unpack_cap)
				hib_tgt_unpack_cap = 4u << 20;
		}
		if (!strcmp(hbase, "kernel"))
			run_kernel(data, size);
		else if (!strcmp(hbase, "klog"))
			run_klog(data, size);
		else
			run_memmap(data, size);
		return 0;
	}
	if (!area) {
		if (!strcmp(hbase, "uswsusp"))
			open_memfd();
		else
			build_template();
		area = calloc(1, AREA_MAX);
		if (!area)
			abort();
	}
	if (tmpl)
		memcpy(area, tmpl, AREA_MAX);
	if (whole_area()) {
		len = size < AREA_MAX ? size : AREA_MAX;
		memcpy(area, data, len);
	} else {
		memcpy(area + region_off, data, size < region_len ? size : region_len);
		len = tmpl_len;
	}
	if (ftruncate(memfd, 0) || pwrite(memfd, area, len, 0) != (ssize_t)len)
		abort();
	run_image();
	return 0;
}

#ifdef REPLAY_MAIN
/* Replays files (or every file in directories) through the harness. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	static unsigned char *buf;
	size_t n;

	if (!f) {
		perror(path);
		return 1;
	}
	if (!buf && !(buf = malloc(AREA_MAX)))
		abort();
	n = fread(buf, 1, AREA_MAX, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	int i, count = 0, bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: fuzz-replay HARNESS FILE|DIR... | HARNESS --seed FILE\n");
		return 2;
	}
	harness = argv[1];
	parse_harness();
	if (!strcmp(argv[2], "--seed") && argc == 4) {
		FILE *f;

		if (!strcmp(hbase, "uswsusp") || target_files()) {
			fprintf(stderr, "fuzz-replay: %s seeds are files, not a template's region\n",
				harness);
			return 2;
		}
		build_template();
		size_t len = strcmp(hbase, "whole") ? region_len : tmpl_len;

		/* the area's tail is unused slots: zeros the device may lack */
		while (!strcmp(hbase, "whole") && len > PS && !tmpl[len - 1])
			len--;
		f = fopen(argv[3], "wb");
		if (!f || fwrite(tmpl + region_off, 1, len, f) == 0 || fclose(f))
			return 1;
		return 0;
	}
	for (i = 2; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *de;

		if (!d) {
			bad |= replay_file(argv[i]);
			count++;
			continue;
		}
		while ((de = readdir(d))) {
			char p[1024];

			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
			bad |= replay_file(p);
			count++;
		}
		closedir(d);
	}
	printf("replayed %d inputs\n", count);
	return bad || count == 0;
}
#endif
