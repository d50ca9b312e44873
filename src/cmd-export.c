/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg export - the saved physical memory as a raw image, LiME or an ELF
 * core, for Volatility, drgn and crash.
 */
#include "config.h"
#include "describe.h"
#include "input.h"
#include "options.h"
#include "progress.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct cli_opt export_opts[] = {
	{ "format", required_argument, 'F', "<fmt>", "raw, lime or elf" },
	{ NULL, 0, 0, NULL, NULL }
};

static const char *format_name(enum hib_export_format f)
{
	switch (f) {
	case HIB_EXPORT_RAW:  return "raw";
	case HIB_EXPORT_LIME: return "lime";
	case HIB_EXPORT_ELF:  return "elf";
	}
	return "?";
}

/* The summary; with elf, the fields only an ELF core has. */
static struct out_rec *summary(const char *out, enum hib_export_format f,
			       const struct hib_export_result *res)
{
	struct out_rec *r = out_rec_new();

	out_rec_add(r, "output", "output", OUT_STR, "%s", out);
	out_rec_add(r, "format", "format", OUT_STR, "%s", format_name(f));
	out_rec_add(r, "pfn-entries", "PFN-list entries placed", OUT_NUM, "%" PRIu64,
		    res->pages);
	out_rec_add(r, "image-pages", "of them pages with data", OUT_NUM, "%" PRIu64,
		    res->data_pages);
	out_rec_add(r, "zero-flagged", "of them zero-flagged (written as zeros)",
		    OUT_NUM, "%" PRIu64, res->zero_pages);
	out_rec_add(r, "pfn-runs", "runs of consecutive PFNs (a LiME range or PT_LOAD each)",
		    OUT_NUM, "%" PRIu64, res->ranges);
	out_rec_add(r, "file-size", "file size", OUT_SIZE, "%" PRIu64, res->file_size);
	if (f == HIB_EXPORT_ELF) {
		out_rec_add(r, "e-machine", "ELF machine", OUT_NUM, "%u", res->e_machine);
		out_rec_add(r, "elf-class", "ELF class (bits)", OUT_NUM, "%u",
			    res->elf_class == 1 ? 32u : 64u);
		out_rec_add(r, "kernel-map-loads", "PT_LOADs aliasing the kernel image",
			    OUT_NUM, "%" PRIu64, res->kernel_map_loads);
		out_rec_add(r, "vmcoreinfo", "VMCOREINFO note", OUT_BOOL, "%s",
			    res->vmcoreinfo ? "true" : "false");
		if (res->vmcoreinfo)
			out_rec_add(r, "vmcoreinfo-pfn", "VMCOREINFO page (PFN)", OUT_HEX,
				    "0x%" PRIx64, res->vmcoreinfo_pfn);
	}
	return r;
}

int cmd_export(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "export",
		.synopsis = "--format raw|lime|elf [options] <spec> <out>",
		.about = "Write the physical memory saved in a hibernation image to <out>: every\n"
			 "saved page at its physical address, zero-flagged pages as zeros, pages\n"
			 "the kernel did not save left out (holes in a raw image).",
		.sections = "Formats:\n"
			    " raw     byte offset = physical address, sparse\n"
			    " lime    LiME, one range per run of saved PFNs (Volatility)\n"
			    " elf     ELF core (ELF32 for i386) with VMCOREINFO (drgn, crash)\n\n"
			    "<out> '-' is standard output (raw and lime); the summary is then not\n"
			    "printed. The view options (-J, -r, -P, -o, -b) shape the summary.\n",
		.common = CO_VIEW | CO_QUIET | CO_THREADS | CO_RESUME | CO_FORCE | CO_SPENT,
		.own = export_opts,
	};
	struct hib_export_opts o = HIB_INIT(struct hib_export_opts, .format = HIB_EXPORT_RAW);
	struct hib_export_result res = HIB_INIT(struct hib_export_result);
	struct hib_image *img;
	struct out_rec *r;
	const char *fmt = NULL, *out;
	int c, rc;

	while ((c = cli_getopt(&cl, argc, argv)) != -1)
		if (c == 'F')
			fmt = optarg;
	if (cl.out.list_columns) {
		/* every field a summary may have, without reading anything */
		res.vmcoreinfo = 1;
		r = summary("", HIB_EXPORT_ELF, &res);
		rc = out_recs_print(&r, 1, &cl.out, "export");
		out_rec_free(r);
		return rc ? EXIT_IOERR : EXIT_INTACT;
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
	out = argv[optind + 1];
	/* the summary would land in the stream */
	if (!strcmp(out, "-") && (cl.out.json || cl.out.raw || cl.out.pairs))
		die_(EXIT_USAGE, "--json, --raw and --pairs print a summary on standard output, which '-' gives to the export");
	o.threads = cl.threads;
	if (cl.force)
		o.output_flags |= HIB_OUTPUT_FORCE;

	/* raw and LiME are written in one pass of the stream: '-' may be a pipe */
	img = o.format == HIB_EXPORT_ELF ? open_image(argv[optind], cl.resume_offset) :
		open_input(argv[optind], cl.resume_offset);
	rc = hib_image_load(img);
	if (rc == HIB_OK) {
		o.progress = progress_cb2;
		progress_begin("exporting", "entries", cl.quiet);
		rc = hib_export(img, out, &o, &res);
		progress_end();
	}
	if (rc)
		die_(rc_to_exit(rc), "%s", input_error(img));
	if (o.format == HIB_EXPORT_ELF && !res.vmcoreinfo)
		warnx_("warning: no VMCOREINFO page in the image: %s has no VMCOREINFO note, so drgn and crash need the kernel's symbols to find their way",
		       out);
	if (!strcmp(out, "-") || cl.quiet) {
		hib_image_free(img);
		return EXIT_INTACT;
	}
	r = summary(out, o.format, &res);
	rc = out_recs_print(&r, 1, &cl.out, "export");
	out_rec_free(r);
	hib_image_free(img);
	return rc ? EXIT_IOERR : EXIT_INTACT;
}
