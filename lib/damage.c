/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * damage.c - the damage report the best-effort walk (salvage.c) left on
 * the image, for callers.
 */
#include "salvageP.h"

#include <stdio.h>
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

/* Each record's ranges ascend (finish_ranges()): a binary search in each,
 * so a log read that keeps hitting lost pages costs records x log(ranges). */
bool hib_damage_pfn(const struct hib_image *img, uint64_t pfn, char *why, size_t cap)
{
	const struct hib_salvage *s = img->salv;
	uint64_t i, unknown = 0, unplaced = 0;

	if (!s)
		return false;
	for (i = 0; i < s->ndm; i++) {
		const struct hib_damage *d = &s->dm[i];
		uint64_t lo = 0, hi = d->ranges;

		unknown += d->entries_unknown;
		unplaced += d->unplaceable;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;
			const struct sv_range *r = &s->rg[s->rg_first[i] + mid];

			if (r->last < pfn)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < d->ranges && s->rg[s->rg_first[i] + lo].first <= pfn) {
			snprintf(why, cap, "the damage took it (%s chunk %" PRIu64 " at map entry %" PRIu64 ")",
				 hib_damage_kind_name(d->kind), d->chunk, d->map_entry);
			return true;
		}
	}
	if (!unknown && !unplaced)
		return false;
	/* PFN-list pages lost: their PFNs are unknown, never guessed */
	snprintf(why, cap, "it is not among the pages recovered, and the damage took %" PRIu64 " PFN-list entries and %" PRIu64 " data pages whose PFNs are unknown: it may be one of them",
		 unknown, unplaced);
	return true;
}

bool hib_damage_lost(const struct hib_image *img)
{
	const struct hib_salvage *s = img->salv;

	return s && (s->sum.pages_lost || s->sum.stream_pages_lost);
}
