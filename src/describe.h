/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef HIBIMG_DESCRIBE_H
#define HIBIMG_DESCRIBE_H
#include "common.h"
#include "output.h"

void describe_header(struct out_rec *r, const struct hib_image *img);
/* a swap file read in place: its device, extents and the resume= line
 * that resumes from it; or why a swap file was not read in place */
void describe_swapfile(struct out_rec *r, const struct hib_image *img);
void describe_info(struct out_rec *r, const struct hib_image *img);
/* suspend-utils' header and extent map, where hib_image_load() read them */
void describe_uswsusp(struct out_rec *r, const struct hib_image *img);
void describe_pfns(struct out_rec *r, const struct hib_image *img);
/* why: also say what could not be read and why (--partial, where the
 * damage may have taken it) */
void describe_kernel_id(struct out_rec *r, struct hib_image *img, int why);
void describe_identity(struct out_rec *r, const struct hib_identity *id);
/* What an area holds in a word, for the tables of find and info: readable,
 * encrypted, damaged, no-image, not-decoded (one word: -r needs no escape). */
const char *describe_state(enum hib_content content, enum hib_kind kind);
#endif
