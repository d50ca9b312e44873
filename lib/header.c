/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * header.c - the resume page: which kind of area, which page size, and the
 * swsusp_header fields (kernel/power/swap.c) at the end of that page.
 *
 * struct swsusp_header is packed against the end of the page, and new fields
 * were always added to the left, so from the end: sig[10] @PS-10,
 * orig_sig[10] @PS-20, flags u32 @PS-24, image sector_t @PS-32,
 * crc32 u32 @PS-36 (3.2+), hw_sig u32 @PS-40 (5.17+). The rest of the page
 * still holds the swap header that mark_swapfiles() read back.
 */
#include "hibimgP.h"

#include <stdlib.h>
#include <string.h>

static const unsigned char tuxonice_magic[8] = {
	0xed, 0xc3, 0x02, 0xe9, 0x98, 0x56, 0xe5, 0x0c
};

static void copy_sig(char dst[11], const unsigned char *src)
{
	unsigned int i;

	/* Signatures are 10 bytes, not always NUL-terminated; keep them
	 * printable so a corrupt one cannot smuggle control bytes to a tty. */
	for (i = 0; i < 10; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] :
			 (src[i] == 0 ? 0 : '?');
	dst[10] = 0;
}

static void decode(struct hib_image *img, const unsigned char *pg,
		   unsigned int ps, enum hib_kind kind, bool swap)
{
	struct hib_header *h = &img->hdr;
	struct hib_layout *lay = &img->lay;
	uint32_t ver_le = (uint32_t)pg[1024] | (uint32_t)pg[1025] << 8 |
			  (uint32_t)pg[1026] << 16 | (uint32_t)pg[1027] << 24;
	unsigned int i;

	lay->ps = ps;
	lay->sector = 8;
	lay->word = 8;
	/* The swap header version is 1 in the writer's byte order; libblkid
	 * accepts both orders the same way. */
	lay->be = (ver_le == 0x01000000u);

	h->kind = kind;
	h->page_size = ps;
	h->big_endian = lay->be;
	copy_sig(h->sig, pg + ps - 10);
	copy_sig(h->orig_sig, pg + ps - 20);
	h->swap_version = (uint32_t)hib_get_word(lay, pg + 1024, 4);
	h->last_page = (uint32_t)hib_get_word(lay, pg + 1028, 4);
	h->nr_badpages = (uint32_t)hib_get_word(lay, pg + 1032, 4);
	memcpy(h->uuid, pg + 1036, 16);
	for (i = 0; i < 16; i++) {
		unsigned char c = pg[1052 + i];

		if (!c)
			break;
		h->label[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	h->label[i] = 0;

	if (img->ct && img->ct->decode_tail) {
		img->ct->decode_tail(img, pg);
		return;
	}
	h->image = hib_get_word(lay, pg + ps - 32, 8);
	h->flags = (uint32_t)hib_get_word(lay, pg + ps - 24, 4);
	h->crc32 = (uint32_t)hib_get_word(lay, pg + ps - 36, 4);
	h->hw_sig = (uint32_t)hib_get_word(lay, pg + ps - 40, 4);
	if (swap && h->image != 0)
		h->kind = HIB_KIND_SPENT;
}

int hib_header_probe(struct hib_image *img)
{
	unsigned char *pg;
	unsigned int ps;
	int rc;

	memset(&img->hdr, 0, sizeof(img->hdr));
	img->ct = NULL;
	img->hdr.resume_offset = img->resume_offset;
	img->hdr.device_size = img->devsize;
	img->hdr.kind = HIB_KIND_UNKNOWN;

	pg = malloc(HIB_MAX_PS);
	if (!pg)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");

	for (ps = HIB_MIN_PS; ps <= HIB_MAX_PS; ps <<= 1) {
		uint64_t base;
		enum hib_kind kind;
		bool swap;

		if (img->only_ps && ps != img->only_ps)
			continue;
		if (img->resume_offset > UINT64_MAX / ps)
			break;
		base = img->resume_offset * ps;
		if (base > img->devsize || img->devsize - base < ps)
			break;
		rc = hib_pread(img, pg, ps, base, "resume page");
		if (rc) {
			free(pg);
			return rc;
		}
		if (ps == HIB_MIN_PS && !memcmp(pg, tuxonice_magic, 8)) {
			img->lay.ps = ps;
			img->hdr.kind = HIB_KIND_TUXONICE;
			img->hdr.page_size = ps;
			break;
		}
		img->ct = hib_probe_signature(pg + ps - 10, &kind, &swap);
		if (kind != HIB_KIND_UNKNOWN) {
			decode(img, pg, ps, kind, swap);
			break;
		}
	}
	free(pg);
	if (img->lay.ps)
		img->devpages = img->devsize / img->lay.ps;
	return HIB_OK;
}
