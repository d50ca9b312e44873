/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg explain - a kernel log read the way someone who knows
 * kernel/power/ reads it: each hibernation and resume line with what it
 * means and what to check next (the library's table, klog.c), and, with
 * the image too, whether the numbers the kernel printed are the image's.
 */
#include "config.h"
#include "common.h"
#include "input.h"
#include "options.h"
#include "progress.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* hibimg-explain(1) */
#define EXIT_NOTHING_WRONG 0
#define EXIT_FOUND_WRONG   1

/* A line longer than this is cut: no kernel line comes near it, and a log
 * that is one huge line (a binary file) must not size an allocation. */
#define LINE_MAX_BYTES 4096

static struct libscols_table *lines_table(const struct out_opts *o)
{
	struct libscols_table *tb = out_table_new(o, "lines");

	out_table_col(tb, "LINE", OUT_NUM);
	out_table_col(tb, "SEVERITY", OUT_STR);
	out_table_col_flags(tb, "TOPIC", OUT_STR, OUT_COL_EXTRA);
	out_table_col(tb, "LOG-MESSAGE", OUT_STR);
	/* long sentences: people read them under the line */
	out_table_col_flags(tb, "MEANING", OUT_STR, OUT_COL_BELOW);
	out_table_col_flags(tb, "NEXT", OUT_STR, OUT_COL_BELOW);
	return tb;
}

static struct libscols_table *numbers_table(const struct out_opts *o)
{
	struct libscols_table *tb = out_table_new(o, "numbers");

	out_table_col(tb, "LINE", OUT_NUM);
	out_table_col(tb, "QUANTITY", OUT_STR);
	out_table_col(tb, "LOG-VALUE", OUT_NUM);
	out_table_col(tb, "IMAGE-VALUE", OUT_NUM);
	out_table_col(tb, "AGREES", OUT_BOOL);
	return tb;
}

/* One line of at most cap-1 bytes; the rest of a longer one is skipped.
 * Returns its length, -1 at the end. NUL bytes (a binary log) end
 * nothing: they are read as spaces. */
static long read_line(FILE *f, char *buf, size_t cap)
{
	size_t n = 0;
	int c, any = 0;

	while ((c = getc(f)) != EOF) {
		any = 1;
		if (c == '\n')
			break;
		if (n + 1 < cap)
			buf[n++] = c ? (char)c : ' ';
	}
	/* a serial console ends its lines in CR LF */
	while (n && buf[n - 1] == '\r')
		n--;
	buf[n] = 0;
	return any ? (long)n : -1;
}

struct tally {
	uint64_t lines, failures, checked, agreeing;
	uint64_t first_failure_line;
	char *first_failure;
};

/* The image's numbers, or why there are none (said once). */
static int image_numbers(const char *spec, uint64_t offset, int quiet,
			 struct hib_log_numbers *n, char **path)
{
	struct hib_image *img = hib_image_new();
	int rc;

	if (!img)
		die_(EXIT_IOERR, "out of memory");
	if (offset)
		(void)hib_image_set_resume_offset(img, offset);
	rc = input_open(img, spec, 0);
	if (rc == HIB_OK) {
		*path = strdup(hib_image_path(img));
		/* the whole stream is decoded to sum the chunks: a long pass */
		progress_begin(hib_image_path(img), "entries", quiet);
		hib_image_set_progress(img, progress_keep, NULL);
		rc = hib_image_log_numbers(img, n);
		progress_end();
	}
	if (rc)
		warnx_("%s: the log's numbers are not checked against it", input_error(img));
	hib_image_free(img);
	return rc;
}

static void add_numbers(struct libscols_table *nt, uint64_t lineno,
			const struct hib_log_line *ll, const struct hib_log_numbers *n,
			struct tally *t)
{
	unsigned int i;

	for (i = 0; i < ll->nvalues; i++) {
		struct libscols_line *ln;
		uint64_t v;

		if (!hib_log_numbers_get(n, ll->quantity[i], &v))
			continue;
		ln = out_table_line(nt);
		t->checked++;
		t->agreeing += ll->value[i] >= 0 && (uint64_t)ll->value[i] == v;
		out_cell(ln, 0, "%" PRIu64, lineno);
		out_cell(ln, 1, "%s", hib_log_quantity_name(ll->quantity[i]));
		out_cell(ln, 2, "%" PRId64, ll->value[i]);
		out_cell(ln, 3, "%" PRIu64, v);
		out_cell(ln, 4, "%s", ll->value[i] >= 0 && (uint64_t)ll->value[i] == v ?
			 "true" : "false");
	}
}

static struct out_rec *summary_rec(const char *log, const char *image, const struct tally *t)
{
	struct out_rec *r = out_rec_new();

	out_rec_add(r, "path", "log", OUT_STR, "%s", log);
	if (image)
		out_rec_add(r, "image-path", "image", OUT_STR, "%s", image);
	out_rec_add(r, "hibernation-lines", "hibernation and PM lines", OUT_NUM, "%" PRIu64,
		    t->lines);
	out_rec_add(r, "failures", "failure lines", OUT_NUM, "%" PRIu64, t->failures);
	if (t->first_failure) {
		out_rec_add(r, "first-failure-line", "first failure, line", OUT_NUM,
			    "%" PRIu64, t->first_failure_line);
		out_rec_add(r, "first-failure", "first failure", OUT_STR, "%s",
			    t->first_failure);
	}
	if (image) {
		out_rec_add(r, "numbers-checked", "numbers checked against the image",
			    OUT_NUM, "%" PRIu64, t->checked);
		out_rec_add(r, "numbers-agreeing", "of them agreeing", OUT_NUM, "%" PRIu64,
			    t->agreeing);
	}
	return r;
}

int cmd_explain(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "explain",
		.synopsis = "[options] <log>|- [<image>]",
		.about = "Read a kernel log (dmesg, a serial console, journalctl -k) and explain\n"
			 "each hibernation and resume line: what it means, what to check next.\n"
			 "With <image> too, check the numbers the kernel printed (Wrote/Read N\n"
			 "kbytes, pages copied, zero pages, size after compression) against it;\n"
			 "-R gives the image's resume offset.",
		.epilog = "Exit status: 0 nothing wrong found, 1 a failure line found or a number\n"
			  "that is not the image's, 2 usage error or an image that cannot be read\n"
			  "as one, 3 I/O error.\n",
		.common = CO_VIEW | CO_QUIET | CO_RESUME,
	};
	struct hib_log_numbers nums = HIB_INIT(struct hib_log_numbers);
	struct out_opts whole;
	struct libscols_table *lt, *nt = NULL;
	struct tally t = { 0 };
	struct out_rec *sr;
	const char *log, *image = NULL;
	char *image_path = NULL, *buf;
	int status = EXIT_NOTHING_WRONG, rc;
	uint64_t lineno = 0;
	long len;
	FILE *f;

	while (cli_getopt(&cl, argc, argv) != -1)
		;
	if (cl.out.list_columns) {
		rc = out_table_print(lines_table(&cl.out));
		rc |= out_table_print(numbers_table(&cl.out));
		return rc ? EXIT_IOERR : EXIT_INTACT;
	}
	if (optind == argc || argc - optind > 2) {
		warnx_(optind == argc ? "no log given" : "too many arguments");
		errtryhelp("explain");
	}
	log = argv[optind];
	if (argc - optind == 2)
		image = argv[optind + 1];
	if (!strcmp(log, "-"))
		f = stdin;
	else if (!(f = fopen(log, "r")))
		die_(EXIT_IOERR, "cannot open %s: %s", log, strerror(errno));
	if (image) {
		rc = image_numbers(image, cl.resume_offset, cl.quiet, &nums, &image_path);
		if (rc)
			status = exit_worst(status, rc_to_exit(rc));
	}

	/* -o picks the lines' columns; the numbers and the summary stay whole */
	whole = cl.out;
	whole.columns = NULL;
	lt = lines_table(&cl.out);
	if (image_path)
		nt = numbers_table(&whole);
	buf = malloc(LINE_MAX_BYTES);
	if (!buf)
		die_(EXIT_IOERR, "out of memory");
	while ((len = read_line(f, buf, LINE_MAX_BYTES)) >= 0) {
		struct hib_log_line ll = HIB_INIT(struct hib_log_line);
		struct libscols_line *ln;
		const char *msg;

		lineno++;
		if (hib_log_explain(buf, (size_t)len, &ll) != 1)
			continue;
		msg = buf + ll.msg_offset;
		t.lines++;
		if (ll.kind == HIB_LOG_FAILURE) {
			t.failures++;
			if (!t.first_failure) {
				t.first_failure = strdup(msg);
				t.first_failure_line = lineno;
			}
		}
		ln = out_table_line(lt);
		out_cell(ln, 0, "%" PRIu64, lineno);
		out_cell(ln, 1, "%s", hib_log_kind_name(ll.kind));
		out_cell(ln, 2, "%s", ll.id ? ll.id : "");
		out_cell(ln, 3, "%s", msg);
		out_cell(ln, 4, "%s", ll.meaning ? ll.meaning : "");
		out_cell(ln, 5, "%s", ll.next ? ll.next : "");
		if (nt)
			add_numbers(nt, lineno, &ll, &nums, &t);
	}
	free(buf);
	if (ferror(f))
		die_(EXIT_IOERR, "cannot read %s: %s", log, strerror(errno));
	if (f != stdin)
		fclose(f);
	if (t.failures || t.agreeing < t.checked)
		status = exit_worst(status, EXIT_FOUND_WRONG);
	if (!t.lines)
		warnx_("%s: no hibernation, resume or PM line in it", log);

	if (cl.quiet) {
		out_table_free(lt);
		if (nt)
			out_table_free(nt);
	} else {
		/* people get a blank line between the parts; scripts none */
		int people = !cl.out.json && !cl.out.raw && !cl.out.pairs;

		sr = summary_rec(log, image_path, &t);
		out_doc_begin(&cl.out, "explain");
		rc = out_table_print(lt);
		if (nt) {
			if (people)
				putchar('\n');
			rc |= out_table_print(nt);
		}
		if (people)
			putchar('\n');
		rc |= out_rec_print(sr, &whole, cl.out.json ? NULL : "summary");
		rc |= out_doc_end();
		out_rec_free(sr);
		if (rc)
			die_(EXIT_IOERR, "cannot print the result");
	}
	free(t.first_failure);
	free(image_path);
	return status;
}
