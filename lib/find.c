/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * find.c - where on a disk (image) the resume pages are: one sequential
 * pass that looks at the end of every 4 KiB page for a signature of the
 * probe table (probe.c), then each find opened as an area of its own, as
 * the kernel would open it: its page in its partition (resume_offset) at
 * each page size whose page ends there. What the resume page says (kind,
 * spent or not) is decided by the same code as for any other input
 * (header.c); the file system around it is libblkid's (fsprobe.c).
 */
#include "hibimgP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read this much at once: large enough for a disk's sequential speed,
 * small enough to stay out of the caller's way. */
#define FIND_BLOCK (8u << 20)
/* Finds described at most; more are counted only. A disk of copies of an
 * image (or one crafted to look so) must not make the list or the time
 * unbounded: each described find reads its image's map chain. */
#define FIND_MAX 256u

struct hib_find_list {
	struct hib_find_hit *v;
	size_t n, cap;
	uint64_t more;
	struct hib_part *parts;
	size_t nparts;
	/* what libblkid says of each area (0: the whole input, i + 1:
	 * partition i), probed once, when a find first lies in it */
	struct hib_fs *fs;
	bool *fs_done;
};

/* The innermost partition holding bytes b..b+len, -1 for none. */
static long area_of(const struct hib_find_list *l, uint64_t b, uint64_t len)
{
	long best = -1;
	size_t i;

	for (i = 0; i < l->nparts; i++) {
		const struct hib_part *p = &l->parts[i];

		if (b < p->start || b - p->start > p->size || p->size - (b - p->start) < len)
			continue;
		if (best < 0 || (l->parts[best].container && !p->container) ||
		    (l->parts[best].container == p->container && p->size < l->parts[best].size))
			best = (long)i;
	}
	return best;
}

/* What an opened find holds, as far as it can be read. */
static void describe(struct hib_image *sub, struct hib_find_hit *h)
{
	const struct hib_info *in;
	int rc;

	h->kind = sub->hdr.kind;
	memcpy(h->sig, sub->hdr.sig, sizeof(h->sig));
	h->page_size = sub->hdr.page_size;
	rc = hib_image_load(sub);
	h->content = hib_image_content(sub);
	if (rc) {
		h->error = strdup(hib_image_error(sub));
		return;
	}
	in = hib_image_info(sub);
	h->compression = in->compression;
	h->image_size = in->size;
	/* x86's and arm64's records name no kernel: the memory does, and
	 * for every arch alike (identity.c, what info's release says) */
	{
		struct hib_identity id = HIB_INIT(struct hib_identity);

		if (hib_image_load_pfns(sub) == HIB_OK &&
		    hib_image_identify(sub, &id) == HIB_OK)
			snprintf(h->release, sizeof(h->release), "%s", id.release);
	}
}

static int push(struct hib_find_list *l, const struct hib_find_hit *h)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct hib_find_hit *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return HIB_ERR_NOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *h;
	return HIB_OK;
}

/* A signature ends the 4 KiB page at byte b + 10 of the input. */
static int candidate(struct hib_image *img, struct hib_find_list *l, uint64_t b,
		     unsigned int flags)
{
	long a = area_of(l, b, 10);
	uint64_t base = a < 0 ? 0 : l->parts[a].start;
	uint64_t size = a < 0 ? img->devsize : l->parts[a].size;
	uint64_t rel = b + 10 - base;
	struct hib_find_hit best = { 0 };
	bool have = false;
	unsigned int ps;
	int rc;

	/* every page size header.c probes (4K to 64K: x86, sparc64, arm64,
	 * ppc64 kernels), a page of each that ends here */
	for (ps = HIB_MIN_PS; ps <= HIB_MAX_PS; ps <<= 1) {
		struct hib_find_hit h = { 0 };
		struct hib_image *sub;

		if (rel % ps)
			continue;
		sub = hib_image_new();
		if (!sub)
			return HIB_ERR_NOMEM;
		sub->resume_offset = rel / ps - 1;
		sub->only_ps = ps;
		rc = hib_image_open_area(sub, img, base, size);
		if (rc) {
			hib_seterr(img, rc, "%s", hib_image_error(sub));
			hib_image_free(sub);
			return rc;
		}
		if (sub->hdr.kind == HIB_KIND_UNKNOWN ||
		    (sub->hdr.kind == HIB_KIND_SWAP && !(flags & HIB_FIND_SWAP))) {
			hib_image_free(sub);
			continue;
		}
		h.offset = b + 10 - ps;
		h.resume_offset = sub->resume_offset;
		describe(sub, &h);
		hib_image_free(sub);
		/* the page size whose image reads wins; else the smallest */
		if (have && h.content != HIB_CONTENT_READABLE) {
			free((char *)h.error);
			continue;
		}
		if (have)
			free((char *)best.error);
		best = h;
		have = true;
		if (h.content == HIB_CONTENT_READABLE)
			break;
	}
	if (!have)
		return HIB_OK;
	best.partno = a < 0 ? 0 : l->parts[a].partno;
	best.area_offset = base;
	best.area_size = size;
	if (!l->fs_done[a + 1]) {
		(void)hib_fs_probe(img->fd, img->base + base, size, &l->fs[a + 1]);
		l->fs_done[a + 1] = true;
	}
	memcpy(best.fs_type, l->fs[a + 1].type, sizeof(best.fs_type));
	memcpy(best.fs_uuid, l->fs[a + 1].uuid, sizeof(best.fs_uuid));
	memcpy(best.fs_label, l->fs[a + 1].label, sizeof(best.fs_label));
	rc = push(l, &best);
	if (rc)
		free((char *)best.error);
	return rc;
}

int hib_image_find(struct hib_image *img, unsigned int flags, struct hib_find_list **out)
{
	struct hib_find_list *l;
	unsigned char *buf = NULL;
	uint64_t total, pos;
	int rc;

	*out = NULL;
	if (!img->opened)
		return hib_seterr(img, HIB_ERR_INVAL, "image not open");
	if (flags & ~HIB_FIND_SWAP)
		return hib_seterr(img, HIB_ERR_INVAL, "unknown find flags 0x%x", flags);
	l = calloc(1, sizeof(*l));
	if (!l)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	rc = hib_fs_partitions(img->fd, img->devsize, &l->parts, &l->nparts);
	if (rc == HIB_OK) {
		l->fs = calloc(l->nparts + 1, sizeof(*l->fs));
		l->fs_done = calloc(l->nparts + 1, sizeof(*l->fs_done));
		buf = malloc(FIND_BLOCK);
		if (!l->fs || !l->fs_done || !buf)
			rc = HIB_ERR_NOMEM;
	}
	if (rc) {
		free(buf);
		hib_find_free(l);
		return hib_seterr(img, rc, "out of memory");
	}
	/* whole 4 KiB pages: every larger page size ends on one of them */
	total = img->devsize / HIB_MIN_PS * HIB_MIN_PS;
	for (pos = 0; pos < total && rc == HIB_OK;) {
		size_t len = total - pos < FIND_BLOCK ? (size_t)(total - pos) : FIND_BLOCK;
		size_t e;

		rc = hib_pread(img, buf, len, pos, "scanning for resume pages");
		for (e = HIB_MIN_PS - 10; rc == HIB_OK && e < len; e += HIB_MIN_PS) {
			enum hib_kind kind;
			bool swap;

			(void)hib_probe_signature(buf + e, &kind, &swap);
			/* spent or plain swap: header.c tells, once opened */
			if (kind == HIB_KIND_UNKNOWN)
				continue;
			if (l->n >= FIND_MAX) {
				l->more++;
				continue;
			}
			rc = candidate(img, l, pos + e, flags);
		}
		pos += len;
		if (img->progress)
			img->progress("scanning", pos >> 20, total >> 20, img->progress_arg);
	}
	free(buf);
	if (rc) {
		hib_find_free(l);
		return rc == HIB_ERR_NOMEM ? hib_seterr(img, rc, "out of memory") : rc;
	}
	*out = l;
	return HIB_OK;
}

size_t hib_find_count(const struct hib_find_list *l)
{
	return l ? l->n : 0;
}

const struct hib_find_hit *hib_find_get(const struct hib_find_list *l, size_t i)
{
	return l && i < l->n ? &l->v[i] : NULL;
}

uint64_t hib_find_more(const struct hib_find_list *l)
{
	return l ? l->more : 0;
}

void hib_find_free(struct hib_find_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free((char *)l->v[i].error);
	free(l->v);
	free(l->parts);
	free(l->fs);
	free(l->fs_done);
	free(l);
}
