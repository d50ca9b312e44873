/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * checksum.c - the image's own checksum, asked of its container: a caller
 * compares stored and computed without knowing which container keeps what.
 */
#include "hibimgP.h"

#include <string.h>

int hib_image_checksum(struct hib_image *img, struct hib_checksum *c)
{
	struct hib_checksum full;
	int rc = HIB_ABI_SIZE(img, hib_checksum, c);

	if (rc)
		return rc;
	memset(&full, 0, sizeof(full));
	if (!img->ct || !img->ct->checksum || !img->ct->checksum(img, &full))
		return hib_seterr(img, HIB_ERR_INVAL, "no image loaded: no checksum to tell");
	hib_abi_out(c, &full);
	return HIB_OK;
}
