/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * facs.c - the ACPI Firmware ACPI Control Structure, as
 * /sys/firmware/acpi/tables/FACS gives it (struct acpi_table_facs,
 * include/acpi/actbl.h): "FACS", u32 length, u32 hardware_signature, ...
 * The signature is what the kernel compares with the image's hw_sig when
 * SF_HW_SIG is set (kernel/power/swap.c, drivers/acpi/sleep.c).
 */
#include "targetP.h"

#include <stdlib.h>
#include <string.h>

#define FACS_MIN_LEN 64u    /* ACPI: "Length ... 64 or greater" */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int hib_target_set_facs(struct hib_target *t, const char *path)
{
	unsigned char *b;
	size_t len;
	uint32_t hlen;
	int rc = hib_tgt_slurp(t, path, 1u << 20, &b, &len);

	if (rc)
		goto problem;
	if (len < 8 || memcmp(b, "FACS", 4)) {
		rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED,
				    "%s: not an ACPI FACS table (%s)", path,
				    len < 4 ? "shorter than its signature" : "its signature is not \"FACS\"");
		goto out;
	}
	hlen = le32(b + 4);
	if (hlen != len) {
		rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED,
				    "%s: %zu bytes, but its header says %u", path, len, hlen);
		goto out;
	}
	if (len < FACS_MIN_LEN) {
		rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED,
				    "%s: %zu bytes, a FACS has at least %u", path, len, FACS_MIN_LEN);
		goto out;
	}
	t->info.hw_signature = le32(b + 8);
	t->info.have_facs = 1;
	t->facs_set = true;
out:
	free(b);
problem:
	if (rc)
		hib_tgt_problem(t, HIB_TIN_FACS);
	return rc;
}
