/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef HIBIMG_TESTUTIL_H
#define HIBIMG_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/* A fixture sidecar (fixtures/NAME.expect): key=value lines copied by the
 * capture script from what the kernel printed. */
struct sidecar {
	char name[64];
	char path[512];      /* the .expect file */
	size_t n;
	char keys[64][48];
	char vals[64][256];
};

int sidecar_load(const char *path, struct sidecar *sc);
const char *sidecar_get(const struct sidecar *sc, const char *key);
/* Fails the test when the key is missing or not a number. */
uint64_t sidecar_u64(const struct sidecar *sc, const char *key);
int sidecar_has(const struct sidecar *sc, const char *key);

/* All fixtures/NAME.expect under $top_srcdir, sorted; returns the count. */
size_t fixtures_list(char names[][64], size_t cap);
/* $top_srcdir/fixtures/NAME.SUFFIX and $top_builddir/fixtures/NAME.img */
void fixture_src(char *buf, size_t cap, const char *name, const char *suffix);
void fixture_img(char *buf, size_t cap, const char *name);
char *slurp(const char *path, size_t *len);

#endif
