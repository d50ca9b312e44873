/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check-boot.c - what the boot kernel decides before it reads the image
 * (kernel/power/hibernate.c software_resume(), swap.c swsusp_check()):
 * whether it looks at all, the signature on the resume page, the hardware
 * signature, the decompressor.
 */
#include "checkP.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static void available(struct chk_ctx *c)
{
	const struct hib_target_info *tin = c->tin;
	const char *hib = hib_target_config(c->t, "CONFIG_HIBERNATION");
	struct chk_item *it = chk_add(c, "hibernation", STAGE_AVAILABLE, false);
	const char *lsm = hib_target_config(c->t, "CONFIG_SECURITY_LOCKDOWN_LSM");
	/* a kernel built without the lockdown LSM has no lockdown to be in
	 * (the fixtures' kernels: no securityfs either) */
	int lockdown = tin->lockdown < 0 && lsm && strcmp(lsm, "y") ? 0 : tin->lockdown;
	char unknown[160] = "";

	if (hib && strcmp(hib, "y")) {
		chk_set(it, HIB_CHECK_FAIL,
			"CONFIG_HIBERNATION is not set: this kernel has no resume from disk");
		return;
	}
	if (tin->nohibernate) {
		chk_set(it, HIB_CHECK_FAIL,
			"nohibernate (or hibernate=no) on the command line: hibernation_available() is false and the kernel never looks");
		return;
	}
	if (tin->noresume) {
		chk_set(it, HIB_CHECK_FAIL,
			"noresume on the command line: software_resume() returns at once, silently");
		return;
	}
	if (lockdown > 0) {
		/* lockdown_is_locked_down() names current->comm: the boot's
		 * late initcall runs as swapper/0; on the running machine the
		 * boot's attempt is over and the next is the write to
		 * /sys/power/resume by whoever ran us */
		const char *task = tin->running_kernel && tin->resume_task[0] ?
				   tin->resume_task : "swapper/0";

		chk_set(it, HIB_CHECK_FAIL,
			"kernel lockdown (%s) refuses hibernation: hibernation_available() is false (the message names the task that asked: %s)",
			tin->lockdown == 2 ? "confidentiality" : "integrity",
			task == tin->resume_task ? "the one that writes /sys/power/resume, taken to be the one that ran hibimg" :
			"swapper/0 for resume= at boot");
		chk_message(it, "Lockdown: %s: hibernation is restricted; see man kernel_lockdown.7", task);
		return;
	}
	if (!hib)
		snprintf(unknown, sizeof(unknown), "CONFIG_HIBERNATION");
	if (!tin->have_cmdline)
		snprintf(unknown + strlen(unknown), sizeof(unknown) - strlen(unknown), "%s%s",
			 unknown[0] ? ", " : "", "the command line (noresume)");
	if (lockdown < 0)
		snprintf(unknown + strlen(unknown), sizeof(unknown) - strlen(unknown), "%s%s",
			 unknown[0] ? ", " : "", "the lockdown state");
	if (unknown[0]) {
		chk_set(it, HIB_CHECK_UNKNOWN, "assumed the kernel looks: %s not known", unknown);
		chk_missing(it, "the boot's command line and lockdown state (read on the machine)");
		return;
	}
	chk_set(it, HIB_CHECK_PASS, "CONFIG_HIBERNATION=y; no noresume or nohibernate; lockdown none%s",
		tin->lockdown < 0 ? " (no CONFIG_SECURITY_LOCKDOWN_LSM)" : "");
}

/* swsusp_check(): -EINVAL where no S1SUSPEND is found. Its "Image not
 * found" is a pr_debug: only kernels with CONFIG_DYNAMIC_DEBUG (which
 * builds swap.c with -DDEBUG, kernel/power/Makefile) print it. */
static void not_found(struct chk_ctx *c, struct chk_item *it)
{
	const char *dd = hib_target_config(c->t, "CONFIG_DYNAMIC_DEBUG");
	size_t l = strlen(it->detail);

	it->pub.status = HIB_CHECK_FAIL;
	if (dd && strcmp(dd, "y")) {
		snprintf(it->detail + l, sizeof(it->detail) - l,
			 "; the kernel says nothing (\"Image not found\" is pr_debug and it has no CONFIG_DYNAMIC_DEBUG)");
		return;
	}
	chk_message(it, "PM: Image not found (code -22)");
	if (!dd)
		snprintf(it->detail + l, sizeof(it->detail) - l,
			 "; printed at debug level by kernels with CONFIG_DYNAMIC_DEBUG, as distributions build them");
}

/* --here on the device itself: does the boot look where the image is? */
static bool wrong_place(struct chk_ctx *c, struct chk_item *it)
{
	const struct hib_target_info *tin = c->tin;
	char dev[32];
	struct stat st;

	if (!tin->resume_dev[0] || stat(hib_image_path(c->img), &st) || !S_ISBLK(st.st_mode))
		return false;
	snprintf(dev, sizeof(dev), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (!strcmp(tin->resume_dev, "0:0"))
		return false;
	if (strcmp(tin->resume_dev, dev)) {
		chk_set(it, HIB_CHECK_FAIL, "the boot resumes from %s (/sys/power/resume), the image is on %s",
			tin->resume_dev, dev);
		not_found(c, it);
		return true;
	}
	if (tin->have_resume_offset && tin->resume_offset != c->h->resume_offset) {
		chk_set(it, HIB_CHECK_FAIL,
			"resume_offset=%" PRIu64 " points at page %" PRIu64 " of %s, the image's resume page is page %" PRIu64,
			tin->resume_offset, tin->resume_offset, dev,
			c->h->resume_offset);
		not_found(c, it);
		return true;
	}
	return false;
}

static void signature(struct chk_ctx *c)
{
	const struct hib_header *h = c->h;
	struct chk_item *it = chk_add(c, "image", STAGE_SIGNATURE, true);
	unsigned int ps = c->tin->page_size;

	switch (h->kind) {
	case HIB_KIND_KERNEL:
		break;
	case HIB_KIND_SPENT:
		chk_set(it, HIB_CHECK_FAIL,
			"spent: %s back at byte %u of the resume page with the image fields still set (image page %" PRIu64 ", flags 0x%x): "
			"a resume attempt consumed it (swsusp_check() writes orig_sig back before it loads anything)",
			h->sig, h->page_size - 10,
			h->image, h->flags);
		not_found(c, it);
		return;
	case HIB_KIND_SWAP:
		chk_set(it, HIB_CHECK_FAIL, "a swap area with no image (%s)", h->sig);
		not_found(c, it);
		return;
	case HIB_KIND_UNKNOWN:
		chk_set(it, HIB_CHECK_FAIL, "no swap or hibernation signature on the resume page");
		not_found(c, it);
		return;
	default:
		chk_set(it, HIB_CHECK_FAIL, "a %s area (\"%s\"): the kernel resumes only \"S1SUSPEND\"",
			hib_kind_name(h->kind), h->sig);
		not_found(c, it);
		return;
	}
	if (ps && ps != h->page_size) {
		chk_set(it, HIB_CHECK_FAIL,
			"the image has %u-byte pages, the kernel %u-byte ones: it looks for the signature at byte %u, not %u "
			"(and counts resume_offset in its own pages)",
			h->page_size, ps, ps - 10, h->page_size - 10);
		not_found(c, it);
		return;
	}
	if (wrong_place(c, it))
		return;
	chk_set(it, HIB_CHECK_PASS, "S1SUSPEND at page %" PRIu64 " (%u-byte pages), swap map from page %" PRIu64,
		h->resume_offset, h->page_size, h->image);
}

static void hw_signature(struct chk_ctx *c)
{
	const struct hib_header *h = c->h;
	const struct hib_target_info *tin = c->tin;
	struct chk_item *it = chk_add(c, "hw-signature", STAGE_HW_SIG, true);
	uint32_t now;

	if (!(h->flags & HIB_SF_HW_SIG)) {
		if (tin->have_facs)
			chk_set(it, HIB_CHECK_PASS,
				"no SF_HW_SIG (written without acpi_sleep=s4_hwsig): not compared; a FACS signature other than the saved one "
				"(now %08x) only gives \"ACPI: PM: Hardware changed while hibernated, success doubtful!\" after the restore",
				tin->hw_signature);
		else
			chk_set(it, HIB_CHECK_PASS, "no SF_HW_SIG: the kernel compares no hardware signature");
		return;
	}
	if (c->kver && c->kver < HIB_KVER(5, 17, 0)) {
		chk_set(it, HIB_CHECK_PASS, "SF_HW_SIG set (hw_sig %08x), which kernels before 5.17 ignore",
			h->hw_sig);
		return;
	}
	/* swsusp_hardware_signature is the FACS one only with s4_hwsig */
	if (tin->have_cmdline && !tin->s4_hwsig) {
		now = 0;
	} else if (tin->have_facs) {
		now = tin->hw_signature;
	} else {
		chk_set(it, HIB_CHECK_UNKNOWN, "SF_HW_SIG set: the image's hw_sig %08x must equal the boot's FACS signature",
			h->hw_sig);
		chk_missing_input(c, it, HIB_TIN_FACS,
				  "the target's ACPI FACS (/sys/firmware/acpi/tables/FACS)");
		return;
	}
	if (now != h->hw_sig) {
		chk_set(it, HIB_CHECK_FAIL, "SF_HW_SIG set: the image's hw_sig %08x, the boot's %08x%s",
			h->hw_sig, now, now == 0 && !tin->s4_hwsig ?
			" (without acpi_sleep=s4_hwsig on its command line the boot's is 0)" : "");
		chk_message(it, "PM: Suspend image hardware signature mismatch (%08x now %08x); aborting resume.",
			    h->hw_sig, now);
		return;
	}
	chk_set(it, HIB_CHECK_PASS, "SF_HW_SIG set: hw_sig %08x equals the FACS signature%s",
		h->hw_sig, tin->have_cmdline ? "" : " (assuming acpi_sleep=s4_hwsig on the boot's command line)");
}

/* =m: what the running kernel will find when it asks (here-codec.c);
 * offline, the boot's initramfs and modprobe are not known, and whether
 * Debian's 6.12 resumes an lz4 image turned on exactly that
 * (fixtures/check-doctor.sh stock-lz4-nomod / stock-lz4-mod) */
static void module(struct chk_ctx *c, struct chk_item *it, enum hib_compression comp,
		   const char *sym)
{
	const struct hib_codec_here *h = &c->t->codec[comp];
	const char *w = chk_codec_word(c, comp);

	switch (h->state) {
	case HIB_CODEC_LOADED:
	case HIB_CODEC_BUILTIN:
	case HIB_CODEC_MODPROBE:
		chk_set(it, HIB_CHECK_PASS, "%s: %s=m: %s", w, sym, h->detail);
		return;
	case HIB_CODEC_NO_MODULE:
	case HIB_CODEC_NO_MODPROBE:
		chk_set(it, HIB_CHECK_FAIL, "%s: %s=m: %s", w, sym, h->detail);
		chk_message(it, "PM: hibernation: %s compression is not available", w);
		return;
	case HIB_CODEC_UNKNOWN:
		break;
	}
	chk_set(it, HIB_CHECK_UNKNOWN,
		"%s: %s=m: the kernel finds it only where it is loaded or its module and a modprobe are in the boot's initramfs",
		w, sym);
	chk_missing_input(c, it, HIB_TIN_BOOT,
			  "the boot's modules and modprobe (--here, run in the initramfs of the boot that resumes)");
}

/* 6.9+ software_resume(): crypto_has_comp() (crypto_has_acomp() from 6.15)
 * for the algorithm the header flags name, before anything is loaded. */
static void codec(struct chk_ctx *c)
{
	const struct hib_header *h = c->h;
	struct chk_item *it = chk_add(c, "compression", STAGE_CODEC, true);
	enum hib_compression comp = h->flags & HIB_SF_COMPRESSION_ALG_LZ4 ? HIB_COMP_LZ4 : HIB_COMP_LZO;
	const char *sym = comp == HIB_COMP_LZ4 ? "CONFIG_CRYPTO_LZ4" : "CONFIG_CRYPTO_LZO";
	const char *v;
	char msg[256];

	if (h->flags & HIB_SF_NOCOMPRESS_MODE) {
		chk_set(it, HIB_CHECK_PASS, "uncompressed (SF_NOCOMPRESS_MODE): no decompressor");
		return;
	}
	if (!c->kver) {
		if (comp == HIB_COMP_LZO) {
			chk_set(it, HIB_CHECK_PASS, "LZO, which every kernel since 2.6.37 decodes");
			return;
		}
		chk_set(it, HIB_CHECK_UNKNOWN,
			"LZ4 (SF_COMPRESSION_ALG_LZ4): only kernels 6.9 and later read the flag, older ones decode LZO");
		chk_missing_input(c, it, HIB_TIN_KERNEL, "the target kernel's version (its kernel file or config)");
		return;
	}
	if (c->kver < HIB_KVER(6, 9, 0)) {
		if (comp == HIB_COMP_LZO) {
			chk_set(it, HIB_CHECK_PASS, "LZO, the only codec kernels before 6.9 decode");
			return;
		}
		/* the header check comes first; the chunks then fail */
		it->stage = STAGE_META;
		chk_set(it, HIB_CHECK_FAIL,
			"LZ4 (SF_COMPRESSION_ALG_LZ4), which kernels before 6.9 do not know: they decode the LZ4 chunks as LZO");
		if (c->in && chk_kernel_chunk(c, 1, HIB_COMP_LZO, msg, sizeof(msg)) == HIB_OK && msg[0])
			chk_message(it, "%s", msg);
		return;
	}
	v = hib_target_config(c->t, sym);
	if (!v) {
		if (comp == HIB_COMP_LZO) {
			chk_set(it, HIB_CHECK_PASS, "lzo: assumed built in (HIBERNATION_COMP_LZO, the default, selects CRYPTO_LZO)");
			return;
		}
		chk_set(it, HIB_CHECK_UNKNOWN, "lz4: the kernel must have %s", sym);
		chk_missing_input(c, it, HIB_TIN_CONFIG,
				  "the target kernel's config (CONFIG_CRYPTO_LZ4: its config file, or a kernel with IKCONFIG)");
		return;
	}
	if (!strcmp(v, "y")) {
		chk_set(it, HIB_CHECK_PASS, "%s: %s=y", chk_codec_word(c, comp), sym);
	} else if (!strcmp(v, "m")) {
		module(c, it, comp, sym);
	} else {
		chk_set(it, HIB_CHECK_FAIL, "%s: %s is not set", chk_codec_word(c, comp), sym);
		chk_message(it, "PM: hibernation: %s compression is not available", chk_codec_word(c, comp));
	}
}

void chk_boot(struct chk_ctx *c)
{
	available(c);
	signature(c);
	if (c->h->kind != HIB_KIND_KERNEL && c->h->kind != HIB_KIND_SPENT)
		return;
	hw_signature(c);
	codec(c);
}
