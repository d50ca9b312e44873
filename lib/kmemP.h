/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to the random reads of the saved memory: kmem.c (pages by PFN),
 * chunk1.c (one chunk decoded), pgtable.c (kernel virtual addresses
 * through the kernel's own page tables, and reads by them), which uses
 * kmem.c and not the other way round.
 */
#ifndef _HIBIMG_KMEMP_H
#define _HIBIMG_KMEMP_H

#include "hibimgP.h"
#include "salvageP.h"

#define KM_CACHE 4
#define KM_TLB 8

struct km_chunk {
	uint64_t map_entry;
	uint64_t first_stream_page;
	uint64_t disk_pages;
	uint64_t cmp_len;           /* 0: a raw page */
};

struct km_cache {
	uint64_t chunk;             /* UINT64_MAX: empty */
	uint64_t used;
	unsigned char *unc;
	size_t unc_len;
};

enum km_mmu { KM_MMU_NONE = 0, KM_MMU_X86_64, KM_MMU_ARM64, KM_MMU_X86_32, KM_MMU_RISCV64 };

struct hib_kmem {
	struct hib_image *img;
	size_t ps;
	struct km_chunk *chunks;
	size_t nchunks, cap;
	uint64_t *cp;               /* data pages before every KM_STEP-th entry */
	uint64_t data_pages;
	unsigned char *vmci;        /* the VMCOREINFO page, NULL if none */
	uint64_t vmci_pfn;
	unsigned char *cmp;
	struct km_cache cache[KM_CACHE];
	uint64_t tick;

	/* pgtable.c, from VMCOREINFO at the first translation */
	bool mmu_ready;
	enum km_mmu mmu;
	const char *mmu_why;        /* why none, for the message */
	uint64_t root;              /* physical address of the top table */
	int levels;
	unsigned int shift;         /* page shift (arm64 granule) */
	unsigned int va_bits;       /* arm64 */
	uint64_t kimage_voffset;    /* arm64 */
	uint64_t phys_offset;       /* arm64 */
	int have_phys_offset;
	bool pae;                   /* i386: PAE tables */
	struct { bool valid; uint64_t va, pa; } tlb[KM_TLB];   /* read_virt's pages */
	bool lpa2;                  /* arm64: 52-bit output addresses, FEAT_LPA2 */

	/* best effort (hib_image_set_partial()): chunks through the walk's
	 * runs, decoded into cache[i].unc and cmp (no buffers of their own) */
	struct hib_sv_cache svc[KM_CACHE];
	uint64_t lost_reads;        /* reads of a page the damage took */
	char lost[200];             /* the last one's words */
};

/* chunk1.c */
HIB_HIDDEN int hib_chunk1_decode(struct hib_image *img, uint64_t map_entry,
				 uint64_t disk_pages, uint64_t cmp_len,
				 unsigned char *cmp, unsigned char *unc,
				 size_t *unc_len);

/* Why the kernel's variables cannot be read without VMCOREINFO: on a
 * salvaged image the damage may have taken the page. */
HIB_HIDDEN const char *hib_kmem_no_vmci(const struct hib_kmem *km);

/* pgtable.c, for the PT_LOADs of a core (export-vaddr.c): VA - PA of the
 * linear map, checked at the saved address lo; and where a mapping at
 * PA + voff that starts at start ends (at most max bytes on). */
HIB_HIDDEN int hib_kmem_linear_offset(struct hib_kmem *km, uint64_t lo, uint64_t *voff);
HIB_HIDDEN uint64_t hib_kmem_linear_end(struct hib_kmem *km, uint64_t start,
					uint64_t voff, uint64_t max);

/* prstatus.c: the NT_PRSTATUS note's desc (struct elf_prstatus) of the
 * hibernating CPU, from the registers the image saved, for e_machine
 * (EM_X86_64 and EM_AARCH64 have them where they can be found);
 * HIB_ERR_UNSUPPORTED and a message on the image where not. desc holds
 * HIB_PRSTATUS_MAX; the writers set aside hib_prstatus_size(e_machine),
 * 0 where no note can come. */
#define HIB_EM_X86_64        62u
#define HIB_EM_AARCH64       183u
#define HIB_PRSTATUS_X86_64  336u
#define HIB_PRSTATUS_ARM64   392u
#define HIB_PRSTATUS_MAX     392u
static inline size_t hib_prstatus_size(unsigned int e_machine)
{
	return e_machine == HIB_EM_X86_64 ? HIB_PRSTATUS_X86_64 :
	       e_machine == HIB_EM_AARCH64 ? HIB_PRSTATUS_ARM64 : 0;
}
HIB_HIDDEN int hib_prstatus(struct hib_kmem *km, unsigned int e_machine,
			    unsigned char *desc, size_t *len);
/* The note around that desc, as crash_save_cpu() appends it: Elf_Nhdr
 * (three 4-byte words, Elf32 and Elf64 alike), "CORE\0" padded to 4. */
#define HIB_NT_PRSTATUS      1u
#define HIB_PRSTATUS_NAME    "CORE"
#define HIB_PRSTATUS_HDR     20u
/* For the ELF and kdump writers: hib_prstatus() where km is open (where
 * not, no_km says why), the reason for no note into why; the message on
 * the image stays the export's. Returns whether there is a note. */
HIB_HIDDEN bool hib_prstatus_export(struct hib_image *img, struct hib_kmem *km,
				    const char *no_km, unsigned int e_machine,
				    unsigned char *desc, size_t *len, char *why,
				    size_t why_len);

#endif
