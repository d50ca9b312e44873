/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <hibimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *env_or(const char *k, const char *def)
{
	const char *v = getenv(k);

	return v && *v ? v : def;
}

void fixture_src(char *buf, size_t cap, const char *name, const char *suffix)
{
	snprintf(buf, cap, "%s/fixtures/%s.%s", env_or("top_srcdir", "."), name, suffix);
}

void fixture_img(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/fixtures/%s.img", env_or("top_builddir", "."), name);
}

static int cmpname(const void *a, const void *b)
{
	return strcmp(a, b);
}

size_t fixtures_list(char names[][64], size_t cap)
{
	char dir[512];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/fixtures", env_or("top_srcdir", "."));
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < cap) {
		size_t l = strlen(de->d_name);

		if (l > 7 && l - 7 < 64 && !strcmp(de->d_name + l - 7, ".expect")) {
			memcpy(names[n], de->d_name, l - 7);
			names[n][l - 7] = 0;
			n++;
		}
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmpname);
	return n;
}

static void copy_trunc(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		n = cap - 1;
	memmove(dst, src, n);
	dst[n] = 0;
}

int sidecar_load(const char *path, struct sidecar *sc)
{
	FILE *f = fopen(path, "re");
	char line[512];

	memset(sc, 0, sizeof(*sc));
	if (!f)
		return -1;
	snprintf(sc->path, sizeof(sc->path), "%s", path);
	while (fgets(line, sizeof(line), f)) {
		char *eq, *end, *hash;

		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !(eq = strchr(line, '=')))
			continue;
		*eq = 0;
		/* trailing "   # comment" after a value */
		if ((hash = strstr(eq + 1, " #")))
			*hash = 0;
		end = eq + 1 + strlen(eq + 1);
		while (end > eq + 1 && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = 0;
		if (sc->n == 64)
			break;
		copy_trunc(sc->keys[sc->n], sizeof(sc->keys[0]), line);
		copy_trunc(sc->vals[sc->n], sizeof(sc->vals[0]), eq + 1);
		sc->n++;
	}
	fclose(f);
	if (sidecar_get(sc, "name"))
		copy_trunc(sc->name, sizeof(sc->name), sidecar_get(sc, "name"));
	return 0;
}

const char *sidecar_get(const struct sidecar *sc, const char *key)
{
	size_t i;

	for (i = 0; i < sc->n; i++)
		if (!strcmp(sc->keys[i], key))
			return sc->vals[i];
	return NULL;
}

int sidecar_has(const struct sidecar *sc, const char *key)
{
	return sidecar_get(sc, key) != NULL;
}

uint64_t sidecar_u64(const struct sidecar *sc, const char *key)
{
	const char *v = sidecar_get(sc, key);
	char *end;
	uint64_t n;

	ck_assert_msg(v != NULL, "%s: no key %s", sc->path, key);
	n = strtoull(v, &end, 10);
	ck_assert_msg(end != v && *end == 0, "%s: %s=%s is not a number",
		      sc->path, key, v);
	return n;
}

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long sz;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)sz + 1);
	if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[sz] = 0;
		if (len)
			*len = (size_t)sz;
	}
	return buf;
}

/* Sidecar resume_offset= (swap files): where the resume page is. */
uint64_t fx_offset(const char *name)
{
	struct sidecar sc;
	char path[512];

	fixture_src(path, sizeof(path), name, "expect");
	if (sidecar_load(path, &sc) || !sidecar_has(&sc, "resume_offset"))
		return 0;
	return strtoull(sidecar_get(&sc, "resume_offset"), NULL, 10);
}

/* Sidecar page_size= (the kernel's PAGE_SIZE): 4096 where it names none. */
unsigned int fx_page_size(const char *name)
{
	struct sidecar sc;
	char path[512];

	fixture_src(path, sizeof(path), name, "expect");
	if (sidecar_load(path, &sc) || !sidecar_has(&sc, "page_size"))
		return 4096;
	return (unsigned int)strtoul(sidecar_get(&sc, "page_size"), NULL, 10);
}

int open_at(struct hib_image *img, const char *path, uint64_t off)
{
	if (off)
		ck_assert_int_eq(hib_image_set_resume_offset(img, off), HIB_OK);
	return hib_image_open(img, path);
}

char tmpdir[256];

void mk_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/hibimg-check-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

void rm_tmpdir(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

void put_le(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

const char *write_file(const char *name, const void *buf, size_t len)
{
	static char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	return path;
}

/* A swap header page as mkswap writes it (union swap_header). */
void mkswap_page(unsigned char *pg, unsigned int ps)
{
	memset(pg, 0, ps);
	put_le(pg + 1024, 1, 4);            /* version */
	put_le(pg + 1028, 16383, 4);        /* last_page */
	memcpy(pg + 1036, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10", 16);
	memcpy(pg + 1052, "myswap", 6);
	memcpy(pg + ps - 10, "SWAPSPACE2", 10);
}

int fixtures_setup(char names[FIXTURES_MAX][64], size_t *n,
		   char spent[SPENT_MAX][64], size_t *nspent)
{
	size_t ns = 0;

	*n = fixtures_list(names, FIXTURES_MAX);
	/* spent areas are not images any more: a test of their own */
	for (size_t i = 0; i < *n;) {
		struct sidecar sc;
		char path[512];

		fixture_src(path, sizeof(path), names[i], "expect");
		if (sidecar_load(path, &sc) == 0 && sidecar_has(&sc, "spent_from")) {
			if (spent && ns < SPENT_MAX)
				memcpy(spent[ns++], names[i], 64);
			memmove(names[i], names[i + 1], (*n - i - 1) * 64);
			(*n)--;
		} else {
			i++;
		}
	}
	if (nspent)
		*nspent = ns;
	if (*n < 4) {
		fprintf(stderr, "expected at least 4 fixtures, found %zu\n", *n);
		return -1;
	}
	return 0;
}

int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

uint64_t test_le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint64_t raw_image_slots(const char *path)
{
	/* the page size is where the signature is: the last 10 bytes of the
	 * area's first page, a page of the writer's size */
	static const unsigned int sizes[] = { 4096, 16384, 65536 };
	FILE *f = fopen(path, "rb");
	unsigned char *pg = malloc(65536);
	uint64_t m, slots = 0, guard = 0;
	unsigned int k, ps = 0, epm, i;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(pg);
	ck_assert_int_eq(fread(pg, 1, 65536, f), 65536);
	for (i = 0; i < 3 && !ps; i++)
		if (!memcmp(pg + sizes[i] - 10, "S1SUSPEND", 9))
			ps = sizes[i];
	ck_assert_msg(ps, "%s: no S1SUSPEND at the end of a 4K, 16K or 64K first page", path);
	epm = ps / 8 - 1;
	m = test_le64(pg + ps - 32);
	while (m) {
		ck_assert_uint_lt(guard++, 1u << 20);
		ck_assert_int_eq(fseeko(f, (off_t)(m * ps), SEEK_SET), 0);
		ck_assert_int_eq(fread(pg, 1, ps, f), ps);
		slots++;
		for (k = 0; k < epm; k++)
			slots += test_le64(pg + 8 * k) != 0;
		m = test_le64(pg + 8 * epm);
	}
	free(pg);
	fclose(f);
	return slots;
}
