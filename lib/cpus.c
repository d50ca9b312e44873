/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cpus.c - the CPUs the target kernel will know, as arm64 names them: the
 * MPIDR affinity value (MPIDR_EL1 & MPIDR_HWID_BITMASK) that a device-tree
 * cpu node holds in its reg. arch_hibernation_header_restore() looks the
 * image's sleep_cpu_mpidr up with get_logical_index(), which searches the
 * possible CPUs the boot enumerated from these nodes (ACPI machines: the
 * MADT, not read here).
 */
#include "targetP.h"

#include <dirent.h>
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

const uint64_t *hib_target_cpus(const struct hib_target *t, size_t *n)
{
	*n = t->cpus_set ? t->info.n_cpus : 0;
	return t->cpus_set ? t->cpus : NULL;
}
