/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg dmesg - the hibernated kernel's own log, out of its printk ring
 * buffer in the image, printed the way dmesg(1) prints it.
 */
#include "config.h"
#include "common.h"
#include "input.h"
#include "options.h"
#include "output.h"
#include "partial.h"
#include "progress.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Exit status of dmesg (hibimg-dmesg(1)): the image reads, but its log
 * cannot be found (no VMCOREINFO, a kernel before 5.10, an architecture
 * whose addresses are not translated); with --partial also where the
 * damage took the VMCOREINFO page or the ring's own: 6 beats 5, since
 * nothing of the log went out. */

static const struct cli_opt dmesg_opts[] = {
	{ "decode", no_argument, 'x', NULL,
	  "print facility and level as text, as dmesg -x" },
	{ "level", required_argument, 'l', "<list>",
	  "only these levels (emerg,alert,crit,err,\nwarn,notice,info,debug)" },
	{ NULL, 0, 0, NULL, NULL }
};

static const char *const levels[8] = {
	"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"
};
/* include/linux/syslog.h's facilities, as dmesg -x names them */
static const char *const facilities[] = {
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
	"uucp", "cron", "authpriv", "ftp"
};

static const char *facility_name(int f)
{
	return f >= 0 && (size_t)f < sizeof(facilities) / sizeof(facilities[0]) ?
		facilities[f] : "?";
}

static unsigned int parse_levels(const char *s)
{
	unsigned int mask = 0;
	char *dup = strdup(s), *tok, *save = NULL;

	if (!dup)
		die_(EXIT_IOERR, "out of memory");
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < 8 && strcmp(tok, levels[i]); i++)
			;
		if (i == 8) {
			warnx_("unknown level '%s'", tok);
			errtryhelp("dmesg");
		}
		mask |= 1u << i;
	}
	free(dup);
	return mask;
}

/* For scripts: one record per log record; all means every field, for
 * --list-columns. */
static struct out_rec *record(const struct hib_printk_rec *r, int all)
{
	struct out_rec *o = out_rec_new();

	out_rec_add(o, "seq", "sequence", OUT_NUM, "%" PRIu64, r->seq);
	out_rec_add(o, "time-nsec", "time (ns)", OUT_NUM, "%" PRIu64, r->ts_nsec);
	if (r->have_level || all) {
		out_rec_add(o, "facility", "facility", OUT_STR, "%s", facility_name(r->facility));
		out_rec_add(o, "log-level", "level", OUT_STR, "%s", levels[r->level & 7]);
	}
	out_rec_add(o, "text", "text", OUT_STR, "%.*s", (int)r->text_len, r->text ? r->text : "");
	return o;
}

/* For people: one line per text line, each with the record's time. */
static void print_human(const struct hib_printk_rec *r, int decode)
{
	const char *p = r->text, *end = r->text + r->text_len;

	do {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (decode && r->have_level)
			printf("%-6s:%-6s: ", facility_name(r->facility), levels[r->level & 7]);
		printf("[%5" PRIu64 ".%06" PRIu64 "] %.*s\n", r->ts_nsec / 1000000000u,
		       (r->ts_nsec % 1000000000u) / 1000u, (int)n, p);
		p = nl ? nl + 1 : end;
	} while (p < end);
}

int cmd_dmesg(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "dmesg",
		.synopsis = "[options] <spec>",
		.about = "Print the kernel log of the hibernated system: its printk ring buffer\n"
			 "(5.10+) as the image saved it, found through the VMCOREINFO page and the\n"
			 "kernel's own page tables (x86_64, arm64, i386, riscv64). The whole stream\n"
			 "is read and checked first; with --partial, every chunk that decodes is\n"
			 "kept and a record whose pages the damage took is skipped and counted.",
		.epilog = "Exit status: 0 the log printed, 1 a damaged image, 2 usage error or an\n"
			  "input that is no image, 3 I/O error, 5 --partial: damage found, the\n"
			  "records it left printed, 6 no log found in the image (hibimg-dmesg(1)).\n",
		.common = CO_VIEW | CO_QUIET | CO_RESUME | CO_SPENT | CO_PARTIAL,
		.own = dmesg_opts,
	};
	struct hib_image *img;
	struct hib_kmem *km = NULL;
	struct hib_printk *pk = NULL;
	struct out_rec **recs = NULL;
	size_t nrecs = 0, caprecs = 0, i;
	const struct hib_printk_rec *r;
	unsigned int mask = 0xff;
	int c, rc, decode = 0, machine;

	while ((c = cli_getopt(&cl, argc, argv)) != -1) {
		if (c == 'x')
			decode = 1;
		else if (c == 'l')
			mask = parse_levels(optarg);
	}
	/* for people, dmesg's lines; records for scripts and -o */
	machine = cl.out.json || cl.out.raw || cl.out.pairs || cl.out.columns;
	if (cl.out.list_columns) {
		struct hib_printk_rec none = { 0 };
		struct out_rec *r0 = record(&none, 1);

		c = out_recs_print(&r0, 1, &cl.out, "dmesg");
		out_rec_free(r0);
		return c ? EXIT_IOERR : EXIT_INTACT;
	}
	if (argc - optind != 1) {
		warnx_(argc == optind ? "no image given" : "too many arguments");
		errtryhelp("dmesg");
	}
	img = open_image(argv[optind], cl.resume_offset);
	/* before the load: a cut copy's map names pages past its end */
	rc = cl.partial ? hib_image_set_partial(img, 1) : HIB_OK;
	if (rc == HIB_OK)
		rc = hib_image_load(img);
	if (rc == HIB_OK)
		rc = hib_kmem_open(img, &km);
	if (rc)
		die_(rc_to_exit(rc), "%s", input_error(img));
	/* the damage first: the log that follows is what it left */
	if (cl.partial && !cl.quiet)
		partial_warn(img);
	rc = hib_printk_open(km, &pk);
	if (rc)
		die_(rc == HIB_ERR_UNSUPPORTED ? EXIT_NOLOG : rc_to_exit(rc),
		     "%s: %s", hib_image_path(img), hib_image_error(img));
	while ((rc = hib_printk_next(pk, &r)) == 1) {
		if (r->have_level && !(mask & (1u << (r->level & 7))))
			continue;
		if (cl.quiet)
			continue;
		if (!machine) {
			print_human(r, decode);
			continue;
		}
		if (nrecs == caprecs) {
			caprecs = caprecs ? caprecs * 2 : 1024;
			recs = realloc(recs, caprecs * sizeof(*recs));
			if (!recs)
				die_(EXIT_IOERR, "out of memory");
		}
		recs[nrecs++] = record(r, 0);
	}
	/* a ring that stops reading part way is an error: nothing of it
	 * goes out as if it were the whole log */
	if (rc < 0)
		die_(rc == HIB_ERR_UNSUPPORTED ? EXIT_NOLOG : rc_to_exit(rc),
		     "%s: %s", hib_image_path(img), hib_image_error(img));
	/* --partial may leave no record: an empty list, not a table without
	 * columns */
	if (machine && !cl.quiet && !nrecs && cl.out.json)
		printf("{\n   \"dmesg\": []\n}\n");
	else if (machine && !cl.quiet && nrecs && out_recs_print(recs, nrecs, &cl.out, "dmesg"))
		die_(EXIT_IOERR, "write error");
	if (fflush(stdout))
		die_(EXIT_IOERR, "write error");
	if (hib_printk_skipped(pk) && !cl.quiet)
		warnx_("%s: %" PRIu64 " log record%s skipped: the damage took a page %s",
		       hib_image_path(img), hib_printk_skipped(pk),
		       hib_printk_skipped(pk) == 1 ? "" : "s",
		       hib_printk_skipped(pk) == 1 ? "it needs" : "each needs");
	rc = cl.partial ? partial_status(img) : EXIT_INTACT;
	for (i = 0; i < nrecs; i++)
		out_rec_free(recs[i]);
	free(recs);
	hib_printk_free(pk);
	hib_kmem_free(km);
	hib_image_free(img);
	return rc;
}
