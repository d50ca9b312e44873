/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * damage.c - the damage report the best-effort walk (salvage.c) left on
 * the image, for callers.
 */
#include "salvageP.h"

#include <string.h>

const char *hib_damage_kind_name(enum hib_damage_kind k)
{
	switch (k) {
	case HIB_DAMAGE_DECODE:    return "decode-failed";
	case HIB_DAMAGE_LENGTH:    return "length-absurd";
	case HIB_DAMAGE_CRC:       return "crc-mismatch";
	case HIB_DAMAGE_TRUNCATED: return "truncated";
	case HIB_DAMAGE_UNPLACED:  return "unplaced";
	}
	return NULL;
}

/* The walk must have run: the PFN list is read by it. */
static int walked(struct hib_image *img)
{
	if (!img->partial)
		return hib_seterr(img, HIB_ERR_INVAL, "no best-effort walk: hib_image_set_partial() first");
	return img->salv ? HIB_OK : hib_image_load_pfns(img);
}

int hib_image_damage_summary(struct hib_image *img, struct hib_damage_summary *s)
{
	int rc = HIB_ABI_SIZE(img, hib_damage_summary, s);

	if (rc == HIB_OK)
		rc = walked(img);
	if (rc == HIB_OK)
		hib_abi_out(s, &img->salv->sum);
	return rc;
}

int hib_image_damage(struct hib_image *img, uint64_t i, struct hib_damage *d)
{
	int rc = HIB_ABI_SIZE(img, hib_damage, d);

	if (rc == HIB_OK)
		rc = walked(img);
	if (rc)
		return rc;
	if (i >= img->salv->ndm)
		return hib_seterr(img, HIB_ERR_INVAL, "damage record %" PRIu64 ": there are %" PRIu64,
				  i, img->salv->ndm);
	hib_abi_out(d, &img->salv->dm[i]);
	return HIB_OK;
}

int hib_image_damage_range(struct hib_image *img, uint64_t i, uint64_t j,
			   struct hib_pfn_range *r)
{
	const struct hib_salvage *s;
	int rc = walked(img);

	if (rc)
		return rc;
	s = img->salv;
	if (i >= s->ndm || j >= s->dm[i].ranges)
		return hib_seterr(img, HIB_ERR_INVAL, "damage record %" PRIu64 " range %" PRIu64 ": none",
				  i, j);
	r->first = s->rg[s->rg_first[i] + j].first;
	r->last = s->rg[s->rg_first[i] + j].last;
	return HIB_OK;
}
