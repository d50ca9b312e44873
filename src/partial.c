/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * partial.c - the damage report of a best-effort read: what the library's
 * walk kept on the image (hib_image_damage*), as record fields, a table and
 * warning lines, so export, stats, cat and verify say it alike.
 */
#include "config.h"
#include "common.h"
#include "partial.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void partial_fields(struct out_rec *r, struct hib_image *img)
{
	struct hib_damage_summary s = HIB_INIT(struct hib_damage_summary);

	if (hib_image_damage_summary(img, &s))
		return;
	out_rec_section(r, "Damage");
	out_rec_add(r, "damage-records", "damaged chunks (records)", OUT_NUM, "%" PRIu64,
		    s.records);
	out_rec_add(r, "pages-saved", "PFN-list entries recovered", OUT_NUM, "%" PRIu64,
		    s.pages_saved);
	out_rec_add(r, "data-pages-saved", "of them pages with data", OUT_NUM, "%" PRIu64,
		    s.data_pages_saved);
	out_rec_add(r, "pages-lost", "PFN-list entries lost", OUT_NUM, "%" PRIu64,
		    s.pages_lost);
	out_rec_add(r, "stream-pages-lost", "stream pages lost", OUT_NUM, "%" PRIu64,
		    s.stream_pages_lost);
	out_rec_add(r, "chunks-good", "chunks decoded", OUT_NUM, "%" PRIu64, s.chunks_good);
	out_rec_add(r, "crc-mismatch", "only the CRC32 differs", OUT_BOOL, "%s",
		    s.crc_mismatch ? "true" : "false");
}

void partial_list(struct out_rec *r, struct hib_image *img)
{
	struct hib_damage_summary s = HIB_INIT(struct hib_damage_summary);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	uint64_t i;

	if (hib_image_damage_summary(img, &s))
		return;
	f = open_memstream(&buf, &len);
	if (!f)
		die_(EXIT_IOERR, "out of memory");
	for (i = 0; i < s.records; i++) {
		struct hib_damage d = HIB_INIT(struct hib_damage);

		if (hib_image_damage(img, i, &d))
			break;
		fprintf(f, "%s%" PRIu64 ":%s@%" PRIu64, i ? "," : "", d.chunk,
			hib_damage_kind_name(d.kind), d.map_entry);
	}
	if (fclose(f))
		die_(EXIT_IOERR, "out of memory");
	out_rec_add(r, "damaged-chunks", "damaged chunks (chunk:kind@map entry)", OUT_STR,
		    "%s", buf);
	free(buf);
}

/* "0x10-0x1f,0x40" for people and scripts alike; malloc'd */
static char *ranges_str(struct hib_image *img, uint64_t i, uint64_t n)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);
	uint64_t j;

	if (!s)
		die_(EXIT_IOERR, "out of memory");
	s[0] = 0;
	for (j = 0; j < n; j++) {
		struct hib_pfn_range r;
		char one[48];
		int k;

		if (hib_image_damage_range(img, i, j, &r))
			break;
		k = r.first == r.last ?
		    snprintf(one, sizeof(one), "%s0x%" PRIx64, j ? "," : "", r.first) :
		    snprintf(one, sizeof(one), "%s0x%" PRIx64 "-0x%" PRIx64, j ? "," : "",
			     r.first, r.last);
		if (len + (size_t)k + 1 > cap) {
			char *t;

			while (len + (size_t)k + 1 > cap)
				cap *= 2;
			t = realloc(s, cap);
			if (!t)
				die_(EXIT_IOERR, "out of memory");
			s = t;
		}
		memcpy(s + len, one, (size_t)k + 1);
		len += (size_t)k;
	}
	return s;
}

int partial_table(struct hib_image *img, const struct out_opts *o)
{
	struct hib_damage_summary s = HIB_INIT(struct hib_damage_summary);
	struct libscols_table *tb;
	uint64_t i;

	if (hib_image_damage_summary(img, &s))
		return 0;
	tb = out_table_new(o, "damage");
	out_table_col(tb, "DAMAGE-KIND", OUT_STR);
	out_table_col(tb, "CHUNK", OUT_NUM);
	out_table_col(tb, "MAP-ENTRY", OUT_NUM);
	out_table_col(tb, "DEVICE-PAGE", OUT_NUM);
	out_table_col(tb, "MAP-ENTRIES", OUT_NUM);
	out_table_col(tb, "FIRST-STREAM-PAGE", OUT_NUM);
	out_table_col(tb, "STREAM-PAGES-LOST", OUT_NUM);
	out_table_col(tb, "PFN-LIST-PAGES-LOST", OUT_NUM);
	out_table_col(tb, "DATA-PAGES-LOST", OUT_NUM);
	out_table_col(tb, "UNPLACEABLE", OUT_NUM);
	out_table_col_flags(tb, "PFNS-LOST", OUT_STR, OUT_COL_BELOW);
	out_table_col_flags(tb, "WHAT", OUT_STR, OUT_COL_BELOW);
	out_table_title(tb, "Damage");
	for (i = 0; i < s.records; i++) {
		struct hib_damage d = HIB_INIT(struct hib_damage);
		struct libscols_line *ln;
		char *pf;

		if (hib_image_damage(img, i, &d))
			break;
		ln = out_table_line(tb);
		pf = ranges_str(img, i, d.ranges);
		out_cell(ln, 0, "%s", hib_damage_kind_name(d.kind));
		out_cell(ln, 1, "%" PRIu64, d.chunk);
		out_cell(ln, 2, "%" PRIu64, d.map_entry);
		out_cell(ln, 3, "%" PRIu64, d.devpage);
		out_cell(ln, 4, "%" PRIu64, d.map_entries);
		out_cell(ln, 5, "%" PRIu64, d.first_stream_page);
		out_cell(ln, 6, "%" PRIu64, d.stream_pages);
		out_cell(ln, 7, "%" PRIu64, d.pfn_list_pages);
		out_cell(ln, 8, "%" PRIu64, d.data_pages);
		out_cell(ln, 9, "%" PRIu64, d.unplaceable);
		out_cell(ln, 10, "%s", pf);
		out_cell(ln, 11, "%s", d.what);
		free(pf);
	}
	return out_table_print(tb);
}

void partial_warn(struct hib_image *img)
{
	struct hib_damage_summary s = HIB_INIT(struct hib_damage_summary);
	uint64_t i;
	int list_lost = 0;

	if (hib_image_damage_summary(img, &s))
		return;
	for (i = 0; i < s.records; i++) {
		struct hib_damage d = HIB_INIT(struct hib_damage);

		if (hib_image_damage(img, i, &d))
			break;
		list_lost |= d.pfn_list_pages > 0;
		warnx_("%s: %s: chunk %" PRIu64 " (map entry %" PRIu64 ", device page %" PRIu64 "): %s; %" PRIu64 " stream pages, %" PRIu64 " data pages lost",
		       d.kind == HIB_DAMAGE_CRC ? "warning" : "damage",
		       hib_damage_kind_name(d.kind), d.chunk, d.map_entry, d.devpage, d.what,
		       d.stream_pages, d.data_pages + d.unplaceable);
	}
	if (s.records)
		/* a lost PFN-list page hides how many entries there were */
		warnx_("%" PRIu64 " of %s%" PRIu64 " PFN-list entries recovered, %" PRIu64 " lost",
		       s.pages_saved, list_lost ? "at least " : "", s.entries, s.pages_lost);
}

int partial_status(struct hib_image *img)
{
	struct hib_damage_summary s = HIB_INIT(struct hib_damage_summary);

	if (hib_image_damage_summary(img, &s))
		return EXIT_INTACT;
	return s.records ? EXIT_PARTIAL : EXIT_INTACT;
}
