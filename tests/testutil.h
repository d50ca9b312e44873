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

/* The fixtures that are images (at most FIXTURES_MAX), sorted, into names,
 * and the spent areas (sidecar spent_from=: not images any more, a test of
 * their own) into spent (at most SPENT_MAX; NULL: left out). Fewer than 4
 * images: a message and -1. */
#define FIXTURES_MAX 32
#define SPENT_MAX 8
int fixtures_setup(char names[FIXTURES_MAX][64], size_t *n,
		   char spent[SPENT_MAX][64], size_t *nspent);

struct hib_image;
/* Sidecar resume_offset= (swap files): where the resume page is; 0 if none. */
uint64_t fx_offset(const char *name);
/* Sidecar page_size=, 4096 where absent. */
unsigned int fx_page_size(const char *name);
/* hib_image_open() at resume page off (0: the default). */
int open_at(struct hib_image *img, const char *path, uint64_t off);

/* A fresh directory /tmp/hibimg-check-XXXXXX in tmpdir, and its removal. */
extern char tmpdir[256];
void mk_tmpdir(void);
void rm_tmpdir(void);
/* v as n little-endian bytes at p */
void put_le(unsigned char *p, uint64_t v, int n);
/* tmpdir/NAME with these bytes; the path, in a static buffer */
const char *write_file(const char *name, const void *buf, size_t len);
/* a little-endian u64 as the image stores it, read without the library */
uint64_t test_le64(const unsigned char *p);
/* A swap header page as mkswap writes it (union swap_header). */
void mkswap_page(unsigned char *pg, unsigned int ps);

/* Map pages plus non-zero entries of the swap-map chain an image at page 0
 * names (4K, 16K or 64K pages): every slot it takes but the resume page, walked here from
 * the raw file, independently of the library. */
uint64_t raw_image_slots(const char *path);

/* Runs the suite, frees it; EXIT_SUCCESS when every test passed. */
struct Suite;
int check_run(struct Suite *s);

#endif
