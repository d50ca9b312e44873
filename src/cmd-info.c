/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg info - what an area holds, which kernel wrote it, how it is laid out.
 */
#include "config.h"
#include "describe.h"
#include "input.h"
#include "options.h"
#include "partial.h"
#include "progress.h"

#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_opt info_opts[] = {
	{ "no-scan", no_argument, OPT_LONG + 0, NULL,
	  "do not search memory for the kernel release\nnor the swap area for slots holding data" },
	{ "sysroot", required_argument, OPT_LONG + 1, "<dir>",
	  "without <spec>: read /sys and /proc under <dir>\n(a copy of a machine's), not this machine's" },
	{ NULL, 0, 0, NULL, NULL }
};

/* Without a spec: one line per area of this machine, lsblk-style. */
enum { A_DEVICE, A_KIND, A_RELEASE, A_COMP, A_SIZE, A_STATE, A_ROFF, A_SOURCE,
       A_DEVSIZE, A_SWAPUSED, A_PROBLEM };

static const char *sources(unsigned int s, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s%s%s", s & HIB_FOUND_RESUME ? "resume" : "",
		 (s & HIB_FOUND_RESUME) && (s & ~HIB_FOUND_RESUME) ? "," : "",
		 s & HIB_FOUND_SWAPS ? "swaps" : "",
		 (s & HIB_FOUND_SWAPS) && (s & HIB_FOUND_BLKID) ? "," : "",
		 s & HIB_FOUND_BLKID ? "blkid" : "");
	return buf;
}

/* One area's line; returns its exit status (an area that cannot be read
 * or is damaged counts, as for a spec), *image whether it holds one. */
static int area_line(struct libscols_table *tb, const struct hib_found *f, int scan,
		     int *image)
{
	struct hib_image *img = hib_image_new();
	const struct hib_header *h;
	char buf[64];
	struct libscols_line *ln = out_table_line(tb);
	int rc;

	if (!img)
		die_(EXIT_IOERR, "out of memory");
	out_cell(ln, A_DEVICE, "%s", f->path);
	out_cell(ln, A_ROFF, "%" PRIu64, f->resume_offset);
	out_cell(ln, A_SOURCE, "%s", sources(f->sources, buf, sizeof(buf)));
	if (f->sources & HIB_FOUND_SWAPS)
		out_cell(ln, A_SWAPUSED, "%" PRIu64, f->swap_used);
	if (f->resume_offset)
		(void)hib_image_set_resume_offset(img, f->resume_offset);
	rc = input_open(img, f->path, 0);
	if (rc) {
		out_cell(ln, A_STATE, "%s", "unreadable");
		out_cell(ln, A_PROBLEM, "%s", input_error(img));
		warnx_("%s", input_error(img));
		hib_image_free(img);
		return rc_to_exit(rc);
	}
	h = hib_image_header(img);
	out_cell(ln, A_KIND, "%s", hib_kind_name(h->kind));
	out_cell(ln, A_DEVSIZE, "%" PRIu64, h->device_size);
	/* what a resume attempt left is worth seeing here too */
	(void)hib_image_allow_spent(img, 1);
	rc = hib_image_content(img) == HIB_CONTENT_NONE ? HIB_OK : hib_image_load(img);
	out_cell(ln, A_STATE, "%s", describe_state(hib_image_content(img), h->kind));
	*image = h->kind != HIB_KIND_SWAP && h->kind != HIB_KIND_UNKNOWN;
	if (rc == HIB_OK && hib_image_content(img) == HIB_CONTENT_READABLE) {
		const struct hib_info *in = hib_image_info(img);
		struct hib_identity id = HIB_INIT(struct hib_identity);

		out_cell(ln, A_COMP, "%s", hib_compression_name(in->compression));
		out_cell(ln, A_SIZE, "%" PRIu64, in->size);
		if (scan && hib_image_load_pfns(img) == HIB_OK &&
		    hib_image_identify(img, &id) == HIB_OK && id.release[0])
			out_cell(ln, A_RELEASE, "%s", id.release);
	} else if (rc && hib_image_content(img) != HIB_CONTENT_ENCRYPTED) {
		out_cell(ln, A_PROBLEM, "%s", hib_image_error(img));
		warnx_("%s", hib_image_error(img));
	}
	if (hib_image_content(img) == HIB_CONTENT_ENCRYPTED)
		rc = HIB_OK;    /* described, as info does for a spec */
	hib_image_free(img);
	return rc_to_exit(rc);
}

/* Why nothing here holds an image, in the order a person checks it. */
static void no_image_reason(const struct hib_discover_info *di, size_t areas,
			    int resume_listed, char *buf, size_t cap)
{
	unsigned int maj = 0, min = 0;
	int set = sscanf(di->resume_dev, "%u:%u", &maj, &min) == 2 && (maj || min);

	if (!di->have_resume)
		snprintf(buf, cap, "no /sys/power/resume: this kernel cannot hibernate (CONFIG_HIBERNATION is off)%s",
			 areas ? "; the swap areas hold no image" : "");
	else if (!set && !di->cmdline_resume[0])
		snprintf(buf, cap, "no resume device configured (/sys/power/resume is %s, no resume= on the kernel command line)%s",
			 di->resume_dev, areas ? "; the swap areas hold no image" : "");
	else if (!set)
		snprintf(buf, cap, "resume=%s is on the kernel command line but /sys/power/resume is %s: the device was not found at boot%s",
			 di->cmdline_resume, di->resume_dev,
			 areas ? "; the swap areas hold no image" : "");
	else if (!resume_listed)
		snprintf(buf, cap, "the resume device %s (/sys/power/resume) has no device node here%s",
			 di->resume_dev, areas ? "; the swap areas hold no image" : "");
	else if (areas)
		snprintf(buf, cap, "%zu area%s found, none holds a hibernation image",
			 areas, areas == 1 ? "" : "s");
	else
		snprintf(buf, cap, "the resume device %s holds no hibernation image", di->resume_dev);
}

static int areas_view(const struct hib_found_list *found, struct cli *cl, int scan)
{
	const struct hib_discover_info *di = hib_found_info(found);
	size_t n = hib_found_count(found), k;
	struct libscols_table *tb;
	struct out_rec *r = out_rec_new();
	int status = EXIT_INTACT, images = 0, people, resume_listed = 0;
	char why[512];

	people = !cl->out.json && !cl->out.raw && !cl->out.pairs && !cl->out.list_columns;
	out_doc_begin(&cl->out, "machine");
	tb = out_table_new(&cl->out, "areas");
	out_table_col(tb, "DEVICE", OUT_STR);
	out_table_col(tb, "KIND", OUT_STR);
	out_table_col(tb, "RELEASE", OUT_STR);
	out_table_col(tb, "COMPRESSION", OUT_STR);
	out_table_col(tb, "SIZE", OUT_SIZE);
	out_table_col(tb, "STATE", OUT_STR);
	out_table_col_flags(tb, "RESUME-OFFSET", OUT_NUM, OUT_COL_EXTRA);
	out_table_col_flags(tb, "SOURCE", OUT_STR, OUT_COL_EXTRA);
	out_table_col_flags(tb, "DEVICE-SIZE", OUT_SIZE, OUT_COL_EXTRA);
	out_table_col_flags(tb, "SWAP-USED", OUT_SIZE, OUT_COL_EXTRA);
	out_table_col_flags(tb, "PROBLEM", OUT_STR, OUT_COL_EXTRA | OUT_COL_TRUNC);
	for (k = 0; k < n; k++) {
		const struct hib_found *f = hib_found_get(found, k);
		int image = 0;

		status = exit_worst(status, area_line(tb, f, scan, &image));
		images += image;
		resume_listed |= (f->sources & HIB_FOUND_RESUME) != 0;
	}
	why[0] = 0;
	if (!images)
		no_image_reason(di, n, resume_listed, why, sizeof(why));
	if (n || !people) {
		if (out_table_print(tb))
			status = exit_worst(status, EXIT_IOERR);
	} else
		out_table_free(tb);
	out_rec_add(r, "hibernation", "hibernation support (/sys/power/resume)", OUT_BOOL,
		    "%s", di->have_resume ? "true" : "false");
	out_rec_add(r, "resume-device", "/sys/power/resume", OUT_STR, "%s", di->resume_dev);
	out_rec_add(r, "cmdline-resume", "resume= of the kernel command line", OUT_STR, "%s",
		    di->cmdline_resume);
	if (why[0])
		out_rec_add(r, "no-image-reason", "why no image", OUT_STR, "%s", why);
	if (!people) {
		if (cl->out.json)
			(void)out_rec_print(r, &cl->out, NULL);
	} else if (why[0] && !cl->quiet) {
		printf("%sNo hibernation image: %s.\n", n && !cl->out.noheadings ? "\n" : "", why);
	}
	out_rec_free(r);
	if (out_doc_end())
		status = exit_worst(status, EXIT_IOERR);
	return status;
}

/* Returns the exit status for this area; the record gets what was learned
 * before any failure. An error is said once: on standard error for people,
 * in the record (with its status) for scripts. */
static int describe(struct out_rec *r, const char *spec, uint64_t offset, int scan,
		    const struct out_opts *oo, int several, int partial)
{
	struct hib_image *img = hib_image_new();
	struct hib_identity id = HIB_INIT(struct hib_identity);
	int rc, opened = 0, status = EXIT_INTACT;

	if (!img)
		die_(EXIT_IOERR, "out of memory");
	if (offset)
		(void)hib_image_set_resume_offset(img, offset);
	rc = input_open(img, spec, 0);
	if (rc) {
		if (oo->json || oo->raw || oo->pairs)
			out_rec_add(r, "path", "path", OUT_STR, "%s", spec);
		goto out;
	}
	opened = 1;
	describe_header(r, img);
	describe_swapfile(r, img);
	if (hib_image_header(img)->kind == HIB_KIND_SPENT) {
		/* Describe the remains; damage there is a finding, not an
		 * error of this command. */
		(void)hib_image_allow_spent(img, 1);
		if (hib_image_load(img) == HIB_OK) {
			describe_info(r, img);
			if (hib_image_load_pfns(img) == HIB_OK) {
				describe_pfns(r, img);
				/* which kernel wrote it: the question after a
				 * failed resume */
				if (scan && hib_image_identify(img, &id) == HIB_OK)
					describe_identity(r, &id);
			}
		}
		if (hib_image_error(img)[0] && strcmp(hib_image_error(img), "no error"))
			out_rec_add(r, "remains", "what is left", OUT_STR, "%s",
				    hib_image_error(img));
		/* after the remains: its reads leave messages of their own */
		if (scan && id.have_vmcoreinfo)
			describe_kernel_id(r, img, 0);
		goto out;
	}
	/* Describing a swap area or a foreign image is a success; a file
	 * system is named, with where its swap file's image would be. */
	if (hib_image_fs_type(img)) {
		out_rec_add(r, "fs-type", "file system (libblkid)", OUT_STR, "%s",
			    hib_image_fs_type(img));
		if (hib_image_fs_uuid(img))
			out_rec_add(r, "fs-uuid", "file system UUID", OUT_STR, "%s",
				    hib_image_fs_uuid(img));
		out_rec_add(r, "hint", "hint", OUT_STR, "%s", input_hint(img));
	}
	if (hib_image_content(img) == HIB_CONTENT_NONE)
		goto out;
	/* before the load: a cut copy's map names pages past its end */
	rc = partial ? hib_image_set_partial(img, 1) : HIB_OK;
	if (rc == HIB_OK)
		rc = hib_image_load(img);
	/* a container's own header and map, read even where its content
	 * cannot be */
	describe_uswsusp(r, img);
	if (hib_image_content(img) == HIB_CONTENT_ENCRYPTED) {
		/* Describing it is a success; its content is not ours. */
		out_rec_add(r, "content", "content", OUT_STR, "%s",
			    "encrypted: swsusp_info, PFN list and memory cannot be read without the key");
		rc = HIB_OK;
		goto out;
	}
	if (rc)
		goto out;
	describe_info(r, img);
	rc = hib_image_load_pfns(img);
	if (rc)
		goto out;
	describe_pfns(r, img);
	if (partial) {
		/* what follows is what the damage left */
		partial_fields(r, img);
		if (!oo->quiet)
			partial_warn(img);
		status = partial_status(img);
	}
	if (scan) {
		rc = hib_image_identify(img, &id);
		if (rc)
			goto out;
		describe_identity(r, &id);
		/* best effort: where the VMCOREINFO page went, said */
		if (id.have_vmcoreinfo || partial)
			describe_kernel_id(r, img, partial);
	}
	/* a swap file's slots are known in place, not from a device and -R */
	if (scan && (hib_image_header(img)->resume_offset == 0 || hib_image_swapfile(img))) {
		struct hib_slot_usage su = HIB_INIT(struct hib_slot_usage);

		progress_begin("scanning the area", "slots", oo->quiet);
		hib_image_set_progress(img, progress_keep, NULL);
		rc = hib_image_slot_usage(img, &su);
		progress_end();
		if (rc)
			goto out;
		out_rec_section(r, "Swap slots");
		out_rec_add(r, "area-slots", "slots in the area", OUT_NUM, "%" PRIu64,
			    su.area_pages);
		out_rec_add(r, "image-slots", "image slots (incl. resume page)",
			    OUT_NUM, "%" PRIu64, su.image_slots);
		/* Pages swapped out before hibernation: evidence the image lacks. */
		out_rec_add(r, "foreign-slots", "other slots holding data", OUT_NUM,
			    "%" PRIu64, su.foreign_data);
		if (su.foreign_data)
			out_rec_add(r, "first-foreign-slot", "first of them", OUT_NUM,
				    "%" PRIu64, su.first_foreign);
	}
out:
	if (rc) {
		if (oo->json || oo->raw || oo->pairs) {
			out_rec_add(r, "status", "status", OUT_STR, "%s",
				    exit_name(rc_to_exit(rc)));
			out_rec_add(r, "error", "error", OUT_STR, "%s", input_error(img));
		}
		/* a failed open names the spec already */
		if (several && opened)
			warnx_("%s: %s", hib_image_path(img), input_error(img));
		else
			warnx_("%s", input_error(img));
	}
	hib_image_free(img);
	return exit_worst(status, rc_to_exit(rc));
}

int cmd_info(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "info",
		.synopsis = "[options] [<spec>...]",
		.about = "Describe hibernation images and swap areas. A <spec> is a file, a block\n"
			 "device, or LABEL=, UUID=, PARTUUID=. Without one, one line per area of this\n"
			 "machine: the configured resume device, the active swap areas and what\n"
			 "libblkid reports as swsuspend, and why none holds an image if so; -v\n"
			 "describes each area in full. A swap file is read in place, from its\n"
			 "device: info prints the resume=UUID=... resume_offset=N line that\n"
			 "resumes from it.",
		.epilog = "Exit status: the worst of the areas' (hibimg(1), EXIT STATUS); with\n"
			  "--partial 5 where damage was found, what it left described.\n",
		.common = CO_VIEW | CO_QUIET | CO_RESUME | CO_VERBOSE | CO_PARTIAL,
		.own = info_opts,
	};
	struct out_rec **recs;
	const char *root = NULL;
	int c, scan = 1, status = EXIT_INTACT, i, n;

	while ((c = cli_getopt(&cl, argc, argv)) != -1)
		if (c == OPT_LONG + 0)
			scan = 0;
		else if (c == OPT_LONG + 1)
			root = optarg;

	if (root && optind < argc)
		die_(EXIT_USAGE, "--sysroot reads a machine's areas: it takes no <spec>");
	if (optind >= argc) {
		struct hib_found_list *found;
		size_t nf, k;

		struct stat st;

		if (root && stat(root, &st))
			die_(EXIT_IOERR, "--sysroot %s: %s", root, strerror(errno));
		if (root && !S_ISDIR(st.st_mode))
			die_(EXIT_IOERR, "--sysroot %s: not a directory", root);
		if (hib_discover_root(root, &found))
			die_(EXIT_IOERR, "cannot list devices: out of memory");
		/* the old record per area, for those who read it */
		if (!cl.verbose) {
			status = areas_view(found, &cl, scan);
			hib_discover_free(found);
			return status;
		}
		nf = hib_found_count(found);
		if (nf == 0) {
			char why[512];

			no_image_reason(hib_found_info(found), 0, 0, why, sizeof(why));
			hib_discover_free(found);
			if (cl.out.json)
				printf("{\n   \"images\": []\n}\n");
			else if (!cl.quiet && !cl.out.raw && !cl.out.pairs)
				printf("No hibernation image: %s.\n", why);
			return EXIT_INTACT;
		}
		recs = calloc(nf, sizeof(*recs));
		if (!recs)
			die_(EXIT_IOERR, "out of memory");
		for (k = 0; k < nf; k++) {
			const struct hib_found *f = hib_found_get(found, k);

			recs[k] = out_rec_new();
			status = exit_worst(status, describe(recs[k], f->path, f->resume_offset,
							     scan, &cl.out, nf > 1, cl.partial));
		}
		n = (int)nf;
		hib_discover_free(found);
	} else {
		n = argc - optind;
		recs = calloc((size_t)n, sizeof(*recs));
		if (!recs)
			die_(EXIT_IOERR, "out of memory");
		for (i = 0; i < n; i++) {
			recs[i] = out_rec_new();
			status = exit_worst(status, describe(recs[i], argv[optind + i],
							     cl.resume_offset, scan, &cl.out,
							     n > 1, cl.partial));
		}
	}
	if (out_recs_print(recs, (size_t)n, &cl.out, "images"))
		status = exit_worst(status, EXIT_IOERR);
	for (i = 0; i < n; i++)
		out_rec_free(recs[i]);
	free(recs);
	return status;
}
