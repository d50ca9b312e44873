/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * export-vaddr.c - the virtual addresses of an ELF core's PT_LOADs, as
 * /proc/vmcore gives them (kexec-tools: the linear map at its virtual
 * address), for readers that read virtual addresses from the segments
 * rather than through the page tables (drgn 0.0.22, crash): each run at
 * its linear-map address where the kernel's own tables map both its ends
 * there (pgtable.c, hib_kmem_linear_offset()); and on arm64, where
 * VMCOREINFO gives the kernel image only up to swapper_pg_dir, the rest of
 * the image (data, bss, past the unmapped __init hole) as far as the tables
 * map it at PA + kimage_voffset.
 * The caller opens the handle: one more checked pass of the stream
 * (kmem.c), which the NT_PRSTATUS note (prstatus.c) shares.
 */
#include "kmemP.h"

#include <stdlib.h>
#include <string.h>

/*
 * arm64 frees and unmaps __init_begin..__init_end after boot (free_initmem()),
 * so the image is mapped with a hole past swapper_pg_dir; VMCOREINFO's own
 * symbols in .data and .bss (init_uts_ns, prb, clear_seq, mem_section...)
 * say it goes on. The end: past the highest of them that the tables map
 * at PA + voff, as far as the mapping goes on; else pa itself.
 */
static uint64_t image_end(struct hib_kmem *km, uint64_t pa, uint64_t voff, uint64_t max)
{
	const unsigned char *v = km->vmci;
	size_t i = 0, ps = km->ps;
	uint64_t top = pa, got;

	while (i < ps && v[i]) {
		size_t j = i;

		while (j < ps && v[j] && v[j] != '\n')
			j++;
		if (j - i > 7 && !memcmp(v + i, "SYMBOL(", 7)) {
			const unsigned char *eq = memchr(v + i, '=', j - i);
			char hex[20];
			size_t n = eq ? (size_t)(v + j - eq - 1) : 0;

			if (n && n < sizeof(hex)) {
				uint64_t sym;

				memcpy(hex, eq + 1, n);
				hex[n] = 0;
				sym = strtoull(hex, NULL, 16) - voff;
				if (sym >= top && sym - pa < max &&
				    hib_kmem_vtop(km, sym + voff, &got) == HIB_OK && got == sym)
					top = (sym / ps + 1) * ps;
			}
		}
		i = j + 1;
	}
	return top == pa ? pa : hib_kmem_linear_end(km, top, voff, max - (top - pa));
}

void hib_export_vaddrs(struct hib_kmem *km, uint64_t *run_va,
		       uint64_t kimg_pa, uint64_t kimg_voff, uint64_t kimg_max,
		       uint64_t *kimg_end)
{
	struct hib_image *img = km->img;
	uint64_t voff, r, ps = img->lay.ps;
	char keep[sizeof(img->err)];

	/* what the export says stays its own message */
	memcpy(keep, img->err, sizeof(keep));
	if (hib_kmem_linear_offset(km, img->pfns.lowest * ps, &voff) == HIB_OK) {
		for (r = 0; r < img->n_runs; r++) {
			uint64_t a = img->runs[r].start_pfn * ps;
			uint64_t b = a + (hib_pfn_run_len(img, r) - 1) * ps;
			uint64_t pa;

			if (hib_kmem_vtop(km, a + voff, &pa) == HIB_OK && pa == a &&
			    hib_kmem_vtop(km, b + voff, &pa) == HIB_OK && pa == b)
				run_va[r] = a + voff;
		}
	}
	if (kimg_end && kimg_max)
		*kimg_end = image_end(km, kimg_pa, kimg_voff, kimg_max);
	memcpy(img->err, keep, sizeof(keep));
}
