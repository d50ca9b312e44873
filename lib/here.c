/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * here.c - this machine as the target (hibimg check --here): the running
 * kernel, its command line as software_resume() and swsusp_check() read
 * it (kernel/power/hibernate.c: resume=, resume_offset=, noresume,
 * hibernate=, nohibernate; drivers/acpi/sleep.c: acpi_sleep=s4_hwsig),
 * /sys/power, the lockdown state, and the machine files the other setters
 * read. Every path is under root, so a copy of a tree can stand in.
 */
#include "targetP.h"

#include <blkid.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* One line of root/rel, newline dropped; false (and nothing noted) if the
 * file is not there. A file there but unreadable is noted. */
static bool read_line(struct hib_target *t, const char *root, const char *rel,
		      char *buf, size_t cap)
{
	char path[4096];
	unsigned char *b;
	size_t len;
	char *nl;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path) ||
	    access(path, F_OK))
		return false;
	if (hib_tgt_slurp(t, path, 1u << 20, &b, &len)) {
		hib_tgt_problem(t, HIB_TIN_BOOT);
		return false;
	}
	nl = memchr(b, '\n', len);
	if (nl)
		*nl = 0;
	snprintf(buf, cap, "%s", (char *)b);
	free(b);
	return true;
}

static void parse_cmdline(struct hib_target_info *in, char *s)
{
	char *w, *save = NULL;

	in->have_cmdline = 1;
	for (w = strtok_r(s, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (!strncmp(w, "resume=", 7)) {
			snprintf(in->resume, sizeof(in->resume), "%s", w + 7);
		} else if (!strncmp(w, "resume_offset=", 14)) {
			char *end;
			unsigned long long v = strtoull(w + 14, &end, 10);

			if (end != w + 14) {
				in->resume_offset = v;
				in->have_resume_offset = 1;
			}
		} else if (!strcmp(w, "noresume") || !strcmp(w, "hibernate=noresume")) {
			in->noresume = 1;
		} else if (!strcmp(w, "nohibernate") ||
			   (!strncmp(w, "hibernate=no", 12) && strcmp(w, "hibernate=nocompress"))) {
			in->noresume = in->nohibernate = 1;
		} else if (!strncmp(w, "acpi_sleep=", 11)) {
			char *o, *s2 = NULL;

			for (o = strtok_r(w + 11, ",", &s2); o; o = strtok_r(NULL, ",", &s2))
				if (!strcmp(o, "s4_hwsig"))
					in->s4_hwsig = 1;
		}
	}
}

/* security/lockdown: "none [integrity] confidentiality" */
static int lockdown_level(const char *s)
{
	if (strstr(s, "[confidentiality]"))
		return 2;
	if (strstr(s, "[integrity]"))
		return 1;
	if (strstr(s, "[none]"))
		return 0;
	return -1;
}

/* get_num_physpages(): the zones' present pages, as /proc/zoneinfo lists them */
static bool zoneinfo_present(struct hib_target *t, const char *root, uint64_t *pages)
{
	char path[4096];
	unsigned char *b;
	size_t len;
	const char *p;
	uint64_t sum = 0;
	bool any = false;

	snprintf(path, sizeof(path), "%s/proc/zoneinfo", root);
	if (access(path, F_OK))
		return false;
	if (hib_tgt_slurp(t, path, HIB_TGT_TEXT_MAX, &b, &len)) {
		hib_tgt_problem(t, HIB_TIN_MEM);
		return false;
	}
	for (p = (char *)b; (p = strstr(p, "\n        present ")); p++) {
		sum += strtoull(p + 17, NULL, 10);
		any = true;
	}
	free(b);
	*pages = sum;
	return any;
}

static enum hib_tarch machine_arch(const char *m)
{
	if (!strcmp(m, "x86_64"))
		return HIB_TARCH_X86_64;
	if (m[0] == 'i' && !strcmp(m + 2, "86"))
		return HIB_TARCH_I386;
	if (!strcmp(m, "aarch64"))
		return HIB_TARCH_ARM64;
	if (!strcmp(m, "riscv64"))
		return HIB_TARCH_RISCV64;
	return HIB_TARCH_UNKNOWN;
}

static bool exists(const char *root, const char *rel, char *path, size_t cap)
{
	if ((size_t)snprintf(path, cap, "%s/%s", root, rel) >= cap)
		return false;
	return access(path, F_OK) == 0;
}

/* maj:min as a path under root: udev's /dev/block link, else the node
 * devtmpfs made, named by the device's uevent (an initramfs before udev,
 * or with none, has only that) */
static bool dev_path(struct hib_target *t, const char *root, unsigned int maj,
		     unsigned int min, char *out, size_t cap)
{
	char rel[64], buf[4096], path[4096];
	const char *p, *r = strcmp(root, "/") ? root : "";

	snprintf(rel, sizeof(rel), "dev/block/%u:%u", maj, min);
	if (exists(root, rel, path, sizeof(path)))
		return (size_t)snprintf(out, cap, "%s/%s", r, rel) < cap;
	snprintf(rel, sizeof(rel), "sys/dev/block/%u:%u/uevent", maj, min);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (access(path, F_OK))
		return false;
	{
		unsigned char *b;
		size_t len;

		if (hib_tgt_slurp(t, path, 1u << 16, &b, &len)) {
			hib_tgt_problem(t, HIB_TIN_BOOT);
			return false;
		}
		p = strstr((char *)b, "DEVNAME=");
		if (p && (p == (char *)b || p[-1] == '\n')) {
			snprintf(buf, sizeof(buf), "dev/%.*s", (int)strcspn(p + 8, "\n"), p + 8);
			free(b);
			return exists(root, buf, path, sizeof(path)) &&
			       (size_t)snprintf(out, cap, "%s/%s", r, buf) < cap;
		}
		free(b);
	}
	return false;
}

/* resume= as name_to_dev_t()/early_lookup_bdev() take it: a /dev path,
 * a tag, maj:min, or the hex dev_t */
static bool resume_arg_path(struct hib_target *t, const char *root, const char *arg,
			    char *out, size_t cap)
{
	const char *r = strcmp(root, "/") ? root : "";
	unsigned int maj, min;
	char path[4096], *end;
	unsigned long v;

	if (!strncmp(arg, "/dev/", 5))
		return exists(root, arg + 1, path, sizeof(path)) &&
		       (size_t)snprintf(out, cap, "%s%s", r, arg) < cap;
	if (!strncmp(arg, "UUID=", 5) || !strncmp(arg, "PARTUUID=", 9) ||
	    !strncmp(arg, "LABEL=", 6) || !strncmp(arg, "PARTLABEL=", 10)) {
		blkid_cache c;
		char *dev;

		if (r[0])
			return false;   /* libblkid probes this machine's devices only */
		/* a cache of its own on /dev/null: the default one is a file
		 * libblkid rewrites, and --here writes nothing */
		if (blkid_get_cache(&c, "/dev/null") < 0)
			return false;
		dev = blkid_evaluate_tag(arg, NULL, &c);
		blkid_put_cache(c);
		if (!dev)
			return false;
		snprintf(out, cap, "%s", dev);
		free(dev);
		return true;
	}
	if (sscanf(arg, "%u:%u", &maj, &min) == 2)
		return dev_path(t, root, maj, min, out, cap);
	v = strtoul(arg, &end, 16);
	if (end != arg && !*end && v)   /* new_decode_dev() of the hex number */
		return dev_path(t, root, (unsigned int)((v & 0xfff00) >> 8),
				(unsigned int)((v & 0xff) | ((v >> 12) & 0xfff00)), out, cap);
	return false;
}

/* Who asked: the process that runs hibimg before it writes /sys/power/resume
 * (an initramfs script, our guest's init) is the one whose comm the kernel's
 * "Lockdown: %s: hibernation is restricted" names. */
static void resume_task(struct hib_target *t, const char *root)
{
	char rel[64], buf[64];

	snprintf(rel, sizeof(rel), "proc/%ld/comm", (long)getppid());
	if (read_line(t, root, rel, buf, sizeof(buf)))
		snprintf(t->info.resume_task, sizeof(t->info.resume_task), "%.15s", buf);
}

void hib_here_boot(struct hib_target *t, const char *root)
{
	struct hib_target_info *in = &t->info;
	unsigned int maj, min;
	char buf[4096];

	if (read_line(t, root, "proc/cmdline", buf, sizeof(buf)))
		parse_cmdline(in, buf);
	if (read_line(t, root, "sys/power/resume", buf, sizeof(buf)))
		snprintf(in->resume_dev, sizeof(in->resume_dev), "%.31s", buf);
	if (read_line(t, root, "sys/power/resume_offset", buf, sizeof(buf)) &&
	    !in->have_resume_offset && buf[0] >= '0' && buf[0] <= '9') {
		in->resume_offset = strtoull(buf, NULL, 10);
		in->have_resume_offset = 1;
	}
	if (!(sscanf(in->resume_dev, "%u:%u", &maj, &min) == 2 && (maj || min) &&
	      dev_path(t, root, maj, min, in->resume_path, sizeof(in->resume_path))) &&
	    (!in->resume[0] ||
	     !resume_arg_path(t, root, in->resume, in->resume_path, sizeof(in->resume_path))))
		in->resume_path[0] = 0;
}

int hib_target_set_here(struct hib_target *t, const char *root)
{
	struct hib_target_info *in = &t->info;
	char buf[4096], path[4096], rel[65] = "", ver[65] = "";
	struct stat st;
	uint64_t pages;
	bool other_kernel = t->kernel_set;  /* --kernel, before ours is set below */

	if (stat(root, &st) || !S_ISDIR(st.st_mode))
		return hib_tgt_seterr(t, HIB_ERR_IO, "%s: not a directory", root);
	hib_here_boot(t, root);
	if (!t->kernel_set)     /* --kernel: another kernel boots next */
		resume_task(t, root);
	if (read_line(t, root, "sys/kernel/security/lockdown", buf, sizeof(buf)))
		in->lockdown = lockdown_level(buf);
	else if (exists(root, "sys/kernel/security", path, sizeof(path)))
		in->lockdown = 0;   /* securityfs without the lockdown LSM */

	(void)read_line(t, root, "proc/sys/kernel/osrelease", rel, sizeof(rel));
	(void)read_line(t, root, "proc/sys/kernel/version", ver, sizeof(ver));
	if (!t->kernel_set && rel[0]) {
		snprintf(in->release, sizeof(in->release), "%s", rel);
		snprintf(in->version, sizeof(in->version), "%s", ver);
		in->kver = hib_kver_parse(rel);
		in->kernel_from = "running kernel";
		in->running_kernel = 1;
		if (read_line(t, root, "proc/sys/kernel/arch", buf, sizeof(buf)))
			in->arch = machine_arch(buf);
		else if (!strcmp(root, "/")) {
			struct utsname u;

			if (uname(&u) == 0)
				in->arch = machine_arch(u.machine);
		}
		if (in->arch == HIB_TARCH_X86_64 || in->arch == HIB_TARCH_I386)
			in->page_size = 4096;
		else if ((pages = (uint64_t)sysconf(_SC_PAGESIZE)) && !strcmp(root, "/"))
			in->page_size = (unsigned int)pages;
		/* the kernel that booted this machine counted its pages */
		if (zoneinfo_present(t, root, &pages)) {
			in->physpages = pages;
			in->physpages_from = "/proc/zoneinfo";
			in->physpages_exact = 1;
		}
	}
	if (!t->mem_set) {
		if (exists(root, "sys/firmware/memmap/0", path, sizeof(path))) {
			snprintf(path, sizeof(path), "%s/sys/firmware/memmap", root);
			if (hib_target_set_memmap(t, path))
				{ /* its setter noted why: a problem, not an end */ }
		} else if ((in->arch == HIB_TARCH_X86_64 || in->arch == HIB_TARCH_I386) &&
			   exists(root, "dev/kmsg", path, sizeof(path)) &&
			   hib_memmap_from_log(t, path) == HIB_OK) {
			/* no CONFIG_FIRMWARE_MEMMAP: the table as the boot printed it */
		} else if (exists(root, "proc/iomem", path, sizeof(path))) {
			if (hib_target_set_iomem(t, path))
				{ /* its setter noted why: a problem, not an end */ }
		}
	}
	if (!t->facs_set && exists(root, "sys/firmware/acpi/tables/FACS", path, sizeof(path)) &&
	    hib_target_set_facs(t, path))
		{ /* its setter noted why: a problem, not an end */ }
	/* EFI_SYSTEMD_VARIABLE(): systemd's vendor GUID, not the loader's */
	if (!t->info.have_efivar && t->info.efi_status == HIB_EFI_UNKNOWN) {
		if (exists(root, "sys/firmware/efi/efivars/HibernateLocation-8cf2644b-4b0b-428f-9387-6d876050dc67",
			   path, sizeof(path))) {
			if (hib_target_set_efivar(t, path))
				{ /* its setter noted why: a problem, not an end */ }
		} else if (exists(root, "sys/firmware/efi/efivars", path, sizeof(path))) {
			in->efi_status = HIB_EFI_ABSENT;
		}
	}
	/* the device systemd makes of "uuid", as udev links it: whether it is
	 * there decides which of its lines systemd prints */
	if (in->have_efivar && exists(root, "dev/disk/by-uuid", path, sizeof(path))) {
		char u[37];

		hib_efi_uuid_str(in->efi_uuid, u);
		snprintf(buf, sizeof(buf), "%s/dev/disk/by-uuid/%s", root, u);
		in->efi_dev = lstat(buf, &st) == 0;
	}
	/* systemd-hibernate-resume runs only where this is (in_initrd()) */
	in->in_initrd = exists(root, "etc/initrd-release", path, sizeof(path));
	/* parse_os_release(): /etc/os-release, else /usr/lib/os-release, in
	 * an initrd too (systemd 257 under OVMF ignored /etc/initrd-release);
	 * with neither it compares no ID and no IMAGE_ID */
	if (!t->info.have_os_release) {
		if (exists(root, "etc/os-release", path, sizeof(path)) ||
		    exists(root, "usr/lib/os-release", path, sizeof(path))) {
			if (hib_target_set_os_release(t, path))
				{ /* its setter noted why: a problem, not an end */ }
		} else if (in->in_initrd) {
			in->have_os_release = 1;
		}
	}
	if (rel[0]) {
		snprintf(buf, sizeof(buf), "boot/config-%s", rel);
		if (!t->config_set && exists(root, buf, path, sizeof(path)) &&
		    hib_target_set_config(t, path))
			{ /* its setter noted why: a problem, not an end */ }
		snprintf(buf, sizeof(buf), "boot/vmlinuz-%s", rel);
		if (!t->kernel_set && exists(root, buf, path, sizeof(path)) &&
		    hib_target_set_kernel(t, path) == HIB_OK) {
			if (!strcmp(in->release, rel))
				in->running_kernel = 1;   /* the file of the kernel that runs */
			else if (in->physpages_from && !strcmp(in->physpages_from, "/proc/zoneinfo"))
				in->physpages_exact = 0;
		}
	}
	/* the decompressor the running kernel can get, for a config that makes
	 * it a module; another kernel (--kernel) boots with another initramfs */
	if (!other_kernel && rel[0])
		hib_here_codecs(t, root, rel);
	/* arm64's CPUs, for the image's sleep_cpu_mpidr: where the kernel
	 * enumerated them, the device tree's cpu nodes or (ACPI: the EFI
	 * stub's tree has no cpus node) the MADT. x86's MADT has no GICC:
	 * only read where the arch is arm64. */
	if (!t->cpus_set) {
		if (exists(root, "sys/firmware/devicetree/base/cpus", path, sizeof(path)) ||
		    exists(root, "proc/device-tree/cpus", path, sizeof(path))) {
			if (hib_tgt_dt_cpus(t, path))
				{ /* its reader noted why: a problem, not an end */ }
		} else if (in->arch == HIB_TARCH_ARM64) {
			if (exists(root, "sys/firmware/acpi/tables/APIC", path, sizeof(path))) {
				if (hib_tgt_madt_cpus(t, path))
					{ /* its reader noted why: a problem, not an end */ }
			} else {
				hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
					       "%s: neither a device tree's cpus nor an ACPI MADT", root);
				hib_tgt_problem(t, HIB_TIN_CPUS);
			}
		}
	}
	hib_memmap_derive(t);
	return HIB_OK;
}
