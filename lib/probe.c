/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe.c - which container holds the stream: the kernel's own (resume
 * page and swap-map chain, map.c) or suspend-utils' (ULSUSPEND header and
 * extent pages, uswsusp.c), chosen from what the resume page says, and the
 * one place that dispatches to them. What no container reads (plain swap,
 * a spent image unless asked, foreign formats) is refused here, by name.
 */
#include "hibimgP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every signature hibimg knows, at the end of the resume page, and the
 * container that reads what it marks (NULL: recognised, not read). */
static const struct probe {
	const char *sig;
	size_t len;
	enum hib_kind kind;
	const struct hib_container *ct;
} probes[] = {
	{ "S1SUSPEND",  9,  HIB_KIND_KERNEL,     &hib_swsusp },
	{ "LINHIB0001", 10, HIB_KIND_KERNEL_DEV, &hib_swsusp },
	{ "ULSUSPEND",  9,  HIB_KIND_USWSUSP,    &hib_uswsusp },
	{ "S2SUSPEND",  9,  HIB_KIND_S2SUSPEND,  NULL },
	/* plain swap, or spent: the kernel's fields may remain */
	{ "SWAPSPACE2", 10, HIB_KIND_SWAP,       &hib_swsusp },
	{ "SWAP-SPACE", 10, HIB_KIND_SWAP,       &hib_swsusp },
};

const struct hib_container *hib_probe_signature(const unsigned char *sig,
						enum hib_kind *kind, bool *swap)
{
	size_t i;

	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (!memcmp(sig, probes[i].sig, probes[i].len)) {
			*kind = probes[i].kind;
			*swap = probes[i].kind == HIB_KIND_SWAP;
			return probes[i].ct;
		}
	*kind = HIB_KIND_UNKNOWN;
	*swap = false;
	return NULL;
}

/* Whole files compressed by a general-purpose tool, as images are shipped
 * and copied (this project keeps its own as .img.zst): named by their magic
 * at offset 0, so that the refusal says what to do rather than "not a
 * hibernation image". The name is also the program that decompresses it. */
static const struct packer {
	const char *magic;
	size_t len;
	const char *name;
} packers[] = {
	{ "\x28\xb5\x2f\xfd",       4, "zstd" },
	{ "\xfd" "7zXZ\0",            6, "xz" },
	{ "\x1f\x8b\x08",            3, "gzip" },     /* deflate, gzip's only method */
	{ "\x04\x22\x4d\x18",       4, "lz4" },      /* frame format */
	{ "\x02\x21\x4c\x18",       4, "lz4" },      /* legacy format (lz4 -l) */
	{ "BZh",                      3, "bzip2" },    /* then the block size, '1'-'9' */
};

int hib_probe_compressed(struct hib_image *img)
{
	unsigned char head[8] = { 0 };
	size_t n = img->devsize < sizeof(head) ? (size_t)img->devsize : sizeof(head);
	size_t i;
	int rc;

	if (!n)
		return HIB_OK;
	rc = hib_pread(img, head, n, 0, "first bytes");
	if (rc)
		return rc;
	for (i = 0; i < sizeof(packers) / sizeof(packers[0]); i++) {
		const struct packer *k = &packers[i];

		if (n < k->len || memcmp(head, k->magic, k->len))
			continue;
		if (!strcmp(k->name, "bzip2") && (n < 4 || head[3] < '1' || head[3] > '9'))
			continue;
		img->compressor = k->name;
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "%s: %s-compressed file, not a hibernation image",
				  img->path, k->name);
	}
	return HIB_OK;
}

const char *hib_image_compressor(const struct hib_image *img)
{
	return img->compressor;
}

/* A disk image of a file system is what people try first when the image
 * is in a swap file on it: name the file system, so the refusal can say
 * that the resume page is elsewhere (at the swap file's resume_offset). */
void hib_probe_filesystem(struct hib_image *img)
{
	struct hib_fs fs;

	img->have_fs = false;
	if (!hib_fs_probe(img->fd, img->base, img->devsize, &fs))
		return;
	img->have_fs = true;
	snprintf(img->fs_type, sizeof(img->fs_type), "%s", fs.type);
	snprintf(img->fs_uuid, sizeof(img->fs_uuid), "%s", fs.uuid);
}

const char *hib_image_fs_type(const struct hib_image *img)
{
	return img->opened && img->have_fs ? img->fs_type : NULL;
}

const char *hib_image_fs_uuid(const struct hib_image *img)
{
	return img->opened && img->have_fs && img->fs_uuid[0] ? img->fs_uuid : NULL;
}

const char *hib_kind_name(enum hib_kind kind)
{
	switch (kind) {
	case HIB_KIND_SWAP:       return "swap";
	case HIB_KIND_KERNEL:     return "swsusp";
	case HIB_KIND_KERNEL_DEV: return "swsusp-linhib";
	case HIB_KIND_SPENT:      return "spent";
	case HIB_KIND_USWSUSP:    return "uswsusp";
	case HIB_KIND_S2SUSPEND:  return "s2suspend";
	case HIB_KIND_TUXONICE:   return "tuxonice";
	case HIB_KIND_UNKNOWN:    break;
	}
	return "unknown";
}

/* Whether a container reads what the resume page marks: a spent area only
 * when asked to. */
static bool reads(const struct hib_image *img)
{
	switch (img->hdr.kind) {
	case HIB_KIND_KERNEL:
	case HIB_KIND_KERNEL_DEV:
	case HIB_KIND_USWSUSP:
		return img->ct != NULL;
	case HIB_KIND_SPENT:
		return img->allow_spent && img->ct;
	default:
		return false;
	}
}

/* Why no container reads it. */
static int refuse(struct hib_image *img)
{
	switch (img->hdr.kind) {
	case HIB_KIND_SPENT:
		/* The kernel put the swap signature back before reading the
		 * image; header fields and data stay until swap reuses them. */
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "%s: spent image: the signature is %s again (a resume was attempted), the old image fields remain",
				  img->path, img->hdr.sig);
	case HIB_KIND_SWAP:
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "%s: plain swap area, no hibernation image", img->path);
	case HIB_KIND_UNKNOWN:
		if (img->have_fs)
			return hib_seterr(img, HIB_ERR_UNSUPPORTED,
					  "%s: not a hibernation image: libblkid finds a%s %s file system%s%s%s, and no swap or hibernation signature ends page %" PRIu64 "; an image in a swap file on it starts at the file's resume_offset",
					  img->path,
					  strchr("aeiouAEIOU", img->fs_type[0]) ? "n" : "",
					  img->fs_type, img->fs_uuid[0] ? " (UUID " : "",
					  img->fs_uuid, img->fs_uuid[0] ? ")" : "",
					  img->resume_offset);
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "%s: not a hibernation image (no swap or hibernation signature at the end of page %" PRIu64 ")%s",
				  img->path, img->resume_offset,
				  img->page0_swap ?
				  "; page 0 of this file is a swap area: run without -R (a swap file is read in place, from its device)" : "");
	case HIB_KIND_KERNEL:
	case HIB_KIND_KERNEL_DEV:
	case HIB_KIND_USWSUSP:
		return hib_seterr(img, HIB_ERR_UNSUPPORTED, "%s: %s image: no reader for it",
				  img->path, hib_kind_name(img->hdr.kind));
	default:
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "%s: %s image: this format is identified but not decoded",
				  img->path, hib_kind_name(img->hdr.kind));
	}
}

int hib_image_load(struct hib_image *img)
{
	int rc;

	if (!img->opened)
		return hib_seterr(img, HIB_ERR_INVAL, "image not open");
	if (img->loaded)
		return HIB_OK;
	if (!reads(img))
		return refuse(img);
	img->content = HIB_CONTENT_UNREAD;
	rc = img->ct->load(img);
	if (rc == HIB_OK)
		img->content = HIB_CONTENT_READABLE;
	return rc;
}

enum hib_content hib_image_content(const struct hib_image *img)
{
	if (!img->opened || !reads(img))
		return HIB_CONTENT_NONE;
	return img->content == HIB_CONTENT_NONE ? HIB_CONTENT_UNREAD : img->content;
}

unsigned int hib_image_container_flags(const struct hib_image *img)
{
	return img->opened && img->ct ? img->ct->flags : 0;
}

int hib_image_map_entry(struct hib_image *img, uint64_t i, uint64_t *devpage)
{
	if (!img->loaded || !img->ct)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	return img->ct->map_entry(img, i, devpage);
}

int hib_image_map_page_info(struct hib_image *img, uint64_t i, struct hib_map_page *mp)
{
	struct hib_map_page m = { .size = sizeof(m) };
	int rc = HIB_ABI_SIZE(img, hib_map_page, mp);

	if (rc)
		return rc;
	if (!img->loaded || !img->ct)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	if (i >= img->n_map_pages)
		return hib_seterr(img, HIB_ERR_INVAL, "no %s page %" PRIu64,
				  img->ct->map_page_name, i);
	rc = img->ct->map_page(img, i, &m);
	if (rc)
		return rc;
	hib_abi_out(mp, &m);
	return HIB_OK;
}
