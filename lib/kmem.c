/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kmem.c - the saved memory at random: any physical address the image
 * saved, without holding the image in memory. One pass of the reader
 * (which checks every chunk and the CRC, so what is read later is what
 * the kernel wrote) keeps, per chunk, where it lies on disk and the first
 * stream page it holds; a read then decodes just the chunk holding the
 * page (chunk1.c), into a small cache. The index grows with the image's
 * chunks, never with the size of RAM.
 *
 * PFN -> stream page: the PFN list gives the entry (hib_pfn_find), the
 * data pages come in entry order with zero-flagged entries left out, and
 * they are the last of the stream: data page d is stream page
 * pages - data_pages + d. A checkpoint every KM_STEP entries counts the
 * data pages before it, so the rank costs at most KM_STEP bit tests.
 *
 * A salvaged image (hib_image_set_partial()): the same pass runs the
 * best-effort reader, so the index is the walk's recovered one, numbered
 * among the pages recovered; a data page's stream page follows the
 * previous one's but where the walk's jump table says, and the chunks are
 * the walk's runs (salvage-read.c), decoded into the same cache. A PFN
 * the damage took reads as one the image did not save, with the damage
 * named. The walk keeps 8 bytes a chunk; nothing of it is copied here.
 */
#include "kmemP.h"

#include <stdlib.h>
#include <string.h>

#define KM_STEP 64u

static int add_chunk(const struct hib_chunk *c, void *arg)
{
	struct hib_kmem *km = arg;

	if (km->nchunks == km->cap) {
		size_t cap = km->cap ? km->cap * 2 : 256;
		struct km_chunk *n = realloc(km->chunks, cap * sizeof(*n));

		if (!n)
			return HIB_ERR_NOMEM;
		km->chunks = n;
		km->cap = cap;
	}
	km->chunks[km->nchunks].map_entry = c->map_entry;
	km->chunks[km->nchunks].first_stream_page = c->first_stream_page;
	km->chunks[km->nchunks].disk_pages = c->disk_pages;
	km->chunks[km->nchunks].cmp_len = c->cmp_len;
	km->nchunks++;
	return 0;
}

/* The pass: the chunk index, the data-page checkpoints, the VMCOREINFO
 * page (the first page that starts like one, as identity.c takes it). */
static int index_pass(struct hib_kmem *km)
{
	struct hib_image *img = km->img;
	struct hib_reader *rd = NULL;
	struct hib_page pg;
	uint64_t data = 0, next_cp = 0;
	size_t ps = img->lay.ps;
	int rc;

	rc = hib_reader_new(img, &rd);
	if (rc == HIB_OK)
		rc = hib_reader_set_threads(rd, 0);
	if (rc)
		goto out;
	hib_reader_set_chunk_cb(rd, add_chunk, km);
	while ((rc = hib_reader_next_page(rd, &pg)) == 1) {
		while (next_cp * KM_STEP <= pg.entry)
			km->cp[next_cp++] = data;
		if (!pg.data)
			continue;
		if (!km->vmci && hib_vmci_page(pg.data, ps)) {
			km->vmci = malloc(ps);
			if (!km->vmci) {
				rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
				break;
			}
			memcpy(km->vmci, pg.data, ps);
			km->vmci_pfn = pg.pfn;
		}
		data++;
	}
out:
	hib_reader_free(rd);
	if (rc < 0)
		return rc;
	km->data_pages = data;
	return HIB_OK;
}

int hib_kmem_open(struct hib_image *img, struct hib_kmem **out)
{
	struct hib_kmem *km;
	const struct hib_pfns *pf;
	int rc, i;

	*out = NULL;
	rc = hib_image_load(img);
	if (rc == HIB_OK)
		rc = hib_image_load_pfns(img);
	if (rc)
		return rc;
	pf = hib_image_pfns(img);
	km = calloc(1, sizeof(*km));
	if (!km)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	km->img = img;
	km->ps = img->lay.ps;
	km->cp = calloc(pf->entries / KM_STEP + 1, sizeof(*km->cp));
	for (i = 0; i < KM_CACHE; i++) {
		km->cache[i].chunk = UINT64_MAX;
		km->cache[i].unc = malloc((size_t)UNC_PAGES * km->ps);
		if (!km->cache[i].unc)
			break;
	}
	km->cmp = malloc((size_t)CMP_PAGES_MAX * km->ps);
	if (!km->cp || i < KM_CACHE || !km->cmp) {
		hib_kmem_free(km);
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	/* a salvaged image's chunks: the compressed bytes are scratch */
	for (i = 0; i < KM_CACHE; i++) {
		km->svc[i].cmp = km->cmp;
		km->svc[i].unc = km->cache[i].unc;
	}
	rc = index_pass(km);
	if (rc) {
		hib_kmem_free(km);
		return rc;
	}
	*out = km;
	return HIB_OK;
}

void hib_kmem_free(struct hib_kmem *km)
{
	int i;

	if (!km)
		return;
	for (i = 0; i < KM_CACHE; i++)
		free(km->cache[i].unc);
	free(km->cmp);
	free(km->chunks);
	free(km->cp);
	free(km->vmci);
	free(km);
}

const char *hib_kmem_no_vmci(const struct hib_kmem *km)
{
	return km->img->partial && hib_damage_lost(km->img) ?
	       "no VMCOREINFO page among the pages recovered (the damage may have taken it)" :
	       "the image holds no VMCOREINFO page";
}

const unsigned char *hib_kmem_vmcoreinfo(const struct hib_kmem *km, size_t *len,
					 uint64_t *pfn)
{
	if (len)
		*len = km->vmci ? km->ps : 0;
	if (pfn)
		*pfn = km->vmci_pfn;
	return km->vmci;
}

/* The chunk holding stream page sp: the last one starting at or before it. */
static int find_chunk(const struct hib_kmem *km, uint64_t sp, size_t *idx)
{
	size_t lo = 0, hi = km->nchunks;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (km->chunks[mid].first_stream_page <= sp)
			lo = mid;
		else
			hi = mid;
	}
	if (!km->nchunks || km->chunks[lo].first_stream_page > sp)
		return -1;
	*idx = lo;
	return 0;
}

/* The decoded chunk c, from the cache or the disk. */
static int chunk_data(struct hib_kmem *km, size_t c, const struct km_cache **out)
{
	struct km_cache *e = NULL;
	int i, rc;

	km->tick++;
	for (i = 0; i < KM_CACHE; i++)
		if (km->cache[i].chunk == c) {
			km->cache[i].used = km->tick;
			*out = &km->cache[i];
			return HIB_OK;
		}
	for (i = 0; i < KM_CACHE; i++)
		if (!e || km->cache[i].used < e->used)
			e = &km->cache[i];
	e->chunk = UINT64_MAX;
	rc = hib_chunk1_decode(km->img, km->chunks[c].map_entry,
			       km->chunks[c].disk_pages, km->chunks[c].cmp_len,
			       km->cmp, e->unc, &e->unc_len);
	if (rc)
		return rc;
	e->chunk = c;
	e->used = km->tick;
	*out = e;
	return HIB_OK;
}

/* Data pages before PFN-list entry entry. */
static uint64_t data_rank(const struct hib_kmem *km, uint64_t entry)
{
	uint64_t d = km->cp[entry / KM_STEP], k;

	for (k = entry - entry % KM_STEP; k < entry; k++)
		d += !hib_pfn_is_zero(km->img, k);
	return d;
}

/* Salvaged: stream page sp out of the walk's chunks, through the cache
 * keyed by the chunk's map entry (a raw page is read each time). */
static int sv_data(struct hib_kmem *km, uint64_t pfn, uint64_t entry,
		   const unsigned char **data)
{
	struct hib_image *img = km->img;
	struct sv_jump j;
	uint64_t sp, ce = UINT64_MAX;
	struct hib_sv_cache *c = NULL;
	bool chunked;
	int i, rc;

	if (!hib_sv_jump_at(img->salv, entry, &j))
		return hib_seterr(img, HIB_ERR_INVAL,
				  "internal: PFN 0x%" PRIx64 " (entry %" PRIu64 ") before the walk's first data page",
				  pfn, entry);
	sp = j.sp + data_rank(km, entry) - data_rank(km, j.entry);
	chunked = hib_sv_chunk_of(img->salv, sp, &ce);
	km->tick++;
	for (i = 0; chunked && i < KM_CACHE; i++)
		if (km->svc[i].valid && km->svc[i].chunk == ce) {
			c = &km->svc[i];
			break;
		}
	if (!c) {
		for (i = 0; i < KM_CACHE; i++)
			if (!c || km->cache[i].used < km->cache[c - km->svc].used)
				c = &km->svc[i];
		c->valid = false;
	}
	km->cache[c - km->svc].used = km->tick;
	rc = hib_sv_page(img, c, sp, data);
	if (rc == HIB_OK && !*data)
		rc = hib_seterr(img, HIB_ERR_INVAL,
				"internal: PFN 0x%" PRIx64 ": stream page %" PRIu64 " was not recovered",
				pfn, sp);
	return rc ? rc : 1;
}

int hib_kmem_page(struct hib_kmem *km, uint64_t pfn, const unsigned char **data)
{
	struct hib_image *img = km->img;
	const struct km_cache *e;
	uint64_t entry, d, sp, off;
	size_t c;
	int rc;

	*data = NULL;
	if (!hib_pfn_find(img, pfn, &entry)) {
		if (img->partial && hib_damage_pfn(img, pfn, km->lost, sizeof(km->lost))) {
			km->lost_reads++;
			return hib_seterr(img, HIB_ERR_UNSUPPORTED,
					  "PFN 0x%" PRIx64 " was not saved in the image: %s", pfn, km->lost);
		}
		km->lost[0] = 0;
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "PFN 0x%" PRIx64 " was not saved in the image", pfn);
	}
	if (hib_pfn_is_zero(img, entry))
		return 0;   /* zero-flagged: no data, all zeros */
	if (img->partial)
		return sv_data(km, pfn, entry, data);
	d = data_rank(km, entry);
	sp = img->info.pages - km->data_pages + d;
	if (find_chunk(km, sp, &c))
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "PFN 0x%" PRIx64 ": stream page %" PRIu64 " is in no chunk", pfn, sp);
	rc = chunk_data(km, c, &e);
	if (rc)
		return rc;
	off = (sp - km->chunks[c].first_stream_page) * km->ps;
	if (off + km->ps > e->unc_len)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "PFN 0x%" PRIx64 ": stream page %" PRIu64 " lies past the end of chunk %zu",
				  pfn, sp, c);
	*data = e->unc + off;
	return 1;
}

int hib_kmem_read_phys(struct hib_kmem *km, uint64_t pa, void *buf, size_t len)
{
	unsigned char *dst = buf;

	while (len) {
		const unsigned char *pg;
		size_t off = pa % km->ps, n = km->ps - off;
		int rc = hib_kmem_page(km, pa / km->ps, &pg);

		if (rc < 0)
			return rc;
		if (n > len)
			n = len;
		if (pg)
			memcpy(dst, pg + off, n);
		else
			memset(dst, 0, n);
		dst += n;
		pa += n;
		len -= n;
	}
	return HIB_OK;
}

uint64_t hib_kmem_word(struct hib_kmem *km, const unsigned char *p)
{
	return hib_get_word(&km->img->lay, p, km->img->lay.word);
}
