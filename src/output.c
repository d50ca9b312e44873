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

/* What a table was made with: libsmartcols keeps no caller data on a
 * table, and a process prints only a few. */
#define MAX_TABLES 8
#define MAX_COLS   256
struct tmeta {
	struct libscols_table *tb;
	struct out_opts o;
	size_t ncols;
	enum out_type type[MAX_COLS];
	unsigned int flags[MAX_COLS];
	/* OUT_COL_BELOW columns, by pointer: -o moves columns around */
	struct libscols_column *below[MAX_COLS];
	size_t nbelow;
	char *title;
};
static struct tmeta tables[MAX_TABLES];
int out_json_printed;

/* the JSON document out_doc_begin() opened, built in memory */
static struct {
	FILE *f;
	char *buf;
	size_t len;
	int parts;
} doc;

/* --list-columns names the JSON type: a hex column is a number there */
static const char *const type_names[] = { "string", "number", "boolean", "size", "number" };

static void json_fstring(FILE *f, const char *v)
{
	fputc('"', f);
	for (; *v; v++)
		if (*v == '"' || *v == '\\')
			fprintf(f, "\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*v);
		else
			fputc(*v, f);
	fputc('"', f);
}

static void json_string(const char *v)
{
	json_fstring(stdout, v);
}

void out_json_error(const char *cmd, const char *message, int status)
{
	fputs("{\n   \"error\": {\n      \"command\": ", stdout);
	json_string(cmd ? cmd : "");
	fputs(",\n      \"message\": ", stdout);
	json_string(message);
	printf("\n   },\n   \"exit\": %d\n}\n", status);
	out_json_printed = 1;
}

static struct tmeta *meta(struct libscols_table *tb)
{
	size_t i;

	for (i = 0; i < MAX_TABLES; i++)
		if (tables[i].tb == tb)
			return &tables[i];
	return NULL;
}

void out_key(char *dst, size_t cap, const char *name)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < cap; i++)
		dst[i] = name[i] == '-' ? '_' :
			 (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] - 'A' + 'a') :
			 name[i];
	if (cap)
		dst[i] = 0;
}

struct libscols_table *out_table_new(const struct out_opts *o, const char *name)
{
	struct libscols_table *tb = scols_new_table();
	struct tmeta *m = meta(NULL);

	if (!tb || !m)
		xmalloc_fail();
	memset(m, 0, sizeof(*m));
	m->tb = tb;
	m->o = *o;
	scols_table_set_name(tb, name);
	scols_table_enable_json(tb, o->json);
	scols_table_enable_raw(tb, o->raw);
	scols_table_enable_export(tb, o->pairs);
	scols_table_enable_shellvar(tb, o->pairs);
	scols_table_enable_noheadings(tb, o->noheadings);
	return tb;
}

void out_table_col_flags(struct libscols_table *tb, const char *name,
			 enum out_type t, unsigned int flags)
{
	struct tmeta *m = meta(tb);
	struct libscols_column *cl;
	char key[64];

	if (!m || m->ncols == MAX_COLS)
		xmalloc_fail();
	/* JSON names a column by its key, pairs by its key in upper case as
	 * lsblk -P does (the same names records print); people read the
	 * header */
	if (m->o.json || m->o.pairs) {
		char *k;

		out_key(key, sizeof(key), name);
		for (k = key; m->o.pairs && *k; k++)
			if (*k >= 'a' && *k <= 'z')
				*k = (char)(*k - 'a' + 'A');
	} else
		snprintf(key, sizeof(key), "%s", name);
	cl = scols_table_new_column(tb, key, 0,
				    (t == OUT_NUM || t == OUT_SIZE || t == OUT_HEX ? SCOLS_FL_RIGHT : 0) |
				    (flags & OUT_COL_TRUNC ? SCOLS_FL_TRUNC : 0) |
				    (flags & OUT_COL_WRAP ? SCOLS_FL_WRAP : 0));
	if (!cl)
		xmalloc_fail();
	scols_column_set_json_type(cl, t == OUT_NUM || t == OUT_SIZE || t == OUT_HEX ?
				   SCOLS_JSON_NUMBER :
				   t == OUT_BOOL ? SCOLS_JSON_BOOLEAN :
				   SCOLS_JSON_STRING);
	m->type[m->ncols] = t;
	m->flags[m->ncols] = flags;
	m->ncols++;
	if (flags & OUT_COL_BELOW)
		m->below[m->nbelow++] = cl;
}

void out_table_col(struct libscols_table *tb, const char *name, enum out_type t)
{
	out_table_col_flags(tb, name, t, 0);
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

/* util-linux's size_to_human_string(): binary units, one decimal where
 * it says something, no "B" */
static char *human_size(const char *bytes)
{
	static const char units[] = "BKMGTPE";
	unsigned long long v = strtoull(bytes, NULL, 10), frac = 0;
	int u = 0;
	char *s;

	while (v >= 1024 && units[u + 1]) {
		frac = v % 1024;
		v /= 1024;
		u++;
	}
	frac = (frac * 10 + 512) / 1024;
	if (frac == 10) {
		v++;
		frac = 0;
	}
	if (u == 0 ? asprintf(&s, "%llu", v) < 0 :
	    frac ? asprintf(&s, "%llu.%llu%c", v, frac, units[u]) < 0 :
		   asprintf(&s, "%llu%c", v, units[u]) < 0)
		xmalloc_fail();
	return s;
}

/* "0x1f" -> "31"; NULL for what is not in that form (an empty cell) */
static char *hex_decimal(const char *v)
{
	char *s;

	if (!v || v[0] != '0' || (v[1] != 'x' && v[1] != 'X'))
		return NULL;
	if (asprintf(&s, "%llu", strtoull(v, NULL, 16)) < 0)
		xmalloc_fail();
	return s;
}

char *out_size_str(uint64_t bytes, const struct out_opts *o)
{
	char num[32], *s;

	snprintf(num, sizeof(num), "%llu", (unsigned long long)bytes);
	if (!(o->json || o->raw || o->pairs || o->bytes))
		return human_size(num);
	s = strdup(num);
	if (!s)
		xmalloc_fail();
	return s;
}

static int name_is(const char *name, const char *want, size_t len)
{
	char a[64], b[64];

	if (len >= sizeof(b))
		return 0;
	out_key(a, sizeof(a), name);
	memcpy(b, want, len);
	b[len] = 0;
	out_key(b, sizeof(b), b);
	return !strcmp(a, b);
}

static void list_columns(struct libscols_table *tb, const struct tmeta *m)
{
	size_t i;

	for (i = 0; i < m->ncols; i++) {
		struct libscols_column *cl = scols_table_get_column(tb, i);
		char key[64];

		out_key(key, sizeof(key), scols_column_get_name(cl));
		printf("%-20s %-8s%s\n", key, type_names[m->type[i]],
		       m->flags[i] & OUT_COL_EXTRA ? "" : " (default)");
	}
}

/* -o LIST: those columns, in that order; by default all but the extra. */
static void select_columns(struct libscols_table *tb, const struct tmeta *m)
{
	struct libscols_column *pre = NULL;
	const char *p = m->o.columns;
	size_t i;

	for (i = 0; i < m->ncols; i++) {
		struct libscols_column *cl = scols_table_get_column(tb, i);
		int hide = p ? 1 : !!(m->flags[i] & OUT_COL_EXTRA);

		scols_column_set_flags(cl, (scols_column_get_flags(cl) & ~SCOLS_FL_HIDDEN) |
				       (hide ? SCOLS_FL_HIDDEN : 0));
	}
	while (p && *p) {
		size_t len = strcspn(p, ",");
		struct libscols_column *cl = NULL;

		for (i = 0; i < m->ncols; i++) {
			cl = scols_table_get_column(tb, i);
			if (name_is(scols_column_get_name(cl), p, len))
				break;
		}
		if (i == m->ncols)
			die_(EXIT_USAGE, "unknown column '%.*s' (--list-columns lists them)",
			     (int)len, p);
		scols_column_set_flags(cl, scols_column_get_flags(cl) & ~SCOLS_FL_HIDDEN);
		scols_table_move_column(tb, pre, cl);
		pre = cl;
		p += len;
		if (*p == ',')
			p++;
	}
}

/* Cells in the form of the view: sizes human for people (unless -b), hex
 * numbers decimal for scripts, booleans as libsmartcols' JSON reads them
 * (anything not starting with 0 or n is true, "false" included). */
static void humanize(struct libscols_table *tb, const struct tmeta *m)
{
	int machine = m->o.json || m->o.raw || m->o.pairs;
	int sizes = !machine && !m->o.bytes;
	struct libscols_iter *it;
	struct libscols_line *ln;
	size_t i;

	if (!sizes && !machine)
		return;
	it = scols_new_iter(SCOLS_ITER_FORWARD);
	if (!it)
		xmalloc_fail();
	while (scols_table_next_line(tb, it, &ln) == 0)
		for (i = 0; i < m->ncols; i++) {
			struct libscols_cell *ce;
			const char *d;
			char *dec;

			if (!(m->type[i] == OUT_SIZE && sizes) &&
			    !(m->type[i] == OUT_HEX && machine) &&
			    !(m->type[i] == OUT_BOOL && m->o.json))
				continue;
			ce = scols_line_get_column_cell(ln, scols_table_get_column(tb, i));
			d = ce ? scols_cell_get_data(ce) : NULL;
			if (m->type[i] == OUT_BOOL) {
				if (d && *d)
					scols_cell_set_data(ce, !strcmp(d, "true") || !strcmp(d, "yes") ||
							    !strcmp(d, "1") ? "1" : "0");
			} else if (m->type[i] == OUT_HEX) {
				if ((dec = hex_decimal(d)))
					scols_cell_refer_data(ce, dec);
			} else if (d && *d >= '0' && *d <= '9')
				scols_cell_refer_data(ce, human_size(d));
		}
	scols_free_iter(it);
}

void out_table_title(struct libscols_table *tb, const char *title)
{
	struct tmeta *m = meta(tb);

	if (!m)
		return;
	free(m->title);
	m->title = strdup(title);
	if (!m->title)
		xmalloc_fail();
}

/* A table's {"name": [...]} as a member of the open document. */
static int doc_member_table(struct libscols_table *tb)
{
	char *s = NULL, *p, *nl, *last;
	int rc = scols_print_table_to_string(tb, &s), first = 1;

	if (rc || !s)
		return rc ? rc : -1;
	/* drop the outer "{" line and the closing "}" line */
	p = strchr(s, '\n');
	last = strrchr(s, '}');
	if (!p || !last || last < p) {
		free(s);
		return -1;
	}
	*last = 0;
	p++;
	fputs(doc.parts++ ? ",\n" : "", doc.f);
	/* one level deeper: the document's name holds it */
	while (*p && (nl = strchr(p, '\n'))) {
		fprintf(doc.f, "%s   %.*s", first ? "" : "\n", (int)(nl - p), p);
		first = 0;
		p = nl + 1;
	}
	free(s);
	return 0;
}

void out_table_free(struct libscols_table *tb)
{
	struct tmeta *m = meta(tb);

	if (m) {
		free(m->title);
		m->title = NULL;
		m->tb = NULL;
	}
	scols_unref_table(tb);
}

/* "label: text" under a row, words wrapped at width, continuation lines
 * under the text. */
static void print_wrapped(const char *label, const char *text, size_t width)
{
	size_t indent = 6 + strlen(label) + 2, col = indent;
	const char *w = text;

	printf("%6s%s: ", "", label);
	while (*w) {
		size_t n = strcspn(w, " ");

		if (col > indent && col + 1 + n > width) {
			printf("\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)n, w);
		col += n;
		w += n;
		while (*w == ' ')
			w++;
	}
	putchar('\n');
}

/* People's view of a table with OUT_COL_BELOW columns: the others aligned
 * as usual, one line per row, each below-cell that has text under it. */
static int print_below(struct libscols_table *tb, struct tmeta *m)
{
	int shown[MAX_COLS];
	struct libscols_iter *it;
	struct libscols_line *ln;
	size_t i, width = scols_table_get_termwidth(tb);
	char *data = NULL, *p;
	int rc;

	if (width < 60)
		width = 60;
	for (i = 0; i < m->nbelow; i++) {
		int fl = scols_column_get_flags(m->below[i]);

		shown[i] = !(fl & SCOLS_FL_HIDDEN);
		scols_column_set_flags(m->below[i], fl | SCOLS_FL_HIDDEN);
	}
	rc = scols_print_table_to_string(tb, &data);
	if (rc)
		return rc;
	p = data ? data : "";
	/* no rows: libsmartcols prints nothing, not even the header */
	if (!m->o.noheadings && *p) {
		size_t n = strcspn(p, "\n");

		printf("%.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	it = scols_new_iter(SCOLS_ITER_FORWARD);
	if (!it)
		xmalloc_fail();
	while (scols_table_next_line(tb, it, &ln) == 0) {
		size_t n = strcspn(p, "\n");

		/* the other columns have no wrapping cell: one line a row */
		printf("%.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
		for (i = 0; i < m->nbelow; i++) {
			struct libscols_cell *ce = scols_line_get_column_cell(ln, m->below[i]);
			const char *d = ce ? scols_cell_get_data(ce) : NULL;
			char label[64];
			size_t k;

			if (!shown[i] || !d || !*d)
				continue;
			snprintf(label, sizeof(label), "%s", scols_column_get_name(m->below[i]));
			for (k = 0; label[k]; k++)
				if (label[k] >= 'A' && label[k] <= 'Z')
					label[k] = (char)(label[k] - 'A' + 'a');
			print_wrapped(label, d, width);
		}
	}
	scols_free_iter(it);
	free(data);
	return ferror(stdout) ? -1 : 0;
}

int out_table_print(struct libscols_table *tb)
{
	struct tmeta *m = meta(tb);
	int rc = 0;

	if (m && m->o.list_columns)
		list_columns(tb, m);
	else if (!m || !m->o.quiet) {
		if (m) {
			humanize(tb, m);
			select_columns(tb, m);
			if (m->title && !(m->o.json || m->o.raw || m->o.pairs ||
					  m->o.noheadings))
				printf("%s\n", m->title);
		}
		if (m && m->o.json && doc.f)
			rc = doc_member_table(tb);
		else if (m && m->nbelow && !m->o.json && !m->o.raw && !m->o.pairs)
			rc = print_below(tb, m);
		else
			rc = scols_print_table(tb);
		if (m && m->o.json && !doc.f)
			out_json_printed = 1;
	}
	out_table_free(tb);
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

/* The fields of a record to print: -o's, in its order, or all. */
static size_t pick_fields(const struct out_rec *r, const struct out_opts *o,
			  const struct out_field **pick, size_t cap)
{
	const char *p = o->columns;
	size_t n = 0, k;

	if (!p) {
		for (k = 0; k < r->n && n < cap; k++)
			pick[n++] = &r->f[k];
		return n;
	}
	while (*p && n < cap) {
		size_t len = strcspn(p, ",");

		for (k = 0; k < r->n; k++)
			if (r->f[k].key && name_is(r->f[k].key, p, len)) {
				pick[n++] = &r->f[k];
				break;
			}
		p += len;
		if (*p == ',')
			p++;
	}
	return n;
}

static void check_fields(struct out_rec **recs, size_t n, const struct out_opts *o)
{
	const char *p = o->columns;
	size_t i, k;

	while (p && *p) {
		size_t len = strcspn(p, ",");
		int found = 0;

		for (i = 0; i < n && !found; i++)
			for (k = 0; k < recs[i]->n && !found; k++)
				found = recs[i]->f[k].key && name_is(recs[i]->f[k].key, p, len);
		if (!found)
			die_(EXIT_USAGE, "unknown field '%.*s' (--list-columns lists them)",
			     (int)len, p);
		p += len;
		if (*p == ',')
			p++;
	}
}

static const char *field_value(const struct out_field *f, const struct out_opts *o,
			       char **tofree)
{
	*tofree = NULL;
	if (f->type == OUT_SIZE && !o->bytes && !o->raw && !o->pairs &&
	    *f->value >= '0' && *f->value <= '9')
		return *tofree = human_size(f->value);
	if (f->type == OUT_HEX && (o->raw || o->pairs) && (*tofree = hex_decimal(f->value)))
		return *tofree;
	return f->value;
}

/* Scripts: "key=value" (-r) or KEY="value" (-P) lines with the JSON keys,
 * as blkid -o export and lsblk -P print them; a blank line between records. */
static void print_pairs(const struct out_field *f, const struct out_opts *o)
{
	char key[64], *tofree;
	const char *v, *val = field_value(f, o, &tofree);

	out_key(key, sizeof(key), f->key);
	if (o->raw) {
		fputs(key, stdout);
		putchar('=');
		for (v = val; *v; v++)
			if ((unsigned char)*v < 0x20 || *v == '\\' || *v == 0x7f)
				printf("\\x%02x", (unsigned char)*v);
			else
				putchar(*v);
		putchar('\n');
		free(tofree);
		return;
	}
	for (v = key; *v; v++)
		putchar(*v >= 'a' && *v <= 'z' ? *v - 'a' + 'A' : *v);
	fputs("=\"", stdout);
	for (v = val; *v; v++) {
		/* what is special inside a shell's double quotes */
		if (*v == '"' || *v == '\\' || *v == '$' || *v == '`')
			putchar('\\');
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			printf("\\x%02x", (unsigned char)*v);
		else
			putchar(*v);
	}
	fputs("\"\n", stdout);
	free(tofree);
}

/* People: a titled block of aligned "label  value" lines per record, through
 * a two-column table so alignment and encoding match the JSON path. */
static int print_human(struct out_rec **recs, size_t n, const struct out_opts *o)
{
	size_t i, k, np;

	check_fields(recs, n, o);
	for (i = 0; i < n; i++) {
		const struct out_field **pick = malloc((recs[i]->n + 1) * sizeof(*pick));
		struct libscols_table *tb = NULL;
		struct out_opts ho = { .noheadings = 1 };

		if (!pick)
			xmalloc_fail();
		np = pick_fields(recs[i], o, pick, recs[i]->n);
		if (i)
			fputc('\n', stdout);
		if (o->raw || o->pairs) {
			for (k = 0; k < np; k++)
				if (pick[k]->key)
					print_pairs(pick[k], o);
			free(pick);
			continue;
		}
		tb = out_table_new(&ho, "record");
		out_table_col(tb, "LABEL", OUT_STR);
		out_table_col(tb, "VALUE", OUT_STR);
		for (k = 0; k < np; k++) {
			const struct out_field *f = pick[k];
			struct libscols_line *ln = out_table_line(tb);
			char *h;

			/* -n: no section titles, so nothing to indent under */
			if (!f->key) {
				if (o->noheadings)
					continue;
				out_cell(ln, 0, "%s", f->label);
			} else {
				out_cell(ln, 0, "%s%s", o->noheadings ? "" : "  ", f->label);
				out_cell(ln, 1, "%s", field_value(f, o, &h));
				free(h);
			}
		}
		free(pick);
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

static void list_fields(struct out_rec **recs, size_t n)
{
	size_t i, k, j;

	for (i = 0; i < n; i++)
		for (k = 0; k < recs[i]->n; k++) {
			const struct out_field *f = &recs[i]->f[k];
			int seen = 0;
			char key[64];

			if (!f->key)
				continue;
			for (j = 0; j < i && !seen; j++) {
				size_t q;

				for (q = 0; q < recs[j]->n && !seen; q++)
					seen = recs[j]->f[q].key && !strcmp(recs[j]->f[q].key, f->key);
			}
			for (j = 0; j < k && !seen; j++)
				seen = recs[i]->f[j].key && !strcmp(recs[i]->f[j].key, f->key);
			if (seen)
				continue;
			out_key(key, sizeof(key), f->key);
			printf("%-24s %-8s %s\n", key, type_names[f->type], f->label);
		}
}

int out_recs_print(struct out_rec **recs, size_t n, const struct out_opts *o,
		   const char *name)
{
	if (o->list_columns) {
		list_fields(recs, n);
		return 0;
	}
	if (o->quiet)
		return 0;
	return o->json ? print_json(recs, n, o, name) : print_human(recs, n, o);
}

static int is_true(const char *v)
{
	return !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1");
}

/* "name": {...} at indent ind, the record's fields as members; name NULL:
 * the members alone, in the object around them (the document's own) */
static void json_object(FILE *f, const struct out_rec *r, const char *name, int ind)
{
	size_t k;
	int first = 1;

	if (name) {
		fprintf(f, "%*s", ind, "");
		json_fstring(f, name);
		fputs(": {", f);
	} else
		ind -= 3;
	for (k = 0; k < r->n; k++) {
		const struct out_field *fl = &r->f[k];
		char key[64], *dec = NULL;

		if (!fl->key)
			continue;
		out_key(key, sizeof(key), fl->key);
		/* inline members follow the document's "name": { line */
		if (first && !name)
			fprintf(f, "%*s", ind + 3, "");
		else
			fprintf(f, "%s\n%*s", first ? "" : ",", ind + 3, "");
		first = 0;
		json_fstring(f, key);
		fputs(": ", f);
		if (fl->type == OUT_BOOL)
			fputs(is_true(fl->value) ? "true" : "false", f);
		else if (fl->type == OUT_HEX && (dec = hex_decimal(fl->value)))
			fputs(dec, f);
		else if (fl->type == OUT_NUM || fl->type == OUT_SIZE || fl->type == OUT_HEX)
			fputs(*fl->value ? fl->value : "null", f);
		else
			json_fstring(f, fl->value);
		free(dec);
	}
	if (name)
		fprintf(f, "\n%*s}", ind, "");
}

int out_rec_print(struct out_rec *r, const struct out_opts *o, const char *name)
{
	if (!o->json || o->list_columns)
		return out_recs_print(&r, 1, o, name);
	if (o->quiet)
		return 0;
	if (doc.f) {
		fputs(doc.parts++ ? ",\n" : "", doc.f);
		json_object(doc.f, r, name, 6);
		return 0;
	}
	fputs("{\n", stdout);
	json_object(stdout, r, name, 3);
	fputs("\n}\n", stdout);
	out_json_printed = 1;
	return 0;
}

void out_doc_begin(const struct out_opts *o, const char *name)
{
	if (!o->json || o->list_columns || o->quiet || doc.f)
		return;
	doc.f = open_memstream(&doc.buf, &doc.len);
	if (!doc.f)
		xmalloc_fail();
	doc.parts = 0;
	fputs("{\n   ", doc.f);
	json_fstring(doc.f, name);
	fputs(": {\n", doc.f);
}

int out_doc_end(void)
{
	if (!doc.f)
		return 0;
	fputs("\n   }\n}\n", doc.f);
	if (fclose(doc.f) != 0)
		xmalloc_fail();
	doc.f = NULL;
	fwrite(doc.buf, 1, doc.len, stdout);
	free(doc.buf);
	doc.buf = NULL;
	out_json_printed = 1;
	return 0;
}
