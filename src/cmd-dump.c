/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg dump - one layer of an image at a time, as tables.
 */
#include "config.h"
#include "describe.h"
#include "input.h"
#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void load_or_die(struct hib_image *img, int pfns)
{
	int rc = hib_image_load(img);

	if (rc == HIB_OK && pfns)
		rc = hib_image_load_pfns(img);
	if (rc)
		die_(rc_to_exit(rc), "%s", input_error(img));
}

static int dump_header(struct hib_image *img, const struct out_opts *oo)
{
	struct out_rec *r = out_rec_new();
	int rc;

	describe_header(r, img);
	rc = out_recs_print(&r, 1, oo, "header");
	out_rec_free(r);
	return rc ? EXIT_IOERR : EXIT_INTACT;
}

/* The map chain, one line per page: the kernel's swap map, or a
 * container's own (suspend-utils': extents pages, each supplying the data
 * pages of its extents in order). */
static int dump_map(struct hib_image *img, const struct out_opts *oo)
{
	const struct hib_info *in;
	struct libscols_table *tb;
	unsigned int ps = hib_image_header(img)->page_size;
	int extents;
	uint64_t i;

	load_or_die(img, 0);
	in = hib_image_info(img);
	extents = (hib_image_container_flags(img) & HIB_CT_EXTENTS) != 0;
	tb = out_table_new(oo, "map");
	out_table_col(tb, "INDEX", OUT_NUM);
	out_table_col(tb, "DEVPAGE", OUT_NUM);
	out_table_col(tb, "OFFSET", OUT_HEX);
	out_table_col(tb, "FIRST-ENTRY", OUT_NUM);
	out_table_col(tb, "ENTRIES", OUT_NUM);
	if (extents)
		out_table_col(tb, "EXTENTS", OUT_NUM);
	for (i = 0; i < in->map_pages; i++) {
		struct libscols_line *ln = out_table_line(tb);
		struct hib_map_page mp = HIB_INIT(struct hib_map_page);

		if (hib_image_map_page_info(img, i, &mp))
			die_(EXIT_IOERR, "%s", input_error(img));
		out_cell(ln, 0, "%" PRIu64, i);
		out_cell(ln, 1, "%" PRIu64, mp.devpage);
		out_cell(ln, 2, "0x%" PRIx64, mp.devpage * ps);
		out_cell(ln, 3, "%" PRIu64, mp.first_entry);
		out_cell(ln, 4, "%" PRIu64, mp.entries);
		if (extents)
			out_cell(ln, 5, "%" PRIu64, mp.extents);
	}
	return out_table_print(tb) ? EXIT_IOERR : EXIT_INTACT;
}

struct chunk_ctx {
	struct libscols_table *tb;
	unsigned int ps;
};

static int on_chunk(const struct hib_chunk *c, void *arg)
{
	struct chunk_ctx *cx = arg;
	struct libscols_line *ln = out_table_line(cx->tb);

	out_cell(ln, 0, "%" PRIu64, c->index);
	out_cell(ln, 1, "%" PRIu64, c->map_entry);
	out_cell(ln, 2, "%" PRIu64, c->devpage);
	out_cell(ln, 3, "0x%" PRIx64, c->devpage * cx->ps);
	out_cell(ln, 4, "%" PRIu64, c->disk_pages);
	out_cell(ln, 5, "%" PRIu64, c->cmp_len);
	out_cell(ln, 6, "%" PRIu64, c->unc_len);
	out_cell(ln, 7, "%" PRIu64, c->first_stream_page);
	out_cell(ln, 8, "%.3f", c->cmp_len ? (double)c->unc_len / (double)c->cmp_len : 1.0);
	return 0;
}

static int dump_chunks(struct hib_image *img, const struct out_opts *oo)
{
	struct chunk_ctx cx;
	struct hib_reader *rd;
	struct hib_page pg = HIB_INIT(struct hib_page);
	int rc, prc;

	load_or_die(img, 0);
	cx.ps = hib_image_header(img)->page_size;
	cx.tb = out_table_new(oo, "chunks");
	out_table_col(cx.tb, "INDEX", OUT_NUM);
	out_table_col(cx.tb, "ENTRY", OUT_NUM);
	out_table_col(cx.tb, "DEVPAGE", OUT_NUM);
	out_table_col(cx.tb, "OFFSET", OUT_HEX);
	out_table_col(cx.tb, "DISK-PAGES", OUT_NUM);
	out_table_col(cx.tb, "CMP-LEN", OUT_SIZE);
	out_table_col(cx.tb, "UNC-LEN", OUT_SIZE);
	out_table_col(cx.tb, "STREAM-PAGE", OUT_NUM);
	out_table_col(cx.tb, "RATIO", OUT_NUM);
	rc = hib_reader_new(img, &rd);
	if (rc == HIB_OK) {
		hib_reader_set_chunk_cb(rd, on_chunk, &cx);
		while ((rc = hib_reader_next(rd, &pg)) == 1)
			;
		hib_reader_free(rd);
	}
	/* Print what was decoded even when the stream breaks later. */
	prc = out_table_print(cx.tb);
	if (rc < 0) {
		warnx_("%s", input_error(img));
		return rc_to_exit(rc);
	}
	return prc ? EXIT_IOERR : EXIT_INTACT;
}

static int dump_pfns(struct hib_image *img, const struct out_opts *oo)
{
	const struct hib_pfns *pf;
	struct libscols_table *tb;
	uint64_t e = 0;

	load_or_die(img, 1);
	pf = hib_image_pfns(img);
	tb = out_table_new(oo, "pfns");
	out_table_col(tb, "FIRST-ENTRY", OUT_NUM);
	out_table_col(tb, "START-PFN", OUT_HEX);
	out_table_col(tb, "END-PFN", OUT_HEX);
	out_table_col(tb, "PFN-ENTRIES", OUT_NUM);
	out_table_col(tb, "ZERO-FLAGGED", OUT_NUM);
	while (e < pf->entries) {
		struct libscols_line *ln;
		uint64_t start, pfn, zeros = 0, n = 0;
		int zero;

		(void)hib_image_pfn_entry(img, e, &start, &zero);
		pfn = start;
		do {
			zeros += zero;
			n++;
			if (e + n >= pf->entries ||
			    hib_image_pfn_entry(img, e + n, &pfn, &zero) ||
			    pfn != start + n)
				break;
		} while (1);
		ln = out_table_line(tb);
		out_cell(ln, 0, "%" PRIu64, e);
		out_cell(ln, 1, "0x%" PRIx64, start);
		out_cell(ln, 2, "0x%" PRIx64, start + n - 1);
		out_cell(ln, 3, "%" PRIu64, n);
		out_cell(ln, 4, "%" PRIu64, zeros);
		e += n;
	}
	return out_table_print(tb) ? EXIT_IOERR : EXIT_INTACT;
}

static void hexdump(const unsigned char *p, size_t len, uint64_t base)
{
	size_t i, j;

	for (i = 0; i < len; i += 16) {
		printf("%08" PRIx64 "  ", base + i);
		for (j = 0; j < 16; j++)
			printf("%02x%s", p[i + j], j == 7 ? "  " : " ");
		printf(" |");
		for (j = 0; j < 16; j++)
			putchar(p[i + j] >= 0x20 && p[i + j] < 0x7f ? p[i + j] : '.');
		printf("|\n");
	}
}

static int dump_page(struct hib_image *img, uint64_t want, const char *outfile,
		     unsigned int oflags, int quiet)
{
	struct hib_output *out = NULL;
	struct hib_reader *rd;
	struct hib_page pg = HIB_INIT(struct hib_page);
	unsigned int ps = hib_image_header(img)->page_size;
	unsigned char *zero = NULL;
	const unsigned char *data = NULL;
	int rc;

	load_or_die(img, 0);
	/* refused before the stream is read, not after */
	if (outfile)
		out = open_output(img, outfile, oflags);
	rc = hib_reader_new(img, &rd);
	if (rc)
		die_(rc_to_exit(rc), "%s", input_error(img));
	while ((rc = hib_reader_next(rd, &pg)) == 1) {
		if (pg.pfn < want)
			continue;
		if (pg.pfn > want)
			break;
		if (pg.data)
			data = pg.data;
		else
			data = zero = calloc(1, ps);
		break;
	}
	if (rc < 0 || !data) {
		if (rc < 0)
			warnx_("%s", input_error(img));
		else
			warnx_("PFN 0x%" PRIx64 " is not saved in the image", want);
		close_output(img, out, 0);
		exit(rc < 0 ? rc_to_exit(rc) : EXIT_USAGE);
	}
	if (out) {
		write_output(img, out, data, ps, 0);
		close_output(img, out, 1);
	} else if (!quiet) {
		hexdump(data, ps, want * ps);
	}
	free(zero);
	hib_reader_free(rd);
	return EXIT_INTACT;
}

int cmd_dump(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "dump",
		.synopsis = "[options] <spec> header|map|chunks|pfns|page <pfn>",
		.about = "Print one layer of a hibernation image.",
		.sections =
			"Layers:\n"
			" header        the resume page: hibernation and swap header fields\n"
			" map           the swap-map chain, one line per map page\n"
			" chunks        the stream's chunks (or raw pages), with sizes and places\n"
			" pfns          the PFN list as runs of consecutive PFNs\n"
			" page <pfn>    one saved page as a hexdump (or raw, with --output-file)\n",
		.common = CO_VIEW | CO_QUIET | CO_RESUME | CO_OUTFILE | CO_FORCE | CO_DEVICE | CO_SPENT,
	};
	const struct out_opts *oo = &cl.out;
	struct hib_image *img;
	const char *what;
	unsigned int oflags = HIB_OUTPUT_STREAM | HIB_OUTPUT_DEVICE_OK;
	int status, page;

	while (cli_getopt(&cl, argc, argv) != -1)
		;
	if (cl.force)
		oflags |= HIB_OUTPUT_FORCE;
	if (cl.device)
		oflags |= HIB_OUTPUT_DEVICE;
	if (argc - optind < 2) {
		warnx_("need an image and a layer");
		errtryhelp("dump");
	}
	what = argv[optind + 1];
	page = !strcmp(what, "page");
	if (page ? argc - optind != 3 : argc - optind != 2) {
		warnx_(page ? "'page' needs exactly one PFN" : "too many arguments");
		errtryhelp("dump");
	}
	if (strcmp(what, "header") && strcmp(what, "map") && strcmp(what, "chunks") &&
	    strcmp(what, "pfns") && !page) {
		warnx_("unknown layer '%s'", what);
		errtryhelp("dump");
	}
	if ((cl.outfile || cl.force || cl.device) && !page) {
		warnx_("--output-file, --force and --device go with the 'page' layer only");
		errtryhelp("dump");
	}
	/* a page is bytes, not a table */
	if (page && (oo->json || oo->raw || oo->pairs || oo->columns || oo->list_columns)) {
		warnx_("'page' prints a hexdump: --json, --raw, --pairs, --output and "
		       "--list-columns do not apply (--output-file writes the raw page)");
		errtryhelp("dump");
	}
	img = open_image(argv[optind], cl.resume_offset);
	if (!strcmp(what, "header"))
		status = dump_header(img, oo);
	else if (!strcmp(what, "map"))
		status = dump_map(img, oo);
	else if (!strcmp(what, "chunks"))
		status = dump_chunks(img, oo);
	else if (!strcmp(what, "pfns"))
		status = dump_pfns(img, oo);
	else
		status = dump_page(img, parse_u64(argv[optind + 2], "PFN"), cl.outfile,
				   oflags, cl.quiet);
	hib_image_free(img);
	return status;
}
