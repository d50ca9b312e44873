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

/*
 * arm64 and riscv64 both open their record with struct
 * arch_hibernate_hdr_invariants, uts_version[65] (uname -v), padded to 72;
 * the words after it differ:
 *   arm64 (arch/arm64/kernel/hibernate.c, 4.7+): ttbr1_el1 @72
 *     (__pa_symbol(swapper_pg_dir)), reenter_kernel @80 (_cpu_resume, a
 *     kernel VA), __hyp_stub_vectors @88, sleep_cpu_mpidr @96; 104 bytes.
 *   riscv (arch/riscv/kernel/hibernate.c, 6.4+): hartid @72, saved_satp
 *     @80 (csr_read(CSR_SATP)), restore_cpu_addr @88; 96 bytes.
 * The word at 80 tells them apart: arm64's is an address in the TTBR1 half,
 * its top 64 - VA_BITS bits all ones, VA_BITS <= 52, so the top 12 at
 * least; riscv's is satp, whose MODE (bits 63:60, SATP_MODE_SHIFT) is 8,
 * 9 or 10 (Sv39/48/57: Bare cannot have written an image with the MMU on).
 * The two never meet; a word that is neither is a record hibimg does not
 * know, not a guess.
 */
#define ARM64_TTBR1_EL1       72
#define ARM64_REENTER_KERNEL  80
#define ARM64_HYP_STUB        88
#define ARM64_SLEEP_CPU_MPIDR 96
#define RISCV_HARTID          72
#define RISCV_SATP            80
#define RISCV_RESTORE_CPU     88
#define SATP_MODE_SHIFT       60
#define SATP_MODE_SV39        8u
#define SATP_MODE_SV57        10u

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

/* struct restore_data_record with 8-byte longs, by its magic's place */
static bool x86_64_record(struct hib_info *in, const struct hib_layout *lay,
			  const unsigned char *p)
{
	uint64_t m16 = hib_get_word(lay, p + 16, 8);
	uint64_t m24 = hib_get_word(lay, p + 24, 8);

	if (m24 == HIB_RESTORE_MAGIC_CRC || m24 == HIB_RESTORE_MAGIC_MD5 ||
	    m24 == HIB_RESTORE_MAGIC_47) {
		in->jump_address = hib_get_word(lay, p, 8);
		in->jump_address_phys = hib_get_word(lay, p + 8, 8);
		in->cr3 = hib_get_word(lay, p + 16, 8);
		in->restore_magic = m24;
		if (m24 == HIB_RESTORE_MAGIC_CRC) {
			in->e820_check = hib_get_word(lay, p + 32, 8);
			in->restore_era = "5.13+ (e820 CRC-32)";
		} else if (m24 == HIB_RESTORE_MAGIC_MD5) {
			in->e820_check = hib_get_word(lay, p + 32, 8);
			in->restore_era = "4.14-5.12 (e820 MD5)";
		} else {
			in->restore_era = "4.7-4.13";
		}
		return true;
	}
	if (m16 == HIB_RESTORE_MAGIC_26) {
		in->jump_address = hib_get_word(lay, p, 8);
		in->cr3 = hib_get_word(lay, p + 8, 8);
		in->restore_magic = m16;
		in->restore_era = "2.6-4.6";
		return true;
	}
	return false;
}

/* The same struct with i386's 4-byte longs: jump_address @0,
 * jump_address_phys @4, cr3 @8, magic @12, the e820 check @16. */
static bool x86_32_record(struct hib_info *in, const struct hib_layout *lay,
			  const unsigned char *p)
{
	uint64_t m12 = hib_get_word(lay, p + 12, 4);

	if (m12 != HIB_RESTORE_MAGIC_32_CRC && m12 != HIB_RESTORE_MAGIC_32_MD5)
		return false;
	in->jump_address = hib_get_word(lay, p, 4);
	in->jump_address_phys = hib_get_word(lay, p + 4, 4);
	in->cr3 = hib_get_word(lay, p + 8, 4);
	in->restore_magic = m12;
	if (m12 == HIB_RESTORE_MAGIC_32_CRC) {
		/* unsigned long e820_checksum: the whole CRC-32 */
		in->e820_check = hib_get_word(lay, p + 16, 4);
		in->restore_era = "5.13+ (e820 CRC-32)";
	} else {
		/* u8 e820_digest[16]: its first 8 bytes, as on x86_64 */
		in->e820_check = hib_get_word(lay, p + 16, 8);
		in->restore_era = "before 5.13 (e820 MD5)";
	}
	return true;
}

/* arm64 or riscv64 by the word at 80, see above */
static enum hib_arch uts_record(struct hib_info *in, const struct hib_layout *lay,
				const unsigned char *p)
{
	/* ARM64_REENTER_KERNEL == RISCV_SATP */
	uint64_t w80 = hib_get_word(lay, p + RISCV_SATP, 8);
	unsigned int mode = (unsigned int)(w80 >> SATP_MODE_SHIFT);

	if ((w80 >> 52) == 0xfff) {
		in->ttbr1_el1 = hib_get_word(lay, p + ARM64_TTBR1_EL1, 8);
		in->reenter_kernel = hib_get_word(lay, p + ARM64_REENTER_KERNEL, 8);
		in->hyp_stub_vectors = hib_get_word(lay, p + ARM64_HYP_STUB, 8);
		in->sleep_cpu_mpidr = hib_get_word(lay, p + ARM64_SLEEP_CPU_MPIDR, 8);
		in->have_sleep_cpu_mpidr = 1;
		return HIB_ARCH_ARM64;
	}
	if (mode >= SATP_MODE_SV39 && mode <= SATP_MODE_SV57) {
		in->hartid = hib_get_word(lay, p + RISCV_HARTID, 8);
		in->satp = w80;
		in->restore_cpu_addr = hib_get_word(lay, p + RISCV_RESTORE_CPU, 8);
		return HIB_ARCH_RISCV64;
	}
	return HIB_ARCH_UNKNOWN_RECORD;
}

static void decode_arch(struct hib_image *img)
{
	struct hib_info *in = &img->info;
	const struct hib_layout *lay = &img->lay;
	const unsigned char *p = img->info_page;

	in->version_code = (uint32_t)hib_get_word(lay, p + 392, 4);
	in->have_sleep_cpu_mpidr = 0;
	in->sleep_cpu_mpidr = 0;
	in->ttbr1_el1 = in->reenter_kernel = in->hyp_stub_vectors = 0;
	in->hartid = in->satp = in->restore_cpu_addr = 0;
	if (in->word_size == 8 && !lay->be && x86_64_record(in, lay, p)) {
		in->arch = HIB_ARCH_X86_64;
		return;
	}
	if (in->word_size == 4 && !lay->be && x86_32_record(in, lay, p)) {
		in->arch = HIB_ARCH_X86_32;
		return;
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
	/* arm64 and riscv keep uname -v, "#1 SMP ...", at offset 0; both
	 * are 64-bit here (a 4-byte-word one would be riscv32's, whose
	 * words sit at 68: not decoded) */
	in->arch = HIB_ARCH_UNKNOWN_RECORD;
	if (p[0] == '#' && is_printable_str(p, 65) && in->word_size == 8) {
		in->arch = uts_record(in, lay, p);
		if (in->arch != HIB_ARCH_UNKNOWN_RECORD)
			copy_str(in->uts_version, sizeof(in->uts_version), p, 65);
	}
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

/* A second pass over the PFN list (stats and simulate load it, then stream
 * it again) refills the buffers of the first: freeing them would leave the
 * allocator holding the first pass's bitmap while realloc doubles the
 * second's through the heap (+20 MiB of RSS at 1 TiB of RAM). */
int hib_pfn_index_reset(struct hib_image *img, uint64_t meta_pages)
{
	if (img->zero_bits)
		memset(img->zero_bits, 0, img->cap_zero_bits);
	img->n_runs = 0;
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
