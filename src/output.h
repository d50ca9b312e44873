/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.h - every table and record goes through libsmartcols, so --json,
 * --raw and --noheadings behave the same in every command.
 */
#ifndef HIBIMG_OUTPUT_H
#define HIBIMG_OUTPUT_H

#include <stdint.h>
#include <libsmartcols.h>

struct out_opts {
	int json;
	int raw;
	int noheadings;
};

enum out_type { OUT_STR, OUT_NUM, OUT_BOOL };

/* Tables: one row per element. */
struct libscols_table *out_table_new(const struct out_opts *o, const char *name);
void out_table_col(struct libscols_table *tb, const char *name, enum out_type t);
struct libscols_line *out_table_line(struct libscols_table *tb);
void out_cell(struct libscols_line *ln, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int out_table_print(struct libscols_table *tb);

/* Records: one object of named facts, printed as "label: value" lines for
 * people and as a JSON object (one table row) with --json. */
struct out_rec;
struct out_rec *out_rec_new(void);
void out_rec_free(struct out_rec *r);
void out_rec_section(struct out_rec *r, const char *title);
void out_rec_add(struct out_rec *r, const char *key, const char *label,
		 enum out_type t, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Prints n records; with JSON they form one array named name. */
int out_recs_print(struct out_rec **recs, size_t n, const struct out_opts *o,
		   const char *name);

#endif
