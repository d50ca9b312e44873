/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * discover.c - where images may be on this machine: the device the kernel
 * would resume from, then whatever libblkid recognises as swsuspend.
 */
#include "hibimgP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <blkid.h>

static int push(struct hib_found **list, size_t *n, const char *path,
		uint64_t off, int configured)
{
	struct hib_found *l;
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*list)[i].path, path) && (*list)[i].resume_offset == off)
			return HIB_OK;
	l = realloc(*list, (*n + 1) * sizeof(*l));
	if (!l)
		return HIB_ERR_NOMEM;
	*list = l;
	l[*n].path = strdup(path);
	if (!l[*n].path)
		return HIB_ERR_NOMEM;
	l[*n].resume_offset = off;
	l[*n].configured = configured;
	(*n)++;
	return HIB_OK;
}

static int read_sysfs(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "re");
	size_t len;

	if (!f)
		return -1;
	len = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[len] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int hib_discover(struct hib_found **list, size_t *n)
{
	char buf[64], path[64];
	unsigned int maj, min;
	blkid_cache cache = NULL;
	int rc = HIB_OK;

	*list = NULL;
	*n = 0;
	if (!read_sysfs("/sys/power/resume", buf, sizeof(buf)) &&
	    sscanf(buf, "%u:%u", &maj, &min) == 2 && (maj || min)) {
		uint64_t off = 0;

		if (!read_sysfs("/sys/power/resume_offset", buf, sizeof(buf)))
			off = strtoull(buf, NULL, 10);
		snprintf(path, sizeof(path), "/dev/block/%u:%u", maj, min);
		rc = push(list, n, path, off, 1);
	}
	if (rc == HIB_OK && blkid_get_cache(&cache, "/dev/null") == 0) {
		blkid_dev_iterate it;
		blkid_dev dev;

		blkid_probe_all(cache);
		it = blkid_dev_iterate_begin(cache);
		blkid_dev_set_search(it, "TYPE", "swsuspend");
		while (rc == HIB_OK && blkid_dev_next(it, &dev) == 0) {
			dev = blkid_verify(cache, dev);
			if (dev)
				rc = push(list, n, blkid_dev_devname(dev), 0, 0);
		}
		blkid_dev_iterate_end(it);
		blkid_put_cache(cache);
	}
	if (rc) {
		hib_discover_free(*list, *n);
		*list = NULL;
		*n = 0;
	}
	return rc;
}

void hib_discover_free(struct hib_found *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i].path);
	free(list);
}
