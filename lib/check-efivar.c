/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * check-efivar.c - systemd's HibernateLocation against the image. Before
 * the kernel looks, systemd-hibernate-resume decides where it looks
 * (src/hibernate-resume/hibernate-resume-config.c): resume= on the command
 * line wins, with a warning where the variable differs; without resume=
 * the variable's /dev/disk/by-uuid/<uuid> and offset are written to
 * /sys/power/resume*. Before either, a variable whose osReleaseId or
 * osReleaseImageId is not the booted system's ID or IMAGE_ID is dropped.
 * It accepts a kernelVersion that differs: the image replaces the kernel
 * that reads it.
 */
#include "checkP.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void uuid_str(const unsigned char u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
}

#define DROPPED "osReleaseId \"%s\" osReleaseImageId \"%s\", the booted system's ID \"%s\" " \
		"IMAGE_ID \"%s\": systemd drops the variable"

void chk_efivar(struct chk_ctx *c)
{
	const struct hib_target_info *in = c->tin;
	const struct hib_header *h = c->h;
	struct chk_item *it = chk_add(c, "hibernate-location", STAGE_LOCATION, false);
	static const unsigned char zero[16];
	char eu[37], iu[37];
	bool swapfile = h->resume_offset != 0, same;

	if (!in->have_efivar) {
		chk_set(it, HIB_CHECK_UNKNOWN, c->t->why[HIB_TIN_EFIVAR][0] ?
			"the HibernateLocation EFI variable given could not be read" :
			"no HibernateLocation EFI variable given");
		chk_missing_input(c, it, HIB_TIN_EFIVAR, "systemd's HibernateLocation (--efivar)");
		return;
	}
	uuid_str(in->efi_uuid, eu);
	uuid_str(h->uuid, iu);
	/* validate_efi_hibernate_location(): streq_ptr(), absent on both sides
	 * counts as equal */
	if (in->have_os_release && (strcmp(in->os_id, in->efi_os_id) ||
				    strcmp(in->os_image_id, in->efi_os_image_id))) {
		if (in->have_cmdline && in->resume[0]) {
			chk_set(it, HIB_CHECK_PASS, DROPPED, in->efi_os_id, in->efi_os_image_id,
				in->os_id, in->os_image_id);
			snprintf(it->detail + strlen(it->detail), sizeof(it->detail) - strlen(it->detail),
				 "; resume= decides");
			return;
		}
		chk_set(it, in->have_cmdline ? HIB_CHECK_FAIL : HIB_CHECK_WARN, DROPPED, in->efi_os_id,
			in->efi_os_image_id, in->os_id, in->os_image_id);
		snprintf(it->detail + strlen(it->detail), sizeof(it->detail) - strlen(it->detail),
			 in->have_cmdline ? "; without resume= it finds no resume device" :
			 "; without resume= (the command line is not known) it finds no resume device");
		chk_message(it, "HibernateLocation system identifier doesn't match currently running system, "
			    "not resuming from it.");
		return;
	}
	if (swapfile) {
		/* the variable names the filesystem, which the swap header does not */
		same = in->efi_offset == h->resume_offset;
	} else {
		same = in->efi_offset == 0 && !memcmp(in->efi_uuid, h->uuid, 16) &&
		       memcmp(h->uuid, zero, 16);
	}
	if (same) {
		if (swapfile)
			chk_set(it, HIB_CHECK_PASS,
				"offset %" PRIu64 " is the image's (uuid %s: the filesystem's, not checked)",
				in->efi_offset, eu);
		else
			chk_set(it, HIB_CHECK_PASS, "uuid %s offset 0: the image's swap area", eu);
	} else if (in->have_cmdline && in->resume[0]) {
		/* resume= wins; systemd only warns */
		chk_set(it, HIB_CHECK_WARN,
			"uuid %s offset %" PRIu64 ", the image's %s offset %" PRIu64 ": systemd uses resume=",
			eu, in->efi_offset, swapfile ? "(filesystem unknown)" : iu, h->resume_offset);
		if (in->efi_offset != (in->have_resume_offset ? in->resume_offset : 0))
			chk_message(it,
				    "resume_offset=%" PRIu64 " doesn't match with EFI HibernateLocation offset %" PRIu64
				    ", proceeding anyway with resume_offset=.",
				    in->have_resume_offset ? in->resume_offset : 0, in->efi_offset);
		else
			chk_message(it,
				    "resume=%s doesn't match with EFI HibernateLocation device '/dev/disk/by-uuid/%s', "
				    "proceeding anyway with resume=.", in->resume, eu);
	} else {
		/* with the command line unknown, resume= may still win */
		chk_set(it, in->have_cmdline ? HIB_CHECK_FAIL : HIB_CHECK_WARN,
			"uuid %s offset %" PRIu64 ", the image's %s offset %" PRIu64
			": %s",
			eu, in->efi_offset, swapfile ? "(filesystem unknown)" : iu, h->resume_offset,
			in->have_cmdline ? "without resume= systemd points the kernel elsewhere" :
			"without resume= (the command line is not known) systemd points the kernel elsewhere");
		chk_message(it, "Reported hibernation image: UUID=%s offset=%" PRIu64, eu, in->efi_offset);
	}
	/* where the variable decides, the check is only as good as knowing
	 * that systemd keeps it */
	if (!in->have_os_release && !(in->have_cmdline && in->resume[0]) &&
	    it->pub.status == HIB_CHECK_PASS) {
		it->pub.status = HIB_CHECK_UNKNOWN;
		snprintf(it->detail + strlen(it->detail), sizeof(it->detail) - strlen(it->detail),
			 "; systemd uses it only where the booted system's os-release has ID \"%s\" IMAGE_ID \"%s\"",
			 in->efi_os_id, in->efi_os_image_id);
		chk_missing_input(c, it, HIB_TIN_OSRELEASE,
				  "the booted system's os-release (--os-release; in an initrd its /etc/initrd-release)");
	}
	if (it->pub.status != HIB_CHECK_FAIL && in->efi_kernel[0] && in->release[0] &&
	    strcmp(in->efi_kernel, in->release))
		snprintf(it->detail + strlen(it->detail), sizeof(it->detail) - strlen(it->detail),
			 "; kernelVersion %s, target %s: systemd accepts it", in->efi_kernel, in->release);
}
