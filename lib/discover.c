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

/* The caller indexes nothing by sizeof(struct hib_found): it asks for
 * each one, so the struct can grow. */
struct hib_found_list {
	struct hib_found *v;
	size_t n;
};

static int push(struct hib_found_list *l, const char *path, uint64_t off,
		int configured)
{
	struct hib_found *v;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].path, path) && l->v[i].resume_offset == off)
			return HIB_OK;
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return HIB_ERR_NOMEM;
	l->v = v;
	memset(&v[l->n], 0, sizeof(*v));
	v[l->n].path = strdup(path);
	if (!v[l->n].path)
		return HIB_ERR_NOMEM;
	v[l->n].resume_offset = off;
	v[l->n].configured = configured;
	l->n++;
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

int hib_discover(struct hib_found_list **out)
{
	char buf[64], path[64];
	unsigned int maj, min;
	blkid_cache cache = NULL;
	struct hib_found_list *list;
	int rc = HIB_OK;

	*out = NULL;
	list = calloc(1, sizeof(*list));
	if (!list)
		return HIB_ERR_NOMEM;
	if (!read_sysfs("/sys/power/resume", buf, sizeof(buf)) &&
	    sscanf(buf, "%u:%u", &maj, &min) == 2 && (maj || min)) {
		uint64_t off = 0;

		if (!read_sysfs("/sys/power/resume_offset", buf, sizeof(buf)))
			off = strtoull(buf, NULL, 10);
		snprintf(path, sizeof(path), "/dev/block/%u:%u", maj, min);
		rc = push(list, path, off, 1);
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
				rc = push(list, blkid_dev_devname(dev), 0, 0);
		}
		blkid_dev_iterate_end(it);
		blkid_put_cache(cache);
	}
	if (rc) {
		hib_discover_free(list);
		return rc;
	}
	*out = list;
	return HIB_OK;
}

size_t hib_found_count(const struct hib_found_list *list)
{
	return list ? list->n : 0;
}

const struct hib_found *hib_found_get(const struct hib_found_list *list, size_t i)
{
	return list && i < list->n ? &list->v[i] : NULL;
}

void hib_discover_free(struct hib_found_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->n; i++)
		free(list->v[i].path);
	free(list->v);
	free(list);
}
