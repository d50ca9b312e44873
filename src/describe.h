/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef HIBIMG_DESCRIBE_H
#define HIBIMG_DESCRIBE_H
#include "common.h"
#include "output.h"

void describe_header(struct out_rec *r, const struct hib_image *img);
void describe_info(struct out_rec *r, const struct hib_image *img);
void describe_uswsusp(struct out_rec *r, const struct hib_image *img);
/* Did hib_image_load() return rc only because a uswsusp image's data is
 * encrypted (header and extent map read and intact)? */
int usw_encrypted_stop(const struct hib_image *img, int rc);
void describe_pfns(struct out_rec *r, const struct hib_image *img);
void describe_identity(struct out_rec *r, const struct hib_identity *id);
#endif
