/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.c - the one output path: libsmartcols tables for everything, so
 * JSON comes from the same cells people read.
 */
#include "config.h"
#include "output.h"
#include "common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xmalloc_fail(void)
{
	die_(EXIT_IOERR, "out of memory");
}

struct libscols_table *out_table_new(const struct out_opts *o, const char *name)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		xmalloc_fail();
	scols_table_set_name(tb, name);
	scols_table_enable_json(tb, o->json);
	scols_table_enable_raw(tb, o->raw);
	scols_table_enable_noheadings(tb, o->noheadings);
	return tb;
}

void out_table_col(struct libscols_table *tb, const char *name, enum out_type t)
{
	struct libscols_column *cl;

	cl = scols_table_new_column(tb, name, 0, t == OUT_NUM ? SCOLS_FL_RIGHT : 0);
	if (!cl)
		xmalloc_fail();
	scols_column_set_json_type(cl, t == OUT_NUM ? SCOLS_JSON_NUMBER :
				   t == OUT_BOOL ? SCOLS_JSON_BOOLEAN :
				   SCOLS_JSON_STRING);
}

struct libscols_line *out_table_line(struct libscols_table *tb)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);

	if (!ln)
		xmalloc_fail();
	return ln;
}

static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		xmalloc_fail();
	return s;
}

void out_cell(struct libscols_line *ln, size_t col, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	if (scols_line_refer_data(ln, col, s))
		xmalloc_fail();
}

int out_table_print(struct libscols_table *tb)
{
	int rc = scols_print_table(tb);

	scols_unref_table(tb);
	return rc;
}

struct out_field {
	char *key;      /* NULL for a section title */
	char *label;
	char *value;
	enum out_type type;
};

struct out_rec {
	struct out_field *f;
	size_t n, cap;
};

struct out_rec *out_rec_new(void)
{
	struct out_rec *r = calloc(1, sizeof(*r));

	if (!r)
		xmalloc_fail();
	return r;
}

void out_rec_free(struct out_rec *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		free(r->f[i].key);
		free(r->f[i].label);
		free(r->f[i].value);
	}
	free(r->f);
	free(r);
}

static struct out_field *rec_push(struct out_rec *r)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->f = realloc(r->f, r->cap * sizeof(*r->f));
		if (!r->f)
			xmalloc_fail();
	}
	memset(&r->f[r->n], 0, sizeof(r->f[0]));
	return &r->f[r->n++];
}

void out_rec_section(struct out_rec *r, const char *title)
{
	struct out_field *f = rec_push(r);

	f->label = strdup(title);
}

void out_rec_add(struct out_rec *r, const char *key, const char *label,
		 enum out_type t, const char *fmt, ...)
{
	struct out_field *f = rec_push(r);
	va_list ap;

	f->key = strdup(key);
	f->label = strdup(label);
	f->type = t;
	va_start(ap, fmt);
	f->value = vfmt(fmt, ap);
	va_end(ap);
}

/* People: a titled block of aligned "label  value" lines per record, through
 * a two-column table so alignment and encoding match the JSON path. */
static int print_human(struct out_rec **recs, size_t n, const struct out_opts *o)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		struct libscols_table *tb;
		struct out_opts ho = { .raw = o->raw, .noheadings = 1 };

		if (i)
			fputc('\n', stdout);
		tb = out_table_new(&ho, "record");
		out_table_col(tb, "LABEL", OUT_STR);
		out_table_col(tb, "VALUE", OUT_STR);
		for (k = 0; k < recs[i]->n; k++) {
			struct out_field *f = &recs[i]->f[k];
			struct libscols_line *ln = out_table_line(tb);

			if (!f->key)
				out_cell(ln, 0, "%s", f->label);
			else {
				out_cell(ln, 0, "  %s", f->label);
				out_cell(ln, 1, "%s", f->value);
			}
		}
		if (out_table_print(tb))
			return -1;
	}
	return 0;
}

/* JSON: one row per record, one column per key (the union, in order of first
 * appearance), so several images make one array of objects. */
static int print_json(struct out_rec **recs, size_t n, const struct out_opts *o,
		      const char *name)
{
	struct libscols_table *tb = out_table_new(o, name);
	const char **keys = NULL;
	size_t nkeys = 0, i, k, j;

	for (i = 0; i < n; i++)
		for (k = 0; k < recs[i]->n; k++) {
			struct out_field *f = &recs[i]->f[k];

			if (!f->key)
				continue;
			for (j = 0; j < nkeys && strcmp(keys[j], f->key); j++)
				;
			if (j < nkeys)
				continue;
			keys = realloc(keys, (nkeys + 1) * sizeof(*keys));
			if (!keys)
				xmalloc_fail();
			keys[nkeys++] = f->key;
			out_table_col(tb, f->key, f->type);
		}
	for (i = 0; i < n; i++) {
		struct libscols_line *ln = out_table_line(tb);

		for (k = 0; k < recs[i]->n; k++) {
			struct out_field *f = &recs[i]->f[k];

			if (!f->key)
				continue;
			for (j = 0; strcmp(keys[j], f->key); j++)
				;
			/* libsmartcols prints any boolean cell not starting with
			 * '0' or 'n' as true, "false" included */
			if (f->type == OUT_BOOL)
				out_cell(ln, j, "%s", !strcmp(f->value, "true") ||
					 !strcmp(f->value, "yes") ? "1" : "0");
			else
				out_cell(ln, j, "%s", f->value);
		}
	}
	free(keys);
	return out_table_print(tb);
}

int out_recs_print(struct out_rec **recs, size_t n, const struct out_opts *o,
		   const char *name)
{
	return o->json ? print_json(recs, n, o, name) : print_human(recs, n, o);
}
