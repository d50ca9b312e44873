/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg export - the saved physical memory as a raw image, LiME or an ELF
 * core, for Volatility, drgn and crash.
 */
#include "config.h"
#include "describe.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void __attribute__((noreturn)) usage(void)
{
	printf("Usage:\n hibimg export --format raw|lime|elf [options] <spec> <out>\n\n");
	printf("Write the physical memory saved in a hibernation image to <out>: every\n"
	       "saved page at its physical address, zero-flagged pages as zeros, pages\n"
	       "the kernel did not save left out (holes in a raw image).\n\n");
	printf("Formats:\n"
	       " raw     byte offset = physical address, sparse\n"
	       " lime    LiME, one range per run of saved PFNs (Volatility)\n"
	       " elf     ELF64 core with the kernel's VMCOREINFO note (drgn, crash)\n\n");
	printf("<out> '-' is standard output (raw and lime).\n\n");
	printf("Options:\n"
	       " -F, --format <fmt>         raw, lime or elf\n"
	       USAGE_FORCE_OPTION
	       " -J, --json                 use JSON output format for the summary\n"
	       " -r, --raw                  use raw output format for the summary\n"
	       " -R, --resume-offset <pages> the resume page is not page 0 (swap file)\n"
	       " -T, --threads <n>          decompress with n threads (default: online CPUs)\n"
	       USAGE_HELP_OPTIONS);
	printf("\nSee hibimg-export(1).\n");
	exit(EXIT_SUCCESS);
}

static void progress(uint64_t done, uint64_t total, void *arg)
{
	(void)arg;
	fprintf(stderr, "\rhibimg: exporting %3u%%", total ? (unsigned)(done * 100 / total) : 100);
	if (done == total)
		fputc('\n', stderr);
}

static const char *format_name(enum hib_export_format f)
{
	switch (f) {
	case HIB_EXPORT_RAW:  return "raw";
	case HIB_EXPORT_LIME: return "lime";
	case HIB_EXPORT_ELF:  return "elf";
	}
	return "?";
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format",        required_argument, NULL, 'F' },
		{ "force",         no_argument,       NULL, 'f' },
		{ "json",          no_argument,       NULL, 'J' },
		{ "raw",           no_argument,       NULL, 'r' },
		{ "resume-offset", required_argument, NULL, 'R' },
		{ "threads",       required_argument, NULL, 'T' },
		{ "help",          no_argument,       NULL, 'h' },
		{ "version",       no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct hib_export_opts o = HIB_INIT(struct hib_export_opts, .format = HIB_EXPORT_RAW);
	struct hib_export_result res = HIB_INIT(struct hib_export_result);
	struct out_opts oo = { 0 };
	struct hib_image *img;
	struct out_rec *r;
	const char *fmt = NULL;
	uint64_t offset = 0;
	int c, rc;

	while ((c = getopt_long(argc, argv, "F:fJrR:T:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'F': fmt = optarg; break;
		case 'f': o.output_flags |= HIB_OUTPUT_FORCE; break;
		case 'J': oo.json = 1; break;
		case 'r': oo.raw = 1; break;
		case 'R': offset = parse_u64(optarg, "resume offset"); break;
		case 'T': o.threads = (unsigned int)parse_u64(optarg, "thread count"); break;
		case 'h': usage();
		case 'V': print_version();
		default: errtryhelp("export");
		}
	}
	if (!fmt) {
		warnx_("--format is required");
		errtryhelp("export");
	}
	if (!strcmp(fmt, "raw"))
		o.format = HIB_EXPORT_RAW;
	else if (!strcmp(fmt, "lime"))
		o.format = HIB_EXPORT_LIME;
	else if (!strcmp(fmt, "elf"))
		o.format = HIB_EXPORT_ELF;
	else {
		warnx_("unknown format '%s'", fmt);
		errtryhelp("export");
	}
	if (argc - optind != 2) {
		warnx_(argc - optind < 2 ? "missing argument: need <spec> and <out>" :
		       "too many arguments");
		errtryhelp("export");
	}
	/* the summary would land in the stream */
	if (!strcmp(argv[optind + 1], "-") && (oo.json || oo.raw))
		die_(EXIT_USAGE, "--json and --raw print a summary on standard output, which '-' gives to the export");
	if (isatty(STDERR_FILENO))
		o.progress = progress;

	img = open_image(argv[optind], offset);
	rc = hib_image_load(img);
	if (rc == HIB_OK)
		rc = hib_export(img, argv[optind + 1], &o, &res);
	if (rc) {
		warnx_("%s", hib_image_error(img));
		hib_image_free(img);
		return rc_to_exit(rc);
	}
	if (o.format == HIB_EXPORT_ELF && !res.vmcoreinfo)
		warnx_("warning: no VMCOREINFO page in the image: %s has no VMCOREINFO note, so drgn and crash need the kernel's symbols to find their way",
		       argv[optind + 1]);
	if (!strcmp(argv[optind + 1], "-")) {
		hib_image_free(img);
		return EXIT_INTACT;
	}

	r = out_rec_new();
	out_rec_add(r, "output", "output", OUT_STR, "%s", argv[optind + 1]);
	out_rec_add(r, "format", "format", OUT_STR, "%s", format_name(o.format));
	out_rec_add(r, "pages", "pages placed", OUT_NUM, "%" PRIu64, res.pages);
	out_rec_add(r, "data-pages", "pages with data", OUT_NUM, "%" PRIu64, res.data_pages);
	out_rec_add(r, "zero-pages", "zero-flagged pages", OUT_NUM, "%" PRIu64, res.zero_pages);
	out_rec_add(r, "ranges", "ranges (runs of PFNs)", OUT_NUM, "%" PRIu64, res.ranges);
	out_rec_add(r, "file-size", "file size (bytes)", OUT_NUM, "%" PRIu64, res.file_size);
	if (o.format == HIB_EXPORT_ELF) {
		out_rec_add(r, "e-machine", "ELF machine", OUT_NUM, "%u", res.e_machine);
		out_rec_add(r, "vmcoreinfo", "VMCOREINFO note", OUT_BOOL, "%s",
			    res.vmcoreinfo ? "true" : "false");
		if (res.vmcoreinfo)
			out_rec_add(r, "vmcoreinfo-pfn", "VMCOREINFO page", OUT_STR,
				    "0x%" PRIx64, res.vmcoreinfo_pfn);
	}
	rc = out_recs_print(&r, 1, &oo, "export");
	out_rec_free(r);
	hib_image_free(img);
	return rc ? EXIT_IOERR : EXIT_INTACT;
}
