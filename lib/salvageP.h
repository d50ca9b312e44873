/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to the best-effort walk: salvage.c (the walk, the recovered PFN
 * index), salvage-read.c (stream pages out of the chunks that decoded) and
 * damage.c (the report's getters). The state hangs off the image.
 */
#ifndef _HIBIMG_SALVAGEP_H
#define _HIBIMG_SALVAGEP_H

#include "hibimgP.h"

/* A run of the stream that decoded, its chunks one after the other: each
 * holds UNC_PAGES stream pages but the run's last, and chunk k starts at
 * map entry ent[first + k]. Raw pages (n 0): map entries map_entry on,
 * one stream page each. 8 bytes a good chunk and a run per gap: the
 * memory of a salvaged 1 TiB image stays near its PFN index's. */
struct sv_run {
	uint64_t first_sp;          /* 1-based stream page of its first page */
	uint64_t pages;
	uint64_t map_entry;         /* of its first chunk or page */
	uint64_t first, n;          /* its chunks in ent; n 0: raw */
	uint64_t disk;              /* map entries it spans */
};

/* Where the data stream page of a recovered entry does not follow the
 * previous one's: from entry on (numbered among the recovered), sp. */
struct sv_jump {
	uint64_t entry, sp;
};

struct sv_range {
	uint64_t rec, first, last;
};

struct hib_salvage {
	struct sv_run *run;         /* placed, by first_sp */
	uint64_t nrun;
	uint64_t *ent;              /* first map entry of every good chunk */
	uint64_t nent, capent;
	struct hib_damage *dm;
	uint64_t ndm, capdm;
	struct sv_range *rg;        /* by record, then PFN */
	uint64_t nrg, caprg;
	uint64_t *rg_first;         /* per record: its first range */
	struct sv_jump *jp;
	uint64_t njp, capjp;
	struct hib_damage_summary sum;
};

/* One decoded chunk at a time, for a sequential reader. */
struct hib_sv_cache {
	unsigned char *cmp, *unc;
	uint64_t chunk;             /* map entry of the chunk unc holds */
	bool valid;
};

HIB_HIDDEN int hib_salvage_walk(struct hib_image *img);
HIB_HIDDEN void hib_salvage_free(struct hib_image *img);
HIB_HIDDEN int hib_sv_cache_init(struct hib_image *img, struct hib_sv_cache *c);
HIB_HIDDEN void hib_sv_cache_free(struct hib_sv_cache *c);
/* Whether a placed run holds stream page sp. */
HIB_HIDDEN bool hib_sv_holds(const struct hib_salvage *s, uint64_t sp);
/* Stream page sp, 1-based, of a chunk that decoded; NULL *pg when none
 * holds it. */
HIB_HIDDEN int hib_sv_page(struct hib_image *img, struct hib_sv_cache *c, uint64_t sp,
			   const unsigned char **pg);
/* For random reads of a salvaged image (kmem.c): the map entry of the
 * chunk holding stream page sp, false where a raw run or nothing holds it
 * (a cache keyed by it can then tell a hit); and the last jump of the
 * walk's index at or before recovered entry e, false where none is. */
HIB_HIDDEN bool hib_sv_chunk_of(const struct hib_salvage *s, uint64_t sp, uint64_t *e);
HIB_HIDDEN bool hib_sv_jump_at(const struct hib_salvage *s, uint64_t e,
			       struct sv_jump *j);
/* damage.c: whether the damage took (or may have taken) the page of pfn,
 * one that the recovered index lacks, with the report's words for it. */
HIB_HIDDEN bool hib_damage_pfn(const struct hib_image *img, uint64_t pfn,
			       char *why, size_t cap);
/* Whether the walk lost any page (a CRC mismatch alone loses none). */
HIB_HIDDEN bool hib_damage_lost(const struct hib_image *img);
/* Decodes the chunk at map entry e into c (cmp, unc): HIB_OK with its
 * length and pages; HIB_ERR_DAMAGED with why in msg. */
enum sv_try { SV_OK, SV_LENGTH, SV_DECODE, SV_TRUNC };
HIB_HIDDEN enum sv_try hib_sv_try(struct hib_image *img, struct hib_sv_cache *c,
				  uint64_t e, uint64_t *cmp_len, uint64_t *need,
				  uint64_t *pages, char *msg, size_t cap);

/* The kernel's words for a chunk whose length word is absurd (compressed)
 * or that does not decode to whole pages, quoted, per version. */
HIB_HIDDEN const char *hib_kernel_len_words(enum hib_compression c, bool compressed);
/* Map entry e's page into c->unc, for a raw stream. */
HIB_HIDDEN enum sv_try hib_sv_try_raw(struct hib_image *img, struct hib_sv_cache *c,
				      uint64_t e, char *msg, size_t cap);

#endif
