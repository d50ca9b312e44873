/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * partial.h - the damage report of a best-effort read (--partial, verify
 * --all-errors), the same in every command.
 */
#ifndef HIBIMG_PARTIAL_H
#define HIBIMG_PARTIAL_H

#include <hibimg.h>
#include "output.h"

/* The walk's totals as fields of a command's record (section "Damage"). */
void partial_fields(struct out_rec *r, struct hib_image *img);
/* Every damaged chunk in one field, "damaged-chunks": CHUNK:KIND@MAP_ENTRY,
 * comma-separated (verify's records hold no tables). */
void partial_list(struct out_rec *r, struct hib_image *img);
/* The damaged chunks, one row each: table "damage". */
int partial_table(struct hib_image *img, const struct out_opts *o);
/* Each record as one warning line on standard error (where standard output
 * carries data). */
void partial_warn(struct hib_image *img);
/* EXIT_PARTIAL when the walk found damage, else EXIT_INTACT. */
int partial_status(struct hib_image *img);

#endif
