/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "testutil.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
