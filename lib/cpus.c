/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cpus.c - the CPUs the target kernel will know, as arm64 names them: the
 * MPIDR affinity value (MPIDR_EL1 & MPIDR_HWID_BITMASK) that a device-tree
 * cpu node holds in its reg. arch_hibernation_header_restore() looks the
 * image's sleep_cpu_mpidr up with get_logical_index(), which searches the
 * possible CPUs the boot enumerated from these nodes, or on an ACPI
 * machine from the MADT's GICC entries.
 */
#include "targetP.h"

#include <dirent.h>
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cpus_take(struct hib_target *t, const uint64_t *v, size_t n, const char *from)
{
	uint64_t *c = malloc((n ? n : 1) * sizeof(*c));

	if (!c)
		return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", from);
	memcpy(c, v, n * sizeof(*c));
	free(t->cpus);
	t->cpus = c;
	t->info.n_cpus = n;
	t->info.cpus_from = from;
	t->cpus_set = true;
	return HIB_OK;
}

int hib_target_set_cpus(struct hib_target *t, const char *list)
{
	uint64_t v[HIB_TGT_CPUS_MAX];
	const char *p = list;
	size_t n = 0;
	int rc;

	if (!list || !*list)
		rc = hib_tgt_seterr(t, HIB_ERR_INVAL, "an empty CPU list");
	else
		rc = HIB_OK;
	while (!rc && *p) {
		char *end;

		if (*p < '0' || *p > '9') {
			rc = hib_tgt_seterr(t, HIB_ERR_INVAL, "CPU list \"%s\": '%.20s' is not an MPIDR", list, p);
			break;
		}
		errno = 0;
		v[n] = strtoull(p, &end, 0);
		if (errno || (*end && *end != ',')) {
			rc = hib_tgt_seterr(t, HIB_ERR_INVAL, "CPU list \"%s\": '%.20s' is not an MPIDR", list, p);
			break;
		}
		if (++n == HIB_TGT_CPUS_MAX && *end) {
			rc = hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED, "CPU list: more than %u CPUs",
					    HIB_TGT_CPUS_MAX);
			break;
		}
		p = *end ? end + 1 : end;
		if (*end && !*p)
			rc = hib_tgt_seterr(t, HIB_ERR_INVAL, "CPU list \"%s\": ends with a comma", list);
	}
	if (!rc)
		rc = cpus_take(t, v, n, "CPU list");
	if (rc)
		hib_tgt_problem(t, HIB_TIN_CPUS);
	return rc;
}

/* reg of a cpu node: #address-cells (1 or 2 on arm64) big-endian cells */
static int read_reg(struct hib_target *t, const char *path, uint64_t *v)
{
	unsigned char *b;
	size_t len, i;
	int rc = hib_tgt_slurp(t, path, 64, &b, &len);

	if (rc)
		return rc;
	if (len != 4 && len != 8) {
		free(b);
		return hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: %zu bytes, not one or two cells", path, len);
	}
	*v = 0;
	for (i = 0; i < len; i++)
		*v = *v << 8 | b[i];
	free(b);
	return HIB_OK;
}

int hib_tgt_dt_cpus(struct hib_target *t, const char *dir)
{
	uint64_t v[HIB_TGT_CPUS_MAX];
	char path[4096];
	struct dirent *d;
	size_t n = 0;
	int rc = HIB_OK;
	DIR *dp = opendir(dir);

	if (!dp) {
		rc = hib_tgt_seterr(t, HIB_ERR_IO, "%s: %s", dir, strerror(errno));
		hib_tgt_problem(t, HIB_TIN_CPUS);
		return rc;
	}
	/* "cpu@N" nodes; cpu-map and the like hold no reg of a CPU */
	while ((d = readdir(dp))) {
		if (strncmp(d->d_name, "cpu@", 4))
			continue;
		if (n == HIB_TGT_CPUS_MAX) {
			rc = hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED, "%s: more than %u CPUs",
					    dir, HIB_TGT_CPUS_MAX);
			break;
		}
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/reg", dir, d->d_name) >= sizeof(path)) {
			rc = hib_tgt_seterr(t, HIB_ERR_INVAL, "%s/%s: path too long", dir, d->d_name);
			break;
		}
		rc = read_reg(t, path, &v[n]);
		if (rc)
			break;
		n++;
	}
	closedir(dp);
	if (!rc && !n)
		rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: no cpu@ node with a reg", dir);
	if (!rc)
		rc = cpus_take(t, v, n, "device tree");
	if (rc)
		hib_tgt_problem(t, HIB_TIN_CPUS);
	return rc;
}

/* ACPI MADT ("APIC"): a 36-byte table header (length u32 at 4), the GIC
 * base and flags, then entries {u8 type, u8 length, ...}; GICC (0x0b, at
 * least 76 bytes from ACPI 5.1) holds its flags at 12 and the MPIDR at 68.
 * acpi_parse_gic_cpu_interface() takes those acpi_gicc_is_usable() calls
 * usable: enabled (bit 0), and since the arm64 vCPU hotplug series also
 * "online capable" (bit 3), counted here too; a kernel before that series
 * (6.1) does not know an online-capable CPU that is not enabled. */
#define MADT_HDR       44
#define MADT_GICC      0x0b
#define GICC_FLAGS     12
#define GICC_MPIDR     68
#define GICC_MIN_LEN   76
#define GICC_ENABLED   0x1u
#define GICC_ONLINE_CAPABLE 0x8u

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

int hib_tgt_madt_cpus(struct hib_target *t, const char *path)
{
	uint64_t v[HIB_TGT_CPUS_MAX];
	unsigned char *b;
	size_t len, off, n = 0;
	int rc = hib_tgt_slurp(t, path, 1u << 20, &b, &len);

	if (rc) {
		hib_tgt_problem(t, HIB_TIN_CPUS);
		return rc;
	}
	if (len < MADT_HDR || memcmp(b, "APIC", 4))
		rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: not an ACPI MADT (no APIC signature)", path);
	else if (le(b + 4, 4) > len || le(b + 4, 4) < MADT_HDR)
		rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: its length %" PRIu64 " is not what was read (%zu bytes)",
				    path, le(b + 4, 4), len);
	for (off = MADT_HDR; !rc && off + 2 <= le(b + 4, 4); off += b[off + 1]) {
		const unsigned char *e = b + off;

		if (e[1] < 2 || off + e[1] > le(b + 4, 4)) {
			rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: entry at byte %zu has length %u", path, off, e[1]);
			break;
		}
		if (e[0] != MADT_GICC || e[1] < GICC_MIN_LEN ||
		    !(le(e + GICC_FLAGS, 4) & (GICC_ENABLED | GICC_ONLINE_CAPABLE)))
			continue;
		if (n == HIB_TGT_CPUS_MAX) {
			rc = hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED, "%s: more than %u CPUs", path,
					    HIB_TGT_CPUS_MAX);
			break;
		}
		v[n++] = le(e + GICC_MPIDR, 8);
	}
	free(b);
	if (!rc && !n)
		rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: no enabled GICC entry (not an arm64 MADT?)", path);
	if (!rc)
		rc = cpus_take(t, v, n, "ACPI MADT");
	if (rc)
		hib_tgt_problem(t, HIB_TIN_CPUS);
	return rc;
}

const uint64_t *hib_target_cpus(const struct hib_target *t, size_t *n)
{
	*n = t->cpus_set ? t->info.n_cpus : 0;
	return t->cpus_set ? t->cpus : NULL;
}
