/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kfile.c - the kernel that will boot, from its file: what it names itself
 * (linux_banner, init/version.c: "Linux version " UTS_RELEASE " ("
 * LINUX_COMPILE_BY "@" LINUX_COMPILE_HOST ") (" LINUX_COMPILER ") "
 * UTS_VERSION), its architecture and page size, and its IKCONFIG.
 *
 * Formats: an ELF vmlinux; an x86 bzImage (Documentation/arch/x86/boot.rst:
 * the setup header at 0x1f1, its kernel_version string, the payload at
 * payload_offset, compressed, ending in its le32 decompressed size); an
 * arm64 Image ("ARM\x64" at 0x38, arch/arm64/include/asm/image.h) or a
 * riscv one ("RSC\x05" at 0x38), bare, compressed whole (Image.gz) or in
 * an EFI zboot image ("zimg"). Decompressed, a kernel may not pass
 * HIB_TGT_FILE_MAX.
 */
#include "targetP.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Of the banner lines that parse, the one the setup header also names
 * wins, then the first whose build string is not the weak copy's
 * (hib_banner_built()), then the first. */
static bool find_banner(const unsigned char *p, size_t len, const char *hdr_rel,
			const char *hdr_ver, struct hib_target_info *in)
{
	static const char pfx[] = "Linux version ";
	const size_t pl = sizeof(pfx) - 1;
	const unsigned char *q = p, *end = p + len;
	int best = 0;

	while ((q = memmem(q, (size_t)(end - q), pfx, pl))) {
		const unsigned char *b = q;
		char line[256], rel[65], ver[65];
		size_t i;
		int score;

		/* linux_banner is one printable line ending in "\n" */
		for (i = 0; b + i < end && i + 1 < sizeof(line); i++) {
			if (b[i] < 0x20 || b[i] >= 0x7f)
				break;
			line[i] = (char)b[i];
		}
		line[i] = 0;
		q = b + pl;
		if (b + i >= end || b[i] != '\n' || line[pl] < '0' || line[pl] > '9')
			continue;
		if (!hib_banner_split(line + pl, rel, ver, 2))
			continue;
		score = hdr_rel[0] && !strcmp(rel, hdr_rel) && !strcmp(ver, hdr_ver) ? 3 :
			hib_banner_built(ver) ? 2 : 1;
		if (score <= best)
			continue;
		best = score;
		snprintf(in->banner, sizeof(in->banner), "%s", line);
		snprintf(in->release, sizeof(in->release), "%s", rel);
		snprintf(in->version, sizeof(in->version), "%s", ver);
		if (score == 3)
			break;
	}
	return best > 0;
}

static enum hib_tarch elf_arch(const unsigned char *p, size_t len)
{
	unsigned int m;

	if (len < 20 || memcmp(p, "\177ELF", 4) || p[5] != 1 /* ELFDATA2LSB */)
		return HIB_TARCH_UNKNOWN;
	m = le16(p + 18);
	switch (m) {
	case 3:   return HIB_TARCH_I386;
	case 62:  return HIB_TARCH_X86_64;
	case 183: return HIB_TARCH_ARM64;
	case 243: return p[4] == 2 ? HIB_TARCH_RISCV64 : HIB_TARCH_UNKNOWN;
	}
	return HIB_TARCH_UNKNOWN;
}

/* kernel/configs.c: IKCFG_ST, the gzipped .config, IKCFG_ED */
static void take_ikconfig(struct hib_target *t, const unsigned char *p, size_t len,
			  const char *path)
{
	/* no payload (a format this build cannot decompress): nothing to find */
	const unsigned char *s = p && len ? memmem(p, len, "IKCFG_ST", 8) : NULL, *e;
	struct libdeflate_decompressor *d;
	size_t cap = 1u << 20, got = 0, used;
	enum libdeflate_result r = LIBDEFLATE_INSUFFICIENT_SPACE;
	unsigned char *out = NULL;
	char what[4200];

	if (!s || t->config_set)
		return;
	s += 8;
	e = memmem(s, (size_t)(p + len - s), "IKCFG_ED", 8);
	if (!e)
		return;
	d = libdeflate_alloc_decompressor();
	if (!d)
		return;
	while (r == LIBDEFLATE_INSUFFICIENT_SPACE && cap <= HIB_TGT_TEXT_MAX) {
		unsigned char *n = realloc(out, cap + 1);

		if (!n)
			break;
		out = n;
		r = libdeflate_gzip_decompress_ex(d, s, (size_t)(e - s), out, cap, &used, &got);
		cap *= 2;
	}
	libdeflate_free_decompressor(d);
	if (r != LIBDEFLATE_SUCCESS) {
		free(out);
		return;
	}
	out[got] = 0;
	snprintf(what, sizeof(what), "%s (IKCONFIG)", path);
	if (hib_kconfig_take(t, (char *)out, got, "IKCONFIG", what))
		hib_tgt_problem(t, HIB_TIN_CONFIG);
}

struct kimg {
	const char *format;
	const char *compression;
	enum hib_tarch arch;
	unsigned int page_size;
	unsigned char *owned;       /* the decompressed kernel, if it was */
	const unsigned char *body;  /* where to look for the banner */
	size_t body_len;
	char hdr_release[65], hdr_version[65];  /* bzImage kernel_version */
};

static int unpack_into(struct hib_target *t, struct kimg *k, const char *what,
		       const unsigned char *p, size_t len, size_t hint)
{
	size_t out_len;
	int rc;

	k->compression = hib_unpack_format(p, len);
	rc = hib_unpack(t, what, p, len, hint, hib_tgt_unpack_cap, &k->owned, &out_len);
	if (rc)
		return rc;
	k->body = k->owned;
	k->body_len = out_len;
	return HIB_OK;
}

static int bzimage(struct hib_target *t, const char *path, const unsigned char *p,
		   size_t len, struct kimg *k)
{
	unsigned int setup_sects = p[0x1f1] ? p[0x1f1] : 4;
	unsigned int proto = le16(p + 0x206);
	uint64_t poff, plen, hint;
	char what[4200];
	int rc;

	k->format = "bzImage";
	if (proto >= 0x020c)
		k->arch = (le16(p + 0x236) & 1) ? HIB_TARCH_X86_64 : HIB_TARCH_I386;
	k->page_size = 4096;
	if (le16(p + 0x20e)) {
		uint64_t vo = (uint64_t)le16(p + 0x20e) + 0x200;
		char s[256];
		size_t i;

		for (i = 0; vo + i < len && i + 1 < sizeof(s) && p[vo + i]; i++)
			s[i] = (char)p[vo + i];
		s[i] = 0;
		if (!hib_banner_split(s, k->hdr_release, k->hdr_version, 1))
			k->hdr_release[0] = k->hdr_version[0] = 0;
	}
	if (proto < 0x0208)
		return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
				      "%s: boot protocol %u.%02u, before 2.08 names no payload",
				      path, proto >> 8, proto & 0xff);
	poff = (uint64_t)(setup_sects + 1) * 512 + le32(p + 0x248);
	plen = le32(p + 0x24c);
	if (plen < 8 || poff > len || plen > len - poff)
		return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
				      "%s: truncated: its setup header puts the payload at bytes %" PRIu64 "..%" PRIu64 " of %zu",
				      path, poff, poff + plen, len);
	/* every kernel compressor appends the decompressed size: the boot
	 * code sizes its buffer by it, and so does this, up to the cap */
	hint = le32(p + poff + plen - 4);
	snprintf(what, sizeof(what), "%s (bzImage payload)", path);
	rc = unpack_into(t, k, what, p + poff, plen, hint);
	if (rc)
		return rc;
	if (elf_arch(k->body, k->body_len) != HIB_TARCH_UNKNOWN)
		k->arch = elf_arch(k->body, k->body_len);
	return HIB_OK;
}

/* arm64 Image header: flags at 24, bits 1-2 the page size */
static bool bare_image(const unsigned char *p, size_t len, struct kimg *k)
{
	if (len < 64)
		return false;
	if (!memcmp(p + 0x38, "ARM\x64", 4)) {
		static const unsigned int ps[4] = { 0, 4096, 16384, 65536 };

		k->format = "arm64 Image";
		k->arch = HIB_TARCH_ARM64;
		k->page_size = ps[(le64(p + 24) >> 1) & 3];
		return true;
	}
	if (!memcmp(p + 0x38, "RSC\x05", 4) && !memcmp(p + 0x30, "RISCV\0\0\0", 8)) {
		k->format = "riscv Image";
		k->arch = HIB_TARCH_RISCV64;
		return true;
	}
	return false;
}

static int identify(struct hib_target *t, const char *path, const unsigned char *p,
		    size_t len, struct kimg *k)
{
	char what[4200];
	int rc;

	if (len >= 4 && !memcmp(p, "\177ELF", 4)) {
		k->format = "vmlinux";
		k->arch = elf_arch(p, len);
		k->page_size = k->arch == HIB_TARCH_X86_64 || k->arch == HIB_TARCH_I386 ? 4096 : 0;
		k->body = p;
		k->body_len = len;
		return HIB_OK;
	}
	if (len >= 0x250 && !memcmp(p + 0x202, "HdrS", 4) && le16(p + 0x1fe) == 0xaa55)
		return bzimage(t, path, p, len, k);
	if (bare_image(p, len, k)) {
		k->body = p;
		k->body_len = len;
		return HIB_OK;
	}
	/* drivers/firmware/efi/libstub/zboot-header.S */
	if (len >= 64 && !memcmp(p, "MZ", 2) && !memcmp(p + 4, "zimg", 4)) {
		uint64_t off = le32(p + 8), size = le32(p + 12);

		if (off > len || size > len - off)
			return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
					      "%s: truncated: its zboot header puts the payload at bytes %" PRIu64 "..%" PRIu64 " of %zu",
					      path, off, off + size, len);
		snprintf(what, sizeof(what), "%s (EFI zboot payload)", path);
		rc = unpack_into(t, k, what, p + off, size, 0);
		if (rc)
			return rc;
		if (!bare_image(k->body, k->body_len, k))
			return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
					      "%s: its zboot payload is no arm64 or riscv Image", path);
		k->format = k->arch == HIB_TARCH_ARM64 ? "arm64 Image (EFI zboot)" :
			    "riscv Image (EFI zboot)";
		return HIB_OK;
	}
	if (hib_unpack_format(p, len)) {
		/* Image.gz and the like: gzip ends in the size it decodes to,
		 * a hint only (a truncated file ends elsewhere) */
		size_t hint = len > 8 && p[0] == 0x1f ? le32(p + len - 4) : 0;

		rc = unpack_into(t, k, path, p, len, hint <= hib_tgt_unpack_cap ? hint : 0);
		if (rc)
			return rc;
		if (bare_image(k->body, k->body_len, k)) {
			k->format = k->arch == HIB_TARCH_ARM64 ? "arm64 Image" : "riscv Image";
			return HIB_OK;
		}
		if (k->body_len >= 4 && !memcmp(k->body, "\177ELF", 4)) {
			k->format = "vmlinux";
			k->arch = elf_arch(k->body, k->body_len);
			return HIB_OK;
		}
		return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
				      "%s: %s data that hold no kernel this reads (vmlinux, arm64 or riscv Image)",
				      path, k->compression);
	}
	return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
			      "%s: not a kernel this reads (vmlinux, bzImage, arm64 or riscv Image, Image.gz)",
			      path);
}

static int read_kernel(struct hib_target *t, const char *path, struct kimg *k)
{
	struct hib_target_info *in = &t->info;
	const unsigned char *p;
	unsigned char *slurped = NULL;
	void *map = MAP_FAILED;
	size_t len = 0;
	struct stat st;
	bool banner;
	int fd, rc;

	/* a vmlinux with debug info can be large: map it, read nothing twice */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hib_tgt_seterr(t, HIB_ERR_IO, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		len = (size_t)st.st_size;
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	}
	close(fd);
	if (map != MAP_FAILED) {
		p = map;
	} else {
		rc = hib_tgt_slurp(t, path, HIB_TGT_FILE_MAX, &slurped, &len);
		if (rc)
			return rc;
		p = slurped;
	}
	rc = identify(t, path, p, len, k);
	/* a payload in a format not built in: the setup header still names
	 * the release and build string, which is what the checks compare */
	if (rc == HIB_ERR_UNSUPPORTED && k->format && !strcmp(k->format, "bzImage") &&
	    k->hdr_release[0]) {
		hib_tgt_problem(t, HIB_TIN_KERNEL);
		rc = HIB_OK;
	}
	if (rc)
		goto out;
	banner = k->body && find_banner(k->body, k->body_len, k->hdr_release, k->hdr_version, in);
	if (!banner && k->hdr_release[0]) {
		snprintf(in->release, sizeof(in->release), "%s", k->hdr_release);
		snprintf(in->version, sizeof(in->version), "%s", k->hdr_version);
	} else if (!banner) {
		rc = hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
				    "%s: a %s with no \"Linux version\" banner", path, k->format);
		goto out;
	}
	if (banner && k->hdr_release[0] &&
	    (strcmp(k->hdr_release, in->release) || strcmp(k->hdr_version, in->version))) {
		hib_tgt_seterr(t, HIB_ERR_DAMAGED,
			       "%s: its setup header says %s %s, its banner %s %s: the banner is used",
			       path, k->hdr_release, k->hdr_version, in->release, in->version);
		hib_tgt_problem(t, HIB_TIN_KERNEL);
	}
	in->kver = hib_kver_parse(in->release);
	in->kernel_from = "kernel file";
	in->kernel_format = k->format;
	in->kernel_compression = k->compression;
	in->kernel_bytes = k->body_len;
	if (k->arch != HIB_TARCH_UNKNOWN)
		in->arch = k->arch;
	if (k->page_size)
		in->page_size = k->page_size;
	in->running_kernel = 0;
	take_ikconfig(t, k->body, k->body_len, path);
	t->kernel_set = true;
	hib_memmap_derive(t);
out:
	if (map != MAP_FAILED)
		munmap(map, len);
	free(slurped);
	return rc;
}

int hib_target_set_kernel(struct hib_target *t, const char *path)
{
	struct kimg k = { 0 };
	int rc = read_kernel(t, path, &k);

	free(k.owned);
	if (rc)
		hib_tgt_problem(t, HIB_TIN_KERNEL);
	return rc;
}
