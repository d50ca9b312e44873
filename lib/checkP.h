/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The checks of hibimg check (check.c and its three stages): the result
 * they fill and the facts they share.
 */
#ifndef _CHECKP_H
#define _CHECKP_H

#include "targetP.h"

/*
 * Where in its resume the kernel makes a check: a failure at an earlier
 * stage is the one it prints, whichever row shows it.
 */
enum chk_stage {
	STAGE_LOCATION = 0,   /* systemd-hibernate-resume: where the kernel looks */
	STAGE_AVAILABLE,  /* software_resume(): noresume, hibernation_available() */
	STAGE_SIGNATURE,      /* swsusp_check(): the resume page */
	STAGE_HW_SIG,         /* swsusp_check(): SF_HW_SIG */
	STAGE_CODEC,          /* software_resume(): the decompressor (6.9+) */
	STAGE_HEADER,         /* load_header(): check_image_kernel() */
	STAGE_MEMSIZE,        /* check_header(): num_physpages */
	STAGE_META,           /* the chunks holding the PFN list decoded */
	STAGE_PFNS,           /* unpack_orig_pfns() */
	STAGE_DATA,           /* the data chunks, then the CRC */
	STAGE_NONE            /* what the kernel does not check */
};

#define CHK_MAX 16

struct chk_item {
	struct hib_check_item pub;
	enum chk_stage stage;
	char detail[640];
	char message[512];
	char missing[512];
};

struct hib_check_result {
	struct chk_item items[CHK_MAX];
	size_t n;
	enum hib_verdict verdict;
	const char *message;
	char reason[1024];
};

struct chk_ctx {
	struct hib_image *img;
	const struct hib_target *t;
	const struct hib_target_info *tin;
	const struct hib_header *h;
	const struct hib_info *in;      /* NULL when the image did not load */
	int load_rc;
	char load_err[768];
	unsigned int kver;              /* the target's, 0 unknown */
	unsigned int threads;
	struct hib_check_result *r;
	bool walked;                    /* the stream walk ran to its end */
	int io_rc;                      /* the walk could not read the image */
};

/* check-item.c */
HIB_HIDDEN struct chk_item *chk_add(struct chk_ctx *c, const char *name,
				    enum chk_stage stage, bool decides);
HIB_HIDDEN void chk_set(struct chk_item *it, enum hib_check_status st,
			const char *fmt, ...) __attribute__((format(printf, 3, 4)));
HIB_HIDDEN void chk_message(struct chk_item *it, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
HIB_HIDDEN void chk_missing(struct chk_item *it, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "the target kernel's version" and the like, with why it is missing
 * where an input was given and could not be used */
HIB_HIDDEN void chk_missing_input(struct chk_ctx *c, struct chk_item *it,
				  enum hib_tin which, const char *what);
/* the kernel's name for a codec in its messages: "lzo" (6.9+), "LZO" */
HIB_HIDDEN const char *chk_codec_word(const struct chk_ctx *c, enum hib_compression comp);

/* check-boot.c: noresume and lockdown, the resume page, SF_HW_SIG, the codec */
HIB_HIDDEN void chk_boot(struct chk_ctx *c);
/* check-efivar.c: systemd's HibernateLocation against the image's place */
HIB_HIDDEN void chk_efivar(struct chk_ctx *c);
/* check-header.c: the arch record or generic header, the memory size */
HIB_HIDDEN void chk_header(struct chk_ctx *c);
/* check-stream.c: every chunk and the CRC, the PFN list against the target */
HIB_HIDDEN void chk_stream(struct chk_ctx *c);
/* check-stream.c: how the target's decoder takes the chunk at map entry e
 * (its first page): a kernel message in msg, or "" where it takes it. */
HIB_HIDDEN int chk_kernel_chunk(struct chk_ctx *c, uint64_t e, enum hib_compression as,
				char *msg, size_t cap);

#endif
