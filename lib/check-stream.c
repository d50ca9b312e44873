/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check-stream.c - loading (kernel/power/swap.c load_compressed_image(),
 * load_image(); snapshot.c unpack_orig_pfns()): every chunk as the
 * target's decoder takes it, the PFN list against the target's memory and
 * version, the CRC. The walk is verify's, through the reader; where it
 * stops, the chunk is judged again by the kernel's own, laxer, checks.
 */
#include "checkP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int chk_kernel_chunk(struct chk_ctx *c, uint64_t e, enum hib_compression as,
		     char *msg, size_t cap)
{
	struct hib_image *img = c->img;
	unsigned int ps = img->lay.ps, hdr = img->lay.word;
	size_t unc_size = (size_t)UNC_PAGES * ps, unc_len = 0;
	const char *w = chk_codec_word(c, as);
	unsigned char *cmp, *unc;
	uint64_t cmp_len, need, i, dev;
	int rc;

	msg[0] = 0;
	if (e >= c->in->map_entries)
		return HIB_OK;
	cmp = malloc((size_t)CMP_PAGES_MAX * ps);
	unc = malloc(unc_size);
	rc = cmp && unc ? HIB_OK : HIB_ERR_NOMEM;
	if (!rc && !(rc = hib_image_map_entry(img, e, &dev)))
		rc = hib_read_devpage(img, dev, cmp);
	if (rc)
		goto out;
	cmp_len = hib_get_word(&img->lay, cmp, hdr);
	if (cmp_len == 0 || cmp_len > WORST_COMPRESS((uint64_t)unc_size)) {
		snprintf(msg, cap, "PM: Invalid %s compressed length", w);
		goto out;
	}
	need = (hdr + cmp_len + ps - 1) / ps;
	/* beyond the map the kernel stops with no message of its own */
	if (e + need > c->in->map_entries)
		goto out;
	for (i = 1; i < need && !rc; i++)
		if (!(rc = hib_image_map_entry(img, e + i, &dev)))
			rc = hib_read_devpage(img, dev, cmp + i * ps);
	if (rc)
		goto out;
	if (hib_decompress(as, cmp + hdr, (size_t)cmp_len, unc, unc_size, &unc_len) != HIB_OK)
		snprintf(msg, cap, "PM: %s decompression failed", w);
	else if (unc_len == 0 || unc_len > unc_size || unc_len % ps)
		snprintf(msg, cap, "PM: Invalid %s uncompressed length", w);
out:
	free(cmp);
	free(unc);
	return rc;
}

struct walk {
	uint64_t next_entry;        /* map entry after the last chunk decoded */
	uint64_t chunks;
};

static int on_chunk(const struct hib_chunk *ch, void *arg)
{
	struct walk *w = arg;

	w->next_entry = ch->map_entry + ch->disk_pages;
	w->chunks++;
	return 0;
}

static int walk_stream(struct chk_ctx *c)
{
	struct hib_image *img = c->img;
	const struct hib_header *h = c->h;
	struct chk_item *it = chk_add(c, "stream", STAGE_DATA, true);
	struct hib_progress p = HIB_INIT(struct hib_progress);
	struct hib_page pg = HIB_INIT(struct hib_page);
	struct walk w = { .next_entry = 1 };
	struct hib_reader *rd = NULL;
	char err[768], msg[256];
	int rc;

	rc = hib_reader_new(img, &rd);
	if (!rc)
		rc = hib_reader_set_threads(rd, c->threads);
	if (!rc) {
		uint64_t n = 0;

		hib_reader_set_chunk_cb(rd, on_chunk, &w);
		while ((rc = hib_reader_next(rd, &pg)) == 1)
			if ((++n & 0xff) == 0 && img->progress) {
				hib_reader_progress(rd, &p);
				hib_tick(img, "checking", p.stream_pages_done, p.stream_pages);
			}
		hib_reader_progress(rd, &p);
	}
	hib_reader_free(rd);
	if (rc == HIB_ERR_IO || rc == HIB_ERR_NOMEM) {
		chk_set(it, HIB_CHECK_UNKNOWN, "the image could not be read: %s", hib_image_error(img));
		chk_missing(it, "a readable image");
		return rc;
	}
	if (rc == 0) {
		c->walked = true;
		if (c->in->compression == HIB_COMP_NONE)
			chk_set(it, HIB_CHECK_PASS, "%" PRIu64 " raw pages read (an uncompressed image keeps no checksum)",
				p.stream_pages);
		else
			chk_set(it, HIB_CHECK_PASS, "%" PRIu64 " chunks decoded, CRC32 0x%08x as the header keeps it",
				w.chunks, p.crc32);
		return HIB_OK;
	}
	snprintf(err, sizeof(err), "%s", hib_image_error(img));
	if (p.stream_pages_done < c->in->meta_pages)
		it->stage = STAGE_META;
	if (p.crc_checked && !p.crc_ok && (h->flags & HIB_SF_CRC32_MODE)) {
		chk_set(it, HIB_CHECK_FAIL, "%s", err);
		chk_message(it, "PM: Invalid image CRC32!");
		return HIB_OK;
	}
	if (c->in->compression != HIB_COMP_NONE &&
	    chk_kernel_chunk(c, w.next_entry, c->in->compression, msg, sizeof(msg)) == HIB_OK &&
	    msg[0]) {
		chk_set(it, HIB_CHECK_FAIL, "%s", err);
		chk_message(it, "%s", msg);
		return HIB_OK;
	}
	chk_set(it, HIB_CHECK_FAIL, "%s (not one of the kernel's own checks: what it prints is not predicted)", err);
	return HIB_OK;
}

/* 6.6 (005e8dddd497) set ENCODED_PFN_ZERO_FLAG, the top bit; older
 * kernels take it for part of the PFN, which pfn_valid() refuses. */
static void zero_flags(struct chk_ctx *c, const struct hib_pfns *pf)
{
	struct chk_item *it = chk_add(c, "zero-pages", STAGE_PFNS, true);

	if (!pf->zero_flagged) {
		chk_set(it, HIB_CHECK_PASS, "no zero-flagged PFN: kernels before 6.6 read the list too");
		return;
	}
	if (!c->kver) {
		chk_set(it, HIB_CHECK_UNKNOWN, "%" PRIu64 " PFNs zero-flagged (ENCODED_PFN_ZERO_FLAG): only kernels 6.6 and later know the flag",
			pf->zero_flagged);
		chk_missing_input(c, it, HIB_TIN_KERNEL, "the target kernel's version (its kernel file or config)");
		return;
	}
	if (c->kver >= HIB_KVER(6, 6, 0)) {
		chk_set(it, HIB_CHECK_PASS, "%" PRIu64 " PFNs zero-flagged, which 6.6 and later restore as zero pages",
			pf->zero_flagged);
		return;
	}
	chk_set(it, HIB_CHECK_FAIL,
		"%" PRIu64 " PFNs zero-flagged: a kernel before 6.6 reads the flag (bit %u) as part of the PFN, pfn_valid() fails and "
		"unpack_orig_pfns() returns -EFAULT with no message of its own (\"Failed to load image, recovering.\", then this)",
		pf->zero_flagged, c->img->lay.word * 8 - 1);
	chk_message(it, "PM: hibernation: resume failed (-14)");
}

/*
 * unpack_orig_pfns() takes a PFN that pfn_valid() and the zones' span
 * (memory_bm_pfn_present(), the bitmaps of create_basic_memory_bitmaps())
 * hold: a PFN in a hole inside a zone passes, one past the zones does not.
 * Zones here are x86_64's (DMA below 16 MiB, DMA32 below 4 GiB, Normal),
 * each spanning its first to last RAM page; pfn_valid() holds for a whole
 * 128 MiB section that has RAM (SECTION_SIZE_BITS 27, early sections).
 * The message came after 6.1, which fails silently.
 */
#define ZONES 3
static const uint64_t zone_end[ZONES] = { 0x1000, 0x100000, UINT64_MAX };

static void pfn_range(struct chk_ctx *c)
{
	struct hib_image *img = c->img;
	struct chk_item *it = chk_add(c, "pfn-range", STAGE_PFNS, true);
	uint64_t span[ZONES][2], (*ram)[2], bad = UINT64_MAX, r;
	size_t n, i, z;

	if (img->lay.ps != 4096 && c->tin->mem_ranges) {
		chk_set(it, HIB_CHECK_UNKNOWN, "PFNs of %u-byte pages: compared only for 4 KiB pages",
			img->lay.ps);
		chk_missing(it, "a PFN check for this page size");
		it->pub.decides = false;
		return;
	}
	if (!c->tin->mem_ranges) {
		chk_set(it, HIB_CHECK_UNKNOWN, "PFNs 0x%" PRIx64 "-0x%" PRIx64 " must lie in the boot's memory",
			img->pfns.lowest, img->pfns.highest);
		chk_missing_input(c, it, HIB_TIN_MEM,
				  "the target's memory map (a copy of /sys/firmware/memmap or /proc/iomem)");
		return;
	}
	ram = malloc(2 * (c->t->n_mem + 1) * sizeof(*ram));
	if (!ram) {
		chk_set(it, HIB_CHECK_UNKNOWN, "out of memory");
		chk_missing(it, "memory to compare the PFN list");
		return;
	}
	n = hib_memmap_ram_pfns(c->t, ram, 2 * (c->t->n_mem + 1));
	for (z = 0; z < ZONES; z++)
		span[z][0] = UINT64_MAX, span[z][1] = 0;
	for (i = 0; i < n; i++) {
		uint64_t a = ram[i][0];

		for (z = 0; z < ZONES && a < ram[i][1]; z++) {
			uint64_t lo = z ? zone_end[z - 1] : 0, b = ram[i][1] < zone_end[z] ? ram[i][1] : zone_end[z];

			if (a >= zone_end[z] || b <= lo)
				continue;
			if (a < span[z][0])
				span[z][0] = a;
			if (b > span[z][1])
				span[z][1] = b;
			a = b;
		}
	}
	for (r = 0; r < img->n_runs && bad == UINT64_MAX; r++) {
		uint64_t s = img->runs[r].start_pfn, e = s + hib_pfn_run_len(img, r), p;

		for (p = s; p < e; ) {
			bool in = false;
			uint64_t next = e;

			for (z = 0; z < ZONES; z++)
				if (p >= span[z][0] && p < span[z][1]) {
					in = true;
					next = span[z][1] < e ? span[z][1] : e;
				}
			if (!in) {
				bad = p;
				break;
			}
			p = next;
		}
	}
	if (bad == UINT64_MAX) {
		chk_set(it, HIB_CHECK_PASS, "PFNs 0x%" PRIx64 "-0x%" PRIx64 " inside the boot's memory zones (RAM PFNs 0x%" PRIx64 "-0x%" PRIx64 ", %s)",
			img->pfns.lowest, img->pfns.highest, c->tin->ram_first_pfn,
			c->tin->ram_last_pfn, c->tin->mem_from);
		free(ram);
		return;
	}
	chk_set(it, HIB_CHECK_FAIL, "PFN 0x%" PRIx64 " (0x%" PRIx64 ") lies outside the boot's memory zones (RAM PFNs 0x%" PRIx64 "-0x%" PRIx64 ", %s)",
		bad, bad << 12, c->tin->ram_first_pfn, c->tin->ram_last_pfn, c->tin->mem_from);
	{
		bool valid = false;

		for (i = 0; i < n; i++)
			if (bad >> 15 >= ram[i][0] >> 15 && bad >> 15 <= (ram[i][1] - 1) >> 15)
				valid = true;
		if (!valid && c->kver > HIB_KVER(6, 1, 255))
			chk_message(it, "PM: hibernation: [Firmware Bug]: Memory map mismatch at 0x%" PRIx64 " after hibernation",
				    bad << 12);
		else
			chk_message(it, "PM: hibernation: resume failed (-14)");
	}
	free(ram);
}

void chk_stream(struct chk_ctx *c)
{
	const struct hib_pfns *pf;
	int rc = walk_stream(c);

	if (rc) {
		c->io_rc = rc;
		return;
	}
	pf = hib_image_pfns(c->img);
	if (!pf)
		return;
	zero_flags(c, pf);
	pfn_range(c);
}
