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
	int pairs;                  /* KEY="value", as lsblk -P */
	int bytes;                  /* OUT_SIZE cells as exact byte counts */
	const char *columns;        /* -o: the columns or fields to print, in order */
	int list_columns;
	int quiet;                  /* -q: print no table nor record, only the status */
};

/* OUT_SIZE: a byte count, printed in a human form ("1.5G") in tables and
 * records for people unless --bytes; always the exact number in JSON, raw
 * and pairs.
 * OUT_HEX: a number people read in hex (a PFN, flags, a CRC, an offset): the
 * caller formats it "0x..." at the width it wants, people see that; JSON,
 * raw and pairs get the number in decimal, so scripts need no hex parser. */
enum out_type { OUT_STR, OUT_NUM, OUT_BOOL, OUT_SIZE, OUT_HEX };

/* The key a JSON document, raw and pairs output use for a field or column
 * named name: lower case, '_' for '-' ("FIRST-ENTRY" -> "first_entry"). */
void out_key(char *dst, size_t cap, const char *name);

/* Tables: one row per element. */
struct libscols_table *out_table_new(const struct out_opts *o, const char *name);
void out_table_col(struct libscols_table *tb, const char *name, enum out_type t);
/* A column printed only when -o asks for it. */
#define OUT_COL_EXTRA 0x1u
/* The description-like column libsmartcols may cut (TRUNC) or wrap (WRAP)
 * on a narrow terminal, as lsblk does. */
#define OUT_COL_TRUNC 0x2u
#define OUT_COL_WRAP  0x4u
/* A long text people read under its row, indented and named ("meaning:
 * ..."), wrapped to the terminal, not as a column; scripts (-J, -r, -P)
 * get it as a column like any other. */
#define OUT_COL_BELOW 0x8u
void out_table_col_flags(struct libscols_table *tb, const char *name,
			 enum out_type t, unsigned int flags);
struct libscols_line *out_table_line(struct libscols_table *tb);
void out_cell(struct libscols_line *ln, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A line printed above the table for people (not with -J, -r, -P, -n). */
void out_table_title(struct libscols_table *tb, const char *title);
int out_table_print(struct libscols_table *tb);
/* A table left unprinted (nothing was read). */
void out_table_free(struct libscols_table *tb);
/* bytes as an OUT_SIZE cell shows them under o, for a cell in a column of
 * mixed units; free() it. */
char *out_size_str(uint64_t bytes, const struct out_opts *o);

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

/* One record as one JSON object, not an array of one (a command's single
 * result, simulate's model); for people as out_recs_print(). Between
 * out_doc_begin() and out_doc_end() a NULL name puts its fields in the
 * document's object itself ({"check": {"verdict": ..., "checks": ...}}). */
int out_rec_print(struct out_rec *r, const struct out_opts *o, const char *name);

/* Several tables and records in one JSON document, {"name": {"part": ...,
 * ...}}: between out_doc_begin() and out_doc_end() each prints as a member
 * of that object, named by its table or record name. Kept in memory until
 * the end, so an error on the way leaves only the error document. Without
 * --json both do nothing. */
void out_doc_begin(const struct out_opts *o, const char *name);
int out_doc_end(void);

/* Set once a JSON document went to standard output. */
extern int out_json_printed;
/* The document an error makes with --json: {"error": {...}, "exit": N}. */
void out_json_error(const char *cmd, const char *message, int status);

#endif
