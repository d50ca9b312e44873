/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg export - the saved physical memory as a raw image, LiME, an ELF
 * core or a kdump-compressed dump, for Volatility, drgn and crash.
 */
#include "config.h"
#include "describe.h"
#include "input.h"
#include "options.h"
#include "partial.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_KCOMP = 0x100, OPT_VMCI };

static const struct cli_opt export_opts[] = {
	{ "format", required_argument, 'F', "<fmt>", "raw, lime, elf or kdump" },
	{ "kdump-compress", required_argument, OPT_KCOMP, "<codec>",
	  "kdump: zstd (default), zlib, lzo or none" },
	{ "zero-pages", required_argument, 'z', "<mode>",
	  "kdump: omit (default: left out, as makedumpfile -d 1)\n"
	  "or store (one shared page of zeros, as -d 0)" },
	{ "vmcoreinfo", required_argument, OPT_VMCI, "<file>",
	  "elf, kdump: this VMCOREINFO text as the note, not the image's page" },
	{ NULL, 0, 0, NULL, NULL }
};

/* A VMCOREINFO text is one page in the kernel; a file far larger is
 * not one, and the library refuses it with its size: read a little
 * past the library's bound so it can. */
#define VMCI_READ_MAX ((1u << 20) + 1)

static char *read_vmcoreinfo(const char *path, size_t *len)
{
	char *buf = malloc(VMCI_READ_MAX);
	size_t n = 0;
	int fd;

	if (!buf)
		die_(EXIT_IOERR, "out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die_(EXIT_USAGE, "--vmcoreinfo %s: %s", path, strerror(errno));
	while (n < VMCI_READ_MAX) {
		ssize_t r = read(fd, buf + n, VMCI_READ_MAX - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die_(EXIT_IOERR, "--vmcoreinfo %s: %s", path, strerror(errno));
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

static const char *format_name(enum hib_export_format f)
{
	switch (f) {
	case HIB_EXPORT_RAW:  return "raw";
	case HIB_EXPORT_LIME: return "lime";
	case HIB_EXPORT_ELF:  return "elf";
	case HIB_EXPORT_KDUMP: return "kdump";
	}
	return "?";
}

/* The summary; with elf and kdump, the fields only they have. */
static struct out_rec *summary(const char *out, enum hib_export_format f,
			       const struct hib_export_result *res, bool all)
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
	if (all || f == HIB_EXPORT_ELF) {
		out_rec_add(r, "e-machine", "ELF machine", OUT_NUM, "%u", res->e_machine);
		out_rec_add(r, "elf-class", "ELF class (bits)", OUT_NUM, "%u",
			    res->elf_class == 1 ? 32u : 64u);
		out_rec_add(r, "kernel-map-loads", "PT_LOADs aliasing the kernel image",
			    OUT_NUM, "%" PRIu64, res->kernel_map_loads);
		out_rec_add(r, "direct-map-loads", "PT_LOADs at their linear-map address",
			    OUT_NUM, "%" PRIu64, res->direct_map_loads);
	}
	if (all || f == HIB_EXPORT_KDUMP) {
		out_rec_add(r, "kdump-codec", "page codec", OUT_STR, "%s",
			    hib_kdump_codec_name(res->kdump_codec));
		out_rec_add(r, "kdump-word", "header layout (bytes a long)", OUT_NUM, "%u",
			    res->kdump_word);
		out_rec_add(r, "max-mapnr", "max_mapnr (highest PFN + 1)", OUT_NUM, "%" PRIu64,
			    res->max_mapnr);
		out_rec_add(r, "bitmap-bytes", "each bitmap", OUT_SIZE, "%" PRIu64,
			    res->bitmap_bytes);
		out_rec_add(r, "dumped-pages", "pages dumped (2nd bitmap, a page_desc each)",
			    OUT_NUM, "%" PRIu64, res->dumped_pages);
		out_rec_add(r, "compressed-pages", "of them stored compressed", OUT_NUM,
			    "%" PRIu64, res->compressed_pages);
		out_rec_add(r, "excluded-zero", "saved pages of zeros left out (1st bitmap only)",
			    OUT_NUM, "%" PRIu64, res->excluded_zero);
		out_rec_add(r, "stored-zero", "saved pages of zeros dumped as the shared one",
			    OUT_NUM, "%" PRIu64, res->stored_zero);
		out_rec_add(r, "data-bytes", "page data", OUT_SIZE, "%" PRIu64, res->data_bytes);
	}
	if (all || f == HIB_EXPORT_ELF || f == HIB_EXPORT_KDUMP) {
		out_rec_add(r, "vmcoreinfo", "VMCOREINFO note", OUT_BOOL, "%s",
			    res->vmcoreinfo ? "true" : "false");
		if (res->vmcoreinfo)
			out_rec_add(r, "vmcoreinfo-source", "VMCOREINFO from", OUT_STR, "%s",
				    res->vmcoreinfo_source == HIB_VMCI_CALLER ? "file" : "page");
		if (res->vmcoreinfo_page)
			out_rec_add(r, "vmcoreinfo-pfn", "VMCOREINFO page (PFN)", OUT_HEX,
				    "0x%" PRIx64, res->vmcoreinfo_pfn);
	}
	if (all || f == HIB_EXPORT_ELF || f == HIB_EXPORT_KDUMP) {
		out_rec_add(r, "prstatus", "NT_PRSTATUS note (saved registers)", OUT_BOOL, "%s",
			    res->prstatus ? "true" : "false");
		if (!res->prstatus && res->prstatus_why[0])
			out_rec_add(r, "prstatus-why", "no NT_PRSTATUS note because", OUT_STR,
				    "%s", res->prstatus_why);
	}
	return r;
}

int cmd_export(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "export",
		.synopsis = "--format raw|lime|elf|kdump [options] <spec> <out>",
		.about = "Write the physical memory saved in a hibernation image to <out>: every\n"
			 "saved page at its physical address, zero-flagged pages as zeros, pages\n"
			 "the kernel did not save left out (holes in a raw image).",
		.sections = "Formats:\n"
			    " raw     byte offset = physical address, sparse\n"
			    " lime    LiME, one range per run of saved PFNs (Volatility)\n"
			    " elf     ELF core (ELF32 for i386) with VMCOREINFO (drgn, crash)\n"
			    " kdump   makedumpfile's kdump-compressed format: each page compressed,\n"
			    "         zero pages left out (crash, libkdumpfile, drgn)\n\n"
			    "<out> '-' is standard output (raw and lime); the summary is then not\n"
			    "printed. The view options (-J, -r, -P, -o, -b) shape the summary.\n",
		.common = CO_VIEW | CO_QUIET | CO_THREADS | CO_RESUME | CO_FORCE | CO_SPENT |
			  CO_PARTIAL,
		.own = export_opts,
	};
	struct hib_export_opts o = HIB_INIT(struct hib_export_opts, .format = HIB_EXPORT_RAW);
	struct hib_export_result res = HIB_INIT(struct hib_export_result);
	struct hib_image *img;
	struct out_rec *r;
	const char *fmt = NULL, *out, *kcomp = NULL, *vmci_path = NULL, *zmode = NULL;
	char *vmci = NULL;
	size_t vmci_len = 0;
	int c, rc, status;

	while ((c = cli_getopt(&cl, argc, argv)) != -1) {
		if (c == 'F')
			fmt = optarg;
		else if (c == OPT_KCOMP)
			kcomp = optarg;
		else if (c == OPT_VMCI)
			vmci_path = optarg;
		else if (c == 'z')
			zmode = optarg;
	}
	if (cl.out.list_columns) {
		/* every field a summary may have, without reading anything */
		res.vmcoreinfo = 1;
		res.vmcoreinfo_page = 1;
		r = summary("", HIB_EXPORT_ELF, &res, true);
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
	else if (!strcmp(fmt, "kdump"))
		o.format = HIB_EXPORT_KDUMP;
	else {
		warnx_("unknown format '%s'", fmt);
		errtryhelp("export");
	}
	if (kcomp) {
		enum hib_kdump_codec k;

		if (o.format != HIB_EXPORT_KDUMP)
			die_(EXIT_USAGE, "--kdump-compress is for --format kdump");
		for (k = HIB_KDUMP_ZLIB; hib_kdump_codec_name(k); k++)
			if (!strcmp(kcomp, hib_kdump_codec_name(k)))
				break;
		if (!hib_kdump_codec_name(k)) {
			warnx_("unknown kdump codec '%s' (zstd, zlib, lzo or none)", kcomp);
			errtryhelp("export");
		}
		o.kdump_codec = k;
	}
	if (zmode) {
		if (o.format != HIB_EXPORT_KDUMP)
			die_(EXIT_USAGE, "--zero-pages is for --format kdump (raw, LiME and ELF hold zero pages as zeros)");
		if (!strcmp(zmode, "omit"))
			o.kdump_zero = HIB_KDUMP_ZERO_OMIT;
		else if (!strcmp(zmode, "store"))
			o.kdump_zero = HIB_KDUMP_ZERO_STORE;
		else {
			warnx_("unknown --zero-pages mode '%s' (omit or store)", zmode);
			errtryhelp("export");
		}
	}
	if (vmci_path && o.format != HIB_EXPORT_ELF && o.format != HIB_EXPORT_KDUMP)
		die_(EXIT_USAGE, "--vmcoreinfo is for --format elf and kdump: raw and LiME have no note");
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
	o.partial = cl.partial;
	if (cl.force)
		o.output_flags |= HIB_OUTPUT_FORCE;
	if (vmci_path) {
		vmci = read_vmcoreinfo(vmci_path, &vmci_len);
		o.vmcoreinfo = vmci;
		o.vmcoreinfo_len = vmci_len;
	}

	/* raw and LiME are written in one pass of the stream: '-' may be a pipe */
	img = o.format == HIB_EXPORT_ELF || o.format == HIB_EXPORT_KDUMP ?
		open_image(argv[optind], cl.resume_offset) :
		open_input(argv[optind], cl.resume_offset);
	/* before the load: a cut copy's map names pages past its end */
	rc = cl.partial ? hib_image_set_partial(img, 1) : HIB_OK;
	if (rc == HIB_OK)
		rc = hib_image_load(img);
	if (rc == HIB_OK) {
		o.progress = progress_cb2;
		progress_begin("exporting", "entries", cl.quiet);
		rc = hib_export(img, out, &o, &res);
		progress_end();
	}
	free(vmci);
	if (rc) {
		const char *msg = input_error(img);

		/* the library names the text, the file is ours to name */
		if (vmci_path && !strncmp(msg, "the VMCOREINFO text", 19))
			die_(rc_to_exit(rc), "--vmcoreinfo %s: %s", vmci_path, msg + 4);
		die_(rc_to_exit(rc), "%s", msg);
	}
	if ((o.format == HIB_EXPORT_ELF || o.format == HIB_EXPORT_KDUMP) && !res.vmcoreinfo)
		warnx_("warning: no VMCOREINFO page in the image: %s has no VMCOREINFO note, so drgn and crash need the kernel's symbols to find their way (--vmcoreinfo gives one)",
		       out);
	status = cl.partial ? partial_status(img) : EXIT_INTACT;
	if (!strcmp(out, "-") || cl.quiet) {
		/* standard output is the export: the damage goes to stderr */
		if (!cl.quiet)
			partial_warn(img);
		hib_image_free(img);
		return status;
	}
	r = summary(out, o.format, &res, false);
	if (cl.partial) {
		/* one document: the summary's fields, then the damage table */
		partial_fields(r, img);
		out_doc_begin(&cl.out, "export");
		rc = out_rec_print(r, &cl.out, cl.out.json ? NULL : "export");
		if (!cl.out.json && !cl.out.raw && !cl.out.pairs)
			rc |= putchar('\n') == EOF;
		rc |= partial_table(img, &cl.out);
		rc |= out_doc_end();
	} else {
		rc = out_recs_print(&r, 1, &cl.out, "export");
	}
	out_rec_free(r);
	hib_image_free(img);
	return rc ? EXIT_IOERR : status;
}
