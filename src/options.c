/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.c - the common options, once: their letters, their long names,
 * their --help lines and what they set. git keeps one parser for its
 * common options for the same reason: a letter means one thing everywhere.
 */
#include "config.h"
#include "options.h"
#include "common.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

const char *cli_command;
int cli_json;
int cli_spent = -1;

enum {
	CV_LISTCOLS = OPT_LONG + 0x80,
	CV_DEVICE,
	CV_SPENT,
	CV_PARTIAL,
};

struct common_opt {
	unsigned int bit;
	struct cli_opt o;
};

/* In the order --help lists them. */
static const struct common_opt common_opts[] = {
	{ CO_JSON,    { "json",          no_argument,       'J', NULL,
			"use JSON output format" } },
	{ CO_RAW,     { "raw",           no_argument,       'r', NULL,
			"use raw output format" } },
	{ CO_PAIRS,   { "pairs",         no_argument,       'P', NULL,
			"use key=\"value\" output format" } },
	{ CO_NOHEAD,  { "noheadings",    no_argument,       'n', NULL,
			"don't print headings" } },
	{ CO_COLUMNS, { "output",        required_argument, 'o', "<list>",
			"the columns (or fields) to print, in order" } },
	{ CO_COLUMNS, { "list-columns",  no_argument,       CV_LISTCOLS, NULL,
			"list the columns and fields, and exit" } },
	{ CO_BYTES,   { "bytes",         no_argument,       'b', NULL,
			"print sizes in bytes, not in a human form" } },
	{ CO_THREADS, { "threads",       required_argument, 'T', "<n>",
			"use n threads (default: online CPUs)" } },
	{ CO_RESUME,  { "resume-offset", required_argument, 'R', "<pages>",
			"the resume page is not page 0 (a device\nholding a swap file; the file itself is\nread in place without it)" } },
	{ CO_OUTFILE, { "output-file",   required_argument, 'O', "<file>",
			"write to <file> ('-': standard output)" } },
	{ CO_FORCE,   { "force",         no_argument,       'f', NULL,
			"replace an existing output file" } },
	{ CO_DEVICE,  { "device",        no_argument,       CV_DEVICE, NULL,
			"the output is a block device, written in place" } },
	{ CO_SPENT,   { "spent",         no_argument,       CV_SPENT, NULL,
			"read what a resume attempt left of a spent image" } },
	{ CO_PARTIAL, { "partial",       no_argument,       CV_PARTIAL, NULL,
			"best effort: keep every chunk that decodes,\nlist what was lost (exit 5 when any was)" } },
	{ CO_QUIET,   { "quiet",         no_argument,       'q', NULL,
			"print nothing, only set the exit status" } },
	{ CO_VERBOSE, { "verbose",       no_argument,       'v', NULL,
			"say more" } },
	{ ~0u,        { "help",          no_argument,       'h', NULL,
			"display this help" } },
	{ ~0u,        { "version",       no_argument,       'V', NULL,
			"display version" } },
};
#define NCOMMON (sizeof(common_opts) / sizeof(common_opts[0]))

static int taken(const struct cli *c, const struct cli_opt *o)
{
	size_t i;

	for (i = 0; i < NCOMMON; i++) {
		const struct cli_opt *k = &common_opts[i].o;

		if (!strcmp(k->name, o->name) || (o->val < OPT_LONG && k->val == o->val))
			return 1;
	}
	(void)c;
	return 0;
}

static size_t own_count(const struct cli *c)
{
	size_t n = 0;

	while (c->own && c->own[n].name)
		n++;
	return n;
}

/* getopt_long's tables, built once per command from the two lists. */
static void build(const struct cli *c, struct option **lo, char **so)
{
	size_t nown = own_count(c), i, k = 0, s = 0;
	struct option *l = calloc(NCOMMON + nown + 1, sizeof(*l));
	char *str = malloc(3 * (NCOMMON + nown) + 2);

	if (!l || !str)
		die_(EXIT_IOERR, "out of memory");
	str[s++] = ':';    /* getopt prints nothing; a missing argument returns ':' */
	for (i = 0; i < nown; i++) {
		const struct cli_opt *o = &c->own[i];

		if (taken(c, o))
			die_(EXIT_USAGE, "internal: option --%s of '%s' takes a common option's name or letter",
			     o->name, c->cmd);
		l[k++] = (struct option){ o->name, o->has_arg, NULL, o->val };
		if (o->val < OPT_LONG) {
			str[s++] = (char)o->val;
			if (o->has_arg)
				str[s++] = ':';
		}
	}
	for (i = 0; i < NCOMMON; i++) {
		const struct cli_opt *o = &common_opts[i].o;

		if (!(common_opts[i].bit & c->common))
			continue;
		l[k++] = (struct option){ o->name, o->has_arg, NULL, o->val };
		if (o->val < OPT_LONG) {
			str[s++] = (char)o->val;
			if (o->has_arg)
				str[s++] = ':';
		}
	}
	str[s] = 0;
	*lo = l;
	*so = str;
}

static void print_opt(const struct cli_opt *o)
{
	char head[64];
	const char *h = o->help, *nl;

	if (o->val < OPT_LONG)
		snprintf(head, sizeof(head), " -%c, --%s%s%s", o->val, o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(head, sizeof(head), "     --%s%s%s", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	/* util-linux's layout: the help text in column 29, or on the next
	 * line when the option is too long */
	if (strlen(head) >= 28)
		printf("%s\n%28s", head, "");
	else
		printf("%-28s", head);
	while ((nl = strchr(h, '\n'))) {
		printf("%.*s\n%30s", (int)(nl - h), h, "");
		h = nl + 1;
	}
	printf("%s\n", h);
}

void cli_usage(const struct cli *c)
{
	size_t i, nown = own_count(c);

	printf("Usage:\n hibimg %s %s\n\n%s\n", c->cmd, c->synopsis, c->about);
	if (c->sections)
		printf("\n%s", c->sections);
	printf("\nOptions:\n");
	for (i = 0; i < nown; i++)
		print_opt(&c->own[i]);
	if (nown)
		printf("\n");
	for (i = 0; i < NCOMMON; i++)
		if (common_opts[i].bit & c->common)
			print_opt(&common_opts[i].o);
	if (c->epilog)
		printf("\n%s", c->epilog);
	printf("\nSee hibimg-%s(1) for the command, hibimg(1) for the common options.\n",
	       c->cmd);
	exit(EXIT_SUCCESS);
}

int cli_getopt(struct cli *c, int argc, char **argv)
{
	/* one command runs per process: its tables are built once */
	static struct option *lo;
	static char *so;
	int v;

	cli_command = c->cmd;
	if (!lo) {
		build(c, &lo, &so);
		cli_spent = (c->common & CO_SPENT) ? 0 : -1;
	}
	for (;;) {
		v = getopt_long(argc, argv, so, lo, NULL);
		switch (v) {
		case -1:
			if (c->out.json && c->quiet)
				die_(EXIT_USAGE, "--json and --quiet exclude each other");
			if (c->out.json + c->out.raw + c->out.pairs > 1)
				die_(EXIT_USAGE, "choose one of --json, --raw and --pairs");
			return -1;
		case 'J': c->out.json = cli_json = 1; continue;
		case 'r': c->out.raw = 1; continue;
		case 'P': c->out.pairs = 1; continue;
		case 'n': c->out.noheadings = 1; continue;
		case 'o': c->out.columns = optarg; continue;
		case CV_LISTCOLS: c->out.list_columns = 1; continue;
		case 'b': c->out.bytes = 1; continue;
		case 'T':
			c->threads = (unsigned int)parse_u64(optarg, "thread count");
			continue;
		case 'R':
			c->resume_offset = parse_u64(optarg, "resume offset");
			c->resume_offset_set = 1;
			continue;
		case 'O': c->outfile = optarg; continue;
		case 'f': c->force = 1; continue;
		case CV_DEVICE: c->device = 1; continue;
		case CV_SPENT: c->spent = cli_spent = 1; continue;
		case CV_PARTIAL: c->partial = 1; continue;
		case 'q': c->quiet = c->out.quiet = 1; continue;
		case 'v': c->verbose++; continue;
		case 'h': cli_usage(c);
		case 'V': print_version();
		case ':':
			warnx_("option '%s' needs an argument", argv[optind - 1]);
			errtryhelp(c->cmd);
		case '?':
			if (optopt && optopt < OPT_LONG)
				warnx_("invalid option -- '%c'", optopt);
			else
				warnx_("unrecognized option '%s'", argv[optind - 1]);
			errtryhelp(c->cmd);
		default:
			return v;
		}
	}
}
