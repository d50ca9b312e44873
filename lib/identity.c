/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * identity.c - which kernel wrote the image. x86 images carry no release
 * string in their header (the arch record replaces utsname), so look in the
 * memory itself: linux_banner ("Linux version <release> (...)") and the
 * VMCOREINFO note page, which starts with "OSRELEASE=".
 */
#include "hibimgP.h"

#include <string.h>

static bool release_char(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '.' || c == '-' || c == '+' ||
	       c == '_' || c == '~';
}

/* Accepts "Linux version 6.12.57 (" with a release that starts with a
 * digit: format strings and prose mentioning "Linux version" do not. */
static bool take_banner(struct hib_identity *id, const unsigned char *p,
			size_t avail)
{
	static const char pfx[] = "Linux version ";
	size_t n = sizeof(pfx) - 1, i, r;

	if (avail <= n || memcmp(p, pfx, n) || p[n] < '0' || p[n] > '9')
		return false;
	for (r = n; r < avail && release_char(p[r]); r++)
		;
	if (r == avail || p[r] != ' ' || r - n >= sizeof(id->release))
		return false;
	memcpy(id->release, p + n, r - n);
	id->release[r - n] = 0;
	for (i = 0; i < avail && i + 1 < sizeof(id->banner); i++) {
		if (p[i] == '\n' || p[i] == 0)
			break;
		id->banner[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
	}
	id->banner[i] = 0;
	return true;
}

/* The weak banner comes first in memory too: a built one ends the search. */
static bool banner_built(const struct hib_identity *id)
{
	char rel[65], ver[65];

	return hib_banner_split(id->banner + strlen("Linux version "), rel, ver, 2) && hib_banner_built(ver);
}

static void take_vmcoreinfo(struct hib_identity *id, const unsigned char *pg,
			    size_t ps, uint64_t pfn)
{
	int64_t page_size;

	id->have_vmcoreinfo = 1;
	id->vmcoreinfo_pfn = pfn;
	(void)hib_vmci_value(pg, ps, "OSRELEASE=", id->vmcoreinfo_release,
			     sizeof(id->vmcoreinfo_release));
	if (hib_vmci_ld(pg, ps, "PAGESIZE=", &page_size))
		id->vmcoreinfo_page_size = (uint64_t)page_size;
	if (hib_vmci_lx(pg, ps, "KERNELOFFSET=", &id->kernel_offset))
		id->have_kernel_offset = 1;
	if (hib_vmci_lx(pg, ps, "SYMBOL(swapper_pg_dir)=", &id->swapper_pg_dir))
		id->have_swapper_pg_dir = 1;
}

static int identify(struct hib_image *img, struct hib_identity *id)
{
	struct hib_reader *rd;
	struct hib_page pg;
	struct hib_identity weak = { 0 };
	size_t ps = img->lay.ps;
	bool banner = false, have_weak = false;
	int rc;

	memset(id, 0, sizeof(*id));
	rc = hib_reader_new(img, &rd);
	if (rc)
		return rc;
	while ((rc = hib_reader_next_page(rd, &pg)) == 1) {
		const unsigned char *p;

		if (!pg.data)
			continue;
		if (!id->have_vmcoreinfo && hib_vmci_page(pg.data, ps))
			take_vmcoreinfo(id, pg.data, ps, pg.pfn);
		for (p = pg.data; !banner && p < pg.data + ps;) {
			p = memchr(p, 'L', (size_t)(pg.data + ps - p));
			if (!p)
				break;
			if (take_banner(id, p, (size_t)(pg.data + ps - p))) {
				id->banner_pfn = pg.pfn;
				banner = banner_built(id);
				if (!banner && !have_weak) {
					have_weak = true;
					memcpy(weak.release, id->release, sizeof(weak.release));
					memcpy(weak.banner, id->banner, sizeof(weak.banner));
					weak.banner_pfn = pg.pfn;
				}
			}
			p++;
		}
		if (banner && id->have_vmcoreinfo)
			break;
	}
	hib_reader_free(rd);
	if (rc < 0)
		return rc;
	/* no built banner: the first one found, weak or not */
	if (!banner && have_weak) {
		memcpy(id->release, weak.release, sizeof(id->release));
		memcpy(id->banner, weak.banner, sizeof(id->banner));
		id->banner_pfn = weak.banner_pfn;
	}
	if (!id->release[0] && id->vmcoreinfo_release[0])
		strcpy(id->release, id->vmcoreinfo_release);
	return HIB_OK;
}

int hib_image_identify(struct hib_image *img, struct hib_identity *id)
{
	struct hib_identity full;
	int rc = HIB_ABI_SIZE(img, hib_identity, id);

	if (rc)
		return rc;
	rc = identify(img, &full);
	hib_abi_out(id, &full);
	return rc;
}
