/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The target handle (target.c) and what its parsers share. */
#ifndef _TARGETP_H
#define _TARGETP_H

#include "hibimgP.h"

/* Every file a target parser reads is read whole, and none may be larger:
 * a kernel, decompressed or not, a config, a memmap entry, /proc/iomem. */
#define HIB_TGT_FILE_MAX     (256u << 20)
#define HIB_TGT_TEXT_MAX     (16u << 20)     /* config, iomem, cmdline, zoneinfo */
#define HIB_TGT_MEM_MAX      4096u           /* ranges: E820_MAX_ENTRIES is
					      * 128 + 3 * MAX_NUMNODES (<= 1024) */
#define HIB_TGT_PROBLEMS     16u
#define HIB_TGT_CPUS_MAX     4096u           /* arm64 NR_CPUS is at most 4096 */

/* The inputs, for what a check that lacks one says. */
enum hib_tin { HIB_TIN_KERNEL = 0, HIB_TIN_CONFIG, HIB_TIN_MEM, HIB_TIN_FACS, HIB_TIN_BOOT,
	       HIB_TIN_EFIVAR, HIB_TIN_OSRELEASE, HIB_TIN_CPUS, HIB_TIN_N };

/* here-codec.c: what the running kernel's crypto_has_comp() will find */
enum hib_codec_state {
	HIB_CODEC_UNKNOWN = 0,      /* not looked at (no --here, no /proc/crypto) */
	HIB_CODEC_LOADED,           /* registered: in /proc/crypto */
	HIB_CODEC_BUILTIN,          /* modules.builtin names it */
	HIB_CODEC_MODPROBE,         /* modules.dep and .alias name it, modprobe is there */
	HIB_CODEC_NO_MODULE,        /* nothing request_module() could load */
	HIB_CODEC_NO_MODPROBE       /* a module, but no usermode helper to load it */
};
struct hib_codec_here {
	enum hib_codec_state state;
	char detail[384];
};

struct hib_target {
	char err[768];
	struct hib_target_info info;
	struct hib_mem_range *mem;
	size_t n_mem;
	char *types;                /* the type strings mem[] points into */
	char *config;               /* the config text, NUL-terminated */
	size_t config_len;
	char *problems[HIB_TGT_PROBLEMS];
	size_t n_problems;
	char why[HIB_TIN_N][512];   /* the last problem with each input */
	bool kernel_set, config_set, mem_set, facs_set;
	uint64_t *cpus;             /* the MPIDRs, info.n_cpus of them */
	bool cpus_set;
	struct hib_codec_here codec[HIB_COMP_LZ4 + 1];  /* by enum hib_compression */
};

/* target.c */
HIB_HIDDEN int hib_tgt_seterr(struct hib_target *t, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Keeps the current error as a problem with input which: given, not used. */
HIB_HIDDEN void hib_tgt_problem(struct hib_target *t, enum hib_tin which);
/* here.c: the boot's resume settings under root: /proc/cmdline (resume=,
 * resume_offset=, noresume, ...), /sys/power/resume and resume_offset;
 * what discover.c reads too, so both read them alike. */
HIB_HIDDEN void hib_here_boot(struct hib_target *t, const char *root);
/* here-codec.c: codec[] for the running kernel of release rel under root */
HIB_HIDDEN void hib_here_codecs(struct hib_target *t, const char *root, const char *rel);
/* The whole of path, NUL-terminated (not counted in *len), at most max
 * bytes; the error names the file. */
HIB_HIDDEN int hib_tgt_slurp(struct hib_target *t, const char *path, size_t max,
			     unsigned char **buf, size_t *len);
/* KERNEL_VERSION() of "6.12.117-foo", 0 if it does not start a.b */
HIB_HIDDEN unsigned int hib_kver_parse(const char *release);
/* efivar.c: a UUID as SD_ID128_UUID_FORMAT_STR prints it (lower case) */
HIB_HIDDEN void hib_efi_uuid_str(const unsigned char u[16], char out[37]);
#define HIB_KVER(a, b, c) (((unsigned int)(a) << 16) + ((unsigned int)(b) << 8) + \
			   ((c) > 255 ? 255u : (unsigned int)(c)))

/* unpack.c: the most a kernel decompresses to, HIB_TGT_FILE_MAX; the fuzz
 * harnesses, whose allocations are limited, lower it */
HIB_HIDDEN extern size_t hib_tgt_unpack_cap;
/* unpack.c: data that starts with a known compressed format, decompressed
 * into a new buffer of at most cap bytes. name is what was found ("xz");
 * HIB_ERR_UNSUPPORTED when the format is not one it knows or was built
 * without. hint: the size the container says (0: unknown). */
HIB_HIDDEN const char *hib_unpack_format(const unsigned char *p, size_t len);
HIB_HIDDEN int hib_unpack(struct hib_target *t, const char *what,
			  const unsigned char *p, size_t len, size_t hint, size_t cap,
			  unsigned char **out, size_t *out_len);

/* cpus.c: the cpu@ nodes under a device tree's cpus directory
 * (/sys/firmware/devicetree/base/cpus) as the target's CPUs */
HIB_HIDDEN int hib_tgt_dt_cpus(struct hib_target *t, const char *dir);
/* cpus.c: the enabled GICC entries of an ACPI MADT (/sys/firmware/acpi/tables/APIC) */
HIB_HIDDEN int hib_tgt_madt_cpus(struct hib_target *t, const char *path);

/* kconfig.c: takes a config text (from a file or IKCONFIG) as the target's */
HIB_HIDDEN int hib_kconfig_take(struct hib_target *t, char *text, size_t len,
				const char *from, const char *what);

/* memmap.c: the firmware table from the kernel's BIOS-e820 lines (a
 * /dev/kmsg or a log's text); HIB_ERR_NOT_FOUND where it has none */
HIB_HIDDEN int hib_memmap_from_log(struct hib_target *t, const char *path);
/* memmap.c: the derived facts once mem[] is set */
HIB_HIDDEN void hib_memmap_derive(struct hib_target *t);
/* the target's RAM as [first, end) PFNs the kernel counts (4K pages), at
 * most cap ranges: the count */
HIB_HIDDEN size_t hib_memmap_ram_pfns(const struct hib_target *t, uint64_t (*r)[2], size_t cap);

#endif
