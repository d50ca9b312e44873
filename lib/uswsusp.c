/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uswsusp.c - suspend-utils' userspace image (s2disk/s2both, "ULSUSPEND").
 *
 * s2disk reads the kernel's snapshot stream from /dev/snapshot and writes it
 * into swap itself, in its own container (suspend-utils swsusp.h, suspend.c
 * write_image(), load.c read_or_verify_image()):
 *
 *   resume page: packed { loff_t image; char orig_sig[10], sig[10]; } at
 *     PS-28; image is the byte offset of the header page.
 *   header page: struct image_header_info { unsigned long pages; u32 flags;
 *     loff_t map_start; loff_t image_data_size; u8 checksum[16]; ... }, LP64
 *     offsets 0/8/16/24/32. What follows depends on how s2disk was built:
 *     double writeout_time and int resume_pause at 48/56, or, with
 *     CONFIG_ENCRYPT, salt[8] @48, struct RSA_data @56, struct encrypted_key
 *     @3160, writeout_time @3680, resume_pause @3688 (encrypt.h sizes).
 *   extents pages: struct extent { loff_t start, end; } (byte offsets, end
 *     exclusive) filling the page; the last slot's start is the next extents
 *     page (0: none). Data pages are read in extent order, and an extent with
 *     start >= end ends the page's list.
 *   data: the stream (swsusp_info, PFN list, data pages: pages in all) in
 *     buffers of 32 pages, each raw or LZO1X-1 compressed as
 *     { size_t size; data[size] } over whole pages, then optionally every
 *     data page Blowfish-CFB encrypted as one stream. The MD5 covers the
 *     uncompressed buffers, swsusp_info included.
 *
 * So the compressed framing is the kernel's chunk framing and the stream is
 * the kernel's stream: once the extent map is in memory, reader.c reads the
 * data pages as map entries, starting at entry 0 (the first block holds
 * swsusp_info), and snapshot.c decodes swsusp_info and the PFN list.
 *
 * suspend-utils' reader trusts every number here; we do not. Offsets must be
 * page-aligned slots inside the device, no slot may serve twice (a bitmap
 * of used slots catches loops in the chain), the map is walked only as far
 * as image_data_size needs (the writer preallocates, so the last extents
 * page may list slots it never wrote), and the counts must agree with each
 * other and with swsusp_info before anything is sized by them.
 */
#include "uswsuspP.h"

#include <md5.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USW_HDR_PAGES        0
#define USW_HDR_FLAGS        8
#define USW_HDR_MAP_START    16
#define USW_HDR_DATA_SIZE    24
#define USW_HDR_CHECKSUM     32
#define USW_HDR_PLAIN_TAIL   48     /* writeout_time, resume_pause */
#define USW_HDR_PLAIN_END    64     /* sizeof(struct image_header_info) */
#define USW_HDR_SALT         48
#define USW_HDR_ENC_TAIL     3680

const struct hib_uswsusp *hib_image_uswsusp(const struct hib_image *img)
{
	return img->usw_loaded ? &img->usw : NULL;
}

const char *hib_usw_flag_name(uint32_t bit)
{
	switch (bit) {
	case HIB_USW_CHECKSUM:   return "CHECKSUM";
	case HIB_USW_COMPRESSED: return "COMPRESSED";
	case HIB_USW_ENCRYPTED:  return "ENCRYPTED";
	case HIB_USW_USE_RSA:    return "USE_RSA";
	case HIB_USW_PLATFORM:   return "PLATFORM_SUSPEND";
	}
	return NULL;
}

static void uswsusp_release(struct hib_image *img)
{
	free(img->usw_first);
	free(img->usw_cache_dev);
	free(img->usw_cache_cum);
	img->usw_first = img->usw_cache_dev = img->usw_cache_cum = NULL;
	img->usw_cache_idx = UINT64_MAX;
}

static bool all_zero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

static void decode_tail(struct hib_image *img, const unsigned char *pg)
{
	struct hib_uswsusp *u = &img->usw;
	unsigned int ps = img->lay.ps, at;
	bool plain = !all_zero(pg + USW_HDR_PLAIN_TAIL,
			       USW_HDR_PLAIN_END - USW_HDR_PLAIN_TAIL);
	bool rest = !all_zero(pg + USW_HDR_PLAIN_END, ps - USW_HDR_PLAIN_END);
	uint64_t bits;

	/* The writer zeroes the page first, so the fields an encrypting build
	 * adds stay zero unless it encrypted; only writeout_time and
	 * resume_pause tell the two layouts apart then. */
	if (u->flags & HIB_USW_ENCRYPTED)
		u->layout = HIB_USW_LAYOUT_ENCRYPT;
	else if (plain && !rest)
		u->layout = HIB_USW_LAYOUT_PLAIN;
	else if (rest && !plain)
		u->layout = HIB_USW_LAYOUT_ENCRYPT;
	else
		u->layout = HIB_USW_LAYOUT_UNKNOWN;
	if (u->layout == HIB_USW_LAYOUT_UNKNOWN)
		return;
	if (u->layout == HIB_USW_LAYOUT_ENCRYPT)
		memcpy(u->salt, pg + USW_HDR_SALT, sizeof(u->salt));
	at = u->layout == HIB_USW_LAYOUT_PLAIN ? USW_HDR_PLAIN_TAIL : USW_HDR_ENC_TAIL;
	bits = hib_get_word(&img->lay, pg + at, 8);
	memcpy(&u->writeout_time, &bits, sizeof(bits));
	u->resume_pause = (int32_t)hib_get_word(&img->lay, pg + at + 8, 4);
	u->have_writeout_time = isfinite(u->writeout_time) &&
				u->writeout_time >= 0 && u->writeout_time < 1e7;
}

static int read_header(struct hib_image *img, uint8_t *used)
{
	struct hib_uswsusp *u = &img->usw;
	unsigned int ps = img->lay.ps;
	uint64_t off = img->hdr.image, dsize;
	unsigned char *pg;
	const char *why;
	char what[96];
	int rc;

	memset(u, 0, sizeof(*u));
	u->header_offset = off;
	if ((why = hib_usw_bad_offset(img, off)))
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "resume page: uswsusp image header offset 0x%" PRIx64 " is %s",
				  off, why);
	bit_test_set(used, off / ps);
	pg = malloc(ps);
	if (!pg)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	snprintf(what, sizeof(what), "uswsusp image header (device offset 0x%" PRIx64 ")",
		 off);
	rc = hib_pread(img, pg, ps, off, what);
	if (rc)
		goto out;
	u->pages = hib_get_word(&img->lay, pg + USW_HDR_PAGES, 8);
	u->flags = (uint32_t)hib_get_word(&img->lay, pg + USW_HDR_FLAGS, 4);
	u->map_start = hib_get_word(&img->lay, pg + USW_HDR_MAP_START, 8);
	u->image_data_size = hib_get_word(&img->lay, pg + USW_HDR_DATA_SIZE, 8);
	memcpy(u->checksum, pg + USW_HDR_CHECKSUM, sizeof(u->checksum));
	decode_tail(img, pg);

	/* Before image_header_info (2007), the header page was swsusp_info
	 * itself with the container's fields appended; utsname comes first. */
	if (!memcmp(pg, "Linux", 6)) {
		rc = hib_seterr(img, HIB_ERR_UNSUPPORTED,
				"%s: holds swsusp_info itself (sysname \"Linux\"): an early suspend-utils layout this version does not read",
				what);
		goto out;
	}
	if (u->flags & ~HIB_USW_KNOWN) {
		rc = hib_seterr(img, HIB_ERR_UNSUPPORTED,
				"%s: unknown flag bits 0x%x (flags 0x%x): written by a suspend-utils this version does not know",
				what, u->flags & ~HIB_USW_KNOWN, u->flags);
		goto out;
	}
	dsize = u->image_data_size;
	if (dsize == 0 || dsize % ps || dsize > img->devsize) {
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"%s: image_data_size %" PRIu64 " is not a whole number of pages within the device (%" PRIu64 " bytes)",
				what, dsize,
				img->devsize);
		goto out;
	}
	u->data_pages = dsize / ps;
	/* Raw, the data pages are the stream; compressed, a block of 32 pages
	 * takes at least one. This bounds everything sized by pages. */
	if (u->pages < 2 ||
	    ((u->flags & HIB_USW_COMPRESSED) ? u->pages > u->data_pages * UNC_PAGES :
	     u->pages != u->data_pages)) {
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"%s: pages %" PRIu64 " cannot be stored in image_data_size %" PRIu64 " (%" PRIu64 " pages, %s)",
				what, u->pages,
				dsize,
				u->data_pages,
				(u->flags & HIB_USW_COMPRESSED) ? "compressed" : "uncompressed");
		goto out;
	}
	if ((why = hib_usw_bad_offset(img, u->map_start)))
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"%s: map_start 0x%" PRIx64 " is %s", what,
				u->map_start, why);
out:
	free(pg);
	return rc;
}

/* Its header page is the image's too. */
static uint64_t uswsusp_own_slots(const struct hib_image *img, uint8_t *bits,
				  uint64_t nbits)
{
	uint64_t p = img->usw.header_offset / img->lay.ps;

	return img->usw_loaded && p < nbits && !bit_test_set(bits, p);
}

/* Stream page 0: data page 0 when raw, the head of block 0 when compressed. */
static int read_info_page(struct hib_image *img)
{
	unsigned int ps = img->lay.ps, hdr = 8;
	unsigned char *cmp = NULL, *unc = NULL;
	uint64_t dev, at, len, need, k;
	size_t out = 0;
	char what[128];
	int rc;

	rc = hib_usw_map_entry(img, 0, &dev);
	if (rc)
		return rc;
	at = dev * ps;
	snprintf(what, sizeof(what), "swsusp_info (data page 0, device offset 0x%" PRIx64 ")",
		 at);
	if (!(img->usw.flags & HIB_USW_COMPRESSED))
		return hib_pread(img, img->info_page, ps, dev * ps, what);

	cmp = malloc((size_t)CMP_PAGES_MAX * ps);
	unc = malloc((size_t)UNC_PAGES * ps);
	if (!cmp || !unc) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = hib_pread(img, cmp, ps, dev * ps, what);
	if (rc)
		goto out;
	/* struct buf_block { size_t size; char data[]; }, the kernel's chunk
	 * framing; the same bound as for the kernel's chunks. */
	len = hib_get_word(&img->lay, cmp, hdr);
	if (len == 0 || len > WORST_COMPRESS((uint64_t)UNC_PAGES * ps)) {
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"block 0 (data page 0, device offset 0x%" PRIx64 "): invalid compressed length %" PRIu64,
				at, len);
		goto out;
	}
	need = div_round_up(hdr + len, ps);
	if (need > img->usw.data_pages) {
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"block 0 (device offset 0x%" PRIx64 "): needs %" PRIu64 " pages, image_data_size holds %" PRIu64,
				at, need,
				img->usw.data_pages);
		goto out;
	}
	for (k = 1; k < need; k++) {
		rc = hib_usw_map_entry(img, k, &dev);
		if (rc == HIB_OK)
			rc = hib_pread(img, cmp + k * ps, ps, dev * ps, "block 0");
		if (rc)
			goto out;
	}
	rc = hib_decompress(HIB_COMP_LZO, cmp + hdr, len, unc,
			    (size_t)UNC_PAGES * ps, &out);
	if (rc || out < ps || out % ps) {
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"block 0 (data page 0, device offset 0x%" PRIx64 "): LZO decompression failed (error %d, %" PRIu64 " compressed bytes, %zu decoded)",
				at, rc, len, out);
		goto out;
	}
	memcpy(img->info_page, unc, ps);
out:
	free(cmp);
	free(unc);
	return rc;
}

static int uswsusp_load(struct hib_image *img)
{
	struct hib_uswsusp *u = &img->usw;
	struct hib_info *in = &img->info;
	uint8_t *used;
	char where[96];
	uint64_t dev0;
	int rc;

	img->usw_loaded = false;
	img->usw_cache_idx = UINT64_MAX;
	free(img->mapbuf);
	img->mapbuf = malloc(img->lay.ps);
	img->mapbuf_idx = UINT64_MAX;
	used = calloc(img->devpages / 8 + 1, 1);
	if (!used || !img->mapbuf) {
		free(used);
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	/* the resume page is the swap header's, never the image's */
	bit_test_set(used, img->resume_offset);
	rc = read_header(img, used);
	if (rc == HIB_OK)
		rc = hib_usw_walk_extents(img, used);
	free(used);
	if (rc)
		return rc;
	img->usw_loaded = true;

	if (u->flags & HIB_USW_ENCRYPTED) {
		img->content = HIB_CONTENT_ENCRYPTED;
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "%s: uswsusp image with encrypted data (Blowfish-CFB%s): header and extent map read, the contents cannot be read or verified without the key",
				  img->path, (u->flags & HIB_USW_USE_RSA) ? ", RSA-wrapped key" : "");
	}

	/* Single-threaded setup; the stream itself goes through reader.c,
	 * like an in-kernel image's. */
	in->compression = (u->flags & HIB_USW_COMPRESSED) ? HIB_COMP_LZO : HIB_COMP_NONE;
	img->loaded = true;     /* map access works from here on */
	img->info_page = img->info_page ? img->info_page : malloc(img->lay.ps);
	if (!img->info_page) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	rc = read_info_page(img);
	if (rc)
		goto fail;
	rc = hib_usw_map_entry(img, 0, &dev0);
	if (rc)
		goto fail;
	snprintf(where, sizeof(where), "stream page 0, data page 0 at device offset 0x%" PRIx64,
		 dev0 * img->lay.ps);
	rc = hib_info_decode(img, where);
	if (rc)
		goto fail;
	if (in->pages != u->pages) {
		rc = hib_seterr(img, HIB_ERR_DAMAGED,
				"uswsusp image header (device offset 0x%" PRIx64 "): pages %" PRIu64 ", but swsusp_info says %" PRIu64,
				u->header_offset,
				u->pages,
				in->pages);
		goto fail;
	}
	return HIB_OK;
fail:
	img->loaded = false;
	return rc;
}

/* suspend-utils' resume page: packed { loff_t image; orig_sig; sig } at
 * PS-28, image being a byte offset. */
static void uswsusp_decode_tail(struct hib_image *img, const unsigned char *pg)
{
	img->hdr.image = hib_get_word(&img->lay, pg + img->lay.ps - 28, 8);
}

static void hex16(char out[33], const unsigned char *p)
{
	static const char x[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 16; i++) {
		out[2 * i] = x[p[i] >> 4];
		out[2 * i + 1] = x[p[i] & 15];
	}
	out[32] = 0;
}

/* suspend-utils' loader stops after pages pages and checks only the MD5;
 * what it would not notice, decoded pages or data pages left over, is
 * damage all the same: its writer leaves neither. */
static int uswsusp_finish(struct hib_image *img, const struct hib_stream_end *end,
			  void *sum, struct hib_progress *prog)
{
	const struct hib_uswsusp *u = &img->usw;
	unsigned int ps = img->lay.ps;
	char want[33], got[33];

	if (end->left_pages)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "chunk %" PRIu64 " (data page %" PRIu64 ", device offset 0x%" PRIx64 "): decodes to %" PRIu64 " pages, %" PRIu64 " of them past the end of the stream (pages %" PRIu64 ")",
				  end->chunk.index,
				  end->chunk.map_entry,
				  end->chunk.devpage * ps,
				  end->chunk_pages,
				  end->left_pages,
				  u->pages);
	if (end->entries_used != u->data_pages)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "data pages: the stream ends after %" PRIu64 " of the %" PRIu64 " data pages image_data_size holds",
				  end->entries_used,
				  u->data_pages);
	if (!sum)
		return HIB_OK;
	MD5Final(prog->md5, sum);
	prog->md5_checked = 1;
	prog->md5_ok = !memcmp(prog->md5, u->checksum, 16);
	if (!prog->md5_ok) {
		hex16(want, u->checksum);
		hex16(got, prog->md5);
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "MD5 mismatch over %" PRIu64 " stream pages: header %s (device offset 0x%" PRIx64 "), data %s (suspend-utils: \"MD5 checksum does not match\")",
				  u->pages, want,
				  u->header_offset + 32, got);
	}
	return HIB_OK;
}

/* Its checksum: an MD5 over every decoded buffer, stream page 0 included,
 * folded in stream order. */
static bool uswsusp_sum_begin(struct hib_image *img, void *sum)
{
	if (!(img->usw.flags & HIB_USW_CHECKSUM))
		return false;
	MD5Init(sum);
	return true;
}

static void uswsusp_sum_update(void *sum, const void *buf, size_t len)
{
	MD5Update(sum, buf, len);
}

static bool uswsusp_checksum(const struct hib_image *img, struct hib_checksum *c)
{
	if (!img->usw_loaded)
		return false;
	if (img->usw.flags & HIB_USW_CHECKSUM) {
		c->kind = HIB_CHECKSUM_MD5;
		memcpy(c->md5, img->usw.checksum, sizeof(c->md5));
	} else {
		c->kind = HIB_CHECKSUM_NONE;
		c->none_why = "s2disk was not asked to compute one";
	}
	return true;
}

const struct hib_container hib_uswsusp = {
	.name = "uswsusp",
	.map_page_name = "extents",
	.flags = HIB_CT_OWN_HEADER | HIB_CT_EXTENTS,
	.decode_tail = uswsusp_decode_tail,
	.first_entry = 0,           /* its data begins with swsusp_info */
	.entry_name = "data page",
	.sum_size = sizeof(MD5_CTX),
	.sum_begin = uswsusp_sum_begin,
	.sum_update = uswsusp_sum_update,
	.finish = uswsusp_finish,
	.load = uswsusp_load,
	.map_entry = hib_usw_map_entry,
	.map_page = hib_usw_map_page,
	.own_slots = uswsusp_own_slots,
	.release = uswsusp_release,
	.checksum = uswsusp_checksum,
};
