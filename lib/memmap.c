/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * memmap.c - the target machine's memory: a copy of /sys/firmware/memmap
 * (drivers/firmware/memmap.c: one directory per entry of x86's
 * e820_table_firmware, in table order, start and end inclusive as
 * "0x%llx", type as e820_type_to_string() names it) or of /proc/iomem.
 * From the firmware map comes the checksum x86 keeps in its restore record
 * (arch/x86/power/hibernate.c: compute_e820_crc32() over the table as
 * struct e820_table holds it); from either, the pages the kernel counts.
 */
#include "targetP.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <md5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FROM_KMSG "kernel log (BIOS-e820)"

/* the firmware's table, from sysfs or from the lines the kernel printed */
static bool firmware_table(const char *from)
{
	return from && (!strcmp(from, "firmware memmap") || !strcmp(from, FROM_KMSG));
}

/* e820_type_to_string(), arch/x86/kernel/e820.c (6.1 and 6.12 alike);
 * E820_TYPE_RESERVED_KERN is also "System RAM" but never in the firmware
 * table, which is copied before setup_data is reserved. */
static const struct { const char *name; uint32_t type; } e820_names[] = {
	{ "System RAM",                 1 },
	{ "Reserved",                   2 },
	{ "ACPI Tables",                3 },
	{ "ACPI Non-volatile Storage",  4 },
	{ "Unusable memory",            5 },
	{ "Persistent Memory (legacy)", 12 },
	{ "Persistent Memory",          7 },
	{ "Soft Reserved",              0xefffffffu },
};

static uint32_t e820_type_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(e820_names) / sizeof(e820_names[0]); i++)
		if (!strcmp(name, e820_names[i].name))
			return e820_names[i].type;
	return 0;
}

/* "0x1f\n" as sysfs prints it: hex only, one number, a newline at most */
static bool parse_hex(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	size_t i = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	for (s += 2; s[i] && s[i] != '\n'; i++) {
		char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return false;
		if (i >= 16)
			return false;
		x = x << 4 | d;
	}
	if (i == 0 || (s[i] == '\n' && s[i + 1]))
		return false;
	*v = x;
	return true;
}

/* One growing list of ranges and the type strings they name. */
struct mem_build {
	struct hib_mem_range *r;
	size_t n, cap;
	char *types;
	size_t tlen, tcap;
	size_t *toff;               /* each range's type as an offset into types */
};

static int add_range(struct hib_target *t, struct mem_build *b, uint64_t start,
		     uint64_t end, const char *type, size_t type_len,
		     const char *what)
{
	if (b->n == HIB_TGT_MEM_MAX)
		return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
				      "%s: more than %u ranges", what, HIB_TGT_MEM_MAX);
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		struct hib_mem_range *r = realloc(b->r, cap * sizeof(*r));
		size_t *o = realloc(b->toff, cap * sizeof(*o));

		if (r)
			b->r = r;
		if (o)
			b->toff = o;
		if (!r || !o)
			return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
		b->cap = cap;
	}
	if (b->tlen + type_len + 1 > b->tcap) {
		size_t cap = (b->tcap ? b->tcap * 2 : 4096) + type_len + 1;
		char *ty = realloc(b->types, cap);

		if (!ty)
			return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", what);
		b->types = ty;
		b->tcap = cap;
	}
	memcpy(b->types + b->tlen, type, type_len);
	b->types[b->tlen + type_len] = 0;
	b->r[b->n] = (struct hib_mem_range){ .start = start, .end = end };
	b->r[b->n].e820_type = e820_type_of(b->types + b->tlen);
	b->r[b->n].ram = !strcmp(b->types + b->tlen, "System RAM");
	b->toff[b->n] = b->tlen;
	b->tlen += type_len + 1;
	b->n++;
	return HIB_OK;
}

static void build_free(struct mem_build *b)
{
	free(b->r);
	free(b->types);
	free(b->toff);
}

/* The target takes the list: type pointers are fixed once it is complete. */
static void take(struct hib_target *t, struct mem_build *b, const char *from)
{
	size_t i;

	free(t->mem);
	free(t->types);
	for (i = 0; i < b->n; i++)
		b->r[i].type = b->types + b->toff[i];
	t->mem = b->r;
	t->n_mem = b->n;
	t->types = b->types;
	free(b->toff);
	memset(b, 0, sizeof(*b));
	t->mem_set = true;
	t->info.mem_ranges = t->n_mem;
	t->info.mem_from = from;
	hib_memmap_derive(t);
}

/* One file of an entry: its text, without the newline sysfs ends it with. */
static int entry_file(struct hib_target *t, const char *dir, unsigned long i,
		      const char *name, char *buf, size_t cap)
{
	char path[4096];
	unsigned char *b;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/%lu/%s", dir, i, name);
	rc = hib_tgt_slurp(t, path, 4096, &b, &len);
	if (rc)
		return rc;
	if (len && b[len - 1] == '\n')
		b[--len] = 0;
	if (len == 0 || len >= cap || memchr(b, '\n', len) || memchr(b, 0, len)) {
		free(b);
		return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
				      "%s: not one line as sysfs writes it", path);
	}
	memcpy(buf, b, len + 1);
	free(b);
	return HIB_OK;
}

static int read_memmap(struct hib_target *t, const char *dir, struct mem_build *b)
{
	unsigned long n = 0, i;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return hib_tgt_seterr(t, HIB_ERR_IO, "%s: %s", dir, strerror(errno));
	/* entries are named 0..N-1 with no gap; anything else is not one */
	while ((de = readdir(d))) {
		char *end;
		unsigned long v;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		v = strtoul(de->d_name, &end, 10);
		if (*end || (de->d_name[0] == '0' && de->d_name[1]))
			continue;
		if (v >= HIB_TGT_MEM_MAX) {
			closedir(d);
			return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
					      "%s: entry %lu: more than %u entries",
					      dir, v, HIB_TGT_MEM_MAX);
		}
		if (v + 1 > n)
			n = v + 1;
	}
	closedir(d);
	if (n == 0)
		return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
				      "%s: no entries (directories 0, 1, ...): not a copy of /sys/firmware/memmap",
				      dir);
	for (i = 0; i < n; i++) {
		char s[64], e[64], ty[128], path[4096];
		uint64_t start, end;
		int rc;

		if ((rc = entry_file(t, dir, i, "start", s, sizeof(s))) ||
		    (rc = entry_file(t, dir, i, "end", e, sizeof(e))) ||
		    (rc = entry_file(t, dir, i, "type", ty, sizeof(ty)))) {
			if (rc == HIB_ERR_IO) {
				snprintf(path, sizeof(path), "%s", t->err);
				return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
						      "entry %lu of %lu missing: %s", i, n, path);
			}
			return rc;
		}
		if (!parse_hex(s, &start))
			return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
					      "%s/%lu/start: '%s' is not a 0x-hex address", dir, i, s);
		if (!parse_hex(e, &end))
			return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
					      "%s/%lu/end: '%s' is not a 0x-hex address", dir, i, e);
		if (end < start)
			return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
					      "%s/%lu: end 0x%" PRIx64 " below start 0x%" PRIx64,
					      dir, i, end, start);
		rc = add_range(t, b, start, end, ty, strlen(ty), dir);
		if (rc)
			return rc;
	}
	return HIB_OK;
}

int hib_target_set_memmap(struct hib_target *t, const char *dir)
{
	struct mem_build b = { 0 };
	int rc = read_memmap(t, dir, &b);

	if (rc) {
		build_free(&b);
		hib_tgt_problem(t, HIB_TIN_MEM);
		return rc;
	}
	take(t, &b, "firmware memmap");
	return HIB_OK;
}

/* "  00001000-0009fbff : System RAM": top-level lines only (no indent);
 * children (Kernel code, ...) lie inside a range already counted. */
static int parse_iomem(struct hib_target *t, const char *path, char *text,
		       struct mem_build *b)
{
	char *line, *save = NULL;
	unsigned long ln = 0;
	bool nonzero = false;
	int rc;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *dash, *colon, *name, *end;
		uint64_t start, last;

		ln++;
		if (line[0] == ' ')
			continue;
		dash = strchr(line, '-');
		colon = strstr(line, " : ");
		if (!dash || !colon || dash > colon)
			return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
					      "%s: line %lu: not 'start-end : name'", path, ln);
		*dash = 0;
		*colon = 0;
		start = strtoull(line, &end, 16);
		if (end == line || *end)
			return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
					      "%s: line %lu: '%s' is not a hex address", path, ln, line);
		last = strtoull(dash + 1, &end, 16);
		if (end == dash + 1 || *end)
			return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
					      "%s: line %lu: '%s' is not a hex address", path, ln, dash + 1);
		if (last < start)
			return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
					      "%s: line %lu: end below start", path, ln);
		if (start || last)
			nonzero = true;
		name = colon + 3;
		rc = add_range(t, b, start, last, name, strlen(name), path);
		if (rc)
			return rc;
	}
	if (!b->n)
		return hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: no ranges", path);
	/* what a user who is not root reads */
	if (!nonzero)
		return hib_tgt_seterr(t, HIB_ERR_INVAL,
				      "%s: every address reads 0 (copied by a user who is not root?)",
				      path);
	return HIB_OK;
}

int hib_target_set_iomem(struct hib_target *t, const char *path)
{
	struct mem_build b = { 0 };
	unsigned char *text = NULL;
	size_t len;
	int rc = hib_tgt_slurp(t, path, HIB_TGT_TEXT_MAX, &text, &len);

	if (!rc && memchr(text, 0, len))
		rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: binary data, not /proc/iomem", path);
	if (!rc)
		rc = parse_iomem(t, path, (char *)text, &b);
	free(text);
	if (rc) {
		build_free(&b);
		hib_tgt_problem(t, HIB_TIN_MEM);
		return rc;
	}
	take(t, &b, "/proc/iomem");
	return HIB_OK;
}

/*
 * The kernel log: e820__memory_setup() prints e820_table as "BIOS-e820:
 * [mem 0x%016Lx-0x%016Lx] <e820_print_type()>" right after copying it into
 * e820_table_firmware, the table sysfs exports and the restore record sums
 * (arch/x86/kernel/e820.c); a kernel without CONFIG_FIRMWARE_MEMMAP has no
 * other copy of it. Read from /dev/kmsg (one record a read, O_NONBLOCK:
 * EAGAIN past the last) or any text holding the lines, such as dmesg's.
 */
static const struct { const char *word, *name; } e820_words[] = {
	{ "usable",               "System RAM" },
	{ "reserved",             "Reserved" },
	{ "ACPI data",            "ACPI Tables" },
	{ "ACPI NVS",             "ACPI Non-volatile Storage" },
	{ "unusable",             "Unusable memory" },
	{ "persistent (type 7)",  "Persistent Memory" },
	{ "persistent (type 12)", "Persistent Memory (legacy)" },
	{ "soft reserved",        "Soft Reserved" },
};

static int read_log(struct hib_target *t, const char *path, char **text, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	size_t cap = 0, n = 0;
	char *b = NULL;

	if (fd < 0)
		return hib_tgt_seterr(t, HIB_ERR_IO, "%s: %s", path, strerror(errno));
	for (;;) {
		ssize_t r;

		if (cap - n < 8192 + 1) {
			char *nb;

			if (cap >= HIB_TGT_TEXT_MAX)
				break;          /* the boot's first lines are in already */
			nb = realloc(b, cap + (1u << 20));
			if (!nb) {
				free(b);
				close(fd);
				return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", path);
			}
			b = nb;
			cap += 1u << 20;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r > 0) {
			n += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EPIPE)
			continue;       /* a record overwritten while we read */
		if (r == 0 || errno == EAGAIN)
			break;
		free(b);
		close(fd);
		return hib_tgt_seterr(t, HIB_ERR_IO, "%s: %s", path, strerror(errno));
	}
	close(fd);
	if (!b && !(b = malloc(1)))
		return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", path);
	b[n] = 0;
	*text = b;
	*len = n;
	return HIB_OK;
}

/* The first run of BIOS-e820 lines: false if the log holds none (it has
 * wrapped since boot, or the kernel is not x86). */
static int parse_log(struct hib_target *t, const char *path, char *text,
		     struct mem_build *b, bool *found)
{
	char *line, *save = NULL;
	int rc;

	*found = false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *p = strstr(line, "BIOS-e820: [mem 0x"), *name = NULL;
		unsigned long long start, last;
		char word[32];
		size_t i;
		int used = 0;

		if (line[0] == ' ')
			continue;       /* a /dev/kmsg record's dictionary */
		if (!p) {
			if (*found)
				break;
			continue;
		}
		if (sscanf(p, "BIOS-e820: [mem 0x%llx-0x%llx] %n", &start, &last, &used) != 2 ||
		    !used || last < start)
			return hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: a BIOS-e820 line not as the kernel prints it: %.80s",
					      path, p);
		snprintf(word, sizeof(word), "%s", p + used);
		word[strcspn(word, "\r")] = 0;
		for (i = 0; i < sizeof(e820_words) / sizeof(e820_words[0]); i++)
			if (!strcmp(word, e820_words[i].word))
				name = e820_words[i].name;
		/* "type %u": kept as printed, no E820 type, so no checksum */
		if (!name)
			name = word;
		rc = add_range(t, b, start, last, name, strlen(name), path);
		if (rc)
			return rc;
		*found = true;
	}
	return HIB_OK;
}

int hib_memmap_from_log(struct hib_target *t, const char *path)
{
	struct mem_build b = { 0 };
	char *text = NULL;
	size_t len;
	bool found = false;
	int rc = read_log(t, path, &text, &len);

	if (!rc)
		rc = parse_log(t, path, text, &b, &found);
	free(text);
	if (!rc && !found)
		rc = hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED, "%s: no BIOS-e820 lines (the log wrapped since boot?)",
				    path);
	if (rc) {
		build_free(&b);
		return rc;
	}
	take(t, &b, FROM_KMSG);
	return HIB_OK;
}

/* struct e820_table { __u32 nr_entries; struct e820_entry entries[]; } with
 * struct e820_entry { u64 addr; u64 size; u32 type; } __packed, little
 * endian: the bytes compute_e820_crc32() and the MD5 era's digest cover. */
static void e820_sums(struct hib_target *t)
{
	unsigned char ent[20], crcbuf[4];
	uint32_t crc;
	MD5_CTX md5;
	size_t i;
	int k;

	t->info.have_e820 = 0;
	if (!firmware_table(t->info.mem_from))
		return;
	for (i = 0; i < t->n_mem; i++)
		if (!t->mem[i].e820_type)
			return;
	for (k = 0; k < 4; k++)
		crcbuf[k] = (unsigned char)((uint32_t)t->n_mem >> (8 * k));
	crc = hib_crc32_le(~0u, crcbuf, 4);
	MD5Init(&md5);
	MD5Update(&md5, crcbuf, 4);
	for (i = 0; i < t->n_mem; i++) {
		uint64_t addr = t->mem[i].start, size = t->mem[i].end - t->mem[i].start + 1;

		for (k = 0; k < 8; k++) {
			ent[k] = (unsigned char)(addr >> (8 * k));
			ent[8 + k] = (unsigned char)(size >> (8 * k));
		}
		for (k = 0; k < 4; k++)
			ent[16 + k] = (unsigned char)(t->mem[i].e820_type >> (8 * k));
		crc = hib_crc32_le(crc, ent, sizeof(ent));
		MD5Update(&md5, ent, sizeof(ent));
	}
	t->info.e820_crc32 = ~crc;
	MD5Final(t->info.e820_md5, &md5);
	t->info.have_e820 = 1;
}

/*
 * Whole pages of [a, b] (inclusive) as [s, e) PFNs of ps bytes; false if
 * none. ps is the target kernel's PAGE_SIZE: get_num_physpages() counts
 * its pages, which is what an image's num_physpages is compared with
 * (a 64K-page arm64 kernel on 128 MiB counts 2048, not 32768).
 */
static bool pages_of(uint64_t a, uint64_t b, uint64_t ps, uint64_t *s, uint64_t *e)
{
	*s = a / ps + (a % ps != 0);
	*e = b / ps + (b % ps == ps - 1);
	return *e > *s;
}

/*
 * The PFN ranges memblock.memory gets, which get_num_physpages() sums and
 * the zones span. On x86 it is made from e820_table's RAM after
 * trim_bios_range() (arch/x86/kernel/setup.c) gave page 0 to the BIOS and
 * took 640K-1M out, each range trimmed to whole pages
 * (memblock_trim_memory()); /proc/iomem shows that edited table already.
 * The fixtures prove the rule (tests). arm64 gives every memblock.memory
 * region a top-level /proc/iomem entry, "System RAM", or "reserved" where
 * it is NOMAP (UEFI runtime and reserved memory, request_standard_resources()
 * in arch/arm64/kernel/setup.c): the zones span and count both, as the
 * edk2-booted guests' /proc/zoneinfo shows (fixtures/iomem). Elsewhere
 * "System RAM" leaves out NOMAP memory that the zones count, so there it
 * is a floor.
 */
static bool arm64_nomap(const struct hib_target *t, size_t i)
{
	return t->info.arch == HIB_TARCH_ARM64 && t->info.mem_from &&
	       !strcmp(t->info.mem_from, "/proc/iomem") && t->mem[i].type &&
	       !strcmp(t->mem[i].type, "reserved");
}

size_t hib_memmap_ram_pfns(const struct hib_target *t, uint64_t (*r)[2], size_t cap)
{
	bool fw = firmware_table(t->info.mem_from);
	/* unknown until a kernel file or config names it: 4 KiB, as x86 has */
	uint64_t ps = t->info.page_size ? t->info.page_size : 4096;
	size_t i, n = 0;

	for (i = 0; i < t->n_mem && n + 2 <= cap; i++) {
		uint64_t a = t->mem[i].start, b = t->mem[i].end;

		if (!t->mem[i].ram && !arm64_nomap(t, i))
			continue;
		if (fw && a < 0x1000)
			a = 0x1000;
		if (a > b)
			continue;
		if (fw && a < 0x100000 && b >= 0xa0000) {
			if (a < 0xa0000 && pages_of(a, 0x9ffff, ps, &r[n][0], &r[n][1]))
				n++;
			if (b >= 0x100000 && pages_of(0x100000, b, ps, &r[n][0], &r[n][1]))
				n++;
			continue;
		}
		if (pages_of(a, b, ps, &r[n][0], &r[n][1]))
			n++;
	}
	return n;
}

static void ram_pages(struct hib_target *t)
{
	uint64_t (*r)[2] = malloc(2 * (t->n_mem + 1) * sizeof(*r));
	uint64_t total = 0, first = UINT64_MAX, last = 0;
	size_t i, n;

	if (!r)
		return;
	n = hib_memmap_ram_pfns(t, r, 2 * (t->n_mem + 1));
	for (i = 0; i < n; i++) {
		total += r[i][1] - r[i][0];
		if (r[i][0] < first)
			first = r[i][0];
		if (r[i][1] - 1 > last)
			last = r[i][1] - 1;
	}
	free(r);
	if (!total)
		return;
	t->info.ram_first_pfn = first;
	t->info.ram_last_pfn = last;
	/* /proc/zoneinfo, where it was read, is the kernel's own count */
	if (t->info.physpages_from && !strcmp(t->info.physpages_from, "/proc/zoneinfo"))
		return;
	t->info.physpages = total;
	t->info.physpages_from = t->info.mem_from;
	t->info.physpages_exact = firmware_table(t->info.mem_from) ||
				  t->info.arch == HIB_TARCH_X86_64 || t->info.arch == HIB_TARCH_I386 ||
				  t->info.arch == HIB_TARCH_ARM64;
}

void hib_memmap_derive(struct hib_target *t)
{
	if (!t->mem_set)
		return;
	e820_sums(t);
	ram_pages(t);
}
