/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * export.c - the saved memory as the files memory-forensics tools open:
 * a raw physical image, LiME, or an ELF core with the kernel's VMCOREINFO:
 * ELFCLASS64, or ELFCLASS32 for a 32-bit writer whose memory ends below
 * 4 GiB (i386 without PAE memory above it, as kexec-tools' default core).
 * makedumpfile's kdump-compressed format is kdump.c's; this file checks
 * the options and opens the output for it. (Single pages by PFN or slot:
 * pages.c.)
 *
 * Every PFN-list entry, zero-flagged or not, takes one page in the output,
 * and both appear in ascending PFN order, so a page's file offset follows
 * from its list entry and its run: nothing has to be sorted or held while
 * the stream goes by once.
 */
#include "kmemP.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* LiME (github.com/504ensicsLabs/LiME, lime.h): lime_mem_range_header. */
#define LIME_MAGIC           0x4C694D45u
#define LIME_VERSION         1u
#define LIME_HDR             32u

/* include/uapi/linux/elf.h: Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr and the
 * 32-bit ones */
#define ELF_EHDR             64u
#define ELF_PHDR             56u
#define ELF_SHDR             64u
#define ELF32_EHDR           52u
#define ELF32_PHDR           32u
#define ELF32_SHDR           40u
#define ELFCLASS32           1u
#define ELFCLASS64           2u
#define ET_CORE              4u
#define PT_LOAD              1u
#define PT_NOTE              4u
#define PN_XNUM              0xffffu
#define EM_NONE              0u
#define EM_386               3u
#define EM_PPC64             21u
#define EM_S390              22u
#define EM_X86_64            62u
#define EM_AARCH64           183u
#define EM_RISCV             243u
/* crash_core.c: append_elf_note(buf, VMCOREINFO_NOTE_NAME, 0, ...) */
#define VMCOREINFO_NAME      "VMCOREINFO"
#define VMCOREINFO_NAME_PAD  12u          /* "VMCOREINFO\0" rounded to 4 */
/* arch/x86/include/asm/page_64_types.h */
#define START_KERNEL_MAP     0xffffffff80000000ull
#define KERNEL_IMAGE_SIZE_DEFAULT (512ull << 20)

/* Pending output: contiguous bytes gathered so one pwrite covers many pages. */
#define OUTBUF               (1u << 20)

struct ex {
	struct hib_image *img;
	const struct hib_export_opts *o;
	struct hib_export_result *res;
	struct hib_output *out;
	unsigned int ps;
	unsigned char *buf;
	size_t len;
	uint64_t off;               /* file offset of buf[0] */
	uint64_t data_start;        /* ELF: offset of the first PT_LOAD byte */
	uint64_t note_off;
	uint64_t phnum;             /* ELF: program headers room is reserved for */
	bool elf32;                 /* ELFCLASS32: every offset and address < 4 GiB */
	unsigned int ehdr, phdr, shdr;  /* their sizes in that class */
	/* ELF: the kernel-image window, physical [kmap_lo, kmap_hi), seen at
	 * paddr + kmap_voff (mod 2^64); kmap_lo may be negative (x86 KASLR) */
	bool kmap;
	int64_t kmap_lo, kmap_hi;
	uint64_t kmap_voff;
	uint64_t *run_va;           /* ELF: each run's linear-map address, 0 none */
	unsigned char *vmci;        /* ELF: copy of the VMCOREINFO page */
	/* ELF: the note's text, the caller's or vmci, once the stream has
	 * gone by; note_room: what the layout set aside for it */
	const unsigned char *note;
	size_t note_len, note_room;
	/* ELF: the NT_PRSTATUS note before it (prstatus.c), room set aside
	 * where the architecture may have one; prs_len 0: none */
	unsigned char prs[HIB_PRSTATUS_MAX];
	size_t prs_len, prs_room;
};

static int flush(struct ex *x)
{
	int rc = x->len ? hib_output_pwrite(x->out, x->buf, x->len, x->off) : HIB_OK;

	x->len = 0;
	return rc;
}

/* Queues n <= a page of bytes for offset off; what is never queued stays a
 * hole. */
static int emit(struct ex *x, uint64_t off, const void *p, size_t n)
{
	int rc;

	if (x->len && (off != x->off + x->len || x->len + n > OUTBUF)) {
		rc = flush(x);
		if (rc)
			return rc;
	}
	if (!x->len)
		x->off = off;
	memcpy(x->buf + x->len, p, n);
	x->len += n;
	return HIB_OK;
}

static void put(unsigned char *p, uint64_t v, unsigned int size, bool be)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		p[be ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static unsigned int e_machine(const struct hib_info *in)
{
	switch (in->arch) {
	case HIB_ARCH_X86_64:  return EM_X86_64;
	case HIB_ARCH_X86_32:  return EM_386;
	case HIB_ARCH_ARM64:   return EM_AARCH64;
	case HIB_ARCH_RISCV64: return EM_RISCV;
	case HIB_ARCH_GENERIC:
		/* uname -m of the kernel that wrote the generic header */
		if (!strcmp(in->machine, "x86_64"))
			return EM_X86_64;
		if (!strcmp(in->machine, "aarch64") || !strcmp(in->machine, "arm64"))
			return EM_AARCH64;
		if (!strcmp(in->machine, "riscv64"))
			return EM_RISCV;
		if (!strncmp(in->machine, "ppc64", 5))
			return EM_PPC64;
		if (!strcmp(in->machine, "s390x"))
			return EM_S390;
		if (in->machine[0] == 'i' && !strcmp(in->machine + 2, "86"))
			return EM_386;
		return EM_NONE;
	case HIB_ARCH_UNKNOWN_RECORD:
		break;
	}
	return EM_NONE;
}

/* Where list entry e of run r lands in the output. */
static uint64_t page_offset(const struct ex *x, uint64_t pfn, uint64_t r, uint64_t e)
{
	switch (x->o->format) {
	case HIB_EXPORT_LIME:
		return (r + 1) * LIME_HDR + e * x->ps;
	case HIB_EXPORT_ELF:
		return x->data_start + e * x->ps;
	case HIB_EXPORT_RAW:
	case HIB_EXPORT_KDUMP:      /* kdump.c places its own */
		break;
	}
	return pfn * x->ps;
}

static int lime_header(struct ex *x, uint64_t r)
{
	const struct hib_image *img = x->img;
	unsigned char h[LIME_HDR];
	uint64_t start = img->runs[r].start_pfn * x->ps;

	/* LiME headers are little-endian whatever the memory's byte order. */
	memset(h, 0, sizeof(h));
	put(h, LIME_MAGIC, 4, false);
	put(h + 4, LIME_VERSION, 4, false);
	put(h + 8, start, 8, false);
	put(h + 16, start + hib_pfn_run_len(img, r) * x->ps - 1, 8, false);
	return emit(x, r * LIME_HDR + img->runs[r].first_entry * x->ps, h, sizeof(h));
}

/*
 * ELF layout: header, program headers (PT_NOTE first, then one PT_LOAD per
 * run), the extended-numbering section header when needed, the note, then
 * the page data from a page boundary on. The note's length is known only
 * once its page has streamed by, so room for a whole page is reserved and
 * the headers are written last.
 */
static void elf_layout(struct ex *x, bool elf32)
{
	uint64_t off;

	x->elf32 = elf32;
	x->ehdr = elf32 ? ELF32_EHDR : ELF_EHDR;
	x->phdr = elf32 ? ELF32_PHDR : ELF_PHDR;
	x->shdr = elf32 ? ELF32_SHDR : ELF_SHDR;
	/* the note, a PT_LOAD per run, and at most one kernel-map alias each */
	x->phnum = 2 * x->img->n_runs + 1;
	off = x->ehdr + x->phnum * x->phdr;
	if (x->phnum >= PN_XNUM)
		off += x->shdr;
	x->note_off = off;
	off += x->prs_room;
	off += 12 + VMCOREINFO_NAME_PAD + ((x->note_room + 3) & ~(size_t)3);
	x->data_start = div_round_up(off, x->ps) * x->ps;
}

/* A 32-bit writer's memory as a 32-bit core, as its own kernel's
 * /proc/vmcore would be (readers pick the word size from the class), when
 * every physical address and file offset fits 32 bits; else ELFCLASS64,
 * which holds PAE memory above 4 GiB. */
static void elf_plan(struct ex *x)
{
	const struct hib_image *img = x->img;
	uint64_t lim = UINT64_C(1) << 32;

	elf_layout(x, false);
	if (img->info.word_size != 4 || img->pfns.highest >= lim / x->ps)
		return;
	elf_layout(x, true);
	if (x->data_start + img->pfns.entries * x->ps > lim)
		elf_layout(x, false);
}

/* Elf32_Phdr / Elf64_Phdr: their fields in their own orders */
static void put_phdr(const struct ex *x, unsigned char *p, uint32_t type, uint32_t flags,
		     uint64_t off, uint64_t vaddr, uint64_t paddr, uint64_t size,
		     uint64_t align)
{
	bool be = x->img->hdr.big_endian;

	memset(p, 0, x->phdr);
	put(p, type, 4, be);
	if (x->elf32) {
		put(p + 4, off, 4, be);
		put(p + 8, vaddr, 4, be);
		put(p + 12, paddr, 4, be);
		put(p + 16, size, 4, be);
		put(p + 20, size, 4, be);
		put(p + 24, flags, 4, be);
		put(p + 28, align, 4, be);
		return;
	}
	put(p + 4, flags, 4, be);
	put(p + 8, off, 8, be);
	put(p + 16, vaddr, 8, be);
	put(p + 24, paddr, 8, be);
	put(p + 32, size, 8, be);
	put(p + 40, size, 8, be);
	put(p + 48, align, 8, be);
}

/*
 * Readers find the page tables through a kernel-image address, x86_64's
 * SYMBOL(init_top_pgt) or arm64's SYMBOL(swapper_pg_dir): without a segment
 * that maps it they cannot translate anything (drgn: "recursive address
 * translation"). /proc/vmcore carries such a segment (kexec-tools adds the
 * kernel text on both); here it is the part of each run inside the
 * kernel-image window, at the inverse of __pa_symbol(), which holds with
 * and without KASLR. It shares its file bytes with the run's own PT_LOAD.
 */
static bool kmap_part(const struct ex *x, uint64_t r, uint64_t *a, uint64_t *b)
{
	const struct hib_image *img = x->img;
	uint64_t start = img->runs[r].start_pfn * x->ps;
	uint64_t end = start + hib_pfn_run_len(img, r) * x->ps;

	if (!x->kmap)
		return false;
	*a = (int64_t)start > x->kmap_lo ? start : (uint64_t)x->kmap_lo;
	*b = (int64_t)end < x->kmap_hi ? end : (uint64_t)x->kmap_hi;
	return (int64_t)*a < (int64_t)*b;
}

/* x86_64: [phys_base, phys_base + KERNEL_IMAGE_SIZE) at __START_KERNEL_map
 * + (paddr - phys_base) (arch/x86/include/asm/page_64.h) */
static bool kmap_x86_64(struct ex *x)
{
	uint64_t base, size;
	int64_t v;

	if (!hib_vmci_ld(x->note, x->note_len, "NUMBER(phys_base)=", &v))
		return false;
	base = (uint64_t)v;
	if (hib_vmci_ld(x->note, x->note_len, "NUMBER(KERNEL_IMAGE_SIZE)=", &v) && v)
		size = (uint64_t)v;
	else
		size = KERNEL_IMAGE_SIZE_DEFAULT;
	/* The page is the image's to choose: a phys_base beyond the 52-bit
	 * physical address space or a window above the 2 GiB the kernel
	 * code model allows is not a kernel's, and would overflow in
	 * kmap_part(). No window then, so no aliases. phys_base is signed:
	 * with KASLR it is often negative, and the window then starts
	 * below 0. */
	if ((int64_t)base <= -(INT64_C(1) << 52) ||
	    (int64_t)base >= (INT64_C(1) << 52) || size > (UINT64_C(2) << 30))
		return false;
	x->kmap_lo = (int64_t)base;
	x->kmap_hi = (int64_t)(base + size);
	x->kmap_voff = START_KERNEL_MAP - base;
	return true;
}

/* arm64: __pa_symbol(v) = v - kimage_voffset (arch/arm64/include/asm/
 * memory.h); riscv64: kernel_mapping_va_to_pa(v) = v - va_kernel_pa_offset
 * (arch/riscv/include/asm/page.h, not XIP), VMCOREINFO's
 * NUMBER(va_kernel_pa_offset). VMCOREINFO gives no image size, so the
 * window is what it names inside the image: _stext up to the end of
 * swapper_pg_dir, text, rodata and data (arm64's vmlinux.lds.S puts
 * swapper_pg_dir after text and rodata, before __init_begin; riscv's is in
 * its page-aligned bss, after data); past it arm64's kernel VA range is
 * vmalloc space, which an alias would misread. */
static bool kmap_offset(struct ex *x, const char *key, unsigned int pa_bits)
{
	uint64_t voff, stext, pgd;

	if (!hib_vmci_lx(x->note, x->note_len, key, &voff) ||
	    !hib_vmci_lx(x->note, x->note_len, "SYMBOL(_stext)=", &stext) ||
	    !hib_vmci_lx(x->note, x->note_len, "SYMBOL(swapper_pg_dir)=", &pgd))
		return false;
	stext -= voff;
	pgd -= voff;
	/* physical, below 2^pa_bits, at most 2 GiB apart */
	if (stext > pgd || pgd >= (UINT64_C(1) << pa_bits) || pgd - stext > (UINT64_C(2) << 30))
		return false;
	x->kmap_lo = (int64_t)stext;
	x->kmap_hi = (int64_t)(pgd + x->ps);
	x->kmap_voff = voff;
	return true;
}

/* The hibernating CPU's registers, where they can be found: a note, or
 * the reason in the result. The message on the image stays the export's. */
static void prstatus_plan(struct ex *x, struct hib_kmem *km, const char *why)
{
	if (!x->prs_room)
		return;
	x->res->prstatus = hib_prstatus_export(x->img, km, why, x->res->e_machine, x->prs,
					       &x->prs_len, x->res->prstatus_why,
					       sizeof(x->res->prstatus_why));
}

static void kmap_plan(struct ex *x)
{
	struct hib_kmem *km = NULL;
	char keep[sizeof(x->img->err)];
	uint64_t r, a, b;

	if (!x->res->vmcoreinfo)
		return;
	/* one more checked pass, for the tables (export-vaddr.c) and the
	 * registers (prstatus.c) */
	memcpy(keep, x->img->err, sizeof(keep));
	if (hib_kmem_open(x->img, &km) != HIB_OK)
		km = NULL;
	prstatus_plan(x, km, x->img->err);
	memcpy(x->img->err, keep, sizeof(keep));
	if (x->res->e_machine == EM_X86_64)
		x->kmap = kmap_x86_64(x);
	else if (x->res->e_machine == EM_AARCH64)
		x->kmap = kmap_offset(x, "NUMBER(kimage_voffset)=", 52);      /* arm64's widest PA */
	else if (x->res->e_machine == EM_RISCV && !x->elf32)
		x->kmap = kmap_offset(x, "NUMBER(va_kernel_pa_offset)=", 56); /* Sv57's PA */
	x->run_va = calloc(x->img->n_runs ? x->img->n_runs : 1, sizeof(*x->run_va));
	if (km && x->run_va && (x->res->e_machine == EM_X86_64 || x->res->e_machine == EM_AARCH64)) {
		/* arm64: the image's data and bss lie past swapper_pg_dir */
		bool grow = x->kmap && x->res->e_machine == EM_AARCH64;
		uint64_t end = 0, used = (uint64_t)(x->kmap_hi - x->kmap_lo);

		hib_export_vaddrs(km, x->run_va, (uint64_t)x->kmap_hi, x->kmap_voff,
				  grow && used < (UINT64_C(2) << 30) ? (UINT64_C(2) << 30) - used : 0,
				  &end);
		if (grow && end > (uint64_t)x->kmap_hi)
			x->kmap_hi = (int64_t)end;
	}
	hib_kmem_free(km);
	for (r = 0; x->run_va && r < x->img->n_runs; r++)
		x->res->direct_map_loads += x->run_va[r] != 0;
	for (r = 0; r < x->img->n_runs; r++)
		x->res->kernel_map_loads += kmap_part(x, r, &a, &b);
}

static int elf_headers(struct ex *x)
{
	const struct hib_image *img = x->img;
	bool be = img->hdr.big_endian;
	unsigned int w = x->elf32 ? 4 : 8;  /* Elf_Addr, Elf_Off */
	uint64_t phnum, ka, kb;
	uint64_t shoff = x->ehdr + x->phnum * x->phdr, r, off;
	unsigned char h[ELF_EHDR], p[ELF_PHDR], s[ELF_SHDR];
	size_t desc = (size_t)x->res->vmcoreinfo_len;
	uint64_t notesz = 12 + VMCOREINFO_NAME_PAD + ((desc + 3) & ~(size_t)3);
	uint64_t prsz;
	int rc;

	kmap_plan(x);
	prsz = x->prs_len ? HIB_PRSTATUS_HDR + x->prs_len : 0;
	phnum = img->n_runs + x->res->kernel_map_loads + (x->res->vmcoreinfo ? 1 : 0);
	memset(h, 0, sizeof(h));
	memcpy(h, "\177ELF", 4);
	h[4] = x->elf32 ? ELFCLASS32 : ELFCLASS64;
	h[5] = be ? 2 : 1;                          /* ELFDATA2MSB / LSB */
	h[6] = 1;                                   /* EV_CURRENT */
	put(h + 16, ET_CORE, 2, be);
	put(h + 18, x->res->e_machine, 2, be);
	put(h + 20, 1, 4, be);
	/* e_entry, e_phoff, e_shoff, then e_flags and the 2-byte fields */
	put(h + 16 + 8 + w, x->ehdr, w, be);        /* e_phoff */
	off = 16 + 8 + 3 * w + 4;                   /* e_ehsize */
	put(h + off, x->ehdr, 2, be);
	put(h + off + 2, x->phdr, 2, be);
	/* Extended numbering (elf(5), PN_XNUM): the real count goes into
	 * section header 0, as the kernel's own core dumps do it. */
	put(h + off + 4, phnum >= PN_XNUM ? PN_XNUM : phnum, 2, be);
	if (phnum >= PN_XNUM) {
		put(h + 16 + 8 + 2 * w, shoff, w, be);
		put(h + off + 6, x->shdr, 2, be);
		put(h + off + 8, 1, 2, be);
	}
	rc = emit(x, 0, h, x->ehdr);
	off = x->ehdr;
	if (rc == HIB_OK && x->res->vmcoreinfo) {
		put_phdr(x, p, PT_NOTE, 0, x->note_off, 0, 0, prsz + notesz, 4);
		rc = emit(x, off, p, x->phdr);
		off += x->phdr;
	}
	for (r = 0; rc == HIB_OK && r < img->n_runs; r++) {
		/* PF_R | PF_W | PF_X, as kexec-tools; p_vaddr the linear-map
		 * address the kernel's own tables give (it moves with
		 * RANDOMIZE_MEMORY), else 0: readers translate then */
		put_phdr(x, p, PT_LOAD, 7, x->data_start + img->runs[r].first_entry * x->ps,
			 x->run_va ? x->run_va[r] : 0, img->runs[r].start_pfn * x->ps,
			 hib_pfn_run_len(img, r) * x->ps, 0);
		rc = emit(x, off, p, x->phdr);
		off += x->phdr;
	}
	for (r = 0; rc == HIB_OK && r < img->n_runs; r++) {
		if (!kmap_part(x, r, &ka, &kb))
			continue;
		put_phdr(x, p, PT_LOAD, 7, x->data_start + img->runs[r].first_entry * x->ps +
			 (ka - img->runs[r].start_pfn * x->ps),
			 ka + x->kmap_voff, ka, kb - ka, 0);
		rc = emit(x, off, p, x->phdr);
		off += x->phdr;
	}
	if (rc == HIB_OK && phnum >= PN_XNUM) {
		/* sh_size: e_shnum; sh_info: e_phnum */
		memset(s, 0, sizeof(s));
		put(s + (x->elf32 ? 20 : 32), 1, w, be);
		put(s + (x->elf32 ? 28 : 44), (uint32_t)phnum, 4, be);
		rc = emit(x, shoff, s, x->shdr);
	}
	if (rc == HIB_OK && x->res->vmcoreinfo) {
		unsigned char n[12 + VMCOREINFO_NAME_PAD];

		/* Elf32_Nhdr and Elf64_Nhdr are both three 4-byte words */
		/* NT_PRSTATUS first, as /proc/vmcore has the CPUs' notes
		 * before VMCOREINFO */
		if (prsz) {
			memset(n, 0, sizeof(n));
			put(n, sizeof(HIB_PRSTATUS_NAME), 4, be);
			put(n + 4, x->prs_len, 4, be);
			put(n + 8, HIB_NT_PRSTATUS, 4, be);
			memcpy(n + 12, HIB_PRSTATUS_NAME, sizeof(HIB_PRSTATUS_NAME));
			rc = emit(x, x->note_off, n, HIB_PRSTATUS_HDR);
			if (rc == HIB_OK)
				rc = emit(x, x->note_off + HIB_PRSTATUS_HDR, x->prs, x->prs_len);
		}
		memset(n, 0, sizeof(n));
		put(n, sizeof(VMCOREINFO_NAME), 4, be);
		put(n + 4, desc, 4, be);
		memcpy(n + 12, VMCOREINFO_NAME, sizeof(VMCOREINFO_NAME));
		if (rc == HIB_OK)
			rc = emit(x, x->note_off + prsz, n, sizeof(n));
		if (rc == HIB_OK)
			rc = emit(x, x->note_off + prsz + sizeof(n), x->note, desc);
	}
	return rc;
}

static int stream_pages(struct ex *x)
{
	struct hib_image *img = x->img;
	struct hib_reader *rd;
	struct hib_page pg;
	uint64_t r = 0, total = img->pfns.entries, step = total / 100 + 1;
	int rc;

	rc = hib_reader_new(img, &rd);
	if (rc)
		return rc;
	(void)hib_reader_set_threads(rd, x->o->threads);  /* before the first page: cannot fail */
	while ((rc = hib_reader_next_page(rd, &pg)) == 1) {
		bool first = !pg.entry;

		while (r + 1 < img->n_runs && img->runs[r + 1].first_entry <= pg.entry) {
			r++;
			first = true;
		}
		if (first && x->o->format == HIB_EXPORT_LIME) {
			rc = lime_header(x, r);
			if (rc)
				break;
		}
		if (pg.data) {
			x->res->data_pages++;
			/* The same page identity.c takes: the kernel allocates
			 * vmcoreinfo_data as a zeroed page of its own. */
			if (x->o->format == HIB_EXPORT_ELF && !x->res->vmcoreinfo_page &&
			    hib_vmci_page(pg.data, x->ps)) {
				memcpy(x->vmci, pg.data, x->ps);
				x->res->vmcoreinfo_page = 1;
				x->res->vmcoreinfo_pfn = pg.pfn;
			}
			if (!hib_page_zero(pg.data, x->ps)) {
				rc = emit(x, page_offset(x, pg.pfn, r, pg.entry), pg.data, x->ps);
				if (rc)
					break;
			}
		} else {
			x->res->zero_pages++;
		}
		x->res->pages++;
		if (x->o->progress && (x->res->pages % step == 0 || x->res->pages == total))
			x->o->progress(x->res->pages, total, x->o->progress_arg);
	}
	hib_reader_free(rd);
	return rc < 0 ? rc : HIB_OK;
}

static int export_image(struct hib_image *img, const char *out,
			const struct hib_export_opts *o, struct hib_export_result *res)
{
	struct ex x;
	unsigned int flags;
	size_t note_len = 0;
	int rc;

	memset(res, 0, sizeof(*res));
	memset(&x, 0, sizeof(x));
	if (!img->loaded)
		return hib_seterr(img, HIB_ERR_INVAL, "image not loaded");
	if (o->format != HIB_EXPORT_RAW && o->format != HIB_EXPORT_LIME &&
	    o->format != HIB_EXPORT_ELF && o->format != HIB_EXPORT_KDUMP)
		return hib_seterr(img, HIB_ERR_INVAL, "unknown export format %d", (int)o->format);
	if (o->vmcoreinfo) {
		if (o->format != HIB_EXPORT_ELF && o->format != HIB_EXPORT_KDUMP)
			return hib_seterr(img, HIB_ERR_INVAL,
					  "a VMCOREINFO text goes into ELF and kdump exports only: raw and LiME have no note");
		rc = hib_vmci_check(img, "the VMCOREINFO text", o->vmcoreinfo,
				    o->vmcoreinfo_len, &note_len);
		if (rc)
			return rc;
	}
	if (o->partial && (rc = hib_image_set_partial(img, 1)))
		return rc;
	rc = hib_image_load_pfns(img);
	if (rc)
		return rc;
	/* The ELF and kdump headers go in last, at the front: not for a
	 * pipe. */
	flags = (o->output_flags & HIB_OUTPUT_FORCE) |
		(o->format == HIB_EXPORT_ELF || o->format == HIB_EXPORT_KDUMP ? 0 :
		 HIB_OUTPUT_STREAM);
	rc = hib_output_open(img, out, flags, 0, &x.out);
	if (rc)
		return rc;
	x.img = img;
	x.o = o;
	x.res = res;
	x.ps = img->lay.ps;
	x.buf = malloc(OUTBUF);
	/* one byte more than a page: the image need not NUL-terminate it */
	x.vmci = calloc(1, x.ps + 1);
	if (!x.buf || !x.vmci) {
		rc = hib_seterr(img, HIB_ERR_NOMEM, "out of memory");
		goto out;
	}
	res->ranges = img->n_runs;
	res->e_machine = e_machine(&img->info);
	if (o->format == HIB_EXPORT_KDUMP) {
		rc = hib_export_kdump(img, x.out, o, (const unsigned char *)o->vmcoreinfo,
				      note_len, res);
		goto out;
	}
	if (o->format == HIB_EXPORT_ELF) {
		/* the caller's text, or room for a whole page's */
		x.note_room = o->vmcoreinfo && note_len > x.ps ? note_len : x.ps;
		/* only x86_64 and arm64 leave their registers where they
		 * can be found */
		if (hib_prstatus_size(res->e_machine))
			x.prs_room = HIB_PRSTATUS_HDR + hib_prstatus_size(res->e_machine);
		elf_plan(&x);
		res->elf_class = x.elf32 ? ELFCLASS32 : ELFCLASS64;
	}

	rc = stream_pages(&x);
	if (rc == HIB_OK && o->format == HIB_EXPORT_ELF) {
		if (o->vmcoreinfo) {
			x.note = (const unsigned char *)o->vmcoreinfo;
			x.note_len = note_len;
			res->vmcoreinfo_source = HIB_VMCI_CALLER;
		} else if (res->vmcoreinfo_page) {
			x.note = x.vmci;
			x.note_len = strnlen((char *)x.vmci, x.ps);
			res->vmcoreinfo_source = HIB_VMCI_PAGE;
		}
		res->vmcoreinfo = x.note != NULL;
		res->vmcoreinfo_len = x.note_len;
		rc = elf_headers(&x);
	}
	if (rc == HIB_OK)
		rc = flush(&x);
	if (rc == HIB_OK) {
		uint64_t size;

		switch (o->format) {
		case HIB_EXPORT_RAW:
			size = (img->pfns.highest + 1) * x.ps;
			break;
		case HIB_EXPORT_LIME:
			size = img->n_runs * LIME_HDR + img->pfns.entries * x.ps;
			break;
		default:
			size = x.data_start + img->pfns.entries * x.ps;
			break;
		}
		res->file_size = size;
		rc = hib_output_set_size(x.out, size);
	}
out:
	rc = hib_output_close(x.out, rc);
	free(x.buf);
	free(x.vmci);
	free(x.run_va);
	return rc;
}

int hib_export(struct hib_image *img, const char *out,
	       const struct hib_export_opts *opts, struct hib_export_result *res)
{
	struct hib_export_opts o;
	struct hib_export_result full;
	int rc = HIB_ABI_IN(img, hib_export_opts, &o, opts);

	if (rc == HIB_OK)
		rc = HIB_ABI_SIZE(img, hib_export_result, res);
	if (rc)
		return rc;
	rc = export_image(img, out, &o, &full);
	hib_abi_out(res, &full);
	return rc;
}
