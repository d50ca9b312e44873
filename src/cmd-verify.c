/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg verify - read the whole image as the kernel's resume would, and
 * more strictly: every chunk decoded, every count cross-checked, CRC compared.
 */
#include "config.h"
#include "describe.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void __attribute__((noreturn)) usage(void)
{
	printf("Usage:\n hibimg verify [options] <spec>\n\n");
	printf("Check a hibernation image completely: header, swap map, every chunk\n"
	       "decompressed, PFN list, page counts and the CRC32.\n\n");
	printf("Options:\n"
	       " -J, --json                 use JSON output format\n"
	       " -r, --raw                  use raw output format\n"
	       " -q, --quiet                print nothing, only set the exit status\n"
	       " -R, --resume-offset <pages> the resume page is not page 0 (swap file)\n"
	       " -T, --threads <n>          decompress with n threads (default: online CPUs)\n"
	       "     --spent                read what a resume attempt left of the image\n"
	       USAGE_HELP_OPTIONS);
	printf("\nExit status: 0 intact, 1 damaged, 2 usage error or not a verifiable\n"
	       "image, 3 I/O error, 4 encrypted (uswsusp): structure intact, content not\n"
	       "verifiable without the key. See hibimg-verify(1).\n");
	exit(EXIT_SUCCESS);
}

struct tally {
	uint64_t chunks;
	uint64_t cmp_bytes;
	uint64_t last_entry;
};

static int on_chunk(const struct hib_chunk *c, void *arg)
{
	struct tally *t = arg;

	t->chunks++;
	t->cmp_bytes += c->cmp_len;
	t->last_entry = c->map_entry + c->disk_pages;
	return 0;
}

static void checksum_section(struct out_rec *r, const struct hib_image *img,
			     const struct hib_progress *p)
{
	const struct hib_header *h = hib_image_header(img);
	const struct hib_uswsusp *u = hib_image_uswsusp(img);
	char x[33];

	out_rec_section(r, "Checksum");
	if (u) {
		if (!(u->flags & HIB_USW_CHECKSUM)) {
			out_rec_add(r, "md5-stored", "MD5 stored", OUT_STR, "%s",
				    "none (s2disk was not asked to compute one)");
			return;
		}
		hex_string(x, u->checksum, 16);
		out_rec_add(r, "md5-stored", "MD5 stored", OUT_STR, "%s", x);
		if (p->md5_checked) {
			hex_string(x, p->md5, 16);
			out_rec_add(r, "md5-computed", "MD5 computed", OUT_STR, "%s", x);
			out_rec_add(r, "md5-ok", "match", OUT_BOOL, "%s",
				    p->md5_ok ? "true" : "false");
		}
		return;
	}
	if (h->flags & HIB_SF_CRC32_MODE) {
		out_rec_add(r, "crc32-stored", "stored", OUT_STR, "0x%08x", h->crc32);
		if (p->stream_pages_done == p->stream_pages) {
			out_rec_add(r, "crc32-computed", "computed", OUT_STR,
				    "0x%08x", p->crc32);
			out_rec_add(r, "crc32-ok", "match", OUT_BOOL, "%s",
				    p->crc32 == h->crc32 ? "true" : "false");
		}
	} else {
		out_rec_add(r, "crc32-stored", "stored", OUT_STR, "%s",
			    "none (uncompressed image: the kernel keeps no checksum)");
	}
}

static void progress(const struct hib_reader *rd, int final)
{
	struct hib_progress p = HIB_INIT(struct hib_progress);

	hib_reader_progress(rd, &p);
	fprintf(stderr, "\rhibimg: verifying: %3u%% (%" PRIu64 "/%" PRIu64 " pages)%s",
		p.stream_pages ? (unsigned)(p.stream_pages_done * 100 / p.stream_pages) : 100,
		p.stream_pages_done, p.stream_pages, final ? "\n" : "");
}

int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",          no_argument,       NULL, 'J' },
		{ "raw",           no_argument,       NULL, 'r' },
		{ "quiet",         no_argument,       NULL, 'q' },
		{ "resume-offset", required_argument, NULL, 'R' },
		{ "threads",       required_argument, NULL, 'T' },
		{ "spent",         no_argument,       NULL, 'S' },
		{ "help",          no_argument,       NULL, 'h' },
		{ "version",       no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct out_opts oo = { 0 };
	struct out_rec *r;
	struct hib_image *img;
	struct hib_reader *rd = NULL;
	struct hib_progress p = HIB_INIT(struct hib_progress);
	struct hib_page pg = HIB_INIT(struct hib_page);
	struct tally t = { 0 };
	const struct hib_header *h;
	const struct hib_info *in;
	const struct hib_uswsusp *u;
	uint64_t offset = 0, n = 0;
	unsigned int threads = 0;
	int spent = 0;
	int c, rc, quiet = 0, tty = isatty(STDERR_FILENO), encrypted = 0;
	const char *status;

	while ((c = getopt_long(argc, argv, "JrqR:T:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'J': oo.json = 1; break;
		case 'r': oo.raw = 1; break;
		case 'q': quiet = 1; break;
		case 'R': offset = parse_u64(optarg, "resume offset"); break;
		case 'T': threads = (unsigned int)parse_u64(optarg, "thread count"); break;
		case 'S': spent = 1; break;
		case 'h': usage();
		case 'V': print_version();
		default: errtryhelp("verify");
		}
	}
	if (optind + 1 != argc) {
		warnx_(optind == argc ? "no image given" : "too many arguments");
		errtryhelp("verify");
	}

	img = open_image(argv[optind], offset);
	h = hib_image_header(img);
	if (spent)
		(void)hib_image_allow_spent(img, 1);
	r = out_rec_new();
	out_rec_add(r, "path", "path", OUT_STR, "%s", hib_image_path(img));
	rc = hib_image_load(img);
	if (rc == HIB_OK)
		rc = hib_reader_new(img, &rd);
	if (rc == HIB_OK)
		rc = hib_reader_set_threads(rd, threads);
	if (rc == HIB_OK) {
		hib_reader_set_chunk_cb(rd, on_chunk, &t);
		while ((rc = hib_reader_next(rd, &pg)) == 1)
			if (tty && !quiet && (++n & 0x3fff) == 0)
				progress(rd, 0);
		if (tty && !quiet)
			progress(rd, 1);
	}

	/* hib_image_load() checked the container's structure, then stopped
	 * where the key is needed. */
	u = hib_image_uswsusp(img);
	encrypted = hib_image_content(img) == HIB_CONTENT_ENCRYPTED;
	status = rc == HIB_OK ? "intact" : rc == HIB_ERR_DAMAGED ? "damaged" :
		 encrypted ? "encrypted" :
		 rc == HIB_ERR_UNSUPPORTED || rc == HIB_ERR_INVAL ? "unsupported" :
		 "io-error";
	out_rec_add(r, "kind", "kind", OUT_STR, "%s", hib_kind_name(h->kind));
	out_rec_add(r, "status", "status", OUT_STR, "%s", status);
	if (h->kind == HIB_KIND_SPENT)
		out_rec_add(r, "spent", "spent (signature restored)", OUT_BOOL, "%s",
			    "true");
	if (rc)
		out_rec_add(r, encrypted ? "note" : "error",
			    encrypted ? "note" : "first error", OUT_STR, "%s",
			    hib_image_error(img));
	if (u) {
		out_rec_section(r, "Userspace image (suspend-utils)");
		out_rec_add(r, "data-pages", "data pages on disk", OUT_NUM, "%" PRIu64,
			    u->data_pages);
		out_rec_add(r, "extent-pages", "extents pages", OUT_NUM, "%" PRIu64,
			    u->extent_pages);
		out_rec_add(r, "extents", "extents", OUT_NUM, "%" PRIu64, u->extents);
		if (encrypted)
			out_rec_add(r, "content-verified", "content verified", OUT_BOOL,
				    "%s", "false");
	}

	in = hib_image_info(img);
	if (rd && in) {
		const struct hib_pfns *pf = hib_image_pfns(img);

		hib_reader_progress(rd, &p);
		out_rec_section(r, "Stream");
		out_rec_add(r, "compression", "compression", OUT_STR, "%s",
			    hib_compression_name(in->compression));
		out_rec_add(r, "stream-pages", "stream pages (\"Saving image data\")",
			    OUT_NUM, "%" PRIu64, p.stream_pages);
		out_rec_add(r, "stream-pages-good", "stream pages decoded", OUT_NUM,
			    "%" PRIu64, p.stream_pages_done);
		out_rec_add(r, "chunks", "chunks decoded", OUT_NUM, "%" PRIu64, t.chunks);
		if (in->compression != HIB_COMP_NONE) {
			out_rec_add(r, "compressed-bytes", "compressed bytes", OUT_NUM,
				    "%" PRIu64, t.cmp_bytes);
			out_rec_add(r, "compressed-kbytes",
				    "\"Image size after compression\" kbytes", OUT_NUM,
				    "%" PRIu64, t.cmp_bytes / 1024);
		}
		out_rec_add(r, "disk-pages-used", "pages read from disk", OUT_NUM,
			    "%" PRIu64, p.disk_bytes_read / h->page_size);
		out_rec_add(r, "wrote-kbytes", "\"Wrote\" kbytes", OUT_NUM, "%" PRIu64,
			    p.stream_pages * h->page_size / 1024);
		out_rec_section(r, "Snapshot");
		out_rec_add(r, "image-pages", "image pages (\"pages copied\")", OUT_NUM,
			    "%" PRIu64, in->image_pages);
		out_rec_add(r, "data-pages-good", "data pages decoded", OUT_NUM,
			    "%" PRIu64, p.data_pages_done);
		if (pf) {
			out_rec_add(r, "pfn-entries", "PFNs (\"Need to copy\")", OUT_NUM,
				    "%" PRIu64, pf->entries);
			out_rec_add(r, "zero-pages", "zero-flagged pages", OUT_NUM,
				    "%" PRIu64, pf->zero_flagged);
		}
		out_rec_add(r, "meta-pages", "PFN-list pages", OUT_NUM, "%" PRIu64,
			    in->meta_pages);
		checksum_section(r, img, &p);
	}
	if (!quiet)
		out_recs_print(&r, 1, &oo, "verify");
	if (rc)
		warnx_("%s: %s%s", status, hib_image_error(img),
		       h->kind == HIB_KIND_SPENT && !spent ?
		       " (--spent reads what is left)" : "");
	out_rec_free(r);
	hib_reader_free(rd);
	hib_image_free(img);
	return encrypted ? EXIT_ENCRYPTED : rc_to_exit(rc);
}
