/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ksym IMAGE NAME... - for tests/cli-prstatus.sh: each NAME's address as
 * hib_kmem_symbol() (lib/kallsyms.c) reads it from the image, one
 * "NAME 0xADDR" line each, or "NAME -" and the library's message on
 * standard error; exit status 1 if any failed.
 */
#include "config.h"

#include <hibimg.h>
#include <inttypes.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct hib_image *img;
	struct hib_kmem *km;
	int i, bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: ksym IMAGE NAME...\n");
		return 2;
	}
	img = hib_image_new();
	if (!img || hib_image_open(img, argv[1]) || hib_image_load(img) ||
	    hib_kmem_open(img, &km)) {
		fprintf(stderr, "ksym: %s: %s\n", argv[1], img ? hib_image_error(img) : "out of memory");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		uint64_t a;

		if (hib_kmem_symbol(km, argv[i], &a) == HIB_OK) {
			printf("%s 0x%016" PRIx64 "\n", argv[i], a);
		} else {
			printf("%s -\n", argv[i]);
			fprintf(stderr, "ksym: %s: %s\n", argv[i], hib_image_error(img));
			bad = 1;
		}
	}
	hib_kmem_free(km);
	hib_image_free(img);
	return bad;
}
