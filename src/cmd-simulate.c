/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg simulate - the image's memory hibernated with the zero check on
 * and off, with each compression: sizes by really building and compressing
 * each stream, times from a rate model (hibimg-simulate(1)).
 */
#include "config.h"
#include "common.h"
#include "output.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void __attribute__((noreturn)) usage(void)
{
	struct hib_sim_opts d = { .size = sizeof(d) };

	hib_sim_defaults(&d);
	printf("Usage:\n hibimg simulate [options] <spec>\n\n");
	printf("Model the time and size of hibernating the memory held by an image\n"
	       "with the zero-page check on (6.6+) and off (nozerocheck), with no\n"
	       "compression, LZO, LZ4 and zstd (a what-if: no kernel writes it).\n\n");
	printf("Options:\n"
	       " -c, --compare <comp>       compression of the before/after table\n"
	       "                              (none, lzo, lz4, zstd; default: the image's)\n"
	       " -T, --threads <n>          compression threads (default: clamp(CPUs-1, 1, 3))\n"
	       " -w, --disk-write <MB/s>    disk write rate (default %.0f)\n"
	       " -W, --disk-read <MB/s>     disk read rate (default %.0f)\n"
	       "     --rate-zerocheck <MB/s>[@<share>]\n"
	       "                            copy rate with the zero check, as the kernel\n"
	       "                              prints it, and the zero share of that memory\n"
	       "                              (default %.2f@%.4f, the seed mail's)\n"
	       "     --rate-loop <MB/s>     the same loop without the check (default %.2f)\n"
	       "     --rate-copy-page <MB/s> copy_page() (default %.2f)\n"
	       "     --nozerocheck-loop     zero check off copies with the loop, not copy_page()\n"
	       "     --calibrate            measure both copy loops here on the image's pages\n"
	       "     --zstd-level <n>       zstd level of the what-if (default %d)\n"
	       " -J, --json                 use JSON output format\n"
	       " -r, --raw                  use raw output format\n"
	       " -n, --noheadings           don't print headings\n"
	       " -R, --resume-offset <pages> the resume page is not page 0 (swap file)\n"
	       USAGE_HELP_OPTIONS,
	       d.disk_write, d.disk_read, d.rate_zerocheck,
	       d.rate_zerocheck_share, d.rate_loop, d.rate_copy_page,
	       d.zstd_level);
	printf("\nMB = 1000 KiB, as the kernel prints rates. See hibimg-simulate(1).\n");
	exit(EXIT_SUCCESS);
}

static double parse_rate(const char *s, const char *what, double *share)
{
	char *end;
	double v = strtod(s, &end);

	if (share && *end == '@') {
		char *e2;

		*share = strtod(end + 1, &e2);
		if (e2 == end + 1 || *e2 || *share < 0 || *share >= 1)
			die_(EXIT_USAGE, "invalid %s share: '%s'", what, s);
		end = e2;
	}
	if (end == s || *end || !(v > 0))
		die_(EXIT_USAGE, "invalid %s: '%s'", what, s);
	return v;
}

static enum hib_sim_comp parse_comp(const char *s)
{
	const char *n;
	int c;

	for (c = 0; (n = hib_sim_comp_name((enum hib_sim_comp)c)) != NULL; c++)
		if (!strcmp(s, n))
			return (enum hib_sim_comp)c;
	die_(EXIT_USAGE, "unknown compression '%s'", s);
}

static double kb(uint64_t b)
{
	return (double)b / 1024.0;
}

static int print_table(const struct hib_sim *r, const struct out_opts *oo)
{
	const struct hib_sim_scenario *s;
	struct libscols_table *tb = out_table_new(oo, "simulate");
	static const struct { const char *name; enum out_type t; } cols[] = {
		{ "ZEROCHECK", OUT_BOOL }, { "COMP", OUT_STR }, { "KERNEL", OUT_STR },
		{ "MATCH", OUT_BOOL }, { "COPIED", OUT_NUM }, { "ZERO", OUT_NUM },
		{ "META", OUT_NUM }, { "STREAM", OUT_NUM }, { "WROTE-KB", OUT_NUM },
		{ "CMP-KB", OUT_NUM }, { "DISK-KB", OUT_NUM }, { "COPY-S", OUT_NUM },
		{ "COMPRESS-S", OUT_NUM }, { "WRITE-S", OUT_NUM }, { "HIBERNATE-S", OUT_NUM },
		{ "READ-S", OUT_NUM }, { "DECOMPRESS-S", OUT_NUM }, { "RESUME-S", OUT_NUM },
		/* the rest only in JSON: exact bytes and the rates used */
		{ "CMP-BYTES", OUT_NUM }, { "DISK-PAGES", OUT_NUM }, { "CHUNKS", OUT_NUM },
		{ "ZERO-FILL-S", OUT_NUM }, { "CRITICAL-S", OUT_NUM }, { "COPY-RATE", OUT_NUM },
		{ "COMPRESS-RATE", OUT_NUM }, { "DECOMPRESS-RATE", OUT_NUM }, { "THREADS", OUT_NUM },
	};
	size_t ncols = oo->json ? sizeof(cols) / sizeof(cols[0]) : 18, i, k;

	for (k = 0; k < ncols; k++)
		out_table_col(tb, cols[k].name, cols[k].t);
	for (i = 0; (s = hib_sim_scenario(r, i)) != NULL; i++) {
		struct libscols_line *ln = out_table_line(tb);
		double copy_rate = s->t_copy > 0 ?
			(double)s->pages_copied * (s->stream_bytes / (s->stream_pages ? s->stream_pages : 1)) /
			s->t_copy / 1024000.0 : 0;

		/* libsmartcols' JSON booleans are false only for "", "0" and "n..." */
		out_cell(ln, 0, "%s", s->zerocheck ? "yes" : "no");
		out_cell(ln, 1, "%s", hib_sim_comp_name(s->comp));
		out_cell(ln, 2, "%s", s->kernel_supported ? "yes" : "what-if");
		out_cell(ln, 3, "%s", s->matches_image ? "yes" : "no");
		out_cell(ln, 4, "%" PRIu64, s->pages_copied);
		out_cell(ln, 5, "%" PRIu64, s->zero_pages);
		out_cell(ln, 6, "%" PRIu64, s->meta_pages);
		out_cell(ln, 7, "%" PRIu64, s->stream_pages);
		out_cell(ln, 8, "%" PRIu64, s->stream_bytes / 1024);
		out_cell(ln, 9, "%" PRIu64, s->cmp_bytes / 1024);
		out_cell(ln, 10, "%" PRIu64, s->written_bytes / 1024);
		out_cell(ln, 11, "%.4f", s->t_copy);
		out_cell(ln, 12, "%.4f", s->t_compress);
		out_cell(ln, 13, "%.4f", s->t_write);
		out_cell(ln, 14, "%.4f", s->t_hibernate);
		out_cell(ln, 15, "%.4f", s->t_read);
		out_cell(ln, 16, "%.4f", s->t_decompress);
		out_cell(ln, 17, "%.4f", s->t_resume);
		if (!oo->json)
			continue;
		out_cell(ln, 18, "%" PRIu64, s->cmp_bytes);
		out_cell(ln, 19, "%" PRIu64, s->disk_pages);
		out_cell(ln, 20, "%" PRIu64, s->chunks);
		out_cell(ln, 21, "%.6f", s->t_zero_fill);
		out_cell(ln, 22, "%.6f", s->t_critical);
		/* as the kernel's "Copied K kbytes ... (R MB/s)" would print it */
		out_cell(ln, 23, "%.2f", copy_rate);
		out_cell(ln, 24, "%.2f", hib_sim_rate_compress(r, s->comp));
		out_cell(ln, 25, "%.2f", hib_sim_rate_decompress(r, s->comp));
		out_cell(ln, 26, "%u", hib_sim_info(r)->threads);
	}
	return out_table_print(tb);
}

static const struct hib_sim_scenario *find(const struct hib_sim *r,
					   enum hib_sim_comp c, int zc)
{
	const struct hib_sim_scenario *s;
	size_t i;

	for (i = 0; (s = hib_sim_scenario(r, i)) != NULL; i++)
		if (s->comp == c && s->zerocheck == zc)
			return s;
	return NULL;
}

static void cmp_line(struct libscols_table *tb, const char *what, const char *b,
		     const char *a, double vb, double va)
{
	struct libscols_line *ln = out_table_line(tb);

	out_cell(ln, 0, "%s", what);
	out_cell(ln, 1, "%s", b);
	out_cell(ln, 2, "%s", a);
	if (vb > 0)
		out_cell(ln, 3, "x%.2f", va / vb);
}

/* small images take milliseconds: keep four significant places */
static void secfmt(char *buf, size_t n, double t)
{
	if (t >= 1)
		snprintf(buf, n, "%.2fs", t);
	else if (t >= 0.01)
		snprintf(buf, n, "%.4fs", t);
	else
		snprintf(buf, n, "%.6fs", t);
}

/* The seed mail's before/after list, for one compression. */
static int print_compare(const struct hib_sim *r, enum hib_sim_comp c,
			 int nozerocheck_loop, const struct out_opts *oo)
{
	const struct hib_sim_scenario *b = find(r, c, 1), *a = find(r, c, 0);
	struct libscols_table *tb;
	char sb[96], sa[96];

	printf("\nBefore (zero check, 6.6+) and after (nozerocheck, %s), %s%s:\n",
	       nozerocheck_loop ? "word loop" : "copy_page()", hib_sim_comp_name(c),
	       c == HIB_SIM_ZSTD ? " (what-if: not supported by the kernel)" : "");
	tb = out_table_new(oo, "compare");
	out_table_col(tb, "METRIC", OUT_STR);
	out_table_col(tb, "BEFORE", OUT_NUM);
	out_table_col(tb, "AFTER", OUT_NUM);
	out_table_col(tb, "CHANGE", OUT_NUM);
	secfmt(sb, sizeof(sb), b->t_hibernate);
	secfmt(sa, sizeof(sa), a->t_hibernate);
	cmp_line(tb, "Total time to hibernate", sb, sa, b->t_hibernate, a->t_hibernate);
	secfmt(sb, sizeof(sb), b->t_resume);
	secfmt(sa, sizeof(sa), a->t_resume);
	cmp_line(tb, "Total time to resume", sb, sa, b->t_resume, a->t_resume);
	secfmt(sb, sizeof(sb), b->t_critical);
	secfmt(sa, sizeof(sa), a->t_critical);
	cmp_line(tb, "Time in the critical section (copy)", sb, sa, b->t_critical, a->t_critical);
	snprintf(sb, sizeof(sb), "%.0fkB", kb(b->stream_bytes));
	snprintf(sa, sizeof(sa), "%.0fkB", kb(a->stream_bytes));
	cmp_line(tb, "Image size (uncompressed stream)", sb, sa,
		 (double)b->stream_bytes, (double)a->stream_bytes);
	if (c != HIB_SIM_NONE) {
		snprintf(sb, sizeof(sb), "%.0fkB", kb(b->cmp_bytes));
		snprintf(sa, sizeof(sa), "%.0fkB", kb(a->cmp_bytes));
		cmp_line(tb, "Image size after compression", sb, sa,
			 (double)b->cmp_bytes, (double)a->cmp_bytes);
	}
	snprintf(sb, sizeof(sb), "%.0fkB", kb(b->written_bytes));
	snprintf(sa, sizeof(sa), "%.0fkB", kb(a->written_bytes));
	cmp_line(tb, "Written to swap", sb, sa, (double)b->written_bytes, (double)a->written_bytes);
	snprintf(sb, sizeof(sb), "%" PRIu64, b->pages_copied);
	snprintf(sa, sizeof(sa), "%" PRIu64, a->pages_copied);
	cmp_line(tb, "Pages copied", sb, sa, (double)b->pages_copied, (double)a->pages_copied);
	return out_table_print(tb);
}

int cmd_simulate(int argc, char **argv)
{
	enum { OPT_RZ = 256, OPT_RL, OPT_RC, OPT_LOOP, OPT_CAL, OPT_ZL };
	static const struct option longopts[] = {
		{ "compare",          required_argument, NULL, 'c' },
		{ "threads",          required_argument, NULL, 'T' },
		{ "disk-write",       required_argument, NULL, 'w' },
		{ "disk-read",        required_argument, NULL, 'W' },
		{ "rate-zerocheck",   required_argument, NULL, OPT_RZ },
		{ "rate-loop",        required_argument, NULL, OPT_RL },
		{ "rate-copy-page",   required_argument, NULL, OPT_RC },
		{ "nozerocheck-loop", no_argument,       NULL, OPT_LOOP },
		{ "calibrate",        no_argument,       NULL, OPT_CAL },
		{ "zstd-level",       required_argument, NULL, OPT_ZL },
		{ "json",             no_argument,       NULL, 'J' },
		{ "raw",              no_argument,       NULL, 'r' },
		{ "noheadings",       no_argument,       NULL, 'n' },
		{ "resume-offset",    required_argument, NULL, 'R' },
		{ "help",             no_argument,       NULL, 'h' },
		{ "version",          no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct hib_sim_opts so = { .size = sizeof(so) }, d = { .size = sizeof(d) };
	const struct hib_sim_info *ri;
	struct hib_sim *res = NULL;
	struct out_opts oo = { 0 };
	struct hib_image *img;
	const struct hib_info *in;
	uint64_t offset = 0, v;
	int c, rc, compare = -1, have_share = 0;
	double share = 0;

	while ((c = getopt_long(argc, argv, "c:T:w:W:JrnR:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': compare = (int)parse_comp(optarg); break;
		case 'T':
			v = parse_u64(optarg, "thread count");
			if (v < 1 || v > 64)
				die_(EXIT_USAGE, "invalid thread count: '%s'", optarg);
			so.threads = (unsigned int)v;
			break;
		case 'w': so.disk_write = parse_rate(optarg, "disk write rate", NULL); break;
		case 'W': so.disk_read = parse_rate(optarg, "disk read rate", NULL); break;
		case OPT_RZ:
			share = -1;
			so.rate_zerocheck = parse_rate(optarg, "zero-check rate", &share);
			have_share = share >= 0;
			break;
		case OPT_RL: so.rate_loop = parse_rate(optarg, "loop rate", NULL); break;
		case OPT_RC: so.rate_copy_page = parse_rate(optarg, "copy_page rate", NULL); break;
		case OPT_LOOP: so.nozerocheck_loop = 1; break;
		case OPT_CAL: so.calibrate = 1; break;
		case OPT_ZL:
			v = parse_u64(optarg, "zstd level");
			if (v < 1 || v > 22)
				die_(EXIT_USAGE, "invalid zstd level: '%s'", optarg);
			so.zstd_level = (int)v;
			break;
		case 'J': oo.json = 1; break;
		case 'r': oo.raw = 1; break;
		case 'n': oo.noheadings = 1; break;
		case 'R': offset = parse_u64(optarg, "resume offset"); break;
		case 'h': usage();
		case 'V': print_version();
		default: errtryhelp("simulate");
		}
	}
	if (optind + 1 != argc) {
		warnx_(optind == argc ? "no image given" : "too many arguments");
		errtryhelp("simulate");
	}
	/* a bare rate keeps the seed's share: it was measured on such memory */
	hib_sim_defaults(&d);
	so.rate_zerocheck_share = have_share ? share : d.rate_zerocheck_share;

	img = open_image(argv[optind], offset);
	rc = hib_image_load(img);
	if (rc == HIB_OK)
		rc = hib_simulate(img, &so, &res);
	if (rc) {
		warnx_("%s", hib_image_error(img));
		hib_image_free(img);
		return rc_to_exit(rc);
	}
	in = hib_image_info(img);
	if (compare < 0)
		compare = in->compression == HIB_COMP_LZ4 ? HIB_SIM_LZ4 :
			  in->compression == HIB_COMP_NONE ? HIB_SIM_NONE : HIB_SIM_LZO;
	ri = hib_sim_info(res);
	rc = print_table(res, &oo);
	if (rc == 0 && !oo.json) {
		rc = print_compare(res, (enum hib_sim_comp)compare, so.nozerocheck_loop, &oo);
		printf("\n%" PRIu64 " PFNs, %" PRIu64 " zero pages (%.2f%%), %u compression thread%s.\n"
		       "Copy rates (MB/s): zero check %.2f over all pages (%.2f as the kernel would print it),\n"
		       "  loop %.2f, copy_page %.2f%s. Disk: write %.0f, read %.0f.\n"
		       "Measured here, one thread: compress lzo %.1f, lz4 %.1f, zstd-%d %.1f;\n"
		       "  decompress lzo %.1f, lz4 %.1f, zstd %.1f.\n",
		       ri->entries, ri->zero_pages,
		       ri->entries ? 100.0 * (double)ri->zero_pages / (double)ri->entries : 0.0,
		       ri->threads, ri->threads == 1 ? "" : "s",
		       ri->rate_zerocheck_scan, ri->rate_zerocheck, ri->rate_loop,
		       ri->rate_copy_page, ri->calibrated ? " (calibrated here)" : "",
		       ri->disk_write, ri->disk_read,
		       hib_sim_rate_compress(res, HIB_SIM_LZO), hib_sim_rate_compress(res, HIB_SIM_LZ4),
		       ri->zstd_level, hib_sim_rate_compress(res, HIB_SIM_ZSTD),
		       hib_sim_rate_decompress(res, HIB_SIM_LZO), hib_sim_rate_decompress(res, HIB_SIM_LZ4),
		       hib_sim_rate_decompress(res, HIB_SIM_ZSTD));
	}
	hib_sim_free(res);
	hib_image_free(img);
	return rc ? EXIT_IOERR : EXIT_SUCCESS;
}
