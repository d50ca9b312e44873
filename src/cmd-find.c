/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg find - where the resume pages are on a disk, a partition or a
 * disk image, and the resume_offset each one needs: what people otherwise
 * do with filefrag, or hexdump -s 4086 at every page.
 */
#include "config.h"
#include "common.h"
#include "describe.h"
#include "input.h"
#include "options.h"
#include "output.h"
#include "progress.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_opt find_opts[] = {
	{ "swap", no_argument, OPT_LONG + 0, NULL,
	  "also list plain swap areas (no image):\nthe resume_offset of a swap file with none yet" },
	{ NULL, 0, 0, NULL, NULL }
};

/* Exit statuses of find (hibimg-find(1)): grep's, in hibimg's numbers. */
#define EXIT_NONE     1

enum { C_PATH, C_OFFSET, C_ROFF, C_PS, C_KIND, C_RELEASE, C_COMP, C_STATE,
       C_PART, C_AREA, C_FSTYPE, C_FSUUID, C_FSLABEL, C_SIG, C_SIZE, C_PROBLEM };

struct row {
	const char *path;
	const struct hib_find_hit *h;
};

static void print_table(const struct row *rows, size_t n, const struct cli *cl,
			int several)
{
	struct libscols_table *tb = out_table_new(&cl->out, "find");
	int parts = 0, big = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		parts |= rows[i].h->partno != 0;
		big |= rows[i].h->page_size != 4096;
	}
	/* what most disks do not need stays out of the way: -o shows it */
	out_table_col_flags(tb, "PATH", OUT_STR, several ? 0 : OUT_COL_EXTRA);
	out_table_col(tb, "OFFSET", OUT_HEX);
	out_table_col(tb, "RESUME-OFFSET", OUT_NUM);
	out_table_col_flags(tb, "PAGE-SIZE", OUT_NUM, big ? 0 : OUT_COL_EXTRA);
	out_table_col(tb, "KIND", OUT_STR);
	out_table_col(tb, "RELEASE", OUT_STR);
	out_table_col_flags(tb, "COMPRESSION", OUT_STR, OUT_COL_EXTRA);
	out_table_col(tb, "STATE", OUT_STR);
	out_table_col_flags(tb, "PARTITION", OUT_NUM, parts ? 0 : OUT_COL_EXTRA);
	out_table_col_flags(tb, "AREA-OFFSET", OUT_HEX, OUT_COL_EXTRA);
	out_table_col(tb, "FS-TYPE", OUT_STR);
	out_table_col(tb, "FS-UUID", OUT_STR);
	out_table_col_flags(tb, "FS-LABEL", OUT_STR, OUT_COL_EXTRA);
	out_table_col_flags(tb, "SIG", OUT_STR, OUT_COL_EXTRA);
	out_table_col_flags(tb, "SIZE", OUT_SIZE, OUT_COL_EXTRA);
	out_table_col_flags(tb, "PROBLEM", OUT_STR, OUT_COL_EXTRA | OUT_COL_TRUNC);
	for (i = 0; i < n; i++) {
		const struct hib_find_hit *h = rows[i].h;
		struct libscols_line *ln = out_table_line(tb);
		int readable = h->content == HIB_CONTENT_READABLE;

		out_cell(ln, C_PATH, "%s", rows[i].path);
		out_cell(ln, C_OFFSET, "0x%" PRIx64, h->offset);
		out_cell(ln, C_ROFF, "%" PRIu64, h->resume_offset);
		out_cell(ln, C_PS, "%u", h->page_size);
		out_cell(ln, C_KIND, "%s", hib_kind_name(h->kind));
		if (h->release[0])
			out_cell(ln, C_RELEASE, "%s", h->release);
		if (readable)
			out_cell(ln, C_COMP, "%s", hib_compression_name(h->compression));
		out_cell(ln, C_STATE, "%s", describe_state(h->content, h->kind));
		if (h->partno)
			out_cell(ln, C_PART, "%d", h->partno);
		out_cell(ln, C_AREA, "0x%" PRIx64, h->area_offset);
		if (h->fs_type[0])
			out_cell(ln, C_FSTYPE, "%s", h->fs_type);
		if (h->fs_uuid[0])
			out_cell(ln, C_FSUUID, "%s", h->fs_uuid);
		if (h->fs_label[0])
			out_cell(ln, C_FSLABEL, "%s", h->fs_label);
		out_cell(ln, C_SIG, "%s", h->sig);
		if (readable)
			out_cell(ln, C_SIZE, "%" PRIu64, h->image_size);
		if (h->error)
			out_cell(ln, C_PROBLEM, "%s", h->error);
	}
	if (out_table_print(tb))
		die_(EXIT_IOERR, "write error");
}

/* For people: the kernel parameters that resume each kernel image read
 * whole, named the way the kernel finds the area (resume=UUID= of the
 * file system or swap area libblkid saw; resume_offset= in pages). A
 * spent one the kernel takes for swap, s2disk's its own resume tool
 * reads: no line. */
static void print_resume_lines(const struct row *rows, size_t n)
{
	size_t i;
	int said = 0;

	for (i = 0; i < n; i++) {
		const struct hib_find_hit *h = rows[i].h;

		if (h->content != HIB_CONTENT_READABLE || !h->fs_uuid[0] ||
		    h->kind != HIB_KIND_KERNEL)
			continue;
		printf("%s%s: resume=UUID=%s", said++ ? "" : "\n", rows[i].path, h->fs_uuid);
		if (h->resume_offset)
			printf(" resume_offset=%" PRIu64, h->resume_offset);
		printf("%s\n", h->page_size != 4096 ? " (only for a kernel of that page size)" : "");
	}
}

int cmd_find(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "find",
		.synopsis = "[options] <spec>...",
		.about = "Scan a disk, a partition or a disk image for resume pages: every page end\n"
			 "(4K to 64K pages) that holds a hibernation signature or a spent one.\n"
			 "Each find gets its resume_offset, in pages of its page size counted from\n"
			 "the start of its partition, and the file system libblkid sees around it.",
		.epilog = "Exit status: 0 a resume page found, 1 none, 2 usage error or an input\n"
			  "that cannot be scanned, 3 I/O error (hibimg-find(1)).\n",
		.common = CO_VIEW | CO_QUIET,
		.own = find_opts,
	};
	struct hib_find_list **lists;
	struct hib_image **imgs;
	struct row *rows = NULL;
	size_t nrows = 0;
	unsigned int flags = 0;
	int c, i, n, status = EXIT_INTACT, found = 0;
	char err[2048] = "";

	while ((c = cli_getopt(&cl, argc, argv)) != -1)
		if (c == OPT_LONG + 0)
			flags |= HIB_FIND_SWAP;
	if (optind == argc) {
		warnx_("no disk or image given");
		errtryhelp(cl.cmd);
	}
	n = argc - optind;
	lists = calloc((size_t)n, sizeof(*lists));
	imgs = calloc((size_t)n, sizeof(*imgs));
	if (!lists || !imgs)
		die_(EXIT_IOERR, "out of memory");
	for (i = 0; i < n; i++) {
		const char *spec = argv[optind + i];
		struct hib_image *img = hib_image_new();
		size_t k, nf;
		int rc;

		if (!img)
			die_(EXIT_IOERR, "out of memory");
		imgs[i] = img;
		rc = input_open(img, spec, 0);
		if (rc) {
			snprintf(err, sizeof(err), "%s", input_error(img));
			warnx_("%s", err);
			status = exit_worst(status, rc_to_exit(rc));
			continue;
		}
		progress_begin(hib_image_path(img), "MiB", cl.quiet);
		hib_image_set_progress(img, progress_keep, NULL);
		rc = hib_image_find(img, flags, &lists[i]);
		progress_end();
		if (rc) {
			snprintf(err, sizeof(err), "%s", hib_image_error(img));
			warnx_("%s", err);
			status = exit_worst(status, rc_to_exit(rc));
			continue;
		}
		nf = hib_find_count(lists[i]);
		if (hib_find_more(lists[i]))
			warnx_("%s: %" PRIu64 " more signatures after the first %zu finds, not described",
			       hib_image_path(img), hib_find_more(lists[i]), nf);
		rows = realloc(rows, (nrows + nf + 1) * sizeof(*rows));
		if (!rows)
			die_(EXIT_IOERR, "out of memory");
		for (k = 0; k < nf; k++) {
			rows[nrows].path = hib_image_path(img);
			rows[nrows].h = hib_find_get(lists[i], k);
			found |= rows[nrows].h->kind != HIB_KIND_SWAP;
			nrows++;
		}
	}
	/* -J: an input that failed makes the error document, as elsewhere */
	if (cl.out.json && status != EXIT_INTACT)
		out_json_error(cli_command, err, status);
	else if (nrows || cl.out.json || cl.out.list_columns)
		print_table(rows, nrows, &cl, n > 1);
	if (!cl.out.json && !cl.out.raw && !cl.out.pairs && !cl.quiet &&
	    !cl.out.list_columns) {
		if (!nrows && status == EXIT_INTACT)
			printf("No resume page found.\n");
		else
			print_resume_lines(rows, nrows);
	}
	if (status == EXIT_INTACT && !found)
		status = EXIT_NONE;
	for (i = 0; i < n; i++) {
		hib_find_free(lists[i]);
		hib_image_free(imgs[i]);
	}
	free(rows);
	free(lists);
	free(imgs);
	return status;
}
