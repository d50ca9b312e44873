/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check-efivar.c - systemd's HibernateLocation against the image. Before
 * the kernel looks, systemd-hibernate-resume decides where it looks
 * (src/hibernate-resume/hibernate-resume-config.c, hibernate-resume.c):
 * a variable it cannot parse stops it, resume= or not; one it parses it
 * logs ("Reported hibernation image: ..."), then drops where osReleaseId or
 * osReleaseImageId is not the booted system's ID or IMAGE_ID; resume= on
 * the command line wins, with a warning where the variable differs;
 * without resume= the variable's /dev/disk/by-uuid/<uuid> and offset are
 * written to /sys/power/resume*; with neither it finds no device. It
 * accepts a kernelVersion that differs: the image replaces the kernel that
 * reads it. Every line below is one a real systemd 257 printed under OVMF
 * (fixtures/check-doctor-systemd.sh).
 */
#include "checkP.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define DROPPED "osReleaseId \"%s\" osReleaseImageId \"%s\", the booted system's ID \"%s\" " \
		"IMAGE_ID \"%s\": systemd drops the variable"
#define DROPPED_LINE "HibernateLocation system identifier doesn't match currently running system, " \
		     "would not resume from it."
#define NO_DEVICE_LINE "No resume device found, exiting."

static void append(struct chk_item *it, const char *s)
{
	size_t l = strlen(it->detail);

	snprintf(it->detail + l, sizeof(it->detail) - l, "%s", s);
}

/* its log_info() of the variable, printed before anything is decided */
static void reported(const struct hib_target_info *in, const char *eu, char *out, size_t cap)
{
	snprintf(out, cap, "Reported hibernation image:%s%s%s%s%s%s%s%s%s%s UUID=%s offset=%" PRIu64,
		 in->efi_os_id[0] ? " ID=" : "", in->efi_os_id,
		 in->efi_os_image_id[0] ? " IMAGE_ID=" : "", in->efi_os_image_id,
		 in->efi_os_version_id[0] ? " VERSION_ID=" : "", in->efi_os_version_id,
		 in->efi_os_image_version[0] ? " IMAGE_VERSION=" : "", in->efi_os_image_version,
		 in->efi_kernel[0] ? " kernel=" : "", in->efi_kernel, eu, in->efi_offset);
}

/* fstab_node_to_udev_node(): the path systemd makes of resume= */
static void udev_node(const char *v, char *out, size_t cap)
{
	static const struct { const char *tag, *dir; } tags[] = {
		{ "UUID=", "by-uuid" }, { "LABEL=", "by-label" },
		{ "PARTUUID=", "by-partuuid" }, { "PARTLABEL=", "by-partlabel" },
	};
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (!strncmp(v, tags[i].tag, strlen(tags[i].tag))) {
			snprintf(out, cap, "/dev/disk/%s/%s", tags[i].dir, v + strlen(tags[i].tag));
			return;
		}
	snprintf(out, cap, "%s", v);
}

/* no variable systemd can use */
static void unusable(struct chk_ctx *c, struct chk_item *it)
{
	const struct hib_target_info *in = c->tin;
	bool resume = in->have_cmdline && in->resume[0];

	switch (in->efi_status) {
	case HIB_EFI_NOT_JSON:
		chk_set(it, HIB_CHECK_FAIL, "the variable is not JSON to systemd (as UTF-16, which it "
			"reads): it stops before it looks at resume=");
		chk_message(it, "Failed to parse HibernateLocation JSON object: Invalid argument");
		return;
	case HIB_EFI_BAD_FIELD:
		chk_set(it, HIB_CHECK_FAIL, "the variable's \"uuid\" or \"offset\" is missing or not of "
			"its type: systemd stops before it looks at resume=");
		/* sd_json_dispatch()'s line, with where the object starts */
		if (in->efi_missing[0])
			chk_message(it, "(string):1:1: Missing object field '%s'.", in->efi_missing);
		return;
	case HIB_EFI_ABSENT:
		if (resume)
			chk_set(it, HIB_CHECK_PASS, "none: resume= decides");
		else if (in->have_cmdline && in->in_initrd) {
			chk_set(it, HIB_CHECK_FAIL, "none, and no resume=: systemd-hibernate-resume finds no device");
			chk_message(it, NO_DEVICE_LINE);
		} else
			chk_set(it, HIB_CHECK_WARN, "none; without resume= a systemd initrd finds no resume "
				"device (another initrd may find one its own way)");
		return;
	default:
		chk_set(it, HIB_CHECK_UNKNOWN, c->t->why[HIB_TIN_EFIVAR][0] ?
			"the HibernateLocation EFI variable given could not be read" :
			"no HibernateLocation EFI variable given");
		chk_missing_input(c, it, HIB_TIN_EFIVAR, "systemd's HibernateLocation (--efivar)");
	}
}

/* resume= wins; systemd warns where the variable differs, device first.
 * resume= is taken to name the image's device: devnode_same() then finds
 * the variable's the same where its uuid is the image's. */
static void cmdline_wins(const struct hib_target_info *in, struct chk_item *it, const char *eu,
			 bool other_dev)
{
	char node[160], efidev[64], dev[512] = "", off[256] = "";
	uint64_t roff = in->have_resume_offset ? in->resume_offset : 0;

	udev_node(in->resume, node, sizeof(node));
	snprintf(efidev, sizeof(efidev), "/dev/disk/by-uuid/%s", eu);
	/* devnode_same() fails where the variable's device is not there */
	if (other_dev && strcmp(node, efidev)) {
		if (in->efi_dev == 0)
			snprintf(dev, sizeof(dev), "Failed to check if resume=%s is the same device as EFI "
				 "HibernateLocation device '%s', ignoring: No such file or directory", node, efidev);
		else if (in->efi_dev == 1)
			snprintf(dev, sizeof(dev), "resume=%s doesn't match with EFI HibernateLocation device "
				 "'%s', proceeding anyway with resume=.", node, efidev);
	}
	if (roff != in->efi_offset)
		snprintf(off, sizeof(off), "resume_offset=%" PRIu64 " doesn't match with EFI HibernateLocation "
			 "offset %" PRIu64 ", proceeding anyway with resume_offset=.", roff, in->efi_offset);
	if (dev[0] || off[0])
		chk_message(it, "%s", dev[0] ? dev : off);
	if (dev[0] && off[0])
		append(it, "; then it warns of the offset too");
	if (other_dev && strcmp(node, efidev) && in->efi_dev < 0)
		append(it, "; its warning on the device depends on whether the variable's is there (not known)");
}

void chk_efivar(struct chk_ctx *c)
{
	const struct hib_target_info *in = c->tin;
	const struct hib_header *h = c->h;
	struct chk_item *it = chk_add(c, "hibernate-location", STAGE_LOCATION, false);
	static const unsigned char zero[16];
	char eu[37], iu[37], rep[512];
	bool swapfile = h->resume_offset != 0, same, resume = in->have_cmdline && in->resume[0];

	if (!in->have_efivar) {
		unusable(c, it);
		return;
	}
	hib_efi_uuid_str(in->efi_uuid, eu);
	hib_efi_uuid_str(h->uuid, iu);
	reported(in, eu, rep, sizeof(rep));
	/* validate_efi_hibernate_location(): streq_ptr(), absent on both sides
	 * counts as equal */
	if (in->have_os_release && (strcmp(in->os_id, in->efi_os_id) ||
				    strcmp(in->os_image_id, in->efi_os_image_id))) {
		chk_set(it, resume ? HIB_CHECK_PASS : in->have_cmdline ? HIB_CHECK_FAIL : HIB_CHECK_WARN,
			DROPPED, in->efi_os_id, in->efi_os_image_id, in->os_id, in->os_image_id);
		if (resume) {
			append(it, "; resume= decides");
			return;
		}
		append(it, in->have_cmdline ? "; without resume= it finds no resume device" :
		       "; without resume= (the command line is not known) it finds no resume device");
		chk_message(it, DROPPED_LINE);
		return;
	}
	if (swapfile) {
		/* the variable names the filesystem, which the swap header does not */
		same = in->efi_offset == h->resume_offset;
	} else {
		same = in->efi_offset == 0 && !memcmp(in->efi_uuid, h->uuid, 16) &&
		       memcmp(h->uuid, zero, 16);
	}
	if (same && !resume && in->efi_dev == 0) {
		chk_set(it, HIB_CHECK_FAIL, "uuid %s offset %" PRIu64 ": the image's, but no "
			"/dev/disk/by-uuid/%s here", eu, in->efi_offset, eu);
		chk_message(it, "Failed to stat resume device '/dev/disk/by-uuid/%s': No such file or directory", eu);
	} else if (same) {
		if (swapfile)
			chk_set(it, HIB_CHECK_PASS,
				"offset %" PRIu64 " is the image's (uuid %s: the filesystem's, not checked)",
				in->efi_offset, eu);
		else
			chk_set(it, HIB_CHECK_PASS, "uuid %s offset 0: the image's swap area", eu);
	} else if (resume) {
		chk_set(it, HIB_CHECK_WARN,
			"uuid %s offset %" PRIu64 ", the image's %s offset %" PRIu64 ": systemd uses resume=",
			eu, in->efi_offset, swapfile ? "(filesystem unknown)" : iu, h->resume_offset);
		cmdline_wins(in, it, eu, !swapfile && memcmp(in->efi_uuid, h->uuid, 16));
	} else {
		/* with the command line unknown, resume= may still win */
		chk_set(it, in->have_cmdline ? HIB_CHECK_FAIL : HIB_CHECK_WARN,
			"uuid %s offset %" PRIu64 ", the image's %s offset %" PRIu64
			": %s",
			eu, in->efi_offset, swapfile ? "(filesystem unknown)" : iu, h->resume_offset,
			in->have_cmdline ? "without resume= systemd points the kernel elsewhere" :
			"without resume= (the command line is not known) systemd points the kernel elsewhere");
		/* where the device is known missing its stat() says so; else
		 * the line that names where it points */
		if (in->efi_dev == 0)
			chk_message(it, "Failed to stat resume device '/dev/disk/by-uuid/%s': "
				    "No such file or directory", eu);
		else
			chk_message(it, "%s", rep);
	}
	/* where the variable decides, the check is only as good as knowing
	 * that systemd keeps it */
	if (!in->have_os_release && !resume && it->pub.status == HIB_CHECK_PASS) {
		it->pub.status = HIB_CHECK_UNKNOWN;
		snprintf(it->detail + strlen(it->detail), sizeof(it->detail) - strlen(it->detail),
			 "; systemd uses it only where the booted system's os-release has ID \"%s\" IMAGE_ID \"%s\"",
			 in->efi_os_id, in->efi_os_image_id);
		chk_missing_input(c, it, HIB_TIN_OSRELEASE,
				  "the booted system's os-release (--os-release; systemd reads /etc/os-release, "
				  "else /usr/lib/os-release, in an initrd too)");
	}
	if (it->pub.status != HIB_CHECK_FAIL && in->efi_kernel[0] && in->release[0] &&
	    strcmp(in->efi_kernel, in->release))
		snprintf(it->detail + strlen(it->detail), sizeof(it->detail) - strlen(it->detail),
			 "; kernelVersion %s, target %s: systemd accepts it", in->efi_kernel, in->release);
}
