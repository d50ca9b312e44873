/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg recompress - rewrite an image with another compressor, level or
 * zero-page mode, into the slots the original image occupied.
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
	printf("Usage:\n hibimg recompress --to lz4|lzo|none [options] <spec> <out>\n"
	       " hibimg recompress --to lz4|lzo|none --dry-run [options] <spec>\n\n");
	printf("Rewrite a hibernation image into a copy of its swap area. The new image\n"
	       "takes only the slots the old one occupied, so pages the hibernated system\n"
	       "had swapped out stay where its processes will look for them.\n\n");
	printf("Options:\n"
	       " -t, --to <codec>           lz4, lzo or none\n"
	       " -l, --level <n>            compression level (LZ4: 0 default, 1-12 LZ4HC;\n"
	       "                              LZO: 1 LZO1X-1, 999 LZO1X-999); default: the\n"
	       "                              kernel's level, harder where it must to fit\n"
	       " -z, --zero-pages <mode>    keep (as the source), store (as data: < 6.6 or\n"
	       "                              nozerocheck), omit (flagged: 6.6+)\n"
	       " -n, --dry-run              print sizes and slot counts, write nothing\n"
	       "     --unsafe-extra-slots   take slots outside the old image when it does\n"
	       "                              not fit: those that read as zero, first\n"
	       "     --overwrite-swapped-out  with --unsafe-extra-slots: also take slots\n"
	       "                              that hold data (swapped-out pages, probably)\n"
	       USAGE_FORCE_OPTION
	       USAGE_DEVICE_OPTION
	       " -T, --threads <n>          threads to use (default: online CPUs)\n"
	       " -J, --json                 use JSON output format\n"
	       " -R, --resume-offset <pages> the resume page is not page 0 (swap file)\n"
	       USAGE_HELP_OPTIONS);
	printf("\nSee hibimg-recompress(1).\n");
	exit(EXIT_SUCCESS);
}

static void progress(const char *phase, uint64_t done, uint64_t total, void *arg)
{
	(void)arg;
	fprintf(stderr, "\rhibimg: %-14s %3u%%", phase,
		total ? (unsigned)(done * 100 / total) : 100);
	if (done == total)
		fputc('\n', stderr);
}

/* "6.12.57-amd64" -> 612 (major * 100 + minor), 0 if unknown. */
static int release_code(const char *r)
{
	unsigned int ma, mi;

	return sscanf(r, "%u.%u", &ma, &mi) == 2 ? (int)(ma * 100 + mi) : 0;
}

int cmd_recompress(int argc, char **argv)
{
	enum { OPT_UNSAFE = 256, OPT_DEVICE, OPT_OVERWRITE };
	static const struct option longopts[] = {
		{ "to",                 required_argument, NULL, 't' },
		{ "level",              required_argument, NULL, 'l' },
		{ "zero-pages",         required_argument, NULL, 'z' },
		{ "dry-run",            no_argument,       NULL, 'n' },
		{ "unsafe-extra-slots", no_argument,       NULL, OPT_UNSAFE },
		{ "overwrite-swapped-out", no_argument,    NULL, OPT_OVERWRITE },
		{ "device",             no_argument,       NULL, OPT_DEVICE },
		{ "force",              no_argument,       NULL, 'f' },
		{ "threads",            required_argument, NULL, 'T' },
		{ "json",               no_argument,       NULL, 'J' },
		{ "resume-offset",      required_argument, NULL, 'R' },
		{ "help",               no_argument,       NULL, 'h' },
		{ "version",            no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct hib_recompress_opts o = HIB_INIT(struct hib_recompress_opts,
					      .to = HIB_COMP_NONE, .level = HIB_LEVEL_AUTO);
	struct hib_recompress_result res = HIB_INIT(struct hib_recompress_result);
	struct out_opts oo = { 0 };
	struct out_rec *r;
	struct hib_image *img;
	struct hib_identity id = HIB_INIT(struct hib_identity);
	const char *out = NULL;
	char fl[128];
	uint64_t offset = 0;
	int c, rc, have_to = 0, need;

	while ((c = getopt_long(argc, argv, "t:l:z:nfT:JR:hV", longopts, NULL)) != -1) {
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
		case 'n': o.dry_run = 1; break;
		case OPT_UNSAFE: o.unsafe_extra_slots = 1; break;
		case OPT_OVERWRITE: o.overwrite_swapped_out = 1; break;
		case OPT_DEVICE: o.device = 1; break;
		case 'f': o.output_flags |= HIB_OUTPUT_FORCE; break;
		case 'T': o.threads = (unsigned)parse_u64(optarg, "thread count"); break;
		case 'J': oo.json = 1; break;
		case 'R': offset = parse_u64(optarg, "resume offset"); break;
		case 'h': usage();
		case 'V': print_version();
		default: errtryhelp("recompress");
		}
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
	if (isatty(STDERR_FILENO)) {
		o.progress = progress;
	}

	img = open_image(argv[optind], offset);
	rc = hib_image_load(img);
	if (rc == HIB_OK)
		rc = hib_recompress(img, out, &o, &res);
	if (rc) {
		warnx_("%s", hib_image_error(img));
		hib_image_free(img);
		return rc_to_exit(rc);
	}

	r = out_rec_new();
	out_rec_add(r, "input", "input", OUT_STR, "%s", hib_image_path(img));
	out_rec_add(r, "output", "output", OUT_STR, "%s", out ? out : "(dry run)");
	out_rec_add(r, "compression", "compression", OUT_STR, "%s",
		    hib_compression_name(o.to));
	out_rec_add(r, "flags", "flags", OUT_STR, "0x%x (%s)", res.flags,
		    flags_string(res.flags, fl, sizeof(fl)));
	if (o.to != HIB_COMP_NONE) {
		out_rec_add(r, "level-default", "level", OUT_NUM, "%d", res.level_default);
		out_rec_add(r, "level-max", "hardest level used", OUT_NUM, "%d", res.level_max);
		out_rec_add(r, "chunks", "chunks", OUT_NUM, "%" PRIu64, res.chunks);
		out_rec_add(r, "chunks-harder", "chunks at a harder level", OUT_NUM,
			    "%" PRIu64, res.chunks_harder);
		out_rec_add(r, "compressed-bytes", "compressed bytes", OUT_NUM, "%" PRIu64,
			    res.cmp_bytes);
	}
	out_rec_add(r, "stream-pages", "stream pages", OUT_NUM, "%" PRIu64, res.stream_pages);
	out_rec_add(r, "image-pages", "image pages", OUT_NUM, "%" PRIu64, res.image_pages);
	out_rec_add(r, "zero-pages", "zero-flagged pages", OUT_NUM, "%" PRIu64,
		    res.zero_flagged);
	out_rec_add(r, "slots-before", "slots of the source image", OUT_NUM, "%" PRIu64,
		    res.slots_source);
	out_rec_add(r, "slots-after", "slots of the new image", OUT_NUM, "%" PRIu64,
		    res.slots_needed);
	out_rec_add(r, "slots-free", "source slots left free", OUT_NUM, "%" PRIu64,
		    res.slots_needed < res.slots_source ? res.slots_source - res.slots_needed : 0);
	out_rec_add(r, "slots-extra", "slots taken outside the source", OUT_NUM,
		    "%" PRIu64, res.slots_extra);
	out_rec_add(r, "slots-extra-zero", "of them read as zero", OUT_NUM,
		    "%" PRIu64, res.slots_extra_zero);
	out_rec_add(r, "slots-extra-data", "of them held data (swapped out?)", OUT_NUM,
		    "%" PRIu64, res.slots_extra_data);
	if (!o.dry_run && (res.flags & HIB_SF_CRC32_MODE)) {
		out_rec_add(r, "crc32", "crc32", OUT_STR, "0x%08x", res.crc32);
		out_rec_add(r, "crc32-same", "CRC equal to the source's", OUT_STR, "%s",
			    res.crc_compared ? "yes" : "not comparable (stream changed)");
	}
	out_rec_add(r, "needs-kernel", "resumes on kernels", OUT_STR, ">= %s",
		    res.needs_kernel);
	out_recs_print(&r, 1, &oo, "recompress");
	out_rec_free(r);

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
