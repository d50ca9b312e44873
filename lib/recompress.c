/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * recompress.c - rewrite the image part of a swap area, the way the kernel's
 * swsusp_write() / save_compressed_image() / mark_swapfiles() would have
 * written it, into the slots the source image occupied and nowhere else.
 *
 * Why only those slots: the swap area usually also holds pages the
 * hibernated system had swapped out before it hibernated; after resume its
 * processes read them back. The slots of the image itself are the only ones
 * known to be free in the hibernated system (they were allocated after the
 * snapshot). So: size the new image first (compressing harder where it does
 * not fit), then copy the area, write the image into those slots in the
 * kernel's allocation order, zero the ones left over, and write the resume
 * page last.
 */
#include "writerP.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static const int ladder_lz4[] = { 0, 1, 9, 12 };
static const int ladder_lzo[] = { 1, 999 };
static const int ladder_none[] = { 0 };

/* ---- slots ---------------------------------------------------------------- */

static int collect_slots(struct wctx *w)
{
	struct hib_image *img = w->img;

	w->slots = calloc(img->devpages / 8 + 1, 1);
	if (!w->slots)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	return hib_owned_slots(img, w->slots, img->devpages, &w->nslots);
}

/*
 * --unsafe-extra-slots: which slots outside the source image read as zero.
 * Extra slots are taken from those first, lowest first; only when there are
 * not enough, from those holding data (pages the hibernated system had
 * swapped out, probably: the kernel does not zero a slot it frees, but an
 * area that was never used that far reads as zero). The scan stops once
 * need zero slots are found; when it does not, it has seen the whole area
 * and extra_ndata is every data slot it could take. Holes of a sparse file
 * count as zero without being read. Memory: one bit per page.
 */
static int classify_extra(struct wctx *w, uint64_t need)
{
	struct hib_image *img = w->img;
	const size_t bs = 1 << 20;
	const uint64_t ps = w->ps, per = bs / ps ? bs / ps : 1;
	uint64_t p = 1, z = 0, d = 0;
	unsigned char *buf;
	int sparse = 1, rc = HIB_OK;

	w->extra_zero = calloc(img->devpages / 8 + 1, 1);
	buf = malloc(per * ps);
	if (!w->extra_zero || !buf) {
		free(buf);
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	}
	while (p < img->devpages && z < need && rc == HIB_OK) {
		uint64_t dstart = p, dend = img->devpages;  /* pages to read */

		if (sparse) {
			off_t dd = lseek(img->fd, (off_t)(p * ps), SEEK_DATA);

			if (dd < 0 && errno == ENXIO) {
				dstart = dend = img->devpages;      /* a hole to the end */
			} else if (dd < 0) {
				sparse = 0;                         /* no SEEK_DATA: read it all */
			} else {
				off_t h = lseek(img->fd, dd, SEEK_HOLE);

				dstart = (uint64_t)dd / ps;
				if (h > dd)
					dend = ((uint64_t)h + ps - 1) / ps;
				if (dstart < p)
					dstart = p;
				if (dstart > img->devpages)
					dstart = img->devpages;
				if (dend > img->devpages)
					dend = img->devpages;
				if (dend <= dstart)                 /* no progress: read a page */
					dend = dstart + 1 <= img->devpages ? dstart + 1 : dstart;
			}
		}
		for (; p < dstart && z < need; p++)         /* a hole: zeros, unread */
			if (hib_w_extra_ok(w, p)) {
				set_bit(w->extra_zero, p);
				z++;
			}
		p = dstart;
		while (p < dend && z < need && rc == HIB_OK) {
			uint64_t n = dend - p < per ? dend - p : per, k;

			rc = hib_pread(img, buf, n * ps, p * ps,
				       "looking for free slots outside the image");
			for (k = 0; rc == HIB_OK && k < n && z < need; k++, p++) {
				if (!hib_w_extra_ok(w, p))
					continue;
				if (hib_page_zero(buf + k * ps, w->ps)) {
					set_bit(w->extra_zero, p);
					z++;
				} else {
					d++;
				}
			}
		}
	}
	free(buf);
	w->extra_nzero = z;
	w->extra_ndata = d;
	return rc;
}

/* Which entries are zero-flagged in the output. */
static int plan_zero(struct wctx *w)
{
	struct hib_image *img = w->img;
	uint64_t e, n = 0;

	w->outzero = calloc(w->entries / 8 + 1, 1);
	if (!w->outzero)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	if (w->o->zero == HIB_ZERO_KEEP || w->o->zero == HIB_ZERO_OMIT)
		for (e = 0; e < w->entries; e++)
			if (hib_pfn_is_zero(img, e))
				set_bit(w->outzero, e);
	if (w->o->zero == HIB_ZERO_OMIT) {
		struct hib_reader *rd;
		struct hib_page pg;
		int rc = hib_reader_new(img, &rd);

		if (rc)
			return rc;
		rc = hib_reader_set_threads(rd, w->o->threads);
		while (rc == 0 && (rc = hib_reader_next_page(rd, &pg)) == 1) {
			rc = 0;
			if (pg.data && hib_page_zero(pg.data, w->ps))
				set_bit(w->outzero, pg.entry);
		}
		hib_reader_free(rd);
		if (rc < 0)
			return rc;
	}
	for (e = 0; e < w->entries; e++)
		n += bit(w->outzero, e);
	w->res->zero_flagged = n;
	w->image_pages = w->entries - n;
	w->stream_pages = w->meta_pages + w->image_pages;
	w->nchunks = w->o->to == HIB_COMP_NONE ? w->stream_pages :
		     div_round_up(w->stream_pages, UNC_PAGES);
	return HIB_OK;
}

static int cmp_gain_desc(const void *a, const void *b, void *arg)
{
	const int64_t *gain = arg;
	int64_t ga = gain[*(const uint32_t *)a], gb = gain[*(const uint32_t *)b];

	return ga < gb ? 1 : ga > gb ? -1 :
	       (*(const uint32_t *)a > *(const uint32_t *)b) -
	       (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* Size at the default level; where it does not fit, upgrade the chunks that
 * win the most pages at the next level, then the next. */
static int choose_levels(struct wctx *w)
{
	const struct hib_recompress_opts *o = w->o;
	uint64_t avail = w->nslots, total, k;
	uint8_t *cur_disk = NULL;
	int64_t *gain = NULL;
	uint32_t *order = NULL;
	int li, rc;

	w->chunk_level = calloc(w->nchunks + 1, 1);
	w->chunk_disk = calloc(w->nchunks + 1, 1);
	if (!w->chunk_level || !w->chunk_disk)
		return hib_seterr(w->img, HIB_ERR_NOMEM, "out of memory");
	w->res->level_default = w->ladder[0];
	w->res->level_max = w->ladder[0];
	w->sized = 1;
	if (o->to == HIB_COMP_NONE) {
		w->res->disk_pages = w->stream_pages;   /* known without a pass */
		return HIB_OK;
	}
	/* Even if every chunk came out at the kernel's worst case, would it
	 * fit? Then there is nothing to decide and one pass does it all. */
	if (!o->dry_run) {
		uint64_t worst = hib_w_slots_for(w, w->nchunks * (uint64_t)CMP_PAGES_MAX);

		if (worst <= avail) {
			w->sized = 0;
			return HIB_OK;
		}
		/* One level and leave to take more slots: nothing to decide,
		 * as long as the slots that read as zero take even the worst
		 * case. Otherwise how many slots holding data it overwrites
		 * must be known before writing, and that takes the size. */
		if (o->unsafe_extra_slots && w->nladder == 1) {
			rc = classify_extra(w, worst - avail);
			if (rc)
				return rc;
			if (w->extra_nzero >= worst - avail) {
				w->sized = 0;
				return HIB_OK;
			}
		}
	}
	w->size_level = 0;
	rc = hib_w_run_pass(w, "sizing");
	if (rc)
		return rc;
	total = w->disk_pages;
	w->res->level_default = w->ladder[0];
	w->res->level_max = w->ladder[0];
	if (hib_w_slots_for(w, total) <= avail || w->nladder == 1 ||
	    o->to == HIB_COMP_NONE)
		goto done;

	cur_disk = malloc(w->nchunks + 1);
	gain = malloc((w->nchunks + 1) * sizeof(*gain));
	order = malloc((w->nchunks + 1) * sizeof(*order));
	if (!cur_disk || !gain || !order) {
		rc = hib_seterr(w->img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	memcpy(cur_disk, w->chunk_disk, w->nchunks);
	for (li = 1; li < w->nladder && hib_w_slots_for(w, total) > avail; li++) {
		w->size_level = li;
		rc = hib_w_run_pass(w, "sizing harder");
		if (rc)
			goto out;
		for (k = 0; k < w->nchunks; k++) {
			gain[k] = (int64_t)cur_disk[k] - (int64_t)w->chunk_disk[k];
			order[k] = (uint32_t)k;
		}
		qsort_r(order, w->nchunks, sizeof(*order), cmp_gain_desc, gain);
		for (k = 0; k < w->nchunks && hib_w_slots_for(w, total) > avail; k++) {
			uint32_t c = order[k];

			if (gain[c] <= 0)
				break;
			total -= (uint64_t)gain[c];
			cur_disk[c] = w->chunk_disk[c];
			w->chunk_level[c] = (uint8_t)li;
			w->res->level_max = w->ladder[li];
		}
	}
	/* Sizes of the chosen mix, exactly, for the report. */
	w->per_chunk = 1;
	rc = hib_w_run_pass(w, "sizing mix");
	if (rc)
		goto out;
	if (w->disk_pages != total) {
		rc = hib_seterr(w->img, HIB_ERR_INVAL, "internal: level mix sized twice differently");
		goto out;
	}
done:
	w->res->disk_pages = total;
	rc = HIB_OK;
out:
	free(cur_disk);
	free(gain);
	free(order);
	return rc;
}

/* ---- output ------------------------------------------------------------------ */


/*
 * Copies the source area except the old image's slots: those are rewritten
 * or, in a new file, left as holes (zeros). Holes of the source and pages of
 * zeros stay holes. A device gets every byte, zeros included.
 */
static int copy_area(struct wctx *w, int sparse)
{
	struct hib_image *img = w->img;
	size_t bs = 1 << 20, ps = w->ps;
	unsigned char *buf = malloc(bs);
	uint64_t off = 0, end;
	int rc = HIB_OK;

	if (!buf)
		return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
	while (off < img->devsize && rc == HIB_OK) {
		if (sparse) {
			off_t d = lseek(img->fd, (off_t)off, SEEK_DATA);

			if (d < 0 && errno == ENXIO)
				break;                  /* only a hole is left */
			if (d >= 0) {
				off_t h = lseek(img->fd, d, SEEK_HOLE);

				off = (uint64_t)d & ~(uint64_t)(ps - 1);
				end = h > d ? ((uint64_t)h + ps - 1) & ~(uint64_t)(ps - 1) :
				      img->devsize;
			} else {
				end = img->devsize;     /* no SEEK_DATA here */
			}
		} else {
			end = img->devsize;
		}
		if (end > img->devsize)
			end = img->devsize;
		while (off < end && rc == HIB_OK) {
			size_t n = end - off < bs ? (size_t)(end - off) : bs, i, run = 0;

			rc = hib_pread(img, buf, n, off, "copying the swap area");
			for (i = 0; rc == HIB_OK && i <= n; i += ps) {
				uint64_t pg = (off + i) / ps;
				bool skip = i == n || (pg < img->devpages && bit(w->slots, pg)) ||
					    (sparse && i + ps <= n && hib_page_zero(buf + i, w->ps));

				if (!skip && i + ps <= n) {
					run += ps;
					continue;
				}
				if (run)
					rc = hib_w_out_write(w, buf + i - run, run, off + i - run);
				run = 0;
				if (i < n && !skip)     /* a partial last page */
					rc = hib_w_out_write(w, buf + i, n - i, off + i);
			}
			off += n;
		}
	}
	free(buf);
	if (rc == HIB_OK && sparse)
		rc = hib_output_set_size(w->out, img->devsize);
	return rc;
}

static int recompress(struct hib_image *img, const char *out,
		      const struct hib_recompress_opts *o,
		      struct hib_recompress_result *res)
{
	struct wctx w;
	int rc;

	memset(res, 0, sizeof(*res));
	memset(&w, 0, sizeof(w));
	w.cur_slot = UINT32_MAX;
	if (!img->loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	/* It writes the kernel's format into the source's slots; a uswsusp
	 * source has its own container that would be left inconsistent. */
	if (img->ct != &hib_swsusp)
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "%s: recompress rewrites in-kernel images only, not a uswsusp (suspend-utils) image",
				  img->path);
	rc = hib_image_load_pfns(img);
	if (rc)
		return rc;
	w.img = img;
	w.o = o;
	w.res = res;
	w.ps = img->lay.ps;
	w.word = img->lay.word;
	w.epm = img->map_page_entries;
	w.entries = img->pfns.entries;
	w.meta_pages = img->info.meta_pages;
	switch (o->to) {
	case HIB_COMP_LZ4: w.ladder = ladder_lz4; w.nladder = 4; break;
	case HIB_COMP_LZO: w.ladder = ladder_lzo; w.nladder = 2; break;
	default:           w.ladder = ladder_none; w.nladder = 1; break;
	}
	if (o->level != HIB_LEVEL_AUTO) {
		w.fixed_level = o->level;
		w.ladder = &w.fixed_level;
		w.nladder = 1;
	}
	w.hdrpage = malloc(w.ps);
	w.zeropage = calloc(2, w.ps);
	w.mappage = calloc(1, w.ps);
	if (!w.hdrpage || !w.zeropage || !w.mappage) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = hib_w_setup_pool(&w);
	if (rc)
		goto out;
	res->flags = (img->hdr.flags & (HIB_SF_PLATFORM_MODE | HIB_SF_HW_SIG)) |
		     (o->to == HIB_COMP_NONE ? HIB_SF_NOCOMPRESS_MODE : HIB_SF_CRC32_MODE) |
		     (o->to == HIB_COMP_LZ4 ? HIB_SF_COMPRESSION_ALG_LZ4 : 0);

	rc = collect_slots(&w);
	if (rc == HIB_OK)
		rc = plan_zero(&w);
	if (rc == HIB_OK)
		rc = choose_levels(&w);
	if (rc)
		goto out;
	res->slots_source = w.nslots;
	res->slots_needed = hib_w_slots_for(&w, res->disk_pages);
	res->stream_pages = w.stream_pages;
	res->image_pages = w.image_pages;
	res->cmp_bytes = w.cmp_bytes;
	res->chunks = w.nchunks;
	for (uint64_t k = 0; k < w.nchunks && o->to != HIB_COMP_NONE; k++)
		res->chunks_harder += w.chunk_level[k] != 0;
	res->needs_kernel = hib_w_needs_kernel(&w);
	res->slots_extra = res->slots_needed > w.nslots ? res->slots_needed - w.nslots : 0;
	if (res->slots_extra && !o->unsafe_extra_slots) {
		rc = hib_seterr(img, HIB_ERR_INVAL,
				"the new image needs %" PRIu64 " slots, the source image occupied %" PRIu64 ": %" PRIu64 " missing even at the hardest level (--unsafe-extra-slots takes others, which may hold pages the hibernated system had swapped out)",
				res->slots_needed,
				w.nslots,
				res->slots_extra);
		goto out;
	}
	if (res->slots_extra) {
		uint64_t nzero, ndata;

		/* (choose_levels() may have looked already: then either it
		 * found enough zero slots, or it has seen the whole area.) */
		if (!w.extra_zero)
			rc = classify_extra(&w, res->slots_extra);
		if (rc)
			goto out;
		nzero = w.extra_nzero;
		ndata = w.extra_ndata;
		res->slots_extra_zero = nzero < res->slots_extra ? nzero : res->slots_extra;
		res->slots_extra_data = res->slots_extra - res->slots_extra_zero;
		w.plan_data = res->slots_extra_data;
		if (res->slots_extra_data > ndata) {
			rc = hib_seterr(img, HIB_ERR_INVAL,
					"the new image needs %" PRIu64 " slots outside the source image, the area has only %" PRIu64 " (%" PRIu64 " read as zero, %" PRIu64 " hold data)",
					res->slots_extra,
					nzero + ndata,
					nzero, ndata);
			goto out;
		}
		if (res->slots_extra_data && !o->overwrite_swapped_out) {
			rc = hib_seterr(img, HIB_ERR_INVAL,
					"the new image needs %" PRIu64 " slots outside the source image: %" PRIu64 " read as zero, %" PRIu64 " hold data (pages the hibernated system had swapped out, probably); --overwrite-swapped-out writes over them",
					res->slots_extra, res->slots_extra_zero,
					res->slots_extra_data);
			goto out;
		}
	}
	if (o->dry_run)
		goto out;

	hib_w_new_header_page(&w);
	rc = hib_output_open(img, out, (o->output_flags & HIB_OUTPUT_FORCE) |
			     HIB_OUTPUT_DEVICE_OK | (o->device ? HIB_OUTPUT_DEVICE : 0),
			     img->devsize, &w.out);
	if (rc == HIB_OK)
		rc = copy_area(&w, !o->device);
	if (rc == HIB_OK)
		rc = hib_w_write_image(&w);
	if (rc == HIB_OK) {
		res->crc32 = w.crc;
		res->cmp_bytes = w.cmp_bytes;
		if (!w.sized) {
			res->disk_pages = w.disk_pages;
			res->slots_needed = hib_w_slots_for(&w, w.disk_pages);
			/* only zero slots could be taken */
			res->slots_extra = w.slots_extra;
			res->slots_extra_zero = w.slots_extra_zero;
			res->slots_extra_data = w.slots_extra_data;
		}
		if (w.slots_extra != res->slots_extra ||
		    w.slots_extra_zero != res->slots_extra_zero ||
		    w.slots_extra_data != res->slots_extra_data)
			rc = hib_seterr(img, HIB_ERR_INVAL,
					"internal: planned %" PRIu64 " extra slots (%" PRIu64 " zero), took %" PRIu64 " (%" PRIu64 " zero)",
					res->slots_extra,
					res->slots_extra_zero,
					w.slots_extra,
					w.slots_extra_zero);
		if (res->disk_pages != w.disk_pages)
			rc = hib_seterr(img, HIB_ERR_INVAL,
					"internal: sized %" PRIu64 " disk pages, wrote %" PRIu64,
					res->disk_pages,
					w.disk_pages);
	}
	/* The stream is the source's when only the codec changed: its CRC
	 * must come out the same. */
	if (rc == HIB_OK && o->to != HIB_COMP_NONE &&
	    (img->hdr.flags & HIB_SF_CRC32_MODE) &&
	    res->zero_flagged == img->pfns.zero_flagged &&
	    res->image_pages == img->info.image_pages) {
		res->crc_compared = 1;
		if (w.crc != img->hdr.crc32)
			rc = hib_seterr(img, HIB_ERR_DAMAGED,
					"CRC32 of the rewritten stream 0x%08x differs from the source's 0x%08x",
					w.crc, img->hdr.crc32);
	}
	rc = hib_output_close(w.out, rc);
	w.out = NULL;
out:
	hib_w_release(&w, rc);
	return rc;
}

int hib_recompress(struct hib_image *img, const char *out,
		   const struct hib_recompress_opts *opts,
		   struct hib_recompress_result *res)
{
	struct hib_recompress_opts o;
	struct hib_recompress_result full;
	int rc = HIB_ABI_IN(img, hib_recompress_opts, &o, opts);

	if (rc == HIB_OK)
		rc = HIB_ABI_SIZE(img, hib_recompress_result, res);
	if (rc)
		return rc;
	/* Its output is a copy of the whole device, and extra slots would be
	 * taken wherever the device reads as zero, file system or not. */
	if (img->in_place)
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "%s: a swap file read in place is not rewritten (the output would be all of %s, and new slots could land outside the file): copy the device and run recompress on the copy with -R %" PRIu64,
				  img->path, img->sw.device, img->resume_offset);
	rc = recompress(img, out, &o, &full);
	hib_abi_out(res, &full);
	return rc;
}
