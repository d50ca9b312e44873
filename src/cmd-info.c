/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg info - what an area holds, which kernel wrote it, how it is laid out.
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

static const struct cli_opt info_opts[] = {
	{ "no-scan", no_argument, OPT_LONG + 0, NULL,
	  "do not search memory for the kernel release\nnor the swap area for slots holding data" },
	{ NULL, 0, 0, NULL, NULL }
};

/* Returns the exit status for this area; the record gets what was learned
 * before any failure. An error is said once: on standard error for people,
 * in the record (with its status) for scripts. */
static int describe(struct out_rec *r, const char *spec, uint64_t offset, int scan,
		    const struct out_opts *oo, int several)
{
	struct hib_image *img = hib_image_new();
	struct hib_identity id = HIB_INIT(struct hib_identity);
	int rc, opened = 0;

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
	if (hib_image_header(img)->kind == HIB_KIND_SPENT) {
		/* Describe the remains; damage there is a finding, not an
		 * error of this command. */
		(void)hib_image_allow_spent(img, 1);
		if (hib_image_load(img) == HIB_OK) {
			describe_info(r, img);
			if (hib_image_load_pfns(img) == HIB_OK)
				describe_pfns(r, img);
		}
		if (hib_image_error(img)[0] && strcmp(hib_image_error(img), "no error"))
			out_rec_add(r, "remains", "what is left", OUT_STR, "%s",
				    hib_image_error(img));
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
	if (scan) {
		rc = hib_image_identify(img, &id);
		if (rc)
			goto out;
		describe_identity(r, &id);
	}
	if (scan && hib_image_header(img)->resume_offset == 0) {
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
	return rc_to_exit(rc);
}

int cmd_info(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "info",
		.synopsis = "[options] [<spec>...]",
		.about = "Describe hibernation images and swap areas. A <spec> is a file, a block\n"
			 "device, or LABEL=, UUID=, PARTUUID=. Without one, the configured resume\n"
			 "device and every area libblkid reports as swsuspend are described.",
		.epilog = "Exit status: the worst of the areas' (hibimg(1), EXIT STATUS).\n",
		.common = CO_VIEW | CO_QUIET | CO_RESUME,
		.own = info_opts,
	};
	struct out_rec **recs;
	int c, scan = 1, status = EXIT_INTACT, i, n;

	while ((c = cli_getopt(&cl, argc, argv)) != -1)
		if (c == OPT_LONG + 0)
			scan = 0;

	if (optind == argc) {
		struct hib_found_list *found;
		size_t nf, k;

		if (hib_discover(&found))
			die_(EXIT_IOERR, "cannot list devices: out of memory");
		nf = hib_found_count(found);
		if (nf == 0) {
			hib_discover_free(found);
			if (cl.out.json)
				printf("{\n   \"images\": []\n}\n");
			else if (!cl.quiet && !cl.out.raw && !cl.out.pairs)
				printf("No resume device configured and no hibernation image found.\n");
			return EXIT_INTACT;
		}
		recs = calloc(nf, sizeof(*recs));
		if (!recs)
			die_(EXIT_IOERR, "out of memory");
		for (k = 0; k < nf; k++) {
			const struct hib_found *f = hib_found_get(found, k);

			recs[k] = out_rec_new();
			status = exit_worst(status, describe(recs[k], f->path, f->resume_offset,
							     scan, &cl.out, nf > 1));
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
							     n > 1));
		}
	}
	if (out_recs_print(recs, (size_t)n, &cl.out, "images"))
		status = exit_worst(status, EXIT_IOERR);
	for (i = 0; i < n; i++)
		out_rec_free(recs[i]);
	free(recs);
	return status;
}
