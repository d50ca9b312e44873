/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * snapshot.c - swsusp_info (stream page 0, kernel/power/power.h) with the
 * arch record laid over its utsname, and the compact PFN index.
 *
 * struct swsusp_info { new_utsname uts (6 x 65); u32 version_code;
 *   unsigned long num_physpages; int cpus; unsigned long image_pages, pages,
 *   size; }  LP64 offsets 0/392/400/408/416/424/432, ILP32 0/392/396/400/
 *   404/408/412.
 */
#include "hibimgP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* arch/x86/power/hibernate.c, RESTORE_MAGIC by era. */
#define RESTORE_MAGIC_26      0x0123456789ABCDEFull /* magic @16 */
#define RESTORE_MAGIC_47      0x123456789ABCDEF0ull /* magic @24 */
#define RESTORE_MAGIC_MD5     0x23456789ABCDEF01ull
#define RESTORE_MAGIC_CRC     0x23456789ABCDEF02ull
/* arm64 struct arch_hibernate_hdr: offset of sleep_cpu_mpidr (FORMAT.md 4.2) */
#define ARM64_SLEEP_CPU_MPIDR 96

static void copy_str(char *dst, size_t cap, const unsigned char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && i + 1 < cap && src[i]; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[i] = 0;
}

static bool is_printable_str(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && p[i]; i++)
		if (p[i] < 0x20 || p[i] >= 0x7f)
			return false;
	return i > 0 && i < n;
}

/* Sizes decide which word size wrote the page: size == pages * PS. */
static bool try_word(struct hib_image *img, unsigned int word)
{
	const struct hib_layout *lay = &img->lay;
	const unsigned char *p = img->info_page;
	unsigned int o_np = word == 8 ? 400 : 396;
	uint64_t image_pages = hib_get_word(lay, p + o_np + 2 * word, word);
	uint64_t pages = hib_get_word(lay, p + o_np + 3 * word, word);
	uint64_t size = hib_get_word(lay, p + o_np + 4 * word, word);

	if (pages <= image_pages || pages > UINT64_MAX / lay->ps ||
	    size != pages * lay->ps)
		return false;
	img->info.word_size = word;
	img->info.num_physpages = hib_get_word(lay, p + o_np, word);
	img->info.cpus = (int32_t)hib_get_word(lay, p + o_np + word, 4);
	img->info.image_pages = image_pages;
	img->info.pages = pages;
	img->info.size = size;
	img->info.meta_pages = pages - image_pages - 1;
	return true;
}

static void decode_arch(struct hib_image *img)
{
	struct hib_info *in = &img->info;
	const struct hib_layout *lay = &img->lay;
	const unsigned char *p = img->info_page;
	uint64_t m16 = hib_get_word(lay, p + 16, 8);
	uint64_t m24 = hib_get_word(lay, p + 24, 8);

	in->version_code = (uint32_t)hib_get_word(lay, p + 392, 4);
	in->have_sleep_cpu_mpidr = 0;
	in->sleep_cpu_mpidr = 0;
	if (in->word_size == 8 && !lay->be) {
		if (m24 == RESTORE_MAGIC_CRC || m24 == RESTORE_MAGIC_MD5 ||
		    m24 == RESTORE_MAGIC_47) {
			in->arch = HIB_ARCH_X86_64;
			in->jump_address = hib_get_word(lay, p, 8);
			in->jump_address_phys = hib_get_word(lay, p + 8, 8);
			in->cr3 = hib_get_word(lay, p + 16, 8);
			in->restore_magic = m24;
			if (m24 == RESTORE_MAGIC_CRC) {
				in->e820_check = hib_get_word(lay, p + 32, 8);
				in->restore_era = "5.13+ (e820 CRC-32)";
			} else if (m24 == RESTORE_MAGIC_MD5) {
				in->e820_check = hib_get_word(lay, p + 32, 8);
				in->restore_era = "4.14-5.12 (e820 MD5)";
			} else {
				in->restore_era = "4.7-4.13";
			}
			return;
		}
		if (m16 == RESTORE_MAGIC_26) {
			in->arch = HIB_ARCH_X86_64;
			in->jump_address = hib_get_word(lay, p, 8);
			in->cr3 = hib_get_word(lay, p + 8, 8);
			in->restore_magic = m16;
			in->restore_era = "2.6-4.6";
			return;
		}
	}
	/* Without an arch record the generic header copies init_utsname()
	 * and LINUX_VERSION_CODE. */
	if (in->version_code && is_printable_str(p, 65) &&
	    is_printable_str(p + 130, 65)) {
		in->arch = HIB_ARCH_GENERIC;
		copy_str(in->sysname, sizeof(in->sysname), p, 65);
		copy_str(in->release, sizeof(in->release), p + 130, 65);
		copy_str(in->version, sizeof(in->version), p + 195, 65);
		copy_str(in->machine, sizeof(in->machine), p + 260, 65);
		return;
	}
	/* arm64 (and riscv) keep uname -v, "#1 SMP ...", at offset 0. */
	if (p[0] == '#' && is_printable_str(p, 65)) {
		in->arch = HIB_ARCH_ARM64;
		copy_str(in->uts_version, sizeof(in->uts_version), p, 65);
		/* struct arch_hibernate_hdr: the 65-byte string padded to 72,
		 * ttbr1_el1 72, reenter_kernel 80, __hyp_stub_vectors 88,
		 * sleep_cpu_mpidr 96 (arch/arm64/kernel/hibernate.c) */
		if (in->word_size == 8) {
			in->sleep_cpu_mpidr = hib_get_word(lay, p + ARM64_SLEEP_CPU_MPIDR, 8);
			in->have_sleep_cpu_mpidr = 1;
		}
		return;
	}
	in->arch = HIB_ARCH_UNKNOWN_RECORD;
}

int hib_info_decode(struct hib_image *img, const char *where)
{
	struct hib_info *in = &img->info;

	if (!try_word(img, 8) && !try_word(img, 4))
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "swsusp_info (%s): pages, image_pages and size are inconsistent",
				  where);
	img->lay.word = in->word_size;
	decode_arch(img);
	if (in->meta_pages == 0)
		return hib_seterr(img, HIB_ERR_DAMAGED,
				  "swsusp_info (%s): pages %" PRIu64 " = image_pages %" PRIu64 " + 1 leaves no PFN-list pages",
				  where, in->pages,
				  in->image_pages);
	return HIB_OK;
}

const struct hib_info *hib_image_info(const struct hib_image *img)
{
	return img->loaded ? &img->info : NULL;
}

const unsigned char *hib_image_info_page(const struct hib_image *img)
{
	return img->loaded ? img->info_page : NULL;
}

const struct hib_pfns *hib_image_pfns(const struct hib_image *img)
{
	return img->pfns_loaded ? &img->pfns : NULL;
}

int hib_pfn_index_reset(struct hib_image *img, uint64_t meta_pages)
{
	free(img->runs);
	free(img->zero_bits);
	img->runs = NULL;
	img->zero_bits = NULL;
	img->n_runs = img->cap_runs = img->cap_zero_bits = 0;
	memset(&img->pfns, 0, sizeof(img->pfns));
	img->pfns_loaded = false;
	(void)meta_pages;
	return HIB_OK;
}

/* Entries arrive in order; the caller has checked that PFNs ascend. */
int hib_pfn_index_add(struct hib_image *img, uint64_t entry, uint64_t pfn,
		      bool zero)
{
	struct hib_pfns *pf = &img->pfns;

	if (entry / 8 >= img->cap_zero_bits) {
		uint64_t ncap = img->cap_zero_bits ? img->cap_zero_bits * 2 : 512;
		uint8_t *n = realloc(img->zero_bits, ncap);

		if (!n)
			return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		memset(n + img->cap_zero_bits, 0, ncap - img->cap_zero_bits);
		img->zero_bits = n;
		img->cap_zero_bits = ncap;
	}
	if (zero) {
		set_bit(img->zero_bits, entry);
		pf->zero_flagged++;
	}
	if (entry == 0 || pfn != pf->highest + 1) {
		if (img->n_runs == img->cap_runs) {
			uint64_t ncap = img->cap_runs ? img->cap_runs * 2 : 64;
			struct pfn_run *n = realloc(img->runs, ncap * sizeof(*n));

			if (!n)
				return hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
			img->runs = n;
			img->cap_runs = ncap;
		}
		img->runs[img->n_runs].start_pfn = pfn;
		img->runs[img->n_runs].first_entry = entry;
		img->n_runs++;
	}
	if (entry == 0)
		pf->lowest = pfn;
	pf->highest = pfn;
	pf->entries = entry + 1;
	pf->runs = img->n_runs;
	return HIB_OK;
}

bool hib_pfn_is_zero(const struct hib_image *img, uint64_t entry)
{
	return bit(img->zero_bits, entry);
}

int hib_image_pfn_entry(const struct hib_image *img, uint64_t i, uint64_t *pfn,
			int *zero)
{
	uint64_t lo;

	if (!img->pfns_loaded || i >= img->pfns.entries)
		return HIB_ERR_INVAL;
	lo = hib_last_le(&img->runs[0].first_entry, sizeof(*img->runs), img->n_runs, i);
	*pfn = img->runs[lo].start_pfn + (i - img->runs[lo].first_entry);
	if (zero)
		*zero = hib_pfn_is_zero(img, i);
	return HIB_OK;
}

/* Entries in run r of the PFN list. */
uint64_t hib_pfn_run_len(const struct hib_image *img, uint64_t r)
{
	uint64_t next = r + 1 < img->n_runs ? img->runs[r + 1].first_entry :
			img->pfns.entries;

	return next - img->runs[r].first_entry;
}

/* The list entry holding pfn, by binary search over the runs. */
bool hib_pfn_find(const struct hib_image *img, uint64_t pfn, uint64_t *entry)
{
	uint64_t lo;

	if (!img->n_runs || pfn < img->runs[0].start_pfn)
		return false;
	lo = hib_last_le(&img->runs[0].start_pfn, sizeof(*img->runs), img->n_runs, pfn);
	if (pfn - img->runs[lo].start_pfn >= hib_pfn_run_len(img, lo))
		return false;
	if (entry)
		*entry = img->runs[lo].first_entry + (pfn - img->runs[lo].start_pfn);
	return true;
}
