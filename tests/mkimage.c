/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkimage - build large or what-if images for benchmarks and the simulator
 * from the memory of real images: the data pages of the given sources,
 * cycled through in a shuffled order, plus a chosen share of zero pages,
 * written by libhibimg's builder. Not evidence of anything a kernel does:
 * tests use it for scale and mixes, never as a format reference.
 *
 * --page-size and --word-size lay the image out as a kernel of that
 * PAGE_SIZE and sizeof(long) would (arm64 16K/64K, 32-bit x86). The
 * sources may have any page size: the pool holds their data pages cut in
 * 4 KiB pieces (every page size is a whole number of them), and a page of
 * the new image is that many consecutive pieces. The source's swsusp_info
 * (its arch record) is kept only when its page and word size are the new
 * image's; otherwise the header is the generic one a kernel without an
 * arch record writes (utsname and LINUX_VERSION_CODE), as a 32-bit or
 * 64K-page record cannot be made from an x86_64 one.
 */
#include "config.h"

#include <getopt.h>
#include <hibimg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIECE 4096u

struct pool {
	unsigned char *pages;       /* non-zero 4 KiB pieces of the sources' pages */
	uint64_t n, cap;
	uint64_t *order;            /* entry -> first pool piece, for data entries */
	unsigned int ps;            /* the new image's page size */
	unsigned char *info;        /* the first source's swsusp_info */
	unsigned int info_ps, info_word;
};

static void die(const char *m, const char *d)
{
	fprintf(stderr, "mkimage: %s%s%s\n", m, d ? ": " : "", d ? d : "");
	exit(2);
}

static void load_source(struct pool *p, const char *path)
{
	struct hib_image *img = hib_image_new();
	struct hib_reader *rd;
	struct hib_page pg = HIB_INIT(struct hib_page);
	int rc;

	if (hib_image_open(img, path) || hib_image_load(img) || hib_reader_new(img, &rd))
		die(hib_image_error(img), NULL);
	unsigned int sps = hib_image_header(img)->page_size;

	if (!p->info) {
		p->info_ps = sps;
		p->info_word = hib_image_info(img)->word_size;
		p->info = malloc(sps);
		if (!p->info)
			die("out of memory", NULL);
		memcpy(p->info, hib_image_info_page(img), sps);
	}
	while ((rc = hib_reader_next(rd, &pg)) == 1) {
		unsigned int off;

		for (off = 0; pg.data && off < sps; off += PIECE) {
			const uint64_t *w = (const uint64_t *)(const void *)(pg.data + off);
			uint64_t acc = 0, i;

			for (i = 0; i < PIECE / 8; i++)
				acc |= w[i];
			if (!acc)
				continue;
			if (p->n == p->cap) {
				p->cap = p->cap ? p->cap * 2 : 4096;
				p->pages = realloc(p->pages, p->cap * PIECE);
				if (!p->pages)
					die("out of memory", NULL);
			}
			memcpy(p->pages + p->n * PIECE, pg.data + off, PIECE);
			p->n++;
		}
	}
	if (rc < 0)
		die(hib_image_error(img), path);
	hib_reader_free(rd);
	hib_image_free(img);
}

static int fill(void *arg, uint64_t i, unsigned char *page)
{
	struct pool *p = arg;

	unsigned int k;

	for (k = 0; k < p->ps / PIECE; k++)
		if (p->order[i] == UINT64_MAX)
			memset(page + k * PIECE, 0, PIECE);
		else
			memcpy(page + k * PIECE, p->pages + (p->order[i] + k) % p->n * PIECE,
			       PIECE);
	return 0;
}

/* The raw stream pages of a --to none image, in map order. */
static void write_stream(const char *image, const char *out)
{
	struct hib_image *img = hib_image_new();
	const struct hib_info *in;
	unsigned char *page;
	unsigned int ps;
	uint64_t e, dev;
	FILE *in_f, *out_f;

	if (hib_image_open(img, image) || hib_image_load(img))
		die(hib_image_error(img), image);
	in = hib_image_info(img);
	ps = hib_image_header(img)->page_size;
	if (in->compression != HIB_COMP_NONE)
		die("--stream-out needs --to none", NULL);
	in_f = fopen(image, "rb");
	out_f = fopen(out, "wb");
	page = malloc(ps);
	if (!in_f || !out_f || !page)
		die("cannot open", out);
	for (e = 1; e < in->pages; e++) {
		if (hib_image_map_entry(img, e, &dev) || fseeko(in_f, (off_t)(dev * ps), SEEK_SET) ||
		    fread(page, ps, 1, in_f) != 1 || fwrite(page, ps, 1, out_f) != 1)
			die("cannot copy the stream", out);
	}
	free(page);
	fclose(in_f);
	if (fclose(out_f))
		die("cannot write", out);
	hib_image_free(img);
}

/* The swsusp_info of a kernel without an arch record (init_utsname(),
 * LINUX_VERSION_CODE at 392): the builder fills in the counts. */
static unsigned char *generic_info(unsigned int ps, unsigned int word)
{
	unsigned char *pg = calloc(1, ps);
	const char *machine = word == 4 ? "i686" : ps > 4096 ? "aarch64" : "x86_64";
	uint32_t code = 6u << 16 | 12u << 8;

	if (!pg)
		die("out of memory", NULL);
	strcpy((char *)pg, "Linux");
	strcpy((char *)pg + 65, "mkimage");
	strcpy((char *)pg + 130, "6.12.0-mkimage");
	strcpy((char *)pg + 195, "#1 SMP synthetic");
	strcpy((char *)pg + 260, machine);
	memcpy(pg + 392, &code, 4);
	return pg;
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pages", required_argument, NULL, 'p' },
		{ "zero-share", required_argument, NULL, 'z' },
		{ "zero-mode", required_argument, NULL, 'm' },
		{ "to", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "stream-out", required_argument, NULL, 'o' },
		{ "page-size", required_argument, NULL, 'P' },
		{ "word-size", required_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 }
	};
	/* its own scratch output: a rerun replaces it */
	struct hib_build_opts o = HIB_INIT(struct hib_build_opts, .to = HIB_COMP_LZO,
					   .level = HIB_LEVEL_AUTO,
					   .output_flags = HIB_OUTPUT_FORCE);
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	struct pool p = { 0 };
	struct hib_image *img;
	uint64_t npages = 0, e, seed = 0x9e3779b97f4a7c15ull, *pfns, pfn = 0x100;
	uint8_t *zero;
	double share = 0.0;
	const char *stream_out = NULL;
	int c, omit = 1;

	unsigned char *info = NULL;

	while ((c = getopt_long(argc, argv, "p:z:m:t:s:o:P:W:", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': npages = strtoull(optarg, NULL, 0); break;
		case 'z': share = strtod(optarg, NULL); break;
		case 'm': omit = !strcmp(optarg, "omit"); break;
		case 't':
			o.to = !strcmp(optarg, "lz4") ? HIB_COMP_LZ4 :
			       !strcmp(optarg, "none") ? HIB_COMP_NONE : HIB_COMP_LZO;
			break;
		case 's': seed = strtoull(optarg, NULL, 0) | 1; break;
		case 'o': stream_out = optarg; break;
		case 'P': o.page_size = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'W': o.word_size = (unsigned int)strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: mkimage --pages N [--zero-share F] [--zero-mode omit|store]\n"
				"               [--to lzo|lz4|none] [--seed S] [--stream-out FILE]\n"
				"               [--page-size 4096|16384|65536] [--word-size 8|4] OUT SOURCE...\n"
				"--stream-out (with --to none): also write the uncompressed stream\n"
				"(stream pages 1..pages-1, as the CRC covers them) for peer tools\n"
				"--page-size, --word-size: the writer's PAGE_SIZE and sizeof(long)\n"
				"(default 4096 and 8); sources may have any page size\n");
			return 2;
		}
	}
	if (argc - optind < 2 || !npages)
		die("need --pages, an output and at least one source image", NULL);
	p.ps = o.page_size ? o.page_size : 4096;
	if (p.ps % PIECE)
		die("--page-size: not a multiple of 4096", NULL);
	for (c = optind + 1; c < argc; c++)
		load_source(&p, argv[c]);
	if (!p.n)
		die("the sources hold no non-zero data pages", NULL);

	pfns = malloc(npages * sizeof(*pfns));
	p.order = malloc(npages * sizeof(*p.order));
	zero = calloc(npages / 8 + 1, 1);
	if (!pfns || !p.order || !zero)
		die("out of memory", NULL);
	for (e = 0; e < npages; e++) {
		/* holes now and then, as in real memory maps */
		pfn += (rng(&seed) % 997 == 0) ? 1 + rng(&seed) % 64 : 1;
		pfns[e] = pfn;
		if ((double)(rng(&seed) >> 11) / (double)(1ull << 53) < share) {
			p.order[e] = UINT64_MAX;
			if (omit)
				zero[e / 8] |= (uint8_t)(1u << (e % 8));
		} else {
			p.order[e] = rng(&seed) % p.n;
		}
	}
	if (p.info_ps == p.ps && p.info_word == (o.word_size ? o.word_size : 8))
		o.info_template = p.info;
	else
		o.info_template = info = generic_info(p.ps, o.word_size ? o.word_size : 8);
	img = hib_image_new();
	if (hib_image_build(img, argv[optind], &o, npages, pfns, zero, fill, &p, &res))
		die(hib_image_error(img), argv[optind]);
	printf("%s: %" PRIu64 " PFNs, %" PRIu64 " zero-flagged, %" PRIu64 " stream pages, %" PRIu64 " disk pages, crc32 0x%08x\n",
	       argv[optind], npages, res.zero_flagged, res.stream_pages, res.disk_pages, res.crc32);
	hib_image_free(img);
	if (stream_out)
		write_stream(argv[optind], stream_out);
	free(pfns);
	free(p.order);
	free(zero);
	free(p.pages);
	free(p.info);
	free(info);
	return 0;
}
