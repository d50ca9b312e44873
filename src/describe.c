/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * describe.c - facts of an image as output records, shared by info and
 * dump so the same fact has the same key and label everywhere.
 */
#include "config.h"
#include "describe.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void describe_header(struct out_rec *r, const struct hib_image *img)
{
	const struct hib_header *h = hib_image_header(img);
	char buf[160], uuid[37];

	out_rec_add(r, "path", "path", OUT_STR, "%s", hib_image_path(img));
	out_rec_add(r, "kind", "kind", OUT_STR, "%s", hib_kind_name(h->kind));
	out_rec_add(r, "device-size", "device size", OUT_SIZE, "%" PRIu64, h->device_size);
	if (!h->page_size)
		return;
	out_rec_add(r, "page-size", "page size", OUT_NUM, "%u", h->page_size);
	out_rec_add(r, "byte-order", "byte order", OUT_STR, "%s",
		    h->big_endian ? "big-endian" : "little-endian");
	out_rec_add(r, "resume-offset", "resume offset (pages)", OUT_NUM, "%" PRIu64,
		    h->resume_offset);
	if (h->kind == HIB_KIND_TUXONICE)
		return;
	out_rec_section(r, "Hibernation header");
	out_rec_add(r, "sig", "signature", OUT_STR, "%s", h->sig);
	out_rec_add(r, "orig-sig", "original signature", OUT_STR, "%s", h->orig_sig);
	if (hib_image_container_flags(img) & HIB_CT_OWN_HEADER) {
		out_rec_add(r, "image-offset", "image header (byte offset)", OUT_HEX,
			    "0x%" PRIx64, h->image);
	} else {
		out_rec_add(r, "image", "first map page", OUT_NUM, "%" PRIu64, h->image);
		out_rec_add(r, "flags", "flags", OUT_HEX, "0x%x", h->flags);
		out_rec_add(r, "flag-names", "flag names", OUT_STR, "%s",
			    flags_string(h->flags, buf, sizeof(buf)));
		out_rec_add(r, "crc32", "crc32", OUT_HEX, "0x%08x", h->crc32);
		out_rec_add(r, "hw-sig", "hardware signature", OUT_HEX, "0x%08x", h->hw_sig);
	}
	out_rec_section(r, "Swap header");
	out_rec_add(r, "swap-version", "version", OUT_NUM, "%u", h->swap_version);
	out_rec_add(r, "last-page", "last page", OUT_NUM, "%u", h->last_page);
	out_rec_add(r, "nr-badpages", "bad pages", OUT_NUM, "%u", h->nr_badpages);
	format_uuid(h->uuid, uuid);
	out_rec_add(r, "uuid", "UUID", OUT_STR, "%s", uuid);
	out_rec_add(r, "label", "label", OUT_STR, "%s", h->label);
}

void describe_swapfile(struct out_rec *r, const struct hib_image *img)
{
	const struct hib_swapfile *sw = hib_image_swapfile(img);
	const char *why = hib_image_swapfile_why(img);

	if (!sw) {
		if (why)
			out_rec_add(r, "not-in-place", "not read in place", OUT_STR, "%s", why);
		return;
	}
	out_rec_section(r, "Swap file (read in place)");
	out_rec_add(r, "swapfile-device", "device", OUT_STR, "%s", sw->device);
	out_rec_add(r, "fs-type", "file system", OUT_STR, "%s", sw->fs_type);
	out_rec_add(r, "fs-uuid", "file system UUID", OUT_STR, "%s", sw->fs_uuid);
	out_rec_add(r, "swapfile-pages", "file pages (swap slots)", OUT_NUM, "%" PRIu64,
		    sw->file_pages);
	out_rec_add(r, "swapfile-extents", "extents", OUT_NUM, "%" PRIu64, sw->extents);
	out_rec_add(r, "swapfile-unwritten-pages", "pages in unwritten extents", OUT_NUM,
		    "%" PRIu64, sw->unwritten_pages);
	/* resume= names the file system that holds the file, resume_offset
	 * its first page there (kernel/power/hibernate.c, swap_type_of()) */
	if (sw->fs_uuid[0])
		out_rec_add(r, "resume-cmdline", "kernel command line", OUT_STR,
			    "resume=UUID=%s resume_offset=%" PRIu64, sw->fs_uuid,
			    sw->resume_offset);
	else
		out_rec_add(r, "resume-cmdline", "kernel command line", OUT_STR,
			    "resume=%s resume_offset=%" PRIu64, sw->device, sw->resume_offset);
}

void describe_uswsusp(struct out_rec *r, const struct hib_image *img)
{
	const struct hib_uswsusp *u = hib_image_uswsusp(img);
	char buf[160], h[33];

	if (!u)
		return;
	out_rec_section(r, "Userspace image header (suspend-utils)");
	out_rec_add(r, "usw-pages", "pages (incl. swsusp_info)", OUT_NUM,
		    "%" PRIu64, u->pages);
	out_rec_add(r, "usw-flags", "flags", OUT_HEX, "0x%x", u->flags);
	out_rec_add(r, "usw-flag-names", "flag names", OUT_STR, "%s",
		    names_string(u->flags, hib_usw_flag_name, buf, sizeof(buf)));
	out_rec_add(r, "usw-checksum", "MD5 checksum stored", OUT_BOOL, "%s",
		    (u->flags & HIB_USW_CHECKSUM) ? "true" : "false");
	out_rec_add(r, "usw-compressed", "compressed (LZO)", OUT_BOOL, "%s",
		    (u->flags & HIB_USW_COMPRESSED) ? "true" : "false");
	out_rec_add(r, "usw-encrypted", "encrypted (Blowfish-CFB)", OUT_BOOL, "%s",
		    (u->flags & HIB_USW_ENCRYPTED) ? "true" : "false");
	out_rec_add(r, "usw-rsa", "key wrapped with RSA", OUT_BOOL, "%s",
		    (u->flags & HIB_USW_USE_RSA) ? "true" : "false");
	out_rec_add(r, "usw-platform", "platform power-off", OUT_BOOL, "%s",
		    (u->flags & HIB_USW_PLATFORM) ? "true" : "false");
	if (u->flags & HIB_USW_CHECKSUM) {
		hex_string(h, u->checksum, 16);
		out_rec_add(r, "usw-md5", "MD5 (stored)", OUT_STR, "%s", h);
	}
	out_rec_add(r, "image-data-size", "image_data_size", OUT_SIZE,
		    "%" PRIu64, u->image_data_size);
	out_rec_add(r, "data-pages", "data pages on disk", OUT_NUM, "%" PRIu64,
		    u->data_pages);
	out_rec_add(r, "map-start", "map_start (byte offset)", OUT_HEX, "0x%" PRIx64,
		    u->map_start);
	out_rec_add(r, "extent-pages", "extents pages", OUT_NUM, "%" PRIu64,
		    u->extent_pages);
	out_rec_add(r, "extents", "extents", OUT_NUM, "%" PRIu64, u->extents);
	out_rec_add(r, "header-layout", "header layout", OUT_STR, "%s",
		    u->layout == HIB_USW_LAYOUT_PLAIN ? "without CONFIG_ENCRYPT" :
		    u->layout == HIB_USW_LAYOUT_ENCRYPT ? "CONFIG_ENCRYPT" :
		    "undetermined");
	if (u->layout == HIB_USW_LAYOUT_UNKNOWN)
		return;
	if (u->have_writeout_time)
		out_rec_add(r, "writeout-time", "writeout time (s)", OUT_NUM, "%.3f",
			    u->writeout_time);
	out_rec_add(r, "resume-pause", "resume pause", OUT_NUM, "%d",
		    (int)u->resume_pause);
	if ((u->flags & HIB_USW_ENCRYPTED) && !(u->flags & HIB_USW_USE_RSA)) {
		hex_string(h, u->salt, 8);
		out_rec_add(r, "salt", "IV salt", OUT_STR, "%s", h);
	}
}

static const char *arch_name(enum hib_arch a)
{
	switch (a) {
	case HIB_ARCH_GENERIC:        return "generic (utsname)";
	case HIB_ARCH_X86_64:         return "x86_64";
	case HIB_ARCH_X86_32:         return "i386";
	case HIB_ARCH_ARM64:          return "arm64";
	case HIB_ARCH_RISCV64:        return "riscv64";
	case HIB_ARCH_UNKNOWN_RECORD: break;
	}
	return "unknown arch record";
}

void describe_info(struct out_rec *r, const struct hib_image *img)
{
	const struct hib_info *in = hib_image_info(img);
	const struct hib_header *h = hib_image_header(img);

	out_rec_section(r, "Image (swsusp_info)");
	out_rec_add(r, "arch", "arch header", OUT_STR, "%s", arch_name(in->arch));
	out_rec_add(r, "word-size", "word size", OUT_NUM, "%u", in->word_size);
	switch (in->arch) {
	case HIB_ARCH_X86_64:
	case HIB_ARCH_X86_32:
		out_rec_add(r, "restore-magic", "restore record magic", OUT_HEX,
			    in->arch == HIB_ARCH_X86_64 ? "0x%016" PRIx64 : "0x%08" PRIx64,
			    in->restore_magic);
		out_rec_add(r, "restore-era", "restore record format", OUT_STR,
			    "%s", in->restore_era);
		out_rec_add(r, "jump-address", "jump address", OUT_HEX, "0x%" PRIx64,
			    in->jump_address);
		out_rec_add(r, "jump-address-phys", "jump address (phys)", OUT_HEX,
			    "0x%" PRIx64, in->jump_address_phys);
		out_rec_add(r, "cr3", "CR3 (page-table root)", OUT_HEX, "0x%" PRIx64, in->cr3);
		out_rec_add(r, "e820-check", "e820 checksum", OUT_HEX,
			    "0x%" PRIx64, in->e820_check);
		break;
	case HIB_ARCH_GENERIC:
		out_rec_add(r, "sysname", "sysname", OUT_STR, "%s", in->sysname);
		out_rec_add(r, "uts-release", "release", OUT_STR, "%s", in->release);
		out_rec_add(r, "uts-version", "version", OUT_STR, "%s", in->version);
		out_rec_add(r, "machine", "machine", OUT_STR, "%s", in->machine);
		out_rec_add(r, "version-code", "version code", OUT_HEX, "0x%06x",
			    in->version_code);
		break;
	case HIB_ARCH_ARM64:
		out_rec_add(r, "uts-version", "uts version", OUT_STR, "%s",
			    in->uts_version);
		out_rec_add(r, "ttbr1-el1", "ttbr1_el1 (swapper_pg_dir)", OUT_HEX,
			    "0x%" PRIx64, in->ttbr1_el1);
		out_rec_add(r, "reenter-kernel", "reenter_kernel (_cpu_resume)", OUT_HEX,
			    "0x%" PRIx64, in->reenter_kernel);
		out_rec_add(r, "hyp-stub-vectors", "__hyp_stub_vectors", OUT_HEX,
			    "0x%" PRIx64, in->hyp_stub_vectors);
		if (in->have_sleep_cpu_mpidr)
			out_rec_add(r, "sleep-cpu-mpidr", "saved on CPU (MPIDR)", OUT_HEX,
				    "0x%" PRIx64, in->sleep_cpu_mpidr);
		break;
	case HIB_ARCH_RISCV64:
		out_rec_add(r, "uts-version", "uts version", OUT_STR, "%s",
			    in->uts_version);
		out_rec_add(r, "hartid", "saved on hart", OUT_HEX, "0x%" PRIx64, in->hartid);
		out_rec_add(r, "satp", "saved_satp", OUT_HEX, "0x%016" PRIx64, in->satp);
		/* satp: MODE 63:60, ASID 59:44, PPN 43:0 (RISC-V privileged spec) */
		out_rec_add(r, "satp-mode", "satp mode", OUT_STR, "Sv%u",
			    39 + 9 * (unsigned int)((in->satp >> 60) - 8));
		out_rec_add(r, "satp-ppn", "satp PPN (page-table root)", OUT_HEX,
			    "0x%" PRIx64, in->satp & ((UINT64_C(1) << 44) - 1));
		out_rec_add(r, "restore-cpu-addr", "restore_cpu_addr", OUT_HEX,
			    "0x%" PRIx64, in->restore_cpu_addr);
		break;
	case HIB_ARCH_UNKNOWN_RECORD:
		break;
	}
	out_rec_add(r, "num-physpages", "physical pages", OUT_NUM, "%" PRIu64,
		    in->num_physpages);
	out_rec_add(r, "image-pages", "image pages (copied)", OUT_NUM, "%" PRIu64,
		    in->image_pages);
	out_rec_add(r, "pages", "pages (incl. swsusp_info)", OUT_NUM, "%" PRIu64,
		    in->pages);
	out_rec_add(r, "meta-pages", "PFN-list pages", OUT_NUM, "%" PRIu64,
		    in->meta_pages);
	out_rec_add(r, "size", "size", OUT_SIZE, "%" PRIu64, in->size);
	out_rec_add(r, "compression", "compression", OUT_STR, "%s",
		    hib_compression_name(in->compression));
	/* a header of the container's own gave its checksum and map, above */
	if (hib_image_container_flags(img) & HIB_CT_OWN_HEADER)
		return;
	out_rec_add(r, "crc32-mode", "CRC32 stored", OUT_BOOL, "%s",
		    (h->flags & HIB_SF_CRC32_MODE) ? "true" : "false");
	out_rec_add(r, "map-pages", "swap map pages", OUT_NUM, "%" PRIu64, in->map_pages);
	out_rec_add(r, "disk-pages", "pages listed in the map", OUT_NUM, "%" PRIu64,
		    in->map_entries);
}

void describe_pfns(struct out_rec *r, const struct hib_image *img)
{
	const struct hib_pfns *pf = hib_image_pfns(img);
	const struct hib_info *in = hib_image_info(img);

	out_rec_section(r, "PFN list");
	out_rec_add(r, "pfn-entries", "PFNs saved (\"Need to copy\")", OUT_NUM,
		    "%" PRIu64, pf->entries);
	out_rec_add(r, "zero-flagged", "zero-flagged pages", OUT_NUM, "%" PRIu64,
		    pf->zero_flagged);
	out_rec_add(r, "pfn-runs", "runs of consecutive PFNs", OUT_NUM, "%" PRIu64,
		    pf->runs);
	out_rec_add(r, "lowest-pfn", "lowest PFN", OUT_HEX, "0x%" PRIx64, pf->lowest);
	out_rec_add(r, "highest-pfn", "highest PFN", OUT_HEX, "0x%" PRIx64, pf->highest);
	out_rec_add(r, "wrote-kbytes", "stream size (\"Wrote\" kbytes)", OUT_NUM,
		    "%" PRIu64, (in->pages - 1) * hib_image_header(img)->page_size / 1024);
}

void describe_identity(struct out_rec *r, const struct hib_identity *id)
{
	out_rec_section(r, "Kernel (found in memory)");
	out_rec_add(r, "release", "release", OUT_STR, "%s", id->release);
	out_rec_add(r, "banner", "banner", OUT_STR, "%s", id->banner);
	out_rec_add(r, "vmcoreinfo", "VMCOREINFO", OUT_BOOL, "%s",
		    id->have_vmcoreinfo ? "true" : "false");
	if (!id->have_vmcoreinfo)
		return;
	out_rec_add(r, "vmcoreinfo-pfn", "VMCOREINFO page", OUT_HEX, "0x%" PRIx64,
		    id->vmcoreinfo_pfn);
	out_rec_add(r, "osrelease", "OSRELEASE", OUT_STR, "%s", id->vmcoreinfo_release);
	out_rec_add(r, "vmcoreinfo-page-size", "PAGESIZE", OUT_NUM, "%" PRIu64,
		    id->vmcoreinfo_page_size);
	if (id->have_kernel_offset)
		out_rec_add(r, "kernel-offset", "KERNELOFFSET", OUT_HEX, "0x%" PRIx64,
			    id->kernel_offset);
	if (id->have_swapper_pg_dir)
		out_rec_add(r, "swapper-pg-dir", "SYMBOL(swapper_pg_dir)", OUT_HEX,
			    "0x%" PRIx64, id->swapper_pg_dir);
}

/* What the kernel's own variables say (hib_kmem_identity()), under the
 * identity found by scanning; a kernel whose memory cannot be walked
 * (no VMCOREINFO, an architecture not translated) shows nothing here. */
void describe_kernel_id(struct out_rec *r, struct hib_image *img, int why)
{
	struct hib_kernel_id k = HIB_INIT(struct hib_kernel_id);
	struct hib_kmem *km;

	if (hib_kmem_open(img, &km))
		return;
	if (hib_kmem_identity(km, &k) == HIB_OK) {
		if (k.have_uts) {
			out_rec_add(r, "uname-release", "uname -r (init_uts_ns)", OUT_STR, "%s", k.release);
			out_rec_add(r, "uname-version", "uname -v", OUT_STR, "%s", k.version);
			out_rec_add(r, "uname-machine", "uname -m", OUT_STR, "%s", k.machine);
			out_rec_add(r, "uname-nodename", "uname -n", OUT_STR, "%s", k.nodename);
			out_rec_add(r, "uname-domainname", "domainname", OUT_STR, "%s", k.domainname);
		}
		if (k.have_build_id)
			out_rec_add(r, "build-id", "BUILD-ID", OUT_STR, "%s", k.build_id);
		if (k.have_cmdline)
			out_rec_add(r, "cmdline", "command line (its log)", OUT_STR, "%s", k.cmdline);
		if (why && !k.have_uts && k.uts_why)
			out_rec_add(r, "uname-why", "uname not read", OUT_STR, "%s", k.uts_why);
		if (why && !k.have_cmdline && k.cmdline_why)
			out_rec_add(r, "cmdline-why", "command line not read", OUT_STR, "%s",
				    k.cmdline_why);
	}
	hib_kmem_free(km);
}

const char *describe_state(enum hib_content content, enum hib_kind kind)
{
	switch (content) {
	case HIB_CONTENT_READABLE:  return "readable";
	case HIB_CONTENT_ENCRYPTED: return "encrypted";
	case HIB_CONTENT_UNREAD:    return "damaged";
	case HIB_CONTENT_NONE:      break;
	}
	return kind == HIB_KIND_SWAP || kind == HIB_KIND_UNKNOWN ? "no-image" : "not-decoded";
}
