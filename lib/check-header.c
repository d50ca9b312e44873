/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check-header.c - load_header() -> check_header() (kernel/power/
 * snapshot.c): the arch record where the architecture keeps one
 * (arch/x86/power/hibernate.c, arch/arm64/kernel/hibernate.c,
 * arch/riscv/kernel/hibernate.c), else the
 * utsname and version code; then the memory size.
 */
#include "checkP.h"

#include <stdio.h>
#include <string.h>

#define MISMATCH "PM: hibernation: Image mismatch: "

/* RESTORE_MAGIC (hibimgP.h) by the release that set it, x86_64's then
 * i386's. Between 4.9 and 4.10 (the e820 MD5, 62a03defeabd) and from 5.4
 * to 5.12 (the CRC-32, f5d1499ae209, went to the stable series) a point
 * release may hold either: there the version alone does not tell. i386
 * kept the generic header until 25862a049e6f gave it the common record
 * (2018: 4.19 or 4.20, not pinned down from the sources read). */
struct x86_era {
	unsigned int from;
	uint64_t magic;
	const char *name;
	int sum;                    /* 0 none, 1 MD5, 2 CRC-32 */
};
static const struct x86_era x86_64_eras[] = {
	{ HIB_KVER(2, 6, 0),  HIB_RESTORE_MAGIC_26,  "the 2.6-4.6 record", 0 },
	{ HIB_KVER(4, 7, 0),  HIB_RESTORE_MAGIC_47,  "the 4.7-4.8 record", 0 },
	{ HIB_KVER(4, 9, 0),  HIB_RESTORE_MAGIC_MD5, "the 4.9-5.12 record, e820 MD5", 1 },
	{ HIB_KVER(5, 13, 0), HIB_RESTORE_MAGIC_CRC, "the 5.13+ record, e820 CRC-32", 2 },
	{ 0, 0, NULL, 0 }
};
static const struct x86_era x86_32_eras[] = {
	{ HIB_KVER(4, 19, 0), HIB_RESTORE_MAGIC_32_MD5, "the i386 record before 5.13, e820 MD5", 1 },
	{ HIB_KVER(5, 13, 0), HIB_RESTORE_MAGIC_32_CRC, "the i386 5.13+ record, e820 CRC-32", 2 },
	{ 0, 0, NULL, 0 }
};

static const struct x86_era *eras_of(const struct hib_info *in)
{
	return in->arch == HIB_ARCH_X86_32 ? x86_32_eras : x86_64_eras;
}

static const struct x86_era *era_of(const struct x86_era *t, unsigned int kver)
{
	const struct x86_era *e = NULL;

	for (; t->name; t++)
		if (kver >= t->from)
			e = t;
	return e;
}

static const struct x86_era *era_by_magic(const struct x86_era *t, uint64_t magic)
{
	for (; t->name; t++)
		if (t->magic == magic)
			return t;
	return NULL;
}

static bool uncertain(const struct x86_era *t, unsigned int kver, const struct x86_era *img)
{
	if (t == x86_32_eras && kver >= HIB_KVER(4, 18, 0) && kver < HIB_KVER(4, 20, 0))
		return true;
	if (t == x86_64_eras && kver >= HIB_KVER(4, 9, 0) && kver < HIB_KVER(4, 11, 0))
		return img && img->from <= HIB_KVER(4, 9, 0);
	if (kver >= HIB_KVER(5, 4, 0) && kver < HIB_KVER(5, 13, 0))
		return img && img->sum == 2;
	return false;
}

static void x86_e820(struct chk_ctx *c, struct chk_item *it, const struct x86_era *e)
{
	const struct hib_target_info *tin = c->tin;
	uint64_t want = 0;
	int k;

	if (!e->sum) {
		chk_set(it, HIB_CHECK_PASS, "restore record magic 0x%" PRIx64 " (%s) as this kernel expects; no e820 check in this era",
			c->in->restore_magic, e->name);
		return;
	}
	if (!tin->have_e820) {
		chk_set(it, HIB_CHECK_UNKNOWN,
			"magic 0x%" PRIx64 " (%s) as this kernel expects; the image's e820 check 0x%" PRIx64 " must equal the checksum of the boot's firmware map",
			c->in->restore_magic, e->name, c->in->e820_check);
		if (tin->mem_from && !strcmp(tin->mem_from, "/proc/iomem"))
			chk_missing(it, "the target's firmware memory map (a copy of /sys/firmware/memmap: /proc/iomem is the kernel's edited table, not the firmware's)");
		else if (tin->mem_from)
			chk_missing(it, "the target's firmware memory map with every type known (an entry has a type e820 has no number for)");
		else
			chk_missing_input(c, it, HIB_TIN_MEM,
					  "the target's firmware memory map (a copy of /sys/firmware/memmap)");
		return;
	}
	if (e->sum == 1) {
		/* the digest's first 8 bytes, as the record holds them */
		for (k = 7; k >= 0; k--)
			want = want << 8 | tin->e820_md5[k];
		if (c->in->e820_check == 0) {
			chk_set(it, HIB_CHECK_PASS, "magic 0x%" PRIx64 " (%s); the image kept no digest (no MD5 in its kernel): not compared",
				c->in->restore_magic, e->name);
			return;
		}
	} else {
		want = tin->e820_crc32;
	}
	if (c->in->e820_check != want) {
		chk_set(it, HIB_CHECK_FAIL,
			"e820 %s: the image's 0x%" PRIx64 ", the boot's firmware map gives 0x%" PRIx64 " (%zu entries)",
			e->sum == 1 ? "MD5 (first 8 bytes)" : "CRC-32", c->in->e820_check, want,
			tin->mem_ranges);
		chk_message(it, "Hibernate inconsistent memory map detected!");
		return;
	}
	chk_set(it, HIB_CHECK_PASS,
		"magic 0x%" PRIx64 " (%s) as this kernel expects; e820 %s 0x%" PRIx64 " equals the boot's firmware map (%zu entries)%s",
		c->in->restore_magic, e->name, e->sum == 1 ? "MD5" : "CRC-32", want,
		tin->mem_ranges,
		tin->running_kernel && c->kver >= HIB_KVER(6, 15, 0) ?
		"; since 6.15 sysfs shows the kexec table, which can differ from the firmware's" : "");
	if (tin->running_kernel && c->kver >= HIB_KVER(6, 15, 0))
		it->pub.status = HIB_CHECK_WARN;
}

static void x86_record(struct chk_ctx *c, struct chk_item *it)
{
	const struct x86_era *t = eras_of(c->in);
	const struct x86_era *want, *img = era_by_magic(t, c->in->restore_magic);

	if (!c->kver) {
		chk_set(it, HIB_CHECK_UNKNOWN, "restore record magic 0x%" PRIx64 " (%s): the boot kernel's release decides the one it expects",
			c->in->restore_magic, img ? img->name : "a record of no known release");
		chk_missing_input(c, it, HIB_TIN_KERNEL, "the target kernel's version (its kernel file or config)");
		return;
	}
	want = era_of(t, c->kver);
	if (!want || want->magic != c->in->restore_magic) {
		if (uncertain(t, c->kver, img)) {
			chk_set(it, HIB_CHECK_UNKNOWN,
				"restore record magic 0x%" PRIx64 ": kernel %u.%u expects 0x%" PRIx64 ", or this one where a stable update brought it",
				c->in->restore_magic, c->kver >> 16, (c->kver >> 8) & 0xff,
				want ? want->magic : 0);
			chk_missing(it, "which restore record this point release of the target kernel has");
			return;
		}
		if (!want && t == x86_32_eras) {
			/* no record of its own: check_image_kernel() compares
			 * the version_code, 0 under a record */
			chk_set(it, HIB_CHECK_FAIL, "restore record magic 0x%" PRIx64 " (%s), kernel %u.%u keeps the generic header on i386 and reads version code 0",
				c->in->restore_magic, img ? img->name : "unknown",
				c->kver >> 16, (c->kver >> 8) & 0xff);
			chk_message(it, MISMATCH "kernel version");
			return;
		}
		chk_set(it, HIB_CHECK_FAIL, "restore record magic 0x%" PRIx64 " (%s), kernel %u.%u expects 0x%" PRIx64 " (%s); "
			"then \"" MISMATCH "architecture specific data\"",
			c->in->restore_magic, img ? img->name : "unknown",
			c->kver >> 16, (c->kver >> 8) & 0xff,
			want ? want->magic : 0, want ? want->name : "none");
		chk_message(it, "Unrecognized hibernate image header format!");
		return;
	}
	x86_e820(c, it, want);
	/* arch_hibernation_header_restore() is all x86 compares: any kernel
	 * whose record matches restores, and the image's own code runs on */
	if (it->pub.status == HIB_CHECK_PASS)
		snprintf(it->detail + strlen(it->detail), sizeof(it->detail) - strlen(it->detail),
			 "; x86 compares no kernel version");
	if (it->pub.status == HIB_CHECK_FAIL)
		snprintf(it->detail + strlen(it->detail), sizeof(it->detail) - strlen(it->detail),
			 "; then \"" MISMATCH "architecture specific data\"");
}

/*
 * arm64 and riscv64 compare the same way (arch_hibernation_header_restore()
 * in arch/arm64/kernel/hibernate.c and arch/riscv/kernel/hibernate.c):
 * memcmp() of uts_version[65] with their own, then the saving CPU among the
 * CPUs the boot enumerated: arm64's get_logical_index(sleep_cpu_mpidr),
 * riscv's riscv_hartid_to_cpuid(hartid). arm64 prints through pr_fmt
 * "hibernate: ", riscv has no pr_fmt. Both CPU ids are what a device tree's
 * cpu nodes hold in reg, so --cpus and --here serve both.
 */
struct uts_arch {
	const char *prefix;         /* pr_fmt */
	const char *id;             /* what the record names the CPU by */
};
static const struct uts_arch arm64_arch = { "hibernate: ", "MPIDR" };
static const struct uts_arch riscv_arch = { "", "hart ID" };

static void saving_cpu(struct chk_ctx *c, struct chk_item *it, const struct uts_arch *a,
		       uint64_t want)
{
	const struct hib_target_info *tin = c->tin;
	const uint64_t *cpus;
	size_t n, i;

	cpus = hib_target_cpus(c->t, &n);
	if (!cpus) {
		chk_set(it, HIB_CHECK_UNKNOWN,
			"build string \"%s\" equals the boot kernel's; saved on the CPU with %s 0x%" PRIx64 ", which the boot must know",
			tin->version, a->id, want);
		chk_missing_input(c, it, HIB_TIN_CPUS, a == &arm64_arch ?
				  "the target's CPUs (--cpus MPIDR,..., or --here: the device tree's cpu nodes or the ACPI MADT)" :
				  "the target's CPUs (--cpus HARTID,..., or --here: the device tree's cpu nodes)");
		return;
	}
	for (i = 0; i < n; i++)
		if (cpus[i] == want)
			break;
	if (i == n) {
		chk_set(it, HIB_CHECK_FAIL,
			"saved on the CPU with %s 0x%" PRIx64 ", not among the boot's %zu (%s, first 0x%" PRIx64 "); then \"" MISMATCH "architecture specific data\"",
			a->id, want, n, tin->cpus_from, cpus[0]);
		chk_message(it, "%sHibernated on a CPU not known to this kernel!", a->prefix);
		return;
	}
	chk_set(it, HIB_CHECK_PASS,
		"build string \"%s\" equals the boot kernel's; saved on %s 0x%" PRIx64 ", one of the boot's %zu CPUs (%s)",
		tin->version, a->id, want, n, tin->cpus_from);
}

static void uts_record(struct chk_ctx *c, struct chk_item *it, const struct uts_arch *a,
		       uint64_t cpu)
{
	const struct hib_target_info *tin = c->tin;

	if (!tin->version[0]) {
		chk_set(it, HIB_CHECK_UNKNOWN, "the image's build string \"%s\" must equal the boot kernel's uname -v",
			c->in->uts_version);
		chk_missing_input(c, it, HIB_TIN_KERNEL, "the target kernel's build string (its kernel file)");
		return;
	}
	if (strcmp(c->in->uts_version, tin->version)) {
		chk_set(it, HIB_CHECK_FAIL, "build string \"%s\", the boot kernel's \"%s\"; then \"" MISMATCH "architecture specific data\"",
			c->in->uts_version, tin->version);
		chk_message(it, "%sHibernate image not generated by this kernel!", a->prefix);
		return;
	}
	saving_cpu(c, it, a, cpu);
}

static const char *uts_machine(enum hib_tarch a)
{
	switch (a) {
	case HIB_TARCH_X86_64:  return "x86_64";
	case HIB_TARCH_ARM64:   return "aarch64";
	case HIB_TARCH_RISCV64: return "riscv64";
	default:                return NULL;
	}
}

/* check_image_kernel() without an arch record, in its order */
static void generic(struct chk_ctx *c, struct chk_item *it)
{
	const struct hib_info *in = c->in;
	const struct hib_target_info *tin = c->tin;
	const char *machine = uts_machine(tin->arch);
	unsigned int code = hib_kver_parse(tin->release);

	if (!tin->release[0] || !code) {
		chk_set(it, HIB_CHECK_UNKNOWN, "no arch record: the image's %s %s (\"%s\") must be the boot kernel's",
			in->sysname, in->release, in->version);
		chk_missing_input(c, it, HIB_TIN_KERNEL, "the target kernel's release and build string (its kernel file)");
		return;
	}
	if (in->version_code != code) {
		chk_set(it, HIB_CHECK_FAIL, "version code 0x%x, the boot kernel's 0x%x", in->version_code, code);
		chk_message(it, MISMATCH "kernel version");
	} else if (strcmp(in->sysname, "Linux")) {
		chk_set(it, HIB_CHECK_FAIL, "sysname \"%s\"", in->sysname);
		chk_message(it, MISMATCH "system type");
	} else if (strcmp(in->release, tin->release)) {
		chk_set(it, HIB_CHECK_FAIL, "release %s, the boot kernel's %s", in->release, tin->release);
		chk_message(it, MISMATCH "kernel release");
	} else if (strcmp(in->version, tin->version)) {
		chk_set(it, HIB_CHECK_FAIL, "build string \"%s\", the boot kernel's \"%s\"", in->version, tin->version);
		chk_message(it, MISMATCH "version");
	} else if (machine && strcmp(in->machine, machine)) {
		chk_set(it, HIB_CHECK_FAIL, "machine %s, the boot kernel's %s", in->machine, machine);
		chk_message(it, MISMATCH "machine");
	} else {
		chk_set(it, HIB_CHECK_PASS, "%s %s \"%s\"%s%s equal the boot kernel's", in->sysname, in->release,
			in->version, machine ? " " : "", machine ? in->machine : "");
	}
}

static void record(struct chk_ctx *c)
{
	const struct hib_info *in = c->in;
	enum hib_tarch ta = c->tin->arch, want;
	struct chk_item *it;

	switch (in->arch) {
	case HIB_ARCH_X86_64:
	case HIB_ARCH_X86_32:
		it = chk_add(c, "arch-record", STAGE_HEADER, true);
		want = in->arch == HIB_ARCH_X86_64 ? HIB_TARCH_X86_64 : HIB_TARCH_I386;
		if (ta != HIB_TARCH_UNKNOWN && ta != want) {
			chk_set(it, HIB_CHECK_FAIL, "an %s image, a %s kernel", hib_tarch_name(want),
				hib_tarch_name(ta));
			return;
		}
		x86_record(c, it);
		return;
	case HIB_ARCH_ARM64:
	case HIB_ARCH_RISCV64:
		it = chk_add(c, "arch-record", STAGE_HEADER, true);
		want = in->arch == HIB_ARCH_ARM64 ? HIB_TARCH_ARM64 : HIB_TARCH_RISCV64;
		if (ta != HIB_TARCH_UNKNOWN && ta != want) {
			chk_set(it, HIB_CHECK_FAIL, "a%s %s image, a %s kernel",
				want == HIB_TARCH_ARM64 ? "n" : "", hib_tarch_name(want),
				hib_tarch_name(ta));
			return;
		}
		if (in->arch == HIB_ARCH_ARM64)
			uts_record(c, it, &arm64_arch, in->sleep_cpu_mpidr);
		else
			uts_record(c, it, &riscv_arch, in->hartid);
		return;
	case HIB_ARCH_GENERIC:
		it = chk_add(c, "header", STAGE_HEADER, true);
		generic(c, it);
		return;
	case HIB_ARCH_UNKNOWN_RECORD:
		break;
	}
	it = chk_add(c, "arch-record", STAGE_HEADER, true);
	chk_set(it, HIB_CHECK_UNKNOWN, "an arch record hibimg does not know");
	chk_missing(it, "what the image's architecture compares");
}

static void memory_size(struct chk_ctx *c)
{
	const struct hib_target_info *tin = c->tin;
	struct chk_item *it = chk_add(c, "memory-size", STAGE_MEMSIZE, true);

	if (!tin->physpages) {
		chk_set(it, HIB_CHECK_UNKNOWN, "num_physpages %" PRIu64 " must equal the boot's get_num_physpages()",
			c->in->num_physpages);
		chk_missing_input(c, it, HIB_TIN_MEM,
				  "the target's memory map (a copy of /sys/firmware/memmap or /proc/iomem)");
		return;
	}
	if (tin->physpages == c->in->num_physpages) {
		chk_set(it, HIB_CHECK_PASS, "num_physpages %" PRIu64 " equals the boot's (%s)",
			tin->physpages, tin->physpages_from);
		return;
	}
	/* a floor already above the image's count: the kernel counts more */
	if (!tin->physpages_exact && tin->physpages > c->in->num_physpages) {
		chk_set(it, HIB_CHECK_FAIL,
			"num_physpages %" PRIu64 ", the boot's at least %" PRIu64 " (%s, a lower bound: NOMAP memory only adds to it)",
			c->in->num_physpages, tin->physpages, tin->physpages_from);
		chk_message(it, MISMATCH "memory size");
		return;
	}
	if (!tin->physpages_exact) {
		chk_set(it, HIB_CHECK_UNKNOWN,
			"num_physpages %" PRIu64 ", %s suggests %" PRIu64 " (a lower bound: it leaves out NOMAP memory the kernel counts)",
			c->in->num_physpages, tin->physpages_from, tin->physpages);
		chk_missing(it, "the target's exact page count (its /proc/zoneinfo)");
		return;
	}
	chk_set(it, HIB_CHECK_FAIL, "num_physpages %" PRIu64 ", the boot's %" PRIu64 " (%s)",
		c->in->num_physpages, tin->physpages, tin->physpages_from);
	chk_message(it, MISMATCH "memory size");
}

void chk_header(struct chk_ctx *c)
{
	record(c);
	memory_size(c);
}
