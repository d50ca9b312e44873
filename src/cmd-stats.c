/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg stats - what the saved memory is made of (zero, same-filled,
 * duplicate pages), where it lies in physical memory, and how it
 * compresses with the kernel's codecs and zstd.
 */
#include "config.h"
#include "common.h"
#include "options.h"
#include "output.h"
#include "progress.h"
#include "input.h"
#include "partial.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_SVG = OPT_LONG };

static const struct cli_opt stats_opts[] = {
	{ "bucket", required_argument, 'B', "<pages>",
	  "PFN bucket size (default: a power of two\n>= 2 MiB of pages giving at most 256 buckets)" },
	{ "svg", required_argument, OPT_SVG, "<file>",
	  "also draw memory and chunk ratios as SVG\n(one <spec> only)" },
	{ "no-compress", no_argument, 'C', NULL, "skip the compression pass" },
	{ NULL, 0, 0, NULL, NULL }
};

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static double ratio(uint64_t unc, uint64_t cmp)
{
	return cmp ? (double)unc / (double)cmp : 0.0;
}

static double codec_ratio(const struct hib_stats *st, enum hib_codec_id c)
{
	return ratio(hib_stats_info(st)->unc_bytes, hib_stats_codec(st, c)->cmp_bytes);
}

/* The library may know more classes and codecs than this file: it names
 * each one it knows, and no more. */
#define FOR_CLASS(k, n) \
	for ((k) = 0; ((n) = hib_class_name((enum hib_class)(k))) != NULL; (k)++)
#define FOR_CODEC(k, n) \
	for ((k) = 0; ((n) = hib_codec_name((enum hib_codec_id)(k))) != NULL; (k)++)

static int class_count(void)
{
	const char *n;
	int k;

	FOR_CLASS(k, n)
		;
	return k;
}

static uint64_t bucket_saved(const struct hib_stats *st, uint64_t i)
{
	const char *n;
	uint64_t sum = 0;
	int k;

	FOR_CLASS(k, n)
		sum += hib_stats_bucket_pages(st, i, (enum hib_class)k);
	return sum;
}

/* The summary of one image; with st NULL, every field a summary may have
 * (--list-columns), all zero. */
static struct out_rec *summary_rec(struct hib_image *img, const struct hib_stats *st)
{
	static const struct hib_stats_info none_info;
	static const struct hib_stats_codec none_codec;
	const struct hib_stats_info *si = st ? hib_stats_info(st) : &none_info;
	enum hib_compression comp = img ? hib_image_info(img)->compression : HIB_COMP_LZO;
	unsigned int ps = img ? hib_image_header(img)->page_size : 0;
	struct out_rec *r = out_rec_new();
	char key[64], label[128];
	const char *n;
	int k;

	out_rec_add(r, "path", "path", OUT_STR, "%s", img ? hib_image_path(img) : "");
	/* the whole stream was read, its CRC checked */
	out_rec_add(r, "status", "status", OUT_STR, "%s", exit_name(EXIT_INTACT));
	out_rec_section(r, "Pages");
	out_rec_add(r, "pfn-entries", "PFNs saved (\"Need to copy\")", OUT_NUM, "%" PRIu64,
		    si->entries);
	out_rec_add(r, "image-pages", "data pages in the stream", OUT_NUM, "%" PRIu64, si->image_pages);
	out_rec_add(r, "meta-pages", "PFN-list pages", OUT_NUM, "%" PRIu64, si->meta_pages);
	out_rec_add(r, "stream-pages", "stream pages", OUT_NUM, "%" PRIu64, si->stream_pages);
	/* a class's name is the key of its page count: zero_flagged means
	 * the zero-flagged PFN-list entries in every command */
	FOR_CLASS(k, n) {
		uint64_t pages = st ? hib_stats_class_pages(st, (enum hib_class)k) : 0;

		snprintf(label, sizeof(label), "%s pages", n);
		out_rec_add(r, n, label, OUT_NUM, "%" PRIu64, pages);
		snprintf(key, sizeof(key), "%s-bytes", n);
		snprintf(label, sizeof(label), "%s bytes", n);
		out_rec_add(r, key, label, OUT_SIZE, "%" PRIu64, pages * ps);
		snprintf(key, sizeof(key), "%s-share", n);
		snprintf(label, sizeof(label), "%s share %%", n);
		out_rec_add(r, key, label, OUT_NUM, "%.2f", pct(pages, si->entries));
	}
	out_rec_add(r, "zero-pages", "zero pages (flagged + data)", OUT_NUM, "%" PRIu64,
		    st ? hib_stats_class_pages(st, HIB_CLASS_ZERO_FLAGGED) +
			 hib_stats_class_pages(st, HIB_CLASS_ZERO_DATA) : 0);
	out_rec_add(r, "dup-table-bytes", "duplicate hash table", OUT_SIZE,
		    "%" PRIu64, si->dup_table_bytes);
	out_rec_section(r, "Physical memory");
	out_rec_add(r, "lowest-pfn", "lowest PFN", OUT_HEX, "0x%" PRIx64, si->lowest_pfn);
	out_rec_add(r, "highest-pfn", "highest PFN", OUT_HEX, "0x%" PRIx64, si->highest_pfn);
	out_rec_add(r, "num-physpages", "num_physpages", OUT_NUM, "%" PRIu64, si->num_physpages);
	out_rec_add(r, "pfn-runs", "runs of consecutive PFNs", OUT_NUM, "%" PRIu64, si->runs);
	out_rec_add(r, "hole-pages", "pages not saved up to the highest PFN", OUT_NUM,
		    "%" PRIu64, si->entries ? si->highest_pfn + 1 - si->entries : 0);
	out_rec_add(r, "bucket-pages", "bucket size (pages)", OUT_NUM, "%" PRIu64, si->bucket_pages);
	out_rec_add(r, "buckets", "buckets", OUT_NUM, "%" PRIu64, si->nbuckets);
	out_rec_section(r, "Compression (32-page chunks, as the kernel)");
	out_rec_add(r, "compression", "the image's", OUT_STR, "%s", hib_compression_name(comp));
	out_rec_add(r, "stream-bytes", "stream bytes", OUT_SIZE, "%" PRIu64, si->stream_pages * ps);
	out_rec_add(r, "chunks", "chunks", OUT_NUM, "%" PRIu64, si->nchunks);
	if (comp != HIB_COMP_NONE) {
		out_rec_add(r, "compressed-bytes", "the image's compressed bytes", OUT_SIZE,
			    "%" PRIu64, si->image_cmp_bytes);
		out_rec_add(r, "image-ratio", "the image's ratio", OUT_NUM, "%.3f",
			    ratio(si->stream_pages * ps, si->image_cmp_bytes));
	}
	if (si->compressed || !st) {
		FOR_CODEC(k, n) {
			const struct hib_stats_codec *cd = st ?
				hib_stats_codec(st, (enum hib_codec_id)k) : &none_codec;
			const char *what = cd->what_if ? " (what-if)" : "";

			snprintf(key, sizeof(key), "%s-bytes", n);
			snprintf(label, sizeof(label), "%s compressed bytes%s", n, what);
			out_rec_add(r, key, label, OUT_SIZE, "%" PRIu64, cd->cmp_bytes);
			snprintf(key, sizeof(key), "%s-disk-pages", n);
			snprintf(label, sizeof(label), "%s pages on disk", n);
			out_rec_add(r, key, label, OUT_NUM, "%" PRIu64, cd->disk_pages);
			snprintf(key, sizeof(key), "%s-ratio", n);
			snprintf(label, sizeof(label), "%s ratio", n);
			out_rec_add(r, key, label, OUT_NUM, "%.3f",
				    ratio(si->unc_bytes, cd->cmp_bytes));
			snprintf(key, sizeof(key), "%s-mbps", n);
			snprintf(label, sizeof(label), "%s MB/s here, one thread", n);
			out_rec_add(r, key, label, OUT_NUM, "%.1f", cd->cmp_seconds > 0 ?
				    (double)si->unc_bytes / cd->cmp_seconds / 1024000.0 : 0.0);
		}
	}
	return r;
}

/* The table views: one table for every input, its rows led by PATH, a
 * column people see by default only when there are several inputs. */
struct tview {
	struct libscols_table *tb;
	int ncols;                  /* PATH and the view's own */
	int errcols;                /* STATUS, ERROR appended (JSON, a failure) */
};

static void cols_classes(struct libscols_table *tb)
{
	out_table_col(tb, "CLASS", OUT_STR);
	out_table_col(tb, "PFN-ENTRIES", OUT_NUM);
	out_table_col(tb, "BYTES", OUT_SIZE);
	out_table_col(tb, "SHARE", OUT_NUM);
}

static void rows_classes(struct libscols_table *tb, struct hib_image *img,
			 const struct hib_stats *st)
{
	uint64_t entries = hib_stats_info(st)->entries;
	unsigned int ps = hib_image_header(img)->page_size;
	const char *n;
	int k;

	FOR_CLASS(k, n) {
		struct libscols_line *ln = out_table_line(tb);
		uint64_t pages = hib_stats_class_pages(st, (enum hib_class)k);

		out_cell(ln, 0, "%s", hib_image_path(img));
		out_cell(ln, 1, "%s", n);
		out_cell(ln, 2, "%" PRIu64, pages);
		out_cell(ln, 3, "%" PRIu64, pages * ps);
		out_cell(ln, 4, "%.2f", pct(pages, entries));
	}
}

static void cols_buckets(struct libscols_table *tb)
{
	const char *n;
	int k;

	out_table_col(tb, "START-PFN", OUT_HEX);
	out_table_col(tb, "END-PFN", OUT_HEX);
	out_table_col(tb, "PFN-ENTRIES", OUT_NUM);
	out_table_col(tb, "HOLE-PAGES", OUT_NUM);
	FOR_CLASS(k, n)
		out_table_col(tb, n, OUT_NUM);
}

static void rows_buckets(struct libscols_table *tb, struct hib_image *img,
			 const struct hib_stats *st)
{
	const struct hib_stats_info *si = hib_stats_info(st);
	const char *n;
	uint64_t i;
	int k;

	for (i = 0; i < si->nbuckets; i++) {
		struct libscols_line *ln = out_table_line(tb);
		uint64_t first = i * si->bucket_pages, saved = bucket_saved(st, i);

		out_cell(ln, 0, "%s", hib_image_path(img));
		out_cell(ln, 1, "0x%" PRIx64, first);
		out_cell(ln, 2, "0x%" PRIx64, first + si->bucket_pages - 1);
		out_cell(ln, 3, "%" PRIu64, saved);
		out_cell(ln, 4, "%" PRIu64, si->bucket_pages - saved);
		FOR_CLASS(k, n)
			out_cell(ln, 5 + (size_t)k, "%" PRIu64,
				 hib_stats_bucket_pages(st, i, (enum hib_class)k));
	}
}

static void cols_ranges(struct libscols_table *tb)
{
	out_table_col(tb, "START-PFN", OUT_HEX);
	out_table_col(tb, "END-PFN", OUT_HEX);
	out_table_col(tb, "PFN-ENTRIES", OUT_NUM);
	out_table_col(tb, "ZERO-FLAGGED", OUT_NUM);
	out_table_col(tb, "HOLE-BEFORE", OUT_NUM);
}

/* From the public PFN list, not the stats: runs and the holes between. */
static void rows_ranges(struct libscols_table *tb, struct hib_image *img,
			const struct hib_stats *st)
{
	const struct hib_pfns *pf = hib_image_pfns(img);
	uint64_t i, start = 0, prev = 0, zero = 0, prev_end = 0;
	int z, have = 0;

	(void)st;
	for (i = 0; i <= pf->entries; i++) {
		uint64_t pfn = 0;

		if (i < pf->entries && hib_image_pfn_entry(img, i, &pfn, &z))
			break;
		if (have && (i == pf->entries || pfn != prev + 1)) {
			struct libscols_line *ln = out_table_line(tb);

			out_cell(ln, 0, "%s", hib_image_path(img));
			out_cell(ln, 1, "0x%" PRIx64, start);
			out_cell(ln, 2, "0x%" PRIx64, prev);
			out_cell(ln, 3, "%" PRIu64, prev - start + 1);
			out_cell(ln, 4, "%" PRIu64, zero);
			out_cell(ln, 5, "%" PRIu64, start - prev_end);
			prev_end = prev + 1;
			have = 0;
		}
		if (i == pf->entries)
			break;
		if (!have) {
			start = pfn;
			zero = 0;
			have = 1;
		}
		zero += z != 0;
		prev = pfn;
	}
}

static void cols_chunks(struct libscols_table *tb)
{
	const char *n;
	int k;

	out_table_col(tb, "INDEX", OUT_NUM);
	out_table_col(tb, "STREAM-PAGE", OUT_NUM);
	out_table_col(tb, "STREAM-PAGES", OUT_NUM);
	out_table_col(tb, "COMPRESSED-BYTES", OUT_SIZE);
	FOR_CODEC(k, n) {
		char name[32];
		size_t j;


		snprintf(name, sizeof(name), "%s-BYTES", n);
		for (j = 0; name[j]; j++)
			if (name[j] >= 'a' && name[j] <= 'z')
				name[j] = (char)(name[j] - 'a' + 'A');
		out_table_col(tb, name, OUT_SIZE);
	}
}

static void rows_chunks(struct libscols_table *tb, struct hib_image *img,
			const struct hib_stats *st)
{
	const struct hib_stats_chunk *c;
	const char *n;
	uint64_t i;
	int k;

	for (i = 0; (c = hib_stats_chunk(st, i)) != NULL; i++) {
		struct libscols_line *ln = out_table_line(tb);

		out_cell(ln, 0, "%s", hib_image_path(img));
		out_cell(ln, 1, "%" PRIu64, i);
		out_cell(ln, 2, "%" PRIu64, c->first_stream_page);
		out_cell(ln, 3, "%u", c->pages);
		out_cell(ln, 4, "%u", c->image_cmp_len);
		FOR_CODEC(k, n)
			out_cell(ln, 5 + (size_t)k, "%u",
				 hib_stats_chunk_cmp_len(st, i, (enum hib_codec_id)k));
	}
}

static const struct view {
	const char *name;
	void (*cols)(struct libscols_table *tb);
	void (*rows)(struct libscols_table *tb, struct hib_image *img,
		     const struct hib_stats *st);
} views[] = {
	{ "summary", NULL, NULL },
	{ "classes", cols_classes, rows_classes },
	{ "buckets", cols_buckets, rows_buckets },
	{ "ranges",  cols_ranges,  rows_ranges },
	{ "chunks",  cols_chunks,  rows_chunks },
	{ NULL, NULL, NULL }
};

static const struct view *find_view(const char *name)
{
	const struct view *v;

	for (v = views; v->name; v++)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

static void tview_new(struct tview *t, const struct view *v, const struct out_opts *oo,
		      int several)
{
	t->tb = out_table_new(oo, v->name);
	out_table_col_flags(t->tb, "PATH", OUT_STR, several || oo->json ? 0 : OUT_COL_EXTRA);
	v->cols(t->tb);
	t->ncols = scols_table_get_ncols(t->tb);
	t->errcols = 0;
}

/* JSON carries a failed input in the table: a row of its path, status and
 * error (people read the error once, on stderr). */
static void tview_error(struct tview *t, const char *path, int status, const char *msg)
{
	struct libscols_line *ln;

	if (!t->errcols) {
		out_table_col(t->tb, "STATUS", OUT_STR);
		out_table_col(t->tb, "ERROR", OUT_STR);
		t->errcols = 1;
	}
	ln = out_table_line(t->tb);
	out_cell(ln, 0, "%s", path);
	out_cell(ln, (size_t)t->ncols, "%s", exit_name(status));
	out_cell(ln, (size_t)t->ncols + 1, "%s", msg);
}

/* ---- SVG ------------------------------------------------------------------ */

static const char *class_colour(int k)
{
	static const char *const c[] = {
		"#4c9be8",      /* zero-flagged: blue */
		"#9fd0ff",      /* zero-data: light blue */
		"#ffd166",      /* same-filled: yellow */
		"#ef476f",      /* duplicate: red */
		"#06a77d",      /* other: green */
	};

	/* a class newer than this table */
	return (size_t)k < sizeof(c) / sizeof(c[0]) ? c[k] : "#8d6cab";
}

static void svg_escape(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

/* Each bucket is a cell filled bottom-up by class shares of the bucket's
 * PFNs; what is left at the top (grey) is memory the image does not hold. */
static int write_svg(struct hib_output *out, struct hib_image *img, const struct hib_stats *st)
{
	const struct hib_stats_info *si = hib_stats_info(st);
	char *doc = NULL;
	size_t doclen = 0;
	const unsigned int cols = 32, cell = 18, pad = 20, chart_h = 160;
	unsigned int ps = hib_image_header(img)->page_size;
	uint64_t rows = (si->nbuckets + cols - 1) / cols, i, nbars;
	unsigned int width = pad * 2 + cols * cell, bar_w_total = width - 2 * pad - 40;
	unsigned int grid_top = 70, grid_h = (unsigned int)rows * cell;
	unsigned int chart_top = grid_top + grid_h + 70;
	unsigned int height = chart_top + chart_h + 60;
	double maxr = 1.0;
	/* built in memory: the output takes it in one write */
	FILE *f = open_memstream(&doc, &doclen);
	const char *n;
	int k, nclass;

	if (!f)
		die_(EXIT_IOERR, "out of memory");
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" font-family=\"sans-serif\" font-size=\"11\">\n",
		width, height, width, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%u\" y=\"20\" font-size=\"14\" font-weight=\"bold\">", pad);
	svg_escape(f, hib_image_path(img));
	fprintf(f, "</text>\n<text x=\"%u\" y=\"38\">Physical memory, one cell per %" PRIu64
		" pages (%" PRIu64 " KiB), PFN 0 at top left, rows of %u cells; "
		"highest PFN %" PRIu64 "</text>\n",
		pad, si->bucket_pages, si->bucket_pages * ps / 1024, cols, si->highest_pfn);
	/* legend */
	nclass = class_count();
	for (k = 0; k <= nclass; k++) {
		unsigned int x = pad + (unsigned int)k * 95;

		fprintf(f, "<rect x=\"%u\" y=\"46\" width=\"10\" height=\"10\" fill=\"%s\" stroke=\"#888\"/>"
			"<text x=\"%u\" y=\"55\">%s</text>\n", x,
			k < nclass ? class_colour(k) : "#e6e6e6", x + 13,
			k < nclass ? hib_class_name((enum hib_class)k) : "not saved");
	}
	for (i = 0; i < si->nbuckets; i++) {
		uint64_t first = i * si->bucket_pages;
		unsigned int x = pad + (unsigned int)(i % cols) * cell;
		unsigned int y = grid_top + (unsigned int)(i / cols) * cell;
		double acc = 0, h = cell - 2;

		fprintf(f, "<g><title>PFN %" PRIu64 "-%" PRIu64, first,
			first + si->bucket_pages - 1);
		FOR_CLASS(k, n)
			fprintf(f, "&#10;%s: %" PRIu64, n,
				hib_stats_bucket_pages(st, i, (enum hib_class)k));
		fprintf(f, "</title><rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" "
			"fill=\"#e6e6e6\" stroke=\"#bbb\" stroke-width=\"0.5\"/>\n",
			x, y, cell - 2, cell - 2);
		FOR_CLASS(k, n) {
			uint64_t pages = hib_stats_bucket_pages(st, i, (enum hib_class)k);
			double part = h * (double)pages / (double)si->bucket_pages;

			if (pages == 0)
				continue;
			fprintf(f, "<rect x=\"%u\" y=\"%.2f\" width=\"%u\" height=\"%.2f\" fill=\"%s\"/>\n",
				x, y + h - acc - part, cell - 2, part, class_colour(k));
			acc += part;
		}
		fprintf(f, "</g>\n");
	}

	/* chunk ratios, averaged into at most bar_w_total bars */
	nbars = si->nchunks < bar_w_total ? si->nchunks : bar_w_total;
	for (i = 0; i < si->nchunks; i++) {
		const struct hib_stats_chunk *c = hib_stats_chunk(st, i);
		uint32_t l = c->image_cmp_len ? c->image_cmp_len :
			     hib_stats_chunk_cmp_len(st, i, HIB_CODEC_LZO);
		double rr = l ? (double)c->pages * ps / l : 0;

		if (rr > maxr)
			maxr = rr;
	}
	if (maxr > 40)
		maxr = 40;
	fprintf(f, "<text x=\"%u\" y=\"%u\" font-size=\"13\" font-weight=\"bold\">Compression ratio per 32-page chunk "
		"(%s; stream order, PFN-list pages first)</text>\n", pad, chart_top - 30,
		si->image_cmp_bytes ? "the image's own chunks" : "LZO, as the kernel would");
	fprintf(f, "<text x=\"%u\" y=\"%u\">overall: image %.2f, LZO %.2f, LZ4 %.2f, zstd-1 %.2f, zstd-3 %.2f (bars above %.0f clipped)</text>\n",
		pad, chart_top - 14,
		si->image_cmp_bytes ? (double)si->unc_bytes / (double)si->image_cmp_bytes : 0,
		codec_ratio(st, HIB_CODEC_LZO), codec_ratio(st, HIB_CODEC_LZ4),
		codec_ratio(st, HIB_CODEC_ZSTD_FAST), codec_ratio(st, HIB_CODEC_ZSTD), maxr);
	fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"#fafafa\" stroke=\"#888\"/>\n",
		pad + 40, chart_top, bar_w_total, chart_h);
	for (k = 0; k <= 4; k++) {
		double v = maxr * k / 4;
		unsigned int y = chart_top + chart_h - (unsigned int)(chart_h * k / 4);

		fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">%.1f</text>"
			"<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#ddd\"/>\n",
			pad + 36, y + 4, v, pad + 40, y, pad + 40 + bar_w_total, y);
	}
	for (i = 0; i < nbars; i++) {
		uint64_t a = i * si->nchunks / nbars, e = (i + 1) * si->nchunks / nbars, j;
		double unc = 0, cmp = 0, rr, bh, bw = (double)bar_w_total / (double)nbars;

		for (j = a; j < e; j++) {
			const struct hib_stats_chunk *c = hib_stats_chunk(st, j);

			unc += (double)c->pages * ps;
			cmp += c->image_cmp_len ? c->image_cmp_len :
			       hib_stats_chunk_cmp_len(st, j, HIB_CODEC_LZO);
		}
		rr = cmp > 0 ? unc / cmp : 0;
		bh = chart_h * (rr > maxr ? maxr : rr) / maxr;
		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#3a6ea5\">"
			"<title>chunks %" PRIu64 "-%" PRIu64 ": ratio %.2f</title></rect>\n",
			pad + 40 + i * bw, chart_top + chart_h - bh, bw > 1.5 ? bw - 0.5 : bw, bh,
			a, e - 1, rr);
	}
	fprintf(f, "<text x=\"%u\" y=\"%u\">chunk 0</text><text x=\"%u\" y=\"%u\" text-anchor=\"end\">chunk %" PRIu64 "</text>\n",
		pad + 40, chart_top + chart_h + 14, pad + 40 + bar_w_total,
		chart_top + chart_h + 14, si->nchunks ? si->nchunks - 1 : 0);
	fprintf(f, "<text x=\"%u\" y=\"%u\">ratio = uncompressed bytes / compressed bytes (cmp_len); hibimg %s</text>\n",
		pad, height - 12, PACKAGE_VERSION);
	fprintf(f, "</svg>\n");
	if (fclose(f) != 0)
		die_(EXIT_IOERR, "out of memory");
	write_output(img, out, doc, doclen, 0);
	free(doc);
	return 0;
}

static struct out_rec *error_rec(const char *path, int status, const char *msg)
{
	struct out_rec *r = out_rec_new();

	out_rec_add(r, "path", "path", OUT_STR, "%s", path);
	out_rec_add(r, "status", "status", OUT_STR, "%s", exit_name(status));
	out_rec_add(r, "error", "error", OUT_STR, "%s", msg);
	return r;
}

int cmd_stats(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "stats",
		.synopsis = "[options] <spec>... [summary|classes|buckets|ranges|chunks]",
		.about = "Page classes, their place in physical memory and the compressibility\n"
			 "of the stream of hibernation images, one result per <spec>.",
		.sections = "The view, a last argument after at least one <spec>, is one of:\n"
			    " summary   counts, shares and compressed sizes (default)\n"
			    " classes   a line per page class\n"
			    " buckets   a line per PFN bucket: saved pages by class\n"
			    " ranges    a line per run of consecutive saved PFNs, with the hole before\n"
			    " chunks    a line per 32-page chunk: the image's and each codec's size\n",
		.epilog = "With several <spec>s the exit status is the worst of theirs (hibimg(1)).\n",
		.common = CO_VIEW | CO_QUIET | CO_THREADS | CO_RESUME | CO_FORCE | CO_SPENT |
			  CO_PARTIAL,
		.own = stats_opts,
	};
	struct hib_stats_opts so = { .size = sizeof(so) };
	struct out_rec **recs = NULL;
	struct tview t = { 0 };
	const struct view *view = &views[0];
	const char *svg = NULL;
	unsigned int oflags = 0;
	size_t nrecs = 0;
	int c, rc, i, nspec, nok = 0, status = EXIT_INTACT;

	while ((c = cli_getopt(&cl, argc, argv)) != -1) {
		switch (c) {
		case 'B':
			so.bucket_pages = parse_u64(optarg, "bucket size");
			if (!so.bucket_pages)
				die_(EXIT_USAGE, "invalid bucket size: '%s'", optarg);
			break;
		case OPT_SVG: svg = optarg; break;
		case 'C': so.no_compress = 1; break;
		}
	}
	nspec = argc - optind;
	/* a last argument naming a view is the view; one alone is a spec */
	if (nspec >= 1 && (nspec >= 2 || cl.out.list_columns) &&
	    find_view(argv[argc - 1])) {
		view = find_view(argv[argc - 1]);
		nspec--;
	}
	if (cl.out.list_columns) {
		/* the columns or fields, without reading anything */
		if (view->cols) {
			tview_new(&t, view, &cl.out, nspec > 1);
			return out_table_print(t.tb) ? EXIT_IOERR : EXIT_INTACT;
		}
		recs = calloc(1, sizeof(*recs));
		if (!recs)
			die_(EXIT_IOERR, "out of memory");
		recs[0] = summary_rec(NULL, NULL);
		rc = out_recs_print(recs, 1, &cl.out, "stats");
		out_rec_free(recs[0]);
		free(recs);
		return rc ? EXIT_IOERR : EXIT_INTACT;
	}
	if (nspec == 0) {
		warnx_("no image given");
		errtryhelp("stats");
	}
	if (svg && nspec > 1)
		die_(EXIT_USAGE, "--svg draws one image: give one <spec>");
	if (svg && !strcmp(view->name, "ranges"))
		die_(EXIT_USAGE, "--svg needs a view other than ranges");
	if (!strcmp(view->name, "chunks") && so.no_compress)
		die_(EXIT_USAGE, "the chunks view needs the compression pass");
	so.threads = cl.threads;
	so.partial = cl.partial;
	if (cl.force)
		oflags |= HIB_OUTPUT_FORCE;

	if (view->cols)
		tview_new(&t, view, &cl.out, nspec > 1);
	else if (!(recs = calloc((size_t)nspec, sizeof(*recs))))
		die_(EXIT_IOERR, "out of memory");
	for (i = 0; i < nspec; i++) {
		const char *spec = argv[optind + i];
		struct hib_image *img = hib_image_new();
		struct hib_output *svgout = NULL;
		struct hib_stats *st = NULL;
		int s;

		if (!img)
			die_(EXIT_IOERR, "out of memory");
		/* one line per input, its PFN-list entries read */
		progress_begin(spec, "entries", cl.quiet);
		hib_image_set_progress(img, progress_keep, NULL);
		if (cl.resume_offset)
			(void)hib_image_set_resume_offset(img, cl.resume_offset);
		rc = input_open(img, spec, INPUT_STDIN);
		/* refused now, not after the long pass */
		if (rc == HIB_OK && svg)
			svgout = open_output(img, svg, oflags);
		/* before the load: a cut copy's map names pages past its end */
		if (rc == HIB_OK && cl.partial)
			rc = hib_image_set_partial(img, 1);
		if (rc == HIB_OK)
			rc = hib_image_load(img);
		if (rc == HIB_OK)
			rc = hib_image_load_pfns(img);
		if (rc == HIB_OK && strcmp(view->name, "ranges"))
			rc = hib_image_stats(img, &so, &st);
		progress_end();
		if (rc) {
			s = rc_to_exit(rc);
			status = exit_worst(status, s);
			warnx_("%s", input_error(img));
			if (cl.out.json && view->cols)
				tview_error(&t, spec, s, input_error(img));
			else if (cl.out.json)
				recs[nrecs++] = error_rec(spec, s, input_error(img));
			if (svgout)
				close_output(img, svgout, 0);
			hib_image_free(img);
			continue;
		}
		nok++;
		if (cl.partial) {
			/* the figures are those of the pages recovered */
			if (!cl.quiet)
				partial_warn(img);
			status = exit_worst(status, partial_status(img));
		}
		if (view->cols)
			view->rows(t.tb, img, st);
		else {
			recs[nrecs] = summary_rec(img, st);
			if (cl.partial)
				partial_fields(recs[nrecs], img);
			nrecs++;
		}
		if (svgout) {
			write_svg(svgout, img, st);
			close_output(img, svgout, 1);
		}
		hib_stats_free(st);
		hib_image_free(img);
	}
	rc = 0;
	if (view->cols) {
		/* nothing to print when nothing was read, but JSON says why */
		if (!cl.quiet && (nok || cl.out.json))
			rc = out_table_print(t.tb);
		else
			out_table_free(t.tb);
	} else {
		if (!cl.quiet && nrecs)
			rc = out_recs_print(recs, nrecs, &cl.out, "stats");
		for (i = 0; (size_t)i < nrecs; i++)
			out_rec_free(recs[i]);
		free(recs);
	}
	if (rc)
		die_(EXIT_IOERR, "cannot print the result");
	return status;
}
