/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * salvage.c - the best-effort walk of a damaged stream, and the PFN index
 * of what it recovered.
 *
 * The kernel writes each compressed chunk from a fresh page and the next
 * one right after it (save_compressed_image() in kernel/power/swap.c, 6.1
 * and 6.12: the chunk is copied out a page at a time from offset 0 through
 * swap_write_page()), and every chunk holds UNC_PAGES stream pages but the
 * last. So after a chunk that fails, or whose length word is absurd, the
 * next chunk starts on one of the following map entries: each is tried in
 * turn and the first that decodes to a whole chunk (or to a last, shorter
 * one that ends the map) is taken. Each entry is tried at most once per
 * walk, so the walk is bounded by the map.
 *
 * A gap is one chunk (32 stream pages) where the failed chunk's length
 * word was sane and leads exactly to the next good chunk; otherwise its
 * length is unknown and is found from the stream's end (the last chunk
 * ends at stream page pages-1), which resolves one such gap. Chunks
 * between two unknown gaps cannot be placed and are reported unplaced.
 *
 * The PFN list is stream pages 1..meta_pages, and data page k belongs to
 * the k-th entry that is not zero-flagged. Entries on a lost PFN-list
 * page are unknown, so the data pages after them are placed from the
 * stream's end (image_pages is in swsusp_info); where neither end reaches
 * they are lost, listed with their PFNs. No PFN is ever guessed.
 */
#include "salvageP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records kept at most: a stream that is garbage throughout would make
 * one per few map entries; past this many the rest is one record, so the
 * report's memory does not follow the size of the damage. */
#define SV_MAX_RECORDS 4096u

/* A walk's outcome in stream order: a good chunk or a gap. */
struct item {
	bool good;
	bool known;                 /* pages is known */
	uint64_t ref;               /* chunk or record index */
	uint64_t pages;
	uint64_t first_sp;          /* 0: not placed */
};

struct walk {
	struct hib_image *img;
	struct hib_salvage *s;
	struct hib_sv_cache c;
	struct item *it;
	uint64_t nit, capit;
	struct sv_run *runs;        /* every run of good chunks, in walk order */
	uint64_t nruns, capruns;
	uint32_t crc;
	bool crc_valid;
};

static int grow(struct hib_image *img, void **p, uint64_t *cap, uint64_t n, size_t elem)
{
	uint64_t ncap;
	void *q;

	if (n < *cap)
		return HIB_OK;
	ncap = *cap ? *cap * 2 : 16;
	q = realloc(*p, ncap * elem);
	if (!q)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	*p = q;
	*cap = ncap;
	return HIB_OK;
}

#define GROW(img, arr, n, cap) grow(img, (void **)&(arr), &(cap), n, sizeof(*(arr)))

static int add_item(struct walk *w, bool good, bool known, uint64_t ref, uint64_t pages)
{
	int rc = GROW(w->img, w->it, w->nit, w->capit);

	if (rc)
		return rc;
	w->it[w->nit++] = (struct item){ .good = good, .known = known, .ref = ref,
					 .pages = pages };
	return HIB_OK;
}

static int add_good(struct walk *w, uint64_t e, uint64_t disk, uint64_t cmp_len,
		    uint64_t pages)
{
	struct hib_salvage *s = w->s;
	int rc;

	struct sv_run *l = w->nit && w->it[w->nit - 1].good ? &w->runs[w->nruns - 1] : NULL;

	s->sum.chunks_good += cmp_len ? 1 : pages;
	if (cmp_len) {
		if (w->crc_valid) {
			uint32_t c = hib_crc32_le(0, w->c.unc, pages * w->img->lay.ps);

			w->crc = hib_crc32_le_combine(w->crc, c, pages * w->img->lay.ps);
		}
		rc = GROW(w->img, s->ent, s->nent, s->capent);
		if (rc)
			return rc;
		s->ent[s->nent++] = e;
	}
	/* a chunk that follows whole ones in the map, or a raw page the
	 * previous: the same run (a short chunk ends its run) */
	if (l && l->map_entry + l->disk == e &&
	    (cmp_len ? l->n && l->pages == l->n * UNC_PAGES : !l->n)) {
		l->disk += disk;
		l->pages += pages;
		l->n += cmp_len ? 1 : 0;
		w->it[w->nit - 1].pages += pages;
		return HIB_OK;
	}
	rc = GROW(w->img, w->runs, w->nruns, w->capruns);
	if (rc)
		return rc;
	w->runs[w->nruns] = (struct sv_run){ .map_entry = e, .disk = disk, .pages = pages,
					     .first = cmp_len ? s->nent - 1 : 0,
					     .n = cmp_len ? 1 : 0 };
	return add_item(w, true, true, w->nruns++, pages);
}

static int add_record(struct walk *w, enum hib_damage_kind k, uint64_t chunk,
		      uint64_t e, const char *msg, uint64_t *idx)
{
	struct hib_salvage *s = w->s;
	struct hib_damage *d;
	uint64_t dev = 0;
	int rc = GROW(w->img, s->dm, s->ndm, s->capdm);

	if (rc)
		return rc;
	if (e < w->img->info.map_entries && hib_image_map_entry(w->img, e, &dev))
		dev = 0;            /* the record says where in the map, all the same */
	d = &s->dm[s->ndm];
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->kind = k;
	d->chunk = chunk;
	d->map_entry = e;
	d->devpage = dev;
	snprintf(d->what, sizeof(d->what), "%s", msg);
	*idx = s->ndm++;
	w->crc_valid = false;
	return HIB_OK;
}

/* The record cap reached: one last record covers map entries e..n-1,
 * so the walk stays bounded and says where it stopped. */
static int give_up(struct walk *w, uint64_t chunk, uint64_t e, uint64_t n, const char *what)
{
	uint64_t idx;
	char msg[96];
	int rc;

	snprintf(msg, sizeof(msg), "too many damaged %s: the rest of the stream is not walked",
		 what);
	rc = add_record(w, HIB_DAMAGE_DECODE, chunk, e, msg, &idx);
	if (rc == HIB_OK) {
		w->s->dm[idx].map_entries = n - e;
		rc = add_item(w, false, false, idx, 0);
	}
	return rc;
}

/* Raw images: one stream page per map entry; only reads can fail. */
static int walk_raw(struct walk *w)
{
	struct hib_image *img = w->img;
	uint64_t e, n = img->info.map_entries, idx;
	char msg[256];
	int rc;

	for (e = img->ct->first_entry; e < n; e++) {
		enum sv_try t;
		uint64_t sp = e - img->ct->first_entry + 1;

		if (sp > img->info.pages - 1)
			break;
		if (w->s->ndm >= SV_MAX_RECORDS)
			return give_up(w, sp - 1, e, n, "pages");
		msg[0] = 0;
		t = hib_sv_try_raw(img, &w->c, e, msg, sizeof(msg));
		if (t == SV_OK) {
			rc = add_good(w, e, 1, 0, 1);
		} else if (t == SV_TRUNC) {
			rc = add_record(w, HIB_DAMAGE_TRUNCATED, sp - 1, e, msg, &idx);
			if (rc == HIB_OK)
				rc = add_item(w, false, false, idx, 0);
			return rc;
		} else if (w->nit && !w->it[w->nit - 1].good &&
			   w->s->dm[w->it[w->nit - 1].ref].map_entry +
			   w->it[w->nit - 1].pages == e) {
			/* a bad run of reads is one record */
			w->it[w->nit - 1].pages++;
			w->s->dm[w->it[w->nit - 1].ref].map_entries++;
			rc = HIB_OK;
		} else {
			rc = add_record(w, HIB_DAMAGE_DECODE, sp - 1, e, msg, &idx);
			if (rc == HIB_OK) {
				w->s->dm[idx].map_entries = 1;
				rc = add_item(w, false, true, idx, 1);
			}
		}
		if (rc)
			return rc;
	}
	return HIB_OK;
}

static int walk_compressed(struct walk *w)
{
	struct hib_image *img = w->img;
	uint64_t e = img->ct->first_entry, n = img->info.map_entries, k = 0;
	char msg[256];
	int rc;

	while (e < n) {
		uint64_t cmp_len, need, pages, e2, idx, cl2, need2 = 0, pages2 = 0;
		enum sv_try t, t2 = SV_DECODE;
		bool one;

		if (w->s->ndm >= SV_MAX_RECORDS)
			return give_up(w, k, e, n, "chunks");

		msg[0] = 0;
		t = hib_sv_try(img, &w->c, e, &cmp_len, &need, &pages, msg, sizeof(msg));
		if (t == SV_OK) {
			rc = add_good(w, e, need, cmp_len, pages);
			if (rc)
				return rc;
			e += need;
			k++;
			continue;
		}
		rc = add_record(w, t == SV_LENGTH ? HIB_DAMAGE_LENGTH :
				t == SV_TRUNC ? HIB_DAMAGE_TRUNCATED : HIB_DAMAGE_DECODE,
				k, e, msg, &idx);
		if (rc)
			return rc;
		if (t == SV_TRUNC) {
			w->s->dm[idx].map_entries = n - e;
			return add_item(w, false, false, idx, 0);
		}
		/* resync: the first following entry that starts a whole chunk */
		for (e2 = e + 1; e2 < n; e2++) {
			char m2[256];

			t2 = hib_sv_try(img, &w->c, e2, &cl2, &need2, &pages2, m2, sizeof(m2));
			if (t2 == SV_TRUNC)
				break;
			if (t2 == SV_OK && (pages2 == UNC_PAGES || e2 + need2 == n))
				break;
		}
		w->s->dm[idx].map_entries = (t2 == SV_OK ? e2 : n) - e;
		/* its own length led to the good chunk: exactly one chunk */
		one = t == SV_DECODE && need && e + need == e2 && t2 == SV_OK;
		rc = add_item(w, false, one, idx, one ? UNC_PAGES : 0);
		if (rc)
			return rc;
		k++;
		if (t2 == SV_TRUNC) {
			uint64_t ti;

			rc = add_record(w, HIB_DAMAGE_TRUNCATED, k, e2,
					"the input ends inside the stream", &ti);
			if (rc == HIB_OK) {
				w->s->dm[ti].map_entries = n - e2;
				rc = add_item(w, false, false, ti, 0);
			}
			return rc;
		}
		if (t2 != SV_OK)
			return HIB_OK;      /* no good chunk after it */
		rc = add_good(w, e2, need2, cl2, pages2);
		if (rc)
			return rc;
		e = e2 + need2;
		k++;
	}
	return HIB_OK;
}

/* A chunk that decodes but cannot be placed: a record of its own. */
static int unplace(struct walk *w, uint64_t i)
{
	const struct sv_run *c = &w->runs[w->it[i].ref];
	struct hib_damage *l = w->s->ndm ? &w->s->dm[w->s->ndm - 1] : NULL;
	uint64_t idx;
	int rc;

	w->it[i].first_sp = 0;
	/* chunks in a row that cannot be placed are one record */
	if (l && l->kind == HIB_DAMAGE_UNPLACED && l->map_entry + l->map_entries == c->map_entry) {
		l->map_entries += c->disk;
		return HIB_OK;
	}
	rc = add_record(w, HIB_DAMAGE_UNPLACED, 0, c->map_entry,
			"chunks that decode, but where they lie in the stream is unknown (after a gap of unknown length)",
			&idx);
	if (rc)
		return rc;
	w->s->dm[idx].map_entries = c->disk;
	return HIB_OK;
}

/* Whether pages lost in the gap item gi fit the map entries it skipped:
 * whole chunks where a good one follows, each at least one entry and at
 * most CMP_PAGES_MAX. */
static bool gap_fits(const struct walk *w, uint64_t gi, uint64_t pages, bool anchored)
{
	uint64_t skipped = w->s->dm[w->it[gi].ref].map_entries, chunks;

	if (!anchored || gi + 1 == w->nit)
		return true;        /* runs to the end: the last chunk may be short */
	if (pages % UNC_PAGES)
		return false;
	chunks = pages / UNC_PAGES;
	return chunks >= 1 && chunks <= skipped &&
	       chunks * CMP_PAGES_MAX >= skipped;
}

/* Stream pages for every item: forward from stream page 1 up to the first
 * gap of unknown length, back from the end after the last one. */
static int place(struct walk *w)
{
	struct hib_image *img = w->img;
	struct hib_salvage *s = w->s;
	uint64_t total = img->info.pages - 1, sp = 1, ep, i, first_u = w->nit,
		 last_u = w->nit, nu = 0, known = 0;
	bool anchored;
	int rc = HIB_OK;

	for (i = 0; i < w->nit; i++) {
		if (w->it[i].known) {
			known += w->it[i].pages;
			continue;
		}
		if (first_u == w->nit)
			first_u = i;
		last_u = i;
		nu++;
	}
	/* every gap followed by a good chunk is at least one whole chunk: when
	 * the pages missing are exactly one chunk a gap, each gap is one */
	if (nu > 1 && w->nit && w->it[w->nit - 1].good && known <= total &&
	    total - known == nu * UNC_PAGES) {
		for (i = 0; i < w->nit; i++)
			if (!w->it[i].known) {
				w->it[i].known = true;
				w->it[i].pages = UNC_PAGES;
			}
		nu = 0;
		first_u = last_u = w->nit;
	}
	for (i = 0; i < first_u && i < w->nit; i++) {
		w->it[i].first_sp = sp;
		sp += w->it[i].pages;
	}
	/* the walk ended on a good chunk: the stream's end is its end */
	anchored = w->nit && w->it[w->nit - 1].good;
	if (nu == 0 && sp <= total) {
		uint64_t idx;
		char msg[160];

		/* every chunk read, the stream not all there: the map ends */
		snprintf(msg, sizeof(msg), "the stream ends after %" PRIu64 " of %" PRIu64 " pages",
			 sp - 1, total);
		rc = add_record(w, HIB_DAMAGE_TRUNCATED, s->sum.chunks_good,
				img->info.map_entries, msg, &idx);
		if (rc)
			return rc;
		rc = add_item(w, false, true, idx, total - sp + 1);
		if (rc)
			return rc;
		w->it[w->nit - 1].first_sp = sp;
		return HIB_OK;
	}
	if (nu == 0)
		return HIB_OK;
	ep = total;
	if (anchored) {
		for (i = w->nit; i-- > last_u + 1;) {
			if (w->it[i].pages > ep) {
				ep = 0;
				break;
			}
			ep -= w->it[i].pages;
			w->it[i].first_sp = ep + 1;
		}
	} else {
		/* a trailing gap runs to the end; nothing after it */
		for (i = last_u + 1; i < w->nit; i++)
			w->it[i].first_sp = 0;
	}
	if (nu == 1 && ep + 1 >= sp && gap_fits(w, first_u, ep + 1 - sp, anchored)) {
		w->it[first_u].first_sp = sp;
		w->it[first_u].pages = ep + 1 - sp;
		w->it[first_u].known = true;
	} else if (nu == 1 && anchored) {
		/* the end does not add up (a map cut short?): nothing after
		 * the gap is placed by it */
		w->it[first_u].first_sp = sp;
		for (i = first_u + 1; i < w->nit; i++)
			if (w->it[i].good)
				rc = unplace(w, i);
		if (rc)
			return rc;
	} else if (nu > 1) {
		/* the first unknown gap starts where the forward count ends;
		 * what lies between the first and last cannot be placed */
		w->it[first_u].first_sp = sp;
		for (i = first_u + 1; i <= last_u; i++)
			if (w->it[i].good && (rc = unplace(w, i)))
				return rc;
	}
	return HIB_OK;
}

/* The placed chunks, by stream page; the gaps' records their pages. */
static int keep(struct walk *w)
{
	struct hib_salvage *s = w->s;
	uint64_t total = w->img->info.pages - 1, i;

	s->run = calloc(w->nruns + 1, sizeof(*s->run));
	if (!s->run)
		return hib_seterr(w->img, HIB_ERR_NOMEM, "out of memory");
	for (i = 0; i < w->nit; i++) {
		struct item *t = &w->it[i];

		if (!t->good) {
			struct hib_damage *d = &s->dm[t->ref];

			d->first_stream_page = t->first_sp;
			if (t->first_sp && !t->known)
				t->pages = total + 1 - t->first_sp;
			if (t->first_sp && t->first_sp + t->pages > total + 1)
				t->pages = total + 1 - t->first_sp;
			d->stream_pages = t->first_sp ? t->pages : 0;
			if (d->first_stream_page && d->first_stream_page <= w->img->info.meta_pages) {
				uint64_t end = d->first_stream_page + d->stream_pages;

				d->pfn_list_pages = (end > w->img->info.meta_pages + 1 ?
						     w->img->info.meta_pages + 1 : end) -
						    d->first_stream_page;
			}
			s->sum.stream_pages_lost += d->stream_pages;
			s->sum.chunks_lost++;
			continue;
		}
		if (!t->first_sp || t->first_sp > total)
			continue;
		w->runs[t->ref].first_sp = t->first_sp;
		if (t->first_sp + w->runs[t->ref].pages > total + 1)
			w->runs[t->ref].pages = total + 1 - t->first_sp;
		s->run[s->nrun++] = w->runs[t->ref];
	}
	return HIB_OK;
}

static int add_range(struct walk *w, uint64_t rec, uint64_t pfn)
{
	struct hib_salvage *s = w->s;
	int rc;

	if (s->nrg && s->rg[s->nrg - 1].rec == rec && s->rg[s->nrg - 1].last + 1 == pfn) {
		s->rg[s->nrg - 1].last = pfn;
		return HIB_OK;
	}
	rc = GROW(w->img, s->rg, s->nrg, s->caprg);
	if (rc)
		return rc;
	s->rg[s->nrg++] = (struct sv_range){ rec, pfn, pfn };
	return HIB_OK;
}

/* The record that lost stream page sp (records of gaps ascend). */
static uint64_t record_of(const struct hib_salvage *s, uint64_t sp, uint64_t fallback)
{
	uint64_t i;

	for (i = 0; i < s->ndm; i++) {
		const struct hib_damage *d = &s->dm[i];

		if (d->first_stream_page && d->first_stream_page <= sp &&
		    sp < d->first_stream_page + d->stream_pages)
			return i;
	}
	return fallback;
}

struct meta {
	bool avail;
	uint64_t n, nz;             /* entries, of them not zero-flagged */
};

static int index_pages(struct walk *w)
{
	struct hib_image *img = w->img;
	struct hib_salvage *s = w->s;
	const struct hib_layout *lay = &img->lay;
	uint64_t M = img->info.meta_pages, per = lay->ps / lay->word, m, j,
		 known_nz = 0, n = 0, last_sp = 0, last_pfn = 0, fb = UINT64_MAX,
		 entries_known = 0;
	struct meta *mt;
	uint64_t *base;
	bool *base_ok;
	int rc = HIB_OK;

	mt = calloc(M + 1, sizeof(*mt));
	base = calloc(M + 1, sizeof(*base));
	base_ok = calloc(M + 1, sizeof(*base_ok));
	if (!mt || !base || !base_ok) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* the first record that lost PFN-list pages answers for what they held */
	for (j = 0; j < s->ndm; j++)
		if (s->dm[j].pfn_list_pages) {
			fb = j;
			break;
		}
	for (m = 0; m < M; m++) {
		const unsigned char *pg;
		bool end = false;

		rc = hib_sv_page(img, &w->c, m + 1, &pg);
		if (rc)
			goto out;
		if (!pg)
			continue;
		mt[m].avail = true;
		for (j = 0; j < per && !end; j++) {
			uint64_t v = hib_get_word(lay, pg + j * lay->word, lay->word), pfn;
			bool zero;

			if (!hib_pfn_decode(lay->word, v, &pfn, &zero)) {
				end = true;
				break;
			}
			mt[m].n++;
			mt[m].nz += !zero;
		}
		known_nz += mt[m].nz;
		entries_known += mt[m].n;
	}
	/* data pages before each PFN-list page: from the start while every
	 * page before it is there, else from the end while every page from it
	 * on is */
	{
		uint64_t acc = 0;
		bool ok = true;

		for (m = 0; m < M; m++) {
			base[m] = acc;
			base_ok[m] = ok && mt[m].avail;
			ok = ok && mt[m].avail;
			acc += mt[m].nz;
		}
		acc = 0;
		ok = true;
		for (m = M; m-- > 0;) {
			ok = ok && mt[m].avail;
			acc += mt[m].nz;
			if (!base_ok[m] && ok && acc <= img->info.image_pages) {
				base[m] = img->info.image_pages - acc;
				base_ok[m] = true;
			}
		}
	}
	for (m = 0; m < M; m++) {
		if (!mt[m].avail && fb != UINT64_MAX)
			s->dm[fb].entries_unknown += m + 1 < M ? per : 0;
	}
	if (fb != UINT64_MAX && img->info.image_pages > known_nz)
		s->dm[fb].unplaceable = img->info.image_pages - known_nz;

	hib_pfn_index_reset(img, M);
	for (m = 0; m < M; m++) {
		const unsigned char *pg;
		uint64_t nz = 0;

		if (!mt[m].avail)
			continue;
		rc = hib_sv_page(img, &w->c, m + 1, &pg);
		if (rc)
			goto out;
		for (j = 0; j < mt[m].n; j++) {
			uint64_t v = hib_get_word(lay, pg + j * lay->word, lay->word), pfn = 0;
			bool zero = false;
			const unsigned char *data = NULL;
			uint64_t dsp = 0;

			(void)hib_pfn_decode(lay->word, v, &pfn, &zero);
			if (!zero) {
				dsp = M + 1 + base[m] + nz++;
				/* only whether a chunk holds it, not its bytes */
				if (base_ok[m] && hib_sv_holds(s, dsp))
					data = (const unsigned char *)1;
			}
			/* the index takes ascending PFNs only: a list that does
			 * not ascend is damaged where it stops */
			if (n && pfn <= last_pfn) {
				s->sum.pages_lost++;
				continue;
			}
			if (zero || data) {
				if (!zero && dsp != last_sp + 1) {
					rc = GROW(img, s->jp, s->njp, s->capjp);
					if (rc)
						goto out;
					s->jp[s->njp++] = (struct sv_jump){ n, dsp };
				}
				if (!zero)
					last_sp = dsp;
				rc = hib_pfn_index_add(img, n++, pfn, zero);
				if (rc)
					goto out;
				last_pfn = pfn;
				s->sum.data_pages_saved += !zero;
				continue;
			}
			/* lost, its PFN known */
			{
				uint64_t rec = base_ok[m] ? record_of(s, dsp, fb) : fb;

				if (rec == UINT64_MAX)
					rec = s->ndm ? s->ndm - 1 : UINT64_MAX;
				if (rec != UINT64_MAX) {
					s->dm[rec].data_pages++;
					rc = add_range(w, rec, pfn);
					if (rc)
						goto out;
				}
				s->sum.pages_lost++;
			}
		}
	}
	img->pfns_loaded = true;
	s->sum.pages_saved = n;
	s->sum.entries = entries_known;
	for (j = 0; j < s->ndm; j++)
		s->sum.pages_lost += s->dm[j].entries_unknown;
	if (fb != UINT64_MAX) {
		/* the last PFN-list page's entries, when it is lost, are
		 * counted by the data pages they describe at least */
		s->sum.entries += s->dm[fb].entries_unknown;
	}
out:
	free(mt);
	free(base);
	free(base_ok);
	return rc;
}

static int cmp_range(const void *a, const void *b)
{
	const struct sv_range *x = a, *y = b;

	if (x->rec != y->rec)
		return x->rec < y->rec ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Ranges by record, joined where they touch; each record's first. */
static int finish_ranges(struct walk *w)
{
	struct hib_salvage *s = w->s;
	uint64_t i, o = 0;

	if (s->nrg)
		qsort(s->rg, s->nrg, sizeof(*s->rg), cmp_range);
	for (i = 0; i < s->nrg; i++) {
		if (o && s->rg[o - 1].rec == s->rg[i].rec &&
		    s->rg[o - 1].last + 1 == s->rg[i].first)
			s->rg[o - 1].last = s->rg[i].last;
		else
			s->rg[o++] = s->rg[i];
	}
	s->nrg = o;
	s->rg_first = calloc(s->ndm + 1, sizeof(*s->rg_first));
	if (!s->rg_first)
		return hib_seterr(w->img, HIB_ERR_NOMEM, "out of memory");
	for (i = s->nrg; i-- > 0;) {
		s->rg_first[s->rg[i].rec] = i;
		s->dm[s->rg[i].rec].ranges++;
	}
	return HIB_OK;
}

/* Here, not in damage.c: the readers switch to it, and damage.c reads
 * the PFN list through them. */
int hib_image_set_partial(struct hib_image *img, int on)
{
	if (!on != !img->partial) {
		/* a PFN index read the other way is read again */
		hib_salvage_free(img);
		hib_pfn_index_reset(img, 0);
	}
	img->partial = on != 0;
	return HIB_OK;
}

void hib_salvage_free(struct hib_image *img)
{
	struct hib_salvage *s = img->salv;

	if (!s)
		return;
	free(s->run);
	free(s->ent);
	free(s->dm);
	free(s->rg);
	free(s->rg_first);
	free(s->jp);
	free(s);
	img->salv = NULL;
}

int hib_salvage_walk(struct hib_image *img)
{
	struct walk w;
	int rc;

	if (!img->loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	if (!img->ct->kernel_reader)
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "best effort reads the kernel's own images only, not a %s one",
				  img->ct->name);
	hib_salvage_free(img);
	memset(&w, 0, sizeof(w));
	w.img = img;
	w.s = calloc(1, sizeof(*w.s));
	if (!w.s)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	img->salv = w.s;
	w.s->sum.partial = 1;
	w.crc_valid = true;
	rc = hib_sv_cache_init(img, &w.c);
	if (rc == HIB_OK)
		rc = img->info.compression == HIB_COMP_NONE ? walk_raw(&w) : walk_compressed(&w);
	if (rc == HIB_OK)
		rc = place(&w);
	if (rc == HIB_OK)
		rc = keep(&w);
	if (rc == HIB_OK)
		rc = index_pages(&w);
	if (rc == HIB_OK)
		rc = finish_ranges(&w);
	if (rc == HIB_OK && w.crc_valid && w.s->ndm == 0 &&
	    img->info.compression != HIB_COMP_NONE &&
	    (img->hdr.flags & HIB_SF_CRC32_MODE) && w.crc != img->hdr.crc32) {
		uint64_t idx;
		char msg[160];

		/* every chunk decoded: only the sum is off */
		snprintf(msg, sizeof(msg),
			 "CRC32 mismatch: header 0x%08x, data 0x%08x (kernel: \"Invalid image CRC32!\")",
			 img->hdr.crc32, w.crc);
		rc = add_record(&w, HIB_DAMAGE_CRC, 0, img->ct->first_entry, msg, &idx);
		if (rc == HIB_OK) {
			uint64_t *f = realloc(w.s->rg_first, (w.s->ndm + 1) * sizeof(*f));

			if (!f)
				rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
			else
				w.s->rg_first = f, f[idx] = 0;
			w.s->sum.crc_mismatch = 1;
		}
	}
	w.s->sum.records = w.s->ndm;
	hib_sv_cache_free(&w.c);
	free(w.it);
	free(w.runs);
	if (rc)
		hib_salvage_free(img);
	return rc;
}
