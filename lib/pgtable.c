/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pgtable.c - kernel virtual addresses through the kernel's own page
 * tables, as it left them in the image; the root and the format come from
 * VMCOREINFO (kernel/crash_core.c, arch/x86/kernel/machine_kexec_64.c,
 * arch/arm64/kernel/vmcore_info.c), which is written for exactly this.
 *
 * x86_64: SYMBOL(init_top_pgt) is a kernel-image address, so its physical
 * address is __pa_symbol(): VA - __START_KERNEL_map + phys_base
 * (NUMBER(phys_base)); 4 levels, or 5 with NUMBER(pgtable_l5_enabled)=1;
 * 1 GiB and 2 MiB pages where PSE is set; NUMBER(sme_mask) is no address.
 *
 * arm64: SYMBOL(swapper_pg_dir) - NUMBER(kimage_voffset); the granule is
 * the page size; the walk is the one of NUMBER(VA_BITS), the kernel's own
 * indexing even where the CPU runs with fewer bits (a 52-bit kernel on a
 * 48-bit CPU points TTBR1 into the same table at the matching entry, and
 * kernel addresses have those top bits set). Output address bits 47..shift;
 * with 64K pages bits 51..48 sit in 15..12 (FEAT_LPA), with 4K/16K pages
 * and 52-bit VA at run time (NUMBER(TCR_EL1_T1SZ)=12, FEAT_LPA2) 51..50
 * sit in 9..8. A 4K-page 52-bit kernel on a CPU without LPA2 (T1SZ 16)
 * runs one level less, from the same root: the walk follows T1SZ there.
 */
#include "kmemP.h"

#include <stdio.h>
#include <string.h>

#define X86_START_KERNEL_MAP 0xffffffff80000000ull
#define X86_PFN_MASK         0x000ffffffffff000ull   /* PTE_PFN_MASK, 52-bit PA */
#define X86_PRESENT          0x1ull
#define X86_PSE              0x80ull

static bool vmci_lx(const struct hib_kmem *km, const char *key, uint64_t *v)
{
	return hib_vmci_lx(km->vmci, km->ps, key, v);
}

static bool vmci_ld(const struct hib_kmem *km, const char *key, int64_t *v)
{
	return hib_vmci_ld(km->vmci, km->ps, key, v);
}

/* One table entry; a table page the image lacks is named as one. */
static int read_entry(struct hib_kmem *km, uint64_t pa, void *b, size_t w,
		      uint64_t va, int lvl)
{
	uint64_t lost = km->lost_reads;
	int rc = hib_kmem_read_phys(km, pa, b, w);

	if (rc == HIB_ERR_UNSUPPORTED)
		return hib_seterr(km->img, rc,
				  "virtual address 0x%" PRIx64 ": its level %d page table (PFN 0x%" PRIx64 ") was not saved in the image%s%s",
				  va, lvl, pa / km->ps, km->lost_reads != lost ? ": " : "",
				  km->lost_reads != lost ? km->lost : "");
	return rc;
}

static void setup_x86_64(struct hib_kmem *km)
{
	uint64_t top;
	int64_t l5 = 0, phys_base = 0;

	if (!vmci_lx(km, "SYMBOL(init_top_pgt)=", &top)) {
		km->mmu_why = "VMCOREINFO has no SYMBOL(init_top_pgt)";
		return;
	}
	/* VMCOREINFO_NUMBER() prints %ld: decimal, and with KASLR often
	 * negative; pgtable_l5_enabled 0 or 1 */
	(void)vmci_ld(km, "NUMBER(phys_base)=", &phys_base);
	(void)vmci_ld(km, "NUMBER(pgtable_l5_enabled)=", &l5);
	km->root = top - X86_START_KERNEL_MAP + (uint64_t)phys_base;
	km->levels = l5 ? 5 : 4;
	km->shift = 12;
	km->mmu = KM_MMU_X86_64;
}

static int walk_x86_64(struct hib_kmem *km, uint64_t va, uint64_t *pa)
{
	struct hib_image *img = km->img;
	uint64_t table = km->root, e = 0;
	int lvl;

	for (lvl = km->levels; lvl >= 1; lvl--) {
		unsigned int s = 12 + 9 * (unsigned int)(lvl - 1);
		unsigned char b[8];
		int rc = read_entry(km, table + ((va >> s) & 511) * 8, b, 8, va, lvl);

		if (rc)
			return rc;
		e = hib_get_word(&img->lay, b, 8);
		if (!(e & X86_PRESENT))
			return hib_seterr(img, HIB_ERR_UNSUPPORTED,
					  "virtual address 0x%" PRIx64 " is not mapped (level %d entry 0x%" PRIx64 ")",
					  va, lvl, e);
		/* a 1 GiB or 2 MiB page */
		if ((lvl == 3 || lvl == 2) && (e & X86_PSE)) {
			uint64_t m = (1ull << s) - 1;

			*pa = ((e & X86_PFN_MASK) & ~m) | (va & m);
			return HIB_OK;
		}
		table = e & X86_PFN_MASK;
	}
	*pa = table | (va & 0xfff);
	return HIB_OK;
}

static int arm64_levels(unsigned int va_bits, unsigned int shift)
{
	unsigned int per = shift - 3;

	return (int)((va_bits - shift + per - 1) / per);
}

static void setup_arm64(struct hib_kmem *km)
{
	uint64_t pgd, voff, t1sz = 0;
	int64_t va_bits = 0;
	unsigned int shift = 0;

	if (!vmci_lx(km, "SYMBOL(swapper_pg_dir)=", &pgd) ||
	    !vmci_lx(km, "NUMBER(kimage_voffset)=", &voff) ||
	    !vmci_ld(km, "NUMBER(VA_BITS)=", &va_bits)) {
		km->mmu_why = "VMCOREINFO lacks SYMBOL(swapper_pg_dir), NUMBER(kimage_voffset) or NUMBER(VA_BITS)";
		return;
	}
	while ((1ull << shift) < km->ps)
		shift++;
	if (va_bits <= (int64_t)shift || va_bits > 52 ||
	    (shift != 12 && shift != 14 && shift != 16)) {
		km->mmu_why = "VA_BITS or the page size is none arm64 has";
		return;
	}
	km->va_bits = (unsigned int)va_bits;
	km->shift = shift;
	km->levels = arm64_levels(km->va_bits, shift);
	km->root = pgd - voff;
	km->kimage_voffset = voff;
	if (vmci_lx(km, "NUMBER(PHYS_OFFSET)=", &km->phys_offset))
		km->have_phys_offset = 1;
	/* 5.12+; without it the CPU ran with VA_BITS */
	if (vmci_lx(km, "NUMBER(TCR_EL1_T1SZ)=", &t1sz) && t1sz > 12 && t1sz < 64 - shift) {
		/* A 4K-page 52-bit (LPA2) kernel on a CPU without LPA2 folds
		 * its top level at run time: the CPU walks 4 levels from
		 * swapper_pg_dir, with its own bits. */
		if (arm64_levels(64 - (unsigned int)t1sz, shift) < km->levels) {
			km->va_bits = 64 - (unsigned int)t1sz;
			km->levels = arm64_levels(km->va_bits, shift);
		}
	}
	km->lpa2 = shift < 16 && t1sz == 12;
	km->mmu = KM_MMU_ARM64;
}

static uint64_t arm64_oa(const struct hib_kmem *km, uint64_t d)
{
	uint64_t oa = d & (((1ull << 48) - 1) & ~((1ull << km->shift) - 1));

	if (km->shift == 16)
		oa |= ((d >> 12) & 0xf) << 48;
	else if (km->lpa2)
		oa |= ((d >> 8) & 0x3) << 50;
	return oa;
}

static int walk_arm64(struct hib_kmem *km, uint64_t va, uint64_t *pa)
{
	struct hib_image *img = km->img;
	unsigned int per = km->shift - 3;
	uint64_t table = km->root;
	int lvl;

	for (lvl = 4 - km->levels; lvl <= 3; lvl++) {
		unsigned int s = km->shift + per * (unsigned int)(3 - lvl);
		unsigned int bits = km->va_bits - s < per ? km->va_bits - s : per;
		uint64_t d, m = (1ull << s) - 1;
		unsigned char b[8];
		int rc = read_entry(km, table + ((va >> s) & ((1ull << bits) - 1)) * 8, b, 8, va, lvl);

		if (rc)
			return rc;
		d = hib_get_word(&img->lay, b, 8);
		if (lvl < 3 && (d & 3) == 3) {
			table = arm64_oa(km, d);
			continue;
		}
		if ((lvl < 3 && (d & 3) == 1) || (lvl == 3 && (d & 3) == 3)) {
			*pa = (arm64_oa(km, d) & ~m) | (va & m);
			return HIB_OK;
		}
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "virtual address 0x%" PRIx64 " is not mapped (level %d descriptor 0x%" PRIx64 ")",
				  va, lvl, d);
	}
	return hib_seterr(img, HIB_ERR_DAMAGED, "page-table walk of 0x%" PRIx64 " fell through", va);
}

/*
 * i386 and riscv64 export no page-table root in VMCOREINFO that a reader
 * could place without PAGE_OFFSET; their image headers carry the one the
 * saving CPU ran on, whose kernel half is the kernel's: i386's
 * restore_data_record.cr3 (restore_cr3, read from %cr3 by
 * swsusp_arch_suspend), riscv's saved_satp (MODE and PPN).
 * i386: 2 levels of 1024 4-byte entries, 4 MiB pages where PSE is set; with
 * PAE (VMCOREINFO's CONFIG_X86_PAE=y) a 4-entry PDPT then 2 levels of 512
 * 8-byte entries, 2 MiB pages.
 * riscv64: Sv39/48/57, 3/4/5 levels of 512 entries; V is bit 0, a leaf has
 * R, W or X (bits 1..3) at any level (a superpage there), PPN at 10..53.
 */
static void setup_x86_32(struct hib_kmem *km)
{
	char v[8];

	km->root = km->img->info.cr3 & ~UINT64_C(0x1f);
	km->pae = hib_vmci_value(km->vmci, km->ps, "CONFIG_X86_PAE=", v, sizeof(v)) && v[0] == 'y';
	if (!km->pae)
		km->root &= ~UINT64_C(0xfff);
	km->levels = km->pae ? 3 : 2;
	km->shift = 12;
	km->mmu = km->root ? KM_MMU_X86_32 : KM_MMU_NONE;
	km->mmu_why = "the i386 record has no CR3";
}

static int walk_x86_32(struct hib_kmem *km, uint64_t va, uint64_t *pa)
{
	struct hib_image *img = km->img;
	unsigned int w = km->pae ? 8 : 4, lvl;
	uint64_t table = km->root, e;

	va &= 0xffffffffu;
	for (lvl = (unsigned int)km->levels; lvl >= 1; lvl--) {
		/* non-PAE: 22 and 12; PAE: 30 (4 entries), 21, 12 */
		unsigned int s = km->pae ? (lvl == 3 ? 30 : lvl == 2 ? 21 : 12) : (lvl == 2 ? 22 : 12);
		unsigned int bits = km->pae ? (lvl == 3 ? 2 : 9) : 10;
		unsigned char b[8];
		int rc = read_entry(km, table + ((va >> s) & ((1u << bits) - 1)) * w, b, w, va, (int)lvl);

		if (rc)
			return rc;
		e = hib_get_word(&img->lay, b, w);
		if (!(e & X86_PRESENT))
			return hib_seterr(img, HIB_ERR_UNSUPPORTED,
					  "virtual address 0x%" PRIx64 " is not mapped (level %u entry 0x%" PRIx64 ")",
					  va, lvl, e);
		e &= km->pae ? X86_PFN_MASK : 0xfffff000u;
		if (lvl == 2 && (hib_get_word(&img->lay, b, w) & X86_PSE)) {
			uint64_t m = (1ull << s) - 1;

			*pa = (e & ~m) | (va & m);
			return HIB_OK;
		}
		table = e;
	}
	*pa = table | (va & 0xfff);
	return HIB_OK;
}

static void setup_riscv64(struct hib_kmem *km)
{
	uint64_t satp = km->img->info.satp, mode = satp >> 60;

	km->mmu_why = "saved_satp has no Sv39, Sv48 or Sv57 mode";
	if (mode < 8 || mode > 10)
		return;
	km->levels = (int)mode - 5;   /* Sv39 8 -> 3, Sv48 9 -> 4, Sv57 10 -> 5 */
	km->root = (satp & ((UINT64_C(1) << 44) - 1)) << 12;
	km->shift = 12;
	km->mmu = KM_MMU_RISCV64;
}

static int walk_riscv64(struct hib_kmem *km, uint64_t va, uint64_t *pa)
{
	struct hib_image *img = km->img;
	uint64_t table = km->root, e;
	int lvl;

	for (lvl = km->levels - 1; lvl >= 0; lvl--) {
		unsigned int s = 12 + 9 * (unsigned int)lvl;
		unsigned char b[8];
		int rc = read_entry(km, table + ((va >> s) & 511) * 8, b, 8, va, lvl);

		if (rc)
			return rc;
		e = hib_get_word(&img->lay, b, 8);
		if (!(e & 1))
			return hib_seterr(img, HIB_ERR_UNSUPPORTED,
					  "virtual address 0x%" PRIx64 " is not mapped (level %d entry 0x%" PRIx64 ")",
					  va, lvl, e);
		table = ((e >> 10) & ((UINT64_C(1) << 44) - 1)) << 12;
		if (e & 0xe) {   /* R, W or X: a leaf */
			uint64_t m = (1ull << s) - 1;

			*pa = (table & ~m) | (va & m);
			return HIB_OK;
		}
	}
	return hib_seterr(img, HIB_ERR_DAMAGED,
			  "virtual address 0x%" PRIx64 ": no leaf after the last level", va);
}

static void setup(struct hib_kmem *km)
{
	km->mmu_ready = true;
	km->mmu = KM_MMU_NONE;
	if (!km->vmci) {
		km->mmu_why = hib_kmem_no_vmci(km);
		return;
	}
	switch (km->img->info.arch) {
	case HIB_ARCH_X86_64:
		setup_x86_64(km);
		break;
	case HIB_ARCH_ARM64:
		setup_arm64(km);
		break;
	case HIB_ARCH_X86_32:
		setup_x86_32(km);
		break;
	case HIB_ARCH_RISCV64:
		setup_riscv64(km);
		break;
	default:
		km->mmu_why = "kernel virtual addresses are read on x86_64, arm64, i386 and riscv64 only";
		break;
	}
}

int hib_kmem_vtop(struct hib_kmem *km, uint64_t va, uint64_t *pa)
{
	if (!km->mmu_ready)
		setup(km);
	switch (km->mmu) {
	case KM_MMU_X86_64:
		return walk_x86_64(km, va, pa);
	case KM_MMU_ARM64:
		return walk_arm64(km, va, pa);
	case KM_MMU_X86_32:
		return walk_x86_32(km, va, pa);
	case KM_MMU_RISCV64:
		return walk_riscv64(km, va, pa);
	default:
		return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
				  "cannot translate kernel virtual addresses: %s", km->mmu_why);
	}
}

/* The last few pages translated: a log record's reads stay on a page or
 * two, and the descriptor and info arrays on a few more. */
static int vtop_cached(struct hib_kmem *km, uint64_t va, uint64_t *pa)
{
	uint64_t page = va - va % km->ps;
	unsigned int i, slot = (unsigned int)(page / km->ps) % KM_TLB;
	int rc;

	for (i = 0; i < KM_TLB; i++)
		if (km->tlb[i].valid && km->tlb[i].va == page) {
			*pa = km->tlb[i].pa + va % km->ps;
			return HIB_OK;
		}
	rc = hib_kmem_vtop(km, page, pa);
	if (rc)
		return rc;
	km->tlb[slot].valid = true;
	km->tlb[slot].va = page;
	km->tlb[slot].pa = *pa;
	*pa += va % km->ps;
	return HIB_OK;
}

int hib_kmem_read_virt(struct hib_kmem *km, uint64_t va, void *buf, size_t len)
{
	unsigned char *dst = buf;

	while (len) {
		uint64_t pa;
		size_t n = km->ps - va % km->ps;
		int rc = vtop_cached(km, va, &pa);

		if (rc == HIB_OK)
			rc = hib_kmem_read_phys(km, pa, dst, n > len ? len : n);
		if (rc)
			return rc;
		if (n > len)
			n = len;
		dst += n;
		va += n;
		len -= n;
	}
	return HIB_OK;
}

int hib_kmem_read_word(struct hib_kmem *km, uint64_t va, uint64_t *v)
{
	unsigned char b[8];
	int rc = hib_kmem_read_virt(km, va, b, km->img->lay.word);

	if (rc == HIB_OK)
		*v = hib_kmem_word(km, b);
	return rc;
}

/*
 * The linear (direct) map's offset, VA - PA, for the PT_LOADs of a core
 * (export-vaddr.c), checked by a walk at the lowest saved address lo.
 * x86_64: page_offset_base moves with RANDOMIZE_MEMORY and VMCOREINFO does
 * not give it; the direct map is the lowest kernel region (below vmalloc,
 * vmemmap and the kernel image) and starts 1 GiB-aligned mapping PA 0, so
 * it is the first 1 GiB-aligned kernel-half address the tables map to lo
 * at + lo. arm64: __va(pa) = (pa - PHYS_OFFSET) | PAGE_OFFSET with
 * PAGE_OFFSET = -(1 << VA_BITS) (5.4+, arch/arm64/include/asm/memory.h).
 */
static bool maps_to(struct hib_kmem *km, uint64_t va, uint64_t pa)
{
	uint64_t got;

	return hib_kmem_vtop(km, va, &got) == HIB_OK && got == pa;
}

/* x86_64: present entries in VA order down to the PUD level, each
 * 1 GiB-aligned VA tried; 1 on a hit, 0 none, <0 a read error. */
static int x86_scan(struct hib_kmem *km, uint64_t table, int lvl, uint64_t prefix,
		    uint64_t lo, uint64_t *voff)
{
	unsigned int s = 12 + 9 * (unsigned int)(lvl - 1), i;
	unsigned char b[512 * 8];
	int rc;

	rc = hib_kmem_read_phys(km, table, b, sizeof(b));
	if (rc)
		return rc;
	/* the top level: the kernel half only */
	for (i = lvl == km->levels ? 256 : 0; i < 512; i++) {
		uint64_t e = hib_get_word(&km->img->lay, b + i * 8, 8);
		uint64_t va = prefix | ((uint64_t)i << s);

		if (!(e & X86_PRESENT))
			continue;
		if (lvl == km->levels)   /* sign-extend the top bit */
			va |= ~((1ull << (s + 9)) - 1);
		if (lvl == 3) {
			if (maps_to(km, va + lo, lo)) {
				*voff = va;
				return 1;
			}
			continue;
		}
		if (e & X86_PSE)
			continue;
		rc = x86_scan(km, e & X86_PFN_MASK, lvl - 1, va, lo, voff);
		if (rc)
			return rc;
	}
	return 0;
}

int hib_kmem_linear_offset(struct hib_kmem *km, uint64_t lo, uint64_t *voff)
{
	uint64_t pa;
	int64_t va_bits;
	char rel[16];
	unsigned int major = 0, minor = 0;

	if (!km->mmu_ready)
		setup(km);
	switch (km->mmu) {
	case KM_MMU_X86_64:
		return x86_scan(km, km->root, km->levels, 0, lo, voff) == 1 ? HIB_OK :
			hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
				   "no direct map found in the kernel's page tables");
	case KM_MMU_ARM64:
		/* the layout of 5.4+ only: before, PAGE_OFFSET was the top half */
		if (!hib_vmci_value(km->vmci, km->ps, "OSRELEASE=", rel, sizeof(rel)) ||
		    sscanf(rel, "%u.%u", &major, &minor) != 2 ||
		    (major < 5 || (major == 5 && minor < 4)) || !km->have_phys_offset ||
		    !hib_vmci_ld(km->vmci, km->ps, "NUMBER(VA_BITS)=", &va_bits))
			return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
					  "no linear map offset: a kernel before 5.4 or no NUMBER(PHYS_OFFSET)");
		*voff = (uint64_t)-(INT64_C(1) << va_bits) - km->phys_offset;
		if (!maps_to(km, lo + *voff, lo))
			return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
					  "the linear map does not map 0x%" PRIx64 " where VMCOREINFO puts it", lo);
		return HIB_OK;
	default:
		(void)pa;
		return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
				  "the linear map is found on x86_64 and arm64 only");
	}
}

/* The end of a mapping at VA = PA + voff that starts at start: pages
 * walked one by one while they map there, at most max bytes. */
uint64_t hib_kmem_linear_end(struct hib_kmem *km, uint64_t start, uint64_t voff,
			     uint64_t max)
{
	uint64_t pa = start;

	while (pa - start < max && maps_to(km, pa + voff, pa))
		pa += km->ps;
	return pa;
}
