/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to suspend-utils' container: uswsusp.c (header page, load, MD5)
 * and uswsusp-extents.c (the extents chain). */
#ifndef _HIBIMG_USWSUSPP_H
#define _HIBIMG_USWSUSPP_H

#include "hibimgP.h"

/* uswsusp-extents.c */
/* Why byte offset off cannot be a slot of the image (not page-aligned, or
 * hib_bad_page()), or NULL. */
HIB_HIDDEN const char *hib_usw_bad_offset(const struct hib_image *img, uint64_t off);
/* Walks the chain from map_start as far as image_data_size needs, marking
 * every slot in used; fills map_pages, usw_first and the counts. */
HIB_HIDDEN int hib_usw_walk_extents(struct hib_image *img, uint8_t *used);
/* The container's map_entry and map_page. */
HIB_HIDDEN int hib_usw_map_entry(struct hib_image *img, uint64_t i, uint64_t *devpage);
HIB_HIDDEN int hib_usw_map_page(struct hib_image *img, uint64_t i, struct hib_map_page *mp);

#endif
