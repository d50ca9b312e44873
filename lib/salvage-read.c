/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * salvage-read.c - one chunk read and decoded on its own, for the
 * best-effort walk (which tries map entries as chunk starts) and for the
 * readers of a salvaged image (stream pages out of the chunks that
 * decoded). One thread, one chunk at a time: damage is rare and the ring's
 * read-ahead assumes the chunks follow each other.
 */
#include "salvageP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hib_sv_cache_init(struct hib_image *img, struct hib_sv_cache *c)
{
	unsigned int ps = img->lay.ps;

	memset(c, 0, sizeof(*c));
	c->cmp = malloc((size_t)CMP_PAGES_MAX * ps);
	c->unc = malloc((size_t)UNC_PAGES * ps);
	if (!c->cmp || !c->unc) {
		hib_sv_cache_free(c);
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	return HIB_OK;
}

void hib_sv_cache_free(struct hib_sv_cache *c)
{
	free(c->cmp);
	free(c->unc);
	c->cmp = c->unc = NULL;
	c->valid = false;
}

/* Map entry e's page into buf: SV_TRUNC where it lies past the input's end
 * (or the map has no such entry), SV_DECODE for a failed read. */
static enum sv_try read_entry(struct hib_image *img, uint64_t e, unsigned char *buf,
			      char *msg, size_t cap)
{
	unsigned int ps = img->lay.ps;
	uint64_t dev;

	if (e >= img->info.map_entries) {
		snprintf(msg, cap, "the swap map ends after %" PRIu64 " entries",
			 img->info.map_entries);
		return SV_TRUNC;
	}
	if (hib_image_map_entry(img, e, &dev)) {
		snprintf(msg, cap, "%s", img->err);
		return SV_DECODE;
	}
	if (dev >= img->devsize / ps) {
		snprintf(msg, cap, "map entry %" PRIu64 ": device page %" PRIu64 " lies beyond the end of the input (%" PRIu64 " bytes)",
			 e, dev, img->devsize);
		return SV_TRUNC;
	}
	if (hib_pread(img, buf, ps, dev * ps, "chunk page")) {
		snprintf(msg, cap, "%s", img->err);
		return SV_DECODE;
	}
	return SV_OK;
}

/* What the kernel says for it (load_compressed_image()): "Invalid %s
 * compressed length" (what = "compressed") or "uncompressed" for a chunk
 * that fails, with hib_comp_algo ("lzo", "lz4") from 6.9 on, "LZO" before
 * (6.1: "Invalid LZO uncompressed length"; 6.12 was seen to print
 * "PM: Invalid lzo compressed length" on a fixture with a broken length). */
const char *hib_kernel_len_words(enum hib_compression c, bool compressed)
{
	if (c == HIB_COMP_LZ4)
		return compressed ? "\"Invalid lz4 compressed length\"" :
				    "\"Invalid lz4 uncompressed length\"";
	return compressed ? "\"Invalid lzo compressed length\", before 6.9 \"LZO\"" :
			    "\"Invalid lzo uncompressed length\", before 6.9 \"LZO\"";
}

enum sv_try hib_sv_try(struct hib_image *img, struct hib_sv_cache *c, uint64_t e,
		       uint64_t *cmp_len, uint64_t *need, uint64_t *pages,
		       char *msg, size_t cap)
{
	unsigned int ps = img->lay.ps, hdr = img->lay.word;
	enum hib_compression comp = img->info.compression;
	enum sv_try t;
	size_t unc_len = 0;
	uint64_t i;
	int rc;

	c->valid = false;
	*cmp_len = *need = *pages = 0;
	t = read_entry(img, e, c->cmp, msg, cap);
	if (t != SV_OK)
		return t;
	*cmp_len = hib_get_word(&img->lay, c->cmp, hdr);
	if (*cmp_len == 0 || *cmp_len > WORST_COMPRESS((uint64_t)UNC_PAGES * ps)) {
		snprintf(msg, cap, "invalid compressed length %" PRIu64 " (kernel: %s)",
			 *cmp_len, hib_kernel_len_words(comp, true));
		return SV_LENGTH;
	}
	*need = div_round_up(hdr + *cmp_len, ps);
	for (i = 1; i < *need; i++) {
		t = read_entry(img, e + i, c->cmp + i * ps, msg, cap);
		if (t != SV_OK)
			return t;
	}
	rc = hib_decompress(comp, c->cmp + hdr, *cmp_len, c->unc,
			    (size_t)UNC_PAGES * ps, &unc_len);
	if (rc) {
		/* the two the kernel writes; image.c's names sit above this file */
		snprintf(msg, cap, "%s decompression failed (error %d, %" PRIu64 " compressed bytes; kernel: %s)",
			 comp == HIB_COMP_LZ4 ? "lz4" : "lzo", rc, *cmp_len, hib_kernel_len_words(comp, false));
		return SV_DECODE;
	}
	if (unc_len == 0 || unc_len % ps) {
		snprintf(msg, cap, "invalid uncompressed length %zu (not a whole number of pages; kernel: %s)",
			 unc_len, hib_kernel_len_words(comp, false));
		return SV_DECODE;
	}
	*pages = unc_len / ps;
	return SV_OK;
}

/* The placed run holding sp, by binary search; nrun when none. */
static uint64_t run_of(const struct hib_salvage *s, uint64_t sp)
{
	uint64_t lo = 0, hi = s->nrun;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (s->run[mid].first_sp + s->run[mid].pages <= sp)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nrun && s->run[lo].first_sp <= sp)
		return lo;
	return s->nrun;
}

bool hib_sv_holds(const struct hib_salvage *s, uint64_t sp)
{
	return run_of(s, sp) < s->nrun;
}

int hib_sv_page(struct hib_image *img, struct hib_sv_cache *c, uint64_t sp,
		const unsigned char **pg)
{
	struct hib_salvage *s = img->salv;
	unsigned int ps = img->lay.ps;
	uint64_t k = run_of(s, sp), cmp_len, need, pages, off, e;
	const struct sv_run *r;
	char msg[256] = "";

	*pg = NULL;
	if (k == s->nrun)
		return HIB_OK;
	r = &s->run[k];
	off = sp - r->first_sp;
	if (!r->n) {
		/* raw: the page alone */
		if (read_entry(img, r->map_entry + off, c->unc, msg, sizeof(msg)) != SV_OK)
			return hib_seterr(img, HIB_ERR_IO, "stream page %" PRIu64 ": %s (it read before)",
					  sp, msg);
		c->valid = false;
		*pg = c->unc;
		return HIB_OK;
	}
	e = s->ent[r->first + off / UNC_PAGES];
	if (!c->valid || c->chunk != e) {
		/* a chunk but the run's last holds UNC_PAGES pages */
		if (hib_sv_try(img, c, e, &cmp_len, &need, &pages, msg, sizeof(msg)) != SV_OK ||
		    pages <= off % UNC_PAGES ||
		    (off / UNC_PAGES + 1 < r->n && pages != UNC_PAGES))
			return hib_seterr(img, HIB_ERR_IO,
					  "chunk at map entry %" PRIu64 ": %s (it decoded before: the input changed?)",
					  e, msg[0] ? msg : "not the pages it decoded to");
		c->valid = true;
		c->chunk = e;
	}
	*pg = c->unc + (off % UNC_PAGES) * ps;
	return HIB_OK;
}

bool hib_sv_chunk_of(const struct hib_salvage *s, uint64_t sp, uint64_t *e)
{
	uint64_t k = run_of(s, sp);

	if (k == s->nrun || !s->run[k].n)
		return false;
	*e = s->ent[s->run[k].first + (sp - s->run[k].first_sp) / UNC_PAGES];
	return true;
}

bool hib_sv_jump_at(const struct hib_salvage *s, uint64_t e, struct sv_jump *j)
{
	uint64_t lo = 0, hi = s->njp;

	/* the jumps ascend by entry, as index_pages() made them */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (s->jp[mid].entry <= e)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	*j = s->jp[lo - 1];
	return true;
}

enum sv_try hib_sv_try_raw(struct hib_image *img, struct hib_sv_cache *c, uint64_t e,
			   char *msg, size_t cap)
{
	c->valid = false;
	return read_entry(img, e, c->unc, msg, cap);
}
