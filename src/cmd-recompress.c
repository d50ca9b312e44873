/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg recompress - rewrite an image with another compressor, level or
 * zero-page mode, into the slots the original image occupied.
 */
#include "config.h"
#include "describe.h"
#include "options.h"
#include "progress.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_DRYRUN = OPT_LONG, OPT_UNSAFE, OPT_OVERWRITE };

static const struct cli_opt recompress_opts[] = {
	{ "to", required_argument, 't', "<codec>", "lz4, lzo or none" },
	{ "level", required_argument, 'l', "<n>",
	  "compression level (LZ4: 0 default, 1-12 LZ4HC;\n"
	  "LZO: 1 LZO1X-1, 999 LZO1X-999); default: the\n"
	  "kernel's level, harder where it must to fit" },
	{ "zero-pages", required_argument, 'z', "<mode>",
	  "keep (as the source), store (as data: < 6.6 or\n"
	  "nozerocheck), omit (flagged: 6.6+)" },
	{ "dry-run", no_argument, OPT_DRYRUN, NULL,
	  "print sizes and slot counts, write nothing" },
	{ "unsafe-extra-slots", no_argument, OPT_UNSAFE, NULL,
	  "take slots outside the old image when it does\n"
	  "not fit: those that read as zero, first" },
	{ "overwrite-swapped-out", no_argument, OPT_OVERWRITE, NULL,
	  "with --unsafe-extra-slots: also take slots\n"
	  "that hold data (swapped-out pages, probably)" },
	{ NULL, 0, 0, NULL, NULL }
};

/* "6.12.57-amd64" -> 612 (major * 100 + minor), 0 if unknown. */
static int release_code(const char *r)
{
	unsigned int ma, mi;

	return sscanf(r, "%u.%u", &ma, &mi) == 2 ? (int)(ma * 100 + mi) : 0;
}

/* Slot counts include the resume page, as info's image_slots: the
 * library counts the slots it rewrites, which leave the resume page out. */
static struct out_rec *summary(struct hib_image *img, const char *out,
			       const struct hib_recompress_opts *o,
			       const struct hib_recompress_result *res)
{
	struct out_rec *r = out_rec_new();
	char fl[128];

	out_rec_add(r, "path", "path", OUT_STR, "%s", img ? hib_image_path(img) : "");
	if (!o->dry_run)
		out_rec_add(r, "output", "output", OUT_STR, "%s", out);
	out_rec_add(r, "dry-run", "dry run (nothing written)", OUT_BOOL, "%s",
		    o->dry_run ? "true" : "false");
	out_rec_add(r, "compression", "compression", OUT_STR, "%s",
		    hib_compression_name(o->to));
	out_rec_add(r, "flags", "flags", OUT_HEX, "0x%x", res->flags);
	out_rec_add(r, "flag-names", "flag names", OUT_STR, "%s",
		    flags_string(res->flags, fl, sizeof(fl)));
	if (o->to != HIB_COMP_NONE) {
		out_rec_add(r, "level", "level", OUT_NUM, "%d", res->level_default);
		out_rec_add(r, "level-max", "hardest level used", OUT_NUM, "%d", res->level_max);
		out_rec_add(r, "chunks", "chunks", OUT_NUM, "%" PRIu64, res->chunks);
		out_rec_add(r, "chunks-harder", "chunks at a harder level", OUT_NUM,
			    "%" PRIu64, res->chunks_harder);
		out_rec_add(r, "compressed-bytes", "compressed bytes", OUT_SIZE, "%" PRIu64,
			    res->cmp_bytes);
	}
	out_rec_add(r, "stream-pages", "stream pages", OUT_NUM, "%" PRIu64, res->stream_pages);
	out_rec_add(r, "image-pages", "image pages", OUT_NUM, "%" PRIu64, res->image_pages);
	out_rec_add(r, "zero-flagged", "zero-flagged pages", OUT_NUM, "%" PRIu64,
		    res->zero_flagged);
	out_rec_add(r, "image-slots", "image slots (incl. resume page)", OUT_NUM,
		    "%" PRIu64, res->slots_source + 1);
	out_rec_add(r, "new-image-slots", "slots of the new image (incl. resume page)",
		    OUT_NUM, "%" PRIu64, res->slots_needed + 1);
	out_rec_add(r, "slots-free", "slots of the source image left free", OUT_NUM,
		    "%" PRIu64,
		    res->slots_needed < res->slots_source ? res->slots_source - res->slots_needed : 0);
	out_rec_add(r, "slots-extra", "slots taken outside the source image", OUT_NUM,
		    "%" PRIu64, res->slots_extra);
	out_rec_add(r, "slots-extra-zero", "of them read as zero", OUT_NUM,
		    "%" PRIu64, res->slots_extra_zero);
	out_rec_add(r, "slots-extra-data", "of them held data (swapped out?)", OUT_NUM,
		    "%" PRIu64, res->slots_extra_data);
	if (!o->dry_run && (res->flags & HIB_SF_CRC32_MODE)) {
		out_rec_add(r, "crc32", "crc32", OUT_HEX, "0x%08x", res->crc32);
		out_rec_add(r, "crc32-compared", "CRC checked equal to the source's", OUT_BOOL,
			    "%s", res->crc_compared ? "true" : "false");
	}
	out_rec_add(r, "needs-kernel", "resumes on kernels >=", OUT_STR, "%s",
		    res->needs_kernel ? res->needs_kernel : "");
	return r;
}

int cmd_recompress(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "recompress",
		.synopsis = "--to lz4|lzo|none [options] <spec> <out>\n"
			    " hibimg recompress --to lz4|lzo|none --dry-run [options] <spec>",
		.about = "Rewrite a hibernation image into a copy of its swap area. The new image\n"
			 "takes only the slots the old one occupied, so pages the hibernated system\n"
			 "had swapped out stay where its processes will look for them.",
		.epilog = "The view options (-J, -r, -P, -o, -b) shape the summary.\n",
		.common = CO_VIEW | CO_QUIET | CO_THREADS | CO_RESUME | CO_FORCE | CO_DEVICE,
		.own = recompress_opts,
	};
	struct hib_recompress_opts o = HIB_INIT(struct hib_recompress_opts,
					      .to = HIB_COMP_NONE, .level = HIB_LEVEL_AUTO);
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	struct out_rec *r;
	struct hib_image *img;
	struct hib_identity id = HIB_INIT(struct hib_identity);
	const char *out = NULL;
	int c, rc, have_to = 0, need;

	while ((c = cli_getopt(&cl, argc, argv)) != -1) {
		switch (c) {
		case 't':
			have_to = 1;
			if (!strcmp(optarg, "lz4"))
				o.to = HIB_COMP_LZ4;
			else if (!strcmp(optarg, "lzo"))
				o.to = HIB_COMP_LZO;
			else if (!strcmp(optarg, "none"))
				o.to = HIB_COMP_NONE;
			else
				die_(EXIT_USAGE, "unknown compressor '%s' (lz4, lzo, none)", optarg);
			break;
		case 'l': o.level = (int)parse_u64(optarg, "level"); break;
		case 'z':
			if (!strcmp(optarg, "keep"))
				o.zero = HIB_ZERO_KEEP;
			else if (!strcmp(optarg, "store"))
				o.zero = HIB_ZERO_STORE;
			else if (!strcmp(optarg, "omit"))
				o.zero = HIB_ZERO_OMIT;
			else
				die_(EXIT_USAGE, "unknown zero-page mode '%s' (keep, store, omit)", optarg);
			break;
		case OPT_DRYRUN: o.dry_run = 1; break;
		case OPT_UNSAFE: o.unsafe_extra_slots = 1; break;
		case OPT_OVERWRITE: o.overwrite_swapped_out = 1; break;
		}
	}
	if (cl.out.list_columns) {
		/* every field a summary may have, without reading anything */
		o.to = HIB_COMP_LZ4;
		res.flags = HIB_SF_CRC32_MODE;
		r = summary(NULL, "", &o, &res);
		rc = out_recs_print(&r, 1, &cl.out, "recompress");
		out_rec_free(r);
		return rc ? EXIT_IOERR : EXIT_INTACT;
	}
	if (!have_to) {
		warnx_("--to is required");
		errtryhelp("recompress");
	}
	if (o.overwrite_swapped_out && !o.unsafe_extra_slots)
		die_(EXIT_USAGE, "--overwrite-swapped-out goes with --unsafe-extra-slots");
	if (o.level != HIB_LEVEL_AUTO &&
	    ((o.to == HIB_COMP_LZ4 && o.level > 12) ||
	     (o.to == HIB_COMP_LZO && o.level != 1 && o.level != 999)))
		die_(EXIT_USAGE, "level %d is not one of %s", o.level,
		     o.to == HIB_COMP_LZ4 ? "0-12" : "1, 999");
	need = o.dry_run ? 1 : 2;
	if (argc - optind != need) {
		warnx_(argc - optind < need ? "missing argument" : "too many arguments");
		errtryhelp("recompress");
	}
	if (!o.dry_run)
		out = argv[optind + 1];
	o.threads = cl.threads;
	o.device = cl.device;
	if (cl.force)
		o.output_flags |= HIB_OUTPUT_FORCE;

	img = open_image(argv[optind], cl.resume_offset);
	rc = hib_image_load(img);
	if (rc == HIB_OK) {
		/* the library names its passes: sizing (harder, mix), writing */
		o.progress = progress_cb;
		progress_begin("sizing", "pages", cl.quiet);
		rc = hib_recompress(img, out, &o, &res);
		progress_end();
	}
	if (rc)
		die_(rc_to_exit(rc), "%s", hib_image_error(img));

	if (!cl.quiet) {
		r = summary(img, out, &o, &res);
		rc = out_recs_print(&r, 1, &cl.out, "recompress");
		out_rec_free(r);
		if (rc)
			die_(EXIT_IOERR, "cannot print the summary");
	}
	if (hib_image_identify(img, &id) == HIB_OK && id.release[0]) {
		if (release_code(id.release) < release_code(res.needs_kernel))
			warnx_("warning: the new image needs a kernel >= %s to resume; it was written by %s",
			       res.needs_kernel, id.release);
	} else {
		warnx_("warning: the source kernel is unknown; the new image needs >= %s",
		       res.needs_kernel);
	}
	if (res.slots_extra_data)
		warnx_("warning: %" PRIu64 " slots outside the source image %s (--unsafe-extra-slots): %" PRIu64
		       " read as zero, %" PRIu64 " held data, probably pages the hibernated system had swapped out: %s (--overwrite-swapped-out)",
		       res.slots_extra, o.dry_run ? "would be used" : "were used",
		       res.slots_extra_zero, res.slots_extra_data,
		       o.dry_run ? "they would be overwritten" : "overwritten");
	else if (res.slots_extra)
		warnx_("warning: %" PRIu64 " slots outside the source image %s (--unsafe-extra-slots), all read as zero: %s (unless one held a swapped-out page of zeros)",
		       res.slots_extra, o.dry_run ? "would be used" : "were used",
		       o.dry_run ? "no data would be overwritten" : "no data overwritten");
	hib_image_free(img);
	return EXIT_INTACT;
}
