/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg simulate - the image's memory hibernated with the zero check on
 * and off, with each compression: sizes by really building and compressing
 * each stream, times from a rate model (hibimg-simulate(1)).
 */
#include "config.h"
#include "common.h"
#include "input.h"
#include "options.h"
#include "progress.h"
#include "output.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_RZ = OPT_LONG, OPT_RL, OPT_RC, OPT_LOOP, OPT_CAL, OPT_ZL,
	OPT_LZO_C, OPT_LZO_D, OPT_LZ4_C, OPT_LZ4_D, OPT_ZSTD_C, OPT_ZSTD_D,
	OPT_REPEAT, OPT_DMESG, OPT_RAM, OPT_ZSHARE, OPT_SAMPLE, OPT_SEED
};

/* The defaults in --help are the library's (hib_sim_defaults()). */
static char h_write[80], h_read[80], h_rz[200], h_rl[96], h_rc[96], h_zl[64], h_rep[96];

static struct cli_opt simulate_opts[] = {
	{ "compare", required_argument, 'c', "<comp>",
	  "compression of the before/after table\n(none, lzo, lz4, zstd; default: the image's)" },
	{ "disk-write", required_argument, 'w', "<MB/s>", h_write },
	{ "disk-read", required_argument, 'W', "<MB/s>", h_read },
	{ "rate-zerocheck", required_argument, OPT_RZ, "<MB/s>[@<share>]", h_rz },
	{ "rate-loop", required_argument, OPT_RL, "<MB/s>", h_rl },
	{ "rate-copy-page", required_argument, OPT_RC, "<MB/s>", h_rc },
	{ "rate-lzo-compress", required_argument, OPT_LZO_C, "<MB/s>",
	  "LZO compression, one thread (default: measured)" },
	{ "rate-lzo-decompress", required_argument, OPT_LZO_D, "<MB/s>",
	  "LZO decompression, one thread (default: measured)" },
	{ "rate-lz4-compress", required_argument, OPT_LZ4_C, "<MB/s>",
	  "LZ4 compression, one thread (default: measured)" },
	{ "rate-lz4-decompress", required_argument, OPT_LZ4_D, "<MB/s>",
	  "LZ4 decompression, one thread (default: measured)" },
	{ "rate-zstd-compress", required_argument, OPT_ZSTD_C, "<MB/s>",
	  "zstd compression, one thread (default: measured)" },
	{ "rate-zstd-decompress", required_argument, OPT_ZSTD_D, "<MB/s>",
	  "zstd decompression, one thread (default: measured)" },
	{ "dmesg", required_argument, OPT_DMESG, "<file>",
	  "take threads, the Copied rate and the Wrote/Read\npipelines from a kernel log (up to 4 times: a\nnozerocheck=0 and a nozerocheck=1 log, say)" },
	{ "repeat", required_argument, OPT_REPEAT, "<n>", h_rep },
	{ "nozerocheck-loop", no_argument, OPT_LOOP, NULL,
	  "zero check off copies with the loop, not copy_page()" },
	{ "calibrate", no_argument, OPT_CAL, NULL,
	  "measure the copy loops here on the image's pages" },
	{ "zstd-level", required_argument, OPT_ZL, "<n>", h_zl },
	{ "ram", required_argument, OPT_RAM, "<size>",
	  "scale to a machine with this RAM (16G, 512M;\ndefault: the image's)" },
	{ "zero-share", required_argument, OPT_ZSHARE, "<f>",
	  "scale to this share of zero pages, 0..1\n(default: the image's)" },
	{ "sample", required_argument, OPT_SAMPLE, "<fraction>",
	  "size this fraction of the chunks, estimate the rest\n"
	  "with a 99.9 % bound (default 1: all; page counts stay exact)" },
	{ "sample-seed", required_argument, OPT_SEED, "<n>",
	  "which chunks the sample draws (default: a fixed seed)" },
	{ NULL, 0, 0, NULL, NULL }
};

static void help_defaults(const struct hib_sim_opts *d)
{
	snprintf(h_write, sizeof(h_write), "disk write rate (default %.0f, assumed)", d->disk_write);
	snprintf(h_read, sizeof(h_read), "disk read rate (default %.0f, assumed)", d->disk_read);
	snprintf(h_rz, sizeof(h_rz), "copy rate with the zero check, as the kernel\n"
		 "prints it, and the zero share of that memory\n"
		 "(default %.2f@%.6f, the seed mail's)", d->rate_zerocheck,
		 d->rate_zerocheck_share);
	snprintf(h_rl, sizeof(h_rl), "the same loop without the check\n(default %.2f, the seed mail's)",
		 d->rate_loop);
	snprintf(h_rc, sizeof(h_rc), "copy_page() (default %.2f, the seed mail's)",
		 d->rate_copy_page);
	snprintf(h_zl, sizeof(h_zl), "zstd level of the what-if (default %d)", d->zstd_level);
	snprintf(h_rep, sizeof(h_rep), "measure each measured rate n times, take the\nmedian (default %u)",
		 d->repeat);
}

/* 16G, 512M, 16GiB, 1T, or bytes: binary units, as RAM is counted */
static uint64_t parse_size(const char *s, const char *what)
{
	static const char units[] = "KMGTP";
	char *end;
	double v = strtod(s, &end);
	const char *u;
	uint64_t mul = 1;

	if (end == s || !(v > 0))
		die_(EXIT_USAGE, "invalid %s: '%s'", what, s);
	if (*end && (u = strchr(units, end[0] & ~0x20)) != NULL) {
		mul = 1ull << (10 * (1 + (u - units)));
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
	} else if (*end == 'B' && !end[1]) {
		end++;
	}
	if (*end || v * (double)mul >= 18446744073709551616.0)
		die_(EXIT_USAGE, "invalid %s: '%s'", what, s);
	return (uint64_t)(v * (double)mul);
}

static double parse_share(const char *s, const char *what)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0 && v <= 1))
		die_(EXIT_USAGE, "invalid %s: '%s' (0..1)", what, s);
	return v;
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

/* The scenario table. Its default columns fit an 80-column terminal; the
 * rest are a -o away, and all of them are in the JSON document. */
static const struct col {
	const char *name;
	enum out_type t;
	int extra;
} cols[] = {
	{ "ZEROCHECK", OUT_BOOL, 0 }, { "COMPRESSION", OUT_STR, 0 }, { "MATCH", OUT_BOOL, 0 },
	{ "IMAGE-PAGES", OUT_NUM, 0 }, { "COMPRESSED-BYTES", OUT_SIZE, 0 },
	{ "HIBERNATE-S", OUT_NUM, 0 }, { "RESUME-S", OUT_NUM, 0 },
	{ "KERNEL-SUPPORTED", OUT_BOOL, 1 }, { "ZERO-FLAGGED", OUT_NUM, 1 },
	{ "META-PAGES", OUT_NUM, 1 }, { "STREAM-PAGES", OUT_NUM, 1 },
	{ "CHUNKS", OUT_NUM, 1 }, { "STREAM-BYTES", OUT_SIZE, 1 },
	{ "IMAGE-SLOTS", OUT_NUM, 1 }, { "WRITTEN-BYTES", OUT_SIZE, 1 },
	{ "COPY-S", OUT_NUM, 1 }, { "COMPRESS-S", OUT_NUM, 1 }, { "WRITE-S", OUT_NUM, 1 },
	{ "READ-S", OUT_NUM, 1 }, { "DECOMPRESS-S", OUT_NUM, 1 },
	{ "ZERO-FILL-S", OUT_NUM, 1 }, { "CRITICAL-S", OUT_NUM, 1 },
	{ "COPY-RATE", OUT_NUM, 1 }, { "COMPRESS-RATE", OUT_NUM, 1 },
	{ "DECOMPRESS-RATE", OUT_NUM, 1 },
	{ "KERNEL-CODEC", OUT_BOOL, 1 }, { "SAVE-S", OUT_NUM, 1 }, { "LOAD-S", OUT_NUM, 1 },
	{ "SAVE-FROM-LOG", OUT_BOOL, 1 }, { "LOAD-FROM-LOG", OUT_BOOL, 1 },
	/* --sample: the bounds, next to the estimates by default */
	{ "COMPRESSED-BYTES-ERR", OUT_SIZE, 2 }, { "IMAGE-SLOTS-ERR", OUT_NUM, 2 },
	{ "WRITTEN-BYTES-ERR", OUT_SIZE, 2 },
};

static struct libscols_table *scenario_table(const struct out_opts *oo, int sampled)
{
	struct libscols_table *tb = out_table_new(oo, "scenarios");
	size_t k;

	for (k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
		int extra = cols[k].extra == 1 || (cols[k].extra == 2 && !sampled);

		out_table_col_flags(tb, cols[k].name, cols[k].t,
				    extra && !oo->json ? OUT_COL_EXTRA : 0);
	}
	return tb;
}

static int print_scenarios(const struct hib_sim *r, const struct out_opts *oo)
{
	struct libscols_table *tb = scenario_table(oo, hib_sim_info(r)->sample > 0);
	const struct hib_sim_scenario *s;
	int people = !(oo->json || oo->raw || oo->pairs);
	size_t i;

	for (i = 0; (s = hib_sim_scenario(r, i)) != NULL; i++) {
		struct libscols_line *ln = out_table_line(tb);
		double copy_rate = s->t_copy > 0 ?
			(double)s->pages_copied * (s->stream_bytes / (s->stream_pages ? s->stream_pages : 1)) /
			s->t_copy / 1024000.0 : 0;

		out_cell(ln, 0, "%s", s->zerocheck ? "true" : "false");
		out_cell(ln, 1, "%s", hib_sim_comp_name(s->comp));
		out_cell(ln, 2, "%s", s->matches_image ? "true" : "false");
		out_cell(ln, 3, "%" PRIu64, s->pages_copied);
		out_cell(ln, 4, "%" PRIu64, s->cmp_bytes);
		/* people read four places; scripts get what the other times get */
		out_cell(ln, 5, people ? "%.4f" : "%.6f", s->t_hibernate);
		out_cell(ln, 6, people ? "%.4f" : "%.6f", s->t_resume);
		out_cell(ln, 7, "%s", s->kernel_supported ? "true" : "false");
		out_cell(ln, 8, "%" PRIu64, s->zero_pages);
		out_cell(ln, 9, "%" PRIu64, s->meta_pages);
		out_cell(ln, 10, "%" PRIu64, s->stream_pages);
		out_cell(ln, 11, "%" PRIu64, s->chunks);
		out_cell(ln, 12, "%" PRIu64, s->stream_bytes);
		out_cell(ln, 13, "%" PRIu64, s->disk_pages);
		out_cell(ln, 14, "%" PRIu64, s->written_bytes);
		out_cell(ln, 15, "%.6f", s->t_copy);
		out_cell(ln, 16, "%.6f", s->t_compress);
		out_cell(ln, 17, "%.6f", s->t_write);
		out_cell(ln, 18, "%.6f", s->t_read);
		out_cell(ln, 19, "%.6f", s->t_decompress);
		out_cell(ln, 20, "%.6f", s->t_zero_fill);
		out_cell(ln, 21, "%.6f", s->t_critical);
		/* as the kernel's "Copied K kbytes ... (R MB/s)" would print it */
		out_cell(ln, 22, "%.2f", copy_rate);
		out_cell(ln, 23, "%.2f", hib_sim_rate_compress(r, s->comp));
		out_cell(ln, 24, "%.2f", hib_sim_rate_decompress(r, s->comp));
		out_cell(ln, 25, "%s", s->kernel_codec ? "true" : "false");
		out_cell(ln, 26, "%.6f", s->t_save);
		out_cell(ln, 27, "%.6f", s->t_load);
		out_cell(ln, 28, "%s", s->save_from_log ? "true" : "false");
		out_cell(ln, 29, "%s", s->load_from_log ? "true" : "false");
		out_cell(ln, 30, "%" PRIu64, s->cmp_bytes_err);
		out_cell(ln, 31, "%" PRIu64, s->disk_pages_err);
		out_cell(ln, 32, "%" PRIu64, s->written_bytes_err);
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

enum unit { U_SECONDS, U_BYTES, U_PAGES };

/* One metric before and after: for people with its unit, for scripts the
 * bare number in the unit its key names (_s, _bytes, _pages). */
static void cmp_line(struct libscols_table *tb, const struct out_opts *oo,
		     const char *key, const char *what, enum unit u, double vb, double va)
{
	struct libscols_line *ln = out_table_line(tb);
	int people = !(oo->json || oo->raw || oo->pairs);
	double v[2] = { vb, va };
	int k;

	out_cell(ln, 0, "%s", key);
	for (k = 0; k < 2; k++) {
		char buf[64];

		if (u == U_BYTES) {
			char *sz = out_size_str((uint64_t)v[k], oo);

			out_cell(ln, 1 + (size_t)k, "%s", sz);
			free(sz);
		} else if (u == U_PAGES) {
			out_cell(ln, 1 + (size_t)k, "%.0f", v[k]);
		} else if (people) {
			secfmt(buf, sizeof(buf), v[k]);
			out_cell(ln, 1 + (size_t)k, "%s", buf);
		} else {
			out_cell(ln, 1 + (size_t)k, "%.6f", v[k]);
		}
	}
	if (vb > 0)
		out_cell(ln, 3, people ? "x%.2f" : "%.4f", va / vb);
	out_cell(ln, 4, "%s", what);
}

/* The seed mail's before/after list, for one compression. */
static int print_compare(const struct hib_sim *r, enum hib_sim_comp c,
			 int nozerocheck_loop, const struct out_opts *oo)
{
	const struct hib_sim_scenario *b = find(r, c, 1), *a = find(r, c, 0);
	struct libscols_table *tb;
	char title[160];

	tb = out_table_new(oo, "compare");
	snprintf(title, sizeof(title),
		 "Before (zero check, 6.6+) and after (nozerocheck, %s), %s%s:",
		 nozerocheck_loop ? "word loop" : "copy_page()", hib_sim_comp_name(c),
		 c == HIB_SIM_ZSTD ? " (what-if: not supported by the kernel)" : "");
	out_table_title(tb, title);
	out_table_col(tb, "METRIC", OUT_STR);
	out_table_col(tb, "BEFORE", OUT_NUM);
	out_table_col(tb, "AFTER", OUT_NUM);
	out_table_col(tb, "CHANGE", OUT_NUM);
	/* METRIC names the row for scripts; -r would escape the spaces */
	out_table_col_flags(tb, "DESCRIPTION", OUT_STR,
			    OUT_COL_TRUNC | (oo->raw ? OUT_COL_EXTRA : 0));
	cmp_line(tb, oo, "hibernate_s", "Total time to hibernate", U_SECONDS,
		 b->t_hibernate, a->t_hibernate);
	cmp_line(tb, oo, "resume_s", "Total time to resume", U_SECONDS,
		 b->t_resume, a->t_resume);
	cmp_line(tb, oo, "critical_s", "Time in the critical section (copy)", U_SECONDS,
		 b->t_critical, a->t_critical);
	cmp_line(tb, oo, "stream_bytes", "Image size (uncompressed stream)", U_BYTES,
		 (double)b->stream_bytes, (double)a->stream_bytes);
	if (c != HIB_SIM_NONE)
		cmp_line(tb, oo, "compressed_bytes", "Image size after compression", U_BYTES,
			 (double)b->cmp_bytes, (double)a->cmp_bytes);
	cmp_line(tb, oo, "written_bytes", "Written to swap", U_BYTES,
		 (double)b->written_bytes, (double)a->written_bytes);
	cmp_line(tb, oo, "image_pages", "Pages copied", U_PAGES,
		 (double)b->pages_copied, (double)a->pages_copied);
	return out_table_print(tb);
}

/* --sample F: a fraction in (0, 1] */
static double parse_fraction(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v > 0 && v <= 1))
		die_(EXIT_USAGE, "invalid sample fraction: '%s' (0 < F <= 1)", s);
	return v;
}

/* What the sizing did: the sample and the chunks it sized. */
static struct out_rec *sample_rec(const struct hib_sim *res)
{
	const struct hib_sim_info *ri = hib_sim_info(res);
	struct out_rec *r = out_rec_new();

	out_rec_section(r, "Sizing (page counts are exact; sizes of a sample are estimates)");
	out_rec_add(r, "sample", "fraction of the chunks not all zero sized (0: all)",
		    OUT_NUM, "%g", ri->sample);
	out_rec_add(r, "sample-seed", "seed of the sample", OUT_NUM, "%" PRIu64,
		    ri->sample_seed);
	out_rec_add(r, "chunks-total", "chunks of both streams", OUT_NUM, "%" PRIu64,
		    ri->chunks_total);
	out_rec_add(r, "chunks-zero", "all-zero chunks, sized once", OUT_NUM, "%" PRIu64,
		    ri->chunks_zero);
	out_rec_add(r, "chunks-sized", "other chunks compressed (or found repeated)",
		    OUT_NUM, "%" PRIu64, ri->chunks_sampled);
	out_rec_add(r, "workers", "compression workers (0: the calling thread)", OUT_NUM,
		    "%u", ri->workers);
	return r;
}

/* Every input, its value, unit and source, and where it comes from. */
static int print_inputs(const struct hib_sim *res, const struct out_opts *oo)
{
	struct libscols_table *tb = out_table_new(oo, "inputs");
	const struct hib_sim_input *x;
	size_t i;

	out_table_title(tb, "Inputs (MB = 1000 KiB, as the kernel prints rates):");
	out_table_col(tb, "INPUT", OUT_STR);
	out_table_col(tb, "VALUE", OUT_NUM);
	out_table_col(tb, "UNIT", OUT_STR);
	out_table_col(tb, "SOURCE", OUT_STR);
	/* a sentence: under its row for people; -r would escape its spaces */
	out_table_col_flags(tb, "FROM", OUT_STR, OUT_COL_BELOW | (oo->raw ? OUT_COL_EXTRA : 0));
	for (i = 0; (x = hib_sim_input(res, i)) != NULL; i++) {
		struct libscols_line *ln = out_table_line(tb);

		out_cell(ln, 0, "%s", x->key);
		if (!strcmp(x->unit, "share"))
			out_cell(ln, 1, "%.6f", x->value);
		else if (!strcmp(x->unit, "MB/s"))
			out_cell(ln, 1, "%.2f", x->value);
		else
			out_cell(ln, 1, "%.0f", x->value);
		out_cell(ln, 2, "%s", x->unit);
		out_cell(ln, 3, "%s", hib_sim_source_name(x->source));
		if (x->from)
			out_cell(ln, 4, "%s", x->from);
	}
	return out_table_print(tb);
}

static const struct hib_sim_input *input(const struct hib_sim *res, const char *key)
{
	const struct hib_sim_input *x;
	size_t i;

	for (i = 0; (x = hib_sim_input(res, i)) != NULL; i++)
		if (!strcmp(x->key, key))
			return x;
	return NULL;
}

/* The scenario written the image's way against the image itself: our
 * codecs are not all the kernel's, byte for byte. */
static struct out_rec *match_rec(const struct hib_sim *res, const struct out_opts *oo)
{
	const struct hib_sim_info *ri = hib_sim_info(res);
	const struct hib_sim_scenario *s = NULL, *x;
	struct out_rec *r;
	size_t i;

	for (i = 0; (x = hib_sim_scenario(res, i)) != NULL; i++)
		if (x->matches_image)
			s = x;
	if (!s)
		return NULL;
	r = out_rec_new();
	out_rec_section(r, "MATCH against the image itself");
	out_rec_add(r, "compression", "compression", OUT_STR, "%s", hib_sim_comp_name(s->comp));
	out_rec_add(r, "zerocheck", "zero check", OUT_BOOL, "%s", s->zerocheck ? "true" : "false");
	out_rec_add(r, "kernel_codec", "our compressor is the kernel's", OUT_BOOL, "%s",
		    s->kernel_codec ? "true" : "false");
	/* -r would escape its spaces; the boolean says it */
	if (!oo->raw)
		out_rec_add(r, "codec_note", "codec", OUT_STR, "%s",
			    s->comp == HIB_SIM_LZ4 ? "liblz4, the kernel's compressor" :
			    s->comp == HIB_SIM_LZO ? "liblzo2, not the kernel's lzo1x_1" :
			    "uncompressed");
	out_rec_add(r, "scaled", "scaled (--ram, --zero-share)",
		    OUT_BOOL, "%s", ri->scaled ? "true" : "false");
	if (s->comp != HIB_SIM_NONE) {
		out_rec_add(r, "compressed_bytes", "simulated compressed bytes", OUT_NUM,
			    "%" PRIu64, s->cmp_bytes);
		out_rec_add(r, "image_compressed_bytes", "the image's (sum of its chunks' cmp_len)",
			    OUT_NUM, "%" PRIu64, ri->image_cmp_bytes);
		out_rec_add(r, "bytes_equal", "simulated = the image's, byte for byte", OUT_BOOL,
			    "%s", s->cmp_bytes == ri->image_cmp_bytes ? "true" : "false");
		if (ri->image_cmp_bytes)
			out_rec_add(r, "compressed_diff", "simulated - image's, % of the image's",
				    OUT_NUM, "%.3f",
				    100.0 * ((double)s->cmp_bytes - (double)ri->image_cmp_bytes) /
				    (double)ri->image_cmp_bytes);
	}
	out_rec_add(r, "sim_slots", "simulated slots", OUT_NUM,
		    "%" PRIu64, s->disk_pages);
	out_rec_add(r, "image_own_slots", "the image's slots (map entries + pages)", OUT_NUM,
		    "%" PRIu64, ri->image_slots);
	return r;
}

/* What the model ran with, and the memory it modelled. */
static struct out_rec *model_rec(const struct hib_sim *res, const struct hib_sim_opts *so,
				 enum hib_sim_comp compare)
{
	const struct hib_sim_info *ri = hib_sim_info(res);
	const struct hib_sim_input *rz = input(res, "copy_zerocheck"),
				   *rs = input(res, "copy_zerocheck_share");
	struct out_rec *r = out_rec_new();
	char key[64], label[128];
	const char *n;
	int c;

	out_rec_section(r, "Model (MB = 1000 KiB, as the kernel prints rates)");
	out_rec_add(r, "compare", "compression of the before/after table", OUT_STR, "%s",
		    hib_sim_comp_name(compare));
	out_rec_add(r, "nozerocheck-loop", "zero check off copies with the word loop",
		    OUT_BOOL, "%s", so->nozerocheck_loop ? "true" : "false");
	out_rec_add(r, "threads", "compression threads", OUT_NUM, "%u", ri->threads);
	out_rec_add(r, "zstd-level", "zstd level (a what-if: no kernel writes it)", OUT_NUM,
		    "%d", ri->zstd_level);
	out_rec_add(r, "calibrated", "copy rates measured here (--calibrate)", OUT_BOOL, "%s",
		    ri->calibrated ? "true" : "false");
	out_rec_add(r, "repeat", "measurements per measured rate (the median)", OUT_NUM, "%u",
		    ri->repeat);
	out_rec_add(r, "batch_pages", "non-zero image pages they were measured on", OUT_NUM,
		    "%" PRIu64, ri->batch_pages);
	out_rec_add(r, "rate-zerocheck", "zero-check copy rate as printed, MB/s", OUT_NUM,
		    "%.2f", rz ? rz->value : 0.0);
	out_rec_add(r, "rate-zerocheck-share", "zero share of the memory it was printed for",
		    OUT_NUM, "%.6f", rs ? rs->value : 0.0);
	out_rec_add(r, "rate-zerocheck-scan", "zero-check rate over all pages, MB/s", OUT_NUM,
		    "%.2f", ri->rate_zerocheck_scan);
	out_rec_add(r, "rate-zerocheck-image", "zero-check rate the kernel would print here, MB/s",
		    OUT_NUM, "%.2f", ri->rate_zerocheck);
	out_rec_add(r, "rate-loop", "word loop without the check, MB/s", OUT_NUM, "%.2f",
		    ri->rate_loop);
	out_rec_add(r, "rate-copy-page", "copy_page(), MB/s", OUT_NUM, "%.2f", ri->rate_copy_page);
	out_rec_add(r, "disk-write", "disk write, MB/s", OUT_NUM, "%.0f", ri->disk_write);
	out_rec_add(r, "disk-read", "disk read, MB/s", OUT_NUM, "%.0f", ri->disk_read);
	for (c = HIB_SIM_NONE + 1; (n = hib_sim_comp_name((enum hib_sim_comp)c)) != NULL; c++) {
		snprintf(key, sizeof(key), "compress-rate-%s", n);
		snprintf(label, sizeof(label), "%s compress, one thread, MB/s", n);
		out_rec_add(r, key, label, OUT_NUM, "%.1f",
			    hib_sim_rate_compress(res, (enum hib_sim_comp)c));
		snprintf(key, sizeof(key), "decompress-rate-%s", n);
		snprintf(label, sizeof(label), "%s decompress, one thread, MB/s", n);
		out_rec_add(r, key, label, OUT_NUM, "%.1f",
			    hib_sim_rate_decompress(res, (enum hib_sim_comp)c));
	}
	out_rec_section(r, "The image's memory");
	out_rec_add(r, "page_size", "page size", OUT_NUM, "%u", ri->page_size);
	out_rec_add(r, "word_size", "sizeof(long) of its kernel", OUT_NUM, "%u", ri->word_size);
	out_rec_add(r, "num_physpages", "RAM pages (num_physpages)", OUT_NUM, "%" PRIu64,
		    ri->num_physpages);
	out_rec_add(r, "pfn-entries", "PFNs saved (\"Need to copy\")", OUT_NUM, "%" PRIu64,
		    ri->entries);
	out_rec_add(r, "zero-pages", "zero pages (flagged or stored)", OUT_NUM, "%" PRIu64,
		    ri->zero_pages);
	out_rec_add(r, "zero-flagged", "zero-flagged in the image", OUT_NUM, "%" PRIu64,
		    ri->zero_flagged);
	out_rec_add(r, "zero-share", "zero share %", OUT_NUM, "%.2f",
		    ri->entries ? 100.0 * (double)ri->zero_pages / (double)ri->entries : 0.0);
	out_rec_section(r, "The machine modelled");
	out_rec_add(r, "scaled", "scaled from the image (--ram, --zero-share)", OUT_BOOL, "%s",
		    ri->scaled ? "true" : "false");
	out_rec_add(r, "ram_bytes", "RAM", OUT_SIZE, "%" PRIu64,
		    ri->ram_pages * (uint64_t)ri->page_size);
	out_rec_add(r, "sim_pfn_entries", "PFNs saved", OUT_NUM, "%" PRIu64, ri->sim_entries);
	out_rec_add(r, "sim_zero_pages", "zero pages", OUT_NUM, "%" PRIu64, ri->sim_zero_pages);
	out_rec_add(r, "sim_zero_share", "zero share", OUT_NUM, "%.6f", ri->zero_share);
	return r;
}

int cmd_simulate(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "simulate",
		.synopsis = "[options] <spec>",
		.about = "Model the time and size of hibernating the memory held by an image\n"
			 "with the zero-page check on (6.6+) and off (nozerocheck), with no\n"
			 "compression, LZO, LZ4 and zstd (a what-if: no kernel writes it).",
		.sections = "Prints the scenarios (-o picks their columns, --list-columns lists\n"
			    "them), the scenario written as the image was against the image, the\n"
			    "before/after table, every input with its source (seed, log, measured,\n"
			    "given, assumed, image), the model and how the streams were sized\n"
			    "(--sample); -J puts all six in one document.\n",
		.epilog = "MB = 1000 KiB, as the kernel prints rates. -T sets the compression\n"
			  "threads (default: clamp(CPUs-1, 1, 3)) and the CPUs that size the\n"
			  "streams (default: all online).\n",
		.common = CO_VIEW | CO_QUIET | CO_THREADS | CO_RESUME | CO_SPENT,
		.own = simulate_opts,
	};
	struct hib_sim_opts so = { .size = sizeof(so) }, d = { .size = sizeof(d) };
	struct hib_sim *res = NULL;
	struct hib_image *img;
	const struct hib_info *in;
	struct out_opts whole;
	struct out_rec *mr, *xr, *sr;
	const char *logs[4];
	unsigned int nlogs = 0;
	uint64_t v;
	int c, rc, compare = -1, have_share = 0;
	double share = 0;

	hib_sim_defaults(&d);
	help_defaults(&d);
	while ((c = cli_getopt(&cl, argc, argv)) != -1) {
		switch (c) {
		case 'c': compare = (int)parse_comp(optarg); break;
		case 'w': so.disk_write = parse_rate(optarg, "disk write rate", NULL); break;
		case 'W': so.disk_read = parse_rate(optarg, "disk read rate", NULL); break;
		case OPT_RZ:
			share = -1;
			so.rate_zerocheck = parse_rate(optarg, "zero-check rate", &share);
			have_share = share >= 0;
			break;
		case OPT_RL: so.rate_loop = parse_rate(optarg, "loop rate", NULL); break;
		case OPT_RC: so.rate_copy_page = parse_rate(optarg, "copy_page rate", NULL); break;
		case OPT_LZO_C: so.rate_lzo_compress = parse_rate(optarg, "lzo compress rate", NULL); break;
		case OPT_LZO_D: so.rate_lzo_decompress = parse_rate(optarg, "lzo decompress rate", NULL); break;
		case OPT_LZ4_C: so.rate_lz4_compress = parse_rate(optarg, "lz4 compress rate", NULL); break;
		case OPT_LZ4_D: so.rate_lz4_decompress = parse_rate(optarg, "lz4 decompress rate", NULL); break;
		case OPT_ZSTD_C: so.rate_zstd_compress = parse_rate(optarg, "zstd compress rate", NULL); break;
		case OPT_ZSTD_D: so.rate_zstd_decompress = parse_rate(optarg, "zstd decompress rate", NULL); break;
		case OPT_DMESG:
			if (nlogs == sizeof(logs) / sizeof(logs[0]))
				die_(EXIT_USAGE, "--dmesg: at most %zu logs",
				     sizeof(logs) / sizeof(logs[0]));
			logs[nlogs++] = optarg;
			break;
		case OPT_REPEAT:
			v = parse_u64(optarg, "repeat count");
			if (v < 1 || v > 1000)
				die_(EXIT_USAGE, "invalid repeat count: '%s' (1..1000)", optarg);
			so.repeat = (unsigned int)v;
			break;
		case OPT_RAM: so.ram_bytes = parse_size(optarg, "RAM size"); break;
		case OPT_ZSHARE:
			so.zero_share = parse_share(optarg, "zero share");
			so.zero_share_set = 1;
			break;
		case OPT_LOOP: so.nozerocheck_loop = 1; break;
		case OPT_CAL: so.calibrate = 1; break;
		case OPT_SAMPLE: so.sample = parse_fraction(optarg); break;
		case OPT_SEED: so.sample_seed = parse_u64(optarg, "sample seed"); break;
		case OPT_ZL:
			v = parse_u64(optarg, "zstd level");
			if (v < 1 || v > 22)
				die_(EXIT_USAGE, "invalid zstd level: '%s'", optarg);
			so.zstd_level = (int)v;
			break;
		}
	}
	if (cl.out.list_columns)
		return out_table_print(scenario_table(&cl.out, 1)) ? EXIT_IOERR : EXIT_INTACT;
	if (optind + 1 != argc) {
		warnx_(optind == argc ? "no image given" : "too many arguments");
		errtryhelp("simulate");
	}
	if (cl.threads && cl.threads > 64)
		die_(EXIT_USAGE, "invalid thread count: '%u'", cl.threads);
	so.threads = cl.threads;
	so.dmesg = logs;
	so.ndmesg = nlogs;
	/* a bare rate keeps the seed's share: it was measured on such memory */
	so.rate_zerocheck_share = have_share ? share : d.rate_zerocheck_share;

	img = open_image(argv[optind], cl.resume_offset);
	rc = hib_image_load(img);
	progress_begin("simulating", "entries", cl.quiet);
	hib_image_set_progress(img, progress_keep, NULL);
	if (rc == HIB_OK)
		rc = hib_simulate(img, &so, &res);
	progress_end();
	if (rc)
		die_(rc_to_exit(rc), "%s", input_error(img));
	in = hib_image_info(img);
	if (compare < 0)
		compare = in->compression == HIB_COMP_LZ4 ? HIB_SIM_LZ4 :
			  in->compression == HIB_COMP_NONE ? HIB_SIM_NONE : HIB_SIM_LZO;
	if (cl.quiet)
		goto done;
	/* -o picks the scenario columns; the other two parts stay whole */
	whole = cl.out;
	whole.columns = NULL;
	mr = model_rec(res, &so, (enum hib_sim_comp)compare);
	xr = match_rec(res, &whole);
	out_doc_begin(&cl.out, "simulate");
	rc = print_scenarios(res, &cl.out);
	if (!cl.out.json)
		putchar('\n');
	if (xr) {
		rc |= out_rec_print(xr, &whole, "match");
		if (!cl.out.json)
			putchar('\n');
	}
	rc |= print_compare(res, (enum hib_sim_comp)compare, so.nozerocheck_loop, &whole);
	if (!cl.out.json)
		putchar('\n');
	rc |= print_inputs(res, &whole);
	if (!cl.out.json)
		putchar('\n');
	rc |= out_rec_print(mr, &whole, "model");
	sr = sample_rec(res);
	if (!cl.out.json)
		putchar('\n');
	rc |= out_rec_print(sr, &whole, "sizing");
	rc |= out_doc_end();
	out_rec_free(mr);
	out_rec_free(xr);
	out_rec_free(sr);
	if (rc)
		die_(EXIT_IOERR, "cannot print the result");
done:
	hib_sim_free(res);
	hib_image_free(img);
	return EXIT_INTACT;
}
