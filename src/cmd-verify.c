/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg verify - read the whole image as the kernel's resume would, and
 * more strictly: every chunk decoded, every count cross-checked, CRC compared.
 */
#include "config.h"
#include "describe.h"
#include "input.h"
#include "options.h"
#include "partial.h"
#include "progress.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

/* The image's own checksum, whichever its container keeps (the library
 * says which), beside what the reader computed. */
static void checksum_section(struct out_rec *r, struct hib_image *img,
			     const struct hib_progress *p)
{
	struct hib_checksum ck = HIB_INIT(struct hib_checksum);
	char x[33];

	if (hib_image_checksum(img, &ck))
		return;
	out_rec_section(r, "Checksum");
	out_rec_add(r, "checksum", "kind", OUT_STR, "%s",
		    ck.kind == HIB_CHECKSUM_CRC32 ? "crc32" :
		    ck.kind == HIB_CHECKSUM_MD5 ? "md5" : "none");
	/* info's key: a CRC is a number, so "none" cannot share its key */
	out_rec_add(r, "crc32-mode", "CRC32 stored", OUT_BOOL, "%s",
		    ck.kind == HIB_CHECKSUM_CRC32 ? "true" : "false");
	switch (ck.kind) {
	case HIB_CHECKSUM_NONE:
		out_rec_add(r, "checksum-none", "why none", OUT_STR, "%s", ck.none_why);
		break;
	case HIB_CHECKSUM_CRC32:
		out_rec_add(r, "crc32-stored", "stored", OUT_HEX, "0x%08x", ck.crc32);
		if (p->crc_checked) {
			out_rec_add(r, "crc32-computed", "computed", OUT_HEX,
				    "0x%08x", p->crc32);
			out_rec_add(r, "crc32-ok", "match", OUT_BOOL, "%s",
				    p->crc_ok ? "true" : "false");
		}
		break;
	case HIB_CHECKSUM_MD5:
		hex_string(x, ck.md5, 16);
		out_rec_add(r, "md5-stored", "MD5 stored", OUT_STR, "%s", x);
		if (p->md5_checked) {
			hex_string(x, p->md5, 16);
			out_rec_add(r, "md5-computed", "MD5 computed", OUT_STR, "%s", x);
			out_rec_add(r, "md5-ok", "match", OUT_BOOL, "%s",
				    p->md5_ok ? "true" : "false");
		}
		break;
	}
}

enum { OPT_ALL_ERRORS = OPT_LONG };

static const struct cli_opt verify_opts[] = {
	{ "all-errors", no_argument, OPT_ALL_ERRORS, NULL,
	  "walk the whole stream as --partial does and\nreport every damaged chunk, not the first" },
	{ NULL, 0, 0, NULL, NULL }
};

static int all_errors;

/* --all-errors: the best-effort walk's records instead of the strict
 * reader's first error. */
static int verify_all(struct out_rec *r, struct hib_image *img, int several)
{
	struct hib_damage_summary s = HIB_INIT(struct hib_damage_summary);
	int rc = hib_image_load_pfns(img), status;

	if (rc == HIB_OK)
		rc = hib_image_damage_summary(img, &s);
	status = rc ? rc_to_exit(rc) : s.records ? EXIT_DAMAGED : EXIT_INTACT;
	out_rec_add(r, "kind", "kind", OUT_STR, "%s", hib_kind_name(hib_image_header(img)->kind));
	out_rec_add(r, "status", "status", OUT_STR, "%s", exit_name(status));
	if (rc) {
		warnx_("%s%s%s: %s", several ? hib_image_path(img) : "", several ? ": " : "",
		       exit_name(status), input_error(img));
		return status;
	}
	partial_fields(r, img);
	partial_list(r, img);
	partial_warn(img);
	return status;
}

/* One input: its record, its status. An error is said once: on standard
 * error for people, in the record for scripts. */
static int verify_one(struct out_rec *r, const char *spec, const struct cli *cl,
		      int several)
{
	struct hib_image *img = hib_image_new();
	struct hib_reader *rd = NULL;
	struct hib_progress p = HIB_INIT(struct hib_progress);
	struct hib_page pg = HIB_INIT(struct hib_page);
	struct tally t = { 0 };
	const struct hib_header *h;
	const struct hib_info *in;
	const struct hib_uswsusp *u;
	int machine = cl->out.json || cl->out.raw || cl->out.pairs;
	int rc, encrypted, status;
	uint64_t n = 0;

	if (!img)
		die_(EXIT_IOERR, "out of memory");
	if (cl->resume_offset)
		(void)hib_image_set_resume_offset(img, cl->resume_offset);
	rc = input_open(img, spec, INPUT_STDIN);
	if (rc) {
		/* the message names the spec; people get it once, on stderr */
		status = rc_to_exit(rc);
		if (machine) {
			out_rec_add(r, "path", "path", OUT_STR, "%s", spec);
			out_rec_add(r, "status", "status", OUT_STR, "%s", exit_name(status));
			out_rec_add(r, "error", "error", OUT_STR, "%s", input_error(img));
		}
		warnx_("%s", input_error(img));
		hib_image_free(img);
		return status;
	}
	h = hib_image_header(img);
	out_rec_add(r, "path", "path", OUT_STR, "%s", hib_image_path(img));
	/* before the load: a cut copy's map names pages past its end */
	if (all_errors && (rc = hib_image_set_partial(img, 1)) == HIB_OK &&
	    (rc = hib_image_load(img)) == HIB_OK) {
		status = verify_all(r, img, several);
		hib_image_free(img);
		return status;
	}
	rc = hib_image_load(img);
	if (rc == HIB_OK)
		rc = hib_reader_new(img, &rd);
	if (rc == HIB_OK)
		rc = hib_reader_set_threads(rd, cl->threads);
	if (rc == HIB_OK) {
		hib_reader_set_chunk_cb(rd, on_chunk, &t);
		progress_begin(hib_image_path(img), "pages", cl->quiet);
		while ((rc = hib_reader_next(rd, &pg)) == 1)
			if ((++n & 0xff) == 0) {
				hib_reader_progress(rd, &p);
				progress_update(p.stream_pages_done, p.stream_pages);
			}
		progress_end();
	}

	/* hib_image_load() checked the container's structure, then stopped
	 * where the key is needed. */
	u = hib_image_uswsusp(img);
	encrypted = hib_image_content(img) == HIB_CONTENT_ENCRYPTED;
	status = encrypted ? EXIT_ENCRYPTED : rc_to_exit(rc);
	out_rec_add(r, "kind", "kind", OUT_STR, "%s", hib_kind_name(h->kind));
	out_rec_add(r, "status", "status", OUT_STR, "%s", exit_name(status));
	if (h->kind == HIB_KIND_SPENT)
		out_rec_add(r, "spent", "spent (signature restored)", OUT_BOOL, "%s",
			    "true");
	if (rc && machine)
		out_rec_add(r, encrypted ? "note" : "error", encrypted ? "note" : "error",
			    OUT_STR, "%s", input_error(img));
	if (u) {
		out_rec_section(r, "Userspace image (suspend-utils)");
		out_rec_add(r, "data-pages", "data pages on disk", OUT_NUM, "%" PRIu64,
			    u->data_pages);
		out_rec_add(r, "extent-pages", "extents pages", OUT_NUM, "%" PRIu64,
			    u->extent_pages);
		out_rec_add(r, "extents", "extents", OUT_NUM, "%" PRIu64, u->extents);
	}
	if (encrypted)
		out_rec_add(r, "content-verified", "content verified", OUT_BOOL,
			    "%s", "false");

	in = hib_image_info(img);
	if (rd && in) {
		const struct hib_pfns *pf = hib_image_pfns(img);

		hib_reader_progress(rd, &p);
		out_rec_section(r, "Stream");
		out_rec_add(r, "compression", "compression", OUT_STR, "%s",
			    hib_compression_name(in->compression));
		/* what follows swsusp_info: the kernel's "Saving image data
		 * (P pages)" */
		out_rec_add(r, "stream-pages", "stream pages", OUT_NUM, "%" PRIu64,
			    p.stream_pages);
		out_rec_add(r, "stream-pages-good", "stream pages decoded", OUT_NUM,
			    "%" PRIu64, p.stream_pages_done);
		out_rec_add(r, "chunks", "chunks decoded", OUT_NUM, "%" PRIu64, t.chunks);
		if (in->compression != HIB_COMP_NONE) {
			out_rec_add(r, "compressed-bytes", "compressed bytes", OUT_SIZE,
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
			out_rec_add(r, "zero-flagged", "zero-flagged pages", OUT_NUM,
				    "%" PRIu64, pf->zero_flagged);
		}
		out_rec_add(r, "meta-pages", "PFN-list pages", OUT_NUM, "%" PRIu64,
			    in->meta_pages);
		checksum_section(r, img, &p);
	}
	if (rc)
		warnx_("%s%s%s: %s", several ? hib_image_path(img) : "", several ? ": " : "",
		       exit_name(status), input_error(img));
	hib_reader_free(rd);
	hib_image_free(img);
	return status;
}

int cmd_verify(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "verify",
		.synopsis = "[options] <spec>...",
		.about = "Check hibernation images completely: header, swap map, every chunk\n"
			 "decompressed, PFN list, page counts and the CRC32.",
		.epilog = "Exit status: 0 intact, 1 damaged, 2 usage error or not a verifiable\n"
			  "image, 3 I/O error, 4 encrypted (uswsusp): structure intact, content not\n"
			  "verifiable without the key. With several images, the worst of theirs\n"
			  "(0 < 4 < 1 < 2 < 3).\n",
		.common = CO_VIEW | CO_QUIET | CO_RESUME | CO_THREADS | CO_SPENT,
		.own = verify_opts,
	};
	struct out_rec **recs;
	int i, n, status = EXIT_INTACT;

	while ((i = cli_getopt(&cl, argc, argv)) != -1)
		if (i == OPT_ALL_ERRORS)
			all_errors = 1;
	if (optind == argc) {
		warnx_("no image given");
		errtryhelp("verify");
	}
	n = argc - optind;
	recs = calloc((size_t)n, sizeof(*recs));
	if (!recs)
		die_(EXIT_IOERR, "out of memory");
	for (i = 0; i < n; i++) {
		recs[i] = out_rec_new();
		status = exit_worst(status, verify_one(recs[i], argv[optind + i], &cl,
						       n > 1));
	}
	if (out_recs_print(recs, (size_t)n, &cl.out, "verify"))
		status = exit_worst(status, EXIT_IOERR);
	for (i = 0; i < n; i++)
		out_rec_free(recs[i]);
	free(recs);
	return status;
}
