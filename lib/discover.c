/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * discover.c - where images may be on this machine: the device the kernel
 * would resume from (/sys/power/resume), the active swap areas
 * (/proc/swaps), then whatever libblkid recognises as swsuspend. Every
 * file is read under a root, so a test can hand it a made-up machine;
 * libblkid's list of devices is this machine's, so it is asked only when
 * the root is "/".
 */
#include "hibimgP.h"
#include "targetP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <blkid.h>

/* The caller indexes nothing by sizeof(struct hib_found): it asks for
 * each one, so the struct can grow. */
struct hib_found_list {
	struct hib_found *v;
	size_t n;
	struct hib_discover_info info;
};

/* One area once: the same path, or the same block device (the resume
 * device is named by maj:min, /proc/swaps and libblkid by name). */
static bool same(const struct hib_found *f, const char *path, uint64_t off)
{
	struct stat a, b;

	if (f->resume_offset != off)
		return false;
	if (!strcmp(f->path, path))
		return true;
	return stat(f->path, &a) == 0 && stat(path, &b) == 0 && S_ISBLK(a.st_mode) &&
	       S_ISBLK(b.st_mode) && a.st_rdev == b.st_rdev;
}

static int push(struct hib_found_list *l, const char *path, uint64_t off,
		unsigned int source, struct hib_found **got)
{
	struct hib_found *v;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (same(&l->v[i], path, off)) {
			l->v[i].sources |= source;
			if (source & HIB_FOUND_RESUME)
				l->v[i].configured = 1;
			if (got)
				*got = &l->v[i];
			return HIB_OK;
		}
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return HIB_ERR_NOMEM;
	l->v = v;
	memset(&v[l->n], 0, sizeof(*v));
	v[l->n].path = strdup(path);
	if (!v[l->n].path)
		return HIB_ERR_NOMEM;
	v[l->n].resume_offset = off;
	v[l->n].configured = (source & HIB_FOUND_RESUME) != 0;
	v[l->n].sources = source;
	if (got)
		*got = &v[l->n];
	l->n++;
	return HIB_OK;
}

/* root + an absolute path of the machine; "/" adds nothing */
static void under(char *dst, size_t cap, const char *root, const char *abs)
{
	if (!strcmp(root, "/"))
		snprintf(dst, cap, "%s", abs);
	else
		snprintf(dst, cap, "%s%s%s", root, abs[0] == '/' ? "" : "/", abs);
}

/* A /proc/swaps name: the kernel escapes space, tab, newline and '\' as
 * \ooo (seq_file_path's " \t\n\\"). */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else
			*d++ = *s;
	}
	*d = 0;
}

/* Filename Type Size Used Priority, sizes in KiB, after a header line. */
static int read_swaps(struct hib_found_list *l, const char *root)
{
	char path[4096], line[4096 + 128], name[4096], type[32];
	unsigned long long size, used;
	struct hib_found *f;
	FILE *fp;
	int rc = HIB_OK;

	under(path, sizeof(path), root, "/proc/swaps");
	fp = fopen(path, "re");
	if (!fp)
		return HIB_OK;
	l->info.have_swaps = 1;
	while (rc == HIB_OK && fgets(line, sizeof(line), fp)) {
		if (!strncmp(line, "Filename", 8) ||
		    sscanf(line, "%4095s %31s %llu %llu", name, type, &size, &used) != 4)
			continue;
		unescape(name);
		l->info.swaps++;
		under(path, sizeof(path), root, name);
		rc = push(l, path, 0, HIB_FOUND_SWAPS, &f);
		if (rc == HIB_OK) {
			f->swap_file = !strcmp(type, "file");
			f->swap_size = size * 1024;
			f->swap_used = used * 1024;
		}
	}
	fclose(fp);
	return rc;
}

static int read_blkid(struct hib_found_list *l)
{
	blkid_cache cache = NULL;
	blkid_dev_iterate it;
	blkid_dev dev;
	int rc = HIB_OK;

	/* no cache file: libblkid would read and rewrite its default one */
	if (blkid_get_cache(&cache, "/dev/null") != 0)
		return HIB_OK;
	l->info.blkid = 1;
	blkid_probe_all(cache);
	it = blkid_dev_iterate_begin(cache);
	blkid_dev_set_search(it, "TYPE", "swsuspend");
	while (rc == HIB_OK && blkid_dev_next(it, &dev) == 0) {
		dev = blkid_verify(cache, dev);
		if (dev)
			rc = push(l, blkid_dev_devname(dev), 0, HIB_FOUND_BLKID, NULL);
	}
	blkid_dev_iterate_end(it);
	blkid_put_cache(cache);
	return rc;
}

int hib_discover_root(const char *root, struct hib_found_list **out)
{
	struct hib_found_list *list;
	struct hib_target *t;
	const struct hib_target_info *ti;
	int rc = HIB_OK;

	*out = NULL;
	if (!root || !*root)
		root = "/";
	list = calloc(1, sizeof(*list));
	t = hib_target_new();
	if (!list || !t) {
		free(list);
		hib_target_free(t);
		return HIB_ERR_NOMEM;
	}
	/* the resume area as check --here resolves it: /sys/power/resume's
	 * maj:min, else the command line's resume= */
	hib_here_boot(t, root);
	ti = hib_target_info(t);
	list->info.have_resume = ti->resume_dev[0] != 0;
	snprintf(list->info.resume_dev, sizeof(list->info.resume_dev), "%s", ti->resume_dev);
	list->info.have_cmdline = ti->have_cmdline;
	snprintf(list->info.cmdline_resume, sizeof(list->info.cmdline_resume), "%s", ti->resume);
	list->info.resume_offset = ti->have_resume_offset ? ti->resume_offset : 0;
	if (ti->resume_path[0])
		rc = push(list, ti->resume_path, list->info.resume_offset, HIB_FOUND_RESUME, NULL);
	hib_target_free(t);
	if (rc == HIB_OK)
		rc = read_swaps(list, root);
	if (rc == HIB_OK && !strcmp(root, "/"))
		rc = read_blkid(list);
	if (rc) {
		hib_discover_free(list);
		return rc;
	}
	*out = list;
	return HIB_OK;
}

int hib_discover(struct hib_found_list **out)
{
	return hib_discover_root("/", out);
}

const struct hib_discover_info *hib_found_info(const struct hib_found_list *list)
{
	return list ? &list->info : NULL;
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
